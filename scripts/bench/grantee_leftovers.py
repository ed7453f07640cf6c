#!/usr/bin/env python3
"""Three costs of sharing that round 24 quoted with no command (qa103), each beside a baseline
measured in the same run:

* the **per-rung path rewrite** a grantee's view pays (rules/path_disclosure.pl): CPU µs per
  L2/L3 rung of reading it (baseline), of reading it and rewriting it as a grantee is shown
  it (``shown_text/4``), and of that and its tokens as shown (``shown_tokens/5``, which asks
  the host's estimator where the rewrite changed the text);
* the **receipt cap's save cost** (receipt_cap.py): CPU µs of ``save_receipt`` at a full list
  (each save prunes one receipt) against the same write with no list kept;
* a **frame's CPU** for the owner (baseline) and for grantees at L2 and L3 of the same home
  (the rewrite is paid once per fact shown: the plan counts the owner's tokens);
* the **grantee rules module's reset** (every grantee read without rules empties the shared
  ``grantee_rules`` module: api_reader_rules/2 with no sources): CPU µs per reset, empty and
  after a rules text of ``--clauses`` clauses, against a grantee's ``true.`` query whole.

``--compare-cap FILE`` (another version's receipt_cap.py, e.g. ``git show
main:host/attention_cloud/receipt_cap.py > /tmp/cap.py``) adds an interleaved A/B of
``note_saved`` alone, this checkout's against that file's, 100 saves a turn, six turns each.

The home is built in a temporary folder from ``--data`` (Claude Code sessions, whose records
name the owner's paths), hash embedder::

    nice .venv/bin/python scripts/bench/grantee_leftovers.py --data /work/shared/data/claude-code-real
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import consult_text, markdown_table, run_header  # noqa: E402

REWRITE_PL = r"""
:- module(bench_grantee_leftovers, [rewrite_cost/5]).
% rewrite_cost(+Rounds, -Rungs, -ReadUs, -ShownUs, -TokensUs): CPU µs per L2/L3 rung.
rewrite_cost(Rounds, N, Read, Shown, Tokens) :-
    findall(Id-L, ( member(L, [l2, l3]), atc_ladder:rung(Id, L, _) ), Rungs),
    length(Rungs, N),
    clock_(Rounds, Rungs, read_, Read),
    clock_(Rounds, Rungs, shown_, Shown),
    (   current_predicate(atc_path_disclosure:shown_tokens/5)     % qa103 on
    ->  clock_(Rounds, Rungs, tokens_, Tokens)
    ;   Tokens = 0
    ).
clock_(Rounds, Rungs, Step, Us) :-
    statistics(cputime, T0),
    forall(between(1, Rounds, _), forall(member(Id-L, Rungs), call(Step, Id, L))),
    statistics(cputime, T1),
    length(Rungs, N),
    Us is (T1 - T0) * 1e6 / (Rounds * max(1, N)).
read_(Id, L) :- once(atc_ladder:rung(Id, L, _)).
shown_(Id, L) :- once(atc_ladder:rung(Id, L, T)), atc_path_disclosure:shown_text(Id, L, T, _).
tokens_(Id, L) :-
    once(atc_ladder:rung(Id, L, T)), once(atc_ladder:rung_tokens(Id, L, N0)),
    atc_path_disclosure:shown_tokens(Id, L, T, N0, _).
"""


def path_rewrite(mem, rounds: int) -> list:
    from attention_cloud.bridge import Var

    consult_text(mem, REWRITE_PL)
    (n, read, shown, tokens) = mem.pl.once("bench_grantee_leftovers:rewrite_cost", rounds,
                                           Var(), Var(), Var(), Var())
    return [["L2/L3 rung read (baseline)", n, f"{read:.1f}", "1.00"],
            ["read + shown_text/4", n, f"{shown:.1f}", f"{shown / read:.2f}"],
            ["read + shown_text + shown_tokens/5", n, f"{tokens:.1f}" if tokens else "—",
             f"{tokens / read:.2f}" if tokens else "—"]]


def receipt_saves(work: Path, kept: int, saves: int) -> list:
    from attention_cloud import hydration

    rows = []
    receipt = json.loads(json.dumps({"id": "r_0", "goal": "g" * 200, "facts": [
        {"handle": f"it_{n:016x}", "level": "L2", "tokens": 40} for n in range(40)]}))
    for label, capped in (("write only (no list, baseline)", False), ("save_receipt, cap", True)):
        home = work / f"receipts-{capped}"
        (home / "receipts").mkdir(parents=True)
        (home / "config.json").write_text(json.dumps({"receipts_kept": kept}), encoding="utf-8")
        save = hydration.save_receipt
        if not capped:
            def save(home, receipt):  # the same write, no list kept
                path = home / "receipts" / f"{receipt['id']}.json"
                tmp = path.with_suffix(".tmp")
                tmp.write_text(hydration.receipt_text(receipt), encoding="utf-8")
                tmp.replace(path)
        for n in range(kept):           # a full list: each timed save prunes one
            save(home, {**receipt, "id": f"r_{n:016x}"})
        start = time.process_time()
        for n in range(kept, kept + saves):
            save(home, {**receipt, "id": f"r_{n:016x}"})
        rows.append([label, kept, saves, f"{(time.process_time() - start) * 1e6 / saves:.0f}"])
    base = float(rows[0][3])
    for row in rows:
        row.append(f"{float(row[3]) / base:.2f}")
    return rows


GOALS = ["what did we fix in the cache", "which files did the subagent read",
         "what tests were run and did they pass", "what went wrong with the build"]


def frames(mem, rounds: int) -> list:
    from attention_cloud.sharing import reader_hydrate

    rows = []
    for label, call in (("owner (baseline)", lambda g: mem.hydrate(g, budget=2000)),
                        ("grantee at L2", lambda g: reader_hydrate(mem, "bob", g, budget=2000,
                                                                   via="bench")),
                        ("grantee at L3", lambda g: reader_hydrate(mem, "carl", g, budget=2000,
                                                                   via="bench"))):
        for goal in GOALS:                  # warm: kept sets made, labels estimated
            call(goal)
        start = time.process_time()
        for _ in range(rounds):
            for goal in GOALS:
                call(goal)
        rows.append([label, f"{(time.process_time() - start) * 1e3 / (rounds * len(GOALS)):.1f}"])
    base = float(rows[0][1])
    for row in rows:
        row.append(f"{float(row[1]) / base:.2f}")
    return rows


def cap_ab(work: Path, other: Path, kept: int) -> list:
    import importlib.util

    from attention_cloud import receipt_cap

    spec = importlib.util.spec_from_file_location("attention_cloud._cap_other", other)
    theirs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(theirs)
    sides = {"this checkout": receipt_cap, str(other): theirs}
    made = {name: 0 for name in sides}
    homes = {}
    for i, name in enumerate(sides):
        homes[name] = work / f"cap-ab-{i}"
        (homes[name] / "receipts").mkdir(parents=True)
        (homes[name] / "config.json").write_text(json.dumps({"receipts_kept": kept}))

    def save(name: str) -> None:
        rid = f"r_{made[name]:016x}"
        made[name] += 1
        (homes[name] / "receipts" / f"{rid}.json").write_text(json.dumps({"id": rid}))
        sides[name].note_saved(homes[name], {"id": rid})

    for name in sides:                  # full lists: each timed save prunes one
        for _ in range(kept):
            save(name)
    turns: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(6):
        for name in sides:
            start = time.process_time()
            for _ in range(100):
                save(name)
            turns[name].append((time.process_time() - start) * 1e4)
    return [[name, " ".join(f"{t:.0f}" for t in ts), f"{sorted(ts)[3]:.0f}"]
            for name, ts in turns.items()]


def rules_reset(mem, clauses: int, rounds: int) -> list:
    from attention_cloud.bridge import Term, Var
    from attention_cloud.sharing import reader_query

    def cpu_us(call) -> float:
        start = time.process_time()
        for _ in range(rounds):
            call()
        return (time.process_time() - start) * 1e6 / rounds

    def reset():
        mem.pl.once("atc_api:api_reader_rules", [], Var())

    def load():
        text = "".join(f"bench_rule_{n}(X) :- item(X).\n" for n in range(clauses))
        mem.pl.once("atc_api:api_reader_rules", [Term("-", ["bench", text])], Var())

    query = cpu_us(lambda: reader_query(mem, "bob", "true", via="bench"))
    empty = cpu_us(reset)
    spent = 0.0
    for _ in range(rounds):
        load()                          # not timed: only the reset that empties it
        start = time.process_time()
        reset()
        spent += time.process_time() - start
    after = spent * 1e6 / rounds
    return [["grantee `true.` query, whole (baseline)", f"{query:.0f}", "1.00"],
            ["reset of the empty module", f"{empty:.0f}", f"{empty / query:.2f}"],
            [f"reset after a rules text of {clauses} clauses", f"{after:.0f}",
             f"{after / query:.2f}"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="Claude Code sessions")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--kept", type=int, default=1000)
    parser.add_argument("--saves", type=int, default=500)
    parser.add_argument("--clauses", type=int, default=100)
    parser.add_argument("--frame-rounds", type=int, default=5)
    parser.add_argument("--compare-cap", type=Path, help="another receipt_cap.py to A/B")
    args = parser.parse_args()
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    print(run_header("Sharing's leftover costs (qa103)"))
    work = Path(tempfile.mkdtemp(prefix="grantee-leftovers-"))
    try:
        home = work / "home"
        home.mkdir()
        (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
        mem = Memory.open(home)
        try:
            mem.ingest(sorted(args.data.glob("*.jsonl")))
            mem.curate()
            add_principal(mem, "alice", owner=True)
            add_principal(mem, "bob")
            add_grant(mem, "bob", segments=["default"], ceiling="L2")
            add_principal(mem, "carl")
            add_grant(mem, "carl", segments=["default"], ceiling="L3")
            print(markdown_table(["per rung", "rungs", "CPU µs", "× baseline"],
                                 path_rewrite(mem, args.rounds)))
            print(markdown_table(["frame, 2000 tokens", "CPU ms", "× owner"],
                                 frames(mem, args.frame_rounds)))
            print(markdown_table(["grantee rules module", "CPU µs", "× baseline"],
                                 rules_reset(mem, args.clauses, args.rounds)))
        finally:
            mem.close()
        print(markdown_table(["receipt save", "kept", "saves", "CPU µs", "× baseline"],
                             receipt_saves(work, args.kept, args.saves)))
        if args.compare_cap:
            print(markdown_table(["note_saved of", "CPU µs per save, each turn", "median"],
                                 cap_ab(work, args.compare_cap, args.kept)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
