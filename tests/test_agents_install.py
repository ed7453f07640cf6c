"""`atc install|uninstall claude-code`: shown first, written when confirmed, merged with what
the settings hold, and removed exactly (byte for byte when untouched since)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ATC = str(Path(sys.executable).parent / "atc")

#: A user's settings with hooks of their own, in their own formatting (tabs, key order).
THEIRS = (b'{\n\t"model": "opus",\n\t"hooks": {\n\t\t"UserPromptSubmit": [\n\t\t\t{"hooks": '
          b'[{"type": "command", "command": "~/bin/lint-prompt.sh"}]}\n\t\t],\n\t\t"PreToolUse": '
          b'[{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]\n\t},\n'
          b'\t"permissions": {"allow": ["Bash(ls:*)"]}\n}\n')


def real_atc(cwd: Path, fake_home: Path, *args: str, stdin: str | None = None):
    """The real ``atc`` program, run in ``cwd`` with ``HOME`` the fake home."""
    env = {**os.environ, "HOME": str(fake_home)}
    return subprocess.run([ATC, *args], cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, timeout=120)


def atc(cwd: Path, fake_home: Path, *args: str, stdin: str | None = None):
    """``atc ARGS`` as :func:`real_atc` runs it (working folder, ``HOME``, stdin), through
    click's runner in this process: install and uninstall read only those, and a process start
    per call cost most of this file's time. The result answers ``returncode``, ``stdout`` and
    ``stderr`` as a finished process does."""
    from types import SimpleNamespace

    from click.testing import CliRunner

    from attention_cloud.cli import main

    before = Path.cwd()
    os.chdir(cwd)
    try:
        done = CliRunner(env={"HOME": str(fake_home)}).invoke(main, list(args), input=stdin)
    finally:
        os.chdir(before)
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return SimpleNamespace(returncode=done.exit_code, stdout=done.stdout, stderr=done.stderr)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, user = tmp_path / "project", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    return project, user


@pytest.mark.parametrize("scope, where", [("--project", "project"), ("--user", "user")])
def test_install_then_uninstall_leaves_the_file_byte_identical(dirs, scope: str,
                                                               where: str) -> None:
    project, user = dirs
    settings = (project if where == "project" else user) / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(THEIRS)
    run = real_atc(project, user, "install", "claude-code", scope, "--yes")
    assert run.returncode == 0, run.stderr
    assert "+" in run.stdout and "hook user-prompt" in run.stdout       # the diff was shown
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(ls:*)"]}
    prompt_hooks = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert prompt_hooks[0] == "~/bin/lint-prompt.sh"
    assert prompt_hooks[1].endswith(" hook user-prompt")
    assert Path(prompt_hooks[1].split()[0]).is_absolute()
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    assert [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]][0].endswith(
        " hook stop")
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["command"].endswith(" hook session-end")
    twice = atc(project, user, "install", "claude-code", scope, "--yes")
    assert twice.stdout.startswith("already installed")
    gone = real_atc(project, user, "uninstall", "claude-code", scope)
    assert gone.returncode == 0, gone.stderr
    assert settings.read_bytes() == THEIRS
    assert not (settings.parent / "attention-cloud.install.json").exists()


def test_a_file_install_created_goes_with_uninstall(dirs) -> None:
    project, user = dirs
    run = atc(project, user, "install", "claude-code", "--project", "--yes")
    assert run.returncode == 0
    assert (project / ".claude" / "settings.json").exists()
    atc(project, user, "uninstall", "claude-code", "--project")
    assert not (project / ".claude").exists()


def test_the_commands_install_prints_are_the_ones_that_apply(dirs, tmp_path: Path) -> None:
    """After a project install, the uninstall it names must be --project (plain uninstall
    looks at the user's settings); with --home, the MCP line names that home."""
    project, user = dirs
    run = atc(project, user, "install", "claude-code", "--project", "--yes",
              "--home", str(tmp_path / "mem"))
    assert "`atc uninstall claude-code --project` removes it" in run.stdout
    assert (f"claude mcp add attention-cloud -e ATC_HOME={tmp_path / 'mem'} -- {ATC} mcp"
            in run.stdout)
    plain = atc(project, user, "install", "claude-code", "--yes")
    assert "`atc uninstall claude-code` removes it" in plain.stdout
    assert f"claude mcp add attention-cloud -- {ATC} mcp" in plain.stdout


def test_the_mcp_line_install_prints_works_without_atc_on_the_path(dirs, monkeypatch) -> None:
    """The hooks name this atc by its absolute path, so they run where the venv is not on
    PATH; the MCP line printed beside them said bare `atc`, which Claude Code then could not
    start. It names the same atc as the hooks."""
    project, user = dirs
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # as a user who ran .venv/bin/atc by its path
    run = real_atc(project, user, "install", "claude-code", "--project", "--yes")
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if "claude mcp add" in x)
    command = line.split(" -- ", 1)[1].split()
    hooks = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    hook = hooks["hooks"]["Stop"][0]["hooks"][0]["command"].split()[0]
    assert command == [hook, "mcp"] and Path(hook).is_absolute()


def test_nothing_is_written_unless_confirmed(dirs) -> None:
    project, user = dirs
    no = atc(project, user, "install", "claude-code", "--project", stdin="n\n")
    assert "Write " in no.stdout and "nothing written" in no.stdout
    assert not (project / ".claude").exists()
    yes = atc(project, user, "install", "claude-code", "--project", stdin="y\n")
    assert yes.returncode == 0 and "installed in" in yes.stdout
    assert (project / ".claude" / "settings.json").exists()


def test_edits_after_install_are_kept_by_uninstall(dirs) -> None:
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(THEIRS)
    atc(project, user, "install", "claude-code", "--project", "--yes")
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "notify-me"}]})
    settings.write_text(json.dumps(data))
    run = atc(project, user, "uninstall", "claude-code", "--project")
    assert run.returncode == 0 and "removed 3 hook entries" in run.stdout
    left = json.loads(settings.read_text())
    assert left["theme"] == "dark"
    assert left["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "notify-me"}]}]
    assert "SessionEnd" not in left["hooks"]
    assert [h["command"] for g in left["hooks"]["UserPromptSubmit"] for h in g["hooks"]] == \
        ["~/bin/lint-prompt.sh"]


@pytest.mark.parametrize("content, message", [
    (b"{not json", "not valid JSON"),
    (b"[1]", "settings must be a JSON object"),
    (b'{"hooks": []}', '"hooks" is not an object'),
])
def test_bad_settings_are_refused_untouched(dirs, content: bytes, message: str) -> None:
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(content)
    run = atc(project, user, "install", "claude-code", "--project", "--yes")
    assert run.returncode != 0 and message in run.stderr and run.stderr.count("\n") == 1
    assert settings.read_bytes() == content


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_user_and_project_together_are_refused_and_touch_neither_file(dirs, command) -> None:
    """Both flags used to be one option whose last word won: ``--project --user --yes``
    wrote the user's own settings."""
    project, user = dirs
    theirs = user / ".claude" / "settings.json"
    theirs.parent.mkdir()
    theirs.write_bytes(THEIRS)
    extra = ["--yes"] if command == "install" else []
    for flags in (["--project", "--user"], ["--user", "--project"]):
        run = atc(project, user, command, "claude-code", *flags, *extra)
        assert run.returncode == 2
        assert run.stderr == "atc: --user and --project name two settings files: give one\n"
    assert theirs.read_bytes() == THEIRS and not (project / ".claude").exists()
    assert not (user / ".claude" / "attention-cloud.install.json").exists()


def test_uninstall_without_install_is_an_error(dirs) -> None:
    project, user = dirs
    run = atc(project, user, "uninstall", "claude-code", "--project")
    assert run.returncode == 1 and "attention-cloud is not installed here" in run.stderr


def test_the_installed_command_runs(dirs, tmp_path: Path) -> None:
    """The command written into settings.json is one a shell runs: it answers a payload."""
    project, user = dirs
    memhome = tmp_path / "mem"
    memhome.mkdir()
    real_atc(project, user, "install", "claude-code", "--project", "--yes", "--home", str(memhome))
    data = json.loads((project / ".claude" / "settings.json").read_text())
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert f"--home {memhome}" in command
    payload = json.dumps({"session_id": "s", "prompt": "hello there", "cwd": str(project),
                          "transcript_path": "", "hook_event_name": "UserPromptSubmit"})
    run = subprocess.run(command, shell=True, input=payload, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(user)}, timeout=120)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "no memory in" in (memhome / "hooks.log").read_text()


def test_installing_again_for_another_home_replaces_the_entries(dirs, tmp_path: Path) -> None:
    """A second install with another --home (or from another atc) moves the three hooks to
    it: three entries, not six that recall from and capture into two homes, and uninstall
    after an edit still takes every one of them out."""
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(THEIRS)
    first = atc(project, user, "install", "claude-code", "--project", "--yes",
                "--home", str(tmp_path / "one"))
    assert first.returncode == 0, first.stderr
    second = atc(project, user, "install", "claude-code", "--project", "--yes",
                 "--home", str(tmp_path / "two"))
    assert second.returncode == 0, second.stderr
    data = json.loads(settings.read_text())
    ours = [h["command"] for event in ("UserPromptSubmit", "Stop", "SessionEnd")
            for g in data["hooks"][event] for h in g["hooks"] if " hook " in h["command"]]
    assert len(ours) == 3 and all(f"--home {tmp_path / 'two'} hook " in c for c in ours)
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "~/bin/lint-prompt.sh"
    data["theme"] = "dark"                                   # an edit: no byte-for-byte restore
    settings.write_text(json.dumps(data, indent=2), encoding="utf-8")
    gone = atc(project, user, "uninstall", "claude-code", "--project")
    assert gone.returncode == 0, gone.stderr
    left = json.loads(settings.read_text())
    assert "hook user-prompt" not in json.dumps(left) and "hook stop" not in json.dumps(left)
    assert left["theme"] == "dark" and left["model"] == "opus"


def test_edits_between_two_installs_survive_uninstall(dirs, tmp_path: Path) -> None:
    """An edit made after one install and before an install for another home is the user's:
    uninstall used to restore the bytes from before the first install, dropping it (and when
    the first install had created the file, deleting the file with the edit)."""
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(THEIRS)
    atc(project, user, "install", "claude-code", "--project", "--yes", "--home",
        str(tmp_path / "one"))
    data = json.loads(settings.read_text())
    data["permissions"]["allow"].append("Bash(git status)")
    settings.write_text(json.dumps(data, indent=2))
    again = atc(project, user, "install", "claude-code", "--project", "--yes", "--home",
                str(tmp_path / "two"))
    assert again.returncode == 0, again.stderr
    gone = atc(project, user, "uninstall", "claude-code", "--project")
    assert gone.returncode == 0, gone.stderr
    left = json.loads(settings.read_text())
    assert left["permissions"]["allow"] == ["Bash(ls:*)", "Bash(git status)"]
    assert " hook " not in json.dumps(left)
    # a file install created, edited, then installed again: the edit is kept, not deleted
    fresh = project / "other"
    fresh.mkdir()
    atc(fresh, user, "install", "claude-code", "--project", "--yes", "--home",
        str(tmp_path / "one"))
    made = fresh / ".claude" / "settings.json"
    data = json.loads(made.read_text())
    data["model"] = "opus"
    made.write_text(json.dumps(data))
    atc(fresh, user, "install", "claude-code", "--project", "--yes", "--home",
        str(tmp_path / "two"))
    atc(fresh, user, "uninstall", "claude-code", "--project")
    assert made.exists() and json.loads(made.read_text()) == {"model": "opus"}


def test_a_reinstall_after_the_user_took_the_hooks_out_restores_that_state(dirs) -> None:
    """When the user removed the hooks by hand and installs again, what uninstall restores
    is the file as it was just before that install, byte for byte."""
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"model": "sonnet"}\n')
    atc(project, user, "install", "claude-code", "--project", "--yes")
    settings.write_bytes(THEIRS)                  # the user's own file again, hooks gone
    atc(project, user, "install", "claude-code", "--project", "--yes")
    atc(project, user, "uninstall", "claude-code", "--project")
    assert settings.read_bytes() == THEIRS


def test_a_private_settings_file_stays_private(dirs) -> None:
    """settings.json can hold secrets (``env``, ``apiKeyHelper``): a file only its owner
    could read became world-readable (0644) after install and after uninstall, and the record
    beside it, which holds the original bytes, was world-readable too."""
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"env": {"ANTHROPIC_API_KEY": "sk-secret"}}\n')
    settings.chmod(0o600)
    atc(project, user, "install", "claude-code", "--project", "--yes")
    assert settings.stat().st_mode & 0o777 == 0o600
    record = settings.parent / "attention-cloud.install.json"
    assert record.stat().st_mode & 0o077 == 0
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    settings.write_text(json.dumps(data))         # edited: uninstall takes the entries out
    atc(project, user, "uninstall", "claude-code", "--project")
    assert settings.stat().st_mode & 0o777 == 0o600
    assert json.loads(settings.read_text())["theme"] == "dark"


def test_a_symlinked_settings_file_is_written_through(dirs, tmp_path: Path) -> None:
    """Dotfile managers link ~/.claude/settings.json to a file they track: install replaced
    the link with a plain file (the tracked file never got the hooks) and uninstall left the
    link gone for good."""
    project, user = dirs
    tracked = tmp_path / "dotfiles" / "settings.json"
    tracked.parent.mkdir()
    tracked.write_bytes(THEIRS)
    link = user / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(tracked)
    run = atc(project, user, "install", "claude-code", "--yes")
    assert run.returncode == 0, run.stderr
    assert link.is_symlink() and "hook user-prompt" in tracked.read_text()
    gone = atc(project, user, "uninstall", "claude-code")
    assert gone.returncode == 0, gone.stderr
    assert link.is_symlink() and tracked.read_bytes() == THEIRS


def test_the_diff_of_a_file_without_a_last_newline_reads_right(dirs) -> None:
    """The diff shown for confirmation ran the file's last line into the next one
    (``-{"model": "opus"}+{``) when the file did not end in a newline."""
    project, user = dirs
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"model": "opus"}')
    run = atc(project, user, "install", "claude-code", "--project", stdin="n\n")
    lines = run.stdout.splitlines()
    assert '-{"model": "opus"}' in lines
    assert lines[lines.index('-{"model": "opus"}') + 1] == "\\ No newline at end of file"
    assert "+{" in lines and settings.read_bytes() == b'{"model": "opus"}'


def _our_commands(project: Path) -> list[str]:
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    return [hook["command"] for entries in settings["hooks"].values()
            for entry in entries for hook in entry["hooks"]]


def test_the_home_given_before_the_command_is_the_hooks_home(dirs, tmp_path: Path) -> None:
    """README: every command takes --home after it or before it (`atc --home DIR CMD`). The
    hooks were installed without it, reading the default home, while the home named was
    left empty without a word."""
    project, user = dirs
    memhome = tmp_path / "mem"
    run = atc(project, user, "--home", str(memhome), "install", "claude-code", "--project",
              "--yes")
    assert run.returncode == 0, run.stderr
    ours = _our_commands(project)
    assert len(ours) == 3 and all(f"--home {memhome} hook " in c for c in ours)
    assert f"claude mcp add attention-cloud -e ATC_HOME={memhome} -- {ATC} mcp" in run.stdout


@pytest.mark.parametrize("before", [False, True])
def test_an_empty_home_is_refused_and_nothing_is_written(dirs, before: bool) -> None:
    """README: an empty --home "" is refused (exit 2), never read as the default home; here
    it installed hooks that use the default home."""
    project, user = dirs
    args = (["--home", "", "install", "claude-code"] if before else
            ["install", "claude-code", "--home", ""])
    run = atc(project, user, *args, "--project", "--yes")
    assert run.returncode == 2, run.stdout
    assert "the memory home is named by an empty string" in run.stderr
    assert len(run.stderr.splitlines()) == 1
    assert not (project / ".claude").exists()
