"""Sharing: principals, teams, grants with ceilings, labels that only tighten, mounts by
reference, ``atc serve`` and the owner's audit log. The policy is Prolog (rules/grants.pl,
visible/3); this package authenticates, serves and renders.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

# The CLI mounts this package's commands on every `atc` start (a hook process included), so
# the names below are imported on first use rather than with the package.
_POLICY = ("Grant", "SharingState", "add_grant", "add_mount", "add_principal", "authenticate",
           "declassify", "grants_for", "join_team", "label", "leave_team", "record_labels",
           "remove_mount", "remove_principal", "revoke_grant", "sharing_state",
           "stored_sharing_state")
_READS = ("reader_hydrate", "reader_query", "reader_receipt", "reader_show")
_HOME = {**dict.fromkeys(_POLICY, ".policy"), **dict.fromkeys(_READS, ".reads")}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(_HOME[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [*_POLICY, *_READS]
