#!/usr/bin/env python3
"""Kill -9 and two-writer soak of the state-changing commands other than ingest and curate
(``kill_soak.py`` has those): ``label``, ``declassify``, ``grant add``, ``grant revoke``,
``belief add``, ``remember`` and ``forget``.

A template home (``hash`` embedder) holds a small curated transcript, an owner, a grantee with
a grant, and a label on one item. For each command and each delay of ``--delays`` (ms), a copy
of the template runs the command as a real ``atc`` process, SIGKILLed after the delay (a run
may end first), then:

* *doctor*: ``atc doctor`` exits 0, and says nothing of an interrupted erasure once the same
  command was run again to completion;
* *reopen*: ``atc stats`` exits 0;
* *forget*: after the second run no file of the home holds the forgotten item's text;
* *declassify*: a restriction lifted with no ``declassify`` line in ``audit.jsonl`` is counted
  as *unaudited* (the kill fell between the journal's commit and the audit line).

``--pairs`` also starts two commands at once on one copy: each exits 0 or with one line naming
the other writer; afterwards doctor and reopen are checked as above.

    .venv/bin/python scripts/bench/write_kill_soak.py [--delays 100 300 600 1000 1500 2500]
        [--pairs 3] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, run_header  # noqa: E402

SECRET = "zorblax quintessence fizzwinkle"
ATC = [sys.executable, "-m", "attention_cloud.cli"]


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, ATC_HOME=str(home), ATC_LOCK_WAIT="0")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "host"), env.get("PYTHONPATH")) if p)
    return env


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(ATC + list(args), capture_output=True, text=True, env=_env(home),
                          timeout=600)


def _turn(role: str, n: int, text: str) -> str:
    return json.dumps({"type": role, "uuid": f"S1-{n}", "sessionId": "S1",
                       "timestamp": f"2026-01-01T10:0{n}:00Z",
                       "message": {"role": role, "content": text}})


def template(work: Path) -> tuple[Path, str, str]:
    """The template home, the handle of the secret item and of a labelled one."""
    source = work / "vault.jsonl"
    source.write_text("\n".join([
        _turn("user", 0, f"Please store the {SECRET} password for the vault"),
        _turn("assistant", 1, "We decided to keep the vault password in the keyring."),
        _turn("user", 2, "Now make the deploy script idempotent"),
        _turn("assistant", 3, "Going with a lock file; the deploy script is idempotent now.")])
        + "\n", encoding="utf-8")
    home = work / "template"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    for args in (["ingest", str(source)], ["curate"], ["principal", "add", "alice", "--owner"],
                 ["principal", "add", "bob"]):
        done = _atc(home, *args)
        assert done.returncode == 0, (args, done.stderr)
    rows = json.loads(_atc(home, "query", "item_text(H, T)", "--format", "json").stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    secret = next(r["H"] for r in rows if SECRET in r["T"])
    other = next(r["H"] for r in rows if r["H"] != secret)
    assert _atc(home, "label", other, "--restrict", "private").returncode == 0
    return home, secret, other


def commands(secret: str, other: str, grant_id: str) -> dict[str, list[str]]:
    return {"label": ["label", secret, "--restrict", "pii"],
            "declassify": ["declassify", other, "--why", "soak", "--restriction", "private"],
            "grant add": ["grant", "add", "bob", "--segment", "default", "--ceiling", "L2"],
            "grant revoke": ["grant", "revoke", grant_id],
            "belief add": ["belief", "add", "b1", "--type", "dependency_version", "--subject",
                           "libfoo", "--value", "4.1", "--confidence", "0.9", "--age", "21600",
                           "--volatility", "package_release"],
            "remember": ["remember", "the soak remembered this note", "--no-curate"],
            "forget": ["forget", secret, "--yes"]}


def _files_holding(home: Path, phrase: str) -> list[str]:
    words = [w.encode() for w in phrase.lower().split()]
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and any(w in p.read_bytes().lower() for w in words))


def _killed_run(home: Path, args: list[str], delay_ms: int) -> bool:
    proc = subprocess.Popen(ATC + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=_env(home))
    try:
        proc.wait(timeout=delay_ms / 1000)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def check(home: Path, name: str, other: str) -> list[str]:
    """What is wrong with ``home`` after a run of ``name`` (empty: nothing)."""
    problems = []
    doctor = _atc(home, "doctor")
    if doctor.returncode != 0 or "erasure interrupted" in doctor.stdout:
        problems.append(f"doctor: {doctor.stdout.strip().splitlines()[-1:]}")
    if _atc(home, "stats").returncode != 0:
        problems.append("reopen failed")
    if name == "forget" and _files_holding(home, SECRET):
        problems.append(f"text left in {_files_holding(home, SECRET)}")
    if name == "declassify":
        shown = _atc(home, "label", other, "--show").stdout
        audited = (home / "audit.jsonl").exists() and \
            '"declassify"' in (home / "audit.jsonl").read_text(encoding="utf-8")
        if "private" not in shown and not audited:
            problems.append("unaudited declassify")
    return problems


def run(delays: list[int], pairs: int, work: Path) -> dict:
    base, secret, other = template(work)
    granted = _atc(base, "grant", "add", "bob", "--segment", "default", "--ceiling", "L1")
    grant_id = granted.stdout.split()[-1] if granted.stdout.split() else "g_none"
    cmds = commands(secret, other, grant_id)
    figures: dict = {"runs": 0, "killed": 0, "problems": [], "pairs": 0, "pair_problems": []}
    for name, args in cmds.items():
        for delay in delays:
            home = work / f"t{figures['runs']}"
            shutil.copytree(base, home)
            figures["killed"] += _killed_run(home, args, delay)
            figures["runs"] += 1
            again = _atc(home, *args)  # the same command again, to completion
            if name == "forget" and again.returncode != 0:
                figures["problems"].append((name, delay, f"rerun: {again.stderr.strip()}"))
            for problem in check(home, name, other):
                figures["problems"].append((name, delay, problem))
            shutil.rmtree(home)
    names = list(cmds)
    for n in range(pairs * len(names)):
        first, second = names[n % len(names)], names[(n * 3 + 1) % len(names)]
        home = work / f"p{n}"
        shutil.copytree(base, home)
        procs = [subprocess.Popen(ATC + cmds[c], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=_env(home)) for c in (first, second)]
        for c, proc in zip((first, second), procs):
            _, err = proc.communicate(timeout=600)
            lines = [line for line in err.splitlines() if line.startswith("atc:")]
            if proc.returncode != 0 and not (len(lines) == 1 and "writing" in lines[0]):
                figures["pair_problems"].append((first, second, c, err.strip()[-300:]))
        figures["pairs"] += 1
        for c in (first, second):
            if c == "forget":
                _atc(home, *cmds[c])  # the one refused for the other writer, run again
        for problem in check(home, "forget" if "forget" in (first, second) else first, other):
            figures["pair_problems"].append((first, second, "after", problem))
        shutil.rmtree(home)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--delays", type=int, nargs="+", default=[100, 300, 600, 1000, 1500, 2500])
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--json", type=Path)
    opts = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="write-kill-soak-") as tmp:
        figures = run(opts.delays, opts.pairs, Path(tmp))
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(run_header("Kill -9 and two writers: label, declassify, grants, beliefs, remember, forget"))
    print(f"- runs: {figures['runs']} (killed mid-run: {figures['killed']}), "
          f"problems: {len(figures['problems'])}")
    print(f"- pairs of writers at once: {figures['pairs']}, problems: {len(figures['pair_problems'])}")
    for p in figures["problems"] + figures["pair_problems"]:
        print(f"  - {p}")
    print(f"- {figures['seconds']} s")
    if opts.json:
        opts.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
