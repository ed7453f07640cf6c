"""LongMemEval instances (xiaowu0162/LongMemEval): a question over a haystack of dated chat
sessions between a user and an assistant.

An instance is ``{"question_id", "question_type", "question", "question_date", "answer",
"answer_session_ids", "haystack_session_ids": [...], "haystack_dates": ["2023/05/20 (Sat)
07:47", ...], "haystack_sessions": [[{"role": "user"|"assistant", "content": "...",
"has_answer": true}, ...], ...]}``; a file holds one instance, a JSON list of them
(``longmemeval_s.json``) or JSON Lines of them.

- **Sessions**: each haystack session is a session named by its id in
  ``haystack_session_ids``. Instances share sessions, and a haystack may hold one session
  twice at two dates: a session already read in the same file (same id and turns) is read
  once, at its first date, and the repeats are counted (``ignored: repeated-session``);
  across files, content-derived handles make the re-read an upsert.
- **Time**: every turn of a session has the session's date from ``haystack_dates`` (the data
  dates sessions, not turns); the order of the turns is their ``seq``. An unreadable date is
  reported (``times unread``, numbered by the session's position in the file).
- **Speakers**: ``user`` and ``assistant`` are the roles, kept as they are; the data names no
  one, so ``item_speaker/2`` answers the role.
- **Every turn is an item**, an acknowledgement included (a ``turn``); an empty turn or an
  unknown role is skipped and reported.
- **Benchmark ids**: ``relation(H, turn_id, '<session id>:<i>')``, ``i`` the turn's 0-based
  index in its haystack session (the index ``has_answer`` labels are read by).
- **Never the answers**: ``question``, ``answer``, ``answer_session_ids`` and each turn's
  ``has_answer`` are the evaluation's, not conversation; no item carries them.

An instance whose ``haystack_session_ids`` or ``haystack_dates`` do not match its sessions one
for one is skipped and reported (a file holding only that instance is refused with the reason).
Pointers read ``<file>#/haystack_sessions/<s>/<i>`` (one instance) or
``<file>#/<instance>/haystack_sessions/<s>/<i>`` (a list).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .classify import clean_message, kept_turn_kind, message_text
from .collector import ItemCollector
from .jsonlines import json_units
from .records import TURN_ID
from .source import Source

_ROLES = ("user", "assistant")


def is_longmemeval_instance(value: Any) -> bool:
    """True for ``{"haystack_sessions": [[{"role", "content"}, ...], ...], ...}``."""
    return isinstance(value, dict) and isinstance(value.get("haystack_sessions"), list)


class LongMemEvalParser:
    """Parses LongMemEval instances into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self._read: dict[str, set[str]] = {}  # session id -> digests of its copies read
        self._sessions_seen = 0

    def parse(self, source: Source) -> int:
        """Read every turn of every haystack session once; return how many turns were read."""
        read = 0
        for number, instance, prefix, by_line in json_units(
            source, self.collector, is_longmemeval_instance, "a LongMemEval instance"
        ):
            problem = _shape_problem(instance)
            if problem:
                self.collector.skip(number, problem)
                continue
            for index, (sid, date, turns) in enumerate(zip(
                instance["haystack_session_ids"], instance["haystack_dates"],
                instance["haystack_sessions"],
            )):
                self._sessions_seen += 1
                if not isinstance(turns, list):
                    self.collector.skip(number, f"haystack session {sid} is not a list of turns")
                    continue
                if self._repeated(sid, turns):
                    self.collector.ignore("repeated-session")
                    continue
                read += self._session(sid, date, turns, number,
                                      f"{prefix}/haystack_sessions/{index}", counted=by_line)
        return read

    def _repeated(self, sid: str, turns: list[Any]) -> bool:
        """True when this file already gave session ``sid`` with these turns (``has_answer``
        labels aside: they belong to a question, not to the session)."""
        said = [(t.get("role"), t.get("content")) if isinstance(t, dict) else t for t in turns]
        digest = hashlib.sha256(
            json.dumps(said, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
        ).hexdigest()
        copies = self._read.setdefault(sid, set())
        if digest in copies:
            return True
        copies.add(digest)
        return False

    def _session(self, sid: str, date: Any, turns: list[Any], number: int, pointer: str, *,
                 counted: bool) -> int:
        when = self.collector.time(self._sessions_seen, date)
        read = 0
        for index, turn in enumerate(turns):
            if not counted:
                self.collector.records_read += 1
            role = turn.get("role") if isinstance(turn, dict) else None
            if role not in _ROLES:
                self.collector.skip(number, f"session {sid} turn {index}: unknown role {role!r}")
                continue
            content = turn.get("content")
            text = clean_message(content) if isinstance(content, str) else ""
            if not text:
                self.collector.skip(number, f"session {sid} turn {index} has no text")
                continue
            kind = kept_turn_kind(role, text)
            read += 1
            self.collector.add(
                record_no=number, session=sid, kind=kind, role=role, identity=f"t{index}",
                text=message_text(text), time=when, pointer=f"{pointer}/{index}",
                sets_goal=kind == "user_goal", links=((TURN_ID, f"{sid}:{index}"),),
            )
        return read


def _shape_problem(instance: dict[str, Any]) -> str:
    """Why an instance's sessions, ids and dates do not line up one for one ("" when they do)."""
    sessions = len(instance["haystack_sessions"])
    label = f"instance {instance.get('question_id', '?')}"
    ids = instance.get("haystack_session_ids")
    if not isinstance(ids, list) or not all(isinstance(s, str) and s for s in ids):
        return f"{label}: haystack_session_ids is not a list of session ids"
    dates = instance.get("haystack_dates")
    if not isinstance(dates, list):
        return f"{label}: haystack_dates is not a list of dates"
    for field, values in (("haystack_session_ids", ids), ("haystack_dates", dates)):
        if len(values) != sessions:
            return f"{label}: {field} has {len(values)} entries for {sessions} haystack sessions"
    return ""
