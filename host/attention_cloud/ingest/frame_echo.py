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

What the user or the agent said around them stays.
"""

from __future__ import annotations

import json
import re

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


def strip_frame_echo(text: str) -> tuple[str, int]:
    """``text`` without recall's receipt lines, plain-text frames and printed receipts.

    Returns the text left (stripped of surrounding whitespace when anything was removed) and
    how many such pieces were removed.
    """
    line = "Receipt r_" in text
    frame = "memory frame for: " in text
    printed = '"r_' in text
    if not (line or frame or printed):
        return text, 0  # the common case: tool output that names no receipt
    if printed and _is_printed_receipt(text):
        return "", 1
    count = 0
    if line:
        text, count = _RECEIPT_LINE.subn("", text)
    head = _FRAME_HEAD.search(text) if frame else None
    if head is not None:
        text = text[: head.start()]
        count += 1
    return (text.strip(), count) if count else (text, 0)


def _is_printed_receipt(text: str) -> bool:
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return False
    try:
        document = json.loads(stripped)
    except ValueError:
        return False
    # a receipt has its facts; ``atc hydrate --format json`` holds the receipt whole
    if not isinstance(document, dict) or not ("facts" in document
                                              or isinstance(document.get("receipt"), dict)):
        return False
    receipt_id = document.get("id", document.get("receipt_id"))
    return isinstance(receipt_id, str) and _PRINTED_RECEIPT.match(receipt_id) is not None
