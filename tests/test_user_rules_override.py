"""A `--rules` file that defines a predicate a saved rule defines replaces it for the call.

A user who saved `fixes.pl` with `atc rules add` and then tries an edited copy with
`atc query ... --rules fixes.pl` expects the edit to answer. The two sets of clauses were
merged: the old rule's answers came back beside the new one's, and a rule tightened in the
copy seemed to change nothing."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"

SAVED = """kind_of(H, K) :- item_kind(H, K).
kind_of(_, saved_only).
label(saved).
"""

EDITED = """kind_of(H, K) :- item_kind(H, K), K == error.
"""


def atc(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


def answers(result) -> list[dict]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_rules_file_replaces_the_saved_definitions_of_what_it_defines(home: Path, tmp_path):
    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), home=home).exit_code == 0
    saved = tmp_path / "fixes.pl"
    saved.write_text(SAVED, encoding="utf-8")
    assert atc("rules", "add", str(saved), home=home).exit_code == 0
    saved_kinds = {a["K"] for a in answers(atc("query", "kind_of(_, K)", "--limit", "1000",
                                                "--format", "json", home=home))}
    assert {"saved_only", "error"} <= saved_kinds and len(saved_kinds) > 2

    saved.write_text(EDITED, encoding="utf-8")      # the user edits the file, tries the edit
    edited = atc("query", "kind_of(_, K)", "--rules", str(saved), "--limit", "1000",
                 "--format", "json", home=home)
    assert {a["K"] for a in answers(edited)} == {"error"}
    # what the file does not define stays the saved rules'
    assert answers(atc("query", "label(L)", "--rules", str(saved), "--format", "json",
                       home=home)) == [{"L": "saved"}]
    # and the saved rule itself is unchanged
    again = atc("query", "kind_of(_, K)", "--limit", "1000", "--format", "json", home=home)
    assert {a["K"] for a in answers(again)} == saved_kinds


def test_a_walk_rule_from_a_rules_file_replaces_the_saved_one(home: Path, tmp_path):
    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), home=home).exit_code == 0
    saved = tmp_path / "walk.pl"
    saved.write_text("near(_, H-0.5) :- item_kind(H, error).\n", encoding="utf-8")
    assert atc("rules", "add", str(saved), home=home).exit_code == 0
    saved.write_text("near(_, H-0.5) :- item_kind(H, user_goal).\n", encoding="utf-8")
    frame = atc("hydrate", "what failed", "--rules", str(saved), "--walk", "near",
                "--format", "json", home=home)
    assert frame.exit_code == 0, frame.output
    walked = {f["handle"] for f in json.loads(frame.stdout)["receipt"]["facts"]
              if f["seeded_by"] == "rule:near"}
    goals = {a["H"] for a in answers(atc("query", "item_kind(H, user_goal)", "--format", "json",
                                         home=home))}
    assert walked and walked <= goals


def test_a_rules_file_replaces_only_the_planes_it_names(home: Path, tmp_path):
    assert atc("ingest", str(FIXTURES / "claude_code_session.jsonl"), home=home).exit_code == 0
    saved = tmp_path / "planes.pl"
    saved.write_text("plane(errors, _{seeds: 3}).\nplane(wide, _{seeds: 9}).\n", encoding="utf-8")
    assert atc("rules", "add", str(saved), home=home).exit_code == 0
    tried = tmp_path / "tried.pl"
    tried.write_text("plane(errors, _{seeds: 5}).\n", encoding="utf-8")
    planes = answers(atc("query", "plane(P, S), get_dict(seeds, S, N)", "--rules", str(tried),
                         "--format", "json", home=home))
    assert sorted((a["P"], a["N"]) for a in planes) == [("errors", 5), ("wide", 9)]
    # the saved plane the file does not name still frames
    frame = atc("hydrate", "what failed", "--rules", str(tried), "--plane", "wide", home=home)
    assert frame.exit_code == 0, frame.output
