#!/usr/bin/env python3
"""Generate a synthetic corpus of Claude Code-like session transcripts, deterministically.

The corpus has exactly ``--items`` memory items (as :mod:`attention_cloud.ingest` counts them)
spread over many sessions of many projects, written as ``OUT/<project>/<sessionId>.jsonl``.
Sessions follow the shape of real work: a user goal, reads, edits and writes, test runs that
fail with a traceback or pass, grep results, conclusions, the occasional change of goal, plus
records that are noise by design (thinking blocks, acknowledgements, file echoes, snapshots).
Vocabulary varies: file names, error classes, numbers, modules, features.

    python scripts/bench/gen_corpus.py --items 100000 --out /tmp/corpus [--seed 1]

Same ``--seed`` and ``--items``: byte-identical corpus.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECTS = ("payments", "inventory", "search-api", "billing", "auth-gateway", "ledger", "notifier",
            "etl-pipeline", "mobile-bff", "scheduler", "catalog", "analytics")
MODULES = ("client", "retry", "models", "views", "handlers", "config", "cache", "queue", "worker",
           "schema", "serializers", "routes", "tasks", "storage", "auth", "limits", "metrics",
           "parser", "exporter", "webhooks", "reconcile", "pricing", "sessions", "migrations")
EXTENSIONS = ("py", "py", "py", "ts", "go", "sql", "yaml")
ERRORS = ("ValueError", "KeyError", "TypeError", "AttributeError", "TimeoutError", "IndexError",
          "ConnectionResetError", "IntegrityError", "ValidationError", "PermissionError",
          "ModuleNotFoundError", "AssertionError", "JSONDecodeError", "OperationalError",
          "ReadTimeout", "RuntimeError", "NotImplementedError", "ZeroDivisionError")
FEATURES = ("rate limiting", "exponential backoff", "pagination", "idempotency keys", "caching",
            "structured logging", "request tracing", "bulk export", "soft deletes", "retries",
            "input validation", "a health check", "graceful shutdown", "feature flags", "metrics")
CONDITIONS = ("the queue is empty", "the upstream times out", "two requests race", "the cache is cold",
              "the payload has unicode", "the token expires", "the batch exceeds {n} rows",
              "the config file is missing", "the clock skews by {n} ms", "a retry hits the limit")
ACKS = ("ok", "thanks", "yes", "continue", "great, thanks!", "sounds good")
VERBS = ("handles", "validates", "caches", "retries", "serialises", "rejects", "logs", "batches")

CWD_ROOT = "/home/dev"
START = datetime(2026, 1, 5, 8, 0, 0, tzinfo=timezone.utc)
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
        self.files = [self._file() for _ in range(rng.randint(4, 9))]

    # -- vocabulary ------------------------------------------------------------------------
    def _uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def _file(self) -> str:
        r = self.rng
        ext = r.choice(EXTENSIONS)
        module = r.choice(MODULES)
        if ext == "sql":
            return f"migrations/{r.randint(1, 99):04d}_{module}.sql"
        if ext == "yaml":
            return f"deploy/{module}.yaml"
        if r.random() < 0.3:
            return f"tests/test_{module}.{ext}"
        return f"src/{self.project.replace('-', '_')}/{module}.{ext}"

    def _condition(self) -> str:
        return self.rng.choice(CONDITIONS).format(n=self.rng.choice((50, 250, 1000, 5000, 20000)))

    # -- records ---------------------------------------------------------------------------
    def _record(self, kind: str, message: dict, extra: dict | None = None) -> None:
        self.when += timedelta(seconds=self.rng.randint(2, 90))
        uuid = self._uuid()
        record = {
            "parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
            "sessionId": self.session, "version": self.version, "gitBranch": "main", "type": kind,
            "message": message, "uuid": uuid,
            "timestamp": self.when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.rng.randint(0, 999):03d}Z",
        }
        if extra:
            record.update(extra)
        self.parent = uuid
        self.lines.append(DUMPS(record))

    def _user(self, content: object, extra: dict | None = None) -> None:
        self._record("user", {"role": "user", "content": content}, extra)

    def _assistant(self, block: dict) -> None:
        message = {"id": "msg_01" + f"{self.rng.getrandbits(88):022x}", "type": "message",
                   "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [block],
                   "stop_reason": None, "usage": {"input_tokens": 4, "output_tokens": self.rng.randint(5, 900)}}
        self._record("assistant", message, {"requestId": "req_011C" + f"{self.rng.getrandbits(72):018x}"})

    def _tool(self, name: str, tool_input: dict, result: str, is_error: bool = False) -> None:
        tool_id = "toolu_01" + f"{self.rng.getrandbits(88):022x}"
        self._assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": result}
        if is_error:
            block["is_error"] = True
        self._user([block])

    # -- episodes (each returns the number of items it produced) --------------------------
    def emit_goal(self) -> int:
        r = self.rng
        target = r.choice(self.files)
        templates = (
            f"Fix the {r.choice(ERRORS)} in {target} when {self._condition()}.",
            f"Add {r.choice(FEATURES)} to {target}; keep the public API unchanged.",
            f"Why does tests/test_{r.choice(MODULES)}.py fail with {r.choice(ERRORS)} since build {r.randint(100, 9999)}?",
            f"Refactor {target} so it {r.choice(VERBS)} at most {r.choice((3, 5, 10, 50, 100))} items per call.",
            f"The {self.project} service returns {r.choice((500, 502, 503, 429))} about {r.randint(1, 40)} times an hour; find out why and fix it.",
        )
        text = r.choice(templates)
        if r.random() < 0.2:
            text = f"<system-reminder>Context: {self.project} repo.</system-reminder>\n" + text
        self._user(text)
        return 1

    def emit_ack(self) -> int:
        self._user(self.rng.choice(ACKS))
        return 0

    def emit_thinking(self) -> int:
        self._assistant({"type": "thinking", "thinking": f"Consider {self.rng.choice(self.files)} first.",
                         "signature": "EqQBCkYIBxgC"})
        return 0

    def emit_narration(self) -> int:
        self._assistant({"type": "text", "text": f"Let me check {self.rng.choice(self.files)} first."})
        return 1

    def emit_read(self) -> int:
        path = self.rng.choice(self.files)
        body = "\n".join(f"{i:>6}→line {i} of {path}" for i in range(1, self.rng.randint(5, 30)))
        self._tool("Read", {"file_path": f"{self.cwd}/{path}"}, body)
        return 1

    def emit_edit(self) -> int:
        r = self.rng
        path = r.choice(self.files)
        old = f"limit = {r.randint(1, 500)}"
        new = f"limit = {r.randint(1, 500)}  # {r.choice(FEATURES)}"
        self._tool("Edit", {"file_path": f"{self.cwd}/{path}", "old_string": old, "new_string": new},
                   f"The file {self.cwd}/{path} has been updated. Here's the result of running `cat -n` "
                   f"on a snippet of the edited file:\n    {r.randint(1, 400)}→{new}")
        return 1

    def emit_write(self) -> int:
        path = self._file()
        self.files.append(path)
        content = f'"""{self.rng.choice(FEATURES).capitalize()} for {self.project}."""\n\nLIMIT = {self.rng.randint(1, 1000)}\n'
        self._tool("Write", {"file_path": f"{self.cwd}/{path}", "content": content},
                   f"File created successfully at: {self.cwd}/{path}")
        return 1

    def emit_test_failure(self) -> int:
        r = self.rng
        error = r.choice(ERRORS)
        test = r.choice([f for f in self.files if f.startswith("tests/")] or ["tests/test_smoke.py"])
        source = r.choice(self.files)
        output = (
            f"Exit code 1\n.F.\n=================================== FAILURES ===================================\n"
            f"Traceback (most recent call last):\n  File \"{self.cwd}/{source}\", line {r.randint(1, 400)}, in run\n"
            f"    value = payload[{r.randint(0, 9)}]\n{error}: {r.choice(('bad value', 'missing key', 'timed out after %d ms' % r.randint(100, 9000), 'connection reset'))}\n"
            f"FAILED {test}::test_{r.choice(MODULES)} - {error}\n{r.randint(1, 5)} failed, {r.randint(5, 300)} passed in {r.uniform(0.1, 30):.2f}s"
        )
        self._tool("Bash", {"command": f"python -m pytest {test} -q", "description": "Run tests"}, output, is_error=True)
        return 1

    def emit_test_pass(self) -> int:
        r = self.rng
        passed = r.randint(3, 900)
        self._tool("Bash", {"command": "python -m pytest -q", "description": "Run the test suite"},
                   "." * min(passed, 60) + f"\n{passed} passed in {r.uniform(0.1, 60):.2f}s")
        return 1

    def emit_grep(self) -> int:
        r = self.rng
        hits = "\n".join(f"{r.choice(self.files)}:{r.randint(1, 500)}:    {r.choice(MODULES)}_{r.choice(VERBS)}()"
                         for _ in range(r.randint(1, 6)))
        self._tool("Grep", {"pattern": f"{r.choice(MODULES)}_", "path": "src"}, hits)
        return 1

    def emit_conclusion(self) -> int:
        r = self.rng
        path = r.choice(self.files)
        text = (
            f"The {r.choice(ERRORS)} came from {path}: it {r.choice(VERBS)} before checking the limit, so "
            f"when {self._condition()} it fails. I changed it to use {r.choice(FEATURES)} with a cap of "
            f"{r.choice((3, 5, 8, 10, 30))} and a timeout of {r.randint(100, 5000)} ms. "
            f"All {r.randint(5, 900)} tests pass."
        )
        if r.random() < 0.15:
            text = "\n\n".join([text] + [f"Detail {i}: {r.choice(FEATURES)} in {r.choice(self.files)}." for i in range(r.randint(5, 40))])
        self._assistant({"type": "text", "text": text})
        return 1

    def emit_noise_record(self) -> int:
        self.lines.append(DUMPS({"type": "file-history-snapshot", "messageId": self._uuid(),
                                 "snapshot": {"trackedFileBackups": {}}, "isSnapshotUpdate": False}))
        return 0


# Steps of an episode after its goal, with weights; a session is episodes until its quota.
STEPS = (
    ("emit_read", 20), ("emit_edit", 16), ("emit_write", 4), ("emit_test_failure", 10),
    ("emit_test_pass", 8), ("emit_grep", 6), ("emit_conclusion", 18), ("emit_narration", 5),
    ("emit_thinking", 4), ("emit_ack", 2), ("emit_noise_record", 1),
)


def write_session(writer: SessionWriter, quota: int) -> int:
    """Emit episodes into ``writer`` until exactly ``quota`` items exist; return it."""
    names = [name for name, _ in STEPS]
    weights = [weight for _, weight in STEPS]
    items = writer.emit_goal()
    while items < quota:
        if writer.rng.random() < 0.08:
            items += writer.emit_goal()
            continue
        items += getattr(writer, writer.rng.choices(names, weights)[0])()
    return items


def generate(items: int, out: Path, seed: int = 1, mean_session_items: int = 100) -> CorpusStats:
    """Write a corpus of exactly ``items`` items under ``out``; return what was written."""
    rng = random.Random(seed)
    stats = CorpusStats()
    when = START
    while stats.items < items:
        project = rng.choice(PROJECTS)
        quota = min(items - stats.items, max(1, int(rng.triangular(10, mean_session_items * 2, mean_session_items))))
        writer = SessionWriter(rng, project, when, f"1.0.{rng.randint(60, 99)}")
        stats.items += write_session(writer, quota)
        when = writer.when + timedelta(minutes=rng.randint(5, 600))
        folder = out / project
        folder.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(writer.lines) + "\n").encode("utf-8")
        (folder / f"{writer.session}.jsonl").write_bytes(data)
        stats.files += 1
        stats.records += len(writer.lines)
        stats.bytes += len(data)
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, required=True, help="number of memory items to generate")
    parser.add_argument("--out", type=Path, required=True, help="output folder (created)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--session-items", type=int, default=100, help="mean items per session (default 100)")
    args = parser.parse_args(argv)
    if args.items < 1 or args.session_items < 1:
        parser.error("--items and --session-items must be positive")
    started = time.perf_counter()
    stats = generate(args.items, args.out, args.seed, args.session_items)
    elapsed = time.perf_counter() - started
    print(f"{stats.items} items, {stats.records} records, {stats.files} sessions, "
          f"{stats.bytes / 1e6:.1f} MB in {elapsed:.1f}s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
