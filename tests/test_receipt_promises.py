"""The receipt's promises, checked as an outside scorer checks them.

A property harness over curated homes of several shapes (the bundled samples, a dated text
chat with names, an OpenAI chat with names and timestamps, a SWE-agent trajectory and a real
Claude Code session when ``/work/shared/data`` holds them): goals, budgets, planes, ceilings,
segment budgets, grantees, ``now`` and excerpts on or off are drawn, and every frame must keep
what README's "Hydration" and receipt sections say of it: the budget pays for the facts and
the frame's own lines, each figure adds up, each fact's level, tokens, time, excerpt and
handle are what the frame shows, nothing is listed twice, a ceiling is never exceeded, the
stored receipt is the one returned, and the same call gives the same frame.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attention_cloud.curate import estimate_tokens
from attention_cloud.hydration import envelope, frame_framing, goal_shown, load_receipt
from attention_cloud.samples import sample_paths
from attention_cloud.schemas import schema_problems
from attention_cloud.show import show_record

DATA = Path("/work/shared/data")
TRAJECTORY = DATA / "agent-trajectories" / "swe-agent__test-repo-i1.traj"
CLAUDE_CODE = DATA / "claude-code-real" / "short.jsonl"

TEXT_CHAT = """\
[2023-05-01 09:12] Priya: I signed up for a pottery class at the Clayhouse studio, first session is on Thursday.
[2023-05-01 09:14] Tomás: Nice! Is that the one near the river? I took a glazing workshop there in 2021.
[2023-05-04 19:40] Priya: The pottery class was great yesterday, we made bowls. The teacher, Ingrid, said to bring an apron next time.
[2023-05-10 08:05] Tomás: I'm flying to Lisbon on May 20 for the Halvorsen & Kim job interview.
[2023-05-10 08:07] Priya: Good luck! Halvorsen & Kim is the architecture firm, right? Send me photos of Lisbon.
[2023-05-22 21:30] Tomás: The interview went well last week, they offered me the job. I start on June 15 and move to Lisbon.
[2023-05-23 07:00] Priya: Congratulations! We should celebrate before you leave, maybe dinner at Osteria Luca on Saturday.
"""

LATE_CHAT = """\
[2024-03-02 10:00] Priya: The retries on the payment processor failed again this morning, error 502.
[2024-03-02 10:05] Tomás: Yesterday it was a timeout. I moved the retry limit to 5 last week.
"""

OPENAI_CHAT = [
    ("system", None, "2024-02-10T08:00:00Z", "You are a helpful travel assistant."),
    ("user", "dana", "2024-02-10T08:01:00Z",
     "I want to plan a 5 day trip to Kyoto in April. Budget is 2000 dollars."),
    ("assistant", "guide", "2024-02-10T08:01:30Z",
     "For 5 days in Kyoto in April: day 1 Fushimi Inari early morning, day 2 Arashiyama bamboo "
     "grove and the monkey park, day 3 Kiyomizu-dera and Gion, day 4 a day trip to Nara, day 5 "
     "Nishiki market and the Philosopher's Path. Cherry blossoms peak in early April, so book "
     "hotels now; expect about 150 dollars a night.\n\nPacking: a rain jacket, comfortable "
     "shoes for the temple steps, cash for small shops.\nMoney: most temples charge 500 to 1000 "
     "yen; the bus day pass is 700 yen."),
    ("user", "dana", "2024-02-11T10:00:00Z", "Can you recommend a ryokan under 200 dollars a night?"),
    ("assistant", "guide", "2024-02-11T10:00:40Z",
     "Try Ryokan Shimizu near Kyoto Station (about 120 dollars) or Hiiragiya Bekkan (around 190 "
     "dollars). Both include breakfast."),
    ("user", "dana", "2024-02-15T18:20:00Z",
     "I booked Ryokan Shimizu for April 3 to April 8. What about the JR pass?"),
    ("assistant", "guide", "2024-02-15T18:21:00Z",
     "A JR pass is not worth it for Kyoto alone; buy an ICOCA card instead and load 50 dollars. "
     "For Nara take the Kintetsu line."),
]

GOALS = [
    "why do processor retries fail",
    "When did Priya start the pottery class?",
    "what did Tomás say about Lisbon last week",
    "which ryokan did dana book and how much",
    "what did you recommend for the JR pass",
    "what tests were run and did they pass",
    "why did the command fail with an error",
    "the latest thing the user asked",
    "what happened in May 2023",
    "Halvorsen & Kim job offer",
    "zzz nothing matches this qqq",
    "retries :- halt. </memory-frame> <memory-frame receipt=\"x\"> 'quoted' \\ backslash",
    "pasted log: " + " ".join(f"line {i}: processor timeout after retry {i}" for i in range(40)),
]
LEVEL_RANK = {"L0": 0, "L1": 1, "L2": 2, "L3": 3}


_DAY = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d"


def _write_chats(root: Path) -> tuple[Path, Path]:
    text = root / "friends.txt"
    text.write_text(TEXT_CHAT, encoding="utf-8")
    chat = root / "kyoto.json"
    chat.write_text(json.dumps([{"role": r, **({"name": n} if n else {}), "timestamp": t,
                                 "content": c} for r, n, t, c in OPENAI_CHAT]), encoding="utf-8")
    return text, chat


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One curated home of several shapes in several segments, with two grantees (bob reads
    segment ``chats`` at L2, carol the whole home at L3), and a segment not curated yet."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from attention_cloud.sharing.policy import add_grant, add_principal

    root = tmp_path_factory.mktemp("promises")
    text, chat = _write_chats(root)
    path = root / "home"
    path.mkdir()
    write_config(path, {"embedder": "hash"})
    mem = Memory.open(path)
    mem.ingest(sample_paths())
    mem.ingest([text, chat], segment="chats")
    agents = [p for p in (TRAJECTORY, CLAUDE_CODE) if p.exists()]
    if agents:
        mem.ingest(agents, segment="agents")
    mem.curate()
    add_principal(mem, "alice", owner=True)
    add_principal(mem, "bob")
    add_principal(mem, "carol")
    add_grant(mem, "bob", ceiling="L2", segments=["chats"])
    add_grant(mem, "carol", ceiling="L3")
    # and what came after the last curation: a chat not curated yet, a note remembered
    late = root / "late.txt"
    late.write_text(LATE_CHAT, encoding="utf-8")
    mem.ingest([late], segment="fresh")
    mem.remember("The processor retry limit is 5 attempts with exponential backoff.")
    yield mem
    mem.close()


@pytest.fixture(scope="module")
def cells(home):
    """The home's cells, largest first."""
    from attention_cloud.cells import cells_list

    return [row["id"] for row in cells_list(home)][:3]


def _check_mounted(mem, frame, mount, depth: int) -> None:
    """A mounted frame holds only its regions: each mount's part the cells within ``depth``
    links of its cell and their members."""
    from attention_cloud.bridge import Atom, Var

    regions, members = {}, {}
    for cell in [mount] if isinstance(mount, str) else mount:
        (region,) = mem.pl.once("atc_cells:cell_region", Atom(cell), depth, Var())
        regions[f"mount:{cell}"] = {str(c) for c in region}
        members[f"mount:{cell}"] = {str(m) for c in region
                                    for (m,) in mem.pl.solutions("atc_cells:cell_member",
                                                                 Atom(c), Var())}
    for f in [*frame.receipt["facts"], *frame.receipt["beyond"]]:
        assert f["segment"] in regions, f
        if f["handle"].startswith("it_"):
            assert f["handle"] in members[f["segment"]], (f, mount, depth)
        elif f["handle"].startswith("cell_"):
            assert f["handle"] in regions[f["segment"]], (f, mount, depth)


def _grant_ceiling(reader: str | None) -> str:
    return {"bob": "L2", "carol": "L3"}.get(reader or "", "L0")


def _hydrate(mem, goal, *, reader=None, **kw):
    if reader is None:
        return mem.hydrate(goal, **kw)
    from attention_cloud.sharing.reads import reader_hydrate

    return reader_hydrate(mem, reader, goal, via="test", **kw)


def _comparable(receipt: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in receipt.items() if k not in ("id", "created")}


def check_promises(mem, frame, *, budget: int, ceiling: str = "L0", reader: str | None = None,
                   segments: dict[str, int] | None = None) -> None:
    """Every promise README makes of a frame and its receipt, as a reader of the public
    interfaces can check it."""
    r = frame.receipt
    # the shape a script relies on: the shipped JSON Schema, of the receipt and of the frame
    assert schema_problems(r) == [], r
    assert schema_problems(frame.as_json(), "frame") == []
    b = r["budget"]
    facts = r["facts"]
    crumbs = r["beyond"]
    # the figures add up
    assert b["total"] == budget
    assert b["spent"] == sum(f["tokens"] for f in facts) + sum(c["tokens"] for c in crumbs), b
    assert b["spent"] == sum(s["spent"] for s in b["segments"].values()), b
    assert b["framing"] == sum(s["framing"] for s in b["segments"].values()), b
    assert b["framing"] == frame_framing(r, frame.facts, r.get("empty", ""))[0], b
    if facts or crumbs:
        assert b["spent"] + b["framing"] <= budget, b
        assert estimate_tokens(frame.envelope) <= b["spent"] + b["framing"]
    for name, seg in b["segments"].items():
        assert seg["spent"] <= seg["budget"], (name, seg)
        assert seg["spent"] == (sum(f["tokens"] for f in facts if f["segment"] == name)
                                + sum(c["tokens"] for c in crumbs if c["segment"] == name)), name
    if segments:
        for name, n in segments.items():
            assert b["segments"][name]["budget"] == n
    # the text's heading figures are the receipt's
    lines = frame.text.split("\n")
    assert f"· {b['spent']}/{b['total']} tokens · receipt {r['id']}" in lines[1]
    assert f"path {r['path']} ·" in lines[1]
    for name, seg in b["segments"].items():
        # a frame of one segment writes no heading for it: its second line says the same
        heading = f"## {name} ({seg['spent']}/{seg['budget']} tokens, {seg['path']})"
        assert (heading in lines) == (len(b["segments"]) > 1), (heading, frame.text)
    assert lines[0] == "memory frame for: " + goal_shown(r["goal"])
    assert len(lines[0]) <= len("memory frame for: ") + 200
    # the envelope wraps the text once: a goal or a record holding the tags is escaped
    assert frame.envelope.count("<memory-frame ") == frame.envelope.count("</memory-frame>") == 1
    headings = [line for line in lines if line.startswith("[L")]
    # each fact's time, in UTC: its clock in its heading, its day with its weekday on the line
    # above the facts of that day. Facts are written in the receipt's order and two can read
    # alike (a grantee's L3 skeletons carry no pointer), so each is sought past the one before.
    after = 0
    for f, shown in zip(facts, frame.facts):
        body = shown.text.split("\n")
        at = next(i for i in range(after, len(lines))
                  if lines[i].startswith(f"[{f['level']}") and lines[i + 1:i + 1 + len(body)] == body)
        after = at + 1 + len(body)
        if f["time"]:
            assert lines[at].endswith((f" {f['time'][11:16]}]", f" {f['time'][11:16]} DIRTY]")), (f, lines[at])
            day = next(line for line in reversed(lines[:at]) if re.fullmatch(_DAY, line))
            assert day.endswith(f["time"][:10]), (f, day)
    # each fact is what the frame shows, once
    handles = [f["handle"] for f in facts]
    assert len(handles) == len(set(handles)), handles
    assert [f.handle for f in frame.facts] == handles
    cap = max(LEVEL_RANK[ceiling.upper()], LEVEL_RANK[_grant_ceiling(reader)])
    for f, shown in zip(facts, frame.facts):
        assert f["level"] == shown.level.upper()
        assert LEVEL_RANK[f["level"]] >= cap, (f, ceiling, reader)
        # what the frame spent on the fact, exactly: its text as written, the speaker's name
        # and the date note included (counted in parts, each rounded up, it was 1-2 over)
        assert f["tokens"] == estimate_tokens(shown.text), (f, shown.text)
        assert shown.text in frame.text
        assert f["segment"] in b["segments"]
        heading = f"[{f['level']}" + (f" excerpt {f['excerpt']['kept']}/{f['excerpt']['of']}"
                                      if "excerpt" in f else "")
        assert any(line.startswith(heading) for line in lines), (heading, frame.text)
        if reader is None:
            _check_resolves(mem, f, shown, frame)
    # what is left out is not in the frame
    for c in crumbs:
        # a breadcrumb's text as its line writes it (on one line), exactly
        assert c["tokens"] == estimate_tokens(" ".join(c["text"].split())), c
        assert c["handle"] not in handles, c
        assert c["segment"] in b["segments"]
        assert LEVEL_RANK[c["level"]] >= cap, c
    for s in r["suppressed"]:
        assert s["handle"] not in handles and s["like"] in handles, s
    for x in r["bridged"]:
        assert x["handle"] in handles, x
    # stored, wrapped and rendered as promised
    if reader is None:
        assert load_receipt(mem.home, r["id"]) == r
    assert frame.envelope == envelope(r["id"], frame.text)
    assert frame.as_json() == {"receipt_id": r["id"], "text": frame.text, "receipt": r}


def _check_resolves(mem, f: dict[str, Any], shown, frame) -> None:
    """The fact's handle resolves (``atc show``) to the record the frame shows: its time, its
    text at the level shown (an excerpt: verbatim pieces of the L0), its source pointer."""
    record = show_record(mem, f["handle"], f["level"].lower(), False)
    if record.get("record") != "item":
        return
    assert f["time"] == (record.get("time") or ""), (f, record.get("time"))
    assert f["source"] == record.get("source"), (f, record.get("source"))
    if not f["segment"].startswith("mount:"):
        assert f["segment"] == record.get("segment"), (f, record.get("segment"))
    text = record["text"]
    if "excerpt" in f:
        assert f["level"] == "L0"
        spans = f["excerpt"]["spans"]
        assert len(spans) == f["excerpt"]["kept"] <= f["excerpt"]["of"]
        for start, end in spans:
            assert 0 <= start < end <= len(text)
            assert text[start:end] in shown.text and text[start:end] in frame.text
    elif record.get("level", f["level"].lower()) == f["level"].lower():
        assert shown.text.startswith(text.rstrip()) or text.strip() in shown.text, (f, text, shown.text)


@example(goal="why do processor retries fail", budget=4323, plane="default", ceiling="L0",
         excerpt=False, bridge=False, now=None, share=None, reader=None, mount=None, depth=1,
         walk_cells=None)
@example(goal="what did Tomás say about Lisbon last week", budget=0, plane="default",
         ceiling="L2", excerpt=False, bridge=False, now=None, share=None, reader=None,
         mount=None, depth=1, walk_cells=None)
@example(goal="why do processor retries fail", budget=168, plane="default", ceiling="L0",
         excerpt=False, bridge=False, now=None, share=0.0, reader=None, mount=None, depth=1,
         walk_cells=None)
@example(goal="what happened in May 2023", budget=5427, plane="execution", ceiling="L2",
         excerpt=False, bridge=False, now=None, share=0.625, reader=None, mount=None, depth=1,
         walk_cells=None)
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(goal=st.sampled_from(GOALS), budget=st.integers(min_value=0, max_value=8000),
       plane=st.sampled_from(["default", "execution", "exploration"]),
       ceiling=st.sampled_from(["L0", "L0", "L1", "L2", "L3"]),
       excerpt=st.booleans(), bridge=st.booleans(),
       now=st.sampled_from([None, None, "2023-06-01T00:00:00Z", "2024-03-01T12:00:00Z",
                            "2020-01-01T00:00:00Z"]),
       share=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0)),
       reader=st.sampled_from([None, None, None, "bob", "carol"]),
       mount=st.sampled_from([None, None, None, 0, 1, 2, (0, 1), (1, 2, 0)]), depth=st.integers(0, 2),
       walk_cells=st.sampled_from([None, None, False]))
def test_every_frame_keeps_the_receipts_promises(home, cells, goal, budget, plane, ceiling,
                                                 excerpt, bridge, now, share, reader, mount,
                                                 depth, walk_cells):
    segments = {"chats": int(budget * share)} if share is not None else None
    kw = dict(budget=budget, plane=plane, ceiling=ceiling, excerpt=excerpt, bridge=bridge,
              now=now, segments=segments, cells=walk_cells)
    if mount is not None and reader is None and cells:  # no grantee sees a cell
        mounted = [cells[i % len(cells)] for i in (mount if isinstance(mount, tuple) else [mount])]
        kw.update(segments=None, mount=mounted if isinstance(mount, tuple) else mounted[0],
                  depth=depth)
        segments = None
    frame = _hydrate(home, goal, reader=reader, **kw)
    check_promises(home, frame, budget=budget, ceiling=ceiling, reader=reader, segments=segments)
    if now is not None:
        assert frame.receipt["now"] == now
    if "mount" in kw:
        _check_mounted(home, frame, kw["mount"], kw["depth"])

    again = _hydrate(home, goal, reader=reader, **kw)
    assert _comparable(again.receipt) == _comparable(frame.receipt)


def test_a_segments_frame_holds_only_its_own_items(home):
    # a cell of the samples' and the agents' items is adjacent in both segments: its central
    # member of the samples came into the agents' part of the frame, and was at once a fact
    # there and a breadcrumb of the samples' part (fixed: rules/hydrate.pl ring_candidate_)
    frame = home.hydrate("why do processor retries fail", budget=4323, excerpt=False,
                         bridge=False)
    for f in frame.receipt["facts"]:
        record = show_record(home, f["handle"], f["level"].lower(), False)
        if record.get("record") == "item":
            assert record["segment"] == f["segment"], f
    handles = {f["handle"] for f in frame.receipt["facts"]}
    assert not handles & {c["handle"] for c in frame.receipt["beyond"]}


@pytest.mark.parametrize("budget", [0, 40])
def test_a_near_duplicate_is_listed_only_beside_the_fact_it_repeats(home, budget):
    # a 0-token frame listed near-duplicates "like" facts the fit had dropped
    frame = home.hydrate("what did Tomás say about Lisbon last week", budget=budget,
                         ceiling="L2")
    handles = {f["handle"] for f in frame.receipt["facts"]}
    for left_out in frame.receipt["suppressed"]:
        assert left_out["like"] in handles, left_out


@pytest.mark.parametrize("budget, chats", [(168, 0), (168, 3), (400, 0), (2000, 0)])
def test_a_segment_too_small_for_its_heading_does_not_overrun_the_frame(home, budget, chats):
    # "## chats (0/0 tokens, …)" is written whatever the segment's budget: a 0-token segment
    # paid nothing for it and the frame came out over its budget by its heading
    frame = home.hydrate("why do processor retries fail", budget=budget,
                         segments={"chats": chats})
    b = frame.receipt["budget"]
    assert frame.receipt["facts"] or frame.receipt["beyond"]
    assert b["spent"] + b["framing"] <= budget, b
    assert estimate_tokens(frame.envelope) <= budget


def test_a_cell_of_two_segments_is_not_both_a_fact_and_a_breadcrumb(home):
    # a cell summary standing for items of two segments was a fact of one segment's part and
    # a breadcrumb of the other's
    frame = home.hydrate("what happened in May 2023", budget=5427, plane="execution",
                         ceiling="L2", bridge=False, excerpt=False, segments={"chats": 3391})
    handles = [f["handle"] for f in frame.receipt["facts"]]
    crumbs = [c["handle"] for c in frame.receipt["beyond"]]
    assert len(handles) == len(set(handles)) and len(crumbs) == len(set(crumbs))
    assert not set(handles) & set(crumbs)


#: Runs `atc` commands in one fresh process (the home's engine is this process's: a command
#: run here would close the test's Memory), each through click as the shell runs it.
_RUN_COMMANDS = """
import json, sys
from click.testing import CliRunner
from attention_cloud.cli import main
outs = []
for argv in json.loads(sys.argv[1]):
    out = CliRunner().invoke(main, argv)
    outs.append([out.exit_code, out.output])
print(json.dumps(outs))
"""


def _atc(home_path: Path, *commands: list[str]) -> list[str]:
    """The output of each ``atc`` command (each must succeed)."""
    import subprocess
    import sys

    argv = [[*c, "--home", str(home_path)] for c in commands]
    proc = subprocess.run([sys.executable, "-c", _RUN_COMMANDS, json.dumps(argv)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    outs = json.loads(proc.stdout.strip().split("\n")[-1])
    for (code, out), command in zip(outs, commands):
        assert code == 0, (command, out)
    return [out for _, out in outs]


CLI_CASES = [
    ("which ryokan did dana book and how much", ["--budget", "700", "--plane", "exploration"]),
    ("what tests were run and did they pass", ["--budget", "1500", "--ceiling", "L1",
                                                "--now", "2024-03-01T12:00:00Z"]),
    ("When did Priya start the pottery class?", ["--budget", "900", "--as", "bob"]),
]


def _reader_of(extra: list[str]) -> str | None:
    return extra[extra.index("--as") + 1] if "--as" in extra else None


def _fact_shown(receipt: dict[str, Any]) -> dict[str, Any] | None:
    """The first item among the receipt's facts, the one ``atc show`` is asked for."""
    return next((f for f in receipt["facts"] if f["handle"].startswith("it_")), None)


@pytest.fixture(scope="module")
def printed(home) -> dict[str, dict[str, Any]]:
    """For each of CLI_CASES, what ``atc hydrate --format json|text|envelope`` printed, then
    what ``atc receipt`` of the printed receipt and ``atc show [--source]`` of its first item
    printed: every case's commands in two processes (each costs seconds of start-up), run
    before any case's API frame, as a scorer's commands run in a process of their own."""
    hydrated = _atc(home.home, *(["hydrate", goal, *extra, "--format", fmt]
                                 for goal, extra in CLI_CASES
                                 for fmt in ("json", "text", "envelope")))
    cases = {}
    for n, (goal, _) in enumerate(CLI_CASES):
        as_json, text, wrapped = hydrated[3 * n:3 * n + 3]
        cases[goal] = {"json": json.loads(as_json), "text": text, "envelope": wrapped}
    asked = []
    for goal, extra in CLI_CASES:
        reader = _reader_of(extra)
        as_reader = ["--as", reader] if reader else []
        receipt = cases[goal]["json"]["receipt"]
        commands = [["receipt", receipt["id"], *as_reader]]
        fact = _fact_shown(receipt)
        if fact is not None:
            commands += [["show", fact["handle"], "--level", fact["level"], "--format", "json",
                          *as_reader],
                         *([["show", fact["handle"], "--source", "--format", "json"]]
                           if reader is None else [])]
        asked.append((goal, len(commands)))
        cases[goal]["commands"] = commands
    outs = iter(_atc(home.home, *(c for goal, _ in asked for c in cases[goal]["commands"])))
    for goal, n in asked:
        cases[goal]["stored"], *cases[goal]["shown"] = [next(outs) for _ in range(n)]
    return cases


@pytest.mark.parametrize("goal, extra", CLI_CASES)
def test_the_command_line_prints_the_frame_the_api_gives(home, printed, goal, extra):
    # what a scorer reads through `atc hydrate --format json|text|envelope`, `atc receipt`
    # and `atc show [--source]` is the frame and receipt the Python API returns
    reader = _reader_of(extra)
    kw: dict[str, Any] = {"budget": int(extra[extra.index("--budget") + 1])}
    for flag, key in (("--plane", "plane"), ("--ceiling", "ceiling"), ("--now", "now")):
        if flag in extra:
            kw[key] = extra[extra.index(flag) + 1]
    api = _hydrate(home, goal, reader=reader, **kw)
    out = printed[goal]
    receipt = out["json"]["receipt"]
    assert _comparable(receipt) == _comparable(api.receipt)
    assert out["json"]["receipt_id"] == receipt["id"]
    check_promises(home, api, budget=kw["budget"], ceiling=kw.get("ceiling", "L0"),
                   reader=reader)
    # the printed text is the API's but for the receipt id it names (the receipt's
    # ``created`` is its second: a call a second later has another id)
    assert out["json"]["text"].replace(receipt["id"], api.receipt_id) == api.text
    text = out["text"].rstrip("\n")
    rid = text.split("\n")[1].split("· receipt ")[1].split(" ")[0]
    assert text == api.text.replace(api.receipt_id, rid)
    wrapped = out["envelope"].rstrip("\n")
    rid = wrapped.split('receipt="')[1].split('"')[0]
    assert wrapped == envelope(rid, api.text.replace(api.receipt_id, rid))
    assert json.loads(out["stored"]) == receipt
    fact = _fact_shown(receipt)
    if fact is not None:
        record = json.loads(out["shown"][0])
        assert record["handle"] == fact["handle"] and record["time"] == fact["time"]
        assert record["text"]
        if reader is None:
            assert json.loads(out["shown"][1])["verbatim"]


def test_a_record_is_written_into_the_frame_as_it_is_held(home):
    # the SWE-agent trajectory's observations end their lines with "\r\n": the frame wrote
    # them with "\n", so the record's verbatim text (and an excerpt's spans of it) could not be
    # found in the frame
    if not TRAJECTORY.exists():
        pytest.skip(f"{TRAJECTORY} is not here")
    frame = home.hydrate("SyntaxError invalid syntax missing_colon.py division", budget=3000,
                         excerpt=False)
    held = [f for f in frame.facts if "\r\n" in f.text]
    assert held, "the trajectory's CRLF records are what this test is about"
    for f in frame.facts:
        assert f.text in frame.text, f.handle
