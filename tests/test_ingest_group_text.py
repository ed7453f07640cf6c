"""Group conversations as plain text or markdown: three or more named speakers, one of whom may
speak only once, in every way people write a speaker line (issue 14: who said it and when)."""
from __future__ import annotations

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path

TURNS = [("Priya", "I signed up for the half marathon in October"),
         ("Tomás", "Nice! I can help with the training plan"),
         ("Dana", "Count me in for the long runs"),          # Dana speaks once
         ("Priya", "First long run this Saturday?"),
         ("Tomás", "Sounds good, 10k easy pace.")]
TIMES = ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-08T13:58:00Z",
         "2023-05-09T08:00:00Z", "2023-05-09T08:05:00Z"]
WRITTEN = ["2023-05-08 13:56", "2023-05-08 13:57", "2023-05-08 13:58", "2023-05-09 08:00",
           "2023-05-09 08:05"]

FORMS = {
    "plain": lambda name, text, when: f"{name}: {text}",
    "bracketed time": lambda name, text, when: f"[{when}] {name}: {text}",
    "time after the name": lambda name, text, when: f"{name} ({when}): {text}",
    "markdown bold": lambda name, text, when: f"**{name}**: {text}",
    "markdown bold colon inside": lambda name, text, when: f"**{name}:** {text}",
    "bold with a time": lambda name, text, when: f"**{name}** ({when}): {text}",
    "time without brackets": lambda name, text, when: f"{when} {name}: {text}",
    "square brackets after the name": lambda name, text, when: f"{name} [{when}]: {text}",
    "time and a dash": lambda name, text, when: f"{when} - {name}: {text}",
}


@pytest.mark.parametrize("form", FORMS)
def test_every_speaker_of_a_group_keeps_their_turn(tmp_path, form):
    path = tmp_path / "club.md"
    path.write_text("# Running club\n\n" + "\n".join(
        FORMS[form](name, text, when) for (name, text), when in zip(TURNS, WRITTEN)) + "\n",
        encoding="utf-8")
    result = parse_path(path)
    assert result.format == "text"
    assert [(i.speaker, i.text) for i in result.items] == TURNS
    timed = form not in ("plain", "markdown bold", "markdown bold colon inside")
    assert [i.time for i in result.items] == (TIMES if timed else [""] * 5)
    assert result.unread_times == []


def test_a_time_after_the_name_may_be_a_clock_time_on_the_files_date(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("Date: 8 May 2023\n"
                    "Priya (13:56): Run on Saturday?\n"
                    "Tomás (13:57): Yes, intervals\n"
                    "Dana (13:58): The river loop instead\n"
                    "Priya (23:59): Fine, the river loop\n"
                    "Tomás (00:10): Agreed\n", encoding="utf-8")
    assert [(i.speaker, i.time) for i in parse_path(path).items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:57:00Z"),
        ("Dana", "2023-05-08T13:58:00Z"), ("Priya", "2023-05-08T23:59:00Z"),
        ("Tomás", "2023-05-09T00:10:00Z")]   # past midnight: the next day


def test_a_label_once_at_a_line_start_stays_in_the_turn(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("Priya: Run on Saturday?\n"
                    "Tomás: Yes, the river loop.\n"
                    "Note: bring water, it will be hot.\n"
                    "Summary: 10k easy.\n"
                    "Dana: I'll bring the gels\n"
                    "Priya: Great, see you at seven then\n"
                    "Tomás: See you there\n", encoding="utf-8")
    items = parse_path(path).items
    assert [i.speaker for i in items] == ["Priya", "Tomás", "Dana", "Priya", "Tomás"]
    assert items[1].text == ("Yes, the river loop.\nNote: bring water, it will be hot.\n"
                             "Summary: 10k easy.")


@pytest.mark.parametrize("text, said", [
    ("Priya: I ran the river loop yesterday\nTomás: nice, how far?\nPriya: 10k, my longest yet\n",
     [("Priya", "I ran the river loop yesterday"), ("Tomás", "nice, how far?"),
      ("Priya", "10k, my longest yet")]),
    ("Date: 8 May 2023\n**Priya:** Booked the wheel for Saturday\n**Tomás:** Bring old clothes\n"
     "**Priya:** Will do\nIt starts at nine\n",
     [("Priya", "Booked the wheel for Saturday"), ("Tomás", "Bring old clothes"),
      ("Priya", "Will do\nIt starts at nine")]),
], ids=["plain", "bold"])
def test_the_other_person_of_a_two_person_chat_who_replied_once(tmp_path, text, said):
    """Tomás answers once between two of Priya's lines: his reply is his turn (it was glued to
    Priya's turn, his name lost and his words hers)."""
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    items = parse_path(path).items
    assert [(i.speaker, i.text) for i in items] == said
    assert [i.role for i in items] == ["user", "assistant", "user"]


@pytest.mark.parametrize("text, said", [
    ("Priya: coming Saturday?\nPriya: 7am at the bridge\nTomás: ok\n",
     [("Priya", "coming Saturday?"), ("Priya", "7am at the bridge"), ("Tomás", "ok")]),
    ("Priya: coming Saturday?\nTomás: yes\nTomás: see you there\n",
     [("Priya", "coming Saturday?"), ("Tomás", "yes"), ("Tomás", "see you there")]),
], ids=["last", "first"])
def test_the_other_person_who_spoke_once_first_or_last_in_a_chat_of_short_lines(tmp_path, text,
                                                                                said):
    """Before, Tomás's one reply after Priya's two lines was glued to her turn ("7am at the
    bridge\nTomás: ok"), and Priya's one question before Tomás's two lines was kept with no
    speaker: in a file of nothing but speaker lines, the name that starts the first or the
    last of them once is the other person."""
    path = tmp_path / "chat.txt"
    path.write_text(text, encoding="utf-8")
    assert [(i.speaker, i.text) for i in parse_path(path).items] == said


def test_a_reply_written_last_is_its_own_turn_once_the_chat_grows_to_it(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Priya: coming Saturday?\nPriya: 7am at the bridge\n", encoding="utf-8")
    with Memory.open(tmp_path / "home") as mem:
        assert mem.ingest([str(path)]).new == 2
        with path.open("a", encoding="utf-8") as chat:
            chat.write("Tomás: ok\n")
        assert mem.ingest([str(path)]).new == 1
        rows = mem.query("item_speaker(H, S), item_text(H, T)").rows
        assert sorted((r["S"], r["T"]) for r in rows) == [
            ("Priya", "7am at the bridge"), ("Priya", "coming Saturday?"), ("Tomás", "ok")]
        assert mem.ingest([str(path)]).new == 0


def test_a_name_once_in_a_file_with_other_text_stays_in_the_turn(tmp_path):
    path = tmp_path / "picnic.txt"
    path.write_text("Priya: Shopping for the picnic\nbread and cheese\nPriya: and the blanket\n"
                    "Conclusion: we leave at ten\n", encoding="utf-8")
    items = parse_path(path).items
    assert [i.speaker for i in items] == ["Priya", "Priya"]
    assert items[1].text == "and the blanket\nConclusion: we leave at ten"


def test_a_label_between_one_speakers_lines_stays_in_the_turn(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Priya: Shopping for the picnic\nNote: no nuts, Dana is allergic\n"
                    "Priya: and the blanket\n", encoding="utf-8")
    assert [i.speaker for i in parse_path(path).items] == ["Priya", "Priya"]


def test_a_name_once_written_unlike_the_speakers_is_not_a_speaker(tmp_path):
    # the speakers' lines carry a time; a bare "Dana Lee: ..." line quoted inside a turn does not
    path = tmp_path / "club.txt"
    path.write_text("[2023-05-08 13:56] Priya: Who said that?\n"
                    "[2023-05-08 13:57] Tomás: The coach, quoting:\n"
                    "Dana Lee: consistency beats intensity\n"
                    "[2023-05-08 13:58] Priya: True\n"
                    "[2023-05-08 13:59] Tomás: Indeed\n", encoding="utf-8")
    items = parse_path(path).items
    assert [i.speaker for i in items] == ["Priya", "Tomás", "Priya", "Tomás"]
    assert "Dana Lee: consistency beats intensity" in items[1].text


def test_a_timed_speaker_who_spoke_once_beside_one_who_spoke_twice(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("[2023-05-08 13:56] Priya: Run on Saturday?\n"
                    "[2023-05-08 13:57] Tomás: Yes, intervals\n"
                    "[2023-05-13 09:00] Dana: The river loop instead\n"
                    "[2023-05-13 09:05] Priya: Fine, the river loop\n", encoding="utf-8")
    assert [(i.speaker, i.time) for i in parse_path(path).items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:57:00Z"),
        ("Dana", "2023-05-13T09:00:00Z"), ("Priya", "2023-05-13T09:05:00Z")]


@pytest.mark.parametrize("stamps, days, note", [
    # a later 13/05 says day first for every date of the file
    (["08/05/2023 13:56", "08/05/2023 13:57", "13/05/2023 09:00"],
     ["2023-05-08", "2023-05-08", "2023-05-13"], None),
    # a later 05/13 says month first
    (["05/08/2023 1:56 PM", "05/08/2023 1:57 PM", "05/13/2023 9:00 AM"],
     ["2023-05-08", "2023-05-08", "2023-05-13"], None),
    # no number above 12: 05/06 -> 02/07 goes forward only day first
    (["05/06/2023 13:56", "05/06/2023 13:57", "02/07/2023 09:00"],
     ["2023-06-05", "2023-06-05", "2023-07-02"], None),
    # in order both ways: the order under which they lie closest, a day not a month (an
    # Indian phone's 12-hour clock too), and the report says so
    (["08/05/2023 13:56", "08/05/2023 13:57", "09/05/2023 09:00"],
     ["2023-05-08", "2023-05-08", "2023-05-09"], "read as day/month"),
    (["08/05/2023 1:56 PM", "08/05/2023 1:57 PM", "09/05/2023 9:00 AM"],
     ["2023-05-08", "2023-05-08", "2023-05-09"], "read as day/month"),
    # nothing decides (one day): a 12-hour clock reads month first, and the report says so
    (["08/05/2023 1:56 PM", "08/05/2023 1:57 PM", "08/05/2023 9:00 PM"],
     ["2023-08-05", "2023-08-05", "2023-08-05"], "read as month/day"),
])
def test_day_and_month_order_is_decided_for_the_whole_file(tmp_path, stamps, days, note):
    path = tmp_path / "club.txt"
    names = ["Priya", "Tomás", "Priya"]
    path.write_text("".join(f"[{stamp}] {name}: {text}\n" for stamp, name, (_, text)
                            in zip(stamps, names, TURNS)), encoding="utf-8")
    result = parse_path(path)
    assert [i.time[:10] for i in result.items] == days
    assert result.unread_times == []
    if note is None:
        assert result.notes == []
    else:
        assert len(result.notes) == 1 and note in result.notes[0]


def test_a_date_line_in_the_files_order(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text("Date: 08/05/2023\n[13:56] Priya: Run on Saturday?\n[13:57] Tomás: Yes\n"
                    "Date: 13/05/2023\n[09:00] Priya: How was it?\n[09:01] Tomás: Lovely\n",
                    encoding="utf-8")
    assert [i.time for i in parse_path(path).items] == [
        "2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-13T09:00:00Z",
        "2023-05-13T09:01:00Z"]


def test_clock_times_alone_are_on_the_day_the_file_name_gives(tmp_path):
    path = tmp_path / "club-2023-05-08.txt"
    path.write_text("13:56 Priya: Run on Saturday?\n13:57 Tomás: Yes, intervals\n"
                    "13:58 Dana: The river loop instead\n08:00 Priya: Morning! Still on?\n",
                    encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:57:00Z"),
        ("Dana", "2023-05-08T13:58:00Z"), ("Priya", "2023-05-09T08:00:00Z")]  # past midnight
    assert result.unread_times == []


@pytest.mark.parametrize("first, second, times", [
    ("2023-05-08T13:56:00Z", "2023-05-09T10:00:00Z",
     ["2023-05-08T13:56:00Z", "2023-05-08T13:56:00Z", "2023-05-09T10:00:00Z"]),
    ("2023-05-08T15:56:00.250+02:00", "2023-05-09 12:00:00 +0200",
     ["2023-05-08T13:56:00Z", "2023-05-08T13:56:00Z", "2023-05-09T10:00:00Z"]),
], ids=["utc", "offset"])
@pytest.mark.parametrize("between", [" ", " - ", " | "], ids=["space", "dash", "bar"])
def test_a_log_time_in_iso_8601_with_its_zone_before_the_name(tmp_path, first, second, times,
                                                              between):
    """A chat logged as "2023-05-08T13:56:00Z Priya: …" (a zone, seconds, a fraction, no
    brackets) was "cannot detect format": now each turn has its speaker and its time."""
    path = tmp_path / "chat.log"
    path.write_text(f"{first}{between}Priya: I ran the river loop yesterday\n"
                    f"{first}{between}Tomás: How far did you go?\n"
                    f"{second}{between}Priya: Ten kilometres, my longest yet\n", encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == list(zip(["Priya", "Tomás", "Priya"],
                                                                   times))
    assert result.items[0].text == "I ran the river loop yesterday"


@pytest.mark.parametrize("first, second", [
    ("Session 1 (1:56 pm on 8 May, 2023)", "Session 2 (10:37 am on 27 June, 2023)"),
    ("--- 2023-05-08 13:56 ---", "--- 2023-06-27 10:37 ---"),
    ("On 8 May 2023 at 1:56 pm:", "On 27 June 2023 at 10:37 am:"),
    ("=== Session 1 [2023-05-08 13:56] ===", "=== Session 2 [2023-06-27 10:37] ==="),
], ids=["session-paren", "rule", "on", "banner"])
def test_a_session_line_that_carries_its_date_dates_the_turns_after_it(tmp_path, first, second):
    """A line between sessions that holds their date in brackets, between rules or after "On"
    was read as part of the turn above it, and every turn lost its time (the report saying
    the file wrote none)."""
    path = tmp_path / "chat.txt"
    path.write_text(f"{first}\nCaroline: I went to a support group yesterday.\n"
                    f"Melanie: How did it feel?\n\n{second}\n"
                    f"Melanie: I painted a lake last week.\nCaroline: Show me the lake!\n",
                    encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Caroline", "2023-05-08T13:56:00Z"), ("Melanie", "2023-05-08T13:56:00Z"),
        ("Melanie", "2023-06-27T10:37:00Z"), ("Caroline", "2023-06-27T10:37:00Z")]
    assert result.items[1].text == "How did it feel?" and result.notes == []
    assert [o for _, p, o in result.items[2].relations if p == "mentions_date"] == ["2023-06-20"]


@pytest.mark.parametrize("first, second", [
    ("Mon 8 May 2023 13:56", "Tue 9 May 2023 10:00"),
    ("8 May 2023, 13:56", "9 May 2023, 10:00"),
    ("May 8, 2023 1:56 PM -", "May 9, 2023 10:00 AM -"),
    ("Monday, May 8th, 2023 at 1:56 pm |", "Tuesday, May 9th, 2023 at 10:00 am |"),
], ids=["weekday", "day-month", "month-day-dash", "at-bar"])
def test_a_date_in_words_before_the_name(tmp_path, first, second):
    """"Mon 8 May 2023 13:56 Priya: …" was "cannot detect format"."""
    path = tmp_path / "chat.txt"
    path.write_text(f"{first} Priya: I ran the river loop yesterday\n"
                    f"{first} Tomás: How far did you go?\n"
                    f"{second} Priya: Ten kilometres, my longest yet\n", encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:56:00Z"),
        ("Priya", "2023-05-09T10:00:00Z")]
    assert result.items[0].text == "I ran the river loop yesterday"


@pytest.mark.parametrize("inside", ["[Neighborhood 2] is also a safe area, with low crime.",
                                    "[Street Name] has some gang activity at night.",
                                    "[see the appendix] for the full list"])
def test_a_bracketed_word_opening_a_line_of_a_turn_is_no_unread_time(tmp_path, inside):
    # before: any line of a turn that opened with "[...]" had its brackets read as a speaker
    # line's time before the line was found to start no turn: the ingest report said
    # "time unread FILE:7: 'Neighborhood 2' (item kept without a time)" of a chatbot's
    # placeholder (LongMemEval's answers are full of them), a time no one wrote
    path = tmp_path / "chat.txt"
    path.write_text("Date: 2023/05/20 (Sat) 02:21\n\nUser: which area is safe?\n\n"
                    "Assistant: Here is what I know.\n\n**[Neighborhood 2]**\n\n"
                    f"{inside}\n\nUser: which one is cheaper to live in?\n")
    result = parse_path(path)
    assert result.unread_times == []
    assert [(i.role, i.time) for i in result.items] == [
        ("user", "2023-05-20T02:21:00Z"), ("assistant", "2023-05-20T02:21:00Z"),
        ("user", "2023-05-20T02:21:00Z")]
    assert inside in result.items[1].text


def test_a_speaker_lines_unreadable_time_is_still_reported(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("[sometime soon] User: hello there\n[2023-05-08 10:02] Assistant: hi\n")
    assert parse_path(path).unread_times == [(1, "sometime soon")]
