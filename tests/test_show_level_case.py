"""`atc show --format json` names its rung as every other output does: L0..L3.

The receipt, the audit ledger, `--level` and a grantee's `ceiling` all say `L2`; `atc show`
printed `"level": "l2"` beside `"ceiling": "L2"`, so a script comparing a shown record's level
with a receipt's had to fold case first.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.schemas import schema, schema_problems

from granted_home import granted_memory


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    with granted_memory(tmp_path_factory.mktemp("show-level"), "L2", curate=True) as mem:
        item = mem.query("item(H), rung(H, l2, _)", limit=1).rows[0]["H"]
        arc = mem.query("arc(A)", limit=1).rows[0]["A"]
        return mem.home, item, arc


def _show(home: Path, *args: str) -> dict:
    out = CliRunner().invoke(main, ["show", *args, "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


@pytest.mark.parametrize("asked", ["L0", "L2", "l3"])
def test_show_json_names_the_rung_in_upper_case(home, asked):
    path, item, _ = home
    record = _show(path, item, "--level", asked)
    assert record["level"] == asked.upper()
    assert schema_problems(record, "show") == []


def test_an_arc_asked_for_l0_says_it_shows_l1(home):
    path, _, arc = home
    assert _show(path, arc)["level"] == "L1"


def test_a_grantee_view_names_level_and_ceiling_alike(home):
    path, item, _ = home
    record = _show(path, item, "--as", "bob")
    assert record["level"] == record["ceiling"] == "L2"


def test_the_schema_allows_only_upper_case_rungs():
    assert schema("show")["properties"]["level"]["enum"] == ["L0", "L1", "L2", "L3"]
