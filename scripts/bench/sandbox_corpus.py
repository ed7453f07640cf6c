#!/usr/bin/env python3
"""Run the sandbox corpus (tests/fixtures/sandbox/attempts.jsonl) through real ``atc``
subprocesses and print what happened to each attempt and in all.

Each attempt runs as ``atc query`` (with ``--time-limit``), ``atc rules add``, ``atc rules
remove`` or ``atc hydrate --rules FILE [--walk W] [--plane P]`` against one home holding an
ingested session; every file of the home (and the victims beside it) is byte-compared before
and after each attempt. Figures: attempts, refused (a one-line ``atc:`` error, exit 1 or 2),
stopped by limits (the same, naming a limit; click's own usage error counts as refused), process deaths (a signal, a traceback, another
exit code, or no exit within the deadline; goal 0), home changed (goal 0), and attempts that
were neither refused nor stopped (goal 0).

    .venv/bin/python scripts/bench/sandbox_corpus.py [--time-limit 2] [--route query] [--every 1]

Hydrate attempts that loop run to hydrate's own limit of 30 s.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "sandbox" / "attempts.jsonl"
SESSION = ROOT / "tests" / "fixtures" / "ingest" / "claude_code_session.jsonl"
LIMIT = re.compile(r"stopped: |Stack limit|answer \w+ is a cyclic term|answer nests deeper|"
                   r"answer holds an integer|answers too large|larger than [\d,]+ bytes|"
                   r"too (?:large|long) to (?:compute|read|compare)")


def home_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def command(a: dict, scratch: Path, time_limit: float) -> list[str]:
    route, text = a["route"], a["text"]
    if route == "query":
        return ["query", text, "--limit", "5", "--time-limit", str(time_limit)]
    if route in ("rules", "add_name"):
        path = scratch / "attempt.pl"
        path.write_text(a.get("rules_text", text), encoding="utf-8")
        return ["rules", "add", str(path), "--name", "attempt" if route == "rules" else text]
    if route == "remove":
        return ["rules", "remove", text]
    if route == "hydrate":
        path = scratch / "attempt.pl"
        path.write_text(text, encoding="utf-8")
        args = ["hydrate", "--goal", "ValueError in the retry tests", "--budget", "300",
                "--rules", str(path)]
        if a.get("walk"):
            args += ["--walk", a["walk"]]
        if a.get("plane"):
            args += ["--plane", a["plane"]]
        return args
    raise ValueError(route)


def run_one(a: dict, home: Path, scratch: Path, time_limit: float) -> tuple[str, str]:
    """(outcome, detail): outcome is refused, limit, death or succeeded."""
    atc = [sys.executable, "-m", "attention_cloud.cli"]
    env = {**os.environ, "ATC_HOME": str(home)}
    try:
        out = subprocess.run([*atc, *command(a, scratch, time_limit)], capture_output=True,
                             text=True, env=env, cwd=scratch, timeout=120)
    except ValueError as exc:                       # a NUL in an argument: the OS refuses it
        return "refused", f"argv: {exc}"
    except subprocess.TimeoutExpired:
        return "death", "no exit within 120 s"
    err = out.stderr.strip()
    if out.returncode < 0 or out.returncode not in (0, 1, 2) or "Traceback" in out.stderr:
        return "death", f"rc {out.returncode}: {err[-200:]}"
    if out.returncode == 0:
        return "succeeded", out.stdout[:200]
    last = err.splitlines()[-1] if err else ""
    if not last.startswith(("atc: ", "Error: ")):       # ours, or click's usage error
        return "death", f"unclean error: {err[-200:]}"
    return ("limit" if LIMIT.search(last) else "refused"), last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=2.0, help="atc query --time-limit")
    parser.add_argument("--route", default=None, help="only attempts of this route")
    parser.add_argument("--every", type=int, default=1, help="run every Nth attempt")
    parser.add_argument("--verbose", action="store_true", help="one line per attempt")
    args = parser.parse_args()
    attempts = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    attempts = [a for a in attempts if args.route in (None, a["route"])][::args.every]
    with tempfile.TemporaryDirectory() as tmp:
        root, scratch = Path(tmp) / "root", Path(tmp) / "scratch"
        home = root / "home"
        home.mkdir(parents=True)
        scratch.mkdir()
        (root / "victim.pl").write_text("victim.\n")
        (home / "victim.pl").write_text("victim.\n")
        subprocess.run([sys.executable, "-m", "attention_cloud.cli", "ingest", str(SESSION),
                        "--home", str(home)], check=True, capture_output=True)
        counts: Counter[str] = Counter()
        changed, wrong = [], []
        started = time.monotonic()
        for a in attempts:
            before = home_bytes(root)
            t0 = time.monotonic()
            outcome, detail = run_one(a, home, scratch, args.time_limit)
            counts[outcome] += 1
            if home_bytes(root) != before or any(scratch.glob("PWNED")):
                changed.append(a["id"])
            if outcome != a["expect"]:
                wrong.append(f"{a['id']} expected {a['expect']}, got {outcome}: {detail[:120]}")
            if args.verbose:
                print(f"{a['id']:12} {time.monotonic() - t0:6.2f}s {outcome:9} {detail[:100]}")
        elapsed = time.monotonic() - started
    print(f"attempts:          {len(attempts)}")
    print(f"refused:           {counts['refused']}")
    print(f"stopped by limits: {counts['limit']}")
    print(f"process deaths:    {counts['death']}  (goal 0)")
    print(f"home changed:      {len(changed)}  (goal 0){'  ' + ' '.join(changed) if changed else ''}")
    print(f"not refused:       {counts['succeeded']}  (goal 0)")
    print(f"other than expected: {len(wrong)}")
    for line in wrong:
        print(f"  {line}")
    print(f"wall: {elapsed:.0f} s ({elapsed / max(1, len(attempts)):.2f} s per attempt); "
          f"backend ATC_PROLOG={os.environ.get('ATC_PROLOG', 'auto')}")
    return 0 if not (counts["death"] or changed or counts["succeeded"]) else 1


if __name__ == "__main__":
    sys.exit(main())
