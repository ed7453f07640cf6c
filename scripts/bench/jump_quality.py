#!/usr/bin/env python3
"""Jump quality: session recall of dense, BM25 and fused retrieval on LongMemEval instances.

For each instance (a question and a haystack of ~48 chat sessions) every retriever ranks the
haystack's items for the question; items are grouped by session (a session's score is its best
item's score) and ``recall_any@k`` asks whether any answer session is among the top k sessions.
Abstention instances (``*_abs``) have no evidence and are left out, as in the official protocol.

Units (``--unit``, repeatable; each retriever runs on each unit):
    turn     every user turn is an item
    anyturn  every turn, user or assistant, is an item (what ingesting a transcript stores)
    round    a user turn together with the assistant reply that follows it
    session  all user turns of a session joined (BM25 sees all of it; a 256-token encoder sees
             the start only, so ``chunk`` is the fair dense variant)
    chunk    a session's user text cut into windows of about 160 words (overlap 40)

``item-rrf`` / ``item-minmax`` fuse the top 100 *items* of a dense retriever and BM25 on the
same unit, then group by session: what a caller of ``nearest/3`` that fuses the two jumps gets.
The other fusions combine session rankings from different (retriever, unit) pairs, e.g. dense turns with
BM25 sessions: ``rrf`` (reciprocal rank, k = 60) and ``minmax`` (scores scaled to [0, 1] per
query, summed). Every dense x BM25 pair is fused, every unit of one embedder with every BM25
unit, and any ``--fuse "A + B + C"`` recipe naming rankings as the table does. Dense vectors are cached under ``--cache`` (default /tmp/atc-jump-cache) by
embedder id, unit and instance, so reruns only pay for new work.

Example:
    python scripts/bench/jump_quality.py --limit 20 --embedder hash --unit turn --unit session
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

from attention_cloud.embed import LexicalIndex, fuse_rankings, load_embedder  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_data import LONGMEMEVAL_DEV, require_data, shown  # noqa: E402

DEFAULT_DATA = LONGMEMEVAL_DEV  # ../shared/data/longmemeval-dev from the repository root
KS = (5, 10)
TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
SHORT = {
    "single-session-user": "ss-user",
    "single-session-assistant": "ss-asst",
    "single-session-preference": "ss-pref",
    "multi-session": "multi",
    "knowledge-update": "kn-upd",
    "temporal-reasoning": "temporal",
}


@dataclass
class Instance:
    qid: str
    qtype: str
    question: str
    answers: set[str]
    sessions: list[tuple[str, list[dict]]]


@dataclass
class Method:
    name: str
    hits: dict[int, list[tuple[str, bool]]] = field(default_factory=lambda: defaultdict(list))
    seconds: float = 0.0
    queries: int = 0


def load_instances(data: Path, limit: int | None) -> list[Instance]:
    files = sorted(data.glob("*.json"))
    instances = []
    for path in files:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw["question_id"].endswith("_abs"):
            continue
        instances.append(
            Instance(
                raw["question_id"],
                raw["question_type"],
                raw["question"],
                set(raw["answer_session_ids"]),
                list(zip(raw["haystack_session_ids"], raw["haystack_sessions"])),
            )
        )
    if limit:
        # Keep the type mix of the full set: take instances round-robin over types.
        by_type: dict[str, list[Instance]] = defaultdict(list)
        for instance in instances:
            by_type[instance.qtype].append(instance)
        picked: list[Instance] = []
        while len(picked) < min(limit, len(instances)):
            for qtype in sorted(by_type):
                if by_type[qtype] and len(picked) < limit:
                    picked.append(by_type[qtype].pop(0))
        instances = picked
    return instances


def units_of(instance: Instance, unit: str) -> list[tuple[str, str]]:
    """(session id, text) items of one instance for one unit."""
    items: list[tuple[str, str]] = []
    for session_id, turns in instance.sessions:
        if unit == "turn":
            items += [(session_id, t["content"]) for t in turns if t["role"] == "user"]
        elif unit == "anyturn":
            items += [(session_id, t["content"]) for t in turns]
        elif unit == "round":
            for i, turn in enumerate(turns):
                if turn["role"] != "user":
                    continue
                reply = turns[i + 1]["content"] if i + 1 < len(turns) and turns[i + 1]["role"] == "assistant" else ""
                items.append((session_id, turn["content"] + "\n" + reply))
        elif unit == "session":
            items.append((session_id, "\n".join(t["content"] for t in turns if t["role"] == "user")))
        elif unit == "chunk":
            words = " ".join(t["content"] for t in turns if t["role"] == "user").split()
            step, width = 120, 160
            for start in range(0, max(1, len(words) - (width - step)), step):
                items.append((session_id, " ".join(words[start : start + width])))
        else:
            raise SystemExit(f"unknown unit {unit!r}")
    return [(s, t) for s, t in items if t.strip()] or items


def session_ranking(item_sessions: list[str], scores: np.ndarray | dict[int, float]) -> list[tuple[str, float]]:
    best: dict[str, float] = {}
    pairs = scores.items() if isinstance(scores, dict) else enumerate(scores.tolist())
    for index, score in pairs:
        session = item_sessions[index]
        if score > best.get(session, -np.inf):
            best[session] = score
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))


def record(method: Method, instance: Instance, ranking: list[tuple[str, float]]) -> None:
    top = [session for session, _ in ranking]
    for k in KS:
        method.hits[k].append((instance.qtype, bool(instance.answers & set(top[:k]))))


class DenseCache:
    """Vectors per (embedder, unit, instance) as .npy files, keyed by the texts' digest."""

    def __init__(self, root: Path, embedder) -> None:
        self.root = root / embedder.id.replace("/", "_").replace(":", "_")
        self.root.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.embed_seconds = 0.0
        self.embedded = 0

    def vectors(self, texts: list[str], tag: str) -> np.ndarray:
        digest = hashlib.sha1("\x00".join(texts).encode("utf-8")).hexdigest()[:16]
        path = self.root / f"{tag}-{digest}.npy"
        if path.exists():
            return np.load(path)
        start = time.perf_counter()
        vectors = self.embedder.embed(texts)
        self.embed_seconds += time.perf_counter() - start
        self.embedded += len(texts)
        np.save(path.with_suffix(".tmp.npy"), vectors)
        path.with_suffix(".tmp.npy").rename(path)
        return vectors


ITEM_DEPTH = 100  # items each retriever hands to item-level fusion, as a jump would fetch


def top_items(scores: np.ndarray | dict[int, float]) -> list[tuple[str, float]]:
    pairs = scores.items() if isinstance(scores, dict) else enumerate(scores.tolist())
    return sorted(((str(i), s) for i, s in pairs), key=lambda item: (-item[1], int(item[0])))[:ITEM_DEPTH]


def dense_rankings(instance, unit, cache: DenseCache, method: Method):
    """(session ranking, top item ranking) of one dense retriever on one unit."""
    items = units_of(instance, unit)
    vectors = cache.vectors([t for _, t in items], f"{instance.qid}-{unit}")
    query = cache.vectors([instance.question], f"{instance.qid}-q")[0]
    start = time.perf_counter()
    scores = vectors @ query
    ranking = session_ranking([s for s, _ in items], scores)
    method.seconds += time.perf_counter() - start
    method.queries += 1
    return ranking, top_items(scores)


def bm25_rankings(instance, unit, method: Method):
    """(session ranking, top item ranking) of BM25 on one unit."""
    items = units_of(instance, unit)
    index = LexicalIndex()
    start = time.perf_counter()
    index.add([str(i) for i in range(len(items))], [t for _, t in items])
    built = time.perf_counter()
    scores = {int(key): score for key, score in index.scores(instance.question).items()}
    ranking = session_ranking([s for s, _ in items], scores)
    # Sessions without a single query term still count as ranked last, in haystack order.
    seen = {s for s, _ in ranking}
    ranking += [(s, 0.0) for s, _ in instance.sessions if s not in seen]
    method.seconds += time.perf_counter() - built
    method.queries += 1
    return ranking, top_items(scores)


def print_table(methods: list[Method]) -> None:
    header = f"{'method':<38}" + "".join(f"{SHORT[t]:>9}" for t in TYPES) + f"{'all@5':>8}{'all@10':>8}{'ms/q':>7}"
    print(header)
    print("-" * len(header))
    for method in methods:
        cells = []
        for qtype in TYPES:
            hits = [hit for t, hit in method.hits[5] if t == qtype]
            cells.append(f"{(sum(hits) / len(hits)) if hits else float('nan'):>9.3f}")
        all5 = np.mean([hit for _, hit in method.hits[5]])
        all10 = np.mean([hit for _, hit in method.hits[10]])
        ms = 1000 * method.seconds / max(1, method.queries)
        print(f"{method.name:<38}" + "".join(cells) + f"{all5:>8.3f}{all10:>8.3f}{ms:>7.1f}")
    print("(columns per type: recall_any@5; all@5 / all@10 over every non-abstention instance)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help=f"LongMemEval instances (default {shown(DEFAULT_DATA)})")
    parser.add_argument("--limit", type=int, default=None, help="use N instances (type mix kept)")
    parser.add_argument("--embedder", action="append",
                        help="embedder spec (repeatable), optionally SPEC@unit,unit to embed only those units; default minilm")
    parser.add_argument("--unit", action="append", help="turn, anyturn, round, session, chunk (repeatable); default turn+session")
    parser.add_argument("--fuse", action="append", help='extra fusion, e.g. "minilm turn + minilm chunk + bm25 session"')
    parser.add_argument("--misses", action="store_true", help="list each single ranking's misses@5 on stderr")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/atc-jump-cache"))
    args = parser.parse_args(argv)
    specs, dense_units = [], {}
    for given in args.embedder or ["minilm"]:
        spec, _, only = given.partition("@")
        specs.append(spec)
        dense_units[spec] = only.split(",") if only else None
    units = args.unit or ["turn", "session"]

    instances = load_instances(require_data(args.data, parser), args.limit)
    counts = defaultdict(int)
    for instance in instances:
        counts[instance.qtype] += 1
    print(f"{len(instances)} instances ({', '.join(f'{SHORT[t]} {counts[t]}' for t in TYPES if counts[t])})")

    caches = {spec: DenseCache(args.cache, load_embedder(spec)) for spec in specs}
    methods: dict[str, Method] = {}

    def method(name: str) -> Method:
        return methods.setdefault(name, Method(name))

    for number, instance in enumerate(instances, start=1):
        rankings: dict[str, list[tuple[str, float]]] = {}
        item_rankings: dict[str, list[tuple[str, float]]] = {}
        for unit in units:
            name = f"bm25 {unit}"
            rankings[name], item_rankings[name] = bm25_rankings(instance, unit, method(name))
            for spec, cache in caches.items():
                if dense_units[spec] is not None and unit not in dense_units[spec]:
                    continue
                name = f"{spec} {unit}"
                rankings[name], item_rankings[name] = dense_rankings(instance, unit, cache, method(name))
                for how in ("rrf", "minmax"):
                    # fuse the two retrievers' items first, then group by session, as nearest/3
                    # callers would when both search the same stored items
                    fused = fuse_rankings([item_rankings[name], item_rankings[f"bm25 {unit}"]], method=how)
                    sessions = session_ranking(
                        [s for s, _ in units_of(instance, unit)], {int(key): score for key, score in fused}
                    )
                    record(method(f"item-{how}({name} + bm25 {unit})"), instance, sessions)
        for name, ranking in rankings.items():
            record(method(name), instance, ranking)
        dense_names = [n for n in rankings if not n.startswith("bm25")]
        bm25_names = [n for n in rankings if n.startswith("bm25")]
        for dense in dense_names:
            for lexical in bm25_names:
                for how in ("rrf", "minmax"):
                    fused = fuse_rankings([rankings[dense], rankings[lexical]], method=how)
                    record(method(f"{how}({dense} + {lexical})"), instance, fused)
        for spec in specs:
            mine = [n for n in dense_names if n.split(" ")[0] == spec] + bm25_names
            if len(mine) > 2:
                for how in ("rrf", "minmax"):
                    fused = fuse_rankings([rankings[n] for n in mine], method=how)
                    record(method(f"{how}(every {spec} and bm25 unit)"), instance, fused)
        for recipe in args.fuse or ():
            parts = [part.strip() for part in recipe.split("+")]
            missing = [part for part in parts if part not in rankings]
            if missing:
                raise SystemExit(f"--fuse {recipe!r}: no ranking named {missing[0]!r} (have {sorted(rankings)})")
            for how in ("rrf", "minmax"):
                fused = fuse_rankings([rankings[part] for part in parts], method=how)
                record(method(f"{how}({' + '.join(parts)})"), instance, fused)
        if args.misses:
            for name, ranking in rankings.items():
                if not instance.answers & {s for s, _ in ranking[:5]}:
                    print(f"miss@5 {name:<22} {instance.qid} [{instance.qtype}] {instance.question}", file=sys.stderr)
        if number % 10 == 0:
            print(f"  {number}/{len(instances)} instances", file=sys.stderr, flush=True)

    print()
    print_table(sorted(methods.values(), key=lambda m: -np.mean([h for _, h in m.hits[5]])))
    print()
    for spec, cache in caches.items():
        if cache.embedded:
            rate = cache.embedded / cache.embed_seconds
            print(f"{spec}: embedded {cache.embedded} texts in {cache.embed_seconds:.1f} s ({rate:.0f} texts/s)")
        else:
            print(f"{spec}: all vectors from cache {cache.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
