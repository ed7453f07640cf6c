"""A prompt that only urges the agent on ("continue with the remaining steps") keeps the user's
goal in the OpenAI-chat family of readers too, once the session's assistant has called a tool:
an agent at work, as in Claude Code's, Aider's, Gemini CLI's and OpenHands' transcripts. Before,
every such prompt in an OpenAI, Anthropic, Responses/Codex, LangChain, Continue, Claude.ai,
ChatGPT or ShareGPT log was a new goal, the goal of every later item (the test run, the fix).

Where no tool was called the session is a chat, and a short "more" there is conversation, as
the benchmark readers keep it: it stays a goal. So does a real short question ("why does signup
fail?") in an agent's session, and a user named as a person (a chat between people)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_text

GOAL = "fix the login bug in auth.py"
COMMAND = "pytest tests/test_auth.py"
OUTPUT = "FAILED tests/test_auth.py::test_login - AssertionError: token rejected"
NUDGE = "continue with the remaining steps"
FIXED = "The token check was inverted; it passes now."
QUESTION = "why does signup fail?"


def _openai(tools: bool) -> list[dict]:
    messages = [{"role": "user", "content": GOAL}]
    if tools:
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {
                    "name": "bash", "arguments": json.dumps({"command": COMMAND})}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": OUTPUT}]
    else:
        messages.append({"role": "assistant", "content": "Which test fails?"})
    return messages + [{"role": "user", "content": NUDGE},
                       {"role": "assistant", "content": FIXED},
                       {"role": "user", "content": QUESTION}]


def _anthropic(tools: bool) -> str:
    """The Messages API: the user's text in blocks, the call a ``tool_use`` block."""
    def said(role, text):
        return {"role": role, "content": [{"type": "text", "text": text}]}

    messages = [said("user", GOAL)]
    if tools:
        messages += [
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": COMMAND}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": OUTPUT}]}]
    else:
        messages.append(said("assistant", "Which test fails?"))
    return json.dumps(messages + [said("user", NUDGE), said("assistant", FIXED),
                                  said("user", QUESTION)])


def _codex(tools: bool) -> str:
    """A Codex CLI rollout: ``response_item`` lines."""
    def item(payload, n):
        return json.dumps({"timestamp": f"2026-04-18T10:02:{n:02d}.000Z",
                           "type": "response_item", "payload": payload})

    def said(role, text):
        part = "input_text" if role == "user" else "output_text"
        return {"type": "message", "role": role, "content": [{"type": part, "text": text}]}

    payloads = [said("user", GOAL)]
    if tools:
        payloads += [
            {"type": "function_call", "name": "shell", "call_id": "call_1",
             "arguments": json.dumps({"command": ["bash", "-lc", COMMAND]})},
            {"type": "function_call_output", "call_id": "call_1",
             "output": json.dumps({"output": OUTPUT, "metadata": {"exit_code": 1}})}]
    else:
        payloads.append(said("assistant", "Which test fails?"))
    payloads += [said("user", NUDGE), said("assistant", FIXED), said("user", QUESTION)]
    meta = json.dumps({"timestamp": "2026-04-18T10:02:00.000Z", "type": "session_meta",
                       "payload": {"id": "0196a1f2", "cwd": "/home/mira/app"}})
    return "\n".join([meta] + [item(p, n + 1) for n, p in enumerate(payloads)]) + "\n"


def _langchain(tools: bool) -> str:
    """``messages_to_dict``: human, ai (its ``tool_calls``), tool."""
    def said(kind, text):
        return {"type": kind, "data": {"content": text}}

    messages = [said("human", GOAL)]
    if tools:
        messages += [
            {"type": "ai", "data": {"content": "", "tool_calls": [
                {"name": "bash", "args": {"command": COMMAND}, "id": "call_1"}]}},
            {"type": "tool", "data": {"content": OUTPUT, "tool_call_id": "call_1"}}]
    else:
        messages.append(said("ai", "Which test fails?"))
    return json.dumps(messages + [said("human", NUDGE), said("ai", FIXED),
                                  said("human", QUESTION)])


def _continue(tools: bool) -> str:
    """A Continue session: each history item's ``message``, calls as ``toolCalls``."""
    history = []
    for message in _openai(tools):
        if "tool_calls" in message:
            message = {"role": "assistant", "content": "", "toolCalls": message["tool_calls"]}
        elif message["role"] == "tool":
            message = {"role": "tool", "content": OUTPUT, "toolCallId": "call_1"}
        history.append({"message": message, "contextItems": []})
    return json.dumps({"sessionId": "5f1c9e2a", "title": "Login", "workspaceDirectory": "",
                       "history": history})


def _claude_ai(tools: bool) -> str:
    """The Claude.ai export: the calls carry no ids, their results only the tool's name."""
    def said(sender, n, *blocks):
        return {"uuid": f"m{n}", "sender": sender, "created_at": f"2024-06-01T10:00:0{n}Z",
                "text": "", "content": list(blocks)}

    def text(value):
        return {"type": "text", "text": value}

    middle = said("assistant", 1, text("Which test fails?"))
    if tools:
        middle = said("assistant", 1, {"type": "tool_use", "name": "web_search",
                                       "input": {"query": "inverted token check"}},
                      {"type": "tool_result", "name": "web_search", "is_error": False,
                       "content": [{"type": "text", "text": OUTPUT}]})
    return json.dumps([{"uuid": "c1", "name": "Login bug", "created_at": "2024-06-01T10:00:00Z",
                        "chat_messages": [said("human", 0, text(GOAL)), middle,
                                          said("human", 2, text(NUDGE)),
                                          said("assistant", 3, text(FIXED)),
                                          said("human", 4, text(QUESTION))]}])


def _chatgpt(tools: bool) -> str:
    """The ChatGPT export: a call is an assistant message to a ``recipient``."""
    def node(n, role, text, **more):
        content_type = more.pop("content_type", "text")
        author = {"role": role, **({"name": more.pop("name")} if "name" in more else {})}
        return {"id": f"n{n}", "parent": f"n{n - 1}" if n else None, "children": [],
                "message": {"id": f"n{n}", "author": author, "create_time": 1717236000 + n,
                            "content": {"content_type": content_type, "parts": [text],
                                        "text": text}, **more}}

    nodes = [node(0, "user", GOAL)]
    if tools:
        nodes += [node(1, "assistant", COMMAND, content_type="code", recipient="python"),
                  node(2, "tool", OUTPUT, content_type="execution_output", name="python")]
    else:
        nodes.append(node(1, "assistant", "Which test fails?"))
    for role, text in (("user", NUDGE), ("assistant", FIXED), ("user", QUESTION)):
        nodes.append(node(len(nodes), role, text))
    return json.dumps([{"id": "conv-1", "title": "Login bug", "create_time": 1717236000,
                        "current_node": nodes[-1]["id"],
                        "mapping": {n["id"]: n for n in nodes}}])


def _sharegpt(tools: bool) -> str:
    """ShareGPT: ``function_call`` and ``observation`` turns."""
    turns = [{"from": "human", "value": GOAL}]
    if tools:
        turns += [{"from": "function_call",
                   "value": json.dumps({"name": "bash", "arguments": {"command": COMMAND}})},
                  {"from": "observation", "value": OUTPUT}]
    else:
        turns.append({"from": "gpt", "value": "Which test fails?"})
    turns += [{"from": "human", "value": NUDGE}, {"from": "gpt", "value": FIXED},
              {"from": "human", "value": QUESTION}]
    return json.dumps([{"id": "r1", "conversations": turns}])


READERS = {
    "openai": (lambda tools: json.dumps({"messages": _openai(tools)}), "chat.json"),
    "anthropic": (_anthropic, "messages.json"),
    "codex": (_codex, "rollout-2026-04-18T10-02-00-0196a1f2.jsonl"),
    "langchain": (_langchain, "messages.json"),
    "continue": (_continue, "5f1c9e2a.json"),
    "claude-ai": (_claude_ai, "conversations.json"),
    "chatgpt": (_chatgpt, "conversations.json"),
    "sharegpt": (_sharegpt, "records.json"),
}


def _users(fmt: str, tools: bool) -> list[tuple[str, str, str]]:
    build, name = READERS[fmt]
    result = parse_text(build(tools), name=name, format=fmt)
    return [(i.kind, i.text, i.goal) for i in result.items if i.role == "user"]


@pytest.mark.parametrize("fmt", READERS)
def test_in_an_agents_session_a_nudge_keeps_the_goal_and_a_real_question_is_a_goal(fmt):
    # before: ("user_goal", NUDGE, NUDGE): the fix that followed was filed under "continue ..."
    assert _users(fmt, tools=True) == [("user_goal", GOAL, GOAL), ("turn", NUDGE, GOAL),
                                       ("user_goal", QUESTION, QUESTION)]


@pytest.mark.parametrize("fmt", READERS)
def test_in_a_chat_without_tools_a_short_request_stays_a_goal(fmt):
    assert _users(fmt, tools=False) == [("user_goal", GOAL, GOAL), ("user_goal", NUDGE, NUDGE),
                                        ("user_goal", QUESTION, QUESTION)]


def test_the_fix_after_the_nudge_is_filed_under_the_goal():
    result = parse_text(json.dumps({"messages": _openai(True)}), name="chat.json",
                        format="openai")
    (fixed,) = [i for i in result.items if i.text == FIXED]
    assert fixed.goal == GOAL


def test_a_user_named_as_a_person_is_a_chat_between_people():
    """A ShareGPT turn ``from`` a person, or an OpenAI message with a ``name``: conversation,
    not a task, whether or not a tool was called."""
    records = json.loads(_sharegpt(True))
    for turn in records[0]["conversations"]:
        if turn["from"] == "human":
            turn["name"] = "Priya"
    result = parse_text(json.dumps(records), name="records.json", format="sharegpt")
    assert [(i.kind, i.goal) for i in result.items if i.text == NUDGE] == [("user_goal", NUDGE)]
    messages = [{**m, "name": "Priya"} if m["role"] == "user" else m for m in _openai(True)]
    result = parse_text(json.dumps({"messages": messages}), name="chat.json", format="openai")
    assert [(i.kind, i.goal) for i in result.items if i.text == NUDGE] == [("user_goal", NUDGE)]


def test_one_conversation_calling_a_tool_leaves_the_next_a_chat():
    """JSON Lines of conversations (fine-tuning data): each its own session, so a tool called
    in one does not make the next an agent's."""
    lines = [json.dumps({"messages": _openai(True)}), json.dumps({"messages": _openai(False)})]
    result = parse_text("\n".join(lines) + "\n", name="chats.jsonl", format="openai")
    nudges = [(i.session.rsplit("#", 1)[-1], i.kind) for i in result.items if i.text == NUDGE]
    assert nudges == [("1", "turn"), ("2", "user_goal")]


@pytest.mark.parametrize("fmt", READERS)
def test_ingesting_it_again_is_an_upsert(fmt, tmp_path: Path, home: Path):
    build, name = READERS[fmt]
    path = tmp_path / name
    path.write_text(build(True), encoding="utf-8")
    rows = "item_kind(H, K), item_goal(H, G)"
    with Memory.open(home) as mem:
        first = mem.ingest([str(path)], format=fmt)
        before = sorted((r["H"], r["K"], r["G"]) for r in mem.query(rows).rows)
        path.write_bytes(path.read_bytes() + b"\n")  # read again, not skipped as unchanged
        again = mem.ingest([str(path)], format=fmt)
        after = sorted((r["H"], r["K"], r["G"]) for r in mem.query(rows).rows)
    assert first.new == len(before) and again.new == 0 and after == before
    assert ("turn", GOAL) in {(k, g) for _, k, g in after}
