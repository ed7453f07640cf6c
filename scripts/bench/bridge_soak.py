#!/usr/bin/env python3
"""Bridge soak: many calls of every kind in one process; resident memory must stay flat.

Each kind runs ``--calls`` times (default 1,000,000) in one process per backend, after a warm-up
that fills the bridge's caches; the resident set size (RSS) is read before and after each kind
and at the end of the whole run. A leak in the C API (text buffers, term references, atoms)
shows as RSS growth or as SWI-Prolog aborting the process ("Too many stacked strings").

Kinds:
  once          ``atom_length/2`` with one output variable
  solutions     ``between(1, 20, X)``: twenty answers per call
  callback      Prolog -> Python: a registered Python predicate called from a Prolog goal
  text          round trip (``copy_term/2``) of an atom, a string, a big integer, a float,
                a nested list with a dict, and non-ASCII text, one value per call, in turn
  error-prolog  a Prolog type error raised to Python (PrologError)
  error-python  a Python exception raised inside a callback, through Prolog, back to Python
  memory        (``--memory N``) a Memory kept open through N hydrations and N queries of the
                bundled samples: the long-running agent's process

SWI-Prolog is initialised once per process, so each backend runs in a child process.

    .venv/bin/python scripts/bench/bridge_soak.py                      # both backends, 1M per kind
    .venv/bin/python scripts/bench/bridge_soak.py --backend pyswip --calls 100000
    .venv/bin/python scripts/bench/bridge_soak.py --memory 100000 --update-md
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

KINDS = ("once", "solutions", "callback", "text", "error-prolog", "error-python")
#: A kind leaks when RSS grows more than FLAT *and* more than NOISE_MB over its calls, and again
#: over as many more (_measure). Freed memory stays in the allocator, and janus frees its
#: payloads in batches at atom-GC, so RSS moves by a few MB either way with no leak (seen: 63-70
#: MB over 300,000 errors, no trend); a leak of 8 bytes per call passes NOISE_MB within
#: 1,000,000 calls.
FLAT = 0.05
NOISE_MB = 8.0


def rss_kb() -> int:
    """Resident set size of this process in KiB (from /proc, so it can also go down)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def _calls(pl: Any) -> dict[str, Callable[[int], Any]]:
    from attention_cloud.bridge import Atom, Term, Var
    from attention_cloud.errors import PrologError

    pl.register("soak_echo", 2, lambda x: x)

    def fail(x):
        raise ValueError(f"soak {x}")

    pl.register("soak_fail", 2, fail)
    values = [Atom("an_atom"), "a string with 'quotes' and \"more\"", 2**100 + 7, 3.25,
              [1, [2, [3, "x"]], {"k": [Atom("v"), 1.5]}],
              "non-ASCII: é ß 中文 🙂 \u00a0\u2003", Atom("ünïcödé atom")]

    def once(i):
        return pl.once("user:atom_length", Atom("héllo"), Var())

    def solutions(i):
        return pl.solutions("user:between", 1, 20, Var())

    def callback(i):
        return pl.once("user:soak_echo", i, Var())

    def text(i):
        return pl.once("user:copy_term", values[i % len(values)], Var())

    def error_prolog(i):
        try:
            pl.once("user:atom_length", 1, Atom("not_a_number"))
        except PrologError:
            return None
        raise AssertionError("no Prolog error")

    def error_python(i):
        try:
            pl.once("user:soak_fail", i, Var())
        except PrologError:
            return None
        raise AssertionError("no Python error")

    assert pl.once("user:copy_term", values[4], Var()) == (values[4],)
    return {"once": once, "solutions": solutions, "callback": callback, "text": text,
            "error-prolog": error_prolog, "error-python": error_python}


def settled_rss_kb() -> int:
    """RSS once both collectors have run: what is still held is held for good.

    Python objects handed to Prolog (janus's payloads) live until SWI-Prolog's atom garbage
    collection, which runs every few thousand of them; reading RSS between two runs would
    measure where in that cycle the read fell, not a leak.
    """
    from attention_cloud.bridge import get_prolog

    get_prolog().once("user:garbage_collect_atoms")
    gc.collect()
    return rss_kb()


def _span(step: Callable[[int], Any], steps: int) -> tuple[int, int, float]:
    """RSS (KiB) settled before and after ``steps`` calls of ``step``, and their seconds."""
    before = settled_rss_kb()
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    seconds = time.perf_counter() - start
    return before, settled_rss_kb(), seconds


def _grew(before: int, after: int) -> bool:
    """Whether RSS grew past both thresholds (FLAT and NOISE_MB) between two readings."""
    return (after - before) / before > FLAT and (after - before) / 1024 > NOISE_MB


def _measure(step: Callable[[int], Any], steps: int, warm: int,
             calls_per_step: int = 1) -> dict[str, Any]:
    """Run ``step`` ``warm`` times, then ``steps`` times between two settled RSS readings.

    A span that grows past the thresholds is run once more in the same process: a leak grows
    by the same again, while the allocator's one-off steps (janus's error path once grew 10 MB
    over 25,000 calls under the load of a second suite, and 4 MB over 200,000 alone) do not.
    ``confirmed`` says whether the second span grew too; ``leaks`` reads it.
    """
    for i in range(warm):  # caches and allocator pools fill here
        step(i)
    before, after, seconds = _span(step, steps)
    calls = steps * calls_per_step
    out = {"calls": calls, "warm": warm, "seconds": round(seconds, 2),
           "us_per_call": round(seconds / calls * 1e6, 2),
           "rss_before_mb": round(before / 1024, 1), "rss_after_mb": round(after / 1024, 1),
           "growth": round((after - before) / before, 4)}
    if _grew(before, after):
        again_before, again_after, _ = _span(step, steps)
        out.update(confirmed=_grew(again_before, again_after),
                   again_mb=[round(again_before / 1024, 1), round(again_after / 1024, 1)])
    return out


def _soak_memory(n: int) -> dict[str, Any]:
    """A Memory kept open through ``n`` hydrations and ``n`` queries of the bundled samples."""
    from attention_cloud import Memory
    from attention_cloud.samples import sample_paths

    goals = ["why do processor retries fail", "what did we decide about logging PANs",
             "webhook idempotency keys", "retry backoff policy", "which tests failed"]
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "home")
        try:
            mem.ingest(sample_paths())
            mem.curate()

            def step(i):
                mem.hydrate(goals[i % len(goals)], budget=800)
                mem.query("item_kind(H, K), item_goal(H, G)", limit=20)

            return _measure(step, n, min(500, n), calls_per_step=2)
        finally:
            mem.close()


def default_warm(calls: int) -> int:
    """The benchmark's warm-up per kind: a tenth of its calls, at least 20,000."""
    return max(20_000, calls // 10)


def child(calls: int, memory: int, kinds: list[str], warm: int | None = None) -> None:
    """Run the soak in this process and print one JSON object (``warm`` calls of each kind
    before its measured ones; default_warm when None)."""
    from attention_cloud.bridge import get_prolog

    pl = get_prolog()
    start_rss = rss_kb()
    fns = _calls(pl)
    out: dict[str, Any] = {"backend": pl.backend, "swipl": pl.version, "kinds": {}}
    for kind in kinds:
        out["kinds"][kind] = _measure(fns[kind], calls,
                                      default_warm(calls) if warm is None else warm)
        print(f"soak: {pl.backend} {kind} done", file=sys.stderr, flush=True)
    if memory:
        out["kinds"]["memory"] = _soak_memory(memory)
    out["rss_start_mb"] = round(start_rss / 1024, 1)
    out["rss_end_mb"] = round(rss_kb() / 1024, 1)
    print(json.dumps(out))


def run_backend(backend: str, calls: int, memory: int, kinds: list[str],
                timeout: float | None = None, warm: int | None = None) -> dict[str, Any]:
    """Run the soak for one backend in a child process; its JSON result plus ``rc``."""
    env = {**os.environ, "ATC_PROLOG": backend, "PYTHONDONTWRITEBYTECODE": "1"}
    warm_args = [] if warm is None else ["--warm", str(warm)]
    proc = subprocess.run([sys.executable, __file__, "--child", "--calls", str(calls),
                           "--memory", str(memory), "--kinds", ",".join(kinds), *warm_args],
                          env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    result: dict[str, Any] = json.loads(lines[-1]) if proc.returncode == 0 and lines else {}
    result.update(backend=backend, rc=proc.returncode,
                  stderr_tail="" if proc.returncode == 0 else proc.stderr[-2000:])
    return result


def leaks(result: dict[str, Any]) -> list[str]:
    """The kinds whose RSS grew past FLAT and NOISE_MB in two spans running, or why the run died."""
    if result["rc"] != 0:
        return [f"process exited {result['rc']}: {result['stderr_tail'].strip()[-300:]}"]
    return [f"{k}: RSS +{v['growth']:.1%} ({v['rss_before_mb']} -> {v['rss_after_mb']} MB, "
            f"then {v['again_mb'][0]} -> {v['again_mb'][1]} MB)"
            for k, v in result["kinds"].items() if v.get("confirmed")]


def _table(results: list[dict[str, Any]]) -> str:
    from bench_env import markdown_table

    rows = []
    for r in results:
        if r["rc"] != 0:
            rows.append([r["backend"], "aborted", "", "", "", "", f"exit {r['rc']}"])
            continue
        for kind, v in r["kinds"].items():
            rows.append([r["backend"], kind, f"{v['calls']:,}", f"{v['us_per_call']}",
                         f"{v['rss_before_mb']}", f"{v['rss_after_mb']}", f"{v['growth']:+.1%}"])
    return markdown_table(["backend", "kind", "calls", "µs/call", "RSS before (MB)",
                           "RSS after (MB)", "growth"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=["pyswip", "janus", "both"], default="both")
    ap.add_argument("--calls", type=int, default=1_000_000, help="calls per kind")
    ap.add_argument("--memory", type=int, default=0,
                    help="also keep a Memory open through N hydrations and N queries")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--warm", type=int, default=None,
                    help="calls of each kind before its measured ones (default: a tenth of "
                         "--calls, at least 20,000)")
    ap.add_argument("--update-md", action="store_true", help="write the table into BENCHMARKS.md")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        ap.error(f"unknown kinds: {', '.join(unknown)} (known: {', '.join(KINDS)})")
    if args.warm is not None and args.warm < 0:
        ap.error(f"--warm {args.warm}: must be 0 or more")
    if args.child:
        child(args.calls, args.memory, kinds, args.warm)
        return 0
    from attention_cloud.bridge.janus_engine import locate_janus

    backends = ["pyswip", "janus"] if args.backend == "both" else [args.backend]
    results = []
    for backend in backends:
        if backend == "janus" and not locate_janus().usable:
            print(f"soak: janus unavailable ({locate_janus().reason}); skipped", file=sys.stderr)
            continue
        results.append(run_backend(backend, args.calls, args.memory, kinds, warm=args.warm))
    table = _table(results)
    print(table)
    bad = [f"{r['backend']} {msg}" for r in results for msg in leaks(r)]
    print("soak: flat" if not bad else "soak: LEAK " + "; ".join(bad))
    if args.update_md:
        from bench_env import run_header, update_benchmarks

        update_benchmarks("Bridge soak", f"{args.calls:,} calls per kind",
                          run_header("Bridge soak") + "\n" + table)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
