"""A grantee below L0 is shown the days a turn names, not the verbatim words that name them."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir
from attention_cloud.sharing import reader_hydrate


def ok(*args: str, home: Path) -> str:
    out = CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


def test_a_date_note_below_l0_names_the_day_not_the_verbatim_words(tmp_path: Path):
    """A fact's date note quoted its L0 ("[yesterday = Sun 2026-01-11]") to an L2 grantee,
    whose L2 rung of the turn does not hold the word."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    ok("ingest", *map(str, sorted(samples_dir().glob("*.jsonl"))), "--segment", "payments",
       home=home)
    ok("curate", home=home)
    ok("principal", "add", "alice", "--owner", home=home)
    ok("principal", "add", "bob", home=home)
    ok("grant", "add", "bob", "--segment", "payments", "--ceiling", "L2", home=home)
    goal = "why do processor retries fail"
    with Memory.open(home, create=False) as mem:
        (day_item,) = {r["H"] for r in mem.query(
            'relation(H, mentions_date, D), item_text(H, T), sub_string(T, _, _, _, "yesterday")'
        ).rows}
        assert "yesterday" not in mem.query(f"rung({day_item}, l2, T)").rows[0]["T"]
        own = mem.hydrate(goal, budget=1200, ceiling="L2")
        theirs = reader_hydrate(mem, "bob", goal, budget=1200)
    assert day_item in {f["handle"] for f in theirs.receipt["facts"]}
    assert "[yesterday = Sun 2026-01-11]" in own.text    # the owner's note is unchanged
    assert "[Sun 2026-01-11]" in theirs.text and "yesterday" not in theirs.text
