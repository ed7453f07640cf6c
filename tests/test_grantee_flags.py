"""A grantee reads the Prolog flags that describe the language, never the owner's host.

current_prolog_flag/2 answered a grantee (`atc query --as`, `POST /v1/query`) the owner's
command line (os_argv, with the home's path), the executable, the process id and tmp_dir.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_memory

@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("flags"), "L0")
    yield memory
    memory.close()


def _refused_every_way(mem, builtin: str, key: str, word: str) -> None:
    """bob's goal asking `builtin(key, V)` directly, through call/3 and with the key built at
    run time is refused each time in one line naming the key and ``word``."""
    from attention_cloud.sharing import reader_query

    for goal in (f"{builtin}({key}, V)", f"call({builtin}, {key}, V)",
                 f"atom_concat({key}, '', K), {builtin}(K, V)"):
        with pytest.raises(AtcError) as caught:
            reader_query(mem, "bob", goal)
        message = str(caught.value)
        assert "\n" not in message and key in message and word in message, message


@pytest.mark.parametrize("flag", ["os_argv", "argv", "executable", "pid", "tmp_dir", "home",
                                  "cpu_count", "c_cc"])
def test_a_grantee_is_refused_a_flag_that_describes_the_host_in_one_line(mem, flag):
    _refused_every_way(mem, "current_prolog_flag", flag, "prolog_flag")


def test_enumerating_flags_shows_a_grantee_the_languages_alone(mem):
    from attention_cloud.sharing import reader_query

    names = {row["F"] for row in reader_query(mem, "bob", "current_prolog_flag(F, _)",
                                              limit=1000).rows}
    assert {"bounded", "max_tagged_integer", "double_quotes"} <= names
    assert not names & {"os_argv", "argv", "executable", "pid", "tmp_dir", "home"}
    rows = reader_query(mem, "bob", "current_prolog_flag(bounded, B)").rows
    assert rows == [{"B": "false"}]


def test_the_owner_still_reads_every_flag(mem):
    assert mem.query("current_prolog_flag(pid, P)").rows[0]["P"] > 0


def test_atc_query_as_a_grantee_refuses_os_argv_with_exit_2(mem, tmp_path):
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query",
                          "current_prolog_flag(os_argv, V)", "--as", "bob"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "ATC_HOME": str(mem.home)})
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "os_argv" in out.stderr, out.stderr
    assert not out.stdout


def test_a_grantees_rule_is_refused_a_host_flag_too(mem, tmp_path):
    from attention_cloud.sharing import reader_query

    rules = "host_pid(P) :- current_prolog_flag(pid, P).\nbounded(B) :- current_prolog_flag(bounded, B).\n"
    assert reader_query(mem, "bob", "bounded(B)", rules_text=rules).rows == [{"B": "false"}]
    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", "host_pid(P)", rules_text=rules)
    assert "pid" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("key", ["atoms", "clauses", "codes", "functors", "predicates",
                                 "atom_space", "heapused", "globalused", "cputime",
                                 "process_cputime", "inferences"])
def test_a_grantee_is_refused_the_statistics_that_measure_the_owners_memory(mem, key):
    """statistics(atoms, N), statistics(clauses, N) and the rest told a grantee how large the
    owner's memory is (the clauses and atoms of every record, hidden ones too) and, read
    again, how much the owner wrote since: each key is now refused in one line."""
    _refused_every_way(mem, "statistics", key, "statistics")


def test_a_grantees_rule_is_refused_statistics_and_the_owner_still_reads_them(mem):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError, match="statistics"):
        reader_query(mem, "bob", "size(N)", rules_text="size(N) :- statistics(clauses, N).\n")
    # the owner's answer is an integer; its sign is SWI-Prolog's own (9.0.4 counts erased
    # clauses so that, after a long run of other tests' retracts in one process, it was -3202)
    assert isinstance(mem.query("statistics(clauses, N)").rows[0]["N"], int)


def test_predicate_property_tells_a_grantee_nothing_of_the_owners_files_or_database(mem):
    """predicate_property/2 answered a grantee the owner's install path (`file('/home/...
    /rules/grantee_view.pl')`, line_count/1) and, for a rule of their own, the database's
    generation when it was loaded (last_modified_generation/1: it grows with every fact of
    the owner's memory, hidden records included). Those properties are now absent; the ones
    that say how a predicate is defined remain."""
    from attention_cloud.sharing import reader_query

    rules = "mine(1).\n"
    for head in ("item(_)", "format(_, _)", "mine(_)"):
        props = {row["P"] for row in reader_query(mem, "bob", f"predicate_property({head}, P)",
                                                  rules_text=rules, limit=100).rows}
        assert "defined" in props, props
        assert not [p for p in props if p.split("(")[0] in (
            "file", "line_count", "last_modified_generation", "autoload", "source")], props
        assert not [p for p in props if "/" in p], props
    assert reader_query(mem, "bob", "predicate_property(mine(_), last_modified_generation(G))",
                        rules_text=rules).rows == []
    assert mem.query("predicate_property(item(_), file(F))").rows


def test_predicate_property_refuses_a_grantee_a_module_qualified_head(mem):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", "X =.. [:, lists, append(_, _, _)], predicate_property(X, P)")
    assert "predicate_property" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("flag", ["os_argv", "argv", "executable", "pid", "tmp_dir", "home",
                                  "cpu_count"])
def test_prolog_flag_2_is_refused_a_grantee_as_current_prolog_flag_is(mem, flag):
    """prolog_flag/2 (library(quintus), which library(sandbox) allows) read the same flags
    current_prolog_flag/2 refuses a grantee: `prolog_flag(os_argv, V)` answered the process's
    command line, `prolog_flag(pid, P)` its id. It is now the grantee's current_prolog_flag/2."""
    _refused_every_way(mem, "prolog_flag", flag, "prolog_flag")


def test_prolog_flag_2_enumerates_the_languages_flags_alone(mem):
    from attention_cloud.sharing import reader_query

    names = {row["F"] for row in reader_query(mem, "bob", "prolog_flag(F, _)", limit=1000).rows}
    assert "bounded" in names and not names & {"os_argv", "pid", "executable", "home"}
    assert mem.query("prolog_flag(pid, P)").rows[0]["P"] > 0           # the owner's, as before


@pytest.mark.parametrize("key", ["atoms", "clauses", "codes", "predicates", "inferences",
                                 "cputime"])
def test_thread_statistics_is_refused_a_grantee_as_statistics_is(mem, key):
    """thread_statistics(main, clauses, N) answered a grantee what statistics/2 refuses them:
    the process's atoms, clauses and code, which grow with the owner's memory, hidden records
    included. Each key is refused in one line, for any thread."""
    from attention_cloud.sharing import reader_query

    for goal in (f"thread_statistics(main, {key}, V)", f"thread_self(T), thread_statistics(T, {key}, V)",
                 f"call(thread_statistics(main), {key}, V)"):
        with pytest.raises(AtcError) as caught:
            reader_query(mem, "bob", goal)
        message = str(caught.value)
        assert "\n" not in message and key in message and "statistics" in message, message
    assert mem.query(f"thread_statistics(main, {key}, V)").rows            # the owner's


@pytest.mark.parametrize("goal", ["statistics(S)", "statistics", "call_time(true, T)",
                                  "call_time(true, T, R)", "time(true)", "profile(true)",
                                  "profile(true, [])", "help(append)", "apropos(append)",
                                  "maplist(statistics, [S])", "call(call_time(true), T)"])
def test_a_grantee_is_refused_the_library_predicates_that_measure_or_print_the_process(mem,
                                                                                       goal):
    """statistics/1 (library(statistics), which library(sandbox) allows on that library's word)
    answered a grantee the dict statistics/2 refuses key by key: the process's atoms,
    functors, predicates, code size, CPU time and inferences; call_time/2,3 the inferences
    and CPU time of a goal of theirs over the owner's memory. statistics/0, time/1,
    profile/1,2, help/1 and apropos/1 printed to the server's standard error, where what a
    grantee prints must never go (a loop of them filled the owner's log). Each is refused in
    one line, however it is called."""
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", goal)
    message = str(caught.value)
    assert "\n" not in message and "permission" in message.lower(), message


def test_a_grantees_rule_is_refused_statistics_1_and_the_owner_still_reads_it(mem):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError, match="statistics"):
        reader_query(mem, "bob", "size(S)", rules_text="size(S) :- statistics(S).\n")
    assert mem.query("statistics(S)").rows[0]["S"]["data"]["atoms"] > 0
    # call_time/3 (call_time/2 calls the result it reifies, which library(sandbox) cannot
    # check on SWI-Prolog 9.2, so there the owner is refused call_time/2 by SWI itself)
    assert mem.query("call_time(true, T, R)").rows[0]["R"] == "true"


@pytest.mark.parametrize("goal", ["X is cputime", "A is cputime, B is cputime, D is B - A",
                                  "sum_list([cputime], S)", "cputime > 0",
                                  "atom_codes(F, `cputime`), X is F"])
def test_a_grantee_is_refused_the_cpu_time_arithmetic_reads(mem, goal):
    """`A is cputime, Goal, B is cputime` timed a goal of the grantee's over the owner's memory
    to the nanosecond, as the call_time/2 and statistics/2 refused them did; built at run time
    and evaluated by a library predicate as well."""
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", goal)
    assert str(caught.value) == "No permission to evaluate arithmetic_function `cputime'"


def test_a_grantees_rule_is_refused_cputime_and_the_owner_still_reads_it(mem):
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", "took(T)", rules_text="took(T) :- T is cputime.\n")
    assert "cputime" in str(caught.value)
    assert mem.query("X is cputime").rows[0]["X"] > 0


@pytest.mark.parametrize("goal,rules", [("get_time(T)", None), ("call(get_time, T)", None),
                                        ("now(T)", "now(T) :- get_time(T).\n")])
def test_a_grantee_is_refused_the_clock_and_the_owner_still_reads_it(mem, goal, rules):
    """get_time/1 gave a grantee the time to the microsecond, so `get_time(A), Goal,
    get_time(B)` measured how long a goal over the owner's memory took, which grows with the
    records hidden from them (the reason statistics/2 and `cputime` are refused): a goal
    naming a hidden record's handle costs a look at the policy, one naming no record none."""
    from attention_cloud.sharing import reader_query

    with pytest.raises(AtcError) as caught:
        reader_query(mem, "bob", goal, rules_text=rules)
    message = str(caught.value)
    assert "\n" not in message and "get_time/1" in message, message
    assert mem.query("get_time(T)").rows[0]["T"] > 1.7e9
