"""Reading JSON Lines transcripts record by record, skipping and reporting bad lines.

A malformed line (invalid JSON, invalid UTF-8, nesting deeper than the decoder allows, a
truncated last line left by a writer that was cut off) is one record lost, not the transcript:
it goes to ``skipped`` with its line number. Envelopes are removed from every string of each
decoded record before the record is looked at. An envelope written raw across several lines
(not inside a JSON string) is dropped too, with every line up to its closing tag, even lines
that would parse.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from .collector import ItemCollector
from .envelope import (
    ENVELOPE_TAG,
    bytes_may_hold_envelope,
    has_closing_envelope_tag,
    may_hold_envelope,
    scan_tag_blocks,
    strip_envelopes_in,
)
from .source import Source, content_start, fail, first_byte, lines_of, require_text

_decode = json.JSONDecoder().decode  # json.loads less its per-call argument checks


def json_error_reason(error: json.JSONDecodeError) -> str:
    """``invalid JSON: <what> (column <n>)``."""
    return f"invalid JSON: {error.msg} (column {error.colno})"


def number_error_reason(error: ValueError) -> str:
    """Why a number Python will not convert was refused (an integer of over 4,300 digits
    raises a plain ValueError, not a JSONDecodeError)."""
    return "invalid JSON: " + str(error).split(":", 1)[0].lower()


def number_error_line(text: str) -> int | None:
    """The line of ``text`` holding the first integer longer than Python converts
    (``sys.get_int_max_str_digits``), which the decoder's ValueError does not tell; None
    when there is no limit or no such integer."""
    limit = sys.get_int_max_str_digits()
    found = re.search(r"\d{%d,}" % (limit + 1), text) if limit else None
    return None if found is None else text.count("\n", 0, found.start()) + 1


def json_records(source: Source, collector: ItemCollector) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, decoded object)`` for every well-formed non-blank line.

    Bad lines, and lines holding JSON values other than objects, are reported to
    ``collector.skip``; every non-blank line counts as read. A source resumed
    (``Source.resume_at``) yields the lines after those read before; ``Source.at_last_line``,
    if set, is called with the bytes and lines before the last line once every record before
    it has been handled (the reader's state is then that of those lines alone, the line a
    writer may still be writing not begun), unless an envelope written raw is open there.
    """
    last_line = source.data.count(b"\n") + 1
    complete = source.ends_with_newline
    inside_envelope = False
    for number, line, problem in lines_of(source):
        if number == last_line and source.at_last_line is not None and not inside_envelope:
            source.at_last_line(source.data.rfind(b"\n") + 1, last_line - 1)
        if line is None:
            collector.records_read += 1
            collector.skip(number, problem)
            continue
        if not line or line.isspace():
            continue
        collector.records_read += 1
        if inside_envelope:
            collector.skip(number, "inside a <memory-frame> envelope")
            inside_envelope = not has_closing_envelope_tag(line)
            continue
        try:
            record = _decode(line)
        except RecursionError:
            collector.skip(number, "JSON nested too deeply")
            continue
        except json.JSONDecodeError as error:
            _, found, open_at = scan_tag_blocks(line, ENVELOPE_TAG)
            if found:
                reason = "<memory-frame> envelope outside JSON"
                collector.envelopes_stripped += found
                inside_envelope = open_at >= 0
            elif number == last_line and not complete:
                reason = "truncated last line: " + json_error_reason(error)
            else:
                reason = json_error_reason(error)
            collector.skip(number, reason)
            continue
        except ValueError as error:
            collector.skip(number, number_error_reason(error))
            continue
        if not isinstance(record, dict):
            collector.skip(number, "not a JSON object")
            continue
        if may_hold_envelope(line):
            collector.envelopes_stripped += strip_envelopes_in(record)
        yield number, record


def json_lines_head(data: bytes, lines: int) -> str | None:
    """The first ``lines`` lines of ``data`` as text when ``data`` is JSON Lines of objects
    beyond doubt (its first non-blank line an object on its own, another line with text after
    it), else None. What tells a format apart is in its first lines, so a large session is
    recognised without decoding all of it."""
    start = content_start(data)
    end = data.find(b"\n", start)
    if end < 0 or data[start:start + 1] != b"{" or data[end:].isspace():
        return None
    try:
        first = _decode(data[start:end].decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(first, dict):
        return None
    cut = end
    for _ in range(lines):
        cut = data.find(b"\n", cut + 1)
        if cut < 0:
            cut = len(data)
            break
    head = data[:cut].decode("utf-8", "replace")
    return head[1:] if head.startswith("\ufeff") else head


def reads_as_document(data: bytes) -> bool:
    """True when :func:`json_document` decodes ``data`` whole: it starts with ``[``, or with
    ``{`` and is not JSON Lines beyond doubt (see :func:`json_lines_head`)."""
    first = first_byte(data)
    return first == b"[" or (first == b"{" and json_lines_head(data, 0) is None)


def json_document(source: Source) -> Any | None:
    """The transcript as one JSON document (envelopes still in it), or None when it is not
    one: it does not start with ``[`` or ``{``, or it is JSON Lines (several values, one per
    line). A JSON array must be valid UTF-8 throughout.

    Raises:
        InputError: invalid JSON that is not JSON Lines either (with its line), or nesting
            deeper than the decoder allows.
    """
    kept = source.take_document()
    if not reads_as_document(source.data):
        return None  # not JSON, or JSON Lines known from its first line: read a line at a time
    if kept is not None:
        return kept[0]  # format detection decoded it already
    first = first_byte(source.data)
    text = source.json_text  # never the whole text at four bytes a character for one emoji
    if text is None:
        if first == b"[" or not _first_line_is_a_record(source.data):
            require_text(source)  # raises: a JSON document must be valid UTF-8 throughout
        return None  # JSON Lines: a line of invalid UTF-8 is that line's loss alone
    try:
        return json.loads(text)
    except RecursionError:
        raise fail(source.name, "JSON nested too deeply") from None
    except json.JSONDecodeError as error:
        if first == b"{" and (error.msg == "Extra data" or some_line_parses(text)):
            return None  # several values, one per line: JSON Lines
        if text is not source.text:  # the column as the file writes it, not as escaped
            error = _decode_error(source.text) or error
        raise fail(source.name, json_error_reason(error), error.lineno) from None
    except ValueError as error:
        if first == b"{" and some_line_parses(text):
            return None  # JSON Lines: the number fails its own line only
        raise fail(source.name, number_error_reason(error), number_error_line(text)) from None


def _first_line_is_a_record(data: bytes) -> bool:
    """Whether the first line of ``data`` (invalid UTF-8 in it replaced) is a JSON object on
    its own: JSON Lines, not a document laid out over lines (``{`` alone on its first line),
    whose invalid UTF-8 was read as each of its lines' invalid JSON ("no records could be
    parsed ... line 1: invalid JSON") instead of named."""
    start = content_start(data)
    end = data.find(b"\n", start)
    line = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
    try:
        return isinstance(_decode(line), dict)
    except (ValueError, RecursionError):
        return False


def _decode_error(text: str | None) -> json.JSONDecodeError | None:
    """The error decoding ``text`` as JSON gives, if any."""
    try:
        json.loads(text or "")
    except json.JSONDecodeError as error:
        return error
    except (ValueError, RecursionError):
        pass
    return None


def strip_document_envelopes(source: Source, collector: ItemCollector, document: Any) -> None:
    """Remove envelopes from every string of a decoded JSON document, counting them."""
    if bytes_may_hold_envelope(source.data):
        collector.envelopes_stripped += strip_envelopes_in(document)


def some_line_parses(text: str, lines_to_try: int = 50) -> bool:
    """True when one of the first non-blank lines is a JSON object on its own (JSON Lines)."""
    tried = 0
    for line in text.split("\n", 4 * lines_to_try):
        if not line.strip():
            continue
        try:
            if isinstance(json.loads(line), dict):
                return True
        except (ValueError, RecursionError):
            pass
        tried += 1
        if tried == lines_to_try:
            break
    return False


def json_units(
    source: Source, collector: ItemCollector, accepts: Callable[[Any], bool], what: str
) -> Iterator[tuple[int, dict[str, Any], str, bool]]:
    """Yield ``(record number, record, pointer prefix, one per line)`` for every record of a
    file that holds a JSON list of records, one record, or JSON Lines of records.

    ``accepts`` says whether a decoded value is a record of the format; ``what`` names one in
    reports (``a LoCoMo sample``). A value it refuses inside a list or on a line is skipped and
    reported; a single document it refuses is an error. The pointer prefix is
    ``<file>#/<index>`` (list), ``<file>#`` (one record) or ``<file>:<line>#`` (JSON Lines): the
    record's own JSON pointer follows it. ``one per line`` is True for JSON Lines, whose lines
    :func:`json_records` has already counted as read.

    Raises:
        InputError: one document that is not such a record, nor a list of them.
    """
    document = json_document(source)
    base = source.pointer_base
    if document is None:
        for number, record in json_records(source, collector):
            if accepts(record):
                yield number, record, f"{base}:{number}#", True
            else:
                collector.skip(number, f"not {what}")
        return
    strip_document_envelopes(source, collector, document)
    if isinstance(document, dict):
        if not accepts(document):
            raise fail(source.name, f"not {what}")
        yield 1, document, f"{base}#", False
        return
    if not isinstance(document, list):
        raise fail(source.name, f"JSON document is neither {what} nor a list of them")
    for index, record in enumerate(document):
        if accepts(record):
            yield index + 1, record, f"{base}#/{index}", False
        else:
            collector.skip(index + 1, f"record {index} is not {what}")
