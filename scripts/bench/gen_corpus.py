#!/usr/bin/env python3
"""Generate a synthetic corpus of Claude Code-like session transcripts, deterministically.

The corpus has exactly ``--items`` memory items (as :mod:`attention_cloud.ingest` counts them)
spread over many sessions of many projects, written as ``OUT/<project>/<sessionId>.jsonl``.
Sessions follow the shape of real work: a user goal, reads, edits and writes, test runs that
fail with a traceback or pass, grep results, conclusions, the occasional change of goal, plus
records that are noise by design (thinking blocks, acknowledgements, file echoes, snapshots).
Vocabulary varies: file names, error classes, numbers, modules, features.

    python scripts/bench/gen_corpus.py --items 100000 --out /tmp/corpus [--seed 1] [--workers N]

Same ``--seed`` and ``--items``: byte-identical corpus, whatever ``--workers``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

PROJECTS = (
    "payments",
    "inventory",
    "search-api",
    "billing",
    "auth-gateway",
    "ledger",
    "notifier",
    "etl-pipeline",
    "mobile-bff",
    "scheduler",
    "catalog",
    "analytics",
)
MODULES = (
    "client",
    "retry",
    "models",
    "views",
    "handlers",
    "config",
    "cache",
    "queue",
    "worker",
    "schema",
    "serializers",
    "routes",
    "tasks",
    "storage",
    "auth",
    "limits",
    "metrics",
    "parser",
    "exporter",
    "webhooks",
    "reconcile",
    "pricing",
    "sessions",
    "migrations",
)
EXTENSIONS = ("py", "py", "py", "ts", "go", "sql", "yaml")
ERRORS = (
    "ValueError",
    "KeyError",
    "TypeError",
    "AttributeError",
    "TimeoutError",
    "IndexError",
    "ConnectionResetError",
    "IntegrityError",
    "ValidationError",
    "PermissionError",
    "ModuleNotFoundError",
    "AssertionError",
    "JSONDecodeError",
    "OperationalError",
    "ReadTimeout",
    "RuntimeError",
    "NotImplementedError",
    "ZeroDivisionError",
)
FEATURES = (
    "rate limiting",
    "exponential backoff",
    "pagination",
    "idempotency keys",
    "caching",
    "structured logging",
    "request tracing",
    "bulk export",
    "soft deletes",
    "retries",
    "input validation",
    "a health check",
    "graceful shutdown",
    "feature flags",
    "metrics",
)
CONDITIONS = (
    "the queue is empty",
    "the upstream times out",
    "two requests race",
    "the cache is cold",
    "the payload has unicode",
    "the token expires",
    "the batch exceeds {n} rows",
    "the config file is missing",
    "the clock skews by {n} ms",
    "a retry hits the limit",
)
ACKS = ("ok", "thanks", "yes", "continue", "great, thanks!", "sounds good")
VERBS = ("handles", "validates", "caches", "retries", "serialises", "rejects", "logs", "batches")

CWD_ROOT = "/home/dev"
START = datetime(2026, 1, 5, 8, 0, 0)  # naive UTC: isoformat() then gets no "+00:00"
DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass
class CorpusStats:
    """What a generation run wrote."""

    files: int = 0
    records: int = 0
    items: int = 0
    bytes: int = 0


class SessionWriter:
    """Emits the records of one session; every ``emit_*`` returns the items it produced."""

    def __init__(self, rng: random.Random, project: str, when: datetime, version: str) -> None:
        self.rng = rng
        self.project = project
        self.cwd = f"{CWD_ROOT}/{project}"
        self.session = self._uuid()
        self.when = when
        self.version = version
        self.parent: str | None = None
        self.lines: list[str] = []
        self.files = [self._file() for _ in range(self._int(4, 9))]

    # -- vocabulary ------------------------------------------------------------------------
    # random.randint and random.choice cost several Python calls each; these cost one.
    def _int(self, low: int, high: int) -> int:
        return low + int(self.rng.random() * (high - low + 1))

    def _pick(self, options):
        return options[int(self.rng.random() * len(options))]

    def _seconds(self, most: float) -> str:
        return f"{0.1 + self.rng.random() * most:.2f}"

    def _uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def _file(self) -> str:
        ext = self._pick(EXTENSIONS)
        module = self._pick(MODULES)
        if ext == "sql":
            return f"migrations/{self._int(1, 99):04d}_{module}.sql"
        if ext == "yaml":
            return f"deploy/{module}.yaml"
        if self.rng.random() < 0.3:
            return f"tests/test_{module}.{ext}"
        return f"src/{self.project.replace('-', '_')}/{module}.{ext}"

    def _condition(self) -> str:
        return self._pick(CONDITIONS).format(n=self._pick((50, 250, 1000, 5000, 20000)))

    # -- records ---------------------------------------------------------------------------
    def _record(self, kind: str, message: dict, extra: dict | None = None) -> None:
        self.when += timedelta(seconds=self._int(2, 90))
        uuid = self._uuid()
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": self.when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self._int(0, 999):03d}Z",
        }
        if extra:
            record.update(extra)
        self.parent = uuid
        self.lines.append(DUMPS(record))

    def _user(self, content: object, extra: dict | None = None) -> None:
        self._record("user", {"role": "user", "content": content}, extra)

    def _assistant(self, block: dict) -> None:
        message = {
            "id": "msg_01" + f"{self.rng.getrandbits(88):022x}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [block],
        }
        self._record("assistant", message)

    def _tool(self, name: str, tool_input: dict, result: str, is_error: bool = False) -> None:
        tool_id = "toolu_01" + f"{self.rng.getrandbits(88):022x}"
        self._assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": result}
        if is_error:
            block["is_error"] = True
        self._user([block])

    # -- episodes (each returns the number of items it produced) --------------------------
    def emit_goal(self) -> int:
        target = self._pick(self.files)
        error, module, feature = self._pick(ERRORS), self._pick(MODULES), self._pick(FEATURES)
        status, rate = self._pick((500, 502, 503, 429)), self._int(1, 40)
        templates = (
            f"Fix the {error} in {target} when {self._condition()}.",
            f"Add {feature} to {target}; keep the public API unchanged.",
            f"Why does tests/test_{module}.py fail with {error} since build {self._int(100, 999)}?",
            f"Refactor {target} so it {self._pick(VERBS)} at most "
            f"{self._pick((3, 5, 10, 50, 100))} items per call.",
            f"The {self.project} service returns {status} about {rate} times an hour; "
            "find out why and fix it.",
        )
        text = self._pick(templates)
        if self.rng.random() < 0.2:
            text = f"<system-reminder>Context: {self.project} repo.</system-reminder>\n" + text
        self._user(text)
        return 1

    def emit_ack(self) -> int:
        self._user(self._pick(ACKS))
        return 0

    def emit_thinking(self) -> int:
        self._assistant(
            {
                "type": "thinking",
                "thinking": f"Consider {self._pick(self.files)} first.",
                "signature": "EqQBCkYIBxgC",
            }
        )
        return 0

    def emit_narration(self) -> int:
        self._assistant({"type": "text", "text": f"Let me check {self._pick(self.files)} first."})
        return 1

    def emit_read(self) -> int:
        path = self._pick(self.files)
        body = "\n".join(f"{i:>6}→line {i} of {path}" for i in range(1, self._int(5, 30)))
        self._tool("Read", {"file_path": f"{self.cwd}/{path}"}, body)
        return 1

    def emit_edit(self) -> int:
        path = self._pick(self.files)
        old = f"limit = {self._int(1, 500)}"
        new = f"limit = {self._int(1, 500)}  # {self._pick(FEATURES)}"
        self._tool(
            "Edit",
            {"file_path": f"{self.cwd}/{path}", "old_string": old, "new_string": new},
            f"The file {self.cwd}/{path} has been updated. Here's the result of running `cat -n` "
            f"on a snippet of the edited file:\n    {self._int(1, 400)}→{new}",
        )
        return 1

    def emit_write(self) -> int:
        path = self._file()
        self.files.append(path)
        docstring = f'"""{self._pick(FEATURES).capitalize()} for {self.project}."""'
        content = f"{docstring}\n\nLIMIT = {self._int(1, 1000)}\n"
        self._tool(
            "Write",
            {"file_path": f"{self.cwd}/{path}", "content": content},
            f"File created successfully at: {self.cwd}/{path}",
        )
        return 1

    def emit_test_failure(self) -> int:
        error = self._pick(ERRORS)
        test = self._pick(
            [f for f in self.files if f.startswith("tests/")] or ["tests/test_smoke.py"]
        )
        source = self._pick(self.files)
        reason = self._pick(
            ("bad value", "missing key", "connection reset", "timed out after {} ms")
        )
        output = "\n".join(
            (
                "Exit code 1",
                ".F.",
                "=" * 35 + " FAILURES " + "=" * 35,
                "Traceback (most recent call last):",
                f'  File "{self.cwd}/{source}", line {self._int(1, 400)}, in run',
                f"    value = payload[{self._int(0, 9)}]",
                f"{error}: {reason.format(self._int(100, 9000))}",
                f"FAILED {test}::test_{self._pick(MODULES)} - {error}",
                f"{self._int(1, 5)} failed, {self._int(5, 300)} passed in {self._seconds(30)}s",
            )
        )
        command = {"command": f"python -m pytest {test} -q", "description": "Run tests"}
        self._tool("Bash", command, output, is_error=True)
        return 1

    def emit_test_pass(self) -> int:
        passed = self._int(3, 900)
        command = {"command": "python -m pytest -q", "description": "Run the test suite"}
        output = "." * min(passed, 60) + f"\n{passed} passed in {self._seconds(60)}s"
        self._tool("Bash", command, output)
        return 1

    def emit_grep(self) -> int:
        hits = "\n".join(
            f"{self._pick(self.files)}:{self._int(1, 500)}:    "
            f"{self._pick(MODULES)}_{self._pick(VERBS)}()"
            for _ in range(self._int(1, 6))
        )
        self._tool("Grep", {"pattern": f"{self._pick(MODULES)}_", "path": "src"}, hits)
        return 1

    def emit_conclusion(self) -> int:
        path = self._pick(self.files)
        text = (
            f"The {self._pick(ERRORS)} came from {path}: it {self._pick(VERBS)} before checking "
            f"the limit, so when {self._condition()} it fails. I changed it to use "
            f"{self._pick(FEATURES)} with a cap of {self._pick((3, 5, 8, 10, 30))} and a timeout "
            f"of {self._int(100, 5000)} ms. All {self._int(5, 900)} tests pass."
        )
        if self.rng.random() < 0.15:  # now and then a long one, truncated head and tail
            details = (
                f"Detail {i}: {self._pick(FEATURES)} in {self._pick(self.files)}."
                for i in range(self._int(5, 40))
            )
            text = "\n\n".join((text, *details))
        self._assistant({"type": "text", "text": text})
        return 1

    def emit_noise_record(self) -> int:
        self.lines.append(
            DUMPS(
                {
                    "type": "file-history-snapshot",
                    "messageId": self._uuid(),
                    "snapshot": {"trackedFileBackups": {}},
                    "isSnapshotUpdate": False,
                }
            )
        )
        return 0


# Steps of an episode after its goal, with weights; a session is episodes until its quota.
STEPS = (
    ("emit_read", 20),
    ("emit_edit", 16),
    ("emit_write", 4),
    ("emit_test_failure", 10),
    ("emit_test_pass", 8),
    ("emit_grep", 6),
    ("emit_conclusion", 18),
    ("emit_narration", 5),
    ("emit_thinking", 4),
    ("emit_ack", 2),
    ("emit_noise_record", 1),
)


def write_session(writer: SessionWriter, quota: int) -> int:
    """Emit episodes into ``writer`` until exactly ``quota`` items exist; return it."""
    names = [name for name, _ in STEPS]
    cumulative = list(itertools.accumulate(weight for _, weight in STEPS))
    items = writer.emit_goal()
    while items < quota:
        if writer.rng.random() < 0.08:
            items += writer.emit_goal()
            continue
        items += getattr(writer, writer.rng.choices(names, cum_weights=cumulative)[0])()
    return items


@dataclass(frozen=True)
class SessionPlan:
    """One session to write: its index (which seeds its content), project, items, start."""

    index: int
    project: str
    items: int
    start: datetime


def plan_sessions(items: int, seed: int, mean_session_items: int) -> list[SessionPlan]:
    """Split ``items`` into sessions; the plan depends only on the arguments."""
    rng = random.Random(seed)
    plans: list[SessionPlan] = []
    total = 0
    when = START
    while total < items:
        quota = min(
            items - total,
            max(1, int(rng.triangular(10, mean_session_items * 2, mean_session_items))),
        )
        plans.append(SessionPlan(len(plans), rng.choice(PROJECTS), quota, when))
        total += quota
        when += timedelta(minutes=rng.randint(30, 900))
    return plans


def write_sessions(out: Path, seed: int, plans: list[SessionPlan]) -> CorpusStats:
    """Write the planned sessions; each session's content comes from its own seeded RNG, so
    the corpus is the same however the sessions are shared among processes."""
    stats = CorpusStats()
    for plan in plans:
        rng = random.Random(seed * 1_000_003 + plan.index)
        writer = SessionWriter(rng, plan.project, plan.start, f"1.0.{rng.randint(60, 99)}")
        stats.items += write_session(writer, plan.items)
        folder = out / plan.project
        folder.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(writer.lines) + "\n").encode("utf-8")
        (folder / f"{writer.session}.jsonl").write_bytes(data)
        stats.files += 1
        stats.records += len(writer.lines)
        stats.bytes += len(data)
    return stats


def generate(
    items: int, out: Path, seed: int = 1, mean_session_items: int = 100, workers: int = 1
) -> CorpusStats:
    """Write a corpus of exactly ``items`` items under ``out``; return what was written.

    ``workers`` processes share the sessions; the output does not depend on it.
    """
    plans = plan_sessions(items, seed, mean_session_items)
    out.mkdir(parents=True, exist_ok=True)
    if workers <= 1:
        return write_sessions(out, seed, plans)
    total = CorpusStats()
    with ProcessPoolExecutor(workers) as pool:
        parts = [plans[i::workers] for i in range(workers)]
        for part in pool.map(write_sessions, [out] * workers, [seed] * workers, parts):
            total.files += part.files
            total.records += part.records
            total.items += part.items
            total.bytes += part.bytes
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--items", type=int, required=True, help="number of memory items to generate"
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--session-items", type=int, default=100, help="mean items per session (default 100)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes writing sessions (default: all CPUs; the output is the same)",
    )
    args = parser.parse_args(argv)
    if args.items < 1 or args.session_items < 1:
        parser.error("--items and --session-items must be positive")
    started = time.perf_counter()
    stats = generate(args.items, args.out, args.seed, args.session_items, args.workers)
    elapsed = time.perf_counter() - started
    print(
        f"{stats.items} items, {stats.records} records, {stats.files} sessions, "
        f"{stats.bytes / 1e6:.1f} MB in {elapsed:.1f}s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
