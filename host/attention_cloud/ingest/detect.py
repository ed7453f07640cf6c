"""Telling the transcript formats apart by their content, file by file.

JSON is looked at first. Line by line: an object with a string ``type`` and Claude Code's fields
(``sessionId``, ``uuid``, ``message``, ``leafUuid``) means ``claude-code`` (a ``summary`` line
alone only when no later line shows another format: a chat log after it is that chat); one with
``conversations`` of ``from``/``value`` turns means ``sharegpt``; a SillyTavern chat line (its
header's ``user_name`` and ``character_name``, or a message's ``mes`` and ``is_user``)
``sillytavern``; a Codex rollout line (``type``
``session_meta``, ``response_item`` ... with a ``payload``) means ``codex``; a Responses API
item (``function_call``, ``function_call_output``, ``reasoning``, a ``message`` of
``input_text``/``output_text`` parts) means ``openai-responses`` (``codex`` after an older
rollout's first line, ``{"id", "timestamp"}``); a LangChain message (``type`` ``human``, ``ai``,
``tool`` ... with ``data`` or ``content``) means ``langchain``; a message whose content blocks
hold ``tool_use``, ``tool_result`` or ``thinking`` (or an Anthropic response body) means
``anthropic``; one with a ``role`` or a ``messages`` list means ``openai``, unless a later line
(of the first fifty) shows one of the formats above. A document laid out over lines (its first
line a lone ``{``, or a list) is looked at as a whole before its lines. The benchmarks come
first, as a line or as a document (or the first element of a list): a LoCoMo sample
(``conversation`` with ``speaker_a`` or ``session_N`` turns) means ``locomo``, a LongMemEval
instance (``haystack_sessions``) means ``longmemeval``. As one document: a Telegram Desktop
export (a chat's ``messages`` typed ``message`` or ``service``, or an account's ``chats.list``)
means ``telegram``, a list of messages typed ``message`` with an epoch ``ts`` (a Slack
export's day file; its ``users.json`` and ``channels.json`` by name) ``slack``, a
DiscordChatExporter export (a ``channel`` and ``messages`` with an ``author``) ``discord``, a
Messenger or Instagram thread (``participants`` and ``messages`` with a ``sender_name``)
``messenger``, a Google Chat Takeout ``messages.json`` (``messages`` with a ``creator`` and a
``created_date``; its ``group_info.json`` by name, and an empty ``messages.json`` by its
folder) ``google-chat``, Skype's ``messages.json``
(``conversations`` each with a ``MessageList``) ``skype``, a list of Open WebUI chats
(each a ``chat`` with a ``history`` or ``messages``) ``open-webui``, a LibreChat export (a
``conversationId`` and ``messages`` or ``messagesTree`` with a ``messageId``) ``librechat``, a
Continue session (a ``sessionId`` and a ``history`` of items wrapping a ``message``; its
``sessions.json`` by name) ``continue``, a Gemini CLI session (``messages`` typed
``user``/``gemini``), Gemini API contents (``role``
``model`` with ``parts``, or ``{"contents"}``) or Gemini CLI's ``logs.json`` ``gemini``; a
list of conversations with a ``mapping`` tree (or one such conversation) means ``chatgpt``,
with ``uuid`` and ``chat_messages`` (Claude.ai's export) ``claude-ai``; an
object with SWE-agent's ``history`` or ``trajectory`` steps, or a list of messages with
mini-swe-agent's shell blocks and ``<returncode>`` outputs, means ``trajectory``; a list of
OpenHands events (``action`` with ``args``, ``observation`` with ``content``), or a run of its evaluation harness (a ``history``
of such events, also as a JSON Lines record) means ``openhands``, as do OpenHands V1's events
(``kind`` ``MessageEvent``, ``ActionEvent`` ...: a list, JSON Lines or one event, the file of a
conversation's ``events`` folder) and that folder's ``base_state.json``; a list of ShareGPT
records means ``sharegpt``; a list (or ``input``/``output``) of Responses API items means
``openai-responses``, of LangChain messages ``langchain``, of messages with Anthropic's tool or
thinking blocks (or a request body with a top-level ``system``) ``anthropic``; any other JSON
array of messages, a document with ``messages``, or one message, means ``openai``. Otherwise an
aider chat history (a ``# aider chat started at`` line) means ``aider``, a
imessage-exporter text file (a date line ``May 08, 2023  1:56:03 PM``, then its sender)
``imessage``, a timed speaker heading (``## User (03:56 UTC)``) ``markdown``, and a speaker line
(``User:``, ``## Assistant``, ``Priya:``) means ``text``; failing those, a heading that is a
date or ends with one (``## 2025-03-04``) means ``notes``. Anything else cannot be detected, and
says so. A WhatsApp export (its first line ``[5/8/23, 1:56:03 PM] Priya: …`` or ``08/05/2023,
13:56 - Priya: …``) is recognised before all of these: its lines open with a bracket.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any

from ..errors import InputError
from ..formats import UNDETECTED
from .aider import is_aider_history
from .anthropic_messages import is_anthropic_conversation, is_anthropic_message
from .chat_pages import chat_page_format
from .chatgpt_export import is_chatgpt_export
from .claude_ai_export import is_claude_ai_export, is_claude_ai_projects, is_claude_ai_users
from .langchain_messages import is_langchain_conversation, is_langchain_message
from .locomo import is_locomo_sample
from .longmemeval import is_longmemeval_instance
from .markdown_log import has_timed_headings
from .messenger import is_messenger_export
from .notes import has_dated_headings
from .openhands import is_openhands, is_openhands_run
from .openhands_sdk import EVENT_KINDS, is_base_state, is_sdk_event
from .openai_responses import is_responses_document, is_responses_item, is_rollout_line
from .plain_text import has_speaker_lines
from .sharegpt import is_sharegpt_record
from .continue_sessions import INDEX as CONTINUE_INDEX, is_continue_index, is_continue_session
from .discord import is_discord_export
from .librechat import is_librechat_export
from .skype import is_skype_export
from .discord_csv import is_discord_csv
from .discord_text import is_discord_text
from .gemini import (
    is_gemini_content,
    is_gemini_contents,
    is_gemini_prompt_log,
    is_gemini_shared_markdown,
    is_gemini_session,
)
from .slack import is_slack_day, is_slack_metadata
from .google_chat import is_empty_google_chat, is_google_chat_export, is_google_chat_metadata
from .open_webui import is_open_webui_export
from .imessage import is_imessage_export
from .sillytavern import is_sillytavern_line
from .telegram import is_telegram_export
from .trajectory import is_trajectory
from .whatsapp import is_whatsapp_export
from .jsonlines import (json_error_reason, json_lines_head, number_error_line, number_error_reason,
                        reads_as_document)
from .source import WALKED_SUFFIXES, Source, fail, first_byte, make_source, read_path

_LINES_TO_TRY = 50
# A file up to this size is looked at whole; a larger one of JSON Lines, by its first lines.
_WHOLE_TEXT_BYTES = 1 << 20
_CLAUDE_CODE_FIELDS = ("sessionId", "uuid", "leafUuid", "message", "parentUuid")


def detect_format(path_or_text: str | os.PathLike[str] | bytes) -> str:
    """Name the format of a transcript: one of :data:`~.records.FORMATS`.

    Args:
        path_or_text: a path (``os.PathLike``, or a one-line string naming an existing file or
            ending in a transcript suffix such as ``.jsonl``), or the transcript itself as text
            or bytes.

    Raises:
        InputError: ``<name>: cannot detect format`` (or the reading error for a path, or
            why text that opens as JSON does not decode: an integer longer than Python
            converts, nesting deeper than the decoder allows, text after a whole document,
            each with its line where known).
    """
    if isinstance(path_or_text, bytes):
        source = make_source(path_or_text, name="<text>")
    elif isinstance(path_or_text, str) and not _names_a_file(path_or_text):
        source = make_source(path_or_text, name="<text>")
    else:
        source = read_path(path_or_text)
    return detect_source_format(source)


def _names_a_file(text: str) -> bool:
    if "\n" in text or not text.strip():
        return False
    return os.path.exists(text) or Path(text).suffix.lower() in WALKED_SUFFIXES


_ASTRAL_CHAR = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


def _detection_text(source: Source) -> str:
    """The text formats are told apart by: for a large JSON Lines file not yet decoded, its
    first lines (what the line-by-line checks read), so detection does not hold the whole file
    decoded; else all of it (invalid UTF-8 replaced)."""
    return _detection_text_whole(source)[0]


def _detection_text_whole(source: Source) -> tuple[str, bool]:
    """:func:`_detection_text`, and True when that is the text a parser decodes as JSON (all
    of it, as valid UTF-8), so that what detection decodes of it can be handed on."""
    if not source.decoded and len(source.data) > _WHOLE_TEXT_BYTES:
        head = json_lines_head(source.data, 4 * _LINES_TO_TRY + 1)
        if head is not None:
            return head, False
    if not source.decoded and first_byte(source.data) in (b"[", b"{"):
        text = source.json_text  # a JSON document: its emoji as escapes, see Source.json_text
        if text is not None:
            return text, True
    if not source.decoded:
        # lines of text, decoded for detection alone and not kept (a parser of lines reads the
        # file a line at a time): each character beyond U+FFFF (an emoji) as U+FFFD, which no
        # check tells from it, so the text is two bytes a character at most, not four
        try:
            text = _ASTRAL_CHAR.sub("\ufffd".encode(), source.data).decode("utf-8")
        except UnicodeDecodeError:
            return source.data.decode("utf-8", "replace"), False  # its parser reports the byte
        return (text[1:] if text.startswith("\ufeff") else text), False
    if source.text is not None:
        return source.text, True
    return source.data.decode("utf-8", "replace"), False


def detect_source_format(source: Source) -> str:
    """The format of a read source (see :func:`detect_format`)."""
    text, whole = _detection_text_whole(source)
    head = text.lstrip()
    if is_base_state(source.name):
        return "openhands"
    if is_whatsapp_export(head):  # before JSON: an iOS export's lines open with "["
        return "whatsapp"
    if is_discord_csv(head):  # DiscordChatExporter's CSV: its header row
        return "discord"
    if head[:1] == "=" and is_discord_text(head):  # its text export: a rule, Guild:, Channel:
        return "discord"
    page = chat_page_format(head, source.pointer_base)  # Discord's, Telegram's, Meta's pages
    if page:
        return page
    if is_claude_ai_users(source.name, text):  # before Slack's lists: the same name
        return "claude-ai"
    if is_slack_metadata(source.name, head):  # users.json beside a Slack export's channels
        return "slack"
    if is_google_chat_metadata(source.name, head):  # group_info.json beside messages.json
        return "google-chat"
    if is_empty_google_chat(source.pointer_base, head):  # no messages: only its place tells
        return "google-chat"
    if Path(source.name).name == CONTINUE_INDEX and head[:1] == "[" and _is_continue_index(
            source.name, text):  # Continue's sessions.json beside its sessions
        return "continue"
    document = None
    if head[:1] in ("{", "["):
        # a document decoded here is handed to its parser (json_document), not decoded twice
        keep = source.keep_document if whole and reads_as_document(source.data) else None
        document = _WholeDecode(text, keep)
        found = _json_format(text, head[0], document)
        if found:
            return found
    if is_gemini_shared_markdown(head):  # before markdown: "## USER ✨" names no speaker
        return "gemini"
    if is_aider_history(head):  # before markdown: its "####" lines are no headings
        return "aider"
    if is_imessage_export(head):  # before text: its sender lines end with no colon
        return "imessage"
    if has_timed_headings(text):
        return "markdown"
    if has_speaker_lines(text):
        return "text"
    if has_dated_headings(text):  # notes: no chat, but each note has its day
        return "notes"
    if document is not None:  # JSON its decoder refused for more than its syntax: say why
        refusal = _json_refusal(source.name, document)
        if refusal is not None:
            raise refusal
    raise fail(source.name, UNDETECTED)


class _WholeDecode:
    """``json.loads(text)`` done at most once, its value given to ``keep`` (the source's
    :meth:`~.source.Source.keep_document`, or None when the text is not what a parser reads)."""

    def __init__(self, text: str, keep: Callable[[Any], None] | None) -> None:
        self.text, self.keep = text, keep
        self.outcome: tuple[Any] | BaseException | None = None

    def __call__(self) -> Any:
        if self.outcome is None:
            try:
                self.outcome = (json.loads(self.text),)
            except (ValueError, RecursionError) as error:
                self.outcome = error
            else:
                if self.keep is not None:
                    self.keep(self.outcome[0])
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome[0]


def _json_refusal(name: str, whole: _WholeDecode) -> InputError | None:
    """Why text that opens as JSON and matched no format is no JSON at all, which "cannot
    detect format" hid: an integer longer than Python converts (a plain ValueError), nesting
    deeper than the decoder allows, or text after a whole document laid out over lines (never
    JSON Lines: another record appended to it), with its line. None otherwise (the text is
    undetected)."""
    try:
        whole()
    except RecursionError:
        return fail(name, "JSON nested too deeply")
    except json.JSONDecodeError as error:
        if error.msg != "Extra data" or not _opens_a_document(whole.text.strip()):
            return None  # not JSON, JSON Lines, or a document cut short (as its reader says)
        return fail(name, json_error_reason(error), error.lineno)
    except ValueError as error:
        return fail(name, number_error_reason(error), number_error_line(whole.text))
    return None


def _json_format(text: str, first: str, whole: _WholeDecode) -> str | None:
    body = text.strip()
    if "\n" not in body:  # one line (a compact export): decode it once, as a record or a document
        try:
            # the whole text when only JSON's own spaces surround it (the parser decodes that)
            value = whole() if len(text.strip(" \t\r\n")) == len(body) else json.loads(body)
        except (ValueError, RecursionError):
            return _cut_short(text, first)
        if is_continue_session(value):  # its "history" is no SWE-agent trajectory's
            return "continue"
        if is_trajectory(value):  # mini-swe-agent's has ``messages``, as a chat record does
            return "trajectory"
        if is_telegram_export(value):  # its ``messages`` have no role: not a chat API's
            return "telegram"
        if is_messenger_export(value):
            return "messenger"
        if is_google_chat_export(value):
            return "google-chat"
        if is_skype_export(value):  # its "conversations" are no ShareGPT record's
            return "skype"
        if is_open_webui_export(value):
            return "open-webui"
        if is_librechat_export(value):  # its "messages" have no role
            return "librechat"
        if is_discord_export(value):
            return "discord"
        if _is_gemini(value):  # its "messages" have no role either
            return "gemini"
        return _record_format(value) or _document_format(value)
    if _opens_a_document(body):
        try:
            found = _document_format(whole())
        except (ValueError, RecursionError):
            found = None  # cut short or JSON Lines after all: the lines decide
        if found:
            return found
    tried = 0
    chat = None  # a plain chat message: a later line may show which API wrote the chat
    summary = None  # a Claude Code summary line: its records, or another format's, follow
    first_value: Any = None
    for line in text.split("\n", 4 * _LINES_TO_TRY):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        first_value = value if tried == 0 else first_value
        found = _record_format(value)
        if found == "openai-responses" and _is_old_rollout_head(first_value):
            return "codex"
        if found == "openai":
            chat = found
        elif found == "claude-code" and _is_summary_line(value):
            summary = found
        elif found:
            return found
        tried += 1
        if tried == _LINES_TO_TRY:
            break
    if chat or summary:
        return chat or summary
    try:
        document = whole()
    except (ValueError, RecursionError):
        return _cut_short(text, first)
    return _document_format(document)


def _is_continue_index(name: str, text: str) -> bool:
    try:
        return is_continue_index(name, json.loads(text))
    except (ValueError, RecursionError):
        return False


def _is_summary_line(value: Any) -> bool:
    """A Claude Code ``summary`` line (``type`` and ``leafUuid`` alone: no session, no
    message): Claude Code writes them first, but a chat log another tool appended them to is
    no Claude Code session, so the lines after it decide."""
    return isinstance(value, dict) and value.get("type") == "summary" and not any(
        key in value for key in ("sessionId", "uuid", "message"))


def _opens_a_document(body: str) -> bool:
    """True when the first line is a lone ``{`` or starts a list: a document laid out over
    lines, never a JSON Lines record. Its lines may still parse alone (a turn written on one
    line), so the whole document is looked at first."""
    head = body.split("\n", 1)[0].strip()
    return head == "{" or head.startswith("[")


_TRAJECTORY_KEYS = ('"history"', '"trajectory"', '"trajectory_format"', '"mini_version"')


def _cut_short(text: str, first: str) -> str | None:
    """A JSON document cut short is still recognisable by its opening: an array by its first
    message or OpenHands event, an agent trajectory or an OpenHands run by its keys (so the
    parser names the line where it breaks)."""
    head = text[:2000]
    if first == "[" and all(key in head for key in ('"action"', '"args"', '"source"')):
        return "openhands"
    if '"source"' in head and any(f'"kind": "{kind}"' in head or f'"kind":"{kind}"' in head
                                  for kind in EVENT_KINDS):
        return "openhands"
    if first == "{" and '"instance_id"' in head and (
            '"instruction"' in head or '"test_result"' in head):
        return "openhands"
    if '"session_meta"' in head or '"response_item"' in head:
        return "codex"
    if '"tool_use"' in head or '"tool_result"' in head:
        return "anthropic"
    if any(key in head for key in ('"function_call_output"', '"input_text"', '"output_text"')):
        return "openai-responses"
    if first == "[" and '"role"' in head:
        return "openai"
    if first == "{" and any(key in head for key in _TRAJECTORY_KEYS):
        return "trajectory"
    return None


def _is_old_rollout_head(value: Any) -> bool:
    """True for the first line of a Codex rollout written before the envelope: the session's
    ``id`` and ``timestamp``, no ``type`` or ``role``."""
    return (isinstance(value, dict) and "id" in value and "timestamp" in value
            and "type" not in value and "role" not in value)


def _benchmark_format(value: Any) -> str | None:
    """``locomo`` or ``longmemeval`` for one of their records (checked before the chat formats:
    a haystack session's turns have a ``role`` too)."""
    if is_locomo_sample(value):
        return "locomo"
    if is_longmemeval_instance(value):
        return "longmemeval"
    return None


def _document_format(document: Any) -> str | None:
    if isinstance(document, list) and document[:1]:
        found = _benchmark_format(document[0])
        if found:
            return found
    if is_telegram_export(document):
        return "telegram"
    if is_slack_day(document):
        return "slack"
    if is_discord_export(document):
        return "discord"
    if is_messenger_export(document):
        return "messenger"
    if is_google_chat_export(document):
        return "google-chat"
    if is_skype_export(document):
        return "skype"
    if is_open_webui_export(document):
        return "open-webui"
    if is_librechat_export(document):  # its "messages" have no role
        return "librechat"
    if is_chatgpt_export(document):
        return "chatgpt"
    if is_claude_ai_export(document) or is_claude_ai_projects(document):
        return "claude-ai"
    if _is_gemini(document):
        return "gemini"
    if is_continue_session(document):  # its "history" is no SWE-agent trajectory's
        return "continue"
    if is_trajectory(document):
        return "trajectory"
    if is_openhands(document):
        return "openhands"
    if is_responses_document(document) or is_responses_item(document):
        return "openai-responses"
    if is_langchain_conversation(document) or is_langchain_message(document):
        return "langchain"
    if is_anthropic_conversation(document) or is_anthropic_message(document):
        return "anthropic"
    if isinstance(document, list):
        head = document[:_LINES_TO_TRY]
        if any(is_sharegpt_record(r) for r in head[:5]):
            return "sharegpt"
        return "openai" if any(isinstance(m, dict) and "role" in m for m in head) else None
    if isinstance(document, dict) and (isinstance(document.get("messages"), list)
                                       or isinstance(document.get("role"), str)):
        return "openai"  # a conversation, or one message laid out over lines
    return _benchmark_format(document)


def _is_gemini(document: Any) -> bool:
    """A Gemini CLI session, Gemini API contents (``role`` ``model``, ``parts``) or Gemini
    CLI's prompt log: checked before the chat formats, whose ``role`` or ``messages`` they
    resemble."""
    return (is_gemini_session(document) or is_gemini_contents(document)
            or is_gemini_prompt_log(document))


def _record_format(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("type"), str) and any(field in value for field in _CLAUDE_CODE_FIELDS):
        return "claude-code"
    if is_sharegpt_record(value):
        return "sharegpt"
    if is_sillytavern_line(value):  # before a chat's: its messages name no "role"
        return "sillytavern"
    found = _benchmark_format(value)
    if found:
        return found
    if is_openhands_run(value) or is_sdk_event(value):  # output.jsonl, or V1 events
        return "openhands"
    if is_rollout_line(value):
        return "codex"
    if is_responses_item(value):
        return "openai-responses"
    if is_langchain_message(value) or is_langchain_conversation(value):
        return "langchain"
    if is_anthropic_message(value) or is_anthropic_conversation(value):
        return "anthropic"
    if is_gemini_content(value):  # "parts", not "content": a Gemini API turn
        return "gemini"
    if isinstance(value.get("role"), str) or isinstance(value.get("messages"), list):
        return "openai"
    return None
