"""Slack workspace exports: a channel folder of day files, every sender by name and every
message's time, threads linked (issue 14: who said it and when, for every format)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.ingest import detect_format, parse_path, parse_text

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "slack_export"
DAY1 = EXPORT / "running-club" / "2023-05-08.json"
DAY2 = EXPORT / "running-club" / "2023-05-09.json"


def test_a_day_file_keeps_every_sender_and_time():
    result = parse_path(DAY1)
    assert result.format == "slack" == detect_format(DAY1)
    assert [(i.speaker, i.time, i.session) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:03Z", "running-club/2023-05-08"),
        ("Tomás Ruiz", "2023-05-08T13:57:12Z", "running-club/2023-05-08"),
        # no user_profile on this reply: users.json beside the channel names U03DANA
        ("Dana Whitfield", "2023-05-08T13:58:00Z", "running-club/2023-05-08"),
        # a message of nothing but a file: before, counted and dropped ("which file did Dana
        # share?" found nothing)
        ("Dana Whitfield", "2023-05-08T13:58:20Z", "running-club/2023-05-08"),
    ]
    assert result.ignored == {"channel_join": 1}
    first, _, dana, shared = result.items
    assert shared.text == "[attached: route.gpx]"
    assert first.text == ("I signed up for the half marathon in October! Plan: training plan "
                          "(https://example.com/plan)")
    assert dana.text == "Count me in for the long runs, @Priya Patel"   # <@U01PRIYA>
    assert ("reply_to", "running-club#1683554163.000200") in [r[1:] for r in dana.relations]
    assert ("message_id", "running-club#1683554163.000200") in [r[1:] for r in first.relations]
    assert dana.pointer.endswith("2023-05-08.json#/3")


def test_bots_entities_and_a_day_without_users_json(tmp_path):
    channel = tmp_path / "export" / "running-club"
    channel.mkdir(parents=True)
    shutil.copy(DAY2, channel / DAY2.name)
    result = parse_path(channel / DAY2.name)
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Priya Patel", "What should we do this Saturday? @here"),
        ("Dana Whitfield", "I suggest the river loop at 7am & pancakes after"),
        ("Stretchbot", "Reminder: stretch!"),
    ]
    # an id no profile and no users.json names is kept as the id, never dropped
    text = json.dumps([{"type": "message", "user": "U09", "ts": "1683619200.000100",
                        "text": "hello <@U10>"}])
    (item,) = parse_text(text, name="2023-05-09.json").items
    assert (item.speaker, item.text, item.time) == ("U09", "hello @U10", "2023-05-09T08:00:00Z")


def test_the_export_folder_is_ingested_whole(home):
    with Memory.open(home) as mem:
        report = mem.ingest([str(EXPORT)])            # strict: every file must be read
        assert report.files == 4 and report.new == 7 and report.files_skipped == []
        assert report.ignored["slack users.json"] == 1
        rows = mem.query('item_speaker(H, "Dana Whitfield"), item_time(H, T), '
                         'item_session(H, S)').rows
    assert sorted((r["T"], r["S"]) for r in rows) == [
        ("2023-05-08T13:58:00Z", "running-club/2023-05-08"),
        ("2023-05-08T13:58:20Z", "running-club/2023-05-08"),   # the file she shared
        ("2023-05-09T08:05:30Z", "running-club/2023-05-09")]


def test_two_channels_days_are_two_sessions(tmp_path):
    for channel in ("running-club", "random"):
        (tmp_path / channel).mkdir()
        shutil.copy(DAY2, tmp_path / channel / DAY2.name)
    sessions = {i.session for name in ("running-club", "random")
                for i in parse_path(tmp_path / name / DAY2.name).items}
    assert sessions == {"running-club/2023-05-09", "random/2023-05-09"}


def test_a_question_naming_a_participant_favours_them(home):
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(EXPORT)).exit_code == 0
    with Memory.open(home) as mem:
        mem.curate()
    frame = json.loads(run("hydrate", "What did Dana suggest for Saturday?", "--budget", "150",
                           "--format", "json").output)
    assert frame["receipt"]["facts"][0].get("speaker") == "Dana Whitfield"
    assert "Dana Whitfield: I suggest the river loop at 7am & pancakes after" in frame["text"]


def test_a_message_whose_ts_is_damaged_or_missing_is_reported_not_the_day_lost(tmp_path):
    """A day file where one message's ``ts`` is damaged or missing is still a Slack day (it
    was "cannot detect format", every message of the day lost): the others keep their times,
    and that message is kept without one and listed in the report with its record."""
    day = tmp_path / "export" / "running-club" / "2023-05-08.json"
    day.parent.mkdir(parents=True)
    messages = [{"type": "message", "user": "U01", "ts": "1683554163.000200",
                 "user_profile": {"real_name": "Priya Patel"}, "text": "I ran 10k yesterday"},
                {"type": "message", "user": "U02", "ts": "soon", "text": "Nice pace!"},
                {"type": "message", "user": "U01", "text": "Same time next week?"}]
    day.write_text(json.dumps(messages))
    result = parse_path(day)
    assert result.format == "slack" == detect_format(day)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:03Z"), ("U02", ""), ("Priya Patel", "")]
    assert [n for n, _ in result.unread_times] == [2, 3]
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(day)])
        again = mem.ingest([str(day)])
    assert report.new == 3 and again.new == 0 and len(report.unread_times) == 2


def test_users_json_copied_in_later_names_the_senders_of_days_read_before(tmp_path, home):
    """Before, a day file read before the export's ``users.json`` was there kept its senders
    as ids (``U02TOMAS``) for good: read again, the unchanged day file was skipped. The users
    file changes what the day gives, so adding it reads the day again."""
    channel = tmp_path / "export" / "running-club"
    channel.mkdir(parents=True)
    day = [{"type": "message", "user": "U02TOMAS", "text": "Saturday at 7 works for me",
            "ts": "1683554400.000100"}]
    (channel / "2023-05-08.json").write_text(json.dumps(day))
    query = "item_speaker(H, S)"
    with Memory.open(home) as mem:
        mem.ingest([str(channel.parent)])
        assert {r["S"] for r in mem.query(query).rows} == {"U02TOMAS"}
        shutil.copy(EXPORT / "users.json", channel.parent / "users.json")
        report = mem.ingest([str(channel.parent)])
        assert report.updated == 1
        assert {r["S"] for r in mem.query(query).rows} == {"Tomás Ruiz"}


def test_a_message_is_dated_in_its_sender_s_own_zone(tmp_path):
    """Before, a Slack message's day was UTC's: Mia in Sydney writing "yesterday" at 08:00 on
    9 May (22:00 UTC on the 8th) named the 7th, and her "last summer" in May was the northern
    one. ``users.json`` gives each member's zone (``tz``): her day is Sydney's, her seasons the
    southern hemisphere's."""
    channel = tmp_path / "export" / "general"
    channel.mkdir(parents=True)
    (tmp_path / "export" / "users.json").write_text(json.dumps([
        {"id": "U09MIA", "name": "mia", "real_name": "Mia Chen", "tz": "Australia/Sydney",
         "tz_offset": 36000}]))
    day = [{"type": "message", "user": "U09MIA", "ts": "1683583200.000100",  # 22:00 UTC
            "text": "I finished the glaze test yesterday, like we did last summer."}]
    (channel / "2023-05-08.json").write_text(json.dumps(day))
    (item,) = parse_path(channel / "2023-05-08.json").items
    assert item.time == "2023-05-08T22:00:00Z"
    mentioned = sorted(o for _, p, o in item.relations if p == "mentions_date")
    assert mentioned == ["2023-01-15", "2023-05-08"]  # Sydney's yesterday, its summer
