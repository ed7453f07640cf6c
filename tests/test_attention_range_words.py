"""A number out of the attention controller's range is refused in words naming the range:
`atc source add --authority 1.5`, `belief add --confidence 1.5`, `source add --cost -1` and
`goal --loss -3` said SWI-Prolog's "Domain error: `probability' expected, found `1.5'" (or
`cost', `loss_if_wrong'), which says neither what that is here nor its bounds; the API's
PrologError and the MCP tools said the same."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("ranges") / "home"
    runner = CliRunner()
    for args in (["source", "add", "registry", "--type", "dependency_version",
                  "--kind", "package_registry"],
                 ["belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
                  "--value", "4.1", "--confidence", "0.9", "--age", "60",
                  "--volatility", "package_release"]):
        out = runner.invoke(main, [*args, "--home", str(home)])
        assert out.exit_code == 0, out.output
    return home


@pytest.mark.parametrize("args, says", [
    (["source", "add", "s2", "--type", "dependency_version", "--authority", "1.5"],
     "1.5 is not a probability: a confidence or an authority is between 0 and 1"),
    (["belief", "add", "b2", "--type", "dependency_version", "--subject", "x", "--value", "1",
      "--confidence", "1.5", "--volatility", "package_release"],
     "1.5 is not a probability: a confidence or an authority is between 0 and 1"),
    (["source", "add", "s3", "--type", "dependency_version", "--kind", "package_registry",
      "--cost", "-1"], "-1.0 is not a cost: a cost is between 0 and 1000000"),
    (["goal", "ship", "--depends-on", "ver", "--loss", "-3"],
     "-3.0 is not a loss if wrong: a loss is between 0 and 1000000"),
    (["belief", "add", "b3", "--type", "dependency_version", "--subject", "x", "--value", "1",
      "--confidence", "0.5", "--volatility", "-5"],
     "-5.0 is not a hazard rate: a volatility given as a number is changes per second, 0 to 1 "
     "(or name a volatility class)"),
])
def test_out_of_range_is_said_with_its_range(home: Path, args: list[str], says: str) -> None:
    journal = (home / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stderr == f"atc: {says}\n"
    assert (home / "journal.pl").read_bytes() == journal
