"""LoCoMo conversations (snap-research/locomo, ``data/locomo10.json``): two named people over
many dated sessions.

A sample is ``{"sample_id": "conv-26", "conversation": {"speaker_a": "Caroline", "speaker_b":
"Melanie", "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [{"speaker",
"dia_id", "text", "img_url", "blip_caption", "query"}, ...], "session_2_date_time": ...}, "qa":
[...], ...}``; a file holds a JSON list of samples (``locomo10.json``), one sample, or JSON Lines
of samples.

- **Sessions**: ``session_N`` becomes session ``<sample_id>/session_N`` (without a
  ``sample_id``: ``<file stem>#<n>/session_N``), sessions in the order of N.
- **Time**: every turn of a session has the session's ``session_N_date_time`` (LoCoMo dates
  sessions, not turns; inventing a time per turn would store what the data never said). The
  order of the turns is their ``seq``. A date that cannot be read, or a session without one,
  is reported (``times unread``, numbered by the session's position in the file) and its
  turns are kept without a time.
- **Speakers and roles**: each turn keeps its ``speaker`` by name (``item_speaker/2``);
  ``speaker_a`` takes the user's role, ``speaker_b`` (and any other name) the assistant's, so
  ``speaker_a``'s turns set the goal as a user's would (without ``speaker_a``, the first name
  that speaks is the user).
- **Every turn is an item**, an acknowledgement included (a ``turn``); a turn with neither
  text nor caption is skipped and reported.
- **Images**: a turn that shares a photo keeps its text followed by
  ``[shares a photo: <blip_caption>]``, so what was shown can be found; ``img_url`` and the
  image-search ``query`` are not kept (the pointer leads to them).
- **Benchmark ids**: ``relation(H, turn_id, 'D1:3')`` holds the turn's ``dia_id`` as written.
- **Never the answers**: ``qa``, ``event_summary``, ``observation`` and ``session_summary``
  are annotations, not conversation, and are not read.

Pointers read ``<file>#/<sample>/conversation/session_N/<turn>`` (a list of samples).
"""

from __future__ import annotations

import re
from typing import Any

from .classify import clean_message, kept_turn_kind, message_text
from .collector import ItemCollector
from .jsonlines import json_units
from .records import TURN_ID
from .source import Source

_SESSION_KEY = re.compile(r"session_(\d+)\Z")


def is_locomo_sample(value: Any) -> bool:
    """True for ``{"conversation": {"session_1": [{"speaker", "text", ...}], ...}}``."""
    if not isinstance(value, dict) or not isinstance(value.get("conversation"), dict):
        return False
    conversation = value["conversation"]
    return "speaker_a" in conversation or any(
        _SESSION_KEY.match(key) and isinstance(turns, list) for key, turns in conversation.items()
    )


def photo_text(text: str, caption: Any) -> str:
    """A turn's text with the photo it shares described after it: ``… [shares a photo: …]``."""
    if not isinstance(caption, str) or not caption.strip():
        return text
    shown = f"[shares a photo: {' '.join(caption.split())}]"
    return f"{text} {shown}" if text else shown


class LoCoMoParser:
    """Parses LoCoMo samples into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self._sessions_seen = 0

    def parse(self, source: Source) -> int:
        """Read every turn of every session of every sample; return how many turns were read."""
        read = 0
        for number, sample, prefix, by_line in json_units(
            source, self.collector, is_locomo_sample, "a LoCoMo sample"
        ):
            read += self._sample(sample, number, prefix, counted=by_line)
        return read

    def _sample(self, sample: dict[str, Any], number: int, prefix: str, *, counted: bool) -> int:
        conversation = sample["conversation"]
        sample_id = sample.get("sample_id")
        name = (str(sample_id) if isinstance(sample_id, (str, int)) and str(sample_id)
                else f"{self.default_session}#{number}")
        user = conversation.get("speaker_a")
        sessions = sorted(
            (int(match.group(1)), key) for key in conversation
            if (match := _SESSION_KEY.match(key)) and isinstance(conversation[key], list)
        )
        if not sessions:
            self.collector.skip(number, f"sample {name} has no session_N turns")
            return 0
        read = 0
        for _, key in sessions:
            self._sessions_seen += 1
            if not conversation[key]:
                continue  # a session without turns: nothing to date
            when = self._date(conversation, key)
            session = f"{name}/{key}"
            for index, turn in enumerate(conversation[key]):
                if not counted:
                    self.collector.records_read += 1
                speaker = turn.get("speaker") if isinstance(turn, dict) else None
                if not isinstance(speaker, str) or not speaker.strip():
                    self.collector.skip(number, f"{key} turn {index} has no speaker")
                    continue
                speaker = speaker.strip()[:80]
                text = turn.get("text")
                text = photo_text(clean_message(text) if isinstance(text, str) else "",
                                  turn.get("blip_caption"))
                if not text:
                    self.collector.skip(number, f"{key} turn {index} has no text")
                    continue
                if not isinstance(user, str) or not user.strip():
                    user = speaker
                role = "user" if speaker == user.strip()[:80] else "assistant"
                dia_id = turn.get("dia_id")
                kind = kept_turn_kind(role, text)
                read += 1
                self.collector.add(
                    record_no=number, session=session, kind=kind, role=role,
                    identity=f"t{index}", text=message_text(text), time=when,
                    pointer=f"{prefix}/conversation/{key}/{index}", speaker=speaker,
                    sets_goal=kind == "user_goal",
                    links=((TURN_ID, str(dia_id)),) if isinstance(dia_id, (str, int)) else (),
                )
        return read

    def _date(self, conversation: dict[str, Any], key: str) -> str:
        """The session's time; a missing or unreadable one is reported, numbered by the
        session's position in the file."""
        written = conversation.get(f"{key}_date_time")
        if written in (None, ""):
            self.collector.unread_times.append((self._sessions_seen, f"no {key}_date_time"))
            return ""
        return self.collector.time(self._sessions_seen, written)
