"""One token estimator: Prolog's count is Python's for any text, and every stored count is a recount.

The estimator is defined once, in attention_cloud.curate.tokens; rules/hydrate.pl's
estimate_tokens/2 reaches it through the bridge. These tests hold both sides to the same numbers
for text of every kind (Unicode spaces, CJK, emoji, Prolog syntax, control characters), and
check that the counts curation stores with each rung, which hydration budgets with, are what the
estimator gives for the rung's text.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_cloud import Memory
from attention_cloud.bridge.terms import Var
from attention_cloud.curate import estimate_tokens
from attention_cloud.curate.tokens import estimates_packed, unpack_texts
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

# Every character Python's str.split() separates words at that is not ASCII whitespace.
UNICODE_SPACES = "\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
                 "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
PIECES = ["a", "word", " ", "\t", "\n", "\r\n", "\v", "\f", *UNICODE_SPACES, "\u200b", "\ufeff",
          "日本語", "のテキスト", "한국어", "🙂", "👩‍💻", "🇫🇷", "e\u0301", "ß", "\x00",
          "foo(X) :- bar(X).", "'quoted atom'", '"a string"', "0'a", "[H|T]", "_{a: 1}", "\\",
          "%", "/*", "*/", "`", ":- halt.", "0x1F", "1.0e10", "sa\u00efd"]

texts = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
)


@pytest.fixture(scope="module")
def prolog():
    from attention_cloud.bridge import get_prolog

    return get_prolog()


def prolog_count(pl, text: str) -> int:
    (tokens,) = pl.once("atc_hydrate:estimate_tokens", text, Var())
    return tokens


def test_the_issue_example_counts_alike(prolog):
    # no-break and em spaces separate words (4 words: ceil(5.2) = 6); they were 3 in Prolog
    assert estimate_tokens("a\u00a0b\u2003c d") == 6
    assert prolog_count(prolog, "a\u00a0b\u2003c d") == 6


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_prolog_and_python_count_any_text_alike(prolog, text):
    assert prolog_count(prolog, text) == estimate_tokens(text)


def prolog_counts(pl, texts: list[str]) -> list[int]:
    """The texts counted in one call, as a frame counts its facts (they cross packed)."""
    (tokens,) = pl.once("atc_hydrate:estimate_all_", texts, Var())
    return tokens


# Texts that could confuse the packing: its own separator and length digits, empty texts,
# characters outside the BMP (one character each side), NUL, and texts of a megabyte.
PACKING_EDGES = ["", ":", "3:abc", "12:", "0:", ":::", "1", " ", "", "🙂:🙂", "👩‍💻 e\u0301 ß",
                 "\x00", "a\x00:b", "日本語のテキスト: 5:x", "\u3000:\u00a0", "x" * 1_000_000,
                 "🙂 " * 300_000, "é:" * 200_000, "last"]


def test_a_frame_counts_texts_holding_the_packing_alike(prolog):
    assert prolog_counts(prolog, PACKING_EDGES) == [estimate_tokens(t) for t in PACKING_EDGES]
    assert prolog_counts(prolog, [""]) == [0]
    assert prolog_counts(prolog, []) == []


@settings(max_examples=150, deadline=None)
@given(batch=st.lists(st.one_of(texts, st.sampled_from(PACKING_EDGES[:15])), max_size=40))
def test_a_frame_counts_any_texts_as_one_by_one(prolog, batch):
    assert prolog_counts(prolog, batch) == [estimate_tokens(t) for t in batch]


def test_packed_texts_round_trip_and_bad_packing_is_refused():
    packed = "".join(f"{len(t)}:{t}" for t in PACKING_EDGES)
    assert unpack_texts(packed) == PACKING_EDGES
    assert estimates_packed(packed) == " ".join(str(estimate_tokens(t)) for t in PACKING_EDGES)
    for bad, problem in [("abc", "no length at character 0"), ("3:ab", "runs past the end"),
                         ("1:a:b", "no length at character 3"), ("١:a", "no length")]:
        with pytest.raises(ValueError, match=problem):
            unpack_texts(bad)


TRICKY_SESSION = "\n".join([
    "User: why does the\u00a0retry\u2003policy stop at five? 日本語のテキストも確認して",
    "Assistant: We decided: at most 5 retries 🙂 because processor_timeout(X) :- slow(X). "
    "fires after 30\u202fs; see 'payments/retry.py' and \"docs\".",
    "User: and the 👩‍💻 on-call\u3000note says [H|T] = _{a: 1}?",
    "Assistant: Fixed: tests pass (12 passed) — the\u2028note was stale\u205fthough.",
]) + "\n"


@pytest.fixture
def curated(tmp_path):
    """The bundled samples and a session of tricky text, ingested and curated (hash embedder).
    One per test: a Memory shared across tests is closed by the first test that opens another
    home (one Memory per process), and a closed Memory refuses every call."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    extra = home.parent / "tricky.txt"
    extra.write_text(TRICKY_SESSION, encoding="utf-8")
    mem = Memory.open(home)
    mem.ingest([samples_dir(), extra])
    mem.curate()
    yield mem
    mem.close()


def test_every_stored_rung_count_equals_a_recount(curated):
    rows = curated.query("rung_tokens(Id, L, N), rung(Id, L, T)", limit=100_000).rows
    levels = {row["L"] for row in rows}
    assert levels == {"l0", "l1", "l2", "l3"}
    assert any("\u00a0" in row["T"] or "\u3000" in row["T"] for row in rows)  # the tricky session is in
    wrong = [(row["Id"], row["L"], row["N"], estimate_tokens(row["T"]))
             for row in rows if row["N"] != estimate_tokens(row["T"])]
    assert wrong == []
    # every rung has its count stored: hydration never estimates on a curated home
    unstored = curated.query("rung(Id, L, _), \\+ rung_tokens(Id, L, _)", limit=10).rows
    assert unstored == []


def test_an_uncurated_item_is_budgeted_with_the_same_estimate(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    extra = tmp_path / "tricky.txt"
    extra.write_text(TRICKY_SESSION, encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([extra])
        frame = mem.hydrate("retry policy", budget=2000)
        facts = frame.receipt["facts"]
        assert facts and all(f["level"] == "L0" for f in facts)
        shown = {f.handle: f.text for f in frame.facts}
        for fact in facts:
            text = mem.item(fact["handle"]).text
            label = shown[fact["handle"]].removesuffix(text)  # who said it, when a party did
            assert label in ("", "user: ", "assistant: ")
            # the text as the frame writes it, counted whole (name and text counted apart
            # were a token over: each rounded up)
            assert fact["tokens"] == estimate_tokens(label + text)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=0, max_value=4000),
       goal=st.sampled_from(["retry policy", "why did charges fail when the processor timed out",
                             "what did we decide two weeks ago about the webhook timeouts",
                             "日本語のテキスト 'quoted' \"x\" foo(X) :- bar(X)."]),
       plane=st.sampled_from(["default", "execution", "exploration"]))
def test_what_a_frame_costs_in_a_prompt_stays_within_its_budget(curated, budget, goal, plane):
    """The budget pays for the whole injected frame, not only its facts' text: the envelope,
    the lines heading the frame, its segments and every fact, breadcrumbs and what was left out
    (the receipt's ``framing``); the estimate of the envelope's text stays within the budget."""
    frame = curated.hydrate(goal, budget=budget, plane=plane)
    spent = frame.receipt["budget"]
    if frame.facts or frame.receipt["beyond"]:
        assert estimate_tokens(frame.envelope) <= budget, (budget, spent)
        assert spent["spent"] + spent["framing"] <= budget
    assert spent["spent"] == sum(f["tokens"] for f in frame.receipt["facts"]) + \
        sum(c["tokens"] for c in frame.receipt["beyond"])
