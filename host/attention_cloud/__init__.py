"""Attention Cloud: an agent's history as a durable Prolog journal, rendered into frames.

Public API::

    from attention_cloud import Memory
    mem = Memory.open()                       # $ATC_HOME or ~/.attention-cloud
    mem.ingest(["transcript.jsonl"])
    mem.query("item_kind(H, error)").rows
"""
from __future__ import annotations

from .errors import (AtcError, BadArgument, BridgeError, EmbeddingError, HomeError, InputError,
                     PrologError, UsageError, WriterBusy)

# Memory and its result types are imported on first use (PEP 562): a process that only needs
# a light part of the package (the prompt hook's client, `atc --help`) does not pay for the
# engine, numpy and faiss at start.
_LAZY = {"Memory": "memory", "IngestReport": "memory", "Item": "memory", "QueryResult": "memory"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Memory", "IngestReport", "Item", "QueryResult", "AtcError", "BadArgument", "BridgeError",
           "EmbeddingError", "HomeError", "InputError", "PrologError", "UsageError", "WriterBusy"]
__version__ = "0.1.0"
