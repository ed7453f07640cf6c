"""Chat logs in IRC's shape, as irssi, WeeChat, ZNC, HexChat and Matrix bridges write them:
``[2023-05-08 13:56] <priya> text`` or ``13:56 <priya> text``, a nick in angle brackets (in
lower case as often as not, with its channel mode, ``<@priya>``). Each line is a turn of that
nick with its time; joins, parts and ``/me`` actions (``-!- tomas has joined``, ``* priya
waves``) are no one's words and are counted, not glued to the turn above."""
from __future__ import annotations

from attention_cloud.ingest import parse_text

LOG = ("[2023-05-08 13:56] <priya> are we still on for the river run tomorrow?\n"
       "[2023-05-08 13:57] <@tomas> yes, seven sharp at the bridge\n"
       "[2023-05-08 13:57] -!- dana [~dana@host] has joined #running\n"
       "[2023-05-08 13:58] <priya> great, I will bring water for both of us\n"
       "[2023-05-08 13:59] * tomas waves\n"
       "[2023-05-08 14:02] <+dana> can I join you two?\n")


def test_each_irc_line_is_a_turn_of_its_nick_with_its_time():
    result = parse_text(LOG, name="running.log")
    assert result.format == "text"
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("priya", "2023-05-08T13:56:00Z", "are we still on for the river run tomorrow?"),
        ("tomas", "2023-05-08T13:57:00Z", "yes, seven sharp at the bridge"),
        ("priya", "2023-05-08T13:58:00Z", "great, I will bring water for both of us"),
        ("dana", "2023-05-08T14:02:00Z", "can I join you two?"),
    ]
    assert [i.role for i in result.items] == ["user", "assistant", "user", "assistant"]
    assert result.ignored == {"irc-event": 2}


def test_clock_only_irc_lines_take_the_day_of_the_log():
    log = ("--- Day changed Mon May 08 2023\n"
           "13:56 <priya> are we still on for the river run tomorrow?\n"
           "13:57 <tomas> yes, seven sharp at the bridge\n"
           "--- Day changed Tue May 09 2023\n"
           "07:02 <priya> I am at the bridge already\n")
    result = parse_text(log, name="running.log")
    assert [(i.speaker, i.time) for i in result.items] == [
        ("priya", "2023-05-08T13:56:00Z"), ("tomas", "2023-05-08T13:57:00Z"),
        ("priya", "2023-05-09T07:02:00Z")]


def test_angle_brackets_in_a_turn_are_its_text():
    chat = ("Priya: the tag <div> goes around it\nTomás: and <span> inside?\n"
            "Priya: <b> for bold, yes\n")
    result = parse_text(chat, name="chat.txt")
    assert [(i.speaker, i.text) for i in result.items] == [
        ("Priya", "the tag <div> goes around it"), ("Tomás", "and <span> inside?"),
        ("Priya", "<b> for bold, yes")]
