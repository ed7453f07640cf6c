#!/usr/bin/env python3
"""LongMemEval's dev split in a second shape: two named people, human dates, third-person questions.

Each dev instance becomes a conversational variant, deterministic for ``--seed``:

- the two roles become two named people: the user and the assistant get different first names,
  drawn per instance from a list of names of several cultures; every message carries ``name``
  (OpenAI's message field) and ``timestamp``;
- session dates are rewritten into the formats people and exports write, mixed within an
  instance, one format per session ("1:56 pm on 8 May, 2023", "May 8, 2023 13:56",
  "2023/05/08 (Mon) 13:56", RFC 2822, ISO 8601 without zone, ...), one minute per turn;
- first- and second-person questions are rewritten in the third person by name ("What did I
  buy?" becomes "What did Priya buy?", "you" the assistant's name), by a small deterministic
  rewriter (:func:`third_person`); the report counts the questions it changed;
- the evidence labels are carried over (``answer_session_ids``, ``has_answer`` turns).

Both shapes of every instance then go through ``longmemeval.run_instance`` in one run (ingest,
curate, the jump's seed ranking ``atc_hydrate:seed_ranking/5``, hydrate at each budget, the BM25
and MiniLM+BM25 RRF baselines) and the figures are printed side by side, overall and per
question type, with the mean tokens the product's frames spent per budget. The variant's
sessions are written to a temporary folder only. With ``--as-locomo`` the conversational shape
is written as LoCoMo samples instead (ingest format ``locomo``: ``speaker`` per turn, the
session's first written time as ``session_N_date_time``, ``dia_id`` = ``<session id>:<turn>``),
so the same figures measure the LoCoMo reader end to end.

    .venv/bin/python scripts/bench/conversational.py --limit 4 --embedder hash
    .venv/bin/python scripts/bench/conversational.py --update-md        # full run, MiniLM
"""
from __future__ import annotations

import argparse
import email.utils
import json
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import longmemeval as lme  # noqa: E402
from bench_data import require_data, shown  # noqa: E402
from bench_env import markdown_table, peak_rss_mb, progress, run_header, update_benchmarks  # noqa: E402

# First names of several cultures; none is an English word or a name the dev questions use.
NAMES = ("Priya", "Tomás", "Aiko", "Oluwaseun", "Mateo", "Ingrid", "Wei", "Fatima", "Dmitri",
         "Amara", "Kenji", "Sofía", "Nikhil", "Zanele", "Lars", "Yasmin", "Chloé", "Arjun", "Mei",
         "Kwame", "Leilani", "Omar", "Saoirse", "Hiroshi", "Ana", "Emeka", "Astrid", "Rahul",
         "Nadia", "Joaquín", "Thandiwe", "Björn", "Elif", "Minh", "Camila", "Tariq", "Ayesha",
         "Sven", "Ximena", "Kofi", "Anjali", "Mehmet", "Noor", "Aleksander", "Ngozi", "Takumi",
         "Valentina", "Farhan", "Siobhan", "Jun")


def _clock(d: datetime, upper: bool = False) -> str:
    half = "AM" if d.hour < 12 else "PM"
    return f"{d.hour % 12 or 12}:{d:%M} {half if upper else half.lower()}"


# Date formats people and exports write (all in English month and day names).
FORMATS: tuple[tuple[str, Callable[[datetime], str]], ...] = (
    ("locomo", lambda d: f"{_clock(d)} on {d.day} {d:%B}, {d.year}"),            # 1:56 pm on 8 May, 2023
    ("us-long", lambda d: f"{d:%B} {d.day}, {d.year} {d:%H:%M}"),                # May 8, 2023 13:56
    ("longmemeval", lambda d: d.strftime("%Y/%m/%d (%a) %H:%M")),                # 2023/05/08 (Mon) 13:56
    ("rfc2822", lambda d: email.utils.format_datetime(d.replace(tzinfo=timezone.utc))),
    ("iso-naive", lambda d: d.strftime("%Y-%m-%dT%H:%M:%S")),                   # 2023-05-08T13:56:00
    ("day-month", lambda d: f"{d.day} {d:%b} {d.year}, {d:%H:%M}"),              # 8 May 2023, 13:56
    ("weekday-long", lambda d: f"{d:%A}, {d:%B} {d.day}, {d.year} at {_clock(d, True)}"),
)

# -- the third-person rewriter -----------------------------------------------------------------
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[^A-Za-z]+")
_PERSON = re.compile(r"\b(I|I['’](?:m|ve|d|ll)|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Yy]ou|[Yy]our|[Yy]ours|"
                     r"[Yy]ourself|[Yy]ou['’](?:re|ve|d|ll)|[Ww]e|[Oo]ur|[Oo]urs|us|[Oo]urselves)\b")
# words after which "I"/"you" keeps its verb's form ("did I go", "can you remind")
_AUX = {"do", "does", "did", "can", "could", "will", "would", "should", "shall", "may", "might",
        "must", "to", "have", "has", "had", "am", "is", "are", "was", "were", "let", "help", "make",
        "if", "don't", "didn't"}
_ADVERBS = {"usually", "currently", "often", "always", "still", "also", "really", "just", "only",
            "never", "sometimes", "normally", "typically", "generally", "now", "specifically"}
_PRESENT = {"need", "want", "like", "own", "use", "live", "know", "think", "go", "get", "take",
            "spend", "wake", "keep", "plan", "dedicate", "remember", "mean", "love", "prefer",
            "work", "feel", "do", "have", "say", "recommend", "suggest", "wonder", "hope", "enjoy",
            "try", "play", "watch", "read", "eat", "drink", "make", "see", "buy", "attend", "practice"}
_SUBJECT_FORMS = {"am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't"}


def _third(verb: str) -> str:
    low = verb.lower()
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(question: str, user: str, assistant: str) -> str:
    """``question`` with first person as ``user`` and second person as ``assistant`` ("How long
    did I wait?" -> "How long did Priya wait?", "Can you remind me" -> "Can Tomás remind Priya",
    "our chat" -> "Priya and Tomás's chat"); the verb after a replaced subject agrees ("I have"
    -> "Priya has", "do you" -> "does Tomás", "I usually get" -> "Priya usually gets")."""
    both = f"{user} and {assistant}"
    tokens = _TOKEN.findall(question)
    words = [i for i, t in enumerate(tokens) if t[0].isalpha()]
    out = list(tokens)

    def low(i: int) -> str:
        return tokens[i].lower().replace("’", "'")

    for n, i in enumerate(words):
        word, w = tokens[i], low(i)
        prev = low(words[n - 1]) if n else ""
        nxt = words[n + 1] if n + 1 < len(words) else None
        subject = None
        if word == "I":
            subject = user
        elif w == "you":  # in these questions "you" is the assistant
            subject = assistant
        if word in ("I'm", "I’m"):
            out[i] = f"{user} is"
        elif word in ("I've", "I’ve"):
            out[i] = f"{user} has"
        elif word in ("I'd", "I’d"):
            out[i] = f"{user} would"
        elif word in ("I'll", "I’ll"):
            out[i] = f"{user} will"
        elif w in ("you're", "you've", "you'd", "you'll"):
            out[i] = assistant + {"re": " is", "ve": " has", "d": " would", "ll": " will"}[w[4:]]
        elif subject is not None:
            out[i] = subject
            if prev in _SUBJECT_FORMS:
                j = words[n - 1]  # "do I" -> "does Priya", "are you" -> "is Tomás"
                form = _SUBJECT_FORMS[prev]
                out[j] = form.capitalize() if tokens[j][0].isupper() else form
            elif prev not in _AUX and nxt is not None:
                k = n + 1
                if low(words[k]) in _ADVERBS and k + 1 < len(words):
                    k += 1
                j, v = words[k], low(words[k])
                if v in _SUBJECT_FORMS and k == n + 1:  # "I am" -> "Priya is", "you have" -> "Tomás has"
                    out[j] = _SUBJECT_FORMS[v]
                elif v in _PRESENT:
                    out[j] = _third(tokens[j])
        elif w in ("me", "myself"):
            out[i] = user
        elif w in ("my", "mine"):
            out[i] = f"{user}'s"
        elif w == "yourself":
            out[i] = assistant
        elif w in ("your", "yours"):
            out[i] = f"{assistant}'s"
        elif w in ("our", "ours"):
            out[i] = f"{both}'s"
        elif w == "we" or word == "us" or w == "ourselves":
            out[i] = both
    return "".join(out)


def has_person(text: str) -> bool:
    """Whether ``text`` still has a first- or second-person pronoun."""
    return bool(_PERSON.search(text))


# -- short turns -------------------------------------------------------------------------------
#: a short message holds sentences while it stays at most this many words (a longer sentence is
#: a message of its own): about a LoCoMo turn's length, what people write in a chat
MESSAGE_WORDS = 30
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9*#-])")


def short_messages(text: str, most_words: int = MESSAGE_WORDS) -> list[str]:
    """``text`` as the short messages a person would send one after another: its lines and
    sentences, consecutive ones joined while the message stays at most ``most_words`` words
    (a longer sentence stays whole). A text already that short is one message."""
    sentences = [s.strip() for line in text.splitlines() for s in _SENTENCE_END.split(line)]
    out: list[str] = []
    words = 0
    for sentence in filter(None, sentences):
        n = len(sentence.split())
        if out and words + n <= most_words:
            out[-1] += " " + sentence
            words += n
        else:
            out.append(sentence)
            words = n
    return out or [text]


@dataclass
class ShortTurns:
    """How :func:`short_turns` carried an instance's evidence labels: per evidence turn, by the
    gold answer's words, by the question's, or to every piece (neither found in one)."""

    turns: int = 0
    pieces: int = 0
    by_answer: int = 0
    by_question: int = 0
    whole: int = 0

    def add(self, other: "ShortTurns") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def evidence_pieces(pieces: list[str], answer: str, question: str) -> tuple[list[int], str]:
    """Which ``pieces`` of an evidence turn hold the evidence, and by which rule: those holding
    a word of the gold ``answer`` (content words, as ``longmemeval.answer_words`` counts them);
    else those sharing the most content words with the ``question``; else all of them."""
    wanted = lme._content_words(answer)
    held = [i for i, p in enumerate(pieces) if wanted & lme._content_words(p)]
    if held:
        return held, "by_answer"
    asked = lme._content_words(question)
    shared = [len(asked & lme._content_words(p)) for p in pieces]
    if max(shared, default=0) > 0:
        return [i for i, n in enumerate(shared) if n == max(shared)], "by_question"
    return list(range(len(pieces))), "whole"


def short_turns(inst: lme.Instance, most_words: int = MESSAGE_WORDS) -> tuple[lme.Instance, ShortTurns]:
    """``inst`` with every turn split into :func:`short_messages`, each a turn of its own by the
    same role, in order; an evidence turn's ``has_answer`` goes to the pieces
    :func:`evidence_pieces` picks (a piece without the evidence is a distractor, as in a chat)."""
    tally = ShortTurns()
    sessions = []
    for sid, date, turns in inst.sessions:
        split: list[dict[str, Any]] = []
        for turn in turns:
            pieces = short_messages(turn["content"], most_words)
            tally.turns += 1
            tally.pieces += len(pieces)
            marked: set[int] = set()
            if turn.get("has_answer"):
                found, rule = evidence_pieces(pieces, inst.answer, inst.question)
                marked = set(found)
                setattr(tally, rule, getattr(tally, rule) + 1)
            for i, piece in enumerate(pieces):
                split.append({"role": turn["role"], "content": piece}
                             | ({"has_answer": True} if i in marked else {}))
        sessions.append((sid, date, split))
    return replace(inst, sessions=sessions), tally


# -- the variant -------------------------------------------------------------------------------
@dataclass
class Variant:
    """An instance's conversational shape: the instance (question rewritten) and how it is written."""

    instance: lme.Instance
    user: str
    assistant: str
    original_question: str
    formats: list[str]  # per session, a FORMATS name
    times: list[list[str]]  # per session, per turn: the timestamp written

    @property
    def changed(self) -> bool:
        return self.instance.question != self.original_question


def session_start(date: str) -> datetime:
    """LongMemEval's ``2023/05/20 (Sat) 07:47`` as a datetime (no zone: written as UTC)."""
    return datetime.strptime(date.split(" (")[0] + " " + date.rsplit(" ", 1)[1], "%Y/%m/%d %H:%M")


def make_variant(inst: lme.Instance, seed: int = 1) -> Variant:
    """The conversational shape of ``inst``, the same for the same ``seed`` and question id."""
    rng = random.Random(f"{seed}:{inst.qid}")
    user, assistant = rng.sample(NAMES, 2)
    formats, times, sessions = [], [], []
    for sid, date, turns in inst.sessions:
        name, fmt = FORMATS[rng.randrange(len(FORMATS))]
        start = session_start(date)
        formats.append(name)
        times.append([fmt(start + timedelta(minutes=i)) for i in range(len(turns))])
        sessions.append((sid, date, [dict(t) for t in turns]))  # has_answer carried over
    question = third_person(inst.question, user, assistant)
    return Variant(replace(inst, question=question, sessions=sessions), user, assistant,
                   inst.question, formats, times)


def messages(variant: Variant, number: int) -> list[dict[str, Any]]:
    """Session ``number`` of ``variant`` as OpenAI-style messages with ``name`` and ``timestamp``."""
    _, _, turns = variant.instance.sessions[number]
    who = {"user": variant.user, "assistant": variant.assistant}
    return [{"role": t["role"], "name": who.get(t["role"], t["role"]), "content": t["content"],
             "timestamp": variant.times[number][i]} for i, t in enumerate(turns)]


def variant_writer(variant: Variant) -> Callable[[lme.Instance, Path], dict[str, str]]:
    """A ``write`` for ``longmemeval.run_instance``: one OpenAI-style JSON file per session."""
    def write(inst: lme.Instance, folder: Path) -> dict[str, str]:
        folder.mkdir(parents=True)
        stems: dict[str, str] = {}
        for number, (sid, _, _) in enumerate(inst.sessions):
            stem = f"s{number:03d}"
            stems[stem] = sid
            (folder / f"{stem}.json").write_text(json.dumps(
                {"session_id": sid, "messages": messages(variant, number)}, ensure_ascii=False),
                encoding="utf-8")
        return stems
    return write


def locomo_writer(variant: Variant) -> Callable[[lme.Instance, Path], dict[str, str]]:
    """A ``write`` for ``longmemeval.run_instance`` (``--as-locomo``): the variant as one LoCoMo
    sample, ingested with the ``locomo`` format. The two people are ``speaker_a`` (the user) and
    ``speaker_b``; a session is dated by its first turn's written time (LoCoMo dates sessions,
    so the minute per turn is not kept); ``dia_id`` is ``<session id>:<turn index>``, which the
    bench maps back to the evidence. Returns product session (``<qid>/session_N``) -> session id."""
    def write(inst: lme.Instance, folder: Path) -> dict[str, str]:
        folder.mkdir(parents=True)
        conversation: dict[str, Any] = {"speaker_a": variant.user, "speaker_b": variant.assistant}
        sessions: dict[str, str] = {}
        for number, (sid, _, _) in enumerate(inst.sessions):
            key = f"session_{number + 1}"
            sessions[f"{inst.qid}/{key}"] = sid
            turns = messages(variant, number)
            conversation[f"{key}_date_time"] = turns[0]["timestamp"] if turns else ""
            conversation[key] = [{"speaker": t["name"], "dia_id": f"{sid}:{i}", "text": t["content"]}
                                 for i, t in enumerate(turns)]
        (folder / f"{inst.qid}.json").write_text(json.dumps(
            [{"sample_id": inst.qid, "conversation": conversation}], ensure_ascii=False),
            encoding="utf-8")
        return sessions
    return write


# -- the report --------------------------------------------------------------------------------
SHAPES = ("dev", "conversational")


def figure_rows(summaries: dict[str, lme.Summary], budgets: list[int],
                answer_words: bool = False) -> list[list[str]]:
    """The overall figures, one row each, a column per shape of ``summaries`` (in SHAPES order)."""
    f3 = (lambda x: f"{x:.3f}")

    def row(label: str, get: Callable[[lme.Summary], float], fmt: Callable[[float], str] = f3) -> list[str]:
        return [label] + [fmt(get(summaries[shape])) for shape in SHAPES if shape in summaries]

    rows = [row("session recall_any@5, product (jump seeds)", lambda s: s.jump[5]),
            row("session recall_any@5, BM25", lambda s: s.bm25[5]),
            row("session recall_any@5, RRF (MiniLM + BM25)", lambda s: s.rrf[5])]
    for b in budgets:
        rows += [row(f"evidence in frame @{b}, product L0 (verbatim)", lambda s, b=b: s.l0[b]),
                 row(f"evidence in frame @{b}, product L0 or an excerpt of it", lambda s, b=b: s.excerpt[b]),
                 row(f"evidence in frame @{b}, product any rung", lambda s, b=b: s.any[b]),
                 row(f"evidence in frame @{b}, BM25", lambda s, b=b: s.bm25_frame[b]),
                 row(f"evidence in frame @{b}, RRF", lambda s, b=b: s.rrf_frame[b]),
                 row(f"product − BM25 @{b}", lambda s, b=b: s.l0[b] - s.bm25_frame[b], lambda x: f"{x:+.3f}"),
                 row(f"product − RRF @{b}", lambda s, b=b: s.l0[b] - s.rrf_frame[b], lambda x: f"{x:+.3f}"),
                 row(f"answer in frame @{b}, product", lambda s, b=b: s.answer[b]),
                 row(f"answer in frame @{b}, BM25", lambda s, b=b: s.bm25_answer[b]),
                 row(f"answer in frame @{b}, RRF", lambda s, b=b: s.rrf_answer[b])]
        if answer_words:
            rows += [row(f"answer words in frame @{b}, product", lambda s, b=b: s.words[b]),
                     row(f"answer words in frame @{b}, BM25", lambda s, b=b: s.bm25_words[b]),
                     row(f"answer words in frame @{b}, RRF", lambda s, b=b: s.rrf_words[b])]
    for b in budgets:
        rows.append(row(f"product frame: tokens spent @{b} (mean; spent / budget)", lambda s, b=b: s.spent[b],
                        lambda x, b=b: f"{x:.0f} ({x / b:.3f})"))
        rows.append(row(f"product frame: envelope as written @{b} (mean; / budget)",
                        lambda s, b=b: s.written.get(b, float("nan")),
                        lambda x, b=b: f"{x:.0f} ({x / b:.3f})"))
        rows.append(row(f"product frame: facts @{b} (mean)", lambda s, b=b: s.facts.get(b, float("nan")),
                        lambda x: f"{x:.1f}"))
    return rows


def report(outcomes: dict[str, list[lme.Outcome]], variants: list[Variant], args: argparse.Namespace,
           elapsed: float) -> str:
    budgets = args.budgets
    shapes = [shape for shape in SHAPES if outcomes.get(shape)]  # --shapes runs some of them
    summaries = {shape: lme.summarise(outcomes[shape], budgets) for shape in shapes}
    first = summaries[shapes[0]]
    f3 = (lambda x: f"{x:.3f}")
    overall = markdown_table(["figure"] + [f"{shape} shape" for shape in shapes],
                             figure_rows(summaries, budgets, args.answer_words))
    rows = []
    for qtype in lme.TYPES:
        for shape in shapes:
            group = [o for o in outcomes[shape] if o.qtype == qtype]
            if not group:
                continue
            t = lme.summarise(group, budgets)
            rows.append([qtype, shape, f"{t.n}", f3(t.jump[5]), f3(t.bm25[5]), f3(t.rrf[5])]
                        + [f3(x) for b in budgets for x in (t.l0[b], t.bm25_frame[b], t.rrf_frame[b])])
    per_type = markdown_table(
        ["question type", "shape", "n", "recall@5 product", "BM25", "RRF"]
        + [h for b in budgets for h in (f"@{b} product", f"@{b} BM25", f"@{b} RRF")], rows)
    changed = sum(v.changed for v in variants)
    residual = sum(has_person(v.instance.question) for v in variants)
    conv = outcomes.get("conversational", [])
    items = sum(o.items for o in conv)
    timed = sum(o.timed_items for o in conv)
    named = sum(o.named_items for o in conv)
    used = sorted({f for v in variants for f in v.formats})
    examples = [v for v in variants if v.changed][:3]
    goals = []
    for shape in shapes:
        s = summaries[shape]
        if 2000 in budgets:
            goals.append(f"{shape}: @2000 product − BM25 {s.l0[2000] - s.bm25_frame[2000]:+.3f} (goal +0.15), "
                         f"− RRF {s.l0[2000] - s.rrf_frame[2000]:+.3f} (goal +0.05)")
        ms = [o for o in outcomes[shape] if o.qtype == "multi-session"]
        if ms and 2000 in budgets:
            goals.append(f"{shape}: multi-session evidence @2000 {lme.summarise(ms, budgets).l0[2000]:.3f} "
                         "(goal 0.90)")
    return (
        f"{len(variants)} instances in {' and '.join(shapes)} shape{'s' * (len(shapes) > 1)} "
        f"({first.n} scored, {len(variants) - first.n} abstention), embedder `{args.embedder}`, seed {args.seed}; "
        f"whole run {elapsed / 60:.1f} min. Conversational shape: the rewriter changed "
        f"{changed} of {len(variants)} questions into the third person ({residual} still hold a first- or "
        f"second-person pronoun); {len(used)} date formats ({', '.join(used)}); of its {items} items, "
        f"{timed} have a time and {named} a speaker name in memory ({timed / max(items, 1):.3f}, "
        f"{named / max(items, 1):.3f}).\n\n"
        "Goals (issue 14): " + "; ".join(goals) + ".\n\n" + overall + "\n"
        "Same protocol as the LongMemEval section (scripts/bench/longmemeval.py, whose code this run "
        "calls): recall from the jump's seed ranking `atc_hydrate:seed_ranking/5`; evidence in frame "
        "is the share of evidence turns whose item is a frame fact at L0 (*any rung*: at L0-L3 or in "
        "an arc of the frame); BM25 and RRF (k = 60, the items' stored vectors' cosine ranking fused "
        "with the BM25 ranking) fill their frames with whole L0 items while they fit, the same token "
        "estimator, over the texts the product indexes (\"Name: text\" when memory knows the name). "
        + ("The conversational shape is fed as LoCoMo samples (`--as-locomo`, ingest format "
           "`locomo`): each turn has its `speaker`, each session its first turn's human date as "
           "`session_N_date_time`, and " if getattr(args, "as_locomo", False) else
           "In the conversational shape every message has `name` and a human `timestamp` (one "
           "format per session, mixed within an instance) and ")
        + "the question names the people: "
        + "; ".join(f"“{v.original_question}” → “{v.instance.question}”" for v in examples)
        + ".\n\nPer question type:\n\n" + per_type
        + "\nWhere the product frames' fact tokens went (what brought each fact in: the goal's own "
        "hits, the walk's story of a seed (its arc standing in for its members, a turn before or "
        "after it), the bridge, a focus cell's members, the map of the cells around it), over the "
        "instances with evidence:\n\n"
        + "\n".join(f"{shape.capitalize()} shape:\n\n"
                     + lme.sources_table([o for o in outcomes[shape] if o.in_frame_l0], budgets)
                     for shape in shapes)
        + "\n" + behind_rrf(outcomes, shapes, budgets)
        + f"\nAnswer in frame (the gold answer, normalised, in the text of the frame's facts and "
        f"breadcrumbs; answers of at most {lme.ANSWER_WORDS} words, no abstention; "
        f"{first.answers} checkable):\n\n"
        + "\n".join(lme.answer_table(outcomes[shape], budgets, shape) for shape in shapes)
        + (f"\nAnswer words in frame: the share of the gold answer's words (numbers included, "
           f"common words such as \"the\" and \"was\" left out) that the frame's facts and "
           f"breadcrumbs hold, over the {first.worded} answers with such words; a "
           f"fragment counts for the words it holds, and no fact counts by its evidence label.\n"
           if args.answer_words else ""))


def behind_rrf(outcomes: dict[str, list[lme.Outcome]], shapes: list[str], budgets: list[int]) -> str:
    """The instance-budgets where the RRF frame holds more evidence than the product's, one line
    each with where the product frame's fact tokens went (facts/tokens/evidence per source)."""
    lines = []
    for shape in shapes:
        for o in outcomes[shape]:
            for b in budgets:
                if o.rrf_in_frame.get(b, 0) > o.in_frame_l0.get(b, 0):
                    spent = "; ".join(f"{src} {row[0]}/{row[1]}/{row[2]}" for src in lme.SOURCES
                                      if (row := o.sources.get(b, {}).get(src)))
                    lines.append(f"- {shape} {o.qid} ({o.qtype}) @{b}: product {o.in_frame_l0[b]:.2f}, "
                                 f"RRF {o.rrf_in_frame[b]:.2f}; facts/tokens/evidence: {spent}")
    if not lines:
        return "No instance-budget where the RRF frame holds more evidence than the product's.\n"
    return ("Where the RRF frame holds more evidence than the product's:\n\n" + "\n".join(lines) + "\n")


def _outcome_rows(path: Path) -> list[tuple[str, lme.Outcome]]:
    """The (shape, outcome) rows of a ``--jsonl`` file, in order; a last line cut off by a kill
    (no newline, not JSON) is no row."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            raw = json.loads(line)
        except json.JSONDecodeError:
            continue
        shape = raw.pop("shape")
        raw = {k: ({int(b): x for b, x in v.items()} if isinstance(v, dict) else v) for k, v in raw.items()}
        rows.append((shape, lme.Outcome(**raw)))
    return rows


def read_outcomes(*paths: Path) -> dict[str, list[lme.Outcome]]:
    """Outcomes per shape from ``--jsonl`` files (a run's finished instances, both shapes each;
    a run in pieces (resumed, or split over several files) reads as one: an instance-shape
    in two files counts once, as the later file has it)."""
    found: dict[str, dict[str, lme.Outcome]] = {shape: {} for shape in SHAPES}
    for path in paths:
        for shape, outcome in _outcome_rows(path):
            found[shape][outcome.qid] = outcome
    outcomes = {shape: list(by_qid.values()) for shape, by_qid in found.items()}
    # the instances every shape in the files finished (a --shapes run has one shape)
    done = set.intersection(*[{o.qid for o in found} for found in outcomes.values() if found] or [set()])
    return {shape: [o for o in found if o.qid in done] for shape, found in outcomes.items()}


def resumed_rows(path: Path) -> dict[tuple[str, str], lme.Outcome]:
    """``--resume``: the instance-shapes ``path`` already holds, by (question id, shape); the
    file is rewritten without a line a kill cut off, so that the run appends whole lines."""
    if not path.is_file():
        return {}
    rows = _outcome_rows(path)
    path.write_text("".join(json.dumps({"shape": shape, **o.__dict__}, default=list) + "\n"
                            for shape, o in rows), encoding="utf-8")
    return {(o.qid, shape): o for shape, o in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--data", type=Path, default=lme.DEFAULT_DATA,
                        help=f"instances (default {shown(lme.DEFAULT_DATA)})")
    parser.add_argument("--limit", type=int, help="use N instances, question-type mix kept")
    parser.add_argument("--ids", nargs="+", help="use these question ids only")
    parser.add_argument("--seed", type=int, default=1, help="names and date formats (default 1)")
    parser.add_argument("--embedder", default="minilm", help="minilm (default) or hash, or any spec")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000],
                        help="token budgets (default 500 2000)")
    parser.add_argument("--cache", type=Path, default=lme.CACHE / "lme-vectors",
                        help="vector cache for curation batches (default .local/bench-cache/lme-vectors)")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None,
                        help="embed everything with the model")
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES),
                        help="run these shapes only (default both)")
    parser.add_argument("--short-turns", action="store_true",
                        help="split every turn into the short messages a person would send "
                             f"(sentences, joined up to {MESSAGE_WORDS} words), the evidence "
                             "label carried to the pieces that hold the gold answer's words "
                             "(else the question's); see short_turns()")
    parser.add_argument("--jsonl", type=Path, help="also write one JSON line per instance and shape here")
    parser.add_argument("--from-jsonl", type=Path, nargs="+", metavar="PATH",
                        help="report the instances these runs' --jsonl files hold (every shape "
                             "run) without running; several files read as one run")
    parser.add_argument("--resume", action="store_true",
                        help="go on with a run cut short: keep the instance-shapes --jsonl "
                             "already holds, run only the others and append them (the same "
                             "--seed, --short-turns and --as-locomo as the first part)")
    parser.add_argument("--as-locomo", action="store_true",
                        help="write the conversational shape as LoCoMo samples (ingest format "
                             "locomo) instead of OpenAI-style files with name and timestamp")
    parser.add_argument("--answer-words", action="store_true",
                        help="also report the share of the gold answer's words in each frame "
                             "(product, BM25, RRF): a fragment counts for the words it holds, "
                             "no fact counts as evidence by its label")
    parser.add_argument("--update-md", action="store_true",
                        help="write the tables into BENCHMARKS.md (## Conversational shape)")
    parser.add_argument("--compare", choices=sorted(lme.COMPARED),
                        help="also hydrate each question without this part of hydration "
                             "(as longmemeval.py --compare) and report both, per shape")
    args = parser.parse_args(argv)
    args.budgets = sorted(set(args.budgets))
    args.config = {}
    if any(b <= 0 for b in args.budgets):
        parser.error("--budgets must be positive")
    if args.update_md and (args.short_turns or args.shapes != list(SHAPES)):
        parser.error("--update-md writes the two shapes' section: not with --short-turns or --shapes")
    header = run_header("LongMemEval's dev split in two shapes (dev, conversational)")
    if args.resume and args.jsonl is None:
        parser.error("--resume goes on with the run in --jsonl: give --jsonl")
    if args.from_jsonl is not None:
        for path in args.from_jsonl:
            if not path.is_file():
                parser.error(f"--from-jsonl {path}: no such file")
        outcomes = read_outcomes(*args.from_jsonl)
        finished = next((found for found in outcomes.values() if found), [])
        if not finished:
            parser.error(f"--from-jsonl {' '.join(map(str, args.from_jsonl))}: no instance "
                         "finished in every shape")
        args.ids = [o.qid for o in finished]
        instances = lme.load_instances(require_data(args.data, parser), None, args.ids)
        order = {qid: n for n, qid in enumerate(args.ids)}
        instances.sort(key=lambda inst: order[inst.qid])
        instances = shortened(instances, args)
        variants = [make_variant(inst, args.seed) for inst in instances]
        header += (f"\nFigures of the {len(instances)} instances finished in every shape run, read "
                   f"back from `--jsonl` ({', '.join(shown(p) for p in args.from_jsonl)}); the "
                   "whole-run time below is "
                   "the sum of their ingest and curate times.\n")
        elapsed = sum(o.ingest_s + o.curate_s for found in outcomes.values() for o in found)
        return _finish(header, outcomes, variants, args, elapsed)
    instances = shortened(lme.load_instances(require_data(args.data, parser), args.limit, args.ids), args)
    variants = [make_variant(inst, args.seed) for inst in instances]
    outcomes = {shape: [] for shape in SHAPES}
    started = time.perf_counter()
    kept = resumed_rows(args.jsonl) if args.resume else {}
    out = open(args.jsonl, "a" if args.resume else "w", encoding="utf-8") if args.jsonl else None
    with tempfile.TemporaryDirectory(prefix="lme-conv-") as tmp:
        for number, (inst, variant) in enumerate(zip(instances, variants), start=1):
            for shape in args.shapes:
                if (inst.qid, shape) in kept:  # --resume: finished in the part before
                    outcomes[shape].append(kept[(inst.qid, shape)])
                    continue
                if shape == "dev":
                    outcome = lme.run_instance(inst, args, Path(tmp) / shape)
                else:
                    writer = locomo_writer if args.as_locomo else variant_writer
                    outcome = lme.run_instance(variant.instance, args, Path(tmp) / shape,
                                               writer(variant))
                outcomes[shape].append(outcome)
                if out:
                    out.write(json.dumps({"shape": shape, **outcome.__dict__}, default=list) + "\n")
                    out.flush()
                top = max(args.budgets)
                progress(f"{number}/{len(instances)} {inst.qid} {shape}: jump@5 {outcome.jump_hits[5]}, "
                         f"L0@{top} {outcome.in_frame_l0.get(top, float('nan')):.2f} vs bm25 "
                         f"{outcome.bm25_in_frame.get(top, float('nan')):.2f} rrf "
                         f"{outcome.rrf_in_frame.get(top, float('nan')):.2f}, curate {outcome.curate_s:.0f}s")
    if out:
        out.close()
    return _finish(header, outcomes, variants, args, time.perf_counter() - started)


def shortened(instances: list[lme.Instance], args: argparse.Namespace) -> list[lme.Instance]:
    """``instances`` in short turns when ``args.short_turns`` (:func:`short_turns`), the tally of
    how their labels were carried kept in ``args.short_tally`` for the report; else as they are."""
    args.short_tally = None
    if not args.short_turns:
        return instances
    tally = ShortTurns()
    out = []
    for inst in instances:
        short, counted = short_turns(inst)
        tally.add(counted)
        out.append(short)
    args.short_tally = tally
    return out


def short_turns_note(tally: ShortTurns) -> str:
    """The report's paragraph on the short-turn shape: how many pieces, how labels went."""
    labelled = tally.by_answer + tally.by_question + tally.whole
    return (f"Short turns (`--short-turns`): every turn split into the short messages a person "
            f"would send (its lines and sentences, joined while at most {MESSAGE_WORDS} words): "
            f"{tally.turns} turns became {tally.pieces} ({tally.pieces / max(tally.turns, 1):.1f} "
            f"a turn). Of {labelled} evidence turns, the label went to the pieces holding a word of "
            f"the gold answer for {tally.by_answer}, to those sharing the most words with the "
            f"question for {tally.by_question}, to every piece for {tally.whole}.\n\n")


def _finish(header: str, outcomes: dict[str, list[lme.Outcome]], variants: list[Variant],
            args: argparse.Namespace, elapsed: float) -> int:
    tally = getattr(args, "short_tally", None)
    body = header + "\n" + (short_turns_note(tally) if tally else "") + report(outcomes, variants, args, elapsed)
    if args.compare and not args.from_jsonl:
        on, _, off = lme.COMPARED[args.compare]
        for shape, found in outcomes.items():
            body += (f"\n{shape.capitalize()} shape, with {on} against {off} (same homes, same "
                     "questions):\n\n" + lme.compare_report(found, args.budgets, args.compare) + "\n")
    body += f"\nPeak RSS of the benchmark process: {peak_rss_mb():,.0f} MB.\n"
    print(body)
    if args.update_md:
        update_benchmarks("Conversational shape", f"Embedder {args.embedder}", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
