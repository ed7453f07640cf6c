"""A Claude Code 2.1 transcript record, as the tests that write small sessions build them, and
the plain-text frame recall prints, as the tests of what recall leaves in a transcript need it."""
from __future__ import annotations

import json


def cc21_record(n: int, kind: str, content: object, *, session: str, cwd: str, branch: str,
                timestamp: str) -> dict:
    """Record ``n`` of a session: a ``user`` or ``assistant`` message holding ``content``."""
    return {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
        "sessionId": session, "version": "2.1.39", "gitBranch": branch, "type": kind,
        "message": {"role": "user" if kind == "user" else "assistant", "content": content},
        "uuid": f"u-{n:04d}", "timestamp": timestamp,
    }


def cc21_turn(session: str, start: int, prompt: str, step: str) -> list[dict]:
    """Records ``start`` to ``start + 2`` of a session: a prompt, a Bash call
    (``python export.py --<step>``) and its failing result, chained by ``parentUuid``."""
    records = []
    for n, kind, content in (
        (start, "user", prompt),
        (start + 1, "assistant", [{"type": "tool_use", "id": f"toolu_{start}", "name": "Bash",
                                   "input": {"command": f"python export.py --{step}"}}]),
        (start + 2, "user", [{"tool_use_id": f"toolu_{start}", "type": "tool_result",
                              "is_error": True,
                              "content": f"KeyError: 'created_at' in export.py ({step})"}]),
    ):
        record = cc21_record(n, kind, content, session=session, cwd="/srv/app", branch="main",
                             timestamp=f"2026-03-02T10:{n:02d}:00.000Z")
        record["parentUuid"] = f"u-{n - 1:04d}" if n > 1 else None
        records.append(record)
    return records


def write_records(path, records: list[dict]):
    """``path`` (its folder made) holding ``records``, one JSON line each; returns it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def resumed_real_session(real, folder, new_id: str, copies: str):
    """The real session ``real`` cut where its user typed "continue until all are done", as
    ``claude --resume`` would leave it: ``(old file, resumed file)`` in ``folder``, the old
    file its lines before the cut, the resumed file ``<new_id>.jsonl`` the records from the
    cut on under ``new_id``, after a copy of the old ones (``copies``: ``"kept"`` with their
    id, ``"rewritten"`` under ``new_id``, or ``"none"``)."""
    lines = real.read_text(encoding="utf-8").splitlines()
    cut = next(n for n, line in enumerate(lines)
               if '"content":"continue until all are done"' in line)
    records = [json.loads(line) for line in lines]
    moved = [dict(r, sessionId=new_id) if "sessionId" in r else r for r in records]
    before = {"kept": records[:cut], "rewritten": moved[:cut], "none": []}[copies]
    old = folder / f"{records[cut]['sessionId']}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    old.write_text("\n".join(lines[:cut]) + "\n")
    return old, write_records(folder / f"{new_id}.jsonl", before + moved[cut:])


def cc21_appender(records: list[dict], *, session: str, cwd: str, branch: str,
                  stamp: str = "2026-03-01T09:00:{n:02d}.000Z"):
    """A function ``add(kind, content, **extra)`` that appends record ``len(records) + 1`` of
    a session to ``records`` (``extra``: fields beside the message, e.g. ``toolUseResult``);
    ``stamp`` is its timestamp, formatted with the record's number ``n``."""

    def add(kind: str, content: object, **extra: object) -> None:
        n = len(records) + 1
        record = cc21_record(n, kind, content, session=session, cwd=cwd, branch=branch,
                             timestamp=stamp.format(n=n))
        record.update(extra)
        records.append(record)

    return add


def recalled_frame(goal: str, receipt_id: str, day: str, recalled: str) -> str:
    """A frame as ``atc hydrate`` prints it for ``goal`` (its heading and status line), holding
    one item that says ``recalled`` on ``day`` (``Tue 2026-02-10``)."""
    from attention_cloud.hydration import _head_lines

    iso = day.split()[-1]
    return "\n".join(_head_lines(goal, "default", "hybrid", 22, 400, receipt_id, f"{iso}T10:00:00Z")
                     + ["", day, "[L0 09:12]", f"user: {recalled}"])
