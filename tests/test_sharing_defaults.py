"""`atc show --as` with no --level shows a record at the reader's ceiling, and an owner's
typed times read every count of epoch seconds alike.

`atc show CELL --as bob` (default level L0) was refused ("L0 is above bob's ceiling for it")
for any grantee below L0; `atc grant add --expires 1577836800` was taken while `--expires 0`
was "not a time".
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

from granted_home import granted_memory


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    with granted_memory(tmp_path_factory.mktemp("defaults"), "L2", curate=True) as mem:
        item = mem.query("item(H), rung(H, l2, _)", limit=1).rows[0]["H"]
        cell = mem.query("cell(C)", limit=1).rows[0]["C"]
        return mem.home, item, cell


def _atc(home: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


def test_show_as_a_grantee_with_no_level_shows_the_record_at_their_ceiling(home):
    path, item, cell = home
    out = _atc(path, "show", item, "--as", "bob", "--format", "json")
    assert out.exit_code == 0, out.output
    record = json.loads(out.output)
    assert record["level"].upper() == "L2" == record["ceiling"], record
    unseen = _atc(path, "show", cell, "--as", "bob")    # no grantee sees a cell
    assert unseen.exit_code == 2 and "no such item, arc or rollup visible to bob" in unseen.output
    above = _atc(path, "show", item, "--as", "bob", "--level", "L0")
    assert above.exit_code == 2 and "above bob's ceiling" in above.output, above.output
    owner = _atc(path, "show", item, "--format", "json")
    assert owner.exit_code == 0 and json.loads(owner.output)["level"].upper() == "L0"


def test_reader_show_with_no_level_reads_at_the_ceiling(home):
    from attention_cloud import Memory
    from attention_cloud.errors import InputError
    from attention_cloud.sharing import reader_show

    path, item, _ = home
    with Memory.open(path) as mem:
        assert reader_show(mem, "bob", item)["level"].upper() == "L2"
        with pytest.raises(InputError):
            reader_show(mem, "bob", "it_0000000000000000")


@pytest.mark.parametrize("expires,shown", [("0", "1970-01-01T00:00:00Z"),
                                           ("99", "1970-01-01T00:01:39Z"),
                                           ("-5", "1969-12-31T23:59:55Z"),
                                           ("1577836800", "2020-01-01T00:00:00Z")])
def test_any_count_of_epoch_seconds_is_a_time_for_expires(home, expires, shown):
    path, _, _ = home
    out = CliRunner().invoke(main, ["grant", "add", "bob", "--segment", "default",
                                    "--ceiling", "L3", "--expires", expires,
                                    "--home", str(path)])
    assert out.exit_code == 0, out.output
    assert f"--expires {shown} is past" in out.output
    listed = _atc(path, "grant", "list", "--format", "json")
    assert shown in listed.output


@pytest.mark.parametrize("expires", ["--5", "soon", "2023"])
def test_what_is_not_a_time_is_refused_in_one_line_naming_it(home, expires):
    path, _, _ = home
    before = (path / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, ["grant", "add", "bob", "--expires", expires,
                                    "--home", str(path)])
    assert out.exit_code == 2, out.output
    assert out.output.count("\n") == 1 and repr(expires) in out.output, out.output
    assert (path / "journal.pl").read_bytes() == before
