"""Continue's saved sessions (``~/.continue/sessions/<id>.json`` beside ``sessions.json``):
every message kept with its role, its calls and their results, and the session's time (issue
14: who said it and when, for every format people bring)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text

SESSIONS = Path(__file__).parent / "fixtures" / "ingest" / "continue" / "sessions"
SESSION = SESSIONS / "5f1c9e2a-7d3b-4b8e-9a51-0c2d4e6f8a10.json"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(SESSION)


def test_a_session_keeps_every_message_in_order(parsed):
    # before: "cannot detect format": every Continue session was lost
    assert parsed.format == "continue" == detect_format(SESSION)
    assert [(i.role, i.kind, i.text) for i in parsed.items] == [
        ("user", "user_goal", "Why does the nightly export time out on the orders table?\n"
                              "[attached: src/export.py]"),
        ("assistant", "conclusion",
         "It loads every row at once; stream the rows in batches of 10,000 instead."),
        ("assistant", "file_op", "read src/export.py"),
    ]
    assert {i.session for i in parsed.items} == {"5f1c9e2a-7d3b-4b8e-9a51-0c2d4e6f8a10"}
    assert parsed.skipped == [(3, "message 2 is not a JSON object")]
    assert parsed.items[0].pointer.endswith(f"{SESSION.name}#/history/0")


def test_each_message_has_the_sessions_time_from_sessions_json(parsed):
    """The session file writes no time; ``sessions.json`` beside it says when it was created:
    every message takes that time (none is earlier) rather than none."""
    assert {i.time for i in parsed.items} == {"2023-05-08T13:56:03Z"}


def test_a_session_without_its_index_is_read_and_its_missing_times_said():
    result = parse_text(SESSION.read_text(), name="5f1c9e2a.json")
    assert result.format == "continue"
    assert len(result.items) == 3 and not any(i.time for i in result.items)
    assert any("no time" in note for note in result.notes)


def test_the_sessions_folder_ingests_whole(home, tmp_path):
    """``sessions.json`` is counted, not refused as undetectable, so the folder ingests."""
    folder = tmp_path / "sessions"
    shutil.copytree(SESSIONS, folder)
    assert detect_format(folder / "sessions.json") == "continue"
    with Memory.open(home) as mem:
        report = mem.ingest([str(folder)], strict=True)
        rows = mem.query("item_time(H, T)").rows
    assert report.files == 2 and report.new == 3
    assert report.ignored.get("continue sessions.json") == 1
    assert {r["T"] for r in rows} == {"2023-05-08T13:56:03Z"}


def test_a_history_that_is_no_list_is_one_clear_line():
    document = json.loads(SESSION.read_text())
    document["history"] = {"oops": 1}
    with pytest.raises(Exception) as caught:
        parse_text(json.dumps(document), name="s.json", format="continue")
    assert str(caught.value).startswith("s.json: not a Continue session")


def _sessions_folder(tmp_path: Path, count: int) -> Path:
    """A sessions folder of ``count`` copies of the fixture session, each listed in the index."""
    folder = tmp_path / "many"
    folder.mkdir()
    document = json.loads(SESSION.read_text())
    index = []
    for n in range(count):
        session_id = f"00000000-0000-4000-8000-{n:012d}"
        (folder / f"{session_id}.json").write_text(json.dumps({**document, "sessionId": session_id}))
        index.append({"sessionId": session_id, "dateCreated": str(1683554163000 + n * 60_000)})
    (folder / "sessions.json").write_text(json.dumps(index))
    return folder


def test_the_index_is_read_once_for_a_folder_of_sessions(tmp_path, monkeypatch):
    # before: every session file read sessions.json again (and decoded all of it to find its
    # one entry): a folder of N sessions read the index N times, N^2 entries decoded
    folder = _sessions_folder(tmp_path, 6)
    read = []
    real = Path.read_text

    def counting(path, *args, **kwargs):
        if path.name == "sessions.json":
            read.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    times = [parse_path(f).items[0].time for f in sorted(folder.glob("0*.json"))]
    assert times == [f"2023-05-08T13:{56 + n:02d}:03Z" if n < 4 else
                     f"2023-05-08T14:{n - 4:02d}:03Z" for n in range(6)]
    assert len(read) == 1


def test_an_index_written_again_is_read_again(tmp_path):
    """A kept index answers only while the file is as it was: Continue rewrites it as
    sessions are added, and a session read after that takes its time from the new one."""
    folder = _sessions_folder(tmp_path, 2)
    session = sorted(folder.glob("0*.json"))[0]
    assert parse_path(session).items[0].time == "2023-05-08T13:56:03Z"
    index = json.loads((folder / "sessions.json").read_text())
    index[0]["dateCreated"] = "1700000000000"
    (folder / "sessions.json").write_text(json.dumps(index, indent=1))
    assert parse_path(session).items[0].time == "2023-11-14T22:13:20Z"
