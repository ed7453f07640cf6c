"""Where a sentence ends: the unit an excerpt keeps whole and the curator scores.

A sentence cut in the middle shows a reader a fragment: an excerpt of the answer "...in the
"To Adapt or Not to Adapt? Real-Time Adaptation ..." submission, with an average improvement
of 20%" showed "Real-Time Adaptation ... 20%" without what it was about, because the "?" of the
quoted title ended a sentence.
"""
from __future__ import annotations

import pytest

from attention_cloud.curate.sentences import sentence_bounds, split_sentences
from attention_cloud.excerpt import excerpt_text, goal_weights


def pieces(line: str) -> list[str]:
    return [line[start:end] for start, end in sentence_bounds(line)]


# Each line is one sentence: nothing in it ends one.
ONE_SENTENCE = [
    pytest.param('The "To Adapt or Not to Adapt? Real-Time Adaptation" submission won.', id="quoted-title-?"),
    pytest.param("The book “Can We Adapt! Now” sold well.", id="curly-quoted-title-!"),
    pytest.param("She said 'Wow! That was fast' and left.", id="single-quoted"),
    pytest.param("The fix (is it safe? yes, mostly) is simple.", id="parenthesis-?"),
    pytest.param("The fix [see note! below] is simple.", id="brackets-!"),
    pytest.param('The paper "Should We Adapt?" presents results.', id="title-ending-the-quote"),
    pytest.param("Ask Dr. Smith and Mrs. Jones, e.g. Tuesday or i.e. Monday.", id="titles-eg-ie"),
    pytest.param("The U.S. office and the U.K. team met at 9 a.m. today.", id="dotted-abbreviations"),
    pytest.param("The Ph.D. student reads vs. writes.", id="phd-vs"),
    pytest.param("Upgrade to v2.1 now; it needs 3.5 GB and costs 2.50 dollars.", id="versions-decimals"),
    pytest.param("I was thinking... maybe we should go.", id="ellipsis-dots"),
    pytest.param("I was thinking… maybe we should go.", id="ellipsis-char"),
    pytest.param("See https://example.com/a.b?x=1&y=2.3 for details.", id="url"),
    pytest.param("Edit ~/.config/app.toml and ./run.sh then C:\\Users\\me\\a.txt too.", id="paths"),
    pytest.param("Run `make test. && echo done! ok` again.", id="code-span"),
    pytest.param("See Fig. 3 and No. 5 of the approx. 10 figures.", id="abbreviation-before-number"),
    pytest.param("Call J. R. R. Tolkien now.", id="initials"),
]


@pytest.mark.parametrize("line", ONE_SENTENCE)
def test_nothing_inside_ends_the_sentence(line):
    assert pieces(line) == [line]


# Lines of several sentences, split where one really ends.
SEVERAL = [
    pytest.param("This ends. That starts.", ["This ends.", "That starts."], id="plain"),
    pytest.param("Is it true? Yes it is!", ["Is it true?", "Yes it is!"], id="question"),
    pytest.param('He said "Stop!" Then he left.', ['He said "Stop!"', "Then he left."],
                 id="quote-closes-with-the-sentence"),
    pytest.param("(This is a note.) Next one.", ["(This is a note.)", "Next one."],
                 id="parenthesised-sentence"),
    pytest.param("Born in the U.S. In 1990 I moved.", ["Born in the U.S.", "In 1990 I moved."],
                 id="dotted-abbreviation-then-capital"),
    pytest.param("It rose, etc. The end came.", ["It rose, etc.", "The end came."], id="etc"),
    pytest.param("I said no. He agreed.", ["I said no.", "He agreed."], id="no-is-a-word"),
    pytest.param("I waited... Then it came.", ["I waited...", "Then it came."], id="ellipsis-then-capital"),
    pytest.param("Edit ~/.config/app. Then restart.", ["Edit ~/.config/app.", "Then restart."],
                 id="path-at-the-end"),
    pytest.param('I own a 5" screen. Then "Is it? No" he said.', ['I own a 5" screen.', 'Then "Is it? No" he said.'],
                 id="inch-mark-is-no-quote"),
    pytest.param("It's the students' fault! They're late.", ["It's the students' fault!", "They're late."],
                 id="apostrophes-open-nothing"),
    pytest.param('An open "quote never closes. So this splits.', ['An open "quote never closes.', "So this splits."],
                 id="unclosed-quote"),
]


@pytest.mark.parametrize("line, expected", SEVERAL)
def test_sentences_end_where_they_end(line, expected):
    assert pieces(line) == expected


def test_a_long_quotation_is_prose_of_its_own():
    quoted = " ".join(f"Sentence number {i} of the speech." for i in range(20))
    line = f'He read "{quoted}" aloud. Then he sat.'
    got = pieces(line)
    assert len(got) > 10 and got[-1] == "Then he sat."


def test_the_curator_splits_the_same_way():
    texts = [s.text for s in split_sentences(
        '1. The "To Adapt or Not to Adapt? Real-Time" paper, says Dr. Smith. (A note.) Done.')]
    assert texts == ['The "To Adapt or Not to Adapt? Real-Time" paper, says Dr. Smith.', "(A note.)", "Done."]


def test_an_excerpt_keeps_the_sentence_with_a_quoted_title_as_one_span():
    # the receipt lists the spans an excerpt kept, one a sentence: the title's "?" made two
    first = ('The "Experimental Results" section of the "To Adapt or Not to Adapt? Real-Time '
             'Adaptation for Semantic Segmentation" submission presents the results.')
    text = first + " Filler sentence about nothing at all here." * 20 + " The framerate rose 20%."
    found = excerpt_text(text, goal_weights("what did the submission present"), cap=60)
    assert found is not None
    assert found.spans[0] == (0, len(first))
    assert found.text.startswith(first)
