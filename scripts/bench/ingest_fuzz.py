"""Ingest fuzz through the real command line: damaged transcripts of every format and odd
command lines, each run as an `atc` subprocess against a real memory home.

For each format a small valid sample (its fixture in tests/fixtures/ingest) is mutated with
a seeded generator: cut at a random byte, bytes flipped or inserted, invalid UTF-8, NUL
bytes, a byte order mark, CRLF or CR-only line ends, a line of ``--huge-mb`` MB, JSON nested
100k deep, huge numbers, duplicate keys, a lone surrogate ``\\ud800``, wrong types for known
fields (``"content": 5``, ``"timestamp": []``), Prolog syntax, quotes and RTL, zero-width and
combining characters in every text field, and speakers named ``'``, ``\\``, ``%`` or ``:-``.
Each mutant is ingested twice, into a new home and into a copy of a home that already holds
items, and every outcome must be one of:

- **ingested**: exit 0, no traceback, and the home still answers: ``atc query``, ``atc show``
  of an item, ``atc hydrate`` (then ``atc curate`` and ``atc hydrate`` again, in the home
  that held items) all exit 0;
- **refused**: a non-zero exit, stderr one line that names the file, no traceback, and the
  home byte for byte as it was (every file hashed before and after; a new home not made).

The re-encoded and mixed mutants (below) expect more: the sample in UTF-16 with its mark,
with CRLF and a DOS end-of-file mark, or with a NUL escaped in its texts is the same
transcript and must be ingested; none of them may be refused as "cannot detect format".

Anything else is a defect, counted by kind. The command-line half (``--cli``) runs every
subcommand with an unknown option, an option missing its value, a number option given a
word, and each path argument as a path that does not exist, a folder, a FIFO and ``-``:
each must exit non-zero with one line on stderr (or succeed, for ``-`` where stdin is
documented), never hang, never trace back, and leave the home unchanged.

    python scripts/bench/ingest_fuzz.py [--seed 1] [--per-format 12] [--formats all]
        [--huge-mb 50] [--no-encodings] [--cli] [--no-ingest] [--keep DIR] [--json PATH]

Besides the drawn mutants, each format's sample is always tried re-encoded and mixed
(:func:`_encoding_mutations`: UTF-16 with and without its mark, Latin-1, CRLF with a DOS
end-of-file mark, a NUL escaped in its texts, other formats' records among its lines);
``--no-encodings`` leaves them out.

Prints a table of outcomes per format and each defect found (the mutant is kept under
``--keep DIR`` when given, to replay it).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ingest"
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "tests"))

from test_ingest_formats import ONE_OF_EACH  # noqa: E402  (one valid sample per format)

ATC = [sys.executable, "-m", "attention_cloud.cli"]
TIMEOUT_S = 240

#: Text that must stay data wherever it lands: Prolog clauses and goals, quotes of every
#: kind, escapes, RTL, zero-width and combining characters.
ODD_TEXTS = (
    "foo :- halt. ') , shell('rm -rf ~'), ('",
    '"quoted" \\\\ 0\'c \\x41\\ %comment',
    "item(X) :- assertz(pwned), !. end_of_file.",
    "\u202eevil\u202c \u200b\u200d\ufeff zero\u200bwidth",
    "e\u0301\u0301\u0301 combining \u0338 \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "{{'$VAR'(1)}} [H|T] \"\\u0000\" 0'\\\\ `back`",
)
#: One record of each of a few line-oriented formats, mixed into another format's file.
MIXED_RECORDS = (
    ("openai", {"role": "user", "content": "the retry budget is four"}),
    ("sharegpt", {"conversations": [{"from": "human", "value": "raise the retry budget"}]}),
    ("claude-code", {"type": "user", "sessionId": "s1", "uuid": "u1", "message": {
        "role": "user", "content": "lower the retry budget"}}),
)
ODD_NAMES = ("'", "\\", "%", ":-", "'\\'", "\u202eX")
WRONG_VALUES = (5, [], {}, None, True, -1e308, "", [1, [2]], {"text": 7})
#: Keys whose values the readers interpret: a wrong type there is what a damaged logger writes.
KNOWN_KEYS = frozenset((
    "content", "text", "value", "message", "messages", "timestamp", "created_at", "create_time",
    "role", "type", "from", "conversations", "parts", "name", "sender", "speaker", "date",
    "date_unixtime", "ts", "user", "author", "history", "mapping", "chat_messages", "sender_name",
    "timestamp_ms", "kind", "source", "action", "observation", "args", "tool_calls", "payload",
    "sessionId", "id", "uuid", "dia_id", "session_1", "haystack_sessions", "is_user", "mes",
    "send_date", "startTime", "toolCalls", "input", "output", "data", "kwargs", "title",
))
NAME_KEYS = frozenset(("name", "speaker", "sender", "from", "author", "sender_name",
                       "display_name", "full_name", "username", "speaker_a", "speaker_b",
                       "user_name", "displayName", "real_name"))


@dataclass
class Case:
    """One mutant: the format it was made from, how, and the bytes to ingest."""

    fmt: str
    mutation: str
    relative: str          # the sample's path under FIXTURES (its name steers detection)
    data: bytes
    #: what the mutant must get beyond the contract: "read" (ingested: the same transcript,
    #: saved otherwise) or "named" (ingested, or refused for its real problem: never "cannot
    #: detect format", which its sample was not); "" for none
    expect: str = ""


@dataclass
class Tally:
    """Outcomes per format and the defects found."""

    outcomes: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    defects: list[dict] = field(default_factory=list)

    def add(self, fmt: str, outcome: str, detail: dict | None = None) -> None:
        self.outcomes[fmt][outcome] += 1
        if detail is not None:
            self.defects.append({"format": fmt, "outcome": outcome, **detail})


# -- mutations ---------------------------------------------------------------------------------

def _load_json(text: str) -> tuple[str, object] | None:
    """("json", document), ("jsonl", records) or None for a text format."""
    try:
        return "json", json.loads(text)
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        return "jsonl", [json.loads(line) for line in lines]
    except ValueError:
        return None


def _dump_json(kind: str, document: object) -> bytes:
    """The document as the sample's kind writes it; a lone surrogate as its JSON escape
    (``\\ud800``), as a JSON writer with ASCII output writes one."""
    if kind == "jsonl":
        text = "\n".join(json.dumps(record, ensure_ascii=False) for record in document) + "\n"
    else:
        text = json.dumps(document, ensure_ascii=False, indent=1)
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text).encode()


def _places(node: object, path: tuple = ()) -> Iterator[tuple[tuple, object, object]]:
    """(path, key, value) of every value under an object key, depth first, without recursion."""
    stack = [(node, path)]
    while stack:
        current, where = stack.pop()
        items = (current.items() if isinstance(current, dict)
                 else enumerate(current) if isinstance(current, list) else ())
        for key, value in items:
            yield (*where, key), key, value
            stack.append((value, (*where, key)))


def _set(document: object, path: tuple, value: object) -> None:
    node = document
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _json_mutations(kind: str, document: object, rng: random.Random,
                    huge: bytes) -> Iterator[tuple[str, bytes]]:
    """Structure-aware mutants of a JSON or JSONL sample."""
    places = list(_places(document))
    prose = [p for p, _, v in places if isinstance(v, str) and " " in v]
    names = [p for p, k, v in places if k in NAME_KEYS and isinstance(v, str)]
    known = [p for p, k, _ in places if k in KNOWN_KEYS]

    def changed(edit: Callable[[object], None]) -> bytes:
        copy = json.loads(json.dumps(document))
        edit(copy)
        return _dump_json(kind, copy)

    def every(paths: list[tuple], value_of: Callable[[int], object]) -> Callable:
        return lambda doc: [_set(doc, p, value_of(i)) for i, p in enumerate(paths)]

    if prose:
        yield "odd text in every text field", changed(every(
            prose, lambda i: f"{ODD_TEXTS[i % len(ODD_TEXTS)]} and the retry budget"))
        yield "lone surrogate \\ud800", changed(every(
            prose[:3], lambda i: "before \ud800 after \udfff"))
        yield "huge line in a text field", changed(every(
            prose[:1], lambda i: huge.decode("ascii")))
    if names:
        yield "odd speaker names", changed(every(
            names, lambda i: ODD_NAMES[i % len(ODD_NAMES)]))
    for _ in range(3):
        if known:
            where = rng.choice(known)
            value = rng.choice(WRONG_VALUES)
            yield f"wrong type {where[-1]}={json.dumps(value)}", changed(
                lambda doc, w=where, v=value: _set(doc, w, v))
    numbers = [p for p, _, v in places if isinstance(v, (int, float)) and not isinstance(v, bool)]
    text = _dump_json(kind, document).decode("utf-8")
    if numbers:
        # a number JSON can write but no float holds, and one of 5000 digits
        yield "huge numbers", re.sub(r"(?<=: )-?\d+(\.\d+)?(?=[,\n}])",
                                     lambda m: rng.choice(["1e400", "9" * 5000, "-1e-400"]),
                                     text, count=8).encode()
    dup = re.sub(r'\{\s*"(\w+)": ', lambda m: m.group(0).replace(
        f'"{m.group(1)}": ', f'"{m.group(1)}": 7, "{m.group(1)}": ', 1), text, count=6)
    yield "duplicate keys", dup.encode()
    deep = "[" * 100_000 + "]" * 100_000
    if kind == "json":
        yield "nested 100k deep (document)", deep.encode()
        if known:
            yield "nested 100k deep (a field)", text.replace(
                f'"{known[0][-1]}": ', f'"{known[0][-1]}": {deep}, "_{known[0][-1]}": ', 1).encode()
    else:
        lines = text.splitlines()
        lines.insert(len(lines) // 2, '{"type": "user", "message": ' + deep + "}")
        yield "nested 100k deep (one line)", "\n".join(lines).encode()


_SPEAKER = re.compile(r"^((?:\W*\[?[\d/:,. apmAPM-]*\]?\W*)?)([A-Z][\w]+)(:\s)", re.M)


def _text_mutations(text: str, rng: random.Random, huge: bytes) -> Iterator[tuple[str, bytes]]:
    """Line-aware mutants of a text transcript (markdown, chat exports, notes)."""
    lines = text.splitlines()
    prose = [i for i, line in enumerate(lines) if len(line.split()) > 3]
    odd = list(lines)
    for n, i in enumerate(prose):
        odd[i] = f"{lines[i]} {ODD_TEXTS[n % len(ODD_TEXTS)]}"
    yield "odd text in every text line", ("\n".join(odd) + "\n").encode()
    names = iter(ODD_NAMES * 100)
    yield "odd speaker names", _SPEAKER.sub(lambda m: m.group(1) + next(names) + m.group(3),
                                            text).encode()
    if prose:
        big = list(lines)
        big[prose[0]] = lines[prose[0]] + " " + huge.decode("ascii")
        yield "huge line", ("\n".join(big) + "\n").encode()
    # a surrogate encoded as UTF-8 (CESU-8), which strict UTF-8 refuses
    yield "lone surrogate bytes", text.encode().replace(b" ", b" \xed\xa0\x80 ", 3)


def _byte_mutations(data: bytes, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """Format-blind mutants: cuts, flips, inserts, bad UTF-8, NULs, BOMs, line ends."""
    for _ in range(2):
        cut = rng.randrange(1, max(2, len(data)))
        yield f"truncated at byte {cut}", data[:cut]
    flipped = bytearray(data)
    for _ in range(max(1, len(data) // 200)):
        at = rng.randrange(len(flipped))
        flipped[at] ^= 1 << rng.randrange(8)
    yield "bytes flipped", bytes(flipped)
    grown = bytearray(data)
    for _ in range(max(1, len(data) // 300)):
        grown[rng.randrange(len(grown)):0] = bytes(rng.randrange(256) for _ in range(3))
    yield "bytes inserted", bytes(grown)
    at = rng.randrange(len(data))
    yield "invalid UTF-8", data[:at] + b"\xff\xfe\xc3(\x80" + data[at:]
    yield "NUL bytes", data.replace(b" ", b" \x00", 5)
    yield "UTF-8 BOM", b"\xef\xbb\xbf" + data
    yield "UTF-16 BOM", b"\xff\xfe" + data
    yield "CRLF line ends", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    yield "CR-only line ends", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
    yield "empty", b""
    yield "NUL only", b"\x00" * 64


#: Encoding mutants that hold the same transcript, saved as another tool saves it: read.
READ_AS_SAVED = ("UTF-16 LE with its mark", "CRLF line ends and a DOS end-of-file mark",
                 "NUL inside text")


def _encoding_mutations(data: bytes, fmt: str) -> Iterator[tuple[str, bytes]]:
    """The sample as other tools save it: re-encoded whole (UTF-16 as Windows exports write
    it, Latin-1), ended as DOS did (CRLF and a Ctrl-Z end-of-file mark), a NUL escaped inside
    its texts, and, for JSON Lines, records of other formats mixed among its own. Each must be
    read right or refused in one line naming the problem (never "cannot detect format" for
    JSON refused for another reason)."""
    text = data.decode("utf-8", "replace")
    yield "UTF-16 LE with its mark (a Windows export)", b"\xff\xfe" + text.encode("utf-16-le")
    yield "UTF-16 BE without a mark", text.encode("utf-16-be")
    yield "Latin-1 (accented words)", text.replace(" the ", " th\u00e9 ", 3).replace(
        " a ", " \u00e0 ", 2).encode("latin-1", "replace")
    lf = data.replace(b"\r\n", b"\n")
    yield "CRLF line ends and a DOS end-of-file mark", lf.replace(b"\n", b"\r\n") + b"\x1a"
    parsed = _load_json(text)
    if parsed is None:
        return
    kind, document = parsed
    escaped = _dump_json(kind, document).replace(b" the ", b" the \\u0000 ", 5)
    yield "NUL inside text (\\u0000)", escaped
    others = [json.dumps(record) for name, record in MIXED_RECORDS if name != fmt]
    if kind == "jsonl":
        lines = lf.decode("utf-8", "replace").splitlines()
        middle = len(lines) // 2
        mixed = lines[:middle] + others + lines[middle:]
        yield "records of other formats mixed in", ("\n".join(mixed) + "\n").encode()
    else:
        yield "another format's record after the document", lf.rstrip() + b"\n" + \
            others[0].encode() + b"\n"


def cases(fmt: str, relative: str, seed: int, per_format: int, huge_mb: float,
          encodings: bool = True) -> list[Case]:
    """The mutants of one format's sample: seeded, so a run can be replayed exactly."""
    rng = random.Random(f"{seed}:{fmt}")
    data = (FIXTURES / relative).read_bytes()
    huge = b"x" * int(huge_mb * 1024 * 1024)
    text = data.decode("utf-8", "replace")
    parsed = _load_json(text)
    made = list(_byte_mutations(data, rng))
    made += (list(_json_mutations(*parsed, rng, huge)) if parsed is not None
             else list(_text_mutations(text, rng, huge)))
    # the huge one last and always kept: it is the costly one
    huge_cases = [m for m in made if "huge line" in m[0]]
    others = [m for m in made if "huge line" not in m[0]]
    rng.shuffle(others)
    # the encodings always, outside the draw (a seed replays the mutants it drew before)
    encoded = list(_encoding_mutations(data, fmt)) if encodings else []
    kept = others[:per_format] + encoded + (huge_cases if huge_mb > 0 else [])
    return [Case(fmt, how, relative, body, _expectation(how) if (how, body) in encoded else "")
            for how, body in kept]


def _expectation(mutation: str) -> str:
    return "read" if mutation.startswith(READ_AS_SAVED) else "named"


# -- running atc ------------------------------------------------------------------------------

def atc(*args: str, home: Path, stdin: bytes | None = None,
        timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """One `atc` subprocess; a hang is a TimeoutExpired the caller counts."""
    env = {**os.environ, "ATC_HOME": str(home), "PYTHONPATH": str(ROOT / "host")}
    return subprocess.run([*ATC, *args], input=stdin if stdin is not None else b"",
                          capture_output=True, timeout=timeout, env=env)


def home_digest(home: Path) -> dict[str, str]:
    """Every file of the home and its SHA-256 (folders too, so a new empty one shows)."""
    if not home.exists():
        return {}
    digest = {}
    for path in sorted(home.rglob("*")):
        name = str(path.relative_to(home))
        if path.is_file() and not path.is_symlink():
            digest[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            digest[name] = "dir" if path.is_dir() else "other"
    return digest


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def refusal_defect(done: subprocess.CompletedProcess, file_name: str | None) -> str | None:
    """Why a non-zero exit breaks the contract for bad input, or None when it keeps it."""
    err = _text(done.stderr)
    if "Traceback" in err:
        return "traceback"
    lines = [line for line in err.splitlines() if line.strip()]
    if len(lines) != 1:
        return f"stderr of {len(lines)} lines"
    if not lines[0].startswith("atc"):
        return "stderr line not from atc"
    if file_name is not None and file_name not in lines[0]:
        return "stderr does not name the file"
    return None


def _unmet(expect: str, done: subprocess.CompletedProcess) -> str | None:
    """Why a refusal misses what its mutant expects (see :attr:`Case.expect`), or None."""
    if expect == "read":
        return "refused a transcript only saved otherwise"
    if expect == "named" and "cannot detect format" in _text(done.stderr):
        return "'cannot detect format' for a transcript of a detected format"
    return None


def _diff(before: dict, after: dict) -> str:
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return ", ".join(changed[:6]) + (" ..." if len(changed) > 6 else "")


#: The reads after an ingest, run in one process (a Prolog engine started once, not five
#: times): each step is the `atc` command line itself, through click's test runner, so its
#: exit status and its stderr are those a user would get.
READER = r"""
import json, sys
from click.testing import CliRunner
from attention_cloud.cli import main
home, deep, held = sys.argv[1], sys.argv[2] == "1", set(json.loads(sys.argv[3]))
def step(*argv):
    out = CliRunner().invoke(main, [*argv, "--home", home])
    if out.exit_code != 0 or out.exception is not None and not isinstance(out.exception, SystemExit):
        why = out.output.strip()[-300:] or repr(out.exception)
        print(json.dumps({"step": argv[0], "exit": out.exit_code, "why": why}))
        sys.exit(0)
    return out.stdout
rows = json.loads(step("query", "item_text(H, _)", "--format", "json", "--limit", "100000"))
new = [row["H"] for row in rows if row["H"] not in held]   # the mutant's items
for handle in new[:1] + new[-1:]:
    step("show", handle)
    step("show", handle, "--source")
step("hydrate", "the retry budget", "--budget", "400")
if deep:
    step("curate")
    step("hydrate", "what did they decide", "--budget", "400", "--format", "json")
print(json.dumps({"ok": len(new)}))
"""


def check_reads(home: Path, deep: bool, held: list[str]) -> str | None:
    """The home answers after an ingest: query, show (and its source), hydrate; curate and
    hydrate again when ``deep``. ``held``: the handles the home held before, so the items
    shown are the mutant's. None when all exit 0, else which failed and how."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "host")}
    done = subprocess.run([sys.executable, "-c", READER, str(home), "1" if deep else "0",
                           json.dumps(held)],
                          capture_output=True, timeout=TIMEOUT_S, env=env)
    last = (_text(done.stdout).strip().splitlines() or [""])[-1]
    if done.returncode != 0 or not last.startswith("{"):
        return f"reader crashed: {_text(done.stderr).strip()[-300:]}"
    answer = json.loads(last)
    return None if "ok" in answer else f"{answer['step']} exit {answer['exit']}: {answer['why']}"


def run_case(case: Case, seeded: Path, held: list[str], work: Path, tally: Tally,
             keep: Path | None) -> None:
    """Ingest one mutant into a new home and into a copy of a home holding items; judge both."""
    folder = work / "case"
    shutil.rmtree(folder, ignore_errors=True)
    target = folder / case.relative
    target.parent.mkdir(parents=True)
    target.write_bytes(case.data)
    outcomes = []
    for label, home in (("new", work / "new-home"), ("held", work / "held-home")):
        shutil.rmtree(home, ignore_errors=True)
        if label == "held":
            shutil.copytree(seeded, home, symlinks=True)
        before = home_digest(home)
        try:
            done = atc("ingest", str(target), home=home)
        except subprocess.TimeoutExpired:
            outcomes.append((label, "timeout", {}))
            continue
        after = home_digest(home)
        if done.returncode == 0:
            if "Traceback" in _text(done.stderr):
                outcomes.append((label, "traceback on success", {"stderr": _text(done.stderr)[-400:]}))
                continue
            try:
                why = check_reads(home, True, held) if label == "held" else None
            except subprocess.TimeoutExpired:
                why = "a read timed out"
            outcomes.append((label, "ingested", None) if why is None
                            else (label, "reads fail", {"why": why}))
        else:
            why = refusal_defect(done, target.name) or _unmet(case.expect, done)
            if why is None and before != after:
                why = f"home changed: {_diff(before, after)}"
            outcomes.append((label, "refused", None) if why is None else
                            (label, "bad refusal", {"why": why, "exit": done.returncode,
                                                    "stderr": _text(done.stderr)[-600:]}))
    for label, outcome, detail in outcomes:
        if detail is not None:
            detail = {"home": label, "mutation": case.mutation, **detail}
            if keep is not None:
                kept = keep / f"{case.fmt}-{len(tally.defects)}{target.suffix}"
                kept.parent.mkdir(parents=True, exist_ok=True)
                kept.write_bytes(case.data)
                detail["kept"] = str(kept)
        tally.add(case.fmt, f"{outcome} ({label})", detail)
        if detail is not None:
            print(f"  DEFECT {json.dumps(detail, ensure_ascii=False)[:600]}", file=sys.stderr,
                  flush=True)
    print(f"  {case.fmt} / {case.mutation}: " + ", ".join(f"{o} ({l})" for l, o, _ in outcomes),
          file=sys.stderr, flush=True)


def make_seeded_home(work: Path) -> tuple[Path, list[str]]:
    """A home that already holds curated items (the hash embedder: no model to load), and
    the handles of its items. Built through the Python API in this process: the mutants'
    ``atc ingest`` processes are what is fuzzed, and three ``atc`` processes to set the home
    up (ingest, curate, query) cost a start of Python and SWI-Prolog each, about 1.2 s of CPU."""
    from attention_cloud import Memory

    home = work / "seeded-home"
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"embedder": "hash"}))
    with Memory.open(home) as mem:
        mem.ingest([FIXTURES / "transcript.txt"])
        mem.curate()
        rows = mem.query("item_text(H, _)", limit=100000).rows
    return home, [str(row["H"]) for row in rows]


# -- the command line -------------------------------------------------------------------------

#: Commands that follow or serve until stopped: only their parsing is fuzzed.
LONG_RUNNING = frozenset(("watch", "serve", "mcp", "hook"))


def _commands(group, prefix=()) -> Iterator[tuple[tuple[str, ...], object]]:
    import click
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def cli_cases(work: Path, commands: set[str] | None = None
              ) -> Iterator[tuple[str, list[str], bytes | None, bool]]:
    """(what, argv, stdin, may succeed) for every subcommand's odd command lines (those whose
    first word is in ``commands``, when given)."""
    import click

    from attention_cloud.cli import main

    folder = work / "a-folder"
    folder.mkdir(exist_ok=True)
    fifo = work / "a-fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    for command_name, what, argv, stdin, may_succeed in STDIN_CASES:
        if commands is None or command_name in commands:
            yield f"{' '.join(argv[:2])}: {what}", argv, stdin, may_succeed
    for path, command in _commands(main):
        if path[0] in ("install", "uninstall", "bench") or (
                commands is not None and path[0] not in commands):
            continue        # they write outside the home or run for minutes
        name = " ".join(path)
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        filler = ["x"] * sum(1 for a in arguments if a.required)
        yield f"{name}: unknown option", [*path, *filler, "--no-such-option"], None, False
        for option in (p for p in command.params if isinstance(p, click.Option)):
            if (option.is_flag or option.count or option.name in ("home", "help")
                    or getattr(option, "_flag_needs_value", False)):   # its value is optional
                continue
            flag = max(option.opts, key=len)
            yield f"{name}: {flag} without its value", [*path, *filler, flag], None, False
            if isinstance(option.type, (click.types.IntParamType, click.types.FloatParamType)):
                yield f"{name}: {flag} not a number", [*path, *filler, flag, "many"], None, False
        if path[0] in LONG_RUNNING:
            continue
        for index, argument in enumerate(arguments):
            if not isinstance(argument.type, click.Path) and argument.name not in (
                    "paths", "path", "file", "rules_file"):
                continue
            for what, value in (("missing path", str(work / "nowhere" / "x.json")),
                                ("a folder", str(folder)), ("a FIFO", str(fifo))):
                argv = [*path, *filler]
                argv[len(path) + index] = value
                yield f"{name}: {argument.name} is {what}", argv, None, what == "a folder"
        for option in (p for p in command.params if isinstance(p, click.Option)):
            if option.name != "home" and (isinstance(option.type, click.Path)
                                           or option.name in ("rules", "output")):
                flag = max(option.opts, key=len)
                for what, value in (("missing path", str(work / "nowhere" / "x.pl")),
                                    ("a folder", str(folder)), ("a FIFO", str(fifo))):
                    yield (f"{name}: {flag} is {what}", [*path, *filler, flag, value], None,
                           False)


#: ``-`` where stdin is documented (``atc remember -``, ``atc rules add -``), fed what breaks it;
#: and ``-`` where it is not (a path named ``-`` that does not exist).
STDIN_CASES = (
    ("remember", "invalid UTF-8 on stdin", ["remember", "-"], b"\xff\xfe\xc3( retry budget", True),
    ("remember", "NUL bytes on stdin", ["remember", "-", "--no-curate"], b"a\x00b retry", True),
    ("remember", "5 MiB on stdin", ["remember", "-"], b"x" * (5 << 20), False),
    ("remember", "nothing on stdin", ["remember", "-"], b"", False),
    ("rules", "a clause that halts on stdin", ["rules", "add", "-", "--name", "odd"],
     b"walk(X) :- halt.\n", False),
    ("rules", "no name for stdin", ["rules", "add", "-"], b"walk(X) :- item(X).\n", False),
    ("rules", "invalid UTF-8 on stdin", ["rules", "add", "-", "--name", "odd"],
     b"walk(X) :- X = '\xff'.\n", True),
    ("rules", "unterminated quote on stdin", ["rules", "add", "-", "--name", "odd"],
     b"walk(X) :- X = 'open.\n", False),
    ("ingest", "- as a path", ["ingest", "-"], b'[{"role": "user", "content": "hi"}]', False),
)


def run_cli(seeded: Path, work: Path, tally: Tally, commands: set[str] | None = None) -> None:
    """Every odd command line (of ``commands``, when given) against a copy of the seeded home."""
    home = work / "cli-home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(seeded, home, symlinks=True)
    for what, argv, stdin, may_succeed in cli_cases(work, commands):
        before = home_digest(home)
        try:
            done = atc(*argv, home=home, stdin=stdin, timeout=60)
        except subprocess.TimeoutExpired:
            tally.add("cli", "timeout", {"case": what, "argv": argv})
            # a hung command may have left a lock; start again from the seeded home
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(seeded, home, symlinks=True)
            continue
        if done.returncode == 0 and may_succeed:
            tally.add("cli", "accepted")
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(seeded, home, symlinks=True)
            continue
        why = ("exit 0" if done.returncode == 0 else refusal_defect(done, None))
        if why is None and home_digest(home) != before:
            why = f"home changed: {_diff(before, home_digest(home))}"
        if why is None:
            tally.add("cli", "refused")
        else:
            tally.add("cli", "bad refusal", {"case": what, "argv": argv, "why": why,
                                            "exit": done.returncode,
                                            "stderr": _text(done.stderr)[-400:]})
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(seeded, home, symlinks=True)


# -- main -------------------------------------------------------------------------------------

def table(tally: Tally) -> str:
    """Outcomes per format as a markdown table."""
    kinds = sorted({k for counts in tally.outcomes.values() for k in counts})
    lines = ["| format | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for fmt in sorted(tally.outcomes):
        counts = tally.outcomes[fmt]
        lines.append(f"| {fmt} | " + " | ".join(str(counts.get(k, 0)) for k in kinds) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-format", type=int, default=12,
                        help="mutants per format besides the huge line (default 12)")
    parser.add_argument("--formats", default="all", help="comma-separated names, or all")
    parser.add_argument("--huge-mb", type=float, default=50.0,
                        help="size of the one huge line per format (0: none)")
    parser.add_argument("--no-encodings", action="store_true",
                        help="leave out the re-encoded and mixed-format cases (6 per format)")
    parser.add_argument("--cli", action="store_true", help="fuzz the command lines too")
    parser.add_argument("--no-ingest", action="store_true", help="only the command lines")
    parser.add_argument("--keep", type=Path, help="copy each mutant that found a defect here")
    parser.add_argument("--json", type=Path, help="write outcomes and defects as JSON here")
    args = parser.parse_args(argv)
    formats = list(ONE_OF_EACH) if args.formats == "all" else args.formats.split(",")
    unknown = [name for name in formats if name not in ONE_OF_EACH]
    if unknown:
        parser.error(f"no such format: {', '.join(unknown)} (atc ingest --list-formats)")
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="ingest-fuzz-") as tmp:
        work = Path(tmp)
        seeded, held = make_seeded_home(work)
        if not args.no_ingest:
            for fmt in formats:
                for case in cases(fmt, ONE_OF_EACH[fmt], args.seed, args.per_format,
                                  args.huge_mb, not args.no_encodings):
                    run_case(case, seeded, held, work, tally, args.keep)
                print(f"{fmt}: {dict(tally.outcomes[fmt])}", file=sys.stderr, flush=True)
        if args.cli or args.no_ingest:
            run_cli(seeded, work, tally)
    print(table(tally))
    for defect in tally.defects:
        print(json.dumps(defect, ensure_ascii=False)[:1000])
    if args.json:
        args.json.write_text(json.dumps({"outcomes": tally.outcomes, "defects": tally.defects},
                                        indent=1, ensure_ascii=False))
    return 1 if tally.defects else 0


if __name__ == "__main__":
    sys.exit(main())
