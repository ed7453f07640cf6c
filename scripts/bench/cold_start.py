#!/usr/bin/env python3
"""CPU and wall time of one fresh ``atc`` process per command, for two builds side by side.

Every ``atc`` call (a hook, a script, ``atc query``) is a new process that pays the
interpreter's start, the imports its command needs, and, where it opens a home, loading the
Prolog rules and the home. Each variant is a folder holding the ``attention_cloud`` package
(put first on ``PYTHONPATH``; ``.`` is this checkout's ``host/``), so a baseline is a
``git archive`` of another commit. Runs alternate between variants, command by command, so
both see the same load; the first run of each pair is a warm-up (byte-code and compiled rules
written, page cache filled) and is not counted. Prints the median CPU (user + system, the
process and its children) and wall time per command and variant, and their ratios.

    git archive fd50fe9 | tar -x -C /tmp/base
    .venv/bin/python scripts/bench/cold_start.py --home .local/demo-home \\
        --variant before=/tmp/base/host --variant after=host --runs 10

Beside the commands that only read (``--version``, ``--help`` and several commands'
``--help``, the lazily mounted ones' (``grant add``, ``attend``, ``watch``) among them, ``stats``, ``query``, ``hydrate``, ``show``, ``cells list``, ``curate`` with
nothing to do, the prompt hook cold and through the warm recall server; with
``--minilm-home``, the hydrate and the cold hook on a home embedded by MiniLM too), some are
measured their own way: ``ingest`` of a new 10-line file, ``remember`` of a new sentence and
``forget --yes`` of an item not forgotten yet (into a copy of the home), ``hook stop`` up to
its detach (the capture it leaves behind is waited for before the next run), and ``atc mcp``
up to its answer to ``initialize`` and to a first ``tools/call`` (the server's CPU read from
``/proc`` at the answer). ``--fresh`` runs them on a new home instead, an empty folder made
again before every run (no ``show``, ``forget`` or ``hook stop`` there).

``--rules-alone`` measures instead a process that only starts the engine and loads the rules
(``get_prolog()``, no home, no command), in three states of the compiled-rules cache: unusable
(``ATC_CACHE`` below a file: the rules load from source at every start), empty (the process
compiles them, once per change of the rules or of SWI-Prolog) and filled (the compiled file is
loaded); and, with ``--bare``, a bare ``swipl`` loading ``rules/bridge.pl`` then the rules,
from source and from the compiled file, without Python. No home is needed::

    .venv/bin/python scripts/bench/cold_start.py --rules-alone --bare --variant now=host --runs 10
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = {"session_id": "bench-cold-start", "transcript_path": "", "cwd": "/work/app",
           "hook_event_name": "UserPromptSubmit",
           "prompt": "why did charges fail when the processor timed out?"}


def commands(home: str, handle: str | None = None,
             minilm_home: str | None = None) -> dict[str, tuple[list[str], bytes | None, str]]:
    """Each measured command: its arguments after ``atc``, what it reads on stdin, and
    ``ATC_HOOK_SERVER`` (``on``: the prompt hook is a client of the home's warm recall
    server, started by the warm-up run; only the client process is measured). ``handle``:
    an item of the home for ``show`` (None: no ``show``, as on a fresh home);
    ``minilm_home``: a home embedded by the default MiniLM, for its hydrate and cold hook."""
    prompt = json.dumps(PAYLOAD).encode()
    table = {
        "--version": (["--version"], None, "off"),
        "--help": (["--help"], None, "off"),
        **{f"{' '.join(words)} --help": ([*words, "--help"], None, "off") for words in HELPS},
        "cells list": (["cells", "list", "--home", home], None, "off"),
        "curate, nothing to do": (["curate", "--home", home], None, "off"),
        "stats": (["stats", "--home", home], None, "off"),
        "query": (["query", "item_kind(H, error)", "--home", home], None, "off"),
        "query item(H) --limit 1": (["query", "item(H)", "--limit", "1", "--home", home],
                                    None, "off"),
        "hydrate": (["hydrate", "x", "--budget", "500", "--home", home], None, "off"),
        "hydrate --budget 200": (["hydrate", "x", "--budget", "200", "--home", home],
                                 None, "off"),
        "hook user-prompt": (["hook", "user-prompt", "--home", home], prompt, "off"),
        "hook user-prompt, warm server": (["hook", "user-prompt", "--home", home], prompt, "on"),
    }
    if handle is not None:
        table["show"] = (["show", handle, "--home", home], None, "off")
    if minilm_home is not None:
        table["hydrate --budget 200, MiniLM home"] = (
            ["hydrate", "x", "--budget", "200", "--home", minilm_home], None, "off")
        table["hook user-prompt, MiniLM home"] = (["hook", "user-prompt", "--home", minilm_home],
                                                  prompt, "off")
    return table


#: Commands whose ``--help`` is measured (beside ``atc --help``).
HELPS = (("stats",), ("query",), ("hydrate",), ("remember",), ("forget",), ("cells", "list"),
         ("hook", "user-prompt"), ("grant", "add"), ("attend",), ("watch",))


#: Commands measured by a callable of their own (they write, detach or converse), beside the
#: table above: ``ingest`` of a new 10-line file, ``hook stop`` up to its detach, ``atc mcp``
#: up to its answer to ``initialize`` and to a first ``tools/call``.
OWN_COMMANDS = ("ingest 10 lines", "remember", "forget", "hook stop", "mcp initialize",
                "mcp first tools/call")

#: The program of a ``--rules-alone`` process: start the engine, load the rules, say how.
ENGINE_ONLY = ("from attention_cloud.bridge import get_prolog; import sys; "
               "sys.stderr.write(get_prolog().rules_origin)")


def _env(host: Path, server: str = "off") -> dict[str, str]:
    """The environment of a process of the variant at ``host``."""
    env = dict(os.environ, PYTHONPATH=str(host), ATC_HOOK_SERVER=server)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install keeps its byte-code
    return env


def run_once(host: Path, argv: list[str], stdin: bytes | None,
             server: str = "off", *, program: str | None = None,
             env_extra: dict[str, str] | None = None, expect: str | None = None,
             command: list[str] | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``atc`` process run from ``host`` (or of
    ``program`` run by Python there, or of ``command`` itself); ``expect``: what its
    stderr must say (where the rules came from)."""
    env = {**_env(host, server), **(env_extra or {})}
    start = time.perf_counter()
    proc = subprocess.Popen(command or [sys.executable, "-c",
                                        program or "from attention_cloud.cli import run; run()",
                                        *argv],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    proc.stdin.write(stdin or b"")
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode:
        raise SystemExit(f"atc {' '.join(argv)} exited {proc.returncode}: {err}")
    if expect is not None and err.strip() != expect:
        raise SystemExit(f"the rules loaded as {err.strip()!r}, not {expect!r}")
    return usage.ru_utime + usage.ru_stime, wall


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) the live process ``pid`` has spent so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "cold-start", "version": "1"}}}
_MCP_CALL = [{"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "query", "arguments": {"goal": "item(H)", "limit": 1}}}]


def mcp_once(host: Path, home: str, call: bool) -> tuple[float, float]:
    """(CPU, wall) of a new ``atc mcp`` up to its answer to ``initialize`` (``call``: then to a
    first ``tools/call``, ``query item(H)`` limit 1, which opens memory); the server is then
    closed (stdin), not counted."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "from attention_cloud.cli import run; run()",
                             "mcp", "--home", home], env=_env(host), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        for message in [_MCP_INIT] + (_MCP_CALL if call else []):
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        last = 2 if call else 1
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"atc mcp ended before answering request {last}")
            if json.loads(line).get("id") == last:
                break
        cpu, wall = _cpu_of(proc.pid), time.perf_counter() - start
        if call and b'"isError":true' in line.replace(b" ", b""):
            raise SystemExit(f"atc mcp's tools/call failed: {line[:300]!r}")
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return cpu, wall


def ingest_once(host: Path, home: str, scratch: Path) -> tuple[float, float]:
    """One ``atc ingest`` of a new 10-line text file (new text each run) into ``home``."""
    n = next(_RUNS)
    path = scratch / f"notes-{n}.txt"
    path.write_text("".join(f"{('User', 'Assistant')[i % 2]}: line {i} of chat {n}: the deploy "
                            f"of build {n * 10 + i} waited on the ledger lock\n"
                            for i in range(10)))
    return run_once(host, ["ingest", str(path), "--format", "text", "--home", home], None)


def remember_once(host: Path, home: str) -> tuple[float, float]:
    """One ``atc remember`` of a new sentence (new text each run) into ``home``."""
    n = next(_RUNS)
    return run_once(host, ["remember", f"The deploy of build {n} waits on the ledger lock.",
                           "--home", home], None)


def forget_once(host: Path, home: str) -> tuple[float, float]:
    """One ``atc forget H --yes`` of an item of ``home`` not forgotten yet (found first, by a
    process not measured)."""
    found = subprocess.run([sys.executable, "-c", "from attention_cloud.cli import run; run()",
                            "query", "item_kind(H, tool_result)", "--limit", "1", "--format",
                            "json", "--home", home], capture_output=True, text=True,
                           env=_env(host), check=True)
    handle = json.loads(found.stdout)[0]["H"]
    return run_once(host, ["forget", handle, "--yes", "--home", home], None)


def hook_stop_once(host: Path, home: str, transcript: str) -> tuple[float, float]:
    """``atc hook stop`` up to its detach (the process Claude Code waits for, and the first
    child it waits for); the detached capture is left to finish before the next run, so that
    it does not load the machine under the next measurement."""
    log = Path(home) / "hooks.log"
    before = log.read_text().count("\n") if log.exists() else 0
    payload = json.dumps({"session_id": "bench-cold-start", "transcript_path": transcript,
                          "cwd": "/work/app", "hook_event_name": "Stop"}).encode()
    measured = run_once(host, ["hook", "stop", "--home", home], payload)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().count("\n") > before:
            break
        time.sleep(0.1)
    return measured


_RUNS = iter(range(10**9))


def own_cases(host: Path, home: str, scratch: Path, transcript: str,
              fresh: bool) -> dict[str, Callable[[], tuple[float, float]]]:
    """The :data:`OWN_COMMANDS` of one variant on ``home`` (a copy of it, for ``ingest``,
    unless ``fresh``: a home emptied before every run)."""
    copy = Path(home) if fresh else scratch / "ingest-home"
    if not fresh:
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns("hooks"))
    return {
        "ingest 10 lines": lambda: ingest_once(host, str(copy), scratch),
        "remember": lambda: remember_once(host, str(copy)),
        "forget": lambda: forget_once(host, str(copy)),
        "hook stop": lambda: hook_stop_once(host, home, transcript),
        "mcp initialize": lambda: mcp_once(host, home, False),
        "mcp first tools/call": lambda: mcp_once(host, home, True),
    }


def first_item(home: str) -> str:
    """A handle of the home, for ``show``."""
    done = subprocess.run([sys.executable, "-c", "from attention_cloud.cli import run; run()",
                           "query", "item(H)", "--limit", "1", "--format", "json", "--home", home],
                          capture_output=True, text=True, env=_env(ROOT / "host"), check=True)
    return json.loads(done.stdout)[0]["H"]


def _empty(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def on_fresh_home(host: Path, argv: list[str], stdin: bytes | None, server: str,
                  home: str) -> tuple[float, float]:
    """``run_once`` on ``home`` emptied first (a new user's first command)."""
    _empty(home)
    return run_once(host, argv, stdin, server)


def fresh_then(home: str, once: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    """``once`` run on ``home`` emptied first."""
    _empty(home)
    return once()


def rules_alone_cases(host: Path, scratch: Path, bare: bool) -> dict[str, Callable[[], tuple[float, float]]]:
    """Each ``--rules-alone`` case of one variant: a callable timing one fresh process."""
    blocker = scratch / "a-file"
    blocker.write_text("not a folder")
    filled = scratch / "filled"
    fresh = iter(range(10**9))

    def engine(cache: Callable[[], Path], expect: str) -> Callable[[], tuple[float, float]]:
        return lambda: run_once(host, [], None, program=ENGINE_ONLY,
                                env_extra={"ATC_CACHE": str(cache())}, expect=expect)

    cases = {
        "engine, rules from source": engine(lambda: blocker / "cache", "source"),
        "engine, compiling the rules": engine(lambda: scratch / f"empty-{next(fresh)}",
                                              "compiled"),
        "engine, compiled rules": engine(lambda: filled, "cache"),
    }
    run_once(host, [], None, program=ENGINE_ONLY, env_extra={"ATC_CACHE": str(filled)})
    if bare:
        rules = _rules_folder(host)
        (compiled,) = (filled / "rules").glob("*.qlf")
        for name, target in (("bare swipl, rules from source", rules / "api.pl"),
                             ("bare swipl, compiled rules", compiled)):
            goal = (f"load_files({str(rules / 'bridge.pl')!r}, [if(true)]), "
                    f"load_files({str(target)!r}, [if(true)])")
            cases[name] = (lambda goal=goal: run_once(
                host, [], None, command=["swipl", "-q", "-g", goal, "-t", "halt"]))
    return cases


def _rules_folder(host: Path) -> Path:
    """The ``rules/`` a variant's package loads (a checkout's, beside its ``host/``)."""
    for candidate in (host / "attention_cloud" / "_prolog" / "rules", host.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise SystemExit(f"no rules/ folder for the variant at {host}")


def measure(name: str, variants: dict[str, Any], runs: int) -> None:
    """Time ``runs`` fresh processes of each variant, alternated, after one warm-up each;
    print the medians and their ratios to the first variant."""
    samples: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
    for once in variants.values():
        once()  # warm-up
    for _ in range(runs):
        for v, once in variants.items():
            samples[v].append(once())
    medians = {v: (statistics.median(c for c, _ in s), statistics.median(w for _, w in s))
               for v, s in samples.items()}
    cells = "  ".join(f"{v}: cpu {c:.3f} s wall {w:.3f} s" for v, (c, w) in medians.items())
    first = next(iter(medians.values()))
    ratios = "  ".join(f"{v}/{next(iter(medians))}: cpu {c / first[0]:.2f} wall {w / first[1]:.2f}"
                       for v, (c, w) in list(medians.items())[1:])
    print(f"{name:30} {cells}  {ratios}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="a curated memory home (not with --rules-alone)")
    parser.add_argument("--rules-alone", action="store_true",
                        help="time the engine and the rules alone, in each state of the cache")
    parser.add_argument("--bare", action="store_true",
                        help="with --rules-alone: a bare swipl loading the rules too")
    parser.add_argument("--variant", action="append", required=True,
                        help="NAME=FOLDER holding attention_cloud (repeat)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only", action="append", help="measure only these commands")
    parser.add_argument("--minilm-home",
                        help="with --home: a home embedded by the default MiniLM, for its "
                             "hydrate and cold prompt hook")
    parser.add_argument("--fresh", action="store_true",
                        help="the commands on a new home, an empty folder made again before "
                             "every run (no show, no hook stop)")
    parser.add_argument("--transcript", default=str(ROOT / "host" / "attention_cloud" /
                                                    "samples" /
                                                    "2026-01-12-processor-retries.jsonl"),
                        help="the session file `hook stop` captures (default: a bundled sample)")
    args = parser.parse_args()
    variants = {}
    for spec in args.variant:
        name, _, folder = spec.partition("=")
        variants[name] = (ROOT / folder).resolve()
    if args.rules_alone + bool(args.home) + args.fresh != 1:
        parser.error("give --home (commands), --fresh or --rules-alone, one of them")
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} load {os.getloadavg()[0]:.2f}, "
          f"{args.runs} runs a command and variant, alternated")
    if args.rules_alone:
        with tempfile.TemporaryDirectory(prefix="cold-start-") as scratch:
            cases = {}
            for v, host in variants.items():
                (Path(scratch) / v).mkdir()
                cases[v] = rules_alone_cases(host, Path(scratch) / v, args.bare)
            for name in next(iter(cases.values())):
                if not args.only or name in args.only:
                    measure(name, {v: c[name] for v, c in cases.items()}, args.runs)
    else:
        home = (tempfile.mkdtemp(prefix="cold-start-fresh-") if args.fresh
                else str(Path(args.home).resolve()))
        handle = None if args.fresh else first_item(home)
        minilm = str(Path(args.minilm_home).resolve()) if args.minilm_home else None
        table = commands(home, handle, minilm)
        for name, (argv, stdin, server) in table.items():
            if not args.only or name in args.only:
                if args.fresh and not name.endswith(("--version", "--help")):
                    measure(name, {v: (lambda h=host, a=argv, i=stdin, s=server:
                                       on_fresh_home(h, a, i, s, home))
                                   for v, host in variants.items()}, args.runs)
                    continue
                measure(name, {v: (lambda h=host, a=argv, i=stdin, s=server: run_once(h, a, i, s))
                               for v, host in variants.items()}, args.runs)
        wanted = [name for name in OWN_COMMANDS if not args.only or name in args.only]
        if wanted:
            with tempfile.TemporaryDirectory(prefix="cold-start-") as scratch:
                cases = {}
                for v, host in variants.items():
                    (Path(scratch) / v).mkdir()
                    cases[v] = own_cases(host, home, Path(scratch) / v, args.transcript,
                                         args.fresh)
                for name in wanted:
                    if args.fresh and name == "forget":
                        continue                      # a fresh home holds nothing to forget
                    if args.fresh and name != "hook stop":
                        measure(name, {v: (lambda c=c[name]: fresh_then(home, c))
                                       for v, c in cases.items()}, args.runs)
                    elif not args.fresh:
                        measure(name, {v: c[name] for v, c in cases.items()}, args.runs)
    print(f"# load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
