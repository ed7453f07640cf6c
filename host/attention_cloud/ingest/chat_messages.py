"""What a message of a people's chat export becomes (WhatsApp, Telegram, Slack): an item with
its sender's name and its time, whatever it says.

A chat between people has no assistant: the first sender of a session takes the user's role
and the others the assistant's, so that the first person's messages set the goal as a user's
would, and every item keeps its sender's name (``item_speaker/2``; frames show ``Dana: …``).
Every message with text is an item, a one-word reply included ("yes" to "who is in on
Saturday?" says who is): a short reply is a ``turn``. The files a message shares are named in
its text (``[attached: minutes.pdf]``), so a message of nothing but a file is an item too: "which
file did Dana send" finds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from .classify import kept_turn_kind, message_text
from .collector import ItemCollector


def with_attachments(text: str, names: Iterable[object]) -> str:
    """``text`` followed by the names of the files attached to its message, on a line of their
    own (``[attached: minutes.pdf, chart.png]``); ``text`` alone when there are none. Names
    that are no text, or empty, are left out; a name is cut at 120 characters."""
    shown = [" ".join(n.split())[:120] for n in names if isinstance(n, str) and n.strip()]
    if not shown:
        return text
    note = f"[attached: {', '.join(dict.fromkeys(shown))}]"
    return f"{text}\n{note}" if text else note


class ChatSenders:
    """The role of each sender, session by session: the first one heard is the user."""

    def __init__(self) -> None:
        self._roles: dict[str, dict[str, str]] = {}

    def role(self, session: str, sender: str) -> str:
        """``user`` for the session's first sender, ``assistant`` for the others."""
        roles = self._roles.setdefault(session, {})
        return roles.setdefault(sender, "user" if not roles else "assistant")


def add_chat_message(collector: ItemCollector, senders: ChatSenders, *, record_no: int,
                     session: str, sender: str, text: str, time: str, identity: str,
                     pointer: str, links: Iterable[tuple[str, str]] = ()) -> None:
    """Add one message of ``sender`` (its text already cleaned, not empty) as an item."""
    role = senders.role(session, sender)
    kind = kept_turn_kind(role, text)
    collector.add(record_no=record_no, session=session, kind=kind, role=role, identity=identity,
                  text=message_text(text), time=time, pointer=pointer,
                  sets_goal=kind == "user_goal", speaker=sender, links=links)
