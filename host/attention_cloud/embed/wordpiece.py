"""BERT uncased WordPiece tokenizer in pure Python.

The int8 MiniLM model ships without a tokenizer, so this module reproduces the
``BertTokenizer`` that ``all-MiniLM-L6-v2`` was trained with (do_lower_case, Chinese-character
splitting, accents stripped because lowercasing is on):

1. *clean*: drop NUL, U+FFFD and every Unicode "other" character (control, format, private use); every whitespace character becomes a space;
2. *CJK*: put spaces around CJK ideographs so each is its own word;
3. *normalise*: lowercase, then NFD and drop combining marks (accents);
4. *split*: on whitespace, and every punctuation character is a word of its own;
5. *WordPiece*: greedy longest match against the vocabulary, continuations prefixed ``##``;
   a word that cannot be covered, or is longer than 100 characters, becomes ``[UNK]``;
6. *frame*: ``[CLS] ... [SEP]``, truncated so the whole sequence is at most ``max_length``
   (reading only a prefix of the text long enough to fill it: see ``encode``).

Verified token for token against the reference ``tokenizers`` implementation (see
``tests/test_embed_wordpiece.py`` for the behaviour users rely on).

Contents:
    WordPieceTokenizer  -- ``encode(text) -> list[int]``, ``tokenize(text) -> list[str]``
    load_vocabulary     -- vocab.txt -> {token: id}
    basic_words         -- steps 1-4, usable on their own (BM25 shares nothing with it on purpose)
"""
from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

from attention_cloud.errors import EmbeddingError

__all__ = ["WordPieceTokenizer", "load_vocabulary", "basic_words"]

_MAX_CHARS_PER_WORD = 100


def load_vocabulary(path: Path) -> dict[str, int]:
    """Read a BERT ``vocab.txt`` (one token per line, id = line number).

    Raises:
        EmbeddingError: the file is missing or lacks the special tokens BERT needs.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").split("\n")
    except OSError as exc:
        raise EmbeddingError(f"cannot read WordPiece vocabulary {path}: {exc.strerror}") from exc
    if lines and lines[-1] == "":
        lines.pop()
    vocab = {token: index for index, token in enumerate(lines)}
    missing = [t for t in ("[CLS]", "[SEP]", "[UNK]", "[PAD]") if t not in vocab]
    if missing:
        raise EmbeddingError(f"WordPiece vocabulary {path} lacks {', '.join(missing)}")
    return vocab


def _is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    # Every "other" category counts: control, format, surrogate, private use, unassigned.
    return unicodedata.category(char).startswith("C")


def _is_whitespace(char: str) -> bool:
    if char in " \t\n\r":
        return True
    return unicodedata.category(char) == "Zs"


def _is_punctuation(char: str) -> bool:
    cp = ord(char)
    # BERT treats every non-alphanumeric ASCII symbol as punctuation ("$", "^", "`" are not
    # in Unicode's P* categories but must still split).
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _normalise_word(word: str) -> str:
    """Lowercase then strip accents, as BertNormalizer does with lowercase=True."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")


# Steps 1-4 run as whole-text str.translate and str.split calls, not a Python loop per
# character (a transcript's text is hundreds of thousands of characters): each distinct
# character is classified once, into what it becomes when cleaning (dropped, a space, a CJK
# ideograph spaced out, itself) and whether it is punctuation (spaced out before the final
# split, so that it is a word of its own).
@lru_cache(maxsize=1 << 16)
def _cleaned(char: str) -> str | None:
    """What step 1-2 make of ``char``: None (dropped), a space, itself spaced out, itself."""
    cp = ord(char)
    if cp == 0 or cp == 0xFFFD or _is_control(char):
        return None
    if _is_whitespace(char):
        return " "
    if _is_cjk(cp):
        return f" {char} "
    return char


@lru_cache(maxsize=1 << 16)
def _spaced_punctuation(char: str) -> str:
    """``char`` with a space either side when it is punctuation, else itself."""
    return f" {char} " if _is_punctuation(char) else char


# str.translate tables of the ASCII characters that change (most text is mostly ASCII)
_ASCII_CLEAN = {cp: _cleaned(chr(cp)) for cp in range(128) if _cleaned(chr(cp)) != chr(cp)}
_ASCII_PUNCTUATION = {cp: _spaced_punctuation(chr(cp)) for cp in range(128)
                      if _is_punctuation(chr(cp))}


def _table(text: str, ascii_table: dict[int, str | None], classify) -> dict[int, str | None]:
    """``ascii_table`` and, for each distinct non-ASCII character of ``text``, ``classify``'s
    answer where it is not the character itself."""
    if text.isascii():
        return ascii_table
    table = dict(ascii_table)
    for char in set(text):
        if ord(char) > 127:
            becomes = classify(char)
            if becomes != char:
                table[ord(char)] = becomes
    return table


def basic_words(text: str) -> list[str]:
    """Steps 1-4 of BERT's basic tokenizer: cleaned, lowercased, accent-free words and punctuation."""
    cleaned = text.translate(_table(text, _ASCII_CLEAN, _cleaned))
    if cleaned.isascii():
        normalised = cleaned.lower()  # nothing to decompose: no word by word needed
    else:
        normalised = " ".join(chunk.lower() if chunk.isascii() else _normalise_word(chunk)
                              for chunk in cleaned.split())
    return normalised.translate(_table(normalised, _ASCII_PUNCTUATION, _spaced_punctuation)).split()


class WordPieceTokenizer:
    """Text -> BERT input ids, for uncased BERT-family vocabularies.

    Args:
        vocab: token -> id, as returned by :func:`load_vocabulary`.
        max_length: longest sequence produced, ``[CLS]`` and ``[SEP]`` included (MiniLM: 256).
    """

    def __init__(self, vocab: dict[str, int], *, max_length: int = 256) -> None:
        if max_length < 2:
            raise ValueError("max_length must leave room for [CLS] and [SEP]")
        self.vocab = vocab
        self.max_length = max_length
        self.cls_id = vocab["[CLS]"]
        self.sep_id = vocab["[SEP]"]
        self.unk_id = vocab["[UNK]"]
        self.pad_id = vocab["[PAD]"]
        self._inverse: list[str] | None = None
        # Chat text repeats its words constantly; caching word -> pieces makes tokenising
        # a long session several times faster than re-running the greedy match.
        self._word_ids = lru_cache(maxsize=200_000)(self._word_ids_uncached)

    @classmethod
    def from_file(cls, path: Path, *, max_length: int = 256) -> "WordPieceTokenizer":
        """Build a tokenizer from a ``vocab.txt`` file."""
        return cls(load_vocabulary(path), max_length=max_length)

    def _word_ids_uncached(self, word: str) -> tuple[int, ...]:
        if len(word) > _MAX_CHARS_PER_WORD:
            return (self.unk_id,)
        ids: list[int] = []
        start = 0
        vocab = self.vocab
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk_id,)
            ids.append(found)
            start = end
        return tuple(ids)

    def encode(self, text: str) -> list[int]:
        """Ids of ``[CLS] pieces... [SEP]``, truncated to ``max_length``.

        Only as much of ``text`` is read as the model reads: a prefix of ``8 * max_length``
        characters, widened fourfold until its whole words fill the budget (or the text ends),
        so a megabyte tool result costs what its first few thousand characters do. The ids are
        those of the whole text: the cut word at the end of a prefix is never used.
        """
        budget = self.max_length - 2
        window = max(8 * self.max_length, 64)
        while True:
            cut = len(text) > window
            words = basic_words(text[:window]) if cut else basic_words(text)
            if cut:
                words = words[:-1]  # perhaps cut in the middle: pieces of it may differ
            pieces, full = self._fill(words, budget)
            if full or not cut:
                return [self.cls_id, *pieces, self.sep_id]
            window *= 4

    def _fill(self, words: list[str], budget: int) -> tuple[list[int], bool]:
        """The first ``budget`` word pieces of ``words``, and whether the budget was reached."""
        ids: list[int] = []
        for word in words:
            pieces = self._word_ids(word)
            room = budget - len(ids)
            if len(pieces) >= room:
                ids.extend(pieces[:room])
                return ids, True
            ids.extend(pieces)
        return ids, False

    def tokenize(self, text: str) -> list[str]:
        """The WordPiece tokens of ``text`` (with ``[CLS]``/``[SEP]``), for inspection and tests."""
        if self._inverse is None:
            inverse = [""] * (max(self.vocab.values()) + 1)
            for token, index in self.vocab.items():
                inverse[index] = token
            self._inverse = inverse
        return [self._inverse[i] for i in self.encode(text)]
