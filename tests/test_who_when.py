"""Who said it and when: every supported format keeps each item's speaker and time, every date
form people and exports write is read, relative dates in a turn become dated facts, and a goal
naming a participant finds that participant's items (issue 14, items 1 and 2)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.curate.tokens import estimate_tokens
from attention_cloud.home import write_config
from attention_cloud.ingest import parse_path, parse_text
from attention_cloud.ingest.timefmt import date_note, read_time, read_turn_time, relative_dates

# -- date forms ---------------------------------------------------------------------------------
DATE_FORMS = [
    ("2023-05-08T13:56:00Z", "2023-05-08T13:56:00Z"),                 # ISO 8601, UTC
    ("2023-05-08T13:56:00.250Z", "2023-05-08T13:56:00Z"),             # with a fraction
    ("2023-05-08T15:56:00+02:00", "2023-05-08T13:56:00Z"),            # with an offset
    ("2023-05-08 13:56:00", "2023-05-08T13:56:00Z"),                  # naive: UTC
    ("2023-05-08", "2023-05-08T00:00:00Z"),                           # a date alone
    (1683554160, "2023-05-08T13:56:00Z"),                             # epoch seconds
    (1683554160000, "2023-05-08T13:56:00Z"),                          # epoch milliseconds
    ("1683554160", "2023-05-08T13:56:00Z"),                           # epoch as digits
    ("Mon, 08 May 2023 15:56:00 +0200", "2023-05-08T13:56:00Z"),      # RFC 2822
    ("1:56 pm on 8 May, 2023", "2023-05-08T13:56:00Z"),               # LoCoMo-style
    ("May 8, 2023", "2023-05-08T00:00:00Z"),
    ("8 May 2023 1:56 PM", "2023-05-08T13:56:00Z"),
    ("2023/05/28 (Sun) 19:47", "2023-05-28T19:47:00Z"),               # LongMemEval-style
    ("2023-05-28 19:47 CEST", "2023-05-28T17:47:00Z"),                # a zone abbreviation
    (1683554160123456, "2023-05-08T13:56:00Z"),                       # epoch microseconds
    ("1683554160123456789", "2023-05-08T13:56:00Z"),                  # epoch nanoseconds
    ("2023-05-08 15:56:00.123456789 +0200 CEST", "2023-05-08T13:56:00Z"),  # Go's time.String()
    ("2023-05-08 13:56:00 +0000 UTC m=+0.000100001", "2023-05-08T13:56:00Z"),
    ("2023-05-08T15:56:00+02:00[Europe/Paris]", "2023-05-08T13:56:00Z"),   # Java, RFC 9557
    ("2023-05-08T15:56:00[Europe/Paris]", "2023-05-08T13:56:00Z"),         # the zone's name alone
    # as Chinese, Japanese and Korean apps write a date (before, each unread)
    ("2023年5月8日 13:56", "2023-05-08T13:56:00Z"),
    ("2023年5月8日 下午1:56", "2023-05-08T13:56:00Z"),
    ("2023年5月8日(月) 午後1時56分", "2023-05-08T13:56:00Z"),
    ("2023/05/08(月) 13:56", "2023-05-08T13:56:00Z"),
    ("2023년 5월 8일 오후 1:56", "2023-05-08T13:56:00Z"),
    ("2023年5月8日 星期一 上午9:05", "2023-05-08T09:05:00Z"),
]


@pytest.mark.parametrize("written, iso", DATE_FORMS, ids=[str(w) for w, _ in DATE_FORMS])
def test_every_date_form_is_read(written, iso):
    assert read_time(written) == iso


@pytest.mark.parametrize("written", ["soon", "13:56", "Monday", "May 2023", "2023-05-28 19:47 XYZ",
                                     True, -5, "2026-02-30T25:61:00Z", "2026-13-45T99:99:99Z",
                                     "2026-99-99T00:00:00Z", "2025-02-29T00:00:00.5Z",
                                     "2023-05-08T13:56:00[Mars/Olympus]"])
def test_what_is_not_a_timestamp_is_unreadable_not_guessed(written):
    assert read_time(written) is None


def test_absent_time_is_empty_not_unreadable():
    assert read_time(None) == "" and read_time("  ") == ""


@pytest.mark.parametrize("written, iso", DATE_FORMS, ids=[str(w) for w, _ in DATE_FORMS])
def test_each_date_form_survives_ingest_on_the_item(tmp_path, written, iso):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "name": "Priya", "timestamp": written,
                                "content": "How do I glaze a bowl without drips?"}) + "\n")
    (item,) = parse_path(path).items
    assert (item.time, item.speaker) == (iso, "Priya")


# -- formats --------------------------------------------------------------------------------------
def _who_when(path: Path, **kw) -> list[tuple[str, str, str]]:
    result = parse_path(path, **kw)
    assert result.unread_times == []
    return [(i.role, i.speaker, i.time) for i in result.items]


def test_openai_json_document_names_and_session_time(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"id": "conv1", "timestamp": "May 8, 2023", "messages": [
        {"role": "user", "name": "Priya", "content": "I want to learn wheel throwing."},
        {"role": "assistant", "name": "Tomás", "timestamp": "1:56 pm on 8 May, 2023",
         "content": "Start with centring the clay; it takes weeks to feel right."},
        {"role": "user", "author": {"name": "Priya"}, "content": "Which clay body is easiest?"},
    ]}))
    assert _who_when(path) == [
        ("user", "Priya", "2023-05-08T00:00:00Z"),   # the conversation's date applies
        ("assistant", "Tomás", "2023-05-08T13:56:00Z"),
        ("user", "Priya", "2023-05-08T00:00:00Z"),
    ]


def test_openai_jsonl_messages_with_name_and_timestamp(tmp_path):
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "name": "Priya", "timestamp": 1683554160000,
              "content": "I signed up for the pottery class yesterday."},
             {"role": "assistant", "name": "Tomás", "timestamp": "Mon, 08 May 2023 15:57:00 +0200",
              "content": "That is great news, which studio did you pick?"}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert _who_when(path) == [("user", "Priya", "2023-05-08T13:56:00Z"),
                               ("assistant", "Tomás", "2023-05-08T13:57:00Z")]


def test_openai_messages_naming_their_speaker_or_sender(tmp_path):
    """A chat converted from LoCoMo names each turn's ``speaker``, an app's export its
    ``sender``: the name is kept, not dropped in silence for the role."""
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "speaker": "Caroline", "timestamp": "1:56 pm on 8 May, 2023",
              "content": "I went to a support group yesterday."},
             {"role": "assistant", "sender": {"name": "Melanie"}, "timestamp": "1:57 pm on 8 May, 2023",
              "content": "How did it feel?"}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert _who_when(path) == [("user", "Caroline", "2023-05-08T13:56:00Z"),
                               ("assistant", "Melanie", "2023-05-08T13:57:00Z")]


@pytest.mark.parametrize("key", ["createdAt", "sent_at", "sentAt", "datetime"])
def test_a_message_time_under_the_keys_apps_write(tmp_path, key):
    """JavaScript apps write ``createdAt``, messaging apps ``sent_at``: the time was dropped
    in silence (the item kept without one)."""
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "name": "Priya", key: "2023-05-08T13:56:00Z",
                                "content": "I signed up for the pottery class yesterday."}) + "\n"
                    + json.dumps({"role": "assistant", "name": "Tomás", key: 1683554220,
                                  "content": "Which studio did you pick?"}) + "\n")
    assert _who_when(path) == [("user", "Priya", "2023-05-08T13:56:00Z"),
                               ("assistant", "Tomás", "2023-05-08T13:57:00Z")]
    sharegpt = tmp_path / "sharegpt.json"
    sharegpt.write_text(json.dumps([{"id": "r1", key: "2023-05-08T13:56:00Z", "conversations": [
        {"from": "human", "value": "How do I centre clay?"},
        {"from": "gpt", "value": "Brace your elbows on your knees."}]}]))
    assert [i.time for i in parse_path(sharegpt).items] == ["2023-05-08T13:56:00Z"] * 2


@pytest.mark.parametrize("key", ["session_date", "date_time", "start_time", "startedAt",
                                 "sessionTimestamp"])
def test_a_sessions_date_under_a_key_of_its_own_dates_its_turns(tmp_path, key):
    """A conversation written {"session_date": "1:56 pm on 8 May, 2023", "messages": [...]}
    (as a multi-session chat converted from LoCoMo writes it) lost its date: every turn was
    kept without a time and the report said the file writes none. A key that names a date or
    a time whose value reads as one dates the turns that write none of their own; one whose
    value is no time ("timezone") is left alone, and one that says when something ended or
    changed ("end_time", "updated_at") is not when the turns were said."""
    path = tmp_path / "chats.jsonl"
    path.write_text(json.dumps({"session_id": "s1", key: "1:56 pm on 8 May, 2023",
                                "timezone": "Europe/Paris", "end_time": "2023-06-01T00:00:00Z",
                                "messages": [
        {"role": "user", "name": "Priya", "content": "I signed up for the pottery class yesterday."},
        {"role": "assistant", "name": "Tomás", "content": "Which studio did you pick?",
         "message_time": "2023-05-08T14:02:00Z"}]}) + "\n")
    assert _who_when(path) == [("user", "Priya", "2023-05-08T13:56:00Z"),
                               ("assistant", "Tomás", "2023-05-08T14:02:00Z")]
    assert parse_path(path).notes == []
    sharegpt = tmp_path / "sharegpt.json"
    sharegpt.write_text(json.dumps([{"id": "r1", key: "2023/05/28 (Sun) 19:47", "conversations": [
        {"from": "human", "value": "How do I centre clay?"},
        {"from": "gpt", "value": "Brace your elbows on your knees."}]}]))
    assert [i.time for i in parse_path(sharegpt).items] == ["2023-05-28T19:47:00Z"] * 2
    # such dates written day first are read so, as the file's other dates decide it
    uk = tmp_path / "uk.jsonl"
    uk.write_text("".join(json.dumps({key: when, "messages": [{"role": "user", "content": text}]})
                          + "\n" for when, text in (("08/05/2023 13:56", "I bought clay."),
                                                    ("25/05/2023 09:00", "I fired a bowl."))))
    assert [i.time for i in parse_path(uk).items] == ["2023-05-08T13:56:00Z",
                                                      "2023-05-25T09:00:00Z"]
    # only a time that ends something: no time, as the report says
    ended = tmp_path / "ended.jsonl"
    ended.write_text(json.dumps({"updated_at": "2023-06-01T00:00:00Z", "messages": [
        {"role": "user", "content": "How thick should a glaze coat be?"}]}) + "\n")
    assert [i.time for i in parse_path(ended).items] == [""]


def test_openai_timestamps_written_day_first_are_read_so_for_the_whole_file(tmp_path):
    """A chat exported in the UK writes "08/05/2023 13:56"; a later "13/05/2023" says the
    file puts the day first, so the first turn is 8 May (it was 5 August, after the turn of
    13 May), and its "yesterday" 7 May."""
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "name": "Priya", "timestamp": "08/05/2023 13:56",
              "content": "I got the keys to the flat yesterday."},
             {"role": "assistant", "name": "Tomás", "timestamp": "08/05/2023 13:58",
              "content": "Congratulations!"},
             {"role": "user", "name": "Priya", "timestamp": "13/05/2023 09:00",
              "content": "Moving day was two days ago."}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert _who_when(path) == [("user", "Priya", "2023-05-08T13:56:00Z"),
                               ("assistant", "Tomás", "2023-05-08T13:58:00Z"),
                               ("user", "Priya", "2023-05-13T09:00:00Z")]
    first = parse_path(path).items[0]
    assert [o for _, p, o in first.relations if p == "mentions_date"] == ["2023-05-07"]
    # one date, either order: read as written, month first (as in the US)
    path.write_text(json.dumps(lines[0]) + "\n")
    assert _who_when(path) == [("user", "Priya", "2023-08-05T13:56:00Z")]


def test_claude_code_roles_and_subagent(tmp_path):
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:04:05.678Z",
         "message": {"role": "user", "content": "Fix the flaky retry test in payments."}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s", "timestamp": "2026-01-02T03:05:00Z",
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "The retry test fails because the clock is not frozen."}]}},
        {"type": "assistant", "uuid": "a2", "sessionId": "s", "isSidechain": True,
         "timestamp": "2026-01-02T03:06:00Z", "message": {"role": "assistant", "content": [
             {"type": "text", "text": "I searched the repository: the clock is patched in conftest."}]}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert _who_when(path, format="claude-code") == [
        ("user", "", "2026-01-02T03:04:05Z"),
        ("assistant", "", "2026-01-02T03:05:00Z"),
        ("assistant", "subagent", "2026-01-02T03:06:00Z"),
    ]


def test_plain_text_named_speaker_lines(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Chat between Priya and Tomás\n"
                    "Date: 1:56 pm on 8 May, 2023\n\n"
                    "Priya: I signed up for the pottery class yesterday!\n"
                    "It starts next Monday.\n"
                    "Tomás: Which studio did you pick for the class?\n"
                    "[2023-05-09 10:00] Priya: The one by the river. Note: bring an apron.\n"
                    "Tomás: Sounds lovely, tell me how the first lesson goes.\n")
    result = parse_path(path)
    assert result.format == "text"
    assert [(i.role, i.speaker, i.time) for i in result.items] == [
        ("user", "Priya", "2023-05-08T13:56:00Z"),
        ("assistant", "Tomás", "2023-05-08T13:56:00Z"),
        ("user", "Priya", "2023-05-09T10:00:00Z"),    # its own bracketed time
        ("assistant", "Tomás", "2023-05-08T13:56:00Z"),
    ]
    assert "Note: bring an apron." in result.items[2].text   # "Note:" once is not a speaker


def test_markdown_bold_speakers_and_dated_headings(tmp_path):
    path = tmp_path / "chat.md"
    path.write_text("# Pottery chats\n\n## Session 1 — 8 May 2023\n\n"
                    "**Priya:** I booked a wheel for Saturday morning.\n\n"
                    "**Tomás:** Bring old clothes, the slip splashes everywhere.\n\n"
                    "## Session 2 — 2023/05/28 (Sun) 19:47\n\n"
                    "**Priya:** My first bowl survived the kiln!\n\n"
                    "**Tomás:** Congratulations, what glaze did you use?\n")
    assert _who_when(path) == [
        ("user", "Priya", "2023-05-08T00:00:00Z"),
        ("assistant", "Tomás", "2023-05-08T00:00:00Z"),
        ("user", "Priya", "2023-05-28T19:47:00Z"),
        ("assistant", "Tomás", "2023-05-28T19:47:00Z"),
    ]


TURNS = [("Priya", "I signed up for the pottery class yesterday."),
         ("Tomás", "Which studio did you pick?"), ("Priya", "The one by the river.")]


@pytest.mark.parametrize("name, write", [
    ("chat.md", lambda when: "".join(f"## {who} ({when})\n\n{text}\n\n" for who, text in TURNS)),
    ("chat.txt", lambda when: "".join(f"{who} ({when}): {text}\n" for who, text in TURNS)),
    ("log.md", lambda when: f"## Session 1 ({when})\n\n"
                            + "".join(f"{who}: {text}\n" for who, text in TURNS)),
], ids=["heading", "speaker line", "session heading"])
@pytest.mark.parametrize("when, iso", [
    ("2023/05/28 (Sun) 19:47", "2023-05-28T19:47:00Z"),     # LongMemEval's dates
    ("2023/05/08(月) 13:56", "2023-05-08T13:56:00Z"),        # as Japanese apps write them
])
def test_a_time_with_its_weekday_in_brackets_inside_the_brackets_of_a_turn(tmp_path, name, write,
                                                                           when, iso):
    """"## Priya (2023/05/28 (Sun) 19:47)": the time's own brackets closed the heading's, so the
    heading was no timed turn and the file was read as notes (speakers lost, the clock time
    dropped); "Priya (2023/05/28 (Sun) 19:47): …" was no speaker line at all, and a session
    heading so written dated its turns at midnight."""
    path = tmp_path / name
    path.write_text(write(when))
    assert _who_when(path) == [("user", "Priya", iso), ("assistant", "Tomás", iso),
                               ("user", "Priya", iso)]


def test_role_speaker_lines_keep_the_role_as_speaker(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("User: Why does the export job crash on big tables?\n"
                    "Assistant: It loads every row at once; stream them instead.\n")
    assert [(i.role, i.speaker) for i in parse_path(path).items] == [("user", ""), ("assistant", "")]


def test_an_unreadable_time_is_reported_with_its_line(home, tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "timestamp": "2023-05-08T13:56:00Z",
                                "content": "Where is the glaze list?"}) + "\n"
                    + json.dumps({"role": "user", "timestamp": "the day after the party",
                                  "content": "Did the kiln reach cone six?"}) + "\n")
    with Memory.open(home) as mem:
        report = mem.ingest([str(path)])
        assert report.new == 2
        assert report.unread_times == [(str(path), 2, "the day after the party")]
        assert report.as_dict()["unread_times"][0]["line"] == 2
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home / "other")])
    assert "times unread: 1" in out.output
    assert "the day after the party" in out.output


def test_a_session_date_line_that_cannot_be_read_is_reported_with_its_line(tmp_path):
    """"Date: sometime in June 2023" over a text chat was dropped without a word, and the
    report said the file writes no time for its turns. A date line whose date cannot be read
    is listed under times unread with its line; the turns after it are not given the date of
    the session before, and a turn's own line of that shape stays its text."""
    path = tmp_path / "chat.txt"
    path.write_text("Date: 1:56 pm on 8 May, 2023\n"
                    "Priya: I signed up for the pottery class yesterday.\n"
                    "Tomás: Which studio did you pick?\n\n"
                    "Session date: sometime in June 2023\n"
                    "Priya: The one by the river, and here is the invite:\n"
                    "Date: whenever the kiln is free\n"
                    "Tomás: Lovely, count me in.\n")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:56:00Z"),
        ("Priya", ""), ("Tomás", "")]
    assert result.unread_times == [(5, "sometime in June 2023")] and result.notes == []
    assert "Date: whenever the kiln is free" in result.items[2].text
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "times unread: 1" in out.output, out.output
    # a clock under its own label gives no date: the date line's turns keep it
    clocked = tmp_path / "clocked.txt"
    clocked.write_text("Date: 8 May 2023\nTime: 10:30\n\nPriya: I bought the clay today.\n"
                       "Tomás: Which clay body did you get?\nPriya: The stoneware one.\n")
    result = parse_path(clocked)
    assert result.unread_times == [] and {i.time for i in result.items} == {"2023-05-08T00:00:00Z"}


def test_a_date_line_without_a_year_is_reported_not_called_no_time(tmp_path):
    """A chat kept by day with dates written without a year (``## May 8th``, ``Mon 8 May``)
    had its turns kept without a time and the report said the file writes none, which it does.
    Such a line cannot be placed in a year: it is listed under times unread with its line, and
    the turns below it keep no time (not the day of a date line above)."""
    path = tmp_path / "chat.md"
    path.write_text("## May 8th\n"
                    "Priya: Are we still on for the river run tomorrow morning?\n"
                    "Tomás: Yes, seven sharp at the bridge.\n\n"
                    "## Tuesday, 9 May\n"
                    "Priya: I got there early and the path was flooded.\n"
                    "Tomás: Sorry, I overslept this morning.\n")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", ""), ("Tomás", ""), ("Priya", ""), ("Tomás", "")]
    assert result.unread_times == [(1, "May 8th"), (5, "Tuesday, 9 May")]
    assert result.notes == []
    # between turns with no blank line too, as a date line with its year is read; a turn's
    # own line that says more than a day stays its text
    kept = tmp_path / "kept.txt"
    kept.write_text("Mon 8 May\nPriya: When is the next race?\nTomás: It is on\n"
                    "June 3rd works for me\nTue 9 May\nPriya: Great, I will sign up tonight.\n")
    result = parse_path(kept)
    assert result.unread_times == [(1, "Mon 8 May"), (5, "Tue 9 May")]
    assert [i.text for i in result.items] == ["When is the next race?",
                                             "It is on\nJune 3rd works for me",
                                             "Great, I will sign up tonight."]


# -- relative dates ---------------------------------------------------------------------------------
def test_relative_dates_resolve_against_the_turns_own_time():
    text = ("I signed up for the pottery class yesterday. Two days ago I bought clay, last "
            "Friday I watched a demo, a couple of weeks ago I decided, and last week I asked.")
    assert relative_dates(text, "2023-05-08T13:56:00Z") == [   # a Monday
        ("yesterday", "2023-05-07"), ("two days ago", "2023-05-06"),
        ("last friday", "2023-05-05"), ("a couple of weeks ago", "2023-04-24"),
        ("last week", "2023-05-01")]
    assert relative_dates(text, "") == []   # no time: nothing to read it against


@pytest.mark.parametrize("text, written, iso, found", [
    # month and year ends, leap years
    ("I saw it the day before yesterday.", "2023-03-01T10:00:00Z", "2023-03-01T10:00:00Z",
     [("the day before yesterday", "2023-02-27")]),
    ("I saw it the day before yesterday.", "1:56 pm on 1 March, 2024", "2024-03-01T13:56:00Z",
     [("the day before yesterday", "2024-02-28")]),
    ("We moved last month.", "2023-03-31T10:00:00Z", "2023-03-31T10:00:00Z",
     [("last month", "2023-02-28")]),
    ("We moved last month.", "March 31, 2024", "2024-03-31T00:00:00Z",
     [("last month", "2024-02-29")]),
    ("I started a year ago.", 1709168400, "2024-02-29T01:00:00Z", [("a year ago", "2023-02-28")]),
    ("Last Tuesday I quit.", "2023/01/02 (Mon) 10:00", "2023-01-02T10:00:00Z",
     [("last tuesday", "2022-12-27")]),
    ("Two weeks ago I quit.", "2023-01-03T10:00:00Z", "2023-01-03T10:00:00Z",
     [("two weeks ago", "2022-12-20")]),
    ("I'll go tomorrow.", "Sun, 31 Dec 2023 23:30:00 +0000", "2023-12-31T23:30:00Z",
     [("tomorrow", "2024-01-01")]),
    # the writer's own day, where UTC is already on another
    ("I went there yesterday.", "2023-01-01T00:30:00+02:00", "2022-12-31T22:30:00Z",
     [("yesterday", "2022-12-31")]),
    ("I'll go tomorrow.", "2023-12-31T23:30:00-05:00", "2024-01-01T04:30:00Z",
     [("tomorrow", "2024-01-01")]),
    ("I went there yesterday.", "2023-03-01T08:30:00+14:00", "2023-02-28T18:30:00Z",
     [("yesterday", "2023-02-28")]),
    ("I went there yesterday.", "2023-03-01T03:30:00-11:00", "2023-03-01T14:30:00Z",
     [("yesterday", "2023-02-28")]),
    # the nights clocks change (Europe on 26 March and 29 October 2023, the US on 12 March)
    ("I ran this morning.", "2023-03-26T00:30:00[Europe/Paris]", "2023-03-25T23:30:00Z",
     [("this morning", "2023-03-26")]),
    ("I went there yesterday.", "2023-03-26T03:30:00[Europe/Paris]", "2023-03-26T01:30:00Z",
     [("yesterday", "2023-03-25")]),
    ("I went there yesterday.", "2023-10-29T00:30:00[Europe/Paris]", "2023-10-28T22:30:00Z",
     [("yesterday", "2023-10-28")]),
    ("I went there yesterday.", "2023-03-12T01:30:00 EST", "2023-03-12T06:30:00Z",
     [("yesterday", "2023-03-11")]),
    ("I went there yesterday.", "2023-03-12 03:30 EDT", "2023-03-12T07:30:00Z",
     [("yesterday", "2023-03-11")]),
], ids=lambda v: v if isinstance(v, str) and v[:1].isdigit() else "")
def test_relative_dates_across_month_and_year_ends_zones_and_clock_changes(text, written, iso,
                                                                           found):
    """Read as ingest reads a turn's time: its UTC time, and the day its words count from, the
    day it was written on where it was written."""
    time = read_turn_time(written)
    assert time == iso
    assert relative_dates(text, time) == found


def test_last_night_and_last_weekend_are_read_as_days():
    text = "We went camping last weekend and I was sick last night."
    assert relative_dates(text, "2023-05-08T13:56:00Z") == [    # a Monday
        ("last weekend", "2023-05-06"), ("last night", "2023-05-07")]
    # on a Sunday "last weekend" is the one before, not the one it is part of
    assert relative_dates(text, "2023-05-07T10:00:00Z")[0] == ("last weekend", "2023-04-29")


def test_the_last_weekday_of_a_month_is_that_day_not_last_week():
    """'The Fenton, last Thursday of March', said on 25 February: 30 March, not 23 February."""
    assert relative_dates("The Fenton, last Thursday of March. Be there.",
                          "2023-02-25T13:15:00Z") == [("last thursday of march", "2023-03-30")]
    assert relative_dates("We met on the last Friday in December.", "2024-01-10T09:00:00Z") == [
        ("the last friday in december", "2023-12-29")]    # the nearest one: the December just gone
    assert relative_dates("I saw her last Thursday.", "2023-02-25T13:15:00Z") == [
        ("last thursday", "2023-02-23")]                   # without "of March": the one before


def test_a_weekday_in_a_past_tense_sentence_is_the_one_before():
    """'I broke my wrist on Thursday', said on Sunday 15 January: Thursday the 12th."""
    sunday = "2023-01-15T17:40:00Z"
    assert relative_dates("Bad news from me. I broke my wrist on Thursday.", sunday) == [
        ("on thursday", "2023-01-12")]
    assert relative_dates("Rosa, the gig on Friday was incredible!", "2022-10-23T09:05:00Z") == [
        ("on friday", "2022-10-21")]
    assert relative_dates("Finished the table on Sunday.", sunday) == [("on sunday", "2023-01-08")]
    # the future, said as the future: the next one
    assert relative_dates("I'll call the landlord on Monday.", sunday) == [("on monday", "2023-01-16")]
    assert relative_dates("We're going to paint it on Saturday.", sunday) == [
        ("on saturday", "2023-01-21")]
    # nothing says which: left alone, as are habits and an excited plan
    assert relative_dates("The first lesson is on Thursday.", sunday) == []
    assert relative_dates("I'm so excited about the gig on Friday!", sunday) == []
    assert relative_dates("We trained on Thursdays.", sunday) == []
    # each sentence by its own tense
    assert relative_dates("She called on Sunday. She wants us in Accra on Monday.",
                          "2024-03-06T20:05:00Z") == [("on sunday", "2024-03-03")]


def test_a_weekdays_tense_is_not_misread_from_names_and_possessives():
    """A participant called Will is not the future, "my cousin's wedding" is not "is wedding",
    and contractions as phones write them count: each of these sentences is told in the past
    (or, "let's", the future), said on Monday 8 May 2023."""
    monday = "2023-05-08T12:00:00Z"
    assert relative_dates("I met Will on Tuesday.", monday) == [("on tuesday", "2023-05-02")]
    assert relative_dates("Hi Will, I went there on Friday", monday) == [("on friday", "2023-05-05")]
    assert relative_dates("Did Will go on Friday?", monday) == [("on friday", "2023-05-05")]
    assert relative_dates("I flew to Madrid on Friday for my cousin's wedding.", monday) == [
        ("on friday", "2023-05-05")]
    assert relative_dates("We went to Anna’s wedding on Saturday.", monday) == [
        ("on saturday", "2023-05-06")]
    assert relative_dates("I didn’t sleep on Sunday.", monday) == [("on sunday", "2023-05-07")]
    assert relative_dates("Couldn't sleep on Sunday.", monday) == [("on sunday", "2023-05-07")]
    assert relative_dates("I wasn't home on Friday.", monday) == [("on friday", "2023-05-05")]
    assert relative_dates("Let's meet on Thursday.", monday) == [("on thursday", "2023-05-11")]
    # the modal at a sentence's start is still the future, "she's coming" still the present
    assert relative_dates("Will you come on Friday?", monday) == [("on friday", "2023-05-12")]
    assert relative_dates("She's coming on Friday and I cleaned.", monday) == []
    # a name ending in -ed that starts a sentence is its subject, not a past verb
    assert relative_dates("Fred will call on Tuesday.", monday) == [("on tuesday", "2023-05-09")]
    assert relative_dates("Ahmed said he flew in on Sunday.", monday) == [
        ("on sunday", "2023-05-07")]
    assert relative_dates("Finished the report on Friday.", monday) == [("on friday", "2023-05-05")]


def test_this_friday_and_this_weekend_are_days_of_this_week():
    """"this Friday" is the Friday of the turn's week, to come unless told in the past;
    "this weekend" its Saturday (the weekend the turn is in, on a Saturday or Sunday)."""
    monday = "2023-05-08T12:00:00Z"
    assert relative_dates("I'm seeing her this Friday.", monday) == [("this friday", "2023-05-12")]
    assert relative_dates("The lesson is this Friday", monday) == [("this friday", "2023-05-12")]
    assert relative_dates("We met this past Friday.", monday) == [("this past friday", "2023-05-05")]
    assert relative_dates("Are you free this weekend?", monday) == [("this weekend", "2023-05-13")]
    assert relative_dates("I cleaned the house this weekend.", monday) == [
        ("this weekend", "2023-05-06")]
    assert relative_dates("We went hiking this past weekend.", monday) == [
        ("this past weekend", "2023-05-06")]
    assert relative_dates("Going camping this weekend.", "2023-05-07T12:00:00Z") == [
        ("this weekend", "2023-05-06")]                 # said on the Sunday of it


def test_a_count_of_days_ago_without_its_article():
    """Chat drops the article: "couple days ago" is "a couple of days ago"."""
    monday = "2023-05-08T12:00:00Z"
    assert relative_dates("got the keys couple days ago", monday) == [
        ("couple days ago", "2023-05-06")]
    assert relative_dates("We moved couple of months ago.", monday) == [
        ("couple of months ago", "2023-03-08")]
    assert relative_dates("few weeks ago we met", monday) == [("few weeks ago", "2023-04-17")]


@pytest.mark.parametrize("text, found", [
    ("I'll fly out to Lisbon in two days.", [("in two days", "2023-05-10")]),
    ("We're going to move in a couple of weeks.", [("in a couple of weeks", "2023-05-22")]),
    ("I'll see you In 3 Months' time!", [("in 3 months' time", "2023-08-08")]),
    ("The recital is two weeks from now.", [("two weeks from now", "2023-05-22")]),
    ("I quit the choir a fortnight ago.", [("a fortnight ago", "2023-04-24")]),
    ("I'll be back in a fortnight.", [("in a fortnight", "2023-05-22")]),
    # a duration, not a date: told in the past, or saying neither
    ("I read the whole book in two days.", []),
    ("The race is in three weeks.", []),
    ("We will finish within two days.", []),
], ids=lambda v: v if isinstance(v, str) else "")
def test_days_ahead_by_a_count_and_a_fortnight(text, found):
    """"in two days" in a sentence told in the future, "two weeks from now" and "a fortnight
    ago" name a day (they were left unresolved: "when does Priya fly out?" had no day)."""
    assert relative_dates(text, "2023-05-08T12:00:00Z") == found   # a Monday


@pytest.mark.parametrize("text, found", [
    ("I left on Monday last week.", [("on monday last week", "2022-12-26")]),
    ("I left Monday of last week.", [("monday of last week", "2022-12-26")]),
    ("Last week on Monday I left.", [("last week on monday", "2022-12-26")]),
    ("I left last week, on Friday.", [("last week, on friday", "2022-12-30")]),
    ("I left the Monday before last.", [("the monday before last", "2022-12-26")]),
    ("We met on Monday two weeks ago.", [("on monday two weeks ago", "2022-12-19")]),
    ("I leave on Tuesday next week.", [("on tuesday next week", "2023-01-10")]),
    ("I leave next week on Sunday.", [("next week on sunday", "2023-01-15")]),
    ("The demo was on Monday this week.", [("on monday this week", "2023-01-02")]),
], ids=lambda v: v if isinstance(v, str) else "")
def test_a_weekday_of_a_week_named_is_that_weeks_day(text, found):
    """"I left on Monday last week", said on Wednesday 4 January, is Monday 26 December: it
    was read as two days, "on Monday" (2 January, noted as exact and wrong) and "last week"
    (28 December), and "the Monday before last" as last Monday. A weekday tied to a week names
    that week's day (weeks from Monday, as ISO 8601 counts them)."""
    assert relative_dates(text, "2023-01-04T10:00:00Z") == found   # a Wednesday
    phrase, day = found[0]   # the day is named exactly
    assert date_note(text, "2023-01-04T10:00:00Z", [day]).startswith(f" [{phrase} = ")


def test_a_participant_named_will_keeps_the_day_a_turn_names(home, tmp_path):
    """Ingested, "I met Will on Tuesday" (Will being one of the people talking) is dated."""
    turns = [("Priya", "user", "1:56 pm on 8 May, 2023", "I met Will on Tuesday at the market."),
             ("Will", "assistant", "2:01 pm on 8 May, 2023", "Yes, and I bought the plums.")]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": r, "name": n, "timestamp": w, "content": t}) + "\n"
                            for n, r, w, t in turns))
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(path)).exit_code == 0
    rows = json.loads(run("query", "relation(H, mentions_date, D), item_speaker(H, S)",
                          "--format", "json").output)
    assert [(r["S"], r["D"]) for r in rows] == [("Priya", "2023-05-02")]


def test_a_day_and_month_without_a_year_is_the_nearest_such_day():
    """'I start on the 3rd of June', said on 21 April 2024, is 3 June 2024."""
    april = "2024-04-21T14:20:00Z"
    assert relative_dates("I took the job. I start on the 3rd of June.", april) == [
        ("the 3rd of june", "2024-06-03")]
    assert relative_dates("Night and Day Café, Friday 21st October.", "2022-09-25T20:30:00Z") == [
        ("friday 21st october", "2022-10-21")]
    assert relative_dates("It was on December 2nd, remember?", "2023-01-20T10:00:00Z") == [
        ("december 2nd", "2022-12-02")]                    # nearer last December than next
    assert relative_dates("Wedding date set: 7 June next year.", "2024-11-10T20:00:00Z") == [
        ("7 june next year", "2025-06-07")]
    assert relative_dates("We married on 8 May 2021.", april) == [("8 may 2021", "2021-05-08")]
    # "may" the verb is no month, and a day that no month has is no day
    assert relative_dates("You may 3 times ask.", april) == []
    assert relative_dates("See you on the 31st of June.", april) == []
    assert date_note("I start on the 3rd of June.", april, ["2024-06-03"]) == \
        " [the 3rd of june = Mon 2024-06-03]"


def test_a_day_of_the_month_alone_is_the_nearest_such_day():
    """'I start on the 28th', said on 14 November, is 28 November: the next 28th unless told in the past."""
    assert relative_dates("I start on the 28th.", "2022-11-14T11:30:00Z") == [
        ("on the 28th", "2022-11-28")]
    assert relative_dates("Interview is in two weeks, on the 16th.", "2023-02-02T18:30:00Z") == [
        ("on the 16th", "2023-02-16")]
    assert relative_dates("We can do the call on the 25th?", "2022-09-04T18:12:00Z") == [
        ("on the 25th", "2022-09-25")]              # a day to come, though 25 August is nearer
    assert relative_dates("We paid on the 30th.", "2023-03-02T10:00:00Z") == [
        ("on the 30th", "2023-01-30")]              # told in the past; February has none
    # with its weekday, the nearest such day that is that weekday
    assert relative_dates("I'm driving it down on Thursday the 14th.", "2023-08-29T21:20:00Z") == [
        ("on thursday the 14th", "2023-09-14")]
    # a century, a place in a race, a day a month names are not a day of this month
    assert relative_dates("Art of the 20th century.", "2023-08-29T21:20:00Z") == []
    assert relative_dates("She finished 3rd on the day.", "2023-08-29T21:20:00Z") == []
    assert relative_dates("on the 3rd of June", "2024-04-21T14:20:00Z") == [
        ("the 3rd of june", "2024-06-03")]


def test_a_capitalised_tomorrow_inside_a_sentence_is_a_title_not_a_day():
    """'Did anyone read Tomorrow, and Tomorrow, and Tomorrow?' names a novel, not 30 January."""
    sunday = "2023-01-29T19:00:00Z"
    assert relative_dates("January book call! Did anyone actually read Tomorrow, and Tomorrow, "
                          "and Tomorrow?", sunday) == []
    assert relative_dates("My favourite Beatles song is Yesterday.", sunday) == []
    # at a sentence's start, in lower case or in capitals it is the day
    assert relative_dates("I PASSED MY DRIVING TEST. Yesterday, first attempt!", sunday) == [
        ("yesterday", "2023-01-28")]
    assert relative_dates("SEE YOU TOMORROW", sunday) == [("tomorrow", "2023-01-30")]
    assert relative_dates("We read it yesterday. Tomorrow we talk.", sunday) == [
        ("yesterday", "2023-01-28"), ("tomorrow", "2023-01-30")]
    assert relative_dates("- Tomorrow: call the vet", sunday) == [("tomorrow", "2023-01-30")]


def test_date_note_shows_each_expression_with_the_day_it_names():
    text = "I signed up yesterday, and last week I asked."
    assert date_note(text, "2023-05-08T13:56:00Z", ["2023-05-07", "2023-05-01"]) == \
        " [yesterday = Sun 2023-05-07; last week ≈ Mon 2023-05-01]"   # weeks are approximate
    # written at 09:00 in Sydney on 8 May (23:00 UTC on the 7th): the day ingest read is kept
    assert date_note("I signed up yesterday.", "2023-05-07T23:00:00Z", ["2023-05-07"]) == \
        " [yesterday = Sun 2023-05-07]"
    assert date_note("", "", ["2023-05-07"]) == " [Sun 2023-05-07]"    # no words found: the day
    assert date_note("no days here", "2023-05-08T13:56:00Z", []) == ""


@pytest.mark.parametrize("text, note", [
    ("I got the keys a few days ago.", " [a few days ago ≈ Fri 2023-05-05]"),
    ("We met a couple of days ago.", " [a couple of days ago ≈ Sat 2023-05-06]"),
    ("I quit the choir a fortnight ago.", " [a fortnight ago ≈ Mon 2023-04-24]"),
    ("We camped at the lake last summer.", " [last summer ≈ Fri 2022-07-15]"),
    ("It snowed a lot this winter.", " [this winter ≈ Sun 2023-01-15]"),
    # named exactly: still "="
    ("I signed up the day before yesterday.", " [the day before yesterday = Sat 2023-05-06]"),
    ("I start on the 3rd of June.", " [the 3rd of june = Sat 2023-06-03]"),
], ids=lambda v: "" if v.startswith(" [") else v)
def test_a_vague_day_is_noted_as_approximate(text, note):
    """"a few days ago = Fri 2023-05-05" and "last summer = Fri 2022-07-15" told the reader of a
    frame an exact day where the words name a span or a rough count (a season's middle day, a
    few as three): such a day is marked "≈", as weeks, months and years already were."""
    monday = "2023-05-08T10:00:00Z"
    days = [day for _, day in relative_dates(text, monday)]
    assert date_note(text, monday, days) == note


# -- end to end -------------------------------------------------------------------------------------
CONVERSATION = [
    ("Priya", "user", "1:56 pm on 8 May, 2023",
     "Guess what, I signed up for the pottery class yesterday! The first lesson is on Thursday."),
    ("Tomás", "assistant", "1:58 pm on 8 May, 2023",
     "That's wonderful. I have been training for the half marathon in the park every morning."),
    ("Priya", "user", "7:10 pm on 20 May, 2023",
     "The wheel is harder than it looks, my first bowl collapsed twice."),
    ("Tomás", "assistant", "7:15 pm on 20 May, 2023",
     "My knee hurts after the long run, so I am resting this week."),
    ("Tomás", "assistant", "9:00 am on 2 June, 2023",
     "I finally booked the trip to Lisbon for the conference in July."),
    ("Priya", "user", "9:05 am on 2 June, 2023",
     "Lisbon is lovely; I went there two years ago with my sister."),
]


def _ingest_conversation(home: Path) -> None:
    path = home.parent / "priya_tomas.jsonl"
    path.write_text("".join(json.dumps({"role": role, "name": name, "timestamp": when,
                                        "content": text}) + "\n"
                            for name, role, when, text in CONVERSATION))
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    ingest = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)],
                                catch_exceptions=False)
    assert ingest.exit_code == 0, ingest.output
    with Memory.open(home) as mem:
        mem.curate()


@pytest.fixture
def conversation_home(home, built_home):
    """`atc ARGS` on a copy of a home (built once per process) holding CONVERSATION, curated."""
    built_home("who-when-conversation", _ingest_conversation, home)
    return lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)


def test_query_item_speaker_lists_her_items(conversation_home):
    out = conversation_home("query", 'item_speaker(H, "Priya"), item_time(H, T)', "--format", "json")
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert sorted(r["T"] for r in rows) == ["2023-05-08T13:56:00Z", "2023-05-20T19:10:00Z",
                                            "2023-06-02T09:05:00Z"]
    mine = json.loads(conversation_home("query", 'item_speaker(H, S)', "--format", "json").stdout)
    assert {r["S"] for r in mine} == {"Priya", "Tomás"}


def test_the_day_a_turn_names_is_a_queryable_fact(conversation_home):
    out = conversation_home("query", 'relation(H, mentions_date, D), item_speaker(H, S)',
                            "--format", "json")
    rows = {(r["S"], r["D"]) for r in json.loads(out.stdout)}
    assert ("Priya", "2023-05-07") in rows          # "yesterday", said on 8 May
    assert ("Priya", "2021-06-02") in rows          # "two years ago", said on 2 June 2023


def test_hydrate_names_the_speaker_and_favours_the_person_asked_about(conversation_home):
    out = conversation_home("hydrate", "--goal", "When did Priya start the pottery class?",
                            "--budget", "400", "--format", "json")
    assert out.exit_code == 0, out.output
    frame = json.loads(out.output)
    assert "Priya: Guess what, I signed up for the pottery class yesterday!" in frame["text"]
    assert "Tomás: " in frame["text"] or len(frame["receipt"]["facts"]) <= 3
    first = frame["receipt"]["facts"][0]
    speaker = json.loads(conversation_home("query", f'item_speaker({first["handle"]}, S)',
                                           "--format", "json").output)
    assert speaker == [{"S": "Priya"}]
    text = conversation_home("hydrate", "--goal", "When did Priya start the pottery class?").output
    assert any(line.strip().startswith("Priya: ") for line in text.splitlines())


def test_the_receipt_names_each_facts_speaker_and_the_time_the_goal_was_read_against(conversation_home):
    goal = "When did Priya start the pottery class?"
    frame = json.loads(conversation_home("hydrate", "--goal", goal, "--budget", "600",
                                         "--format", "json").output)
    receipt = frame["receipt"]
    assert receipt["now"] == "2023-06-02T09:05:00Z"  # no --now: the newest item's time
    for fact in receipt["facts"]:
        who = json.loads(conversation_home("query", f'item_speaker({fact["handle"]}, S)',
                                           "--format", "json").output)
        assert fact.get("speaker") == (who[0]["S"] if who else None)
    assert {f["speaker"] for f in receipt["facts"] if "speaker" in f} <= {"Priya", "Tomás"}
    assert any(f.get("speaker") == "Priya" for f in receipt["facts"])
    given = json.loads(conversation_home("hydrate", "--goal", goal, "--now", "2023-07-01T08:00:00Z",
                                         "--format", "json").output)
    assert given["receipt"]["now"] == "2023-07-01T08:00:00Z"


def test_the_frame_says_the_time_its_goal_was_read_against(conversation_home):
    """"How many days ago did Priya start pottery?" counts from now: the frame says it, not only
    the receipt, and pays for the words."""
    goal = "How many days ago did Priya start the pottery class?"
    for args, now in (((), "as of Fri 2023-06-02 09:05"),
                      (("--now", "2023-07-01T08:00:00Z"), "as of Sat 2023-07-01 08:00")):
        text = conversation_home("hydrate", "--goal", goal, "--budget", "300", *args).output
        assert text.splitlines()[1].endswith(f" · {now} · times UTC")
        envelope = conversation_home("hydrate", "--goal", goal, "--budget", "300", *args,
                                     "--format", "envelope").output
        assert estimate_tokens(envelope) <= 300


def test_goal_speaker_reads_names_memory_knows(conversation_home):
    out = conversation_home("query", 'goal_speaker("what did Tomás say about his knee", A), '
                            'goal_speaker("Did Priya\'s bowl survive?", B), '
                            'goal_speaker("what did you suggest", C)', "--format", "json")
    assert json.loads(out.stdout) == [{"A": "Tomás", "B": "Priya", "C": "assistant"}]
    none = conversation_home("query", 'goal_speaker("will priyanka like clay", X)', "--format", "json")
    assert json.loads(none.stdout) == []


def test_a_name_typed_in_lower_case_in_a_sentence_is_that_speaker(conversation_home):
    """People type "What did priya say?": a capital at a sentence's start (or on "I") shows
    nothing of how the writer spells names, so the lower-case name is Priya's; a goal that
    capitalises another word mid-sentence spells names with capitals, and "will" there is no
    one's name."""
    out = conversation_home("query",
                            'goal_speaker("What did priya say about the pottery class?", A), '
                            'goal_speaker("When did tomas book the trip? I forgot.", B), '
                            'goal_speaker("Is it true? what did priya make", C)',
                            "--format", "json")
    assert json.loads(out.stdout) == [{"A": "Priya", "B": "Tomás", "C": "Priya"}]
    cased = conversation_home("query", 'goal_speaker("Did priya visit Lisbon with Dana?", X)',
                              "--format", "json")
    assert json.loads(cased.stdout) == []


def test_a_name_in_a_question_written_without_spaces_between_words(home):
    """Chinese and Japanese write no spaces between words: "李雷昨天做了什么？" names 李雷, but
    the goal was read word by word and no word was his name, so nobody was asked about (it was
    found only with spaces around it). A name in a script written without spaces is found
    inside the goal's text, and the embedder reads the goal without it."""
    path = home.parent / "chat.txt"
    path.write_text("2023年5月8日\n李雷：我昨天开始上陶艺课。\n韩梅梅：第一节课怎么样？\n"
                    "李雷：很好，我做了一个碗。\n韩梅梅：下次带我去吧。\n")
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([str(path)])
        mem.curate()
        rows = mem.query('goal_speaker("李雷昨天做了什么？", A), goal_speaker("韩梅梅说了什么", B), '
                         'goal_speaker("What did 李雷 make?", C)').rows
        assert rows == [{"A": "李雷", "B": "韩梅梅", "C": "李雷"}]
        assert mem.query('goal_speaker("昨天做了什么？", X)').rows == []
        asked = record_embedded(mem)
        mem.hydrate("李雷昨天做了什么？", budget=400)
        assert set(asked) == {"昨天做了什么？"}


def test_a_name_typed_without_its_accents_is_that_speaker(conversation_home, home):
    """People type "Tomas" for the Tomás an export names: the goal names him all the same, is
    weighed toward his turns and reaches the embedder without his name."""
    out = conversation_home("query", 'goal_speaker("What did Tomas say about his knee?", A), '
                            'goal_speaker("When did TOMAS book the trip", B)', "--format", "json")
    assert json.loads(out.stdout) == [{"A": "Tomás", "B": "Tomás"}]
    with Memory.open(home) as mem:
        asked = record_embedded(mem)
        frame = mem.hydrate("What did Tomas say about his knee?", budget=400)
        assert set(asked) == {"What did say about his knee?"}
        assert frame.facts[0].text == "Tomás: My knee hurts after the long run, so I am resting this week."


def test_a_name_ending_in_s_with_its_possessive_apostrophe(conversation_home, home):
    """"Tomás' knee" (the possessive of a name ending in s, written as people write it) names
    Tomás, as "Priya's bowl" names Priya."""
    out = conversation_home("query", 'goal_speaker("Why did Tomás\' knee hurt?", A), '
                            'goal_speaker("Why did Tomas’ knee hurt?", B)', "--format", "json")
    assert json.loads(out.stdout) == [{"A": "Tomás", "B": "Tomás"}]
    with Memory.open(home) as mem:
        asked = record_embedded(mem)
        mem.hydrate("Why did Tomás' knee hurt?", budget=400)
        assert set(asked) == {"Why did knee hurt?"}


def record_embedded(mem: Memory) -> list[str]:
    """The texts ``mem``'s embedder is asked to embed from now on (a list that fills up)."""
    asked: list[str] = []
    inner = mem.jump.embedder

    class Recording:
        id, dim = inner.id, inner.dim

        def embed(self, texts, batch_size=64):
            asked.extend(texts)
            return inner.embed(texts, batch_size=batch_size)

    mem.jump._embedder = Recording()
    return asked


def test_the_embedder_reads_the_goal_without_the_speakers_it_names(conversation_home, home):
    """Every turn is embedded after its speaker's name, so a name in the question would pull the
    jump toward that speaker's shortest turns; the embedder gets the question without the names
    of the people memory knows (who is asked about is weighed by the speaker prior), while BM25
    still reads them."""
    with Memory.open(home) as mem:
        asked = record_embedded(mem)
        frame = mem.hydrate("When did Priya and Tomás's friend start the pottery class?", budget=400)
        assert asked and set(asked) == {"When did and friend start the pottery class?"}
        assert any("pottery class yesterday" in f.text for f in frame.facts)
        asked.clear()
        mem.hydrate("will it rain on the marathon", budget=400)   # nobody named: as written
        assert set(asked) == {"will it rain on the marathon"}


def test_the_jump_reads_the_goal_without_the_time_it_names(conversation_home, home):
    """The words of the time a goal names say when, which the window weighs: read as words by
    the embedder and BM25 they favoured every turn that says "two years ago" or "in June",
    whenever it was said."""
    with Memory.open(home) as mem:
        asked = record_embedded(mem)
        searched: list[str] = []
        lexical_hits = mem.jump.lexical_hits

        def recording_lexical(query, k, options):
            searched.append(str(query))
            return lexical_hits(query, k, options)

        mem.jump.lexical_hits = recording_lexical
        frame = mem.hydrate("Which trip did Tomás book in June 2023?", budget=400)
        assert frame.receipt["anchor"]["phrase"] == "in june 2023"
        assert set(asked) == {"Which trip did book"}   # the "?" went with "2023?"
        # BM25 reads it with the name, and without it for Tomás's own turns past its page
        assert set(searched) == {"Which trip did Tomás book", "Which trip did book"}
        asked.clear(), searched.clear()
        mem.hydrate("What happened two years ago?", budget=400, now="2023-06-02T09:05:00Z")
        assert set(asked) == {"What happened"} and set(searched) == {"What happened"}
        asked.clear(), searched.clear()
        mem.hydrate("yesterday?", budget=400)        # nothing but its time: read as written
        assert set(asked) == {"yesterday?"}


def test_a_goal_that_asks_only_a_time_takes_its_window_first(home, tmp_path):
    """"What did Tomás do on May 28?" names no topic: its cosines would favour the turns that
    look like its question ("What did you do?"), and the turn that says what he did that day
    (said on 2 June, "last Sunday") must come first all the same."""
    turns = [("Tomás", "10:00 am on 3 April, 2023", "What did you do on the weekend?"),
             ("Priya", "10:05 am on 3 April, 2023", "I did the pottery class, what did you do?"),
             ("Tomás", "9:00 am on 20 April, 2023", "What did you do about it?"),
             ("Tomás", "9:10 am on 20 April, 2023", "Did you do it on time?"),
             ("Priya", "6:00 pm on 2 June, 2023", "How were the mountains?"),
             ("Tomás", "6:05 pm on 2 June, 2023", "The hike up Mount Tam last Sunday destroyed my legs."),
             ("Tomás", "7:00 pm on 9 July, 2023", "What did you do with the old bookshelf?")]
    path = tmp_path / "hike.jsonl"
    path.write_text("".join(json.dumps({"role": "user" if n == "Priya" else "assistant",
                                        "name": n, "timestamp": t, "content": c}) + "\n"
                            for n, t, c in turns))
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([path])
        mem.curate()
        for goal, now in (("What did Tomás do on May 28?", "2023-06-02T18:05:00Z"),
                          ("What happened last weekend?", "2023-05-31T12:00:00Z"),
                          ("yesterday?", "2023-05-29T12:00:00Z")):   # nothing but its time
            frame = mem.hydrate(goal, budget=200, now=now)
            assert "Mount Tam" in frame.facts[0].text, (goal, frame.text)
            assert frame.receipt["facts"][0]["in_window"] == "2023-05-28"
        # a goal with a topic keeps the ×1.4: the window weighs in, it does not come first
        topical = mem.hydrate("Did Tomás do the bookshelf on May 28?", budget=200,
                              now="2023-07-10T00:00:00Z")
        assert "bookshelf" in topical.facts[0].text


def test_a_goal_asking_for_the_newest_favours_the_newest_of_its_matches(home, tmp_path):
    """"What happened most recently with the car?": of the turns about the car, the newest
    leads; a turn about something else does not come in for being new."""
    turns = [("1:00 pm on 3 March, 2023", "The car broke down on the motorway."),
             ("1:00 pm on 9 May, 2023", "The car got new tyres at the garage."),
             ("1:00 pm on 1 August, 2023", "The car was sold to a neighbour."),
             ("1:00 pm on 2 August, 2023", "We had pasta for dinner.")]
    path = tmp_path / "car.jsonl"
    path.write_text("".join(json.dumps({"role": "user", "name": "Tomás", "timestamp": t,
                                        "content": c}) + "\n" for t, c in turns))
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([path])
        mem.curate()
        plain = mem.hydrate("What happened with the car?", budget=300)
        assert "recency" not in plain.receipt
        newest = mem.hydrate("What happened most recently with the car?", budget=300)
        assert newest.receipt["recency"] == "most recently"
        cars = [f.text for f in newest.facts if "car" in f.text]
        assert cars[0] == "Tomás: The car was sold to a neighbour.", newest.text
        assert "pasta" not in newest.facts[0].text


def test_a_time_anchored_goal_finds_the_day_a_turn_named(conversation_home):
    """'yesterday' said on 8 May is 7 May: a goal about 7 May weighs that turn in."""
    out = conversation_home("hydrate", "--goal", "what did Priya do on May 7", "--now",
                            "2023-05-09T12:00:00Z", "--budget", "300", "--format", "json")
    receipt = json.loads(out.output)["receipt"]
    assert receipt["anchor"]["phrase"] == "may 7"
    assert "pottery class yesterday" in json.loads(out.output)["text"]


def test_the_frame_shows_the_day_a_relative_expression_names(conversation_home):
    """'yesterday' said on 8 May: the frame says it was 7 May, and pays for saying so."""
    for budget in ("200", "400"):
        out = conversation_home("hydrate", "--goal", "When did Priya start the pottery class?",
                                "--budget", budget, "--format", "json")
        frame = json.loads(out.output)
        assert ("Priya: Guess what, I signed up for the pottery class yesterday! The first lesson "
                "is on Thursday. [yesterday = Sun 2023-05-07]") in frame["text"]
        envelope = conversation_home("hydrate", "--goal", "When did Priya start the pottery "
                                     "class?", "--budget", budget, "--format", "envelope").output
        assert "[yesterday = Sun 2023-05-07]" in envelope
        assert estimate_tokens(envelope) <= int(budget)   # the note is paid for
    lisbon = conversation_home("hydrate", "--goal", "Who went to Lisbon with her sister?",
                               "--budget", "400").output
    assert "two years ago with my sister. [two years ago ≈ Wed 2021-06-02]" in lisbon


def test_a_goal_about_the_day_a_past_weekday_names_finds_that_turn(home, tmp_path):
    """'I broke my wrist on Thursday', said on Sunday 15 January: a goal about 12 January finds
    it, and the frame says which day it was."""
    turns = [("Mei", "user", "5:40 pm on 15 January, 2023", "Bad news from me. I broke my wrist on Thursday."),
             ("Rosa", "assistant", "5:41 pm on 15 January, 2023", "Oh no! I'll bring soup."),
             ("Mei", "user", "7:00 pm on 29 January, 2023", "Reading one-handed is slow."),
             ("Rosa", "assistant", "7:01 pm on 29 January, 2023", "The book club meets on the 5th?")]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": r, "name": n, "timestamp": w, "content": t}) + "\n"
                            for n, r, w, t in turns))
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(path)).exit_code == 0
    with Memory.open(home) as mem:
        mem.curate()
    days = {(r["D"]) for r in json.loads(run("query", "relation(H, mentions_date, D)", "--format",
                                             "json").output)}
    assert days == {"2023-01-12", "2023-02-05"}       # Thursday the 12th; the 5th to come
    out = run("hydrate", "--goal", "What happened to Mei on 12 January 2023?", "--now",
              "2023-02-01T12:00:00Z", "--budget", "300", "--format", "json")
    frame = json.loads(out.output)
    assert "I broke my wrist on Thursday. [on thursday = Thu 2023-01-12]" in frame["text"]


def test_the_receipt_says_which_facts_the_window_counted_and_why(conversation_home):
    """A fact inside the window a goal names says so: written there, or naming a day there."""
    def facts(goal):
        out = conversation_home("hydrate", "--goal", goal, "--budget", "600", "--format", "json")
        frame = json.loads(out.output)
        return frame["receipt"]["facts"], frame["text"]

    named, text = facts("What did Priya do in June 2021?")   # "two years ago", said 2 June 2023
    assert "two years ago with my sister" in text
    lisbon = [f for f in named if f["time"] == "2023-06-02T09:05:00Z" and f.get("speaker") == "Priya"]
    assert [f["in_window"] for f in lisbon] == ["2021-06-02"]
    assert all(f.get("in_window") in (None, "2021-06-02") for f in named)
    written, _ = facts("What did Tomás say in May 2023?")
    turns = [f for f in written if "speaker" in f]     # items: arcs and rollups have no window
    assert {f["in_window"] for f in turns if f["time"].startswith("2023-05")} == {"written"}
    assert not any("in_window" in f for f in written if not f["time"].startswith("2023-05"))
    # the frame says how many of its facts lie inside the window: none, when memory is silent then
    empty = conversation_home("hydrate", "--goal", "What did Priya do in March 2022?").output
    # its window in the frame's own words for times (a weekday, the day, the clock, as the
    # day lines and "as of" write them), not ISO stamps; the receipt's anchor keeps those
    assert "anchored to \"in march 2022\": Tue 2022-03-01 00:00 .. Fri 2022-04-01 00:00 · 0 facts inside" in empty
    may = conversation_home("hydrate", "--goal", "What did Tomás say in May 2023?", "--budget", "600").output
    assert f" · {sum(1 for f in written if 'in_window' in f)} facts inside" in may
    unanchored, _ = facts("When did Priya start the pottery class?")
    assert not any("in_window" in f for f in unanchored)


def _anchor(conversation_home, goal, *options):
    """The receipt's anchor and the frame's anchor line for ``goal`` (a 400-token frame)."""
    out = conversation_home("hydrate", "--goal", goal, *options, "--budget", "400",
                            "--format", "json")
    assert out.exit_code == 0, out.output
    frame = json.loads(out.output)
    line = next(l for l in frame["text"].splitlines() if l.startswith("anchored to"))
    return frame["receipt"]["anchor"], line


def test_a_bound_anchors_to_an_open_window_and_two_times_to_their_span(conversation_home):
    """"before 20 May" is everything up to that day, not the day; "in May and June" both months.

    Before, the frame was anchored to "on 20 may" alone (its day either side) and to May alone."""
    def anchor(goal):
        return _anchor(conversation_home, goal)

    bound, line = anchor("What did Priya say before 20 May?")
    assert bound == {"phrase": "before 20 may", "from": "0001-01-01T00:00:00Z",
                     "to": "2023-05-20T00:00:00Z"}
    assert line.startswith('anchored to "before 20 may": up to Sat 2023-05-20 00:00 · ')
    assert not line.endswith(" 0 facts inside")          # 8 May's turns lie inside
    span, line = anchor("What did Priya and Tomás talk about in May and June?")
    assert span == {"phrase": "in may and june", "from": "2023-05-01T00:00:00Z",
                    "to": "2023-06-02T09:05:00Z"}    # June is cut at now, the newest item


def test_homes_written_before_speakers_replay_with_the_role(home):
    """Items from journals without speaker links (older homes, role-only formats) answer
    item_speaker/2 with their role, before and after the home is reopened from its journal."""
    fixture = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"
    with Memory.open(home) as mem:
        mem.ingest([str(fixture)])
        before = mem.query("item_speaker(H, S), item_role(H, R)").rows
    (home / "snapshot.qlf").unlink(missing_ok=True)   # replay the journal itself
    with Memory.open(home) as mem:
        after = mem.query("item_speaker(H, S), item_role(H, R)").rows
        unnamed = mem.query("item_speaker(H, S), item_role(H, R), \\+ relation(H, speaker, _)").rows
    assert before and sorted(map(str, before)) == sorted(map(str, after))
    assert unnamed and all(r["S"] == r["R"] for r in unnamed)


# -- the formats of issue 15 ------------------------------------------------------------------------
FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
ISSUE_15_FORMATS = [
    ("chatgpt_conversations.json", "chatgpt"),
    ("sharegpt.json", "sharegpt"),
    ("swe_agent_run.traj", "trajectory"),
    ("timed_log.md", "markdown"),
    ("whatsapp_chat.txt", "whatsapp"),
    ("telegram_result.json", "telegram"),
    ("slack_export/running-club/2023-05-08.json", "slack"),
    ("discord_export.json", "discord"),
    ("Running Club - general [901].csv", "discord"),
    ("Running Club - general [901].html", "discord"),
    ("messenger_export/your_facebook_activity/messages/inbox/runningclub_3825/message_1.json",
     "messenger"),
    ("messenger_export/your_facebook_activity/messages/inbox/runningclub_3825/message_1.html",
     "messenger"),
    ("instagram_export/your_instagram_activity/messages/inbox/dana_1742/message_1.html",
     "messenger"),
    ("google_chat_takeout/Google Chat/Groups/Space AAAAx7Yq2/messages.json", "google-chat"),
    ("open_webui_export.json", "open-webui"),
    ("librechat_export_tree.json", "librechat"),
    ("skype_export/messages.json", "skype"),
    ("continue/sessions/5f1c9e2a-7d3b-4b8e-9a51-0c2d4e6f8a10.json", "continue"),
    ("sillytavern/Seraphina - 2023-05-08@13h56m03s.jsonl", "sillytavern"),
    ("Priya Patel.txt", "imessage"),
    ("claude_code_21/5e55a1f0-0000-4000-8000-00000000c0de.jsonl", "claude-code"),
    # the formats issue 15 did not add, each as its fixture writes it
    ("openai_chat.json", "openai"),
    ("anthropic_messages.json", "anthropic"),
    ("openai_responses.json", "openai-responses"),
    ("codex_rollout.jsonl", "codex"),
    ("claude_ai_conversations.json", "claude-ai"),
    ("openhands_trajectory.json", "openhands"),
    ("locomo10_sample.json", "locomo"),
    ("longmemeval_instance.json", "longmemeval"),
    ("transcript.txt", "text"),
    ("gemini_cli_session.json", "gemini"),
    ("2025-03-payments-sync.md", "notes"),
]


@pytest.mark.parametrize("name, fmt", ISSUE_15_FORMATS, ids=[f for _, f in ISSUE_15_FORMATS])
def test_each_format_keeps_speaker_and_time_in_the_journal(home, name, fmt):
    path = FIXTURES / name
    parsed = parse_path(path)
    assert parsed.format == fmt and parsed.items
    with Memory.open(home) as mem:
        mem.ingest([str(path)])
        rows = mem.query("item_speaker(H, S), item_time(H, T)", limit=1000).rows
    assert {(r["H"], r["S"], r["T"]) for r in rows} == {
        (i.handle, i.speaker or i.role, i.time) for i in parsed.items}
    if fmt != "trajectory":                       # trajectories carry no times
        assert any(r["T"] for r in rows)


def _people_said(name: str) -> dict[str, list]:
    """Each person a fixture names as a speaker (not a tool), with the items they said."""
    said: dict[str, list] = {}
    for item in parse_path(FIXTURES / name).items:
        if item.speaker and item.role in ("user", "assistant"):
            said.setdefault(item.speaker, []).append(item)
    return said


NAMED_FORMATS = [(name, fmt) for name, fmt in ISSUE_15_FORMATS if _people_said(name)]


@pytest.mark.parametrize("name, fmt", NAMED_FORMATS, ids=[f"{f}:{n}" for n, f in NAMED_FORMATS])
def test_each_format_s_frame_says_who_and_when_of_the_person_asked_about(home, name, fmt):
    """A question naming a participant of a file, in any format that names its speakers, brings
    that person's turn into the frame written "Name: …", under the day it was said."""
    said = _people_said(name)
    person = min(said, key=lambda who: (len(said[who]), who))   # the one who said least
    first = person.split()[0]                                     # asked by their first name
    with Memory.open(home) as mem:
        mem.ingest([str(FIXTURES / name)])
        frame = mem.hydrate(f"What did {first} say?", budget=2000)
    theirs = {i.handle: i for i in said[person]}
    shown = [f for f in frame.facts if f.handle in theirs]
    assert shown, frame.text
    assert any(f.text.startswith(f"{person}: ") for f in shown), [f.text for f in shown]
    timed = [theirs[f.handle].time for f in shown if theirs[f.handle].time]
    assert all(time[:10] in frame.text for time in timed)


# -- a file that writes no time: the report says so -------------------------------------------------
UNTIMED = [
    # (file name, content, items without a time, items in all)
    ("chat.txt", "User: Why does the export job crash on big tables?\n"
                 "Assistant: It loads every row at once; stream them instead.\n", 2, 2),
    ("checkpoint-fix.json", json.dumps([
        {"role": "user", "parts": [{"text": "The build broke after my last merge, help"}]},
        {"role": "model", "parts": [{"text": "Run the failing job locally first."}]}]), 2, 2),
    ("sharegpt.json", json.dumps([{"id": "s1", "conversations": [
        {"from": "human", "value": "How do I centre clay on the wheel?"},
        {"from": "gpt", "value": "Brace your elbows on your knees and push down."}]}]), 2, 2),
    # a system prompt before timed messages: that one item has none
    ("chat.json", json.dumps([
        {"role": "system", "content": "You are a pottery tutor."},
        {"role": "user", "content": "How thick should a glaze coat be?",
         "timestamp": "2023-05-08T13:56:00Z"}]), 1, 2),
]


@pytest.mark.parametrize("name, content, untimed, total", UNTIMED, ids=[u[0] for u in UNTIMED])
def test_items_the_file_gives_no_time_are_said_in_the_report(tmp_path, name, content, untimed,
                                                            total):
    """An item kept without a time because its file writes none was said nowhere (only an
    unreadable time was reported): the report notes how many, so no item loses its time in
    silence; an item whose time could not be read is counted under times unread, not here."""
    path = tmp_path / name
    path.write_text(content)
    result = parse_path(path)
    assert sum(1 for i in result.items if not i.time) == untimed and len(result.items) == total
    assert result.notes == [f"{untimed} of {total} items have no time: the file writes none "
                            "for them"]
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0, out.output
    assert f"note {path}: {untimed} of {total} items have no time" in out.output


def test_an_unread_time_is_not_also_counted_as_a_time_the_file_lacks(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "timestamp": "the day after the party",
                                "content": "Did the kiln reach cone six?"}) + "\n")
    result = parse_path(path)
    assert result.unread_times == [(1, "the day after the party")] and result.notes == []


def test_a_session_whose_date_is_unread_is_not_also_noted_as_undated(tmp_path):
    """A LoCoMo session without a readable date is listed under times unread once, its turns
    not counted again in the note on items the file gives no time."""
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([{"sample_id": "conv-1", "conversation": {
        "speaker_a": "Caroline", "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "I went hiking."}],
        "session_2_date_time": "sometime in June",
        "session_2": [{"speaker": "Caroline", "dia_id": "D2:1", "text": "I painted a lake."},
                      {"speaker": "Melanie", "dia_id": "D2:2", "text": "Show me the lake!"}]}}]))
    result = parse_path(path)
    assert [bool(i.time) for i in result.items] == [True, False, False]
    assert result.unread_times == [(2, "sometime in June")] and result.notes == []


@pytest.mark.parametrize("text, phrase", [
    ("I went running this morning.", "this morning"),
    ("We're going out tonight.", "tonight"),
    ("Earlier today I called the bank.", "earlier today"),
    ("I'll ring her later today.", "later today"),
    ("I picked up the glaze this afternoon.", "this afternoon"),
    ("I'm flying out this evening.", "this evening"),
])
def test_a_part_of_the_turns_own_day_is_that_day(text, phrase):
    """Before, "this morning", "tonight", "earlier today" named no day: now each is the day
    the turn was written on, in its own zone (23:00 UTC on the 9th is the 10th in Sydney)."""
    assert relative_dates(text, "2023-05-10T15:00:00Z") == [(phrase, "2023-05-10")]
    sydney = read_turn_time("2023-05-10T09:00:00+10:00")   # 23:00 UTC on the 9th
    assert relative_dates(text, sydney) == [(phrase, "2023-05-10")]


def test_a_weekday_without_on_is_read_by_its_sentences_tense():
    """Before, "I saw her Friday" (no "on") named no day: now it is read as "on Friday" is,
    the one before in a sentence told in the past, never one after the turn."""
    wednesday = "2023-05-10T15:00:00Z"
    assert relative_dates("I saw her Friday.", wednesday) == [("friday", "2023-05-05")]
    assert relative_dates("Friday was rough.", wednesday) == [("friday", "2023-05-05")]
    assert relative_dates("I'll see you Friday.", wednesday) == [("friday", "2023-05-12")]
    assert relative_dates("Monday I started the new job.", wednesday) == [("monday", "2023-05-08")]
    # neither tense, a habit, a name of a day: left alone
    assert relative_dates("The market is open Friday.", wednesday) == []
    assert relative_dates("We train Fridays.", wednesday) == []
    assert relative_dates("I bought a coat on Black Friday.", wednesday) == []
    # a weekday that names its date is that date, not a second day
    assert relative_dates("I'll see you Friday, June 2nd.", wednesday) == [
        ("june 2nd", "2023-06-02")]
    assert relative_dates("I'll see you on Friday, June 2nd.", wednesday) == [
        ("june 2nd", "2023-06-02")]


def test_an_openai_chats_numeric_dates_are_ordered_as_a_text_chats_are(tmp_path):
    """Before, an OpenAI-style log whose times were "08/05/2023 1:56 PM" … "10/05/2023 9:00
    AM" (no number above 12, in order both ways) was read month first without a word: three
    days became 5 August, 5 September and 5 October. Now the file is read as a text or
    WhatsApp file is: the order under which the dates lie closest, and the report says so."""
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"role": role, "name": name, "timestamp": stamp,
                                        "content": text}) + "\n" for role, name, stamp, text in [
        ("user", "Priya", "08/05/2023 1:56 PM", "I signed up for the pottery class"),
        ("assistant", "Arjun", "09/05/2023 9:01 AM", "Which studio did you pick?"),
        ("user", "Priya", "10/05/2023 6:30 PM", "The one on MG Road, first lesson went well")]))
    result = parse_path(path)
    assert [i.time for i in result.items] == [
        "2023-05-08T13:56:00Z", "2023-05-09T09:01:00Z", "2023-05-10T18:30:00Z"]
    assert len(result.notes) == 1 and "read as day/month" in result.notes[0]


@pytest.mark.parametrize("text, found", [
    ("We went to Lisbon last summer.", [("last summer", "2022-07-15")]),
    ("I'm moving to Porto next summer.", [("next summer", "2023-07-15")]),
    ("We met last winter.", [("last winter", "2023-01-15")]),
    ("I started pottery last fall.", [("last fall", "2022-10-15")]),
    ("This spring I planted tomatoes.", [("this spring", "2023-04-15")]),
    ("In the summer of 2019 I lived in Accra.", [("summer of 2019", "2019-07-15")]),
])
def test_a_season_names_its_middle_day(text, found):
    """Before, "last summer" named no day. A season is read as the northern hemisphere's
    (summer June to August), its middle day stored: said on 10 May 2023, "last summer" is
    mid-July 2022, "last winter" mid-January 2023."""
    assert relative_dates(text, "2023-05-10T15:00:00Z") == found


@pytest.mark.parametrize("stamp, found", [
    # a zone south of the equator: its summer is December to February
    ("2023-05-10T09:00:00+10:00[Australia/Sydney]", [("last summer", "2023-01-15"),
                                                    ("next winter", "2023-07-15")]),
    ("2023-05-10 09:00 AEST", [("last summer", "2023-01-15"), ("next winter", "2023-07-15")]),
    ("2023-05-10T09:00:00[America/Sao_Paulo]", [("last summer", "2023-01-15"),
                                                ("next winter", "2023-07-15")]),
    # a zone north of it, or none: June to August
    ("2023-05-10T09:00:00+02:00[Europe/Paris]", [("last summer", "2022-07-15"),
                                                ("next winter", "2024-01-15")]),
    ("2023-05-10T09:00:00Z", [("last summer", "2022-07-15"), ("next winter", "2024-01-15")]),
])
def test_a_season_is_read_in_the_hemisphere_its_time_was_written_in(stamp, found):
    """Before, seasons were always the northern hemisphere's: in Sydney in May, "last summer"
    was July 2022, a winter away from the summer meant. A time written in a zone that says
    where (an IANA name, AEST) reads the season there."""
    time = read_turn_time(stamp)
    assert relative_dates("Last summer was hot; next winter I'll ski.", time) == found


def test_a_season_read_without_knowing_the_hemisphere_is_said_in_a_note():
    southern = parse_text("\n".join(json.dumps(m) for m in [
        {"role": "user", "name": "Mia", "content": "We camped at the beach last summer.",
         "timestamp": "2023-05-10T09:00:00+10:00[Australia/Sydney]"}]), name="chat.jsonl")
    assert southern.items[0].relations and southern.notes == []
    unknown = parse_text("\n".join(json.dumps(m) for m in [
        {"role": "user", "name": "Mia", "content": "We camped at the beach last summer.",
         "timestamp": "2023-05-10T09:00:00+10:00"},
        {"role": "user", "name": "Mia", "content": "Next spring we go again.",
         "timestamp": "2023-05-10T09:05:00+10:00"}]), name="chat.jsonl")
    assert unknown.notes == [
        "2 turns name a season (\"last summer\"), read as the northern hemisphere's: the file "
        "names no zone that says which hemisphere they were written in"]


def test_a_frame_names_the_southern_season_it_read():
    """The frame's date note reads the turn again against its UTC time, which no longer says
    the hemisphere: the southern season's day is still named by its words."""
    text = "We camped at the beach last summer."
    time = read_turn_time("2023-05-10T09:00:00+10:00[Australia/Sydney]")
    days = [day for _, day in relative_dates(text, time)]
    assert date_note(text, str(time), days) == " [last summer ≈ Sun 2023-01-15]"


def test_a_weekday_anchors_to_its_one_day_the_coming_one_in_a_plan(conversation_home):
    """"on Monday" asked on Tuesday 9 May 2023 about the past is Monday 8 May, that day alone,
    and the anchor line names it; in a goal that plans ("can ... on Friday") it is the coming
    Friday. Before, both were the last one with a day either side, written as a range of two
    midnights ("Thu 2023-05-04 00:00 .. Sun 2023-05-07 00:00") that named no day."""
    def anchor(goal):
        return _anchor(conversation_home, goal, "--now", "2023-05-09T10:00:00Z")

    past, line = anchor("What did Priya say on Monday?")
    assert past == {"phrase": "on monday", "from": "2023-05-08T00:00:00Z",
                    "to": "2023-05-09T00:00:00Z"}
    assert line.startswith('anchored to "on monday": Mon 2023-05-08 · ')
    assert not line.endswith(" 0 facts inside")          # 8 May's turns lie inside
    plan, line = anchor("Can Priya and Tomás meet on Friday?")
    assert plan == {"phrase": "on friday", "from": "2023-05-12T00:00:00Z",
                    "to": "2023-05-13T00:00:00Z"}
    assert line.startswith('anchored to "on friday": Fri 2023-05-12 · ')
