"""Receipts that prove what they say: every fact's pointer resolves to its verbatim source.

scripts/bench/receipt_audit.py ingests every input family, curates, hydrates goals drawn from
the items and checks each fact of each receipt against the file (pointer, speaker, time), then
the same after the files are ingested again, moved to another folder, grown, and after an item
is forgotten. These tests run it on the fixtures (the real data where the bench runs it) and
hold the defects it found.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import InputError
from attention_cloud.ingest.pointers import read_pointer
from attention_cloud.show import show_record

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import receipt_audit  # noqa: E402

CHAT = """\
[2023-05-01 09:12] Priya: I signed up for the pottery class at the Clayhouse studio.
[2023-05-01 09:14] Tomás: Is that the one near the river? I took a glazing workshop there.
[2023-05-04 19:40] Priya: The teacher, Ingrid, said to bring an apron next time.
"""


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}')
    return home


def _chat_in(tmp_path: Path, folder: str = "a", chat: str = CHAT) -> Path:
    """``chat`` written to ``folder``/chat.txt under ``tmp_path``."""
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "chat.txt").write_text(chat, encoding="utf-8")
    return tmp_path / folder / "chat.txt"


def _sources(mem: Memory) -> dict[str, str]:
    return {r["H"]: r["P"] for r in mem.query("item(H), item_source(H, P)").rows}


def test_a_moved_folders_items_point_at_the_file_where_it_is_now(tmp_path):
    """README: a file that comes back from another folder (the old one gone) keeps its
    session and handles; its items' pointers must follow it, or every receipt and `atc show
    --source` names a file that is not there (before: 'cannot read (No such file ...)')."""
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([_chat_in(tmp_path)])
        before = _sources(mem)
        shutil.move(tmp_path / "a", tmp_path / "b")
        report = mem.ingest([tmp_path / "b" / "chat.txt"])
        after = _sources(mem)
        assert report.new == 0
        assert set(after) == set(before) and len(after) == 3
        for handle, pointer in after.items():
            assert pointer.startswith(str(tmp_path / "b" / "chat.txt") + ":")
            assert pointer.rsplit(":", 1)[1] == before[handle].rsplit(":", 1)[1]
            assert mem.item(handle).text in read_pointer(pointer)
            assert mem.item(handle).text in show_record(mem, handle, "l0", True)["verbatim"]
        receipt = mem.hydrate("pottery class apron", budget=800).receipt
        assert receipt["facts"]
        assert all(f["source"].startswith(str(tmp_path / "b")) for f in receipt["facts"])


def test_a_copy_beside_the_file_leaves_its_items_pointing_at_the_first(tmp_path):
    """The same transcript at a second path while the first is still there: the first's items
    keep the pointers they had (README: the copy is a session of its own, `chat~` and 8 hex
    digits), so a copy does not move memory's sources around."""
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([_chat_in(tmp_path)])
        before = _sources(mem)
        shutil.copytree(tmp_path / "a", tmp_path / "b")
        mem.ingest([tmp_path / "b" / "chat.txt"])
        after = _sources(mem)
        assert {h: after[h] for h in before} == before
        assert len(after) == 2 * len(before)


@pytest.mark.parametrize("family", [f.name for f in receipt_audit.families(real=False)])
def test_every_fact_of_every_receipt_resolves_to_its_source(family, tmp_path):
    """The whole audit on the fixtures of each family: no failure, every fact resolved."""
    chosen = next(f for f in receipt_audit.families(real=False) if f.name == family)
    tally = receipt_audit.audit_family(chosen, tmp_path / family, goals=3)
    assert tally.failures == []
    assert tally.receipts >= 6 and tally.facts > 0
    assert tally.resolved == tally.facts
    assert tally.speaker_ok == tally.speaker_checked
    assert tally.time_ok == tally.time_checked


def test_a_moved_file_told_apart_from_another_of_its_name_keeps_its_session(tmp_path):
    """README: a file that comes back from another folder keeps its session and handles. A
    file told apart from another of its name (`chat~` and 8 hex digits of its path) took a
    new session at its new path instead: its items were read again as new, beside the old ones
    whose pointers name a file that is gone (each turn twice in memory)."""
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([_chat_in(tmp_path, "x")])
        mem.ingest([_chat_in(tmp_path, "y", "Dana: the river route is flooded.\n"
                                            "Lee: take the bridge over the weir then.\n")])
        before = _sources(mem)
        shutil.move(tmp_path / "y", tmp_path / "z")
        report = mem.ingest([tmp_path / "z" / "chat.txt"])
        after = _sources(mem)
        assert report.new == 0 and set(after) == set(before)
        moved = {h for h, p in before.items() if "/y/" in p}
        assert len(moved) == 2
        assert all(after[h].startswith(str(tmp_path / "z" / "chat.txt")) for h in moved)
        sessions = {r["S"] for r in mem.query("item(H), item_session(H, S)").rows}
        assert len(sessions) == 2


def test_two_gone_files_of_one_name_leave_a_new_one_apart(tmp_path):
    """Two told-apart files of one name both gone: which one a new file of that name is cannot
    be told, so it is told apart under its own path, never mixed into either session."""
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([_chat_in(tmp_path, "x")])
        for folder in ("y", "w"):
            mem.ingest([_chat_in(tmp_path, folder, f"Dana: the {folder} route is open.\n"
                                                   f"Lee: good, the {folder} one it is.\n")])
        shutil.rmtree(tmp_path / "y")
        shutil.rmtree(tmp_path / "w")
        mem.ingest([_chat_in(tmp_path, "v", "Lee: a new chat.\nDana: about the kiln.\n")])
        sessions = {r["S"] for r in mem.query("item(H), item_session(H, S)").rows}
        assert len(sessions) == 4


def test_the_audit_counts_a_pointer_whose_record_changed_as_unresolved(tmp_path):
    """The audit can fail: a transcript rewritten under memory (other turns at the same lines)
    leaves each fact's pointer readable but holding another text, and each is counted so."""
    (tmp_path / "chat.txt").write_text(CHAT, encoding="utf-8")
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([tmp_path / "chat.txt"])
        (tmp_path / "chat.txt").write_text(
            "".join(f"Lee: line {n} of another chat about kites.\n" for n in range(3)),
            encoding="utf-8")
        tally = receipt_audit.Tally()
        receipt_audit.Auditor(mem, tally).receipt(
            mem.hydrate("pottery class apron", budget=800).receipt)
        assert tally.facts > 0 and tally.resolved == 0
        assert all("does not hold its" in line for line in tally.failures
                   if "speaker" not in line and "time" not in line)


def test_show_source_of_a_moved_file_says_how_to_follow_it(tmp_path):
    """Before the moved file is ingested again, `atc show --source` cannot read it: the one
    line says so and how its items follow the file (before: only 'no such file')."""
    with Memory.open(_home(tmp_path)) as mem:
        mem.ingest([_chat_in(tmp_path)])
        handle = next(iter(_sources(mem)))
        shutil.move(tmp_path / "a", tmp_path / "b")
        with pytest.raises(InputError, match=r"no such file; moved\? `atc ingest` it where it "
                                             r"is now and its items point there\)\Z"):
            show_record(mem, handle, "l0", True)
        mem.ingest([tmp_path / "b" / "chat.txt"])
        assert mem.item(handle).text in show_record(mem, handle, "l0", True)["verbatim"]
