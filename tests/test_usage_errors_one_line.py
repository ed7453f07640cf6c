"""A command line the parser refuses (a bad choice, an unknown option, a missing argument or
option value, an unknown command) is one line on stderr in the house form, naming the
command and the problem, exit 2. Before, click printed three lines (``Usage: ...``, ``Try
'atc ... --help' for help.``, ``Error: ...``), although README promises "a one-line error".
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.cli_base import AtcGroup

ATC = str(Path(sys.executable).parent / "atc")

REFUSED = [
    (["remember", "hi", "--kind", "idea"],
     "atc: remember: Invalid value for '--kind': 'idea' is not one of 'note', 'decision', "
     "'preference'. (try atc remember --help)"),
    (["remember", "hi", "--bogus"],
     "atc: remember: No such option '--bogus'. (try atc remember --help)"),
    (["remember"], "atc: remember: Missing argument 'TEXT'. (try atc remember --help)"),
    (["remember", "hi", "--kind"],
     "atc: remember: Option '--kind' requires an argument. (try atc remember --help)"),
    (["grant", "add", "bob", "--ceiling", "L9"],
     "atc: grant add: Invalid value for '--ceiling': 'L9' is not one of 'L0', 'L1', 'L2', "
     "'L3'. (try atc grant add --help)"),
    (["grant", "add", "bob", "--bogus"],
     "atc: grant add: No such option '--bogus'. (try atc grant add --help)"),
    (["grant", "add"], "atc: grant add: Missing argument 'GRANTEE'. (try atc grant add --help)"),
    (["grant", "add", "bob", "--segment"],
     "atc: grant add: Option '--segment' requires an argument. (try atc grant add --help)"),
    (["grant", "nope"], "atc: grant: No such command 'nope'. (try atc grant --help)"),
    (["nope"], "atc: No such command 'nope'. (try atc --help)"),
    (["--bogus", "stats"], "atc: No such option '--bogus'. (try atc --help)"),
    (["--home", "h"], "atc: Missing command. (try atc --help)"),   # options, no command
]
IDS = [" ".join(argv) for argv, _ in REFUSED]


@pytest.mark.parametrize("argv,line", REFUSED, ids=IDS)
def test_a_refused_command_line_is_one_line_naming_the_command(argv, line, tmp_path):
    home = tmp_path / "home"
    out = CliRunner().invoke(main, argv, env={"ATC_HOME": str(home)}, prog_name="atc")
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    assert out.stderr == line + "\n"
    assert not home.exists()


@pytest.mark.parametrize("argv,line", [REFUSED[0], REFUSED[5], REFUSED[6], REFUSED[1]],
                         ids=["choice", "nested option", "nested argument", "option"])
def test_the_atc_program_says_it_in_one_line(argv, line, tmp_path):
    home = tmp_path / "home"
    done = subprocess.run([ATC, *argv], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "ATC_HOME": str(home)})
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line + "\n")
    assert not home.exists()


def _groups(group: click.Group, path: tuple[str, ...] = ()):
    """Every group of ``atc`` (``atc`` itself first) with the words that call it."""
    yield path, group
    for name in group.list_commands(None):
        sub = group.get_command(None, name)
        if isinstance(sub, click.Group):
            yield from _groups(sub, (*path, name))


def _commands(group: click.Group):
    for name in group.list_commands(None):
        sub = group.get_command(None, name)
        yield sub
        if isinstance(sub, click.Group):
            yield from _commands(sub)


GROUPS = [path for path, group in _groups(main) if group.no_args_is_help]


def test_only_the_hook_group_called_bare_is_no_help():
    """`atc hook` alone is a refusal the hook guard logs (exit 0, nothing on stdout: a hook's
    stdout reaches the model, test_agents_hooks.py); every other group prints its help."""
    assert [path for path, group in _groups(main) if not group.no_args_is_help] == [("hook",)]


@pytest.mark.parametrize("path", GROUPS, ids=[" ".join(("atc", *p)) for p in GROUPS])
def test_a_group_called_bare_prints_its_help_and_exits_0(path, tmp_path):
    """As ``--help`` does: nothing was refused. click 8.2 answered it as an error, the help
    on stderr and exit 2 (and under the hook guard, `atc hook` logged the help as an error
    and printed it as one `atc: Usage: ...` line)."""
    home = tmp_path / "home"
    out = CliRunner().invoke(main, list(path), env={"ATC_HOME": str(home)}, prog_name="atc")
    assert (out.exit_code, out.stderr) == (0, ""), out.output
    assert out.stdout.startswith(f"Usage: {' '.join(('atc', *path))} [OPTIONS] COMMAND")
    assert out.stdout == CliRunner().invoke(main, [*path, "--help"], prog_name="atc").stdout
    assert not home.exists()


def test_the_atc_program_called_bare_prints_its_help_and_exits_0():
    done = subprocess.run([ATC, "grant"], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: atc grant [OPTIONS] COMMAND [ARGS]...")


def test_every_command_names_itself_in_a_refusal():
    """The parser raises some refusals (``Option '--kind' requires an argument.``) without
    the command they are for: every command is one of ours, which names it."""
    from attention_cloud.cli_base import AtcCommand

    strays = [c.name for c in _commands(main) if not isinstance(c, AtcCommand | AtcGroup)]
    assert strays == []


def test_a_failed_benchmark_run_is_one_line(tmp_path):
    """`atc bench attention` said its errors in click's own form, `Error: ...`."""
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("one\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["bench", "attention", "--seeds-file", str(seeds)],
                             prog_name="atc")
    assert out.exit_code != 0 and out.stdout == ""
    assert out.stderr == f"atc: {seeds}:1: not an integer seed: 'one'\n"


def test_a_hook_call_refused_names_its_command_and_exits_0(tmp_path):
    # the hook guard answers 0 (Claude Code takes 2 as a block); its line named no command
    home = tmp_path / "home"
    home.mkdir()
    out = CliRunner().invoke(main, ["hook", "user-prompt", "--newer-option", "--home", str(home)],
                             input="{}", prog_name="atc", env={"ATC_HOOK_SERVER": "off"})
    assert (out.exit_code, out.stdout) == (0, "")
    assert out.stderr == ("atc: hook user-prompt: No such option '--newer-option'. "
                          "(try atc hook user-prompt --help)\n")
