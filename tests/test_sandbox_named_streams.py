"""User code writes to text, never to a stream it names.

library(sandbox) lets format/3 and with_output_to/2 write only to text (an atom, a string,
codes or chars), but declares format_time/3,4 and normalize_space/2 safe whatever their output
argument, so a goal could name a stream alias there: `format_time(user_error, Text, 0)` from a
grantee's `atc query --as` or `POST /v1/query` wrote any bytes (escape sequences included) to
the server's standard error, which their `format/2` never reaches, and `user_output` wrote
into the owner's `atc query --format json` (and `atc mcp`'s protocol channel). The output
argument is now tested as format/3's is (rules/sandbox_trust.pl).
"""
from __future__ import annotations

import json

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_home, granted_memory, run_atc

ESCAPE = "\\e]52;c;SU5KRUNURUQ=\\a"         # OSC 52: writes the clipboard of a terminal

WRITES_TO_A_STREAM = [
    "format_time(user_error, 'MARK-stream', 0)",
    "format_time(user_output, 'MARK-stream', 0, posix)",
    f"format_time(user_error, '{ESCAPE}MARK-stream', 0)",
    'normalize_space(user_error, "MARK-stream")',
    'normalize_space(user_output, "MARK-stream")',
    "maplist(format_time(user_error), ['MARK-stream'], [0])",
    "call(format_time, user_error, 'MARK-stream', 0)",
    "member(Out, [user_error]), format_time(Out, 'MARK-stream', 0)",
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("streams"), "L0")
    yield memory
    memory.close()


@pytest.mark.parametrize("goal", WRITES_TO_A_STREAM)
def test_a_grantees_goal_cannot_write_to_a_stream_it_names(mem, capfd, goal):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as refused:
        reader_query(mem, "bob", f"{goal}, item(H)", limit=1)
    assert len(str(refused.value).splitlines()) == 1
    out, err = capfd.readouterr()
    assert "MARK" not in out + err


@pytest.mark.parametrize("goal", WRITES_TO_A_STREAM)
def test_the_owners_goal_cannot_write_to_a_stream_it_names(mem, capfd, goal):
    with pytest.raises(AtcError):
        mem.query(goal)
    out, err = capfd.readouterr()
    assert "MARK" not in out + err


def test_a_rule_naming_a_stream_is_refused_and_not_saved(mem):
    with pytest.raises(AtcError, match="format_time/3"):
        mem.rules_add("loud :- format_time(user_error, 'MARK-rule', 0).\n", "loud")
    assert mem.rules_list() == []


def test_text_outputs_still_work(mem):
    rows = mem.query("format_time(atom(Y), '%Y', 0, posix), normalize_space(string(S), \"a   b\"),"
                     " format_time(codes(C), '%d', 86400, posix)").rows
    assert rows == [{"Y": "1970", "S": "a b", "C": [48, 50]}]


def test_atc_query_json_stays_json(tmp_path):
    home = granted_home(tmp_path, "L0")
    done = run_atc(home, "query",
                   "between(1, 50, _), format_time(user_output, 'INJECTED', 0), fail ; true",
                   "--format", "json")
    assert done.returncode != 0
    assert "INJECTED" not in done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "format_time/3" in done.stderr
    done = run_atc(home, "query", "format_time(atom(Y), '%Y', 0, posix)", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"Y": "1970"}]
