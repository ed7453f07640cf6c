"""Sharing: principals, teams, grants with ceilings, labels that only tighten, mounts by
reference, ``atc serve`` and the owner's audit log. The policy is Prolog (rules/grants.pl,
visible/3); this package authenticates, serves and renders.
"""
from __future__ import annotations

from .policy import (Grant, SharingState, add_grant, add_mount, add_principal, authenticate,
                     declassify, grants_for, join_team, label, leave_team, record_labels,
                     remove_mount, remove_principal, revoke_grant, sharing_state)
from .reads import reader_hydrate, reader_query, reader_receipt, reader_show

__all__ = ["Grant", "SharingState", "add_grant", "add_mount", "add_principal", "authenticate",
           "declassify", "grants_for", "join_team", "label", "leave_team", "record_labels",
           "remove_mount", "remove_principal", "revoke_grant", "sharing_state",
           "reader_hydrate", "reader_query", "reader_receipt", "reader_show"]
