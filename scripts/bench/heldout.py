#!/usr/bin/env python3
"""Held-out conversations through the product: a shape retrieval was never tuned on.

``scripts/bench/heldout/heldout.json`` holds three conversations written by hand for this check
(not derived from LongMemEval or any shared data, and not to be tuned on): two or three named
people over months of dated sessions, with relative time words, recurring people and places and
details that change (a new city, a new job), and about 17 questions each with LoCoMo's
categories: single-hop, multi-hop, temporal, open-domain, adversarial (asked about something
never said; no evidence, hydrated but not scored). The file is LoCoMo-shaped (``qa`` with
``evidence`` dia ids, ``category`` 1-5), so it also reads as LoCoMo data.

Each conversation is fed to a fresh home three ways, one reader each:

- ``locomo``: the file as it is (format ``locomo``; turns map back by ``turn_id``);
- ``jsonl``: one OpenAI-style JSONL file per session, every message with ``name`` and a
  ``timestamp`` (the session's time plus a minute a turn, in a human format that changes per
  session, ``conversational.FORMATS``), the first speaker (``speaker_a``) the user;
- ``text``: one plain text transcript per session, a ``Date:`` line and ``Name: text`` lines.

Each home is ingested and curated once, then every question goes through
``longmemeval.run_questions`` (the jump's seed ranking, hydrate at each budget with ``now`` a
day after the last session, the BM25 and RRF baselines over the same items): evidence in frame
(L0, and L0 or an excerpt) and answer in frame, per category and reader. A temporal question's
answer is a day, looked for in the frame as ISO 8601 (``2023-01-08``): what the product's date
notes write after a turn that says "yesterday" (``[yesterday = Sun 2023-01-08]``); the baselines
show raw turns, so only a turn that writes the day itself counts for them.

    .venv/bin/python scripts/bench/heldout.py --embedder hash
    .venv/bin/python scripts/bench/heldout.py                      # MiniLM
    .venv/bin/python scripts/bench/heldout.py --embedder hash --readers locomo --misses
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conversational as conv  # noqa: E402
import longmemeval as lme  # noqa: E402
from bench_data import shown  # noqa: E402
from bench_env import markdown_table, peak_rss_mb, progress, run_header  # noqa: E402

DATA = Path(__file__).resolve().parent / "heldout" / "heldout.json"
#: LoCoMo's question categories
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ORDER = ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")
READERS = ("locomo", "jsonl", "text")
LOCOMO_DATE = "%I:%M %p on %d %B, %Y"  # 7:40 pm on 9 January, 2023
_SESSION = re.compile(r"session_(\d+)\Z")


@dataclass
class Question(lme.Instance):
    """A held-out question: its evidence is the set of ``(session "D<n>", turn n)`` its
    ``dia_id``s name (LoCoMo numbers turns from 1, so they are not list indexes)."""

    dia: frozenset[tuple[str, int]] = field(default_factory=frozenset)
    sample: dict[str, Any] = field(default_factory=dict)
    said: str = ""  # the evidence turns' text

    @property
    def evidence(self) -> set[tuple[str, int]]:
        return set(self.dia)

    @property
    def checkable_answer(self) -> str:
        """As LongMemEval's, and only an answer its evidence turns say in its words (an
        open-domain answer such as a country the conversation never names is for a reader
        to infer, not for a frame to hold); a temporal answer is its ISO day."""
        answer = lme.Instance.checkable_answer.fget(self)  # type: ignore[attr-defined]
        if self.qtype == "temporal" or lme.holds_answer(answer, [self.said]):
            return answer
        return ""


def session_numbers(conversation: dict[str, Any]) -> list[int]:
    return sorted(int(m[1]) for key in conversation if (m := _SESSION.match(key)))


def session_time(conversation: dict[str, Any], n: int) -> datetime:
    return datetime.strptime(conversation[f"session_{n}_date_time"], LOCOMO_DATE)


def dia(dia_id: str) -> tuple[str, int]:
    sid, _, turn = dia_id.rpartition(":")
    return sid, int(turn)


def questions(sample: dict[str, Any]) -> list[Question]:
    """The sample's questions; the sessions are ``D<n>`` (the dia ids' session part)."""
    c = sample["conversation"]
    numbers = session_numbers(c)
    sessions = [(f"D{n}", c[f"session_{n}_date_time"], c[f"session_{n}"]) for n in numbers]
    asked = session_time(c, numbers[-1]) + timedelta(days=1)
    texts = {t["dia_id"]: t["text"] for n in numbers for t in c[f"session_{n}"]}
    out = []
    for k, qa in enumerate(sample["qa"], start=1):
        category = CATEGORIES[qa["category"]]
        evidence = frozenset(dia(d) for d in qa.get("evidence", []))
        answer = str(qa.get("answer", ""))
        if category == "temporal":  # a day: looked for as the product's date notes write it
            answer = datetime.strptime(answer, "%d %B %Y").strftime("%Y-%m-%d")
        qid = f"{sample['sample_id']}-q{k:02d}" + ("_abs" if category == "adversarial" else "")
        out.append(Question(qid, category, qa["question"], {sid for sid, _ in evidence}, sessions,
                            asked.strftime("%Y/%m/%d (%a) %H:%M"), None, answer, evidence, sample,
                            " ".join(texts[d] for d in qa.get("evidence", []))))
    return out


# -- the three feeds -----------------------------------------------------------------------------
Writer = Callable[[lme.Instance, Path], dict[str, str]]


def locomo_writer(q: lme.Instance, folder: Path) -> dict[str, str]:
    """The sample as it is published; product session ``<sample>/session_N`` -> ``D<n>``."""
    folder.mkdir(parents=True)
    sample = q.sample  # type: ignore[attr-defined]
    (folder / f"{sample['sample_id']}.json").write_text(json.dumps([sample], ensure_ascii=False),
                                                         encoding="utf-8")
    return {f"{sample['sample_id']}/session_{n}": f"D{n}" for n in session_numbers(sample["conversation"])}


def _turns(sample: dict[str, Any], n: int) -> list[tuple[str, str, str]]:
    """Session ``n``'s turns as (speaker, text, dia id)."""
    return [(t["speaker"], t["text"], t["dia_id"]) for t in sample["conversation"][f"session_{n}"]]


def jsonl_writer(q: lme.Instance, folder: Path) -> dict[str, str]:
    """One OpenAI-style JSONL file per session (``name``, human ``timestamp``); returns file
    stem -> ``D<n>`` and each line's pointer -> its dia id."""
    folder.mkdir(parents=True)
    sample = q.sample  # type: ignore[attr-defined]
    c = sample["conversation"]
    out: dict[str, str] = {}
    for number, n in enumerate(session_numbers(c)):
        stem = f"s{n:02d}"
        _, fmt = conv.FORMATS[number % len(conv.FORMATS)]
        start = session_time(c, n)
        lines = []
        for i, (speaker, text, dia_id) in enumerate(_turns(sample, n)):
            role = "user" if speaker == c["speaker_a"] else "assistant"
            lines.append(json.dumps({"role": role, "name": speaker, "content": text,
                                     "timestamp": fmt(start + timedelta(minutes=i))}, ensure_ascii=False))
            out[f"{folder / stem}.jsonl:{i + 1}"] = dia_id
        (folder / f"{stem}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[stem] = f"D{n}"
    return out


def text_writer(q: lme.Instance, folder: Path) -> dict[str, str]:
    """One plain text transcript per session: ``Date: 9 January 2023 19:40``, a blank line,
    ``Name: text`` lines; returns file stem -> ``D<n>`` and each line's pointer -> its dia id."""
    folder.mkdir(parents=True)
    sample = q.sample  # type: ignore[attr-defined]
    c = sample["conversation"]
    out: dict[str, str] = {}
    for n in session_numbers(c):
        stem = f"s{n:02d}"
        start = session_time(c, n)
        lines = [f"Date: {start.day} {start:%B %Y %H:%M}", ""]
        for speaker, text, dia_id in _turns(sample, n):
            lines.append(f"{speaker}: {text}")
            out[f"{folder / stem}.txt:{len(lines)}"] = dia_id
        (folder / f"{stem}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[stem] = f"D{n}"
    return out


WRITERS: dict[str, Writer] = {"locomo": locomo_writer, "jsonl": jsonl_writer, "text": text_writer}


# -- the report ----------------------------------------------------------------------------------
def table(outcomes: dict[str, list[lme.Outcome]], budgets: list[int]) -> str:
    f3 = (lambda x: f"{x:.3f}")
    rows = []
    for reader, found in outcomes.items():
        for category in ("all",) + ORDER:
            group = found if category == "all" else [o for o in found if o.qtype == category]
            if not group:
                continue
            s = lme.summarise(group, budgets)
            if category == "adversarial":
                rows.append([reader, category, f"{len(group)}", "", "", ""]
                            + ["" for _ in budgets for _ in range(7)])
                continue
            rows.append([reader, category, f"{s.n}", f3(s.jump[5]), f3(s.bm25[5]), f3(s.rrf[5])]
                        + [x for b in budgets for x in (
                            f3(s.l0[b]), f3(s.excerpt[b]), f3(s.bm25_frame[b]), f3(s.rrf_frame[b]),
                            f3(s.answer[b]), f3(s.bm25_answer[b]), f3(s.rrf_answer[b]))])
    return markdown_table(
        ["reader", "category", "n", "session recall@5 product", "BM25", "RRF"]
        + [h for b in budgets for h in (f"evidence @{b} product L0", "L0 or excerpt", "BM25", "RRF",
                                         f"answer @{b} product", "BM25", "RRF")], rows)


def words_table(outcomes: dict[str, list[lme.Outcome]], budgets: list[int]) -> str:
    """--answer-words: the share of the gold answer's words in each frame (product, BM25, RRF;
    ``longmemeval.answer_words``), per reader and category (adversarial questions not scored)."""
    rows = []
    for reader, found in outcomes.items():
        for category in ("all",) + ORDER[:-1]:
            group = found if category == "all" else [o for o in found if o.qtype == category]
            s = lme.summarise(group, budgets)
            if not s.worded:
                continue
            rows.append([reader, category, f"{s.worded}"]
                        + [f"{x:.3f}" for b in budgets for x in (s.words[b], s.bm25_words[b], s.rrf_words[b])])
    return markdown_table(["reader", "category", "answers"]
                          + [h for b in budgets for h in (f"answer words @{b} product", "BM25", "RRF")], rows)


def misses(outcomes: dict[str, list[lme.Outcome]], asked: dict[str, Question], budgets: list[int]) -> str:
    """Every scored question the product's frame missed at the largest budget (evidence not all
    at L0 or excerpt, or a checkable answer not in the frame), per reader."""
    top = max(budgets)
    rows = []
    for reader, found in outcomes.items():
        for o in found:
            if o.abstention:
                continue
            evidence = o.in_frame_excerpt.get(top, o.in_frame_l0.get(top, 0.0))
            answered = o.answer_in.get(top, True)
            if evidence < 1.0 or not answered:
                q = asked[o.qid]
                rows.append([reader, o.qid, o.qtype, q.question, q.answer, f"{evidence:.2f}",
                             ("yes" if answered else "no") if o.answer_checkable else "not checked",
                             f"{o.bm25_in_frame.get(top, 0.0):.2f}", f"{o.rrf_in_frame.get(top, 0.0):.2f}"])
    return markdown_table(["reader", "question", "category", "text", "answer", f"evidence @{top}",
                           "answer in frame", "BM25 evidence", "RRF evidence"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--data", type=Path, default=DATA, help=f"LoCoMo-shaped samples (default {shown(DATA)})")
    parser.add_argument("--embedder", default="minilm", help="minilm (default) or hash, or any spec")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000],
                        help="token budgets (default 500 2000)")
    parser.add_argument("--readers", nargs="+", choices=READERS, default=list(READERS),
                        help="which feeds to run (default all three)")
    parser.add_argument("--samples", nargs="+", help="these sample ids only")
    parser.add_argument("--cache", type=Path, default=lme.CACHE / "lme-vectors",
                        help="vector cache for curation batches (default .local/bench-cache/lme-vectors)")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None,
                        help="embed everything with the model")
    parser.add_argument("--misses", action="store_true", help="also list every question the product missed")
    parser.add_argument("--answer-words", action="store_true",
                        help="also report the share of the gold answer's words in each frame")
    parser.add_argument("--jsonl", type=Path, help="also write one JSON line per question and reader here")
    args = parser.parse_args(argv)
    args.budgets = sorted(set(args.budgets))
    args.config, args.compare = {}, None
    if any(b <= 0 for b in args.budgets):
        parser.error("--budgets must be positive")
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such file")
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    if args.samples:
        samples = [s for s in samples if s["sample_id"] in set(args.samples)]
        if not samples:
            parser.error(f"--samples: none of {' '.join(args.samples)} in {args.data}")
    header = run_header("Held-out conversations through the product")
    asked: dict[str, Question] = {}
    outcomes: dict[str, list[lme.Outcome]] = {reader: [] for reader in args.readers}
    made: dict[str, list[tuple[int, int, int]]] = {reader: [] for reader in args.readers}
    started = time.perf_counter()
    out = open(args.jsonl, "w", encoding="utf-8") if args.jsonl else None
    with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
        for sample in samples:
            qs = questions(sample)
            asked.update({q.qid: q for q in qs})
            for reader in args.readers:
                found = lme.run_questions(qs, args, Path(tmp) / reader, WRITERS[reader])
                outcomes[reader].extend(found)
                made[reader].append((found[0].items, found[0].timed_items, found[0].named_items))
                if out:
                    for o in found:
                        out.write(json.dumps({"reader": reader, **o.__dict__}, default=list) + "\n")
                progress(f"{sample['sample_id']} {reader}: {found[0].items} items, "
                         f"{found[0].timed_items} timed, {found[0].named_items} named, "
                         f"curate {found[0].curate_s:.0f}s")
    if out:
        out.close()
    counts = {c: sum(1 for q in asked.values() if q.qtype == c) for c in ORDER}
    turns = sum(len(s["conversation"][f"session_{n}"]) for s in samples
                for n in session_numbers(s["conversation"]))
    body = (header + "\n"
            + f"{len(samples)} conversations ({shown(args.data)}), {turns} turns, {len(asked)} questions ("
            + ", ".join(f"{counts[c]} {c}" for c in ORDER) + f"; "
            f"{sum(bool(q.checkable_answer) for q in asked.values())} answers checkable); embedder "
            f"`{args.embedder}`; "
            f"whole run {(time.perf_counter() - started) / 60:.1f} min. Items per reader (with a time, "
            "with a speaker's name): "
            + "; ".join(f"{r} {sum(n[0] for n in made[r])} ({sum(n[1] for n in made[r])}, "
                        f"{sum(n[2] for n in made[r])})" for r in args.readers) + ".\n\n"
            + table(outcomes, args.budgets) + "\n"
            "Evidence in frame: the share of a question's evidence turns that are frame facts at L0 "
            "(or an excerpt of their L0); answer in frame: the short gold answer, normalised, in the "
            "frame's text (a temporal answer as its ISO day; an answer the evidence turns do not say in "
            "its words is not checked). BM25 and RRF are longmemeval.py's "
            "baselines over the same items. Adversarial questions are hydrated, not scored.\n")
    if args.answer_words:
        body += ("\nAnswer words in frame (the share of the gold answer's words, common ones left "
                 "out, that the frame's facts and breadcrumbs hold; no fact counts by its label):\n\n"
                 + words_table(outcomes, args.budgets))
    if args.misses:
        body += "\nMisses of the product at the largest budget:\n\n" + misses(outcomes, asked, args.budgets)
    body += f"\nPeak RSS of the benchmark process: {peak_rss_mb():,.0f} MB.\n"
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
