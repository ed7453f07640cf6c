"""Claude Code subagent files inherit the goal of the parent turn that launched them.

A subagent's transcript is its own file, ``<project>/<session>/subagents/agent-<id>.jsonl``,
written beside its parent session ``<project>/<session>.jsonl``. Nothing in it says what the
user wanted: its "user" is the main agent's prompt. The parent session says it: the ``Task`` (or
``Agent``) call that launched agent ``<id>`` was made while a user goal was active, and every
item of the subagent's file takes that goal (see :mod:`.claude_code` for how the parent's
parse records it in ``ParseResult.launches``).

:class:`GoalResolver` answers "which goal launched agent ``<id>``" from, in this order:

1. the parent transcripts parsed in the same call (whatever order the files came in);
2. a lookup the caller supplies, e.g. the journal (``Memory.ingest`` asks it for the item
   linked ``relation(H, launched_agent, Id)``, the launching call's result, and takes its goal);
3. the parent session file on disk beside the subagent's folder (or, in the older layout with
   ``agent-<id>.jsonl`` beside the sessions, the session file its records name), parsed for
   its launches.

Each source gives the same answer for the same parent (the goal at the launching call), so the
result does not depend on the order files are ingested in. When none knows the agent, the items
keep goal ``""`` and the caller reports it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import InputError
from .records import ItemRecord, ParseResult


def inherit_goal(items: Iterable[ItemRecord], goal: str) -> list[ItemRecord]:
    """``items`` with every empty goal replaced by ``goal`` (handles do not depend on goals,
    so they are unchanged)."""
    return [item if item.goal else dataclasses.replace(item, goal=goal) for item in items]


def parent_session_file(path: str | os.PathLike[str], session: str = "") -> Path | None:
    """The parent session transcript of a subagent file, when it exists: as Claude Code 2.x
    lays it out (``<dir>/<session>/subagents/agent-<id>.jsonl`` -> ``<dir>/<session>.jsonl``),
    or, for the older layout with subagent files beside the sessions, ``<session>.jsonl`` in
    the same folder (``session``: the session id the subagent's records carry). Else None."""
    subagent = Path(path)
    folder = subagent.parent
    candidates = []
    if folder.name == "subagents":
        candidates.append(folder.parent.with_name(folder.parent.name + subagent.suffix))
    if session and "/" not in session and session not in (".", ".."):
        candidates.append(folder / f"{session}{subagent.suffix}")
    return next((c for c in candidates if c != subagent and c.is_file()), None)


class GoalResolver:
    """Finds the launching goal of subagents (see the module docstring for the order).

    Args:
        lookup: ``agent id -> goal or None`` from elsewhere (the journal); None: no such source.
        max_file_bytes: the size limit for reading a parent session file from disk.
    """

    def __init__(
        self,
        lookup: Callable[[str], str | None] | None = None,
        *,
        max_file_bytes: int | None = None,
    ) -> None:
        self.launches: dict[str, str] = {}
        self.lookup = lookup
        self.max_file_bytes = max_file_bytes
        self._files_read: dict[Path, dict[str, str]] = {}

    def add(self, result: ParseResult) -> None:
        """Learn the launches of one parsed transcript (the first launch of an id wins)."""
        for agent, goal in result.launches.items():
            self.launches.setdefault(agent, goal)

    def goal(
        self, agent: str, path: str | os.PathLike[str] | None = None, session: str = ""
    ) -> str | None:
        """The goal that launched ``agent`` (whose file is ``path`` and whose records name
        ``session``), or None when unknown."""
        if agent in self.launches:
            return self.launches[agent]
        if self.lookup is not None:
            found = self.lookup(agent)
            if found is not None:
                return found
        parent = parent_session_file(path, session) if path is not None else None
        if parent is None:
            return None
        if parent not in self._files_read:
            self._files_read[parent] = self._launches_in(parent)
        return self._files_read[parent].get(agent)

    def _launches_in(self, parent: Path) -> dict[str, str]:
        from .api import parse_path  # the parser imports this module's package

        kwargs = {} if self.max_file_bytes is None else {"max_file_bytes": self.max_file_bytes}
        try:
            return parse_path(parent, format="claude-code", **kwargs).launches
        except InputError:
            return {}
