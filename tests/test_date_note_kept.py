"""A warm process's date notes follow what memory holds: a frame written after retention
dropped a turn's verbatim text, or after the turn was forgotten, is the frame a fresh process
writes, and no note quoting the dropped words stays held."""
from __future__ import annotations

from attention_cloud.bridge import Atom, Var
from attention_cloud.curation import apply_retention

GOAL = "why do processor retries fail"


def day_item(mem) -> str:
    """The sample turn that says "yesterday" (its note: "[yesterday = Sun 2026-01-11]")."""
    (handle,) = {r["H"] for r in mem.query(
        'relation(H, mentions_date, D), item_text(H, T), sub_string(T, _, _, _, "yesterday")'
    ).rows}
    return handle


def fact_text(frame, handle: str) -> str:
    (text,) = [f.text for f in frame.facts if f.handle == handle]
    return text


def notes_held(mem, handle: str) -> int:
    """The notes of ``handle`` this process keeps between frames (none once it is gone)."""
    return len(mem.pl.solutions("atc_hydrate:date_note_known_", Atom(handle), Var(), Var(), Var()))


def test_a_note_quotes_no_words_retention_dropped(curated_samples):
    """Before: a frame made after retention dropped L0 still wrote "[yesterday = Sun
    2026-01-11]" (the expired text's words) where a fresh process writes "[Sun 2026-01-11]"."""
    mem = curated_samples
    handle = day_item(mem)
    before = mem.hydrate(GOAL, budget=1200)
    assert "[yesterday = Sun 2026-01-11]" in fact_text(before, handle)
    apply_retention(mem, {"l0": 30}, now=1_800_000_000)  # 2027-01-15: every L0 expires
    assert not mem.query(f"rung({handle}, l0, _)").rows
    after = mem.hydrate(GOAL, budget=1200)
    text = fact_text(after, handle)
    assert "[Sun 2026-01-11]" in text and "yesterday =" not in text


def test_a_forgotten_turns_note_is_not_kept(curated_samples):
    """Before: the note of a forgotten turn, words of its verbatim text, stayed in the process
    for as long as it ran; now the next frame drops it."""
    mem = curated_samples
    handle = day_item(mem)
    mem.hydrate(GOAL, budget=1200)
    assert notes_held(mem, handle) == 1
    mem.forget(handle)
    frame = mem.hydrate(GOAL, budget=1200)
    assert handle not in {f["handle"] for f in frame.receipt["facts"]}
    assert notes_held(mem, handle) == 0


def test_a_write_keeps_the_notes_of_the_other_turns(curated_samples, monkeypatch):
    """A note is made by the host from the turn's text (~0.5 ms each): a write between two
    frames (a turn captured, a note remembered) leaves the other turns' notes as they were,
    so the next frame makes none of them again."""
    import attention_cloud.ingest.timefmt as timefmt

    mem = curated_samples
    handle = day_item(mem)
    mem.hydrate(GOAL, budget=1200)
    made: list[str] = []
    date_note = timefmt.date_note
    monkeypatch.setattr(timefmt, "date_note",
                        lambda text, *rest: made.append(text) or date_note(text, *rest))
    mem.remember("Lunch moved to the small meeting room.")
    frame = mem.hydrate(GOAL, budget=1200)
    assert "[yesterday = Sun 2026-01-11]" in fact_text(frame, handle)
    assert made == []
