"""A frame keeps its budget, whatever the budget, plane, segment list or mounts.

The budget pays for the whole frame: its facts' text and its own lines (envelope, headings,
day lines, breadcrumbs). Drawn here: budgets from 0 to 8000 tokens, the three planes, lists of
segment budgets (`--segment S=N` for one to three segments) and lists of mounted cells. Every
frame that holds a fact or a breadcrumb must cost at most its budget: counted as the receipt
counts it (`spent + framing`), and as the product's estimator counts the envelope an agent is
given and the text `atc hydrate --format text` prints; the receipt's `spent` must be what the
frame holds, segment by segment; and a frame may hold nothing only when its budget is too small
for the smallest skeleton and the lines around it, which it says.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_cloud import Memory
from attention_cloud.curate import estimate_tokens
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

CHAT = """\
[2023-05-01 09:12] Priya: I signed up for a pottery class at the Clayhouse studio, first session is on Thursday.
[2023-05-01 09:14] Tomás: Nice! Is that the one near the river? I took a glazing workshop there in 2021.
[2023-05-04 19:40] Priya: The pottery class was great yesterday, we made bowls. Bring an apron next time.
[2023-05-10 08:05] Tomás: I'm flying to Lisbon on May 20 for the Halvorsen & Kim job interview.
[2023-05-22 21:30] Tomás: The interview went well last week, they offered me the job.
"""
RECIPES = """\
**user**: A quick dinner with chickpeas and spinach?
**assistant**: Try a chickpea curry with coconut milk, it takes twenty minutes.
**user**: Can I use frozen spinach?
**assistant**: Yes, thaw it and squeeze the water out first.
"""
SEGMENTS = ("work", "chats", "recipes")
GOALS = ["why did charges fail when the processor timed out",
         "When did Priya start the pottery class?",
         "what did Tomás say about Lisbon last week",
         "chickpea curry", "zzz nothing matches qqq"]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    """The bundled payment sessions (segment `work`), a dated chat of named people (`chats`)
    and an unnamed recipe chat (`recipes`), curated with the hash embedder (cells built)."""
    root = tmp_path_factory.mktemp("budget-property")
    (root / "friends.txt").write_text(CHAT, encoding="utf-8")
    (root / "recipes.md").write_text(RECIPES, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    memory = Memory.open(home)
    memory.ingest([samples_dir()], segment="work")
    memory.ingest([root / "friends.txt"], segment="chats")
    memory.ingest([root / "recipes.md"], segment="recipes")
    memory.curate()
    yield memory
    memory.close()


@pytest.fixture(scope="module")
def cells(mem):
    from attention_cloud.cells import cells_list

    return [row["id"] for row in cells_list(mem)]


def _segment_list(draw_split: list[float], chosen: list[str], budget: int) -> dict[str, int]:
    # a list of segment budgets that together take at most the whole budget
    left, out = budget, {}
    for name, part in zip(chosen, draw_split):
        out[name] = int(left * part)
        left -= out[name]
    return out


def check_budget_kept(frame, budget: int) -> None:
    """What every frame of ``budget`` tokens promises of its cost and its receipt."""
    r = frame.receipt
    b = r["budget"]
    facts, crumbs = r["facts"], r["beyond"]
    # spent is what the frame holds: its facts' and breadcrumbs' tokens, segment by segment,
    # each fact's tokens what its text costs as the frame writes it, exactly
    assert b["spent"] == sum(f["tokens"] for f in facts) + sum(c["tokens"] for c in crumbs), b
    for name, seg in b["segments"].items():
        assert seg["spent"] == (sum(f["tokens"] for f in facts if f["segment"] == name)
                                + sum(c["tokens"] for c in crumbs if c["segment"] == name)), name
    for f, shown in zip(facts, frame.facts):
        assert f["tokens"] == estimate_tokens(shown.text), (f, shown.text)
        assert shown.text in frame.text
    if not facts and not crumbs:
        # empty only when too small, and it says so
        assert r.get("empty"), r
        return
    # the frame's cost, as the receipt counts it and as the estimator counts what is written
    assert b["spent"] + b["framing"] <= budget, b
    assert estimate_tokens(frame.envelope) <= budget, (estimate_tokens(frame.envelope), b)
    assert estimate_tokens(frame.text) <= budget, (estimate_tokens(frame.text), b)
    for name, seg in b["segments"].items():
        # a segment that holds something keeps to its own budget too (one given fewer tokens
        # than its heading, `--segment S=0`, is written with it, the others paying for it)
        if seg["spent"]:
            assert seg["spent"] + seg["framing"] <= seg["budget"], (name, seg)


@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(goal=st.sampled_from(GOALS), budget=st.integers(min_value=0, max_value=8000),
       plane=st.sampled_from(["default", "execution", "exploration"]),
       chosen=st.one_of(st.none(), st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3,
                                            unique=True)),
       split=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=3, max_size=3),
       mounts=st.one_of(st.none(), st.lists(st.integers(0, 5), min_size=1, max_size=3)),
       depth=st.integers(0, 2))
def test_a_frame_never_costs_more_than_its_budget(mem, cells, goal, budget, plane, chosen, split,
                                                   mounts, depth):
    kw = {"budget": budget, "plane": plane}
    if mounts is not None and cells:
        kw.update(mount=[cells[i % len(cells)] for i in mounts], depth=depth)
    elif chosen is not None:
        kw["segments"] = _segment_list(split, chosen, budget)
    check_budget_kept(mem.hydrate(goal, **kw), budget)


@pytest.mark.parametrize("budget", [60, 90, 120, 150, 200])
def test_a_small_frame_over_three_segments_keeps_its_budget(mem, budget):
    for goal in GOALS:
        check_budget_kept(mem.hydrate(goal, budget=budget), budget)


def test_fixed_segment_budgets_that_leave_part_of_the_frame_to_none_keep_their_own(mem):
    # The planner shared the frame's head over the whole budget, so a part of 73 of 146 was
    # charged half of it, while the receipt laid all of it on the parts: `recipes` held a
    # 12-token fact and its receipt said 12 + 74 of its 73 (found by the property above).
    kw = {"budget": 146, "plane": "default",
          "segments": _segment_list([0.0, 0.0, 0.5], list(SEGMENTS), 146)}
    for goal in GOALS:
        check_budget_kept(mem.hydrate(goal, **kw), 146)
