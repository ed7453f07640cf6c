"""Both bridge backends keep the same contract.

SWI-Prolog is initialised once per process, so each backend runs in its own child process
(``ATC_PROLOG=pyswip|janus``): tests/test_bridge.py must pass on each, and tests/janus/probe.py must
print the same values, error terms and messages on both. The janus codec's plunit suite
(tests/janus/test_janus_codec.pl) runs on each SWI-Prolog found. The janus backend needs
``scripts/setup --janus`` (SWI-Prolog 9.2 in .local/swipl, janus-swi in .venv); without it those
cases are skipped and say why.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.bridge import janus_engine

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "tests" / "janus" / "probe.py"


def _janus_missing() -> str | None:
    """Why the janus backend cannot run here, or None when it can."""
    if not (ROOT / ".local" / "swipl").is_dir():
        return "no SWI-Prolog in .local/swipl (build it with scripts/setup --janus)"
    # locate_janus, not janus_status: this process may hold pyswip's SWI-Prolog; children do not.
    location = janus_engine.locate_janus()
    return None if location.usable else location.reason


def _run(backend: str, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ATC_PROLOG": backend}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def _need(backend: str) -> None:
    if backend == "janus":
        missing = _janus_missing()
        if missing:
            pytest.skip(f"janus backend unavailable: {missing}")


@pytest.mark.parametrize("backend", ["pyswip", "janus"])
def test_bridge_suite_passes_on_each_backend(backend):
    _need(backend)
    proc = _run(backend, "-m", "pytest", "-p", "no:cacheprovider", "tests/test_bridge.py")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    summary = proc.stdout.strip().splitlines()[-1]
    assert re.search(r"\b\d+ passed\b", summary) and "skipped" not in summary, summary


def test_backends_return_the_same_values_errors_and_messages():
    _need("janus")
    lines = {}
    for backend in ("pyswip", "janus"):
        proc = _run(backend, str(PROBE))
        assert proc.returncode == 0, proc.stderr[-4000:]
        assert f'"backend": "{backend}"' in proc.stderr  # really ran on the backend asked for
        lines[backend] = proc.stdout.splitlines()
    assert len(lines["pyswip"]) > 20
    for ours, theirs in zip(lines["pyswip"], lines["janus"], strict=True):
        assert ours == theirs


def test_janus_leaves_swi_home_alone_for_child_processes():
    # A system swipl of another version started after janus must not see janus's home.
    _need("janus")
    swipl = shutil.which("swipl")
    code = ("import os, subprocess, sys\n"
            "from attention_cloud.bridge import get_prolog\n"
            "before = os.environ.get('SWI_HOME_DIR')\n"
            "pl = get_prolog()\n"
            "assert pl.backend == 'janus', pl.backend\n"
            "assert os.environ.get('SWI_HOME_DIR') == before\n"
            "if sys.argv[1]:\n"
            "    rc = subprocess.run([sys.argv[1], '-g', 'halt'], capture_output=True).returncode\n"
            "    assert rc == 0, rc\n")
    proc = _run("janus", "-c", code, swipl or "")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_janus_declines_once_pyswip_has_loaded_another_swi_prolog():
    # Importing janus then would bind it to the wrong libswipl; the status must say no instead.
    _need("janus")
    code = ("from attention_cloud.bridge import get_prolog, janus_engine\n"
            "assert get_prolog().backend == 'pyswip'\n"
            "usable, why = janus_engine.janus_status()\n"
            "assert not usable and 'already loaded' in why, why\n")
    proc = _run("pyswip", "-c", code)
    assert proc.returncode == 0, proc.stderr[-4000:]


def _swipl_builds() -> list[tuple[str, list[str], dict[str, str]]]:
    """(id, command, extra environment) for the system swipl and the one in .local/swipl."""
    found = []
    if shutil.which("swipl"):
        found.append(("system", [shutil.which("swipl")], {}))
    local = ROOT / ".local" / "swipl"
    if (local / "bin" / "swipl").exists():
        found.append(("local", [str(local / "bin" / "swipl")],
                      {"SWI_HOME_DIR": str(local / "lib" / "swipl")}))
    return found


@pytest.mark.parametrize("build", _swipl_builds(), ids=lambda b: b[0])
def test_codec_plunit_suite_passes(build):
    _, command, extra = build
    env = {k: v for k, v in os.environ.items() if k != "SWI_HOME_DIR"} | extra
    proc = subprocess.run([*command, "-q", "-g", "run_tests", "-t", "halt",
                           str(ROOT / "tests" / "janus" / "test_janus_codec.pl")],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]


@pytest.fixture
def fresh_location(monkeypatch):
    """Forget the cached janus location for one test (and restore it after)."""
    monkeypatch.setattr(janus_engine, "_location", None)
    yield
    janus_engine._location = None


def _fake_home(root: Path, plversion: int) -> Path:
    home = root / "lib" / "swipl"
    (home / "include").mkdir(parents=True)
    (home / "boot.prc").write_bytes(b"")
    (home / "include" / "SWI-Prolog.h").write_text(f"#define PLVERSION {plversion}\n")
    lib = home / "lib" / "x86_64-linux" / "libswipl.so.9"
    lib.parent.mkdir(parents=True)
    lib.write_bytes(b"")
    return lib


def _fake_janus(tmp_path: Path, monkeypatch, lib: Path | None, why: str = "") -> None:
    package = tmp_path / "site" / "janus_swi"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise SystemExit('janus_swi must not be imported')\n")
    (package / "_swipl.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.delitem(sys.modules, "janus_swi", raising=False)
    monkeypatch.setattr(janus_engine, "_linked_libswipl", lambda ext: (lib, why))
    # This test process may run the pyswip backend: only the fake library is of interest here.
    monkeypatch.setattr(janus_engine, "_other_libswipl_loaded", lambda library: None)


def test_status_rejects_an_old_swi_prolog_without_importing_janus(tmp_path, monkeypatch,
                                                                  fresh_location):
    _fake_janus(tmp_path, monkeypatch, _fake_home(tmp_path / "old", 90004))
    usable, why = janus_engine.janus_status()
    assert not usable
    assert "9.0.4" in why and "9.1.12" in why


def test_status_accepts_a_new_swi_prolog_and_names_its_home(tmp_path, monkeypatch,
                                                            fresh_location):
    lib = _fake_home(tmp_path / "new", 90209)
    _fake_janus(tmp_path, monkeypatch, lib)
    usable, why = janus_engine.janus_status()
    assert usable and "9.2.9" in why
    assert janus_engine.locate_janus().home == str(lib.parents[2])


def test_status_says_how_to_get_janus_when_it_is_not_installed(monkeypatch, fresh_location):
    monkeypatch.delitem(sys.modules, "janus_swi", raising=False)
    monkeypatch.setattr(janus_engine.importlib.util, "find_spec", lambda name: None)
    usable, why = janus_engine.janus_status()
    assert not usable and "scripts/setup --janus" in why
