"""The item wire format: what the host sends is what the journal stores and reopens to."""
from __future__ import annotations

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Var
from attention_cloud.ingest import ItemRecord
from attention_cloud.wire import encode_item, encode_pointer

SOURCE = "/data/s 1.jsonl"


def record(handle: str, pointer: str, text: str, goal: str = "fix the retry") -> ItemRecord:
    return ItemRecord(handle=handle, session="S:1", seq=7, kind="error", role="tool", goal=goal,
                      time="2026-01-02T03:04:05Z", pointer=pointer, text=text,
                      relations=((handle, "touches_file", "a b.py"),
                                 (handle, "mentions", "KeyError")))


@pytest.mark.parametrize("pointer, field", [
    (f"{SOURCE}:12", "=12"),
    (f"{SOURCE}:0", "=0"),
    (f"{SOURCE}:012", f"|{SOURCE}:012"),         # not the canonical line: kept as it is
    (f"{SOURCE}:²", f"|{SOURCE}:²"),
    (f"{SOURCE}#/messages/3", f"|{SOURCE}#/messages/3"),
    (f"{SOURCE}:4#/messages/0", f"|{SOURCE}:4#/messages/0"),
    ("other.jsonl:5", "|other.jsonl:5"),
])
def test_pointer_field(pointer, field):
    assert encode_pointer(pointer, SOURCE) == field


def test_separator_is_absent_from_every_field():
    wire = encode_item(record("it_1", f"{SOURCE}:1", "a\x1fb\x1ec"), SOURCE, "default")
    assert wire[0] not in ("\x1f", "\x1e") and wire.count(wire[0]) == 15


def test_relation_about_another_subject_is_refused():
    rec = record("it_1", f"{SOURCE}:1", "x")
    bad = ItemRecord(**{**rec.__dict__, "relations": (("it_2", "mentions", "x"),)})
    with pytest.raises(ValueError):
        encode_item(bad, SOURCE, "default")


AWKWARD = [
    ("it_a", f"{SOURCE}:3", "plain"),
    ("it_b", f"{SOURCE}#/messages/2", "commit(1).\nb(atc_journal:item2,3).\n'q' \"d\" \\ \x1f\x1e"),
    ("it_c", f"{SOURCE}:007", "lone \ud800 surrogate and \x00 nul"),
    ("it_d", f"{SOURCE}:9", ""),
]


def test_items_read_back_exactly_before_and_after_reopen(home):
    wires = [encode_item(record(h, p, t), SOURCE, "seg") for h, p, t in AWKWARD]
    expected = {h: (p, t.replace("\ud800", "\ufffd")) for h, p, t in AWKWARD}
    with Memory.open(home) as mem:
        mem.lock.acquire()
        (counts,) = mem.pl.once("atc_api:api_ingest_with_marks", wires, [], Var())
        assert counts["new"] == 4
        first = {h: _item(mem, h) for h in expected}
    with Memory.open(home) as mem:
        assert mem.open_info.replayed > 0
        again = {h: _item(mem, h) for h in expected}
    assert first == again
    for handle, (pointer, text) in expected.items():
        item = first[handle]
        assert (item.source, item.text, item.goal, item.session, item.seq) == \
            (pointer, text, "fix the retry", "S:1", 7)
        assert item.source_name == SOURCE and item.segment == "seg"
        # every item is in its session: relation(H, in_session, S) is read from its session field
        assert set(item.relations) == {("touches_file", "a b.py"), ("mentions", "KeyError"),
                                       ("in_session", "S:1")}


def _item(mem: Memory, handle: str):
    item = mem.item(handle)
    assert item is not None, handle
    return item


def test_an_upsert_of_known_items_writes_nothing(home):
    wires = [encode_item(record(h, p, t), SOURCE, "seg") for h, p, t in AWKWARD]
    with Memory.open(home) as mem:
        mem.lock.acquire()
        mem.pl.once("atc_api:api_ingest_with_marks", wires, [], Var())
        before = (home / "journal.pl").read_bytes()
        (counts,) = mem.pl.once("atc_api:api_ingest_with_marks", wires, [], Var())
        assert (counts["new"], counts["unchanged"]) == (0, 4)
        assert (home / "journal.pl").read_bytes() == before   # not even a commit marker
        assert mem.pl.once("atc_journal:journal_watermark", Atom(SOURCE), Var(), Var()) is None
