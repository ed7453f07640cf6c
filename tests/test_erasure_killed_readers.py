"""An erasure killed half-way is finished by the next call of any Memory, not only a writer's.

`atc forget` killed (SIGKILL) after writing its plan and before its erase batch left the item
whole in the journal. Until the next writer (`forget`, `curate`, `ingest`) ran, every reader
went on serving the text the user had asked to forget: a Memory held open (`atc serve` to its
grantees, `atc mcp`, the prompt hook's server), and every home opened afresh (`atc query`,
`atc hydrate`), for as long as nobody wrote. Now a call that finds the plan on disk and no
other process writing finishes the erasure first (it takes the write lock for that alone).
"""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from test_erasure import ROOT, SECRET, curated, files_holding  # noqa: F401 - the fixture
from test_erasure_races import KILLED_FORGET


def _kill_forget(home, handle) -> None:
    killed = subprocess.run([sys.executable, "-c", KILLED_FORGET, str(ROOT / "host"), str(home),
                             handle], timeout=300)
    assert killed.returncode == -9
    assert (home / "erasure.pending.json").exists() and files_holding(home, SECRET)


def test_a_reader_held_open_finishes_the_erasure_at_its_next_call(curated):
    home, _, secret = curated
    reader = Memory.open(home)
    try:
        assert reader.item(secret) is not None
        _kill_forget(home, secret)
        assert reader.item(secret) is None
        assert reader.query(f"item_text({secret}, T)").rows == []
        assert not reader.query(f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")').rows
        assert not reader.lock.held                  # it wrote for the erasure alone
    finally:
        reader.close()
    assert not (home / "erasure.pending.json").exists()
    assert files_holding(home, SECRET) == []
    with Memory.open(home) as mem:
        assert [e.handle for e in mem.erasures()] == [secret]
        assert len(mem.query("item(H)").rows) == 4


def test_the_next_query_finishes_it_and_answers_without_the_item(curated):
    home, _, secret = curated
    _kill_forget(home, secret)
    out = CliRunner().invoke(main, ["query", f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")',
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert SECRET not in out.output and out.output.strip().endswith("false.")
    assert files_holding(home, SECRET) == [] and not (home / "erasure.pending.json").exists()


def test_a_reader_beside_a_writer_at_work_does_not_wait_for_it(curated):
    home, _, secret = curated
    _kill_forget(home, secret)
    fd = os.open(home / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)          # another process writes: the erasure is left to it
    try:
        with Memory.open(home) as mem:
            assert len(mem.query("item(H)").rows) == 5
        assert (home / "erasure.pending.json").exists()
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    done = CliRunner().invoke(main, ["forget", secret, "--yes", "--home", str(home)])
    assert done.exit_code == 0, done.output
    assert "finished an interrupted erasure of 1 items" in done.output
    assert files_holding(home, SECRET) == []
