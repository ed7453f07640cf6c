"""The part of a transcript that is still being written which is safe to parse now.

A writer appends a line in pieces, and a speaker-line transcript adds to its last turn line by
line; parsing either half way would store a half line, or a turn cut short, as an item of its
own (a different handle from the whole one that follows). :func:`finished_part` keeps what is
finished: everything up to the last newline, and for speaker-line text (formats ``text``,
``markdown``, ``whatsapp``, ``aider`` and ``notes``) only the turns before the last one, which may still grow. ``atc watch`` parses files that changed
within its settle time this way; once a file has been quiet that long it is read whole.
"""
from __future__ import annotations

import json

from ..errors import InputError
from .pointers import parse_pointer
from .source import Source, make_source

#: Formats whose turns run over several lines until the next speaker (their items point at the
#: lines of a turn, ``FILE:<first>`` or ``FILE:<first>-<last>``).
TURN_FORMATS = ("text", "markdown", "whatsapp", "aider", "notes")


def finished_part(source: Source, format: str | None = None) -> Source | None:
    """What of ``source`` is finished, or None when nothing is yet.

    A source that ends with a newline is finished up to there; one that is a single whole JSON
    document (``json.dump`` writes no final newline) is finished as it is. Of speaker-line
    text, the last turn is left out too, unless a line after it has begun the next turn.
    ``format`` is the transcript format when known.
    """
    data = source.data
    cut = len(data)
    if not data.endswith(b"\n"):
        if _one_json_document(source):
            return source
        cut = data.rfind(b"\n") + 1
    last_turn = _last_turn_start(source, format)
    if last_turn is not None:
        cut = min(cut, last_turn)
    if cut == 0 or data[:cut].isspace():
        return None
    if cut == len(data):
        return source
    return make_source(data[:cut], name=source.name, pointer_base=source.pointer_base)


def _one_json_document(source: Source) -> bool:
    text = source.text
    if text is None or text.lstrip()[:1] not in ("{", "["):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _last_turn_start(source: Source, format: str | None) -> int | None:
    """For speaker-line text (:data:`TURN_FORMATS`), the byte offset where its last turn starts (the parser says
    where turns start; a half-written last line that already names a speaker counts, so it
    closes the turn before it); None for other formats."""
    from .api import parse_source
    from .detect import detect_source_format

    try:
        chosen = format or detect_source_format(source)
        if chosen not in TURN_FORMATS:
            return None
        items = parse_source(source, format=chosen).items
    except InputError:
        return None  # not parseable as it stands: the full parse reports why
    starts = [line for line in (parse_pointer(i.pointer).line for i in items) if line]
    if not starts:
        return 0
    lines = source.data.split(b"\n")
    return sum(len(line) + 1 for line in lines[:max(starts) - 1])
