"""`atc query --format text` is the table: every other command with a text output names it
`--format text`, and a script passing that to each command was refused by `atc query`
alone ("'text' is not one of 'table', 'json'", exit 2)."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main


def test_text_is_the_table(tmp_path: Path) -> None:
    runner = CliRunner()
    home = str(tmp_path / "home")
    made = runner.invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                "--no-curate", "--home", home])
    assert made.exit_code == 0, made.output
    goal = "item_kind(H, K)"
    table = runner.invoke(main, ["query", goal, "--format", "table", "--home", home])
    text = runner.invoke(main, ["query", goal, "--format", "text", "--home", home])
    assert text.exit_code == 0, text.output
    assert text.stdout == table.stdout and "note" in text.stdout
