"""An agent that stored a note through memory's own `remember` (the MCP tool, or `atc
remember` through a shell) left the call in its transcript; when the session was captured,
the call's item repeated the note's text, so the note was in memory twice (and a frame could
spend its budget on both). The answer of memory's own remember is now recognised as recall's
echoes are: a call that answered nothing else makes no item (counted as `memory recall`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

SESSION = "a1b2c3d4-0000-4000-8000-00000000abcd"
NOTE = "the staging DB is read-only on Fridays (zebrafrog)"


def _record(kind: str, uuid: str, parent: str | None, content, ts: str) -> dict:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["model"] = "claude"
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/repo",
            "sessionId": SESSION, "version": "2.1.0", "type": kind, "message": message,
            "uuid": uuid, "timestamp": ts}


def _transcript(path: Path, name: str, tool_input: dict, answer: str) -> Path:
    lines = [
        _record("user", "u1", None, "Please remember that staging is read-only on Fridays",
                "2026-03-01T10:00:00Z"),
        _record("assistant", "u2", "u1", [
            {"type": "text", "text": "I'll store that."},
            {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}],
            "2026-03-01T10:00:01Z"),
        _record("user", "u3", "u2", [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [{"type": "text", "text": answer}]}],
                "2026-03-01T10:00:02Z"),
        _record("assistant", "u4", "u3", [{"type": "text", "text": "Stored it."}],
                "2026-03-01T10:00:03Z")]
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n", encoding="utf-8")
    return path


def _calls(home: Path) -> dict[str, tuple]:
    """Each way an agent calls remember: (tool name, input, the answer it got)."""
    mcp_answer = json.dumps({"handle": "it_84463fab9c62ad1c", "kind": "note",
                             "segment": "default", "new": True,
                             "source": f"{home}/remembered.jsonl:1", "curated": True},
                            separators=(",", ":"))
    cli_line = (f"remembered it_84463fab9c62ad1c (note, segment default) <- "
                f"{home}/remembered.jsonl:1\n"
                "atc: note: not curated yet: `atc curate` builds its rungs and vectors")
    return {
        "mcp": ("mcp__attention-cloud__remember", {"text": NOTE, "kind": "note"}, mcp_answer),
        "mcp-waited": ("mcp__memory__remember", {"text": NOTE},
                       mcp_answer[:-1] + ',"waited_s":1.2,"note":"waited 1.2 s"}'),
        "shell": ("Bash", {"command": f'atc remember "{NOTE}"'}, cli_line),
        "shell-again": ("Bash", {"command": f"atc remember '{NOTE}'"},
                        cli_line.replace("remembered it_", "already remembered it_", 1)),
    }


@pytest.mark.parametrize("way", ["mcp", "mcp-waited", "shell", "shell-again"])
def test_a_captured_remember_call_does_not_store_the_note_again(tmp_path: Path,
                                                                 way: str) -> None:
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    name, tool_input, answer = _calls(home)[way]
    transcript = _transcript(tmp_path / "s.jsonl", name, tool_input, answer)
    with Memory.open(home) as mem:
        mem.remember(NOTE, curate=False)
        report = mem.ingest([transcript])
        rows = mem.query('item_text(H, T), sub_string(T, _, _, _, "zebrafrog")').rows
    assert len(rows) == 1, rows
    assert report.as_dict()["ignored"].get("memory recall") == 1


def test_other_output_of_the_call_stays(tmp_path: Path) -> None:
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    name, tool_input, answer = _calls(home)["shell"]
    answer = "Deploy window moved to 14:00 (quokka)\n" + answer
    transcript = _transcript(tmp_path / "s.jsonl", name, tool_input, answer)
    with Memory.open(home) as mem:
        mem.ingest([transcript])
        rows = mem.query('item_text(H, T), sub_string(T, _, _, _, "quokka")').rows
    assert len(rows) == 1
