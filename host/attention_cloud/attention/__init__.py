"""Beliefs that go dirty and the value-of-computation attention controller.

Public API::

    from attention_cloud.bridge import get_prolog
    from attention_cloud.attention import Controller

    ctl = Controller(get_prolog(), scope="my-agent")
    result = ctl.attend("deploy", budget=3, now=now)   # AttendResult: ranked, decision, chosen

The logic lives in Prolog (rules/tms.pl, rules/attention*.pl, rules/validator.pl,
rules/trace.pl); see docs/attention.md for the model and a worked example.
"""
from __future__ import annotations

from .controller import ABLATION_WEIGHTS, Controller, ensure_loaded
from .results import AttendResult, Candidate, ClaimVerdict, EventReceipt, InspectOutcome

__all__ = ["Controller", "Candidate", "AttendResult", "InspectOutcome", "ClaimVerdict",
           "EventReceipt", "ensure_loaded", "ABLATION_WEIGHTS"]
