"""Claude.ai data exports (``conversations.json``): every message with its role and its time,
each conversation a session with its title (issue 14: no item loses its time or speaker)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "claude_ai_conversations.json"
GLAZE = "0b9e7c1e-5d41-4f7a-9a3e-6f1c2d3e4a50"
PLAN = "6c2d1b7a-8e9f-4a0b-b1c2-d3e4f5a6b7c8"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(EXPORT)


def test_the_export_is_detected_and_every_message_keeps_its_role_and_time(parsed):
    """Before, Claude.ai's own export was "cannot detect format": nothing of it was kept."""
    assert parsed.format == "claude-ai" == detect_format(EXPORT)
    assert [(i.session, i.role, i.speaker, i.time, i.kind) for i in parsed.items] == [
        (GLAZE, "user", "", "2024-05-08T13:56:01Z", "user_goal"),
        (GLAZE, "tool", "", "2024-05-08T13:56:12Z", "tool_result"),      # the web search
        (GLAZE, "assistant", "", "2024-05-08T13:56:12Z", "conclusion"),
        (GLAZE, "user", "", "2024-05-08T14:01:30Z", "user_goal"),        # a file alone
        (PLAN, "user", "", "2024-03-02T09:00:10Z", "user_goal"),          # text, no blocks
        (PLAN, "assistant", "", "2024-03-02T09:00:31Z", "conclusion"),
    ]
    assert parsed.unread_times == [] and parsed.skipped == []
    assert parsed.ignored == {"thinking": 1}


def test_attached_files_are_named_and_the_title_kept(parsed):
    first, search, _, shared, _, _ = parsed.items
    assert first.text.endswith("\n[attached: glaze-recipe.txt, bowl.jpg]")
    assert shared.text == "[attached: kiln-shelf.png]"
    assert "Why glazes run" in search.text
    assert all((i.handle, "title", "Glazing a first bowl") in i.relations
               for i in parsed.items if i.session == GLAZE)
    assert first.pointer.endswith("claude_ai_conversations.json#/0/chat_messages/0")
    assert parsed.items[2].pointer.endswith("#/0/chat_messages/1/content/3")
    # "yesterday" is read against the message's own time
    assert [o for _, p, o in first.relations if p == "mentions_date"] == ["2024-05-07"]
    assert [o for _, p, o in parsed.items[4].relations if p == "mentions_date"] == ["2024-02-24"]


@pytest.mark.parametrize("written, iso", [
    ("2024-05-08T13:56:01.517228Z", "2024-05-08T13:56:01Z"),
    ("2024-05-08T15:56:01.517228+02:00", "2024-05-08T13:56:01Z"),
    (None, "2024-05-08T13:55:58Z"),                      # none: the conversation's
])
def test_each_created_at_form(written, iso):
    conversation = json.loads(EXPORT.read_text())[0]
    conversation["chat_messages"] = conversation["chat_messages"][:1]
    conversation["chat_messages"][0]["created_at"] = written
    (item,) = parse_text(json.dumps([conversation]), name="conversations.json").items
    assert item.time == iso


def test_an_unreadable_created_at_is_reported_and_the_message_kept():
    conversation = json.loads(EXPORT.read_text())[1]
    conversation["chat_messages"][1]["created_at"] = "sometime in March"
    result = parse_text(json.dumps([conversation]), name="conversations.json")
    assert [i.time for i in result.items] == ["2024-03-02T09:00:10Z", ""]
    assert result.unread_times == [(2, "sometime in March")]


def test_ingesting_the_export_again_adds_nothing(tmp_path):
    with Memory.open(tmp_path / "home") as mem:
        first = mem.ingest([str(EXPORT)])
        again = mem.ingest([str(EXPORT)], )
        rows = mem.query(f"item_session(H, '{PLAN}'), item_speaker(H, S), item_time(H, T)").rows
    assert first.new == 6 and again.new == 0
    assert sorted((r["S"], r["T"]) for r in rows) == [
        ("assistant", "2024-03-02T09:00:31Z"), ("user", "2024-03-02T09:00:10Z")]


def test_a_message_whose_blocks_are_empty_is_read_from_its_text():
    conversation = json.loads(EXPORT.read_text())[1]
    conversation["chat_messages"][0]["content"] = [{"type": "text", "text": ""}]
    result = parse_text(json.dumps([conversation]), name="conversations.json")
    assert result.items[0].text.startswith("I signed up for the October half marathon")


def _assistant_blocks(*blocks):
    """One conversation of a user's question and an assistant message of these blocks, as
    Claude.ai exports them: its tool calls carry no ``id`` and its results no
    ``tool_use_id``, only the tool's ``name``."""
    return json.dumps([{
        "uuid": "c-art", "name": "Splitting a bill", "created_at": "2024-06-01T10:00:00Z",
        "chat_messages": [
            {"uuid": "m1", "sender": "human", "created_at": "2024-06-01T10:00:05Z",
             "text": "Write a script that splits a bill",
             "content": [{"type": "text", "text": "Write a script that splits a bill"}]},
            {"uuid": "m2", "sender": "assistant", "created_at": "2024-06-01T10:00:20Z",
             "text": "", "content": list(blocks)}]}])


def _artifact(command, **fields):
    return {"type": "tool_use", "name": "artifacts", "start_timestamp": None,
            "input": {"id": "bill-splitter", "command": command, "version_uuid": "v", **fields},
            "message": "artifacts", "integration_name": None, "display_content": None}


_OK = {"type": "tool_result", "name": "artifacts", "is_error": False,
       "content": [{"type": "text", "text": "OK", "uuid": "r"}]}


def test_an_artifact_is_kept_with_its_content_not_as_a_call_without_result():
    """Before, each artifact Claude wrote was the item "artifacts bill-splitter / (no result
    in the transcript)": the code or document itself, in the call's input, was lost."""
    code = "def split(total, people):\n    return round(total / people, 2)\n"
    result = parse_text(_assistant_blocks(
        {"type": "text", "text": "Here is a script."},
        _artifact("create", type="application/vnd.ant.code", title="Bill splitter",
                  language="python", content=code), _OK,
        _artifact("update", old_str="round(total / people, 2)",
                  new_str="round(total / people + 0.005, 2)"), _OK,
        {"type": "text", "text": "It now rounds half a cent up."}), name="conversations.json")
    texts = [i.text for i in result.items if i.role == "assistant"]
    assert all("no result in the transcript" not in i.text for i in result.items)
    assert any("Bill splitter" in t and code.strip() in t for t in texts)
    assert any("round(total / people + 0.005, 2)" in t and "round(total / people, 2)" in t
               for t in texts)
    assert all(i.time == "2024-06-01T10:00:20Z" for i in result.items[1:])


def test_a_tool_result_without_ids_answers_the_call_of_its_name_before_it():
    """Claude.ai writes no ids: a web search's results were kept unlabelled and the search
    itself as a call without its result."""
    result = parse_text(_assistant_blocks(
        {"type": "tool_use", "name": "web_search", "input": {"query": "tip etiquette Lisbon"}},
        {"type": "tool_result", "name": "web_search", "is_error": False, "content": [
            {"type": "knowledge", "title": "Tipping in Portugal", "url": "https://ex.pt/tips",
             "text": "Tipping 5 to 10 percent is usual in Lisbon restaurants."}]},
        {"type": "text", "text": "In Lisbon a 5 to 10 percent tip is usual."}),
        name="conversations.json")
    (search,) = [i for i in result.items if i.role == "tool"]
    assert "no result in the transcript" not in search.text
    assert "tip etiquette Lisbon" in search.text and "Tipping in Portugal" in search.text


PROJECTS = [
    {"uuid": "p-pottery", "name": "Pottery studio", "description": "Planning glaze firings",
     "is_private": True, "is_starter_project": False,
     "prompt_template": "You help me plan glaze firings. I fire at cone 6.",
     "created_at": "2024-04-01T09:00:00.000000+00:00",
     "updated_at": "2024-05-01T09:30:00.000000+00:00",
     "creator": {"uuid": "u1", "full_name": "Priya Nair"},
     "docs": [{"uuid": "d1", "filename": "kiln-schedule.md",
               "content": "Bisque on Mondays, glaze on Thursdays.",
               "created_at": "2024-04-02T10:00:00.000000+00:00"}]},
    {"uuid": "p-starter", "name": "How to use Claude", "description": "An example project",
     "is_private": False, "is_starter_project": True, "prompt_template": "",
     "created_at": "2024-03-01T09:00:00+00:00", "updated_at": "2024-03-01T09:00:00+00:00",
     "docs": [{"uuid": "d2", "filename": "prompting.md", "content": "Anthropic's example",
               "created_at": "2024-03-01T09:00:00+00:00"}]}]


def test_a_projects_file_keeps_its_instructions_and_documents_with_who_and_when(tmp_path):
    """Before, ``projects.json`` was "cannot detect format": a project's instructions and the
    documents the user gave it, their memory too, were skipped."""
    path = tmp_path / "projects.json"
    path.write_text(json.dumps(PROJECTS))
    result = parse_path(path)
    assert result.format == "claude-ai" == detect_format(path)
    assert [(i.session, i.kind, i.role, i.speaker, i.time) for i in result.items] == [
        ("p-pottery", "note", "user", "Priya Nair", "2024-05-01T09:30:00Z"),
        ("p-pottery", "note", "user", "Priya Nair", "2024-04-02T10:00:00Z")]
    template, doc = result.items
    assert "I fire at cone 6." in template.text and "Planning glaze firings" in template.text
    assert doc.text.startswith("[document: kiln-schedule.md]\n")
    assert "glaze on Thursdays" in doc.text
    assert all((i.handle, "title", "Pottery studio") in i.relations for i in result.items)
    assert doc.pointer.endswith("projects.json#/0/docs/0")
    assert result.ignored == {"starter project": 1}     # Anthropic's example, counted


def test_a_claude_ai_users_file_is_counted_as_the_export_s_not_slack_s(tmp_path):
    """Before, the export's ``users.json`` was counted as ``slack users.json``."""
    path = tmp_path / "users.json"
    path.write_text(json.dumps([{"uuid": "u1", "full_name": "Priya Nair",
                                 "email_address": "priya@example.com",
                                 "verified_phone_number": None}]))
    result = parse_path(path)
    assert result.format == "claude-ai" and result.items == []
    assert result.ignored == {"claude-ai users.json": 1}


def test_a_voice_note_is_what_the_user_said():
    """A message dictated in the Claude app holds a ``voice_note`` block (its ``title`` and
    the words, ``text``). Before, it was counted as a "voice_note block" and the words lost."""
    export = json.dumps([{
        "uuid": "c-voice", "name": "Kiln", "created_at": "2024-06-01T10:00:00Z",
        "chat_messages": [{"uuid": "m1", "sender": "human", "created_at": "2024-06-01T10:00:05Z",
                           "text": "", "content": [{"type": "voice_note", "title": "Voice note",
                                                    "text": "How long should the kiln cool "
                                                            "before I open it?"}]}]}])
    (item,) = parse_text(export, name="conversations.json").items
    assert (item.role, item.kind, item.time) == ("user", "user_goal", "2024-06-01T10:00:05Z")
    assert item.text == "How long should the kiln cool before I open it?"


def test_the_account_holder_is_named_by_the_exports_users_file(tmp_path):
    """The export's ``users.json`` names the account whose conversations these are. Before,
    the human side of every conversation was only "user"; now it is that person's name, so a
    question about "Priya" finds what she asked (Claude's side stays the assistant)."""
    conversations = json.loads(EXPORT.read_text())
    for conversation in conversations:
        conversation["account"] = {"uuid": "u-priya"}
    (tmp_path / "conversations.json").write_text(json.dumps(conversations))
    (tmp_path / "users.json").write_text(json.dumps([
        {"uuid": "u-priya", "full_name": "Priya Nair", "email_address": "priya@example.com"}]))
    result = parse_path(tmp_path / "conversations.json")
    assert {(i.role, i.speaker) for i in result.items} == {
        ("user", "Priya Nair"), ("assistant", ""), ("tool", "")}
    # without the users file, or for another account, the role stays the speaker
    (tmp_path / "users.json").write_text(json.dumps([{"uuid": "u-other", "full_name": "Sam"}]))
    assert {i.speaker for i in parse_path(tmp_path / "conversations.json").items} == {""}


def test_a_users_file_added_later_names_the_account_holder_in_conversations_read_before(
        tmp_path, home):
    """Before, the export's ``users.json`` copied in after ``conversations.json`` was read
    changed nothing: the conversations file, unchanged, was skipped, and its messages stayed
    said by "user". What a file gives depends on the users file beside it, so a new or
    changed one reads the conversations again."""
    conversations = json.loads(EXPORT.read_text())
    for conversation in conversations:
        conversation["account"] = {"uuid": "u-priya"}
    export = tmp_path / "export"
    export.mkdir()
    (export / "conversations.json").write_text(json.dumps(conversations))
    query = "item_role(H, user), item_speaker(H, S)"
    with Memory.open(home) as mem:
        mem.ingest([str(export / "conversations.json")])
        assert {r["S"] for r in mem.query(query).rows} == {"user"}
        (export / "users.json").write_text(json.dumps([
            {"uuid": "u-priya", "full_name": "Priya Nair", "email_address": "p@example.com"}]))
        mem.ingest([str(export / "conversations.json")])
        assert {r["S"] for r in mem.query(query).rows} == {"Priya Nair"}
        again = mem.ingest([str(export)])         # nothing new since: skipped unparsed
        assert again.new == 0 and again.updated == 0
