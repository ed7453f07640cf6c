"""Skype's data export ("Export files and chat history": ``messages.json``), ``{"userId",
"exportDate", "conversations": [{"id", "displayName", "threadProperties", "MessageList":
[...]}]}``, each message ``{"id", "displayName", "originalarrivaltime", "messagetype",
"content", "from", "properties"}``.

- **Session**: each conversation by its ``displayName`` (a group's name), else its ``id``
  (``8:live:dana`` for a one-to-one chat).
- **Speakers**: a message's ``displayName``, else its ``from`` without the ``8:`` prefix
  nor the ``live:`` of a Microsoft account (``8:live:priya`` is ``priya``; an id that names
  no one, ``live:.cid.3f2a…``, is kept whole); the export leaves the exporter's own name
  out; roles as :mod:`.chat_messages` gives them.
- **Time**: ``originalarrivaltime``, ISO 8601 in UTC. The export writes each conversation's
  newest message first: messages are read oldest first.
- **Text**: ``content`` is Skype's markup: tags dropped, entities written as characters
  (``&apos;`` is ``'``), an emoticon as the text it shows (``:)``); a file shared
  (``RichText/Media_*``, ``RichText/UriObject``) named on a line of its own (``[attached:
  plan.pdf]``, its ``OriginalName``), so a message of nothing but a file is an item. A message
  edited later links when (``relation(H, edited, TIME)``, ``properties.edittime``).
- **Counted, not kept**: deleted messages (``properties.deletetime``) as ``deleted``, calls
  (``Event/Call``) as ``call``, membership and topic changes by their ``messagetype``
  (``ThreadActivity/AddMember``), a message of no text and no file as ``empty``. A message
  that is no object is skipped with its conversation and place.

Pointers read ``<file>#/conversations/<c>/MessageList/<i>``.
"""

from __future__ import annotations

import html
import re
from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail
from .timefmt import read_time

_FILE_NAME = re.compile(r"<OriginalName\s+v=\"([^\"]*)\"", re.IGNORECASE)
_FILE_OBJECT = re.compile(r"<URIObject\b.*?</URIObject>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]{0,2000}>")


def _is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("MessageList"), list)


def is_skype_export(document: Any) -> bool:
    """True for Skype's ``messages.json``: ``conversations`` whose first ones hold a
    ``MessageList`` (an empty list beside the export's ``userId`` and ``exportDate``)."""
    if not isinstance(document, dict) or not isinstance(document.get("conversations"), list):
        return False
    if not document["conversations"]:  # an account with none: its export's own keys name it
        return "userId" in document and "exportDate" in document
    head = [c for c in document["conversations"][:20] if isinstance(c, dict)]
    return bool(head) and all(_is_conversation(c) for c in head)


def skype_text(content: str) -> tuple[str, list[str]]:
    """The text a message's markup shows, and the names of the files it shares."""
    files = attachment_names(html.unescape(n) for n in _FILE_NAME.findall(content))
    shown = _FILE_OBJECT.sub(" ", content) if files else content
    text = html.unescape(_TAG.sub("", shown))
    return " ".join(text.split()) if "\n" not in text else text.strip(), files


def _epoch_ms(value: Any) -> str:
    """A time written as epoch milliseconds (a number or its digits), as an ISO time; ""."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return (read_time(value) or "") if isinstance(value, (int, float)) else ""



def account_name(sender: str) -> str:
    """The name in a Skype account id: ``8:live:priya`` is ``priya``, ``8:tomas.ruiz`` is
    ``tomas.ruiz``; a Microsoft account's id that names no one (``live:.cid.…``) stays whole."""
    name = sender.removeprefix("8:")
    rest = name.removeprefix("live:")
    return name if not rest or rest.startswith(".cid.") else rest

class SkypeParser(ChatExportParser):
    """Parses Skype's ``messages.json`` into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every conversation's messages, oldest first; return how many there were."""
        document = json_document(source)
        if not is_skype_export(document):
            raise fail(source.name, 'not a Skype export ("conversations", each with a '
                                    '"MessageList")')
        strip_document_envelopes(source, self.collector, document)
        read = 0
        for number, conversation in enumerate(document["conversations"]):
            if not _is_conversation(conversation):
                self.collector.skip(number + 1, f"conversation {number} has no MessageList")
                continue
            read += self._conversation(conversation, number, source.pointer_base)
        return read

    def _conversation(self, conversation: dict[str, Any], number: int, base: str) -> int:
        session = (one_line_name(conversation.get("displayName"), 120)
                   or one_line_name(conversation.get("id"), 120)
                   or f"{self.default_session}#{number + 1}")
        messages = conversation["MessageList"]
        order = sorted(range(len(messages)), key=lambda i: (
            str(messages[i].get("originalarrivaltime") or "")
            if isinstance(messages[i], dict) else "", -i))
        for index in order:
            message = messages[index]
            self.collector.records_read += 1
            if not isinstance(message, dict):
                self.collector.skip(number + 1, f"conversation {number}: message {index} is "
                                                "not an object")
                continue
            self._message(message, number + 1, session,
                          f"{base}#/conversations/{number}/MessageList/{index}")
        return len(messages)

    def _message(self, message: dict[str, Any], record_no: int, session: str,
                 pointer: str) -> None:
        kind = message.get("messagetype") if isinstance(message.get("messagetype"), str) else ""
        properties = message.get("properties") if isinstance(message.get("properties"), dict) \
            else {}
        if properties.get("deletetime"):
            self.collector.ignore("deleted")
            return
        if kind.startswith("Event/Call"):
            self.collector.ignore("call")
            return
        if kind.startswith(("ThreadActivity/", "Event/")):
            self.collector.ignore(kind)
            return
        content = message.get("content") if isinstance(message.get("content"), str) else ""
        text, attached = skype_text(content)
        if not text and not attached:
            self.collector.ignore("empty")
            return
        sender = (one_line_name(message.get("displayName"), 120)
                  or account_name(one_line_name(str(message.get("from") or ""), 120))
                  or "unknown")
        links = []
        edited = _epoch_ms(properties.get("edittime"))
        if edited:
            links.append(("edited", edited))
        add_chat_message(self.collector, self.senders, record_no=record_no, session=session,
                         sender=sender, text=text,
                         time=self.collector.time(record_no, message.get("originalarrivaltime")),
                         identity=f"m{message.get('id') or pointer.rsplit('/', 1)[1]}",
                         pointer=pointer, links=links, attached=attached)
