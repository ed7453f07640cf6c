"""A bundled demo sample: three Claude Code sessions on a small fictional payments service.

``2026-01-12-processor-retries``
    Retry logic for the card processor client: a failing test run with a
    ``ModuleNotFoundError``, an off-by-one ``AssertionError``, the decision "exponential backoff
    with jitter, at most 5 retries", a configurable ``PAYMENTS_MAX_RETRIES``.
``2026-01-13-pan-logging-audit``
    The constraint "never log card numbers" (PCI DSS), masking to the last 4 digits, a nested
    payload bug; its first user message carries an injected ``<memory-frame>`` envelope that
    ingestion must strip.
``2026-01-15-webhook-idempotency``
    Duplicate ``charge.succeeded`` webhooks: Redis rejected for Postgres (``processed_events``
    table, 24 hour purge), an ordering bug, a subagent report.

>>> from attention_cloud.samples import sample_paths
>>> [p.name for p in sample_paths()][0]
'2026-01-12-processor-retries.jsonl'
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent
"""The folder holding the sample transcripts."""


def sample_paths() -> list[Path]:
    """The sample session transcripts (``*.jsonl``), in name (and so date) order."""
    return sorted(SAMPLE_DIR.glob("*.jsonl"))
