"""The query vocabulary over a small conversation with named, dated speakers, as a user who read
README "Querying memory with Prolog" writes goals: the types the table gives (strings for
text, speakers and times, atoms for handles, kinds and segments), and the time predicates fed
with the times item_time/2 gives."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from attention_cloud import Memory
from attention_cloud.errors import PrologError
from attention_cloud.home import write_config

CHAT = """\
[2024-03-04 09:12] Priya: The checkout service threw a TimeoutError again in payments/retry.py.
[2024-03-04 09:14] Tomás: The retry policy uses a fixed backoff; let's switch to exponential.
[2024-03-05 10:02] Dana: Reminder: the staging database is read-only on Fridays.
[2024-03-11 14:30] Priya: The exponential backoff fixed the timeouts. Closing PAY-212.
[2024-03-12 08:45] Tomás: ValueError in tests/test_menu.py for the café menu.
[2024-03-20 16:00] Dana: Last week we closed PAY-212 and the menu bug.
"""


def stamp(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(timezone.utc).timestamp()


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    root = tmp_path_factory.mktemp("chat")
    (root / "team.txt").write_text(CHAT, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    memory = Memory.open(home)
    memory.ingest([root / "team.txt"], segment="team")
    memory.curate()
    yield memory
    memory.close()


def test_speakers_and_times_are_strings_as_the_table_says(mem):
    rows = mem.query("item_speaker(H, S), item_time(H, T)", limit=50).rows
    assert [r["S"] for r in rows] == ["Priya", "Tomás", "Dana", "Priya", "Tomás", "Dana"]
    assert rows[0]["T"] == "2024-03-04T09:12:00Z"
    assert len(mem.query('item_speaker(H, "Tomás")').rows) == 2
    assert mem.query('item_time(H, "2024-03-05T10:02:00Z"), item_speaker(H, S)').rows[0]["S"] \
        == "Dana"


def test_a_time_window_read_against_an_item_time(mem):
    """goal_time_window/4 and items_between/3,4 took POSIX stamps only, while item_time/2
    gives ISO 8601 text: passing it was `is/2: Type error: `[]' expected, found
    `"2024-03-20T16:00:00Z"' (a string) ("x" must hold one character)`."""
    rows = mem.query('item_speaker(H, "Dana"), item_time(H, T), '
                     'goal_time_window("what did we close last week", T, From-To, P)',
                     limit=5).rows
    last = rows[-1]
    assert last["T"] == "2024-03-20T16:00:00Z" and last["P"] == "last week"
    assert last["To"] == stamp("2024-03-20T16:00:00Z")
    by_number = mem.query(f'goal_time_window("what did we close last week", '
                          f'{stamp("2024-03-20T16:00:00Z")}, W, _)').rows[0]["W"]
    assert by_number == [last["From"], last["To"]]
    between = mem.query('items_between("2024-03-11", "2024-03-12T23:59:59Z", Is)').rows
    said = mem.query("item_time(H, T), T @>= \"2024-03-11\", T @< \"2024-03-13\"",
                     limit=10).rows
    assert sorted(between[0]["Is"]) == sorted(r["H"] for r in said) and len(said) == 2
    newest = mem.query('items_between("2024-03-01", "2024-03-31", 1, Is)').rows[0]["Is"]
    assert mem.query(f"item_time({newest[0]}, T)").rows[0]["T"] == "2024-03-20T16:00:00Z"


@pytest.mark.parametrize("goal,message", [
    ('goal_time_window("last week", "yesterday", W, P)', "`iso_8601_time' expected"),
    ('goal_time_window("last week", f(x), W, P)', "`posix_stamp_or_iso_8601' expected"),
    ('items_between("2024-03-01", "soon", Is)', "found `\"soon\"'"),
])
def test_a_time_that_is_none_is_a_clear_error(mem, goal, message):
    with pytest.raises(PrologError) as err:
        mem.query(goal)
    assert message in str(err.value), str(err.value)


@pytest.mark.parametrize("goal,count", [
    # the stored type: atoms for kinds, segments, sessions, levels, relations; strings for times
    ('relation(H, speaker, "Priya")', 2),       # item_speaker(H, "Priya") answered, this did not
    ("relation(H, speaker, 'Priya')", 2),
    ('item_segment(H, "team")', 6),
    ('item_session(H, S), item_session(H2, "team"), H == H2', 6),
    ('item_role(H, "user")', 2),
    ("item_time(H, '2024-03-05T10:02:00Z')", 1),
    ('item(H), rung(H, "l3", _)', 6),
    ('item(H), rung_tokens(H, "l1", _)', 6),
    ('distilled(H, "entity", V)', None),
    ('arc(A), arc_session(A, "team")', None),
    # a handle as JSON answers show it, a string: every item_ predicate reads it as the atom
    ('item(H0), atom_string(H0, H), item(H), item_text(H, _), item_kind(H, _), '
     'item_time(H, _), item_speaker(H, _), item_source(H, _), item_seq(H, _)', 6),
    # ... and so does every other predicate of the table: arcs, rollups, cells, curated records
    # and provenance answered `false.` for a handle given as a string, a cell predicate that
    # checks its argument raised a type error, and a text given as an atom matched nothing
    ('item(H0), atom_string(H0, H), curated(H, C0), atom_string(C0, C), curated(H, C), '
     'provenance(H, H0), item_arc(H, _)', 6),
    ('arc(A0), atom_string(A0, A), arc(A), arc_member(A, H), item_arc(H, A), arc_goal(A, _), '
     'arc_session(A, _), provenance(A, H)', None),
    ('rollup(R0, S0), atom_string(R0, R), atom_string(S0, S), rollup(R, S), curated(R, _)',
     1),
    ('cell(C0), atom_string(C0, C), cell(C), cell_member(C, H0), atom_string(H0, H), '
     'cell_of(H, C), cell_info(C, "size", _), provenance(C, H), cell_neighbours(C, _), '
     'cell_region(C, 1, _), cell_path(C, C, _)', 6),
    ('item_goal(H, G0), atom_string(G, G0), item_goal(H, G), item_text(H, T0), '
     'atom_string(T, T0), item_text(H, T), item_source(H, P0), atom_string(P, P0), '
     'item_source(H, P), rung(H, l0, T)', 6),
    # the source file's name is an atom: given as a string it matched nothing
    ('item_source_name(H, N0), atom_string(N0, N), item_source_name(H, N)', 6),
    # nearest/4 and lexical/4 options too: level("l0") was a type error
    ('nearest("backoff", 3, [level("l0"), record("item")], [_|_]), '
     'lexical("backoff", 3, [level("l0"), record("item")], [_|_])', 1),
])
def test_a_bound_atom_or_string_answers_alike(mem, goal, count):
    """A string where the journal stores an atom (or an atom where it stores a string) was a
    silent `false.`: the README's own item_speaker(H, "Priya") invites relation(H, speaker,
    "Priya")."""
    rows = mem.query(goal, limit=100).rows
    assert rows, goal
    if count is not None:
        assert len(rows) == count, (goal, rows)
    unbound = mem.query("item_segment(H, S), item_time(H, T)", limit=1).rows[0]
    assert unbound["S"] == "team" and unbound["T"] == "2024-03-04T09:12:00Z"


def test_a_ground_compound_answer_is_its_quoted_text(mem):
    """The host's converter wrote f("x y", 'A') as `f(x y, A)`: a variable A to the reader,
    and the string's space and comma unquoted, while the same term with a variable in it was
    written quoted (`f(_A,'A')`)."""
    row = mem.query("X = f(\"x y\", 'A', \"a,b\", [1, 2.5], g(h)), Y = f(_, 'A'), "
                    "W = [a|b], T = (a :- b)").rows[0]
    assert row["X"] == "f(\"x y\",'A',\"a,b\",[1,2.5],g(h))"
    assert row["Y"] == "f(_A,'A')"
    assert row["W"] == "[a|b]" and row["T"] == "a:-b"
    # lists, pairs (a hit list's Handle-Score) and dicts keep their shape, their parts alike
    shaped = mem.query("L = [k-g(\"s\"), 1-x], D = d{a: f('B'), b: [1]}").rows[0]
    assert shaped["L"] == [["k", "g(\"s\")"], [1, "x"]]
    assert shaped["D"] == {"a": "f('B')", "b": [1]}
    hits = mem.query('nearest("retry", 2, Hs)').rows[0]["Hs"]
    assert all(isinstance(h, str) and isinstance(s, float) for h, s in hits)


def test_a_grantee_reads_atoms_and_strings_alike(tmp_path):
    """The grantee's filtered vocabulary (atc query --as) converts bound arguments as the
    owner's does. (Last in the file: the CLI's home closes the module's Memory.)"""
    import json

    from click.testing import CliRunner

    from attention_cloud.cli import main

    (tmp_path / "team.txt").write_text(CHAT, encoding="utf-8")
    home = tmp_path / "home"

    def atc(*args):
        out = CliRunner().invoke(main, [*args, "--home", str(home)])
        assert out.exit_code == 0, out.output
        return out

    home.mkdir()
    write_config(home, {"embedder": "hash"})
    atc("ingest", str(tmp_path / "team.txt"), "--segment", "team")
    atc("curate")
    atc("principal", "add", "alice", "--owner")
    atc("principal", "add", "bob")
    atc("grant", "add", "bob", "--segment", "team", "--ceiling", "L0")
    for goal in ('relation(H, speaker, "Priya")', 'item_segment(H, "team"), item_kind(H, K)',
                 "item_time(H, '2024-03-05T10:02:00Z')",
                 'item(H0), atom_string(H0, H), item_text(H, T), item_kind(H, K)',
                 'item_text(H, T0), atom_string(T, T0), item_text(H, T), rung(H, l0, T)',
                 'arc(A0), atom_string(A0, A), arc_member(A, H0), atom_string(H0, H), '
                 'item_arc(H, A), curated(A, _), provenance(A, H)',
                 'item_source_name(H, N0), atom_string(N0, N), item_source_name(H, N)'):
        rows = json.loads(atc("query", goal, "--as", "bob", "--format", "json").stdout)
        assert rows, goal
    # a grantee sees no cells (a cell is built over items they may not see: which cells
    # exist told them what the owner wrote elsewhere), however the cell is named
    for goal in ("cell(C)", 'cell_of(H, C)', "cell_member(C, H)"):
        assert json.loads(atc("query", goal, "--as", "bob", "--format", "json").stdout) == [], goal
