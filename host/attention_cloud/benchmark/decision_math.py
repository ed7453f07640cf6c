"""Exact decision arithmetic over a small set of binary facts (pure numpy, no scenario types).

A :class:`DecisionModel` holds a prior over the joint states of the facts that matter, one
observation channel per inspectable object, and the utility of every option of every goal.
Everything else in the benchmark (the evaluator's oracles and the visible-side reasoner) is
written in terms of these few functions, so the two sides can never disagree about arithmetic,
only about the parameters they feed in.

Weights are kept *unnormalised*: after observations ``w[s] = P(s, observations)``, so
``stop_value(w)`` is the expected utility of deciding now times the probability of reaching this
point, and values of children simply add up.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

#: Outcome codes of one inspection: the source reported False, reported True, or failed.
REPORTED_FALSE, REPORTED_TRUE, FAILED = 0, 1, 2


@dataclass(frozen=True)
class ClaimPrior:
    """Probability that a binary fact is true before any inspection."""

    claim_id: str
    p_true: float


@dataclass(frozen=True)
class Channel:
    """How one inspectable object reports on one fact.

    ``echo_value`` set means the object repeats a stored value whatever the world is;
    ``claim_id`` None (or a fact outside the model) means it says nothing the decision uses.
    """

    object_id: str
    claim_id: str | None
    accuracy: float
    cost: float
    failure_prob: float = 0.0
    echo_value: bool | None = None


@dataclass(frozen=True)
class DecisionGoal:
    """A decision: options, which option is right for each assignment of its facts, stakes.

    ``rule`` maps a tuple of truth values (in ``depends_on`` order) to the right option. Every
    other option loses ``loss``; the ``defer_option`` (if any) always costs ``defer_cost``.
    """

    goal_id: str
    depends_on: tuple[str, ...]
    option_ids: tuple[str, ...]
    rule: Mapping[tuple[bool, ...], str]
    loss: float
    defer_option: str | None = None
    defer_cost: float = 0.0


@dataclass(frozen=True)
class GoalBlock:
    """Where one goal's options sit in the stacked utility matrix."""

    goal_id: str
    option_ids: tuple[str, ...]
    start: int


@dataclass(frozen=True)
class DecisionModel:
    """Prior, observation channels and utilities over the joint states of the model's facts."""

    claim_ids: tuple[str, ...]
    object_ids: tuple[str, ...]
    prior: np.ndarray        # (S,)
    likelihood: np.ndarray   # (N, 3, S): P(outcome | state) per object
    cost: np.ndarray         # (N,)
    utility: np.ndarray      # (A, S): one row per option, goals stacked
    goals: tuple[GoalBlock, ...]

    @property
    def n_objects(self) -> int:
        return len(self.object_ids)

    @property
    def block_starts(self) -> np.ndarray:
        return np.array([g.start for g in self.goals], dtype=np.intp)

    def informative(self) -> np.ndarray:
        """Mask of objects whose outcome distribution depends on the state at all."""
        spread = self.likelihood.max(axis=2) - self.likelihood.min(axis=2)
        return spread.max(axis=1) > 1e-12

    def alphabet(self) -> int:
        """Outcomes worth enumerating: 3 when some object can fail, else 2."""
        return 3 if float(self.likelihood[:, FAILED, :].max(initial=0.0)) > 0.0 else 2

    def index(self, object_id: str) -> int:
        return self.object_ids.index(object_id)


def state_bits(n_claims: int) -> np.ndarray:
    """``bits[s, r]`` is True when fact ``r`` is true in joint state ``s``."""
    states = np.arange(2 ** n_claims)[:, None]
    return ((states >> np.arange(n_claims)[None, :]) & 1).astype(bool)


def build_model(claims: Sequence[ClaimPrior], channels: Sequence[Channel],
                goals: Sequence[DecisionGoal]) -> DecisionModel:
    """Assemble a model whose state space is the facts the goals depend on."""
    wanted = {c for g in goals for c in g.depends_on}
    claim_ids = tuple(c.claim_id for c in claims if c.claim_id in wanted)
    missing = wanted - set(claim_ids)
    if missing:
        raise ValueError(f"goals depend on facts without a prior: {sorted(missing)}")
    position = {c: r for r, c in enumerate(claim_ids)}
    p_true = {c.claim_id: c.p_true for c in claims}
    bits = state_bits(len(claim_ids))
    prior = np.ones(len(bits))
    for r, cid in enumerate(claim_ids):
        prior *= np.where(bits[:, r], p_true[cid], 1.0 - p_true[cid])

    likelihood = np.empty((len(channels), 3, len(bits)))
    for i, ch in enumerate(channels):
        ok = 1.0 - ch.failure_prob
        likelihood[i, FAILED, :] = ch.failure_prob
        if ch.echo_value is not None:
            likelihood[i, REPORTED_TRUE, :] = ok if ch.echo_value else 0.0
            likelihood[i, REPORTED_FALSE, :] = 0.0 if ch.echo_value else ok
        elif ch.claim_id in position:
            bit = bits[:, position[ch.claim_id]]
            likelihood[i, REPORTED_TRUE, :] = ok * np.where(bit, ch.accuracy, 1.0 - ch.accuracy)
            likelihood[i, REPORTED_FALSE, :] = ok * np.where(bit, 1.0 - ch.accuracy, ch.accuracy)
        else:
            likelihood[i, REPORTED_TRUE, :] = ok / 2.0
            likelihood[i, REPORTED_FALSE, :] = ok / 2.0

    rows: list[np.ndarray] = []
    blocks: list[GoalBlock] = []
    for g in goals:
        blocks.append(GoalBlock(g.goal_id, g.option_ids, len(rows)))
        cols = [position[c] for c in g.depends_on]
        right = [g.rule[tuple(bool(b) for b in bits[s, cols])] for s in range(len(bits))]
        for option in g.option_ids:
            if option == g.defer_option:
                rows.append(np.full(len(bits), -g.defer_cost))
            else:
                rows.append(np.array([0.0 if r == option else -g.loss for r in right]))
    utility = np.array(rows) if rows else np.zeros((0, len(bits)))
    return DecisionModel(claim_ids, tuple(ch.object_id for ch in channels), prior, likelihood,
                         np.array([ch.cost for ch in channels], dtype=float), utility,
                         tuple(blocks))


def weights_after(model: DecisionModel, observations: Iterable[tuple[int, int]]) -> np.ndarray:
    """Unnormalised joint ``P(state, observations)`` after ``(object index, outcome)`` pairs."""
    w = model.prior.copy()
    for idx, outcome in observations:
        w = w * model.likelihood[idx, outcome]
    return w


def stop_value(model: DecisionModel, w: np.ndarray) -> float:
    """Expected utility (times the mass of ``w``) of deciding every goal now."""
    if not model.goals:
        return 0.0
    return float(np.maximum.reduceat(model.utility @ w, model.block_starts).sum())


def best_decisions(model: DecisionModel, w: np.ndarray) -> dict[str, str]:
    """The option with the highest expected utility for each goal (first one on ties)."""
    scores = model.utility @ w
    out: dict[str, str] = {}
    for block in model.goals:
        seg = scores[block.start:block.start + len(block.option_ids)]
        out[block.goal_id] = block.option_ids[int(np.argmax(seg))]
    return out


def decision_utility(model: DecisionModel, w: np.ndarray, decisions: Mapping[str, str]) -> float:
    """Expected utility of the given decisions under the normalised ``w``.

    A goal left undecided (or decided with an unknown option) gets its worst option.
    """
    total = float(w.sum())
    if total <= 0.0:
        raise ValueError("observations of probability zero")
    scores = model.utility @ (w / total)
    value = 0.0
    for block in model.goals:
        seg = scores[block.start:block.start + len(block.option_ids)]
        chosen = decisions.get(block.goal_id)
        if chosen in block.option_ids:
            value += float(seg[block.option_ids.index(chosen)])
        else:
            value += float(seg.min())
    return value


def realised_utility(model: DecisionModel, state: int, decisions: Mapping[str, str]) -> float:
    """Utility of the decisions in one joint state (worst option for missing decisions)."""
    value = 0.0
    for block in model.goals:
        seg = model.utility[block.start:block.start + len(block.option_ids), state]
        chosen = decisions.get(block.goal_id)
        value += float(seg[block.option_ids.index(chosen)]) if chosen in block.option_ids \
            else float(seg.min())
    return value


def path_value(model: DecisionModel, observations: Sequence[tuple[int, int]],
               extra_cost: float = 0.0) -> float:
    """Expected utility of deciding optimally after these observations, minus their cost."""
    w = weights_after(model, observations)
    total = float(w.sum())
    if total <= 0.0:
        raise ValueError("observations of probability zero")
    spent = float(sum(model.cost[i] for i, _ in observations)) + extra_cost
    return stop_value(model, w) / total - spent


def subset_values(model: DecisionModel, subsets: np.ndarray, *, alphabet: int | None = None,
                  chunk_elements: int = 6_000_000) -> np.ndarray:
    """Exact value of inspecting each subset (rows of ``subsets``, all the same size) at once.

    The value is the expected utility of deciding optimally after seeing every outcome, minus
    the subsets' inspection costs. Vectorised over subsets and outcome combinations; memory is
    bounded by processing ``chunk_elements`` weights at a time.
    """
    subsets = np.asarray(subsets, dtype=np.intp)
    if subsets.ndim != 2:
        raise ValueError("subsets must be a 2-D array")
    n_sub, size = subsets.shape
    if n_sub == 0:
        return np.zeros(0)
    alphabet = alphabet or model.alphabet()
    if size == 0:
        return np.full(n_sub, stop_value(model, model.prior))
    grid = np.array(list(itertools.product(range(alphabet), repeat=size)), dtype=np.intp)
    n_states = model.prior.size
    per_subset = len(grid) * n_states
    step = max(1, chunk_elements // per_subset)
    starts = model.block_starts
    out = np.empty(n_sub)
    for lo in range(0, n_sub, step):
        part = subsets[lo:lo + step]
        w = np.broadcast_to(model.prior, (len(part), len(grid), n_states)).copy()
        for t in range(size):
            w *= model.likelihood[part[:, t]][:, grid[:, t], :]
        scores = w @ model.utility.T                      # (B, O, A)
        if model.goals:
            best = np.maximum.reduceat(scores, starts, axis=2).sum(axis=2)
        else:
            best = np.zeros(scores.shape[:2])
        out[lo:lo + step] = best.sum(axis=1)
    return out - model.cost[subsets].sum(axis=1)


def combinations_array(items: Sequence[int], size: int) -> np.ndarray:
    """All ``size``-subsets of ``items`` as a (count, size) integer array."""
    combos = list(itertools.combinations(items, size))
    if not combos:
        return np.zeros((0, size), dtype=np.intp)
    return np.array(combos, dtype=np.intp).reshape(len(combos), size)
