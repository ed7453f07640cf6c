"""pyswip finds libswipl by running `swipl --dump-runtime-variables` at its import: every `atc`
process (a hook on every prompt) paid a second process start (~0.05-0.1 s of wall). Where
libswipl is is now kept in the cache (`$ATC_CACHE/libswipl.json`), keyed by the `swipl` on
PATH and the library's own size and time, so a later process loads it directly; a changed
`swipl`, a damaged file or a cache others may write is never trusted (pyswip looks again)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Counts the `swipl --dump-runtime-variables` runs while the engine starts, then checks the
# engine works.
PROBE = r"""
import json, subprocess
runs = []
class Spy(subprocess.Popen):
    def __init__(self, args, *a, **k):
        if "--dump-runtime-variables" in list(args):
            runs.append(list(args))
        super().__init__(args, *a, **k)
subprocess.Popen = Spy
from attention_cloud.bridge import get_prolog, Var
pl = get_prolog()
(x,) = pl.once("user:atom_length", "abc", Var())
print(json.dumps({"runs": len(runs), "x": x}))
"""


def _start(cache: Path, **env: str) -> dict:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("LIBSWIPL_PATH", "SWI_HOME_DIR")}
    # pyswip's start is what is kept: named, as where a newer SWI-Prolog is present the
    # default would be janus, which runs no swipl
    environment.update(ATC_CACHE=str(cache), ATC_PROLOG="pyswip", **env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=environment, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache after one process started the engine: it ran swipl once and kept the place."""
    cache = tmp_path_factory.mktemp("cache")
    assert _start(cache) == {"runs": 1, "x": 3}
    return cache


def test_a_later_process_does_not_run_swipl(cache):
    kept = json.loads((cache / "libswipl.json").read_text())
    assert Path(kept["library"]).is_file() and Path(kept["home"]).is_dir()
    assert (cache / "libswipl.json").stat().st_mode & 0o777 == 0o600
    assert _start(cache) == {"runs": 0, "x": 3}


def test_a_changed_swipl_is_looked_up_again(cache, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir(mode=0o700)
    kept = json.loads((cache / "libswipl.json").read_text())
    kept["swipl"][1] += 1                   # another size: an upgraded swipl
    (copy / "libswipl.json").write_text(json.dumps(kept))
    (copy / "libswipl.json").chmod(0o600)
    assert _start(copy) == {"runs": 1, "x": 3}
    assert json.loads((copy / "libswipl.json").read_text())["swipl"] != kept["swipl"]


@pytest.mark.parametrize("damage", ["garbage", "others may write", "library gone"])
def test_a_kept_place_that_cannot_be_trusted_is_not_used(cache, tmp_path, damage):
    copy = tmp_path / "copy"
    copy.mkdir(mode=0o700)
    kept = json.loads((cache / "libswipl.json").read_text())
    if damage == "library gone":
        kept["library"] = str(tmp_path / "libswipl.so")
    text = "{not json" if damage == "garbage" else json.dumps(kept)
    (copy / "libswipl.json").write_text(text)
    (copy / "libswipl.json").chmod(0o666 if damage == "others may write" else 0o600)
    assert _start(copy) == {"runs": 1, "x": 3}


def test_a_users_own_libswipl_path_is_left_to_pyswip(cache):
    kept = json.loads((cache / "libswipl.json").read_text())
    assert _start(cache, LIBSWIPL_PATH=kept["library"], SWI_HOME_DIR=kept["home"]) == \
        {"runs": 0, "x": 3}


def test_a_users_own_libswipl_path_is_not_kept_for_later_processes(cache, tmp_path):
    kept = json.loads((cache / "libswipl.json").read_text())
    fresh = tmp_path / "fresh"
    _start(fresh, LIBSWIPL_PATH=kept["library"], SWI_HOME_DIR=kept["home"])
    assert not (fresh / "libswipl.json").exists()
