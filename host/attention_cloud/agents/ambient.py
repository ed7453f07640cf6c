"""Budgeted ambient recall: is memory worth injecting before this prompt at all?

A prompt hook that always injects a frame spends the agent's context on whatever ranks first,
relevant or not, and repeats what the session already holds. :func:`decide` looks at a frame
planned for the prompt and says whether to inject it, which of its facts, and why:

1. **the prompt**: an acknowledgement or a bare reply ("ok", "yes please", "stop") asks for no
   memory;
2. **a relevance signal**: a frame on the ``recency`` path was not seeded by relevance at all
   (nothing is embedded or indexed), so nothing it holds is known to be relevant;
3. **novelty**: facts already injected earlier in this hook session, and facts of the session
   itself (records whose session is the hook's ``session_id``, or whose source is the session's
   own transcript) (the conversation already in the agent's context, ingested by
   the Stop hook), are not new to the agent and are set aside;
4. **relevance of the best new fact**: the best remaining relevance-seeded fact must score at
   least ``min_score`` (the frame's fused score: ``0.8·cosine + 0.2·bm25/max`` with the speaker
   and time weights, see README "Hydration"); facts scoring under ``keep_ratio`` of it are
   dropped too, so a frame of one strong fact is not padded with weak ones.

The attention controller's VOC estimate is not used: it ranks inspections of sources behind
beliefs for a decision, and a prompt has no belief or decision attached; the receipt says so.

The decision is a dict recorded in the receipt as ``ambient``:
``{"inject": bool, "reason": str, "best_score": float|None, "min_score": float, ...}``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Default bar for the best new fact's fused score, per embedder family. Calibrated on the
#: LongMemEval dev split (BENCHMARKS.md, "Ambient recall"): own questions against other
#: instances' questions.
MIN_SCORE = {"minilm": 0.55, "hash": 0.45, "other": 0.55}

#: A kept fact scores at least this share of the best new fact.
KEEP_RATIO = 0.5


@dataclass
class Decision:
    """Whether to inject, which facts (handles), and why."""

    inject: bool
    reason: str
    best_score: float | None = None
    min_score: float = 0.0
    keep: list[str] = field(default_factory=list)
    already_injected: int = 0
    own_session: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The receipt's ``ambient`` field."""
        return {"inject": self.inject, "reason": self.reason,
                "best_score": self.best_score, "min_score": self.min_score,
                "kept": len(self.keep), "already_injected": self.already_injected,
                "own_session": self.own_session,
                "controller": "not used: a prompt carries no belief or decision to inspect for"}


def prompt_wants_memory(prompt: str) -> str:
    """"" when a prompt may want memory, else why not (an acknowledgement, a bare reply)."""
    from ..ingest.textutil import is_acknowledgement, is_bare_reply

    text = " ".join(prompt.split())
    if not text:
        return "the prompt is empty"
    if is_acknowledgement(text) or is_bare_reply(text):
        return "the prompt is an acknowledgement or a bare reply"
    return ""


def decide(receipt: dict[str, Any], prompt: str, *, already: set[str],
           own_sources: tuple[str, ...] = (), own_handles: frozenset[str] = frozenset(),
           min_score: float,
           keep_ratio: float = KEEP_RATIO) -> Decision:
    """The decision for a frame planned for ``prompt`` (its receipt, before narrowing).

    Args:
        receipt: the planned frame's receipt (``facts`` with ``handle``, ``score``,
            ``seeded_by``, ``source``; ``path``).
        already: handles injected earlier in this session.
        own_handles: records of the session itself (its items, arcs and rollup, by session
            id): already in the agent's context, as are
        own_sources: path prefixes of the session's own transcript(s): facts from them are
            already in the agent's context.
        min_score: the bar for the best new fact.
    """
    why = prompt_wants_memory(prompt)
    if why:
        return Decision(False, why, min_score=min_score)
    facts = receipt.get("facts", [])
    if not facts:  # the frame says why when its budget was the reason
        return Decision(False, receipt.get("empty") or "memory holds nothing for this prompt",
                        min_score=min_score)
    if receipt.get("path") == "recency":
        return Decision(False, "no relevance signal: nothing is embedded or indexed yet "
                               "(`atc curate` builds it)", min_score=min_score)
    own = [f for f in facts
           if f["handle"] in own_handles or _from(f.get("source", ""), own_sources)]
    seen = [f for f in facts if f["handle"] in already]
    fresh = [f for f in facts if f not in own and f["handle"] not in already]
    relevant = [f for f in fresh if f.get("seeded_by") == "relevance"]
    best_all = max((f["score"] for f in facts if f.get("seeded_by") == "relevance"), default=None)
    counts = {"already_injected": len(seen), "own_session": len(own), "min_score": min_score}
    if not relevant:
        if best_all is None:
            return Decision(False, "no fact was found by relevance", **counts)
        return Decision(False, "nothing new: every relevant fact is already in this session "
                               "(injected before, or from its own transcript)",
                        best_score=round(best_all, 4), **counts)
    best = max(f["score"] for f in relevant)
    if best < min_score:
        return Decision(False, f"best new fact scores {best:.2f}, under the bar {min_score:.2f}",
                        best_score=round(best, 4), **counts)
    keep = [f["handle"] for f in fresh if f["score"] >= keep_ratio * best]
    return Decision(True, f"best new fact scores {best:.2f} (bar {min_score:.2f}); "
                          f"{len(keep)} new fact{'s' if len(keep) != 1 else ''} kept",
                    best_score=round(best, 4), keep=keep, **counts)


def _from(pointer: str, prefixes: tuple[str, ...]) -> bool:
    return any(pointer.startswith(p + ":") or pointer.startswith(p + "#") for p in prefixes if p)


def default_min_score(embedder_id: str) -> float:
    """The bar for a home whose embedder is ``embedder_id`` (``minilm...``, ``hash...``)."""
    name = (embedder_id or "").lower()
    for family in ("minilm", "hash"):
        if name.startswith(family) or family in name:
            return MIN_SCORE[family]
    return MIN_SCORE["other"]
