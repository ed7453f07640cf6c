"""L2, the distillation: entities, decisions, constraints, outcomes and facts as data.

The distillation is kept structured (a frozen dataclass of tuples) so that another module can
store each statement and entity as its own fact; :meth:`Distillation.render` turns it into the
compact L2 text. Statements are the cue-bearing sentences of the item, trimmed; when more
sentences carry a cue than the cap allows, the best-scored ones are kept, in text order.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .analysis import Analysis
from .entities import rank_entities
from .lexicon import SOFT_OPENERS
from .tokens import estimate_tokens, truncate_to_tokens

#: Most statements kept per category, entities and tags per distillation.
MAX_STATEMENTS = 3
MAX_ENTITIES = 10
MAX_TAGS = 8
#: Longest single statement, in tokens.
STATEMENT_TOKENS = 28

# One or more openers, each a whole word or phrase followed by a comma or a space.
_OPENER = "(?:" + "|".join(re.escape(o.strip(" ,")) for o in SOFT_OPENERS) + r")(?:,\s*|\s+)"
_SOFT_OPENER = re.compile(f"(?:{_OPENER})+", re.IGNORECASE)


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


def distill(analysis: Analysis, tags: tuple[str, ...]) -> Distillation:
    """Build an item's distillation from its analysis and its tags."""
    chosen: dict[str, list[int]] = {"decision": [], "constraint": [], "outcome": [], "fact": []}
    # Each sentence goes to its first category in render order, so no statement repeats.
    for index, found in enumerate(analysis.cues):
        if analysis.filler[index]:
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
    match = _SOFT_OPENER.match(sentence)
    if not match or len(sentence) - match.end() < 4:
        return sentence
    text = sentence[match.end():]
    return text[0].upper() + text[1:] if text[0].islower() else text


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


def statement_count(distillation: Distillation) -> int:
    """How many statements (not entities or tags) a distillation holds."""
    d = distillation
    return len(d.decisions) + len(d.constraints) + len(d.outcomes) + len(d.facts)


def render_within(distillation: Distillation, budget: int) -> tuple[Distillation, str]:
    """The largest part of ``distillation`` whose rendering fits ``budget`` tokens.

    Parts are admitted in priority order: the first statement of each section, up to four
    entities, then the remaining statements section by section, then the remaining entities;
    a part that does not fit is skipped. If not even one part fits, the full rendering is
    truncated. Returns the distillation actually rendered and its text.
    """
    d = distillation
    values = (*d.decisions, *d.constraints, *d.outcomes, *d.facts, *d.entities)
    # At least a token per four characters: a long distillation is over budget without
    # rendering it first.
    if sum(map(len, values)) <= 4 * budget:
        text = d.render()
        if estimate_tokens(text) <= budget:
            return d, text
    sections = {"decisions": d.decisions, "constraints": d.constraints, "outcomes": d.outcomes, "facts": d.facts}
    order: list[tuple[str, int]] = [(name, 0) for name, values in sections.items() if values]
    order += [("entities", i) for i in range(min(4, len(d.entities)))]
    order += [(name, i) for name, values in sections.items() for i in range(1, len(values))]
    order += [("entities", i) for i in range(4, len(d.entities))]
    chosen: dict[str, list[int]] = {name: [] for name in (*sections, "entities")}
    # Upper bound of the rendering's cost: each part's own estimate plus a token for its
    # separator and three for its section label; exact estimates would re-render each time.
    spent = 0
    for name, index in order:
        values = d.entities if name == "entities" else sections[name]
        cost = estimate_tokens(values[index]) + 1 + (0 if chosen[name] else 3)
        if spent + cost <= budget:
            chosen[name].append(index)
            spent += cost
    picked = Distillation(
        entities=tuple(d.entities[i] for i in sorted(chosen["entities"])),
        decisions=tuple(d.decisions[i] for i in sorted(chosen["decisions"])),
        constraints=tuple(d.constraints[i] for i in sorted(chosen["constraints"])),
        outcomes=tuple(d.outcomes[i] for i in sorted(chosen["outcomes"])),
        tags=d.tags,
        facts=tuple(d.facts[i] for i in sorted(chosen["facts"])),
    )
    text = picked.render()
    if picked.is_empty() or estimate_tokens(text) > budget:
        return distillation, truncate_to_tokens(distillation.render(), budget)
    return picked, text
