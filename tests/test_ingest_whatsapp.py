"""WhatsApp chat exports, iOS and Android: every sender of a group chat and every message's
time, whatever the phone's locale wrote (issue 14: who said it and when, for every format)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import InputError
from attention_cloud.home import write_config
from attention_cloud.ingest import FORMATS, detect_format, parse_path

LRM = "\u200e"
NNBSP = "\u202f"   # iOS 16+ puts a narrow no-break space before AM/PM

IOS_US = (
    f"[5/8/23, 1:55:40 PM] Running Club: {LRM}Messages and calls are end-to-end encrypted. No one "
    "outside of this chat, not even WhatsApp, can read or listen to them.\n"
    f"[5/8/23, 1:55:41 PM] Running Club: {LRM}Priya created group \u201cRunning Club\u201d\n"
    "[5/8/23, 1:56:03 PM] Priya: I signed up for the half marathon in October\n"
    "[5/8/23, 1:57:12 PM] Tomás: Nice! I can help with the training plan\n"
    f"{LRM}[5/8/23, 1:57:40 PM] Tomás: {LRM}image omitted\n"
    "[5/9/23, 8:00:00 AM] Priya: First long run this Saturday?\n"
    "[6/2/23, 9:01:00 AM] Dana: Let's do the river loop on Saturday, 7am\n"
)
ANDROID_GB = (
    "08/05/2023, 13:55 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
    "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
    "08/05/2023, 13:55 - Priya created group \"Running Club\"\n"
    "08/05/2023, 13:55 - Priya added Dana\n"
    "08/05/2023, 13:56 - Priya: I signed up for the half marathon in October\n"
    "08/05/2023, 13:57 - Tomás: Nice! I can help with the training plan\n"
    "08/05/2023, 13:58 - Dana: <Media omitted>\n"
    "09/05/2023, 08:00 - Priya: First long run this Saturday?\n"
    "02/06/2023, 09:01 - Dana: Let's do the river loop on Saturday, 7am\n"
)
WHO_WHEN = [
    ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:57:00Z"),
    ("Priya", "2023-05-09T08:00:00Z"), ("Dana", "2023-06-02T09:01:00Z"),
]


def _parse(tmp_path, text, name="WhatsApp Chat with Running Club.txt", **kw):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return parse_path(path, **kw)


def test_whatsapp_is_a_listed_format():
    assert "whatsapp" in FORMATS
    out = CliRunner().invoke(main, ["ingest", "--list-formats"])
    assert "whatsapp" in out.output


def test_ios_group_export_keeps_every_sender_and_time(tmp_path):
    result = _parse(tmp_path, IOS_US)
    assert result.format == "whatsapp"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:03Z"), ("Tomás", "2023-05-08T13:57:12Z"),
        ("Priya", "2023-05-09T08:00:00Z"), ("Dana", "2023-06-02T09:01:00Z")]
    assert result.items[-1].text == "Let's do the river loop on Saturday, 7am"
    assert result.ignored == {"system": 2, "media omitted": 1}
    assert result.notes == []   # 5/9 -> 6/2 goes forward only month first: decided
    assert result.items[-1].pointer.endswith(".txt:7")


def test_android_group_export_is_detected_and_read(tmp_path):
    result = _parse(tmp_path, ANDROID_GB)
    assert detect_format(tmp_path / "WhatsApp Chat with Running Club.txt") == "whatsapp"
    assert [(i.speaker, i.time) for i in result.items] == [
        (s, t[:17] + "00Z") for s, t in WHO_WHEN]
    assert result.ignored == {"system": 3, "media omitted": 1}
    assert result.notes == [] and result.skipped == [] and result.unread_times == []


@pytest.mark.parametrize("line, iso", [
    ("[5/8/23, 1:56:03 PM] Priya: hi there", "2023-05-08T13:56:03Z"),            # iOS US
    (f"[5/8/23, 1:56:03{NNBSP}PM] Priya: hi there", "2023-05-08T13:56:03Z"),     # iOS 16+
    ("[08/05/2023, 13:56:03] Priya: hi there", "2023-05-08T13:56:03Z"),          # iOS UK
    ("[08.05.23, 13:56:03] Priya: hi there", "2023-05-08T13:56:03Z"),            # iOS DE
    ("[2023-05-08, 13:56:03] Priya: hi there", "2023-05-08T13:56:03Z"),          # ISO locale
    ("5/8/23, 1:56 PM - Priya: hi there", "2023-05-08T13:56:00Z"),               # Android US
    ("08/05/2023, 13:56 - Priya: hi there", "2023-05-08T13:56:00Z"),             # Android UK
    ("08.05.23, 13:56 - Priya: hi there", "2023-05-08T13:56:00Z"),               # Android DE
    ("8/5/23, 1:56 p. m. - Priya: hi there", "2023-05-08T13:56:00Z"),            # Android ES
    ("5/8/23, 12:05 AM - Priya: hi there", "2023-05-08T00:05:00Z"),              # midnight
    ("5/8/23, 12:05 PM - Priya: hi there", "2023-05-08T12:05:00Z"),              # noon
])
def test_each_date_form_of_a_message_line(tmp_path, line, iso):
    later = "13/05/2023" if "/2023" in line else None
    text = line + "\n"
    if line.startswith("8/5/23"):   # day first: a later day above 12 says so
        text += "13/5/23, 9:00 a. m. - Dana: see you\n"
    elif later:
        text += f"{later}, 09:00 - Dana: see you\n" if " - " in line else \
            f"[{later}, 09:00:00] Dana: see you\n"
    result = _parse(tmp_path, text)
    assert result.format == "whatsapp"
    assert (result.items[0].speaker, result.items[0].time) == ("Priya", iso)


@pytest.mark.parametrize("text, first, second", [
    # iOS in Dutch, Portuguese (Brazil) and Spanish writes no comma inside the brackets
    ("[08-05-2023 13:56:03] Priya: Gisteren heb ik de sleutels gekregen\n"
     "[08-05-2023 13:57:10] Tomás: \u200eafbeelding weggelaten\n"
     "[13-05-2023 09:00:00] Tomás: <attached: 00000042-PHOTO-2023-05-13.jpg>\n"
     "[13-05-2023 09:01:00] Tomás: Gefeliciteerd\n", "2023-05-08T13:56:03Z", "2023-05-13T09:01:00Z"),
    ("[08/05/2023 13:56:03] Priya: Peguei as chaves ontem\n"
     "[13/05/2023 09:01:00] Tomás: Parabéns\n", "2023-05-08T13:56:03Z", "2023-05-13T09:01:00Z"),
    ("[8/5/23 1:56:03 p. m.] Priya: Ayer me dieron las llaves\n"
     "[13/5/23 9:01:00 a. m.] Tomás: Felicidades\n", "2023-05-08T13:56:03Z", "2023-05-13T09:01:00Z"),
    # a dotted date is day first, unless a second number above 12 says the month comes first
    ("[05.08.23 13:56:03] Priya: I got the keys yesterday\n"
     "[05.13.23 09:01:00] Tomás: Congratulations\n", "2023-05-08T13:56:03Z", "2023-05-13T09:01:00Z"),
], ids=["ios-nl", "ios-pt-br", "ios-es", "ios-dotted-month-first"])
def test_an_ios_line_without_a_comma_in_its_brackets(tmp_path, text, first, second):
    """iOS phones in several locales write ``[08-05-2023 13:56:03]``, no comma between date and
    clock: the file is a WhatsApp export (it was read as a plain text chat, media placeholders
    kept as messages), every message with its sender and time."""
    result = _parse(tmp_path, text)
    assert result.format == "whatsapp"
    assert [(i.speaker, i.time) for i in result.items] == [("Priya", first), ("Tomás", second)]
    assert result.unread_times == [] and result.notes == []
    assert sum(result.ignored.values()) == text.count("\n") - 2


@pytest.mark.parametrize("text, first, second", [
    # Hungary: the year first, a space after each dot
    ("2023. 05. 08. 13:56 - Priya: Tegnap futottam\n2023. 05. 13. 9:01 - Tomás: Szuper\n",
     "2023-05-08T13:56:00Z", "2023-05-13T09:01:00Z"),
    ("[2023. 05. 08. 13:56:03] Priya: Tegnap futottam\n[2023. 05. 13. 9:01:00] Tomás: Szuper\n",
     "2023-05-08T13:56:03Z", "2023-05-13T09:01:00Z"),
    # Korea and China: AM or PM written before the clock
    ("2023. 5. 8. 오후 1:56 - Priya: 어제 뛰었어\n2023. 5. 13. 오전 9:01 - Tomás: 대박\n",
     "2023-05-08T13:56:00Z", "2023-05-13T09:01:00Z"),
    ("2023/5/8 下午1:56 - Priya: 昨天跑步了\n2023/5/13 上午9:01 - Tomás: 厉害\n",
     "2023-05-08T13:56:00Z", "2023-05-13T09:01:00Z"),
    # Arabic: direction marks among the date's numbers, PM as م after the clock
    ("\u200f08\u200f/05\u200f/2023, 1:56 \u0645 - Priya: أمس\n"
     "\u200f13\u200f/05\u200f/2023, 9:01 \u0635 - Tomás: رائع\n",
     "2023-05-08T13:56:00Z", "2023-05-13T09:01:00Z"),
], ids=["android-hu", "ios-hu", "android-ko", "android-zh", "android-ar"])
def test_a_locale_that_writes_the_year_first_or_am_pm_in_its_language(tmp_path, text, first,
                                                                       second):
    """Hungarian, Korean, Chinese and Arabic phones' exports were "cannot detect format" (or,
    for iOS in Hungarian, a plain text chat): each message now has its sender and its time."""
    result = _parse(tmp_path, text)
    assert result.format == "whatsapp"
    assert [(i.speaker, i.time) for i in result.items] == [("Priya", first), ("Tomás", second)]
    assert result.unread_times == []


@pytest.mark.parametrize("text", [
    "08/05/2023 à 13:56 - Priya: J'ai eu les clés hier\n13/05/2023 à 09:00 - Tomás: Bravo\n",
    "[08/05/2023 à 13:56:00] Priya: J'ai eu les clés hier\n[13/05/2023 à 09:00:00] Tomás: Bravo\n",
    "8.5.2023 klo 13.56 - Priya: Sain avaimet eilen\n13.5.2023 klo 9.00 - Tomás: Hienoa\n",
])
def test_a_locale_that_writes_a_word_before_the_clock(tmp_path, text):
    """French phones export "08/05/2023 à 13:56 - Priya: …", Finnish ones "8.5.2023 klo 13.56 -
    …": the same messages, with their senders and times (a French export was "cannot detect
    format")."""
    result = _parse(tmp_path, text)
    assert result.format == "whatsapp"
    assert detect_format(tmp_path / "WhatsApp Chat with Running Club.txt") == "whatsapp"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-13T09:00:00Z")]


def test_day_month_order_is_decided_from_the_whole_file(tmp_path):
    # the first lines could be either; a later 13/05 says day first, for every line
    text = ("03/05/2023, 09:00 - Priya: Who is running on Saturday?\n"
            "03/05/2023, 09:01 - Dana: Me, the river loop\n"
            "13/05/2023, 10:00 - Priya: That was lovely\n")
    assert [i.time[:10] for i in _parse(tmp_path, text).items] == [
        "2023-05-03", "2023-05-03", "2023-05-13"]
    # and a later 5/13 says month first
    us = ("3/5/23, 9:00 AM - Priya: Who is running on Saturday?\n"
          "5/13/23, 10:00 AM - Priya: That was lovely\n")
    assert [i.time[:10] for i in _parse(tmp_path, us, name="us.txt").items] == [
        "2023-03-05", "2023-05-13"]


def test_day_month_order_from_the_order_of_the_messages(tmp_path):
    # no number above 12, but 05/06 -> 02/07 goes forward only day first (5 June, 2 July)
    text = ("05/06/2023, 09:00 - Priya: Who is running on Saturday?\n"
            "02/07/2023, 10:00 - Dana: Me, the river loop\n")
    result = _parse(tmp_path, text)
    assert [i.time[:10] for i in result.items] == ["2023-06-05", "2023-07-02"]
    assert result.notes == []


def test_an_undecidable_order_is_said_in_the_ingest_report(home, tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("[5/8/23, 1:56:03 PM] Priya: Run on Saturday?\n"
                    "[5/8/23, 1:57:03 PM] Dana: Yes, the river loop\n", encoding="utf-8")
    result = parse_path(path)
    assert [i.time for i in result.items] == ["2023-05-08T13:56:03Z", "2023-05-08T13:57:03Z"]
    assert len(result.notes) == 1 and "read as month/day" in result.notes[0]
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert f"note {path}: dates such as 5/8/23 could be day/month or month/day" in out.output
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home / "j"),
                                    "--format-output", "json"])
    notes = json.loads(out.stdout)["notes"]
    assert notes[0]["file"] == str(path) and "month/day" in notes[0]["note"]


def test_multi_line_messages_edits_and_deletions(tmp_path):
    text = ("08/05/2023, 13:56 - Priya: Plan for Saturday:\n"
            "- 7am river loop\n"
            "\n"
            "- pancakes after\n"
            f"08/05/2023, 13:57 - Tomás: I'll bring the gels {LRM}<This message was edited>\n"
            "08/05/2023, 13:58 - Dana: This message was deleted\n"
            "08/05/2023, 13:59 - Dana: ok\n")
    result = _parse(tmp_path, text)
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Priya", "Plan for Saturday:\n- 7am river loop\n\n- pancakes after"),
        ("Tomás", "I'll bring the gels"),
        ("Dana", "ok"),               # a short reply in a group chat is kept: who agreed
    ]
    assert result.ignored == {"deleted": 1}


def test_the_first_sender_is_the_user_the_others_are_named(tmp_path):
    result = _parse(tmp_path, ANDROID_GB)
    assert {(i.speaker, i.role) for i in result.items} == {
        ("Priya", "user"), ("Tomás", "assistant"), ("Dana", "assistant")}


def test_a_date_that_does_not_exist_is_reported(tmp_path):
    text = ("13/05/2023, 13:56 - Priya: Run on Saturday?\n"
            "31/02/2023, 13:57 - Dana: Yes\n")
    result = _parse(tmp_path, text)
    assert [i.time for i in result.items] == ["2023-05-13T13:56:00Z", ""]
    assert result.unread_times == [(2, "31/02/2023, 13:57")]


def test_group_chat_in_memory_favours_the_person_asked_about(home, tmp_path):
    path = tmp_path / "group.txt"
    path.write_text(
        "08/05/2023, 13:56 - Priya: I signed up for the half marathon in October\n"
        "08/05/2023, 13:57 - Tomás: I can write a training plan for Saturday long runs\n"
        "09/05/2023, 08:00 - Priya: What should we do this Saturday?\n"
        "09/05/2023, 08:03 - Tomás: I suggest intervals at the track on Saturday\n"
        "09/05/2023, 08:05 - Dana: I suggest the river loop on Saturday at 7am, then pancakes\n"
        "13/05/2023, 10:02 - Tomás: My knee hurts after the intervals\n", encoding="utf-8")
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(path)).exit_code == 0
    with Memory.open(home) as mem:
        mem.curate()
    rows = json.loads(run("query", 'item_speaker(H, "Dana"), item_time(H, T)',
                          "--format", "json").output)
    assert [r["T"] for r in rows] == ["2023-05-09T08:05:00Z"]
    frame = json.loads(run("hydrate", "What did Dana suggest for Saturday?", "--budget", "200",
                           "--format", "json").output)
    first = frame["receipt"]["facts"][0]
    assert first.get("speaker") == "Dana"
    assert "Dana: I suggest the river loop on Saturday at 7am" in frame["text"]


def test_a_file_of_other_text_is_not_whatsapp(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Priya: hello there\nTomás: hi Priya\nPriya: bye\nTomás: bye\n")
    assert detect_format(path) == "text"
    stamped = ("[2023-05-08 13:56] Priya: hi\n[2023-05-08 13:57] Dana: yo\n"
               "[2023-05-08 13:58] Priya: run?\n[2023-05-08 13:59] Dana: yes\n")
    assert detect_format(stamped) == "text"   # no comma after the date: not WhatsApp's
    log = "08/05/2023, 13:56 - server started\n08/05/2023, 13:57 - server stopped\n"
    with pytest.raises(InputError, match="cannot detect format"):
        detect_format(log)                    # no sender on any line: not a chat


def test_a_chat_still_being_written_holds_its_last_message_back():
    """``atc watch`` parses a file that is still changing only up to its last message, which may
    gain lines: a message read half way would be stored with another handle than the whole."""
    from attention_cloud.ingest.source import make_source
    from attention_cloud.ingest.unfinished import finished_part

    text = ("08/05/2023, 13:56 - Priya: Plan for Saturday:\n- 7am river loop\n"
            "08/05/2023, 13:57 - Tomás: And after that:\n- pancakes\n")
    finished = finished_part(make_source(text.encode(), name="chat.txt"))
    assert finished is not None
    assert finished.data.decode() == "08/05/2023, 13:56 - Priya: Plan for Saturday:\n- 7am river loop\n"


def test_a_quoted_nickname_is_a_sender_a_changed_subject_is_not(tmp_path):
    text = ('08/05/2023, 13:55 - Priya changed the subject from "Runs: weekdays" to "Runs"\n'
            '08/05/2023, 13:56 - Dana "DJ" Whitfield: Saturday at 7?\n'
            '08/05/2023, 13:57 - Priya: Yes\n')
    result = _parse(tmp_path, text)
    assert [(i.speaker, i.text) for i in result.items] == [
        ('Dana "DJ" Whitfield', "Saturday at 7?"), ("Priya", "Yes")]
    assert result.ignored == {"system": 1}


def test_an_attached_file_is_media_and_its_caption_is_kept(tmp_path):
    text = ("08/05/2023, 13:56 - Priya: IMG-20230508-WA0001.jpg (file attached)\n"
            "08/05/2023, 13:57 - Dana: IMG-20230508-WA0002.jpg (file attached)\n"
            "The river loop map\n"
            "08/05/2023, 13:58 - Priya: Thanks\n")
    result = _parse(tmp_path, text)
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Dana", "The river loop map"), ("Priya", "Thanks")]
    assert result.ignored == {"media omitted": 1}


def test_a_pasted_memory_frame_is_never_ingested(tmp_path):
    text = ("08/05/2023, 13:56 - Priya: Here is what my assistant recalled:\n"
            '<memory-frame goal="runs">\n'
            "Dana: I suggest the river loop\n"
            "</memory-frame>\n"
            "Anyway, Saturday?\n"
            "13/05/2023, 13:57 - Dana: Yes\n")
    result = _parse(tmp_path, text)
    assert result.envelopes_stripped == 1
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Priya", "Here is what my assistant recalled:\n\n\n\nAnyway, Saturday?"), ("Dana", "Yes")]


def test_a_megabyte_token_or_run_of_spaces_is_read_in_linear_time(tmp_path):
    """The media pattern (`\\S+\\.\\w{2,5} \\(file attached\\)`) and the edited mark's leading
    `[\\s...]*` were searched from every position: a damaged export with a 1 MB token took
    19 minutes in the fuzz test (CI on 5560ec2)."""
    import time

    from attention_cloud.ingest import parse_path

    path = tmp_path / "WhatsApp Chat with Running Club.txt"
    path.write_text("[5/8/23, 1:55:40 PM] Priya: " + "z" * 1_100_000 + "\n"
                    "[5/8/23, 1:56:03 PM] Dana: " + " " * 1_000_000 + "x <This message was edited>\n"
                    "[5/8/23, 1:57:03 PM] Priya: IMG-20230508-WA0001.jpg (file attached) the view\n",
                    encoding="utf-8")
    started = time.monotonic()
    result = parse_path(path, format="whatsapp")
    assert time.monotonic() - started < 10
    texts = [item.text for item in result.items]
    assert any(text.endswith("x") and "edited" not in text for text in texts), texts
    assert texts[-1].endswith("the view") and "IMG-" not in texts[-1]


def test_an_indian_iphone_export_is_read_day_first_by_the_days_its_dates_span(tmp_path):
    """An Indian (or Arabic) iPhone writes the day first with a 12-hour clock. Before, a chat of
    8, 9 and 10 May (08/05/23 … 10/05/23: no number above 12, in order both ways) was read as
    5 August, 5 September and 5 October. Read the way its messages fall closest together (two
    days rather than two months), and the report says how it was decided."""
    text = ("[08/05/23, 1:56:03 PM] Priya: I signed up for the pottery class\n"
            "[08/05/23, 1:58:10 PM] Arjun: nice, which studio?\n"
            "[09/05/23, 9:01:00 AM] Priya: the one on MG Road\n"
            "[10/05/23, 6:30:00 PM] Arjun: how was the first lesson?\n")
    result = _parse(tmp_path, text)
    assert [i.time for i in result.items] == [
        "2023-05-08T13:56:03Z", "2023-05-08T13:58:10Z", "2023-05-09T09:01:00Z",
        "2023-05-10T18:30:00Z"]
    assert len(result.notes) == 1
    assert "read as day/month" in result.notes[0] and "2 days" in result.notes[0]
    # a US phone's 5/8/23, 5/9/23, 5/10/23 stays month first, by the same rule
    us = text.replace("08/05/23", "5/8/23").replace("09/05/23", "5/9/23").replace(
        "10/05/23", "5/10/23")
    assert [i.time[:10] for i in _parse(tmp_path, us).items] == [
        "2023-05-08", "2023-05-08", "2023-05-09", "2023-05-10"]
    # one day only: nothing decides, the clock's habit is followed and the report says so
    one_day = "".join(text.splitlines(keepends=True)[:2])
    result = _parse(tmp_path, one_day)
    assert result.items[0].time == "2023-08-05T13:56:03Z"
    assert "could be day/month or month/day" in result.notes[0]


def test_an_arabic_phones_export_in_arabic_indic_digits(tmp_path):
    """An Android phone set to Arabic writes its dates and clock in Arabic-Indic digits, a
    right-to-left mark after the day and the month and an Arabic comma:
    "٢٤‏/٤‏/٢٠٢٢، ٢:٠٧ م - Name: …". Before, such an export was "cannot detect format"."""
    rlm = "\u200f"
    text = (f"٢٤{rlm}/٤{rlm}/٢٠٢٢، ٢:٠٧ م - سارة: هل وصلت؟\n"
            f"٢٤{rlm}/٤{rlm}/٢٠٢٢، ٢:٠٨ م - ليلى: نعم، وصلت الآن\n")
    result = _parse(tmp_path, text)
    assert result.format == "whatsapp"
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("سارة", "2022-04-24T14:07:00Z", "هل وصلت؟"),
        ("ليلى", "2022-04-24T14:08:00Z", "نعم، وصلت الآن")]
