"""A time option given a year alone (`--since 2024`): README says four digits name a year and
no moment, so they are refused; the error said "give ... Unix epoch seconds", which 2024 is
by its form. It says now that a year names no moment and what to give instead."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.audit import normalise_time
from attention_cloud.cli import main
from attention_cloud.errors import UsageError


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("year-home")
    runner = CliRunner()
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"]):
        assert runner.invoke(main, [*args, "--home", str(home)]).exit_code == 0
    return home


@pytest.mark.parametrize("command", [["grant", "add", "bob", "--since", "2024"],
                                     ["grant", "add", "bob", "--until", "2024"],
                                     ["audit", "--since", "2024"]])
def test_a_year_alone_is_refused_saying_it_is_a_year(shared_home: Path,
                                                     command: list[str]) -> None:
    out = CliRunner().invoke(main, [*command, "--home", str(shared_home)])
    assert out.exit_code == 2, out.output
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("atc: '2024' ")
    assert "year" in out.stderr and "2024-01-01" in out.stderr
    assert "Unix epoch seconds)" not in out.stderr


def test_other_bad_times_keep_the_general_error() -> None:
    with pytest.raises(UsageError, match="'soon' is not a time"):
        normalise_time("soon")
    assert normalise_time("2024-01-01") == "2024-01-01T00:00:00Z"
    assert normalise_time("0") == "1970-01-01T00:00:00Z"
