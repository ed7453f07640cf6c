"""A file that only grew is read again whole, and memory holds what that reading gives.

Reading more of a file can change how its earlier part reads: a text turn goes on below its
first line, a name becomes a speaker once it speaks again, a tool call's result arrives after
the call. Re-ingesting such a file used to add the new reading's items beside the old ones
(the turn twice, once cut short; "Tomás: Nice!" inside Priya's turn and on its own; the call
with "(no result in the transcript)" beside the call with its result). Now the earlier
reading's items that the new one no longer gives are superseded (tombstoned), so after any
sequence of appends memory holds what one ingest of the whole file gives.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from attention_cloud import Memory
from click.testing import CliRunner
from attention_cloud.cli import main
from attention_cloud.home import write_config

NO_RESULT = "(no result in the transcript)"


def live_items(mem: Memory) -> list[tuple[str, str, str]]:
    rows = mem.query("item(H), item_text(H, T), item_speaker(H, S)", limit=1000).rows
    return sorted((r["H"], r["S"], r["T"]) for r in rows)


def item_fields(mem: Memory) -> list[tuple]:
    """Every live item with what is read of it besides its text: order, time, source, links."""
    rows = mem.query("item(H), item_seq(H, N), item_time(H, T), item_source(H, P), "
                     "findall(R-O, relation(H, R, O), Rs)", limit=1000).rows
    return sorted((r["H"], r["N"], r["T"], r["P"], tuple(sorted(map(str, r["Rs"]))))
                  for r in rows)


def texts(mem: Memory) -> list[str]:
    return sorted(t for _, _, t in live_items(mem))


@pytest.fixture
def mem(home: Path):
    memory = Memory.open(home)
    yield memory
    memory.close()


def test_a_turn_continued_below_its_first_line_is_one_item(mem: Memory, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: I signed up for the pottery class.\nTomás: Nice! Which day?\n"
                    "Priya: Tuesdays.\nTomás: cool\n", encoding="utf-8")
    mem.ingest([chat])
    mem.curate()
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("I will bring snacks for everyone.\n")
    report = mem.ingest([chat])
    assert (report.new, report.superseded) == (1, 1)
    assert texts(mem) == ["I signed up for the pottery class.", "Nice! Which day?",
                          "Tuesdays.", "cool\nI will bring snacks for everyone."]
    # the cut-short turn is gone from frames too (its vectors and rungs were built)
    frame = mem.hydrate("cool", budget=400)
    sources = [f["source"].rsplit(":", 1)[1] for f in frame.receipt["facts"]]
    assert "4-5" in sources and "4" not in sources
    mem.curate()
    members = {r["H"] for r in mem.query("arc_member(_, H)", limit=100).rows}
    assert members <= {h for h, _, _ in live_items(mem)}


def test_a_name_that_speaks_again_becomes_a_speaker_of_its_own(mem: Memory, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    # Tomás's one line, last and not a reply between two of Priya's, in a chat whose turns
    # run over several lines (so not one of nothing but speaker lines), is not yet a turn
    chat.write_text("Priya: I signed up for the pottery class.\nThe one by the river.\n"
                    "Priya: Tuesdays, starting next week.\nTomás: Nice! Which teacher?\n",
                    encoding="utf-8")
    mem.ingest([chat])
    assert ("Priya", "Tuesdays, starting next week. Tomás: Nice! Which teacher?") in \
        [(s, " ".join(t.split())) for _, s, t in live_items(mem)]   # one speaker known so far
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("Tomás: I might join you.\n")
    report = mem.ingest([chat])
    assert report.superseded == 1
    assert sorted((s, t) for _, s, t in live_items(mem) if "Tuesdays" in t or "Nice" in t) == [
        ("Priya", "Tuesdays, starting next week."), ("Tomás", "Nice! Which teacher?")]


def test_a_call_whose_result_arrived_replaces_the_call_without_one(mem: Memory, tmp_path: Path):
    log = call_log(tmp_path, "Why does the nightly build hang?", "pytest tests/slow")
    mem.ingest([log])
    assert [t for t in texts(mem) if NO_RESULT in t]
    with log.open("a", encoding="utf-8") as fh:
        fh.write(call_result("Timeout >600s in test_sync"))
    assert mem.ingest([log]).superseded == 1
    about_the_call = [t for t in texts(mem) if "pytest tests/slow" in t]
    assert len(about_the_call) == 1 and "Timeout >600s" in about_the_call[0]
    assert mem.query("relation(H, no_result, true)").rows == []


def test_an_edited_file_keeps_its_earlier_items(mem: Memory, tmp_path: Path):
    """Only a file whose first bytes are those read before supersedes anything: an edited one
    (or one cut back and written again) leaves its earlier items as they were."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello there\nTomás: hi\nPriya: how was Lisbon?\nTomás: sunny\n",
                    encoding="utf-8")
    mem.ingest([chat])
    before = texts(mem)
    chat.write_text("Priya: hello there!\nTomás: hi\nPriya: how was Lisbon?\nTomás: sunny and "
                    "warm\nPriya: good\n", encoding="utf-8")
    report = mem.ingest([chat])
    assert report.superseded == 0
    assert set(before) <= set(texts(mem))


def test_a_superseded_item_given_again_is_live_again(mem: Memory, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    short = "Priya: hello there\nTomás: hi\nPriya: how was Lisbon?\nTomás: sunny\n"
    chat.write_text(short, encoding="utf-8")
    mem.ingest([chat])
    chat.write_text(short + "and warm all week\n", encoding="utf-8")
    assert mem.ingest([chat]).superseded == 1
    assert "sunny" not in texts(mem)
    chat.write_text(short, encoding="utf-8")          # an editor's undo: the file as it was
    report = mem.ingest([chat])
    assert report.new == 1 and "sunny" in texts(mem)


def test_other_files_are_left_alone(mem: Memory, tmp_path: Path):
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    body = "Priya: hello there\nTomás: hi\nPriya: how was Lisbon?\nTomás: sunny\n"
    one.write_text(body, encoding="utf-8")
    (tmp_path / "b").mkdir()
    two = tmp_path / "b" / "one.txt"            # the same name and text in another folder
    two.write_text(body, encoding="utf-8")
    mem.ingest([one, two])
    with one.open("a", encoding="utf-8") as fh:
        fh.write("and warm all week\n")
    assert mem.ingest([one]).superseded == 1
    rows = mem.query('item_text(H, "sunny"), item_source(H, P)').rows
    assert [r["P"] for r in rows] == [f"{two}:4"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_run_of_appends_ends_as_one_ingest_of_the_whole(home: Path, tmp_path: Path,
                                                            seed: int):
    """The property: a text transcript (multi-line turns, a speaker who joins late, dated
    sessions) written in random pieces and ingested after each leaves the same live items as
    one ingest of the whole file."""
    rng = random.Random(seed)
    lines = ["## Session 1 — 1:56 pm on 8 May, 2023"]
    for i in range(18):
        speaker = rng.choice(["Priya", "Tomás"] if i < 10 else ["Priya", "Tomás", "Dana"])
        lines.append(f"{speaker}: message {i} about {rng.choice(['pottery', 'Lisbon', 'work'])}")
        if i == 2 or rng.random() < 0.3:
            lines.append(f"and a second line {i}")
        if i == 9:
            lines.append("## Session 2 — 10:00 am on 12 May, 2023")
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Memory.open(tmp_path / "whole") as mem:
        mem.ingest([chat], format="text")
        whole = live_items(mem)
        whole_fields = item_fields(mem)
        whole_relations = mem.stats()["relations"]
    superseded = 0
    with Memory.open(home) as mem:
        # one piece ends before a turn's second line: that turn reads differently after it
        continued = lines.index("and a second line 2")
        for cut in sorted({continued, *rng.sample(range(4, len(lines)), 6)}) + [len(lines)]:
            chat.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
            superseded += mem.ingest([chat], format="text").superseded
        assert live_items(mem) == whole
        assert item_fields(mem) == whole_fields   # and each item as that reading gives it
        # `atc stats` counted the links of the superseded readings too (786 against 753)
        assert mem.stats()["relations"] == whole_relations
    assert superseded > 0    # the pieces did read differently on the way


def test_turns_after_a_split_take_their_new_places(mem: Memory, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello there\nTomás: hi Priya\nDana: hey all\nPriya: welcome Dana\n",
                    encoding="utf-8")
    mem.ingest([chat], format="text")        # Dana has spoken once: her line is Tomás's turn's
    mem.curate()
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("Dana: thanks!\n")
    report = mem.ingest([chat], format="text")
    assert (report.superseded, report.updated) == (1, 1)
    rows = mem.query("item(H), item_seq(H, N), item_text(H, T)", limit=100).rows
    assert [r["T"] for r in sorted(rows, key=lambda r: r["N"])] == [
        "hello there", "hi Priya", "hey all", "welcome Dana", "thanks!"]
    assert len({r["N"] for r in rows}) == 5   # "welcome Dana" kept 1 beside "hi Priya"
    # the moved turn's rungs are computed again from its new reading
    moved = next(r["H"] for r in rows if r["T"] == "welcome Dana")
    assert not mem.query(f'rung("{moved}", l1, _)', limit=1).rows
    mem.curate()
    assert mem.query(f'rung("{moved}", l1, _)', limit=1).rows


def test_dates_read_the_other_way_once_later_ones_say_so_move_the_earlier_turns(
        mem: Memory, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    chat.write_text("[1/2/23, 1:56:03 PM] Priya: I signed up for pottery\n"
                    "[1/3/23, 9:01:00 AM] Tomás: nice, which studio?\n", encoding="utf-8")
    mem.ingest([chat])                       # read month/day: nothing above 12 yet
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("[13/3/23, 10:00:00 AM] Priya: the one on Rua Augusta\n")
    report = mem.ingest([chat])
    assert (report.new, report.updated) == (1, 2)
    rows = mem.query("item(H), item_time(H, T), item_text(H, X)", limit=100).rows
    assert sorted((r["T"], r["X"]) for r in rows) == [
        ("2023-02-01T13:56:03Z", "I signed up for pottery"),
        ("2023-03-01T09:01:00Z", "nice, which studio?"),
        ("2023-03-13T10:00:00Z", "the one on Rua Augusta")]
    mem.close()
    with Memory.open(mem.home) as again:     # as the journal replays it
        assert len(again.query('item_time(H, "2023-02-01T13:56:03Z")', limit=5).rows) == 1


def test_turns_moved_to_other_days_leave_their_cells_and_are_placed_again(home: Path,
                                                                          tmp_path: Path):
    """A cell's span and ladder are its members' times: turns that moved a month on once the
    file said day/month must not stay in a cell that says they are in January."""
    write_config(home, {"embedder": "hash"})
    lines = [f"[1/{2 + i // 8}/23, {1 + i % 12}:0{i % 10}:00 PM] {('Priya', 'Tomás')[i % 2]}: "
             f"{('pottery', 'Lisbon', 'deadline', 'garden')[i % 4]} plans, take {i}"
             for i in range(80)]
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        mem.curate()
        assert mem.query("cell(C)", limit=1).rows     # the map exists
        chat.write_text("\n".join(lines) + "\n[13/12/23, 9:00:00 AM] Priya: see you\n",
                        encoding="utf-8")
        assert mem.ingest([chat]).updated == 80
        mem.curate()
        assert not mem.query("item(H), \\+ cell_member(_, H)", limit=5).rows
        assert not mem.query("cell_member(C1, H), cell_member(C2, H), C1 \\== C2", limit=5).rows
        spans = [r["S"] for r in mem.query("cell(C), cell_info(C, span, S)", limit=100).rows]
        assert spans and all(s[0] >= "2023-02-01" for s in spans), spans


def test_the_cli_report_says_how_many_were_superseded(home: Path, tmp_path: Path):
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: hello there\nTomás: hi\nPriya: how was Lisbon?\nTomás: sunny\n",
                    encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(chat), "--home", str(home)]).exit_code == 0
    with chat.open("a", encoding="utf-8") as fh:
        fh.write("and warm all week\n")
    result = runner.invoke(main, ["ingest", str(chat), "--home", str(home),
                                  "--format-output", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["superseded"] == 1
    assert json.loads(result.stdout)["updated"] == 0


class LiveSubagent:
    """The claude_code_21 fixture's session and its subagent, to be written into a projects
    folder under ``tmp_path`` a part at a time, as Claude Code writes them: ``lines`` of the
    parent (``launched``: the first naming the agent), ``agent`` lines of the subagent."""

    SESSION = "5e55a1f0-0000-4000-8000-00000000c0de"
    AGENT = "agent-a7c1d2e.jsonl"

    def __init__(self, tmp_path: Path) -> None:
        fixture = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_21"
        self.lines = (fixture / f"{self.SESSION}.jsonl").read_text(
            encoding="utf-8").splitlines(keepends=True)
        self.launched = next(i for i, line in enumerate(self.lines) if '"agentId"' in line)
        self.agent = (fixture / self.SESSION / "subagents" / self.AGENT).read_text(
            encoding="utf-8").splitlines(keepends=True)
        self.projects = tmp_path / "projects"
        (self.projects / self.SESSION / "subagents").mkdir(parents=True)
        self.parent = self.projects / f"{self.SESSION}.jsonl"
        self.sub = self.projects / self.SESSION / "subagents" / self.AGENT


def item_goals(mem: Memory) -> dict[str, str]:
    return {r["H"]: r["G"] for r in mem.query("item(H), item_goal(H, G)", limit=1000).rows}


def test_a_subagent_written_before_its_launch_had_a_result_takes_the_launching_goal(
        home: Path, tmp_path: Path):
    """Claude Code writes a subagent's file while it runs; only the launching call's result
    (or progress records of newer versions) says which agent it launched. A live capture reads
    the subagent's lines before that: its items were stored with goal "" and kept it for good
    (the subagent's file is finished by then and never read again), where one ingest of the
    final files gives them the launching goal."""
    session = LiveSubagent(tmp_path)
    session.parent.write_text("".join(session.lines[:session.launched]),
                              encoding="utf-8")               # the Task call, no more
    session.sub.write_text("".join(session.agent), encoding="utf-8")
    projects, parent, lines = session.projects, session.parent, session.lines
    with Memory.open(home) as mem:
        assert mem.ingest([projects]).goals_unresolved     # nothing says it yet
        mem.curate()
        parent.write_text("".join(lines), encoding="utf-8")   # the progress and the result
        report = mem.ingest([projects])
        live_goals, live_fields = item_goals(mem), item_fields(mem)
        mem.curate()
        assert not mem.query("item(H), \\+ cell_member(_, H)", limit=5).rows
    with Memory.open(tmp_path / "whole") as mem:
        mem.ingest([projects])
        assert live_goals == item_goals(mem)
        assert live_fields == item_fields(mem)
    assert report.updated == 3                       # the subagent's three items


def test_turns_appended_under_a_forgotten_goal_never_carry_its_text(home: Path, tmp_path: Path):
    """Forgetting a user's message gives the items read under it the goal `[forgotten]`; the
    turns that followed it in a file that grew after took its text back as their goal, into
    the journal (and `item_goal`), though the message itself stayed out."""
    secret = "my locker code is 4471"
    chat = tmp_path / "chat.txt"
    chat.write_text(f"User: hello there\nAssistant: hi\nUser: {secret}\nAssistant: noted\n",
                    encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat], format="text")
        (gone,) = [r["H"] for r in mem.query(f'item_text(H, "{secret}")').rows]
        mem.forget([gone], reason="a code")
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("Assistant: anything else?\nand one more line\n")   # the last turn grows
        report = mem.ingest([chat], format="text")
        assert (report.new, report.forgotten) == (1, 1)
        goals = {r["T"]: r["G"] for r in mem.query("item_text(H, T), item_goal(H, G)").rows}
        assert goals == {"hello there": "hello there", "hi": "hello there",
                         "noted": "[forgotten]",
                         "anything else?\nand one more line": "[forgotten]"}
    assert files_holding(home, b"code is 4471") == []


def test_a_subagent_growing_after_its_launching_goal_was_forgotten_never_carries_it(
        home: Path, tmp_path: Path):
    """The subagent's new items took their goal from the parent file on disk (no result in
    memory said it yet), which still holds the forgotten message: its text came back."""
    session = LiveSubagent(tmp_path)
    session.parent.write_text("".join(session.lines[:session.launched + 1]), encoding="utf-8")
    session.sub.write_text("".join(session.agent[:2]), encoding="utf-8")
    projects, sub, agent = session.projects, session.sub, "".join(session.agent)
    goal = "Fix the rounding bug in the checkout total"
    with Memory.open(home) as mem:
        mem.ingest([projects])
        assert any(goal in g for g in item_goals(mem).values())
        (asked,) = [r["H"] for r in mem.query("item_kind(H, user_goal), item_text(H, T)").rows
                    if goal in r["T"]]
        mem.forget([asked], reason="not to be kept")
        sub.write_text(agent, encoding="utf-8")        # the subagent goes on
        assert mem.ingest([sub]).new == 2
        goals = item_goals(mem)
        assert not [g for g in goals.values() if goal in g]
        assert len([g for g in goals.values() if g == "[forgotten]"]) >= 3
    with Memory.open(home) as mem:                     # as the journal replays it
        assert not [g for g in item_goals(mem).values() if goal in g]


def claude_code_record(uuid: str, role: str, content, minute: int) -> str:
    return json.dumps({"type": role, "uuid": uuid, "sessionId": "S1", "cwd": "/srv",
                       "timestamp": f"2026-03-02T02:{minute:02d}:00Z",
                       "message": {"role": role, "content": content}}) + "\n"


def call_log(tmp_path: Path, goal: str, command: str) -> Path:
    """A Claude Code session cut off in a Bash call: the call has no result yet."""
    log = tmp_path / "s.jsonl"
    log.write_text(claude_code_record("u1", "user", goal, 10)
                   + claude_code_record("a1", "assistant", [
                       {"type": "tool_use", "id": "t1", "name": "Bash",
                        "input": {"command": command}}], 10),
                   encoding="utf-8")
    return log


def call_result(output: str) -> str:
    """The record of the call's result, to append to :func:`call_log`'s file."""
    return claude_code_record("u2", "user", [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": output}], 10)


def files_holding(home: Path, needle: bytes) -> list[Path]:
    """The files of ``home`` whose bytes hold ``needle`` (erasure promises none)."""
    return [p for p in home.rglob("*") if p.is_file() and needle in p.read_bytes()]


def arcs_and_entries(mem: Memory) -> tuple[list, list, list]:
    """Each arc as its goal and members, and the arcs the vector store and BM25 hold."""
    rows = mem.query("arc(A), arc_goal(A, G), findall(H, arc_member(A, H), Hs)", limit=100).rows
    vectors = sorted(k for k in mem.jump.vectors.keys() if k.startswith("arc_"))
    lexical = [a for a in vectors if mem.jump.lexical.has(a)]
    return sorted((r["G"], tuple(r["Hs"])) for r in rows), vectors, lexical


def test_a_session_captured_as_it_grew_holds_the_arcs_one_ingest_gives(home: Path,
                                                                        tmp_path: Path):
    """Live capture reads a session a few records at a time and curates each time; every
    growth made the goal's run of items a new arc, and the old ones stayed: one goal had an
    arc per growth (stale summaries, each ending at an earlier call) that filled frames."""
    lines = [claude_code_record("u0", "user", "Why does the nightly build hang?", 0)]
    for i in range(5):
        lines.append(claude_code_record(f"a{i}", "assistant", [
            {"type": "tool_use", "id": f"t{i}", "name": "Bash",
             "input": {"command": f"pytest tests/slow_{i}.py"}}], 2 * i + 1))
        lines.append(claude_code_record(f"r{i}", "user", [
            {"type": "tool_result", "tool_use_id": f"t{i}",
             "content": f"Timeout >600s in test_sync_{i}"}], 2 * i + 2))
    log = tmp_path / "S1.jsonl"
    for where in (home, tmp_path / "whole"):
        where.mkdir(exist_ok=True)
        write_config(where, {"embedder": "hash"})
    with Memory.open(home) as mem:
        for cut in range(2, len(lines) + 1):     # a call before its result, then the result
            log.write_text("".join(lines[:cut]), encoding="utf-8")
            mem.ingest([log])
            mem.curate()
        live = arcs_and_entries(mem)
        frame = mem.hydrate("why does the nightly build hang", budget=400)
        arcs_shown = [f for f in frame.receipt["facts"] if f["handle"].startswith("arc_")]
    with Memory.open(tmp_path / "whole") as mem:
        mem.ingest([log])
        mem.curate()
        whole = arcs_and_entries(mem)
    assert len(whole[0]) == 1 and len(whole[0][0][1]) == 6   # the goal and its 5 calls
    assert live == whole
    assert len(arcs_shown) <= 1


def test_an_arc_a_moved_turn_was_in_leaves_the_indexes(home: Path, tmp_path: Path):
    """Turns whose times a later reading changed drop their arcs' rungs at ingest: the arcs'
    vectors and BM25 entries went on naming records that no longer exist."""
    write_config(home, {"embedder": "hash"})
    chat = tmp_path / "chat.txt"
    body = ("[1/2/23, 1:56:03 PM] Priya: I signed up for pottery\n"
            "[1/3/23, 9:01:00 AM] Tomás: nice, which studio?\n"
            "[1/3/23, 9:02:00 AM] Tomás: the one downtown?\n")
    chat.write_text(body, encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        mem.curate()
        (before,) = arcs_and_entries(mem)[1]
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("[13/3/23, 10:00:00 AM] Priya: the one on Rua Augusta\n")
        assert mem.ingest([chat]).updated == 3
        assert not mem.jump.lexical.has(before) and before not in mem.jump.vectors.keys()
        mem.curate()
        arcs, vectors, lexical = arcs_and_entries(mem)
        assert vectors == lexical == sorted(a for a in {r["A"] for r in mem.query(
            "arc(A)", limit=100).rows})


def test_a_belief_resting_on_a_superseded_or_moved_item_goes_dirty(home: Path, tmp_path: Path):
    """A belief citing an item is dirty once the item changes or is withdrawn (as erasing it
    does); a later reading that superseded the item, or moved it to another day, left the
    belief clean, still vouching for a turn memory no longer holds as it was."""
    chat = tmp_path / "chat.txt"
    chat.write_text("[1/2/23, 1:56:03 PM] Priya: I signed up for pottery\n"
                    "[1/3/23, 9:01:00 AM] Tomás: nice, which studio?\n"
                    "[1/3/23, 9:02:00 AM] Priya: the small one\n", encoding="utf-8")
    runner = CliRunner()
    at = ["--home", str(home)]
    assert runner.invoke(main, ["ingest", str(chat), *at]).exit_code == 0
    with Memory.open(home) as mem:
        handle = {r["T"]: r["H"] for r in mem.query("item_text(H, T)").rows}
    for belief, text in (("studio", "the small one"), ("signup", "I signed up for pottery")):
        added = runner.invoke(main, ["belief", "add", belief, "--type", "dependency_version",
                                     "--subject", belief, "--value", "x", "--confidence", "0.9",
                                     "--volatility", "config_docs", "--supports", handle[text],
                                     *at])
        assert added.exit_code == 0, added.output
    with chat.open("a", encoding="utf-8") as fh:   # the last turn goes on; 13/3 says day first
        fh.write("with the blue door\n[13/3/23, 10:00:00 AM] Priya: see you there\n")
    result = runner.invoke(main, ["ingest", str(chat), *at, "--format-output", "json"])
    report = json.loads(result.stdout)
    assert (report["superseded"], report["updated"]) == (1, 2)
    for belief in ("studio", "signup"):
        shown = runner.invoke(main, ["belief", "show", belief, *at]).output
        assert "[DIRTY]" in shown and re.search(r"item it_\w+ changed", shown), shown


@pytest.mark.parametrize("order", ["parent grows", "subagent first"])
def test_a_subagent_whose_launch_never_got_a_result_takes_the_goal_its_progress_names(
        home: Path, tmp_path: Path, order: str):
    """A session killed while its subagent ran: the Task call never gets a result, and only
    its `progress` records name the agent. Read so, the subagent's items took the launching
    goal; read before them (live capture, or the subagent's file first), they kept "" for
    good, because only a result item carried the goal to items already stored."""
    session = LiveSubagent(tmp_path)
    final = session.lines[:session.launched + 1] + session.lines[session.launched + 2:]
    assert '"tool_use_id": "toolu_task1"' not in "".join(final)   # the result never written
    session.sub.write_text("".join(session.agent), encoding="utf-8")
    with Memory.open(home) as mem:
        if order == "parent grows":
            session.parent.write_text("".join(session.lines[:session.launched]),
                                      encoding="utf-8")     # the call, no progress yet
            assert mem.ingest([session.projects]).goals_unresolved
            session.parent.write_text("".join(final), encoding="utf-8")
            report = mem.ingest([session.projects])
        else:
            assert mem.ingest([session.sub]).goals_unresolved   # its parent not written yet
            session.parent.write_text("".join(final), encoding="utf-8")
            report = mem.ingest([session.parent])
        goals, fields = item_goals(mem), item_fields(mem)
        agent_goals = {r["G"] for r in mem.query("relation(H, agent, a7c1d2e), item_goal(H, G)")
                       .rows}
    with Memory.open(tmp_path / "whole") as mem:
        mem.ingest([session.projects])
        assert goals == item_goals(mem) and fields == item_fields(mem)
    assert agent_goals == {"Fix the rounding bug in the checkout total: carts of 3 items are "
                           "off by one cent."}
    assert report.updated >= 3


def test_a_subagent_adopting_a_forgotten_launch_goal_takes_the_marker(home: Path,
                                                                      tmp_path: Path):
    session = LiveSubagent(tmp_path)
    final = session.lines[:session.launched + 1] + session.lines[session.launched + 2:]
    session.parent.write_text("".join(session.lines[:session.launched]), encoding="utf-8")
    session.sub.write_text("".join(session.agent), encoding="utf-8")
    goal = "Fix the rounding bug in the checkout total"
    with Memory.open(home) as mem:
        mem.ingest([session.projects])
        (asked,) = [r["H"] for r in mem.query("item_kind(H, user_goal), item_text(H, T)").rows
                    if goal in r["T"]]
        mem.forget([asked], reason="not to be kept")
        session.parent.write_text("".join(final), encoding="utf-8")
        mem.ingest([session.projects])
        agent_goals = {r["G"] for r in mem.query("relation(H, agent, a7c1d2e), item_goal(H, G)")
                       .rows}
        assert agent_goals == {"[forgotten]"}
        assert not [g for g in item_goals(mem).values() if goal in g]


@pytest.mark.parametrize("body, grows, successors", [
    ("Priya: I signed up for the pottery class.\nTomás: Nice! Which day?\n"
     "Priya: my card number is 4111 1111\n", "and the expiry is 12/29\n", 1),  # it goes on
    # Tomás's one line, last (no reply between two of Priya's, and a turn of two lines above:
    # not a chat of nothing but speaker lines), is read as Priya's until...
    ("Priya: quick question about the deposit\nfor the flat\nPriya: my card number is 4111 1111\n"
     "Tomás: which bank?\n", "Tomás: ok\n", 2)])  # he speaks again: the turn splits in two
def test_a_labelled_turn_keeps_its_labels_in_the_reading_that_supersedes_it(
        home: Path, tmp_path: Path, body: str, grows: str, successors: int):
    """A turn labelled pii was superseded by its longer reading (or split between two
    speakers once a name spoke again), and the new items carried no label: a grantee read
    the card number verbatim."""
    chat = tmp_path / "chat.txt"
    chat.write_text(body, encoding="utf-8")
    runner = CliRunner()
    at = ["--home", str(home)]

    def ok(*words: str) -> str:
        result = runner.invoke(main, [*words, *at])
        assert result.exit_code == 0, result.output
        return result.output

    ok("ingest", str(chat))
    ok("principal", "add", "alice", "--owner")
    ok("principal", "add", "bob")
    ok("grant", "add", "bob", "--segment", "default", "--ceiling", "L0")
    with Memory.open(home) as mem:
        (card,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "4111" in r["T"]]
    ok("label", card, "--restrict", "pii", "--retain-until", "2030-01-01")
    assert "4111" not in ok("query", "item_text(H, T)", "--as", "bob")
    with chat.open("a", encoding="utf-8") as fh:
        fh.write(grows)
    assert '"superseded": 1' in ok("ingest", str(chat), "--format-output", "json")
    assert "4111" not in ok("query", "item_text(H, T)", "--as", "bob")
    with Memory.open(home) as mem:   # the items that hold the labelled turn's text now
        now = sorted({r["H"] for r in mem.query("item_text(H, T)").rows
                      if "4111" in r["T"] or r["T"] == "which bank?"})
    assert len(now) == successors and card not in now
    shown = ok("label", *now, "--show")
    assert shown.count('"pii"') == len(now) and shown.count("2030-01-01") == len(now), shown


def test_a_labelled_call_keeps_its_labels_once_its_result_is_read(home: Path, tmp_path: Path):
    """A call read before its result is superseded by the call with its result, a record
    further down: its labels went nowhere, and the command line it held was read again."""
    log = call_log(tmp_path, "Why does the nightly build hang?", "deploy --token=S3CRET")
    runner = CliRunner()
    at = ["--home", str(home)]
    assert runner.invoke(main, ["ingest", str(log), *at]).exit_code == 0
    with Memory.open(home) as mem:
        (call,) = [r["H"] for r in mem.query("relation(H, no_result, true)").rows]
    for words in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                  ["label", call, "--reader", "bob"]):
        assert runner.invoke(main, [*words, *at]).exit_code == 0
    with log.open("a", encoding="utf-8") as fh:
        fh.write(call_result("deployed"))
    assert runner.invoke(main, ["ingest", str(log), *at]).exit_code == 0
    with Memory.open(home) as mem:
        (answered,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
    assert answered != call
    shown = runner.invoke(main, ["label", answered, "--show", *at]).output
    assert '"readers": ["bob"]' in shown, shown


def test_a_forgotten_turn_that_goes_on_stays_forgotten(home: Path, tmp_path: Path):
    """Erasure promises the text never comes back; the turn's next line, appended to the file,
    made the whole turn an item of another handle and text, forgotten text included."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: I signed up for the pottery class.\nTomás: Nice! Which day?\n"
                    "Priya: my card number is 4111 1111\n", encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        (card,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "4111" in r["T"]]
        mem.forget([card], reason="a card number")
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("and the expiry is 12/29\n")
        report = mem.ingest([chat])
        assert (report.new, report.forgotten) == (0, 1)
        assert not [r for r in mem.query("item_text(H, T)").rows if "4111" in r["T"]]
    assert files_holding(home, b"4111 1111") == []


def test_a_call_forgotten_before_its_result_stays_forgotten(home: Path, tmp_path: Path):
    log = call_log(tmp_path, "Deploy the release", "deploy --token=S3CRET")
    with Memory.open(home) as mem:
        mem.ingest([log])
        (call,) = [r["H"] for r in mem.query("relation(H, no_result, true)").rows]
        mem.forget([call], reason="a token")
        with log.open("a", encoding="utf-8") as fh:
            fh.write(call_result("deployed\nall green"))
        assert mem.ingest([log]).forgotten == 1
    assert files_holding(home, b"S3CRET") == []


def test_forgetting_a_turn_forgets_its_shorter_readings_too(home: Path, tmp_path: Path):
    """A turn read before it went on is superseded, out of every query, and its text stays in
    the journal; `atc forget` of the turn that holds a card number now (as a user finds it)
    left that text in journal.pl, where erasure promises no file holds it."""
    chat = tmp_path / "chat.txt"
    chat.write_text("Priya: I signed up for the pottery class.\nTomás: Nice! Which day?\n"
                    "Priya: my card number is 4111 1111\n", encoding="utf-8")
    runner = CliRunner()
    at = ["--home", str(home)]
    assert runner.invoke(main, ["ingest", str(chat), *at]).exit_code == 0
    for more in ("and the expiry is 12/29\n", "and the code 123\n"):    # read after each line
        with chat.open("a", encoding="utf-8") as fh:
            fh.write(more)
        assert runner.invoke(main, ["ingest", str(chat), *at]).exit_code == 0
    result = runner.invoke(main, ["forget", "--query",
                                  'item_text(H, T), sub_string(T, _, _, _, "4111")',
                                  "--yes", "--format", "json", *at])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["items"]) == 3     # the turn and its two readings
    assert files_holding(home, b"4111 1111") == []


def test_forgetting_a_call_forgets_its_reading_before_the_result(home: Path, tmp_path: Path):
    log = call_log(tmp_path, "Deploy the release", "deploy --token=S3CRET")
    with Memory.open(home) as mem:
        mem.ingest([log])
        with log.open("a", encoding="utf-8") as fh:
            fh.write(call_result("deployed"))
        mem.ingest([log])
        (call,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
        assert len(mem.forget([call]).handles) == 2
    assert files_holding(home, b"S3CRET") == []


def test_a_superseded_turn_leaves_its_cell_at_once(home: Path, tmp_path: Path):
    """A cell's size, span and ladder are its live members': the shorter reading of a turn
    that went on must leave its cell when the re-read supersedes it, not linger in the cell's
    size (and the curate report's count) until the cell happens to change."""
    write_config(home, {"embedder": "hash"})
    lines = [f"{('Priya', 'Tomás')[i % 2]}: {('pottery', 'Lisbon', 'deadline', 'garden')[i % 4]} "
             f"plans, take {i}" for i in range(40)]
    chat = tmp_path / "chat.txt"
    chat.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([chat])
        mem.curate()
        last = mem.query('item_text(H, "garden plans, take 39")', limit=1).rows[0]["H"]
        assert mem.query(f"cell_member(_, {last})", limit=1).rows
        with chat.open("a", encoding="utf-8") as fh:
            fh.write("and the basil seedlings too\n")
        assert mem.ingest([chat]).superseded == 1

        def sizes_match() -> None:
            rows = mem.query("cell(C), cell_info(C, size, S), "
                             "aggregate_all(count, cell_member(C, _), N)", limit=100).rows
            assert rows and all(r["S"] == r["N"] for r in rows), rows
            assert not mem.query(f"cell_of({last}, C)", limit=1).rows

        sizes_match()
        report = mem.curate()
        sizes_match()
        assert report.cells["items"] == len(mem.query("item(H)", limit=1000).rows)
        assert not mem.query("item(H), \\+ cell_member(_, H)", limit=5).rows
