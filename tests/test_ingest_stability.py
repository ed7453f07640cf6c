"""Handles, sequence numbers and pointers: deterministic, append-stable, resolvable."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from attention_cloud.errors import InputError
from attention_cloud.ingest.open_calls import is_unanswered_call
from attention_cloud.ingest import ItemRecord, parse_path, parse_pointer, parse_text, read_pointer
from attention_cloud.ingest.markdown_log import timed_heading
from attention_cloud.ingest.plain_text import speaker_of
from attention_cloud.samples import sample_paths

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
GOOD_FIXTURES = sorted(p for p in FIXTURES.iterdir() if p.is_file())
ALL_TRANSCRIPTS = GOOD_FIXTURES + sample_paths()


def strings_in(value) -> list[str]:
    """Every string inside a decoded JSON value."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def verbatim(item: ItemRecord, format: str) -> str:
    """The text of the record an item's pointer addresses, read back from the file."""
    record = read_pointer(item.pointer)
    if format in ("text", "markdown"):
        target = parse_pointer(item.pointer)
        lines = Path(target.path).read_text(encoding="utf-8").split("\n")[target.line - 1 :]
        turn = [lines[0]]
        for line in lines[1:]:
            if speaker_of(line) or timed_heading(line):
                break
            turn.append(line)
        return "\n".join(turn)
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except ValueError:
            return record  # a JSON pointer to a string (a system prompt, a submitted patch)
    return "\n".join(strings_in(record))


def evidence(item: ItemRecord) -> list[str]:
    """Words of the item that its verbatim record must contain."""
    if item.kind == "file_op":
        if item.text.startswith("edit ") and ": lines " in item.text:
            # SWE-agent's `edit N:M` changes the file its editor has open: the record names
            # the lines and the new text, the open file is named by an earlier one.
            return item.text.split(" -> ", 1)[1].strip('"').split()[:8]
        return [obj for _, pred, obj in item.relations if pred == "touches_file"]
    text = item.text
    if any(pred == "tool" for _, pred, _ in item.relations) and "\n" in text:
        text = text.split("\n", 1)[1]  # drop the call label the parser put first
    text = re.sub(r"\n\(exit code -?\d+\)\Z", "", text)  # the parser's note of a record's exit code
    text = re.sub(r"\n?\(action rejected\)\Z", "", text)  # and of OpenHands V1's rejection
    if text == "(no patch submitted)":  # the parser's words for an empty submission
        return []
    if text.startswith("[forwarded from "):  # Telegram: whose words a forwarded message are
        text = text.replace("[forwarded from ", "", 1).replace("]", "", 1)
    if "[attached: " in text:  # Slack, Discord, Telegram: the files the message shares, by name
        said, _, names = text.partition("[attached: ")
        return said.split()[:8] + names.rstrip("]").split(", ")
    if "[shares a photo: " in text:  # LoCoMo: the BLIP caption the parser puts after the words
        said, _, caption = text.partition("[shares a photo: ")
        return said.split()[:8] + caption.rstrip("]").split()[:8]
    return text.split()[:8]


@pytest.mark.parametrize("path", ALL_TRANSCRIPTS, ids=lambda p: p.name)
def test_every_pointer_addresses_the_verbatim_record(path):
    result = parse_path(path)
    assert result.items
    for item in result.items:
        source = verbatim(item, result.format)
        for word in evidence(item):
            assert word in source, (item.pointer, word)


@pytest.mark.parametrize("path", ALL_TRANSCRIPTS, ids=lambda p: p.name)
def test_parsing_is_deterministic_and_handles_are_distinct(path):
    first, second = parse_path(path), parse_path(path)
    assert first == second
    handles = [i.handle for i in first.items]
    assert len(set(handles)) == len(handles)
    assert all(re.fullmatch(r"it_[0-9a-f]{16}", h) for h in handles)
    in_memory = parse_text(path.read_bytes(), name=str(path))
    assert [i.handle for i in in_memory.items] == handles


def test_handles_do_not_depend_on_where_the_file_lives(tmp_path):
    original = FIXTURES / "claude_code_session.jsonl"
    moved = tmp_path / "elsewhere" / original.name
    moved.parent.mkdir()
    shutil.copy(original, moved)
    assert [i.handle for i in parse_path(moved).items] == [
        i.handle for i in parse_path(original).items
    ]


def comparable(item: ItemRecord) -> tuple:
    return (
        item.handle,
        item.session,
        item.seq,
        item.kind,
        item.role,
        item.goal,
        item.time,
        item.text,
        item.relations,
    )


@pytest.mark.parametrize(
    "name",
    [
        "claude_code_session.jsonl",
        "claude_code_two_sessions.jsonl",
        "openai_messages.jsonl",
        "transcript.txt",
        "transcript.md",
    ],
)
def test_appending_keeps_earlier_items_unchanged(tmp_path, name):
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    target = tmp_path / name
    if name.endswith((".txt", ".md")):
        # A text turn runs to the next speaker line: grow the file a whole turn at a time.
        cuts = [parse_pointer(i.pointer).line - 1 for i in parse_path(FIXTURES / name).items]
    else:
        cuts = list(range(1, len(lines)))
    previous: list[ItemRecord] = []
    for cut in cuts + [len(lines)]:
        target.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
        try:
            items = parse_path(target).items
        except InputError:
            continue  # a prefix with nothing parseable yet
        assert [comparable(i) for i in items[: len(previous)]] == [comparable(i) for i in previous]
        assert [i.pointer for i in items[: len(previous)]] == [i.pointer for i in previous]
        # a call cut off from its result is kept as one, last, until the result is appended
        previous = [i for i in items if not is_unanswered_call(i.relations)]
    assert [i.handle for i in previous] == [i.handle for i in parse_path(FIXTURES / name).items]


def test_truncated_last_line_becomes_an_item_once_complete(tmp_path):
    lines = (FIXTURES / "claude_code_two_sessions.jsonl").read_text().split("\n")[:5]
    target = tmp_path / "growing.jsonl"
    target.write_text("\n".join(lines[:4]) + "\n" + lines[4][:50])  # a writer cut off mid-line
    partial = parse_path(target)
    assert [line for line, _ in partial.skipped] == [5]
    assert partial.skipped[0][1].startswith("truncated last line: invalid JSON")
    target.write_text("\n".join(lines) + "\n")
    complete = parse_path(target)
    assert complete.skipped == []
    assert [comparable(i) for i in complete.items[:4]] == [comparable(i) for i in partial.items]
    assert complete.items[4].text == "A record without a session id."


def test_identical_records_at_different_lines_get_different_handles():
    text = "User: Retry the deploy.\nAssistant: Retried.\nUser: Retry the deploy.\nAssistant: Retried.\n"
    handles = [i.handle for i in parse_text(text, name="dup.txt").items]
    assert len(set(handles)) == 4


def test_a_repeated_record_is_kept_once_and_reported():
    line = json.dumps(
        {
            "type": "user",
            "uuid": "same",
            "sessionId": "s",
            "message": {"role": "user", "content": "Bump the version."},
        }
    )
    result = parse_text(f"{line}\n{line}\n", name="repeat.jsonl")
    assert [i.text for i in result.items] == ["Bump the version."]
    assert result.skipped == [(2, "duplicate of record 1")]


def test_pointer_parsing_and_errors(tmp_path):
    assert parse_pointer("/a/b.jsonl:12") == parse_pointer("/a/b.jsonl:12")
    assert (parse_pointer("/a/b.jsonl:12").path, parse_pointer("/a/b.jsonl:12").line) == (
        "/a/b.jsonl",
        12,
    )
    pointer = parse_pointer("/x/c.json#/messages/3")
    assert (pointer.path, pointer.line, pointer.json_pointer) == ("/x/c.json", None, "/messages/3")
    pointer = parse_pointer("/x/d.jsonl:2#/messages/0")
    assert (pointer.path, pointer.line, pointer.json_pointer) == ("/x/d.jsonl", 2, "/messages/0")
    with pytest.raises(InputError, match="not a pointer"):
        parse_pointer("/x/no-line.jsonl")
    short = tmp_path / "short.txt"
    short.write_text("User: hi\n")
    with pytest.raises(InputError) as caught:
        read_pointer(f"{short}:5")
    assert str(caught.value) == f"{short}:5: the file has fewer than 5 lines"
    doc = tmp_path / "doc.json"
    doc.write_text(json.dumps({"messages": [{"a~b/c": 1}]}))
    assert read_pointer(f"{doc}#/messages/0/a~0b~1c") == 1
    with pytest.raises(InputError, match="no '7'"):
        read_pointer(f"{doc}#/messages/7")


def _chat(path: Path, *turns: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    roles = ["user", "assistant"] * len(turns)
    path.write_text(json.dumps([{"role": r, "content": t} for r, t in zip(roles, turns)]))
    return path


def test_files_of_one_name_in_two_folders_are_two_sessions(tmp_path):
    from attention_cloud import Memory
    from attention_cloud.bridge import Var

    ask = "Help me debug the deploy of the billing service"
    jan = _chat(tmp_path / "r" / "2026-01" / "chat.json", ask, "The migration timed out.")
    feb = _chat(tmp_path / "r" / "2026-02" / "chat.json", ask, "The TLS certificate expired.")
    mar = _chat(tmp_path / "r" / "2026-03" / "chat.json", ask, "The disk was full.")
    home = tmp_path / "home"
    with Memory.open(home, create=True) as mem:
        report = mem.ingest([jan.parent, feb.parent])  # one call
        assert report.new == 4
        report = mem.ingest([mar.parent])               # a later call: jan still exists
        assert report.new == 2

        found: dict[str, set[str]] = {}
        for handle, session in mem.pl.solutions("atc_journal:item_session", Var(), Var()):
            (source,) = mem.pl.once("atc_journal:item_source", handle, Var())
            found.setdefault(str(session), set()).add(str(source).split("#")[0])
        assert len(found) == 3 and all(len(files) == 1 for files in found.values())
        assert found["chat"] == {str(jan)}  # the first keeps the plain name
        assert all(s.startswith("chat~") for s in found if s != "chat")
    # a folder moved (and its file grown) keeps its session and its items' handles
    moved = tmp_path / "moved" / "chat.json"
    moved.parent.mkdir()
    jan.rename(moved)
    _chat(moved, ask, "The migration timed out.", "Then raise the timeout to ten minutes.")
    with Memory.open(home) as mem:
        report = mem.ingest([moved.parent])
        assert (report.new, report.unchanged) == (1, 2)


def test_a_file_told_apart_keeps_its_session_when_the_other_is_gone(tmp_path):
    from attention_cloud import Memory

    ask = "Help me debug the deploy of the billing service"
    jan = _chat(tmp_path / "r" / "2026-01" / "chat.json", ask, "The migration timed out.")
    feb = _chat(tmp_path / "r" / "2026-02" / "chat.json", ask, "The TLS certificate expired.")
    with Memory.open(tmp_path / "home", create=True) as mem:
        assert mem.ingest([jan.parent, feb.parent]).new == 4
        jan.unlink()
        _chat(feb, ask, "The TLS certificate expired.", "Renew it with the ACME client.")
        report = mem.ingest([feb.parent])
        assert (report.new, report.unchanged) == (1, 2)  # its two items kept, one new


def test_files_named_by_relative_paths_are_not_told_apart_from_themselves(tmp_path, monkeypatch):
    # pointers hold absolute paths; a file given by a relative path is the same file
    from attention_cloud import Memory

    ask = "Help me debug the deploy of the billing service"
    _chat(tmp_path / "r" / "a" / "chat.json", ask, "The migration timed out.")
    _chat(tmp_path / "r" / "b" / "notes.json", ask, "The TLS certificate expired.")
    monkeypatch.chdir(tmp_path)
    with Memory.open(tmp_path / "home", create=True) as mem:
        assert mem.ingest([Path("r")]).new == 4
        assert mem._distinct_default_sessions(["r/a/chat.json", "r/b/notes.json"]) == {}
        _chat(tmp_path / "r" / "a" / "chat.json", ask, "The migration timed out.", "Raise the timeout.")
        report = mem.ingest([Path("r")])
        assert (report.new, report.unchanged, report.files_unchanged) == (1, 2, 1)
