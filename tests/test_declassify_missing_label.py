"""`atc declassify` of a label the record does not carry: one plain line naming the record and
the label, exit 1, the journal (its bytes too) and the audit log unchanged (it was Prolog's
"label `restriction-pii' does not exist", exit 2)."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config


def run(home: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


@pytest.fixture
def owned(home: Path) -> tuple[Path, str]:
    """A home owned by alice holding one note (restricted private) and a principal bob."""
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        handle = mem.remember("the staging database password rotates monthly").handle
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                 ["label", handle, "--restrict", "private"]):
        assert run(home, *args).exit_code == 0
    return home, handle


def _state(home: Path, handle: str) -> tuple[str, bytes, bytes]:
    """The record's labels as `atc label --show` reads them back (from the journal), the
    audit log, and the journal's bytes: a batch that failed part-way is cut from the
    journal (it was marked with an `abort(N)` line: the same state, other bytes)."""
    shown = run(home, "label", handle, "--show")
    assert shown.exit_code == 0, shown.output
    audit = home / "audit.jsonl"
    return (shown.stdout, audit.read_bytes() if audit.exists() else b"",
            (home / "journal.pl").read_bytes())


@pytest.mark.parametrize("args, said", [
    (["--restriction", "pii"], "{h}: carries no restriction pii to lift"),
    (["--restriction", "private", "--restriction", "pii"],
     "{h}: carries no restriction pii to lift"),
    (["--all-readers"], "{h}: names no readers to lift (anyone a grant reaches reads it)"),
    (["--reader", "bob"], "{h}: names no readers to widen (anyone a grant reaches reads it)"),
])
def test_declassifying_a_label_the_record_lacks_is_one_line_and_changes_nothing(owned, args,
                                                                                said):
    home, handle = owned
    before = _state(home, handle)
    out = run(home, "declassify", handle, *args, "--why", "reviewed")
    assert (out.exit_code, out.stdout, out.stderr) == (2, "", f"atc: {said.format(h=handle)}\n")
    assert _state(home, handle) == before
