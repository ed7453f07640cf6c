"""What code run for a grantee prints goes nowhere.

A goal's format/2 output goes to standard error, where the owner's own `atc query` shows it.
Run for a grantee it went to the server's standard error too: `POST /v1/query` with
`between(1, inf, _), format("~a", [X]), fail` wrote ~50 MB in 3 s to the owner's terminal or
log (~500 MB a request at the 30 s limit), escape sequences included. The grantee never sees
that stream; the owner did not write the code: it is discarded.
"""
from __future__ import annotations

import pytest

from granted_home import granted_memory

WALK = """loud(Seeds, H-0.5) :- format("MARK-walk~n"), member(H-_, Seeds).
plane(loud, _{walk: rule(loud), seeds: 2}).
"""


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("output"), "L0")
    memory.curate()
    yield memory
    memory.close()


def test_a_grantees_goal_prints_nothing_to_the_hosts_streams(mem, capfd):
    from attention_cloud.sharing import reader_query

    result = reader_query(mem, "bob", 'format("MARK-goal~n"), item(H)', limit=1)
    assert result.rows
    out, err = capfd.readouterr()
    assert "MARK" not in out + err


def test_a_grantees_walk_rule_prints_nothing_to_the_hosts_streams(mem, capfd):
    from attention_cloud.sharing import reader_hydrate

    frame = reader_hydrate(mem, "bob", "what did we fix", plane="loud", rules_text=WALK)
    assert frame.facts
    out, err = capfd.readouterr()
    assert "MARK" not in out + err


def test_the_owners_goal_still_prints_to_standard_error(mem, capfd):
    mem.query('format("MARK-owner~n")')
    out, err = capfd.readouterr()
    assert "MARK-owner" in err and "MARK" not in out
