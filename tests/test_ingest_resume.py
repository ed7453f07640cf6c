"""A JSON Lines transcript that only grew is read on from where its last reading stopped.

An agent re-ingests its own session file after every turn; reading it whole made each turn
cost the whole session. Now the reader is kept at the end of the last complete line
(ingest.resume) and a file whose first bytes are exactly those read is parsed from there:
only the appended lines are decoded, and the result is the one a whole reading gives (pending
calls answered across the boundary, goals, subagent launches, a last line cut mid-way and
completed later). Anything but a pure append is read whole.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import jsonlines
from attention_cloud.ingest.api import parse_source
from attention_cloud.ingest.resume import ReadPoints
from attention_cloud.ingest.source import read_path

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
CC21 = FIXTURES / "claude_code_21"
SID = "5e55a1f0-0000-4000-8000-00000000c0de"


def synthetic_session(rng: random.Random, records: int) -> bytes:
    """A Claude Code session whose calls are answered some records later (so a cut often
    falls between a call and its result), with Task launches, progress records, envelopes
    pasted into prompts, acknowledgements, summaries and a malformed line now and then."""
    lines, open_calls, n = [], [], 0

    def record(role: str, content, **extra) -> None:
        nonlocal n
        n += 1
        lines.append(json.dumps({"type": role, "uuid": f"u{n}", "sessionId": "S1", "cwd": "/srv",
                                 "timestamp": f"2026-03-02T{n // 60 % 24:02d}:{n % 60:02d}:00Z",
                                 "message": {"role": role, "content": content}, **extra}))

    for _ in range(records):
        roll = rng.random()
        if roll < 0.2:
            frame = ("<memory-frame id=\"r1\">recalled: the cache\n</memory-frame>\n"
                     if rng.random() < 0.3 else "")
            record("user", f"{frame}fix the flaky test number {rng.randint(1, 99)} in sync.py")
        elif roll < 0.4:
            call = f"t{len(lines)}"
            name = rng.choice(["Bash", "Bash", "Task", "Read"])
            record("assistant", [{"type": "tool_use", "id": call, "name": name,
                                  "input": {"command": f"pytest -k t{rng.randint(1, 9)}",
                                            "prompt": "look at the retry", "file_path":
                                            "/srv/sync.py"}}])
            open_calls.append((call, name))
        elif roll < 0.6 and open_calls:
            call, name = open_calls.pop(rng.randrange(len(open_calls)))
            extra = {"toolUseResult": {"agentId": f"a{call}"}} if name == "Task" else {}
            record("user", [{"type": "tool_result", "tool_use_id": call,
                             "content": rng.choice(["3 passed", "FAILED test_sync - "
                                                    "ValueError: bad", f"agentId: a{call}"]),
                             "is_error": rng.random() < 0.1}], **extra)
        elif roll < 0.65 and open_calls:
            call, _ = open_calls[0]
            lines.append(json.dumps({"type": "progress", "parentToolUseID": call,
                                     "data": {"type": "agent_progress", "agentId": f"a{call}"}}))
        elif roll < 0.7:
            lines.append(rng.choice(['{"type": "summary", "summary": "Sync work"}',
                                     '{"type": "user", "message": ', "not json at all"]))
        elif roll < 0.8:
            record("user", rng.choice(["ok", "no", "thanks!", "wait"]))
        else:
            record("assistant", [{"type": "text", "text": f"The retry in sync.py waits "
                                                          f"{rng.randint(1, 60)} s."}])
    return ("\n".join(lines) + "\n").encode()


def fixture_session() -> bytes:
    """Real Claude Code 2.1 records and the envelope and bad-line fixtures, one after another."""
    return b"".join(p.read_bytes() for p in (
        CC21 / f"{SID}.jsonl", FIXTURES / "claude_code_envelopes.jsonl",
        FIXTURES / "claude_code_bad_lines.jsonl", FIXTURES / "claude_code_session.jsonl"))


@pytest.fixture
def decoded(monkeypatch) -> list[str]:
    """Every JSON line the JSON Lines reader decodes, in order."""
    lines: list[str] = []
    real = jsonlines._decode

    def counting(line: str):
        lines.append(line)
        return real(line)

    monkeypatch.setattr(jsonlines, "_decode", counting)
    return lines


def parse(path: Path, points: ReadPoints | None, **options):
    return parse_source(read_path(path), format="claude-code", read_points=points, **options)


def nonblank_lines(data: bytes) -> int:
    return sum(1 for line in data.split(b"\n") if line.strip())


@pytest.mark.parametrize("seed", range(6))
def test_random_appends_read_on_give_what_one_whole_reading_gives(tmp_path, decoded, seed):
    rng = random.Random(seed)
    data = fixture_session() if seed % 3 == 0 else synthetic_session(rng, 120)
    # cut anywhere: mid-line too (a writer cut off), completed by the next append
    cuts = sorted(rng.sample(range(1, len(data)), 12)) + [len(data)]
    path, points, done = tmp_path / "session.jsonl", ReadPoints(), 0
    path.write_bytes(b"")
    for cut in cuts:
        with path.open("ab") as fh:
            fh.write(data[done:cut])
        read_from = data.rfind(b"\n", 0, done) + 1      # the last complete line read before
        done = cut
        decoded.clear()
        try:
            read_on = parse(path, points)
        except Exception as error:  # nothing complete yet: the same error as a whole reading
            with pytest.raises(type(error), match=str(error)[:40]):
                parse(path, None)
            continue
        assert len(decoded) <= nonblank_lines(data[read_from:cut])
        assert read_on == parse(path, None)


def test_a_call_answered_after_the_boundary_is_paired_as_in_a_whole_reading(tmp_path, decoded):
    path, points = tmp_path / "s.jsonl", ReadPoints()
    first = synthetic_call("Deploy the release", "deploy --dry-run")
    path.write_text(first, encoding="utf-8")
    before = parse(path, points)
    assert [i.text for i in before.items if "(no result in the transcript)" in i.text]
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "user", "uuid": "u2", "sessionId": "S1", "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                         "content": "deployed 3 services"}]}}) + "\n")
    decoded.clear()
    after = parse(path, points)
    assert len(decoded) == 1
    assert after == parse(path, None)
    (result,) = [i for i in after.items if "deployed 3 services" in i.text]
    assert "deploy --dry-run" in result.text and result.goal == "Deploy the release"


def synthetic_call(goal: str, command: str) -> str:
    return "".join(json.dumps({"type": role, "uuid": uuid, "sessionId": "S1", "message": {
        "role": role, "content": content}}) + "\n" for uuid, role, content in (
        ("u1", "user", goal),
        ("a1", "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                              "input": {"command": command}}])))


def _cut_back(path: Path, data: bytes) -> None:
    path.write_bytes(data[: len(data) // 2])


def _byte_changed_then_grown(path: Path, data: bytes) -> None:
    path.write_bytes(data.replace(b"flaky", b"FLAKY", 1) + data[-200:])


def _same_size_other_file(path: Path, data: bytes) -> None:
    path.write_bytes(data.replace(b"sync.py", b"sink.py"))


def _rotated(path: Path, data: bytes) -> None:
    path.rename(path.with_suffix(".1"))
    path.write_bytes(synthetic_session(random.Random(99), 150))


@pytest.mark.parametrize("change", [_cut_back, _byte_changed_then_grown, _same_size_other_file,
                                    _rotated])
def test_a_file_that_did_not_only_grow_is_read_whole(tmp_path, decoded, change):
    path, points = tmp_path / "s.jsonl", ReadPoints()
    data = synthetic_session(random.Random(5), 80)
    path.write_bytes(data)
    parse(path, points)
    stat = path.stat()
    change(path, data)
    if path.stat().st_size == stat.st_size:  # mtime games: nothing but the bytes tells
        import os
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    decoded.clear()
    again = parse(path, points)
    assert len(decoded) == nonblank_lines(path.read_bytes())
    assert again == parse(path, None)


def test_other_options_read_whole(tmp_path, decoded):
    path, points = tmp_path / "s.jsonl", ReadPoints()
    data = synthetic_session(random.Random(6), 60)
    path.write_bytes(data)
    parse(path, points)
    decoded.clear()
    other = parse(path, points, session="other", max_item_chars=2000)
    assert len(decoded) == nonblank_lines(data)
    assert other == parse(path, None, session="other", max_item_chars=2000)


def test_points_are_kept_for_the_files_read_last_only(tmp_path, decoded):
    """README: a Memory keeps where it left the 16 files it read last (a bound on what the
    process holds); a file pushed out is read whole when it grows, the others read on."""
    assert ReadPoints()._kept == 16
    points, paths = ReadPoints(kept=2), [tmp_path / f"s{i}.jsonl" for i in range(3)]
    for i, path in enumerate(paths):
        path.write_bytes(synthetic_session(random.Random(20 + i), 30))
        parse(path, points)
    assert len(points) == 2
    for path, whole in ((paths[0], True), (paths[2], False)):
        grown = path.read_bytes() + synthetic_session(random.Random(40), 5)
        path.write_bytes(grown)
        decoded.clear()
        result = parse(path, points)
        assert (len(decoded) == nonblank_lines(grown)) is whole
        assert result == parse(path, None)


def test_a_reader_that_cannot_be_kept_leaves_no_point_and_the_next_reading_is_whole(
        tmp_path, decoded, monkeypatch):
    """A reader state pickle refuses (a parser holding an open handle, a lock) keeps no point:
    nothing half-kept, and the grown file is read whole, as it would be without points."""
    from attention_cloud.ingest import resume

    def refused(*_args, **_kwargs):
        raise TypeError("cannot pickle '_thread.lock' object")

    path, points = tmp_path / "s.jsonl", ReadPoints()
    path.write_bytes(synthetic_session(random.Random(11), 30))
    monkeypatch.setattr(resume.pickle, "dumps", refused)
    parse(path, points)
    assert len(points) == 0
    grown = path.read_bytes() + synthetic_session(random.Random(12), 5)
    path.write_bytes(grown)
    decoded.clear()
    assert parse(path, points) == parse(path, None)
    assert len(decoded) == 2 * nonblank_lines(grown)


def test_a_raw_envelope_open_at_the_end_is_not_a_point_to_read_on_from(tmp_path, decoded):
    """An envelope written raw over lines drops every line to its close: a reading that ended
    inside one cannot be taken up (the lines after it may close it)."""
    path, points = tmp_path / "s.jsonl", ReadPoints()
    path.write_text(synthetic_call("Ship it", "make ship") + "<memory-frame id=\"r1\">\n"
                    "recalled line\n", encoding="utf-8")
    parse(path, points)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("</memory-frame>\n" + json.dumps({"type": "user", "uuid": "u9", "message": {
            "role": "user", "content": "now the changelog"}}) + "\n")
    decoded.clear()
    again = parse(path, points)
    assert again == parse(path, None)
    assert "now the changelog" in [i.text for i in again.items]


def growth_plan(sizes: dict[str, int], rng: random.Random) -> list[dict[str, int]]:
    """Rounds of appends: each round, each file grown by a random piece (a line cut mid-way now
    and then) with odds 0.7, until every file is whole; a round is each file's size after it."""
    rounds, done = [], dict.fromkeys(sizes, 0)
    while any(done[name] < size for name, size in sizes.items()):
        for name, size in sizes.items():
            if done[name] < size and rng.random() < 0.7:
                done[name] = min(size, done[name] + rng.randint(1, 900))
        if not rounds or rounds[-1] != done:
            rounds.append(dict(done))
    return rounds


def live(mem: Memory) -> list[tuple]:
    rows = mem.query("item(H), item_seq(H, N), item_time(H, T), item_source(H, P), "
                     "item_goal(H, G), item_text(H, X), findall(R-O, relation(H, R, O), Rs)",
                     limit=10_000).rows
    return sorted((r["H"], r["N"], r["T"], r["P"], r["G"], r["X"],
                   tuple(sorted(map(str, r["Rs"])))) for r in rows)


SESSION_FILES = {f"{SID}.jsonl": CC21 / f"{SID}.jsonl",
                 f"{SID}/subagents/agent-a7c1d2e.jsonl":
                 CC21 / SID / "subagents" / "agent-a7c1d2e.jsonl"}


def agent_loop(home: Path, folder: Path, rounds: list[dict[str, int]], read_on: bool,
               decoded: list[str]) -> tuple[list[list[tuple]], int]:
    """Grow the session's files round by round, ingesting the folder after each: what memory
    holds after each round, and how many lines were decoded in all."""
    shutil.rmtree(folder, ignore_errors=True)
    for rel in SESSION_FILES:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(b"")
    held, lines = [], 0
    with Memory.open(home) as mem:
        if not read_on:
            mem.read_points = ReadPoints(kept=0)
        for sizes in rounds:
            for rel, size in sizes.items():
                data = SESSION_FILES[rel].read_bytes()
                with (folder / rel).open("ab") as fh:
                    fh.write(data[(folder / rel).stat().st_size:size])
            decoded.clear()
            mem.ingest([folder], strict=False)
            lines += len(decoded)
            held.append(live(mem))
    return held, lines


def test_an_agent_loop_over_a_session_and_its_subagent(tmp_path, decoded):
    """Memory re-ingesting a Claude Code 2.1 session and its subagent's file as both grow holds,
    after each ingest, what one that reads every file whole holds, its journal the same, and at
    the end what one ingest of the final files gives."""
    rounds = growth_plan({rel: p.stat().st_size for rel, p in SESSION_FILES.items()},
                         random.Random(3))
    folder = tmp_path / "project"
    read_on, read_on_lines = agent_loop(tmp_path / "a", folder, rounds, True, decoded)
    whole, whole_lines = agent_loop(tmp_path / "b", folder, rounds, False, decoded)
    assert read_on == whole
    assert read_on_lines < whole_lines / 2
    # the same journal, but for the names Prolog gave variables and the clock's times
    journals = [re.sub(r"\b_\d+\b|\b\d{10}\.\d+\b", "_",
                       (tmp_path / h / "journal.pl").read_text("utf-8")) for h in "ab"]
    assert journals[0] == journals[1]
    with Memory.open(tmp_path / "c") as once:
        once.ingest([folder])
        assert read_on[-1] == live(once)


def test_an_erasure_drops_where_files_were_left(tmp_path, decoded):
    """Where a file was left holds the texts of its items: an erasure drops it, so no text of a
    forgotten item stays in the process, and the next ingest parses the file whole."""
    log = tmp_path / "s.jsonl"
    log.write_text(synthetic_call("Deploy with the token S3CRET", "deploy"), encoding="utf-8")
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([log])
        with log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "assistant", "uuid": "a2", "sessionId": "S1", "message": {
                "role": "assistant", "content": "Deploying now."}}) + "\n")
        mem.ingest([log])
        assert len(mem.read_points) == 1
        (secret,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
        mem.forget([secret])
        assert len(mem.read_points) == 0
        with log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "user", "uuid": "u3", "sessionId": "S1", "message": {
                "role": "user", "content": "and the changelog"}}) + "\n")
        decoded.clear()
        assert mem.ingest([log]).forgotten == 1
        assert len(decoded) >= nonblank_lines(log.read_bytes())
        assert not [r for r in mem.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
        # the file still holds the forgotten text: where this reading was left (which holds
        # it too) is not kept, in this process or any that reads the file after
        assert not [p for p in mem.read_points._points.values() if b"S3CRET" in p.state]
