"""Deterministic transcript parsing: agent transcripts in, memory items out.

Pure Python, no Prolog: the journal stores what this package returns.

>>> from attention_cloud.ingest import parse_path
>>> result = parse_path("session.jsonl", item_budget=500)      # doctest: +SKIP
>>> [(item.kind, item.text[:40]) for item in result.items]     # doctest: +SKIP

Formats (detected from the content; ``format=`` overrides)
    ``claude-code``
        Claude Code session JSONL (``~/.claude/projects/*/<session>.jsonl``).
    ``openai``
        OpenAI-style chat: a JSON array of messages, ``{"messages": [...]}``, or JSON Lines of
        messages or of conversations.
    ``anthropic``
        Anthropic Messages API conversations: messages whose content blocks hold ``tool_use``,
        ``tool_result`` and ``thinking``, as a list, JSONL, a request or a response body
        (:mod:`.anthropic_messages`).
    ``openai-responses``
        OpenAI Responses API items (``message``, ``function_call``, ``function_call_output``,
        ``reasoning`` ...): a list, JSONL, ``{"input": [...]}`` or ``{"output": [...]}``
        (:mod:`.openai_responses`).
    ``codex``
        OpenAI Codex CLI session rollouts (``rollout-*.jsonl``): Responses API items in
        ``response_item`` lines, the session from ``session_meta`` (:mod:`.openai_responses`).
    ``langchain``
        LangChain / LangGraph message dumps (``messages_to_dict``, plain fields or ``dumpd``)
        (:mod:`.langchain_messages`).
    ``chatgpt``
        ChatGPT data export (``conversations.json``): the active branch of each
        conversation's ``mapping`` tree, times from ``create_time`` (:mod:`.chatgpt_export`).
    ``claude-ai``
        Claude.ai data export (``conversations.json``): each conversation a session (its
        ``uuid``), each message's time from ``created_at`` (:mod:`.claude_ai_export`).
    ``sharegpt``
        ShareGPT ``{"conversations": [{"from", "value"}]}`` records: a JSON list, one record,
        or JSONL (:mod:`.sharegpt`).
    ``trajectory``
        Agent trajectories, SWE-agent's ``.traj`` and mini-swe-agent's ``.traj.json``:
        environment observations are tool results or errors, never goals (:mod:`.trajectory`).
    ``openhands``
        OpenHands runs: a saved trajectory (a JSON list of action/observation events) or the
        evaluation ``output.jsonl`` (a run per line, each a session named by its
        ``instance_id``, its ``test_result.git_patch`` kept) (:mod:`.openhands`).
    ``locomo``
        LoCoMo benchmark samples (``locomo10.json``): each turn with its speaker's name and its
        session's date, sessions ``<sample_id>/session_N``; the annotations (``qa``,
        summaries, observations) are not read (:mod:`.locomo`).
    ``longmemeval``
        LongMemEval instances (one, a JSON list, or JSONL): each haystack turn with its role and
        its session's date; shared sessions read once; ``question``, ``answer`` and
        ``has_answer`` are not read (:mod:`.longmemeval`).
    ``markdown``
        Markdown logs whose turns start at timed speaker headings, ``## User (03:56 UTC)``;
        the time goes to the item, on the file's date (:mod:`.markdown_log`).
    ``text``
        Plain text or markdown with speaker lines: ``User:``/``Human:``, ``Assistant:``/``AI:``,
        ``System:``, ``Tool:``, or headings such as ``## User``; a turn runs to the next speaker.
    ``whatsapp``
        WhatsApp chat exports, iOS and Android, any number of people: each message with its
        sender and time, the order of day and month decided for the whole file
        (:mod:`.whatsapp`).
    ``telegram``
        Telegram Desktop exports (``result.json``): each chat a session, each message with its
        sender (``from``) and time (``date_unixtime``) (:mod:`.telegram`); its HTML export,
        ``messages.html``, the same way (:mod:`.telegram_html`).
    ``slack``
        Slack workspace exports: each channel's day file a session ``<channel>/<day>``, each
        message with its sender's name and time (``ts``), thread replies linked
        (:mod:`.slack`).
    ``discord``
        DiscordChatExporter JSON exports: a channel a session ``<guild>/#<channel>``, each
        message with its author and time, replies linked (:mod:`.discord`); its CSV exports
        too, a file a session (:mod:`.discord_csv`), its HTML pages (:mod:`.discord_html`) and
        its text exports (:mod:`.discord_text`).
    ``messenger``
        Facebook Messenger and Instagram exports (``message_1.json`` ...): a thread a session,
        each message with its sender and time, oldest first, Meta's mis-encoded text repaired
        (:mod:`.messenger`); its HTML pages too (:mod:`.messenger_html`).
    ``skype``
        Skype's ``messages.json``: each conversation a session, each message with its sender and
        time, oldest first (:mod:`.skype`).
    ``google-chat``
        Google Chat from Google Takeout (``messages.json`` in each conversation's folder): each
        message with its creator and time, threads and edits linked (:mod:`.google_chat`).
    ``open-webui``
        Open WebUI chat exports: each chat a session, the branch the user last saw read, each
        message with its role and time (:mod:`.open_webui`).
    ``librechat``
        LibreChat conversation exports (``messages`` or ``messagesTree``): the branch written
        last, each message with its sender and time (:mod:`.librechat`).
    ``continue``
        Continue sessions (``~/.continue/sessions/<id>.json``): each history message read as
        an OpenAI chat message, at the session's time from ``sessions.json``
        (:mod:`.continue_sessions`).
    ``sillytavern``
        SillyTavern chat files (JSONL): each message with its speaker (the persona or the
        character) and time, the swipes not chosen counted (:mod:`.sillytavern`).
    ``imessage``
        iMessage conversations as imessage-exporter's text: each message and reply with its
        sender and time (:mod:`.imessage`).
    ``gemini``
        Gemini CLI session recordings (``~/.gemini/tmp/<project>/chats/session-*.json``), each
        tool call paired with its result in place, and Gemini API contents (``role``/``parts``
        lists: ``/chat save`` checkpoints, request bodies) (:mod:`.gemini`).
    ``aider``
        Aider's ``.aider.chat.history.md``: each chat a session from its ``# aider chat started
        at`` line, ``####`` user messages, replies, aider's ``>`` output (edits applied are
        file operations) (:mod:`.aider`).
    ``notes``
        Dated Markdown notes (meeting notes, a journal): each paragraph and list item a
        ``note`` on the day of the dated heading above it, its goal the headings above it
        (:mod:`.notes`).

    :data:`FORMAT_DESCRIPTIONS` has a line on each (``atc ingest --list-formats``). Claude Code
    2.1 specifics (task notifications, subagent files, compaction) are in
    :mod:`.claude_code`; how a subagent file gets its parent's goal in :mod:`.subagents`.

Order of work
    1. Envelopes first: every ``<memory-frame ...>…</memory-frame>`` (multi-line, several, nested,
       inside JSON strings, unclosed) is removed with all its content before anything else looks
       at the text, and counted in ``envelopes_stripped``. Recalled memory is never re-ingested.
    2. Records are read; malformed ones (bad JSON, bad UTF-8, a truncated last line) are skipped
       and listed in ``skipped`` with their line numbers. Only a transcript in which no record
       parses is an error.
    3. Each record is cleaned (``<system-reminder>`` blocks and client wrappers removed) and cut
       into items of the kinds below; noise becomes nothing.
    4. The per-session item budget, if any, evicts items and returns them in ``evicted``.

Item kinds
    ``user_goal``
        A user message with real content. It becomes the session's active goal: the ``goal``
        of every later item (and of itself) is its text, whitespace-collapsed and cut to 300
        characters. Items before the first goal have goal ``""``. Tool results carried in user
        records, Claude Code ``<task-notification>`` messages, sidechain prompts (a subagent's
        task), environment observations in agent trajectories and bare replies ("no", "wait",
        "2") are not goals.
    ``conclusion``
        Assistant text, kept whole like every message and tool output up to ``max_item_chars``
        (32,000 characters by default); a longer text keeps its head and tail around a line
        marking the cut, so endings survive (:func:`.textutil.capped_text`).
    ``file_op``
        A file tool call: Claude Code ``Read``, ``Write``, ``Edit``, ``MultiEdit``,
        ``NotebookEdit``; chat functions such as ``read_file``, ``write_file`` or
        ``str_replace_based_edit_tool``; simple shell commands that obviously touch a file
        (``rm``, ``mv``, ``cp``, ``touch``, ``sed -i``, ``> file``). Text:
        ``edit src/app.py: "old" -> "new"``, ``write src/app.py: 42 lines, starting "..."``,
        ``read src/app.py``.
    ``error``
        Tool output flagged ``is_error``, or tool or system output that reports a failure: a
        Python traceback, ``SomethingError:``/``Error:`` at a line start, pytest ``FAILED`` or
        ``N failed``, a non-zero exit status, ``command not found``. Also Claude Code API error
        messages. Text: the call's label (``$ pytest -q``), then the output's first 600 and last
        1000 characters. (A user message with a traceback stays a goal: what the user wants
        is the point; the traceback's error classes are still linked.)
    ``tool_result``
        Other useful tool output: label, then the first 800 and last 400 characters. A call
        whose result is nowhere in the transcript (a session killed mid-call) is one too: its
        label, then ``(no result in the transcript)``, linked ``no_result`` true
        (:mod:`.open_calls`).
    ``turn``
        Kept, but neither goal nor conclusion: system/developer instructions of chat formats,
        sidechain prompts, bare replies ("no", "wait", an option number such as "2"), and
        one-line assistant narration of the next step ("Let me read the tests first.").

Noise (no item)
    Empty text; bare acknowledgements ("ok", "thanks!", "yes please continue", "👍");
    ``<system-reminder>`` blocks; thinking blocks; slash-command and local-command wrappers
    (``<command-name>`` ...; a command's arguments are kept as the message) and the "Caveat:"
    message before them; ``[Request interrupted by user]``; Claude Code ``isMeta`` records;
    compaction summaries (``isCompactSummary``) and ``summary`` records, which restate earlier
    items under a client-written title; Claude Code compaction subagents (``agent-acompact-*``);
    non-error ``system`` records (hook notices); output of
    successful file tools (a read returns the file, which may since have changed and which the
    ``file_op`` item records; a write or edit echoes what was just written); trivial tool output
    ("(no output)", "Todos have been modified successfully"). Each is counted in
    ``ParseResult.ignored`` by what it is (``thinking``, ``image block``, ``image_url part``
    ...), or, when malformed, listed in ``skipped``: nothing read vanishes uncounted.

Identity and order
    ``handle`` is ``it_`` + 16 hex digits of SHA-256 over (session, kind, record identity,
    text); the record identity is the Claude Code ``uuid`` plus block number, else the line
    number or message index. The same input always gives the same handles; appending to a
    transcript leaves earlier handles (and ``seq`` numbers) unchanged; a record seen twice (same
    handle) is kept once and the repeat is listed in ``skipped``. ``seq`` numbers items per
    session from 0 in transcript order. ``pointer`` is ``<path>:<line>`` for line-oriented
    files (``<path>:<first>-<last>`` for a text turn written over several lines), ``<path>#<JSON pointer>`` for JSON documents, and ``<path>:<line>#/messages/<i>``
    for a conversation held on one JSONL line; ``path`` is absolute for files.

Relations (subject is always the item's handle)
    ``in_session`` session; ``cwd`` working directory; ``touches_file`` path (file operations,
    relative to the cwd when under it); ``file_op`` read|write|edit; ``tool`` tool name;
    ``mentions_file`` other paths named in the text (by extension, at most 8); ``mentions``
    error class names (``ValueError``, ``ReadTimeout``; at most 8); ``sidechain`` true;
    ``no_result`` true (a call whose result is not in the transcript);
    ``turn_id`` a benchmark's own id for the turn (LoCoMo ``D1:3``, LongMemEval
    ``<session id>:<turn index>``).

Item budget
    With ``item_budget=N``, a session with more than N items keeps, per kind, a share of N:
    conclusion 0.25, user_goal 0.20, error 0.20, file_op 0.20, tool_result 0.10, turn 0.05
    (``kind_shares`` replaces these). A kind that needs less leaves its share to the others in
    proportion to theirs. Within a kind the most recent items stay; the rest go to ``evicted``.
"""

from __future__ import annotations

from ..lazy_names import lazy_names

# Names are imported on first use (PEP 562): importing one light module of the package (the
# collector's limits, the envelope tag) must not import every reader, which the command line
# does for each `atc hook` a prompt starts.
_HOMES = {
    "parse_path": ".api", "parse_text": ".api",
    "DEFAULT_KIND_SHARES": ".budget",
    "detect_format": ".detect",
    "strip_envelopes": ".envelope",
    "Pointer": ".pointers", "parse_pointer": ".pointers", "read_pointer": ".pointers",
    "FORMAT_DESCRIPTIONS": ".records", "FORMATS": ".records", "KINDS": ".records",
    "ItemRecord": ".records", "ParseResult": ".records",
}


__getattr__, __dir__ = lazy_names(__name__, _HOMES)


__all__ = [
    "DEFAULT_KIND_SHARES",
    "FORMAT_DESCRIPTIONS",
    "FORMATS",
    "KINDS",
    "ItemRecord",
    "ParseResult",
    "Pointer",
    "detect_format",
    "parse_path",
    "parse_pointer",
    "parse_text",
    "read_pointer",
    "strip_envelopes",
]
