"""Item rungs: what L1/L2/L3 keep, the size invariants, determinism, hostile text."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_cloud.curate import (
    CURATOR_VERSION,
    L1_TOKENS,
    L2_TOKENS,
    L3_TOKENS,
    ItemView,
    Rungs,
    curate_items,
    estimate_tokens,
)

ROOT = Path(__file__).resolve().parent.parent


def item(text: str, kind: str = "turn", handle: str = "it_1", pointer: str = "chats/s1.jsonl#L7") -> ItemView:
    return ItemView(handle, "ses_a", 1, kind, "", "2026-01-01T00:00:00Z", pointer, text)


def curate(text: str, **fields) -> Rungs:
    return curate_items([item(text, **fields)])[0]


def assert_invariants(text: str, rungs: Rungs) -> None:
    l0, l1, l2, l3 = (estimate_tokens(x) for x in (text, rungs.l1, rungs.l2, rungs.l3))
    assert l1 <= min(L1_TOKENS, l0), (l1, l0)
    assert l2 <= min(L2_TOKENS, l0), (l2, l0)
    assert l3 <= min(L3_TOKENS, l1, l2), (l3, l1, l2)


# -- what the rungs keep --------------------------------------------------------------

CHAT_TURN = (
    "I've been using Zillow and HotPads, but I haven't tried the others. I'll definitely check "
    "them out. By the way, speaking of waiting, it's crazy how long it took for my asylum "
    "application to get approved. Over a year of uncertainty was really tough. But at least "
    "it's behind me now, and I can focus on building my new life here."
)


def test_l1_of_a_chat_turn_keeps_the_fact_a_question_would_ask_about():
    rungs = curate(CHAT_TURN)
    assert "asylum application" in rungs.l1
    assert "I'll definitely check them out" not in rungs.l1
    assert "Over a year" in rungs.l2 or "Over a year" in rungs.distillation.entities


def test_l1_prefers_the_aside_with_numbers_over_pleasantries():
    rungs = curate("Thanks for the resources! I'll definitely check them out. By the way, I recently "
                   "participated in a charity walk and managed to raise $250 through sponsors. "
                   "Any tips on staying motivated?")
    assert "$250" in rungs.l1
    assert not rungs.l1.startswith("By the way")
    assert "Thanks" not in rungs.l1


def test_l1_of_an_error_item_is_the_error_line():
    text = ("Running the importer on the March export.\nTraceback (most recent call last):\n"
            '  File "host/ingest/reader.py", line 88, in read_all\n    data = fh.read()\n'
            "MemoryError: cannot allocate 2147483648 bytes")
    rungs = curate(text, kind="error")
    assert "MemoryError" in rungs.l1
    assert "MemoryError" in rungs.distillation.entities


def test_l3_starts_with_the_pointer_and_carries_tags_and_entities():
    text = ("We decided to move the vector index to faiss with an IVF layout because the flat "
            "index took 900 ms per query on 2 million rows; host/attention_cloud/embed/store.py "
            "now builds it and the benchmark in scripts/bench/jump.py shows 12 ms.")
    rungs = curate(text, pointer="transcripts/a1.jsonl#L42")
    assert rungs.l3.startswith("a1.jsonl#L42 ")  # the file's name and place: the path is the source's
    assert "#turn" in rungs.l3
    assert "host/attention_cloud/embed/store.py" in rungs.l3


def test_a_long_absolute_path_leaves_the_skeleton_room_for_its_tags_and_names():
    text = ("The exporter config was wrong: OTEL_EXPORTER_OTLP_ENDPOINT pointed at port 4317 of "
            "the collector while the Bandit instrumentation sends HTTP to 4318; lib/spotter/"
            "telemetry.ex now reads the port from config/runtime.exs.")
    pointer = ("/home/someone/.claude/projects/-home-someone-work-spotter/"
               "ae4a77f8-1c2d-4e5f-9a8b-7c6d5e4f3a2b.jsonl:1932")
    rungs = curate(text, pointer=pointer)
    assert rungs.l3.startswith("ae4a77f8-1c2d-4e5f-9a8b-7c6d5e4f3a2b.jsonl:1932 ")
    assert "/home/someone" not in rungs.l3
    assert "#turn" in rungs.l3 and " | " in rungs.l3  # tags, and a name it holds
    whole = curate(text, pointer=pointer).l3.split(" ")[0]
    assert whole != pointer  # the path itself stays the record's source, not its skeleton's


def test_l2_renders_the_structured_distillation():
    text = ("The cache must stay under 2 GB. We decided to evict by LRU instead of TTL because "
            "the TTL sweep blocked writes for 300 ms. After the change the soak test passed: "
            "48 passed, 0 failed over 6 hours. Nothing else changed in the release notes.")
    rungs = curate(text, kind="conclusion")
    d = rungs.distillation
    assert rungs.l2 == d.render()
    assert rungs.l2.startswith("decisions: We decided to evict by LRU")
    assert "constraints: The cache must stay under 2 GB." in rungs.l2
    assert "entities: " in rungs.l2 and "2 GB" in d.entities


def test_a_tiny_item_is_its_own_summary_and_skeleton():
    rungs = curate("ok")
    assert rungs.l1 == "ok" and rungs.l2 == "ok" and rungs.l3 == "ok"


def test_empty_text_gives_an_empty_ladder():
    rungs = curate("")
    assert (rungs.l1, rungs.l2, rungs.l3) == ("", "", "")


def test_provenance_and_curator_of_an_item():
    rungs = curate("We chose SQLite.", handle="it_9f")
    assert rungs.handle == "it_9f"
    assert rungs.provenance == ("it_9f",)
    assert rungs.curator == f"extractive@{CURATOR_VERSION}"


# -- invariants -----------------------------------------------------------------------

_WORDS = st.sampled_from(
    ["the", "We", "decided", "must", "never", "passed", "12", "tests", "$10", "200 ms", "Sony A7R IV",
     "host/a/b.py", "ValueError:", "foo(X) :- bar(X).", "'quoted'", "\\", "\"", "日本語", "🙂",
     "https://x.org/a", "By the way,", ".", "!", "?", "\n", "\n```\n", "    ", "-", "**", "`x`",
     "I'm", "my", "over a year", "e.g.", "Dr.", "May 30, 2023", "\ud800"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=600),
        st.lists(_WORDS, max_size=160).map(" ".join),
        st.lists(_WORDS, max_size=40).map("".join),
    ),
    st.sampled_from(["turn", "user_goal", "conclusion", "error", "tool_result", "file_op"]),
    st.text(max_size=80),
)
def test_rung_sizes_hold_for_any_text(text, kind, pointer):
    rungs = curate(text, kind=kind, pointer=pointer)
    assert_invariants(text, rungs)
    assert all(isinstance(x, str) for x in (rungs.l1, rungs.l2, rungs.l3))


def test_hostile_text_is_data_not_code():
    text = ("'); halt. :- initialization(main). foo(X) :- bar(\"X\\\"), \\+ baz. "
            "DROP TABLE items; -- \x00 \u202e reversed \ud83d")
    rungs = curate(text)
    assert_invariants(text, rungs)
    assert rungs.l1  # something was summarised


def test_a_ten_megabyte_item_is_curated_quickly_from_its_head_and_tail():
    text = "The import of the March archive started. " + ("x" * 79 + "\n") * 131_072 + \
        "Finally the import failed with MemoryError after 3 hours."
    # CPU time, not wall time: the claim is about the work curation does (a quadratic step
    # took seconds of it), and the CPU a process spends does not grow when other test
    # processes share the cores
    started = time.process_time()
    rungs = curate(text)
    elapsed = time.process_time() - started
    assert elapsed < 1.0, elapsed
    assert_invariants(text, rungs)
    assert "MemoryError" in rungs.distillation.entities


@pytest.mark.parametrize(
    "text",
    ["a/" * 4000, "a." * 4000, "1," * 4000, "a-" * 4000 + ".pyx", "Abc of the " * 800, "`" * 8000,
     "aB" * 4000, "f(" * 4000, "_a" * 4000, "$1 " * 2500, "by the way, " * 700],
    ids=["slashes", "dots", "digit-commas", "hyphen-run", "capitals", "backticks", "camel",
         "parens", "underscores", "dollars", "asides"],
)
def test_pathological_text_is_curated_in_linear_time(text):
    started = time.process_time()   # CPU time: the work done, whatever else shares the cores
    rungs = curate(text)
    assert time.process_time() - started < 0.5
    assert_invariants(text, rungs)


# -- determinism ----------------------------------------------------------------------

_CORPUS = [
    CHAT_TURN,
    "We decided to use PostgreSQL with pgvector. The pool must never exceed 20 connections. "
    "Load test: 1,000 requests in 2.5 s, 0 errors. Config lives in deploy/prod/values.yaml.",
    "Hi! Can you recommend a flash for my Sony A7R IV? I shoot weddings in June and July.",
    "ValueError: invalid literal for int() with base 10: 'abc'",
]


def test_same_items_give_the_same_rungs_whatever_else_is_curated():
    items = [item(t, handle=f"it_{i}") for i, t in enumerate(_CORPUS)]
    alone = [curate_items([x])[0] for x in items]
    together = curate_items(items)
    assert alone == together
    assert curate_items(list(reversed(items))) == list(reversed(together))


def test_rungs_do_not_depend_on_the_hash_seed():
    script = (
        "import json,sys\n"
        "from attention_cloud.curate import ItemView, curate_items\n"
        "texts = json.loads(sys.stdin.read())\n"
        "items = [ItemView(f'it_{i}', 's', i, 'turn', '', '', 'p', t) for i, t in enumerate(texts)]\n"
        "print(json.dumps([[r.l1, r.l2, r.l3, r.distillation.as_dict()] for r in curate_items(items)]))\n"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT / "host")}
        result = subprocess.run([sys.executable, "-c", script], input=json.dumps(_CORPUS),
                                capture_output=True, text=True, env=env, check=True)
        outputs.add(result.stdout)
    assert len(outputs) == 1


def test_the_speed_benchmark_runs_and_reports_items_per_second():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts/bench/curate_speed.py"), "--items", "200", "--repeat", "1"],
        capture_output=True, text=True, check=True, timeout=120,
    )
    assert "items/s" in result.stdout and "mean tokens: L0=" in result.stdout
