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

from ..lazy_names import lazy_names

# Each name is imported from its module on first use (PEP 562): `atc --help` mounts the
# attention commands (attention/cli.py) without importing the controller.
__getattr__, __dir__ = lazy_names(__name__, {
    **dict.fromkeys(("ABLATION_WEIGHTS", "Controller", "ensure_loaded"), ".controller"),
    **dict.fromkeys(("AttendResult", "Candidate", "ClaimVerdict", "EventReceipt",
                     "InspectOutcome"), ".results")})

__all__ = ["Controller", "Candidate", "AttendResult", "InspectOutcome", "ClaimVerdict",
           "EventReceipt", "ensure_loaded", "ABLATION_WEIGHTS"]
