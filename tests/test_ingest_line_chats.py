"""LINE's chat history export ("Export chat history" / トーク履歴を送信): a title, a
``Saved on`` line, then each day's date line (``2023/05/08(Mon)``, ``2023/05/08(月)``) over
its messages, one a line as ``time<TAB>sender<TAB>text`` (a message of several lines in double
quotes), and events (``13:58<TAB>Priya unsent a message.``) with one tab. It was ``cannot detect
format``, the whole chat left out; now each message is a turn of its sender on its day."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path

ENGLISH = ("[LINE] Chat history with Running Club\nSaved on: 2023/05/10 10:00\n\n"
           "2023/05/08(Mon)\n"
           "13:56\tPriya\tAre we still on for the long run?\n"
           "13:57\ttomás 🏃\tYes, at the bridge at seven.\n"
           "13:58\tPriya\t\"Great, I will bring water.\nAnd snacks for after.\"\n"
           "13:59\tPriya unsent a message.\n\n"
           "2023/05/09(Tue)\n"
           "08:02\ttomás 🏃\tMy knee hurts today.\n"
           "08:05\tPriya\t[Sticker]\n"
           "08:06\tPriya\tRest it, we go on Friday.\n")
JAPANESE = ("[LINE] ランニングクラブのトーク履歴\n保存日時：2023/05/10 10:00\n\n"
            "2023/05/08(月)\n"
            "13:56\tPriya\tAre we still on for the long run?\n"
            "13:57\ttomás 🏃\tYes, at the bridge at seven.\n"
            "13:58\tPriya\t\"Great, I will bring water.\nAnd snacks for after.\"\n"
            "13:59\tPriyaがメッセージの送信を取り消しました\n\n"
            "2023/05/09(火)\n"
            "08:02\ttomás 🏃\tMy knee hurts today.\n"
            "08:05\tPriya\t[スタンプ]\n"
            "08:06\tPriya\tRest it, we go on Friday.\n")


@pytest.mark.parametrize("text", [ENGLISH, JAPANESE])
def test_a_line_export_is_each_message_with_its_sender_and_day(tmp_path, text):
    path = tmp_path / "[LINE] Running Club.txt"
    path.write_text(text, encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    got = [(i.speaker, i.role, i.time, i.text) for i in result.items]
    assert got[:3] == [
        ("Priya", "user", "2023-05-08T13:56:00Z", "Are we still on for the long run?"),
        ("tomás 🏃", "assistant", "2023-05-08T13:57:00Z", "Yes, at the bridge at seven."),
        ("Priya", "user", "2023-05-08T13:58:00Z",
         "Great, I will bring water.\nAnd snacks for after.")]
    assert got[3][:3] == ("tomás 🏃", "assistant", "2023-05-09T08:02:00Z")
    assert got[-1] == ("Priya", "user", "2023-05-09T08:06:00Z", "Rest it, we go on Friday.")
    assert not any("unsent" in i.text or "取り消し" in i.text for i in result.items)
    assert result.unread_times == []
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "cannot detect" not in out.output, out.output


def test_tab_separated_rows_without_a_day_above_them_are_no_chat(tmp_path):
    path = tmp_path / "jobs.txt"
    path.write_text("13:56\tworker\tstarted pool with 8 threads\n"
                    "13:57\tscheduler\tqueued 12 jobs\n13:58\tworker\tprocessed job 1\n"
                    "13:59\tscheduler\tqueued 3 jobs\n")
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 1 and "cannot detect format" in out.output, out.output
