"""Erasure against files read again: a forgotten item's text never comes back as its parts.

A file that grows is read again whole, and that reading wins (README, *Identity*): a turn can
split in two once a name in it speaks again, and each part has another handle and text than the
forgotten whole. The audit record keeps the digests of the forgotten text's lines and the lines
of its source it was read from (a pointer, never text), so no part of it is taken again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result.stdout


def texts(home: Path) -> list[str]:
    rows = json.loads(run(home, "query", "item_text(H, T)", "--format", "json"))
    return sorted(r["T"] for r in rows)


def files_holding(home: Path, needle: bytes) -> list[str]:
    return [str(p) for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_forgotten_turn_that_splits_between_two_speakers_stays_forgotten(home: Path,
                                                                           tmp_path: Path):
    """Tomás had not spoken yet, so his line was read as part of Priya's turn; forgetting that
    turn and appending `Tomás: ok` made him a speaker: the next ingest gave Priya's card line
    back as an item of its own (only the digest of the whole forgotten text was kept)."""
    chat = tmp_path / "chat.txt"
    # Tomás's one line comes last (a reply between two of Priya's lines is a turn at once),
    # under a turn of two lines (in a file of nothing but speaker lines it is a turn at once)
    chat.write_text("Priya: the blue one\nwith the stripes\nPriya: my card number is 4111 1111\n"
                    "Tomás: which bank?\n", encoding="utf-8")
    run(home, "ingest", str(chat))
    assert "my card number is 4111 1111\nTomás: which bank?" in texts(home)
    run(home, "forget", "--query", 'item_text(H, T), sub_string(T, _, _, _, "4111")', "--yes")
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("Tomás: ok\n")
    report = json.loads(run(home, "ingest", str(chat), "--format-output", "json"))
    assert report["forgotten"] == 2                   # both parts of the forgotten turn
    assert texts(home) == ["ok", "the blue one\nwith the stripes"]
    assert files_holding(home, b"4111 1111") == []
    assert files_holding(home, b"which bank") == []


@pytest.mark.parametrize("priya, tomas", [("**Priya:** ", "**Tomás:** "), ("Priya:", "Tomás:")])
def test_a_forgotten_turn_split_between_bold_or_unspaced_speakers_stays_forgotten(
        home: Path, tmp_path: Path, priya: str, tomas: str):
    """The same, with the speakers' names in bold or without a space after the colon: the
    second part's line is the forgotten line after its name."""
    chat = tmp_path / "chat.txt"
    chat.write_text(f"{priya}hello\nthere\n{priya}the blue one\n"
                    f"{priya}my card number is 4111 1111\n"
                    f"{tomas}which bank?\n", encoding="utf-8")
    run(home, "ingest", str(chat), "--format", "text")
    run(home, "forget", "--query", 'item_text(H, T), sub_string(T, _, _, _, "4111")', "--yes")
    with chat.open("a", encoding="utf-8") as fh:
        fh.write(f"{tomas}ok\n")
    run(home, "ingest", str(chat), "--format", "text")
    assert texts(home) == ["hello\nthere", "ok", "the blue one"]
    assert files_holding(home, b"which bank") == []


def test_a_part_of_a_forgotten_turn_that_goes_on_below_stays_forgotten(home: Path,
                                                                       tmp_path: Path):
    """The forgotten turn is the last: once Tomás speaks again, his line is the first of a turn
    of his own that goes on with lines appended below it. That part is refused with what was
    appended to it (as a forgotten turn that goes on is), and the turns after it are kept."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello\nall\nAnn: hi\nPriya: hi there\n"
                    "Tomás: my card number is 4111 1111\n",
                    encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat], format="text")
        (card,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "4111" in r["T"]]
        mem.forget([card], reason="a card number")
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("it is the blue one\nTomás: ok\n")
        report = mem.ingest([chat], format="text")
        assert report.forgotten == 2
        texts_now = sorted(r["T"] for r in mem.query("item_text(H, T)").rows)
        assert texts_now == ["hello\nall", "hi", "ok"]
    assert files_holding(home, b"4111 1111") == []


def test_a_line_of_a_forgotten_text_is_not_remembered_again(home: Path, tmp_path: Path):
    """`atc remember` of a forgotten text is refused; its card line alone was taken."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: my card number is 4111 1111\nTomás: which bank?\n"
                    "Priya: the blue one\n", encoding="utf-8")
    run(home, "ingest", str(chat))
    run(home, "forget", "--query", 'item_text(H, T), sub_string(T, _, _, _, "4111")', "--yes")
    journal = (home / "journal.pl").read_bytes()
    result = CliRunner().invoke(main, ["remember", "my card number is 4111 1111",
                                       "--home", str(home)])
    assert result.exit_code != 0
    assert "forgotten" in result.output
    assert (home / "journal.pl").read_bytes() == journal
    assert files_holding(home, b"4111 1111") == []


def test_a_text_that_only_shares_a_line_with_a_forgotten_one_is_kept(home: Path,
                                                                     tmp_path: Path):
    """Only parts of a forgotten text are refused: a later turn elsewhere in the file that
    repeats one of its lines among lines of its own is another text, and stays."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello\nTomás: hi\nPriya: my card number is 4111 1111\n"
                    "see you at noon\nTomás: which bank?\n", encoding="utf-8")
    run(home, "ingest", str(chat), "--format", "text")
    assert "my card number is 4111 1111\nsee you at noon" in texts(home)
    run(home, "forget", "--query", 'item_text(H, T), sub_string(T, _, _, _, "4111")', "--yes")
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("Priya: see you at noon\nby the fountain\n")
    report = json.loads(run(home, "ingest", str(chat), "--format", "text", "--format-output", "json"))
    assert report["forgotten"] == 1                   # the forgotten turn, read again
    assert "see you at noon\nby the fountain" in texts(home)


def test_a_follower_open_while_another_process_forgets_never_takes_the_parts(home: Path,
                                                                             tmp_path: Path):
    """As `atc watch` does: a Memory open before another process's `atc forget` reads the
    grown file next; its first write reads the compacted journal first, the lines' digests
    and place with it, so the parts of the forgotten turn stay out of it too."""
    import subprocess
    import sys

    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: the blue one\nwith the stripes\nPriya: my card number is 4111 1111\n"
                    "Tomás: which bank?\n", encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        mem.release(keep_indexes=False)           # the batch is done: the lock is given back
        done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "forget", "--query",
                               'item_text(H, T), sub_string(T, _, _, _, "4111")', "--yes",
                               "--home", str(home)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("Tomás: ok\n")
        mem.acquire(wait=0)                       # the next batch
        assert mem.ingest([chat]).forgotten == 2
        texts_now = sorted(r["T"] for r in mem.query("item_text(H, T)").rows)
        assert texts_now == ["ok", "the blue one\nwith the stripes"]
    assert files_holding(home, b"4111 1111") == []


def claude_code_record(uuid: str, role: str, content, minute: int, **more) -> str:
    record = {"type": role, "uuid": uuid, "sessionId": "S1", "cwd": "/srv",
              "timestamp": f"2026-03-02T02:{minute:02d}:00Z",
              "message": {"role": role, "content": content}, **more}
    return json.dumps(record) + "\n"


def test_a_forgotten_subagent_report_is_not_read_back_from_the_subagents_file(home: Path,
                                                                             tmp_path: Path):
    """Claude Code's Task result is the subagent's last message with an `agentId:` line after
    it; forgetting that result and then reading the subagent's file (written, or first read,
    after the forget) took the report back as the subagent's conclusion: another text than
    the forgotten one, made of its lines."""
    report = ("I found the deploy credentials.\n\n## Where\n\n"
              "The token is zq-7731-vault in ops/secrets.env, line 4.")
    projects = tmp_path / "projects"
    subagents = projects / "S1" / "subagents"
    subagents.mkdir(parents=True)
    parent = projects / "S1.jsonl"
    parent.write_text(
        claude_code_record("u0", "user", "Find why the deploy fails", 0)
        + claude_code_record("a0", "assistant", [{"type": "tool_use", "id": "t0", "name": "Task",
                                                  "input": {"description": "find creds",
                                                            "prompt": "Find the creds"}}], 1)
        + claude_code_record("r0", "user", [{"type": "tool_result", "tool_use_id": "t0",
                                             "content": [{"type": "text", "text": report},
                                                         {"type": "text",
                                                          "text": "agentId: a1 (for resuming)"}]}],
                             5), encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([parent])
        held = [r["H"] for r in mem.query("item_text(H, T)").rows if "zq-7731" in r["T"]]
        assert len(held) == 1
        mem.forget(held, reason="a token")
        (subagents / "agent-a1.jsonl").write_text(
            claude_code_record("s0", "user", "Find the creds", 2, isSidechain=True, agentId="a1")
            + claude_code_record("s1", "assistant", [{"type": "text", "text": report}], 4,
                                 isSidechain=True, agentId="a1"), encoding="utf-8")
        assert mem.ingest([projects]).forgotten >= 1
        assert not [r for r in mem.query("item_text(H, T)").rows if "zq-7731" in r["T"]]
    assert files_holding(home, b"zq-7731") == []


def test_an_item_whose_text_retention_dropped_stays_forgotten_when_its_file_grows(
        home: Path, tmp_path: Path):
    """Retention had dropped the turn's L0, so its erasure kept no digest (`digest: ""`) and
    the turn that went on in the grown file came back, card number and all."""
    (home / "config.json").write_text('{"embedder": "hash", "retention": {"l0": 30}}\n',
                                      encoding="utf-8")
    chat = tmp_path / "chat.txt"
    chat.write_text("## Session 1 — 1:56 pm on 8 May, 2023\nPriya: hello\nTomás: hi\n"
                    "Priya: my card number is 4111 1111\n", encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat], format="text")
        mem.curate()                                   # 2023 is long past 30 days: L0 goes
        assert not mem.query("item_text(H, T), T \\== \"\"").rows
        (card,) = [r["H"] for r in mem.query("item_source(H, S)").rows
                   if r["S"].endswith(":4")]
        mem.forget([card], reason="a card number")
        assert mem.erasures()[0].digest.startswith("sha256:")
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("and the expiry is 12/29\n")
        assert mem.ingest([chat], format="text").forgotten == 1
        assert not [r for r in mem.query("item_text(H, T)").rows if "4111" in r["T"]]
    assert files_holding(home, b"4111 1111") == []


def test_a_session_forgotten_whole_gives_back_none_of_its_turns_when_its_file_grows(
        home: Path, tmp_path: Path):
    """`atc forget --session`, then the chat goes on: names that spoke once (read as lines of
    the turn above) speak again, and split the forgotten turns into parts; only the turns
    written after the erasure are taken."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello\nthere\nPriya: my card number is 4111 1111\nAnn: hi\n"
                    "Tomás: which bank?\n", encoding="utf-8")
    run(home, "ingest", str(chat), "--format", "text")
    assert "my card number is 4111 1111\nAnn: hi\nTomás: which bank?" in texts(home)
    run(home, "forget", "--session", "chat", "--yes")
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("and the pin\nTomás: ok\nAnn: fine\n")
    run(home, "ingest", str(chat), "--format", "text")
    assert texts(home) == ["fine", "ok"]
    assert files_holding(home, b"4111 1111") == [] and files_holding(home, b"which bank") == []
