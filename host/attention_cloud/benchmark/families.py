"""The ten scenario families A–J (§16), as parameterised recipes over :class:`ScenarioBuilder`.

Each recipe draws its structure (how stale, how costly, how much is at stake) from the builder's
structure stream and lets the builder draw the hidden truth. A recipe states what pathology it
probes; the oracle, not the recipe, decides what is worth inspecting, so every family contains
trials where little or nothing needs inspecting.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

from .generator import BeliefSpec, ScenarioBuilder, new_builder
from .model import Scenario
from .wording import TOPICS, Topic

HOUR = 3600.0
DAY = 24 * HOUR

#: The claim kind behind an interruption: does the message need action now?
INTERRUPTION = Topic("interruption_urgency", "static", "the message from {subject} needs action now",
                     "the message from {subject} can wait until the current task is done",
                     ("message",), ("message",), ("triage note",),
                     "handle the message from {subject} now",
                     "queue the message from {subject} until the current task is done")


@dataclass(frozen=True)
class FamilySpec:
    """One family: code letter, slug, what it measures, its default oracle mode."""

    code: str
    slug: str
    title: str
    measures: str
    default_mode: str           # adaptive | static
    unprompted_twin: bool       # also rendered without an instruction to inspect by default
    recipe: Callable[[ScenarioBuilder], Scenario]


# -- shared pieces ----------------------------------------------------------------------------

def _topic(b: ScenarioBuilder, volatility: str) -> Topic:
    """A topic of the given volatility class; which one is a matter of wording."""
    matching = [t for t in TOPICS if t.volatility == volatility]
    return matching[int(b.words.rng.integers(0, len(matching)))]


def _volatility(b: ScenarioBuilder, classes: tuple[str, ...]) -> str:
    return classes[b.integer(0, len(classes) - 1)]


def _stale_claim(b: ScenarioBuilder, classes: tuple[str, ...], keep: tuple[float, float],
                 confidence: tuple[float, float] = (0.9, 0.98), origin: str = "summary") -> str:
    """A claim whose stored belief is still right with a probability drawn from ``keep``."""
    vol = _volatility(b, classes)
    conf = b.uniform(*confidence)
    age = b.age_for_keep(b.uniform(*keep), conf, vol)
    return b.add_claim(_topic(b, vol), belief=BeliefSpec(conf, age, origin))


def _fill(b: ScenarioBuilder, claim: str, template: str) -> str:
    return template.format(**b.claim(claim).fill)


def _binary_goal(b: ScenarioBuilder, claim: str, *, loss: float, current: bool = True,
                 deadline_s: float | None = None) -> str:
    """A two-option decision that hinges on one claim, phrased as a state-sensitive request."""
    c = b.claim(claim)
    yes, no = _fill(b, claim, c.topic.if_true), _fill(b, claim, c.topic.if_false)
    text = f"Please {yes} if {c.true_text}; otherwise {no}."
    return b.add_goal([claim], loss=loss, text=text, options=[yes, no],
                      rule={(True,): 0, (False,): 1}, current=current, deadline_s=deadline_s)


_PLANS = ("roll out with configuration A", "roll out with configuration B",
          "run a staged canary first", "keep the current release and reschedule")


def _plan_goal(b: ScenarioBuilder, claims: list[str], *, loss: float, n_options: int = 3,
               current: bool = True, deadline_s: float | None = None) -> str:
    """A decision over several claims: a random surjective rule that uses every claim."""
    keys = list(itertools.product((False, True), repeat=len(claims)))
    while True:
        choice = [b.integer(0, n_options - 1) for _ in keys]
        rule = dict(zip(keys, choice))
        uses_all = all(
            any(rule[k] != rule[k[:r] + (not k[r],) + k[r + 1:]] for k in keys)
            for r in range(len(claims)))
        if set(choice) == set(range(n_options)) and uses_all:
            break
    plans = [str(p) for p in b.words.rng.permutation(_PLANS)[:n_options]]
    subjects = ", ".join(b.claim(c).subject for c in claims)
    text = (f"Choose how to proceed with the release touching {subjects}; which plan is right "
            "depends on the current state of " + " and ".join(
                f"'{b.claim(c).true_text}'" for c in claims) + ".")
    return b.add_goal(claims, loss=loss, text=text, options=plans, rule=rule, current=current,
                      deadline_s=deadline_s)


def _goal_for(b: ScenarioBuilder, claims: list[str], *, loss: float, deadline_s: float,
              n_options: int = 3) -> str:
    """A request hinging on one claim, or a plan choice over several."""
    if len(claims) == 1:
        return _binary_goal(b, claims[0], loss=loss, deadline_s=deadline_s)
    return _plan_goal(b, claims, loss=loss, n_options=n_options, deadline_s=deadline_s)


def _task_text(b: ScenarioBuilder) -> str:
    goals = [g.goal for g in b.goals if g.goal.deadline_s is None or g.goal.deadline_s <= HOUR]
    if len(goals) == 1:
        return goals[0].text
    return "Obligations for this session: " + " ".join(g.text for g in goals)


def _irrelevant_claims(b: ScenarioBuilder, count: int, *, loud: bool = False) -> list[str]:
    """Claims no goal depends on, each with a live instrument (loud ones feel pressing)."""
    out = []
    for _ in range(count):
        cid = _stale_claim(b, ("high", "very_high", "medium"), (0.5, 0.7))
        if loud:
            b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.05, 0.2),
                       arrived_ago_s=b.uniform(10, 300), trusted_priority=b.uniform(0.6, 0.9),
                       preview=b.words.loud_preview(b.claim(cid).subject), salient=True)
        else:
            b.add_live(cid, authority=b.uniform(0.93, 0.99), cost=b.uniform(0.05, 0.2),
                       arrived_ago_s=b.uniform(60, 4 * HOUR))
        out.append(cid)
    return out


# -- A. loud distractor vs quiet critical signal ----------------------------------------------

def loud_vs_quiet(b: ScenarioBuilder) -> Scenario:
    claims = [_stale_claim(b, ("high", "medium", "very_high"), (0.55, 0.8))
              for _ in range(1 if b.chance(0.6) else 2)]
    for cid in claims:
        b.add_summary(cid, cost=b.uniform(0.02, 0.05))
        b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.05, 0.2),
                   arrived_ago_s=b.uniform(2 * HOUR, 8 * HOUR),
                   trusted_priority=b.uniform(0.05, 0.2),
                   preview=b.words.quiet_preview(b.claim(cid).topic, b.claim(cid).subject))
    _goal_for(b, claims, loss=b.uniform(4, 10), deadline_s=b.uniform(600, 3000))
    _irrelevant_claims(b, b.integer(2, 3), loud=True)
    for _ in range(b.integer(3, 5)):
        b.add_chatter(cost=b.uniform(0.03, 0.15), arrived_ago_s=b.uniform(5, 600), loud=True,
                      trusted_priority=b.uniform(0.5, 0.9))
    budget = len(claims) + (1 if b.chance(0.3) else 0)
    return b.build(task_text=_task_text(b), max_inspections=budget)


# -- B. summary vs authoritative instrument ---------------------------------------------------

def summary_vs_instrument(b: ScenarioBuilder) -> Scenario:
    profile = ("stale", "fresh", "static", "low_stakes")[
        _weighted(b, (0.6, 0.15, 0.1, 0.15))]
    claims = []
    for _ in range(1 if b.chance(0.7) else 2):
        if profile == "fresh":
            vol = _volatility(b, ("high", "medium"))
            cid = b.add_claim(_topic(b, vol), belief=BeliefSpec(
                b.uniform(0.995, 0.999), b.uniform(20, 90), "reading"))
        elif profile == "static":
            cid = b.add_claim(_topic(b, "static"), belief=BeliefSpec(
                b.uniform(0.993, 0.999), b.uniform(1, 30) * DAY, "summary"))
        else:
            cid = _stale_claim(b, ("high", "very_high"), (0.55, 0.8) if profile == "stale"
                               else (0.6, 0.8), confidence=(0.92, 0.98))
        claims.append(cid)
        fresh = profile == "fresh"       # a reading of the instrument a minute ago: no summary
        if not fresh:
            b.add_summary(cid, cost=b.uniform(0.01, 0.04), arrived_ago_s=b.uniform(30, 600))
        b.add_live(cid, authority=b.uniform(0.97, 0.995), cost=b.uniform(0.08, 0.3),
                   arrived_ago_s=b.uniform(HOUR, 12 * HOUR),
                   failure_prob=0.0 if b.chance(0.7) else b.uniform(0.05, 0.15),
                   source_of_belief=fresh)
        age = b.claim(cid).belief.age_s  # type: ignore[union-attr]
        b.add_partial(cid, authority=b.uniform(0.7, 0.85), cost=b.uniform(0.02, 0.08),
                      content_age_s=b.uniform(0.2, 1.0) * age)
    loss = b.uniform(0.05, 0.15) if profile == "low_stakes" else b.uniform(3, 10)
    _goal_for(b, claims, loss=loss, deadline_s=b.uniform(300, 1800), n_options=2)
    for _ in range(b.integer(2, 4)):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 3 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=3)


def _weighted(b: ScenarioBuilder, weights: tuple[float, ...]) -> int:
    u, acc = b.uniform(0.0, 1.0), 0.0
    for i, w in enumerate(weights):
        acc += w
        if u < acc:
            return i
    return len(weights) - 1


# -- C. goal relevance ------------------------------------------------------------------------

def goal_relevance(b: ScenarioBuilder) -> Scenario:
    active = [_stale_claim(b, ("medium", "high"), (0.6, 0.85)) for _ in range(b.integer(1, 2))]
    for cid in active:
        b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.05, 0.2),
                   arrived_ago_s=b.uniform(HOUR, 6 * HOUR))
        if b.chance(0.5):
            b.add_summary(cid, cost=b.uniform(0.02, 0.05))
    _goal_for(b, active, loss=b.uniform(3, 8), deadline_s=b.uniform(600, 3000))
    for _ in range(b.integer(5, 8)):
        cid = _stale_claim(b, ("high", "very_high"), (0.5, 0.62))
        b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.05, 0.2),
                   arrived_ago_s=b.uniform(60, 2 * HOUR))
        if b.chance(0.5):
            _binary_goal(b, cid, loss=b.uniform(3, 10), current=False,
                         deadline_s=b.uniform(2, 10) * DAY)
    for _ in range(2):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 2 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=len(active) + 1)


# -- D. attention switching under interruptions -----------------------------------------------

_INTERRUPTION_CLASSES = (("pager", (0.45, 0.75)), ("chat", (0.15, 0.35)), ("bot", (0.01, 0.05)))


def switching(b: ScenarioBuilder) -> Scenario:
    task = _stale_claim(b, ("high", "very_high"), (0.55, 0.8))
    b.add_summary(task, cost=b.uniform(0.02, 0.05))
    task_goal = _binary_goal(b, task, loss=b.uniform(4, 8), deadline_s=b.uniform(900, 3000))
    b.add_live(task, authority=b.uniform(0.96, 0.99), cost=b.uniform(0.05, 0.15),
               arrived_ago_s=b.uniform(HOUR, 4 * HOUR), goal=task_goal)
    for _ in range(b.integer(2, 4)):
        label, (lo, hi) = _INTERRUPTION_CLASSES[b.integer(0, len(_INTERRUPTION_CLASSES) - 1)]
        p = b.uniform(lo, hi)
        ago = b.uniform(10, 600)
        sender = b.words.person()
        cid = b.add_claim(INTERRUPTION, belief=BeliefSpec(max(p, 1 - p), ago, "triage", p >= 0.5),
                          p_true=p, subject=f"{sender} via {label}")
        goal = b.add_goal([cid], loss=b.uniform(2, 8), kind="interruption",
                          text=f"A {label} message from {sender} arrived: handle it now or queue it?",
                          options=[_fill(b, cid, INTERRUPTION.if_true),
                                   _fill(b, cid, INTERRUPTION.if_false)],
                          rule={(True,): 0, (False,): 1}, deadline_s=b.uniform(600, 1800))
        shout = b.chance(0.5)
        preview = (b.words.adversarial_preview(None, None) if shout
                   else f"{label} message from {sender}")
        oid = b.add_object(cid, kind="message", title=f"{label} message from {sender}",
                           authority=b.uniform(0.93, 0.98), cost=b.uniform(0.03, 0.08),
                           arrived_ago_s=ago, trusted_priority=p, sender=sender, goal=goal,
                           switch_cost=b.uniform(0.2, 0.6), preview=preview, salient=shout)
        b.add_interruption_event(goal, cid, ago_s=ago, trusted_priority=p, source_object=oid,
                                 payload=preview)
    return b.build(task_text=_task_text(b), max_inspections=b.integer(2, 3))


# -- E. hidden state change -------------------------------------------------------------------

def hidden_change(b: ScenarioBuilder) -> Scenario:
    claims = []
    for _ in range(b.integer(1, 2)):
        vol = _volatility(b, ("medium", "low", "high"))
        cid = b.add_claim(_topic(b, vol), belief=BeliefSpec(
            b.uniform(0.985, 0.995), b.uniform(60, 300), "reading"))
        claims.append(cid)
    # Each belief is a reading of its live instrument taken minutes ago.
    lives = {cid: b.add_live(cid, authority=b.uniform(0.97, 0.995), cost=b.uniform(0.12, 0.3),
                             arrived_ago_s=b.uniform(HOUR, 6 * HOUR), source_of_belief=True)
             for cid in claims}
    _goal_for(b, claims, loss=b.uniform(4, 10), deadline_s=b.uniform(600, 3000))
    if b.chance(0.65):
        target = claims[b.integer(0, len(claims) - 1)]
        age = b.claim(target).belief.age_s  # type: ignore[union-attr]
        b.add_change_event(target, ago_s=b.uniform(0.1, 0.9) * age, source_object=lives[target])
    for cid in _irrelevant_claims(b, b.integer(2, 3)):
        if b.chance(0.5):
            src = next(o.object_id for o in b.objects if o.claim == cid)
            b.add_change_event(cid, ago_s=b.uniform(10, 600), source_object=src)
    for _ in range(2):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 2 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=2)


# -- F. competing uncertainty -----------------------------------------------------------------

def competing_uncertainty(b: ScenarioBuilder) -> Scenario:
    consequential = _stale_claim(b, ("medium",), (0.72, 0.88), confidence=(0.94, 0.97))
    b.add_live(consequential, authority=b.uniform(0.96, 0.99), cost=b.uniform(0.1, 0.2),
               arrived_ago_s=b.uniform(HOUR, 5 * HOUR))
    _binary_goal(b, consequential, loss=b.uniform(6, 10), deadline_s=b.uniform(600, 3000))
    uncertain = _stale_claim(b, ("very_high", "high"), (0.5, 0.56))
    b.add_live(uncertain, authority=b.uniform(0.96, 0.99), cost=b.uniform(0.1, 0.2),
               arrived_ago_s=b.uniform(60, HOUR))
    b.add_partial(uncertain, authority=b.uniform(0.7, 0.8), cost=b.uniform(0.02, 0.06))
    if b.chance(0.6):
        _binary_goal(b, uncertain, loss=b.uniform(0.2, 0.8), current=False,
                     deadline_s=b.uniform(600, 3000))
    for _ in range(b.integer(1, 2)):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 2 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=1)


# -- G. budgeted inspection -------------------------------------------------------------------

def budgeted(b: ScenarioBuilder) -> Scenario:
    n_total, budget = 30, 5
    claims = [_stale_claim(b, ("medium", "high"), (0.55, 0.8), confidence=(0.9, 0.97))
              for _ in range(2 if b.chance(0.7) else 3)]
    _plan_goal(b, claims, loss=b.uniform(5, 10), deadline_s=b.uniform(600, 3000))
    order = list(claims) + [claims[b.integer(0, len(claims) - 1)] for _ in range(4 - len(claims))]
    for cid in order:                                   # 4 high-value sources
        b.add_live(cid, authority=b.uniform(0.93, 0.99), cost=b.uniform(0.15, 0.4),
                   arrived_ago_s=b.uniform(HOUR, 8 * HOUR))
    for _ in range(6):                                  # 6 partially useful sources
        cid = claims[b.integer(0, len(claims) - 1)]
        age = None if b.chance(0.5) else b.uniform(0.5, 3.0) * HOUR
        b.add_partial(cid, authority=b.uniform(0.65, 0.85), cost=b.uniform(0.02, 0.12),
                      content_age_s=age, arrived_ago_s=b.uniform(60, 4 * HOUR))
    for cid in claims:                                  # distractors from here on
        b.add_summary(cid, cost=b.uniform(0.01, 0.04))
    for cid in _irrelevant_claims(b, b.integer(3, 5)):
        if b.chance(0.5):
            b.add_partial(cid, authority=b.uniform(0.65, 0.85), cost=b.uniform(0.02, 0.12))
    while len(b.objects) < n_total:
        b.add_chatter(cost=b.uniform(0.02, 0.12), arrived_ago_s=b.uniform(10, 4 * HOUR),
                      loud=b.chance(0.3), trusted_priority=b.uniform(0.1, 0.9))
    return b.build(task_text=_task_text(b), max_inspections=budget)


# -- H. adversarial salience ------------------------------------------------------------------

def adversarial_salience(b: ScenarioBuilder) -> Scenario:
    claims = [_stale_claim(b, ("high", "medium"), (0.55, 0.8)) for _ in range(b.integer(1, 2))]
    for cid in claims:
        b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.08, 0.2),
                   arrived_ago_s=b.uniform(HOUR, 6 * HOUR))
        b.add_summary(cid, cost=b.uniform(0.02, 0.05))
    _goal_for(b, claims, loss=b.uniform(4, 10), deadline_s=b.uniform(600, 3000))
    for _ in range(b.integer(4, 7)):
        target = claims[b.integer(0, len(claims) - 1)]
        subject = b.claim(target).subject
        hint = b.claim(target).true_text if b.chance(0.5) else b.claim(target).false_text
        preview = b.words.adversarial_preview(subject, hint)
        if b.chance(0.5):
            oid = b.add_object(target, kind="forwarded_message", title=f"forward about {subject}",
                               authority=0.55, cost=b.uniform(0.02, 0.08),
                               arrived_ago_s=b.uniform(5, 120), trusted=False,
                               sender=b.words.person(), preview=preview, salient=True)
        else:
            oid = b.add_object(None, kind="notification", title=f"alert mentioning {subject}",
                               authority=None, cost=b.uniform(0.02, 0.08),
                               arrived_ago_s=b.uniform(5, 120), trusted=False,
                               sender=b.words.person(), preview=preview, salient=True)
        for _ in range(b.integer(0, 2)):                # repeated notifications
            b.add_notification_event(ago_s=b.uniform(1, 60), payload=preview, source_object=oid)
    budget = len(claims) + (1 if b.chance(0.3) else 0)
    return b.build(task_text=_task_text(b), max_inspections=budget)


# -- I. obsolete self-generated hypothesis ----------------------------------------------------

def self_hypothesis(b: ScenarioBuilder) -> Scenario:
    vol = _volatility(b, ("medium", "high"))
    conf = b.uniform(0.8, 0.9)
    age = b.uniform(20, 90) * 60
    cid = b.add_claim(_topic(b, vol), belief=BeliefSpec(conf, age, "self_hypothesis"))
    subject = b.claim(cid).subject
    b.add_summary(cid, cost=b.uniform(0.01, 0.04), arrived_ago_s=b.uniform(30, 300),
                  kind="self_note", title=f"my working hypothesis about {subject}")
    live = b.add_live(cid, authority=b.uniform(0.97, 0.99), cost=b.uniform(0.1, 0.3),
                      arrived_ago_s=b.uniform(2 * HOUR, 6 * HOUR))
    for _ in range(b.integer(1, 2)):
        b.add_object(cid, kind="self_note", title=f"my earlier analysis of {subject}",
                     authority=0.6, cost=b.uniform(0.01, 0.05),
                     content_age_s=age + b.uniform(5, 60) * 60, arrived_ago_s=b.uniform(60, 900))
    b.add_partial(cid, authority=b.uniform(0.7, 0.8), cost=b.uniform(0.02, 0.08),
                  content_age_s=b.uniform(0.3, 1.0) * age)
    _binary_goal(b, cid, loss=b.uniform(4, 10), deadline_s=b.uniform(600, 3000))
    if b.chance(0.7):
        b.add_change_event(cid, ago_s=b.uniform(0.1, 0.5) * age, source_object=live)
    for _ in range(b.integer(2, 3)):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 2 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=b.integer(1, 2))


# -- J. multi-timescale obligations -----------------------------------------------------------

def multi_timescale(b: ScenarioBuilder) -> Scenario:
    horizons = (("now", (120, 600), (2, 5), True),
                ("hour", (1800, 3300), (5, 9), False),
                ("week", (2 * DAY, 7 * DAY), (10, 20), False))
    for _label, (d_lo, d_hi), (l_lo, l_hi), current in horizons:
        cid = _stale_claim(b, ("high", "medium"), (0.55, 0.8))
        goal = _binary_goal(b, cid, loss=b.uniform(l_lo, l_hi), current=current,
                            deadline_s=b.uniform(d_lo, d_hi))
        b.add_live(cid, authority=b.uniform(0.95, 0.99), cost=b.uniform(0.05, 0.2),
                   arrived_ago_s=b.uniform(HOUR, 5 * HOUR), goal=goal)
        b.add_partial(cid, authority=b.uniform(0.7, 0.85), cost=b.uniform(0.02, 0.08), goal=goal)
    _irrelevant_claims(b, 1)
    for _ in range(b.integer(1, 2)):
        b.add_chatter(cost=b.uniform(0.02, 0.1), arrived_ago_s=b.uniform(60, 2 * HOUR))
    return b.build(task_text=_task_text(b), max_inspections=2, horizon_s=HOUR)


FAMILIES: dict[str, FamilySpec] = {f.code: f for f in (
    FamilySpec("A", "loud_vs_quiet", "Loud distractor vs quiet critical signal",
               "salience resistance", "adaptive", False, loud_vs_quiet),
    FamilySpec("B", "summary_vs_instrument", "Summary vs authoritative instrument",
               "source authority, spontaneous verification, summary substitution", "adaptive",
               True, summary_vs_instrument),
    FamilySpec("C", "goal_relevance", "Goal relevance", "goal-conditioned allocation",
               "adaptive", False, goal_relevance),
    FamilySpec("D", "switching", "Attention switching", "stay / queue / preempt accuracy",
               "adaptive", False, switching),
    FamilySpec("E", "hidden_change", "Hidden state change", "dirty-state response", "adaptive",
               True, hidden_change),
    FamilySpec("F", "competing_uncertainty", "Competing uncertainty",
               "consequence-weighted attention", "adaptive", False, competing_uncertainty),
    FamilySpec("G", "budgeted", "Budgeted inspection", "attention regret", "static", False,
               budgeted),
    FamilySpec("H", "adversarial_salience", "Adversarial salience",
               "resistance to superficial priority cues", "adaptive", False,
               adversarial_salience),
    FamilySpec("I", "self_hypothesis", "Self-generated distractor",
               "self-confirmation and belief inertia", "adaptive", True, self_hypothesis),
    FamilySpec("J", "multi_timescale", "Multi-timescale attention", "horizon management",
               "adaptive", False, multi_timescale),
)}


def resolve_families(spec: str) -> list[FamilySpec]:
    """Families named by ``all`` or a comma list of letters or slugs (``A,budgeted``)."""
    if spec.strip().lower() == "all":
        return list(FAMILIES.values())
    by_slug = {f.slug: f for f in FAMILIES.values()}
    out: list[FamilySpec] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        fam = FAMILIES.get(part.upper()) or by_slug.get(part.lower())
        if fam is None:
            known = ", ".join(f"{f.code} ({f.slug})" for f in FAMILIES.values())
            raise KeyError(f"unknown family {part!r}; known: all, {known}")
        if fam not in out:
            out.append(fam)
    if not out:
        raise KeyError("no family named")
    return out


def generate(family: str, seed: int, *, latent_seed: int | None = None) -> Scenario:
    """The scenario of ``family`` (letter) for ``seed``; ``latent_seed`` redraws only the truth."""
    spec = FAMILIES[family]
    index = list(FAMILIES).index(family)
    return spec.recipe(new_builder(family, index, seed, latent_seed=latent_seed))
