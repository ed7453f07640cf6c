"""Operators nest a goal or a clause without brackets (`true -> true -> ... true`), which the
text's bracket check never counts, and SWI-Prolog compiles a control construct by recursing in
C on its nesting: a grantee's rules text (the `rules` of `POST /v1/query`, at most 1 MB) of
`p :- true -> true -> ...` 100,000 deep ended the process in assertz/1 (SIGSEGV), `atc serve`
and every principal's reads with it. A goal or clause nesting past 2,000 levels is now refused
in one line before anything compiles it; one within the bound runs as before."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_home, granted_memory, run_atc

REFUSED = "nests terms more than 2,000 deep (operators such as `,`, `;` and `->` count)"

#: A grantee's rules text read in a process of its own: before, the process ended.
_GRANTEE_RULES = r'''
import sys
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.sharing import reader_query
mem = Memory.open(Path(sys.argv[1]))
rules = "p :- " + "true -> " * 100000 + "true.\n"
try:
    reader_query(mem, "bob", "p", rules_text=rules)
except Exception as e:
    print(type(e).__name__, e)
'''


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("code_depth"), "L0")
    yield memory
    memory.close()


def test_a_grantees_rules_nested_past_the_compiler_are_refused_not_a_crash(tmp_path):
    home = granted_home(tmp_path, "L0")
    done = subprocess.run([sys.executable, "-c", _GRANTEE_RULES, str(home)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, (done.returncode, done.stderr[-300:])
    assert done.stdout.count("\n") == 1 and REFUSED in done.stdout, done.stdout[-300:]


@pytest.mark.parametrize("unit", ["\\+ ", "fail ; ", "true -> ", "true, "])
def test_a_goal_nested_by_operators_past_the_bound_is_refused(mem, unit):
    with pytest.raises(AtcError, match=r"^goal or clause nests terms more than 2,000 deep"):
        mem.query(unit * 2100 + "true")


@pytest.mark.parametrize("unit", ["\\+ \\+ ", "true, "])
def test_a_goal_within_the_bound_still_runs(mem, unit):
    assert mem.query(unit * 900 + "true").rows == [{}]


def test_a_rules_file_nested_past_the_bound_names_its_line(tmp_path):
    home = granted_home(tmp_path, "L0")
    rules = tmp_path / "deep.pl"
    rules.write_text("ok.\n" + "p :- " + "fail ; " * 2100 + "true.\n")
    done = run_atc(home, "query", "p", "--rules", str(rules))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr[-300:]
    assert "deep.pl:2:" in done.stderr and REFUSED in done.stderr
