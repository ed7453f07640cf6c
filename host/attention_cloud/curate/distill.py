"""L2, the distillation: entities, decisions, constraints, outcomes and facts as data.

The distillation is kept structured (a frozen dataclass of tuples) so that another module can
store each statement and entity as its own fact; :meth:`Distillation.render` turns it into the
compact L2 text. Statements are the cue-bearing sentences of the item, trimmed; when more
sentences carry a cue than the cap allows, the best-scored ones are kept, in text order.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from .analysis import Analysis
from .entities import rank_entities
from .lexicon import FILLER_OPENERS, SOFT_OPENERS
from .tokens import estimate_tokens, truncate_to_tokens

#: Most statements kept per category, entities and tags per distillation.
MAX_STATEMENTS = 3
MAX_ENTITIES = 10
MAX_TAGS = 8
#: Longest single statement, in tokens.
STATEMENT_TOKENS = 28


@dataclass(frozen=True)
class Distillation:
    """The structured content of an L2 rung.

    Attributes:
        entities: named things, most salient first (errors, paths, URLs, names, amounts, dates).
        decisions: statements of choices made ("We decided to use PostgreSQL").
        constraints: statements of limits and rules ("Never push to main").
        outcomes: statements of results ("12 passed, 1 failed").
        tags: short lowercase labels from the item kind, cues, file types and topic words.
        facts: first-person statements of fact or preference ("I raised $250 on the walk").
    """

    entities: tuple[str, ...]
    decisions: tuple[str, ...]
    constraints: tuple[str, ...]
    outcomes: tuple[str, ...]
    tags: tuple[str, ...]
    facts: tuple[str, ...] = ()

    def sections(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(label, statements) in render order; entities last."""
        return (
            ("decisions", self.decisions),
            ("constraints", self.constraints),
            ("outcomes", self.outcomes),
            ("facts", self.facts),
            ("entities", self.entities),
        )

    def is_empty(self) -> bool:
        """True when there is nothing to render (tags alone are not a distillation)."""
        return not any(values for _, values in self.sections())

    def render(self) -> str:
        """The L2 text: ``"decisions: a | b; constraints: c; outcomes: d; facts: e; entities: x, y"``.

        Empty sections are left out; the empty distillation renders as "".
        """
        parts = []
        for label, values in self.sections():
            if values:
                joiner = ", " if label == "entities" else " | "
                parts.append(f"{label}: {joiner.join(values)}")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, list[str]]:
        """Plain lists per field, for JSON or for storing as facts."""
        return {
            "entities": list(self.entities), "decisions": list(self.decisions),
            "constraints": list(self.constraints), "outcomes": list(self.outcomes),
            "facts": list(self.facts), "tags": list(self.tags),
        }


EMPTY = Distillation((), (), (), (), ())


def distill(analysis: Analysis, tags: tuple[str, ...]) -> Distillation:
    """Build an item's distillation from its analysis and its tags."""
    chosen: dict[str, list[int]] = {"decision": [], "constraint": [], "outcome": [], "fact": []}
    # Each sentence goes to its first category in render order, so no statement repeats.
    for index, found in enumerate(analysis.cues):
        if analysis.sentences[index].text.lower().startswith(FILLER_OPENERS):
            continue
        for category in ("decision", "constraint", "outcome", "fact"):
            if category in found:
                chosen[category].append(index)
                break
    statements = {category: _best(analysis, indices) for category, indices in chosen.items()}
    return Distillation(
        entities=rank_entities(list(analysis.entities), MAX_ENTITIES),
        decisions=statements["decision"],
        constraints=statements["constraint"],
        outcomes=statements["outcome"],
        tags=tags[:MAX_TAGS],
        facts=statements["fact"],
    )


def _best(analysis: Analysis, indices: list[int]) -> tuple[str, ...]:
    """The top-scored sentences among ``indices``, back in text order, trimmed, deduplicated."""
    top = sorted(indices, key=lambda i: (-analysis.scores[i], i))[:MAX_STATEMENTS]
    out: list[str] = []
    seen: set[str] = set()
    for index in sorted(top):
        statement = statement_text(analysis.sentences[index].text)
        key = statement.casefold()
        if statement and key not in seen:
            seen.add(key)
            out.append(statement)
    return tuple(out)


def statement_text(sentence: str, budget: int = STATEMENT_TOKENS) -> str:
    """A sentence as a statement: discourse openers dropped, capitalised, cut to ``budget``."""
    text = strip_openers(sentence)
    return truncate_to_tokens(text, budget)


def strip_openers(sentence: str) -> str:
    """Remove leading discourse markers ("By the way, ...") and re-capitalise."""
    text = sentence
    changed = True
    while changed:
        changed = False
        lower = text.lower()
        for opener in SOFT_OPENERS:
            if lower.startswith(opener) and len(text) > len(opener) + 3:
                text = text[len(opener):]
                changed = True
                break
    if text and text[0].islower() and text is not sentence:
        text = text[0].upper() + text[1:]
    return text


def merge(parts: list[Distillation], *, extra_tags: tuple[str, ...] = ()) -> Distillation:
    """Merge several distillations (an arc's or a session's members), deduplicated.

    Constraints and facts keep the earliest statements (stated once, they hold on); decisions
    and outcomes keep the latest (a later decision supersedes, the last outcome is the result).
    Entities and tags are ranked by how many parts mention them, then by first appearance.
    """
    return Distillation(
        entities=_ranked([p.entities for p in parts], MAX_ENTITIES),
        decisions=_dedup([s for p in parts for s in p.decisions], keep="last"),
        constraints=_dedup([s for p in parts for s in p.constraints], keep="first"),
        outcomes=_dedup([s for p in parts for s in p.outcomes], keep="last"),
        tags=_ranked([extra_tags, *[p.tags for p in parts]], MAX_TAGS),
        facts=_dedup([s for p in parts for s in p.facts], keep="first"),
    )


def _dedup(statements: list[str], *, keep: str) -> tuple[str, ...]:
    distinct: dict[str, str] = {}
    for statement in statements:
        distinct.setdefault(statement.casefold(), statement)
    values = list(distinct.values())
    chosen = values[:MAX_STATEMENTS] if keep == "first" else values[-MAX_STATEMENTS:]
    return tuple(chosen)


def _ranked(groups: list[tuple[str, ...]], limit: int) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, str]] = {}
    position = 0
    for group in groups:
        for value in dict.fromkeys(v.casefold() for v in group):
            counts[value] += 1
        for value in group:
            first.setdefault(value.casefold(), (position, value))
            position += 1
    ranked = sorted(counts, key=lambda key: (-counts[key], first[key][0]))
    return tuple(first[key][1] for key in ranked[:limit])


def render_within(distillation: Distillation, budget: int) -> tuple[Distillation, str]:
    """Drop statements and entities until the rendering fits ``budget`` tokens.

    Entities go first down to four, then the last statement of the longest section, and so on;
    if even one statement is too long the text is truncated. Returns the distillation actually
    rendered and its text.
    """
    text = distillation.render()
    while estimate_tokens(text) > budget:
        shrunk = _drop_one(distillation)
        if shrunk is None:
            return distillation, truncate_to_tokens(text, budget)
        distillation = shrunk
        text = distillation.render()
    return distillation, text


def _drop_one(d: Distillation) -> Distillation | None:
    if len(d.entities) > 4:
        return replace(d, entities=d.entities[:-1])
    sections = {"decisions": d.decisions, "constraints": d.constraints, "outcomes": d.outcomes, "facts": d.facts}
    longest = max(sections, key=lambda name: (len(sections[name]), name))
    if len(sections[longest]) > 1:
        return replace(d, **{longest: sections[longest][:-1]})
    if d.entities:
        return replace(d, entities=d.entities[:-1])
    if sum(1 for values in sections.values() if values) > 1:
        # Several one-statement sections: drop the last non-empty one in render order.
        for name in ("facts", "outcomes", "constraints", "decisions"):
            if sections[name]:
                return replace(d, **{name: ()})
    return None
