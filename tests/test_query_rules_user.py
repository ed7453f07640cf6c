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
    return home


def test_a_table_cell_cut_at_the_column_edge_says_it_was_cut(chat_home):
    """The table cut a value at 60 characters with nothing to show it: Priya's turn read
    `... foo(X) :- bar(X), \\+ b`, a text that seems to end there."""
    goal = 'item_text(H, T), sub_string(T, _, _, _, "foo(X)")'
    table = atc("query", goal, home=chat_home)
    assert table.exit_code == 0, table.output
    (row,) = table.output.splitlines()[1:]
    whole = json.loads(atc("query", goal, "--format", "json", home=chat_home).output)[0]["T"]
    assert len(whole) > 60
    assert row.rstrip().endswith("…"), row
    shown = row.split("  ", 1)[1].rstrip()
    assert whole.startswith(shown[:-1]) and len(shown) == 60
    short = atc("query", 'item_speaker(H, "Dana"), item_text(H, T)', home=chat_home).output
    assert "…" not in short and "read-only on Fridays." in short
