"""Text a transcript holds reaches a terminal as text: escape sequences in it (a colour code, a
title change, OSC 52, which writes the clipboard) are shown escaped, never acted on. Before,
`atc show`, `atc query` and `atc hydrate` wrote them to the terminal as they were stored.
Output to a pipe or a file stays the stored text, byte for byte."""
from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

EVIL = "please check \x1b]52;c;ZXZpbA==\x07 the \x1b]0;pwned\x07 retry \x9b2J policy\r\nnow"


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> tuple[Path, str, str]:
    """A home holding the transcript ingested and curated, its user goal's handle and its
    largest cell: built in this process, as `atc ingest` and `atc curate` build it (what is
    tested is what a later `atc` process writes to its terminal, not how the home came)."""
    root = tmp_path_factory.mktemp("terminal")
    transcript = root / "chat.jsonl"
    transcript.write_text("".join(json.dumps(m) + "\n" for m in (
        {"role": "user", "content": EVIL},
        {"role": "assistant", "content": "the retry policy waits 30 s"})), encoding="utf-8")
    home = root / "home"
    _atc_here(home, "ingest", str(transcript))
    _atc_here(home, "curate")
    handle = json.loads(_atc_here(home, "query", "item_kind(H, user_goal)",
                                  "--format", "json"))[0]["H"]
    cell = json.loads(_atc_here(home, "cells", "list", "--format", "json"))[0]["id"]
    return home, handle, cell


def _atc(home: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home",
                           str(home)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _atc_here(home: Path, *args: str) -> str:
    """``atc ARGS`` in this process, for a step whose process boundary is not what is tested
    (a real process costs seconds of start-up); its stdout."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    done = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert done.exit_code == 0, done.output
    return done.stdout


def _on_a_terminal(home: Path, *args: str) -> str:
    """What `atc ARGS` writes to stdout when stdout is a terminal (a pseudo-terminal here)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", *args, "--home",
                                str(home)], stdout=follower, stderr=subprocess.DEVNULL)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:      # the other end closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8")


@pytest.mark.parametrize("command", [
    ["show", "{h}"], ["show", "{h}", "--source"], ["query", "item_text({h}, T)"],
    ["hydrate", "retry policy"], ["hydrate", "retry policy", "--format", "envelope"],
    ["cells", "show", "{c}"]])
def test_escape_sequences_reach_a_terminal_escaped(home, command):
    home, handle, cell = home
    args = [a.format(h=handle, c=cell) for a in command]
    shown = _on_a_terminal(home, *args)
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    if "--source" not in args:   # the verbatim JSON line holds the text JSON-escaped
        assert "\\x1b]52;c;ZXZpbA==\\x07" in shown


def test_a_pipe_gets_the_text_as_stored(home):
    home, handle, _ = home
    assert EVIL in json.loads(_atc_here(home, "show", handle, "--format", "json"))["text"]
    assert "\x1b]52;c;ZXZpbA==\x07" in _atc(home, "show", handle)   # a real pipe


def test_a_grantee_goal_in_the_ledger_reaches_the_owner_terminal_escaped(tmp_path):
    """A grantee writes the goal of their read; `atc audit` showed it as JSON, whose escaping
    leaves C1 controls (U+009B, a CSI of its own) as they are."""
    from attention_cloud.audit import append_event

    home = tmp_path / "home"
    _atc_here(home, "principal", "add", "alice", "--owner")
    append_event(home, {"event": "read", "time": "2026-05-01T00:00:00Z", "reader": "bob",
                        "op": "hydrate", "goal": "retries \x9b2J\x9b0m", "facts": []})
    shown = _on_a_terminal(home, "audit")
    assert "\x9b" not in shown and "retries \\x9b2J\\x9b0m" in shown
