"""Chats whose speakers are written in lower case without brackets (``2023-05-08 13:56 priya:
…``), as exporters that write user names do, were no chat: a lower-case name was taken for a
logger's, whatever the file said. The evidence over the file decides now: a few names taking
turns, each line timed, and what follows the colon said to someone (a question, I or you)."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path

CHAT = ("2023-05-08 13:56 priya: are we still on for the long run on saturday?\n"
        "2023-05-08 13:57 tomás: yes, meeting at the bridge at seven sharp\n"
        "2023-05-08 13:58 priya: great, i will bring the water bottles\n"
        "and some snacks for after\n"
        "2023-05-08 13:59 tomás: perfect, see you there\n")


@pytest.mark.parametrize("text", [CHAT, CHAT.replace("2023-05-08 ", "[2023-05-08 ").replace(
    " priya:", "] priya:").replace(" tomás:", "] tomás:")])
def test_lower_case_speakers_taking_turns_are_a_chat(tmp_path, text):
    path = tmp_path / "chat.txt"
    path.write_text(text)
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.time) for i in result.items] == [
        ("priya", "user", "2023-05-08T13:56:00Z"), ("tomás", "assistant", "2023-05-08T13:57:00Z"),
        ("priya", "user", "2023-05-08T13:58:00Z"), ("tomás", "assistant", "2023-05-08T13:59:00Z")]
    assert result.items[2].text == "great, i will bring the water bottles\nand some snacks for after"
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)])
    assert out.exit_code == 0 and "new: 4" in out.output, out.output


@pytest.mark.parametrize("text", [
    # an application's log: components taking turns, nobody addressed
    "2023-05-08 13:56:01 worker: started pool with 8 threads\n"
    "2023-05-08 13:56:02 scheduler: queued 12 jobs from the backlog\n"
    "2023-05-08 13:56:03 worker: processed job 1 in 0.2s\n"
    "2023-05-08 13:56:04 scheduler: queued 3 jobs from the backlog\n",
    # one name only
    "2023-05-08 13:56 priya: are you there?\n2023-05-08 13:57 priya: hello?\n",
    # keys of a config, no times
    "name: are you there\nversion: do you know\nname: what i said\n",
])
def test_logs_and_fields_in_lower_case_stay_no_chat(tmp_path, text):
    path = tmp_path / "app.log"
    path.write_text(text)
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert "cannot detect format" in out.output, out.output
