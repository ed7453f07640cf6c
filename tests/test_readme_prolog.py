"""README's Prolog vocabulary is callable as it says: every predicate, in every mode it states,
with the types it states, and every goal README shows inline runs.

The table under "Querying memory with Prolog" is the contract of ``atc query``, the MCP
``query`` tool and rules files. Here each signature it lists (``item_kind(?H, ?Kind)``,
``cell_path(+C1, +C2, -Path)``) is called through ``Memory.query`` (the sandboxed path every
front end takes) in a home made from the bundled sample sessions:

* with every ``?`` and ``-`` argument unbound and each ``+`` argument given the value
  PLUS_ARGS declares for it: it must answer (NO_ANSWER lists, with the reason, the predicates
  the samples give nothing to) and raise nothing;
* each ``?`` argument bound to a value a first answer gave, the others unbound: it must still
  answer, and answer too when that value is given as the other text type (README's "Types":
  ``item_kind(H, "error")`` answers as ``item_kind(H, error)`` does);
* each argument README's "Types" paragraph types (TYPES) has that type in every answer.

Every goal README shows inline (a backticked call of a vocabulary predicate: ``item_speaker(H,
"Priya")``, ``relation(H, no_result, true), item_text(H, T)``) must parse and run without an
error; one with a placeholder that is no Prolog is run as FILLED says. Answers are not asked
for: those goals name people and formats the samples do not hold.

The home is one per module: ingest and curate with the ``hash`` embedder (what is callable
does not depend on the embedder) and one frame, so that ``cell_hot/2`` has a receipt to read;
about 15 s on the 2-CPU machine, the checks about 10 s more.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from attention_cloud import AtcError, Memory
from attention_cloud.paths import samples_dir
from attention_cloud.sharing import add_grant, add_principal, reader_query
from readme_tables import first_cells

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ATC = ROOT / ".venv" / "bin" / "atc"

#: The grantee of the home's one grant (all of segment ``default``, at L0).
GRANTEE = "bob"

#: README (Cells): "a grantee sees no cell", so the inputs that name one (``once(cell(C1))``)
#: or its neighbour (``once(cell_adjacent(C1, C2, _))``) bind nothing for the grantee, and
#: the call with another input unbound is not reached there.
GRANTEE_SEES_NO_CELL = re.compile(r"\bcell\w*\(")

#: The value each ``+`` argument is called with, by predicate and argument name: a goal that
#: binds the argument's variable (run first, once).
PLUS_ARGS = {
    "Query": 'Query = "processor retries"',
    "K": "K = 3",
    "Options": "Options = []",
    "Records": "findall(R, item(R), Records)",
    "C": "once(cell(C))",
    "C1": "once(cell(C1))",
    "C2": "once(cell_adjacent(C1, C2, _))",
    "Depth": "Depth = 1",
    "Goal": 'Goal = "why do processor retries fail"',
    "Now": 'Now = "2026-01-20T09:00:00Z"',
    "From": 'From = "2026-01-12"',
    "To": 'To = "2026-01-15T23:59:59Z"',
    "Max": "Max = 2",
}
#: hydrate/3's options are a dict, as a plane's are; the generic ``Options = []`` is nearest/4's.
#: goal_speaker/2 and the time windows fail for a goal naming no speaker or time (README says
#: what they find), so theirs name one.
PLUS_ARGS_BY_PREDICATE = {
    ("hydrate", "Options"): "Options = _{budget: 300}",
    ("goal_speaker", "Goal"): 'Goal = "what did you suggest for the retries"',
    ("goal_time_window", "Goal"): 'Goal = "what did we decide last week"',
    ("goal_time_pieces", "Goal"): 'Goal = "what did we change on Monday and on Thursday"',
}

#: Predicates the sample home gives no answer, with why (they are still called, and must not
#: raise).
NO_ANSWER = {
    "echo_of": "the three sample sessions restate nothing from an earlier one",
}

#: README's "Types": what each argument of these names is, in every answer.
_ATOM = "atom"
_STRING = "string"
_NUMBER = "number"
TYPES = {
    # handles
    "H": _ATOM, "Id": _ATOM, "A": _ATOM, "R": _ATOM, "Echo": _ATOM, "Original": _ATOM,
    "Handle": _ATOM, "C": _ATOM, "C2": _ATOM,
    # kinds, roles, sessions, segments, levels, relation names and objects
    "Kind": _ATOM, "Role": _ATOM, "S": _ATOM, "Session": _ATOM, "Segment": _ATOM,
    "Level": _ATOM, "P": _ATOM, "O": _ATOM,
    # text, goals, sources, speakers and times
    "Text": _STRING, "Goal": _STRING, "G": _STRING, "Pointer": _STRING, "ISO8601": _STRING,
    "Name": _STRING,
    # numbers
    "N": _NUMBER, "W": _NUMBER, "Heat": _NUMBER, "Sim": _NUMBER, "Score": _NUMBER,
    "Stamp": _NUMBER,
}
#: The same name typed otherwise in one predicate: a source file's name is stored and answered
#: as an atom (README: "source names (`item_source_name/2`)"), a speaker's as a string.
TYPES_BY_PREDICATE = {("item_source_name", "Name"): _ATOM}
#: Arguments named as a type but of another in one predicate: (predicate, name) -> why.
TYPE_EXCEPTIONS = {
    ("relation", "O"): "a relation's object is an atom, but a count or weight a number "
                       "(README: `relation(H, edited, TIME)`), so only its name is typed here",
}

#: Backticked calls that are no Prolog goal: shown -> why.
NOT_GOALS = {
    "item()": "Python's Memory.item() in a sentence about its cost, not a Prolog goal",
}

#: Inline goals whose placeholder is not Prolog: shown -> (goal run, why).
FILLED = {
    "item_text(\"it_3fa2…\", T)":
        ('once(item(H0)), atom_string(H0, S0), item_text(S0, T)',
         "a handle copied from JSON output, as a string: the first item's"),
    "relation(H, reply_to, …)": ("relation(H, reply_to, _)", "any message it answers"),
    "relation(H, message_id, …)": ("relation(H, message_id, _)", "any message id"),
    "rung(Cell, l1..l3, Text)":
        ("member(L, [l1, l2, l3]), cell(Cell), rung(Cell, L, Text)", "each of the three levels"),
    "relation(H, touches_file, '/home/marco/...')":
        ("relation(H, touches_file, '/home/marco/x')", "a path of the elided kind"),
}


def _signatures() -> list[tuple[str, list[str]]]:
    """(name, argument modes and names) of each signature the vocabulary table lists."""
    found = []
    for cell in first_cells("| predicate | meaning |"):
        for span in re.findall(r"`([^`]*)`", cell):
            call = re.fullmatch(r"([a-z_]+)\(([^()]*)\)", span)
            if call:
                found.append((call.group(1), [a.strip() for a in call.group(2).split(",")]))
    return found


SIGNATURES = _signatures()
VOCABULARY = {(name, len(args)) for name, args in SIGNATURES}


def _inline_goals() -> list[tuple[int, str]]:
    """(line, text) of each backticked call of a vocabulary predicate README shows outside the
    table (a signature, with its ``+``/``?``/``-`` modes, is the table's)."""
    text = README.read_text(encoding="utf-8")
    names = {name for name, _arity in VOCABULARY}
    found = []
    for span in re.finditer(r"`([^`\n]+)`", text):
        goal = span.group(1)
        head = re.match(r"([a-z_]+)\(", goal)
        if head and head.group(1) in names and not re.search(r"[(,]\s*[?+-][A-Z]", goal):
            found.append((text.count("\n", 0, span.start()) + 1, goal))
    return found


INLINE = _inline_goals()


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    home = tmp_path_factory.mktemp("readme-prolog") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    for command in (["ingest", str(samples_dir())], ["curate"],
                    ["hydrate", "--goal", "why do processor retries fail"]):
        subprocess.run([str(ATC), *command, "--home", str(home)], check=True,
                       capture_output=True, text=True, timeout=300)
    with Memory.open(home) as opened:
        add_principal(opened, "owner", owner=True)
        add_principal(opened, GRANTEE)
        add_grant(opened, GRANTEE, segments=["default"], ceiling="L0")
        yield opened


def _variables(args: list[str]) -> list[str]:
    """Each argument's variable: its name (``-From-To`` is one pair, bound as ``From-To``)."""
    return [arg[1:] for arg in args]


def _setup(name: str, args: list[str]) -> list[str]:
    plus = [arg[1:] for arg in args if arg.startswith("+")]
    return [PLUS_ARGS_BY_PREDICATE.get((name, var), PLUS_ARGS[var]) for var in plus]


def _type(name: str, var: str) -> str | None:
    """README's type of argument ``var`` of ``name``, None where it states none."""
    if (name, var) in TYPE_EXCEPTIONS:
        return None
    return TYPES_BY_PREDICATE.get((name, var), TYPES.get(var))


def _call(name: str, variables: list[str]) -> str:
    return f"{name}({', '.join(variables)})"


def _answers(mem: Memory, goal: str) -> list[dict]:
    try:
        return mem.query(goal, limit=5).rows
    except AtcError as error:
        pytest.fail(f"{goal}\n  raised {type(error).__name__}: {error}")


@pytest.mark.parametrize("name, args", SIGNATURES,
                         ids=[f"{n}/{len(a)}" for n, a in SIGNATURES])
def test_each_signature_is_callable_as_the_table_states(mem, name, args):
    variables = _variables(args)
    goal = ", ".join([*_setup(name, args), _call(name, variables)])
    rows = _answers(mem, goal)
    if name in NO_ANSWER:
        return
    assert rows, f"{goal}: no answer in the sample home"


@pytest.mark.parametrize("name, args", SIGNATURES,
                         ids=[f"{n}/{len(a)}" for n, a in SIGNATURES])
def test_each_typed_argument_has_the_type_readme_states(mem, name, args):
    variables = _variables(args)
    checks = [f"\\+ {_type(name, var)}({var})" for arg, var in zip(args, variables)
              if arg[0] in "?-" and _type(name, var)]
    if not checks:
        return
    call = ", ".join([*_setup(name, args), f"limit(50, {_call(name, variables)})"])
    wrong = _answers(mem, f"{call}, ({' ; '.join(checks)})")
    assert wrong == [], f"{_call(name, variables)}: README's Types say otherwise of {wrong[:1]}"


_BOUND_CASES = [(name, args, i) for name, args in SIGNATURES if name not in NO_ANSWER
                for i, arg in enumerate(args) if arg.startswith("?")]


@pytest.mark.parametrize("name, args, i", _BOUND_CASES,
                         ids=[f"{n}/{len(a)}:{a[i][1:]}" for n, a, i in _BOUND_CASES])
def test_each_open_argument_may_be_given(mem, name, args, i):
    """``?`` means the argument may come bound: bound to what a first answer gave, the call
    answers; bound to the same value as the other text type (an atom for a string, a string
    for an atom), it answers the same, as README's "Types" promise."""
    variables = _variables(args)
    first = f"once(({', '.join([*_setup(name, args), _call(name, variables)])}))"
    again = [f"_{v}" if j != i else v for j, v in enumerate(variables)]
    bound = _answers(mem, f"{first}, {_call(name, again)}")
    assert bound, f"{name}/{len(args)} answers nothing with its {args[i]} given"
    var = variables[i]
    if _type(name, var) in (_ATOM, _STRING):
        other = (f"atom_string(Other, {var})" if _type(name, var) == _STRING
                 else f"atom_string({var}, Other)")
        swapped = [v if j != i else "Other" for j, v in enumerate(again)]
        goal = f"{first}, {other}, {_call(name, swapped)}"
        assert _answers(mem, goal), f"{goal}: nothing, where {_call(name, again)} answers"


_UNBOUND_CASES = [(name, args, i) for name, args in SIGNATURES
                  for i, arg in enumerate(args) if arg.startswith("+")]


@pytest.mark.parametrize("reader", ["owner", "grantee"])
@pytest.mark.parametrize("name, args, i", _UNBOUND_CASES,
                         ids=[f"{n}/{len(a)}:{a[i][1:]}" for n, a, i in _UNBOUND_CASES])
def test_an_input_left_unbound_is_an_error_naming_the_predicate(mem, name, args, i, reader):
    """README: "An argument error names the predicate (`cell_neighbours/2: Arguments are not
    sufficiently instantiated`)"; a goal left unbound in goal_time_window/4 named
    ``string_lower/2``, a builtin the user never called. A grantee's vocabulary alike."""
    variables = _variables(args)
    setup = [goal for goal, var in zip(_setup(name, args), [a[1:] for a in args if a[0] == "+"])
             if var != variables[i]]
    goal = ", ".join([*setup, _call(name, variables[:i] + ["_Unbound"] + variables[i + 1:])])
    # nearest/3's second argument is +K in one mode and -Handle in the other: unbound, the
    # call is the other mode, which README states too
    if (name, len(args), i) == ("nearest", 3, 1):
        return
    if reader == "grantee" and any(GRANTEE_SEES_NO_CELL.search(goal) for goal in setup):
        return
    with pytest.raises(AtcError) as raised:
        if reader == "owner":
            mem.query(goal, limit=1)
        else:
            reader_query(mem, GRANTEE, goal, limit=1)
    assert str(raised.value).startswith(f"{name}/{len(args)}: Arguments are not sufficiently")


@pytest.mark.parametrize("line, goal", INLINE, ids=[f"README.md:{n}" for n, _ in INLINE])
def test_each_inline_goal_runs(mem, line, goal):
    if goal in NOT_GOALS:
        return
    run = FILLED[goal][0] if goal in FILLED else goal
    _answers(mem, run)


def test_the_tables_name_what_readme_still_shows():
    shown = {goal for _line, goal in INLINE}
    assert [g for g in [*FILLED, *NOT_GOALS] if g not in shown] == []
    assert [n for n in NO_ANSWER if n not in {name for name, _ in SIGNATURES}] == []
    assert len(SIGNATURES) > 40 and len(INLINE) > 20
