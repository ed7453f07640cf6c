"""Hydration: budgets, declared paths, demotion, breadcrumbs, ceilings, envelopes, user rules."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Var
from attention_cloud.curate import estimate_tokens
from attention_cloud.errors import UsageError
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

GOAL = "why did charges fail when the processor timed out, and what retry policy did we choose"

ERROR_FIX_RULES = """
% From an error seed, walk to the file operations of the same session that followed it.
error_fix(Seeds, Op-0.9) :-
    member(Seed-_, Seeds),
    item_kind(Seed, error),
    item_session(Seed, Session), item_seq(Seed, At),
    item_session(Op, Session), item_kind(Op, file_op),
    item_seq(Op, Later), Later > At.

plane(fixes, _{walk: rule(error_fix), seeds: 4}).
"""


def _open(home: Path, embedder: str) -> Memory:
    write_config(home, {"embedder": embedder})
    return Memory.open(home)


@pytest.fixture
def curated(curated_samples):
    """The bundled sample, ingested and curated with the fast hashing embedder (a copy of a
    home built once per process)."""
    return curated_samples


def _spent(receipt):
    return sum(f["tokens"] for f in receipt["facts"]) + sum(c["tokens"] for c in receipt["beyond"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(min_value=0, max_value=2500),
       plane=st.sampled_from(["default", "execution", "exploration"]),
       override=st.one_of(st.none(), st.integers(min_value=0, max_value=800)))
def test_budgets_are_never_exceeded(curated, budget, plane, override):
    segments = {"default": override} if override is not None else None
    if override is not None and override > budget:  # a segment's budget comes out of the frame's
        with pytest.raises(UsageError, match="more than the frame's budget"):
            curated.hydrate(GOAL, budget=budget, plane=plane, segments=segments)
        return
    frame = curated.hydrate(GOAL, budget=budget, plane=plane, segments=segments)
    r = frame.receipt
    assert r["budget"]["spent"] == _spent(r)
    assert r["budget"]["spent"] <= r["budget"]["total"]
    for seg in r["budget"]["segments"].values():
        assert seg["spent"] <= seg["budget"]
    assert r["budget"]["total"] == budget


def test_frame_is_relevant_and_explained(curated):
    frame = curated.hydrate(GOAL, budget=1500)
    r = frame.receipt
    assert r["path"] in ("hybrid", "semantic")
    assert r["facts"] and all(f["source"] for f in r["facts"])
    assert any(f["seeded_by"] == "relevance" for f in r["facts"])
    assert "retr" in frame.text.lower() and "processor" in frame.text.lower()
    assert r["tokens"]["estimated"] is True
    # the headings' times are the journal's, in UTC, and the frame says so once
    head = frame.text.splitlines()[1]
    assert head.endswith(" · times UTC") and f"receipt {r['id']}" in head
    first = next(f for f in frame.facts if f.time)
    assert first.time.endswith("Z") and first.time[11:16] in frame.text


def test_recency_is_declared_when_nothing_is_embedded(home):
    # ingest leaves BM25 to curation here, so before curate nothing can be searched
    write_config(home, {"embedder": "none", "index_at_ingest": False})
    mem = Memory.open(home)
    try:
        mem.ingest([samples_dir()])
        r = mem.hydrate(GOAL, budget=800).receipt
        assert r["path"] == "recency"
        assert r["facts"] and {f["seeded_by"] for f in r["facts"] if f["hops"] == 0} == {"recency"}
        # the note must not promise a search by words that ingest did not index
        assert any("find them by recency alone" in n for n in r["notes"]), r["notes"]
        mem.curate()  # BM25 only: the jump becomes lexical, still declared
        r = mem.hydrate(GOAL, budget=800).receipt
        assert r["path"] == "lexical"
    finally:
        mem.close()


@pytest.mark.parametrize("budget", [750, 900])
def test_demotion_keeps_more_items_than_truncation(curated, budget):
    roomy = curated.hydrate(GOAL, budget=100_000).receipt["facts"]
    tight = curated.hydrate(GOAL, budget=budget).receipt
    # truncation: the same ranked facts at their focus level, cut where the text the tight
    # frame could hold ends (its own lines, which truncation would pay too, given to it free)
    room = budget - tight["budget"]["framing"]
    used, truncated = 0, 0
    for fact in roomy:
        if used + fact["tokens"] > room:
            break
        used += fact["tokens"]
        truncated += 1
    assert len({f["handle"] for f in tight["facts"]}) > truncated
    assert any(f["level"] != "L0" for f in tight["facts"])  # something was demoted


def test_breadcrumbs_mark_the_edge_of_the_frame(curated):
    # a frame of 800 tokens keeps its plane's share for breadcrumbs; a smaller one has only
    # what its facts leave (README, Budgets): at 250 the frame's cheaper lines now show the
    # request verbatim beside the answer, where it showed its summary and a breadcrumb
    r = curated.hydrate(GOAL, budget=800).receipt
    assert r["beyond"], "memory past the cutoff should leave breadcrumbs"
    in_frame = {f["handle"] for f in r["facts"]}
    for crumb in r["beyond"]:
        assert crumb["handle"] not in in_frame
        assert crumb["tokens"] <= 40
        # charged what its line shows: the bare rung (a fact's speaker label is not shown)
        assert crumb["tokens"] == estimate_tokens(" ".join(crumb["text"].split()))


def test_ceiling_is_honoured(curated):
    r = curated.hydrate(GOAL, budget=3000, ceiling="L2").receipt
    assert r["facts"]
    assert {f["level"] for f in r["facts"]} <= {"L2", "L3"}
    assert all(c["level"] in ("L2", "L3") for c in r["beyond"])


def test_hydrated_envelope_fed_back_adds_nothing(curated, tmp_path):
    frame = curated.hydrate(GOAL, budget=600)
    before = curated.stats()["items"]
    transcript = tmp_path / "echo.jsonl"
    record = {"type": "user", "uuid": "e1", "sessionId": "echo",
              "message": {"role": "user", "content": frame.envelope}}
    transcript.write_text(json.dumps(record) + "\n", encoding="utf-8")
    report = curated.ingest([transcript])
    assert report.new == 0 and report.envelopes_stripped == 1
    assert curated.stats()["items"] == before


def test_user_rule_changes_the_next_frame(curated, tmp_path):
    before = curated.hydrate("ValueError in the retry tests", budget=1200, plane="default")
    rules = tmp_path / "fixes.pl"
    rules.write_text(ERROR_FIX_RULES, encoding="utf-8")
    curated.rules_add(rules.read_text(), "fixes")
    after = curated.hydrate("ValueError in the retry tests", budget=1200, plane="fixes")
    by_rule = [f for f in after.receipt["facts"] if f["seeded_by"] == "rule:error_fix"]
    assert by_rule, "the rule's walk should add file operations"
    assert all(f["hops"] == 1 for f in by_rule)
    why = lambda frame: {(f["handle"], f["seeded_by"]) for f in frame.receipt["facts"]}  # noqa: E731
    assert why(after) != why(before)
    assert not any(f["seeded_by"].startswith("rule:") for f in before.receipt["facts"])


def test_rule_calling_shell_is_rejected(curated):
    from attention_cloud import PrologError

    with pytest.raises(PrologError, match="sandbox"):
        curated.rules_add("evil(X) :- shell(X).\n", "evil")
    assert curated.rules_list() == []


def test_receipt_is_stored_and_printed(curated, home):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    frame = curated.hydrate(GOAL, budget=500)
    curated.close()
    out = CliRunner().invoke(main, ["receipt", frame.receipt_id, "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["facts"] == frame.receipt["facts"]


def test_segments_get_their_own_budgets_and_items(home, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"type": "user", "uuid": "o1", "sessionId": "ops",
                                 "message": {"role": "user",
                                             "content": "Rotate the processor API keys on Friday"}})
                     + "\n", encoding="utf-8")
    mem = _open(home, "hash")
    try:
        mem.ingest([samples_dir()], segment="work")
        mem.ingest([other], segment="ops")
        mem.curate()
        r = mem.hydrate(GOAL, budget=1000, segments={"ops": 100}).receipt
        assert set(r["budget"]["segments"]) == {"work", "ops"}
        assert r["budget"]["segments"]["ops"]["budget"] == 100
        work = r["budget"]["segments"]["work"]  # the rest, and what ops left unspent of its 100
        assert work.get("share", work["budget"]) == 900
        assert work["budget"] == 900 + work.get("received", 0)
        ops = {row["H"] for row in mem.query("item_segment(H, ops)").rows}
        for fact in r["facts"]:
            assert (fact["handle"] in ops) == (fact["segment"] == "ops")
            assert r["budget"]["segments"][fact["segment"]]["spent"] <= \
                r["budget"]["segments"][fact["segment"]]["budget"]
    finally:
        mem.close()


def test_a_budget_past_ten_million_tokens_is_refused_in_one_line(home):
    """A frame over 50,000 tokens frames what 50,000 does, so a larger budget only misstated
    its room ("13247/1000000000000 tokens"), and one past ~10**308 (`--budget` with 400
    digits) failed inside the planner: `atc_hydrate:crumb_share_/3: Arithmetic: evaluation
    error: float_overflow`, no frame. Both are now one error naming the budget and its limit,
    before anything runs; the limit itself frames."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    mem = _open(home, "hash")
    try:
        mem.ingest([samples_dir()])
        for huge in (10**7 + 1, 10**12, 10**400):
            with pytest.raises(UsageError, match=r"^budget must be a whole number from 0 to "
                                                 r"10,000,000, not "):
                mem.hydrate(GOAL, budget=huge)
        with pytest.raises(UsageError, match=r"^segment work's budget must be a whole number "
                                             r"from 0 to 10,000,000"):
            mem.hydrate(GOAL, budget=10**7, segments={"work": 10**400})
        assert mem.hydrate(GOAL, budget=10**7).receipt["budget"]["total"] == 10**7
    finally:
        mem.close()
    out = CliRunner().invoke(main, ["hydrate", GOAL, "--budget", "1000000000000",
                                    "--home", str(home)])
    assert out.exit_code == 2
    assert "Invalid value for '--budget': 1000000000000 is not in the range 0<=x<=10000000." \
        in out.output


def _dated_chat(folder: Path) -> Path:
    """Two conversations about kitchen purchases, nineteen days apart."""
    folder.mkdir()
    for name, day, text in [("early", "2024-03-01", "I bought a blender for my kitchen today."),
                            ("late", "2024-03-20", "I bought a toaster for my kitchen today.")]:
        messages = [{"role": "user", "content": text, "timestamp": f"{day}T10:00:00Z"},
                    {"role": "assistant", "content": "Enjoy it!", "timestamp": f"{day}T10:00:05Z"}]
        (folder / f"{name}.json").write_text(json.dumps({"session_id": name, "messages": messages}))
    return folder


def test_a_goal_naming_a_time_favours_items_written_then(home, tmp_path):
    from attention_cloud.hydration import hydrate

    mem = _open(home, "hash")
    try:
        mem.ingest([_dated_chat(tmp_path / "chats")])
        mem.curate()
        plain = hydrate(mem, "which kitchen appliance did I buy", budget=400)
        assert plain.receipt["anchor"] is None
        recent = hydrate(mem, "which kitchen appliance did I buy yesterday", budget=400,
                         now="2024-03-21T09:00:00Z")
        assert recent.receipt["anchor"]["phrase"] == "yesterday"
        assert "toaster" in recent.facts[0].text
        anchored = hydrate(mem, "which kitchen appliance did I buy 19 days ago", budget=400,
                           now="2024-03-20T12:00:00Z")
        anchor = anchored.receipt["anchor"]
        assert anchor["phrase"] == "19 days ago"
        assert anchor["from"] <= "2024-03-01T10:00:00Z" <= anchor["to"]
        assert "blender" in anchored.facts[0].text
        assert anchored.receipt["facts"][0]["time"] == "2024-03-01T10:00:00Z"
        # the render shows when: the day (and the weekday) above the fact, its clock in its heading
        assert "Fri 2024-03-01\n[L0 10:00]\n" in anchored.text
        assert 'anchored to "19 days ago"' in anchored.text  # and which window it read
        # without `now`, the newest item's time is the present
        default_now = hydrate(mem, "which kitchen appliance did I buy 19 days ago", budget=400)
        assert default_now.receipt["anchor"]["to"] >= "2024-03-01T10:00:00Z"
    finally:
        mem.close()


def test_a_bad_now_is_a_usage_error(curated):
    from attention_cloud.errors import UsageError
    from attention_cloud.hydration import hydrate

    with pytest.raises(UsageError, match="ISO 8601"):
        hydrate(curated, GOAL, now="last tuesday")
    # a POSIX stamp no calendar holds: NaN and -inf made a frame as if no `now` were given,
    # inf was SWI-Prolog's "is/2: Arithmetic: evaluation error: `float_overflow'" (`atc serve`
    # passes JSON's NaN and Infinity through)
    for stamp in (float("nan"), float("inf"), float("-inf"), 1e300, -1e300):
        with pytest.raises(UsageError, match="now must be a time"):
            hydrate(curated, GOAL, now=stamp)
    assert hydrate(curated, GOAL, now=1_700_000_000).receipt["facts"]


def test_a_roomy_frame_shows_walked_facts_verbatim(curated):
    # The fovea places one-hop neighbours at their distillation; budget left over raises them.
    roomy = curated.hydrate(GOAL, budget=100_000).receipt["facts"]
    walked = [f for f in roomy if f["hops"] >= 1 and f["handle"].startswith("it_")]
    assert walked
    assert all(f["level"] == "L0" for f in roomy if f["handle"].startswith("it_"))


def _short_turns(folder: Path, n: int = 150) -> Path:
    """A long chat of short turns (about 30 tokens, as in chats between people), all about
    the garden."""
    folder.mkdir()
    plants = ["tomatoes", "basil", "roses", "beans", "mint", "peppers", "lettuce", "tulips",
              "carrots", "onions", "kale", "thyme", "dahlias", "squash", "garlic"]
    messages = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"In the garden the {plants[i % len(plants)]} got watered on day {i}, "
                            f"after {plants[(i * 7) % len(plants)]} and {plants[(i * 4) % len(plants)]}"
                            f" had their turn; the hose by bed {i % 9} leaked."}
                for i in range(n)]
    (folder / "garden.json").write_text(json.dumps({"session_id": "garden", "messages": messages}))
    return folder


def _short_turns_home(built_home, home: Path, n: int = 150) -> Memory:
    """A Memory on ``home``: a copy of a home (hash embedder) holding ``_short_turns(n)``
    ingested and curated, built once per process (each build costs seconds)."""
    def build(folder: Path) -> None:
        folder.mkdir()
        with _open(folder, "hash") as mem:
            mem.ingest([_short_turns(folder.parent / "chats", n)])
            mem.curate()

    return Memory.open(built_home(f"hydrate-short-turns-{n}", build, home))


def test_a_frame_of_short_turns_spends_its_budget(home, built_home):
    # The number of facts follows from their sizes: short turns fill a frame with many facts
    # (a fixed fact per ~50 tokens ended it at a third of its budget); the plane's fact cap
    # stays a hard bound.
    mem = _short_turns_home(built_home, home)
    try:
        for budget in (500, 2000):
            r = mem.hydrate("what got watered in the garden", budget=budget).receipt
            assert r["budget"]["spent"] + r["budget"]["framing"] >= 0.95 * budget, (budget, r["budget"])
            assert len(r["facts"]) <= 80
        # the execution plane's cap of 24 facts counts facts of a full share (2000/24 tokens):
        # short ones count less, and a quarter share at least bounds them (96 facts)
        capped = mem.hydrate("what got watered in the garden", budget=2000, plane="execution")
        assert 24 < len(capped.facts) <= 96
    finally:
        mem.close()


@pytest.mark.parametrize("plane", ["default", "execution"])
def test_a_large_frame_of_short_turns_spends_its_budget_on_every_plane(home, built_home, plane):
    # A plane's fact cap was a count whatever the budget: a 6000-token frame of short turns
    # ended at 80 facts on the default plane (60 % of its budget) and at 24 on the execution
    # plane (18 %; on the real Claude Code sessions "what tests were run" spent 11 %). The
    # cap is stated for the default budget of 2000 tokens and scales with the segment's.
    mem = _short_turns_home(built_home, home, 400)
    try:
        for budget in (2000, 6000):
            r = mem.hydrate("what got watered in the garden", budget=budget, plane=plane).receipt
            used = r["budget"]["spent"] + r["budget"]["framing"]
            assert 0.95 * budget <= used <= budget, (budget, r["budget"], len(r["facts"]))
    finally:
        mem.close()


def test_a_small_frame_shows_turns_before_pointers(home, built_home):
    # A frame too small for its plane's breadcrumb share (the default plane's 5 % holds one
    # crumb from about 700 tokens) reserved room for one anyway: a crumb's heading and line
    # cost what a short turn shown whole does, and a 250-token frame of short turns showed 3
    # turns and 3 pointers where 5 turns fit. Its breadcrumbs now take only what no turn
    # fits in, and the frame's lines are priced as this frame writes them.
    mem = _short_turns_home(built_home, home)
    try:
        for budget in (250, 500):
            frame = mem.hydrate("what got watered in the garden", budget=budget)
            lines = frame.text.splitlines()
            shown = [f for f in frame.facts if f.level == "l0"]
            assert len(shown) == len(frame.facts) >= 4, (budget, frame.text)
            # the cheapest turn the frame shows, with the line heading it
            turn = min(f.tokens + estimate_tokens(lines[lines.index(f.text.splitlines()[0]) - 1]
                                                  + "\n") for f in shown)
            edge = lines[lines.index("more (ask by handle):"):] \
                if "more (ask by handle):" in lines else []
            pointers = sum(estimate_tokens(line + "\n") for line in edge if line != "</memory-frame>")
            assert pointers < turn, (budget, frame.text)
            assert frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"] >= 0.9 * budget
    finally:
        mem.close()


def test_a_frame_with_long_records_among_short_turns_spends_its_budget(home, tmp_path):
    # Long records that rank high (a log, a tool's output) counted at their verbatim length
    # when the selection offered candidates, and the fit then showed them as a summary a
    # fraction as long: the frame ended at 69 % of 2000 tokens (1382) and 73 % of 1000 with
    # 119 candidates past it (on the real Claude Code sessions "which files did the subagent
    # read" spent 67 %). What the fit frees is offered again to the candidates left out.
    folder = _short_turns(tmp_path / "chats")
    chat = json.loads((folder / "garden.json").read_text())
    plants = ["tomatoes", "basil", "roses", "beans", "mint", "peppers", "lettuce", "tulips",
              "carrots", "onions", "kale", "thyme", "dahlias", "squash", "garlic"]
    for k in range(4):
        log = "\n".join(f"line {j}: in the garden the {plants[j % 15]} got watered, bed {j % 9}"
                        for j in range(120))
        chat["messages"].insert(10 + k * 20, {"role": "assistant",
                                              "content": f"Watering log {k} of the garden:\n{log}"})
    (folder / "garden.json").write_text(json.dumps(chat))
    mem = _open(home, "hash")
    try:
        mem.ingest([folder])
        mem.curate()
        for budget in (1000, 2000):
            r = mem.hydrate("what got watered in the garden", budget=budget).receipt
            used = r["budget"]["spent"] + r["budget"]["framing"]
            assert 0.95 * budget <= used <= budget, (budget, r["budget"], len(r["facts"]))
            assert len(r["facts"]) <= 80
            # the long log that ranks first is still shown (as its summary or an excerpt)
            assert any(f["tokens"] > 0 and "Watering log" in mem.item(f["handle"]).text
                       for f in r["facts"] if f["handle"].startswith("it_"))
    finally:
        mem.close()


def test_a_frame_of_short_chat_turns_spends_its_budget_when_few_match(home, tmp_path):
    # Two people's short turns over twelve days, the goal's word in a few of them: the jump's
    # 48 hits a search were all the candidates (walk included), and a 2000-token frame ended
    # at four fifths of its budget with nothing past it; its searches now reach as deep as
    # the budget holds short turns.
    import random
    rng = random.Random(7)
    words = ("garden ferry lantern violin harbour pepper marble candle orchard pilot meadow "
             "copper thunder saddle walnut biscuit canyon glacier ribbon velvet").split()
    lines = [json.dumps({"role": "user" if i % 2 == 0 else "assistant",
                         "name": "Ines" if i % 2 == 0 else "Kofi",
                         "timestamp": f"2023-0{1 + day // 4}-{10 + day:02d}T10:{i:02d}:00Z",
                         "content": f"The {rng.choice(words)} and the {rng.choice(words)} were "
                                    f"{rng.choice(['fine', 'odd', 'lovely', 'late'])} today."})
             for day in range(12) for i in range(14)]
    (tmp_path / "chat.jsonl").write_text("\n".join(lines) + "\n")
    mem = _open(home, "hash")
    try:
        mem.ingest([tmp_path / "chat.jsonl"])
        mem.curate()
        for goal in ("What did Ines say about the violin?", "Which orchard did Kofi mention?"):
            r = mem.hydrate(goal, budget=2000).receipt
            # the budget spent (it was 1614 of 2000): turns this short, ~24 tokens with their
            # lines, count less than a full share of the plane's cap (2000/80 tokens), so
            # more than 80 of them fit, within its hard bound of four times the cap. (The
            # receipt said 0.95 and more while it counted each fact's name and text apart,
            # each rounded up: the frame wrote ~0.92 of 2000, as it does now, the receipt
            # saying so.)
            used = r["budget"]["spent"] + r["budget"]["framing"]
            assert used >= 0.9 * 2000, (goal, r["budget"], len(r["facts"]))
            assert len(r["facts"]) <= 320
    finally:
        mem.close()


def test_a_frame_of_long_records_holds_fewer_facts(curated):
    # The same rule gives long records fewer places: a 500-token frame of the sample holds
    # fewer facts than a 4000-token one, never more than the plane's cap.
    counts = {b: len(curated.hydrate(GOAL, budget=b).facts) for b in (500, 4000)}
    assert counts[500] < counts[4000] <= 80


def _precommit_session(folder: Path) -> Path:
    """A Claude Code-like session: the same hook failure six times (tool output: what a
    person says repeats only in the same words), one line saying why."""
    folder.mkdir()
    messages = [{"role": "user", "content": "Commit the retry backoff change."}]
    endings = ["", " again", " twice", " anew", " today", " still"]
    messages += [{"role": "tool",
                  "content": "Pre-commit validation failed: the pre-commit hook rejected the "
                             f"commit, and validation of the change failed{end}."}
                 for end in endings]
    messages.append({"role": "assistant",
                     "content": "The hook output names the cause: src/payments/retry.py line 42 "
                                "is 131 characters, over the 100 character limit of the "
                                "line-length check E501."})
    (folder / "precommit.json").write_text(
        json.dumps({"session_id": "precommit", "messages": messages}))
    return folder


def test_near_duplicates_give_way_to_the_distinct_diagnostic(home, tmp_path):
    mem = _open(home, "hash")
    try:
        mem.ingest([_precommit_session(tmp_path / "cc")])
        mem.curate()
        # 160 tokens of text once the frame's own lines are paid for
        budget = 160 + mem.hydrate("why did the pre-commit validation fail",
                                   budget=160).receipt["budget"]["framing"]
        frame = mem.hydrate("why did the pre-commit validation fail", budget=budget)
        r = frame.receipt
        assert "E501" in frame.text  # the diagnostic is in the frame, verbatim enough to act on
        shown = [f for f in frame.facts if f.text.startswith("Pre-commit validation failed")]
        assert len(shown) == 1  # one of the six repeats stands for all of them
        kept = {f["handle"] for f in r["facts"]}
        redundant = [s for s in r["suppressed"] if s["suppressed"] == "redundant"]
        assert len(redundant) == 5
        assert all(s["like"] in kept and s["handle"] not in kept for s in redundant)
        assert all(0.8 <= s["similarity"] <= 1.0 for s in redundant)
        assert "near-duplicates left out" in frame.text
        # the receipt's other fields are as before
        assert r["budget"]["spent"] + r["budget"]["framing"] <= budget
        assert {"facts", "beyond", "budget"} <= set(r)
    finally:
        mem.close()


def test_repeats_that_differ_only_in_how_long_they_took_are_one_fact(home, tmp_path):
    # A check that failed four times prints the same report with another timing each time;
    # numbers that state something ("at most 3 retries" vs "at most 9") still make two facts.
    folder = tmp_path / "runs"
    folder.mkdir()
    messages = [{"role": "user", "content": "Run the type checker before the commit."}]
    messages += [{"role": "tool",
                  "content": "Pre-commit validation failed:\n\n[DIALYZER]\nFinding suitable PLTs\n"
                             f"Checking PLT... done in 0m12.{n}s (at 14:0{i}:3{i})\n"
                             "lib/spotter/trace_helpers.ex:58:13:pattern_match The pattern can "
                             "never match the type of the value returned by the tracer call.\n"
                             "Total errors: 2, Skipped: 0, Unnecessary Skips: 0"}
                 for i, n in enumerate(["09", "13", "21", "30"])]
    messages += [{"role": "assistant", "content": "The retry policy of the dialyzer runner allows "
                                                  f"at most {n} retries per check and then stops."}
                 for n in (3, 9)]
    (folder / "runs.json").write_text(json.dumps({"session_id": "runs", "messages": messages}))
    mem = _open(home, "hash")
    try:
        mem.ingest([folder])
        mem.curate()
        frame = mem.hydrate("why did the dialyzer check fail and how many retries", budget=1500)
        shown = [f for f in frame.facts if "[DIALYZER]" in f.text]
        assert len(shown) == 1
        redundant = [s for s in frame.receipt["suppressed"] if s["suppressed"] == "redundant"]
        assert len(redundant) == 3 and {s["like"] for s in redundant} == {shown[0].handle}
        retries = [f for f in frame.facts if "retries per check" in f.text]
        assert len(retries) == 2  # 3 and 9 are two facts
    finally:
        mem.close()


# Three sessions open with the same long request and each tells, in passing, of another
# graduation: curation marks the later turns echoes of the first (a close paraphrase), but
# "how many graduations" asks about exactly the part that differs.
_REQUEST = ("I'm considering a certification in digital marketing and I've narrowed it down to "
            "two programs. Can you help me compare the pros and cons of each program, their "
            "cost, their length and how employers see them? I work full time in sales, so "
            "evening classes or a self-paced course would suit me better than a weekday "
            "schedule, and I would like a program with real campaigns, a portfolio at the end "
            "and mentors from the industry. My budget is modest, so scholarships or an employer "
            "refund matter too. ")
_ASIDES = [("2023-06-02", "By the way, I missed Jack's graduation."),
           ("2023-06-20", "By the way, I attended Emma's graduation."),
           ("2023-07-05", "By the way, I attended Rachel's graduation.")]
_REPLY = ("Online programs are flexible and cheaper; in-person ones build a network. Compare "
          "the syllabus, the instructors and the price.")


def _sessions_that_open_alike(folder: Path) -> Path:
    folder.mkdir()
    for i, (day, aside) in enumerate(_ASIDES):
        messages = [{"role": "user", "content": _REQUEST + aside, "timestamp": f"{day}T09:00:00Z"},
                    {"role": "assistant", "content": _REPLY, "timestamp": f"{day}T09:00:05Z"}]
        (folder / f"s{i}.json").write_text(json.dumps({"session_id": f"s{i}", "messages": messages}))
    return folder


def test_turns_that_open_alike_each_keep_what_the_goal_asks_about(home, tmp_path):
    mem = _open(home, "hash")
    try:
        mem.ingest([_sessions_that_open_alike(tmp_path / "chats")])
        mem.curate()
        users = {h for (h,) in mem.pl.solutions("atc_journal:item_role", Var(), Atom("user"))}
        echoes = mem.pl.solutions("atc_ladder:echo_of", Var(), Var(), Var())
        assert sum(1 for e, o, _ in echoes if str(e) in users and str(o) in users) == 2
        frame = mem.hydrate("How many graduation ceremonies have I attended?", budget=2000)
        verbatim = [f.text for f in frame.facts if f.level == "l0" and not f.excerpt_spans]
        for name in ("Jack", "Emma", "Rachel"):  # each session's piece, verbatim
            assert sum(f"{name}'s graduation" in t for t in verbatim) == 1, name
        # the assistant's reply, the same words in every session, is still said once
        assert sum(_REPLY in t for t in verbatim) == 1
        kept = {f.handle for f in frame.facts}
        redundant = [s for s in frame.receipt["suppressed"] if s["suppressed"] == "redundant"]
        assert len(redundant) == 2
        assert all(s["like"] in kept and s["handle"] not in kept for s in redundant)
        assert all(str(s["handle"]) not in users for s in redundant)
    finally:
        mem.close()


def test_test_reports_that_name_another_failure_are_two_facts(home, tmp_path):
    # The same long pytest log, failing another test: a near-duplicate as a whole, but "which
    # tests failed" asks about its one distinct line. A rerun that differs only in its timing
    # is still left out as redundant.
    head = ("============================= test session starts ==============================\n"
            "platform linux -- Python 3.11.7, pytest-8.2.0, pluggy-1.5.0\n"
            "rootdir: /srv/app\nconfigfile: pyproject.toml\ncollected 214 items\n\n"
            "tests/test_api.py ........................................................\n"
            "tests/test_models.py ..................................................\n"
            "tests/test_views.py ....................................................\n")
    runs = [("test_invoice_totals", "4.21"), ("test_refund_rounding", "4.02"),
            ("test_invoice_totals", "3.97")]
    messages = [{"role": "user", "content": "Run the test suite."}]
    messages += [{"role": "tool",
                  "content": head + f"FAILED tests/test_billing.py::{name} - AssertionError\n"
                                    f"========= 1 failed, 213 passed in {secs}s ========="}
                 for name, secs in runs]
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "runs.json").write_text(json.dumps({"session_id": "runs", "messages": messages}))
    mem = _open(home, "hash")
    try:
        mem.ingest([folder])
        mem.curate()
        frame = mem.hydrate("which billing tests failed", budget=2000)
        reports = [f for f in frame.facts if f.level == "l0" and "FAILED tests/" in f.text]
        assert sorted(name for name in ("test_invoice_totals", "test_refund_rounding")
                      for f in reports if name in f.text) == ["test_invoice_totals",
                                                              "test_refund_rounding"]
        redundant = [s for s in frame.receipt["suppressed"] if s["suppressed"] == "redundant"]
        assert len(redundant) == 1
        assert redundant[0]["like"] in {f.handle for f in reports}
    finally:
        mem.close()


def test_the_same_words_from_two_speakers_are_two_facts(home, tmp_path):
    # "Priya: I love pottery" and "Tomás: I love pottery" say two things.
    folder = tmp_path / "chat"
    folder.mkdir()
    messages = [{"role": "user", "name": "Priya", "content": "I love the pottery class."},
                {"role": "assistant", "name": "Tomás", "content": "I love the pottery class."}]
    (folder / "c.json").write_text(json.dumps({"session_id": "c", "messages": messages}))
    mem = _open(home, "hash")
    try:
        mem.ingest([folder])
        mem.curate()
        r = mem.hydrate("who loves the pottery class", budget=400).receipt
        assert len(r["facts"]) == 2 and r["suppressed"] == []
    finally:
        mem.close()


def test_the_same_receipt_saved_at_once_by_two_writers_never_fails(tmp_path):
    """Two processes (or threads) sealing the same frame write the same receipt id: each
    writes its own temporary file, so neither renames the other's away."""
    import json
    import threading

    from attention_cloud.hydration import load_receipt, save_receipt

    receipt = {"id": "r_0123456789abcdef", "goal": "same frame", "facts": [{"handle": "it_1"}] * 50}
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for _ in range(200):
                save_receipt(tmp_path, receipt)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert load_receipt(tmp_path, "r_0123456789abcdef") == receipt
    assert list((tmp_path / "receipts").glob("*.tmp")) == []
    assert json.loads((tmp_path / "receipts" / "r_0123456789abcdef.json").read_text()) == receipt


@pytest.fixture
def prime_items(pl):
    """Set the least item count at which a home's first frame is primed; restored after."""
    (before,) = pl.once("current_prolog_flag", Atom("atc_prime_items"), Var())

    def set_to(items: int) -> None:
        pl.once("set_prolog_flag", Atom("atc_prime_items"), items)

    yield set_to
    set_to(before)


def test_the_first_frame_of_an_open_home_is_not_charged_to_the_limits(curated, home, monkeypatch,
                                                                       prime_items):
    """A big home's first frame loads what every later frame reuses (the vector tables, clause
    indexes): seconds on a million-item home. That one-time work runs before the limits of
    user code start, so a first frame under a short time limit is not stopped by it, while
    a looping walk rule still is."""
    from attention_cloud import PrologError
    from attention_cloud.embed.store import VectorStore

    curated.close()
    prime_items(0)  # this small home stands for a big one
    search, calls = VectorStore.search, []

    def slow_first_search(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            time.sleep(1.5)  # a big home's first search, loading its tables
        return search(self, *args, **kwargs)

    monkeypatch.setattr(VectorStore, "search", slow_first_search)
    mem = Memory.open(home)
    try:
        mem.set_limits(time_limit=1.0)
        frame = mem.hydrate("ValueError in the retry tests", budget=1200)
        assert frame.receipt["facts"] and len(calls) >= 2
        mem.rules_add("spin(_, _) :- repeat, fail.\n", "spin")
        with pytest.raises(PrologError, match="time limit"):
            mem.hydrate("ValueError in the retry tests", budget=1200, walk="spin")
    finally:
        mem.set_limits(time_limit=30)  # limits are per process: the next test runs under 30 s
        mem.close()


def test_a_small_homes_first_frame_is_computed_once(curated, home, monkeypatch, prime_items):
    """Below the item count that needs it (atc_prime_items), a one-shot process's frame is not
    preceded by a priming frame: the first hydrate searches the vectors once, and priming
    starts at the flag's count."""
    from attention_cloud.embed.store import VectorStore

    curated.close()
    search, calls = VectorStore.search, []

    def counted_search(self, *args, **kwargs):
        calls.append(1)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(VectorStore, "search", counted_search)
    items = None
    for least, frames in ((10**9, 1), (1, 2)):
        prime_items(least)
        calls.clear()
        with Memory.open(home) as mem:
            items = items or len(mem.query("item_kind(H, _)", limit=100000).rows)
            mem.hydrate("ValueError in the retry tests", budget=1200)
            once = len(calls)
            mem.hydrate("ValueError in the retry tests", budget=1200)
        assert items and once == frames * (len(calls) - once), (least, once, len(calls))


def test_a_huge_budget_frames_what_fifty_thousand_tokens_do(home, tmp_path):
    # A segment's search depth (budget / 30 hits) and its fact room grew with the budget
    # without bound, and choosing facts weighs each against every other: on a 100k-item home
    # a 100,000-token frame took 5 s and a 400,000-token one ran past the 30-second limit (an
    # error, no frame). Both now follow the budget up to 50,000 tokens.
    folder = tmp_path / "notes"
    folder.mkdir()
    words = "soil compost mulch seedling trellis irrigation pruning harvest".split()
    messages = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"Garden log {i}: " + " ".join(
                     f"{words[(i + j) % len(words)]} bed {j} checked on round {i * j}"
                     for j in range(45))}
                for i in range(240)]
    (folder / "garden.json").write_text(json.dumps({"session_id": "garden", "messages": messages}))
    mem = _open(home, "hash")
    try:
        mem.ingest([folder])
        mem.curate()
        goal = "what did the garden log say about compost"
        bounded = mem.hydrate(goal, budget=50_000).receipt
        huge = mem.hydrate(goal, budget=1_000_000).receipt
        assert len(bounded["facts"]) < 240  # memory holds more than 50,000 tokens
        # the huge frame chose as the 50,000-token one did (its fit, with room to spare, drops
        # none of the chosen): it holds that frame's facts, not all of memory's
        assert {f["handle"] for f in bounded["facts"]} <= {f["handle"] for f in huge["facts"]}
        assert huge["budget"]["spent"] <= 55_000, huge["budget"]
    finally:
        mem.close()
