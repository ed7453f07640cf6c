"""Cut item text into the window the curator reads, then into sentences.

Item text is arbitrary user content up to many megabytes, so the curator never reads all of a
long text: it reads a head window and a tail window (where goals and conclusions live) and
relies on the L0 pointer for the rest. Inside the window, lines are split into sentences;
Markdown list markers and emphasis are dropped, and code lines are kept as their own
"sentences" flagged ``code`` so scoring can treat them apart from prose.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple

from .lexicon import ABBREVIATIONS

#: Characters read from the start and from the end of a long text.
HEAD_CHARS = 6000
TAIL_CHARS = 2000
#: Upper bound on sentences considered, so pathological one-line-per-word texts stay cheap.
MAX_SENTENCES = 160

_LINE = re.compile(r"[^\n]+")
_MARKER = re.compile(r"\s*(?:[-*+•>]+|\d{1,3}[.)]|#{1,6}|[a-zA-Z][.)](?=\s))\s+")
# A sentence may end at . ! ? or … (then closing quotes or brackets, kept with it) and
# whitespace: _BOUNDARY finds where, _ends_sentence/3 says whether it does (an abbreviation,
# an initial, an ellipsis going on in lower case, or a quoted title's "?" ends none).
_BOUNDARY = re.compile(r"(?<=[.!?…])([\"'”’)\]]*)\s+")
# The word a period follows, when it is letters (and inner periods: "e.g", "a.m", "Ph.D").
_WORD_BEFORE_PERIOD = re.compile(r"(?<![\w.])([A-Za-z][A-Za-z.]*)\.\Z")
# Abbreviations that come before a name or an example ("Dr. Smith", "e.g. Python"): a capital
# after them starts no sentence. After the others ("etc.", "Inc.", "No.") it does.
_ALWAYS_BEFORE = frozenset({"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e",
                            "mt"})
# Characters that may open or close a quotation, a parenthesis or a code span.
_SHELTER = re.compile(r"[\"“”‘’'()\[\]`]")
#: A quotation, parenthesis or code span longer than this (characters) is prose of its own:
#: its sentences end inside it.
SHELTER_CHARS = 300
_CLOSING = {")": "(", "]": "[", "”": "“", "’": "‘"}
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
    prose with (:func:`sentence_ends`); the spans cover the line's text without the
    whitespace between sentences, so each is a verbatim piece of it. A list marker ("1.",
    "-") stays with the sentence it introduces."""
    spans: list[tuple[int, int]] = []
    start = 0
    marker = _MARKER.match(line)
    for end, after in sentence_ends(line, marker.end() if marker else 0):
        spans.append((start, end))
        start = after
    if start < len(line):
        spans.append((start, len(line)))
    return [(s, e) for s, e in spans if line[s:e].strip()]


def sentence_ends(line: str, offset: int = 0) -> list[tuple[int, int]]:
    """Where the sentences of one line of prose end, from ``offset``: ``(end, next_start)``
    pairs, ``end`` just past the sentence's closing punctuation (and the quotes or brackets
    closing with it), ``next_start`` past the whitespace after it.

    A sentence ends at ". ! ? …" followed by whitespace, but not:

    - inside a quotation, parenthesis or code span that closes later on the line (a title
      "Can We Adapt? Real-Time ..." or an aside "(is it safe? yes)"), unless it is longer
      than :data:`SHELTER_CHARS`;
    - at ". ! ?" and a closing quote or bracket followed by a lower-case word ('the paper
      "Should We?" says');
    - at an ellipsis followed by a lower-case word ("I was thinking... maybe");
    - after an abbreviation (:data:`~.lexicon.ABBREVIATIONS`): those before a name ("Dr.",
      "e.g.") never, the others ("etc.", "No.", "U.S.", "a.m.") only before a capital;
    - after a capital initial ("J. R. R. Tolkien").

    Decimals, versions, URLs and paths ("3.5", "v2.1", "example.com/a.b") hold no
    whitespace after their periods, so none of them ends a sentence either.
    """
    ends: list[tuple[int, int]] = []
    shelters: list[tuple[int, int]] | None = None
    opens: list[int] = []
    for boundary in _BOUNDARY.finditer(line, offset):
        end = boundary.start() + len(boundary.group(1))
        if not _ends_sentence(line, boundary.start(), boundary.group(1), boundary.end()):
            continue
        if shelters is None:
            shelters = sorted(_shelters(line))
            opens = [opened for opened, _ in shelters]
        # a shelter holding ``end`` opened less than SHELTER_CHARS before it
        first = bisect_left(opens, end - SHELTER_CHARS)
        if any(end <= shelters[i][1] for i in range(first, bisect_left(opens, end))):
            continue
        ends.append((end, boundary.end()))
    return ends


def _ends_sentence(line: str, stop: int, closers: str, after: int) -> bool:
    """Whether the punctuation ending just before ``stop`` (then ``closers``, then whitespace
    up to ``after``) ends a sentence, by what is around it (see :func:`sentence_ends`)."""
    following = line[after] if after < len(line) else ""
    lower_next = following.islower()
    if closers and lower_next and line[stop - 1] in "!?.":
        return False
    if line[stop - 1] == "…" or line.endswith("...", 0, stop):
        return not lower_next
    if line[stop - 1] != ".":
        return True
    word = _WORD_BEFORE_PERIOD.search(line, max(0, stop - 16), stop)
    if word is None:
        return True
    name = word.group(1)
    folded = name.lower()
    if folded in _ALWAYS_BEFORE:
        return False
    if len(name) == 1 and name.isupper():
        return False  # an initial
    if folded in ABBREVIATIONS or "." in name:
        return following.isupper()
    return True


def _shelters(line: str) -> list[tuple[int, int]]:
    """``(open, close)`` offsets of the quotations, parentheses and code spans of ``line``
    that close on it and are at most :data:`SHELTER_CHARS` long. An apostrophe inside a word
    ("don't") opens and closes nothing; a straight quote after a digit is an inch mark."""
    if _SHELTER.search(line) is None:
        return []
    found: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []
    for match in _SHELTER.finditer(line):
        char, at = match.group(), match.start()
        before = line[at - 1] if at else " "
        after = line[at + 1] if at + 1 < len(line) else " "
        if char in "'’" and before.isalnum() and after.isalnum():
            continue  # an apostrophe
        while stack and at - stack[0][1] > SHELTER_CHARS:
            del stack[0]  # too far back to shelter anything (keeps a long line's work linear)
        opener = _CLOSING.get(char, char)
        # the nearest open one, among the last few (prose nests no deeper)
        open_at = next((i for i in range(len(stack) - 1, max(-1, len(stack) - 9), -1)
                        if stack[i][0] == opener), -1)
        closes = char in _CLOSING or (char in "\"'`" and open_at >= 0 and not before.isspace())
        if closes and open_at >= 0:
            start = stack[open_at][1]
            del stack[open_at:]
            if at - start <= SHELTER_CHARS:
                found.append((start, at))
        elif char in "(“[‘`" or (char in "\"'" and not before.isalnum() and not after.isspace()):
            stack.append((char, at))
    return found


def _split_prose(line: str, offset: int, base: int, out: list[Sentence]) -> None:
    """Append the sentences of one prose line (from ``offset``) to ``out``."""
    start = offset
    for end, after in sentence_ends(line, offset):
        _append(line[start:end], base + start, base + end, out)
        start = after
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
