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
# A sentence ends at . ! ? or … (then closing quotes or brackets) and whitespace, except after
# an abbreviation ("e.g.", "Dr."): one lookbehind per abbreviation, checked only where a
# sentence could end, keeps that test inside the regex engine.
_NOT_AFTER_ABBREVIATION = "".join(
    # Lookbehinds need a fixed width, so abbreviations are grouped by length.
    "(?<!\\b(?i:" + "|".join(sorted(re.escape(a) for a in ABBREVIATIONS if len(a) == size)) + ")\\.)"
    for size in sorted({len(a) for a in ABBREVIATIONS})
)
_BOUNDARY = re.compile(r"(?<=[.!?…])" + _NOT_AFTER_ABBREVIATION + r"[\"'”’)\]]*\s+")
# A star beside a slash is a glob's, not emphasis: "lib/**/*.ex" stays whole (it read "lib//.ex").
_EMPHASIS = re.compile(r"(?<!/)\*\*\*?(?!/)|`|(?<!\w)__|__(?!\w)|(?<![\w/*])\*(?=[^\s/*])|(?<=[^\s/*])\*(?![\w/*])")
_CODE_SAMPLE = 160
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


def sentence_bounds(line: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of one line, by the boundary rule the curator splits
    prose with (an abbreviation such as "e.g." ends none); the spans cover the line's text
    without the whitespace between sentences, so each is a verbatim piece of it. A list
    marker ("1.", "-") stays with the sentence it introduces."""
    spans: list[tuple[int, int]] = []
    start = 0
    marker = _MARKER.match(line)
    for boundary in _BOUNDARY.finditer(line, marker.end() if marker else 0):
        spans.append((start, boundary.start()))
        start = boundary.end()
    if start < len(line):
        spans.append((start, len(line)))
    return [(s, e) for s, e in spans if line[s:e].strip()]


def _split_prose(line: str, offset: int, base: int, out: list[Sentence]) -> None:
    """Append the sentences of one prose line (from ``offset``) to ``out``."""
    start = offset
    for boundary in _BOUNDARY.finditer(line, offset):
        _append(line[start : boundary.start()], base + start, base + boundary.start(), out)
        start = boundary.end()
    if start < len(line):
        _append(line[start:], base + start, base + len(line), out)


def _append(raw: str, start: int, end: int, out: list[Sentence]) -> None:
    if "*" in raw or "`" in raw or "__" in raw:
        raw = _EMPHASIS.sub("", raw)
    cleaned = " ".join(raw.split())
    if cleaned:
        out.append(Sentence(cleaned, start, end, len(out), False))


def _looks_like_code(line: str, stripped: str) -> bool:
    """Heuristic: indented blocks, shell prompts, stack frames, or lines dense with symbols."""
    if line.startswith(("    ", "\t")) and not _MARKER.match(line):
        return True
    if stripped.startswith(("$ ", ">>> ", "File \"", "#include", "import ", "from ", "def ")):
        return stripped.startswith(("$ ", ">>> ", "File \"", "#include")) or stripped.endswith(
            (":", ")", ";")
        )
    # Symbol density of the line's start (enough to tell code from prose, and cheap).
    head = stripped[:_CODE_SAMPLE]
    symbols = len(head) - len(head.translate(_DROP_CODE_CHARS))
    return symbols * 7 > len(head) + 14


def _clean(raw: str) -> str:
    """Drop Markdown emphasis and backticks and collapse whitespace."""
    if "*" in raw or "`" in raw or "__" in raw:
        raw = _EMPHASIS.sub("", raw)
    return " ".join(raw.split())
