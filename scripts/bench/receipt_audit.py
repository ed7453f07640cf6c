#!/usr/bin/env python3
"""Receipts that prove what they say: every fact's pointer resolves to its verbatim source.

For each supported input family (Claude Code 2.1 sessions with subagents, a SWE-agent
trajectory, OpenAI JSONL, plain text chats, chat exports, Markdown logs and the benchmark
files) the transcripts are copied into a scratch folder, ingested into a fresh home, curated,
and several goals drawn from the items are hydrated. Every fact and breadcrumb of every
receipt is then checked against the file (the real data of /work/shared/data where it is
there, the test fixtures otherwise; tests/test_receipt_audit.py runs it on the fixtures):

- **resolved**: its ``source`` pointer reads (``read_pointer``) and the record it addresses
  holds the item's L0 text (verbatim after whitespace is folded, or, for a text the reader
  labels or joins, at least 90 % of its words); an excerpt's spans are pieces of that L0; a
  summary with no pointer (an arc, rollup or cell) stands for items whose pointers resolve;
- **speaker** and **time**: the fact's are the item's (``item_speaker/2``, ``item_time/2``);
  a named speaker is written in the record (or above it in its file, or in the export's
  ``users.json`` beside it), and a time the record writes is the fact's: a JSON record's
  stamp under a key naming a moment (ISO 8601, epoch seconds or milliseconds), a text line's
  stamp or clock (a record that writes none, a benchmark turn dated by its session, is not
  counted);
- **handles stay**: ingesting the same file again, the folder moved elsewhere (README: "a file
  that comes back from another folder ... keeps its session and its items' handles") and the
  file grown by an appended record keep every earlier handle, and every pointer still
  resolves (a moved file's items point at where it is now; a grown file's earlier items keep
  their pointers);
- **forget**: after ``Memory.forget`` of an item a receipt named, no receipt written later
  names it, and the earlier receipt keeps of it only ``handle``, ``segment``, ``level`` and
  ``"forgotten": true`` and none of its text.

Figures per family: facts whose pointer resolved, overall and by pass (``ingested``, after
the move, after the append), verbatim hits, summaries, speaker and time checks, failures.

    .venv/bin/python scripts/bench/receipt_audit.py              # every family, the real data
    .venv/bin/python scripts/bench/receipt_audit.py --only text  # one family
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

DATA = Path("/work/shared/data")
FIXTURES = ROOT / "tests" / "fixtures" / "ingest"
ROLES = frozenset({"user", "assistant", "tool", "system", "subagent", "human", "ai"})
COVERED = 0.9  # share of an item's words its record must hold when it is not verbatim
ROWS = 1_000_000  # the rows a query may give (Memory.query gives 100 by default)


# -- the input families ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Family:
    """One input family: the transcripts (files or folders) to copy and ingest, and how to
    grow its first transcript by one record (None: a JSON document, which grows as a whole)."""

    name: str
    sources: tuple[Path, ...]
    append: Callable[[Path], str] | None = None


def _last_json_line(path: Path) -> dict[str, Any]:
    """The file's last line that holds a JSON object (the audit log's reader skips torn ones)."""
    from attention_cloud.audit import _parsed_lines

    return next(_parsed_lines(reversed(path.read_text(encoding="utf-8").splitlines())), {})


def append_claude_code(path: Path) -> str:
    """A user prompt after the session's last record, as Claude Code writes one."""
    last = _last_json_line(path)
    record = {"type": "user", "parentUuid": last.get("uuid"),
              "isSidechain": last.get("isSidechain", False),
              "userType": "external", "cwd": last.get("cwd", "/tmp"),
              "sessionId": last.get("sessionId", path.stem),
              "version": last.get("version", "2.1.0"),
              "uuid": "a0d17a0d-0000-4000-8000-00000000a0d1",
              "timestamp": "2030-01-02T03:04:05.000Z",
              "message": {"role": "user", "content": "audit appended: check the receipt pointers "
                                                     "of the zebra migration once more"}}
    if "agentId" in last:  # a subagent's own file
        record["agentId"] = last["agentId"]
    return json.dumps(record) + "\n"


def append_openai(path: Path) -> str:
    """One more user message in the file's shape (a JSON Lines chat)."""
    last = _last_json_line(path)
    record: dict[str, Any] = {"role": "user", "content": "audit appended: what was the zebra "
                                                         "migration's last step"}
    for key in ("name", "session_id", "conversation_id"):
        if key in last:
            record[key] = last[key]
    record["timestamp"] = "2030-01-02T03:04:05Z"
    return json.dumps(record) + "\n"


def append_text(path: Path) -> str:
    """One more line of the chat, said by the speaker of its last speaker line."""
    lines = path.read_text(encoding="utf-8").rstrip("\n").splitlines()
    last = next((line for line in reversed(lines) if re.match(r"^\S.{0,40}?: ", line)), "")
    prefix = last.split(": ", 1)[0] if last else "Priya"
    prefix = re.sub(r"\d{1,2}:\d\d", "23:59", prefix)  # a stamp in it: later than the others
    return f"{prefix}: audit appended, the zebra migration is done and checked.\n"


def families(real: bool = True) -> list[Family]:
    """The families audited: the shared real data where it is present (``real``), the test
    fixtures otherwise and for the formats the data lacks."""
    cc_real = DATA / "claude-code-real" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
    cc_fixture = FIXTURES / "claude_code_21" / "5e55a1f0-0000-4000-8000-00000000c0de"
    cc = cc_real if real and cc_real.is_dir() else cc_fixture
    traj_real = DATA / "agent-trajectories" / "swe-agent__test-repo-i1.traj"
    traj = traj_real if real and traj_real.is_file() else FIXTURES / "swe_agent_run.traj"
    lme_real = DATA / "longmemeval-dev" / "gpt4_59149c77.json"
    lme = lme_real if real and lme_real.is_file() else FIXTURES / "longmemeval_instance.json"
    return [
        Family("claude-code", (cc.with_suffix(".jsonl"), cc), append_claude_code),
        Family("trajectory", (traj,)),
        Family("openai-jsonl", (FIXTURES / "openai_messages.jsonl",), append_openai),
        Family("text", (FIXTURES / "transcript.txt", FIXTURES / "whatsapp_chat.txt",
                        FIXTURES / "Priya Patel.txt"), append_text),
        Family("chat-exports", (FIXTURES / "chatgpt_conversations.json",
                                FIXTURES / "claude_ai_conversations.json",
                                FIXTURES / "telegram_result.json", FIXTURES / "slack_export",
                                FIXTURES / "discord_export.json", FIXTURES / "sharegpt.jsonl",
                                FIXTURES / "messenger_export", FIXTURES / "instagram_export",
                                FIXTURES / "google_chat_takeout", FIXTURES / "skype_export",
                                FIXTURES / "Running Club - general [901].html",
                                FIXTURES / "sillytavern", FIXTURES / "librechat_export.json",
                                FIXTURES / "open_webui_export.json")),
        Family("markdown-and-benchmarks", (FIXTURES / "transcript.md", FIXTURES / "timed_log.md",
                                           FIXTURES / "locomo10_sample.json", lme)),
    ]


# -- reading a record back -------------------------------------------------------------------------
def strings_in(value: Any) -> list[str]:
    """Every string (and number, as written) inside a decoded JSON value, in document order."""
    found: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, (int, float)):
            found.append(str(node))
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def _mended(text: str) -> str:
    """``text`` and, for Facebook's exports (UTF-8 bytes written as Latin-1 escapes, which the
    readers mend), its mended form."""
    try:
        mended = text.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return text
    return text if mended == text else f"{text}\n{mended}"


def record_text(record: Any) -> str:
    """The text of a record ``read_pointer`` gave: a line (or lines) of text, a JSON line
    decoded, or a JSON value."""
    if isinstance(record, str):
        try:
            decoded = json.loads(record)
        except ValueError:
            return record
        return _mended("\n".join(strings_in(decoded))) \
            if isinstance(decoded, (dict, list)) else record
    return _mended("\n".join(strings_in(record)))


_TIME_KEY = re.compile(r"time|date|created|_at$|At$|_ms$", re.IGNORECASE)


def time_text(record: Any) -> tuple[str, bool]:
    """What of the record may say when it was written, and whether it is a line of text: a
    JSON record's values under keys that name a moment (``timestamp``, ``created_at``,
    ``timestamp_ms`` ...), a text record whole (its stamp or clock, ``[09:12]``)."""
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except ValueError:
            return record, True
    found: list[str] = []
    stack = [record]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if _TIME_KEY.search(str(key)) and isinstance(value, (str, int, float)) \
                        and not isinstance(value, bool):
                    found.append(str(value))
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return "\n".join(found), False


def _folded(text: str) -> str:
    return " ".join(text.split())


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _body(text: str, labelled: bool) -> str:
    """The item's text without what the reader adds: a call's label line above its output,
    an exit code or rejection note below it."""
    if labelled and "\n" in text:
        text = text.split("\n", 1)[1]
    text = re.sub(r"\n\(exit code -?\d+\)\Z", "", text)
    text = re.sub(r"\n?\(action rejected\)\Z", "", text)
    # the chat readers' words around what a message shares: the record names the file, the
    # forwarded author or the photo's caption without them
    return re.sub(r"\[(?:attached: |forwarded from |shares a photo: )([^\]]*)\]", r"\1", text)


def holds(record: str, text: str, labelled: bool = False) -> str:
    """How the record holds the item's text: ``verbatim``, ``covered`` (most of its words) or
    ``missing``."""
    body = _body(text, labelled)
    if _folded(body) in _folded(record) or _folded(text) in _folded(record):
        return "verbatim"
    # a text over max_item_chars keeps its head and tail around a line saying what was cut
    cut = re.search(r"\[… [\d,]+ characters cut here[^\n]*(\n|\Z)", body)
    if cut and all(_folded(piece) in _folded(record)
                   for piece in (body[: cut.start()], body[cut.end():])):
        return "verbatim"
    words = _words(body)
    if not words:
        return "verbatim"
    return "covered" if len(words & _words(record)) >= COVERED * len(words) else "missing"


def item_held(record: str, item: Any) -> str:
    """How the record holds the item (see :func:`holds`). A file operation's text is the
    reader's summary (``read src/x.py``, ``edit x.py: lines 1-1 -> "new"``): its record must
    name each file it touches and hold the new text of an edit."""
    if item.kind == "file_op":
        touched = [obj for pred, obj in item.relations if pred == "touches_file"]
        _, arrow, new = item.text.partition(" -> ")
        # SWE-agent's `edit N:M` changes the file its editor has open, which an earlier
        # record named: its own record holds the lines and the new text
        named = all(Path(path).name in record for path in touched) or (
            arrow and re.match(r"edit \S+: lines \d+-\d+ -> ", item.text) is not None)
        said = holds(record, new.strip('"'), False) if arrow else "verbatim"
        return said if named and touched else "missing"
    return holds(record, item.text, _labelled(item))


def _labelled(item: Any) -> bool:
    """The item is a call's output, its first line the call's label (``$ pytest -q``)."""
    return any(pred == "tool" for pred, _ in item.relations) and "\n" in item.text


def said_above(speaker: str, pointer: str) -> bool:
    """A line record's speaker is named above it in its file: a chat page or log writes the
    author once over a run of their messages (DiscordChatExporter's grouped messages)."""
    from attention_cloud.ingest.pointers import parse_pointer

    target = parse_pointer(pointer)
    if target.line is None:
        return False
    try:
        lines = Path(target.path).read_text(encoding="utf-8").split("\n")[: target.line]
    except (OSError, UnicodeDecodeError):
        return False
    return speaker.lower() in "\n".join(lines).lower()


SIDE_FILES = ("users.json", "channels.json")


def with_side_names(record: str, pointer: str) -> str:
    """The record, and the names of the export files beside it that name its people (Slack's
    and Claude.ai's ``users.json``: a message names its author and mentions by id)."""
    from attention_cloud.ingest.pointers import parse_pointer

    folder = Path(parse_pointer(pointer).path).parent
    extra = []
    for parent in (folder, folder.parent):
        for name in SIDE_FILES:
            side = parent / name
            if side.is_file():
                try:
                    extra.append(record_text(json.loads(side.read_text(encoding="utf-8"))))
                except ValueError:
                    continue
    return "\n".join([record, *extra])


_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d))?(\.\d+)?"
                  r"(Z|[+-]\d\d:?\d\d)?")


def times_written(record: str) -> set[str]:
    """The moments the record writes, as ``YYYY-MM-DDTHH:MM`` in UTC (ISO 8601 stamps, naive
    ones read as UTC, and epoch seconds or milliseconds standing alone)."""
    found: set[str] = set()
    for match in _ISO.finditer(record):
        y, mo, d, h, mi, s, _, zone = match.groups()
        try:
            moment = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s or 0),
                              tzinfo=timezone.utc)
            if zone and zone != "Z":
                sign = 1 if zone[0] == "+" else -1
                digits = zone[1:].replace(":", "")
                moment = moment.replace(tzinfo=None) - sign * (
                    datetime(1, 1, 1, int(digits[:2]), int(digits[2:])) - datetime(1, 1, 1))
                moment = moment.replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        found.add(moment.strftime("%Y-%m-%dT%H:%M"))
    for number in re.findall(r"(?<![\w.:-])(\d{10}(?:\d{3})?)(?:\.\d+)?(?![\w:-])", record):
        seconds = int(number) / (1000 if len(number) == 13 else 1)
        if 946684800 <= seconds <= 4102444800:  # 2000 .. 2100
            found.add(datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M"))
    return found


def clock_written(record: str, moment: str) -> bool:
    """The record, a chat line that writes its time in local words (``5/8/23, 9:15 AM``,
    ``May 08, 2023  2:05:10 PM``, ``## User (23:58 UTC)``), writes the moment's clock time
    (its day may be written in a date line above it)."""
    hour, minute = int(moment[11:13]), moment[14:16]
    twelve = hour % 12 or 12
    return re.search(rf"\b(?:0?{hour}|{twelve}):{minute}\b", record) is not None


# -- the audit -------------------------------------------------------------------------------------
@dataclass
class Tally:
    """Counts of one family's audit, and one line per failure (the first few kept)."""

    facts: int = 0
    resolved: int = 0
    verbatim: int = 0
    summaries: int = 0
    speaker_checked: int = 0
    speaker_ok: int = 0
    time_checked: int = 0
    time_ok: int = 0
    receipts: int = 0
    failures: list[str] = field(default_factory=list)
    phase: str = "ingested"  # the pass being audited: ingested, moved, grown
    phases: dict[str, list[int]] = field(default_factory=dict)  # phase -> [facts, resolved]

    def counted(self, resolved: bool) -> None:
        """Count one fact of the current pass, resolved or not."""
        self.facts += 1
        self.resolved += resolved
        shares = self.phases.setdefault(self.phase, [0, 0])
        shares[0] += 1
        shares[1] += resolved

    def fail(self, line: str) -> None:
        """Note one failure."""
        self.failures.append(line)

    def row(self, name: str) -> list[str]:
        """The family's figures as a table row."""
        def share(ok: int, of: int) -> str:
            return f"{ok}/{of}" + (f" ({100 * ok / of:.0f} %)" if of else "")
        passes = ", ".join(f"{phase} {100 * ok / of:.0f} %"
                           for phase, (of, ok) in self.phases.items() if of)
        return [name, str(self.receipts), share(self.resolved, self.facts), passes,
                share(self.verbatim, self.facts), str(self.summaries),
                share(self.speaker_ok, self.speaker_checked),
                share(self.time_ok, self.time_checked), str(len(self.failures))]


HEADERS = ["family", "receipts", "pointer resolves", "by pass", "verbatim", "summaries",
           "speaker in record", "time in record", "failures"]


def _atom(handle: str) -> str:
    """A handle checked to be safe inside a quoted atom of a query (handles are ``\\w+``)."""
    if not re.fullmatch(r"\w+", handle):
        raise ValueError(f"{handle!r}: not a handle")
    return handle


class Auditor:
    """Audits the receipts of one open Memory against the files its items were read from."""

    def __init__(self, mem: Any, tally: Tally) -> None:
        self.mem = mem
        self.tally = tally
        self._speakers: dict[str, str] = {}

    def speaker(self, handle: str) -> str:
        """``item_speaker/2`` of the item, or ""."""
        if handle not in self._speakers:
            rows = self.mem.query(f"item_speaker('{_atom(handle)}', S)").rows
            self._speakers[handle] = str(rows[0]["S"]) if rows else ""
        return self._speakers[handle]

    def receipt(self, receipt: dict[str, Any]) -> None:
        """Check every fact and breadcrumb of one receipt."""
        self.tally.receipts += 1
        for entry in [*receipt.get("facts", []), *receipt.get("beyond", [])]:
            self.fact(entry, receipt.get("id", "?"))

    def fact(self, fact: dict[str, Any], rid: str) -> None:
        """Check one fact: its pointer, its speaker and its time."""
        from attention_cloud.errors import AtcError
        from attention_cloud.ingest.pointers import read_pointer

        handle = fact["handle"]
        item = self.mem.item(handle)
        where = f"{rid} {handle}"
        if item is None:  # a summary: an arc, rollup or cell, standing for items
            members = fact.get("stands_for") or self._members(handle)
            bad = [m for m in members if not self._member_resolves(m)]
            self.tally.summaries += 1
            self.tally.counted(bool(members) and not bad)
            if not members or bad:
                self.fail(f"{where}: summary of {len(members)} members, {len(bad)} unresolved "
                          f"({bad[:3]})")
            return
        pointer = fact.get("source") or ""
        if pointer != item.source:
            self.fail(f"{where}: receipt source {pointer!r} is not the item's {item.source!r}")
        try:
            raw = read_pointer(pointer)
        except (AtcError, ValueError) as exc:
            self.tally.counted(False)
            self.fail(f"{where}: pointer {pointer!r} does not read: {exc}")
            return
        record = with_side_names(record_text(raw), pointer)
        how = item_held(record, item)
        excerpt = fact.get("excerpt") or {}
        label = len(item.text.split("\n", 1)[0]) if _labelled(item) else -1
        bad_spans = [s for s in excerpt.get("spans", [])  # a span of the call's label is its
                     if s[1] > label                      # call's, not this record's
                     and holds(record, item.text[s[0]:s[1]], False) == "missing"]
        self.tally.counted(how != "missing" and not bad_spans)
        if how == "missing" or bad_spans:
            self.fail(f"{where}: {pointer} does not hold its {item.kind} text "
                      f"{item.text[:80]!r}" + (f" (spans {bad_spans})" if bad_spans else ""))
        else:
            self.tally.verbatim += how == "verbatim"
        self._speaker_and_time(fact, item, record, time_text(raw), where)

    def _speaker_and_time(self, fact: dict[str, Any], item: Any, record: str,
                          stamps: tuple[str, bool], where: str) -> None:
        said_by = self.speaker(item.handle)
        if fact.get("speaker", said_by) != said_by:
            self.fail(f"{where}: receipt speaker {fact.get('speaker')!r}, item {said_by!r}")
        if said_by and said_by.lower() not in ROLES:
            self.tally.speaker_checked += 1
            if said_by.lower() in record.lower() or said_above(said_by, item.source):
                self.tally.speaker_ok += 1
            else:
                self.fail(f"{where}: speaker {said_by!r} is not written in {item.source}")
        if "time" in fact and (fact["time"] or "") != (item.time or ""):  # a fact, not a crumb
            self.fail(f"{where}: receipt time {fact.get('time')!r}, item {item.time!r}")
        said, is_line = stamps
        written = times_written(said)
        clock = is_line and not written and re.search(r"\b\d{1,2}:\d\d\b", said)
        if item.time and (written or clock):
            self.tally.time_checked += 1
            if item.time[:16] in written or (clock and clock_written(said, item.time)):
                self.tally.time_ok += 1
            else:
                self.fail(f"{where}: time {item.time} is none of those {item.source} writes "
                          f"({sorted(written)[:3]})")

    def _members(self, handle: str) -> list[str]:
        """The items a summary stands for: a cell's members, or an arc's."""
        relation = "cell_member" if handle.startswith("cell_") else "arc_member"
        rows = self.mem.query(f"{relation}('{_atom(handle)}', H)", limit=ROWS).rows
        return [str(r["H"]) for r in rows]

    def _member_resolves(self, handle: str) -> bool:
        from attention_cloud.errors import AtcError
        from attention_cloud.ingest.pointers import read_pointer

        item = self.mem.item(handle)
        if item is None:
            return False
        try:
            record = record_text(read_pointer(item.source))
        except (AtcError, ValueError):
            return False
        return item_held(with_side_names(record, item.source), item) != "missing"

    def fail(self, line: str) -> None:
        """Note one failure."""
        self.tally.fail(line)


def goals_of(mem: Any, count: int) -> list[str]:
    """``count`` goals drawn from the items' own words, spread over the journal in order."""
    rows = mem.query("item(H), item_seq(H, N)", limit=ROWS).rows
    handles = [str(r["H"]) for r in sorted(rows, key=lambda r: (r["N"], str(r["H"])))]
    goals: list[str] = []
    step = max(1, len(handles) // (count * 2))
    for handle in handles[::step]:
        item = mem.item(handle)
        words = re.findall(r"[A-Za-z][\w'-]{2,}", item.text if item else "")
        if len(words) >= 4:
            goals.append(" ".join(words[:8]))
        if len(goals) == count:
            break
    return goals


def copy_sources(family: Family, into: Path) -> list[Path]:
    """The family's transcripts copied under ``into`` (what the audit moves and appends to)."""
    into.mkdir(parents=True, exist_ok=True)
    copied = []
    for source in family.sources:
        target = into / source.name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)
        copied.append(target)
    return copied


def handles_and_pointers(mem: Any) -> dict[str, str]:
    """Every live item's handle and pointer."""
    rows = mem.query("item(H), item_source(H, P)", limit=ROWS).rows
    return {str(r["H"]): str(r["P"]) for r in rows}


def hydrate_all(mem: Any, goals: Iterable[str], auditor: Auditor) -> list[dict[str, Any]]:
    """Hydrate each goal, audit its receipt, and return the receipts as stored."""
    stored = []
    for goal in goals:
        frame = mem.hydrate(goal, budget=1500)
        receipt = mem.receipt(frame.receipt_id)
        auditor.receipt(receipt)
        stored.append(receipt)
    return stored


def audit_family(family: Family, work: Path, goals: int = 5, embedder: str = "hash",
                 log: Callable[[str], None] = lambda _: None) -> Tally:
    """Run every check on one family in a scratch folder under ``work``."""
    from attention_cloud import Memory

    tally = Tally()
    home = work / "home"
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"embedder": embedder}))
    first = work / "a"
    paths = copy_sources(family, first)
    with Memory.open(home) as mem:
        auditor = Auditor(mem, tally)
        log(f"{family.name}: ingest")
        mem.ingest(paths)
        mem.curate()
        before = handles_and_pointers(mem)
        chosen = goals_of(mem, goals)
        log(f"{family.name}: {len(before)} items, {len(chosen)} goals")
        receipts = hydrate_all(mem, chosen, auditor)

        again = mem.ingest(paths)  # the same files again: an upsert, nothing new
        if again.new or set(handles_and_pointers(mem)) != set(before):
            tally.fail(f"re-ingest: {again.new} new items, handles changed")

        tally.phase = "moved"
        moved = work / "b"  # the folder moved: the old one gone
        shutil.move(str(first), str(moved))
        paths = [moved / p.name for p in paths]
        mem.ingest(paths)
        mem.curate()
        after_move = handles_and_pointers(mem)
        if set(after_move) != set(before):
            tally.fail(f"moved: {len(set(after_move) - set(before))} new handles, "
                       f"{len(set(before) - set(after_move))} gone")
        receipts += hydrate_all(mem, chosen, auditor)

        if family.append is not None:
            grown = paths[0] if paths[0].is_file() else next(paths[0].glob("*.jsonl"))
            tally.phase = "grown"
            held = handles_and_pointers(mem)
            with open(grown, "a", encoding="utf-8") as out:
                out.write(family.append(grown))
            report = mem.ingest(paths)
            mem.curate()
            now = handles_and_pointers(mem)
            lost = {h: p for h, p in held.items() if now.get(h) != p}
            if report.new < 1:
                tally.fail(f"append: the appended record gave no new item ({report.new})")
            if lost:
                h, p = next(iter(lost.items()))
                tally.fail(f"append: {len(lost)} earlier items lost their handle or pointer "
                           f"({h}: {p} -> {now.get(h)})")
            receipts += hydrate_all(mem, [*chosen, "audit appended zebra migration"], auditor)

        forget_check(mem, receipts, chosen, tally)
    return tally


def forget_check(mem: Any, receipts: list[dict[str, Any]], goals: list[str],
                 tally: Tally) -> None:
    """Forget an item a receipt named; later receipts must not name it, the earlier one must
    keep only its handle, segment, level and ``forgotten``, and none of its text."""
    named = [(r, f) for r in receipts for f in r.get("facts", []) if mem.item(f["handle"])]
    if not named:
        tally.fail("forget: no receipt named an item")
        return
    receipt, fact = max(named, key=lambda rf: len(mem.item(rf[1]["handle"]).text))
    handle = fact["handle"]
    text = mem.item(handle).text
    mem.forget([handle], reason="receipt audit")
    for goal in goals:
        later = mem.receipt(mem.hydrate(goal, budget=1500).receipt_id)
        if handle in json.dumps(later):
            tally.fail(f"forget: a receipt written after the forget ({later['id']}) names "
                       f"{handle}")
    earlier = mem.receipt(receipt["id"])
    entries = [e for key in ("facts", "beyond", "suppressed", "bridged")
               for e in earlier.get(key, []) if e.get("handle") == handle]
    for entry in entries:
        if set(entry) != {"handle", "segment", "level", "forgotten"} or not entry["forgotten"]:
            tally.fail(f"forget: the earlier receipt {receipt['id']} keeps {sorted(entry)} of "
                       f"{handle}")
    piece = _folded(text)[:60]
    if len(piece) >= 24 and piece in _folded(json.dumps(earlier, ensure_ascii=False)):
        tally.fail(f"forget: the earlier receipt {receipt['id']} still quotes {handle}'s text")


def main(argv: list[str] | None = None) -> int:
    """Audit each family and print one row each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="audit only the family of this name")
    parser.add_argument("--goals", type=int, default=5, help="goals hydrated per pass")
    parser.add_argument("--embedder", default="hash", help="the homes' embedder (hash: fast)")
    parser.add_argument("--fixtures", action="store_true",
                        help="the test fixtures instead of /work/shared/data")
    parser.add_argument("--show", type=int, default=5, help="failures printed per family")
    args = parser.parse_args(argv)
    chosen = [f for f in families(real=not args.fixtures) if args.only in (None, f.name)]
    if not chosen:
        parser.error(f"--only {args.only!r}: no such family "
                     f"({', '.join(f.name for f in families())})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="receipt-audit-") as scratch:
        for family in chosen:
            started = time.monotonic()
            tally = audit_family(family, Path(scratch) / family.name, args.goals,
                                 args.embedder, log=lambda m: print(m, file=sys.stderr))
            rows.append(tally.row(family.name))
            for line in tally.failures[: args.show]:
                print(f"  {family.name}: {line}", file=sys.stderr)
            print(f"{family.name}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    print("| " + " | ".join(HEADERS) + " |")
    print("|" + "---|" * len(HEADERS))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
