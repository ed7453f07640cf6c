"""The frame at small budgets: its own lines are paid and reported as they are.

A six-message chat (names, times, German and Chinese) is the home a user tries first: the
receipt's ``framing`` must be what the frame's own lines cost by the README's estimator (not
the planner's worst case), a budget that has room for the relevant turn must hold it, and a
frame too small for anything must say so rather than that memory holds nothing.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.curate import estimate_tokens
from attention_cloud.home import write_config

MESSAGES = [
    ("user", "Jonas", "2025-03-01T10:00:00Z",
     "Ich habe gestern mein altes Fahrrad verkauft, für 120 Euro an einen Nachbarn."),
    ("assistant", "Mia", "2025-03-01T10:01:00Z",
     "Super! Was machst du mit dem Geld? Vielleicht ein neues Rad kaufen?"),
    ("user", "Jonas", "2025-03-02T09:00:00Z", "我下周要去北京出差，参加一个关于人工智能的会议。"),
    ("assistant", "Mia", "2025-03-02T09:01:00Z",
     "Have a great trip to Beijing. Remember to bring your passport and the conference badge."),
    ("user", "Jonas", "2025-03-03T18:00:00Z",
     "The dentist appointment is moved to Thursday at 3pm, please remind me."),
    ("assistant", "Mia", "2025-03-03T18:01:00Z",
     "Noted: dentist Thursday 15:00. I will remind you on Wednesday evening."),
]
GOAL = "Fahrrad verkauft"


@pytest.fixture(scope="module")
def chat(tmp_path_factory, curated_hash_memory):
    root = tmp_path_factory.mktemp("chat")
    transcript = root / "chat.json"
    transcript.write_text(json.dumps([{"role": r, "name": n, "timestamp": t, "content": c}
                                      for r, n, t, c in MESSAGES], ensure_ascii=False),
                          encoding="utf-8")
    mem = curated_hash_memory(root, transcript)
    yield mem
    mem.close()


def _own_lines_tokens(frame) -> int:
    """The frame's own lines as a user counts them: every line of the envelope that is not a
    fact's text or a breadcrumb's text, each with its newline, by the README's estimator."""
    lines = frame.envelope.split("\n")
    fact_lines = [line for f in frame.facts for line in (f.text.splitlines() or [""])]
    tokens = 0
    for line in lines:
        if line in fact_lines:
            fact_lines.remove(line)
            continue
        crumb = next((c for c in frame.receipt["beyond"]
                      if line.startswith(f"  · {c['handle']} [") and c["text"]), None)
        if crumb is not None:
            line = line[: len(line) - len(" ".join(crumb["text"].split()))]
        tokens += estimate_tokens(line + "\n")
    return tokens


@pytest.mark.parametrize("budget", [120, 200, 300, 2000])
def test_the_receipts_framing_is_what_the_frames_own_lines_cost(chat, budget):
    frame = chat.hydrate(GOAL, budget=budget)
    b = frame.receipt["budget"]
    assert b["framing"] == _own_lines_tokens(frame), b
    assert b["framing"] == sum(s["framing"] for s in b["segments"].values())
    # spent plus framing is what the injected envelope costs, and within the budget
    assert estimate_tokens(frame.envelope) <= b["spent"] + b["framing"] <= budget


@pytest.mark.parametrize("goal, budget", [(GOAL, 120), (GOAL, 2000), ("what did Jonas say yesterday?", 300),
                                          ("dentist", 0)])
def test_a_frames_text_is_its_receipt_rendered_and_names_its_id(chat, goal, budget):
    # the frame's lines are counted for the receipt and then written: the text is the
    # receipt rendered (heading with the receipt's own id), and the id the receipt's digest
    import hashlib

    from attention_cloud.hydration import render_text

    frame = chat.hydrate(goal, budget=budget)
    receipt = frame.receipt
    assert frame.text == render_text(receipt, frame.facts, empty=receipt.get("empty", ""))
    assert f"· receipt {frame.receipt_id}" in frame.text.split("\n")[1]
    rest = {k: v for k, v in receipt.items() if k != "id"}
    digest = hashlib.sha256(json.dumps(rest, sort_keys=True).encode()).hexdigest()[:16]
    assert receipt["id"] == frame.receipt_id == "r_" + digest


def test_a_facts_day_is_written_once_for_the_facts_of_that_day(chat):
    # every fact's heading wrote its whole time ("[L0 · Sat 2025-03-01 10:00]", 8 tokens):
    # the day a line of its own above the facts of that day, each fact's heading its rung and
    # clock ("[L0 10:00]", 3 tokens); who said it is its text's first words
    frame = chat.hydrate(GOAL, budget=2000)
    lines = frame.text.split("\n")
    days = [line for line in lines if re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d\d-\d\d", line)]
    assert sorted(days) == ["Mon 2025-03-03", "Sat 2025-03-01", "Sun 2025-03-02"], frame.text
    for f, shown in zip(frame.receipt["facts"], frame.facts):
        at = lines.index(shown.text.split("\n")[0])
        assert lines[at - 1] == f"[L0 {f['time'][11:16]}]", frame.text
        day = next(line for line in reversed(lines[:at]) if line in days)
        assert day.endswith(f["time"][:10]), (f, frame.text)
        assert shown.text.startswith(("Jonas: ", "Mia: "))
    assert estimate_tokens("[L0 10:00]\n") + estimate_tokens("Sat 2025-03-01\n") < estimate_tokens(
        "[L0 · Sat 2025-03-01 10:00]\n") * 2
    # the heading line says the figures once: "(estimated)" is the receipt's tokens.estimated
    assert "(estimated)" not in lines[1] and frame.receipt["tokens"]["estimated"] is True


def test_each_line_of_the_envelope_is_named_by_its_kind(chat):
    # scripts/bench/framing_lines.py counts a frame's tokens by kind of line: every line of the
    # envelope is named once, in order (a breadcrumb's line and its text apart)
    from attention_cloud.hydration import frame_line_kinds

    frame = chat.hydrate(GOAL, budget=2000)
    kinds = frame_line_kinds(frame.receipt, frame.facts)
    lines: list[str] = []
    for kind, line in kinds:
        if kind == "breadcrumb text":
            lines[-1] += line
        else:
            lines.append(line)
    assert lines == frame.envelope.split("\n")
    assert sum(1 for kind, _ in kinds if kind == "fact day line") == 3
    assert sum(1 for kind, _ in kinds if kind == "fact heading") == len(frame.facts)


def test_the_breadcrumbs_heading_says_how_to_ask_in_few_tokens(chat):
    # a small frame of this chat points past its edge; the heading above the pointers said
    # "beyond this frame (ask for more):", 9 tokens of a 150-token frame, where 6 say as much
    from attention_cloud.hydration import frame_line_kinds

    for budget in (120, 150, 200, 300):
        frame = chat.hydrate(GOAL, budget=budget)
        headings = [line for kind, line in frame_line_kinds(frame.receipt, frame.facts)
                    if kind == "breadcrumbs heading"]
        if not frame.receipt["beyond"]:
            assert headings == []
            continue
        (heading,) = headings
        assert "handle" in heading and "ask" in heading, heading
        assert estimate_tokens(heading + "\n") <= 6, heading
        assert any(c["handle"] in frame.text for c in frame.receipt["beyond"])


def test_the_envelope_names_its_receipt_once_in_its_tag(chat):
    # the envelope's tag names the receipt; its second line named it again (~8 tokens of every
    # injected frame): the text without the envelope still names it there, the envelope not
    frame = chat.hydrate(GOAL, budget=300)
    rid = frame.receipt_id
    assert f"· receipt {rid}" in frame.text.split("\n")[1]
    assert frame.envelope.count(rid) == 1
    assert frame.envelope.startswith(f'<memory-frame receipt="{rid}" source="attention-cloud">\n')
    assert frame.envelope.split("\n")[2] == frame.text.split("\n")[1].replace(f" · receipt {rid}", "")
    # and the budget pays for the envelope as written
    b = frame.receipt["budget"]
    assert b["framing"] == _own_lines_tokens(frame) and estimate_tokens(frame.envelope) <= 300


def test_a_small_budget_holds_the_relevant_fact_that_fits(chat):
    frame = chat.hydrate(GOAL, budget=120)
    shown = [f.text for f in frame.facts]
    assert any("Fahrrad verkauft" in text for text in shown), frame.text
    assert estimate_tokens(frame.envelope) <= 120


def test_frames_of_short_turns_leave_little_of_the_budget_unused(chat):
    # every message of this home, each with its line, fits in 300 tokens with the frame's head
    frame = chat.hydrate(GOAL, budget=300)
    assert len(frame.facts) == len(MESSAGES), frame.text


def test_a_budget_that_holds_every_fact_and_line_shows_every_fact(chat):
    # the planner priced every fact's heading with a DIRTY mark ("[L0 Sat 2025-03-01 10:00
    # DIRTY]"), which only a record a dirty belief rests on carries: ~2 tokens a fact unspent,
    # so a budget of what the receipt says the whole frame costs lost a fact to lines never
    # written
    whole = chat.hydrate(GOAL, budget=2000)
    assert len(whole.facts) == len(MESSAGES)
    cost = whole.receipt["budget"]["spent"] + whole.receipt["budget"]["framing"]
    frame = chat.hydrate(GOAL, budget=cost)
    assert "DIRTY" not in frame.text
    assert sorted(f.handle for f in frame.facts) == sorted(f.handle for f in whole.facts), frame.text
    assert all(f.level == "l0" and not f.excerpt_spans for f in frame.facts), frame.text
    assert estimate_tokens(frame.envelope) <= cost


def test_a_frame_too_small_for_any_fact_says_so(chat):
    # memory holds six items: an empty frame is a budget too small, never "nothing for this goal"
    for budget in range(1, 130):
        frame = chat.hydrate(GOAL, budget=budget)
        if frame.facts or frame.receipt["beyond"]:
            continue
        assert "memory holds nothing" not in frame.text, (budget, frame.text)
        unit = "token" if budget == 1 else "tokens"
        assert f"no fact fits in {budget} {unit}" in frame.text, (budget, frame.text)


def test_the_prompt_hooks_narrowed_frame_keeps_an_honest_receipt(chat):
    # the hook keeps only the facts worth injecting and seals the frame again: its receipt
    # counts what that frame shows (breadcrumbs included) and the lines it writes
    from attention_cloud.agents.hooks import ambient_recall

    for budget in (200, 400):
        frame = ambient_recall(chat, "Wie viel Geld für das Fahrrad verkauft?", session_id="s",
                               budget=budget, min_score=0.0, record=False).frame
        r, b = frame.receipt, frame.receipt["budget"]
        assert b["spent"] == sum(f["tokens"] for f in r["facts"]) + \
            sum(c["tokens"] for c in r["beyond"]), (budget, b, r["beyond"])
        assert b["spent"] == sum(s["spent"] for s in b["segments"].values())
        assert b["framing"] == _own_lines_tokens(frame), (budget, b)


def test_an_empty_memorys_frame_reads_against_no_time(tmp_path):
    # last in this file: opening another home closes the module's `chat` memory
    # README: the receipt's `now` is null for an empty memory; the heading gives no time then
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        frame = mem.hydrate("what did Jonas sell", budget=300)
    assert frame.receipt["now"] is None
    assert "as of" not in frame.text and "null" not in frame.text, frame.text




def test_a_fact_a_dirty_belief_rests_on_is_marked_and_its_mark_paid(tmp_path, curated_hash_memory):
    # the DIRTY mark is priced only on the fact that carries it: the frame holding it still
    # costs what its receipt says, within the budget, at every budget
    from attention_cloud.attention import Controller

    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps([{"role": r, "name": n, "timestamp": t, "content": c}
                                      for r, n, t, c in MESSAGES], ensure_ascii=False),
                          encoding="utf-8")
    mem = curated_hash_memory(tmp_path, transcript)
    try:
        sold = next(f.handle for f in mem.hydrate(GOAL, budget=2000).facts
                    if "Fahrrad" in f.text)
        ctl = Controller(mem.pl, "agent", memory=mem)
        ctl.add_belief("bike", claim_type="dependency_version", subject="bike", value="sold",
                       confidence=0.9, observed_at=1.7e9, volatility="config_docs", supports=sold)
        assert ctl.item_changed(sold, now=1.7e9 + 60) == ["bike"]
        marked = []
        for budget in range(120, 320):
            frame = mem.hydrate(GOAL, budget=budget)
            b = frame.receipt["budget"]
            assert b["framing"] == _own_lines_tokens(frame), (budget, frame.text)
            assert estimate_tokens(frame.envelope) <= b["spent"] + b["framing"] <= budget, frame.text
            marked += [f for f in frame.facts if f.handle == sold]
        assert marked and all(f.dirty_beliefs for f in marked)
        assert "DIRTY]" in mem.hydrate(GOAL, budget=300).text
    finally:
        mem.close()




def test_hydrate_3_says_what_the_frame_writes_of_its_own_lines(tmp_path, curated_hash_memory):
    # hydrate/3's framing priced every timed fact with the line naming its day, which the frame
    # writes once above the facts of that day: a frame of forty short turns over two days said
    # twice what its lines cost. It prices each line at its longest (any count, the longest
    # handle), so it may say a little more than the receipt, never less.
    from attention_cloud.bridge import Atom, Var
    from attention_cloud.hydration import frame_parts

    transcript = tmp_path / "turns.json"
    transcript.write_text(json.dumps([
        {"role": "user" if i % 2 == 0 else "assistant", "name": "Jonas" if i % 2 == 0 else "Mia",
         "timestamp": f"2025-03-0{1 + i // 20}T10:{i % 20:02d}:00Z",
         "content": f"Note {i}: the bike shop on corner {i} had a blue frame for sale."}
        for i in range(40)]), encoding="utf-8")
    mem = curated_hash_memory(tmp_path, transcript)
    try:
        for budget in (300, 2000):
            mem.jump
            options = {"budget": budget, "plane": Atom("default"), "ceiling": Atom("l0"),
                       "segments": []}
            (out,) = mem.pl.once("atc_api:api_hydrate_json", "the bike shop", options, Var())
            planned = int(frame_parts(out).meta["framing"])
            written = mem.hydrate("the bike shop", budget=budget).receipt["budget"]["framing"]
            assert written <= planned <= written + 12, (budget, planned, written)
    finally:
        mem.close()
