"""The bundled demo sample: realistic, entity-rich, and clean to ingest."""

from __future__ import annotations

from collections import Counter

from attention_cloud.ingest import parse_path
from attention_cloud.samples import sample_paths


def parsed():
    return [parse_path(path) for path in sample_paths()]


def objects(results, predicate):
    return {obj for r in results for i in r.items for _, p, obj in i.relations if p == predicate}


def test_three_clean_claude_code_sessions():
    paths = sample_paths()
    assert [p.name for p in paths] == [
        "2026-01-12-processor-retries.jsonl",
        "2026-01-13-pan-logging-audit.jsonl",
        "2026-01-15-webhook-idempotency.jsonl",
    ]
    results = parsed()
    assert all(r.format == "claude-code" and r.skipped == [] for r in results)
    assert 40 <= sum(r.records_read for r in results) <= 90
    assert len({i.session for r in results for i in r.items}) == 3


def test_every_kind_the_demo_needs_is_present():
    kinds = Counter(i.kind for r in parsed() for i in r.items)
    assert set(kinds) == {"user_goal", "conclusion", "file_op", "error", "tool_result", "turn"}
    assert kinds["error"] >= 4 and kinds["file_op"] >= 10 and kinds["user_goal"] >= 5


def test_decisions_and_constraints_are_recallable():
    items = [i for r in parsed() for i in r.items]
    decision = [
        i
        for i in items
        if i.kind == "conclusion" and "exponential backoff with jitter, at most 5 retries" in i.text
    ]
    assert len(decision) == 1
    assert decision[0].goal.startswith("The /v1/charges endpoint returns 502")
    constraint = [
        i for i in items if i.kind == "user_goal" and i.text.startswith("Never log card numbers")
    ]
    assert len(constraint) == 1
    redis = [i for i in items if i.kind == "user_goal" and "Use Postgres instead" in i.text]
    assert len(redis) == 1


def test_entities_for_hydration_demos():
    results = parsed()
    assert {"ModuleNotFoundError", "AssertionError", "ProcessorTimeout", "ImportError"} <= objects(
        results, "mentions"
    )
    assert {
        "src/payments/retry.py",
        "src/payments/refunds.py",
        "src/payments/webhooks.py",
        "migrations/0007_processed_events.sql",
    } <= objects(results, "touches_file")
    assert {"Bash", "Edit", "Write", "Read", "Grep", "MultiEdit", "Task"} <= objects(
        results, "tool"
    )
    assert objects(results, "cwd") == {"/home/dev/payments-service"}
