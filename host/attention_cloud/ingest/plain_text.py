"""Plain text and markdown transcripts with speaker lines.

A turn starts at a speaker line and runs until the next one: ``User:``/``Human:``,
``Assistant:``/``AI:``, ``System:`` and ``Tool:`` at the start of a line (also bold, as
``**User:**``), or a markdown heading naming the speaker (``## User``, ``### Assistant``).
Speaker names are matched case-insensitively. Lines inside fenced code blocks (````` ``` `````
or ``~~~``) never start a turn, so pasted logs and YAML keep their ``user:`` lines. Text before
the first speaker (a title, a preamble) is not part of any turn.
"""

from __future__ import annotations

import re

from .classify import (
    assistant_text_kind,
    message_text,
    output_text,
    tool_output_kind,
    user_message_kind,
)
from .collector import ItemCollector
from .envelope import ENVELOPE_TAG, scan_tag_blocks
from .source import Source, fail, require_text
from .textutil import strip_system_reminders

_NAMES = r"(user|human|assistant|ai|system|tool)"
_COLON_SPEAKER = re.compile(
    r"[ \t]{0,3}(?:\*\*|__)?" + _NAMES + r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]?(.*)",
    re.IGNORECASE | re.DOTALL,
)
_HEADING_SPEAKER = re.compile(
    r"[ \t]{0,3}#{1,6}[ \t]+" + _NAMES + r"[ \t]*:?[ \t]*#*[ \t]*", re.IGNORECASE
)
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")
_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
}


def speaker_of(line: str) -> tuple[str, str] | None:
    """``(role, rest of the line)`` when ``line`` starts a turn, else None."""
    if not line or line[0] not in " \t*_#uUhHaAsStT":
        return None  # cheap exit for the common line
    heading = _HEADING_SPEAKER.fullmatch(line)
    if heading:
        return _ROLES[heading.group(1).lower()], ""
    colon = _COLON_SPEAKER.match(line)
    if colon:
        return _ROLES[colon.group(1).lower()], colon.group(2)
    return None


def has_speaker_lines(text: str, lines_to_try: int = 2000) -> bool:
    """True when one of the first lines of ``text`` (outside code fences) names a speaker."""
    fenced = False
    for line in text.split("\n", lines_to_try)[:lines_to_try]:
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and speaker_of(line.rstrip("\r")) is not None:
            return True
    return False


class PlainTextParser:
    """Parses a speaker-line transcript into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session

    def parse(self, source: Source) -> int:
        """Read every turn; return how many turns there were."""
        # Envelopes go first, replaced by their newlines so line numbers stay the file's own.
        text, found, open_at = scan_tag_blocks(
            require_text(source), ENVELOPE_TAG, keep_newlines=True
        )
        self.collector.envelopes_stripped += found
        if open_at >= 0:
            line = text.count("\n", 0, open_at) + 1
            self.collector.skip(
                line, "unclosed <memory-frame> envelope: the rest of the file is dropped"
            )
        turns = 0
        role, start, body = "", 0, []
        fenced = False
        for number, line in enumerate(text.split("\n"), 1):
            if line.endswith("\r"):
                line = line[:-1]
            if _FENCE.match(line):
                fenced = not fenced
            speaker = None if fenced else speaker_of(line)
            if speaker is None:
                if role:
                    body.append(line)
                continue
            if role:
                self._turn(role, start, body, source.pointer_base)
            turns += 1
            role, start, body = speaker[0], number, [speaker[1]]
        if role:
            self._turn(role, start, body, source.pointer_base)
        self.collector.records_read += turns
        if turns == 0:
            raise fail(source.name, "no speaker lines (User:, Assistant:, ## User ...) found")
        return turns

    def _turn(self, role: str, line: int, body: list[str], base: str) -> None:
        text = strip_system_reminders("\n".join(body)).strip()
        if role == "user":
            kind = user_message_kind(text)
        elif role == "assistant":
            kind = assistant_text_kind(text)
        elif role == "tool":
            kind = tool_output_kind(None, text, False)
        else:
            kind = "turn" if text else None
        if kind is None:
            return
        item_text = output_text(None, text, kind) if role == "tool" else message_text(text)
        self.collector.add(
            record_no=line,
            session=self.session,
            kind=kind,
            role=role,
            identity=f"line{line}",
            text=item_text,
            time="",
            pointer=f"{base}:{line}",
            sets_goal=kind == "user_goal",
        )
