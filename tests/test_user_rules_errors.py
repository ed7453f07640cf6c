"""What a user writing goals and rules files meets when they are wrong: one line that says
where (file and line of the rules file, not of the texts joined) and what (the predicate by the
name the user wrote, with the arity they may have meant), exit 2, nothing saved or written."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"

SAVED = """% a saved rule of several lines, so that a line number counted over the texts joined
% is not the line of the file in error
error_file(H, F) :-
    item_kind(H, error),
    relation(H, touches_file, F).
"""


def atc(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


def tree(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file()}


def _ingest_and_save_a_rule(home: Path) -> None:
    home.mkdir()
    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), home=home).exit_code == 0
    saved = home.parent / "errors.pl"
    saved.write_text(SAVED, encoding="utf-8")
    assert atc("rules", "add", str(saved), home=home).exit_code == 0


@pytest.fixture
def ruled_home(home: Path, built_home) -> Path:
    """A home with items and one saved rule (a copy of one built once per process)."""
    return built_home("rules-errors-ruled", _ingest_and_save_a_rule, home)


def one_line(out) -> str:
    assert out.exit_code == 2, out.output
    assert out.output.count("\n") == 1, out.output
    return out.output


def test_a_syntax_error_names_the_rules_file_and_its_own_line(ruled_home, tmp_path):
    """The texts were joined before reading: the error read `Stream <stream>(0x55..):9:17`,
    neither the file nor its line (line 4 of bad.pl after a 5-line saved rule)."""
    bad = tmp_path / "bad.pl"
    bad.write_text("ok(X) :- item(X).\n\n\nbad(X) :- item(X\nfoo(1).\n", encoding="utf-8")
    before = tree(ruled_home)
    for command in (["query", "ok(X)", "--rules", str(bad)],
                    ["hydrate", "retries", "--rules", str(bad)],
                    ["rules", "add", str(bad)]):
        message = one_line(atc(*command, home=ruled_home))
        assert f"{bad}:4:" in message and "Syntax error" in message, message
        assert "<stream>" not in message
    assert tree(ruled_home) == before       # nothing saved, no receipt


def test_a_rules_file_that_is_not_utf8_is_one_line_as_with_rules(ruled_home, tmp_path):
    """`atc rules add` of such a file was a UnicodeDecodeError traceback; --rules said why."""
    bad = tmp_path / "latin1.pl"
    bad.write_bytes("note(\"caf\xe9\").\n".encode("latin-1"))
    before = tree(ruled_home)
    for command in (["rules", "add", str(bad)], ["query", "true", "--rules", str(bad)]):
        out = atc(*command, home=ruled_home)
        assert out.exit_code == 1 and isinstance(out.exception, SystemExit), out.exception
        assert out.output == (f"atc: {bad}: cannot read rules file ('utf-8' codec can't decode "
                              "byte 0xe9 in position 9: invalid continuation byte)\n")
    assert tree(ruled_home) == before


def test_a_refused_clause_names_the_rules_file_and_line(ruled_home, tmp_path):
    bad = tmp_path / "refused.pl"
    bad.write_text("ok(X) :- item(X).\n:- initialization(main).\n", encoding="utf-8")
    message = one_line(atc("query", "ok(X)", "--rules", str(bad), home=ruled_home))
    assert f"{bad}:2:" in message and "directive not allowed" in message
    bad.write_text("ok(X) :- item(X).\n\nbad(X) :- assertz(seen(X)).\n", encoding="utf-8")
    message = one_line(atc("rules", "add", str(bad), home=ruled_home))
    assert f"{bad}:3:" in message and "assertz/1" in message


def test_a_saved_rule_in_error_is_named_by_its_file(memory, tmp_path):
    """A rule added by the API is located by the source it names, else NAME.pl."""
    from attention_cloud.errors import PrologError

    with pytest.raises(PrologError) as err:
        memory.rules_add("a(X) :- item(X).\nb(X :- item(X).\n", "mine")
    assert "mine.pl:2:" in str(err.value)
    with pytest.raises(PrologError) as err:
        memory.rules_add("a(X) :- item(X).\nb(X :- item(X).\n", "mine", source="/src/my.pl")
    assert "/src/my.pl:2:" in str(err.value)
    assert not memory.rules_list()


@pytest.mark.parametrize("goal,expected", [
    # a name the vocabulary has at another arity: say which
    ("item_kind(H)", "Unknown procedure: item_kind/1 (did you mean item_kind/2?)"),
    ("item(H), nearest(H, Hits)", "nearest/2 (did you mean nearest/3 or nearest/4?)"),
    ("atom_length(a, b, c)", "atom_length/3 (did you mean atom_length/2?)"),
    # a name nothing has: say where the names a goal may use come from
    ("item(H), no_such_thing(H)", "Unknown procedure: no_such_thing/1 (not a builtin, not in "
                                  "the query vocabulary (README, \"Querying memory with Prolog\")"),
])
def test_an_unknown_predicate_is_named_as_written_with_the_vocabulary(ruled_home, goal,
                                                                      expected):
    """It read `procedure `atc_query:item_kind(A)' does not exist`: a module the user never
    wrote, a goal rather than a predicate, and no word of item_kind/2."""
    message = one_line(atc("query", goal, home=ruled_home))
    assert expected in message, message
    assert "atc_query" not in message and "user_rules" not in message


def test_an_unknown_predicate_in_a_rule_names_its_caller_file_and_line(ruled_home, tmp_path):
    rules = tmp_path / "chain.pl"
    rules.write_text("a(X) :- b(X).\nb(X) :- c(X).\n\nc(X) :- item_kind(X).\n",
                     encoding="utf-8")
    message = one_line(atc("query", "a(X)", "--rules", str(rules), home=ruled_home))
    assert f"item_kind/1 (called by c/1 at {rules}:4; did you mean item_kind/2?)" in message
    message = one_line(atc("rules", "add", str(rules), home=ruled_home))
    assert "rule chain rejected" in message and f"{rules}:4" in message
    assert "rules_check" not in message


def test_a_plane_without_segments_of_its_own_takes_every_segment(home, tmp_path):
    """A rules file that split one plane's segments (plane_segment/3) left its other planes
    with none: their frames were empty ("memory holds nothing") under a segment `default`
    memory does not hold, while the same plane in a file without plane_segment/3 was full."""
    import json

    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), "--segment", "work",
               home=home).exit_code == 0
    rules = tmp_path / "planes.pl"
    rules.write_text(
        "same_session(Seeds, H-0.6) :-\n"
        "    member(Seed-_, Seeds), item_session(Seed, S), item_session(H, S), H \\== Seed.\n"
        "plane(split, _{seeds: 3}).\n"
        "plane_segment(split, work, 0.7).\n"
        "plane_segment(split, '*', 0.3).\n"
        "plane(session, _{walk: rule(same_session), seeds: 2}).\n", encoding="utf-8")
    out = atc("hydrate", "retries", "--rules", str(rules), "--plane", "session",
              "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    receipt = json.loads(out.stdout)["receipt"]
    assert set(receipt["budget"]["segments"]) == {"work"}
    assert receipt["facts"], receipt
    assert any(f["seeded_by"] == "rule:same_session" for f in receipt["facts"])


@pytest.mark.parametrize("goal,expected", [
    ("item(H), cell_neighbours(_, Ps)",
     "cell_neighbours/2: Arguments are not sufficiently instantiated"),
    ("cell_path(_, _, P)", "cell_path/3: Arguments are not sufficiently instantiated"),
    ("cell_region(_, 1, Cs)", "cell_region/3: Arguments are not sufficiently instantiated"),
    ("item(H), nearest(T, 3, Hits)", "nearest/3: Arguments are not sufficiently instantiated"),
    ("item(H), nearest(42, 3, Hits)", "nearest/3: Type error: `text_or_handle' expected"),
    ("nearest(\"x\", 3, [kind(error)], Hits)", "nearest/4: Domain error: `jump_option'"),
    ("lexical(\"x\", -1, [], Hits)", "lexical/4: Type error: `nonneg' expected"),
    ("similarity(\"x\", foo, P)", "similarity/3: Type error"),
    ("goal_time_window(\"last week\", soon, W, P)", "goal_time_window/4: Domain error"),
    ("items_between(0, T, Is)", "items_between/3: Arguments are not sufficiently instantiated"),
    ("goal_speaker(G, S)", "goal_speaker/2: Arguments are not sufficiently instantiated"),
])
def test_an_argument_error_of_the_vocabulary_names_the_predicate(ruled_home, goal, expected):
    """must_be/2's errors carry no context: a goal of several calls read only "Arguments are
    not sufficiently instantiated", and the user could not tell which call."""
    message = one_line(atc("query", goal, home=ruled_home))
    assert f"atc: {expected}" in message, message


ODD = """\
w_bare(Seeds, H) :- member(H-_, Seeds).
w_text(Seeds, H-high) :- member(H-_, Seeds).
w_string(Seeds, S-0.5) :-
    member(H-_, Seeds), item_session(H, Ses), item_session(I, Ses), I \\== H, atom_string(I, S).
plane(bad_seeds, _{seeds: many}).
plane(typo, _{seed: 3}).
plane(steep, _{trajectory: 2}).
plane(negative, _{fact_cap: -3}).
"""


@pytest.fixture
def odd_rules(ruled_home, tmp_path) -> Path:
    path = tmp_path / "odd.pl"
    path.write_text(ODD, encoding="utf-8")
    return path


@pytest.mark.parametrize("walk,expected", [
    ("w_bare", "walk rule w_bare failed: Type error: `Handle-Score (a handle and a number)' "
               "expected, found `it_"),
    ("w_text", "found `it_"),
])
def test_a_walk_rule_that_yields_no_handle_score_pair_says_so(ruled_home, odd_rules, walk,
                                                              expected):
    """It was called with Handle-Score to unify: a bare handle or a score that is no number
    added nothing, and the frame said nothing of the rule."""
    before = tree(ruled_home)
    message = one_line(atc("hydrate", "retries", "--rules", str(odd_rules), "--walk", walk,
                           home=ruled_home))
    assert expected in message, message
    assert tree(ruled_home) == before


def test_a_walk_rule_may_yield_a_handle_as_a_string(ruled_home, odd_rules):
    import json

    out = atc("hydrate", "retries", "--rules", str(odd_rules), "--walk", "w_string",
              "--format", "json", home=ruled_home)
    assert out.exit_code == 0, out.output
    facts = json.loads(out.stdout)["receipt"]["facts"]
    assert any(f["seeded_by"] == "rule:w_string" for f in facts)


@pytest.mark.parametrize("plane,expected", [
    ("bad_seeds", "plane bad_seeds: seeds must be a count, not many"),
    ("typo", "plane typo: no setting seed (one of seeds, fact_cap, depth, walk, trajectory, "
             "breadcrumbs)"),
    ("steep", "plane steep: trajectory must be a number from 0 to 1, not 2"),
    ("negative", "plane negative: fact_cap must be a count, not -3"),
])
def test_a_plane_setting_of_the_wrong_kind_names_plane_and_setting(ruled_home, odd_rules,
                                                                   plane, expected):
    """`seeds: many` read `is/2: Arithmetic: many/0 is not a function`; `seed: 3` and
    `fact_cap: -3` went without a word."""
    before = tree(ruled_home)
    message = one_line(atc("hydrate", "retries", "--rules", str(odd_rules), "--plane", plane,
                           home=ruled_home))
    assert f"atc: {expected}" in message, message
    assert tree(ruled_home) == before


@pytest.mark.parametrize("goal,expected", [
    ("", "empty"),                                  # was: procedure end_of_file/0 does not exist
    ("   % only a comment", "atc: the goal is empty"),
    ("item(H). item_kind(H, error)", "more than one goal: join goals with a comma"),
])
def test_an_empty_goal_or_two_goals_is_one_clear_error(ruled_home, goal, expected):
    """Two goals written as clauses ran the first alone, the rest dropped without a word."""
    message = one_line(atc("query", goal, home=ruled_home))
    assert expected in message, message


@pytest.mark.parametrize("goal", ["item(H).", "item(H). % the items", "item(H) % the items",
                                  'item(H), X = "a. b"'])
def test_a_goal_may_end_in_a_full_stop_or_a_comment(ruled_home, goal):
    out = atc("query", goal, "--limit", "1", home=ruled_home)
    assert out.exit_code == 0 and "it_" in out.output, out.output


def test_a_plane_naming_a_segment_memory_does_not_hold_says_so(home, tmp_path):
    """plane_segment(p, wrok, 1): the frame was empty ("memory holds nothing for this goal
    yet") and said nothing of the segment; `--segment wrok=N` is an error listing them."""
    import json

    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), "--segment", "work",
               home=home).exit_code == 0
    rules = tmp_path / "typo.pl"
    rules.write_text("plane(p, _{seeds: 3}).\nplane_segment(p, wrok, 1).\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["hydrate", "retries", "--rules", str(rules), "--plane", "p",
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    note = ("plane p gives budget to segment wrok, which memory does not hold (segments in "
            "this memory: work)")
    assert note in json.loads(out.stdout)["receipt"]["notes"]
    assert f"atc: note: {note}" in out.stderr
    fine = atc("hydrate", "retries", "--format", "json", home=home)
    assert not any("does not hold" in n for n in json.loads(fine.stdout)["receipt"]["notes"])


@pytest.mark.parametrize("goal,expected", [
    ('shell("ls")', "No permission to call sandboxed `shell/1' (refused in queries and rules; "
                    "README, \"Security\")"),
    ("item(H), open('/etc/passwd', read, S)", "No permission to call sandboxed `open/3'"),
    ("process_create(path(ls), [], [])", "`process_create/3'"),
])
def test_a_refused_call_is_named_as_written_with_where_to_read_why(ruled_home, goal, expected):
    """It read "No permission to call sandboxed `shell(_2892,_2894)' Reachable from:
    atc_query:shell(A)": the primitive it runs, its variables and a module the user never
    wrote (process_create/3 showed as '$current_module'/2's refusal)."""
    message = one_line(atc("query", goal, home=ruled_home))
    assert expected in message, message
    assert "atc_query" not in message and "_2" not in message


def test_a_refused_call_in_a_rule_names_the_rule_file_and_line(ruled_home, tmp_path):
    rules = tmp_path / "writes.pl"
    rules.write_text("a(X) :- b(X).\nb(X) :- c(X).\n\nc(X) :- open(X, write, _).\n",
                     encoding="utf-8")
    message = one_line(atc("query", "a(X)", "--rules", str(rules), home=ruled_home))
    assert f"`open/3' (called by c/1 at {rules}:4; refused in queries and rules" in message
    message = one_line(atc("rules", "add", str(rules), home=ruled_home))
    assert "rule writes rejected" in message and f"{rules}:4" in message


LOOPS = """% the classic left recursion: reach/2 calls itself before it reads a relation
reach(X, Y) :- reach(X, Z), relation(Z, _, Y).
reach(X, Y) :- relation(X, _, Y).

walk_deep(Seeds, H-0.5) :- walk_deep(Seeds, H-_), item(H).
"""


def test_a_rule_that_recurses_without_end_is_one_line_naming_the_limit_and_the_rule(
        ruled_home, tmp_path):
    """A left-recursive rule met the 256 MB stack limit as SWI-Prolog's five-line message
    folded into one: stack sizes, `user_rules:reach(...)` frames and advice no atc user can
    follow (`Use the --stack_limit=size[KMG] command line option or ?-
    set_prolog_flag(stack_limit, ...)`, a flag user code may not set). It reads as the limit
    that stopped it, as the time limit does, naming the rule that recursed."""
    rules = tmp_path / "loops.pl"
    rules.write_text(LOOPS, encoding="utf-8")
    before = tree(ruled_home)
    for command in (["query", "item(H), reach(H, Y)", "--rules", str(rules)],
                    ["hydrate", "retries", "--rules", str(rules), "--walk", "walk_deep"]):
        message = one_line(atc(*command, home=ruled_home))
        assert "stopped: ran past its stack limit of 256 MB" in message, message
        assert ("reach/2" if command[0] == "query" else "walk_deep/2") in message, message
        assert "set_prolog_flag" not in message and "--stack_limit" not in message
        assert "user_rules:" not in message and "$bags" not in message
    assert tree(ruled_home) == before


def test_a_goal_past_the_stack_limit_without_a_cycle_says_how_deep(ruled_home):
    out = atc("query", "numlist(1, 50000000, L)", home=ruled_home)
    message = one_line(out)
    assert "stopped: ran past its stack limit of 256 MB (" in message, message
    assert "Stack sizes" not in message and "set_prolog_flag" not in message


def _atc_process(home: Path, *args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home",
                           str(home)], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def test_a_rules_file_that_never_ends_or_never_opens_is_refused_at_once(ruled_home, tmp_path):
    """`atc rules add` of a FIFO waited for a writer forever, and of /dev/zero read until
    memory ran out (--rules refused both without reading them); now each is one line, exit 2,
    nothing saved, as a file over the limit is, and a regular file over it is read no further
    than the limit."""
    import os

    fifo = tmp_path / "rules.pl"
    os.mkfifo(fifo)
    before = tree(ruled_home)
    for path, why in ((fifo, "not a regular file (a FIFO), not read"),
                      (Path("/dev/zero"), "not a regular file (a character device), not read")):
        for command in (["rules", "add", str(path)], ["query", "true", "--rules", str(path)]):
            out = _atc_process(ruled_home, *command)
            assert (out.returncode, out.stderr) == (2, f"atc: {path}: {why}\n"), command
    big = tmp_path / "big.pl"
    big.write_text("".join(f"fact_{i}(x).\n" for i in range(90_000)), encoding="utf-8")
    out = _atc_process(ruled_home, "rules", "add", str(big))
    assert (out.returncode, out.stderr) == (
        2, "atc: rule big rejected: rules text is larger than 1,000,000 bytes\n")
    assert tree(ruled_home) == before
