#!/usr/bin/env python3
"""Chats in forms the readers were not tuned on, and who and when each reader keeps of them.

Deterministic for ``--seed``: each *form* (a chat export or a text chat as a locale, an app or a
person writes it) is rendered from one drawn conversation, with what every message must keep:
its speaker as the export names them and its time in ISO 8601 UTC (a time without a zone is the
time as written, as the readers store every zoneless time). The conversations mix what real
exports hold: three to ten people in a group, names with spaces, accents, emoji or a phone
number, a contact renamed mid-export, system lines ("X joined", "Messages are end-to-end
encrypted"), multi-line messages and attachments ("<Media omitted>"); the dates are written as
each locale writes them (day first in en-GB, FR, DE, ES and en-IN exports, month first in
en-US ones, days all ≤ 12 or all on one day so no number decides; ``8. Mai 2023``, ``8 de mayo
de 2023``, ``2023年5月8日``; 12-hour clocks with ``a.m.``, ``p. m.`` or ``AM``, 24-hour ones,
seconds or not, offsets; epoch seconds and milliseconds in JSON).

Each form is parsed with :func:`attention_cloud.ingest.parse_text` and every message is looked up
by its text: *kept* when one item holds it with its speaker and time, else *lost* with what was
wrong (``missing``, ``speaker``, ``time``); an item whose speaker is no participant (a system
line read as a person) is counted ``intruder``.

    .venv/bin/python scripts/bench/chat_forms.py                 # every form, one line each
    .venv/bin/python scripts/bench/chat_forms.py --only whatsapp --show-lost
    .venv/bin/python scripts/bench/chat_forms.py --write /tmp/forms   # the files, to ingest
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

# Who may speak: names with spaces, accents, emoji, other scripts, a phone number.
PEOPLE = ("Priya", "Tomás Ruiz", "Zoë Müller", "Dana 🌻", "+44 7700 900123", "Oluwaseun",
          "Ana María", "Kenji", "李雷", "Siobhan O'Neill", "Björn", "Yasmin")
# Names that read as one word in lower case where an app shows account names (Discord).
HANDLES = ("priya.p", "tomas_r", "zoe.m", "dana.w", "seun", "ana.maria", "kenji", "lei")
_WORDS = ("river", "bridge", "marathon", "pottery", "class", "saturday", "route", "coffee",
          "tickets", "train", "kitchen", "garden", "guitar", "lesson", "museum", "budget",
          "flight", "market", "paint", "camera")
_MONTHS_DE = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
              "September", "Oktober", "November", "Dezember")
_MONTHS_ES = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
              "septiembre", "octubre", "noviembre", "diciembre")


@dataclass(frozen=True)
class Message:
    """One message of a drawn conversation: who, when (naive, as the sender's clock shows it),
    and its lines."""

    speaker: str
    moment: datetime
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Form:
    """A chat rendered in one form: its file's name and text, and what each message keeps."""

    name: str
    filename: str
    text: str
    messages: list[Message]
    speakers: list[str] = field(default_factory=list)  # as the reader must name each message's
    times: list[str] = field(default_factory=list)     # ISO 8601 UTC each message must keep


def _sentence(rng: random.Random, index: int) -> str:
    words = rng.sample(_WORDS, 5)
    return f"Message {index} is about the {words[0]} and the {words[1]} {words[2]} near {words[3]}"


def converse(rng: random.Random, people: list[str], start: datetime, count: int,
             *, one_day: bool, multi_line: bool = True) -> list[Message]:
    """``count`` messages of ``people`` from ``start``: everyone speaks, one back after another
    spoke; all on ``start``'s day (``one_day``) or over days that stay at or below the 12th."""
    messages: list[Message] = []
    moment = start
    order = people + [rng.choice(people) for _ in range(count - len(people))]
    for index, speaker in enumerate(order):
        lines = [_sentence(rng, index)]
        if multi_line and rng.random() < 0.2:
            lines.append(f"and a second line {index} about the {rng.choice(_WORDS)}")
        messages.append(Message(speaker, moment, tuple(lines)))
        step = timedelta(minutes=rng.randint(1, 9), seconds=rng.randint(0, 59) if
                         rng.random() < 0.5 else 0)
        if not one_day and rng.random() < 0.25:
            step += timedelta(days=1)
        nxt = moment + step
        if (one_day and nxt.date() != start.date()) or nxt.day > 12:
            nxt = moment + timedelta(seconds=30)
        moment = nxt
    return messages


def _iso(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _clock12(moment: datetime, am: str, pm: str, seconds: bool = False) -> str:
    hour = moment.hour % 12 or 12
    clock = f"{hour}:{moment.minute:02d}" + (f":{moment.second:02d}" if seconds else "")
    return f"{clock}{am if moment.hour < 12 else pm}"


def _seconds_kept(messages: list[Message], seconds: bool) -> list[Message]:
    """The messages with the seconds a clock without them drops (what the file can say)."""
    return messages if seconds else [Message(m.speaker, m.moment.replace(second=0), m.lines)
                                     for m in messages]


# -- WhatsApp ----------------------------------------------------------------------------------
_WA_SYSTEM_HEAD = ("Messages and calls are end-to-end encrypted. No one outside of this chat, "
                   "not even WhatsApp, can read or listen to them. Tap to learn more.")


def _whatsapp(name: str, messages: list[Message], stamp: Callable[[datetime], str],
              ios: bool, *, renamed: tuple[str, str] | None = None) -> Form:
    """An export of ``messages``: the encryption notice, a join and a media line among them;
    with ``renamed`` (old, new), the contact's messages before the rename line name them by the
    old name (a phone number saved as a contact mid-export)."""
    out: list[str] = []
    first = messages[0].moment
    sep = "" if ios else " -"

    def line(moment: datetime, rest: str) -> str:
        head = f"[{stamp(moment)}]" if ios else f"{stamp(moment)}{sep}"
        return f"{head} {rest}"

    out.append(line(first, ("\u200e" if ios else "") + _WA_SYSTEM_HEAD) if not ios else
               f"[{stamp(first)}] Running Club: \u200e{_WA_SYSTEM_HEAD}")
    out.append(line(first, f"{messages[0].speaker} created group \"Running Club\"") if not ios
               else f"[{stamp(first)}] Running Club: \u200e{messages[0].speaker} created this group")
    speakers: list[str] = []
    shown_rename = False
    for index, message in enumerate(messages):
        who = message.speaker
        if renamed and who == renamed[1] and index < len(messages) // 2:
            who = renamed[0]
        elif renamed and who == renamed[1] and not shown_rename:
            out.append(line(message.moment, f"{renamed[0]} changed to {renamed[1]}"))
            shown_rename = True
        if index == 2:
            out.append(line(message.moment, f"{message.speaker} joined using this group's "
                                            "invite link"))
            out.append(line(message.moment, f"{who}: <Media omitted>"))
        out.append(line(message.moment, f"{who}: {message.lines[0]}"))
        out.extend(message.lines[1:])
        speakers.append(who)
    return Form(name, "WhatsApp Chat with Running Club.txt", "\n".join(out) + "\n", messages,
                speakers, [_iso(m.moment) for m in messages])


def _whatsapp_forms(rng: random.Random) -> list[Form]:
    forms = []
    # every kind of name speaks: a phone number, an emoji, accents, another script, spaces
    group = list(PEOPLE[2:5]) + ["李雷"] + rng.sample(
        [p for p in PEOPLE if p not in PEOPLE[2:5] and p != "李雷"], rng.randint(0, 6))

    def draw(one_day: bool, seconds: bool, size: int | None = None) -> list[Message]:
        people = group[:size] if size else group
        start = datetime(2023, rng.randint(1, 12), rng.randint(1, 6), 9, 5)
        return _seconds_kept(converse(rng, people, start, 14, one_day=one_day), seconds)

    nnbsp, nbsp = "\u202f", "\u00a0"
    # (form, one day?, seconds?, iOS?, how the phone writes a message's date and time)
    phones: list[tuple[str, bool, bool, bool, Callable[[datetime], str]]] = [
        ("android en-GB 24h, days <= 12", False, False, False,
         lambda d: f"{d:%d/%m/%Y}, {d:%H:%M}"),
        ("android en-GB 12h (am/pm), one day", True, False, False,
         lambda d: f"{d:%d/%m/%Y}, {_clock12(d, ' am', ' pm')}"),
        ("android en-IN 12h (am/pm), one day", True, False, False,
         lambda d: f"{d:%d/%m/%y}, {_clock12(d, ' am', ' pm')}"),
        ("android en-US 12h (AM/PM), one day", True, False, False,
         lambda d: f"{d.month}/{d.day}/{d:%y}, {_clock12(d, nnbsp + 'AM', nnbsp + 'PM')}"),
        ("ios en-US 12h, days <= 12", False, True, True,
         lambda d: f"{d.month}/{d.day}/{d:%y}, {_clock12(d, ' AM', ' PM', seconds=True)}"),
        ("ios de 24h dotted, one day", True, True, True,
         lambda d: f"{d:%d.%m.%y}, {d:%H:%M:%S}"),
        ("android es 12h (p. m.), one day", True, False, False,
         lambda d: f"{d.day}/{d.month}/{d:%y}, {_clock12(d, nbsp + 'a. m.', nbsp + 'p. m.')}"),
        ("ios es 12h (p. m.), one day", True, True, True,
         lambda d: f"{d.day}/{d.month}/{d:%y}, "
                   f"{_clock12(d, ' a. m.', ' p. m.', seconds=True)}"),
        ("android fr 24h (à), one day", True, False, False,
         lambda d: f"{d:%d/%m/%Y} à {d:%H:%M}"),
        ("android en-AU 12h (am/pm), one day", True, False, False,
         lambda d: f"{d.day}/{d.month}/{d.year}, {_clock12(d, nnbsp + 'am', nnbsp + 'pm')}"),
    ]
    for name, one_day, seconds, ios, stamp in phones:
        forms.append(_whatsapp(f"whatsapp {name}", draw(one_day, seconds), stamp, ios=ios))
    m = draw(False, False, size=3)
    phone = "+44 7700 900123"
    renamed = [Message(phone if msg.speaker == m[1].speaker else msg.speaker, msg.moment,
                       msg.lines) for msg in m]
    forms.append(_whatsapp("whatsapp android en-GB, a number saved as a contact mid-export",
                           [Message("Kwame" if x.speaker == phone else x.speaker, x.moment,
                                    x.lines) for x in renamed],
                           lambda d: f"{d:%d/%m/%Y}, {d:%H:%M}", ios=False,
                           renamed=(phone, "Kwame")))
    return forms


# -- text chats under a date line -----------------------------------------------------------------
def _text_under_dates(name: str, messages: list[Message], date_line: Callable[[datetime], str],
                      speaker_line: Callable[[Message], str]) -> Form:
    out: list[str] = []
    day = None
    for message in messages:
        if message.moment.date() != day:
            day = message.moment.date()
            out.extend(["", date_line(message.moment), ""])
        out.append(speaker_line(message))
        out.extend(message.lines[1:])
    return Form(name, re.sub(r"[^\w.-]+", "-", name.split(",")[0]) + ".txt",
                "\n".join(out).lstrip() + "\n", messages, [m.speaker for m in messages],
                [_iso(m.moment) for m in messages])


def _text_forms(rng: random.Random) -> list[Form]:
    people = [p for p in rng.sample(PEOPLE, 4) if not p.startswith("+")][:3]

    def draw(one_day: bool) -> list[Message]:
        start = datetime(2023, 5, rng.randint(1, 5), 8, 30)
        return _seconds_kept(converse(rng, people, start, 10, one_day=one_day,
                                      multi_line=False), False)

    def bracket(m: Message) -> str:
        return f"[{m.moment:%H:%M}] {m.speaker}: {m.text}"

    forms = [
        _text_under_dates("text de date line (8. Mai 2023)", draw(False),
                          lambda d: f"{d.day}. {_MONTHS_DE[d.month - 1]} {d.year}", bracket),
        _text_under_dates("text es date line (8 de mayo de 2023)", draw(False),
                          lambda d: f"{d.day} de {_MONTHS_ES[d.month - 1]} de {d.year}", bracket),
        _text_under_dates("text ja date line (2023年5月8日)", draw(False),
                          lambda d: f"{d.year}年{d.month}月{d.day}日", bracket),
        _text_under_dates("text en-GB timed lines dd/mm, days <= 12", draw(False),
                          lambda d: f"Date: {d:%d/%m/%Y}",
                          lambda m: f"[{m.moment:%d/%m/%Y %H:%M}] {m.speaker}: {m.text}"),
        _text_under_dates("text en-US a.m./p.m. clock, May 8, 2023", draw(False),
                          lambda d: f"{d:%B} {d.day}, {d.year}",
                          lambda m: f"{m.speaker} ({_clock12(m.moment, ' a.m.', ' p.m.')}): "
                                    f"{m.text}"),
        _text_under_dates("text en-GB dd/mm 12h (pm), one day", draw(True),
                          lambda d: "",
                          lambda m: f"[{m.moment:%d/%m/%Y} {_clock12(m.moment, ' am', ' pm')}] "
                                    f"{m.speaker}: {m.text}"),
    ]
    zoned = _seconds_kept(converse(rng, people, datetime(2023, 5, 7, 22, 30), 10,
                                   one_day=False, multi_line=False), True)
    zoned = [Message(m.speaker, m.moment.replace(tzinfo=_ZONE), m.lines) for m in zoned]
    forms.append(_text_under_dates("text ISO 8601 +02:00 per line", zoned, lambda d: "",
                                   lambda m: f"{m.moment.isoformat()} {m.speaker}: {m.text}"))
    group = ["Priya", "Tomás Ruiz", "Zoë Müller", "Ana María", "Kenji", "Björn", "Yasmin"]
    many = _seconds_kept(converse(rng, group, datetime(2023, 5, 3, 8, 30), 20,
                                  one_day=False), False)
    forms.append(_text_under_dates("text 7 people, multi-line turns, May 8, 2023 lines", many,
                                   lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year}",
                                   lambda m: f"{m.speaker} [{m.moment:%H:%M}]: {m.lines[0]}"))
    return forms


# -- JSON chats: OpenAI messages with name and timestamp, Telegram, Messenger -------------------
_ZONE = timezone(timedelta(hours=2))


def _stamp_forms() -> dict[str, Callable[[datetime], object]]:
    """How a JSON chat may write a message's time (a naive moment meant as +02:00 where an
    offset is written, else as written)."""
    return {
        "epoch seconds": lambda d: int(d.replace(tzinfo=_ZONE).timestamp()),
        "epoch milliseconds": lambda d: int(d.replace(tzinfo=_ZONE).timestamp() * 1000),
        "ISO 8601 +02:00": lambda d: d.replace(tzinfo=_ZONE).isoformat(),
        "RFC 2822": lambda d: d.replace(tzinfo=_ZONE).strftime("%a, %d %b %Y %H:%M:%S +0200"),
        "1:56 pm on 8 May, 2023": lambda d: f"{_clock12(d, ' am', ' pm')} on {d.day} "
                                             f"{d:%B}, {d.year}",
        "8 de mayo de 2023, 13:56:03": lambda d: f"{d.day} de {_MONTHS_ES[d.month - 1]} de "
                                                  f"{d.year}, {d:%H:%M:%S}",
        "Montag, 8. Mai 2023 um 13:56": lambda d: f"{d.day}. {_MONTHS_DE[d.month - 1]} "
                                                   f"{d.year} um {d:%H:%M}",
        "2023年5月8日 下午1:56": lambda d: f"{d.year}年{d.month}月{d.day}日 "
                                          f"{'上午' if d.hour < 12 else '下午'}"
                                          f"{d.hour % 12 or 12}:{d.minute:02d}",
        "May 8, 2023 at 1:56 a.m.": lambda d: f"{d:%B} {d.day}, {d.year} at "
                                               f"{_clock12(d, ' a.m.', ' p.m.')}",
        "08/05/2023 13:56 (day first, days <= 12)": lambda d: f"{d:%d/%m/%Y %H:%M}",
        "8/5/2023 1:56 p. m. (es, one day)": lambda d: f"{d.day}/{d.month}/{d.year} "
                                                       f"{_clock12(d, ' a. m.', ' p. m.')}",
    }


_ZONED = ("epoch seconds", "epoch milliseconds", "ISO 8601 +02:00", "RFC 2822")
_WITH_SECONDS = ("epoch seconds", "epoch milliseconds", "ISO 8601 +02:00", "RFC 2822",
                 "8 de mayo de 2023, 13:56:03")


def _json_forms(rng: random.Random) -> list[Form]:
    forms = []
    for label, stamp in _stamp_forms().items():
        people = rng.sample([p for p in PEOPLE if not p.startswith("+")], 2)
        start = datetime(2023, 5, rng.randint(1, 5), 8, 30)
        messages = _seconds_kept(converse(rng, people, start, 8, one_day="one day" in label,
                                          multi_line=False), label in _WITH_SECONDS)
        roles = {people[0]: "user", people[1]: "assistant"}
        lines = [json.dumps({"role": roles[m.speaker], "name": m.speaker,
                             "content": m.text, "timestamp": stamp(m.moment)},
                            ensure_ascii=False) for m in messages]
        zoned = label in _ZONED
        forms.append(Form(f"openai jsonl name + {label}", "chat.jsonl", "\n".join(lines) + "\n",
                          messages, [m.speaker for m in messages],
                          [_iso(m.moment.replace(tzinfo=_ZONE) if zoned else m.moment)
                           for m in messages]))
    people = rng.sample(PEOPLE, 5)
    start = datetime(2023, 5, 3, 8, 30)
    messages = converse(rng, people, start, 12, one_day=False, multi_line=False)
    telegram = {"name": "Running Club", "type": "private_group", "id": 42, "messages": [
        {"id": 1, "type": "service", "date": f"{start:%Y-%m-%dT%H:%M:%S}",
         "date_unixtime": str(int(start.replace(tzinfo=timezone.utc).timestamp())),
         "actor": people[0], "action": "create_group", "title": "Running Club", "text": ""}]}
    for i, m in enumerate(messages, 2):
        telegram["messages"].append(
            {"id": i, "type": "message", "date": f"{m.moment:%Y-%m-%dT%H:%M:%S}",
             "date_unixtime": str(int(m.moment.replace(tzinfo=_ZONE).timestamp())),
             "from": m.speaker, "from_id": f"user{people.index(m.speaker)}",
             "text": m.text})
    forms.append(Form("telegram result.json, 5 people", "result.json",
                      json.dumps(telegram, ensure_ascii=False), messages,
                      [m.speaker for m in messages],
                      [_iso(m.moment.replace(tzinfo=_ZONE)) for m in messages]))
    messenger = {"participants": [{"name": p} for p in people], "title": "Running Club",
                 "thread_path": "inbox/runningclub_3825", "messages": [
                     {"sender_name": m.speaker,
                      "timestamp_ms": int(m.moment.replace(tzinfo=_ZONE).timestamp() * 1000),
                      "content": m.text} for m in reversed(messages)]}
    forms.append(Form("messenger message_1.json, 5 people, Meta's mis-encoded text",
                      "message_1.json", _meta_encoded(json.dumps(messenger, ensure_ascii=False)),
                      messages,
                      [m.speaker for m in messages],
                      [_iso(m.moment.replace(tzinfo=_ZONE)) for m in messages]))
    return forms


def _meta_encoded(text: str) -> str:
    """JSON as Meta writes it: each byte of a character's UTF-8 written as a character of its
    own (``"Zo\\u00c3\\u00ab"`` for ``Zoë``)."""
    return "".join(ch if ord(ch) < 128 else "".join(f"\\u{b:04x}" for b in ch.encode("utf-8"))
                   for ch in text)


# -- Discord (DiscordChatExporter CSV and text) ------------------------------------------------------
def _discord_forms(rng: random.Random) -> list[Form]:
    people = rng.sample(HANDLES, 4)
    start = datetime(2023, 5, 3, 15, 56)
    messages = _seconds_kept(converse(rng, people, start, 10, one_day=False,
                                      multi_line=False), False)
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["AuthorID", "Author", "Date", "Content", "Attachments", "Reactions"])
    for i, m in enumerate(messages):
        writer.writerow([str(100 + people.index(m.speaker)), m.speaker,
                         f"{m.moment:%d/%m/%Y %H:%M}", m.text, "", ""])
    times = [_iso(m.moment) for m in messages]
    forms = [Form("discord csv dd/mm/yyyy 24h, days <= 12", "general [901].csv",
                  buffer.getvalue(), messages, list(people[i] for i in
                                                    [people.index(m.speaker) for m in messages]),
                  times)]
    rule = "=" * 62
    text = [rule, "Guild: Running Club", "Channel: Text Channels / general", rule, ""]
    for m in messages:
        text += [f"[{m.moment.month}/{m.moment.day}/{m.moment.year} "
                 f"{_clock12(m.moment, ' AM', ' PM')}] {m.speaker}", m.text, "", ""]
    text += [rule, f"Exported {len(messages)} message(s)", rule]
    forms.append(Form("discord text m/d/yyyy 12h, days <= 12", "general [901].txt",
                      "\n".join(text) + "\n", messages, [m.speaker for m in messages], times))
    return forms


def all_forms(seed: int = 7) -> list[Form]:
    """Every form, drawn from ``seed``."""
    rng = random.Random(seed)
    return _whatsapp_forms(rng) + _text_forms(rng) + _json_forms(rng) + _discord_forms(rng)


# -- checking ------------------------------------------------------------------------------------
@dataclass
class Verdict:
    """What a form's reading kept: per message ``kept`` or why lost; intruders counted."""

    form: str
    detected: str
    kept: int
    lost: list[tuple[str, str, str, str]]  # (what, message text head, wanted, got)
    intruders: list[str]
    error: str = ""


def check(form: Form) -> Verdict:
    """Parse ``form`` and say, per message, whether one item keeps its speaker and time."""
    from attention_cloud.ingest import parse_text
    try:
        result = parse_text(form.text, name=form.filename)
    except Exception as error:  # a refusal is the worst verdict, not a crash of the bench
        return Verdict(form.name, "-", 0, [("missing", m.lines[0][:30], "", "")
                                           for m in form.messages], [], str(error))
    by_text = {}
    for item in result.items:
        by_text.setdefault(item.text.strip(), item)
    lost = []
    kept = 0
    for message, speaker, time in zip(form.messages, form.speakers, form.times):
        item = by_text.get(message.text) or next(
            (i for i in result.items if message.lines[0] in i.text), None)
        if item is None:
            lost.append(("missing", message.lines[0][:30], "", ""))
        elif item.speaker != speaker:
            lost.append(("speaker", message.lines[0][:30], speaker, item.speaker))
        elif item.time != time:
            lost.append(("time", message.lines[0][:30], time, item.time))
        else:
            kept += 1
    participants = set(form.speakers)
    intruders = sorted({i.speaker for i in result.items if i.speaker not in participants})
    return Verdict(form.name, result.format, kept, lost, intruders)


def check_memory(form: Form, folder: Path) -> tuple[int, bool, bool]:
    """Ingest ``form`` into a new home under ``folder``: how many messages ``item_speaker/2``
    and ``item_time/2`` answer as the form says, whether ``goal_speaker/2`` names the first
    speaker of a question asking about them, and whether a frame for that question opens with
    one of their turns (``Name: …``)."""
    from attention_cloud import Memory
    path = folder / form.filename
    path.write_text(form.text, encoding="utf-8")
    target = form.speakers[0]
    question = f"What did {target} say about the {form.messages[0].lines[0].split()[-1]}?"
    with Memory.open(folder / "home") as mem:
        mem.ingest([str(path)])
        rows = mem.query("item_speaker(H, S), item_time(H, T)").rows
        named = mem.query(f"goal_speaker({json.dumps(question, ensure_ascii=False)}, A)").rows
        frame = mem.hydrate(question, budget=300)
    held = sorted((r["S"], r["T"]) for r in rows)
    kept = sum(1 for pair in sorted(zip(form.speakers, form.times)) if pair in held)
    return (kept, [r["A"] for r in named] == [target],
            bool(frame.facts) and frame.facts[0].text.startswith(f"{target}: "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--only", default="", help="forms whose name holds this text")
    parser.add_argument("--show-lost", action="store_true", help="each lost message's reason")
    parser.add_argument("--write", type=Path, help="write each form's file into this folder")
    parser.add_argument("--memory", action="store_true",
                        help="also ingest each form into a new home: item_speaker/2 and "
                             "item_time/2 per message, goal_speaker/2 and a frame for a "
                             "question naming its first speaker")
    args = parser.parse_args(argv)
    forms = [f for f in all_forms(args.seed) if args.only in f.name]
    total_kept = total = memory_short = 0
    for index, form in enumerate(forms):
        if args.write:
            folder = args.write / f"{index:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / form.filename).write_text(form.text, encoding="utf-8")
        verdict = check(form)
        total_kept += verdict.kept
        total += len(form.messages)
        in_memory = ""
        if args.memory:
            import tempfile
            with tempfile.TemporaryDirectory() as folder:
                held, named, first = check_memory(form, Path(folder))
            in_memory = (f"  memory {held}/{len(form.messages)}"
                         f" named {'yes' if named else 'NO'} frame {'yes' if first else 'NO'}")
            memory_short += 0 if held == len(form.messages) and named and first else 1
        print(f"{verdict.kept:3d}/{len(form.messages):<3d} {verdict.detected:<9} {form.name}"
              + (f"  intruders: {verdict.intruders}" if verdict.intruders else "")
              + (f"  error: {verdict.error}" if verdict.error else "") + in_memory)
        if args.show_lost:
            for what, head, wanted, got in verdict.lost:
                print(f"        {what}: {head!r} wanted {wanted!r} got {got!r}")
    print(f"kept {total_kept} of {total} messages in {len(forms)} forms"
          + (f"; in memory, {memory_short} form(s) short" if args.memory else ""))
    return 0 if total_kept == total and not memory_short else 1


if __name__ == "__main__":
    sys.exit(main())
