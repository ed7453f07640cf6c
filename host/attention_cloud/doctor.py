"""``atc doctor``: is everything this installation needs present, and which bridge runs."""
from __future__ import annotations

import importlib.util
import platform

from .agents.missed_captures import doctor_lines
from .errors import AtcError
from .home import (check_not_foreign, config_warnings, embedder_file_missing, files_bytes,
                   read_config, resolve_home)


#: A report line naming a problem holds one of these words (a part missing or unusable, a folder
#: that is no home, an index cut, an erasure a kill left half done, a hook's capture that
#: failed): what a script reading the report (the soaks: scripts/bench/bench_env.py) looks
#: for, kept beside the lines that say them.
PROBLEM_WORDS = ("MISSING", "UNUSABLE", "NOT A HOME", "CUT", "erasure interrupted",
                 "NOT CAPTURED")


def run_doctor(home: str | None) -> tuple[bool, list[str]]:
    """Return (all required parts present, report lines)."""
    lines = [f"python: {platform.python_version()}"]
    ok = True
    try:
        from .bridge import get_prolog

        pl = get_prolog()
        lines.append(f"swi-prolog: {pl.version}")
        lines.append(f"bridge: {pl.backend} ({pl.backend_reason})")
        lines.append(f"rules: {_rules_origin(pl.rules_origin)}")
    except AtcError as exc:
        ok = False
        lines.append(f"swi-prolog: MISSING ({exc})")
    except Exception as exc:  # noqa: BLE001 - doctor reports whatever breaks loading
        ok = False
        lines.append(f"swi-prolog: MISSING ({type(exc).__name__}: {exc})")
    for module, required in (("faiss", True), ("numpy", True), ("onnxruntime", False),
                             ("janus_swi", False)):
        present = importlib.util.find_spec(module) is not None
        ok = ok and (present or not required)
        status = "ok" if present else ("MISSING" if required else "absent (optional)")
        lines.append(f"{module}: {status}")
    path = resolve_home(home)
    lines.append(f"home: {path} ({'exists' if path.exists() else 'not created yet'})")
    try:
        check_not_foreign(path)
    except AtcError as exc:
        ok = False                    # every command stops on it: doctor says why
        lines.append(f"  NOT A HOME, every command stops on it ({exc})")
        return ok, lines
    if path.is_dir() and path.stat().st_mode & 0o077:
        # not an error (a group may share a home on purpose), but never a surprise: a home
        # older atc made under umask 022 is readable by every user of the machine
        lines.append(f"  mode: {path.stat().st_mode & 0o777:o}, other users can read this "
                     f"memory (chmod 700 {path} makes it yours alone)")
    for name in ("journal.pl", "snapshot.qlf", "vectors", "receipts"):
        target = path / name
        if target.exists():
            lines.append(f"  {name}: {files_bytes(target) if target.is_dir() else target.stat().st_size} bytes")
    interrupted = _interrupted_erasure(path)
    if interrupted:
        lines.append(f"  {interrupted}")
    missed = doctor_lines(path)       # a hook's capture failed: a turn is not in memory
    ok = ok and not missed
    lines.extend(f"  {line}" for line in missed)
    damaged = _damaged_indexes(path)
    ok = ok and not damaged
    lines.extend(f"  {line}" for line in damaged)
    if (path / "config.json").is_file():
        # every other command stops on a config.json it cannot use: doctor names why
        try:
            notes = config_warnings(read_config(path))
        except AtcError as exc:
            ok = False
            lines.append(f"  config.json: UNUSABLE, every command stops on it ({exc})")
        else:
            lines.append("  config.json: ok" + "".join(f"; {note}" for note in notes))
            ok = _embedder_line(read_config(path).get("embedder"), lines) and ok
    else:                             # no config.json: the default embedder
        ok = _embedder_line(None, lines) and ok
    return ok, lines


def _embedder_line(spec: object, lines: list[str]) -> bool:
    """Add a line when the home's embedder cannot load (its package or a file is missing);
    whether it can."""
    missing = embedder_file_missing(spec)
    if missing:
        lines.append(f"  embedder: MISSING, {missing} (atc curate, atc remember and searches "
                     "by meaning stop on it)")
    return not missing


def _damaged_indexes(home) -> list[str]:
    """A line for the vector store and the BM25 index each, when its files hold less than its
    writer committed (damaged between runs): every frame stops on it until it is rebuilt."""
    from .embed.lexical import LexicalIndex, cut_notice
    from .embed.store import check_store

    lines = []
    try:
        check_store(home / "vectors")
    except (AtcError, OSError) as exc:
        lines.append(f"vectors: DAMAGED, frames stop on it ({exc})")
    try:
        if (home / "lexical").is_dir():
            LexicalIndex.open(home / "lexical", read_only=True).close()
    except (AtcError, OSError) as exc:
        lines.append(f"lexical: DAMAGED, frames stop on it ({exc})")
    notice = cut_notice(home / "lexical")
    if notice:
        lines.append(f"lexical: CUT, {notice}")
    return lines


def _interrupted_erasure(home) -> str:
    """A line on an erasure a kill left half done (its plan file is still there), or "": the
    forgotten text may still be on disk until a writer finishes it."""
    import json

    from .erasure import PENDING_FILE

    try:
        plan = json.loads((home / PENDING_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ""
    except (OSError, ValueError):
        plan = {}
    count = len(plan.get("handles", [])) if isinstance(plan, dict) else 0
    return (f"erasure interrupted ({count} item{'s' if count != 1 else ''}, {PENDING_FILE}): "
            "their text may still be on disk; atc forget HANDLE --yes, atc curate or atc "
            "ingest finishes it")


def _rules_origin(origin: str) -> str:
    """Where this process's rules came from (bridge/rules_cache.py), as doctor says it."""
    from .paths import cache_dir

    folder = cache_dir() / "rules"
    if origin == "cache":
        return f"loaded compiled, from {folder}"
    if origin == "compiled":
        return f"loaded from source and compiled into {folder} for the next processes"
    return (f"loaded from source at every start: {folder} cannot be written, or other users "
            f"may write it (set ATC_CACHE to a private folder)")
