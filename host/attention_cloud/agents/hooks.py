"""Claude Code hooks: recall before a prompt, capture after a turn.

``atc hook user-prompt`` reads the UserPromptSubmit payload (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, ``prompt``) on stdin, plans a small frame for
the prompt from the project's memory, decides whether it is worth injecting
(:mod:`.ambient`), and prints the hook's JSON output with the frame, in its envelope, as
``additionalContext``, or nothing. ``atc hook stop`` and ``atc hook session-end`` ingest and
curate the session's transcript incrementally (a background process, so the agent never waits),
through the home's warm recall server when one runs (:func:`capture_warm`: it parses only what
the turn appended), else in that process.

**Project memory** is a segment named after the working directory:
``project:`` + the cwd with every run of characters other than letters and digits made one
``-`` (``/work/payments`` → ``project:work-payments``; :func:`project_segment`). Capture
ingests the transcript into it; recall reads it, plus the ``default`` segment where
``atc remember`` puts notes unless told otherwise (three quarters of the budget for the
project, a quarter for the notes). ``--segment S`` on the hook command names the segments
instead.

A hook never blocks the prompt: any error (bad payload, missing home, a busy writer, a bug) is
written to ``home/hooks.log`` and the hook exits 0 printing nothing, but for a capture that
failed (:mod:`.missed_captures`): the session's next capture hook says so in one line on
stderr, with status 1, Claude Code's non-blocking error, which it shows the user.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import traceback
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..api_lock import serialised
from ..errors import WriterBusy, one_line, write_refused
from ..line_files import append_line
from .missed_captures import (clear_mark, mark_capturing, mark_missed, session_key,
                              stop_notice)

#: The largest hook payload read from stdin (a prompt is pasted text; 4 MiB is plenty).
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024

#: hooks.log is rotated (to hooks.log.1) past this size.
MAX_LOG_BYTES = 1024 * 1024

#: Per-session state older than this is removed by the next hook run.
SESSION_STATE_DAYS = 14

#: Seconds the detached capture worker waits for another writer (a parallel session's
#: capture, ``atc curate``) to give the write lock back; ``--foreground`` does not wait.
CAPTURE_LOCK_WAIT_S = 300.0

#: The segment ``atc remember`` writes to by default, read beside the project's.
NOTES_SEGMENT = "default"

#: A run of characters other than letters and digits (any script's: ``[^0-9A-Za-z]`` made
#: ``/home/dev/проект``, ``/home/dev/項目`` and ``/home/dev`` one project).
_NOT_ALNUM = re.compile(r"[\W_]+")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

#: The longest name after ``project:`` (a segment name holds at most 200 characters).
PROJECT_NAME_MAX = 200 - len("project:")


def project_segment(cwd: str) -> str:
    """The segment holding a project's memory: ``project:`` + its cwd made a name; a name too
    long for a segment keeps its head and a digest of the whole cwd (a deep cwd refused every
    capture)."""
    cwd = unicodedata.normalize("NFC", cwd)
    name = _NOT_ALNUM.sub("-", cwd).strip("-")
    if len(name) > PROJECT_NAME_MAX:
        digest = hashlib.sha256(cwd.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        name = f"{name[:PROJECT_NAME_MAX - len(digest) - 1].rstrip('-')}-{digest}"
    return f"project:{name or 'root'}"


# -- payloads and logging -------------------------------------------------------------------
class HookInputError(ValueError):
    """The hook payload is not what Claude Code sends."""


def read_payload(raw: bytes | str) -> dict[str, Any]:
    """The hook payload as a dict, or HookInputError saying what is wrong with it."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_PAYLOAD_BYTES:
            raise HookInputError(f"payload is {len(raw)} bytes; at most {MAX_PAYLOAD_BYTES}")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HookInputError(f"payload is not UTF-8 ({exc})") from None
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise HookInputError(f"payload is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise HookInputError("payload is not a JSON object")
    return payload


def _text_field(payload: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = payload.get(name, "")
    if not isinstance(value, str):
        raise HookInputError(f"payload field {name!r} is not a string")
    if required and not value.strip():
        raise HookInputError(f"payload has no {name!r}")
    # JSON's \ud83d escape (an emoji cut in half) decodes to a lone surrogate, which no file
    # or Prolog text takes: it is read as U+FFFD, as `atc remember` reads one
    return _LONE_SURROGATE.sub("\ufffd", value)


def log(home: Path, event: str, message: str) -> None:
    """Append one line to ``home/hooks.log`` (never raises: logging must not break a hook)."""
    try:
        if not home.is_dir():
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = " ".join(f"{stamp} {event} {message}".split())
        # under the log's lock, as atc forget rewrites it: a line appended meanwhile was lost
        append_line(home / "hooks.log", (line[:4000] + "\n").encode("utf-8", "replace"),
                    fsync=False, rotate_past=MAX_LOG_BYTES, rotated=home / "hooks.log.1")
    except OSError:
        pass


# -- per-session state ----------------------------------------------------------------------
def _state_path(home: Path, session_id: str) -> Path:
    return home / "hooks" / "sessions" / f"{session_key(session_id)}.json"


def injected_before(home: Path, session_id: str) -> set[str]:
    """Handles already injected into this hook session."""
    path = _state_path(home, session_id)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(h) for h in data.get("injected", [])}
    except (OSError, ValueError, AttributeError):
        return set()


def record_injected(home: Path, session_id: str, handles: list[str]) -> None:
    """Add ``handles`` to the session's injected set (and drop stale sessions' files)."""
    path = _state_path(home, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    known = injected_before(home, session_id)
    data = {"session_id": session_id, "updated": time.time(),
            "injected": sorted(known | set(handles))}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)
    cutoff = time.time() - SESSION_STATE_DAYS * 86400
    for other in path.parent.glob("*.json"):
        try:
            if other.stat().st_mtime < cutoff:
                other.unlink()
        except OSError:
            pass


# -- recall ---------------------------------------------------------------------------------
@dataclass
class Ambient:
    """The outcome of ambient recall for one prompt."""

    inject: bool
    frame: Any                      # the sealed Frame (facts kept; none when declined)
    decision: dict[str, Any]        # the receipt's ``ambient`` field

    @property
    def context(self) -> str:
        """The additional context to inject: the frame in its envelope ("" when declined)."""
        return self.frame.envelope if self.inject else ""


def recall_segments(mem: Any, cwd: str, named: tuple[str, ...] = ()) -> dict[str, float]:
    """Segment -> share of the budget for a prompt in ``cwd`` (only segments memory holds)."""
    from ..bridge import Var

    held = {str(s) for (s,) in mem.pl.solutions("atc_journal:journal_segment", Var())}
    if named:
        picked = [s for s in named if s in held]
        return {s: 1.0 / len(picked) for s in picked}
    project = project_segment(cwd) if cwd else ""
    shares = {project: 0.75, NOTES_SEGMENT: 0.25}
    present = {s: w for s, w in shares.items() if s and s in held}
    total = sum(present.values())
    return {s: w / total for s, w in present.items()}


@serialised  # a long-open Memory first takes in other processes' writes
def ambient_recall(mem: Any, prompt: str, *, session_id: str, budget: int = 800,
                   plane: str = "default", segments: dict[str, float] | None = None,
                   own_sources: tuple[str, ...] = (), min_score: float | None = None,
                   record: bool = True) -> Ambient:
    """Plan a frame for ``prompt``, decide whether to inject it (:func:`.ambient.decide`),
    keep only the facts worth injecting, and store the receipt with its ``ambient`` field.

    ``segments`` maps segment -> share of ``budget`` (None: the whole memory, the plane's
    split). With ``record``, the injected facts are remembered for ``session_id`` so later
    prompts of the session do not get them again.
    """
    from ..hydration import FrameFact, hydrate, seal_frame
    from ..ingest.frame_echo import strip_recalled
    from .ambient import decide, default_min_score, prompt_wants_memory

    # recalled memory pasted into the prompt (an envelope, the MCP hydrate tool's receipt
    # line, a frame as `atc hydrate` prints it) is not what the user asks: remember drops the same
    text = strip_recalled(prompt)
    bar = default_min_score(mem.jump.embedder_spec or "minilm") if min_score is None else min_score
    if segments is not None and not segments:
        return _declined(mem, text or prompt, budget, plane,
                         {"inject": False, "reason": "memory holds nothing for this project yet",
                          "best_score": None, "min_score": bar})
    why = prompt_wants_memory(text)
    if why:                                  # decided before any search is paid for
        return _declined(mem, text or prompt, budget, plane,
                         {"inject": False, "reason": why, "best_score": None, "min_score": bar})
    split = {s: int(budget * share) for s, share in (segments or {}).items()} or None
    planned = hydrate(mem, text, budget=budget, plane=plane, segments=split,
                      store_receipt=False)
    if split:
        planned = within_segments(planned, set(split))
    already = injected_before(mem.home, session_id)
    decision = decide(planned.receipt, text, already=already, own_sources=own_sources,
                      own_handles=_of_session(mem, [f.handle for f in planned.facts], session_id),
                      min_score=bar)
    keep = set(decision.keep)
    facts: tuple[FrameFact, ...] = tuple(f for f in planned.facts if f.handle in keep)
    receipt = dict(planned.receipt)
    receipt["facts"] = [f for f in receipt["facts"] if f["handle"] in keep]
    if not decision.inject:
        receipt["beyond"] = []
        receipt["suppressed"] = []
    # spent is the text the frame shows, its breadcrumbs' included (as hydrate counts it); the
    # frame's own lines (framing) are counted again when it is sealed
    segs = {name: {**seg, "spent": sum(f.tokens for f in facts if f.segment == name)
                   + sum(c["tokens"] for c in receipt["beyond"] if c["segment"] == name)}
            for name, seg in receipt["budget"]["segments"].items()}
    receipt["budget"] = {**receipt["budget"], "spent": sum(s["spent"] for s in segs.values()),
                         "segments": segs}
    receipt["ambient"] = {**decision.as_dict(), "session": session_id,
                          "considered": len(planned.facts)}
    frame = seal_frame(receipt, facts, home=mem.home)
    if decision.inject and record:
        record_injected(mem.home, session_id, [f.handle for f in facts])
    return Ambient(decision.inject, frame, receipt["ambient"])


def within_segments(frame: Any, segments: set[str]) -> Any:
    """FRAME (a planned :class:`~attention_cloud.hydration.Frame`) without its facts, left-out
    candidates and headings outside SEGMENTS. hydrate gives what the named segments leave
    unspent to the other segments that left relevant candidates out, so a prompt's frame
    drew on every segment in memory, another project's included, where recall names the
    project's and the notes' (or ``--segment``'s)."""
    from dataclasses import replace

    receipt = dict(frame.receipt)
    receipt["facts"] = [f for f in receipt["facts"] if f["segment"] in segments]
    receipt["beyond"] = [c for c in receipt["beyond"] if c.get("segment") in segments]
    receipt["budget"] = {**receipt["budget"],
                         "segments": {name: seg for name, seg in
                                      receipt["budget"]["segments"].items() if name in segments}}
    return replace(frame, receipt=receipt,
                   facts=tuple(f for f in frame.facts if f.segment in segments))


def _of_session(mem: Any, handles: list[str], session_id: str) -> frozenset[str]:
    """The records among ``handles`` that belong to session ``session_id`` (items, arcs, and
    the session's rollup): a Claude Code session's items carry its ``sessionId``."""
    from ..bridge import Atom, Var

    own = set()
    for handle in handles:
        h = Atom(handle)
        for pred in ("atc_journal:item_session", "atc_ladder:arc_session", "atc_ladder:rollup"):
            found = mem.pl.once(pred, h, Var())
            if found is not None:
                if str(found[0]) == session_id:
                    own.add(handle)
                break
    return frozenset(own)


def _declined(mem: Any, goal: str, budget: int, plane: str, decision: dict[str, Any]) -> Ambient:
    from ..hydration import ESTIMATOR, seal_frame

    receipt = {"goal": goal, "plane": plane,
               "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "budget": {"total": budget, "spent": 0, "segments": {}}, "ceiling": "L0",
               "path": "none", "anchor": None, "now": None,
               "tokens": {"estimated": True, "estimator": ESTIMATOR},
               "facts": [], "beyond": [], "suppressed": [], "bridged": [], "ambient": decision}
    return Ambient(False, seal_frame(receipt, (), home=mem.home), decision)


def hook_output(context: str) -> str:
    """The UserPromptSubmit hook's JSON output carrying ``context``."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                              "additionalContext": context}},
                      ensure_ascii=False)


def user_prompt(raw: bytes | str, home: Path, *, budget: int = 800, plane: str = "default",
                segments: tuple[str, ...] = (), min_score: float | None = None,
                memory: Any = None, via: str = "process") -> str:
    """What ``atc hook user-prompt`` prints for a payload: the hook output, or "" (declined,
    or failed: the reason goes to ``home/hooks.log``). Never raises.

    ``memory`` is a callable returning an open Memory that stays open (the recall server's);
    None opens the home for this call and closes it after. ``via`` is written to the log.
    """
    started = time.perf_counter()
    try:
        payload = read_payload(raw)
        prompt = _text_field(payload, "prompt", required=False)
        session = _text_field(payload, "session_id")
        cwd = _text_field(payload, "cwd", required=False)
        transcript = _text_field(payload, "transcript_path", required=False)
        if not (home / "journal.pl").exists() and not (home / "snapshot.qlf").exists():
            log(home, "user-prompt", f"session={session} no memory in {home} yet")
            return ""
        if memory is None:
            from ..memory import Memory

            mem = Memory.open(home, create=False)
        else:
            mem = memory()
        try:
            shares = recall_segments(mem, cwd, segments)
            own = tuple(p for p in (transcript, _subagent_dir(transcript)) if p)
            result = ambient_recall(mem, prompt, session_id=session, budget=budget, plane=plane,
                                    segments=shares, own_sources=own, min_score=min_score)
        finally:
            if memory is None:
                mem.close()
        took = 1000 * (time.perf_counter() - started)
        log(home, "user-prompt", f"session={session} via={via} inject={result.inject} "
                                 f"receipt={result.frame.receipt_id} ms={took:.0f} "
                                 f"{result.decision['reason']}")
        return hook_output(result.context) if result.inject else ""
    except BaseException as exc:  # noqa: BLE001 - a hook must never block the prompt
        log(home, "user-prompt", f"error: {_describe(exc)}")
        return ""


def _describe(exc: BaseException) -> str:
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
    return f"{type(exc).__name__}: {one_line(exc, 'cli') if str(exc).strip() else ''}{at}"


def _subagent_dir(transcript: str) -> str:
    """Claude Code 2.1 keeps a session's subagent transcripts in ``<session>/subagents/``."""
    if not transcript.endswith(".jsonl"):
        return ""
    return str(Path(transcript[: -len(".jsonl")]) / "subagents")


# -- capture --------------------------------------------------------------------------------
def capture(raw: bytes | str, home: Path, *, event: str, foreground: bool = False) -> str:
    """``atc hook stop|session-end``: ingest and curate the session's transcript (and its
    subagent transcripts) into the project segment. In the background unless ``foreground``:
    the hook returns at once and a detached process does the work. The home's recall server,
    when one runs, is asked to do it (it holds memory open and where it left each transcript,
    so a turn costs what the turn added: see :mod:`.recall_server`); when none answers, or it
    cannot write now, this process does it (a whole reading of the transcript). Never raises;
    errors go to ``home/hooks.log``, and a capture that fails leaves a mark
    (:mod:`.missed_captures`). Returns the line the hook prints on stderr, with status 1, or
    "": an earlier capture of the session failed, or (``foreground``) this one did."""
    try:
        payload = read_payload(raw)
        session = _text_field(payload, "session_id", required=False)
        transcript = _text_field(payload, "transcript_path")
        cwd = _text_field(payload, "cwd", required=False)
        if not Path(transcript).is_file():
            raise HookInputError(f"transcript {transcript} is not a file")
    except BaseException as exc:  # noqa: BLE001
        log(home, event, f"error: {_describe(exc)}")
        return ""
    notice = stop_notice(home, session)
    if not foreground and _detach():
        return notice                        # the parent: the hook is done
    if home.is_dir():                        # a home the capture makes has no mark to hold
        mark_capturing(home, event=event, session_id=session, transcript=transcript, cwd=cwd)
    try:
        served = _captured_by_server(home, event, session, transcript, cwd)
        if not served:
            _ingest_session(home, event, session, transcript, cwd,
                            wait=None if foreground else CAPTURE_LOCK_WAIT_S)
        clear_mark(home, session)
        if served is None and event == "stop":
            from .recall_server import start

            start(home)                      # after the capture: the next turn's is warm
    except WriterBusy as exc:   # waited for, or --foreground: the next Stop catches up, as said
        log(home, event, f"session={session} error: {_describe(exc)}")
        clear_mark(home, session, completed=False)
    except BaseException as exc:  # noqa: BLE001
        log(home, event, f"session={session} error: {_describe(exc)}")
        why = write_refused(exc) or (one_line(exc, "cli") if str(exc).strip()
                                     else type(exc).__name__)
        mark_missed(home, event=event, session_id=session, transcript=transcript, cwd=cwd,
                    why=why)
        if foreground:   # said now, once: the mark says it to the next hook and to doctor
            notice = (f"atc: this turn's capture failed ({why}); the next turn's capture "
                      "reads the transcript again")
    finally:
        if not foreground:
            os._exit(0)
    return notice


def _captured_by_server(home: Path, event: str, session: str, transcript: str,
                        cwd: str) -> bool | None:
    """True when the home's recall server captured the session; False when it is off
    (``ATC_HOOK_SERVER=off``), could not take the write lock at once, or failed (it logged
    why); None when none answered (none runs, or it died): the caller captures cold."""
    from ..errors import UsageError
    from .recall_server import CAPTURE_TIMEOUT_S, ask, enabled

    try:
        if not enabled():
            return False
    except UsageError as exc:                # ATC_HOOK_SERVER unreadable: the turn still counts
        log(home, event, f"session={session} {one_line(exc, 'cli')}; captured without the server")
        return False
    answer = ask(home, {"capture": {"event": event, "session_id": session,
                                    "transcript_path": transcript, "cwd": cwd}},
                 timeout=CAPTURE_TIMEOUT_S)
    if answer is None:
        return None
    return isinstance(answer, dict) and answer.get("captured") is True


def capture_warm(request: Any, home: Path, memory: Any) -> dict[str, Any]:
    """The recall server's answer to a capture request (``{"capture": {"event", "session_id",
    "transcript_path", "cwd"}}``): ``{"captured": true}`` once done with ``memory`` (its
    :class:`~.memory_host.MemoryHost`), ``{"captured": false, "why": ...}`` when another
    process holds the write lock: the server never waits for it, as a prompt may be waiting
    behind this request, so the hook's own process captures, waiting as usual."""
    from ..errors import WriterBusy

    if not isinstance(request, dict):
        raise HookInputError("capture request is not a JSON object")
    event = request.get("event")
    if event not in ("stop", "session-end"):
        raise HookInputError(f"capture request names no hook event ({event!r})")
    session = _text_field(request, "session_id", required=False)
    transcript = _text_field(request, "transcript_path")
    cwd = _text_field(request, "cwd", required=False)
    try:
        _ingest_session(home, event, session, transcript, cwd, host=memory)
    except WriterBusy as exc:
        return {"captured": False, "why": one_line(exc, "cli")}
    return {"captured": True}


def _ingest_session(home: Path, event: str, session: str, transcript: str, cwd: str,
                    wait: float | None = None, host: Any = None) -> None:
    """Ingest and curate the session's files; ``wait``: seconds to wait for the write lock
    (None: the usual wait, at once unless ``atc watch`` follows the home). ``host``: the
    recall server's :class:`~.memory_host.MemoryHost`, whose memory stays open (the lock is
    taken at once or HomeError, and given back after); None opens the home for this call."""
    from ..memory import Memory

    paths = [transcript]
    sub = _subagent_dir(transcript)
    if sub and Path(sub).is_dir():
        paths.append(sub)
    segment = project_segment(cwd or str(Path(transcript).parent))
    started = time.perf_counter()
    if host is None:
        with Memory.open(home) as mem:
            mem.acquire(wait)
            report, curated = _ingest_and_curate(mem, paths, segment)
    else:
        mem = host.memory()
        mem.acquire(0)
        try:
            report, curated = _ingest_and_curate(mem, paths, segment)
        finally:
            host.wrote()
    # a transcript not read (no format recognised, unreadable) is said, not logged as new=0
    not_read = "".join(f"; {Path(name).name} not read ({reason})"
                       for name, reason in report.files_skipped)
    log(home, event, f"session={session} segment={segment} via={'server' if host else 'process'} "
                     f"new={report.new} unchanged={report.unchanged} "
                     f"curated={curated.get('items', 0)} in {time.perf_counter() - started:.1f} s"
                     f"{not_read}")


def _ingest_and_curate(mem: Any, paths: list[str], segment: str) -> tuple[Any, dict[str, Any]]:
    report = mem.ingest(paths, segment=segment, strict=False)
    return report, (mem.curate().as_dict() if report.new else {})


def _detach() -> bool:
    """Fork a detached worker: True in the parent (which returns), False in the worker."""
    pid = os.fork()
    if pid > 0:
        os.waitpid(pid, 0)                   # the first child exits at once
        return True
    os.setsid()
    if os.fork() > 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    return False
