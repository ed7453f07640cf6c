"""Gemini CLI sessions and Gemini API contents (qa64): before, a session recording was taken
for an OpenAI chat and refused ("no openai records could be parsed ... message has no
"role""), and a `/chat save` checkpoint was read as one with no item at all (its "parts" are
no "content", its "model" turns an unknown role) and no error."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "gemini_cli_session.json"


def _links(item, predicate):
    return [r[2] for r in item.relations if r[1] == predicate]


def test_a_session_recording_keeps_who_when_and_each_call_with_its_result():
    result = parse_path(FIXTURE)
    assert result.format == "gemini" == detect_format(FIXTURE)
    assert [(i.kind, i.role) for i in result.items] == [
        ("user_goal", "user"), ("turn", "assistant"), ("error", "tool"), ("file_op", "assistant"),
        ("conclusion", "assistant"), ("user_goal", "user"), ("conclusion", "assistant"),
        ("file_op", "assistant"), ("tool_result", "tool"), ("error", "system")]
    assert {i.session for i in result.items} == {"5f0c2a1e-8b7d-4c3e-9a61-2d4f7e8b9c10"}
    failed = result.items[2]
    # the shell call's output, labelled with its command, in place of the call's record
    assert failed.text.startswith("$ pytest tests/test_dates.py -q\nStdout: F\nFAILED")
    assert "(none)" not in failed.text and "(empty)" not in failed.text
    assert failed.time == "2025-10-14T09:12:12Z"        # the call's own time
    assert failed.pointer.endswith("gemini_cli_session.json#/messages/1/toolCalls/0")
    assert failed.goal == "Why does test_parse_dates fail on CI?"
    assert _links(result.items[3], "touches_file") == ["/home/dev/app/src/dates.py"]
    assert result.items[7].text == 'edit /home/dev/app/src/dates.py: "parse(s)" -> ' \
                                   '"parse(s, dayfirst=True)"'
    assert result.items[8].kind == "tool_result"       # Exit Code: 0, "Error: (none)"
    assert result.items[-1].text.startswith("[API Error: 429")
    assert result.ignored == {"thinking": 1, "file-op-output": 2, "info": 1}
    assert result.items[0].time == "2025-10-14T09:12:03Z"


def test_chat_save_checkpoint_pairs_calls_and_keeps_the_cli_context_out():
    contents = [
        {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the "
                                            "context for our chat.\nToday's date is Tuesday, "
                                            "October 14, 2025.\nI'm currently working in the "
                                            "directory: /home/dev/app"}]},
        {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
        {"role": "user", "parts": [{"text": "Why does test_parse_dates fail?"}]},
        {"role": "model", "parts": [
            {"text": "Planning the run", "thought": True},
            {"functionCall": {"name": "run_shell_command",
                              "args": {"command": "pytest tests/test_dates.py -q"}}},
            {"functionCall": {"id": "r1", "name": "read_file",
                              "args": {"absolute_path": "/home/dev/app/src/dates.py"}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "r1", "name": "read_file",
                                  "response": {"output": "def parse_dates(s): ..."}}},
            {"functionResponse": {"name": "run_shell_command",
                                  "response": {"output": "FAILED tests/test_dates.py\n"
                                                         "Exit Code: 1"}}}]},
        {"role": "model", "parts": [{"text": "It reads dates month first; dayfirst=True "
                                             "fixes it."}]},
        {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBO"}}]},
    ]
    text = json.dumps(contents, indent=2)
    assert detect_format(text) == "gemini"
    result = parse_text(text, name="checkpoint-dates.json")
    assert [(i.kind, i.text.split("\n")[0]) for i in result.items] == [
        ("user_goal", "Why does test_parse_dates fail?"),
        ("file_op", "read src/dates.py"),                  # relative to the CLI's directory
        ("error", "$ pytest tests/test_dates.py -q"),      # paired by name, out of order
        ("conclusion", "It reads dates month first; dayfirst=True fixes it."),
    ]
    assert result.items[2].text.endswith("Exit Code: 1")
    assert all(i.goal == "Why does test_parse_dates fail?" for i in result.items)
    assert result.ignored == {"environment-context": 2, "thinking": 1, "file-op-output": 1,
                              "inlineData part": 1}
    assert result.items[0].pointer == "checkpoint-dates.json#/2"


def test_a_request_body_with_a_system_instruction():
    body = {"systemInstruction": {"parts": [{"text": "Answer in French."}]},
            "contents": [{"role": "user", "parts": [{"text": "Summarise the release notes"}]},
                         {"role": "model", "parts": [{"text": "Les notes de version ..."}]}]}
    result = parse_text(json.dumps(body), name="request.json")
    assert result.format == "gemini"
    assert [(i.kind, i.role, i.pointer) for i in result.items] == [
        ("turn", "system", "request.json#/systemInstruction"),
        ("user_goal", "user", "request.json#/contents/0"),
        ("conclusion", "assistant", "request.json#/contents/1")]


def test_a_call_cut_off_and_a_slash_command():
    doc = {"sessionId": "s1", "projectHash": "p", "startTime": "2025-10-14T09:00:00Z",
           "messages": [
               {"id": "1", "timestamp": "2025-10-14T09:00:00Z", "type": "user",
                "content": [{"text": "/memory add we deploy on Thursdays"}]},
               {"id": "2", "timestamp": "2025-10-14T09:01:00Z", "type": "user",
                "content": "run the integration tests"},
               {"id": "3", "timestamp": "2025-10-14T09:01:05Z", "type": "gemini",
                "content": "", "toolCalls": [{"id": "c", "name": "run_shell_command",
                                              "args": {"command": "pytest tests/integration"},
                                              "status": "executing"}]}]}
    result = parse_text(json.dumps(doc), name="session-cut.json")
    assert [(i.kind, i.text) for i in result.items] == [
        ("turn", "/memory add we deploy on Thursdays"),
        ("user_goal", "run the integration tests"),
        ("tool_result", "$ pytest tests/integration\n(no result in the transcript)")]
    assert result.items[-1].goal == "run the integration tests"


def test_the_prompt_log_is_counted_not_kept_twice():
    log = [{"sessionId": "5f0c2a1e", "messageId": 0, "type": "user",
            "message": "Why does test_parse_dates fail on CI?",
            "timestamp": "2025-10-14T09:12:03.101Z"},
           {"sessionId": "5f0c2a1e", "messageId": 1, "type": "user", "message": "/quit",
            "timestamp": "2025-10-14T09:30:00.000Z"}]
    result = parse_text(json.dumps(log, indent=2), name="logs.json")
    assert (result.format, result.items, result.ignored) == ("gemini", [], {"prompt-log": 2})


def test_cli_ingest_is_an_upsert_and_a_grown_session_adds_only_its_new_turns(tmp_path):
    session = tmp_path / "session-2025-10-14T09-12-5f0c2a1e.json"
    document = json.loads(FIXTURE.read_text())
    session.write_text(json.dumps(document, indent=2))
    home = str(tmp_path / "home")

    def ingest():
        out = CliRunner().invoke(main, ["ingest", str(session), "--home", home,
                                        "--format-output", "json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    assert ingest()["new"] == 10
    again = ingest()
    assert again["new"] == 0
    document["messages"].append({"id": "u3", "timestamp": "2025-10-14T09:25:00Z", "type": "user",
                                 "content": "Now open a pull request"})
    document["lastUpdated"] = "2025-10-14T09:25:00Z"
    session.write_text(json.dumps(document, indent=2))   # the CLI rewrites the whole file
    grown = ingest()
    assert (grown["new"], grown["unchanged"]) == (1, 10)
    out = CliRunner().invoke(main, ["query", "item_kind(H, user_goal), item_time(H, T)",
                                    "--home", home, "--format", "json"])
    assert [row["T"] for row in json.loads(out.stdout)][-1] == "2025-10-14T09:25:00Z"


def test_streamed_text_parts_are_one_text_and_referenced_files_are_not_the_users_words():
    contents = [
        {"role": "user", "parts": [
            {"text": "explain @src/ledger.py"},
            {"text": "\n--- Content from referenced files ---"},
            {"text": "\nContent from @/home/dev/app/src/ledger.py:\n"},
            {"text": "def export(rows):\n    return [r['currency'] for r in rows]\n"},
            {"text": "\n--- End of content ---"}]},
        {"role": "model", "parts": [{"text": "export() reads each row's cur"},
                                    {"text": "rency key, which EU rows lack."}]}]
    result = parse_text(json.dumps(contents), name="checkpoint-ledger.json")
    assert [(i.kind, i.text) for i in result.items] == [
        ("user_goal", "explain @src/ledger.py"),
        ("conclusion", "export() reads each row's currency key, which EU rows lack.")]
    assert result.ignored == {"referenced-files": 1}


def test_a_result_written_as_one_part_or_as_text_is_the_calls_output():
    doc = json.loads(FIXTURE.read_text())
    calls = doc["messages"][1]["toolCalls"]
    calls[0]["result"] = calls[0]["result"][0]            # one part, not a list
    calls[1]["name"], calls[1]["args"] = "glob", {"pattern": "**/*.py"}
    calls[1]["result"] = "src/dates.py\nsrc/app.py"       # text
    items = parse_text(json.dumps(doc), name="session-one-part.json").items
    assert items[2].text.startswith("$ pytest tests/test_dates.py -q\nStdout: F\nFAILED")
    assert items[3].text == "glob **/*.py\nsrc/dates.py\nsrc/app.py"


def test_contents_logged_a_line_each_and_the_older_function_role():
    # before: detected as an OpenAI chat, every user turn "empty", every model turn refused
    contents = [
        {"role": "user", "parts": [{"text": "fix the build"}], "timestamp": "2025-10-14T09:00:00Z"},
        {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command",
                                                      "args": {"command": "make"}}}]},
        {"role": "function", "parts": [{"functionResponse": {
            "name": "run_shell_command", "response": {"output": "Stdout: ok\nExit Code: 2"}}}]},
        {"role": "model", "parts": [{"text": "The build fails in the linker step."}]}]
    lines = "".join(json.dumps(c) + "\n" for c in contents)
    assert detect_format(lines) == detect_format(json.dumps(contents)) == "gemini"
    for text, name, pointers in ((lines, "turns.jsonl", ["turns.jsonl:1", "turns.jsonl:3",
                                                         "turns.jsonl:4"]),
                                 (json.dumps(contents), "turns.json", ["turns.json#/0",
                                                                       "turns.json#/2",
                                                                       "turns.json#/3"])):
        result = parse_text(text, name=name)
        assert [(i.kind, i.pointer) for i in result.items] == list(zip(
            ["user_goal", "error", "conclusion"], pointers))
        assert result.items[0].time == "2025-10-14T09:00:00Z"
        assert result.items[1].text == "$ make\nStdout: ok\nExit Code: 2"


def test_a_role_or_type_that_is_no_name_is_no_gemini_content():
    # found by the damaged-document property test: a list as a role raised TypeError
    for document in ([{"role": [], "parts": []}], {"messages": [{"type": [], "content": "x"}]}):
        assert detect_format(json.dumps(document)) == "openai"


def test_a_message_without_its_timestamp_takes_the_time_of_the_one_before():
    """It took the session's start, sorting a reply before the question it answers; a
    timestamp that cannot be read still leaves its message without a time, reported."""
    session = {"sessionId": "s1", "startTime": "2025-07-01T10:00:00.000Z", "messages": [
        {"id": "m1", "type": "user", "timestamp": "2025-07-01T10:05:00.000Z",
         "content": "Why does the nightly export time out?"},
        {"id": "m2", "type": "gemini", "content": "It loads every row at once; stream them."},
        {"id": "m3", "type": "user", "timestamp": "soon", "content": "How do I stream rows?"},
        {"id": "m4", "type": "gemini", "content": "Use a server-side cursor in batches."}]}
    result = parse_text(json.dumps(session), name="session-2025-07-01T10-00-s1.json")
    assert [i.time for i in result.items] == ["2025-07-01T10:05:00Z", "2025-07-01T10:05:00Z",
                                              "", "2025-07-01T10:05:00Z"]
    assert result.unread_times == [(3, "soon")]


_CONTEXT = [
    {"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context "
                                        "for our chat.\nI'm currently working in the directory: "
                                        "/home/p/kiln"}]},
    {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]}]
_TURNS = [
    {"role": "user", "parts": [{"text": "Why does the kiln log parser crash on empty lines?"}]},
    {"role": "model", "parts": [{"text": "It splits on commas before checking the line is "
                                         "empty; guard it with if not line.strip()."}]}]


def _project(tmp_path, checkpoint):
    """A Gemini CLI project folder as the CLI leaves it: the session recording under
    ``chats/`` and what ``/chat save kiln`` wrote beside it."""
    project = tmp_path / "3f9a" / "chats"
    project.mkdir(parents=True)
    (project / "session-2023-05-08T13-56-s1.json").write_text(json.dumps({
        "sessionId": "s-1", "projectHash": "3f9a", "startTime": "2023-05-08T13:56:00.000Z",
        "messages": [
            {"id": "1", "timestamp": "2023-05-08T13:56:00.000Z", "type": "user",
             "content": _TURNS[0]["parts"][0]["text"]},
            {"id": "2", "timestamp": "2023-05-08T13:57:00.000Z", "type": "gemini",
             "content": _TURNS[1]["parts"][0]["text"]}]}))
    path = project.parent / "checkpoint-kiln.json"
    path.write_text(json.dumps(checkpoint))
    return path


def test_a_checkpoint_as_chat_save_writes_it_now_is_read(tmp_path):
    """``/chat save`` writes ``{"history": [...], "authType": ...}``: before, "cannot detect
    format"."""
    path = tmp_path / "checkpoint-kiln.json"
    path.write_text(json.dumps({"history": _CONTEXT + _TURNS, "authType": "oauth-personal"}))
    result = parse_path(path)
    assert result.format == "gemini" == detect_format(path)
    assert [(i.role, i.kind) for i in result.items] == [("user", "user_goal"),
                                                        ("assistant", "conclusion")]
    assert result.items[0].pointer.endswith("checkpoint-kiln.json#/history/2")


@pytest.mark.parametrize("saved", [_CONTEXT + _TURNS, {"history": _CONTEXT + _TURNS}])
def test_a_checkpoint_beside_the_session_it_came_from_is_not_read_twice(tmp_path, saved):
    """Before, ingesting a Gemini CLI project folder kept each turn twice: once from the
    session recording, with its time, and again from the checkpoint, without one."""
    path = _project(tmp_path, saved)
    result = parse_path(path)
    assert result.items == []
    assert result.ignored == {"checkpoint (its session recording is read)": 1}
    assert any("session-2023-05-08T13-56-s1.json" in note for note in result.notes)
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(tmp_path / "3f9a")])
        rows = mem.query("item_time(H, T)").rows
    assert report.new == 2 and sorted(r["T"] for r in rows) == [
        "2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z"]
    # a checkpoint whose turns the recordings beside it do not hold is read
    other = [{"role": "user", "parts": [{"text": "And the glaze log?"}]},
             {"role": "model", "parts": [{"text": "It has the same bug."}]}]
    path.write_text(json.dumps(_CONTEXT + _TURNS + other))
    assert len(parse_path(path).items) == 4


def _shared_markdown(history):
    """What ``/chat share FILE.md`` writes: each content a ``## ROLE icon`` section, its text
    parts and its calls and responses as JSON blocks, sections apart by ``---``."""
    sections = []
    for content in history:
        pieces = []
        for part in content["parts"]:
            if "text" in part:
                pieces.append(part["text"])
            for key, label in (("functionCall", "Command"), ("functionResponse", "Response")):
                if key in part:
                    pieces.append(f"**Tool {label}**:\n```json\n"
                                  f"{json.dumps(part[key], indent=2)}\n```")
        icon = "\U0001f9d1\u200d\U0001f4bb" if content["role"] == "user" else "\u2728"
        sections.append(f"## {content['role'].upper()} {icon}\n\n{''.join(pieces)}")
    return "\n\n---\n\n".join(sections)


def test_a_conversation_shared_as_markdown_is_read(tmp_path):
    """``/chat share notes.md`` writes the history as Markdown: before, "cannot detect
    format". Each section is a turn with its role, the CLI's opening context counted, a call
    paired with its response."""
    call = {"role": "model", "parts": [{"functionCall": {
        "id": "c1", "name": "run_shell_command",
        "args": {"command": "pytest -q tests/test_log.py"}}}]}
    answer = {"role": "user", "parts": [{"functionResponse": {
        "id": "c1", "name": "run_shell_command",
        "response": {"output": "Command: pytest -q tests/test_log.py\nStdout: 1 failed\n"
                               "Exit Code: 1"}}}]}
    path = tmp_path / "gemini-conversation-1683554160000.md"
    path.write_text(_shared_markdown(_CONTEXT + _TURNS + [call, answer]), encoding="utf-8")
    result = parse_path(path)
    assert result.format == "gemini" == detect_format(path)
    assert [(i.role, i.kind) for i in result.items] == [
        ("user", "user_goal"), ("assistant", "conclusion"), ("tool", "error")]
    goal, reply, failed = result.items
    assert goal.text == _TURNS[0]["parts"][0]["text"]
    assert "pytest -q tests/test_log.py" in failed.text and "1 failed" in failed.text
    assert result.ignored.get("environment-context") == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    first, last = (int(n) for n in goal.pointer.rsplit(":", 1)[1].split("-"))
    assert lines[first - 1].startswith("## USER") and lines[last - 1] == goal.text
