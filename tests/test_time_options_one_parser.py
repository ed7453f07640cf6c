"""`atc hydrate --now` read its value with the transcript reader of times while every other
option that takes a time (`audit --since`, `grant add --since/--until/--expires`, `label
--retain-until`) reads it with the typed-time reader: `--now 0` was refused though `--since 0`
is 1970, `--now 2024` got the general error instead of "a year names no moment". One reader
now serves them all, so a value is a time for every option or for none, the same time."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.audit import normalise_time
from attention_cloud.cli import main
from attention_cloud.errors import UsageError


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from attention_cloud.paths import samples_dir

    home = tmp_path_factory.mktemp("times") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()])
        mem.curate()
    return home


def _typed(value: str) -> str | None:
    try:
        return normalise_time(value)
    except UsageError:
        return None


@pytest.mark.parametrize("value", ["1700000000", "1700000000000", "99999999999999999999",
                                   "2026-01-14", "20260114", "14 Jan 2026 3:04 pm"])
def test_now_reads_what_since_reads(home: Path, value: str) -> None:
    out = CliRunner().invoke(main, ["hydrate", "retries", "--now", value, "--format", "json",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["receipt"]["now"] == _typed(value)


def test_now_zero_is_accepted_as_since_zero_is(home: Path) -> None:
    out = CliRunner().invoke(main, ["hydrate", "retries", "--now", "0", "--home", str(home)])
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize("value,now,window", [
    ("0", "1970-01-01T00:00:00Z", ("1969-12-21T12:00:00Z", "1970-01-01T00:00:00Z")),
    ("1969-07-20", "1969-07-20T00:00:00Z", ("1969-07-09T12:00:00Z", "1969-07-20T00:00:00Z"))])
def test_a_now_at_or_before_1970_is_the_present_the_goal_is_read_against(
        home: Path, value: str, now: str, window: tuple[str, str]) -> None:
    # hydrate.pl took a stamp <= 0 for an empty memory's "no time": `--now 0` or any time
    # before 1970 gave a frame with no `now` and no window for "last week", without a word
    out = CliRunner().invoke(main, ["hydrate", "retries last week", "--now", value,
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    receipt = json.loads(out.stdout)["receipt"]
    assert receipt["now"] == now
    assert (receipt["anchor"]["from"], receipt["anchor"]["to"]) == window


@pytest.mark.parametrize("value,says", [("2024", "'2024' is a year, which names no moment"),
                                        ("soon", "'soon' is not a time"),
                                        ("--5", "'--5' is not a time")])
def test_now_refuses_what_since_refuses(home: Path, value: str, says: str) -> None:
    before = (home / "journal.pl").read_bytes()
    for command in (["hydrate", "retries", "--now", value], ["audit", "--since", value]):
        out = CliRunner().invoke(main, [*command, "--home", str(home)])
        assert out.exit_code == 2, out.output
        assert out.stderr.startswith(f"atc: {says}") and out.stderr.count("\n") == 1
    assert (home / "journal.pl").read_bytes() == before


@pytest.mark.parametrize("value,time", [
    ("-86400", "1969-12-31T00:00:00Z"), ("-14256000", "1969-07-20T00:00:00Z"),
    ("-1000000000000", "1938-04-24T22:13:20Z"),      # JavaScript's getTime(), milliseconds
    ("-62135596800", "0001-01-01T00:00:00Z")])
def test_a_negative_count_of_epoch_seconds_is_a_time_before_1970(value: str, time: str) -> None:
    # `date +%s -d 1969-07-20` prints -14256000: the date was a time for every option that
    # takes one and its count of seconds was refused ("'-14256000' is not a time")
    assert normalise_time(value) == time


def test_a_negative_count_is_the_now_the_goal_is_read_against(home: Path) -> None:
    out = CliRunner().invoke(main, ["hydrate", "retries last week", "--now", "-14256000",
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    receipt = json.loads(out.stdout)["receipt"]
    assert receipt["now"] == "1969-07-20T00:00:00Z"
    assert receipt["anchor"]["to"] == "1969-07-20T00:00:00Z"
    since = CliRunner().invoke(main, ["audit", "--since", "-86400", "--home", str(home)])
    assert since.exit_code == 0, since.output


@pytest.mark.parametrize("value", ["0999-05-01", "0999-05-01T00:00:00Z", "-30631392000"])
def test_a_now_before_the_year_1000_is_written_in_four_digits(home: Path, value: str) -> None:
    # README: `now` is any time of the years 1 to 9999. strftime's and format_time's %Y wrote
    # the year 999 as "999": `--now 0999-05-01` was "Domain error: `iso_8601_time' expected,
    # found "999-05-01T00:00:00Z"", and a receipt's now of the year 1 "1-01-01T00:00:00Z"
    runner = CliRunner()
    out = runner.invoke(main, ["hydrate", "retries last week", "--now", value,
                               "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    receipt = json.loads(out.stdout)["receipt"]
    assert receipt["now"] == "0999-05-01T00:00:00Z"
    assert receipt["anchor"]["from"] == "0999-04-20T12:00:00Z"
    text = runner.invoke(main, ["hydrate", "retries last week", "--now", value,
                                "--home", str(home)])
    assert "as of Wed 0999-05-01 00:00" in text.stdout


def test_the_year_1_is_iso_8601_in_the_receipt(home: Path) -> None:
    out = CliRunner().invoke(main, ["hydrate", "retries", "--now", "0001-01-01T00:00:00Z",
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["receipt"]["now"] == "0001-01-01T00:00:00Z"
