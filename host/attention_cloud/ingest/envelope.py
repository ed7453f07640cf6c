"""Remove tagged blocks from text: ``<memory-frame>`` envelopes and other wrappers.

Hydration wraps everything it injects as ``<memory-frame ...>…</memory-frame>``; capture must
drop every such envelope, content included, before anything else looks at the text, so recalled
memory is never ingested as new memory. The scanner errs on the side of removal:

* nested envelopes are removed whole, from the outermost opening tag to its matching close;
* an opening tag that is never closed removes everything after it (a truncated envelope);
* a closing tag with no opening tag removes everything before it in the same string (the
  opening tag was cut off, so the text before the close is envelope content); a line-based
  transcript (a text chat, a Markdown log, a WhatsApp export) is one string for the scan but
  many messages, so there it is left for the message that holds it (``lone_close=False``, then
  :func:`strip_envelopes` of each message's text): one message quoting a close must not wipe
  every message above it;
* ``<memory-frame ... />`` is an empty envelope;
* a closing tag is exactly ``</memory-frame>`` (whitespace allowed before the ``>``, as in XML):
  ``</memory-frame\u200b>`` or ``</memory-frame x>`` inside the content closes nothing, so text
  that merely looks like a close cannot end an envelope early and let the rest of it through.

:func:`escape_envelope_content` is the renderer's half: it turns every ``<`` that starts the
tag's name in frame text into ``&lt;``, so an envelope hydration writes holds exactly one
opening tag and one close, whatever the recalled text or the goal contained.

Each removed unit counts as one envelope. Tags match case-insensitively. The scanner is linear
in the length of the text (no backtracking regular expression spans a block).
"""

from __future__ import annotations

import re
from typing import Any

ENVELOPE_TAG = "memory-frame"

_TAG_PATTERNS: dict[str, re.Pattern[str]] = {}
_TAG_TAIL = re.compile(r"-(?i:frame)")  # a fast necessary condition for the envelope tag


def _tag_pattern(tag: str) -> re.Pattern[str]:
    pattern = _TAG_PATTERNS.get(tag)
    if pattern is None:
        # The case-insensitive part comes after a literal "<", which the regex engine can scan
        # for quickly; a fully case-insensitive pattern is several times slower on long text.
        name = r"(?i:" + re.escape(tag) + r")"
        pattern = re.compile(r"<(?:(/)" + name + r"\s*>|" + name + r"(?![\w-]))")
        _TAG_PATTERNS[tag] = pattern
    return pattern


def strip_tag_blocks(text: str, tag: str, *, keep_newlines: bool = False) -> tuple[str, int]:
    """Remove every ``<tag ...>…</tag>`` block from ``text``.

    Args:
        text: any text.
        tag: the element name, e.g. ``"memory-frame"`` or ``"system-reminder"``.
        keep_newlines: replace each removed block by the newlines it contained, so that line
            numbers of the text after it stay those of the original.

    Returns:
        The text without the blocks, and the number of blocks removed.
    """
    stripped, count, _ = scan_tag_blocks(text, tag, keep_newlines=keep_newlines)
    return stripped, count


def scan_tag_blocks(text: str, tag: str, *, keep_newlines: bool = False,
                    lone_close: bool = True) -> tuple[str, int, int]:
    """Like :func:`strip_tag_blocks`, also returning where an unclosed block opens (or -1).
    With ``lone_close=False`` a closing tag that no opening tag precedes removes nothing and
    stays in the text (the caller strips it from the message that holds it)."""
    pattern = _tag_pattern(tag)
    first = pattern.search(text)
    if first is None:
        return text, 0, -1
    pieces: list[str] = []
    keep_from = 0  # start of the text not yet copied or dropped
    block_start = 0  # start of the outermost open block
    resume_at = 0  # end of the last tag handled
    depth = 0
    count = 0

    def drop(start: int, end: int) -> None:
        if keep_newlines:
            pieces.append("\n" * text.count("\n", start, end))

    for match in pattern.finditer(text, first.start()):
        if match.start() < resume_at:
            continue  # inside the attributes of a tag already handled
        closing = match.group(1) == "/"
        gt = match.end() - 1 if closing else text.find(">", match.end())
        tag_end = len(text) if gt < 0 else gt + 1
        if not closing:
            if depth == 0:
                pieces.append(text[keep_from : match.start()])
                block_start = match.start()
            if gt > 0 and text[gt - 1] == "/":  # self-closing: an empty envelope
                if depth == 0:
                    count += 1
                    drop(block_start, tag_end)
                    keep_from = tag_end
            else:
                depth += 1
        elif depth == 0:
            if not lone_close:
                resume_at = tag_end
                continue  # left in place for the message that holds it
            # The opening tag was lost: what precedes the close in this string is envelope text.
            count += 1
            drop(keep_from, tag_end)
            keep_from = tag_end
        else:
            depth -= 1
            if depth == 0:
                count += 1
                drop(block_start, tag_end)
                keep_from = tag_end
        if gt < 0:
            break
        resume_at = tag_end
    if depth > 0:
        count += 1  # never closed: the rest of the text is envelope content
        drop(block_start, len(text))
        return "".join(pieces), count, block_start
    pieces.append(text[keep_from:])
    return "".join(pieces), count, -1


def strip_envelopes(text: str, *, keep_newlines: bool = False) -> tuple[str, int]:
    """Remove every ``<memory-frame>`` envelope from ``text``; return ``(text, count)``."""
    return strip_tag_blocks(text, ENVELOPE_TAG, keep_newlines=keep_newlines)


_TAG_START = re.compile(r"<(?=/?(?i:" + re.escape(ENVELOPE_TAG) + r"))")


def escape_envelope_content(text: str) -> str:
    """Text that can sit inside an envelope without opening or closing one: each ``<`` that
    starts ``memory-frame`` or ``/memory-frame`` (any case) becomes ``&lt;``."""
    return _TAG_START.sub("&lt;", text)


def may_hold_envelope(raw_json: str) -> bool:
    """Whether raw JSON text can hold an envelope once decoded: it names the tag, or it hides
    characters behind ``\\u`` escapes (``\\u003cmemory-frame``)."""
    return "\\u" in raw_json or _TAG_TAIL.search(raw_json) is not None


_TAG_TAIL_BYTES = re.compile(rb"-(?i:frame)")


def bytes_may_hold_envelope(raw_json: bytes) -> bool:
    """:func:`may_hold_envelope` of a JSON file's bytes, which it need not decode."""
    return b"\\u" in raw_json or _TAG_TAIL_BYTES.search(raw_json) is not None


def has_closing_envelope_tag(text: str) -> bool:
    """True when ``text`` contains ``</memory-frame>``."""
    return any(m.group(1) == "/" for m in _tag_pattern(ENVELOPE_TAG).finditer(text))


def strip_envelopes_in(document: Any) -> int:
    """Remove envelopes from every string value inside a decoded JSON ``document``, in place.

    Walks dicts and lists iteratively (documents may be nested far deeper than Python's
    recursion limit) and returns the number of envelopes removed. Keys are left alone.
    """
    count = 0
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            entries = list(node.items())
        elif isinstance(node, list):
            entries = list(enumerate(node))
        else:
            continue
        for key, value in entries:
            if isinstance(value, str):
                cleaned, found = strip_tag_blocks(value, ENVELOPE_TAG)
                if found:
                    node[key] = cleaned
                    count += found
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return count
