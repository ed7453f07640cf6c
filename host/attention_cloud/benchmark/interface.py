"""The scenario interface: the only view of a trial a policy ever receives (Appendix C).

:func:`render_interface` turns a :class:`~.model.VisibleScenario` into a plain JSON document;
:data:`INTERFACE_SCHEMA` is its JSON Schema, closed everywhere (``additionalProperties: false``),
so a document that validates cannot carry a latent field. :data:`OBSERVATION_SCHEMA` describes
what an inspection returns. Trusted metadata and untrusted text are kept in separately named
fields (``untrusted_preview``, ``untrusted_payload``) so a policy never has to guess which is which.

Two conditions render the same scenario: ``announced`` adds an instruction to inspect within a
budget; ``unprompted`` (§15) gives the same task and tools with no instruction to verify and no
mention of a test.
"""
from __future__ import annotations

from typing import Any

from ..errors import InputError
from .model import VisibleScenario

SCHEMA_ID = "attention-bench/scenario-interface/1"
CONDITIONS = ("announced", "unprompted")
MODES = ("adaptive", "static")

_NUM = {"type": "number"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_STR_OR_NULL = {"type": ["string", "null"]}


def _closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": False}


INTERFACE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "Attention benchmark scenario interface (policy-visible)",
    **_closed({
        "schema": {"const": SCHEMA_ID},
        "trial_id": _STR,
        "now_s": _NUM,
        "task": _closed({"text": _STR, "instruction": _STR}, required=["text"]),
        "limits": _closed({
            "max_inspections": {"type": "integer", "minimum": 0},
            "inspection_protocol": {"enum": ["one_at_a_time", "batch"]},
            "session_horizon_s": _NUM,
        }),
        "goals": {"type": "array", "items": _closed({
            "goal_id": _STR, "text": _STR, "kind": {"enum": ["task", "interruption"]},
            "current": _BOOL,
            "depends_on": {"type": "array", "items": _STR},
            "options": {"type": "array", "items": _closed({"option_id": _STR, "text": _STR})},
            "rule": {"type": "array", "items": _closed({
                "when": {"type": "object", "additionalProperties": _BOOL},
                "option_id": _STR})},
            "defer_option": _STR_OR_NULL, "defer_cost": _NUM, "loss_if_wrong": _NUM,
            "deadline_s": _NUM_OR_NULL, "irreversible": _BOOL, "safety_critical": _BOOL,
        })},
        "claims": {"type": "array", "items": _closed({
            "claim_id": _STR, "claim_type": _STR, "subject": _STR, "true_text": _STR,
            "false_text": _STR, "volatility": _STR, "hazard_per_hour": _NUM,
            "belief": {"oneOf": [{"type": "null"}, _closed({
                "value": _BOOL, "confidence": _NUM, "observed_at_s": _NUM, "origin": _STR,
                "source_object": _STR_OR_NULL})]},
        })},
        "objects": {"type": "array", "items": _closed({
            "object_id": _STR, "kind": _STR, "title": _STR, "about_claim": _STR_OR_NULL,
            "authority": _NUM_OR_NULL, "cost": _NUM, "switch_cost": _NUM,
            "content_as_of_s": _NUM_OR_NULL, "arrived_at_s": _NUM, "trusted": _BOOL,
            "trusted_priority": _NUM_OR_NULL, "sender": _STR, "goal_id": _STR_OR_NULL,
            "untrusted_preview": _STR,
        })},
        "events": {"type": "array", "items": _closed({
            "event_id": _STR, "kind": {"enum": ["source_changed", "interruption", "notification"]},
            "at_s": _NUM, "source_object": _STR_OR_NULL, "claim_id": _STR_OR_NULL,
            "goal_id": _STR_OR_NULL, "trusted_priority": _NUM_OR_NULL, "untrusted_payload": _STR,
        })},
    }),
}

OBSERVATION_SCHEMA: dict[str, Any] = _closed({
    "object_id": _STR,
    "ok": _BOOL,
    "reports": {"oneOf": [{"type": "null"}, _closed({"claim_id": _STR, "value": _BOOL})]},
    "content": _STR,
    "observed_at_s": _NUM,
    "budget_left": {"type": "integer"},
})


def render_interface(visible: VisibleScenario, *, condition: str, mode: str) -> dict[str, Any]:
    """The policy-visible JSON document of a scenario under a condition and inspection mode."""
    if condition not in CONDITIONS:
        raise InputError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; expected one of {MODES}")
    task: dict[str, Any] = {"text": visible.task_text}
    if condition == "announced":
        task["instruction"] = visible.announced_instruction
    return {
        "schema": SCHEMA_ID,
        "trial_id": visible.trial_id,
        "now_s": visible.now_s,
        "task": task,
        "limits": {"max_inspections": visible.max_inspections,
                   "inspection_protocol": "one_at_a_time" if mode == "adaptive" else "batch",
                   "session_horizon_s": visible.horizon_s},
        "goals": [{
            "goal_id": g.goal_id, "text": g.text, "kind": g.kind, "current": g.current,
            "depends_on": list(g.depends_on),
            "options": [{"option_id": o.option_id, "text": o.text} for o in g.options],
            "rule": [{"when": dict(r.when), "option_id": r.option_id} for r in g.rule],
            "defer_option": g.defer_option, "defer_cost": g.defer_cost,
            "loss_if_wrong": g.loss_if_wrong, "deadline_s": g.deadline_s,
            "irreversible": g.irreversible, "safety_critical": g.safety_critical,
        } for g in visible.goals],
        "claims": [{
            "claim_id": c.claim_id, "claim_type": c.claim_type, "subject": c.subject,
            "true_text": c.true_text, "false_text": c.false_text, "volatility": c.volatility,
            "hazard_per_hour": c.hazard_per_hour,
            "belief": None if c.belief is None else {
                "value": c.belief.value, "confidence": c.belief.confidence,
                "observed_at_s": c.belief.observed_at_s, "origin": c.belief.origin,
                "source_object": c.belief.source_object},
        } for c in visible.claims],
        "objects": [{
            "object_id": o.object_id, "kind": o.kind, "title": o.title,
            "about_claim": o.about_claim, "authority": o.authority, "cost": o.cost,
            "switch_cost": o.switch_cost, "content_as_of_s": o.content_as_of_s,
            "arrived_at_s": o.arrived_at_s, "trusted": o.trusted,
            "trusted_priority": o.trusted_priority, "sender": o.sender, "goal_id": o.goal_id,
            "untrusted_preview": o.untrusted_preview,
        } for o in visible.objects],
        "events": [{
            "event_id": e.event_id, "kind": e.kind, "at_s": e.at_s,
            "source_object": e.source_object, "claim_id": e.claim_id, "goal_id": e.goal_id,
            "trusted_priority": e.trusted_priority, "untrusted_payload": e.untrusted_payload,
        } for e in visible.events],
    }


# -- a small validator for the subset of JSON Schema used above --------------------------------

_TYPES = {"string": str, "boolean": bool, "object": dict, "array": list}


def _type_ok(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def schema_errors(doc: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Every violation of ``schema`` in ``doc`` (supports the keywords this module uses)."""
    errors: list[str] = []
    if "const" in schema and doc != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}")
    if "enum" in schema and doc not in schema["enum"]:
        errors.append(f"{path}: {doc!r} not in {schema['enum']}")
    if "oneOf" in schema:
        matches = sum(1 for sub in schema["oneOf"] if not schema_errors(doc, sub, path))
        if matches != 1:
            errors.append(f"{path}: matches {matches} alternatives, expected exactly one")
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(doc, n) for n in names):
            return errors + [f"{path}: expected {'/'.join(names)}, got {type(doc).__name__}"]
    if "minimum" in schema and isinstance(doc, (int, float)) and doc < schema["minimum"]:
        errors.append(f"{path}: {doc} below minimum {schema['minimum']}")
    if isinstance(doc, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in doc:
                errors.append(f"{path}: missing required field {key!r}")
        extra = schema.get("additionalProperties", True)
        for key, value in doc.items():
            if key in props:
                errors += schema_errors(value, props[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: field {key!r} is not part of the interface")
            elif isinstance(extra, dict):
                errors += schema_errors(value, extra, f"{path}.{key}")
    if isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    return errors


def validate_interface(doc: Any) -> None:
    """Raise :class:`InputError` listing the first problems if ``doc`` is not a valid interface."""
    errors = schema_errors(doc, INTERFACE_SCHEMA)
    if errors:
        raise InputError("invalid scenario interface: " + "; ".join(errors[:5]))
