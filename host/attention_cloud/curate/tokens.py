"""The project's one token estimator, and truncation that respects it.

Every budget in Attention Cloud (rung caps, hydration budgets, receipts) is counted with
:func:`estimate_tokens`, so the numbers agree everywhere without a tokenizer download. The rule:

    tokens = max(ceil(utf8_bytes / 4), ceil(words * 1.3))

Four bytes a token is the usual rule of thumb for English under BPE tokenizers; counting UTF-8
bytes rather than characters makes CJK and emoji (3-4 bytes, about one token each) cost more,
as they do in real tokenizers. The word term keeps short-word prose from being undercounted.
Both terms only grow when text is appended, so the estimate is monotone: a prefix never costs
more than the whole, which is what makes truncation by binary search correct.

This is the only definition. Prolog reaches it as ``atc_hydrate:estimate_tokens/2``, through
``atc_hydrate:host_estimate_tokens/2``, which the bridge registers when it starts
(:func:`register_for_prolog`): hydration reads the counts stored
at curation and asks for an estimate only for a rung that has none (an uncurated item's L0).
Curation estimates thousands of times per second while it truncates, so the definition lives
on this side of the bridge rather than behind a call into Prolog per estimate.
"""
from __future__ import annotations

import re

#: Appended to text cut short, so a reader can see the cut.
ELLIPSIS = "…"

_WORD_CHARS = re.compile(r"\w")
_DANGLING = re.compile(r"[\s,;:\-–—]+\Z")
# Places where a cut reads naturally, best first: clause punctuation, then a plain space.
_CLAUSE_BREAK = re.compile(r"[,;:)\]]\s|\s[-–—]\s|\s(?:which|and|but|because|so|while|where|who)\s")


def estimate_tokens(text: str) -> int:
    """Estimate how many LLM tokens ``text`` costs: ``max(ceil(bytes/4), ceil(words*1.3))``.

    Deterministic (integer arithmetic only), fast (linear in the text) and monotone under
    appending. Words are runs of non-whitespace, whitespace as :meth:`str.split` reads it
    (Unicode: no-break and em spaces separate words too). The empty string costs 0.
    """
    if not text:
        return 0
    return tokens_for(utf8_size(text), len(text.split()))


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts its three bytes)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def tokens_for(size: int, words: int) -> int:
    """The estimate for a text of ``size`` UTF-8 bytes and ``words`` words (see the module doc).

    For callers that build a text piece by piece and keep the two sums themselves.
    """
    by_bytes = -(-size // 4)
    by_words = -(-words * 13 // 10)
    return by_bytes if by_bytes >= by_words else by_words


def packed_size(text: str | None) -> int | None:
    """``text``'s UTF-8 bytes and words as one integer, ``bytes << 32 | words`` (None for no
    text): what curation stores beside a rung's tokens (``atc_ladder:rung_size/4``), so that
    hydration prices a speaker's name, a rung and a date note written together by arithmetic
    (:func:`tokens_for` of the sums, where no word runs across two pieces)."""
    if text is None:
        return None
    return (utf8_size(text) << 32) | len(text.split())


def text_shape(text: str) -> list[int]:
    """``[bytes, words, starts_with_space, ends_with_space]`` of ``text`` (the flags 0 or 1,
    space as :meth:`str.split` reads it): whether its words can run into a neighbour's."""
    return [utf8_size(text), len(text.split()), int(text[:1].isspace()), int(text[-1:].isspace())]


def register_for_prolog(pl) -> None:
    """Define ``atc_hydrate:host_estimate_tokens/2`` in ``pl`` as a call of :func:`estimate_tokens`
    (rules/hydrate.pl's ``estimate_tokens/2`` calls it), and the estimates of many texts in one call
    (``estimate_all_/2``: a frame's facts as written): ``host_estimate_tokens_packed/2``, the
    texts packed in one string (:func:`estimates_packed`), on the pyswip backend;
    ``host_estimate_tokens_all/2``, a list, on janus."""
    pl.register("host_estimate_tokens", 2, _estimate_for_prolog, module="atc_hydrate")
    # a frame's facts counted as written, in one call: a call a fact cost ~50 µs of bridge.
    # pyswip converts a list's texts at ~13 µs each, so they cross packed in one string each
    # way (~0.5 of the call's CPU); janus converts lists in C, and packing cost it ~1.4-1.8x
    if pl.backend == "pyswip":
        pl.register("host_estimate_tokens_packed", 2, estimates_packed, module="atc_hydrate")
    else:
        pl.register("host_estimate_tokens_all", 2,
                    lambda texts: [_estimate_for_prolog(t) for t in texts], module="atc_hydrate")
    # a speaker's name and a date note, once each in a process: a fact's price is then sums
    pl.register("host_text_shape", 2,
                lambda text: text_shape(text if isinstance(text, str) else str(text)),
                module="atc_hydrate")


def unpack_texts(packed: str) -> list[str]:
    """The texts of ``packed``, each written there as its length in characters, a colon and the
    text (rules/hydrate.pl's ``length_prefixed_/2``), so a text may hold any character.

    Raises ValueError when ``packed`` is not such a string.
    """
    texts = []
    start, end = 0, len(packed)
    while start < end:
        colon = packed.find(":", start)
        length = packed[start:colon]
        if colon < 0 or not length.isascii() or not length.isdigit():
            raise ValueError(f"packed texts: no length at character {start}")
        start = colon + 1 + int(length)
        if start > end:
            raise ValueError(f"packed texts: a text of {length} characters runs past the end")
        texts.append(packed[colon + 1:start])
    return texts


def estimates_packed(packed: str) -> str:
    """:func:`estimate_tokens` of each text of ``packed`` (see :func:`unpack_texts`), as decimal
    numbers separated by single spaces: a frame's texts counted in one bridge call
    (``atc_hydrate:host_estimate_tokens_packed/2``)."""
    return " ".join([str(estimate_tokens(text)) for text in unpack_texts(packed)])


def _estimate_for_prolog(text) -> int:
    # rung text arrives as a str; an atom (a caller's own) converts the same way
    return estimate_tokens(text if isinstance(text, str) else str(text))


def fits(text: str, budget: int) -> bool:
    """True when ``text`` costs at most ``budget`` tokens."""
    # UTF-8 has at least one byte a character, so more than 4*budget characters never fit;
    # this spares encoding a long text just to learn that.
    if len(text) > 4 * budget:
        return False
    return estimate_tokens(text) <= budget


def truncate_to_tokens(text: str, budget: int, *, ellipsis: str = ELLIPSIS) -> str:
    """Return ``text`` if it fits ``budget`` tokens, else its longest readable prefix that does.

    The cut prefers a clause boundary in the last quarter of the kept text, then a word boundary,
    and ends with ``ellipsis``; the result (ellipsis included) always fits. A budget too small
    for even the ellipsis gives the empty string.
    """
    if budget <= 0 or not text:
        return ""
    if fits(text, budget):
        return text
    if estimate_tokens(ellipsis) > budget:
        return ""
    # Binary search the longest prefix whose estimate (with the ellipsis) fits; the estimate is
    # monotone in the prefix length, and no prefix longer than 4*budget characters can fit.
    lo, hi = 0, min(len(text), 4 * budget + 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid].rstrip() + ellipsis) <= budget:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return ellipsis
    return _readable_cut(text, lo) + ellipsis


def _readable_cut(text: str, end: int) -> str:
    """Shorten ``text[:end]`` to end at a clause or word boundary, when one is near enough."""
    prefix = text[:end]
    floor = (len(prefix) * 3) // 4
    best = -1
    for match in _CLAUSE_BREAK.finditer(prefix, floor):
        best = match.start() + (1 if prefix[match.start()] in ",;:)]" else 0)
    if best > floor:
        return _tidy_end(prefix[:best])
    mid_word = end < len(text) and _WORD_CHARS.match(text[end]) and _WORD_CHARS.match(text[end - 1])
    if mid_word:
        space = prefix.rfind(" ", floor)
        if space > 0:
            return _tidy_end(prefix[:space])
    return _tidy_end(prefix)


def _tidy_end(text: str) -> str:
    """Drop trailing whitespace and dangling clause punctuation (only ever shortens)."""
    return _DANGLING.sub("", text)
