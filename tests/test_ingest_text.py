"""Plain text and markdown transcripts with speaker lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attention_cloud.errors import InputError
from attention_cloud.ingest import parse_path, parse_text, read_pointer
from attention_cloud.ingest.plain_text import date_line

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def test_colon_speakers_aliases_and_multiline_turns():
    path = FIXTURES / "transcript.txt"
    result = parse_path(path)
    assert result.format == "text"
    assert result.records_read == 7
    base = os.path.abspath(path)
    assert [(i.kind, i.role, i.pointer) for i in result.items] == [
        ("user_goal", "user", f"{base}:3-4"),  # a turn over two lines points at both
        ("turn", "assistant", f"{base}:5"),  # narration of the next step
        ("conclusion", "assistant", f"{base}:6-8"),
        ("user_goal", "user", f"{base}:10"),  # "Human:"; the "thanks!" at line 9 is dropped
        ("conclusion", "assistant", f"{base}:11"),  # "AI:"
        ("turn", "system", f"{base}:12"),
    ]
    first = result.items[0]
    assert first.text == (
        "The nightly export job crashes with MemoryError on tables over 2 GB.\n"
        "Can you make it stream rows instead of loading them all?"
    )
    assert first.goal == (
        "The nightly export job crashes with MemoryError on tables over 2 GB. "
        "Can you make it stream rows instead of loading them all?"
    )
    assert ("mentions", "MemoryError") in [(p, o) for _, p, o in first.relations]
    assert result.items[2].text.endswith("so memory stays flat regardless of table size.")
    assert result.items[4].goal == "Also compress the output with gzip, level 6."
    assert {i.session for i in result.items} == {"transcript"}
    # the title line "Support chat export, 2026-02-11" dates every turn after it
    assert {i.time for i in result.items} == {"2026-02-11T00:00:00Z"}


def test_markdown_headings_and_code_fences():
    result = parse_path(FIXTURES / "transcript.md")
    assert [(i.kind, i.pointer.rsplit(":", 1)[1]) for i in result.items] == [
        ("user_goal", "5-7"),  # the heading to the turn's last line with text
        ("conclusion", "9-21"),  # runs through the fenced block and its "User:" line
        ("conclusion", "27-29"),  # "### Assistant:"; the "ok" turn at 23 is noise
    ]
    answer = result.items[1].text
    assert "User: this line is inside a code fence and must not start a turn" in answer
    assert answer.endswith("Buckets live in Redis so every instance shares them.")
    assert "Notes exported" not in " ".join(i.text for i in result.items)  # preamble


def test_pointer_line_is_the_speaker_line():
    items = parse_path(FIXTURES / "transcript.txt").items
    assert read_pointer(items[3].pointer) == "Human: Also compress the output with gzip, level 6."


def test_the_pointer_of_a_turn_over_several_lines_reads_all_of_them():
    items = parse_path(FIXTURES / "transcript.txt").items
    assert read_pointer(items[2].pointer) == (
        "Assistant: The job calls fetchall() in exporter.py, which loads every row.\n"
        "I switched it to a server-side cursor that fetches 5000 rows at a time,\n"
        "so memory stays flat regardless of table size."
    )
    md = parse_path(FIXTURES / "transcript.md").items
    source = read_pointer(md[1].pointer)  # the heading, the fenced block, the last line
    assert source.startswith("## Assistant\n\nA token bucket per API key fits")
    assert source.endswith("\n\nBuckets live in Redis so every instance shares them.")
    assert "\n## User" not in source  # the next turn is not part of it


def test_parse_text_uses_the_name_for_pointers_and_session():
    result = parse_text(
        "User: Add a dark mode toggle.\nAssistant: Added it to settings.tsx.\n",
        name="notes/chat-7.md",
    )
    assert [(i.session, i.pointer) for i in result.items] == [
        ("chat-7", "notes/chat-7.md:1"),
        ("chat-7", "notes/chat-7.md:2"),
    ]
    assert parse_text("User: x y z\n", name="n.txt", session="s1").items[0].session == "s1"


def test_bold_speakers_and_crlf_line_endings():
    text = "**User:** Fix the login redirect.\r\nIt loops forever.\r\n**Assistant:** The callback URL lacked a trailing slash.\r\n"
    items = parse_text(text, name="bold.md").items
    assert [(i.kind, i.text) for i in items] == [
        ("user_goal", "Fix the login redirect.\nIt loops forever."),
        ("conclusion", "The callback URL lacked a trailing slash."),
    ]


def test_tool_speaker_output_is_classified():
    text = "User: Run the tests.\nTool: FAILED tests/test_a.py::test_b - ZeroDivisionError: division by zero\nTool: 12 passed in 0.4s\n"
    items = parse_text(text, name="tools.txt").items
    assert [(i.kind, i.role) for i in items] == [
        ("user_goal", "user"),
        ("error", "tool"),
        ("tool_result", "tool"),
    ]
    assert ("mentions", "ZeroDivisionError") in [(p, o) for _, p, o in items[1].relations]


def test_acknowledgements_replies_and_goals():
    text = (
        "User: Add retries to the webhook sender.\n"
        "Assistant: Should I use backoff (1) or a fixed delay (2)?\n"
        "User: 1\n"
        "Assistant: Using backoff.\n"
        "User: no wait\n"
        "User: yes please, go ahead\n"
        "User: keep this under 5 retries\n"
    )
    items = parse_text(text, name="replies.txt").items
    assert [(i.kind, i.text) for i in items] == [
        ("user_goal", "Add retries to the webhook sender."),
        ("conclusion", "Should I use backoff (1) or a fixed delay (2)?"),
        ("turn", "1"),
        ("conclusion", "Using backoff."),
        ("turn", "no wait"),
        ("user_goal", "keep this under 5 retries"),
    ]
    assert items[4].goal == "Add retries to the webhook sender."


def test_a_speaker_named_in_a_script_without_capitals_starts_a_turn():
    """李雷's line was glued to Dana's turn: a name had to start with a capital letter, which
    Chinese, Japanese, Arabic or Hebrew names have none of."""
    result = parse_text("[2024-03-05 10:02] Dana: hi there\n[2024-03-05 10:30] 李雷: 我明天去上海\n"
                        "[2024-03-05 10:41] Dana: have a good trip\n"
                        "[2024-03-05 10:42] محمد: أنا أيضا\n", name="chat.txt")
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Dana", "hi there"), ("李雷", "我明天去上海"), ("Dana", "have a good trip"),
        ("محمد", "أنا أيضا")]
    lower = parse_text("[10:02] Dana: hi there\n[10:30] dana: note to self\n"
                       "[10:41] Dana: have a good trip\n", name="chat.txt")
    assert [i.speaker for i in lower.items] == ["Dana", "Dana"]  # lower case is no name


def test_a_short_chat_where_no_one_spoke_twice_yet_is_read_by_its_timed_lines():
    """Three people, one line each: no name started two lines, so the file could not be
    detected and --format text read it as one unnamed turn."""
    text = ("[2024-03-05 10:02] Dana: who is bringing the cake?\n"
            "[2024-03-05 10:30] Lei: I can bake one tonight\n"
            "[2024-03-05 10:40] Sam: I'll bring candles\n")
    result = parse_text(text, name="chat.txt")
    assert result.format == "text"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Dana", "2024-03-05T10:02:00Z"), ("Lei", "2024-03-05T10:30:00Z"),
        ("Sam", "2024-03-05T10:40:00Z")]


def test_a_two_line_chat_of_two_names_without_times_is_a_chat():
    """Before, "Dana: who is bringing the cake?" then "Lei: I can bake one tonight" was
    "cannot detect format": a chat where no one spoke twice yet, written without times, was
    refused. Every line a speaker's sentence, two names, no label: a chat."""
    untimed = "Dana: who is bringing the cake?\nLei: I can bake one tonight\n"
    result = parse_text(untimed, name="chat.txt")
    assert result.format == "text"
    assert [(i.speaker, i.role, i.text) for i in result.items] == [
        ("Dana", "user", "who is bringing the cake?"),
        ("Lei", "assistant", "I can bake one tonight")]
    # labels and fields are no people: "Note: …", "Name: Dana Reyes", "Role: Engineer"
    for text in ("Note: bring the cake to the hall\nSummary: Lei bakes, Sam brings candles\n",
                 "Name: Dana Reyes\nRole: Senior Engineer\n",
                 "Dana: who is bringing the cake?\n"):
        with pytest.raises(InputError, match="cannot detect format"):
            parse_text(text, name="chat.txt")


@pytest.mark.parametrize("heading", [
    "2023/05/28 (Sun) 19:47", "Date: 1:56 pm on 8 May, 2023", "Session date: May 8, 2023",
    "# Session 1 — 2023/05/28 (Sun) 19:47"])
def test_a_two_line_chat_under_its_session_date_is_a_chat_on_that_day(heading):
    """A short chat under the date of its session (a line or a heading saying only the date):
    the date line counted as a line that was no turn, so the file was "cannot detect format"
    (.txt) or read as one unnamed note (.md under a heading), both speakers lost."""
    text = f"{heading}\n\nDana: who is bringing the cake?\nLei: I can bake one tonight\n"
    for name in ("chat.txt", "chat.md"):
        result = parse_text(text, name=name)
        day = date_line(heading)
        assert result.format == "text" and day
        assert [(i.speaker, i.time) for i in result.items] == [("Dana", day), ("Lei", day)]
    # the date line does not make a record's fields a chat
    with pytest.raises(InputError, match="cannot detect format"):
        parse_text("Date: 8 May 2023\nName: Dana Reyes\nRole: Senior Engineer\n", name="card.txt")


def test_speaker_lines_with_the_full_width_colon_of_chinese_and_japanese():
    """Chinese and Japanese write a speaker's colon full width, "李雷：我昨天开始上陶艺课。":
    such a transcript was "cannot detect format", and --format text read it as one unnamed
    turn. The full-width colon ends a speaker's name as ":" does."""
    text = ("2023年5月8日\n李雷：我昨天开始上陶艺课。\n韩梅梅：第一节课怎么样？\n李雷：很好，我做了一个碗。\n"
            "[2023-05-09 10:00] 韩梅梅：下次带我去吧。\n")
    result = parse_text(text, name="chat.txt")
    assert result.format == "text"
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("李雷", "user", "2023-05-08T00:00:00Z", "我昨天开始上陶艺课。"),
        ("韩梅梅", "assistant", "2023-05-08T00:00:00Z", "第一节课怎么样？"),
        ("李雷", "user", "2023-05-08T00:00:00Z", "很好，我做了一个碗。"),
        ("韩梅梅", "assistant", "2023-05-09T10:00:00Z", "下次带我去吧。")]


def test_an_application_log_is_no_chat_of_its_levels():
    """"[10:02] INFO: …" lines made INFO and WARN speakers (INFO started two lines; a short
    log's levels each once were every line a timed turn), and the ERROR line was glued to
    WARN's turn: a log's levels are never people."""
    log = ("[10:02] INFO: server started on port 8080\n[10:03] WARN: cache miss for key user:42\n"
           "[10:05] ERROR: connection refused to db:5432\n[10:06] INFO: retrying connection\n")
    short = ("[2024-03-05 10:02:11] INFO: server started\n[2024-03-05 10:02:12] WARN: slow disk\n"
             "[2024-03-05 10:02:13] DEBUG: tick\n")
    for text in (log, short):
        with pytest.raises(InputError, match="cannot detect format"):
            parse_text(text, name="app.log")
    chat = ("[10:02] Dana: the deploy failed\n[10:03] Lei: what does the log say?\n"
            "[10:04] Dana: it says\nERROR: connection refused\n[10:05] Lei: restart the db\n")
    result = parse_text(chat, name="chat.txt")
    assert [i.speaker for i in result.items] == ["Dana", "Lei", "Dana", "Lei"]
    assert "ERROR: connection refused" in result.items[2].text


def test_a_two_line_chat_whose_reply_is_short_is_a_chat():
    """"Ann: lunch at noon?" then "Bo: sure" was "cannot detect format": where each spoke once
    and no line had a time, every line had to say three words or more, and a reply rarely
    does. A first line that asks or addresses the other now says it is a chat; a record's
    fields still are none."""
    for text, said in (("Ann: lunch at noon?\nBo: sure\n", ["lunch at noon?", "sure"]),
                       ("Ann: are you at the bridge yet\nBo: 5 min\n",
                        ["are you at the bridge yet", "5 min"])):
        result = parse_text(text, name="chat.txt")
        assert result.format == "text"
        assert [(i.speaker, i.role, i.text) for i in result.items] == [
            ("Ann", "user", said[0]), ("Bo", "assistant", said[1])]
    for fields in ("Name: Dana Reyes\nRole: Senior Engineer\n", "Host: db.internal\nPort: 5432\n",
                   "Owner: who is on call?\nPort: 5432\n"):
        with pytest.raises(InputError, match="cannot detect format"):
            parse_text(fields, name="card.txt")


CHECKLIST = """Deploy checklist for the payments service

Note: run the migrations before the restart.
Note: the cache must be flushed after the deploy.
Check the dashboards for ten minutes afterwards.
"""
BUILD_LOG = """Starting build at 10:02
Error: cannot find module 'left-pad'
Retrying with the lockfile
Error: cannot find module 'left-pad'
Warning: 3 packages are deprecated
Build failed.
"""
RECORDS = """Host: db.internal
Port: 5432
Database: orders

Host: cache.internal
Port: 6379
Database: sessions
"""
MINUTES = """Sprint review, 8 May

Action: Dana books the room for Friday.
Decision: we keep the river loop as the long run.
Action: Lei updates the route on the club page.
Decision: pancakes after, as always.
"""
PEOPLE = """Name: Dana Reyes
Team: Payments
Name: Lei Chen
Team: Platform
"""


@pytest.mark.parametrize("text", [CHECKLIST, BUILD_LOG, MINUTES, RECORDS, PEOPLE],
                         ids=["checklist", "build-log", "minutes", "records", "people-records"])
def test_repeated_keys_of_a_plain_file_are_no_speakers(text):
    """A name that starts two lines was a speaker "whatever it is": a checklist's two "Note:"
    lines were a chat of a person called Note (the prose after them glued to Note's turns), a
    build log's "Error:" lines a person called Error, a meeting's "Action:"/"Decision:" lines
    and a config's "Host:"/"Port:" two people taking turns. Labels that recur without taking
    turns or asking anything, and lines more than half of which are a record's values (5432,
    db.internal, Dana Reyes), are no chat."""
    with pytest.raises(InputError, match="cannot detect format"):
        parse_text(text, name="notes.txt")


def test_people_talking_are_still_read_as_a_chat_beside_those_files():
    """The other direction: chats whose names recur, without times, still read as chats (terse
    capitalised replies too, "Sure", "Noon"); an interview's Q: and A: take turns and ask, so
    they are its speakers."""
    chat = ("Priya: I finished the pottery class today\nTomás: nice, what did you make\n"
            "Priya: a bowl and two cups\nTomás: show me tomorrow\n")
    interview = ("Q: Where did you grow up?\nA: In Lisbon, by the river.\n"
                 "Q: What brought you to Berlin?\nA: A job at a bakery.\n")
    quiet = ("Dana: the deploy failed again\nLei: which service\nDana: payments, at 10:02\n"
             "Lei: I will look after lunch\nDana: thanks\n")
    terse = "Dana: Lunch tomorrow?\nLei: Sure\nDana: Noon\nLei: Great\n"
    for text, speakers in ((chat, ["Priya", "Tomás", "Priya", "Tomás"]),
                           (terse, ["Dana", "Lei", "Dana", "Lei"]),
                           (interview, ["Q", "A", "Q", "A"]),
                           (quiet, ["Dana", "Lei", "Dana", "Lei", "Dana"])):
        result = parse_text(text, name="chat.txt")
        assert result.format == "text"
        assert [i.speaker for i in result.items] == speakers


def test_timed_names_that_address_no_one_are_still_people(tmp_path):
    """Timed speaker lines are a chat whatever they say: a terse timed chat that asks nothing
    was refused as a log for a while (all of it lost), so an application log whose components'
    lines carry their times reads as their chat, as README's Limits say."""
    chat = tmp_path / "chat.txt"
    chat.write_text("".join(f"[2024-03-0{1 + i % 5} 09:0{i}] {'Priya' if i % 2 == 0 else 'Marco'}: "
                            f"the retry budget for the payment processor, step {i}\n"
                            for i in range(8)), encoding="utf-8")
    log = tmp_path / "log.txt"
    log.write_text("2024-03-05 10:02:11 Scheduler: queued 12 jobs\n"
                   "2024-03-05 10:02:12 Worker: picked job 1\n"
                   "2024-03-05 10:02:13 Scheduler: queued 3 jobs\n"
                   "2024-03-05 10:02:14 Worker: done job 1\n", encoding="utf-8")
    for path, names in ((chat, {"Priya", "Marco"}), (log, {"Scheduler", "Worker"})):
        result = parse_path(path)
        assert result.format == "text" and len(result.items) in (4, 8)
        assert {item.speaker for item in result.items} == names
        assert all(item.time for item in result.items)
