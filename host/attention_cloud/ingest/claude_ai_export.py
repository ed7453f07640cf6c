"""Claude.ai data exports (Settings → Privacy → Export data): ``conversations.json``.

The export is a JSON list of conversations (one conversation alone is read too)::

    [{"uuid": "…", "name": "Glazing a bowl", "created_at": "2024-05-08T13:56:00.123456Z",
      "chat_messages": [
        {"uuid": "…", "sender": "human", "created_at": "2024-05-08T13:56:01.5Z",
         "text": "…", "content": [{"type": "text", "text": "…"}, …],
         "attachments": [{"file_name": "notes.txt", "extracted_content": "…"}],
         "files": [{"file_name": "bowl.jpg"}]},
        {"sender": "assistant", …}]}]

- **Sessions**: each conversation is the session named by its ``uuid``; its ``name`` (the title
  Claude.ai shows) is kept as ``relation(H, title, Name)`` on each of its items.
- **Who and when**: ``sender`` ``human`` is the user, ``assistant`` the assistant; the user's
  messages are said by the account holder's ``full_name`` when the export's ``users.json``
  beside the file names the conversation's ``account`` (else ``item_speaker/2`` answers the
  role); each message's time is its ``created_at``, the
  conversation's for a message without one; a time that cannot be read is reported.
- **What**: ``content`` blocks as :mod:`.anthropic_messages` reads them (``text``, ``tool_use``
  with its ``tool_result``, a search's ``knowledge`` entries read as their title, address and
  text on lines of their own, ``thinking`` counted), or ``text`` where an older export has no
  blocks; files the user attached are named on a line of their own (``[attached: notes.txt]``,
  from ``attachments`` and ``files``), so a message of nothing but a file is an item.
- Pointers ``FILE#/<i>/chat_messages/<j>`` (``…/content/<k>`` for a block).

The export's ``projects.json`` is read too: each project the session named by its ``uuid``,
titled by its ``name``; its instructions (``prompt_template``, with its ``description``) a
``note`` of the time it was last changed (``updated_at``), each of its ``docs`` a ``note``
``[document: FILENAME]`` then its ``content``, of its ``created_at``; both said by the
project's ``creator`` (``full_name``). Anthropic's example project (``is_starter_project``)
is counted, not kept. Pointers ``FILE#/<i>/prompt_template``, ``FILE#/<i>/docs/<j>``. Its
``users.json`` (the account: ``uuid``, ``full_name``, ``email_address``) is counted.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from .anthropic_messages import AnthropicMessagesParser
from .chat_messages import attachment_names, with_attachments
from .classify import message_text
from .openai_chat import Conversation
from .source import Source, fail

_ROLES = {"human": "user", "user": "user", "assistant": "assistant", "system": "system"}
_TITLE_MAX_CHARS = 200
_USERS_MAX_BYTES = 1024 * 1024  # users.json: the account, a few lines
_ATTACHED = "_attached"  # set on a message read here whose files are named in its text


def is_claude_ai_conversation(value: Any) -> bool:
    """True for one conversation of a Claude.ai export: a ``chat_messages`` list and a
    ``uuid``."""
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list) \
        and "uuid" in value


def is_claude_ai_export(document: Any) -> bool:
    """True for a Claude.ai ``conversations.json`` (a list whose first object is a
    conversation) or one conversation alone."""
    if isinstance(document, list):
        first = next((value for value in document[:20] if isinstance(value, dict)), None)
        return is_claude_ai_conversation(first)
    return is_claude_ai_conversation(document)


def _account_names(path: Path) -> dict[str, str]:
    """The export's ``users.json`` beside its ``conversations.json``, as account ``uuid`` ->
    ``full_name`` ({} when there is none, or it is no Claude.ai users file)."""
    try:
        if not path.is_file() or path.stat().st_size > _USERS_MAX_BYTES:
            return {}
        users = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return {str(user["uuid"]): " ".join(user["full_name"].split())[:80]
            for user in (users if isinstance(users, list) else [users])
            if isinstance(user, dict) and "uuid" in user
            and isinstance(user.get("full_name"), str) and user["full_name"].strip()}


def _first_object(document: Any) -> dict[str, Any] | None:
    entries = document if isinstance(document, list) else [document]
    return next((value for value in entries[:20] if isinstance(value, dict)), None)


def is_claude_ai_projects(document: Any) -> bool:
    """True for a Claude.ai ``projects.json``: a list of projects (or one), each with a
    ``uuid`` and its ``docs`` or ``prompt_template``."""
    first = _first_object(document)
    return first is not None and "uuid" in first and "chat_messages" not in first \
        and (isinstance(first.get("docs"), list) or "prompt_template" in first)


def is_claude_ai_users(name: str, text: str) -> bool:
    """True for a Claude.ai ``users.json``: the account, a ``uuid`` with a ``full_name`` or
    ``email_address`` (a Slack export's has ``id`` and ``profile``)."""
    if Path(name).name != "users.json" or text.lstrip()[:1] not in ("[", "{"):
        return False
    try:
        first = _first_object(json.loads(text))
    except (ValueError, RecursionError):
        return False
    return first is not None and "uuid" in first \
        and ("full_name" in first or "email_address" in first)


class ClaudeAiExportParser(AnthropicMessagesParser):
    """Parses a Claude.ai ``conversations.json`` or ``projects.json`` into an
    :class:`ItemCollector` (its ``users.json`` is counted)."""

    account_names: dict[str, str] = {}  # users.json beside the file: account uuid -> name

    def _read(self, source: Source) -> int:
        if is_claude_ai_users(source.name, source.text or ""):
            self.collector.records_read += 1
            self.collector.ignore("claude-ai users.json")
            return 1
        document = self._document(source)
        if is_claude_ai_projects(document):
            projects = document if isinstance(document, list) else [document]
            base = source.pointer_base
            return sum(self._project(f"{base}#/{number}" if isinstance(document, list)
                                     else f"{base}#", number, project)
                       for number, project in enumerate(projects))
        if not is_claude_ai_export(document):
            raise fail(source.name, 'not a Claude.ai export (a list of conversations with '
                                    '"uuid" and "chat_messages")')
        conversations = document if isinstance(document, list) else [document]
        self.account_names = _account_names(Path(source.pointer_base).parent / "users.json")
        read = 0
        for number, conversation in enumerate(conversations):
            if not is_claude_ai_conversation(conversation):
                self.collector.records_read += 1
                self.collector.skip(number + 1, f"conversation {number} has no chat_messages")
                continue
            base = f"{source.pointer_base}#/{number}" if isinstance(document, list) \
                else f"{source.pointer_base}#"
            read += self._claude_conversation(base, number, conversation)
        return read

    def _claude_conversation(self, base: str, number: int, document: dict[str, Any]) -> int:
        uuid = document.get("uuid")
        session = str(uuid) if isinstance(uuid, str) and uuid else \
            f"{self.default_session}#{number}"
        first = len(self.collector.items)
        conversation = Conversation(session, self._time_of(document, number + 1),
                                    f"{base}/chat_messages", "", None)
        open_calls: dict[str, list[str]] = {}
        account = document.get("account") if isinstance(document.get("account"), dict) else {}
        human = self.account_names.get(str(account.get("uuid")), "")
        messages = [_as_message(message, f"claude-ai:{session}/{index}", open_calls)
                    for index, message in enumerate(document["chat_messages"])]
        if human:  # the account holder's messages are theirs: named as a chat names its people
            messages = [{**m, "name": human} if isinstance(m, dict) and m.get("role") == "user"
                        else m for m in messages]
        read = self._conversation(conversation, messages)
        title = document.get("name")
        if isinstance(title, str) and title.strip():
            title = " ".join(title.split())[:_TITLE_MAX_CHARS]
            items = self.collector.items
            for index in range(first, len(items)):
                item = items[index]
                items[index] = dataclasses.replace(
                    item, relations=(*item.relations, (item.handle, "title", title)))
        return read

    def _project(self, base: str, number: int, project: Any) -> int:
        """One project of ``projects.json``: its instructions and documents as notes."""
        self.collector.records_read += 1
        if not isinstance(project, dict) or "uuid" not in project:
            self.collector.skip(number + 1, f"project {number} is not a project")
            return 0
        if project.get("is_starter_project") is True:  # Anthropic's example, not the user's
            self.collector.ignore("starter project")
            return 1
        session = str(project["uuid"])
        creator = project.get("creator") if isinstance(project.get("creator"), dict) else {}
        speaker = creator.get("full_name") if isinstance(creator.get("full_name"), str) else ""
        name = project.get("name") if isinstance(project.get("name"), str) else ""
        title = " ".join(name.split())[:_TITLE_MAX_CHARS]
        created = self._time_of(project, number + 1)
        changed = self.collector.time(number + 1, project["updated_at"]) \
            if project.get("updated_at") not in (None, "") else created
        said = [str(project[key]).strip() for key in ("description", "prompt_template")
                if isinstance(project.get(key), str) and project[key].strip()]
        notes = [("prompt_template", "instructions", changed,
                  f"[project instructions: {title or session}]\n" + "\n\n".join(said))
                 ] if said else []
        docs = project.get("docs") if isinstance(project.get("docs"), list) else []
        for index, doc in enumerate(docs):
            if not isinstance(doc, dict) or not isinstance(doc.get("content"), str) \
                    or not doc["content"].strip():
                self.collector.ignore("empty")
                continue
            filename = doc.get("filename") or doc.get("uuid") or f"document {index}"
            notes.append((f"docs/{index}", f"doc/{doc.get('uuid', index)}",
                          self._time_of(doc, number + 1, created),
                          f"[document: {filename}]\n{doc['content'].strip()}"))
        for where, identity, time, text in notes:
            item = self.collector.add(
                record_no=number + 1, session=session, kind="note", role="user",
                identity=f"project/{identity}", text=message_text(text), time=time,
                pointer=f"{base}/{where}", speaker=speaker.strip())
            if item is not None and title:
                items = self.collector.items
                items[-1] = dataclasses.replace(
                    items[-1], relations=(*items[-1].relations, (items[-1].handle, "title", title)))
        return 1

    def _message(self, conversation: Conversation, message: dict[str, Any], record_no: int,
                 pointer: str, identity: str) -> bool:
        """As the Messages API reader reads it; the item naming the files a message attached
        points at the whole message, where they are listed (not at a block of its text)."""
        first = len(self.collector.items)
        read = super()._message(conversation, message, record_no, pointer, identity)
        if message.get(_ATTACHED):
            items = self.collector.items
            for index in range(first, len(items)):
                if "[attached: " in items[index].text:
                    items[index] = dataclasses.replace(items[index], pointer=pointer)
        return read


def _as_message(message: Any, prefix: str, open_calls: dict[str, list[str]]) -> Any:
    """A Claude.ai message as the Messages API writes one (``role``, ``content``, its time),
    the files it attached named in a text block after its own; anything else unchanged (the
    chat reader reports it). ``prefix`` makes the ids given to its calls (see
    :func:`_paired`); ``open_calls`` holds the conversation's calls not yet answered."""
    if not isinstance(message, dict):
        return message
    role = _ROLES.get(str(message.get("sender", "")).lower(), message.get("sender"))
    content = message.get("content")
    if _says_something(content):
        content = _paired([_with_knowledge_as_text(_artifact_as_text(_voice_as_text(block)))
                           for block in content], prefix, open_calls)
    else:  # an older export's blocks, or blocks whose text is empty: the message's own text
        content = message.get("text") if isinstance(message.get("text"), str) else ""
    names = attachment_names(
        entry.get("file_name") for key in ("attachments", "files")
        for entry in (message.get(key) if isinstance(message.get(key), list) else ())
        if isinstance(entry, dict))
    if names:
        if isinstance(content, list):
            content = [*content, {"type": "text", "text": with_attachments("", names)}]
        else:
            content = with_attachments(content, names)
    return {"role": role, "content": content, "created_at": message.get("created_at"),
            _ATTACHED: bool(names)}


def _paired(blocks: list[Any], prefix: str, open_calls: dict[str, list[str]]) -> list[Any]:
    """The blocks with each call and its result paired as the Messages API pairs them.

    Claude.ai writes a ``tool_use`` without ``id`` and its ``tool_result`` without
    ``tool_use_id``, only the tool's ``name``: a call without an id gets one (``prefix`` and
    the block's index), and a result without one answers the earliest unanswered call of its
    name (of any name when it names none)."""
    paired: list[Any] = []
    for index, block in enumerate(blocks):
        if isinstance(block, dict) and str(block.get("type", "")).endswith("tool_use") \
                and not isinstance(block.get("id"), str):
            block = {**block, "id": f"{prefix}/{index}"}
            open_calls.setdefault(str(block.get("name", "")), []).append(block["id"])
        elif isinstance(block, dict) and str(block.get("type", "")).endswith("tool_result") \
                and not isinstance(block.get("tool_use_id"), str):
            waiting = open_calls.get(str(block.get("name", ""))) if block.get("name") \
                else next((ids for ids in open_calls.values() if ids), None)
            if waiting:
                block = {**block, "tool_use_id": waiting.pop(0)}
        paired.append(block)
    return paired


def _voice_as_text(block: Any) -> Any:
    """A ``voice_note`` block (a message dictated in the app) as a text block of its words;
    any other block unchanged."""
    if isinstance(block, dict) and block.get("type") == "voice_note" \
            and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    return block


def _artifact_as_text(block: Any) -> Any:
    """An ``artifacts`` call (the code or document Claude wrote beside its answer) as a text
    block of what it wrote: its title and content when created or rewritten, the text it
    replaced and the new text when updated; any other block unchanged.

    The artifact is in the call's ``input``; its result says only ``OK``, so as a call the
    artifact would be nothing but its id."""
    if not isinstance(block, dict) or block.get("type") != "tool_use" \
            or block.get("name") != "artifacts" or not isinstance(block.get("input"), dict):
        return block
    given = block["input"]
    name = " ".join(str(given.get(key)) for key in ("title", "id")
                    if isinstance(given.get(key), str) and given[key].strip())
    kind = given.get("language") or given.get("type")
    label = f"[artifact: {name}{f' ({kind})' if isinstance(kind, str) and kind else ''}]"
    if isinstance(given.get("content"), str) and given["content"].strip():
        return {"type": "text", "text": f"{label}\n{given['content']}"}
    if isinstance(given.get("new_str"), str):
        old = given.get("old_str") if isinstance(given.get("old_str"), str) else ""
        return {"type": "text",
                "text": f"{label} updated: replaced\n{old}\nwith\n{given['new_str']}"}
    return block


def _says_something(content: Any) -> bool:
    """Whether a message's ``content`` blocks hold what it says: a block other than text, or
    a text block with text."""
    return isinstance(content, list) and any(
        not isinstance(block, dict) or block.get("type") != "text"
        or (isinstance(block.get("text"), str) and block["text"].strip()) for block in content)


def _with_knowledge_as_text(block: Any) -> Any:
    """A ``tool_result`` whose content lists what a search found as ``knowledge`` entries
    (``title``, ``url``, ``text``), those entries as text blocks; any other block unchanged."""
    if not isinstance(block, dict) or block.get("type") != "tool_result" \
            or not isinstance(block.get("content"), list):
        return block
    found = [{"type": "text", "text": "\n".join(
        str(entry[key]) for key in ("title", "url", "text") if entry.get(key))}
        if isinstance(entry, dict) and entry.get("type") == "knowledge" else entry
        for entry in block["content"]]
    return {**block, "content": found}
