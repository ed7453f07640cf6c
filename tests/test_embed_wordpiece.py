"""The pure-Python WordPiece tokenizer must produce the ids MiniLM was trained on.

Expected ids below were taken from the reference ``tokenizers`` implementation (BertNormalizer,
BertPreTokenizer, WordPiece) with the same vocabulary; a mismatch means the model sees
different input than it was trained on.
"""
from __future__ import annotations

import pytest

from attention_cloud.embed import WordPieceTokenizer
from attention_cloud.embed.onnx_model import DEFAULT_VOCAB
from attention_cloud.embed.wordpiece import load_vocabulary
from attention_cloud.errors import EmbeddingError


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=256)


@pytest.mark.parametrize(
    ("text", "tokens", "ids"),
    [
        ("Héllo Wörld, naïve café!", ["[CLS]", "hello", "world", ",", "naive", "cafe", "!", "[SEP]"],
         [101, 7592, 2088, 1010, 15743, 7668, 999, 102]),
        ("東京は日本", ["[CLS]", "東", "京", "は", "日", "本", "[SEP]"], [101, 1879, 1755, 1672, 1864, 1876, 102]),
        ("it_3fa2#l1 failed: ERR_CONN_RESET (v1.2.3)",
         ["[CLS]", "it", "_", "3", "##fa", "##2", "#", "l", "##1", "failed", ":", "er", "##r", "_", "con",
          "##n", "_", "reset", "(", "v", "##1", ".", "2", ".", "3", ")", "[SEP]"],
         [101, 2009, 1035, 1017, 7011, 2475, 1001, 1048, 2487, 3478, 1024, 9413, 2099, 1035, 9530, 2078,
          1035, 25141, 1006, 1058, 2487, 1012, 1016, 1012, 1017, 1007, 102]),
        # zero-width space, NUL and a private-use character are dropped before splitting
        ("zero\u200bwidth\x00 and \ue241private", ["[CLS]", "zero", "##wi", "##dt", "##h", "and", "private", "[SEP]"],
         [101, 5717, 9148, 11927, 2232, 1998, 2797, 102]),
        ("unaffable", ["[CLS]", "una", "##ffa", "##ble", "[SEP]"], [101, 14477, 20961, 3468, 102]),
        ("emoji 😀 ok", ["[CLS]", "em", "##oj", "##i", "[UNK]", "ok", "[SEP]"], [101, 7861, 29147, 2072, 100, 7929, 102]),
        ("Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", ["[CLS]", "[UNK]", "[UNK]", "[SEP]"], [101, 100, 100, 102]),
    ],
)
def test_tokens_match_the_reference_bert_tokenizer(tokenizer, text, tokens, ids):
    assert tokenizer.tokenize(text) == tokens
    assert tokenizer.encode(text) == ids


@pytest.mark.parametrize("text", ["", "   ", "\t\n\r", "\x00\u200b"])
def test_empty_or_blank_text_is_just_cls_and_sep(tokenizer, text):
    assert tokenizer.encode(text) == [101, 102]


def test_long_input_is_truncated_to_max_length_keeping_sep(tokenizer):
    ids = tokenizer.encode("word " * 1000)
    assert len(ids) == 256
    assert ids[0] == tokenizer.cls_id and ids[-1] == tokenizer.sep_id


def test_truncation_can_cut_inside_a_word(tokenizer):
    short = WordPieceTokenizer(tokenizer.vocab, max_length=4)
    # "unaffable" is three pieces; only two fit between [CLS] and [SEP]
    assert short.tokenize("unaffable") == ["[CLS]", "una", "##ffa", "[SEP]"]


def test_overlong_word_becomes_unknown(tokenizer):
    assert tokenizer.tokenize("a" * 101) == ["[CLS]", "[UNK]", "[SEP]"]
    assert tokenizer.tokenize("a" * 100)[1] != "[UNK]"


def test_vocabulary_without_special_tokens_is_refused(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(EmbeddingError, match=r"lacks \[CLS\], \[SEP\], \[UNK\], \[PAD\]"):
        load_vocabulary(vocab)


def test_missing_vocabulary_is_an_embedding_error(tmp_path):
    with pytest.raises(EmbeddingError, match="cannot read WordPiece vocabulary"):
        load_vocabulary(tmp_path / "absent.txt")


def test_shipped_vocabulary_is_bert_uncased():
    vocab = load_vocabulary(DEFAULT_VOCAB)
    assert len(vocab) == 30522
    assert (vocab["[PAD]"], vocab["[UNK]"], vocab["[CLS]"], vocab["[SEP]"]) == (0, 100, 101, 102)



def words_by_character(text: str) -> list[str]:
    """BERT's basic tokenizer one character at a time, as its reference implementation reads
    text (the loop ``basic_words`` replaced)."""
    from attention_cloud.embed.wordpiece import (_is_cjk, _is_control, _is_punctuation,
                                                 _is_whitespace, _normalise_word)

    cleaned = []
    for char in text:
        if ord(char) in (0, 0xFFFD) or _is_control(char):
            continue
        cleaned.append(" " if _is_whitespace(char) else f" {char} " if _is_cjk(ord(char)) else char)
    words = []
    for chunk in "".join(cleaned).split():
        start = 0
        normalised = _normalise_word(chunk)
        for i, char in enumerate(normalised):
            if _is_punctuation(char):
                words += [normalised[start:i]] if start < i else []
                words.append(char)
                start = i + 1
        words += [normalised[start:]] if start < len(normalised) else []
    return words


def test_words_are_those_of_the_character_by_character_reading():
    """basic_words classifies each distinct character once and splits whole texts; it must
    give the words of the per-character reading for any text: every ASCII character
    (controls, tabs, DEL), accents, CJK, Unicode spaces and punctuation, line separators,
    upper case, emoji, unassigned and private-use characters."""
    import random

    from attention_cloud.embed.wordpiece import basic_words

    rng = random.Random(18)
    alphabet = [chr(cp) for cp in range(128)] + list(
        "éÉçÑßİıΣσς東京は日本한국어\u00a0\u2000\u3000\u2028\u2029\u0085\u200b\ufeff\ue241\ufffd"
        "\u0301\u0308«»¿¡–—…“”‘’•○·€£¥©®™°±×÷😀🚀Ｆｕｌｌ\U000e0001\U0010fffd\u0378\u1fed\u212b")
    samples = ["", " ", "\x00", "\x7f", "Héllo Wörld, naïve café!", "ΣΑΣ σας ΟΔΟΣ.",
               "Line one\r\nLine\ttwo\x0bthree\x0cfour\x1cfive\u2028six", "".join(alphabet)]
    for _ in range(600):
        samples.append("".join(rng.choice(alphabet) if rng.random() < 0.4
                               else rng.choice("aZ9 _-.\n") for _ in range(rng.randrange(80))))
    for text in samples:
        assert basic_words(text) == words_by_character(text), repr(text)
