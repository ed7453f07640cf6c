"""A Claude Code 2.1 transcript record, as the tests that write small sessions build them."""
from __future__ import annotations


def cc21_record(n: int, kind: str, content: object, *, session: str, cwd: str, branch: str,
                timestamp: str) -> dict:
    """Record ``n`` of a session: a ``user`` or ``assistant`` message holding ``content``."""
    return {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
        "sessionId": session, "version": "2.1.39", "gitBranch": branch, "type": kind,
        "message": {"role": "user" if kind == "user" else "assistant", "content": content},
        "uuid": f"u-{n:04d}", "timestamp": timestamp,
    }
