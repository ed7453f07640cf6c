"""LibreChat conversation exports (a conversation's Export → JSON): ``{"conversationId",
"endpoint", "title", "exportAt", "branches", "recursive", "messages": [...]}``, or with
"recursive" the messages as a tree, ``"messagesTree": [{..., "children": [...]}]``.

- **Session**: the ``conversationId`` (else the file's name); its ``title`` as
  ``relation(H, title, T)`` on each item.
- **Branches**: a message edited or a reply regenerated gives a message two children
  (``parentMessageId``); where the export holds branches, the one read is the branch of the
  message written last (``createdAt``), from its first message down; the others' messages are
  counted as ``other-branch``. An export without branches is read whole, in its order.
- **Messages**: ``isCreatedByUser`` the user's (a goal or a turn), else the assistant's (a
  conclusion, or an error where ``error`` is set), said by their ``sender`` (``User``, or the
  model's label, ``GPT-4o``); the model (``model``) as ``relation(H, model, M)``; ``text``, else
  the text parts of ``content`` (``think`` parts counted as ``thinking``, other parts as
  ``<type> part``); files (``files``, each ``filename``) named on a line of their own
  (``[attached: export.log]``).
- **Time**: ``createdAt``, ISO 8601.

Pointers read ``<file>#/messages/<i>`` or ``<file>#/messagesTree/<i>/children/<j>/…``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .chat_messages import attachment_names, one_line_name, with_attachments
from .classify import assistant_text_kind, clean_message, message_text, user_message_kind
from .collector import ItemCollector
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail

_TITLE_MAX_CHARS = 200


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "messageId" in value and (
        "isCreatedByUser" in value or "sender" in value)


def is_librechat_export(document: Any) -> bool:
    """True for a LibreChat export: a ``conversationId`` and ``messages`` or ``messagesTree``
    whose first objects are LibreChat messages (``messageId`` with ``isCreatedByUser`` or
    ``sender``), or none at all (an empty conversation, which holds none)."""
    if not isinstance(document, dict) or "conversationId" not in document:
        return False
    messages = document.get("messagesTree", document.get("messages"))
    if not isinstance(messages, list):
        return False
    if not messages:  # a conversation with no messages: its conversationId still names it
        return True
    head = [m for m in messages[:20] if isinstance(m, dict)]
    return bool(head) and all(_is_message(m) for m in head)


class LibreChatParser:
    """Parses a LibreChat conversation export into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session

    def parse(self, source: Source) -> int:
        """Read the branch the export shows; return how many messages there were."""
        document = json_document(source)
        if not is_librechat_export(document):
            raise fail(source.name, 'not a LibreChat export (a "conversationId" and "messages" '
                                    'with a "messageId")')
        strip_document_envelopes(source, self.collector, document)
        conversation = document.get("conversationId")
        session = one_line_name(conversation, 200) or self.default_session
        title = one_line_name(document.get("title"), _TITLE_MAX_CHARS)
        links = (("title", title),) if title else ()
        nodes = list(self._nodes(document, f"{source.pointer_base}#"))
        for number, message, pointer in self._shown(nodes):
            self._message(message, number, session, pointer, links)
        return len(nodes)

    def _nodes(self, document: dict[str, Any], base: str
               ) -> Iterator[tuple[int, dict[str, Any], str]]:
        """Every message object with its number (counted in file order from 1) and pointer;
        one that is no object is skipped with its place."""
        if "messagesTree" in document:
            stack = [(m, f"{base}/messagesTree/{i}") for i, m in
                     reversed(list(enumerate(document["messagesTree"])))]
        else:
            stack = [(m, f"{base}/messages/{i}") for i, m in
                     reversed(list(enumerate(document["messages"])))]
        number = 0
        while stack:
            message, pointer = stack.pop()
            number += 1
            self.collector.records_read += 1
            if not isinstance(message, dict):
                self.collector.skip(number, f"message {pointer.rsplit('/', 1)[1]} is not an "
                                            "object")
                continue
            yield number, message, pointer
            children = message.get("children")
            if isinstance(children, list):
                stack.extend((c, f"{pointer}/children/{j}")
                             for j, c in reversed(list(enumerate(children))))

    def _shown(self, nodes: list[tuple[int, dict[str, Any], str]]
               ) -> list[tuple[int, dict[str, Any], str]]:
        """The messages of the branch written last, in order; every message when no message
        has two children."""
        by_id = {str(m.get("messageId")): (n, m, p) for n, m, p in nodes}
        parents = [str(m.get("parentMessageId")) for _, m, _ in nodes]
        if len(parents) == len(set(parents)):
            return nodes  # no branches
        last = max(nodes, key=lambda node: (str(node[1].get("createdAt") or ""), node[0]))
        branch, seen = [], set()
        node: tuple[int, dict[str, Any], str] | None = last
        while node is not None and node[0] not in seen:
            seen.add(node[0])
            branch.append(node)
            node = by_id.get(str(node[1].get("parentMessageId")))
        others = len(nodes) - len(branch)
        if others:
            self.collector.ignored["other-branch"] = (
                self.collector.ignored.get("other-branch", 0) + others)
        return sorted(branch)

    def _message(self, message: dict[str, Any], number: int, session: str, pointer: str,
                 links: tuple[tuple[str, str], ...]) -> None:
        text = clean_message(self._text(message))
        files = message.get("files")
        attached = attachment_names(f.get("filename") for f in files if isinstance(f, dict)) \
            if isinstance(files, list) else []
        user = message.get("isCreatedByUser") is True
        if user:
            kind = user_message_kind(text) if text else ("turn" if attached else None)
        elif message.get("error") is True and text:
            kind = "error"
        else:
            kind = assistant_text_kind(text) if text else None
        if kind is None:
            self.collector.no_item(text)
            return
        model = one_line_name(message.get("model"), 80)
        extra = (("model", model),) if model and not user else ()
        self.collector.add(record_no=number, session=session, kind=kind,
                           role="user" if user else "assistant",
                           identity=str(message.get("messageId") or f"m{number}"),
                           text=message_text(with_attachments(text, attached)),
                           time=self.collector.time(number, message.get("createdAt")),
                           pointer=pointer, links=links + extra,
                           speaker=one_line_name(message.get("sender"), 80),
                           sets_goal=kind == "user_goal")

    def _text(self, message: dict[str, Any]) -> str:
        """``text``, else the text parts of ``content`` (other parts counted)."""
        if isinstance(message.get("text"), str) and message["text"].strip():
            return message["text"]
        parts = message.get("content")
        texts = []
        for part in parts if isinstance(parts, list) else []:
            kind = part.get("type") if isinstance(part, dict) else None
            value = part.get("text") if isinstance(part, dict) else None
            if isinstance(value, dict):
                value = value.get("value")  # {"type": "text", "text": {"value": ...}}
            if kind == "text" and isinstance(value, str):
                texts.append(value)
            elif kind == "think":
                self.collector.ignore("thinking")
            else:
                self.collector.ignore(f"{kind if isinstance(kind, str) else 'untyped'} part")
        return "\n\n".join(texts)
