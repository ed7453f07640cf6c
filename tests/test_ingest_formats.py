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
    "chatgpt": "chatgpt_conversations.json",
    "sharegpt": "sharegpt.json",
    "trajectory": "swe_agent_run.traj",
    "markdown": "2026-01-02-standup.md",
    "text": "transcript.md",
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
        shutil.copy(FIXTURES / fixture, folder / fixture)
        assert detect_format(folder / fixture) == name
    expected = sum(len(parse_path(folder / f).items) for f in ONE_OF_EACH.values())
    with Memory.open(home) as mem:
        report = mem.ingest([str(folder)])              # strict: every file must be read
        assert report.files == len(FORMATS) and report.new == expected
