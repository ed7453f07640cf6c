"""JSON nested deeper than Python's decoder goes (its recursion limit: ~1,000 levels) is one
record or one text the readers pass over, never the reader's end. A transcript's own lines
were guarded, but three other decodes were not (round 36, qa226), and each ended ``atc
ingest`` (or ``atc remember``) with a RecursionError traceback, exit 1:

* a tool output or a note that is one JSON object naming a receipt (``"r_``), which the
  frame-echo check decodes to tell a printed receipt (``frame_echo._one_object``);
* a line of an earlier Claude Code file beside a resumed session, read for the sessions of
  the copies it holds (``earlier_copies._record``);
* a line of the file a resumed session follows on from, read for the goal active there
  (``earlier_goals._line_of`` and ``_user_turns``).
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_turn, write_records

OLD = "0ld5e551-0000-4000-8000-000000000001"
NEW = "9e75e551-0000-4000-8000-000000000002"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."
#: Past the decoder's recursion limit, yet a small text (3 bytes a level).
DEPTH = 2000


def _nested(inner: str) -> str:
    """``inner`` (a JSON value) inside DEPTH arrays."""
    return "[" * DEPTH + inner + "]" * DEPTH


def _deep_user_line(inner: str) -> str:
    """A user record whose ``toolUseResult`` (a field no reader takes items from) nests
    ``inner`` past the decoder: its own line is skipped by the reader as before."""
    record = {"type": "user", "sessionId": OLD, "timestamp": "2026-03-02T09:59:00.000Z",
              "message": {"role": "user", "content": "see the attached result"},
              "toolUseResult": "HERE"}
    return json.dumps(record).replace('"HERE"', _nested(inner)) + "\n"


def test_a_tool_output_nested_past_the_decoder_is_ingested(tmp_path):
    printed = '{"receipt_id": "r_0123456789abcdef", "facts": ' + _nested("1") + "}"
    records = cc21_turn(OLD, 1, GOAL, "dry-run")
    records[2]["message"]["content"][0]["content"] = printed
    path = write_records(tmp_path / f"{OLD}.jsonl", records)
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0, out.output
    assert "new: 2" in out.output                 # the prompt, and the call with its output
    assert [printed in i.text for i in parse_path(path).items] == [False, True]


def test_a_note_nested_past_the_decoder_is_remembered(tmp_path):
    note = '{"id": "r_0123456789abcdef", "value": ' + _nested("1") + "}"
    with Memory.open(tmp_path / "home") as mem:
        remembered = mem.remember(note)
        assert remembered.new
        assert mem.item(remembered.handle).text == note


def test_an_earlier_copy_with_a_line_nested_past_the_decoder_still_names_the_sessions(tmp_path):
    # the old file: its turn, then a line nested too deep (smaller than the resumed file,
    # so it is the earlier one the resumed file's copies come from)
    old = write_records(tmp_path / "p" / f"{OLD}.jsonl", cc21_turn(OLD, 1, GOAL, "dry-run"))
    with old.open("a") as out:
        out.write(_deep_user_line("1"))
    copies = [dict(r, sessionId=NEW) for r in cc21_turn(OLD, 1, GOAL, "dry-run")]
    resumed = copies + cc21_turn(NEW, 4, "continue " + "and keep the CSV header " * 200, "full")
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", resumed)
    assert old.stat().st_size < new.stat().st_size
    items = parse_path(new).items
    assert [i.session for i in items if i.role == "tool"] == [OLD, NEW]


def test_a_resumption_of_a_file_with_a_line_nested_past_the_decoder_takes_its_goal(tmp_path):
    # the first line of the old file nests, deep down, the uuid the resumed file follows on
    # from: it is found there first, and is a user line the goal lookup decodes too
    old = tmp_path / "p" / f"{OLD}.jsonl"
    old.parent.mkdir()
    old.write_text(_deep_user_line('"u-0003"')
                   + "".join(json.dumps(r) + "\n" for r in cc21_turn(OLD, 1, GOAL, "dry-run")))
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", cc21_turn(NEW, 4, "continue", "full"))
    errors = [(i.session, i.goal) for i in parse_path(new).items if i.kind == "error"]
    assert errors == [(NEW, GOAL)]
