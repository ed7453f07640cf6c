"""`--ceiling` and `--level` name rungs as everything else does: L0..L3.

Before, `atc grant add --help` and `atc hydrate --help` listed `[l0|l1|l2|l3]` (click's lower
case for a case-insensitive choice) beside a default of `L2`, while `atc show --help` listed
`[L0|L1|L2|L3|l0|l1|l2|l3]`, and grants, receipts and frames print `L2`.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

LEVEL_OPTIONS = [(["grant", "add"], "--ceiling"), (["hydrate"], "--ceiling"),
                 (["show"], "--level")]


@pytest.mark.parametrize("command,option", LEVEL_OPTIONS)
def test_help_lists_the_rungs_as_output_names_them(command, option):
    result = CliRunner().invoke(main, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if line.strip().startswith(option))
    assert f"{option} [L0|L1|L2|L3]" in line


@pytest.mark.parametrize("command,option", LEVEL_OPTIONS)
def test_a_rung_out_of_the_ladder_is_refused_as_typed(command, option, tmp_path):
    args = [*command, "x", option, "l9", "--home", str(tmp_path / "home")]
    result = CliRunner().invoke(main, args, prog_name="atc")
    assert result.exit_code == 2
    named = " ".join(command)
    assert result.output == (
        f"atc: {named}: Invalid value for '{option}': 'l9' is not one of 'L0', 'L1', 'L2', "
        f"'L3'. (try atc {named} --help)\n")
    assert not (tmp_path / "home").exists()


def test_a_lower_case_rung_is_read_as_its_level(curated_samples_home):
    """`l2` is the Prolog vocabulary's spelling: taken, and the grant says `L1`."""
    runner = CliRunner(env={"ATC_HOME": str(curated_samples_home)})
    assert runner.invoke(main, ["principal", "add", "owner", "--owner"]).exit_code == 0
    assert runner.invoke(main, ["principal", "add", "bob"]).exit_code == 0
    added = runner.invoke(main, ["grant", "add", "bob", "--ceiling", "l1"])
    assert added.exit_code == 0, added.output
    listed = runner.invoke(main, ["grant", "list", "--format", "json"])
    assert [g["ceiling"] for g in json.loads(listed.output)] == ["L1"]
    shown = runner.invoke(main, ["show", "it_50a40759a4205f7e", "--level", "l2"])
    upper = runner.invoke(main, ["show", "it_50a40759a4205f7e", "--level", "L2"])
    assert shown.exit_code == 0 and shown.output == upper.output


@pytest.mark.parametrize("ceiling", ["L9", "l4", "top"])
def test_memory_hydrate_names_a_bad_ceiling_as_given(curated_samples, ceiling):
    """`Memory.hydrate(ceiling="L9")` said `not 'l9'`: the value the caller never wrote."""
    from attention_cloud.errors import UsageError

    with pytest.raises(UsageError) as caught:
        curated_samples.hydrate("retry policy", ceiling=ceiling)
    assert str(caught.value) == f"ceiling must be one of L0, L1, L2, L3, not {ceiling!r}"
