"""Ways out of the sandbox that library(sandbox) lets through, closed before user code runs.

library(sandbox) accepts goals that run code it never checks: print_message/2 and
message_to_string/2 format a message term's own directives (``format("~@", [shell(X)])``),
format's ``~W`` and term_string/3 pass write options (``portray_goal(shell)`` calls shell),
put_attr/3 with module ``freeze`` wakes a goal, and setup_call_cleanup/3 runs its setup and
cleanup with signals blocked, where no time limit reaches. An error thrown by user code is
printed by the host outside the sandbox and its limits, and converted to Python; a plane is
user code run twice. Each route below is tried as the owner, as a grantee, in a saved rule and
in a walk rule; each must be refused with one line, run nothing, and leave the home as it was.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_cloud.errors import AtcError

SESSION = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"

#: Goals that ran `touch MARK` through the sandbox before it refused them ({m} is the marker).
ESCAPES = [
    "print_message(error, format(\"~@\", [shell('touch {m}')]))",
    "message_to_string(format(\"~@\", [shell('touch {m}')]), S)",
    "format(atom(S), \"~W\", ['touch {m}', [portray_goal(shell)]])",
    "call(format(\"~W\"), ['touch {m}', [portray_goal(shell)]])",
    "maplist(format(\"~W\"), [['touch {m}', [portray_goal(shell)]]])",
    "format(atom(S), [0'~, 0'W], ['touch {m}', [portray_goal(shell)]])",
    "format(atom(S), [~, 'W'], ['touch {m}', [portray_goal(shell)]])",
    "term_string('touch {m}', S, [portray_goal(shell)])",
    "call(term_string('touch {m}', S), [portray_goal(shell)])",
    "put_attr(X, freeze, shell('touch {m}')), X = 1",
    # the host prints an error's message outside the sandbox and every limit
    "throw(error(format(\"~@\", [shell('touch {m}')]), _))",
    "throw(format(\"~@\", [shell('touch {m}')]))",
    "G =.. [shell, 'touch {m}'], throw(format(\"~@\", [G]))",
    "atom_codes(F, [0'~, 0'@]), G =.. [shell, 'touch {m}'], throw(format(F, [G]))",
    "atom_codes(F, [0'~, 0'W]), throw(format(F, ['touch {m}', [portray_goal(shell)]]))",
    # library(pengines_io) declares its own predicates safe to library(sandbox), which takes
    # its word: pengine_write_term/2 passes any write options to write_term/2
    "pengine_write_term('touch {m}', [portray_goal(shell)])",
    "call(pengine_write_term, 'touch {m}', [portray_goal(shell)])",
    "maplist(pengine_write_term('touch {m}'), [[portray_goal(shell)]])",
]


def _home_digest(home: Path) -> str:
    """Every file of the home but the audit log (a grantee's read is logged, refused or not)."""
    digest = hashlib.sha256()
    for path in sorted(home.rglob("*")):
        if path.is_file() and path.name != "audit.jsonl":
            digest.update(str(path.relative_to(home)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A home with a granted segment (default, to bob at L2) and a private one whose only
    speaker, Zebediah, bob must never learn of."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("escapes")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    secret = root / "secret.txt"
    secret.write_text("Zebediah: the launch code for nightjar is 7731.\n"
                      "Zebediah: keep it out of the shared notes.\n", encoding="utf-8")
    mem = Memory.open(home)
    mem.ingest([SESSION])
    mem.ingest([secret], format="text", segment="private")
    add_principal(mem, "alice", owner=True)
    add_principal(mem, "bob")
    add_grant(mem, "bob", segments=["default"], ceiling="L2")
    mem.set_limits(time_limit=5)
    yield mem, home
    mem.set_limits(time_limit=30)  # limits are per process: later tests run under the default
    mem.close()


def _refused(call) -> str:
    with pytest.raises(AtcError) as caught:
        call()
    message = str(caught.value)
    assert message and "\n" not in message, message
    return message


@pytest.mark.parametrize("goal", ESCAPES)
def test_a_goal_cannot_run_code_the_sandbox_never_checked(shared, tmp_path, goal):
    from attention_cloud.sharing import reader_query

    mem, home = shared
    marker = tmp_path / "PWNED"
    text = goal.replace("{m}", str(marker))
    before = _home_digest(home)
    _refused(lambda: mem.query(text))
    _refused(lambda: reader_query(mem, "bob", text))
    assert not marker.exists(), f"ran code: {text}"
    assert _home_digest(home) == before
    assert mem.query("item(H)", limit=1).rows, "memory still answers"


def test_write_term_stays_refused_once_pengines_io_is_loaded(shared, tmp_path):
    """Loading library(pengines_io) (any code of the process may) declares system:write_term/2
    and prompt/2 safe to library(sandbox): write_term's portray_goal(shell) then ran a shell
    command from a goal, as the owner and as a grantee."""
    from attention_cloud.sharing import reader_query

    mem, home = shared
    loader = tmp_path / "load_pengines_io.pl"
    loader.write_text(":- use_module(library(pengines_io), []).\n", encoding="utf-8")
    mem.pl.consult(loader)
    marker = tmp_path / "PWNED"
    before = _home_digest(home)
    for goal in (f"write_term('touch {marker}', [portray_goal(shell)])",
                 f"call(write_term, 'touch {marker}', [portray_goal(shell)])"):
        _refused(lambda: mem.query(goal))
        _refused(lambda: reader_query(mem, "bob", goal))
    assert not marker.exists()
    assert _home_digest(home) == before


@pytest.mark.parametrize("goal", ["pengine_read(X)", "pengine_read_line_to_string(user_input, X)",
                                  "pengine_read_line_to_codes(user_input, X)"])
def test_a_goal_cannot_read_the_processes_standard_input(shared, goal):
    """pengine_read/1 and pengine_read_line_to_string/2 (library(pengines_io), safe by its own
    word) read the process's standard input: `atc query` answered the line a pipe gave it,
    and under `atc mcp` (whose standard input is the client's requests) a goal would read the
    client's next request."""
    mem, home = shared
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query", goal],
                         input="stolen_line.\n", capture_output=True, text=True, timeout=120,
                         cwd=home.parent, env={**os.environ, "ATC_HOME": str(home)})
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith("atc: ") and out.stderr.count("\n") == 1, out.stderr
    assert "stolen_line" not in out.stdout + out.stderr


def test_rules_and_walk_rules_cannot_run_unchecked_code(shared, tmp_path):
    mem, home = shared
    marker = tmp_path / "PWNED"
    before = _home_digest(home)
    for body in ("format(atom(_), \"~W\", ['touch {m}', [portray_goal(shell)]])",
                 "print_message(error, format(\"~@\", [shell('touch {m}')]))",
                 "term_string('touch {m}', _, [portray_goal(shell)])"):
        rule = f"evil(S, H-1.0) :- member(H-_, S), {body.replace('{m}', str(marker))}.\n"
        _refused(lambda: mem.rules_add(rule, "evil"))
        path = tmp_path / "evil.pl"
        path.write_text(rule, encoding="utf-8")
        _refused(lambda: mem.hydrate("ValueError in the retry tests", budget=300, rules=path,
                                     walk="evil"))
    assert not marker.exists()
    assert mem.rules_list() == []
    assert _home_digest(home) == before


def test_a_plane_cannot_name_a_walk_rule_its_check_never_saw(shared, tmp_path):
    """A plane given as Key=Value pairs was passed over by the check of its walk rule (it
    reads dicts) and then merged into the frame's settings: `rule(shell)` called
    system:shell/2 with the seeds."""
    mem, home = shared
    path = tmp_path / "planes.pl"
    path.write_text("plane(p, [walk=rule(shell)]).\n", encoding="utf-8")
    before = _home_digest(home)
    message = _refused(lambda: mem.hydrate("ValueError in the retry tests", budget=300,
                                           rules=path, plane="p"))
    assert "walk_rule `shell' does not exist" in message, message
    assert _home_digest(home) == before
    path.write_text("near(Seeds, H-0.9) :- member(S-_, Seeds), item_session(S, X), "
                    "item_session(H, X).\nplane(p, [walk=rule(near)]).\n", encoding="utf-8")
    frame = mem.hydrate("ValueError in the retry tests", budget=3000, rules=path, plane="p")
    assert any(f.get("seeded_by") == "rule:near" for f in frame.receipt["facts"]), \
        "a walk rule the module defines still runs"


@pytest.mark.parametrize("goal", [
    "X = f(X), throw(X)",
    "numlist(1, 5000, L), foldl([_, A, f(A)]>>true, L, a, T), throw(T)",
    "numlist(1, 300000, L), throw(error(type_error(integer, L), _))",
    "length(L, 1000000), maplist(=(a), L), atomic_list_concat(L, A), throw(A)",
    "X is 7 ** 100000, throw(error(type_error(integer, X), _))",
])
def test_an_error_thrown_by_user_code_is_one_short_line(shared, goal):
    """It crashed the host's converter (a cyclic or deep term: Python's RecursionError, a
    traceback and exit 1 from `atc query`) or became a message of megabytes."""
    mem, _ = shared
    started = time.monotonic()
    message = _refused(lambda: mem.query(goal))
    assert len(message) <= 2100, len(message)
    assert time.monotonic() - started < 10
    assert mem.query("item(H)", limit=1).rows


def test_a_grantee_cannot_read_the_hosts_global_variables(shared):
    """The speakers' cache (every speaker's name in the home) is a global variable; a
    grantee read it with nb_getval/2, names from segments they have no grant for included."""
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    assert not reader_query(mem, "bob", 'item_speaker(H, "Zebediah")').rows
    for goal in ('(goal_speaker("what did Zebediah say", _) -> true ; true), '
                 'nb_getval(journal_speakers_cache, C)',
                 'goal_speaker("what did Zebediah say", _) ; nb_current(K, V)',
                 'call(nb_getval, journal_speakers_cache, C)'):
        message = _refused(lambda: reader_query(mem, "bob", goal))
        assert "nb_" in message and "Zebediah" not in message, message


@pytest.mark.parametrize("goal", [
    "load_structure('{f}', D, [dialect(sgml)])",
    "load_html('{f}', D, [])",
    "load_xml('{f}', D, [])",
    "load_sgml('{f}', D, [])",
    "load_html_file('{f}', D)",
    "call(load_structure, '{f}', D, [])",
    "maplist(load_xml('{f}'), [D], [[]])",
])
def test_a_goal_cannot_read_a_file_of_the_server(shared, tmp_path, goal):
    """load_structure/3 (library(sgml), safe by that library's word) opens any file the
    process can read: a grantee's `load_structure('/home/alice/.atc/journal.pl', D,
    [dialect(sgml)])` answered the text of every record of the home, hidden ones included,
    and its wrappers (load_html/3, load_xml/3, ...) did the same."""
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    secret = tmp_path / "outside.txt"
    secret.write_text("the launch code is 9911\n", encoding="utf-8")
    text = goal.replace("{f}", str(secret))
    for message in (_refused(lambda: reader_query(mem, "bob", text)),
                    _refused(lambda: mem.query(text))):
        assert "9911" not in message and "No permission" in message, message


@pytest.mark.parametrize("goal", ["crypto_password_hash(x, H, [cost(30)])",
                                  "maplist(crypto_password_hash(x), [H], [[cost(30)]])"])
def test_a_goal_cannot_ask_for_an_hour_of_hashing_in_one_call(shared, goal):
    """crypto_password_hash/3 (library(crypto), safe by that library's word) runs 2^cost
    rounds of PBKDF2 in one C call, which no limit interrupts: cost(26) ran 117 s under a
    limit of 5 s, and each step of the cost doubles it, so one short goal (cost(30)) held
    the server, or an MCP server's only worker, for half an hour. It is refused before
    anything runs."""
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    for message in (_refused(lambda: reader_query(mem, "bob", goal)),
                    _refused(lambda: mem.query(goal))):
        assert "crypto_password_hash" in message, message


def test_principals_share_no_counter_through_gensym(shared):
    """gensym/2 (safe by library(gensym)'s word) keeps its counters for the life of the
    process, for every principal: what one grantee's goal counted, the next caller read
    (`gensym(k, X)` answered k2 to whoever came after a k1), a channel between principals
    and calls that global variables are refused to close."""
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    for goal in ("gensym(k, X)", "maplist(gensym(k), [X])"):
        message = _refused(lambda: reader_query(mem, "bob", goal))
        assert "gensym" in message, message
        _refused(lambda: mem.query(goal))


def test_ordinary_formatting_still_works(shared):
    mem, _ = shared
    rows = mem.query('format(atom(A), "~a~t~20|~w", [abc, 1]), format(atom(B), "~~W ~q", [x]), '
                     'with_output_to(string(C), maplist(format("~w-"), [[x], [y]])), '
                     'term_to_atom(f(X, "s"), D)').rows
    assert len(rows) == 1
    row = rows[0]
    assert (row["A"], row["B"], row["C"]) == ("abc                 1", "~W x", "x-y-")
    assert row["D"].startswith("f(") and row["D"].endswith(',"s")')


_HANGS = r"""
import sys, time
from attention_cloud import Memory
from attention_cloud.errors import AtcError
mem = Memory.open(sys.argv[1], create=False)
for goal in ["setup_call_cleanup((repeat, fail), true, true)",
             "setup_call_cleanup(true, true, (repeat, fail))",
             "call_cleanup(true, (repeat, fail))",
             "setup_call_catcher_cleanup(true, true, _, (repeat, fail))",
             "lazy_findall(X, (repeat, fail), L), L = [_|_]",
             "lazy_findall(X, between(1, inf, X), L), nth1(100000000, L, _)"]:
    started = time.monotonic()
    try:
        mem.query(goal, time_limit=0.5)
        raise SystemExit("ran: " + goal)
    except AtcError as exc:
        assert "\n" not in str(exc), exc
    assert time.monotonic() - started < 5, goal
print("ok")
"""


def test_a_setup_or_cleanup_goal_cannot_outlive_the_time_limit(shared):
    """Setup and cleanup run with signals blocked: the watchdog's abort never arrived, and a
    looping one held the process (an MCP server's only worker) for good. lazy_findall/3
    (library(lazy_lists), safe by that library's word) runs its goal in an engine of its own,
    which the abort sent to the caller's thread never reaches: a goal of 5 s ran for minutes."""
    _, home = shared
    out = subprocess.run([sys.executable, "-c", _HANGS, str(home)], capture_output=True,
                         text=True, timeout=90)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.mark.parametrize("goal", [
    "print_message(error, format(\"~@\", [shell('touch PWNED')]))",
    "X = f(X), throw(X)",
])
def test_real_atc_query_refuses_with_one_line(shared, tmp_path, goal):
    _, home = shared
    before = _home_digest(home)
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query", goal],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "ATC_HOME": str(home)})
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("atc: ") and out.stderr.count("\n") == 1, out.stderr
    assert not (tmp_path / "PWNED").exists()
    assert _home_digest(home) == before


def test_what_a_goal_prints_stays_out_of_the_json_on_stdout(shared, tmp_path):
    """`atc query --format json` is strict JSON on stdout; a goal's format/2 came out first."""
    import json

    _, home = shared
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query",
                          'format("hello from the goal~n"), X = 1', "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "ATC_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"X": 1}]
    assert "hello from the goal" in out.stderr


_DEEP = "numlist(1, 200000, L), foldl([X, A0, A]>>(A = A0+X), L, 0, T), "
_DEEP_CYCLE = "numlist(1, 100000, L), foldl([_, A0, g(A0)]>>true, L, Z, T), Z = T, "
_DEEP_TEXT = "length(Cs, 30000), maplist(=(0'(), Cs), atom_codes(A, Cs), "

_WRITES_DEEP = r"""
import sys, json
from attention_cloud import Memory
from attention_cloud.errors import AtcError
from attention_cloud.sharing import reader_query
mem = Memory.open(sys.argv[1], create=False)
refused = {}
for name, goal in json.loads(sys.argv[2]).items():
    try:
        (reader_query(mem, "bob", goal) if name.startswith("bob:") else mem.query(goal))
        refused[name] = None
    except AtcError as exc:
        refused[name] = str(exc)
print(json.dumps(refused))
"""


def test_a_term_too_deep_to_write_or_read_is_an_error_not_the_end_of_the_process(shared):
    """SWI-Prolog writes and reads a term by recursing in C on its depth; embedded through
    pyswip a C-stack overflow is not an error but a segfault: `format("~w", [T])` of a chain
    of 200,000 `+` built by the goal ended `atc query` (exit 139), and an MCP or sharing
    server with it. Every route a goal may take to the writer or reader is refused in one
    line, and the same process answers the next query."""
    _, home = shared
    routes = {
        "format/2": _DEEP + 'format("~w", [T])',
        "format/3 to an atom": _DEEP + 'format(atom(S), "~q", [T])',
        "format ~p": _DEEP + 'with_output_to(string(S), format("~p", [T]))',
        "writeln/1 through maplist": _DEEP + "with_output_to(string(S), maplist(writeln, [T]))",
        "format as a closure": _DEEP + 'call(format("~w"), [T])',
        "sformat/3": _DEEP + 'sformat(S, "~w", [T])',
        "term_to_atom/2": _DEEP + "term_to_atom(T, S)",
        "assertion/1 prints its goal": _DEEP + "assertion(T == 0)",
        "a long cycle": _DEEP_CYCLE + 'format(atom(S), "~w", [T])',
        "term_to_atom/2 reading text": _DEEP_TEXT + "term_to_atom(T, A)",
        "atom_to_term/3 reading text": _DEEP_TEXT + "atom_to_term(A, T, _)",
        "bob: format/2": _DEEP + 'format(atom(S), "~w", [T])',
        # writers of the library that the sandbox refuses (README: not depth-checked, refused)
        "sandbox: print_term/2": _DEEP + "with_output_to(string(S), print_term(T, []))",
        "sandbox: portray_clause/1": _DEEP + "with_output_to(string(S), portray_clause(T))",
        "sandbox: interpolate_string/4": _DEEP + 'interpolate_string("{x}", S, [x=T], [])',
        "sandbox: print_message/2": _DEEP + "print_message(error, format(\"~w\", [T]))",
        # debug/3 writes only for a topic being debugged, which user code cannot turn on
        "debug/3 prints nothing": _DEEP + 'debug(atc_topic, "~w", [T]), fail',
    }
    out = subprocess.run([sys.executable, "-c", _WRITES_DEEP, str(home), json.dumps(routes)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    refused = json.loads(out.stdout)
    for name, message in refused.items():
        if name.startswith("debug/3"):
            assert message is None, message             # ran, printed nothing, failed
            continue
        assert message is not None, f"{name}: ran"
        assert "\n" not in message, message
        if name.startswith("sandbox:"):
            assert "sandbox" in message.lower(), (name, message)
        else:
            assert ("too deep to write" in message if "reading" not in name
                    else "nests brackets more than 2,000 deep" in message), (name, message)


def test_terms_within_the_depth_limit_are_written_as_before(shared):
    mem, _ = shared
    row = mem.query('findall(N, (numlist(1, 1900, L), foldl([X, A0, A]>>(A = A0+X), L, 0, T), '
                    'format(atom(S), "~w", [T]), atom_length(S, N)), [N]), '
                    'numlist(1, 100000, Long), format(atom(S2), "~w", [Long]), '
                    'atom_length(S2, N2), findall(C, (Cy = f(Cy, a), term_to_atom(Cy, C)), [C]), '
                    'atom_to_term(\'g(Y, "q")\', G, _), term_to_atom(G2, \'h(1)\')',
                    time_limit=60).rows[0]  # seconds of work: not the limit under test
    assert row["N"] > 1900 * 2 and row["N2"] > 100000
    assert re.fullmatch(r"@\((_\w+),\[\1=f\(\1,a\)\]\)", row["C"]), row["C"]  # a cycle
    assert re.fullmatch(r'g\(_\w+,"q"\)', row["G"]) and row["G2"] == "h(1)", (row["G"], row["G2"])


def test_a_query_that_raised_leaves_the_next_one_its_whole_stack_limit(shared):
    """What a query that raised had put on the global stack stayed counted as used until the
    next query that raised: after an error carrying a 4,000,000-element list (~190 MB), a
    query needing 144 MB met the 256 MB stack limit (seen in CI as a corpus attempt failing
    after another's thrown list)."""
    mem, _ = shared
    _refused(lambda: mem.query("numlist(1, 4000000, L), throw(error(type_error(integer, L), _))"))
    rows = mem.query("findall(N, (numlist(1, 6000000, L), length(L, N)), [N])",
                     time_limit=60).rows  # the stack is under test, not the clock
    assert rows[0]["N"] == 6000000
    used = mem.query("statistics(globalused, G)").rows[0]["G"]
    assert used < 16 * 1024 * 1024, used


def test_a_failed_assertion_is_one_line_naming_its_goal(shared):
    """library(debug)'s assertion/1 printed the goal and a backtrace of the project's frames
    to standard error, then failed the query with "Unknown error term"."""
    mem, _ = shared
    assert _refused(lambda: mem.query("X = 1, assertion(X == 2)")) == "assertion failed: 1==2"
    assert mem.query("assertion(member(_, [a])), X = ok").rows[0]["X"] == "ok"


def test_format_to_a_stream_the_sandbox_refuses_says_which_and_why(shared):
    """format/3 to user_error (a stream library(sandbox) does not let a goal write to) was
    refused naming a builtin inside the depth guard, `'$factorize_term'`, not the output."""
    mem, _ = shared
    message = _refused(lambda: mem.query('format(user_error, "x~n", [])'))
    assert "format/3 may write only to" in message and "user_error" in message, message
    assert "factorize" not in message
    assert mem.query('format(atom(A), "~w", [ok])').rows[0]["A"] == "ok"


@pytest.mark.parametrize("goal", ["G = item(_), G", "forall(member(G, [true]), G)",
                                  "X = item(_), call(X)"])
def test_a_goal_called_through_a_variable_is_refused_in_words(shared, goal):
    """SWI-Prolog's message for a goal the sandbox cannot see at the top of the query runs
    two lines together: `... may be called fromSearch space too large`."""
    mem, _ = shared
    message = _refused(lambda: mem.query(goal))
    assert "fromSearch" not in message
    assert message.startswith("Sandbox restriction! Could not derive which predicate may be "
                              "called from "), message
    assert "through a variable" in message or "call(" in message, message
