"""`atc source changed NAME`, `atc attend --goal G` and `atc inspect CANDIDATE` name something
a home must already hold; on a mistyped --home they made a new empty home there and then
said the source, goal or candidate does not exist, leaving the folder behind for later
commands to read as a home of nothing. They now refuse a missing home as the reading
commands do (`no memory home here`, exit 1) and make nothing."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.mark.parametrize("args", [["source", "changed", "registry"],
                                  ["attend", "--goal", "deploy"],
                                  ["inspect", "attn-1", "--result", "4.2"]])
def test_a_missing_home_is_refused_and_not_made(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "mistyped"
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code == 1, out.output
    assert out.stderr == (f"atc: {home}: no memory home here (atc ingest creates one; check "
                          "--home or $ATC_HOME)\n")
    assert not home.exists()
