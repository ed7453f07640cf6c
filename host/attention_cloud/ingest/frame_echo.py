"""Remove what memory's own recall put into a tool's output, outside any envelope.

The envelope scanner (:mod:`.envelope`) drops ``<memory-frame>`` blocks. Three things recall
writes carry no envelope, and would come back as new memory when a transcript holding them is
ingested:

* the line the MCP ``hydrate`` tool adds after its envelope, naming the frame's receipt
  (``Receipt r_… (why each fact is here): the receipt tool with receipt_id r_…, or the resource
  receipt://r_….``);
* a frame as ``atc hydrate`` prints it by default (plain text, no envelope), captured through
  a shell call: it starts at its heading ``memory frame for: GOAL`` followed by the line
  ``plane P · path X · S/T tokens · receipt r_… …``, and runs to the end of the output (the
  frame has no closing line, so the scan errs on the side of removal, as the envelope's does);
* a receipt printed whole (the MCP ``receipt`` tool, ``atc receipt ID``) or a frame printed as
  JSON (``atc hydrate --format json``): output that is one JSON object whose ``id`` (or
  ``receipt_id``) has the form ``r_<hex>``, with its ``facts`` or its ``receipt``.

Nor does memory's own ``remember`` answer need keeping: the note is an item of its own, and the
call that stored it, captured with its session, repeated the note (its label holds the text)
as a second item. Its answer is recognised as an echo too: the MCP tool's JSON (``handle``
``it_<hex>``, ``source`` ``…remembered.jsonl:N``; ``atc remember --format json`` prints the
same) and ``atc remember``'s line (``remembered it_… (KIND, segment S) <- …remembered.jsonl:N``,
``already remembered`` when it was, with the note ``atc: note: not curated yet: …`` a shell
call shows beside it).

What the user or the agent said around them stays. :func:`strip_recalled` is the whole
cleaning for text handed to memory directly (a note to remember, a prompt to recall for):
envelopes first, then these echoes.
"""

from __future__ import annotations

import json
import re

from .envelope import ENVELOPE_TAG, scan_tag_blocks

_RECEIPT_ID = r"r_[0-9a-f]{6,64}"
_RECEIPT_LINE = re.compile(
    rf"^[ \t]*Receipt ({_RECEIPT_ID}) \(why each fact is here\):[^\n]*receipt://\1\.?[ \t]*$\n?",
    re.MULTILINE,
)
_FRAME_HEAD = re.compile(
    rf"^memory frame for: [^\n]*\nplane \S+ · path \S+ · \d+/\d+ tokens · receipt {_RECEIPT_ID}"
    r"[^\n]*$",
    re.MULTILINE,
)
_PRINTED_RECEIPT = re.compile(rf"{_RECEIPT_ID}\Z")
_ITEM_HANDLE = re.compile(r"it_[0-9a-f]{16}\Z")
_REMEMBERED_SOURCE = re.compile(r"remembered\.jsonl:\d+\Z")
_REMEMBER_LINE = re.compile(
    r"^[ \t]*(?:already )?remembered it_[0-9a-f]{16} \([^\n]*\) <- [^\n]*remembered\.jsonl:\d+"
    r"[ \t]*$\n?"
    r"(?:[ \t]*atc: note: not curated yet: [^\n]*$\n?)?",
    re.MULTILINE,
)


def strip_frame_echo(text: str) -> tuple[str, int]:
    """``text`` without recall's receipt lines, plain-text frames and printed receipts.

    Returns the text left (stripped of surrounding whitespace when anything was removed) and
    how many such pieces were removed.
    """
    line = "Receipt r_" in text
    frame = "memory frame for: " in text
    printed = '"r_' in text
    remembered = "remembered.jsonl:" in text
    if not (line or frame or printed or remembered):
        return text, 0  # the common case: tool output that names no receipt
    if printed and _is_printed_receipt(text):
        return "", 1
    if remembered and _is_remember_answer(text):
        return "", 1
    count = 0
    if line:
        text, count = _RECEIPT_LINE.subn("", text)
    if remembered:
        text, lines = _REMEMBER_LINE.subn("", text)
        count += lines
    head = _FRAME_HEAD.search(text) if frame else None
    if head is not None:
        text = text[: head.start()]
        count += 1
    return (text.strip(), count) if count else (text, 0)


def strip_recalled(text: str) -> str:
    """``text`` without anything memory's recall wrote into it, surrounding whitespace
    stripped: every ``<memory-frame>`` envelope, then what :func:`strip_frame_echo` removes.

    For text a person or an agent hands memory directly (``remember``'s note, the prompt the
    prompt hook recalls for), not a transcript: a closing tag that no opening tag precedes
    stays as written, since typed text quoting the tag is no truncated frame (removing
    everything before it would lose the writer's own words).
    """
    text, _, _ = scan_tag_blocks(text, ENVELOPE_TAG, lone_close=False)
    return strip_frame_echo(text)[0].strip()


def _one_object(text: str) -> dict | None:
    """``text`` when it is one JSON object and nothing else, decoded; None otherwise."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    try:
        document = json.loads(stripped)
    except (ValueError, RecursionError):  # RecursionError: an object nested past the decoder
        return None
    return document if isinstance(document, dict) else None


def _is_printed_receipt(text: str) -> bool:
    document = _one_object(text)
    # a receipt has its facts; ``atc hydrate --format json`` holds the receipt whole
    if document is None or not ("facts" in document
                                or isinstance(document.get("receipt"), dict)):
        return False
    receipt_id = document.get("id", document.get("receipt_id"))
    return isinstance(receipt_id, str) and _PRINTED_RECEIPT.match(receipt_id) is not None


def _is_remember_answer(text: str) -> bool:
    """Whether ``text`` is one JSON object as memory's ``remember`` answers (the MCP tool,
    ``atc remember --format json``): an item handle and a source in ``remembered.jsonl``."""
    document = _one_object(text)
    if document is None:
        return False
    handle, source = document.get("handle"), document.get("source")
    return (isinstance(handle, str) and _ITEM_HANDLE.match(handle) is not None
            and isinstance(source, str) and _REMEMBERED_SOURCE.search(source) is not None)
