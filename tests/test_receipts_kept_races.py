"""The receipt cap holds when several processes frame at once (an agent's hooks, `atc serve`,
`atc mcp` and the CLI on one home) and when one is killed while it stores a receipt: every
receipt file on disk is on its reader's list, so pruning reaches it, and the newest
``receipts_kept`` stay."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# each process stores `count` receipts of the owner through the function every frame uses
SAVER = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from attention_cloud.hydration import save_receipt
home, tag, count = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
for n in range(count):
    save_receipt(home, {"id": f"r_{tag}{n:015x}"[:18], "goal": f"goal {tag} {n}"})
"""


def _savers(home: Path, tags: str, count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", SAVER, str(ROOT / "host"), str(home), tag,
                              str(count)]) for tag in tags]


def _home(tmp_path: Path, kept: int) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"receipts_kept": kept}), encoding="utf-8")
    return home


def _files(home: Path) -> set[str]:
    return {p.stem for p in (home / "receipts").glob("*.json")}


def test_processes_saving_at_once_leave_no_receipt_off_the_list(tmp_path):
    # two processes appending to receipts/.owner.kept while each rewrote it to prune: one
    # rewrite dropped the ids the other had just appended, and those receipts stayed on disk
    # for good, past receipts_kept, since pruning only deletes what the list names
    home = _home(tmp_path, 5)
    procs = _savers(home, "abcd", 150)
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    listed = (home / "receipts" / ".owner.kept").read_text(encoding="utf-8").split()
    assert _files(home) <= set(listed)
    assert len(_files(home)) <= 5


def test_a_saver_killed_mid_write_leaves_no_receipt_that_is_never_pruned(tmp_path):
    home = _home(tmp_path, 3)
    for delay in (0.05, 0.1, 0.15, 0.2, 0.3):
        (proc,) = _savers(home, "e", 100_000)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
    # what a kill in the middle of writing a receipt leaves, whatever the delays above hit
    # (on a loaded machine none of them may have got as far as making receipts/)
    (home / "receipts").mkdir(exist_ok=True)
    (home / "receipts" / "r_e0000000000000ff.4194000-1.tmp").write_text('{"goal": "half')
    (proc,) = _savers(home, "f", 10)  # a later, whole run prunes what the killed ones left
    assert proc.wait(timeout=60) == 0
    listed = (home / "receipts" / ".owner.kept").read_text(encoding="utf-8").split()
    assert _files(home) <= set(listed)
    assert len(_files(home)) <= 3
    # nor a half-written receipt of a killed save: it may hold a goal or a breadcrumb's text
    assert sorted(p.name for p in (home / "receipts").glob("*.tmp")) == []
