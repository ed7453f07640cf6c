"""`atc rules list` reads the saved rules' files, not the home's journal.

Before, it opened the whole home (about 1.5 CPU-s at 100k items, the journal loaded) to list a
few file names and their predicates; now it reads `rules/` with Prolog alone. The listing,
a missing home's error and a broken file's line are as before."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud import memory
from attention_cloud.cli import main


def run(*args, home):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("rules-list")
    rules = root / "fixes.pl"
    rules.write_text("fixed(H) :- item(H).\nrecent(H, T) :- item_time(H, T).\n")
    home = root / "home"
    assert run("rules", "add", str(rules), home=home).exit_code == 0
    (home / "rules" / "broken.pl").write_text("oops(:- .\n")
    return home


def test_rules_list_does_not_open_the_home(home, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("atc rules list opened the whole home")

    monkeypatch.setattr(memory.Memory, "open", classmethod(refuse))
    done = run("rules", "list", "--format", "json", home=home)
    assert done.exit_code == 0, done.output
    listed = {r["name"]: r for r in json.loads(done.stdout)}
    assert listed["fixes"]["predicates"] == ["fixed/1", "recent/2"]
    assert "broken.pl" in listed["broken"]["error"] and not listed["broken"]["predicates"]


def test_the_listing_is_the_one_the_open_home_gives(home):
    with memory.Memory.open(home, create=False) as mem:
        opened = mem.rules_list()
    assert json.loads(run("rules", "list", "--format", "json", home=home).stdout) == opened


def test_a_missing_home_is_still_refused(tmp_path):
    done = run("rules", "list", home=tmp_path / "nowhere")
    assert done.exit_code != 0 and "no memory home here" in done.output
    assert not (tmp_path / "nowhere").exists()
