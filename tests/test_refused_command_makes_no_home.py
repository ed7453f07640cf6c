"""A writing command refused for its input leaves no memory home behind.

`atc claim` on a mistyped --home made a new, empty home there and judged the claim against
nothing (exit 0, "allowed, violation logged"); `atc goal G --depends-on typo`, `atc source
add X --type nope`, `atc belief add ... --type nope`, `atc attend --depends-on typo` were
refused (exit 2) and still left `journal.pl` and `.lock` in a new folder, and `atc remember
""`, `atc principal add ""` or `atc rules add BAD.pl` an empty folder, which every later
command took for a home. Now `atc claim` refuses a missing home as the other commands naming
what a home holds do, and a refused command takes back the folders it made (an existing home,
or one the command wrote to, stays as it is)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


def test_claim_refuses_a_missing_home(tmp_path: Path) -> None:
    home = tmp_path / "mistyped"
    out = CliRunner().invoke(main, ["claim", "deploy A", "--type", "live_system_state",
                                    "--home", str(home)])
    assert out.exit_code == 1, out.output
    assert out.stderr == (f"atc: {home}: no memory home here (atc ingest creates one; check "
                          "--home or $ATC_HOME)\n")
    assert not home.exists()


@pytest.fixture(scope="module")
def bad_rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "bad.pl"
    path.write_text("foo(:- bar\n")
    return path


REFUSED = [
    ["goal", "ship", "--depends-on", "no_such_belief", "--loss", "1"],
    ["attend", "--goal", "ship", "--depends-on", "no_such_belief"],
    ["source", "add", "registry", "--type", "no_such_type"],
    ["belief", "add", "v", "--type", "no_such_type", "--subject", "s", "--value", "1",
     "--confidence", "0.5", "--volatility", "package_release"],
    ["remember", ""],
    ["principal", "add", "not a name"],
]


@pytest.mark.parametrize("args", REFUSED, ids=lambda a: " ".join(a[:2]))
def test_a_refused_write_takes_back_the_folders_it_made(tmp_path: Path,
                                                        args: list[str]) -> None:
    home = tmp_path / "new" / "home"
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stderr.startswith("atc: ") and out.stderr.count("\n") == 1
    assert not (tmp_path / "new").exists()


def test_refused_rules_leave_no_home(tmp_path: Path, bad_rules: Path) -> None:
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["rules", "add", str(bad_rules), "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert not home.exists()


def test_a_refused_write_keeps_an_existing_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner()
    made = runner.invoke(main, ["source", "add", "registry", "--type", "dependency_version",
                                "--kind", "package_registry", "--home", str(home)])
    assert made.exit_code == 0, made.output
    journal = (home / "journal.pl").read_bytes()
    out = runner.invoke(main, [*REFUSED[0], "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert (home / "journal.pl").read_bytes() == journal


def test_a_refused_write_in_a_real_process_leaves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "ATC_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", *REFUSED[0]],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr == "atc: belief `no_such_belief' does not exist\n"
    assert not home.exists()
