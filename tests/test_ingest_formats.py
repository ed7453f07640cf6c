"""Every format by name: `atc ingest --list-formats`, `--format NAME`, and detection file by
file in one folder holding all of them (issue 15)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import FORMATS, detect_format, parse_path
from attention_cloud.ingest.records import FORMAT_DESCRIPTIONS

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
ONE_OF_EACH = {
    "claude-code": "claude_code_session.jsonl",
    "openai": "openai_chat.json",
    "anthropic": "anthropic_messages.json",
    "openai-responses": "openai_responses.json",
    "codex": "codex_rollout.jsonl",
    "langchain": "langchain_messages.json",
    "chatgpt": "chatgpt_conversations.json",
    "claude-ai": "claude_ai_conversations.json",
    "sharegpt": "sharegpt.json",
    "trajectory": "swe_agent_run.traj",
    "openhands": "openhands_trajectory.json",
    "locomo": "locomo10_sample.json",
    "longmemeval": "longmemeval_instance.json",
    "markdown": "2026-01-02-standup.md",
    "text": "transcript.md",
    "whatsapp": "whatsapp_chat.txt",
    "telegram": "telegram_result.json",
    "slack": "slack_export/running-club/2023-05-08.json",
    "discord": "discord_export.json",
    "messenger": "messenger_export/your_facebook_activity/messages/inbox/runningclub_3825/"
                 "message_1.json",
    "google-chat": "google_chat_takeout/Google Chat/Groups/Space AAAAx7Yq2/messages.json",
    "open-webui": "open_webui_export.json",
    "librechat": "librechat_export.json",
    "skype": "skype_export/messages.json",
    "continue": "continue/sessions/5f1c9e2a-7d3b-4b8e-9a51-0c2d4e6f8a10.json",
    "sillytavern": "sillytavern/Seraphina - 2023-05-08@13h56m03s.jsonl",
    "imessage": "Priya Patel.txt",
    "gemini": "gemini_cli_session.json",
    "aider": "aider_project/.aider.chat.history.md",
    "notes": "2025-03-payments-sync.md",
}


def test_list_formats_names_every_format_with_a_line_each():
    out = CliRunner().invoke(main, ["ingest", "--list-formats"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert [line.split()[0] for line in lines] == list(FORMATS)
    for line, name in zip(lines, FORMATS):
        assert line.split(None, 1)[1] == FORMAT_DESCRIPTIONS[name]
    assert set(ONE_OF_EACH) == set(FORMATS)


def test_format_accepts_each_name(tmp_path):
    for name, fixture in ONE_OF_EACH.items():
        out = CliRunner().invoke(main, ["ingest", str(FIXTURES / fixture), "--format", name,
                                        "--home", str(tmp_path / name), "--format-output", "json"])
        assert out.exit_code == 0, (name, out.output)
        assert '"new": ' in out.stdout and '"new": 0' not in out.stdout
    bad = CliRunner().invoke(main, ["ingest", str(FIXTURES / "sharegpt.json"), "--format", "yaml",
                                    "--home", str(tmp_path / "bad")])
    assert bad.exit_code != 0 and "yaml" in bad.output


def test_a_folder_of_every_format_is_detected_file_by_file(home, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name, fixture in ONE_OF_EACH.items():
        (folder / fixture).parent.mkdir(parents=True, exist_ok=True)   # a Slack channel folder
        shutil.copy(FIXTURES / fixture, folder / fixture)
        assert detect_format(folder / fixture) == name
    expected = sum(len(parse_path(folder / f).items) for f in ONE_OF_EACH.values())
    with Memory.open(home) as mem:
        report = mem.ingest([str(folder)])              # strict: every file must be read
        assert report.files == len(FORMATS) and report.new == expected
        who_when = mem.query("item_speaker(H, S), item_time(H, T)", limit=5000).rows
        # the same files again from another folder (a folder moved): an upsert, every format
        shutil.move(folder, tmp_path / "moved")
        again = mem.ingest([str(tmp_path / "moved")])
        assert (again.new, again.updated, again.superseded) == (0, 0, 0)
        assert again.unchanged == expected
        assert mem.query("item_speaker(H, S), item_time(H, T)", limit=5000).rows == who_when


# -- malformed input: a one-line InputError or items, never a crash -------------------------------
import json  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

from attention_cloud.errors import InputError  # noqa: E402
from attention_cloud.ingest import parse_text  # noqa: E402

_JSON_FIXTURES = {
    "chatgpt": "chatgpt_conversations.json",
    "sharegpt": "sharegpt.json",
    "trajectory": "swe_agent_run.traj",
    "openhands": "openhands_trajectory.json",
    "locomo": "locomo10_sample.json",
    "longmemeval": "longmemeval_instance.json",
}
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["role", "content", "parts", "from", "value", "mapping",
                                       "message", "author", "parent", "children", "action",
                                       "history", "create_time", "current_node", "id",
                                       "speaker", "text", "dia_id", "blip_caption",
                                       "haystack_sessions", "haystack_dates", "args",
                                       "observation", "extras", "cause"]),
                      children, max_size=4),
    max_leaves=10,
)


def _places(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _places(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _places(value, path + (index,))


def _replace(document, path, value):
    if not path:
        return value
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return document


@settings(max_examples=150, deadline=None)
@given(fmt=st.sampled_from(sorted(_JSON_FIXTURES)), pick=st.integers(min_value=0),
       value=_VALUES, forced=st.booleans())
def test_a_damaged_document_parses_or_fails_with_one_line(fmt, pick, value, forced):
    document = json.loads((FIXTURES / _JSON_FIXTURES[fmt]).read_text())
    places = list(_places(document))
    document = _replace(document, places[pick % len(places)], value)
    try:
        result = parse_text(json.dumps(document), name="fuzz.json", format=fmt if forced else None)
    except InputError as error:
        assert "\n" not in str(error)
        return
    assert all(item.handle.startswith("it_") for item in result.items)


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
       heading=st.sampled_from(["## User (03:56 UTC)\n", "## Assistant — 2026-13-45 99:99\n",
                                "### Priya · 9:15 am\n", ""]))
def test_arbitrary_markdown_parses_or_fails_with_one_line(text, heading):
    try:
        result = parse_text(heading + text, name="fuzz.md", format="markdown")
    except InputError as error:
        assert "\n" not in str(error)
        return
    assert all(item.handle.startswith("it_") for item in result.items)
