"""An option or argument given an empty value (a shell variable that expanded to nothing) was
read as no value at all: `--as ""` read the frame, the query or the record as the home's
owner instead of refusing, `grant list --grantee ""` listed every grant, `--walk ""` ran the
plane's walk, `audit --reader ""` and `--mount ""` named nothing (`atc: : no such ...`), and
`atc ingest ""` said `atc: str: no such file or directory`, and `curate --reembed --embedder
""` re-embedded everything with the configured embedder. Each is now refused as an empty
`--home` is: one `atc: COMMAND: Invalid value for ...: must not be empty` line, exit 2, nothing
read or written."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("blank") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    runner = CliRunner()
    for args in (["remember", "the staging DB is read-only on Fridays"],
                 ["principal", "add", "alice", "--owner"], ["principal", "add", "bob"]):
        done = runner.invoke(main, [*args, "--home", str(home)])
        assert done.exit_code == 0, done.output
    return home


@pytest.mark.parametrize("args", [
    ["hydrate", "staging", "--as", ""],
    ["query", "item(H)", "--as", " "],
    ["show", "it_0123456789abcdef", "--as", ""],
    ["receipt", "r_0123456789abcdef", "--as", ""],
    ["forget", "it_0123456789abcdef", "--as", "", "--yes"],
    ["grant", "list", "--grantee", ""],
    ["audit", "--reader", ""],
    ["hydrate", "staging", "--mount", ""],
    ["hydrate", "staging", "--walk", ""],
    ["ingest", ""],
    ["curate", "--reembed", "--embedder", ""],
    # the attention commands' ids and names: "Domain error: `non_empty_text' expected, found
    # `""'" naming no argument, and `trace --goal ""` filtered every event out without a word
    ["belief", "show", ""],
    ["belief", "why", ""],
    ["belief", "add", "", "--type", "dependency_version", "--subject", "s", "--value", "v",
     "--confidence", "0.5", "--volatility", "package_release"],
    ["belief", "add", "b", "--type", "dependency_version", "--subject", "s", "--value", "v",
     "--confidence", "0.5", "--volatility", "package_release", "--supports", ""],
    ["source", "add", "", "--type", "dependency_version", "--kind", "package_registry"],
    ["source", "changed", ""],
    ["goal", "g", "--depends-on", "", "--loss", "1"],
    ["attend", "--goal", ""],
    ["inspect", "", "--result", "4.2"],
    ["claim", "deploy A", "--type", "live_system_state", "--evidence", ""],
    ["trace", "--goal", ""],
    # round 30: `grant add bob --since ""` (or --expires, --until) granted everything, for
    # ever; --segment, --session, --tag, --entity "" granted a name no item has, exit 0;
    # `forget ""` said `'' is not an item handle`, exit 1, `forget --session " "` named
    # nothing (`atc: : no items in this session`), `forget --session ""` read it as no value
    ["grant", "add", "bob", "--since", ""],
    ["grant", "add", "bob", "--until", " "],
    ["grant", "add", "bob", "--expires", ""],
    ["grant", "add", "bob", "--segment", ""],
    ["grant", "add", "bob", "--session", ""],
    ["grant", "add", "bob", "--tag", ""],
    ["grant", "add", "bob", "--entity", " "],
    ["forget", "", "--yes"],
    ["forget", "--session", " ", "--yes"],
    ["forget", "--session", "", "--yes"],
    ["label", "it_0123456789abcdef", "--retain-until", ""],
    ["label", "it_0123456789abcdef", "--reader", ""],
    ["label", "it_0123456789abcdef", "--restrict", ""],
    ["declassify", "it_0123456789abcdef", "--why", "w", "--retain-until", ""],
    ["declassify", "it_0123456789abcdef", "--why", "w", "--reader", ""],
    ["declassify", "it_0123456789abcdef", "--why", "w", "--restriction", ""],
    # `--rules ""` was a traceback (IsADirectoryError: the current folder), `--output ""`
    # said `atc: : cannot write (Is a directory)`
    ["query", "true", "--rules", ""],
    ["hydrate", "staging", "--rules", ""],
    ["hydrate", "staging", "--output", ""],
])
def test_an_empty_value_is_refused(home: Path, args: list[str]) -> None:
    journal = (home / "journal.pl").read_bytes()
    receipts = sorted((home / "receipts").rglob("*")) if (home / "receipts").exists() else []
    out = CliRunner().invoke(main, [*args, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert ": must not be empty (try " in out.stderr, out.stderr
    assert (home / "journal.pl").read_bytes() == journal
    assert (sorted((home / "receipts").rglob("*")) if (home / "receipts").exists()
            else []) == receipts
