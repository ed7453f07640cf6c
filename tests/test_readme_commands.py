"""The README and docs/ are executed: every shell command they show runs and does what they say.

Blocks read from README.md and docs/*.md:

* a ```sh block: each command (a line, with ``\\`` continuations) must exit 0, unless
  EXPECTED_EXIT below says the text shows it failing, and with what;
* a transcript, a ``` block whose lines start with ``$ ``: each ``$`` command runs, and the
  output printed under it must appear in what it prints (whitespace-folded, so a line the text
  wraps still matches). The transcripts of one document are one walkthrough, in one home.

Each ```sh block runs in a fresh temporary home (``ATC_HOME``), in a fresh working folder,
with ``atc`` and ``python`` resolved to .venv/bin and ``HOME`` a temporary folder whose
``~/.claude/projects/payments/`` holds the bundled sample sessions (so ``atc ingest
~/.claude/projects/...`` ingests real Claude Code sessions). A block whose commands read memory
before ingesting anything starts from a copy of a home with the bundled samples ingested and
curated (the home ``scripts/demo`` makes: ``atc ingest`` and ``atc curate`` with the default
embedder, then one hydrate). Commands whose outcome depends on no home or folder of a block are
listed in RUN_ONCE: they run once per run, and every place that shows one checks that run. Files
the docs define in a fenced block whose first line names them (``% fixes.pl``,
``# my_agent.py``) are written into the working folder, and ``chat.json`` is a small OpenAI-style
chat. Commands that cannot run in a test are listed in NOT_RUN with the reason; commands run in
a reduced form are listed in SUBSTITUTED with the reason; blocks run with the ``hash`` embedder
instead of the default are listed in HASH_EMBEDDER (by a command they hold) with the reason.
Every entry of those tables must name a command the docs still show.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
VENV_BIN = ROOT / ".venv" / "bin"
#: Runs a ```python example as a script, checking each line's result against its comment.
SHAPES = ROOT / "tests" / "readme_example_shapes.py"
PER_COMMAND_TIMEOUT = 120

#: Commands shown that a test cannot run, by command (comments dropped), with the reason.
NOT_RUN = {
    "scripts/test": "the whole test suite, which runs this test",
    "atc ingest sessions/ --watch --interval 5": "--watch runs until it is interrupted",
    "atc watch '~/.claude/projects/' --segment work":
        "a watcher runs until it is stopped (tests/test_watch.py drives it)",
    "atc watch '~/.claude/projects/' --format-output json":
        "a watcher runs until it is stopped (tests/test_watch.py drives it)",
    "atc serve --port 8765": "a server that runs until it is interrupted (tests/test_sharing.py "
                             "runs one on loopback)",
    "atc mount add alice http://alice.example:8765 --token-env ALICE_TOKEN":
        "needs Alice's server at that address (tests/test_sharing.py mounts one on loopback)",
}

#: Commands run in a reduced form: shown command -> (command run, reason).
_SEALED = "a hold-out seeds file of the user's own, outside the repository"
_TRIALS = "200 trials of every family take about four minutes; 1 runs every step (tables, JSON, plots)"
_ALL_FAMILIES_ONCE = ("atc bench attention --families all --trials 1 --plots bench-out/attention "
                      "--json bench-out/attention.json")
SUBSTITUTED = {
    "atc bench attention --families all --trials 200 --json out.json --plots out/":
        (_ALL_FAMILIES_ONCE, _TRIALS + "; the same run as docs/attention-bench.md's, whose output "
         "paths (in a folder not yet made) ask more of the command than out.json and out/"),
    "atc bench attention --families all --trials 200 --jobs 2":
        ("atc bench attention --families all --trials 1 --jobs 2", _TRIALS),
    "atc bench attention --families all --trials 200 --plots bench-out/attention "
    "--json bench-out/attention.json":
        (_ALL_FAMILIES_ONCE, _TRIALS),
    "atc bench attention --families B,G --policy-cmd 'python my_agent.py'":
        ("atc bench attention --families B,G --trials 3 --policy-cmd 'python my_agent.py'",
         "the default 200 trials per family are a long run; 3 exercise the JSON-lines protocol"),
    "atc bench attention --families B,G --trials 50 --policies voc,random --policy-cmd "
    "'python my_agent.py'":
        ("atc bench attention --families B,G --trials 3 --policies voc,random --policy-cmd "
         "'python my_agent.py'", "fewer trials, the same protocol"),
    "atc bench attention --sealed --seeds-file /secure/holdout.txt":
        ("atc bench attention --sealed --seeds-file \"$HOLDOUT\" --trials 1", _SEALED),
    "atc bench attention --sealed --seeds-file /secure/holdout-seeds.txt --json holdout.json":
        ("atc bench attention --sealed --seeds-file \"$HOLDOUT\" --trials 1 --json holdout.json",
         _SEALED),
}

#: Blocks run in a home configured for the ``hash`` embedder although the docs show the default
#: (MiniLM): a command of the block -> the reason. Only blocks about something other than the
#: embedder; curating with MiniLM costs seconds of CPU per block and proves nothing more there.
HASH_EMBEDDER = {
    "atc forget it_50a40759a4205f7e --dry-run":
        "erasure: what goes and what stays does not depend on the embedder",
    "atc principal add alice --owner":
        "sharing: grants, ceilings, audit and forget do not depend on the embedder",
    "atc ingest chat.json --format openai":
        "the examples: their ingest and curate of the samples with the default embedder are "
        "scripts/demo's (README.md:20), whose home the blocks that read memory hydrate and "
        "query with it; here each command must run (about 6 s of CPU less)",
}

#: Commands run once per run of this file, their outcome checked wherever the docs show them:
#: command -> why one run stands for all. Each depends on no block's home or working folder.
RUN_ONCE = {
    "scripts/demo":
        "it makes a home of its own ($ATC_DEMO_HOME): the same run builds the curated home the "
        "blocks that read memory start from (an ingest and a curate with the default embedder)",
    "atc bench attention --families all --trials 200 --jobs 2":
        "generated scenarios and no home: docs/attention.md and docs/attention-bench.md show "
        "the same run",

    "atc bench attention --families all --trials 200 --json out.json --plots out/":
        "generated scenarios and no home: the README and docs/attention-bench.md show the same "
        "run with other output paths, which nothing after it reads (one run, SUBSTITUTED)",
    "atc bench attention --families all --trials 200 --plots bench-out/attention "
    "--json bench-out/attention.json":
        "the docs/attention-bench.md showing of the README's run above",
}

#: Commands the text shows failing: command -> (exit status, text it prints), with the reason.
EXPECTED_EXIT = {
    "atc claim 'deploy A' --type live_system_state --mode production":
        (1, "BLOCKED", "the README says it is blocked without evidence"),
    "atc claim 'deploy A is compatible' --type compatibility --mode production":
        (1, "BLOCKED", "docs/attention.md shows it blocked"),
}

CHAT_JSON = [
    {"role": "user", "content": "What timeout should the payments client use?",
     "timestamp": "2026-01-20T10:00:00Z"},
    {"role": "assistant", "content": "We decided on a 10 s connect timeout and 30 s read timeout.",
     "timestamp": "2026-01-20T10:00:05Z"},
]


@dataclass
class Command:
    text: str               # as shown (continuations joined), comments kept for bash
    key: str                # the words, comments dropped: how the tables name it
    line: int
    expected: str = ""      # transcript output shown under it, whitespace-folded


@dataclass
class Block:
    doc: Path
    line: int
    transcript: bool
    commands: list[Command] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def _key(command: str) -> str:
    return " ".join(shlex.quote(word) for word in shlex.split(command, comments=True))


def _fold(text: str) -> str:
    return " ".join(text.split())


def _fences(doc: Path):
    """(language, first line number, body lines) of each fenced block of ``doc``."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^```(\w*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        yield match.group(1), start + 1, body


def _logical_lines(body: list[str], start: int):
    """Lines with backslash continuations joined: (line number, text)."""
    pending, at = "", start
    for offset, raw in enumerate(body):
        if not pending:
            at = start + offset
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        yield at, pending + raw
        pending = ""
    if pending:
        yield at, pending


def blocks() -> list[Block]:
    found = []
    for doc in DOCS:
        for lang, start, body in _fences(doc):
            if lang == "sh":
                block = Block(doc, start, transcript=False)
                for at, text in _logical_lines(body, start):
                    if text.strip() and not text.lstrip().startswith("#"):
                        block.commands.append(Command(text.strip(), _key(text), at))
                found.append(block)
            elif lang == "" and any(line.startswith("$ ") for line in body):
                block = Block(doc, start, transcript=True)
                for at, text in _logical_lines(body, start):
                    if text.startswith("$ "):
                        block.commands.append(Command(text[2:].strip(), _key(text[2:]), at))
                    elif block.commands:
                        shown = block.commands[-1]
                        shown.expected = _fold(shown.expected + " " + text)
                found.append(block)
    return found


def named_files() -> dict[str, str]:
    """Files the docs define: a fenced block whose first line is a comment naming the file."""
    files = {}
    for doc in DOCS:
        for _lang, _start, body in _fences(doc):
            if body:
                match = re.match(r"^(?:%|#)\s*([\w.-]+\.(?:pl|py|txt|json))\s*(?::.*)?$", body[0])
                if match:
                    files[match.group(1)] = "\n".join(body) + "\n"
    return files


BLOCKS = blocks()
READS_MEMORY = re.compile(r"^atc (hydrate|query|show|receipt|stats)\b")


def _needs_data(block: Block) -> bool:
    for command in block.commands:
        if command.key.startswith("atc ingest"):
            return False
        if READS_MEMORY.match(command.key):
            return True
    return False


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Shared pieces: bin folder, fake HOME with the sample sessions, hold-out seeds, named files."""
    base = tmp_path_factory.mktemp("readme")
    bindir = base / "bin"
    bindir.mkdir()
    for tool in ("atc", "python"):
        (bindir / tool).symlink_to(VENV_BIN / tool)
    user_home = base / "user"
    sys_path = [str(ROOT / "host")]
    samples = subprocess.run([str(VENV_BIN / "python"), "-c",
                              "from attention_cloud.paths import samples_dir; print(samples_dir())"],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys_path)}).stdout.strip()
    shutil.copytree(samples, user_home / ".claude" / "projects" / "payments",
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    holdout = base / "holdout-seeds.txt"
    dev = (ROOT / "scripts" / "bench" / "attention_dev_seeds.txt").read_text().splitlines()
    holdout.write_text("\n".join(line for line in dev if line.strip() and not line.startswith("#"))
                       + "\n")
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "HOME": str(user_home), "HOLDOUT": str(holdout), "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("ATC_HOME", None)
    return {"base": base, "env": env, "samples": samples, "files": named_files(), "ran": {},
            "demo_home": base / "demo-home"}


def _run_once(world, key: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The one run of a RUN_ONCE command (run now if it has not run yet; a run that timed out
    is kept as exit 124, so that no later showing runs it again). Runs are kept by the command
    run, so two shown commands SUBSTITUTED by one command share its run."""
    text = SUBSTITUTED[key][0] if key in SUBSTITUTED else key
    if text not in world["ran"]:
        env = {**env, "ATC_DEMO_HOME": str(world["demo_home"])}   # the curated home's source
        limit = _timeout(key)
        try:
            world["ran"][text] = subprocess.run(["bash", "-c", text], cwd=cwd, env=env,
                                                capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired as late:
            world["ran"][text] = subprocess.CompletedProcess(
                text, 124, _text(late.stdout), _text(late.stderr) + f"\ntimed out after {limit} s")
    return world["ran"][text]


def _text(output: bytes | str | None) -> str:
    return output.decode("utf-8", "replace") if isinstance(output, bytes) else output or ""


def _timeout(key: str) -> int:
    """A script runs several commands (scripts/demo: a set-up check, ingest, curate, hydrate)."""
    return 3 * PER_COMMAND_TIMEOUT if key.startswith("scripts/") else PER_COMMAND_TIMEOUT


@pytest.fixture(scope="module")
def curated_home(world):
    """A home with the bundled samples ingested and curated the way the README shows (default
    embedder): the home ``scripts/demo`` makes (its one run, shared with the README block that
    shows it); each block that reads memory works on a copy of it."""
    proc = _run_once(world, "scripts/demo", ROOT, world["env"])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    home = world["base"] / "curated-home"
    shutil.copytree(world["demo_home"], home, ignore=shutil.ignore_patterns("frame.json"))
    return home


def _workspace(world, name: str, data: Path | None,
               hash_embedder: bool = False) -> tuple[Path, dict[str, str]]:
    """A fresh working folder and environment; the home a copy of ``data`` when given, else new
    (configured for the ``hash`` embedder when ``hash_embedder``)."""
    root = world["base"] / re.sub(r"\W", "_", name)
    work = root / "work"
    work.mkdir(parents=True)
    home = root / "home"
    env = {**world["env"], "ATC_HOME": str(home), "ATC_DEMO_HOME": str(root / "demo-home")}
    if data is not None:  # a home holds no absolute path of its own, so a copy works as built
        shutil.copytree(data, home)
    elif hash_embedder:
        home.mkdir()
        (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    for fname, text in world["files"].items():
        (work / fname).write_text(text, encoding="utf-8")
    (work / "chat.json").write_text(json.dumps(CHAT_JSON), encoding="utf-8")
    return work, env


def _run(world, command: Command, block: Block, work: Path, env: dict[str, str]) -> str | None:
    """Run one command; return a failure description, or None when it did what the text says."""
    if command.key in NOT_RUN:
        return None
    text = SUBSTITUTED[command.key][0] if command.key in SUBSTITUTED else command.text
    cwd = ROOT if command.key.startswith("scripts/") else work
    if command.key in RUN_ONCE:
        proc = _run_once(world, command.key, cwd, env)
    else:
        proc = subprocess.run(["bash", "-c", text], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=_timeout(command.key))
    output = proc.stdout + proc.stderr
    where = f"{block.doc.relative_to(ROOT)}:{command.line}: {command.text}"
    want_rc, want_text = 0, ""
    if command.key in EXPECTED_EXIT:
        want_rc, want_text, _why = EXPECTED_EXIT[command.key]
    if proc.returncode != want_rc:
        return f"{where}\n  exit {proc.returncode}, expected {want_rc}\n{output[-2000:]}"
    if want_text and want_text not in output:
        return f"{where}\n  does not print {want_text!r}\n{output[-2000:]}"
    if command.expected and command.expected not in _fold(output):
        return f"{where}\n  the text shows:\n    {command.expected}\n  it printed:\n{output[-2000:]}"
    return None


SH_BLOCKS = [b for b in BLOCKS if not b.transcript]
TRANSCRIPT_DOCS = sorted({b.doc for b in BLOCKS if b.transcript})


@pytest.mark.parametrize("block", SH_BLOCKS, ids=[b.name for b in SH_BLOCKS])
def test_sh_block_runs(world, block, request):
    data = request.getfixturevalue("curated_home") if _needs_data(block) else None
    hashed = any(c.key in HASH_EMBEDDER for c in block.commands)
    work, env = _workspace(world, block.name, data, hashed)
    failures = [f for c in block.commands if (f := _run(world, c, block, work, env))]
    assert failures == [], "\n\n".join(failures)


@pytest.mark.parametrize("doc", TRANSCRIPT_DOCS, ids=[str(d.relative_to(ROOT)) for d in TRANSCRIPT_DOCS])
def test_transcript_runs_and_prints_what_it_shows(world, doc):
    walk = [b for b in BLOCKS if b.transcript and b.doc == doc]
    work, env = _workspace(world, f"transcript {doc.name}", None)
    # The numbers a transcript shows were printed by commands run one right after another; a
    # belief's age, and so what attending it is worth, grows with the time between them, which
    # on a loaded machine was enough to print 0.189 where the text shows 0.188. The attention
    # commands' clock stands still for the walkthrough instead.
    env["ATC_NOW"] = str(int(time.time()))
    failures = [f for b in walk for c in b.commands if (f := _run(world, c, b, work, env))]
    assert failures == [], "\n\n".join(failures)


PYTHON_BLOCKS = [(doc, start, body) for doc in DOCS for lang, start, body in _fences(doc)
                 if lang == "python"]


@pytest.mark.parametrize("doc, start, body", PYTHON_BLOCKS,
                         ids=[f"{d.relative_to(ROOT)}:{n}" for d, n, _ in PYTHON_BLOCKS])
def test_python_block_runs_as_written(world, curated_home, doc, start, body):
    """Each ```python block runs as it is shown, a script of its own: the home it opens
    (``~/.attention-cloud``) a copy of the curated samples, ``session.jsonl`` a Claude Code
    session in the working folder, the files the docs name (``fixes.pl``) beside it. A block
    that used a name it never set (a ``home`` from the prose around it) stopped at that line
    for whoever pasted it. What a line comes back with has the shape its comment shows
    (``# IngestReport(new=…, skipped=[…])``, ``# dict: goal, plane``):
    tests/readme_example_shapes.py says how each form is read."""
    name = f"python {doc.name}:{start}"
    work, env = _workspace(world, name, None)
    user_home = work.parent / "user"
    shutil.copytree(curated_home, user_home / ".attention-cloud")
    env = {**env, "HOME": str(user_home)}
    env.pop("ATC_HOME")
    shutil.copy(Path(world["samples"]) / "2026-01-12-processor-retries.jsonl",
                work / "session.jsonl")
    (work / "example.py").write_text("\n".join(body) + "\n", encoding="utf-8")
    proc = subprocess.run([str(VENV_BIN / "python"), str(SHAPES), "example.py"], cwd=work,
                          env=env, capture_output=True, text=True, timeout=3 * PER_COMMAND_TIMEOUT)
    assert proc.returncode == 0, f"{doc.relative_to(ROOT)}:{start}\n{proc.stderr[-3000:]}"


def test_the_docs_show_commands_at_all():
    keys = [c.key for b in BLOCKS for c in b.commands]
    assert any(k.startswith("atc hydrate") for k in keys)
    assert any(k.startswith("atc inspect") for k in keys)
    assert any(b.transcript for b in BLOCKS)


def test_every_listed_exception_names_a_command_still_shown():
    shown = {c.key for b in BLOCKS for c in b.commands}
    listed = [*NOT_RUN, *SUBSTITUTED, *EXPECTED_EXIT, *HASH_EMBEDDER, *RUN_ONCE]
    stale = [k for k in listed if k not in shown]
    assert stale == [], f"listed in the test but no longer in the docs: {stale}"
