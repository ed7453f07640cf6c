"""Slack workspace exports (Settings → Import/Export → Export, unzipped): a folder per channel
holding a JSON file per day (``general/2023-05-08.json``, a list of messages), beside
``users.json`` and ``channels.json``.

- **Sessions**: a day file is the session ``<channel>/<day>`` (its folder and its name), so
  that two channels' days never mix and each file numbers its own items.
- **Speakers**: a message's sender is its ``user_profile.real_name`` (or ``display_name``), else
  the name ``users.json`` beside the channel folders gives its ``user`` id, else a bot's
  ``username`` or ``bot_profile.name``, else the id itself; roles as :mod:`.chat_messages`
  gives them. Mentions in the text (``<@U024BE7LH>``) are written as the names they stand for
  (``@Dana Whitfield``), links as their label and address, channels as ``#general``.
- **Time**: ``ts``, epoch seconds: the moment, in UTC; written on the day its sender's zone
  (``tz`` in ``users.json``) showed, so "yesterday" counts back from that day and a season is
  read in that zone's hemisphere.
- **Threads**: a reply (``thread_ts`` other than its own ``ts``) links the message that opened
  its thread, ``relation(H, reply_to, '<channel>#<thread_ts>')``; every message has
  ``relation(H, message_id, '<channel>#<ts>')``; one edited links when (``relation(H, edited,
  TIME)``, from ``edited.ts``).
- **Not kept, counted**: channel events (``channel_join``, ``channel_topic`` ... by subtype), a
  message without text (a file shared alone) as ``file``; ``users.json``, ``channels.json``
  and the export's other lists are read for names only and counted as ``slack <file>``.

Pointers read ``<file>#/<i>``.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .chat_messages import ChatExportParser, add_chat_message, attachment_names
from .collector import ItemCollector
from .jsonlines import json_document, strip_document_envelopes
from .hemisphere import is_southern
from .source import Source, fail
from .timefmt import TurnTime, read_time

METADATA_FILES = frozenset({"users.json", "channels.json", "groups.json", "dms.json",
                            "mpims.json", "integration_logs.json", "canvases.json"})
_KEPT_SUBTYPES = frozenset({"thread_broadcast", "bot_message", "me_message", "file_share"})
_TS = re.compile(r"\d{9,11}(?:\.\d+)?\Z")
_MENTION = re.compile(r"<([@#!])([^>|]*)(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto|ftp):[^>|]*)(?:\|([^>]*))?>")
_MAX_USERS_BYTES = 64 * 1024 * 1024


def is_slack_day(document: Any) -> bool:
    """True for a Slack export's day file: a list of messages with ``type`` ``message`` (and
    no chat ``role``), stamped with an epoch ``ts`` (one damaged or missing is reported when
    the day is read, not a reason to lose the day)."""
    if not isinstance(document, list) or not document:
        return False
    head = [m for m in document[:20] if isinstance(m, dict)]
    stamped = sum(1 for m in head if isinstance(m.get("ts"), str) and _TS.match(m["ts"]))
    return bool(stamped) and all(
        m.get("type") == "message" and "role" not in m for m in head)


def is_slack_metadata(name: str, text: str) -> bool:
    """True for one of the lists a Slack export keeps beside its channel folders
    (``users.json``, ``channels.json`` ...), by its name and its JSON opening."""
    return Path(name).name in METADATA_FILES and text.lstrip()[:1] in ("[", "{")


def _user_names(users: Any) -> tuple[dict[str, str], dict[str, str]]:
    """``users.json`` as user id -> the name people know them by, and user id -> the zone
    they write in (``tz``, an IANA name), where it gives one."""
    names: dict[str, str] = {}
    zones: dict[str, str] = {}
    for user in users if isinstance(users, list) else ():
        if isinstance(user, dict) and isinstance(user.get("id"), str):
            profile = user.get("profile") if isinstance(user.get("profile"), dict) else {}
            for name in (user.get("real_name"), profile.get("real_name"),
                         profile.get("display_name"), user.get("name")):
                if isinstance(name, str) and name.strip():
                    names[user["id"]] = " ".join(name.split())[:80]
                    break
            if isinstance(user.get("tz"), str) and user["tz"].strip():
                zones[user["id"]] = user["tz"].strip()
    return names, zones


def _in_zone(time: str, zone: str) -> str:
    """``time`` (ISO UTC) as a :class:`~.timefmt.TurnTime` written in ``zone``: its day the
    one the clock showed there, its hemisphere the zone's; ``time`` itself for a zone no
    database knows."""
    try:
        local = datetime.fromisoformat(time.replace("Z", "+00:00")).astimezone(ZoneInfo(zone))
    except (ValueError, ZoneInfoNotFoundError):
        return time
    return TurnTime(time, local.date().isoformat(), is_southern(zone))


def _profile_name(message: dict[str, Any]) -> str:
    profile = message.get("user_profile")
    if isinstance(profile, dict):
        for key in ("real_name", "display_name", "name"):
            if isinstance(profile.get(key), str) and profile[key].strip():
                return " ".join(profile[key].split())[:80]
    return ""


class SlackParser(ChatExportParser):
    """Parses a Slack export's day file (or counts one of its lists) into an
    :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        super().__init__(collector, default_session)
        self.names: dict[str, str] = {}
        self.zones: dict[str, str] = {}  # user id -> the zone users.json says they write in

    def parse(self, source: Source) -> int:
        """Read every message of the day file; return how many there were."""
        document = json_document(source)
        if Path(source.name).name in METADATA_FILES and isinstance(document, (list, dict)):
            self.collector.records_read += 1
            self.collector.ignore(f"slack {Path(source.name).name}")
            return 1
        if not is_slack_day(document):
            raise fail(source.name, 'not a Slack export day file (a list of messages with '
                                    '"type": "message" and "ts")')
        strip_document_envelopes(source, self.collector, document)
        folder = Path(source.pointer_base).parent
        channel = folder.name or ""
        # the day is the file's own name: two channels' "2023-05-08.json" are two sessions
        session = f"{channel}/{Path(source.pointer_base).stem}" if channel else self.default_session
        self.names, self.zones = self._users(folder.parent / "users.json") if channel \
            else ({}, {})
        for message in document:  # the day's own profiles name the ids its text mentions
            if isinstance(message, dict) and isinstance(message.get("user"), str) \
                    and _profile_name(message):
                self.names.setdefault(message["user"], _profile_name(message))
        for index, message, pointer in self.each_message(document, f"{source.pointer_base}#"):
            self._message(message, index, channel or session, session, pointer)
        return len(document)

    @staticmethod
    def _users(path: Path) -> tuple[dict[str, str], dict[str, str]]:
        """The names and zones ``users.json`` gives, when the export has one beside the
        channel (copies: the day's own profiles are added to the names)."""
        try:
            if not path.is_file():
                return {}, {}
            stat = path.stat()
            if stat.st_size > _MAX_USERS_BYTES:
                return {}, {}
            names, zones = _users_file(str(path), stat.st_mtime_ns, stat.st_size)
            return dict(names), zones
        except (OSError, ValueError, RecursionError):
            return {}, {}  # the names are a help: the messages' own profiles still name most

    def _message(self, message: dict[str, Any], index: int, channel: str, session: str,
                 pointer: str) -> None:
        subtype = message.get("subtype")
        if message.get("type") != "message" or subtype and subtype not in _KEPT_SUBTYPES:
            self.collector.ignore(str(subtype or message.get("type")))
            return
        files = message.get("files") if isinstance(message.get("files"), list) else []
        text = self._text(message.get("text"))
        attached = attachment_names(f.get("name") or f.get("title") for f in files
                                    if isinstance(f, dict))
        if not text and not attached:
            self.collector.ignore("file" if files else "empty")
            return
        ts = message["ts"] if isinstance(message.get("ts"), str) else ""
        # Slack stamps every message: a missing one is reported as unread, not left blank
        written = message.get("ts") if message.get("ts") not in (None, "") else "(no ts)"
        links = [("message_id", f"{channel}#{ts}")] if ts else []
        thread = message.get("thread_ts")
        if isinstance(thread, str) and thread and thread != ts:
            links.append(("reply_to", f"{channel}#{thread}"))
        change = message.get("edited")
        edited = read_time(change.get("ts")) if isinstance(change, dict) and change.get("ts") \
            else ""
        if edited:
            links.append(("edited", edited))  # its text is the last one written
        time = self.collector.time(index + 1, written)
        zone = self.zones.get(message.get("user")) if isinstance(message.get("user"), str) \
            else None
        add_chat_message(self.collector, self.senders, record_no=index + 1, session=session,
                         sender=self._sender(message), text=text,
                         time=_in_zone(time, zone) if time and zone else time,
                         identity=f"ts{ts or index}", pointer=pointer, links=links,
                         attached=attached)

    def _sender(self, message: dict[str, Any]) -> str:
        user = message.get("user") if isinstance(message.get("user"), str) else ""
        bot = message.get("bot_profile") if isinstance(message.get("bot_profile"), dict) else {}
        for name in (_profile_name(message), self.names.get(user, ""), message.get("username"),
                     bot.get("name"), user, message.get("bot_id")):
            if isinstance(name, str) and name.strip():
                return " ".join(name.split())[:80]
        return "unknown"

    def _text(self, text: Any) -> str:
        """Slack's markup as people read it: mentions by name, links by label and address."""
        if not isinstance(text, str):
            return ""
        text = _LINK.sub(lambda m: f"{m[2]} ({m[1]})" if m[2] and m[2] != m[1] else m[1], text)
        text = _MENTION.sub(self._mention, text)
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").strip()

    def _mention(self, match: re.Match[str]) -> str:
        kind, target, label = match[1], match[2], match[3]
        if kind == "@":
            return "@" + (self.names.get(target) or label or target)
        if kind == "#":
            return "#" + (label or target)
        return "@" + (label or target.split("^")[0])  # <!here>, <!channel>, <!subteam^S1|team>


@functools.lru_cache(maxsize=8)
def _users_file(path: str, mtime_ns: int,
                size: int) -> tuple[dict[str, str], dict[str, str]]:
    """``users.json`` read once for every day file of an export (a workspace's export has
    thousands, each beside the same file), again only when it changed."""
    del mtime_ns, size  # the cache's key: a changed file is read again
    return _user_names(json.loads(Path(path).read_text(encoding="utf-8")))
