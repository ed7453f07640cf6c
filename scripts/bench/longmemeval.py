#!/usr/bin/env python3
"""LongMemEval through the product: ingest, curate, jump and hydrate each instance's haystack.

For every instance of ``--data`` (LongMemEval_S, about 48 dated chat sessions and one question):

1. each session is written to a temporary folder as an OpenAI-style JSON transcript
   ``{"session_id": ..., "messages": [{"role", "content", "timestamp"}]}`` (the session's date,
   one second per turn) and ingested into a fresh memory home with ``Memory.ingest``; every item
   is mapped back to ``(session id, turn index)`` through its source pointer
   (``<file>#/messages/<i>``), which also tells whether the evidence turns (``has_answer``) became
   items that can be found;
2. the home is curated (``Memory.curate``) with ``--embedder``;
3. **jump recall**: the jump's seed ranking, obtained by calling hydrate.pl's own jump phase
   ``atc_hydrate:seed_ranking/5`` (nearest/4 fused with lexical/4 and echo discount, exactly as
   ``hydrate/3`` seeds a frame) with 50 seeds instead of the plane's 6; records map to sessions
   (items by pointer, arcs and rollups by their session), and ``recall_any@k`` asks whether any
   answer session is among the first k distinct sessions;
4. **evidence in frame**: ``Memory.hydrate(question, budget=B, now=question date)`` for each
   ``--budgets`` B (the question is asked at its own date, so "two weeks ago" reads against it); the
   share of the question's evidence turns whose item is in the frame verbatim (L0), and at any
   rung (the item at L0-L3, or an arc holding it), and *answer in frame*: whether the gold
   answer (normalised: case, punctuation, whitespace; only answers of at most 8 words, no
   abstention) appears in the text of the frame's facts and breadcrumbs;
5. **BM25 baseline** on the same items: ``attention_cloud.embed.LexicalIndex`` over the items'
   texts as the product indexes them (L0, after "Name: " when the transcript names the speaker);
   its session ranking is the best item per session, its frame the top items at L0, greedily,
   while they fit the budget (same token estimator, the name counted, and the same lines a frame
   spends around its items: the envelope, the frame's head, a line per item);
6. **RRF baseline**: reciprocal-rank fusion (k = 60) of the items' cosine ranking (the vectors
   curation stored for the items, i.e. MiniLM by default, against the question's vector) and the
   BM25 ranking above; session ranking and frame as for BM25.

With ``--native`` step 1 ingests each instance's own file as it is published (the ``longmemeval``
ingest format: every turn at its session's date, shared and repeated sessions read once) and
items map to turns through ``relation(H, turn_id, '<session id>:<i>')`` instead of pointers.

Abstention instances (``*_abs``) have no evidence and are left out of recall and evidence, as in
the official protocol; they are hydrated and timed like the rest. Goals: session recall@5 ≥ 0.95;
evidence in frame at 2000 tokens at least 0.15 above BM25's and 0.05 above RRF's.

    .venv/bin/python scripts/bench/longmemeval.py --limit 12 --embedder hash
    .venv/bin/python scripts/bench/longmemeval.py --embedder minilm --update-md     # full run
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from bench_data import LONGMEMEVAL_DEV, require_data, shown  # noqa: E402
from bench_env import (CACHE, markdown_table, peak_rss_mb, percentile_ms, progress, run_header,  # noqa: E402
                       update_benchmarks)

DEFAULT_DATA = LONGMEMEVAL_DEV  # ../shared/data/longmemeval-dev from the repository root
KS = (5, 10)
JUMP_SEEDS = 50
TYPES = ("single-session-user", "single-session-assistant", "single-session-preference",
         "multi-session", "knowledge-update", "temporal-reasoning")
GOAL_RECALL5 = 0.95
GOAL_MARGIN = 0.15
GOAL_RRF_MARGIN = 0.05
RRF_K = 60  # the constant of Cormack et al.'s reciprocal-rank fusion
ANSWER_WORDS = 8  # a gold answer is checked against frame text only when this short
POINTER = re.compile(r"^(?P<file>.*)#/messages/(?P<turn>\d+)$")


@dataclass
class Instance:
    """One LongMemEval question and its haystack."""

    qid: str
    qtype: str
    question: str
    answer_sessions: set[str]
    sessions: list[tuple[str, str, list[dict[str, Any]]]]  # (session id, date, turns)
    question_date: str = ""  # when the question is asked (LongMemEval's format)
    path: Path | None = None  # the instance's own file
    answer: str = ""  # the gold answer

    @property
    def abstention(self) -> bool:
        return self.qid.endswith("_abs")

    @property
    def checkable_answer(self) -> str:
        """The gold answer normalised (:func:`normalise`) when it can be looked for in a
        frame's text: not an abstention, at most ANSWER_WORDS words; "" otherwise."""
        answer = normalise(self.answer)
        if self.abstention or not answer or len(answer.split()) > ANSWER_WORDS:
            return ""
        return answer

    @property
    def evidence(self) -> set[tuple[str, int]]:
        return {(sid, i) for sid, _, turns in self.sessions for i, t in enumerate(turns)
                if t.get("has_answer")}


@dataclass
class Outcome:
    """What one instance measured."""

    qid: str
    qtype: str
    abstention: bool
    items: int
    evidence_turns: int
    evidence_items: int
    jump_hits: dict[int, bool]
    bm25_hits: dict[int, bool]
    in_frame_l0: dict[int, float]
    in_frame_any: dict[int, float]
    bm25_in_frame: dict[int, float]
    jump_packed: dict[int, float]
    hydrate_s: dict[int, float]
    spent: dict[int, int]
    ingest_s: float
    curate_s: float
    embedded: int
    rrf_hits: dict[int, bool] = field(default_factory=dict)
    rrf_in_frame: dict[int, float] = field(default_factory=dict)
    #: --compare cells|bridge: per budget, the same measures with that part of hydration off
    #: (cells=False: the entity walk; bridge=False: no second hop), and frame session recall
    #: (answer session among the first 5 distinct sessions of the frame's facts, in frame
    #: order) with it and without; cell_facts counts the facts the part brought in
    walk_l0: dict[int, float] = field(default_factory=dict)
    walk_any: dict[int, float] = field(default_factory=dict)
    frame_hits: dict[int, bool] = field(default_factory=dict)
    walk_frame_hits: dict[int, bool] = field(default_factory=dict)
    cell_facts: dict[int, float] = field(default_factory=dict)
    timed_items: int = 0  # items with a time (item_time/2 not empty)
    named_items: int = 0  # items whose transcript names the speaker (item_speaker/2 a name)
    #: evidence at L0 or as an excerpt of its L0 (in_frame_l0 counts whole L0 facts only)
    in_frame_excerpt: dict[int, float] = field(default_factory=dict)
    walk_excerpt: dict[int, float] = field(default_factory=dict)
    #: the gold answer is checkable (short, no abstention), and per budget whether it appears
    #: in the product's frame, the BM25 and RRF frames, and the --compare frame
    answer_checkable: bool = False
    answer_in: dict[int, bool] = field(default_factory=dict)
    bm25_answer: dict[int, bool] = field(default_factory=dict)
    rrf_answer: dict[int, bool] = field(default_factory=dict)
    walk_answer: dict[int, bool] = field(default_factory=dict)
    #: process CPU seconds of the product's hydrate call, and of the --compare one
    hydrate_cpu: dict[int, float] = field(default_factory=dict)
    walk_hydrate_cpu: dict[int, float] = field(default_factory=dict)
    #: per budget, the share of the gold answer's words in the product's, BM25's and RRF's
    #: frame (:func:`answer_words`; empty for an abstention or an answer without such words)
    answer_words: dict[int, float] = field(default_factory=dict)
    bm25_answer_words: dict[int, float] = field(default_factory=dict)
    rrf_answer_words: dict[int, float] = field(default_factory=dict)
    #: per budget, where the product frame's fact tokens went: per source (:func:`fact_source`)
    #: [facts, tokens, evidence items among them]
    sources: dict[int, dict[str, list[int]]] = field(default_factory=dict)
    #: per budget, the tokens of the envelope the agent is given, by the estimator counted
    #: whole (``spent`` is the receipt's spent + framing: its lines each counted apart, an
    #: upper bound), and the number of facts the frame holds
    written: dict[int, int] = field(default_factory=dict)
    facts: dict[int, int] = field(default_factory=dict)


#: what brought a frame's facts in, in the order the reports list them
SOURCES = ("relevance", "story: arc", "story: turn", "bridge", "cell members", "cell map", "other")


def fact_source(fact: Any, bridged: set[str]) -> str:
    """What brought ``fact`` into its frame, as :data:`SOURCES` names it: the goal's own hits
    (relevance, recency), the walk's story (a seed's arc standing in for its members, or a turn
    before or after a seed or an arc's member: ``entity_expansion`` not bridged), the bridge
    (``bridged``: the receipt's handles), a focus cell's members or the map of the cells around
    it (``cell_adjacency``: a cell summary or a member two hops out)."""
    by = fact.seeded_by
    if fact.handle in bridged:
        return "bridge"
    if by in ("relevance", "recency"):
        return "relevance"
    if by == "entity_expansion":
        return "story: arc" if fact.handle.startswith("arc_") else "story: turn"
    if by == "cell_adjacency":
        return "cell members" if fact.hops <= 1 and fact.handle.startswith("it_") else "cell map"
    return "other"


def frame_sources(frame: Any, evidence_items: set[str]) -> dict[str, list[int]]:
    """Per :func:`fact_source`, the frame's facts, their tokens and the evidence items among
    them (``evidence_items``: whole L0 facts or excerpts alike)."""
    bridged = {str(b["handle"]) for b in frame.receipt.get("bridged", [])}
    out: dict[str, list[int]] = {}
    for fact in frame.facts:
        row = out.setdefault(fact_source(fact, bridged), [0, 0, 0])
        row[0] += 1
        row[1] += int(fact.tokens)
        row[2] += fact.handle in evidence_items
    return out


def sources_table(outcomes: list[Outcome], budgets: list[int]) -> str:
    """Where the product frames' fact tokens went, per budget and source: facts, tokens (and
    their share of all fact tokens), evidence items; over ``outcomes`` with evidence."""
    rows = []
    for b in budgets:
        totals: dict[str, list[int]] = {}
        for o in outcomes:
            for source, row in o.sources.get(b, {}).items():
                into = totals.setdefault(source, [0, 0, 0])
                for i, x in enumerate(row):
                    into[i] += x
        tokens = sum(row[1] for row in totals.values()) or 1
        rows += [[f"@{b}", source, f"{totals[source][0]}", f"{totals[source][1]} ({totals[source][1] / tokens:.2f})",
                  f"{totals[source][2]}"] for source in SOURCES if source in totals]
    return markdown_table(["budget", "brought in by", "facts", "tokens (share)", "evidence items"], rows)


class CachedEmbedder:
    """The home's embedder with a disk cache for batches (curation); single texts (the
    question, embedded inside hydrate) always go to the model, so hydrate times stay live.

    The product has no embedding cache of its own; this stands in for it on the open home's
    jump so that a rerun does not pay MiniLM again for the same haystack.
    """

    def __init__(self, inner: Any, root: Path) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.root = root / hashlib.sha1(inner.id.encode()).hexdigest()[:12]
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "embedder.txt").write_text(inner.id + "\n", encoding="utf-8")

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        if len(texts) < 2:
            return self.inner.embed(texts, batch_size=batch_size)
        digest = hashlib.sha1("\x00".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
        path = self.root / f"{digest}.npy"
        if path.exists():
            vectors = np.load(path)
            self._keep_each(texts, vectors)
            return vectors
        # a batch not seen whole: its texts seen before (in any batch) come from the per-text
        # cache, only the others go to the model (a change to some texts of a haystack
        # re-embeds those texts, not their whole batch)
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing = []
        for i, text in enumerate(texts):
            kept = self._text_path(text)
            if kept.exists():
                vectors[i] = np.load(kept)
            else:
                missing.append(i)
        if missing:
            fresh = self.inner.embed([texts[i] for i in missing], batch_size=batch_size)
            vectors[missing] = fresh
            vectors = vectors.astype(fresh.dtype, copy=False)
        self._save(path, vectors)
        self._keep_each(texts, vectors)
        return vectors

    def _text_path(self, text: str) -> Path:
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        return self.root / "texts" / digest[:2] / f"{digest}.npy"

    def _keep_each(self, texts: list[str], vectors: np.ndarray) -> None:
        for text, vector in zip(texts, vectors):
            kept = self._text_path(text)
            if not kept.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                self._save(kept, vector)

    @staticmethod
    def _save(path: Path, array: np.ndarray) -> None:
        partial = path.with_suffix(f".{os.getpid()}.tmp.npy")  # two runs may share the cache
        np.save(partial, array)
        partial.replace(path)


def load_instances(data: Path, limit: int | None, ids: list[str] | None = None) -> list[Instance]:
    """Instances in file order; with ``limit``, round-robin over question types (mix kept);
    with ``ids``, those question ids only."""
    instances = []
    for path in sorted(data.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        instances.append(Instance(
            raw["question_id"], raw["question_type"], raw["question"], set(raw["answer_session_ids"]),
            list(zip(raw["haystack_session_ids"], raw["haystack_dates"], raw["haystack_sessions"])),
            raw.get("question_date", ""), path, str(raw.get("answer", ""))))
    if ids:
        unknown = set(ids) - {inst.qid for inst in instances}
        if unknown:
            raise SystemExit(f"no such question ids in {data}: {', '.join(sorted(unknown))}")
        instances = [inst for inst in instances if inst.qid in set(ids)]
    if not instances:
        raise SystemExit(f"no LongMemEval instances (*.json) in {data}")
    if limit:
        by_type: dict[str, list[Instance]] = defaultdict(list)
        for inst in instances:
            by_type[inst.qtype].append(inst)
        picked: list[Instance] = []
        while len(picked) < min(limit, len(instances)):
            for qtype in sorted(by_type):
                if by_type[qtype] and len(picked) < limit:
                    picked.append(by_type[qtype].pop(0))
        instances = picked
    return instances


def iso_time(date: str, offset_s: int) -> str:
    """LongMemEval's ``2023/05/20 (Sat) 07:47`` plus ``offset_s`` seconds, as ISO 8601 UTC."""
    when = datetime.strptime(date.split(" (")[0] + " " + date.rsplit(" ", 1)[1], "%Y/%m/%d %H:%M")
    return (when + timedelta(seconds=offset_s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_sessions(inst: Instance, folder: Path) -> dict[str, str]:
    """One OpenAI-style JSON file per session; returns file stem -> session id."""
    folder.mkdir(parents=True)
    stems: dict[str, str] = {}
    for number, (sid, date, turns) in enumerate(inst.sessions):
        stem = f"s{number:03d}"
        stems[stem] = sid
        messages = [{"role": t["role"], "content": t["content"], "timestamp": iso_time(date, i)}
                    for i, t in enumerate(turns)]
        (folder / f"{stem}.json").write_text(
            json.dumps({"session_id": sid, "messages": messages}, ensure_ascii=False), encoding="utf-8")
    return stems


def write_native(inst: Instance, folder: Path) -> dict[str, str]:
    """A ``write`` for :func:`run_instance` (``--native``): the instance's own file, ingested
    with the ``longmemeval`` format; its items map to turns by ``turn_id``, so no file stems."""
    folder.mkdir(parents=True)
    if inst.path is None:
        raise SystemExit(f"{inst.qid}: --native needs the instance's file")
    shutil.copy(inst.path, folder / inst.path.name)
    return {}


def item_map(mem: Any, stems: dict[str, str]) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Item handle -> (session id, turn index), from ``relation(H, turn_id, 'sid:i')`` (the
    benchmark formats; a LoCoMo-shaped feed writes ``dia_id`` so) else from source pointers
    (``stems`` maps file stem -> session id, or a whole pointer -> ``'sid:i'``: a writer of
    line-based files, whose pointers name lines, not turns); item handle -> L0 text."""
    from attention_cloud.bridge import Atom, Var

    where: dict[str, tuple[str, int]] = {}
    for handle, turn in mem.pl.solutions("atc_journal:relation", Var(), Atom("turn_id"), Var()):
        sid, _, index = str(turn).rpartition(":")
        where[str(handle)] = (sid, int(index))
    for handle, pointer in mem.pl.solutions("atc_journal:item_source", Var(), Var()):
        if str(handle) in where:
            continue
        if str(pointer) in stems:
            sid, _, index = stems[str(pointer)].rpartition(":")
            where[str(handle)] = (sid, int(index))
            continue
        found = POINTER.match(str(pointer))
        if not found:
            raise SystemExit(f"unexpected source pointer {pointer!r}: cannot map it to a turn")
        where[str(handle)] = (stems[Path(found["file"]).stem], int(found["turn"]))
    texts = {str(h): str(t) for h, t in mem.pl.solutions("atc_journal:item_text", Var(), Var())}
    return where, texts


def record_sessions(mem: Any, stems: dict[str, str]) -> dict[str, str]:
    """Arc and rollup id -> session id: their product session's name, which is the session id
    except where ``stems`` maps it to one (a LoCoMo-shaped feed's ``<sample>/session_N``)."""
    from attention_cloud.bridge import Var

    out: dict[str, str] = {}
    for arc, session in mem.pl.solutions("atc_ladder:arc_session", Var(), Var()):
        out[str(arc)] = stems.get(str(session), str(session))
    for rollup, session in mem.pl.solutions("atc_ladder:rollup", Var(), Var()):
        out[str(rollup)] = stems.get(str(session), str(session))
    return out


def arc_members(mem: Any) -> dict[str, set[str]]:
    from attention_cloud.bridge import Var

    members: dict[str, set[str]] = defaultdict(set)
    for arc, handle in mem.pl.solutions("atc_ladder:arc_member", Var(), Var()):
        members[str(arc)].add(str(handle))
    return members


def jump_ranking(mem: Any, question: str) -> list[str]:
    """Record ids in the order hydrate's jump seeds them (nearest/4 + lexical/4, fused)."""
    from attention_cloud.bridge import Atom, Var

    mem.jump  # the jump's Python predicates must be registered
    found = mem.pl.once("atc_hydrate:seed_ranking", question, Atom("default"), JUMP_SEEDS, Var(), Var())
    if found is None:
        raise SystemExit("atc_hydrate:seed_ranking/5 failed: the jump phase changed; update this benchmark")
    return [str(seed.args[0]) for seed in found[1]]


def session_order(records: list[str], session_of: dict[str, str]) -> list[str]:
    seen: list[str] = []
    for rec in records:
        sid = session_of.get(rec)
        if sid is not None and sid not in seen:
            seen.append(sid)
    return seen


def speaker_names(mem: Any, handles: list[str]) -> dict[str, str]:
    """Item handle -> speaker name, for the items whose transcript names their speaker."""
    from attention_cloud.bridge import Atom, Var

    found = mem.pl.once("atc_journal:journal_item_speakers", [Atom(h) for h in handles], Var())
    return {} if found is None else {str(p.args[0]): str(p.args[1]) for p in found[0]}


def timed_count(mem: Any) -> int:
    """How many items have a time."""
    from attention_cloud.bridge import Var

    return sum(1 for _, t in mem.pl.solutions("atc_journal:item_time", Var(), Var()) if str(t))


def cosine_order(mem: Any, question: str, handles: list[str]) -> list[str]:
    """Items by cosine between their stored vectors (curation's, L0 text) and the question's
    vector from the home's embedder; [] when nothing is embedded."""
    if mem.jump.disabled or not mem.jump.has_vectors():
        return []
    present, matrix = mem.jump.vectors.vectors(handles)
    kept = [h for h, p in zip(handles, present.tolist()) if p]
    if not kept:
        return []
    query = np.asarray(mem.jump.query_vector(question), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    scores = (matrix @ query) / np.maximum(norms, 1e-12)
    return [kept[i] for i in sorted(range(len(kept)), key=lambda i: (-scores[i], kept[i]))]


def rrf_order(*rankings: list[str], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion: each ranking gives its r-th item 1 / (k + r)."""
    score: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, handle in enumerate(ranking, start=1):
            score[handle] += 1.0 / (k + rank)
    return sorted(score, key=lambda h: (-score[h], h))


_NOT_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Lowercase words separated by single spaces: punctuation and case do not count."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def holds_answer(answer: str, texts: Any) -> bool:
    """Whether the normalised ``answer`` appears, as whole words, in the joined ``texts``."""
    return bool(answer) and f" {answer} " in f" {normalise(' '.join(texts))} "


#: words too common to say whether a frame holds an answer ("the", "was", "my"): left out of
#: :func:`answer_words`
_COMMON = frozenset(
    "the a an of in on at to for and or is was were be with by from that this it as i you my "
    "your me he she they we our their his her its what which who when where how did do does can "
    "could would will about than then there also".split())


def answer_words(answer: str, texts: Any) -> float | None:
    """The share of the gold ``answer``'s words (numbers included; not the common ones of
    ``_COMMON`` nor single characters) that the joined ``texts`` hold as words: a figure that
    gives a fragment its part of the answer and never counts a fact as evidence because of its
    label (:func:`holds_answer` asks for the whole answer, evidence in frame for the labelled
    turn). None when the answer has no such word (an abstention's is not asked for)."""
    wanted = _content_words(answer)
    if not wanted:
        return None
    return len(wanted & _content_words(" ".join(texts))) / len(wanted)


def _content_words(text: str) -> set[str]:
    return {w for w in normalise(text.replace(",", "")).split() if len(w) > 1 and w not in _COMMON}


def frame_texts(frame: Any) -> list[str]:
    """What a frame shows of memory: its facts' texts and its breadcrumbs' (not the header
    that repeats the goal, nor handles and pointers)."""
    return [f.text for f in frame.facts] + [c["text"] for c in frame.receipt.get("beyond", [])]


def baseline_framing(question: str, budget: int) -> tuple[int, int, int]:
    """What a baseline frame of ``budget`` tokens pays beside its items' text: what the
    product's frame of that budget reserves for its own lines
    (``attention_cloud.hydration.framing_estimates``, the estimates hydrate/3 budgets): the
    envelope and the lines heading the frame and its one segment, a line per item at L0
    (``[L0 20:11]``) and a line per day naming it (``Wed 2026-01-11``), written once above the
    items of that day as the product's frame does; like the product's frame of one segment,
    it writes no heading for its segment (the blank line after the head in its place)."""
    from attention_cloud.hydration import framing_estimates

    estimates = framing_estimates(question, "default", "", budget)
    head, verbatim, day_line, lone = estimates[0], estimates[1], estimates[-2], estimates[-1]
    return head + lone, verbatim - day_line, day_line


def item_days(mem: Any) -> dict[str, str]:
    """Item handle -> the UTC day of its time (``2023-05-08``), for items with an ISO time."""
    from attention_cloud.bridge import Var

    return {str(h): str(t)[:10] for h, t in mem.pl.solutions("atc_journal:item_time", Var(), Var())
            if len(str(t)) == 20 and str(t)[10] == "T"}


def bm25_frame(order: list[str], texts: dict[str, str], budget: int,
               framing: tuple[int, int, int] = (0, 0, 0), days: dict[str, str] | None = None) -> set[str]:
    """Top BM25 items at L0, greedily, while they fit ``budget`` tokens, paying ``framing``
    (the frame's head, a line per item, a line per day of ``days``: :func:`baseline_framing`)
    as the product does."""
    from attention_cloud.curate import estimate_tokens

    head, line, day_line = framing
    days = days or {}
    budget = max(0, budget - head)
    kept: set[str] = set()
    named: set[str] = set()
    spent = 0
    for handle in order:
        day = days.get(handle)
        cost = estimate_tokens(texts[handle]) + line + (day_line if day and day not in named else 0)
        if spent + cost <= budget:
            kept.add(handle)
            spent += cost
            if day:
                named.add(day)
        if budget - spent < 8:
            break
    return kept


def run_instance(inst: Instance, args: argparse.Namespace, workdir: Path,
                 write: Any = write_sessions) -> Outcome:
    """Ingest, curate, rank and hydrate one instance; ``write(inst, folder)`` writes its sessions
    (one OpenAI-style JSON file each) and returns file stem -> session id."""
    return run_questions([inst], args, workdir, write)[0]


def run_questions(questions: list[Instance], args: argparse.Namespace, workdir: Path,
                  write: Any = write_sessions) -> list[Outcome]:
    """:func:`run_instance` for questions that share their sessions (a conversation's questions):
    the sessions of ``questions[0]`` are written, ingested and curated once, then each question
    is ranked and hydrated in that home; one :class:`Outcome` per question, in order (ingest and
    curate times are the shared ones)."""
    from attention_cloud import Memory
    from attention_cloud.curate import estimate_tokens
    from attention_cloud.vector_texts import indexed_text
    from attention_cloud.embed import LexicalIndex
    from attention_cloud.home import write_config

    folder = workdir / questions[0].qid
    stems = write(questions[0], folder / "sessions")
    home = folder / "home"
    home.mkdir()
    write_config(home, {"embedder": args.embedder, **args.config})
    mem = Memory.open(home)
    try:
        if args.cache is not None and not mem.jump.disabled:
            mem.jump._embedder = CachedEmbedder(mem.jump.embedder, args.cache)
        started = time.perf_counter()
        mem.ingest([folder / "sessions"])
        ingest_s = time.perf_counter() - started
        started = time.perf_counter()
        curated = mem.curate()
        curate_s = time.perf_counter() - started
        where, texts = item_map(mem, stems)
        names = speaker_names(mem, sorted(texts))
        # what the product indexes and shows of an item: its text after "Name: " when named
        texts = {h: indexed_text(t, names.get(h)) for h, t in texts.items()}
        session_of = {h: sid for h, (sid, _) in where.items()} | record_sessions(mem, stems)
        lexical = LexicalIndex()
        handles = sorted(texts)
        lexical.add(handles, [texts[h] for h in handles])
        members = arc_members(mem)
        timed = timed_count(mem)
        days = item_days(mem)
        outcomes: list[Outcome] = []
        for inst in questions:
            evidence = inst.evidence
            evidence_items = {h for h, loc in where.items() if loc in evidence}

            seeds = jump_ranking(mem, inst.question)
            jump_sessions = session_order(seeds, session_of)
            seed_items = [h for h in seeds if h in texts]
            bm25_scores = lexical.scores(inst.question)
            bm25_order = sorted(bm25_scores, key=lambda h: (-bm25_scores[h], h))
            bm25_sessions = session_order(bm25_order, session_of)
            bm25_sessions += [sid for sid, _, _ in inst.sessions if sid not in bm25_sessions]
            fused = rrf_order(cosine_order(mem, inst.question, handles), bm25_order)
            rrf_sessions = session_order(fused, session_of)
            rrf_sessions += [sid for sid, _, _ in inst.sessions if sid not in rrf_sessions]

            in_l0: dict[int, float] = {}
            in_any: dict[int, float] = {}
            bm25_in: dict[int, float] = {}
            rrf_in: dict[int, float] = {}
            packed_in: dict[int, float] = {}
            hydrate_s: dict[int, float] = {}
            spent: dict[int, int] = {}
            walk_l0: dict[int, float] = {}
            walk_any: dict[int, float] = {}
            frame_hits: dict[int, bool] = {}
            walk_frame_hits: dict[int, bool] = {}
            cell_facts: dict[int, float] = {}
            in_ex: dict[int, float] = {}
            walk_ex: dict[int, float] = {}
            answer = inst.checkable_answer
            answer_in: dict[int, bool] = {}
            bm25_answer: dict[int, bool] = {}
            rrf_answer: dict[int, bool] = {}
            walk_answer: dict[int, bool] = {}
            hydrate_cpu: dict[int, float] = {}
            walk_cpu: dict[int, float] = {}
            words_in: dict[int, float] = {}
            bm25_words: dict[int, float] = {}
            rrf_words: dict[int, float] = {}
            sources: dict[int, dict[str, list[int]]] = {}
            written: dict[int, int] = {}
            n_facts: dict[int, int] = {}
            for budget in args.budgets:
                started = time.perf_counter()
                cpu = time.process_time()
                # the question is asked at its own date: "two weeks ago" is read against it
                now = iso_time(inst.question_date, 0) if inst.question_date else None
                frame = mem.hydrate(inst.question, budget=budget, now=now)
                hydrate_s[budget] = time.perf_counter() - started
                hydrate_cpu[budget] = time.process_time() - cpu
                spent[budget] = int(frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"])
                written[budget] = estimate_tokens(frame.envelope)
                n_facts[budget] = len(frame.facts)
                framing = baseline_framing(inst.question, budget)
                l0, anywhere = frame_evidence(frame, members)
                excerpted = l0 | excerpt_evidence(frame)
                sources[budget] = frame_sources(frame, evidence_items)
                kept = bm25_frame(bm25_order, texts, budget, framing, days)
                rrf_kept = bm25_frame(fused, texts, budget, framing, days)
                if answer:
                    answer_in[budget] = holds_answer(answer, frame_texts(frame))
                    bm25_answer[budget] = holds_answer(answer, [texts[h] for h in sorted(kept)])
                    rrf_answer[budget] = holds_answer(answer, [texts[h] for h in sorted(rrf_kept)])
                shown_words = None if inst.abstention else answer_words(str(inst.answer), frame_texts(frame))
                if shown_words is not None:
                    words_in[budget] = shown_words
                    bm25_words[budget] = answer_words(str(inst.answer), [texts[h] for h in sorted(kept)])
                    rrf_words[budget] = answer_words(str(inst.answer), [texts[h] for h in sorted(rrf_kept)])
                if args.compare:
                    cpu = time.process_time()
                    walk = mem.hydrate(inst.question, budget=budget, now=now,
                                       **{args.compare: False})
                    walk_cpu[budget] = time.process_time() - cpu
                    cpu = time.process_time()  # again, as warm as the second frame was
                    mem.hydrate(inst.question, budget=budget, now=now)
                    hydrate_cpu[budget] = time.process_time() - cpu
                    walk_l0_set, walk_any_set = frame_evidence(walk, members)
                    if answer:
                        walk_answer[budget] = holds_answer(answer, frame_texts(walk))
                    cells_of = cell_members(mem)
                    frame_hits[budget] = bool(inst.answer_sessions & set(
                        frame_sessions(frame, session_of, members, cells_of)[:5]))
                    walk_frame_hits[budget] = bool(inst.answer_sessions & set(
                        frame_sessions(walk, session_of, members, cells_of)[:5]))
                    cell_facts[budget] = COMPARED[args.compare][1](frame)
                    if evidence:
                        walk_l0[budget] = len(evidence_items & walk_l0_set) / len(evidence)
                        walk_any[budget] = len(evidence_items & walk_any_set) / len(evidence)
                        walk_ex[budget] = len(evidence_items & (walk_l0_set | excerpt_evidence(walk))) / len(evidence)
                if evidence:
                    in_l0[budget] = len(evidence_items & l0) / len(evidence)
                    in_ex[budget] = len(evidence_items & excerpted) / len(evidence)
                    in_any[budget] = len(evidence_items & anywhere) / len(evidence)
                    bm25_in[budget] = len(evidence_items & kept) / len(evidence)
                    rrf_in[budget] = len(evidence_items & rrf_kept) / len(evidence)
                    packed = bm25_frame(seed_items, texts, budget, framing, days)
                    packed_in[budget] = len(evidence_items & packed) / len(evidence)
            outcomes.append(Outcome(
                qid=inst.qid, qtype=inst.qtype, abstention=inst.abstention, items=len(where),
                evidence_turns=len(evidence), evidence_items=len(evidence_items),
                jump_hits={k: bool(inst.answer_sessions & set(jump_sessions[:k])) for k in KS},
                bm25_hits={k: bool(inst.answer_sessions & set(bm25_sessions[:k])) for k in KS},
                in_frame_l0=in_l0, in_frame_any=in_any, bm25_in_frame=bm25_in, jump_packed=packed_in,
                hydrate_s=hydrate_s, spent=spent,
                ingest_s=ingest_s, curate_s=curate_s, embedded=curated.embedded,
                rrf_hits={k: bool(inst.answer_sessions & set(rrf_sessions[:k])) for k in KS},
                rrf_in_frame=rrf_in, timed_items=timed, named_items=len(names),
                walk_l0=walk_l0, walk_any=walk_any, frame_hits=frame_hits,
                walk_frame_hits=walk_frame_hits, cell_facts=cell_facts,
                in_frame_excerpt=in_ex, walk_excerpt=walk_ex, answer_checkable=bool(answer),
                answer_in=answer_in, bm25_answer=bm25_answer, rrf_answer=rrf_answer,
                walk_answer=walk_answer, hydrate_cpu=hydrate_cpu, walk_hydrate_cpu=walk_cpu,
                answer_words=words_in, bm25_answer_words=bm25_words, rrf_answer_words=rrf_words,
                sources=sources, written=written, facts=n_facts))
    finally:
        mem.close()
        shutil.rmtree(folder, ignore_errors=True)
    return outcomes


def frame_evidence(frame: Any, members: dict[str, set[str]]) -> tuple[set[str], set[str]]:
    """The items a frame holds verbatim and whole (L0, not an excerpt), and at any rung
    (an excerpt included) or inside an arc in it."""
    l0 = {f.handle for f in frame.facts if f.level.lower() == "l0" and not f.excerpt_spans}
    anywhere = {f.handle for f in frame.facts}
    anywhere |= {m for f in frame.facts for m in members.get(f.handle, ())}
    return l0, anywhere


def excerpt_evidence(frame: Any) -> set[str]:
    """The items a frame shows as an excerpt of their L0."""
    return {f.handle for f in frame.facts if f.excerpt_spans}


def cell_members(mem: Any) -> dict[str, set[str]]:
    """Cell -> its members (a cell summary in a frame maps to no session of its own)."""
    from attention_cloud.bridge import Var

    (pairs,) = mem.pl.once("atc_cells:cells_membership", Var())
    out: dict[str, set[str]] = defaultdict(set)
    for p in pairs:
        out[str(p.args[1])].add(str(p.args[0]))
    return out


def frame_sessions(frame: Any, session_of: dict[str, str], members: dict[str, set[str]],
                   cells: dict[str, set[str]]) -> list[str]:
    """Distinct sessions of a frame's facts in frame order (a cell summary counts for none)."""
    order: list[str] = []
    for f in frame.facts:
        sid = session_of.get(f.handle)
        if sid is None and f.handle in members:
            sid = next((session_of[m] for m in sorted(members[f.handle]) if m in session_of), None)
        if sid is not None and sid not in order:
            order.append(sid)
    return order


#: --compare: the part of hydration switched off in the second frame -> (its name in the
#: tables, how to count the facts it brought into a frame, what the second frame is called)
COMPARED = {"cells": ("cells", lambda frame: sum(f.seeded_by == "cell_adjacency" for f in frame.facts),
                      "entity walk"),
            "bridge": ("bridge", lambda frame: len(frame.receipt.get("bridged", [])), "no bridge"),
            "excerpt": ("excerpt", lambda frame: sum(bool(f.excerpt_spans) for f in frame.facts),
                        "no excerpt")}


def compare_report(outcomes: list[Outcome], budgets: list[int], compared: str) -> str:
    """--compare: the frame with a part of hydration on against it off, same run."""
    on, _, off = COMPARED[compared]
    rows = []
    for label, group in [("all", outcomes)] + [(t, [o for o in outcomes if o.qtype == t]) for t in TYPES]:
        scored = [o for o in group if not o.abstention]
        with_ev = [o for o in scored if o.in_frame_l0]
        checkable = [o for o in group if o.answer_checkable]
        if not scored:
            continue
        for b in budgets:
            rows.append([label, f"{len(scored)}", f"{b}",
                         f"{mean([o.jump_hits[5] for o in scored]):.3f}",
                         f"{mean([o.frame_hits[b] for o in scored]):.3f}",
                         f"{mean([o.walk_frame_hits[b] for o in scored]):.3f}",
                         f"{mean([o.in_frame_l0[b] for o in with_ev]):.3f}",
                         f"{mean([o.walk_l0[b] for o in with_ev]):.3f}",
                         f"{mean([o.in_frame_excerpt.get(b, o.in_frame_l0[b]) for o in with_ev]):.3f}",
                         f"{mean([o.walk_excerpt.get(b, o.walk_l0[b]) for o in with_ev]):.3f}",
                         f"{mean([o.in_frame_any[b] for o in with_ev]):.3f}",
                         f"{mean([o.walk_any[b] for o in with_ev]):.3f}",
                         f"{mean([o.bm25_in_frame[b] for o in with_ev]):.3f}",
                         f"{len(checkable)}",
                         f"{mean([o.answer_in[b] for o in checkable]):.3f}",
                         f"{mean([o.walk_answer[b] for o in checkable]):.3f}",
                         f"{mean([o.bm25_answer[b] for o in checkable]):.3f}",
                         f"{mean([o.rrf_answer[b] for o in checkable]):.3f}",
                         f"{mean([o.cell_facts[b] for o in group]):.1f}",
                         f"{percentile_ms([o.hydrate_cpu[b] for o in group], 50):.1f}",
                         f"{percentile_ms([o.walk_hydrate_cpu[b] for o in group], 50):.1f}"])
    return markdown_table(
        ["questions", "n", "budget", "session recall@5 (jump)", f"frame recall@5 {on}",
         f"frame recall@5 {off}", f"evidence L0 {on}", f"L0 {off}",
         f"L0 or excerpt {on}", f"L0 or excerpt {off}",
         f"any rung {on}", f"any rung {off}", "L0 BM25", "answers checkable",
         f"answer in frame {on}", f"answer {off}", "answer BM25", "answer RRF",
         f"{on} facts / frame", f"hydrate CPU ms p50 {on}", f"CPU ms p50 {off}"], rows)


def mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


@dataclass
class Summary:
    """Averages over a set of outcomes (scored ones: not abstention, with evidence)."""

    n: int = 0
    jump: dict[int, float] = field(default_factory=dict)
    bm25: dict[int, float] = field(default_factory=dict)
    l0: dict[int, float] = field(default_factory=dict)
    any: dict[int, float] = field(default_factory=dict)
    bm25_frame: dict[int, float] = field(default_factory=dict)
    packed: dict[int, float] = field(default_factory=dict)
    rrf: dict[int, float] = field(default_factory=dict)
    rrf_frame: dict[int, float] = field(default_factory=dict)
    spent: dict[int, float] = field(default_factory=dict)  # mean tokens spent, all instances
    #: mean tokens of the envelope as written, and facts, over the instances that recorded them
    written: dict[int, float] = field(default_factory=dict)
    facts: dict[int, float] = field(default_factory=dict)
    excerpt: dict[int, float] = field(default_factory=dict)  # evidence at L0 or as an excerpt
    #: answer in frame (product, BM25, RRF) over the instances with a checkable answer
    answers: int = 0
    answer: dict[int, float] = field(default_factory=dict)
    bm25_answer: dict[int, float] = field(default_factory=dict)
    rrf_answer: dict[int, float] = field(default_factory=dict)
    #: answer words in frame (product, BM25, RRF; :func:`answer_words`) over the instances
    #: whose answer has such words
    worded: int = 0
    words: dict[int, float] = field(default_factory=dict)
    bm25_words: dict[int, float] = field(default_factory=dict)
    rrf_words: dict[int, float] = field(default_factory=dict)


def summarise(outcomes: list[Outcome], budgets: list[int]) -> Summary:
    scored = [o for o in outcomes if not o.abstention]
    with_evidence = [o for o in scored if o.in_frame_l0]
    s = Summary(n=len(scored))
    for k in KS:
        s.jump[k] = mean([o.jump_hits[k] for o in scored])
        s.bm25[k] = mean([o.bm25_hits[k] for o in scored])
        s.rrf[k] = mean([o.rrf_hits[k] for o in scored])
    for b in budgets:
        s.l0[b] = mean([o.in_frame_l0[b] for o in with_evidence])
        s.any[b] = mean([o.in_frame_any[b] for o in with_evidence])
        s.bm25_frame[b] = mean([o.bm25_in_frame[b] for o in with_evidence])
        s.packed[b] = mean([o.jump_packed[b] for o in with_evidence])
        s.rrf_frame[b] = mean([o.rrf_in_frame[b] for o in with_evidence])
        s.spent[b] = mean([o.spent[b] for o in outcomes])
        s.written[b] = mean([o.written[b] for o in outcomes if b in o.written])
        s.facts[b] = mean([o.facts[b] for o in outcomes if b in o.facts])
        s.excerpt[b] = mean([o.in_frame_excerpt.get(b, o.in_frame_l0[b]) for o in with_evidence])
    checkable = [o for o in outcomes if o.answer_checkable]
    s.answers = len(checkable)
    for b in budgets:
        s.answer[b] = mean([o.answer_in[b] for o in checkable])
        s.bm25_answer[b] = mean([o.bm25_answer[b] for o in checkable])
        s.rrf_answer[b] = mean([o.rrf_answer[b] for o in checkable])
    worded = [o for o in outcomes if o.answer_words]
    s.worded = len(worded)
    for b in budgets:
        s.words[b] = mean([o.answer_words[b] for o in worded])
        s.bm25_words[b] = mean([o.bm25_answer_words[b] for o in worded])
        s.rrf_words[b] = mean([o.rrf_answer_words[b] for o in worded])
    return s


def report(outcomes: list[Outcome], args: argparse.Namespace, elapsed: float) -> str:
    budgets = args.budgets
    s = summarise(outcomes, budgets)
    f3 = (lambda x: f"{x:.3f}")
    overall = markdown_table(
        ["method", "session recall_any@5", "@10"] + [f"evidence in frame @{b}" for b in budgets],
        [["product (jump seeds; frame facts at L0)", f3(s.jump[5]), f3(s.jump[10])]
         + [f3(s.l0[b]) for b in budgets],
         ["product, evidence at L0 or as an excerpt of it", "", ""] + [f3(s.excerpt[b]) for b in budgets],
         ["product, evidence at any rung or in an arc", "", ""] + [f3(s.any[b]) for b in budgets],
         ["BM25 baseline (items; top items at L0)", f3(s.bm25[5]), f3(s.bm25[10])]
         + [f3(s.bm25_frame[b]) for b in budgets],
         [f"RRF baseline (cosine + BM25, k={RRF_K}; top items at L0)", f3(s.rrf[5]), f3(s.rrf[10])]
         + [f3(s.rrf_frame[b]) for b in budgets],
         ["diagnostic: jump's item ranking packed at L0 like BM25", "", ""]
         + [f3(s.packed[b]) for b in budgets],
         ["product − BM25 (L0)", f"{s.jump[5] - s.bm25[5]:+.3f}", f"{s.jump[10] - s.bm25[10]:+.3f}"]
         + [f"{s.l0[b] - s.bm25_frame[b]:+.3f}" for b in budgets],
         ["product − RRF (L0)", f"{s.jump[5] - s.rrf[5]:+.3f}", f"{s.jump[10] - s.rrf[10]:+.3f}"]
         + [f"{s.l0[b] - s.rrf_frame[b]:+.3f}" for b in budgets],
         [f"answer in frame, product ({s.answers} checkable)", "", ""] + [f3(s.answer[b]) for b in budgets],
         ["answer in frame, BM25", "", ""] + [f3(s.bm25_answer[b]) for b in budgets],
         ["answer in frame, RRF", "", ""] + [f3(s.rrf_answer[b]) for b in budgets]]
        + ([[f"answer words in frame, product ({s.worded} answers)", "", ""] + [f3(s.words[b]) for b in budgets],
            ["answer words in frame, BM25", "", ""] + [f3(s.bm25_words[b]) for b in budgets],
            ["answer words in frame, RRF", "", ""] + [f3(s.rrf_words[b]) for b in budgets]]
           if args.answer_words else []))
    rows = []
    mid = 2000 if 2000 in budgets else budgets[len(budgets) // 2]
    for qtype in TYPES:
        group = [o for o in outcomes if o.qtype == qtype]
        if not group:
            continue
        t = summarise(group, budgets)
        rows.append([qtype, f"{t.n}", f3(t.jump[5]), f3(t.bm25[5]), f3(t.jump[10]), f3(t.bm25[10]),
                     f3(t.rrf[5]), f3(t.l0[mid]), f3(t.any[mid]), f3(t.bm25_frame[mid]),
                     f3(t.rrf_frame[mid])])
    per_type = markdown_table(
        ["question type", "n", "recall@5 product", "recall@5 BM25", "recall@10 product",
         "recall@10 BM25", "recall@5 RRF", f"evidence @{mid} L0", f"@{mid} any rung", f"@{mid} BM25",
         f"@{mid} RRF"], rows)
    answers = answer_table(outcomes, budgets)
    times = markdown_table(
        ["budget", "hydrate p50 ms", "hydrate p95 ms", "tokens spent (mean)", "spent / budget"],
        [[f"{b}", f"{percentile_ms([o.hydrate_s[b] for o in outcomes], 50):.0f}",
          f"{percentile_ms([o.hydrate_s[b] for o in outcomes], 95):.0f}",
          f"{s.spent[b]:.0f}", f"{s.spent[b] / b:.3f}"] for b in budgets])
    ev_turns = sum(o.evidence_turns for o in outcomes if not o.abstention)
    ev_items = sum(o.evidence_items for o in outcomes if not o.abstention)
    goals = [f"session recall@5 ≥ {GOAL_RECALL5}: {s.jump[5]:.3f} "
             + ("met" if s.jump[5] >= GOAL_RECALL5 else "**missed**")]
    if mid == 2000:
        margin = s.l0[2000] - s.bm25_frame[2000]
        goals.append(f"evidence in frame at 2000 tokens ≥ BM25 + {GOAL_MARGIN}: {s.l0[2000]:.3f} vs "
                     f"{s.bm25_frame[2000]:.3f} ({margin:+.3f}) "
                     + ("met" if margin >= GOAL_MARGIN else "**missed**"))
        margin = s.l0[2000] - s.rrf_frame[2000]
        goals.append(f"≥ RRF + {GOAL_RRF_MARGIN}: {s.l0[2000]:.3f} vs {s.rrf_frame[2000]:.3f} "
                     f"({margin:+.3f}) " + ("met" if margin >= GOAL_RRF_MARGIN else "**missed**"))
    return (
        f"{len(outcomes)} instances ({s.n} scored, {len(outcomes) - s.n} abstention), embedder "
        f"`{args.embedder}`"
        + "".join(f", home config `{k}: {json.dumps(v)}`" for k, v in sorted(args.config.items()))
        + f"; {mean([o.items for o in outcomes]):.0f} items per haystack on average; "
        f"{ev_items} of {ev_turns} evidence turns became items "
        f"({ev_items / max(ev_turns, 1):.3f}). Mean per instance: ingest "
        f"{mean([o.ingest_s for o in outcomes]):.1f} s, curate {mean([o.curate_s for o in outcomes]):.1f} s "
        f"({mean([o.embedded for o in outcomes]):.0f} records embedded); whole run "
        f"{elapsed / 60:.1f} min. Curation vectors "
        + ("came from the model or the bench's disk cache (`--cache`; the question is always "
           "embedded live inside hydrate)" if args.cache is not None else "were all embedded live")
        + ".\n\n"
        "Goals: " + "; ".join(goals) + ".\n\n" + overall + "\n"
        "Jump recall uses hydrate.pl's jump phase (`atc_hydrate:seed_ranking/5`, 50 seeds): the fused "
        "semantic + BM25 seed ranking with echo discount, records mapped to sessions. Evidence in "
        "frame is the mean, over questions, of the share of evidence turns whose item is a frame "
        "fact at L0 (verbatim); *any rung* also counts the item at L1-L3 or inside an arc in the "
        "frame. The BM25 frame is filled greedily with whole L0 items up to the budget; the diagnostic "
        "row fills a frame the same way from the jump's items (its 50 seeds, arcs and rollups "
        "skipped), which separates ranking quality from frame assembly. The RRF baseline fuses "
        f"(1 / ({RRF_K} + rank)) the items' cosine ranking (their stored vectors against the "
        "question's) with the BM25 ranking and fills its frame like BM25.\n\n"
        "Per question type:\n\n" + per_type + "\n"
        f"Answer in frame (the gold answer, normalised, in the text of the frame's facts and "
        f"breadcrumbs; answers of at most {ANSWER_WORDS} words, no abstention), per budget:\n\n"
        + answers + "\n" + "Hydration time (warm, per question):\n\n" + times)


def answer_table(outcomes: list[Outcome], budgets: list[int], label: str = "") -> str:
    """Answer in frame for the product, BM25 and RRF, overall and per question type, at each
    budget (rows: question types; ``label`` a first column, e.g. the shape)."""
    rows = []
    for qtype, group in [("all", outcomes)] + [(t, [o for o in outcomes if o.qtype == t]) for t in TYPES]:
        s = summarise(group, budgets) if group else None
        if s is None or not s.answers:
            continue
        rows.append(([label] if label else []) + [qtype, f"{s.answers}"]
                    + [f"{x:.3f}" for b in budgets for x in (s.answer[b], s.bm25_answer[b], s.rrf_answer[b])])
    return markdown_table((["shape"] if label else []) + ["question type", "checkable"]
                          + [h for b in budgets for h in (f"@{b} product", f"@{b} BM25", f"@{b} RRF")],
                          rows)


def parse_config(item: str, parser: argparse.ArgumentParser) -> tuple[str, Any]:
    """``KEY=JSON`` from ``--config`` as a (key, value) pair."""
    key, sep, raw = item.partition("=")
    try:
        if not sep or not key:
            raise ValueError("expected KEY=JSON")
        return key, json.loads(raw)
    except ValueError as exc:
        parser.error(f"--config {item!r}: {exc}")
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"instances (default {shown(DEFAULT_DATA)})")
    parser.add_argument("--limit", type=int, help="use N instances, question-type mix kept")
    parser.add_argument("--ids", nargs="+", help="use these question ids only")
    parser.add_argument("--embedder", default="minilm", help="minilm (default) or hash, or any spec")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 1000, 2000, 4000],
                        help="token budgets (default 500 1000 2000 4000)")
    parser.add_argument("--cache", type=Path, default=CACHE / "lme-vectors",
                        help="vector cache for curation batches (default .local/bench-cache/lme-vectors)")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None,
                        help="embed everything with the model")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=JSON",
                        help="a home config key for every haystack, e.g. distillation_vectors=false "
                             "(repeatable; the value is JSON)")
    parser.add_argument("--compare", choices=sorted(COMPARED),
                        help="hydrate each question twice, with this part of hydration and "
                             "without it (cells: the entity walk instead; bridge: no second "
                             "hop), and report both")
    parser.add_argument("--cells-compare", dest="compare", action="store_const", const="cells",
                        help="the same as --compare cells")
    parser.add_argument("--jsonl", type=Path, help="also write one JSON line per instance here")
    parser.add_argument("--native", action="store_true",
                        help="ingest each instance's own file (format longmemeval) instead of "
                             "one OpenAI-style file per session")
    parser.add_argument("--answer-words", action="store_true",
                        help="also report the share of the gold answer's words in each frame "
                             "(product, BM25, RRF): a fragment counts for the words it holds, "
                             "no fact counts as evidence by its label")
    parser.add_argument("--update-md", action="store_true",
                        help="write the tables into BENCHMARKS.md (## LongMemEval)")
    args = parser.parse_args(argv)
    args.budgets = sorted(set(args.budgets))
    args.config = dict(parse_config(item, parser) for item in args.config)
    if any(b <= 0 for b in args.budgets):
        parser.error("--budgets must be positive")
    instances = load_instances(require_data(args.data, parser), args.limit, args.ids)
    header = run_header("LongMemEval through the product")
    outcomes: list[Outcome] = []
    started = time.perf_counter()
    out = open(args.jsonl, "w", encoding="utf-8") if args.jsonl else None
    with tempfile.TemporaryDirectory(prefix="lme-") as tmp:
        for number, inst in enumerate(instances, start=1):
            outcome = run_instance(inst, args, Path(tmp),
                                   write_native if args.native else write_sessions)
            outcomes.append(outcome)
            if out:
                out.write(json.dumps(outcome.__dict__, default=list) + "\n")
                out.flush()
            progress(f"{number}/{len(instances)} {inst.qid} ({inst.qtype}): items {outcome.items}, "
                     f"jump@5 {outcome.jump_hits[5]}, bm25@5 {outcome.bm25_hits[5]}, "
                     f"L0@2000 {outcome.in_frame_l0.get(2000, float('nan')):.2f} vs bm25 "
                     f"{outcome.bm25_in_frame.get(2000, float('nan')):.2f}, curate {outcome.curate_s:.0f}s")
    if out:
        out.close()
    body = (header + "\n" + report(outcomes, args, time.perf_counter() - started)
            + f"\nPeak RSS of the benchmark process: {peak_rss_mb():,.0f} MB.\n")
    if args.compare:
        on, _, off = COMPARED[args.compare]
        body += (f"\nWith {on} against {off} (same homes, same questions; the jump and so "
                 "session recall@5 are the same for both by construction; frame recall@5 reads "
                 "the first five distinct sessions of the frame's facts):\n\n"
                 + compare_report(outcomes, args.budgets, args.compare) + "\n")
    print(body)
    if args.update_md:
        settings = "".join(f", {k}={json.dumps(v)}" for k, v in sorted(args.config.items()))
        update_benchmarks("LongMemEval", f"Embedder {args.embedder}{settings}", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
