"""Appendix C separation: a policy receives the scenario interface and its own observations only.

A snooping policy walks everything it is given looking for evaluator-side fields and values; it
must find none, in process and across the JSON-lines boundary.
"""
from __future__ import annotations

import json
import sys
from dataclasses import fields
from typing import Any

from attention_cloud.benchmark.external import ExternalPolicy
from attention_cloud.benchmark.families import FAMILIES, generate
from attention_cloud.benchmark.interface import OBSERVATION_SCHEMA, schema_errors, validate_interface
from attention_cloud.benchmark.model import LatentScenario, ObjectTruth, Scenario
from attention_cloud.benchmark.runner import run_policy
from attention_cloud.benchmark.session import PolicyReport

LATENT_FIELDS = ({f.name for f in fields(LatentScenario)} | {f.name for f in fields(ObjectTruth)}
                 | {f.name for f in fields(Scenario)}) - {"objects", "content", "family", "seed",
                                                          "visible"}
EVALUATOR_WORDS = LATENT_FIELDS | {"latent", "oracle", "regret", "salient", "critical"}


def _walk(value: Any, keys: set[str], strings: list[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            keys.add(str(k))
            _walk(v, keys, strings)
    elif isinstance(value, list):
        for v in value:
            _walk(v, keys, strings)
    elif isinstance(value, str):
        strings.append(value)


class SnoopingPolicy:
    """Inspects everything, keeping a record of every key and string it was handed."""

    name = "snoop"
    description = "test policy"

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.strings: list[str] = []
        self.observations: list[dict] = []

    def run(self, ctx) -> PolicyReport:
        doc = ctx.interface
        validate_interface(doc)
        _walk(doc, self.keys, self.strings)
        order = [o["object_id"] for o in doc["objects"]]
        if ctx.mode == "static":
            results = ctx.inspect_batch(order[:ctx.budget_left])
        else:
            results = [ctx.inspect(oid) for oid in order[:ctx.budget_left]]
        for obs in results:
            assert schema_errors(obs, OBSERVATION_SCHEMA) == []
            _walk(obs, self.keys, self.strings)
        self.observations += results
        ctx.decide({})
        return PolicyReport()


def _hidden_strings(scenario, inspected: set[str]) -> set[str]:
    """Observation texts of objects the policy did not inspect (known only to the evaluator),
    less any text an inspected object returned too (two sources may say the same thing)."""
    seen = {t.content for oid, t in scenario.latent.objects.items() if oid in inspected}
    return {t.content for oid, t in scenario.latent.objects.items() if oid not in inspected} - seen


def test_in_process_policy_finds_no_latent_field_or_value():
    for family, spec in FAMILIES.items():
        scenario = generate(family, 3)
        policy = SnoopingPolicy()
        session, _, _, error = run_policy(policy, scenario, condition="unprompted",
                                          mode=spec.default_mode)
        assert error is None
        assert not (policy.keys & EVALUATOR_WORDS), family
        inspected = {r.object_id for r in session.inspections}
        assert not (set(policy.strings) & _hidden_strings(scenario, inspected)), family
        assert inspected == {o["object_id"] for o in policy.observations}


SNOOP_SCRIPT = r'''
import json, sys
record = open(sys.argv[1], "a")
for line in sys.stdin:
    record.write(line)
    record.flush()
    msg = json.loads(line)
    if msg["type"] == "trial":
        scenario = msg["scenario"]
        pending = [o["object_id"] for o in scenario["objects"]][:scenario["limits"]["max_inspections"]]
        trial = {"pending": pending}
    if msg["type"] in ("trial", "observation", "error"):
        if trial["pending"]:
            print(json.dumps({"type": "inspect", "object_id": trial["pending"].pop(0)}), flush=True)
        else:
            print(json.dumps({"type": "decide", "decisions": {}}), flush=True)
    if msg["type"] == "end":
        break
'''


def test_external_process_receives_no_latent_field(tmp_path):
    script = tmp_path / "snoop.py"
    script.write_text(SNOOP_SCRIPT)
    record = tmp_path / "received.jsonl"
    policy = ExternalPolicy(f"{sys.executable} {script} {record}", timeout_s=20)
    try:
        scenarios = [generate(f, 5) for f in ("B", "D", "H")]
        for scenario in scenarios:
            _, _, _, error = run_policy(policy, scenario, condition="announced", mode="adaptive")
            assert error is None
    finally:
        policy.close()
    keys: set[str] = set()
    strings: list[str] = []
    for line in record.read_text().splitlines():
        _walk(json.loads(line), keys, strings)
    assert not (keys & EVALUATOR_WORDS)
    for scenario in scenarios:
        truth_words = {f"{cid}={value}" for cid, value in scenario.latent.truth.items()}
        assert not (set(strings) & truth_words)
