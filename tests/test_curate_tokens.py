"""The project's token estimator and truncation to a token budget."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from attention_cloud.curate import estimate_tokens, truncate_to_tokens


def test_estimate_follows_the_documented_rule():
    assert estimate_tokens("") == 0
    # 11 bytes -> 3 by bytes; 2 words -> ceil(2.6) = 3
    assert estimate_tokens("hello world") == 3
    # many short words: the word term wins (10 words -> 13)
    assert estimate_tokens("a b c d e f g h i j") == 13
    # one long word: the byte term wins (40 bytes -> 10)
    assert estimate_tokens("x" * 40) == 10


def test_multibyte_text_costs_more_than_its_character_count_suggests():
    # 8 CJK characters are 24 UTF-8 bytes: 6 tokens, not 2
    assert estimate_tokens("日本語のテキスト") == 6
    assert estimate_tokens("🙂" * 4) == 4


def test_lone_surrogates_do_not_crash_the_estimator():
    assert estimate_tokens("bad \ud800 text") > 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_estimate_is_monotone_under_appending(head, tail):
    assert estimate_tokens(head) <= estimate_tokens(head + tail)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=60))
def test_truncation_always_fits_and_keeps_fitting_text_whole(text, budget):
    cut = truncate_to_tokens(text, budget)
    assert estimate_tokens(cut) <= budget
    if estimate_tokens(text) <= budget:
        assert cut == text


def test_truncation_cuts_at_a_readable_boundary_and_marks_the_cut():
    text = ("I recently ran a charity walk and raised $250 through sponsors, which got me "
            "thinking about the impact of my daily habits on the community and environment.")
    cut = truncate_to_tokens(text, 20)
    assert cut.endswith("…")
    assert text.startswith(cut[:-1])
    assert cut[-2].isalnum() or cut[-2] in ")]"  # no dangling comma or half-cut space


def test_truncation_of_a_huge_text_is_fast_and_bounded():
    huge = "word " * 2_000_000  # 10 MB
    cut = truncate_to_tokens(huge, 40)
    assert estimate_tokens(cut) <= 40
    assert len(cut) < 400
