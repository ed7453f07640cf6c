"""The transcript formats ingestion reads, by name, with a line on each: kept apart from
:mod:`attention_cloud.ingest` so that the CLI can list them without importing the parsers."""

from __future__ import annotations

FORMAT_DESCRIPTIONS: dict[str, str] = {
    "claude-code": "Claude Code session JSONL (~/.claude/projects/*/<session>.jsonl and its "
                   "subagents/agent-*.jsonl)",
    "openai": "OpenAI-style chat: a JSON array of messages, {\"messages\": [...]}, or JSONL of "
              "messages or conversations",
    "anthropic": "Anthropic Messages API conversations: a JSON list or JSONL of messages whose "
                 "content blocks hold tool_use, tool_result and thinking, a request body "
                 "{\"system\", \"messages\"} or a response {\"type\": \"message\"}",
    "openai-responses": "OpenAI Responses API items (message, function_call, "
                        "function_call_output, reasoning ...): a JSON list, JSONL, or a request "
                        "{\"input\": [...]} or response {\"output\": [...]}",
    "codex": "OpenAI Codex CLI session rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): "
             "session_meta, response_item and event_msg lines, or the older rollout of bare "
             "items",
    "langchain": "LangChain / LangGraph message dumps: messages_to_dict ({\"type\": \"human\", "
                 "\"data\": {...}}), the messages' own fields or dumpd, as a list, "
                 "{\"messages\": [...]} or JSONL",
    "chatgpt": "ChatGPT data export (conversations.json): the active branch of each "
               "conversation's mapping tree",
    "claude-ai": "Claude.ai data export (conversations.json): each conversation's "
                 "chat_messages with their sender and created_at, content blocks as anthropic "
                 "reads them, attached files named",
    "sharegpt": "ShareGPT conversations ({\"conversations\": [{\"from\", \"value\"}]}), a JSON "
                "list of them or JSONL",
    "trajectory": "agent trajectories: SWE-agent's .traj (history of role/content with "
                  "action and observation, or trajectory steps; retry-loop attempts) and "
                  "mini-swe-agent's .traj.json (info and messages, or the messages alone when "
                  "they hold its ```bash replies and <returncode> outputs)",
    "openhands": "OpenHands runs, V0 and V1: a saved trajectory (a JSON list of "
                 "action/observation events), the evaluation output.jsonl (instance_id, "
                 "history, test_result.git_patch per line), and the software-agent-sdk's "
                 "conversations (events typed by kind: a folder of events/event-*.json "
                 "beside base_state.json, a JSON list or JSON Lines)",
    "locomo": "LoCoMo benchmark samples (locomo10.json): two named speakers, dated sessions, "
              "dia_id kept as relation turn_id; qa and summaries not read",
    "longmemeval": "LongMemEval instances (one, a JSON list, or JSONL): dated haystack sessions, "
                   "<session>:<turn> kept as relation turn_id; question and answers not read",
    "markdown": "Markdown logs whose turns start at timed speaker headings "
                "(## User (03:56 UTC))",
    "text": "plain text or markdown with speaker lines (User:, ## Assistant, Priya: ...), "
            "LINE's chat history export (2023/05/08(Mon), then 13:56<TAB>Priya<TAB>...) and "
            "Zoom's saved meeting chat (13:56:03 From Priya to Everyone:)",
    "whatsapp": "WhatsApp chat exports, iOS ([5/8/23, 1:56:03 PM] Priya: ...) and Android "
                "(08/05/2023, 13:56 - Priya: ...): every sender and time, day/month order "
                "decided from the whole file",
    "telegram": "Telegram Desktop chat exports (result.json): one chat's messages, or every "
                "chat of an account's export, each message with its sender and time; and its "
                "HTML export (messages.html, when named)",
    "slack": "Slack workspace exports: a channel folder's day files (general/2023-05-08.json), "
             "each message with its sender's name and time, threads linked; users.json read "
             "for names",
    "discord": "Discord channel exports of DiscordChatExporter (JSON: guild, channel, "
               "messages; CSV: AuthorID,Author,Date,Content,...; or the HTML page), each "
               "message with its author and time, replies linked (JSON, HTML)",
    "messenger": "Facebook Messenger and Instagram exports (Download your information, JSON: "
                 "messages/inbox/<thread>/message_1.json): each message with its sender and "
                 "time, oldest first, text as written (Meta's mis-encoded UTF-8 repaired), "
                 "shared files and links named",
    "skype": "Skype's data export (messages.json: conversations, each a MessageList): each "
             "message with its sender and time, oldest first, files named, edits linked",
    "google-chat": "Google Chat from Google Takeout (Google Chat/Groups/<DM or Space>/"
                   "messages.json): each message with its creator and time, threads and edits "
                   "linked, attached files named",
    "open-webui": "Open WebUI chat exports (a JSON list of chats): the branch the user last "
                  "saw of each chat, every message with its role and time, the assistant's "
                  "model kept",
    "librechat": "LibreChat conversation exports (Export -> JSON: messages or messagesTree): "
                 "the branch written last, every message with its sender, time and model, "
                 "files named",
    "continue": "Continue sessions (~/.continue/sessions/<id>.json: a history of chat "
                "messages, tool calls and results, context files named), every message at "
                "the session's time from sessions.json beside it",
    "sillytavern": "SillyTavern chat files (JSONL: a header line, then name, is_user, "
                   "send_date, mes per message): every message with its speaker and time, "
                   "swipes not chosen counted",
    "imessage": "iMessage conversations as imessage-exporter writes them in text (a date "
                "line, the sender, the message): every message and reply with its sender and "
                "time, files named, tapbacks counted",
    "gemini": "Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-*.json: user and "
              "gemini messages, tool calls with their results) and Gemini API contents "
              "(role/parts lists such as /chat save checkpoints, JSON Lines of them, "
              "{\"contents\": [...]})",
    "aider": "aider's chat history (.aider.chat.history.md): each chat a session from its "
             "'# aider chat started at' line, #### user messages, replies, and aider's > "
             "output (edits applied as file operations, commits, errors)",
    "notes": "dated Markdown notes (meeting notes, a work journal): headings that are or hold "
             "with a date; each paragraph and list item a note on that day, under its headings",
}
"""Every format the parser understands, by the name ``format=`` accepts, with one line saying
what it reads (``atc ingest --list-formats`` prints them)."""

FORMATS: tuple[str, ...] = tuple(FORMAT_DESCRIPTIONS)

#: Why a file no format's check recognised is skipped (ingest/detect.py raises it; the CLI
#: ends a run that skipped such files with a pointer to ``atc ingest --list-formats``).
UNDETECTED = "cannot detect format"
"""Transcript formats the parser understands, by the name ``format=`` accepts."""
