"""``atc install|uninstall claude-code``: add the hooks to Claude Code's settings, reversibly.

Install merges three hook entries into ``settings.json`` (``--user``: ``~/.claude/``;
``--project``: ``./.claude/`` of the current directory), keeping everything the file held:

- ``UserPromptSubmit`` → ``atc hook user-prompt`` (recall before each prompt),
- ``Stop`` → ``atc hook stop`` (capture after each turn, in the background),
- ``SessionEnd`` → ``atc hook session-end`` (capture when the session ends).

Beside the settings it writes ``attention-cloud.install.json``, the record of what it changed
(the file's bytes before, a digest of the bytes it wrote, the entries it added). Uninstall
reads it: when the settings are still exactly what install wrote, the original bytes come back
byte for byte (or the file goes, when install created it); when the user edited the file since,
exactly the added entries are taken out and the rest is kept.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError

#: Hook event -> the ``atc`` subcommand it runs.
HOOK_COMMANDS = {"UserPromptSubmit": "hook user-prompt", "Stop": "hook stop",
                 "SessionEnd": "hook session-end"}

RECORD_NAME = "attention-cloud.install.json"

#: Seconds Claude Code may give each hook before giving up on it.
HOOK_TIMEOUT_S = 30


def settings_path(scope: str, project_dir: Path | None = None) -> Path:
    """Claude Code's settings.json for ``scope`` (``user`` or ``project``)."""
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    if scope == "project":
        return (project_dir or Path.cwd()) / ".claude" / "settings.json"
    raise InputError(f"scope must be user or project, not {scope!r}")


def atc_command(home: str | None = None) -> str:
    """The command line that runs this ``atc`` (absolute, so hooks work without the venv on
    PATH), with ``--home`` when one was given."""
    beside = Path(sys.executable).parent / "atc"       # the atc of this very installation
    found = str(beside) if beside.is_file() else shutil.which("atc")
    if found:
        line = shlex.quote(str(Path(found).absolute()))
    else:
        line = (f"{shlex.quote(sys.executable)} -c "
                "'from attention_cloud.cli import main; main()'")
    if home:
        line += f" --home {shlex.quote(str(Path(home).expanduser().resolve()))}"
    return line


def _entry(command: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]}


@dataclass
class Plan:
    """What install would change."""

    path: Path
    before: bytes | None            # None: the file does not exist
    after: bytes
    added: dict[str, str]           # event -> command added (empty: already installed)

    def diff(self) -> str:
        """A unified diff of the settings file."""
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8").splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(old, new, name if self.before is not None else "/dev/null",
                                     name)
        # a last line without its newline would run into the next line of the diff
        return "".join(line if line.endswith("\n") else
                       f"{line}\n\\ No newline at end of file\n" for line in lines)


def _load(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    raw = path.read_bytes()
    if not raw.strip():
        return raw, {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc}); fix it first, nothing was changed") \
            from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: settings must be a JSON object; nothing was changed")
    if not isinstance(data.get("hooks", {}), dict):
        raise InputError(f"{path}: its \"hooks\" is not an object; nothing was changed")
    return raw, data


def _dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def plan_install(path: Path, command: str) -> Plan:
    """The change install makes to ``path``: each hook entry added unless already there. An
    entry an earlier install added with another command (another ``--home``, another ``atc``)
    is replaced where it stands, so the hooks never recall from and capture into two homes."""
    before, data = _load(path)
    earlier = (_read_record(path.parent / RECORD_NAME) or {}).get("added", {})
    hooks = data.setdefault("hooks", {})
    added: dict[str, str] = {}
    for event, sub in HOOK_COMMANDS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InputError(f"{path}: hooks.{event} is not a list; nothing was changed")
        line = f"{command} {sub}"
        old = earlier.get(event)
        if old and old != line and _entry(old) in groups:
            at = groups.index(_entry(old))
            groups[:] = [g for g in groups if g != _entry(old)]
            if not any(_has_command(g, line) for g in groups):
                groups.insert(at, _entry(line))
            added[event] = line
        elif not any(_has_command(g, line) for g in groups):
            groups.append(_entry(line))
            added[event] = line
    after = _dump(data) if added else (before or b"")
    return Plan(path, before, after, added)


def _has_command(group: Any, line: str) -> bool:
    return isinstance(group, dict) and any(
        isinstance(h, dict) and h.get("command") == line for h in group.get("hooks", []))


def install(plan: Plan) -> None:
    """Write the planned settings and the record uninstall reads."""
    if not plan.added:
        return
    record_path = plan.path.parent / RECORD_NAME
    created_dir = not plan.path.parent.exists()
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    previous = _read_record(record_path)
    record = {"settings": str(plan.path),
              "original": None if plan.before is None else plan.before.decode("utf-8"),
              "created_dir": created_dir, "restore": True, "added": plan.added}
    if previous and _holds_entries(plan.before, previous.get("added", {})):
        record["added"] = {**previous.get("added", {}), **plan.added}
        record["created_dir"] = previous.get("created_dir", False)
        if plan.before is not None and previous.get("restore", True) and \
                hashlib.sha256(plan.before).hexdigest() == previous.get("written_sha256"):
            record["original"] = previous.get("original")     # still the first original
        else:
            # edited since the earlier install: its original would drop those edits, so
            # uninstall takes the entries out instead of restoring bytes
            record["restore"] = False
    record["written_sha256"] = hashlib.sha256(plan.after).hexdigest()
    _write(plan.path, plan.after)
    # the record holds the original bytes: no more readable than the settings themselves
    _write(record_path, _dump(record), mode=_mode(plan.path) & 0o600)


def _holds_entries(raw: bytes | None, added: dict[str, str]) -> bool:
    """Whether settings ``raw`` still hold any hook entry an earlier install added."""
    try:
        hooks = json.loads(raw.decode("utf-8")).get("hooks", {}) if raw and raw.strip() else {}
    except (ValueError, UnicodeDecodeError, AttributeError):
        return False
    return any(isinstance(hooks.get(event), list) and _entry(line) in hooks[event]
               for event, line in added.items())


def _read_record(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: install record unreadable ({exc})") from None
    return data if isinstance(data, dict) else None


def _target(path: Path) -> Path:
    """The file ``path`` names: a symlink's target (a dotfile manager's tracked file), so a
    write goes through the link instead of replacing it."""
    return Path(os.path.realpath(path))


def _mode(path: Path) -> int:
    """The permission bits of the file ``path`` names (0o644 when there is none)."""
    try:
        return stat.S_IMODE(_target(path).stat().st_mode)
    except OSError:
        return 0o644


def _write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace the file ``path`` names atomically, keeping its permission bits (``mode``:
    these instead)."""
    target = _target(path)
    keep = _mode(path) if mode is None else mode
    tmp = target.with_name(target.name + ".atc-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, keep)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.chmod(tmp, keep)                       # os.open's mode is cut by the umask
    tmp.replace(target)


def uninstall(path: Path) -> str:
    """Remove what install added to ``path``; returns what was done (one line).

    Raises InputError when no install by atc is recorded there.
    """
    record_path = path.parent / RECORD_NAME
    record = _read_record(record_path)
    if record is None:
        raise InputError(f"{path}: attention-cloud is not installed here (no {RECORD_NAME})")
    current = path.read_bytes() if path.exists() else None
    if current is not None and record.get("restore", True) and \
            hashlib.sha256(current).hexdigest() == record.get("written_sha256"):
        original = record.get("original")
        if original is None:
            _target(path).unlink()
            done = f"removed {path} (install created it)"
        else:
            _write(path, original.encode("utf-8"))
            done = f"restored {path} as it was before install"
    elif current is None:
        done = f"{path} is gone already; nothing to remove"
    else:
        _, data = _load(path)
        hooks = data.get("hooks", {})
        removed = 0
        for event, line in record.get("added", {}).items():
            groups = hooks.get(event)
            if not isinstance(groups, list):
                continue
            kept = [g for g in groups if g != _entry(line)]
            removed += len(groups) - len(kept)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks and "hooks" in data:
            del data["hooks"]
        _write(path, _dump(data))
        done = f"removed {removed} hook entries from {path} (edited since install: other " \
               "changes kept)"
    record_path.unlink()
    if record.get("created_dir"):
        try:
            path.parent.rmdir()              # only when empty
        except OSError:
            pass
    return done
