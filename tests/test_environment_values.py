"""`ATC_*` variables whose values cannot be read are refused, one line naming the variable,
exit 2: before, `ATC_READER_SET_LIMIT=abc` and `ATC_HOOK_SERVER=of` were taken as unset
without a word, `ATC_PROLOG=` (a script exporting a variable it never filled) chose a backend
as if unset, and a relative `ATC_CACHE` was made absolute against whatever folder a command
started in (another cache from each), while a relative `XDG_CACHE_HOME` is ignored, as the
XDG spec says. `ATC_HOME`, `ATC_NOW` and `ATC_SCOPE` were already refused when empty."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.agents import mcp_auth, recall_server
from attention_cloud.errors import UsageError
from attention_cloud.paths import cache_dir

ATC = str(Path(sys.executable).with_name("atc"))


def _atc(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    return subprocess.run([ATC, *args, "--home", str(tmp_path / "home")], cwd=tmp_path,
                          env=environment, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name, value", [
    ("ATC_PROLOG", ""), ("ATC_PROLOG", "swi"), ("ATC_READER_SET_LIMIT", "abc"),
    ("ATC_READER_SET_LIMIT", "-5"), ("ATC_READER_SET_LIMIT", " "),
    ("ATC_CACHE", ""), ("ATC_CACHE", "relative/cache"),
])
def test_an_unreadable_value_is_refused_in_one_line(tmp_path, name, value):
    done = _atc(tmp_path, "remember", "the staging DB is read-only on Fridays", **{name: value})
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"atc: {name} ") and (repr(value) in line or "empty" in line)
    assert not (tmp_path / "home").exists()   # nothing half made
    assert not (tmp_path / "relative").exists()


def test_readable_values_still_work(tmp_path):
    done = _atc(tmp_path, "remember", "the staging DB is read-only on Fridays",
                ATC_PROLOG="PyswIP", ATC_READER_SET_LIMIT="100")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("value, on", [("off", False), ("No", False), ("0", False),
                                       ("on", True), ("TRUE", True), ("1", True)])
def test_the_hook_server_switch_reads_its_words(monkeypatch, value, on):
    monkeypatch.setenv("ATC_HOOK_SERVER", value)
    assert recall_server.enabled() is on
    monkeypatch.delenv("ATC_HOOK_SERVER")
    assert recall_server.enabled() is True


@pytest.mark.parametrize("value", ["of", "", "disabled"])
def test_a_hook_server_switch_that_is_no_word_is_refused(monkeypatch, value):
    monkeypatch.setenv("ATC_HOOK_SERVER", value)
    with pytest.raises(UsageError, match="ATC_HOOK_SERVER"):
        recall_server.enabled()


def test_an_empty_mcp_token_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("ATC_MCP_TOKEN", "")
    with pytest.raises(UsageError, match="ATC_MCP_TOKEN is set but empty"):
        mcp_auth.server_token(tmp_path)
    assert not list(tmp_path.iterdir())   # no token file made in its place


def test_an_absolute_cache_is_kept_and_a_relative_xdg_one_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("ATC_CACHE", str(tmp_path / "c" / ".." / "cache"))
    assert cache_dir() == tmp_path / "cache"
    monkeypatch.delenv("ATC_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_dir() == tmp_path / "me" / ".cache" / "attention-cloud"


@pytest.mark.parametrize("workers", ["", "two", "-1"])
def test_scripts_test_refuses_a_worker_count_before_any_setup(tmp_path, workers):
    """Refused at once, before scripts/setup runs (which may install packages or chromium):
    the check ran after it, so a typo in ATC_TEST_WORKERS cost a whole set-up first. The
    script runs from a copy whose scripts/setup only leaves a mark."""
    root = Path(__file__).resolve().parent.parent
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "test"
    script.write_bytes((root / "scripts" / "test").read_bytes())
    ran = tmp_path / "setup-ran"
    (tmp_path / "scripts" / "setup").write_text(f"#!/bin/sh\ntouch '{ran}'\n", encoding="utf-8")
    (tmp_path / "scripts" / "setup").chmod(0o755)
    done = subprocess.run(["bash", str(script), "--version"], cwd=tmp_path,
                          env={**os.environ, "ATC_TEST_WORKERS": workers}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"scripts/test: ATC_TEST_WORKERS must be a whole number, "
                                   f"not '{workers}'")
    assert not ran.exists()


def test_a_hook_meeting_an_unreadable_value_says_so_in_the_homes_log(tmp_path):
    """A hook never fails (Claude Code reads status 2 as a block): it prints the one line and
    exits 0, and, as stderr is seldom seen from a hook, logs it in the home's hooks.log."""
    home = tmp_path / "home"
    home.mkdir()
    payload = '{"prompt": "why do retries fail", "session_id": "s1", "cwd": "/tmp"}'
    done = subprocess.run([ATC, "hook", "user-prompt", "--home", str(home)], input=payload,
                          env={**os.environ, "ATC_HOOK_SERVER": "of"}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("atc: ATC_HOOK_SERVER must be one of") and "'of'" in line
    logged = (home / "hooks.log").read_text()
    assert "ATC_HOOK_SERVER must be one of" in logged
