"""Reading transcript bytes and turning them into text, with one-line errors.

Transcripts are read as UTF-8 with lines ending in LF (CRLF too). Two other shapes of text that
tools write are brought to that first, by :func:`as_utf8`, so that every reader of a file's bytes
(the parsers, the watermark's digest, a pointer read back by ``atc show --source``) counts the
same lines: UTF-16 or UTF-32 that starts with its byte order mark (Windows Notepad's "Unicode",
PowerShell 5's ``>``), and lines ending in CR alone (classic Mac OS); a DOS end-of-file mark
(Ctrl-Z) after the last line is dropped.

Every refusal is an :class:`~attention_cloud.errors.InputError` whose message is one line that
names the file, and the line when it is known: ``notes.txt:3: invalid UTF-8 (byte 0xff at
column 7)``. Invalid UTF-8 is never replaced silently; only line-oriented JSON formats, where
one bad line is one skippable record, decode line by line instead of failing (see
:func:`lines_of`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

#: The file names a folder is searched for; other files in a folder are not looked at. Caption
#: files (WebVTT, SubRip) are meeting transcripts as Zoom and Teams save them; one that names no
#: speaker (a film's subtitles) is reported as no transcript, as another ``.txt`` is.
TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".ndjson", ".txt", ".md", ".markdown", ".log", ".traj",
                       ".csv", ".vtt", ".srt")
#: What a folder walk looks at: transcripts, and HTML pages, read when they are a chat export's
#: (Telegram's, Discord's, Messenger's or Instagram's; see :mod:`.chat_pages`).
PAGE_SUFFIXES = (".html", ".htm")
WALKED_SUFFIXES = (*TRANSCRIPT_SUFFIXES, *PAGE_SUFFIXES)

#: The largest transcript file read, in bytes, unless the caller (or ``max_file_bytes`` in the
#: home's config.json) says otherwise: a bigger file is refused before it is read.
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024


#: The byte order marks of the encodings other than UTF-8 that a transcript is read in, longest
#: first (UTF-32's little-endian mark starts with UTF-16's), with their names as errors give them.
_WIDE_MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
    (b"\xff\xfe", "utf-16-le", "UTF-16"),
    (b"\xfe\xff", "utf-16-be", "UTF-16"),
)
#: The end-of-file mark (Ctrl-Z) that DOS tools, and some Windows ones still, write after the
#: last line: read, it was a last line of one control character (a JSON document "cannot
#: detect format", a JSON Lines file "truncated last line", a text's last turn ending in it).
DOS_END_OF_FILE = b"\x1a"
# Control characters no transcript holds (tab, line ends, form feed and ESC, which terminal
# colours use, are text): decoded "text" holding them was binary data after all.
_NOT_TEXT = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")


@dataclass
class Source:
    """A transcript's bytes (as :func:`as_utf8` gives them) and, when they are valid UTF-8, its
    text, decoded the first time it is asked for: a reader of JSON Lines takes the bytes a line
    at a time (:func:`lines_of`), so a large session is never held decoded whole (one emoji
    makes Python store every character of a text in four bytes).

    Attributes:
        name: how errors name the transcript (the path as given, or the ``name=`` of text).
        pointer_base: how pointers name it (absolute path, or the given name for text).
        stem: the default session name (file name without its extension).
        data: the bytes, UTF-8 unless invalid, lines ending in LF (or CRLF).
        file_size: the size of the file as read when ``data`` differs in length (a UTF-16 file
            re-encoded), else None.
    """

    name: str
    pointer_base: str
    stem: str
    data: bytes
    file_size: int | None = None
    _text: str | None = field(default=None, repr=False, compare=False)
    _decode_error: UnicodeDecodeError | None = field(default=None, repr=False, compare=False)
    _decoded: bool = field(default=False, repr=False, compare=False)
    _document: tuple[Any] | None = field(default=None, repr=False, compare=False)
    # A line-oriented reader resumed where an earlier reading of this file's first bytes
    # stopped (:mod:`.resume`): how many bytes and lines it had read, and what to call when
    # it reaches the end of the last complete line (``at_last_line(bytes, lines)``).
    resume_at: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)
    at_last_line: Any = field(default=None, repr=False, compare=False)
    # Other files, outside this one's folder, that may hold an earlier part of its
    # conversation (:mod:`.earlier_files`): a resumed Claude Code session's old file is looked
    # for there too (:mod:`.earlier_copies`, :mod:`.earlier_goals`).
    elsewhere: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # The size limit the file was read under (None: none): a reader that reads other files
    # for what this one refers to (a resumed session's earlier file) reads none larger.
    size_limit: int | None = field(default=DEFAULT_MAX_FILE_BYTES, repr=False, compare=False)

    def keep_document(self, document: Any) -> None:
        """Hold ``document``, what decoding the whole text as JSON gave, for the parser:
        format detection decodes a JSON document to tell its format, and a large export
        (ChatGPT's conversations.json) decoded again took as long a second time."""
        self._document = (document,)

    def take_document(self) -> tuple[Any] | None:
        """The document :meth:`keep_document` held, in a 1-tuple (None when none), let go of
        here: a parser may change what it reads, so it is handed out once."""
        kept, self._document = self._document, None
        return kept

    @property
    def text(self) -> str | None:
        """The decoded text without a byte order mark, or None when not valid UTF-8."""
        if not self._decoded:
            self._decode()
        return self._text

    @property
    def json_text(self) -> str | None:
        """The text for a JSON decoder, None when not valid UTF-8: ``text`` itself once decoded,
        else decoded with each character beyond U+FFFF written as the JSON escape of its
        surrogate pair (``\\ud83d\\udccb`` for 📋), which a decoder turns back into that
        character inside its own string. One emoji makes Python store every character of a
        text in four bytes; so a large JSON document is held at one or two bytes a character
        while it is decoded. It is not kept (``text`` is, once asked for): a reader holds the
        document it decodes."""
        if self._decoded:
            return self.text
        try:
            text = _astral_escaped(self.data).decode("utf-8")
        except UnicodeDecodeError:
            return self.text  # not valid UTF-8: text says so (None) and decode_error why
        return text[1:] if text.startswith("\ufeff") else text

    @property
    def decode_error(self) -> UnicodeDecodeError | None:
        """The first decoding error when ``text`` is None."""
        if not self._decoded:
            self._decode()
        return self._decode_error

    @property
    def decoded(self) -> bool:
        """True once the text has been decoded (and is held)."""
        return self._decoded

    def _decode(self) -> None:
        try:
            text = self.data.decode("utf-8")
        except UnicodeDecodeError as error:
            self._text, self._decode_error = None, error
        else:
            self._text = text[1:] if text.startswith("\ufeff") else text
        self._decoded = True

    @property
    def size_read(self) -> int:
        """How many bytes of the file were read (what a file's size on disk is compared with)."""
        return len(self.data) if self.file_size is None else self.file_size

    @property
    def ends_with_newline(self) -> bool:
        """True when the last line is complete (a writer that was cut off leaves no newline)."""
        return self.data.endswith(b"\n")


# A UTF-8 character beyond U+FFFF (four bytes). After an odd number of backslashes it is an
# invalid escape that writing it as one would make valid, and is left. (Matching the
# backslashes in the pattern, ``(\\*)`` before it, made the scan try a match at every byte:
# eight times slower on a file of no such character.)
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")
_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")


def _astral_escaped(data: bytes) -> bytes:
    """``data`` with each four-byte character written as :func:`_json_escape` writes it."""
    if not any(lead in data for lead in _ASTRAL_LEADS):  # most files: nothing to write
        return data
    return _ASTRAL.sub(_json_escape, data)


def _json_escape(match: re.Match[bytes]) -> bytes:
    """A four-byte UTF-8 character as the JSON escape of its surrogate pair (see
    :attr:`Source.json_text`), unless an odd number of backslashes precede it."""
    data, start = match.string, match.start()
    before = start
    while before and data[before - 1] == 0x5C:  # the backslashes before it
        before -= 1
    if (start - before) % 2:
        return match.group(0)
    try:
        code = ord(match.group(0).decode("utf-8")) - 0x10000
    except UnicodeDecodeError:
        return match.group(0)  # not a character: the whole decode reports it
    return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


# A UTF-8 byte order mark (Windows editors and PowerShell write one), then ASCII whitespace
# (what bytes.lstrip() strips), then the first byte that says what the data is.
_LEAD = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\n\r\x0b\x0c]*")


def content_start(data: bytes) -> int:
    """Where ``data``'s content starts: after a UTF-8 byte order mark and the whitespace
    before its first other byte (``len(data)`` when there is none). Read in place, never
    copying a large file as ``data.lstrip()`` does."""
    match = _LEAD.match(data)
    return match.end() if match else 0


def first_byte(data: bytes) -> bytes:
    """The first byte of ``data``'s content (see :func:`content_start`): ``b"["`` or ``b"{"``
    for a JSON document, a byte order mark before it or not; ``b""`` for none."""
    start = content_start(data)
    return data[start:start + 1]


def one_line(name: str) -> str:
    """``name`` with control characters escaped, so error messages stay one line."""
    if name.isprintable():
        return name
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in name)


def fail(source_name: str, message: str, line: int | None = None) -> InputError:
    """An :class:`InputError` reading ``NAME[:LINE]: MESSAGE``."""
    where = one_line(source_name) if line is None else f"{one_line(source_name)}:{line}"
    return InputError(f"{where}: {message}")


def read_path(path: str | os.PathLike[str], *, max_bytes: int | None = DEFAULT_MAX_FILE_BYTES) -> Source:
    """Read a transcript file; refuse missing, unreadable, directory, empty and binary input,
    anything that is not a regular file (a FIFO, a socket, a device such as ``/dev/zero``:
    never read, so nothing hangs or fills memory) and files over ``max_bytes`` (None: no limit).
    """
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of hanging; what was
        # opened is checked with fstat before a byte is read (no race with a swapped path).
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
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
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise fail(name, "is a directory, expected a transcript file")
        raise fail(name, not_regular(info.st_mode))
    if max_bytes is not None and info.st_size > max_bytes:
        os.close(fd)
        raise fail(name, too_large(info.st_size, max_bytes))
    with os.fdopen(fd, "rb") as handle:
        try:
            # read what fstat said is there (a buffer of max_bytes would be allocated whole),
            # then whatever the file grew by while it was read, up to the limit
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                rest = -1 if max_bytes is None else max_bytes + 1 - len(data)
                data += handle.read(rest)
        except OSError as error:
            raise fail(name, f"cannot read ({error.strerror or error})") from None
    if max_bytes is not None and len(data) > max_bytes:  # it grew while being read
        raise fail(name, too_large(len(data), max_bytes))
    source = make_source(data, name=name, pointer_base=os.path.abspath(name))
    source.size_limit = max_bytes
    return source


def not_regular(mode: int) -> str:
    """Why a file of this ``st_mode`` is not read: ``not a regular file (a FIFO), not read``."""
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    kind = next((label for test, label in kinds if test(mode)), "not a plain file")
    return f"not a regular file ({kind}), not read"


def _size(n: int) -> str:
    return f"{n / 1024 ** 2:.1f} MiB" if n >= 1024 ** 2 else f"{n} bytes"


def too_large(size: int, limit: int) -> str:
    """Why a file over the size limit is not read (and how to raise the limit)."""
    return (f"{_size(size)}, over the {_size(limit)} limit per file, not read "
            "(raise it with --max-file-bytes or max_file_bytes in config.json)")


@dataclass(frozen=True)
class Found:
    """A file an ingest call will look at.

    Attributes:
        path: the file.
        named: given as a path itself rather than found by walking a folder.
        problem: why it is not read (a FIFO found in a folder, ...); "" for a file to read.
    """

    path: Path
    named: bool
    problem: str = ""


def find_transcripts(paths: Iterable[str | os.PathLike[str]], *,
                     skip: str | os.PathLike[str] | None = None) -> list[Found]:
    """The files ``paths`` name: files as given, folders walked (sorted) for names ending in
    :data:`WALKED_SUFFIXES` (an HTML page that is no chat export comes back with its
    ``problem``, left out), leaving out what lies in the folder ``skip`` (the memory
    home: its receipts and indexes are no transcripts, and a watcher would read them again
    after each of its own writes).

    A non-regular file found in a folder comes back with its ``problem``, to be reported and
    skipped; one named directly, or a path that does not exist, is an error.

    Raises:
        InputError: ``PATH: no such file or directory``, ``PATH: not a regular file (a FIFO),
            not read``.
    """
    found: list[Found] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            left_out = skipped_within(path, skip)
            entries = sorted(path.rglob("*"))
            homes = HomesWithin(path, [e.parent for e in entries if e.name == "journal.pl"])
            for entry in entries:
                if entry.suffix.lower() not in WALKED_SUFFIXES:
                    continue
                if left_out is not None and (entry == left_out or left_out in entry.parents):
                    continue
                home = homes.holding(entry)
                if home is not None:
                    if home not in homes.reported:
                        homes.reported.add(home)
                        found.append(Found(home, False, OTHER_HOME))
                    continue
                try:
                    mode = entry.stat().st_mode
                except OSError as error:  # a broken symbolic link, a vanished file
                    found.append(Found(entry, False, f"cannot read ({error.strerror or error})"))
                    continue
                if stat.S_ISDIR(mode):
                    continue
                found.append(Found(entry, False, _walked_problem(entry, mode)))
        elif path.exists():
            mode = path.stat().st_mode
            if not stat.S_ISREG(mode):
                raise fail(str(path), not_regular(mode))
            found.append(Found(path, True))
        else:
            raise InputError(f"{one_line(str(path))}: no such file or directory")
    return _without_thread_pages_read_as_json(found)


def _without_thread_pages_read_as_json(found: list[Found]) -> list[Found]:
    """``found`` with each Messenger or Instagram thread page a walk found left out where the
    thread's JSON pages are among the files found (:func:`.chat_pages.thread_pages_with_json`)."""
    from .chat_pages import JSON_BESIDE, is_page, thread_pages_with_json

    pages = [f.path for f in found if not f.named and not f.problem and is_page(f.path)]
    if not pages:
        return found
    twins = thread_pages_with_json(pages, (f.path for f in found if not f.problem))
    return [Found(f.path, f.named, JSON_BESIDE) if f.path in twins and not f.named else f
            for f in found]


def _walked_problem(entry: Path, mode: int) -> str:
    """Why a file a folder walk found is not read ("" when it is): not a regular file, or an
    HTML page that is no chat export (:mod:`.chat_pages`)."""
    if not stat.S_ISREG(mode):
        return not_regular(mode)
    from .chat_pages import is_page, page_problem  # its readers import this module

    return page_problem(entry) if is_page(entry) else ""


#: Why a memory home found in a folder ingested or watched is not read: its journal, receipts
#: and indexes are no transcripts (one line for the folder, not one per file).
OTHER_HOME = "a memory home (its files are no transcripts), left out"


def left_out(problem: str) -> bool:
    """Whether a file found in a folder with ``problem`` is left out (reported, never a failed
    ingest): a memory home, a web page beside a chat export, a thread's page beside its JSON
    or whose JSON memory holds."""
    from .chat_pages import JSON_BESIDE, JSON_HELD, NOT_A_CHAT_PAGE

    return problem in (OTHER_HOME, NOT_A_CHAT_PAGE, JSON_BESIDE, JSON_HELD)


def is_memory_home(folder: Path) -> bool:
    """Whether ``folder`` is a memory home: it holds a journal (``journal.pl``) beside another
    of the names only a home holds (its lock, config.json, receipts, indexes). A journal alone
    may be anyone's Prolog file."""
    from ..home import HOME_NAMES

    try:
        names = {entry.name for entry in os.scandir(folder)}
    except OSError:
        return False
    return "journal.pl" in names and len(names & HOME_NAMES) >= 2


class HomesWithin:
    """The memory homes under one folder walked (the folder itself included), each folder
    looked at once. ``journals``: the folders a walk found a ``journal.pl`` in, when it has
    them (only those can be homes); else each folder is looked into."""

    def __init__(self, root: Path, journals: Iterable[Path] | None = None) -> None:
        self.root = root
        self.reported: set[Path] = set()
        self._homes: dict[Path, Path | None] = {}
        self._journals = None if journals is None else set(journals)

    def holding(self, path: Path) -> Path | None:
        """The home folder ``path`` lies in, under the root or the root itself; else None."""
        folder = path.parent
        if folder in self._homes:
            return self._homes[folder]
        if folder != self.root and self.root in folder.parents:
            home = self.holding(folder)
        else:
            home = None
        if home is None and (folder == self.root or self.root in folder.parents) \
                and (self._journals is None or folder in self._journals) \
                and is_memory_home(folder):
            home = folder
        self._homes[folder] = home
        return home


def skipped_within(root: Path, skip: str | os.PathLike[str] | None) -> Path | None:
    """The folder ``skip`` as a path under ``root`` as written (``root`` itself when they
    are one), so that the entries of a walk of ``root`` are compared without resolving each;
    None when ``skip`` is None or not inside ``root``."""
    if skip is None:
        return None
    try:
        inside = Path(skip).resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    return root / inside


def as_utf8(data: bytes, name: str) -> bytes:
    """``data`` as UTF-8 with LF line ends: text in UTF-16 or UTF-32 that starts with its byte
    order mark re-encoded (the mark dropped), and such text without its mark too, known by
    decoding cleanly where its NUL bytes say it is wide (:func:`_unmarked_wide_text`), and
    lines ending in CR alone (a file with no LF at all: a CR inside lines that end in LF is
    part of their text) ended with LF instead, and the end-of-file marks (Ctrl-Z) DOS-era
    tools still write after the last line dropped; other bytes as they are.

    Raises:
        InputError: a byte order mark of UTF-16 or UTF-32 on bytes that are not that encoding
            (``NAME:LINE: invalid UTF-16 (byte order mark FF FE): an odd number of bytes ...``).
    """
    for mark, codec, label in _WIDE_MARKS:
        if data.startswith(mark):
            try:
                text = data[len(mark):].decode(codec)
            except UnicodeDecodeError as error:
                raise _wide_error(data, len(mark), codec, label, error, name) from None
            data = text.encode("utf-8")
            break
    else:
        if b"\x00" in data:
            text = _unmarked_wide_text(data)
            if text is not None:
                data = text.encode("utf-8")
    if b"\r" in data and b"\n" not in data:
        data = data.replace(b"\r", b"\n")
    return data.rstrip(DOS_END_OF_FILE) if data.endswith(DOS_END_OF_FILE) else data


def _unmarked_wide_text(data: bytes) -> str | None:
    """``data`` decoded as UTF-32 or UTF-16 written without a byte order mark, or None when
    it is neither. UTF-32 decodes only where every fourth byte is NUL; UTF-16 is tried in the
    byte order its NULs say (:func:`_utf16_order`), as any even number of bytes decodes as
    UTF-16 of some script. Either way the text must hold only characters text holds: binary
    data decodes to NULs and control characters."""
    candidates = [codec for codec in ("utf-32-le", "utf-32-be") if len(data) % 4 == 0]
    order = _utf16_order(data)
    if order is not None and len(data) % 2 == 0:
        candidates.append(order[0])
    for codec in candidates:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if not _NOT_TEXT.search(text):
            return text
    return None


def _utf16_order(data: bytes) -> tuple[str, str] | None:
    """``(codec, label)`` of the UTF-16 that bytes holding NULs seem to be, or None: text of
    Latin script in UTF-16 is about every other byte NUL, the high byte of each unit (at odd
    offsets little-endian, even big-endian), while binary data has NULs anywhere."""
    sample = data[:65536]
    odd = sample[1::2].count(0)
    even = sample[0::2].count(0)
    if odd + even < len(sample) // 5:
        return None
    if odd >= 9 * even:
        return "utf-16-le", "UTF-16 LE"
    if even >= 9 * odd:
        return "utf-16-be", "UTF-16 BE"
    return None


def _wide_hint(data: bytes) -> str:
    """What bytes refused as binary seem to be when their NULs fall as UTF-16's do:
    `` (it looks like UTF-16 LE without a byte order mark, but ...)``; else ``""``."""
    order = _utf16_order(data)
    if order is None:
        return ""
    codec, label = order
    if len(data) % 2:
        why = "an odd number of bytes"
    else:
        try:
            data.decode(codec)
        except UnicodeDecodeError as error:
            why = error.reason
        else:
            why = "it holds control characters no text has"
    return f" (it looks like {label} without a byte order mark, but does not decode as it: {why})"


def _wide_error(data: bytes, skip: int, codec: str, label: str, error: UnicodeDecodeError,
                name: str) -> InputError:
    """The one-line error for UTF-16 or UTF-32 that is not what its byte order mark claims."""
    unit = 4 if label == "UTF-32" else 2
    body = data[skip:]
    if "surrogate" in error.reason:
        what = "a lone surrogate (half of a character's pair)"
    elif len(body) % unit and error.start >= len(body) - len(body) % unit:
        what = f"{'an odd number of bytes' if unit == 2 else 'a length not a multiple of 4'} " \
            "(a half character at the end)"
    else:
        what = error.reason
    line = body[:error.start].decode(codec, "replace").count("\n") + 1
    mark = " ".join(f"{byte:02X}" for byte in data[:skip])
    return fail(name, f"invalid {label} (byte order mark {mark}): {what}", line)


def make_source(data: bytes | str, *, name: str, pointer_base: str | None = None) -> Source:
    """Check and decode in-memory transcript data named ``name`` (bytes as :func:`as_utf8`
    reads them; text with CR line ends alone given LF)."""
    stem = Path(name).stem or name
    if isinstance(data, str):
        if "\r" in data and "\n" not in data:
            data = data.replace("\r", "\n")
        if "\x00" in data:
            raise _binary_error(data.encode("utf-8", "surrogatepass"), name)
        text = data[1:] if data.startswith("\ufeff") else data
        source = Source(name, pointer_base or name, stem, text.encode("utf-8", "surrogatepass"),
                        _text=text, _decoded=True)
    else:
        read = len(data)
        data = as_utf8(data, name)
        if b"\x00" in data:
            raise _binary_error(data, name)
        size = None if len(data) == read else read
        source = Source(name, pointer_base or name, stem, data, file_size=size)
    if not source.data or source.data.isspace():
        raise fail(name, "empty file, nothing to parse")
    return source


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and byte column of ``offset`` in ``data``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def _binary_error(data: bytes, name: str) -> InputError:
    # exports arrive zipped (WhatsApp's with media, ChatGPT's, Slack's, Telegram's): say so
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return fail(name, "a zip archive, not a transcript: unzip it and ingest the folder or "
                          "the chat inside (WhatsApp's _chat.txt, ChatGPT's conversations.json, "
                          "a Slack export's channel folders)")
    if data.startswith(b"\x1f\x8b"):
        return fail(name, "gzip-compressed, not a transcript: gunzip it and ingest the file")
    line, column = _position(data, data.index(b"\x00"))
    return fail(name, f"binary data (NUL byte at column {column}), not a text transcript"
                f"{_wide_hint(data)}", line)


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


def _byte_lines(data: bytes) -> Iterator[bytes]:
    """The lines of ``data`` split on LF, one at a time (no list of them all)."""
    start = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            yield data[start:]
            return
        yield data[start:end]
        start = end + 1


def lines_of(source: Source) -> Iterator[tuple[int, str | None, str]]:
    """Yield ``(line number, text or None, problem)`` for every line of the source.

    A line that is not valid UTF-8 comes as ``(n, None, "invalid UTF-8 ...")`` so that a
    line-oriented parser can skip and report it; the other lines decode normally. Lines are
    split on ``\\n`` only (``str.splitlines`` would also split on characters such as U+2028
    that JSON strings may contain); a trailing ``\\r`` is dropped.
    Of a source resumed (``Source.resume_at``: bytes and lines already read), the lines after
    them, numbered on from there.
    """
    start, lines_before = source.resume_at
    if source.decoded and source.text is not None and not start:
        for number, line in enumerate(source.text.split("\n"), 1):
            yield number, line[:-1] if line.endswith("\r") else line, ""
        return
    data = source.data[start:] if start else source.data
    for number, raw in enumerate(_byte_lines(data), lines_before + 1):
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
