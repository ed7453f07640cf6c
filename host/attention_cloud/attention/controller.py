"""The attention controller as a Python API: a thin layer over ``rules/attention_api.pl``.

All computation (candidate generation, value of computation, floors, stopping, hysteresis,
aging, the validator and the trace) happens in Prolog; this module converts arguments and
results. Each changing call is one batch of the memory home's journal when a
:class:`~attention_cloud.Memory` is open (and fsynced before it returns); scopes named
``bench-*`` never reach the journal.

Example (the attention seed's worked example, §30)::

    from attention_cloud.bridge import get_prolog
    from attention_cloud.attention import Controller

    ctl = Controller(get_prolog(), scope="bench-demo")
    ctl.add_source("registry", claim_type="dependency_version", kind="package_registry")
    ctl.add_source("matrix", claim_type="compatibility", kind="compatibility_matrix")
    ctl.add_belief("ver", claim_type="dependency_version", subject="libfoo", value="4.1",
                   confidence=0.9, observed_at=now - 6 * 3600, volatility="package_release")
    ctl.add_belief("compat", claim_type="compatibility", subject="deploy", value="A",
                   confidence=0.9, observed_at=now - 6 * 3600, volatility="config_docs",
                   supports=["ver"])
    ctl.add_goal("deploy", depends_on=["compat"], loss_if_wrong=1.0, now=now)
    result = ctl.attend("deploy", budget=3, now=now)      # chooses the registry
    ctl.inspect(result.chosen.candidate_id, result="4.2", now=now)
"""
from __future__ import annotations

import math
import time
from typing import Any, Iterable, Mapping

from .. import api_args, api_lock
from ..bridge import Atom, Prolog, Var
from ..errors import UsageError
from ..paths import rules_dir
from .results import AttendResult, ClaimVerdict, EventReceipt, InspectOutcome, plain

_API = "atc_attention_api"
_MODES = {"attention-only": "attention_only", "attention_only": "attention_only",
          "production": "production"}

#: Components of the value estimate an ablation can switch off, and the weight that does it
#: (facts/attention_weights.pl): ``staleness`` (no hazard is seen), ``authority`` (every source
#: counts as fully authoritative), ``switch_cost`` (switching is free).
ABLATION_WEIGHTS: dict[str, str] = {"staleness": "staleness_weight",
                                    "authority": "authority_weight",
                                    "switch_cost": "switch_weight"}


def ensure_loaded(pl: Prolog) -> None:
    """Load the attention rules into ``pl`` unless they are already there."""
    if pl.once("user:current_module", Atom(_API)) is None:
        pl.once("user:use_module", str(rules_dir() / "attention_api.pl"))


def _opt(value: Any) -> Any:
    return None if value is None else value


def _finite(name: str, value: Any) -> Any:
    """``value`` unless it is a number that is none (NaN, infinity): stored, it made a
    belief's JSON invalid and every comparison with it false."""
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"a belief's {name} must be a finite number or text, not {value}")
    return value


def _scalar(what: str, value: Any) -> Any:
    """``value`` if it is text, a number, a bool or None: what a belief's value or an
    inspection's result can be (Prolog stores it as one atomic). A list or a dict was passed on
    whole, and a deep one raised RecursionError, a shallow one a type error printing it all."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    kind = "dict" if isinstance(value, Mapping) else "list" if isinstance(
        value, (list, tuple)) else type(value).__name__
    raise UsageError(f"{what} must be text, a number or true/false, not a {kind}")


def _check_text(value: Any) -> None:
    """Refuse text that is not Unicode (a lone surrogate, as Python decodes a byte of a command
    line that is not UTF-8): the bridge raised a UnicodeEncodeError from inside pyswip, and
    the CLI printed a traceback. Walked with a stack of its own, not recursively: a value
    nested thousands of levels deep reaches the bridge, which names the problem."""
    pending, seen = [value], set()
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            api_args.unicode(repr(value), value)
        elif id(value) in seen:     # a list holding itself: the bridge refuses it
            continue
        elif isinstance(value, Mapping):
            seen.add(id(value))
            for key, item in value.items():
                pending.append(key)
                pending.append(item)
        elif isinstance(value, (list, tuple)):
            seen.add(id(value))
            pending.extend(value)


def _ids(value: str | Iterable[str]) -> list[str]:
    """A list of ids; one id given alone is a list of one (not of its characters)."""
    return [value] if isinstance(value, str) else list(value)


class Controller:
    """Beliefs, goals, events, candidates, claims and trace of one scope.

    A scope is a namespace: an agent, a project, or one benchmark trial. ``drop()`` forgets it.
    """

    def __init__(self, pl: Prolog, scope: str = "default", *, memory: Any = None) -> None:
        ensure_loaded(pl)
        self.pl = pl
        self.scope = scope
        self._memory = memory
        self.transient = scope.startswith("bench-")

    # -- plumbing ------------------------------------------------------------------------------
    def _home_memory(self) -> Any:
        if self.transient:
            return None
        if self._memory is not None:
            return self._memory
        from ..memory import current

        return current()

    def _change(self, pred: str, *args: Any) -> tuple:
        """Call a changing predicate as one journal batch, fsynced when a home is open; under
        the API lock, as the Memory's own calls are (another thread's ``release`` between the
        lock taken and the batch written; a fork in the middle of a call: see api_lock)."""
        _check_text(args)
        with api_lock.held():
            memory = self._home_memory()
            if memory is not None:
                memory.acquire()  # the lock, and what other processes committed since
            result = self.pl.once(f"{_API}:{pred}", self.scope, *args)
            if memory is not None:
                from ..store import sync_journal

                sync_journal(memory.home)
        if result is None:  # pragma: no cover - every changing predicate is det
            raise RuntimeError(f"{pred} failed in scope {self.scope}")
        return result

    def _read(self, pred: str, *args: Any) -> Any:
        _check_text(args)
        if not self.transient and self._memory is not None:
            # a UsageError once that Memory is closed: the engine is process-wide, and a read
            # answered from whatever home was opened after it (or from nothing) as if its own
            self._memory.pl
        # the home's Memory first takes in what other processes committed (an erasure
        # elsewhere redacted a belief quoting what it erased), as each Memory call does
        with api_lock.entered(None if self.transient else self._home_memory()):
            result = self.pl.once(f"{_API}:{pred}", self.scope, *args)
        if result is None:  # pragma: no cover - every read predicate is det
            raise RuntimeError(f"{pred} failed in scope {self.scope}")
        return plain(result[0])

    # -- sources, beliefs, goals, events --------------------------------------------------------
    def add_source(self, name: str, *, claim_type: str, authority: float | None = None,
                   cost: float = 1.0, trusted: bool = True, kind: str | None = None,
                   switch_cost: float = 0.0) -> None:
        """Register a source of ``claim_type``; ``authority`` None looks up ``kind`` (default
        ``name``) in the claim-type authority registry (facts/authority.pl). ``switch_cost`` is
        what turning to it costs the work in hand (weighted by ``switch_weight``)."""
        options = {"authority": _opt(authority), "cost": cost, "trusted": trusted,
                   "kind": kind or name, "switch_cost": switch_cost}
        self._change("add_source", name, claim_type, options)

    def add_belief(self, belief_id: str, *, claim_type: str, subject: str, value: Any,
                   confidence: float, observed_at: float, volatility: str | float,
                   supports: str | Iterable[str] = (), source: str | None = None) -> None:
        """Record a belief and why it is held (``supports``: belief ids, ``it_...`` journal
        items, source names, inspection ids, or ``kind:id``). ``volatility`` is a class of
        facts/volatility.pl or a hazard rate per second; a ``bool`` value is a yes/no fact,
        which a stale belief still gets right half the time."""
        value = _scalar("a belief's value", value)
        belief = {"claim_type": claim_type, "subject": subject, "value": _finite("value", value),
                  "confidence": confidence, "observed_at": observed_at,
                  "volatility": volatility, "supports": _ids(supports), "source": source}
        self._change("add_belief", belief_id, belief)

    def add_goal(self, goal_id: str, *, depends_on: str | Iterable[str], loss_if_wrong: float,
                 deadline_s: float | None = None, irreversible: bool = False,
                 safety_critical: bool = False, decides: str | None = None,
                 rule: Iterable[Mapping[str, Any]] | None = None,
                 now: float | None = None) -> None:
        """Set a goal whose next decision depends on ``depends_on``; ``deadline_s`` counts from
        ``now``; the goal's decision is the value of ``decides`` (default the first
        dependency), or, with a ``rule``, the option it names for the believed values.

        ``rule`` spells the decision out over yes/no dependencies, one case per combination:
        ``[{"when": {"ver_ok": True, "compat": False}, "option": "B"}, ...]``. With it, a belief
        counts for attention only as much as it can change the option.
        """
        now = time.time() if now is None else now
        cases = [{"when": {str(b): bool(v) for b, v in case["when"].items()},
                  "option": case["option"]} for case in (rule or ())]
        options = {"loss_if_wrong": loss_if_wrong,
                   "deadline_at": None if deadline_s is None else now + deadline_s,
                   "irreversible": irreversible, "safety_critical": safety_critical,
                   "decides": decides, "rule": cases, "now": now}
        self._change("add_goal", goal_id, _ids(depends_on), options)

    def add_event(self, kind: str, *, source: str, target: str, payload_text: str = "",
                  trusted_priority: float | None = None,
                  now: float | None = None) -> EventReceipt:
        """Report an interruption, failed action, state change or drafted claim. Priority
        comes only from ``trusted_priority`` of a trusted source; the payload is never read."""
        now = time.time() if now is None else now
        (raw,) = self._change("add_event", kind, source, target, payload_text,
                              _opt(trusted_priority), now, Var())
        return EventReceipt.from_prolog(raw)

    def source_changed(self, name: str, *, now: float) -> list[str]:
        """Mark every belief depending on source ``name``, transitively, dirty."""
        (dirtied,) = self._change("source_changed", name, now, Var())
        return [str(b) for b in dirtied]

    def item_changed(self, handle: str, *, now: float) -> list[str]:
        """Mark every belief citing journal item ``handle``, transitively, dirty."""
        (dirtied,) = self._change("item_changed", handle, now, Var())
        return [str(b) for b in dirtied]

    def set_weight(self, name: str, value: float) -> None:
        """Override an attention weight (facts/attention_weights.pl) for this scope."""
        self._change("set_weight", name, value)

    def ignore(self, *components: str) -> None:
        """Switch components of the value estimate off for this scope (ablations):
        ``"staleness"``, ``"authority"``, ``"switch_cost"`` (see :data:`ABLATION_WEIGHTS`)."""
        unknown = [c for c in components if c not in ABLATION_WEIGHTS]
        if unknown:
            raise UsageError(f"unknown component {unknown[0]!r}; known: "
                             f"{', '.join(ABLATION_WEIGHTS)}")
        for component in components:
            self.set_weight(ABLATION_WEIGHTS[component], 0.0)

    # -- the loop -------------------------------------------------------------------------------
    def attend(self, goal_id: str, *, budget: int, now: float,
               current: str | None = None) -> AttendResult:
        """One attention turn: rank candidates and choose one to inspect, or stop.

        ``budget`` is the inspections left, 0 to :meth:`max_budget`: a whole number (``3.0``
        is 3); anything else is a UsageError."""
        budget = self._budget(budget)
        (raw,) = self._change("attend", goal_id, budget, now, _opt(current), Var())
        return AttendResult.from_prolog(raw)

    def inspect(self, candidate_id: str, *, result: Any, now: float, succeeded: bool = True,
                cost: float | None = None) -> InspectOutcome:
        """Record what carrying out a candidate returned; updates beliefs and the trace."""
        value = "" if result is None else _finite("result", _scalar("an inspection's result",
                                                                    result))
        (raw,) = self._change("inspect", candidate_id, value, now, succeeded, _opt(cost), Var())
        return InspectOutcome.from_prolog(raw)

    def claim(self, text: str, *, claim_type: str, evidence: str | Iterable[str] = (),
              mode: str = "attention-only", now: float,
              subject: str | None = None) -> ClaimVerdict:
        """Check a claim's cited evidence against its claim type's policy."""
        prolog_mode = _MODES.get(mode, mode)
        (raw,) = self._change("claim", text, claim_type, _opt(subject), _ids(evidence),
                              Atom(prolog_mode), now, Var())
        return ClaimVerdict.from_prolog(raw)

    def drop(self) -> None:
        """Forget everything this scope holds."""
        self._change("drop")

    # -- reading --------------------------------------------------------------------------------
    def trace(self, goal_id: str | None = None, *, category: str | None = None,
              event: str | None = None, candidate_id: str | None = None) -> list[dict]:
        """Trace events in order, optionally of one goal, category, event type or candidate."""
        flt = {k: v for k, v in (("goal_id", goal_id), ("category", category),
                                 ("event", event), ("candidate_id", candidate_id))
               if v is not None}
        return self._read("trace", flt, Var())

    def belief(self, belief_id: str, *, now: float) -> dict[str, Any]:
        """A belief's claim, value, staleness, dirt and status at ``now``.

        ``p_stale`` is the chance its state changed as the controller weighs it (for a dirty
        belief at least the ``dirty_p_changed`` weight), ``p_stale_by_age`` that of its age
        alone; each of ``dirt`` is ``{"cause": {"kind": ..., ...}, "at": seconds}``."""
        return self._read("belief", belief_id, now, Var())

    def why(self, belief_id: str) -> dict[str, Any]:
        """A belief's justification tree."""
        return self._read("why", belief_id, Var())

    def beliefs(self, *, now: float) -> list[dict[str, Any]]:
        """Every belief of the scope, live or superseded."""
        return self._read("beliefs", now, Var())

    def source(self, name: str) -> dict[str, Any]:
        """A source's claim type, kind, authority, cost and trust."""
        return self._read("source", name, Var())

    def decision(self, goal_id: str) -> dict[str, Any]:
        """A goal's current decision: ``{goal_id, belief, value, dirty}``."""
        return self._read("decision", goal_id, Var())

    def proposals(self, goal_id: str, generator: str, *, now: float) -> list[dict[str, Any]]:
        """What one candidate generator alone proposes (candidate recall per generator)."""
        return self._read("generate", goal_id, generator, now, Var())

    def candidate(self, candidate_id: str) -> dict[str, Any]:
        """The candidate table's record of one candidate."""
        return self._read("candidate", candidate_id, Var())

    def claims(self) -> list[dict[str, Any]]:
        """Every claim the validator checked, oldest first."""
        return self._read("claims", Var())

    def weight(self, name: str) -> float:
        """The value of an attention weight in force for this scope."""
        return self._read("weight", name, Var())

    def check_attend(self, *, budget: int, current: str | None = None) -> None:
        """Refuse, as a UsageError, a budget :meth:`attend` would refuse (0 to
        :meth:`max_budget`) or a ``current`` candidate that does not exist. A caller that sets
        the goal first (``atc attend --depends-on``, the MCP attend tool) checks here before:
        refused after it, the call failed and had still journalled the goal."""
        budget = self._budget(budget)
        largest = self.max_budget()
        if not 0 <= budget <= largest:
            raise UsageError(f"budget {budget}: inspections left, 0 to {largest}")
        if current is not None:
            self.candidate(current)     # an unknown candidate is an error here

    def _budget(self, budget: Any) -> int:
        """``budget`` as the int the rules take: a whole float is one (a budget computed in
        floats, ``3.0``); a fraction, a bool or text is a UsageError (the rules' own answer was
        a type error naming `nonneg`). Its range is the rules' to check (max_budget/1)."""
        if isinstance(budget, float) and budget.is_integer():
            return int(budget)
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise UsageError(f"budget {budget!r}: inspections left, a whole number 0 to "
                             f"{self.max_budget()}")
        return budget

    def max_budget(self) -> int:
        """The largest budget :meth:`attend` takes (the rules' attention_max_budget/1)."""
        (largest,) = self.pl.once(f"{_API}:max_budget", Var())
        return largest
