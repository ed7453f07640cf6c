"""Long messages and tool outputs are kept whole as L0 (up to ``max_item_chars``), under the
handles the head-and-tail versions gave them, so a home those versions wrote re-ingests its
transcripts as an upsert.

``tests/fixtures/long_v1/`` holds a Claude Code session whose user goal, assistant answer, tool
output and error are longer than the old cut (2,000 characters; 1,200 for tool output), each
with its fact in the middle (``transcript.jsonl``), and the journal of a home that main at
b35219d (the last head-and-tail version) wrote from it: ingested with ``source=
"transcript.jsonl"`` and curated with the ``hash`` embedder (``journal.pl``), with the handle,
kind and L0 text of every item that code gave (``items.json``). ``make_fixture.py`` writes them:
``python make_fixture.py transcript.jsonl`` (the transcript) and, with that old checkout's
``host`` on PYTHONPATH, ``python make_fixture.py transcript.jsonl .`` (the home's files).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import HomeError, UsageError
from attention_cloud.home import write_config
from attention_cloud.ingest import parse_path, parse_text
from attention_cloud.ingest.collector import DEFAULT_MAX_ITEM_CHARS

FIXTURE = Path(__file__).parent / "fixtures" / "long_v1"
TRANSCRIPT = FIXTURE / "transcript.jsonl"
OLD_ITEMS = json.loads((FIXTURE / "items.json").read_text(encoding="utf-8"))
ANSWER = "The handle to tag in the spring campaign is @jessica_poole_jewellery"


def source_texts() -> dict[str, str]:
    """The whole text of every message and tool output of the transcript, by record uuid."""
    out = {}
    for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = record["message"]["content"]
        if isinstance(content, str):
            out[record["uuid"]] = content
        for block in content if isinstance(content, list) else ():
            out[record["uuid"]] = block.get("text") or block.get("content") or ""
    return out


def items(mem: Memory) -> list[list[str]]:
    """Every item's handle, kind and L0 text, sorted (the form of items.json)."""
    rows = mem.query("findall([H,K,T], (item(H), item_kind(H,K), item_text(H,T)), X)",
                     limit=1).rows
    return sorted(rows[0]["X"])


@pytest.fixture
def old_home(home_from_journal) -> Path:
    return home_from_journal(FIXTURE / "journal.pl")


def grown_copy(folder: Path, extra: str) -> Path:
    """The transcript, copied to ``folder`` with one more assistant message ``extra``."""
    records = [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]
    last = dict(records[-1], uuid="l008", parentUuid="l007",
                timestamp="2026-02-03T10:08:00.000Z",
                message={"role": "assistant", "content": [{"type": "text", "text": extra}]})
    path = folder / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records + [last]), encoding="utf-8")
    return path


def long_message(middle: str) -> str:
    lines = [f"Paragraph {i}: the follow-up on listing {i * 13 % 89} is scheduled for week {i}."
             for i in range(40)]
    lines.insert(20, middle)
    return " ".join(lines)


# ----------------------------------------------------------------------------- parsing


def test_long_texts_are_whole_under_the_handles_the_old_cut_gave() -> None:
    parsed = parse_path(TRANSCRIPT)
    whole = source_texts()
    by_handle = {handle: (kind, text) for handle, kind, text in OLD_ITEMS}
    assert sorted(i.handle for i in parsed.items) == sorted(by_handle)  # same items, same ids
    longer = 0
    for item in parsed.items:
        old_kind, old_text = by_handle[item.handle]
        assert item.kind == old_kind
        line = int(item.pointer.rsplit(":", 1)[1])
        record = json.loads(TRANSCRIPT.read_text(encoding="utf-8").splitlines()[line - 1])
        assert whole[record["uuid"]].strip() in item.text  # verbatim, the middle included
        if len(item.text) > len(old_text):
            longer += 1
            assert " … " in old_text and len(old_text) <= 2003 + 80  # what the cut kept
    assert longer == 4  # the goal, the answer, the tool output and the error
    answer = next(i for i in parsed.items if ANSWER in i.text)
    assert answer.kind == "conclusion" and ANSWER not in by_handle[answer.handle][1]


def test_a_text_over_max_item_chars_keeps_head_and_tail_and_marks_the_cut() -> None:
    text = "BEGIN " + " ".join(f"w{i}" for i in range(20_000)) + " FINISH"
    line = json.dumps({"type": "assistant", "uuid": "a1", "sessionId": "s",
                       "message": {"role": "assistant",
                                   "content": [{"type": "text", "text": text}]}})
    default = parse_text(line + "\n", name="t.jsonl").items[0]
    small = parse_text(line + "\n", name="t.jsonl", max_item_chars=4000).items[0]
    assert default.handle == small.handle  # the cap never changes identity
    for item, cap in ((default, DEFAULT_MAX_ITEM_CHARS), (small, 4000)):
        head, mark, tail = item.text.split("\n")
        assert text.startswith(head) and text.endswith(tail)
        assert len(head) + len(tail) == cap
        assert mark == (f"[… {len(text) - cap:,} characters cut here (over the {cap:,}-character "
                        "limit, max_item_chars); the whole text is at the item's source …]")
    short = parse_text(line.replace(text, "a short answer") + "\n", name="t.jsonl")
    assert short.items[0].text == "a short answer"


@pytest.mark.parametrize("bad", [0, 1999, "32000", True, 2.5e4])
def test_a_bad_max_item_chars_is_refused(bad, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="max_item_chars must be a whole number of characters, "
                                         "at least 2,000"):
        parse_text("hello\n", name="t.txt", max_item_chars=bad)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"max_item_chars": bad}))
    with pytest.raises(HomeError, match="config.json: max_item_chars must be a whole number of "
                                        "characters, at least 2000"):
        Memory.open(home, create=False)


def test_max_item_chars_in_config_caps_what_ingest_keeps(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash", "max_item_chars": 2500})
    with Memory.open(home) as mem:
        mem.ingest([TRANSCRIPT])
        lengths = {kind: len(text) for _, kind, text in items(mem)}
        assert max(lengths.values()) <= 2500 + 150  # the line marking the cut
        assert lengths["error"] > 2500  # over the cap: cut and marked
        assert "characters cut here" in mem.item(
            next(h for h, k, _ in items(mem) if k == "error")).text


# ------------------------------------------------------- a home the head-and-tail code wrote


def test_reingesting_into_an_old_home_is_an_upsert(old_home: Path, tmp_path: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        assert items(mem) == OLD_ITEMS
        # the same file under the name it was ingested as: its watermark says unchanged
        same = mem.ingest([TRANSCRIPT], source="transcript.jsonl")
        assert (same.files_unchanged, same.new) == (1, 0)
        # the same records read again (another copy of the file): every handle is known
        copy = tmp_path / "copy.jsonl"
        shutil.copy(TRANSCRIPT, copy)
        again = mem.ingest([copy])
        assert (again.new, again.unchanged) == (0, len(OLD_ITEMS))
        assert items(mem) == OLD_ITEMS  # nothing doubled, nothing orphaned, texts as they were
        mem.curate()
        assert items(mem) == OLD_ITEMS


def test_an_old_home_follows_a_growing_transcript(old_home: Path, tmp_path: Path) -> None:
    """What `atc watch` and the Claude Code hooks do: the file grows, the whole file is read
    again (its digest changed), earlier records are upserts, and the new one is whole."""
    extra = long_message("The campaign photographer is Amara Okafor, booked for 14 March.")
    grown = grown_copy(tmp_path, extra)
    with Memory.open(old_home, create=False) as mem:
        before = {handle for handle, _, _ in items(mem)}
        # a half-written last line is left for later, as the watcher does
        text = grown.read_text(encoding="utf-8")
        grown.write_text(text[:-40], encoding="utf-8")
        first = mem.ingest([grown], unfinished=[grown])
        assert (first.new, first.unchanged) == (0, len(OLD_ITEMS))
        grown.write_text(text, encoding="utf-8")
        report = mem.ingest([grown], unfinished={grown: len(text.encode("utf-8"))})
        assert (report.new, report.unchanged) == (1, len(OLD_ITEMS))
        after = items(mem)
        assert {h for h, _, _ in after} - before == set(report.new_handles)
        assert [row for row in after if row[0] in before] == OLD_ITEMS
        (new,) = [text for handle, _, text in after if handle not in before]
        assert new == extra  # kept whole: the photographer's name is in no cut
        mem.curate()
        frame = mem.hydrate("who is the campaign photographer", budget=200)
        assert "Amara Okafor" in frame.text


# ------------------------------------------------------------------------ frames


def test_an_excerpt_brings_the_middle_of_a_long_answer_into_a_small_frame(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([TRANSCRIPT])
        mem.curate()
        answer = next(h for h, _, text in items(mem) if ANSWER in text)
        frame = mem.hydrate("which instagram handle to tag in the spring campaign", budget=250)
        (fact,) = [f for f in frame.facts if f.handle == answer]
        assert fact.level == "l0" and fact.excerpt is not None  # not whole: an excerpt of it
        assert ANSWER in fact.text
        assert fact.tokens < 120
