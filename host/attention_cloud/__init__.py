"""Attention Cloud: an agent's history as a durable Prolog journal, rendered into frames.

Public API::

    from attention_cloud import Memory
    mem = Memory.open()                       # $ATC_HOME or ~/.attention-cloud
    mem.ingest(["transcript.jsonl"])
    mem.query("item_kind(H, error)").rows
"""
from __future__ import annotations

from .errors import (AtcError, BridgeError, EmbeddingError, HomeError, InputError, PrologError,
                     UsageError)
from .memory import IngestReport, Item, Memory, QueryResult

__all__ = ["Memory", "IngestReport", "Item", "QueryResult", "AtcError", "BridgeError",
           "EmbeddingError", "HomeError", "InputError", "PrologError", "UsageError"]
__version__ = "0.1.0"
