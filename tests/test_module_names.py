"""No project module may shadow a module of SWI-Prolog's library.

rules/when.pl was once module `when`: library(sandbox) loads SWI-Prolog's own library(when) when
it checks format/3, and the second module of that name was refused, so every goal and rule file
that used item_source/2 failed. Every project module now carries the `atc_` prefix; this test
reads the module declaration of each project file and of every file in the library of each
SWI-Prolog found (the system one and the local janus build) and fails on any name in both.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE = re.compile(r"^:-\s*module\(\s*([a-z][A-Za-z0-9_]*)\s*,", re.MULTILINE)


def _module_of(path: Path) -> str | None:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:20_000]
    except OSError:
        return None
    found = MODULE.search(head)
    return found.group(1) if found else None


def project_modules() -> dict[str, Path]:
    """Module name -> file, for every Prolog file the project ships."""
    found = {}
    for folder in ("rules", "facts"):
        for path in sorted((ROOT / folder).glob("*.pl")):
            name = _module_of(path)
            if name:
                found[name] = path
    return found


def _library_homes() -> list[Path]:
    homes = []
    swipl = subprocess.run(["swipl", "--dump-runtime-variables"], capture_output=True, text=True,
                           check=False)
    match = re.search(r'^PLBASE="([^"]+)"', swipl.stdout, re.MULTILINE)
    if match:
        homes.append(Path(match.group(1)))
    local = ROOT / ".local" / "swipl" / "lib" / "swipl"
    if local.is_dir():
        homes.append(local)
    return homes


def library_modules(home: Path) -> set[str]:
    """Every module name declared by a file under ``home/library``."""
    return {name for path in (home / "library").rglob("*.pl") if (name := _module_of(path))}


def test_project_modules_are_found():
    modules = project_modules()
    assert {"atc_journal", "atc_when", "atc_memory", "atc_api"} <= set(modules)


def test_every_project_module_has_the_prefix():
    assert [name for name in project_modules() if not name.startswith("atc_")] == []


@pytest.mark.parametrize("home", _library_homes(), ids=lambda h: str(h))
def test_no_project_module_shadows_a_library_module(home):
    library = library_modules(home)
    assert "when" in library and "lists" in library  # really read the library
    clashes = {name: str(path) for name, path in project_modules().items() if name in library}
    assert clashes == {}
