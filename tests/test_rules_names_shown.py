"""Rule names as a new user meets them at `atc rules add` and `atc rules list`.

Before, `atc rules add` saved a rule defining `entity_walk/2` without a word, though a walk is
taken by its name and the built-in one always ran (the rule never did); now such a new rule is
refused in one line, exit 2, nothing saved, while a home already holding one still loads. And
`atc rules list` printed a quoted name unquoted (`Plane X/1`): now as Prolog writes it
(`'Plane X'/1`), so it can be pasted back into a goal."""

from __future__ import annotations

import json

from click.testing import CliRunner

from attention_cloud import memory
from attention_cloud.cli import main

SHADOWING_WALK = "entity_walk(Seeds, H-0.5) :- member(H-_, Seeds).\n"


def run(*args, home):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


def test_a_rule_named_as_the_builtin_walk_is_refused_at_add(tmp_path):
    rules = tmp_path / "walk.pl"
    rules.write_text(SHADOWING_WALK)
    home = tmp_path / "home"
    done = run("rules", "add", str(rules), home=home)
    assert done.exit_code == 2, done.output
    (line,) = done.output.strip().splitlines()
    assert "entity_walk/2" in line and "built-in walk" in line
    assert not (home / "rules" / "walk.pl").exists()


def test_other_arities_of_the_name_are_still_rules(tmp_path):
    rules = tmp_path / "walk.pl"
    rules.write_text("entity_walk(H) :- item(H).\n")
    done = run("rules", "add", str(rules), home=tmp_path / "home")
    assert done.exit_code == 0, done.output


def test_a_home_already_holding_one_still_loads(tmp_path):
    home = tmp_path / "home"
    with memory.Memory.open(home) as mem:
        mem.remember("the staging DB is read-only on Fridays", kind="note", curate=False)
    (home / "rules").mkdir(exist_ok=True)
    (home / "rules" / "walk.pl").write_text(SHADOWING_WALK)
    with memory.Memory.open(home, create=False) as mem:
        assert mem.query("item(H)").rows
    listed = json.loads(run("rules", "list", "--format", "json", home=home).stdout)
    assert listed[0]["predicates"] == ["entity_walk/2"]


def test_rules_list_writes_names_as_prolog_reads_them(tmp_path):
    rules = tmp_path / "planes.pl"
    rules.write_text("'Plane X'(H) :- item(H).\n'it''s'(H, 1) :- item(H).\nplain(H) :- item(H).\n")
    home = tmp_path / "home"
    assert run("rules", "add", str(rules), home=home).exit_code == 0
    shown = run("rules", "list", home=home).output.strip()
    assert shown == "planes: 'Plane X'/1, 'it\\'s'/2, plain/1"
    listed = json.loads(run("rules", "list", "--format", "json", home=home).stdout)
    assert listed[0]["predicates"] == ["'Plane X'/1", "'it\\'s'/2", "plain/1"]
    with memory.Memory.open(home, create=False) as mem:
        assert mem.rules_list()[0]["predicates"] == listed[0]["predicates"]
