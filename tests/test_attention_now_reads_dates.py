"""The attention commands' `--now` (and `$ATC_NOW`) and `belief add --observed-at` read a
time as every other option that takes one does (`atc hydrate --now`, `grant add --since`):
Unix seconds as before, or ISO 8601, a date, RFC 2822... `--now 2026-03-20T09:00:00Z` was
"'2026-03-20T09:00:00Z' is not a valid float" (exit 2) for the attention commands alone."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

NOW = "2026-03-20T09:00:00Z"
STAMP = str(int(datetime(2026, 3, 20, 9, tzinfo=timezone.utc).timestamp()))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("attention") / "home"
    runner = CliRunner()
    for args in (["source", "add", "registry", "--type", "dependency_version",
                  "--kind", "package_registry"],
                 ["belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
                  "--value", "4.1", "--confidence", "0.9", "--observed-at",
                  "2026-03-19 21:00", "--volatility", "package_release",
                  "--source", "registry"]):
        out = runner.invoke(main, [*args, "--home", str(home), "--now", NOW])
        assert out.exit_code == 0, out.output
    return home


def _show(home: Path, *now: str, env: dict[str, str] | None = None) -> str:
    out = CliRunner().invoke(main, ["belief", "show", "ver", "--format", "json", *now,
                                    "--home", str(home)], env=env)
    assert out.exit_code == 0, out.output
    return out.stdout


def test_a_date_is_the_same_now_as_its_unix_seconds(home: Path) -> None:
    by_stamp = _show(home, "--now", STAMP)
    assert '"age_s": 43200' in by_stamp            # observed 12 hours before
    assert _show(home, "--now", NOW) == by_stamp
    assert _show(home, "--now", "Fri, 20 Mar 2026 09:00:00 +0000") == by_stamp
    assert _show(home, env={"ATC_NOW": NOW}) == by_stamp


def test_what_is_no_time_is_refused_naming_the_option(home: Path) -> None:
    out = CliRunner().invoke(main, ["belief", "show", "ver", "--now", "soon",
                                    "--home", str(home)])
    assert out.exit_code == 2
    assert out.output.startswith("atc: belief show: Invalid value for '--now'")
    assert "'soon' is not a time" in out.output and len(out.output.splitlines()) == 1


@pytest.mark.parametrize("variable", ["ATC_SCOPE", "ATC_NOW"])
def test_an_empty_environment_variable_is_refused_not_read_as_unset(home: Path,
                                                                     variable: str) -> None:
    # click reads an empty variable as unset: `ATC_SCOPE=` (a script's variable never filled)
    # listed and wrote the default scope, `ATC_NOW=` ran at the present, without a word;
    # an empty $ATC_HOME is refused (README)
    out = CliRunner().invoke(main, ["belief", "list", "--home", str(home)],
                             env={variable: ""})
    assert out.exit_code == 2, out.output
    assert f"${variable} is set but empty" in out.stderr
    assert out.stdout == ""


@pytest.mark.parametrize("option, value", [("--now", "1969-07-20"), ("--now", "-5"),
                                           ("--now", "2e11"), ("--observed-at", "1965-03-04")])
def test_a_time_outside_the_attention_clock_is_refused_naming_the_option(
        home: Path, option: str, value: str) -> None:
    # the controller's times are Unix seconds from 1970: what lay before came back from Prolog
    # as "Domain error: `time_seconds' expected, found `-14256000.0'", naming no option
    args = (["belief", "list", option, value] if option == "--now" else
            ["belief", "add", "old", "--type", "dependency_version", "--subject", "libfoo",
             "--value", "1.0", "--confidence", "0.5", option, value,
             "--volatility", "package_release"])
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert f"Invalid value for '{option}'" in out.stderr
    assert "is outside the attention clock, which runs from 1970" in out.stderr


@pytest.mark.parametrize("where", ["option", "ATC_NOW"])
def test_a_year_alone_is_refused_as_atc_hydrate_now_refuses_it(home: Path, where: str) -> None:
    # README: ATC_NOW is read as `atc hydrate --now` reads it, which refuses four digits as a
    # year naming no moment; here `--now 2024` was 2024 seconds after 1970, without a word
    args, env = (["--now", "2024"], None) if where == "option" else ([], {"ATC_NOW": "2024"})
    out = CliRunner().invoke(main, ["belief", "show", "ver", *args, "--home", str(home)],
                             env=env)
    assert out.exit_code == 2, out.output
    assert "'2024' is a year, which names no moment" in out.stderr
    assert len(out.stderr.splitlines()) == 1 and out.stdout == ""


def test_eight_digits_are_a_date_as_atc_hydrate_now_reads_them(home: Path) -> None:
    # `atc hydrate --now 20260320` is 2026-03-20; here it was 20,260,320 seconds (August 1970)
    assert _show(home, "--now", "20260320") == _show(home, "--now", "2026-03-20")
