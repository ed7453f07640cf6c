"""nearest/3,4 and lexical/4 called mid-proof with odd arguments, as a user's goal or rule may
call them: a clear one-line error or a sensible answer, never a silent filter or a hit list
for nothing."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud.errors import PrologError

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


@pytest.fixture(scope="module")
def mem(tmp_path_factory, curated_hash_memory):
    memory = curated_hash_memory(tmp_path_factory.mktemp("nearest"),
                                 FIXTURES / "claude_code_session.jsonl")
    yield memory
    memory.close()


def hits(mem, goal: str):
    return mem.query(goal).rows[0]["Hits"]


def test_a_normal_search_answers(mem):
    assert len(hits(mem, 'nearest("retry backoff", 3, Hits)')) == 3


@pytest.mark.parametrize("text", ['""', '"   "', "''", '"\\n\\t"'])
def test_a_blank_query_finds_nothing(mem, text):
    """The embedder made a vector of "" and the search answered whatever lay nearest it."""
    assert hits(mem, f"nearest({text}, 3, Hits)") == []
    assert hits(mem, f"nearest({text}, 3, [], Hits)") == []
    assert mem.query(f"nearest({text}, H, S)").rows == []


def test_k_zero_and_k_huge(mem):
    assert hits(mem, 'nearest("retry", 0, Hits)') == []
    everything = hits(mem, 'nearest("retry", 100000000, Hits)')
    assert 3 < len(everything) <= 10_000


@pytest.mark.parametrize("goal,message", [
    # a K that is a number but no integer failed: read as "is 2.5 a handle near the query?"
    ('nearest("retry", 2.5, H)', "`integer' expected, found `2.5'"),
    ('nearest("retry", f(x), S)', "`handle' expected, found `f(x)'"),
    # options that matched nothing or were ignored, without a word
    ('nearest("retry", 3, [bogus(1)], H)', "`jump_option' expected, found `bogus(1)'"),
    ('nearest("retry", 3, [kinds(error)], H)', "`list(atomic)' expected, found `error'"),
    ('nearest("retry", 3, [level(l9)], H)', "found `l9'"),
    ('nearest("retry", 3, [record(items)], H)', "found `items'"),
    ('lexical("retry", 3, [sgement(work)], H)', "`jump_option' expected, found `sgement(work)'"),
    # these were already clear
    # an unbound query is an instantiation error, not `text_or_handle' expected, found `_123'
    ('nearest(X, 3, H)', "nearest/3: Arguments are not sufficiently instantiated"),
    ('nearest(42, 3, H)', "`text_or_handle' expected"),
    ('nearest("retry", -1, H)', "`nonneg' expected"),
])
def test_odd_arguments_are_one_clear_error(mem, goal, message):
    with pytest.raises(PrologError) as err:
        mem.query(goal)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_the_options_a_user_may_give_still_filter(mem):
    kinds = hits(mem, 'nearest("retry", 5, [kinds([error])], Hits)')
    assert kinds and all(mem.query(f"item_kind({h}, error)").rows for h, _ in kinds)
    arcs = hits(mem, 'nearest("retry", 3, [record(arc), level(l1)], Hits)')
    assert arcs and all(h.startswith("arc_") for h, _ in arcs)
    assert hits(mem, 'nearest("retry", 3, [segment(nowhere)], Hits)') == []
    assert hits(mem, 'nearest("retry", 3, [record(rollup)], Hits)') == []


def test_within_takes_a_list_of_handles_as_it_takes_them_one_a_line(mem):
    # before: within([H1, H2]), the shape a Prolog user writes for "these handles", was a
    # type error (`atomic' expected, found a list): only a text of one handle a line worked
    two = [h for h, _ in hits(mem, 'lexical("cache ttl", 2, [], Hits)')]
    assert len(two) == 2
    listed = hits(mem, f'lexical("cache ttl", 5, [within([{two[0]}, "{two[1]}"])], Hits)')
    lined = hits(mem, f'lexical("cache ttl", 5, [within("{two[0]}\\n{two[1]}")], Hits)')
    assert listed == lined and {h for h, _ in listed} == set(two)
    assert hits(mem, 'lexical("cache ttl", 5, [within([])], Hits)') == []
    with pytest.raises(PrologError, match=r"`atomic' expected, found `f\(x\)'"):
        mem.query('lexical("retry", 5, [within([f(x)])], Hits)')
