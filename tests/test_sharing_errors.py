"""What `atc hydrate --as GRANTEE` (and reader_hydrate) says about a segment or a cell the
grantee has no grant for: the same as for one that does not exist, naming only what they
see. It said `--segment nosuch: no such segment (segments in this memory: public, private)`,
and for a cell they cannot see `no such cell visible to bob` where a missing one was `no such
cell`: the owner's segments and cells, read through the grantee's eyes."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config

PUBLIC = ("Dana: lunch at noon on Friday at the noodle place?\n"
          "Omar: yes, the usual place near the station.\n"
          "Dana: great, I will book a table for four.\n"
          "Omar: bring the receipts from last week too.\n")
PRIVATE = ("Zebediah: the launch code for nightjar is 7731.\n"
           "Priya: noted, I will keep it safe.\n"
           "Zebediah: keep it out of the shared notes.\n"
           "Priya: of course.\n")


def atc(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("errors")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    (root / "public.txt").write_text(PUBLIC, encoding="utf-8")
    (root / "private.txt").write_text(PRIVATE, encoding="utf-8")
    for name, segment in (("public", "hushed-public"), ("private", "hushed-private")):
        out = atc("ingest", str(root / f"{name}.txt"), "--format", "text", "--segment", segment,
                  home=home)
        assert out.exit_code == 0, out.output
    assert atc("curate", home=home).exit_code == 0
    for args in (("principal", "add", "alice", "--owner"), ("principal", "add", "bob"),
                 ("grant", "add", "bob", "--segment", "hushed-public", "--ceiling", "L2")):
        assert atc(*args, home=home).exit_code == 0
    return home


def refusal(home: Path, *args: str) -> str:
    out = atc("hydrate", "--goal", "lunch", *args, home=home)
    assert out.exit_code == 2, out.output
    (line,) = [line for line in out.output.splitlines() if line.startswith("atc:")]
    return line


def test_a_segment_the_grantee_cannot_read_is_no_such_segment(home):
    hidden = refusal(home, "--segment", "hushed-private=300", "--as", "bob")
    missing = refusal(home, "--segment", "nosuch=300", "--as", "bob")
    assert "hushed-private" not in missing
    assert hidden.replace("hushed-private", "X") == missing.replace("nosuch", "X")
    assert "hushed-public" in missing
    # the owner is told every segment
    assert "hushed-private" in refusal(home, "--segment", "nosuch=300")


def test_a_cell_the_grantee_cannot_see_is_no_such_cell(home):
    import json

    cells = json.loads(atc("query", "cell(C), cell_info(C, segments, S)", "--format", "json",
                           home=home).output)
    hidden = [c["C"] for c in cells if "hushed-private" in c["S"]]  # not every member seen
    assert hidden, cells
    seen = refusal(home, "--mount", hidden[0], "--as", "bob")
    missing = refusal(home, "--mount", "cell_000000000000", "--as", "bob")
    assert seen.replace(hidden[0], "X") == missing.replace("cell_000000000000", "X")


@pytest.mark.parametrize("level", ["L9", "", "top"])
def test_a_level_that_is_no_rung_is_said_to_be_none(home, level):
    """`GET /v1/show/HANDLE?level=L9` (reader_show) answered `L9 is above bob's ceiling for it
    (L2)`, and an empty level ` is above ...`: as if L9 were a rung he might be granted."""
    import json

    from attention_cloud import Memory
    from attention_cloud.errors import UsageError
    from attention_cloud.sharing.reads import reader_show

    rows = json.loads(atc("query", "item(H)", "--as", "bob", "--format", "json",
                          home=home).output)
    with Memory.open(home, create=False) as mem:
        with pytest.raises(UsageError) as caught:
            reader_show(mem, "bob", rows[0]["H"], level)
    assert str(caught.value) == f"level must be one of L0, L1, L2, L3, not {level!r}"
