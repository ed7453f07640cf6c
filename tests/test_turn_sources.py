"""The verbatim source of a turn written over several lines (plain text, markdown logs,
WhatsApp): its pointer names its first and last lines (``FILE:<first>-<last>``), ``atc show
--source`` prints every line of it, and a home written when pointers named the first line alone
keeps working."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import InputError
from attention_cloud.home import write_config
from attention_cloud.ingest import parse_pointer, read_pointer

TEXT = ("User: The nightly export crashes with MemoryError on big tables.\n"
        "Can you make it stream rows?\n"
        "\n"
        "Assistant: It called fetchall(); I switched to a server-side cursor\n"
        "that fetches 5000 rows at a time.\n"
        "\n"
        "  \n"
        "User: Also gzip the output.\n")
MARKDOWN = ("# Deploy standup\n"
            "\n"
            "## User (03:56 UTC)\n"
            "Why does the nightly export time out on the orders table?\n"
            "\n"
            "## Assistant (03:57 UTC)\n"
            "It loads every row into memory first;\n"
            "streaming in batches of 10,000 keeps memory flat.\n"
            "\n"
            "## User (04:05 UTC)\n"
            "Ship the batched export tonight.\n")
WHATSAPP = ("08/05/2023, 13:56 - Priya: Plan for Saturday:\n"
            "- 7am river loop\n"
            "\n"
            "- pancakes after\n"
            "\n"
            "08/05/2023, 13:57 - Tomás: I'll bring the gels\n")
# (file name, its text, the first line of the multi-line turn, its last, a phrase of it)
CASES = [("chat.txt", TEXT, 4, 5, "server-side cursor"),
         ("2026-01-02-standup.md", MARKDOWN, 6, 8, "into memory first"),
         ("WhatsApp Chat with Running Club.txt", WHATSAPP, 1, 4, "Plan for Saturday")]


def _atc(home: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


def _handle_of(home: Path, phrase: str) -> str:
    with Memory.open(home) as mem:
        rows = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{phrase}")').rows
    assert len(rows) == 1, rows
    return rows[0]["H"]


@pytest.mark.parametrize("name,text,first,last,phrase", CASES)
def test_show_source_prints_every_line_of_a_turn(home, tmp_path, name, text, first, last, phrase):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert _atc(home, "ingest", str(path)).exit_code == 0
    handle = _handle_of(home, phrase)
    shown = _atc(home, "show", handle, "--source", "--format", "json")
    assert shown.exit_code == 0, shown.output
    record = json.loads(shown.output)
    assert record["source"] == f"{path}:{first}-{last}"
    assert "source_now" not in record  # it has not moved
    # the turn as written, from its first line to its last with text: not the next turn's
    assert record["verbatim"] == "\n".join(text.split("\n")[first - 1:last])
    plain = _atc(home, "show", handle, "--source")
    assert plain.exit_code == 0 and text.split("\n")[last - 1] in plain.output


def test_a_turn_on_one_line_keeps_the_pointer_of_one_line(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    from attention_cloud.ingest import parse_path

    pointers = [i.pointer for i in parse_path(path).items]
    assert pointers == [f"{path}:1-2", f"{path}:4-5", f"{path}:8"]
    assert read_pointer(pointers[2]) == "User: Also gzip the output."


def test_a_turn_edited_below_its_first_line_is_refused(home, tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    assert _atc(home, "ingest", str(path)).exit_code == 0
    handle = _handle_of(home, "server-side cursor")
    path.write_text(TEXT.replace("5000 rows", "500 rows"), encoding="utf-8")
    shown = _atc(home, "show", handle, "--source")
    assert shown.exit_code == 1 and "changed since it was ingested" in shown.output
    assert len(shown.output.strip().splitlines()) == 1


def test_a_line_range_that_is_not_one_is_a_one_line_error(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    with pytest.raises(InputError, match="ends before it starts"):
        parse_pointer(f"{path}:5-4")
    with pytest.raises(InputError, match="fewer than 40 lines"):
        read_pointer(f"{path}:7-40")
    assert parse_pointer(f"{path}:4-5").start == parse_pointer(f"{path}:4").start


def test_a_home_whose_pointers_name_a_turn_s_first_line_keeps_working(home, tmp_path,
                                                                       monkeypatch):
    """A home ingested before line ranges holds ``FILE:<first>`` for a multi-line turn:
    ``show --source`` prints the whole turn without calling it moved, and reading the file
    again when it grew is an upsert (same handles) whose reading gives the turn its range."""
    from attention_cloud.ingest import plain_text

    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    with monkeypatch.context() as old:  # the pointers the code before line ranges wrote
        old.setattr(plain_text, "line_pointer", lambda base, first, last: f"{base}:{first}")
        with Memory.open(home) as mem:
            assert mem.ingest([path]).new == 3
    handle = _handle_of(home, "server-side cursor")
    with Memory.open(home) as mem:
        assert mem.query(f"item_source({handle}, P)").rows[0]["P"] == f"{path}:4"
    record = json.loads(_atc(home, "show", handle, "--source", "--format", "json").output)
    assert record["source"] == f"{path}:4" and "source_now" not in record
    whole = record["verbatim"]
    path.write_text(TEXT + "Assistant: Done, gzip level 6.\n", encoding="utf-8")
    with Memory.open(home) as mem:
        report = mem.ingest([path])
    assert (report.new, report.unchanged, report.updated) == (1, 3, 2)  # two multi-line turns
    record = json.loads(_atc(home, "show", handle, "--source", "--format", "json").output)
    assert record["source"] == f"{path}:4-5" and "source_now" not in record
    assert record["verbatim"] == whole == ("Assistant: It called fetchall(); I switched to a server-side "
                                  "cursor\nthat fetches 5000 rows at a time.")


def test_forgetting_a_multi_line_turn_names_its_file(home, tmp_path):
    write_config(home, {"embedder": "hash"})
    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([path])
    handle = _handle_of(home, "server-side cursor")
    with Memory.open(home) as mem:
        report = mem.forget([handle], reason="test", who="ann")
    assert report.sources == [str(path)]  # the transcript still holding the text


@pytest.mark.parametrize("name,text", [("chat.txt", TEXT), ("2026-01-02-standup.md", MARKDOWN)])
def test_a_turn_still_being_written_is_held_back(name, text):
    """``atc watch`` reads a file still changing up to its last turn, which may gain lines:
    the turns before it, whole, under the pointers a read of the whole file gives them."""
    from attention_cloud.ingest import parse_text
    from attention_cloud.ingest.source import make_source
    from attention_cloud.ingest.unfinished import finished_part

    finished = finished_part(make_source(text.encode(), name=name))
    assert finished is not None
    whole = parse_text(text, name=name).items
    held = parse_text(finished.data.decode(), name=name).items
    assert [i.pointer for i in held] == [i.pointer for i in whole[:-1]]
    assert [i.handle for i in held] == [i.handle for i in whole[:-1]]


def test_show_source_finds_a_record_whose_session_a_reader_named_after_the_files(home, tmp_path):
    """qa64: a JSON Lines file of conversations without ids names its sessions after the file
    ("convs#2"); show parsed it again with "convs#2" as the default, found "convs#2#2", and
    said the file had changed since it was ingested. Aider's chats ("<file>@<start>") too."""
    convs = tmp_path / "convs.jsonl"
    convs.write_text("".join(json.dumps({"messages": [
        {"role": "user", "content": question},
        {"role": "assistant", "content": answer}]}) + "\n" for question, answer in (
            ("how do I rotate the API key?", "Run rotate-keys and redeploy the workers."),
            ("why is the export slow?", "It loads every row at once; stream it in batches."))))
    assert _atc(home, "ingest", str(convs)).exit_code == 0
    shown = _atc(home, "show", _handle_of(home, "stream it in batches"), "--source")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == {
        "role": "assistant", "content": "It loads every row at once; stream it in batches."}
