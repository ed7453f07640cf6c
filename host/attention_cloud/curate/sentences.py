"""Cut item text into the window the curator reads, then into sentences.

Item text is arbitrary user content up to many megabytes, so the curator never reads all of a
long text: it reads a head window and a tail window (where goals and conclusions live) and
relies on the L0 pointer for the rest. Inside the window, lines are split into sentences;
Markdown list markers and emphasis are dropped, and code lines are kept as their own
"sentences" flagged ``code`` so scoring can treat them apart from prose.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .lexicon import ABBREVIATIONS

#: Characters read from the start and from the end of a long text.
HEAD_CHARS = 6000
TAIL_CHARS = 2000
#: Upper bound on sentences considered, so pathological one-line-per-word texts stay cheap.
MAX_SENTENCES = 160

_LINE = re.compile(r"[^\n]+")
_MARKER = re.compile(r"\s*(?:[-*+•>]+|\d{1,3}[.)]|#{1,6}|[a-zA-Z][.)](?=\s))\s+")
_BOUNDARY = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+")
_EMPHASIS = re.compile(r"\*\*|`|(?<!\w)__|__(?!\w)|(?<!\w)\*(?=\S)|(?<=\S)\*(?!\w)")
_DROP_CODE_CHARS = str.maketrans("", "", "{}();=<>[]|&$\\")


class Sentence(NamedTuple):
    """One sentence of the analysed window (a named tuple: built by the thousand, it must be
    cheap to make).

    Attributes:
        text: the sentence, Markdown stripped and whitespace collapsed.
        start, end: its span in the analysed window (see :func:`window`).
        index: its position among the window's sentences, from 0.
        code: True for a line of code, a command or a stack frame rather than prose.
    """

    text: str
    start: int
    end: int
    index: int
    code: bool


def window(text: str) -> str:
    """The part of ``text`` the curator reads: all of it, or its head and tail joined by a gap.

    Each cut is moved back (head) or forward (tail) to a line or sentence boundary when one is
    near, so the window rarely starts or ends mid-sentence.
    """
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    head = text[:HEAD_CHARS]
    cut = max(head.rfind("\n"), head.rfind(". "))
    if cut > HEAD_CHARS // 2:
        head = head[: cut + 1]
    tail = text[-TAIL_CHARS:]
    cut = _first_boundary(tail)
    if 0 <= cut < TAIL_CHARS // 2:
        tail = tail[cut + 1 :]
    return head + "\n\n" + tail


def _first_boundary(text: str) -> int:
    """Index of the first newline or sentence end in ``text``, or -1."""
    found = [i for i in (text.find("\n"), text.find(". ")) if i >= 0]
    return min(found) if found else -1


def split_sentences(text: str) -> list[Sentence]:
    """Split an analysed window into sentences, in order (at most :data:`MAX_SENTENCES`)."""
    out: list[Sentence] = []
    in_fence = False
    for line_match in _LINE.finditer(text):
        line = line_match.group()
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        base = line_match.start()
        if in_fence or _looks_like_code(line, stripped):
            out.append(Sentence(_clean(stripped), base, line_match.end(), len(out), True))
        else:
            marker = _MARKER.match(line)
            offset = marker.end() if marker else 0
            _split_prose(line, offset, base, out)
        if len(out) >= MAX_SENTENCES:
            return out[:MAX_SENTENCES]
    return out


def _split_prose(line: str, offset: int, base: int, out: list[Sentence]) -> None:
    """Append the sentences of one prose line (from ``offset``) to ``out``."""
    start = offset
    pending_start = -1
    for boundary in _BOUNDARY.finditer(line, offset):
        piece_end = boundary.start()
        if _ends_with_abbreviation(line, start, piece_end):
            if pending_start < 0:
                pending_start = start
            start = boundary.end()
            continue
        first = pending_start if pending_start >= 0 else start
        _append(line[first:piece_end], base + first, base + piece_end, out)
        pending_start = -1
        start = boundary.end()
    first = pending_start if pending_start >= 0 else start
    if first < len(line):
        _append(line[first:], base + first, base + len(line), out)


def _append(raw: str, start: int, end: int, out: list[Sentence]) -> None:
    cleaned = _clean(raw)
    if cleaned:
        out.append(Sentence(cleaned, start, end, len(out), False))


def _ends_with_abbreviation(line: str, start: int, end: int) -> bool:
    """True when the piece ``line[start:end]`` ends with an abbreviation such as "e.g." or "Dr."."""
    if end - start < 2 or line[end - 1] != ".":
        return False
    space = max(line.rfind(" ", start, end), line.rfind("(", start, end))
    word = line[max(space + 1, start) : end - 1].lower()
    return word in ABBREVIATIONS


def _looks_like_code(line: str, stripped: str) -> bool:
    """Heuristic: indented blocks, shell prompts, stack frames, or lines dense with symbols."""
    if line.startswith(("    ", "\t")) and not _MARKER.match(line):
        return True
    if stripped.startswith(("$ ", ">>> ", "File \"", "#include", "import ", "from ", "def ")):
        return stripped.startswith(("$ ", ">>> ", "File \"", "#include")) or stripped.endswith(
            (":", ")", ";")
        )
    symbols = len(stripped) - len(stripped.translate(_DROP_CODE_CHARS))
    return symbols * 7 > len(stripped) + 14


def _clean(raw: str) -> str:
    """Drop Markdown emphasis and backticks and collapse whitespace."""
    if "*" in raw or "`" in raw or "__" in raw:
        raw = _EMPHASIS.sub("", raw)
    return " ".join(raw.split())
