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

from collections.abc import Iterable, Iterator
from typing import Any

from .classify import L0Text, kept_turn_kind, message_text
from .collector import ItemCollector


def one_line_name(value: object, limit: int) -> str:
    """A name as an export writes it, on one line and cut at ``limit`` characters; ``""`` for
    a value that is no text or only spaces."""
    return " ".join(value.split())[:limit] if isinstance(value, str) and value.strip() else ""


class ChatExportParser:
    """What every reader of a chat export starts from: the collector its items go to, the
    session used where the export names none, and who takes the user's role."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self.senders = ChatSenders()

    def each_message(self, messages: list[Any], pointer: str, order: Iterable[int] | None = None
                     ) -> Iterator[tuple[int, dict[str, Any], str]]:
        """Each message of ``messages`` that is an object (in ``order``, else as listed), with
        its index and its pointer (``pointer/INDEX``); every one counts as read, and one that is
        no object is skipped with a line saying so."""
        for index in range(len(messages)) if order is None else order:
            message = messages[index]
            self.collector.records_read += 1
            if not isinstance(message, dict):
                self.collector.skip(index + 1, f"message {index} is not an object")
                continue
            yield index, message, f"{pointer}/{index}"


def attachment_names(names: Iterable[object]) -> list[str]:
    """The names of the files a message shares, once each, as shown: names that are no text,
    or empty, left out; each cut at 120 characters."""
    shown = [" ".join(n.split())[:120] for n in names if isinstance(n, str) and n.strip()]
    return list(dict.fromkeys(shown))


def with_attachments(text: str, names: list[str]) -> str:
    """``text`` followed by the names of the files attached to its message, on a line of their
    own (``[attached: minutes.pdf, chart.png]``); ``text`` alone when there are none."""
    if not names:
        return text
    note = f"[attached: {', '.join(names)}]"
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
                     pointer: str, links: Iterable[tuple[str, str]] = (),
                     attached: list[str] | None = None, handle_text: str | None = None) -> None:
    """Add one message of ``sender`` as an item: its text (already cleaned), then the files it
    shares (``attached``, see :func:`attachment_names`); one of the two is not empty.
    ``handle_text``: the words its handle was given from before a reader wrote more of the
    message (a link's address), so an export read again adds no second item for it."""
    role = senders.role(session, sender)
    shown = with_attachments(text, attached or [])
    # a message with words keeps the kind and handle its words gave before files were named in
    # it: a grown export read again must not add each such message a second time
    basis = handle_text if handle_text else text
    kind = kept_turn_kind(role, basis or shown)
    l0 = message_text(shown)
    if basis and shown != basis:
        l0 = L0Text(shown, message_text(basis).basis)
    collector.add(record_no=record_no, session=session, kind=kind, role=role, identity=identity,
                  text=l0, time=time, pointer=pointer,
                  sets_goal=kind == "user_goal", speaker=sender, links=links)
