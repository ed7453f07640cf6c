"""Goals and rules as a user who read README "Querying memory with Prolog" writes them, over a
small dated conversation, through `atc query` and `atc rules`: what the table shows, and what
saved rules do together."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config

CHAT = """\
[2024-03-04 09:12] Priya: The checkout service threw a TimeoutError again in payments/retry.py.
[2024-03-04 09:14] Tomás: The retry policy uses a fixed backoff; let's switch to exponential.
[2024-03-04 11:00] Priya: She said "don't merge it" and I wrote foo(X) :- bar(X), \\+ baz. in the doc, then a long tail of words past any column.
[2024-03-05 10:02] Dana: Reminder: the staging database is read-only on Fridays.
[2024-03-11 14:30] Priya: The exponential backoff fixed the timeouts. Closing PAY-212.
"""


def atc(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


@pytest.fixture(scope="module")
def chat_home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("chat")
    (root / "team.txt").write_text(CHAT, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    assert atc("ingest", str(root / "team.txt"), "--segment", "team", home=home).exit_code == 0
    assert atc("curate", home=home).exit_code == 0
    assert atc("principal", "add", "alice", "--owner", home=home).exit_code == 0
    assert atc("principal", "add", "bob", home=home).exit_code == 0
    assert atc("grant", "add", "bob", "--segment", "team", "--ceiling", "L2",
               home=home).exit_code == 0
    return home


def test_a_table_cell_cut_at_the_column_edge_says_it_was_cut(chat_home):
    """The table cut a value at 60 characters with nothing to show it: Priya's turn read
    `... foo(X) :- bar(X), \\+ b`, a text that seems to end there."""
    goal = 'item_text(H, T), sub_string(T, _, _, _, "foo(X)")'
    table = atc("query", goal, home=chat_home)
    assert table.exit_code == 0, table.output
    (row,) = table.output.splitlines()[1:]
    whole = json.loads(atc("query", goal, "--format", "json", home=chat_home).stdout)[0]["T"]
    assert len(whole) > 60
    assert row.rstrip().endswith("…"), row
    shown = row.split("  ", 1)[1].rstrip()
    assert whole.startswith(shown[:-1]) and len(shown) == 60
    short = atc("query", 'item_speaker(H, "Dana"), item_text(H, T)', home=chat_home).output
    assert "…" not in short and "read-only on Fridays." in short


def tree(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*"))
            if p.is_file()}


def test_a_rule_saved_under_another_name_may_not_define_a_saved_rules_predicate(home, tmp_path):
    """`atc rules add` of an edited copy under a new name saved it beside the old: both files'
    clauses answered, the old rule's answers among the new one's, with no word. It is refused,
    naming the saved rule that has the predicate (or plane) and how to replace it; nothing is
    saved. Saving it under the old rule's name replaces it; planes of other names add up."""
    write_config(home, {"embedder": "hash"})
    (tmp_path / "team.txt").write_text(CHAT, encoding="utf-8")
    assert atc("ingest", str(tmp_path / "team.txt"), home=home).exit_code == 0
    first = tmp_path / "said.pl"
    first.write_text('said_by(H, S) :- item_speaker(H, S).\n'
                     'plane(talk, _{seeds: 4}).\n', encoding="utf-8")
    assert atc("rules", "add", str(first), home=home).exit_code == 0
    edited = tmp_path / "said2.pl"
    edited.write_text('said_by(H, S) :- item_speaker(H, S), item_kind(H, user_goal).\n',
                      encoding="utf-8")
    before = tree(home)
    out = atc("rules", "add", str(edited), home=home)
    assert out.exit_code == 2 and out.output.count("\n") == 1, out.output
    assert f"{edited}:1: said_by/2 is already defined by saved rule said" in out.output
    assert "--name said" in out.output
    assert tree(home) == before
    plane = tmp_path / "plane2.pl"
    plane.write_text('plane(talk, _{seeds: 2}).\n', encoding="utf-8")
    out = atc("rules", "add", str(plane), home=home)
    assert out.exit_code == 2 and "plane talk is already defined by saved rule said" in out.output
    assert tree(home) == before
    other_plane = tmp_path / "plane3.pl"
    other_plane.write_text('plane(listen, _{seeds: 2}).\n', encoding="utf-8")
    assert atc("rules", "add", str(other_plane), home=home).exit_code == 0
    assert atc("rules", "add", str(edited), "--name", "said", home=home).exit_code == 0
    rows = json.loads(atc("query", 'said_by(H, "Priya")', "--format", "json", home=home).stdout)
    kinds = json.loads(atc("query", 'said_by(H, "Priya"), item_kind(H, K)', "--format", "json",
                           home=home).output)
    assert len(rows) == len(kinds) == 3 and {r["K"] for r in kinds} == {"user_goal"}


def test_a_rules_file_read_as_a_grantee_replaces_the_saved_rule_and_names_its_file(home,
                                                                                   tmp_path):
    """Under --as, a --rules file's predicates were added to the saved rule's clauses (the
    owner's call replaces them, README "Traversal rules written mid-inference"): the grantee
    got the old answers too. And an error in the file was `rules:2:18: ...`, not the file."""
    write_config(home, {"embedder": "hash"})
    (tmp_path / "team.txt").write_text(CHAT, encoding="utf-8")
    assert atc("ingest", str(tmp_path / "team.txt"), "--segment", "team", home=home).exit_code == 0
    assert atc("principal", "add", "alice", "--owner", home=home).exit_code == 0
    assert atc("principal", "add", "bob", home=home).exit_code == 0
    assert atc("grant", "add", "bob", "--segment", "team", "--ceiling", "L0",
               home=home).exit_code == 0
    saved = tmp_path / "days.pl"
    saved.write_text("per_day(Day, N) :-\n"
                     "    aggregate(count, H^T^(item_time(H, T), sub_string(T, 0, 10, _, Day)), N).\n",
                     encoding="utf-8")
    assert atc("rules", "add", str(saved), home=home).exit_code == 0
    edited = tmp_path / "days_edit.pl"
    edited.write_text('per_day(Day, N) :-\n'
                      '    aggregate(count, H^T^(item_speaker(H, "Priya"), item_time(H, T),\n'
                      '                          sub_string(T, 0, 10, _, Day)), N).\n',
                      encoding="utf-8")
    expected = [{"D": "2024-03-04", "N": 2}, {"D": "2024-03-11", "N": 1}]
    for extra in ([], ["--as", "bob"]):
        out = atc("query", "per_day(D, N)", "--rules", str(edited), "--format", "json", *extra,
                  home=home)
        assert out.exit_code == 0, out.output
        assert json.loads(out.stdout) == expected, (extra, out.output)
    bad = tmp_path / "bad.pl"
    bad.write_text("ok(X) :- item(X).\nbad(X) :- item(X) item_kind(X, K).\n", encoding="utf-8")
    for command in (["query", "ok(X)"], ["hydrate", "retries"]):
        out = atc(*command, "--rules", str(bad), "--as", "bob", home=home)
        assert out.exit_code == 2 and out.output.startswith(f"atc: {bad}:2:18: Syntax error"), \
            out.output


@pytest.mark.parametrize("goal, pi", [
    ("nearest(Q, 3, Hits)", "nearest/3"),
    ("nearest(Q, H, S)", "nearest/3"),
    ("nearest(Q, 3, [], Hits)", "nearest/4"),
    ("lexical(Q, 3, [], Hits)", "lexical/4"),
    ("similarity(Q, [], P)", "similarity/3"),
    ("similarity(Q, [], 2, P)", "similarity/4"),
    ("hydrate(G, _{budget: 100}, F)", "hydrate/3"),
    ('hydrate("retries", O, F)', "hydrate/3"),
])
def test_an_unbound_search_text_is_an_instantiation_error_naming_the_predicate(
        chat_home, goal, pi):
    """A search with its text unbound (a rule that called it before binding it) read
    ``nearest/3: Type error: `text_or_handle' expected, found `_19892' (a var)``, the
    variable's internal name; hydrate/3 named no predicate at all, and a grantee's searches
    named none either. README: "An argument error names the predicate"."""
    for extra in ([], ["--as", "bob"]):
        out = atc("query", goal, *extra, home=chat_home)
        assert out.exit_code == 2, out.output
        assert out.output == f"atc: {pi}: Arguments are not sufficiently instantiated\n", \
            (extra, out.output)


def test_a_missing_or_unreadable_rules_file_is_one_line_for_a_grantee_too(chat_home, tmp_path):
    """With --as, a --rules file that was not there got click's usage lines and exit 2; the
    owner's read says it in one line. Both say it alike now. A file that is not there is bad
    usage, exit 2, as `atc rules add` of a missing file and an oversized --rules file are (it
    was exit 1, against README's "2 for bad usage ... and rejected rules"); one that cannot
    be read as text is exit 1."""
    missing = tmp_path / "nope.pl"
    latin = tmp_path / "latin1.pl"
    latin.write_bytes("note(\"caf\xe9\").\n".encode("latin-1"))
    for path, why, code in ((missing, "rules file not found", 2),
                            (latin, "cannot read rules file", 1)):
        for command in (["query", "true"], ["hydrate", "retries"]):
            outs = [atc(*command, "--rules", str(path), *extra, home=chat_home)
                    for extra in ([], ["--as", "bob"])]
            for out in outs:
                assert out.exit_code == code, out.output
                assert out.output.startswith(f"atc: {path}: {why}") and \
                    out.output.count("\n") == 1, out.output
            assert outs[0].output == outs[1].output


def test_a_folder_given_as_rules_to_the_api_is_one_line(chat_home, tmp_path):
    """`Memory.query(goal, rules=folder)` (and `rules=""`, the current folder) was a bare
    IsADirectoryError from os.fdopen, a traceback under `atc`, not the one UsageError a
    missing file gives; `rules=""` is now refused as empty, as `--rules ""` is."""
    from attention_cloud import Memory
    from attention_cloud.errors import UsageError

    with Memory.open(chat_home) as mem:
        for folder, said in ((tmp_path, "rules file not found"), ("", "must not be empty")):
            for call in (lambda: mem.query("true", rules=folder),
                         lambda: mem.hydrate("retries", rules=folder)):
                with pytest.raises(UsageError, match=said):
                    call()


def test_rules_text_given_where_a_file_name_goes_is_not_repeated_whole(chat_home):
    """`Memory.query(goal, rules=TEXT)` with the rules' text instead of a file's name (600 KB
    of it) was refused with the whole text as the file's name, one line of 600 KB: the error
    shows its head and size now, whichever way the name fails (too long for the file system,
    or several lines that name no file)."""
    from attention_cloud import Memory
    from attention_cloud.errors import AtcError

    texts = ("p :- true.\n" * 60_000, "walk(X) :- item(X).\nplane(p, q).")
    with Memory.open(chat_home) as mem:
        for text in texts:
            with pytest.raises(AtcError) as raised:
                mem.query("true", rules=text)
            said = str(raised.value)
            assert "\n" not in said and len(said) < 300, said[:400]
            assert f"a text of {len(text):,} characters" in said, said
            assert said.startswith(repr(" ".join(text.split())[:60])), said


def home_with_a_good_rule(home: Path, tmp_path: Path) -> None:
    """``home`` holding the team chat and one saved rule, ``good`` (said_by/2)."""
    write_config(home, {"embedder": "hash"})
    (tmp_path / "team.txt").write_text(CHAT, encoding="utf-8")
    assert atc("ingest", str(tmp_path / "team.txt"), home=home).exit_code == 0
    good = tmp_path / "good.pl"
    good.write_text("said_by(H, S) :- item_speaker(H, S).\n", encoding="utf-8")
    assert atc("rules", "add", str(good), home=home).exit_code == 0


def test_a_saved_rule_broken_by_hand_is_listed_with_why_and_the_rest_still_listed(home,
                                                                                   tmp_path):
    """A saved rule edited by hand into a syntax error made `atc rules list` fail whole with
    `Stream <stream>(0x55e9...):1:19 Syntax error` (no file, no list to find it in), and one
    made not UTF-8 was a traceback in every query, frame and list."""
    home_with_a_good_rule(home, tmp_path)
    broken = home / "rules" / "broken.pl"
    broken.write_text("broken(X :- item(X).\n", encoding="utf-8")
    out = atc("rules", "list", home=home)
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [
        f"broken: cannot be read ({broken}:1:19: Syntax error: Operator expected)",
        "good: said_by/2"]
    listed = json.loads(atc("rules", "list", "--format", "json", home=home).output)
    assert [(r["name"], r["predicates"], "error" in r) for r in listed] == [
        ("broken", [], True), ("good", ["said_by/2"], False)]
    broken.write_bytes('n("caf\xe9").\n'.encode("latin-1"))
    out = atc("rules", "list", home=home)
    assert out.exit_code == 0 and out.output.startswith(f"broken: cannot be read ({broken}: "
                                                        "not UTF-8"), out.output
    for command in (["query", "said_by(H, S)"], ["hydrate", "retries"]):
        out = atc(*command, home=home)
        assert out.exit_code == 1 and isinstance(out.exception, SystemExit), out.exception
        assert out.output.startswith(f"atc: {broken}: saved rule is not UTF-8") and \
            out.output.count("\n") == 1, out.output
    assert atc("rules", "remove", "broken", home=home).exit_code == 0
    assert atc("query", 'said_by(H, "Dana")', home=home).exit_code == 0


def test_a_rules_file_with_no_clause_is_refused_and_a_rule_is_removed_by_its_file_name(home,
                                                                                        tmp_path):
    """An empty rules file (or comments and a directive only) was saved and listed as a rule
    defining nothing; `atc rules remove fixes.pl`, the name the user had added it by, was
    refused as no rule name. It is rejected as any rule is, exit 2 (README: "2 for bad usage,
    bad queries and rejected rules"); it was exit 1, the one rejection a script could not tell
    from a missing file."""
    write_config(home, {"embedder": "hash"})
    (tmp_path / "team.txt").write_text(CHAT, encoding="utf-8")
    assert atc("ingest", str(tmp_path / "team.txt"), home=home).exit_code == 0
    for name, text in (("empty", ""), ("noted", "% to do\n:- discontiguous later/1.\n")):
        (tmp_path / f"{name}.pl").write_text(text, encoding="utf-8")
        out = atc("rules", "add", str(tmp_path / f"{name}.pl"), home=home)
        assert out.exit_code == 2, out.output
        assert out.output == f"atc: rule {name} rejected: {tmp_path / name}.pl defines no predicate\n"
    assert not (home / "rules").exists() or not list((home / "rules").glob("*.pl"))
    fixes = tmp_path / "fixes.pl"
    fixes.write_text("said_by(H, S) :- item_speaker(H, S).\n", encoding="utf-8")
    assert atc("rules", "add", str(fixes), home=home).exit_code == 0
    out = atc("rules", "remove", "fixes.pl", home=home)
    assert (out.exit_code, out.output) == (0, "removed rule fixes\n")
    assert atc("rules", "list", home=home).output == ""
    assert atc("rules", "remove", "fixes.pl", home=home).exit_code == 2   # no such saved rule now


def test_a_rules_file_an_editor_saved_with_a_byte_order_mark_is_read(chat_home, tmp_path):
    """A UTF-8 file that starts with a byte order mark (Windows editors write one) was refused
    as `said.pl:1:3: Syntax error: Operator expected`, by `atc rules add` and by `--rules`."""
    rules = tmp_path / "said.pl"
    rules.write_bytes("\ufeffsaid_by(H, S) :- item_speaker(H, S).\n".encode("utf-8"))
    goal = 'said_by(H, "Dana")'
    for args in (("--rules", str(rules)), ("--rules", str(rules), "--as", "bob")):
        out = atc("query", goal, "--format", "json", *args, home=chat_home)
        assert out.exit_code == 0, out.output
        assert len(json.loads(out.stdout)) == 1
    out = atc("rules", "add", str(rules), home=chat_home)
    assert out.exit_code == 0, out.output
    try:
        out = atc("query", goal, "--format", "json", home=chat_home)
        assert out.exit_code == 0 and len(json.loads(out.stdout)) == 1, out.output
    finally:
        assert atc("rules", "remove", "said", home=chat_home).exit_code == 0


def test_a_rule_is_checked_and_saved_while_no_other_save_holds_the_rules_lock(home, tmp_path):
    """Two `atc rules add` at once each checked against the rules saved before either wrote
    and both saved a definition of one predicate: a save now waits for the other's lock (a
    lock of the rules' own: the home's write lock, which a running agent keeps, is not it)."""
    import fcntl
    import os
    import threading

    from attention_cloud import Memory

    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.remember("the staging database is read-only on Fridays")  # holds the write lock
        held = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(held, fcntl.LOCK_EX)                 # another save in progress
        saved = threading.Event()
        errors: list[BaseException] = []

        def add() -> None:
            try:
                mem.rules_add("said_by(H, S) :- item_speaker(H, S).\n", "said")
                saved.set()
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                errors.append(exc)

        worker = threading.Thread(target=add)
        worker.start()
        assert not saved.wait(0.5)                       # it waits for the other save
        assert not (home / "rules" / "said.pl").exists()
        os.close(held)                                   # the other save ends
        worker.join(30)
        assert saved.is_set() and not errors, errors
        assert [r["name"] for r in mem.rules_list()] == ["said"]


def test_a_grantee_cannot_reach_the_rules_another_grantee_loaded(tmp_path):
    """Grantees' rules load into one module, grantee_rules, which kept the last call's: after
    carol's query with rules, bob's goal `hydrate(G, _{rules: grantee_rules, walk:
    rule(carols_walk)}, F)` ran carol's walk rule, and a name she had not defined was an
    error where hers was a frame (her rules' names, told to bob). A call without rules now
    finds that module empty."""
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import add_grant, add_principal, reader_query
    from granted_home import granted_memory

    memory = granted_memory(tmp_path, "L0")
    try:
        add_principal(memory, "carol")
        add_grant(memory, "carol", segments=["default"], ceiling="L0")
        carols = ("carols_walk(Seeds, H-0.9) :- member(H-_, Seeds).\n"
                  "plane(carols, _{walk: rule(carols_walk), seeds: 2}).\n")
        assert reader_query(memory, "carol", "carols_walk([a-1], X)", rules_text=carols).rows
        for options in ("_{rules: grantee_rules, walk: rule(carols_walk)}",
                        "_{rules: grantee_rules, plane: carols}"):
            with pytest.raises(AtcError) as refused:
                reader_query(memory, "bob", f'hydrate("the cache", {options}, F)')
            assert "carols" in str(refused.value), str(refused.value)
    finally:
        memory.close()


def test_a_file_whose_stem_is_no_rule_name_asks_for_name(home, tmp_path):
    """`atc rules add "q'uote.pl"` took the stem as the rule's name and failed on it without a
    word of `--name`: the error now says the stem is no rule name and how to give one; nothing
    is saved, and `--name` saves it."""
    write_config(home, {"embedder": "hash"})
    for stem in ("q'uote", "my rules", "v1.2", "règles"):
        path = tmp_path / f"{stem}.pl"
        path.write_text("spoken(H) :- item_kind(H, user).\n", encoding="utf-8")
        out = atc("rules", "add", str(path), home=home)
        assert out.exit_code == 2, out.output
        assert out.output.count("\n") == 1 and "--name NAME" in out.output, out.output
        assert repr(stem) in out.output, out.output
        assert "ASCII letters (A-Z, a-z)" in out.output, out.output   # 'règles' is letters
        assert not (home / "rules").exists() or not list((home / "rules").glob("*.pl"))
    saved = atc("rules", "add", str(path), "--name", "spoken", home=home)
    assert saved.exit_code == 0, saved.output
    assert [p.name for p in (home / "rules").glob("*.pl")] == ["spoken.pl"]


def test_a_saved_rule_too_deep_or_too_long_to_read_is_named_in_every_query_it_stops(home,
                                                                                    tmp_path):
    """A saved rule nesting past 2,000 brackets or writing a number past 100,000 digits (saved
    before those guards existed, or edited by hand) stopped every query and frame with the
    guard's words alone (`atc: text nests brackets more than 2,000 deep`): nothing said which
    of the saved rules to remove. `atc rules add` refuses such a file naming it too."""
    home_with_a_good_rule(home, tmp_path)
    texts = {"deep": "deep(X) :- X = " + "f(" * 2100 + "a" + ")" * 2100 + ".\n",
             "long": "long(X) :- X = " + "9" * 100_001 + ".\n"}
    words = {"deep": "text nests brackets more than 2,000 deep",
             "long": "a number of more than 100,000 digits: too long to read"}
    for name, text in texts.items():
        refused = tmp_path / f"{name}.pl"
        refused.write_text(text, encoding="utf-8")
        out = atc("rules", "add", str(refused), home=home)
        assert out.exit_code == 2 and words[name] in out.output, out.output
        assert f"(in {refused})" in out.output, out.output
        saved = home / "rules" / f"{name}.pl"
        saved.write_text(text, encoding="utf-8")       # as an older version saved it
        for command in (["query", "said_by(H, S)"], ["hydrate", "retries"]):
            out = atc(*command, home=home)
            assert out.exit_code != 0 and out.output.count("\n") == 1, out.output
            assert words[name] in out.output and f"(in {saved})" in out.output, out.output
        assert atc("rules", "remove", name, home=home).exit_code == 0
        assert atc("query", 'said_by(H, "Dana")', home=home).exit_code == 0
