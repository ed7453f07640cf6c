"""Retention per level: old rungs expire, skeletons stay, every item still renders."""
from __future__ import annotations

import pytest

from attention_cloud import Memory, UsageError
from attention_cloud.curation import apply_retention
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir


@pytest.fixture
def old_memory(curated_samples):
    """The bundled samples, ingested and curated: the sample sessions are from January 2026."""
    return curated_samples


def test_expired_l0_renders_from_the_rungs_that_remain(old_memory):
    items = len(old_memory.query("item(H)", limit=1000).rows)
    dropped = apply_retention(old_memory, {"l0": 30}, now=1_800_000_000)  # 2027-01-15
    assert dropped == items
    assert not old_memory.query("item(H), rung(H, l0, _)").rows
    assert len(old_memory.query("item(H), rung(H, l3, _)", limit=1000).rows) == items
    frame = old_memory.hydrate("retry policy for processor timeouts", budget=1500)
    assert frame.receipt["facts"]
    assert all(f["level"] != "L0" for f in frame.receipt["facts"])
    handle = frame.receipt["facts"][0]["handle"]
    assert old_memory.item(handle) is not None  # the item and its pointer stay


def test_recent_items_and_skeletons_never_expire(old_memory):
    assert apply_retention(old_memory, {"l1": 3650}) == 0
    with pytest.raises(UsageError):
        apply_retention(old_memory, {"l3": 1})


def test_retention_from_config_runs_with_curate(home):
    write_config(home, {"embedder": "none", "retention": {"l1": 1}})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()])
        report = mem.curate()
        assert report.expired > 0
        assert not mem.query("item(H), rung(H, l1, _)").rows


def test_show_of_an_item_whose_l0_expired_prints_what_remains(old_memory):
    """`atc show HANDLE` (L0 by default) and `--source` still work once retention dropped L0:
    the item renders from its most detailed remaining rung and keeps its pointer."""
    from attention_cloud.show import show_record

    handle = "it_50a40759a4205f7e"  # the sample's retry decision
    apply_retention(old_memory, {"l0": 30}, now=1_800_000_000)
    shown = show_record(old_memory, handle, "l0", verbatim=False)
    assert shown["level"] == "L1" and "exponential backoff" in shown["text"]
    source = show_record(old_memory, handle, "l0", verbatim=True)
    assert "exponential backoff with jitter" in source["verbatim"]


def test_arcs_of_items_whose_l0_expired_stay_when_their_session_grows(home, tmp_path):
    """Curation forms a growing session's arcs again from its items' texts; an arc whose
    members' L0 retention dropped cannot be formed again, and must not be dropped either:
    its rungs are what remains of those turns."""
    write_config(home, {"embedder": "hash"})
    chat = tmp_path / "2025-01-02-standup.md"
    body = ("## User (09:00 UTC)\nplease fix the login bug\n\n"
            "## Assistant (09:01 UTC)\nlooking at auth.py now\n\n"
            "## Assistant (09:02 UTC)\nthe session check was inverted\n\n")
    chat.write_text(body, encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        mem.curate()
        arcs = {r["A"] for r in mem.query("arc(A)").rows}
        assert len(arcs) == 1
        apply_retention(mem, {"l0": 30}, now=1_800_000_000)
        chat.write_text(body + "## User (09:10 UTC)\nnow the logout page\n\n"
                        "## Assistant (09:11 UTC)\nfixed it too\n", encoding="utf-8")
        mem.ingest([chat])
        mem.curate()
        assert arcs <= {r["A"] for r in mem.query("arc(A)").rows}
