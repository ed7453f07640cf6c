"""What every format's reader promises through the real interfaces: bad input refused in one
line with nothing written, and a second ingest an upsert keeping handles, speakers and times."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main

_ROWS = "item_speaker(H, S), item_time(H, T)"


def ingest_twice(home: Path, path: Path) -> tuple[tuple[int, int], list, list]:
    """Ingest ``path``, append a newline (so it is read again, not skipped as unchanged), ingest
    it again: the new items each time counted, and the sorted (handle, speaker, time) rows of
    memory after each ingest."""
    with Memory.open(home) as mem:
        first = mem.ingest([str(path)])
        before = sorted((r["H"], r["S"], r["T"]) for r in mem.query(_ROWS).rows)
        path.write_bytes(path.read_bytes() + b"\n")
        again = mem.ingest([str(path)])
        after = sorted((r["H"], r["S"], r["T"]) for r in mem.query(_ROWS).rows)
    return (first.new, again.new), before, after


def refusal(home: Path, path: Path) -> str:
    """The last line ``atc ingest PATH`` printed, asserting that it failed and that memory
    holds no item after it."""
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)])
    assert out.exit_code != 0, out.output
    with Memory.open(home) as mem:
        assert mem.query("item_kind(H, K)").rows == []
    return out.output.strip().splitlines()[-1]
