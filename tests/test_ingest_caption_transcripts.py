"""Meeting transcripts as captions: Zoom's ``.transcript.vtt`` (``Priya Patel: …`` in each
cue), Teams' ``.vtt`` (``<v Priya Patel>…</v>``) and ``.srt``. Before, each turn's text ended
with the next cue's number and timing (``Are we on?\\n\\n2\\n00:00:05.000 --> …``), and a Teams
transcript was ``cannot detect format``. Cue numbers and timings are no one's words now; a cue
without a name continues its speaker's turn; Zoom's file name (``GMT20230508-135603_…``) gives
the meeting's start, to which each cue's offset is added."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud.ingest import detect_format, parse_path

ZOOM = ("WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\nPriya Patel: Are we on for the run?\n\n"
        "2\n00:00:05.000 --> 00:00:07.000\nTomás Ruiz: Yes, at seven.\n\n"
        "3\n00:00:07.500 --> 00:00:09.000\nBring water.\n\n"
        "4\n00:01:08.000 --> 00:01:09.500\nPriya Patel: Great.\n")
TEAMS = ("WEBVTT\n\n0f1e2d3c-1/12-0\n00:00:01.000 --> 00:00:04.000\n"
         "<v Priya Patel>Are we on for the run?</v>\n\n0f1e2d3c-1/13-0\n"
         "00:00:05.000 --> 00:00:07.000\n<v Tomás Ruiz>Yes, at seven.</v>\n\n"
         "00:00:07.500 --> 00:00:09.000\n<v Tomás Ruiz>Bring water.</v>\n\n"
         "00:01:08.000 --> 00:01:09.500\n<v Priya Patel>Great.</v>\n")
SRT = ZOOM.replace("WEBVTT\n\n", "").replace(".000 -->", ",000 -->").replace(".500\n", ",500\n")


@pytest.mark.parametrize("name, text", [("GMT20230508-135603_Recording.transcript.vtt", ZOOM),
                                        ("Running club sync.vtt", TEAMS),
                                        ("sync.srt", SRT)])
def test_each_cue_is_its_speakers_words_alone(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    texts = [(i.speaker, i.role, i.text) for i in result.items]
    assert texts[0] == ("Priya Patel", "user", "Are we on for the run?")
    assert texts[-1] == ("Priya Patel", "user", "Great.")
    assert [t for _, _, t in texts[1:-1]] in (["Yes, at seven.\nBring water."],
                                              ["Yes, at seven.", "Bring water."])
    assert all(i.speaker == "Tomás Ruiz" for i in result.items[1:-1])
    if name.startswith("GMT"):
        assert [i.time for i in result.items] == [
            "2023-05-08T13:56:04Z", "2023-05-08T13:56:08Z", "2023-05-08T13:57:11Z"]


@pytest.mark.parametrize("stamps", [("0:01", "0:05", "1:08"), ("1:56 PM", "1:57 PM", "1:58 PM")])
def test_a_name_and_time_over_the_words_is_a_turn(tmp_path, stamps):
    """Otter.ai's text export (``Priya Patel  0:01`` over each paragraph) and a Slack channel
    copied from the app (``Priya Patel  1:56 PM``) were ``cannot detect format``."""
    path = tmp_path / "sync.txt"
    path.write_text(f"Priya Patel  {stamps[0]}\nAre we on for the run?\n\n"
                    f"Tomás Ruiz  {stamps[1]}\nYes, at seven.\nBring water.\n\n"
                    f"Priya Patel  {stamps[2]}\nGreat.\n", encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.text) for i in result.items] == [
        ("Priya Patel", "user", "Are we on for the run?"),
        ("Tomás Ruiz", "assistant", "Yes, at seven.\nBring water."),
        ("Priya Patel", "user", "Great.")]


def test_a_google_meet_transcripts_time_marks_are_no_ones_words(tmp_path):
    """Google Meet's transcript (a Docs file saved as text) marks the recording's time on a line
    of its own every few minutes (``00:05:00``): it ended the turn above as its last line."""
    path = tmp_path / "Running Club - Transcript.txt"
    path.write_text("Running Club - Transcript\n00:00:00\n\n"
                    "Priya Patel: Are we on for the run?\nTomás Ruiz: Yes, at seven.\n"
                    "00:05:00\nPriya Patel: Great.\n", encoding="utf-8")
    result = parse_path(path)
    assert [i.text for i in result.items] == ["Are we on for the run?", "Yes, at seven.",
                                             "Great."]


def test_a_folder_walk_and_a_watch_take_caption_files(tmp_path, home):
    """Before, ``atc ingest FOLDER`` and ``atc watch FOLDER`` skipped ``.vtt`` and ``.srt``
    without a word: a folder of meeting recordings gave nothing. A film's subtitles, naming no
    speaker, are reported as no transcript, the rest of the folder read."""
    from attention_cloud import Memory
    from attention_cloud.watch.files import FileTable

    folder = tmp_path / "meetings"
    folder.mkdir()
    (folder / "GMT20230508-135603_Recording.transcript.vtt").write_text(ZOOM, encoding="utf-8")
    (folder / "Running club sync.vtt").write_text(TEAMS, encoding="utf-8")
    (folder / "sync.srt").write_text(SRT, encoding="utf-8")
    (folder / "film.srt").write_text("1\n00:00:01,000 --> 00:00:04,000\nWhere were you?\n\n"
                                     "2\n00:00:05,000 --> 00:00:07,000\nOut.\n", encoding="utf-8")
    with Memory.open(home) as mem:
        report = mem.ingest([str(folder)], strict=False)
        rows = mem.query("item_speaker(H, S)").rows
    assert {r["S"] for r in rows} == {"Priya Patel", "Tomás Ruiz"}
    assert report.new == len(rows) >= 9
    assert [Path(name).name for name, _ in report.files_skipped] == ["film.srt"]
    table = FileTable([folder])
    assert all(table.watched(path) for path in folder.iterdir())
