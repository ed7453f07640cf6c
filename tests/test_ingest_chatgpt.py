"""ChatGPT data exports (conversations.json): the active branch of each mapping tree, times
from create_time, titles, tools as results, hidden and system messages counted (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.errors import InputError
from attention_cloud.ingest import detect_format, parse_path, parse_text
from attention_cloud.ingest.chatgpt_export import active_branch

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "chatgpt_conversations.json"


@pytest.fixture(scope="module")
def result():
    return parse_path(EXPORT)


def test_detected_and_every_conversation_is_a_session(result):
    assert detect_format(EXPORT) == "chatgpt" and result.format == "chatgpt"
    assert [i.session for i in result.items].count("6a1e0c1d-kiln") == 5
    assert {i.session for i in result.items} == {"6a1e0c1d-kiln", "7b2f-crawl"}
    assert result.skipped == [] and result.unread_times == []


def test_only_the_active_branch_is_read(result):
    texts = " ".join(i.text for i in result.items)
    assert "Hold at peak for 10 to 15 minutes" in texts       # the regenerated answer kept
    assert "two hours at peak" not in texts                   # the discarded one is not
    assert "cone 10 reduction" not in texts                   # nor the edited-away question
    assert result.ignored["other-branch"] == 3


def test_kinds_roles_speakers_and_times(result):
    kiln = [(i.kind, i.role, i.speaker, i.time) for i in result.items if i.session == "6a1e0c1d-kiln"]
    assert kiln == [
        ("user_goal", "user", "", "2023-05-08T13:56:00Z"),     # create_time 1683554160.25
        ("conclusion", "assistant", "", "2023-05-08T13:56:15Z"),
        ("user_goal", "user", "", "2023-05-08T14:00:00Z"),
        ("tool_result", "tool", "python", "2023-05-08T14:00:02Z"),
        ("conclusion", "assistant", "", "2023-05-08T14:00:04Z"),
    ]                                                         # "thanks!" is an acknowledgement
    crawl = [i for i in result.items if i.session == "7b2f-crawl"]
    assert crawl[0].time == "2023-05-09T14:00:00Z"            # no create_time: the conversation's
    assert crawl[0].text == "Why does my glaze crawl away from the rim like in this photo?"


def test_tool_calls_label_their_output_and_failures_are_errors(result):
    (python,) = [i for i in result.items if i.role == "tool" and i.session == "6a1e0c1d-kiln"]
    assert python.text == "python print(1222 - 1000)\n222"
    (browser,) = [i for i in result.items if i.role == "tool" and i.session == "7b2f-crawl"]
    assert browser.kind == "error" and "timed out" in browser.text
    assert ("tool", "browser") in [r[1:] for r in browser.relations]
    assert result.ignored["tool-call"] == 2 and result.ignored["thinking"] == 1
    assert result.ignored["hidden"] == 1


def test_titles_and_json_pointers(result):
    first = result.items[0]
    assert (first.handle, "title", "Kiln firing schedule") in first.relations
    assert first.pointer == f"{EXPORT.resolve()}#/0/mapping/n2"
    document = json.loads(EXPORT.read_text())
    assert document[0]["mapping"]["n2"]["message"]["content"]["parts"] == [first.text]
    assert all(i.goal for i in result.items)


def test_goal_follows_the_active_branch(result):
    tool = [i for i in result.items if i.role == "tool"][0]
    assert tool.goal.startswith("How many degrees is it from bisque")


def test_without_current_node_the_last_child_is_followed():
    mapping = {"r": {"id": "r", "parent": None, "children": ["a", "b"]},
               "a": {"id": "a", "parent": "r", "children": []},
               "b": {"id": "b", "parent": "r", "children": ["c"]},
               "c": {"id": "c", "parent": "b", "children": []}}
    assert active_branch(mapping, None) == ["r", "b", "c"]
    assert active_branch(mapping, "a") == ["r", "a"]
    looped = {"x": {"id": "x", "parent": "y"}, "y": {"id": "y", "parent": "x"}}
    assert active_branch(looped, "x") == ["y", "x"]       # a cycle ends the walk


def test_a_single_conversation_object_and_bad_input():
    one = json.loads(EXPORT.read_text())[1]
    result = parse_text(json.dumps(one), name="one.json")
    assert result.format == "chatgpt" and len(result.items) == 3
    assert result.items[0].pointer == "one.json#/mapping/m1"
    with pytest.raises(InputError, match="not a ChatGPT export"):
        parse_text('[{"role": "user", "content": "hi there friend"}]', name="x.json",
                   format="chatgpt")


def test_end_to_end_ingest_curate_and_hydrate_an_export(tmp_path):
    """What a user does with their export: ingest it, curate, and get it back in a frame."""
    from click.testing import CliRunner

    from attention_cloud.cli import main
    from attention_cloud.home import write_config

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    ingest = run("ingest", str(EXPORT))
    assert ingest.exit_code == 0 and "new: 8" in ingest.output
    assert "other-branch 3" in ingest.output
    assert run("curate").exit_code == 0
    frame = json.loads(run("hydrate", "--goal", "how long should the glaze firing hold at peak",
                           "--budget", "400", "--format", "json").stdout)
    assert "Hold at peak for 10 to 15 minutes" in frame["text"]
    titles = json.loads(run("query", "relation(H, title, T)", "--format", "json").stdout)
    assert {r["T"] for r in titles} == {"Kiln firing schedule", "Crawling glaze"}


def test_a_message_without_a_time_follows_the_one_before_it():
    """ChatGPT writes `create_time: null` on some messages: they took the conversation's start,
    so a reply written at 16:00 sorted before the question of 15:00 it answers."""
    def node(nid, parent, child, role, text, at):
        return {"id": nid, "parent": parent, "children": [child] if child else [],
                "message": {"id": nid, "author": {"role": role}, "create_time": at,
                            "content": {"content_type": "text", "parts": [text]}}}
    start = 1683550800.0                                   # 2023-05-08 13:00 UTC
    conversation = {"title": "Trip", "create_time": start, "id": "c1", "current_node": "m3",
                    "mapping": {"m1": node("m1", None, "m2", "user", "Which train goes to Porto?",
                                           start + 7200),
                                "m2": node("m2", "m1", "m3", "assistant",
                                           "The Alfa Pendular leaves Lisbon at 9:00.", None),
                                "m3": node("m3", "m2", None, "user",
                                           "Book the one after lunch instead please.", start + 10800)}}
    result = parse_text(json.dumps([conversation]), name="conversations.json")
    assert [i.time for i in result.items] == [
        "2023-05-08T15:00:00Z", "2023-05-08T15:00:00Z", "2023-05-08T16:00:00Z"]


def test_messages_without_a_time_are_said_once_per_conversation():
    """Before, a message of `create_time: null` silently took the time of the one before it:
    nothing said its time was borrowed. Now one note per conversation counts them."""
    def node(nid, parent, child, role, text, at):
        return {"id": nid, "parent": parent, "children": [child] if child else [],
                "message": {"id": nid, "author": {"role": role}, "create_time": at,
                            "content": {"content_type": "text", "parts": [text]}}}

    def conversation(cid, title, times):
        ids = [f"{cid}-{n}" for n in range(len(times))]
        mapping = {nid: node(nid, ids[n - 1] if n else None,
                             ids[n + 1] if n + 1 < len(ids) else None,
                             "user" if n % 2 == 0 else "assistant",
                             f"Message {n} about the Porto train, {title}", at)
                   for n, (nid, at) in enumerate(zip(ids, times))}
        return {"title": title, "create_time": 1683550800.0, "id": cid,
                "current_node": ids[-1], "mapping": mapping}

    result = parse_text(json.dumps([
        conversation("c1", "Trip", [1683554400.0, None, None, 1683561600.0]),
        conversation("c2", "Tickets", [1683554400.0, 1683554460.0])]), name="conversations.json")
    assert [n for n in result.notes if "create_time" in n] == [
        'conversation c1 ("Trip"): 2 of 4 messages have no create_time: each takes the time '
        'of the message before it']
