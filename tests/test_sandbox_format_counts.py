"""One format text asks for no more padding than one directive may.

A count of 6 digits or more (`~100000000c`) was refused, but not many counts of 5: column
stops relative to the last (`~t~99999+`) each pad up to 99,999 characters, so a 30 KB goal of
3,000 of them asked format/3 for 300 MB in one C call, which no limit interrupts (a grantee's
`atc query --as bob --time-limit 2` ran 63 s and grew the process by 1.8 GB; a rules file of
1 MB, 10 GB). A text whose directives' counts add up past 99,999 is refused now, wherever it
stands in a goal or a rule, as a count of 6 digits is.
"""
from __future__ import annotations

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_memory

REFUSED = "No permission to format sandboxed"
MANY_STOPS = "~t~99999+" * 30          # 3 MB of padding: quick to make, and refused
GOALS = [f'format(atom(A), "{MANY_STOPS}", [])',
         f'format(atom(A), "~t~60000|~n~t~60000|", [])',
         f'F = "{MANY_STOPS}", format(atom(A), F, [])',
         f'with_output_to(string(S), format("{MANY_STOPS}"))',
         f"format(atom(A), '{'~99999c' * 2}', [0'x, 0'y])"]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("format_counts"), "L0")
    yield memory
    memory.close()


@pytest.mark.parametrize("goal", GOALS)
def test_a_grantees_format_text_of_many_counts_is_refused(mem, goal):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError, match=REFUSED):
        reader_query(mem, "bob", goal, time_limit=5)


@pytest.mark.parametrize("goal", GOALS)
def test_the_owners_format_text_of_many_counts_is_refused(mem, goal):
    with pytest.raises(AtcError, match=REFUSED):
        mem.query(goal, time_limit=5)


def test_a_rule_of_many_counts_is_not_saved(mem):
    with pytest.raises(AtcError, match=REFUSED):
        mem.rules_add(f'wide(A) :- format(atom(A), "{MANY_STOPS}", []).\n', "wide")
    assert mem.rules_list() == []


def test_columns_and_counts_within_the_bound_still_format(mem):
    rows = mem.query('format(atom(A), "~w~t~10|~w~t~5+~e", [a, b, 1.0]),'
                     ' format(atom(B), "~t~50000|~t~49999+", []), atom_length(B, N)').rows
    assert rows == [{"A": "a         b    1.000000e+00", "B": rows[0]["B"], "N": 99999}]
