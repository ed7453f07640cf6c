"""An empty ``$ATC_HOME`` or ``--home ""`` is a mistake, refused in one line: it used to mean
the default home (``~/.attention-cloud``: a script exporting an empty variable wrote into
the user's own memory) or, for ``--home ""``, the current directory."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory, UsageError

ATC = str(Path(sys.executable).parent / "atc")


def _run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    fake_user = tmp_path / "user"
    fake_user.mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    environ.update(HOME=str(fake_user), **env)
    return subprocess.run([ATC, *args], cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_atc_home_is_refused_and_nothing_is_written(tmp_path: Path, value: str) -> None:
    out = _run(["remember", "a note for the wrong home", "--no-curate"], tmp_path,
               ATC_HOME=value)
    assert out.returncode == 2, out
    assert out.stdout == ""
    assert out.stderr.startswith("atc: ") and "ATC_HOME" in out.stderr and \
        "empty" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert not (tmp_path / "user" / ".attention-cloud").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user"]


def test_an_empty_home_option_is_refused_not_the_current_directory(tmp_path: Path) -> None:
    out = _run(["remember", "a note for the wrong home", "--no-curate", "--home", ""], tmp_path)
    assert out.returncode == 2, out
    assert out.stderr.startswith("atc: ") and "--home" in out.stderr and \
        "empty" in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user"]


def test_memory_open_refuses_an_empty_atc_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATC_HOME", "")
    with pytest.raises(UsageError, match="ATC_HOME"):
        Memory.open()


def test_a_hook_under_an_empty_atc_home_still_exits_0(tmp_path: Path) -> None:
    """A hook never blocks the agent (README: exits 0 on any error), an empty home included."""
    for hook in ("user-prompt", "stop", "session-end"):
        out = _run(["hook", hook], tmp_path, ATC_HOME="")
        assert out.returncode == 0, out
        assert "Traceback" not in out.stderr and out.stdout == ""
