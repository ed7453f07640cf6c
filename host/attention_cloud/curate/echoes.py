"""Paraphrase recycling: find new items that restate memory from an earlier session.

The envelope stops verbatim echo; a model restating recalled memory in its own words slips
past it. An item is an **echo** of an original when all of these hold:

1. their embeddings are close: cosine similarity at least ``sim_threshold`` (default 0.92);
2. they share words: at least ``ngram_threshold`` (default 0.5) of the echo's word n-grams
   (content words, lowercased, crudely stemmed, n = 1) occur in the original;
3. the echo adds no number the original lacks ("3 retries" is not an echo of "5 retries");
4. the original comes from a different session and is strictly older (by ``time``; items
   whose time is missing or unparsable are never judged older).

Echoes are only reported, never deleted: the caller records them and discounts their
relevance. Each new item is reported at most once, against its most similar original (ties
by handle).

An item's mark is a function of the memory alone, not of the order items were searched in:
similarities are recomputed per pair in float64 and rounded (:func:`pair_similarities`), so a
pair scores the same whichever side is the query and whatever else was searched with it, and
a caller passes *every* neighbour at the threshold (:func:`more_neighbours_may_exist` says when
a search must fetch more), not the first few of many tied ones.
"""
from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Callable
from datetime import datetime

import numpy as np

from ..errors import InputError
from .lexicon import STOPWORDS
from ..ingest.timefmt import parse_moment
from .records import ItemView
from .sentences import window

#: Neighbours a first search fetches per new item (more when they all reach the threshold).
ECHO_CANDIDATES = 16
#: Least cosine similarity of an echo and its original (``find_echoes``' default).
ECHO_SIMILARITY = 0.92
#: Decimal places of an echo's similarity: rounded, a pair's score is the same number however
#: the float sums below it were blocked.
ECHO_DIGITS = 6
#: How far below the threshold a search score may be and still be recomputed exactly (a
#: search's float32 products differ from the exact ones in their last bits, far below this).
ECHO_MARGIN = 1e-3

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SUFFIXES = ("ing", "ed", "es", "s", "ly")


def find_echoes(
    new: list[ItemView],
    vectors_new: np.ndarray,
    search: Callable[[np.ndarray, int], list[tuple[str, float]]] | None,
    lookup: Callable[[str], ItemView | None],
    *,
    sim_threshold: float = ECHO_SIMILARITY,
    ngram_threshold: float = 0.5,
    neighbours: list[list[tuple[str, float]]] | None = None,
) -> list[tuple[str, str, float]]:
    """``(echo_handle, original_handle, similarity)`` for each new item that is an echo.

    Args:
        new: the newly ingested items.
        vectors_new: one embedding row per item of ``new``, same order.
        search: ``search(vector, k)`` returns up to ``k`` ``(handle, cosine)`` neighbours
            from existing memory; None when ``neighbours`` are given.
        lookup: the item behind a handle, or None when it is gone.
        sim_threshold: least cosine similarity of an echo and its original.
        ngram_threshold: least share of the echo's n-grams found in the original.
        neighbours: the hits of each new item, when the caller searched for all of them at
            once (``search`` is then not called).

    Returns:
        One tuple per echo, in the order of ``new``.

    Raises:
        InputError: when ``vectors_new`` or ``neighbours`` do not have one row per new item,
            or neither ``search`` nor ``neighbours`` is given.
    """
    matrix = np.asarray(vectors_new)
    if matrix.ndim != 2 or matrix.shape[0] != len(new):
        raise InputError(
            f"find_echoes: {len(new)} items but vectors of shape {tuple(matrix.shape)}"
        )
    if neighbours is not None and len(neighbours) != len(new):
        raise InputError(f"find_echoes: {len(new)} items but {len(neighbours)} neighbour lists")
    if neighbours is None and search is None:
        raise InputError("find_echoes: give search or neighbours")
    out: list[tuple[str, str, float]] = []
    for i, (item, vector) in enumerate(zip(new, matrix)):
        found = neighbours[i] if neighbours is not None else search(vector, ECHO_CANDIDATES)  # type: ignore[misc]
        for handle, similarity in echo_candidates(item.handle, found, sim_threshold):
            original = lookup(handle)
            if original is None or not _is_echo_of(item, original, ngram_threshold):
                continue
            out.append((item.handle, original.handle, similarity))
            break
    return out


def echo_candidates(handle: str, hits: list[tuple[str, float]],
                    sim_threshold: float = ECHO_SIMILARITY) -> list[tuple[str, float]]:
    """The ``(handle, similarity)`` neighbours among ``hits`` that :func:`find_echoes` checks
    for the item ``handle``: those at ``sim_threshold`` or closer, other than the item itself,
    best first (ties by handle). An item with none is no echo, so a caller need not read its
    view (nor any neighbour's)."""
    ranked = sorted(hits, key=lambda hit: (-float(hit[1]), hit[0]))
    return [(h, float(similarity)) for h, similarity in ranked
            if float(similarity) >= sim_threshold and h != handle]


def pair_similarities(query: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The similarity of ``query`` with each of ``rows`` as an echo check ranks it: the inner
    product in float64, element products summed along each row alone, rounded to
    :data:`ECHO_DIGITS` places. Symmetric (a·b is b·a, summed in the same order) and
    independent of the other rows, unlike a batched float32 product, whose last bits move with
    the batch's make-up."""
    rows64 = np.asarray(rows, dtype=np.float64).reshape(-1, np.asarray(query).shape[-1])
    return np.round((rows64 * np.asarray(query, dtype=np.float64)).sum(axis=1), ECHO_DIGITS)


def more_neighbours_may_exist(hits: list[tuple[str, float]], fetched: int,
                              sim_threshold: float = ECHO_SIMILARITY) -> bool:
    """Whether a search that asked for ``fetched`` neighbours and got ``hits`` may have left
    out one at ``sim_threshold`` or closer: it got all it asked for and the last still reaches
    the threshold (less :data:`ECHO_MARGIN`). Such an item is searched again, wider."""
    return len(hits) >= fetched and min(float(s) for _, s in hits) >= sim_threshold - ECHO_MARGIN


def _is_echo_of(item: ItemView, original: ItemView, ngram_threshold: float) -> bool:
    if original.session == item.session or not is_older(original.time, item.time):
        return False
    if not _numbers(item.text) <= _numbers(original.text):
        return False
    return ngram_overlap(item.text, original.text) >= ngram_threshold


def ngram_overlap(echo: str, original: str) -> float:
    """Share of ``echo``'s word n-grams that occur in ``original`` (0.0 when it has none).

    Words are lowercased, stopwords dropped, and crudely stemmed (a trailing "ing", "ed",
    "es", "s" or "ly" removed from words longer than four letters) so that "stored" and
    "stores" meet. Long texts are read through the curator's head and tail window.
    """
    grams = _grams(echo)
    if not grams:
        return 0.0
    return len(grams & _grams(original)) / len(grams)


def _grams(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(window(text).lower()) if w not in STOPWORDS}


def _stem(word: str) -> str:
    if len(word) > 4:
        for suffix in _SUFFIXES:
            if word.endswith(suffix):
                return word[: -len(suffix)]
    return word


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(window(text)))


def is_older(earlier: str, later: str) -> bool:
    """True when time ``earlier`` is strictly before time ``later``.

    Accepts ISO 8601 (``2023-05-20T07:47:00Z``, naive taken as UTC) and looser forms with a
    year-month-day and optional hours and minutes (``2023/05/20 (Sat) 07:47``). Missing or
    unparsable times are never older.
    """
    a, b = _time_key(earlier), _time_key(later)
    return a is not None and b is not None and a < b


@lru_cache(maxsize=1 << 16)  # a text restated in many sessions: its neighbours' times, again and again
def _time_key(value: str) -> datetime | None:
    # The host's one time reader (ingest/timefmt.py): journal times are ISO 8601 UTC already.
    return parse_moment(value or "")
