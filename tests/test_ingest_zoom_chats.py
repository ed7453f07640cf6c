"""Zoom's saved meeting chat (``meeting_saved_chat.txt``, in the folder Zoom names after the
meeting's start, ``2023-05-08 13.55.12 Running Club``): ``13:56:03 From Priya Patel to
Everyone:`` then the message on tab-indented lines, or an older client's one line,
``13:56:03<TAB> From  Priya Patel : …``. It was ``cannot detect format``, the meeting's chat
left out; now each message is a turn of its sender, at its time on the meeting's day."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path

NEW = ("13:56:03 From Priya Patel to Everyone:\n\tAre we on for the run on Saturday?\n"
       "13:57:10 From tomás (he/him) to Everyone:\n\tYes, at seven.\n\tBring water.\n"
       "13:58:00 From Priya Patel to tomás (he/him)(Direct Message):\n\tGreat, see you there.\n"
       "00:01:30 From tomás (he/him) to Everyone:\n\tStill here after midnight?\n")
OLD = ("13:56:03\t From  Priya Patel : Are we on for the run on Saturday?\n"
       "13:57:10\t From  tomás (he/him) : Yes, at seven.\nBring water.\n"
       "13:58:00\t From  Priya Patel : Great, see you there.\n"
       "00:01:30\t From  tomás (he/him) : Still here after midnight?\n")


@pytest.mark.parametrize("text", [NEW, OLD])
def test_a_zoom_meeting_chat_is_each_message_with_its_sender_and_time(tmp_path, text):
    folder = tmp_path / "2023-05-08 13.55.12 Running Club"
    folder.mkdir()
    path = folder / "meeting_saved_chat.txt"
    path.write_text(text, encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("Priya Patel", "user", "2023-05-08T13:56:03Z", "Are we on for the run on Saturday?"),
        ("tomás (he/him)", "assistant", "2023-05-08T13:57:10Z", "Yes, at seven.\nBring water."),
        ("Priya Patel", "user", "2023-05-08T13:58:00Z", "Great, see you there."),
        ("tomás (he/him)", "assistant", "2023-05-09T00:01:30Z", "Still here after midnight?")]
    out = CliRunner().invoke(main, ["ingest", str(folder), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "new: 4" in out.output, out.output
