"""Reading transcript bytes and turning them into text, with one-line errors.

Every refusal is an :class:`~attention_cloud.errors.InputError` whose message is one line that
names the file, and the line when it is known: ``notes.txt:3: invalid UTF-8 (byte 0xff at
column 7)``. Invalid UTF-8 is never replaced silently; only line-oriented JSON formats, where
one bad line is one skippable record, decode line by line instead of failing (see
:func:`lines_of`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError


@dataclass
class Source:
    """A transcript's raw bytes and, when they are valid UTF-8, its text.

    Attributes:
        name: how errors name the transcript (the path as given, or the ``name=`` of text).
        pointer_base: how pointers name it (absolute path, or the given name for text).
        stem: the default session name (file name without its extension).
        data: the bytes.
        text: the decoded text without a byte order mark, or None when not valid UTF-8.
        decode_error: the first decoding error when ``text`` is None.
    """

    name: str
    pointer_base: str
    stem: str
    data: bytes
    text: str | None
    decode_error: UnicodeDecodeError | None = None

    @property
    def ends_with_newline(self) -> bool:
        """True when the last line is complete (a writer that was cut off leaves no newline)."""
        return self.data.endswith(b"\n")


def one_line(name: str) -> str:
    """``name`` with control characters escaped, so error messages stay one line."""
    if name.isprintable():
        return name
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in name)


def fail(source_name: str, message: str, line: int | None = None) -> InputError:
    """An :class:`InputError` reading ``NAME[:LINE]: MESSAGE``."""
    where = one_line(source_name) if line is None else f"{one_line(source_name)}:{line}"
    return InputError(f"{where}: {message}")


def read_path(path: str | os.PathLike[str]) -> Source:
    """Read a transcript file; refuse missing, unreadable, directory, empty and binary input."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise fail(name, "no such file") from None
    except IsADirectoryError:
        raise fail(name, "is a directory, expected a transcript file") from None
    except PermissionError:
        raise fail(name, "permission denied") from None
    except OSError as error:
        if Path(name).is_dir():
            raise fail(name, "is a directory, expected a transcript file") from None
        raise fail(name, f"cannot read ({error.strerror or error})") from None
    return make_source(data, name=name, pointer_base=os.path.abspath(name))


def make_source(data: bytes | str, *, name: str, pointer_base: str | None = None) -> Source:
    """Check and decode in-memory transcript data named ``name``."""
    stem = Path(name).stem or name
    if isinstance(data, str):
        if "\x00" in data:
            raise _binary_error(data.encode("utf-8", "surrogatepass"), name)
        text = data[1:] if data.startswith("\ufeff") else data
        source = Source(
            name, pointer_base or name, stem, text.encode("utf-8", "surrogatepass"), text
        )
    else:
        if b"\x00" in data:
            raise _binary_error(data, name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            source = Source(name, pointer_base or name, stem, data, None, error)
        else:
            text = text[1:] if text.startswith("\ufeff") else text
            source = Source(name, pointer_base or name, stem, data, text)
    if not source.data or source.data.isspace():
        raise fail(name, "empty file, nothing to parse")
    return source


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and byte column of ``offset`` in ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _binary_error(data: bytes, name: str) -> InputError:
    line, column = _position(data, data.index(b"\x00"))
    return fail(name, f"binary data (NUL byte at column {column}), not a text transcript", line)


def utf8_error(source: Source) -> InputError:
    """The error for a source that must be valid UTF-8 as a whole and is not."""
    error = source.decode_error
    assert error is not None
    line, column = _position(source.data, error.start)
    byte = source.data[error.start]
    return fail(source.name, f"invalid UTF-8 (byte 0x{byte:02x} at column {column})", line)


def require_text(source: Source) -> str:
    """The source's text, or the invalid UTF-8 error when it has none."""
    if source.text is None:
        raise utf8_error(source)
    return source.text


def lines_of(source: Source) -> Iterator[tuple[int, str | None, str]]:
    """Yield ``(line number, text or None, problem)`` for every line of the source.

    A line that is not valid UTF-8 comes as ``(n, None, "invalid UTF-8 ...")`` so that a
    line-oriented parser can skip and report it; the other lines decode normally. Lines are
    split on ``\\n`` only (``str.splitlines`` would also split on characters such as U+2028
    that JSON strings may contain); a trailing ``\\r`` is dropped.
    """
    if source.text is not None:
        for number, line in enumerate(source.text.split("\n"), 1):
            yield number, line[:-1] if line.endswith("\r") else line, ""
        return
    for number, raw in enumerate(source.data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield (
                number,
                None,
                f"invalid UTF-8 (byte 0x{raw[error.start]:02x} at column {error.start + 1})",
            )
            continue
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        yield number, line[:-1] if line.endswith("\r") else line, ""
