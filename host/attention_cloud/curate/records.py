"""The curator's inputs and outputs: plain frozen dataclasses, no Prolog.

Another module reads journal items into :class:`ItemView` and stores each :class:`Rungs` as
facts (``rung/3``, provenance); the curator itself never touches storage.
"""
from __future__ import annotations

from dataclasses import dataclass

from .distill import Distillation

#: Version of the extractive curator; bump it whenever the same input would give other rungs.
CURATOR_VERSION = "1.0"
#: The ``curator`` value of every rung the extractive curator produced.
EXTRACTIVE = f"extractive@{CURATOR_VERSION}"


@dataclass(frozen=True)
class ItemView:
    """What the curator needs of one journal item.

    Attributes:
        handle: the item's content-derived handle.
        session: the session it came from.
        seq: its position in the session.
        kind: ``user_goal``, ``conclusion``, ``file_op``, ``error``, ``tool_result``, ``turn``, ...
        goal: the goal active when it was produced ("" when none).
        time: ISO 8601 timestamp ("" when unknown).
        pointer: stable pointer to the verbatim source (what L3 pages back to).
        text: the verbatim text, L0.
        answers_call: the item is a tool's output paired with its call, whose label
            (``$ git status``) is the text's first line; its summary names the call.
    """

    handle: str
    session: str
    seq: int
    kind: str
    goal: str
    time: str
    pointer: str
    text: str
    answers_call: bool = False


@dataclass(frozen=True)
class Rungs:
    """The curated rungs of one item, arc or session rollup.

    Attributes:
        handle: the item handle, arc id (``arc_…``) or rollup id (``ses_…``).
        l1: the summary, about one sentence.
        l2: the distillation rendered as text.
        l3: the skeleton: pointer, tags, entities.
        distillation: the structured data behind ``l2``.
        provenance: the item handles this was computed from (an item: itself).
        curator: ``"extractive@<CURATOR_VERSION>"`` or ``"model:<name>"``.
    """

    handle: str
    l1: str
    l2: str
    l3: str
    distillation: Distillation
    provenance: tuple[str, ...]
    curator: str


@dataclass(frozen=True)
class ArcPlan:
    """A run of consecutive same-goal items in one session, to be curated as one arc.

    Attributes:
        arc_id: ``"arc_"`` + 12 hex digits derived from the member handles, in order.
        session: the members' session.
        goal: the goal they share.
        members: member handles in session order.
    """

    arc_id: str
    session: str
    goal: str
    members: tuple[str, ...]
