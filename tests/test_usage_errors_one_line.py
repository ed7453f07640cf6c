"""A command line the parser refuses (a bad choice, an unknown option, a missing argument or
option value, an unknown command) is one line on stderr in the house form, naming the
command and the problem, exit 2. Before, click printed three lines (``Usage: ...``, ``Try
'atc ... --help' for help.``, ``Error: ...``), although README promises "a one-line error".
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

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


def test_a_group_called_bare_still_prints_its_help():
    out = CliRunner().invoke(main, ["grant"], prog_name="atc")
    assert out.output.startswith("Usage: atc grant [OPTIONS] COMMAND [ARGS]...")
    assert "add" in out.output


def test_a_hook_call_refused_names_its_command_and_exits_0(tmp_path):
    # the hook guard answers 0 (Claude Code takes 2 as a block); its line named no command
    home = tmp_path / "home"
    home.mkdir()
    out = CliRunner().invoke(main, ["hook", "user-prompt", "--newer-option", "--home", str(home)],
                             input="{}", prog_name="atc", env={"ATC_HOOK_SERVER": "off"})
    assert (out.exit_code, out.stdout) == (0, "")
    assert out.stderr == ("atc: hook user-prompt: No such option '--newer-option'. "
                          "(try atc hook user-prompt --help)\n")
