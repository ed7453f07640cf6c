"""SillyTavern chat files (``data/<user>/chats/<character>/<character> - <date>.jsonl``, or a
chat's "Export as .jsonl"): a first line ``{"user_name", "character_name", "create_date",
"chat_metadata"}``, then a message a line, ``{"name", "is_user", "is_system", "send_date",
"mes", "swipes", "swipe_id", "extra"}``.

- **Session**: the file (its name says the character and the chat's start); the character as
  ``relation(H, character, NAME)`` on each item.
- **Speakers and roles**: ``name`` (the user's persona or the character) is the speaker;
  ``is_user`` the user's role, else the assistant's; a narrator's line (``is_system``, or a
  ``name`` of ``System``) a system turn. A group chat's several characters are each named.
- **Swipes**: ``mes`` is the reply chosen; the other replies swiped past (``swipes``) are
  counted as ``other-swipe``, not kept. The model that wrote a reply (``extra.model``) is
  ``relation(H, model, M)``.
- **Time**: ``send_date`` in each of the forms SillyTavern wrote over its versions: ``May 8,
  2023 1:56pm``, ISO 8601, epoch milliseconds, ``2023-05-08@13h56m03s`` or ``2023-5-8 @13h 56m
  03s 120ms`` (the machine's local time, read as UTC: the file names no zone).

Pointers read ``<file>:<line>``.
"""

from __future__ import annotations

import re
from typing import Any

from .classify import assistant_text_kind, clean_message, message_text, user_message_kind
from .collector import ItemCollector
from .jsonlines import json_records
from .source import Source

# "2023-05-08@13h56m03s", "2023-5-8 @13h 56m 03s 120ms": SillyTavern's own date form
_AT_CLOCK = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m"
                       r"\s*(\d{1,2})s(?:\s*(\d{1,3})\s*ms)?\s*\Z")


def is_sillytavern_line(value: Any) -> bool:
    """True for a line of a SillyTavern chat: its header (``user_name`` and
    ``character_name``) or a message (``mes`` and ``is_user``)."""
    if not isinstance(value, dict):
        return False
    return ("character_name" in value and "user_name" in value) or (
        "mes" in value and isinstance(value.get("is_user"), bool))


def sillytavern_time(value: Any) -> Any:
    """``value`` with SillyTavern's ``2023-05-08@13h56m03s`` form written as ISO 8601, so the
    common time reader reads it; any other value as it is."""
    if isinstance(value, str):
        match = _AT_CLOCK.match(value)
        if match:
            year, month, day, hour, minute, second, _ = match.groups()
            return (f"{int(year):04d}-{int(month):02d}-{int(day):02d}T"
                    f"{int(hour):02d}:{int(minute):02d}:{int(second):02d}")
    return value


class SillyTavernParser:
    """Parses a SillyTavern chat file into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.links: tuple[tuple[str, str], ...] = ()

    def parse(self, source: Source) -> int:
        """Read every message; return how many lines were SillyTavern's (its header or a
        message): none, and the file is refused as no SillyTavern chat."""
        read = 0
        for number, record in json_records(source, self.collector):
            if "mes" not in record and "character_name" in record:
                character = record.get("character_name")
                if isinstance(character, str) and character.strip():
                    self.links = (("character", " ".join(character.split())[:80]),)
                self.collector.ignore("chat header")
                read += 1
                continue
            if not is_sillytavern_line(record):
                self.collector.skip(number, 'not a SillyTavern message ("mes" and "is_user")')
                continue
            read += 1
            self._message(record, number, f"{source.pointer_base}:{number}")
        return read

    def _message(self, record: dict[str, Any], number: int, pointer: str) -> None:
        text = clean_message(record["mes"]) if isinstance(record.get("mes"), str) else ""
        name = record.get("name")
        speaker = " ".join(name.split())[:80] if isinstance(name, str) and name.strip() else ""
        swipes = record.get("swipes")
        if isinstance(swipes, list) and len(swipes) > 1:
            self.collector.ignored["other-swipe"] = (
                self.collector.ignored.get("other-swipe", 0) + len(swipes) - 1)
        extra = record.get("extra") if isinstance(record.get("extra"), dict) else {}
        model = extra.get("model")
        links = self.links + ((("model", " ".join(model.split())[:80]),)
                              if isinstance(model, str) and model.strip() else ())
        time = self.collector.time(number, sillytavern_time(record.get("send_date")))
        if record.get("is_system") is True or speaker.lower() == "system":
            role, kind = "system", ("turn" if text else None)
        elif record.get("is_user") is True:
            role, kind = "user", user_message_kind(text)
        else:
            role, kind = "assistant", assistant_text_kind(text)
        if kind is None:
            self.collector.no_item(text)
            return
        self.collector.add(record_no=number, session=self.session, kind=kind, role=role,
                           identity=_identity(record, speaker, number),
                           text=message_text(text), time=time,
                           pointer=pointer, links=links, speaker=speaker,
                           sets_goal=kind == "user_goal")


def _identity(record: dict[str, Any], speaker: str, number: int) -> str:
    """A message's identity that a chat rewritten (a message deleted above it) keeps: its
    speaker and time as written, else its line."""
    sent = record.get("send_date")
    return f"{speaker}@{sent}" if isinstance(sent, (str, int, float)) and sent != "" \
        else f"L{number}"
