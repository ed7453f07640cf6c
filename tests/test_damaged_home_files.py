"""Files of a home damaged between runs (a stored receipt, the vector store's key log or vector
log, the BM25 log): a command that reads one refuses in one line naming it, exit 1, and never
answers from the part it could read; the remedy the line names rebuilds what is derived; an
erasure deletes a damaged receipt that may hold the forgotten text."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import HomeError

GOAL = "why did the processor retries fail"


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home", str(home)],
                          capture_output=True, text=True, timeout=180)


def _refused_in_one_line(out: subprocess.CompletedProcess, named: Path) -> None:
    """Exit 1, nothing on stdout, one ``atc:`` line on stderr naming ``named`` (not a goal's
    "Python HomeError" nor a traceback)."""
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 1, out.stderr
    assert out.stdout == ""
    assert len(lines) == 1 and lines[0].startswith("atc: "), out.stderr
    assert str(named) in lines[0] and "Python" not in lines[0], lines[0]


def _garble_line(path: Path, number: int) -> None:
    """Overwrite the first bytes of line ``number`` (from 0) in place, as a bad disk block
    does: the file keeps its inode, its size and every other line."""
    data = path.read_bytes()
    start = 0
    for _ in range(number):
        start = data.index(b"\n", start) + 1
    with open(path, "r+b") as handle:
        handle.seek(start)
        handle.write(b"\x00#garbled")


def _doctor_names(home: Path, part: str) -> None:
    """``atc doctor`` fails and names the damaged ``part`` (it said nothing, exit 0)."""
    from attention_cloud.doctor import run_doctor

    ok, lines = run_doctor(str(home))
    assert not ok
    assert [line for line in lines if line.strip().startswith(f"{part}: DAMAGED")], lines


def _facts(home: Path) -> list[tuple[str, str]]:
    with Memory.open(home, create=False) as mem:
        return [(f.handle, f.level) for f in mem.hydrate(GOAL, budget=600).facts]


def test_a_damaged_receipt_is_one_line_naming_it(curated_samples_home: Path) -> None:
    home = curated_samples_home
    with Memory.open(home) as mem:
        rid = mem.hydrate(GOAL, budget=300).receipt_id
    path = home / "receipts" / f"{rid}.json"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # cut short
    with Memory.open(home, create=False) as mem:
        with pytest.raises(HomeError, match="damaged receipt"):
            mem.receipt(rid)
    _refused_in_one_line(_atc(home, "receipt", rid), path)  # was a JSONDecodeError traceback


def test_forget_deletes_a_damaged_receipt_holding_the_text(curated_samples_home: Path) -> None:
    home = curated_samples_home
    secret = "the staging vault code is zebra-orchid-4471"
    with Memory.open(home) as mem:
        handle = mem.remember(secret).handle
        rid = mem.hydrate(secret, budget=300).receipt_id  # its goal quotes the item
        path = home / "receipts" / f"{rid}.json"
        torn = path.read_bytes()[: path.stat().st_size // 2]
        assert b"zebra-orchid-4471" in torn
        path.write_bytes(torn)  # damaged: no longer JSON, still holding the text
        mem.forget(handle, reason="a secret")
    holding = [p for p in home.rglob("*") if p.is_file() and b"zebra-orchid-4471" in p.read_bytes()]
    assert holding == []  # the torn receipt was skipped and kept the text
    assert not path.exists()


def test_a_garbled_vector_key_log_is_refused_then_rebuilt(curated_samples_home: Path,
                                                          tmp_path: Path) -> None:
    home = curated_samples_home
    before = _facts(home)
    (keys,) = (home / "vectors").glob("keys-*.jsonl")
    _garble_line(keys, 3)
    # was a frame from the 3 rows before the bad line, exit 0
    _refused_in_one_line(_atc(home, "hydrate", GOAL, "--budget", "600"), home / "vectors")
    _doctor_names(home, "vectors")
    shutil.move(home / "vectors", tmp_path / "vectors.damaged")  # the remedy the line names
    with Memory.open(home) as mem:
        mem.curate()
    assert _facts(home) == before


def _cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:100])


def _key_garbled(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace('"rows"', '"rowz"'), encoding="utf-8")


def _replaced(path: Path) -> None:
    path.write_text("[1]\n", encoding="utf-8")


@pytest.mark.parametrize("damage", [_cut_short, _key_garbled, _replaced, Path.unlink],
                         ids=["cut-short", "key-garbled", "not-an-object", "removed"])
def test_a_damaged_vector_manifest_is_refused_naming_the_remedy(curated_samples_home: Path,
                                                               tmp_path: Path, damage) -> None:
    """The vector store's manifest.json damaged between runs: a frame and a curate each stop in
    one line naming the store and the remedy the other damages name, `atc doctor` names it,
    and the remedy rebuilds the same frames. Before: cut short, "is not valid JSON" with no
    remedy; a key garbled or another JSON value, `atc: Python KeyError: 'rows'` from a frame
    and a traceback from curate; removed, a frame without vectors (exit 0) and a curate
    refused with no remedy."""
    home = curated_samples_home
    before = _facts(home)
    damage(home / "vectors" / "manifest.json")
    for command in (("hydrate", GOAL, "--budget", "600"), ("curate",)):
        out = _atc(home, *command)
        _refused_in_one_line(out, home / "vectors")
        assert "move the folder away and run `atc curate`" in out.stderr, out.stderr
    _doctor_names(home, "vectors")
    shutil.move(home / "vectors", tmp_path / "vectors.damaged")  # the remedy the line names
    with Memory.open(home) as mem:
        mem.curate()
    assert _facts(home) == before


def test_a_short_vector_log_is_refused(curated_samples_home: Path) -> None:
    home = curated_samples_home
    (log,) = (home / "vectors").glob("vectors-*.f16")
    with open(log, "r+b") as handle:
        handle.truncate(log.stat().st_size // 2)
    with Memory.open(home, create=False) as mem:
        # was ValueError: mmap length is greater than file size
        with pytest.raises(HomeError, match=f"{log}.*fewer than the"):
            mem.hydrate(GOAL, budget=600)
    _doctor_names(home, "vectors")


def test_a_garbled_bm25_log_is_refused_then_rebuilt(curated_samples_home: Path) -> None:
    home = curated_samples_home
    before = _facts(home)
    _garble_line(home / "lexical" / "lexical.jsonl", 2)
    # was a frame without BM25 (path semantic), exit 0
    _refused_in_one_line(_atc(home, "hydrate", GOAL, "--budget", "600"), home / "lexical")
    _doctor_names(home, "lexical")
    with Memory.open(home) as mem:
        assert mem.curate().repaired > 0  # the remedy the line names
    assert _facts(home) == before


@pytest.mark.parametrize("name", ["curation.pending.jsonl", "ingest.pending.jsonl",
                                  "erasure.pending.json"])
@pytest.mark.parametrize("damage", [b"[1, 2]\n", b"\xff\xfe\x00{\n"], ids=["not-an-object", "not-utf8"])
def test_a_damaged_recovery_file_does_not_stop_the_next_writer(curated_samples_home: Path,
                                                                name: str, damage: bytes) -> None:
    """The files a killed ingest, curate or forget leaves for the next writer to finish from:
    one damaged (a line that reads as another JSON value, bytes that are not UTF-8) is read
    as a torn one is, and the next curate completes and removes it (it was an AttributeError
    or UnicodeDecodeError traceback from every later curate)."""
    home = curated_samples_home
    before = _facts(home)
    (home / name).write_bytes(damage)
    with Memory.open(home) as mem:
        mem.curate()
    assert not (home / name).exists()
    assert _facts(home) == before
