"""Lexical terms of a text, shared by BM25 and the hashing embedder.

A term is a lowercase, accent-free run of letters and digits. Identifier-like runs joined by
``_ - . / : #`` (``it_3fa2#l1``, ``deploy.yaml``, ``v1.2.3``) are kept whole *and* split into
their parts, so a query naming the exact identifier matches it with the whole term's high IDF,
while a query naming one part still finds it. A light English suffix folding (plural ``s``,
``ing``, ``ed``) lets "deploying" meet "deploy" without a stemmer's surprises on identifiers,
which are never folded. CJK characters are terms one by one. Common function words are dropped: they carry no topic and dominate
long chat turns.

Contents:
    lexical_terms  -- text -> list of terms, in order, repeated as often as they occur
    STOPWORDS      -- the dropped function words
    WORD_RUN       -- the pattern of one run of letters and digits (an identifier kept whole) as
                      written, a Markdown-escaped joiner included (``SIAC\\_GEE``): what
                      lexical_terms reads as one identifier
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["lexical_terms", "STOPWORDS", "WORD_RUN"]

_RUN = re.compile(r"[^\W_]+(?:[_\-./:#][^\W_]+)*")
_JOINERS = re.compile(r"[_\-./:#]")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves s t d ll m re ve""".split()
)


@lru_cache(maxsize=200_000)  # words repeat: most calls are a dict lookup
def _fold(word: str) -> str:
    """Strip one common inflection from a plain alphabetic word; leave anything else alone."""
    if not word.isalpha() or len(word) <= 4:
        return word
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 6:
        return word[:-3]
    if word.endswith("ed") and len(word) > 5:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_CJK = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff])")


# Markdown escapes a joiner inside a word (`SIAC\_GEE`, `my\_table`: what an LLM's answer
# writes for `SIAC_GEE`); the identifier is the one the goal names without the backslash.
_ESCAPED_JOINER = re.compile(r"(?<=[^\W_])\\([_\-.#])(?=[^\W_])")
# A run as written, before _plain drops those backslashes: a caller that finds a run in the raw
# text (the excerpts' scan) hands lexical_terms the whole identifier, not its first part.
WORD_RUN = re.compile(r"[^\W_]+(?:(?:[_\-./:#]|\\[_\-.#])[^\W_]+)*")


def _plain(text: str) -> str:
    if "\\" in text:
        text = _ESCAPED_JOINER.sub(r"\1", text)
    if text.isascii():  # most text: nothing to decompose, no accents, no CJK
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    # CJK scripts do not separate words with spaces: each character becomes its own term.
    return _CJK.sub(r" \1 ", plain)


def lexical_terms(text: str) -> list[str]:
    """The BM25 terms of ``text`` (see module doc): folded words plus whole identifiers."""
    terms: list[str] = []
    for match in _RUN.finditer(_plain(text)):
        run = match.group(0)
        parts = _JOINERS.split(run)
        if len(parts) > 1:
            terms.append(run)
        for part in parts:
            if part not in STOPWORDS:
                terms.append(_fold(part))
    return terms
