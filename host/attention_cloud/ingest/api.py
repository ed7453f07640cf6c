"""The entry points: parse a transcript file or text into items."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from ..errors import InputError, UsageError
from .aider import AiderParser
from .anthropic_messages import AnthropicMessagesParser
from .budget import apply_item_budget, check_budget
from .chatgpt_export import ChatGPTExportParser
from .claude_ai_export import ClaudeAiExportParser
from .claude_code import ClaudeCodeParser
from .collector import DEFAULT_MAX_ITEM_CHARS, MIN_ITEM_CHARS, ItemCollector
from .detect import detect_source_format
from .continue_sessions import ContinueParser
from .librechat import LibreChatParser
from .discord import DiscordParser
from .gemini import GeminiParser
from .imessage import IMessageParser
from .google_chat import GoogleChatParser
from .langchain_messages import LangChainParser
from .locomo import LoCoMoParser
from .longmemeval import LongMemEvalParser
from .markdown_log import MarkdownLogParser
from .messenger import MessengerParser
from .notes import NotesParser
from .openai_chat import OpenAIChatParser
from .openai_responses import ResponsesParser
from .open_webui import OpenWebUIParser
from .openhands import OpenHandsParser
from .plain_text import PlainTextParser
from .sharegpt import ShareGPTParser
from .sillytavern import SillyTavernParser
from .skype import SkypeParser
from .slack import SlackParser
from .telegram import TelegramParser
from .trajectory import TrajectoryParser
from .whatsapp import WhatsAppParser
from .records import FORMATS, ParseResult
from .resume import ReadPoints
from .source import DEFAULT_MAX_FILE_BYTES, Source, fail, make_source, read_path


class _Parser(Protocol):
    def parse(self, source: Source) -> int:
        """Feed the collector; return how many well-formed records there were (all read so
        far, for a reader resumed: see :mod:`.resume`)."""


# Each format's parser is built from the collector and the default session name.
_PARSERS: dict[str, Callable[[ItemCollector, str], _Parser]] = {
    "claude-code": ClaudeCodeParser,
    "openai": OpenAIChatParser,
    "anthropic": AnthropicMessagesParser,
    "openai-responses": ResponsesParser,
    "codex": ResponsesParser,
    "gemini": GeminiParser,
    "aider": AiderParser,
    "notes": NotesParser,
    "langchain": LangChainParser,
    "chatgpt": ChatGPTExportParser,
    "claude-ai": ClaudeAiExportParser,
    "sharegpt": ShareGPTParser,
    "trajectory": TrajectoryParser,
    "openhands": OpenHandsParser,
    "locomo": LoCoMoParser,
    "longmemeval": LongMemEvalParser,
    "markdown": MarkdownLogParser,
    "text": PlainTextParser,
    "whatsapp": WhatsAppParser,
    "telegram": TelegramParser,
    "slack": SlackParser,
    "discord": DiscordParser,
    "messenger": MessengerParser,
    "skype": SkypeParser,
    "google-chat": GoogleChatParser,
    "open-webui": OpenWebUIParser,
    "librechat": LibreChatParser,
    "continue": ContinueParser,
    "sillytavern": SillyTavernParser,
    "imessage": IMessageParser,
}


def parse_path(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    session: str | None = None,
    item_budget: int | None = None,
    kind_shares: Mapping[str, float] | None = None,
    max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
    max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
    user_names: Iterable[str] = (),
) -> ParseResult:
    """Parse the transcript file at ``path`` into items.

    Args:
        path: a transcript file.
        format: one of :data:`FORMATS`; None detects it from the content.
        session: the session name for records that carry no session id of their own
            (default: the file name without its extension).
        item_budget: at most this many items per session (None: no limit); see
            :mod:`attention_cloud.ingest.budget` for how kinds share it.
        kind_shares: share of the budget per kind, replacing the defaults (normalised to 1).
        max_file_bytes: a larger file is refused unread (None: no limit).
        max_item_chars: the most characters of one message or tool output an item keeps
            (a longer one keeps its head and tail around a line marking the cut); at least
            :data:`~attention_cloud.ingest.collector.MIN_ITEM_CHARS`.
        user_names: people who took the user's role before this file (an earlier file of a
            conversation): in a transcript whose people take roles by who speaks first (plain
            text with named speaker lines), the first of them to speak here is the user rather
            than whoever speaks first (``ParseResult.named_roles`` says who took which).

    Raises:
        InputError: one line naming the file (and the line when known): missing, unreadable
            or a directory; not a regular file (a FIFO, a device); over the size limit;
            binary; invalid UTF-8; unknown or undetectable format; nothing in it could be
            parsed.
        UsageError: invalid ``session``, ``item_budget``, ``kind_shares`` or
            ``max_item_chars``.
    """
    shares = check_budget(item_budget, kind_shares)
    _check_arguments(format, session, max_item_chars)  # a bad option costs no read of the file
    return _parse(read_path(path, max_bytes=max_file_bytes), format, session, item_budget, shares,
                  max_item_chars, user_names)


def parse_source(
    source: Source,
    *,
    format: str | None = None,
    session: str | None = None,
    item_budget: int | None = None,
    kind_shares: Mapping[str, float] | None = None,
    max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
    user_names: Iterable[str] = (),
    read_points: ReadPoints | None = None,
) -> ParseResult:
    """Parse a transcript already read with :func:`~attention_cloud.ingest.source.read_path`
    (whose bytes the caller may also digest: what is parsed is exactly what was digested).

    ``read_points``: where a JSON Lines reader is kept at the end of the last complete line,
    and taken up again when ``source`` is that file grown (its first bytes unchanged), so
    that only the lines after are parsed (:mod:`.resume`); the result is the same.

    Other arguments and errors are those of :func:`parse_path`.
    """
    shares = check_budget(item_budget, kind_shares)
    _check_arguments(format, session, max_item_chars)
    return _parse(source, format, session, item_budget, shares, max_item_chars, user_names,
                  read_points)


def parse_text(
    text: str | bytes,
    *,
    name: str,
    format: str | None = None,
    session: str | None = None,
    item_budget: int | None = None,
    kind_shares: Mapping[str, float] | None = None,
    max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
    user_names: Iterable[str] = (),
) -> ParseResult:
    """Parse an in-memory transcript; ``name`` stands for its path in pointers and errors.

    Other arguments and errors are those of :func:`parse_path`.
    """
    if not isinstance(name, str) or not name:
        raise UsageError("parse_text needs a non-empty name for pointers and errors")
    shares = check_budget(item_budget, kind_shares)
    _check_arguments(format, session, max_item_chars)
    return _parse(make_source(text, name=name), format, session, item_budget, shares,
                  max_item_chars, user_names)


def _check_arguments(format: str | None, session: str | None,
                     max_item_chars: int = DEFAULT_MAX_ITEM_CHARS) -> None:
    if format is not None and format not in FORMATS:
        raise InputError(f"unknown format {format!r} (expected one of: {', '.join(FORMATS)})")
    if session is not None and (not isinstance(session, str) or not session.strip()):
        raise UsageError(f"session must be a non-empty string, not {session!r}")
    if (isinstance(max_item_chars, bool) or not isinstance(max_item_chars, int)
            or max_item_chars < MIN_ITEM_CHARS):
        raise UsageError(f"max_item_chars must be a whole number of characters, at least "
                         f"{MIN_ITEM_CHARS:,}, not {max_item_chars!r}")


def _parse(
    source: Source,
    format: str | None,
    session: str | None,
    item_budget: int | None,
    shares: Mapping[str, float],
    max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
    user_names: Iterable[str] = (),
    read_points: ReadPoints | None = None,
) -> ParseResult:
    chosen = format or detect_source_format(source)
    names = frozenset(user_names)
    options = (chosen, session or source.stem, max_item_chars, names)
    resumed = read_points.resume(source, options) if read_points is not None else None
    if resumed is None:
        collector = ItemCollector(chosen, max_item_chars=max_item_chars, user_names=names)
        parser = _PARSERS[chosen](collector, session or source.stem)
    else:  # a resumable reader keeps its collector as ``collector``
        parser, collector = resumed, resumed.collector
    if read_points is not None:
        read_points.keep_at_last_line(source, options, parser)
    if parser.parse(source) == 0:
        raise fail(source.name, _nothing_parsed(chosen, collector))
    result = collector.result()
    result.items, result.evicted = apply_item_budget(result.items, item_budget, shares)
    return result


def _nothing_parsed(format: str, collector: ItemCollector) -> str:
    message = f"no {format} records could be parsed"
    if not collector.skipped and not collector.records_read:
        message += " (it holds none)"  # an empty export, not a broken one
    if collector.skipped:
        line, reason = collector.skipped[0]
        message += f" ({len(collector.skipped)} skipped; line {line}: {reason})"
    return message
