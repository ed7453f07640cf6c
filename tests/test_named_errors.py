"""Errors that name what the user named, as they wrote it, and where to look: a name that
needs quotes in Prolog is not quoted twice; a walk rule named without a rules file says where
walk rules come from; the Python API's errors do not name a CLI option."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import BadArgument, UsageError
from attention_cloud.home import write_config


@pytest.fixture(scope="module")
def remembered(tmp_path_factory):
    home = tmp_path_factory.mktemp("named") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.remember("The deploy key rotates on Fridays.")
    return home


def _atc(home, *args):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


def test_an_unknown_candidate_is_named_as_written_not_quoted_twice(remembered):
    out = _atc(remembered, "inspect", "attn-99")
    assert out.exit_code != 0
    assert out.output == "atc: candidate `attn-99' does not exist\n"


def test_a_walk_rule_without_a_rules_file_says_where_walk_rules_come_from(remembered, tmp_path):
    out = _atc(remembered, "hydrate", "deploy key", "--walk", "nope")
    assert out.exit_code != 0
    assert out.output == (   # the CLI's own remedy (the API's and an HTTP client's differ)
        "atc: walk_rule `nope' does not exist: a walk rule is a predicate nope/2 defined in a "
        "rules file (atc hydrate --rules FILE) or saved with atc rules add; none is here, so "
        "only the plane's walk (or entity_walk, the built-in one) can run\n")
    rules = tmp_path / "walks.pl"
    rules.write_text("near(Seeds, H-0.5) :- member(H-_, Seeds).\n")
    out = _atc(remembered, "hydrate", "deploy key", "--walk", "nope", "--rules", str(rules))
    assert out.output == "atc: walk_rule `nope' does not exist\n"


def test_memory_hydrate_names_an_unknown_segment_not_a_cli_option(remembered):
    with Memory.open(remembered) as mem:
        with pytest.raises(UsageError) as caught:
            mem.hydrate("deploy key", segments={"nope": 3})
    assert str(caught.value) == "segment nope: no such segment (segments in this memory: default)"


def test_a_blank_segment_name_is_shown_quoted(remembered):
    """`--segment ' =5'` (or segments={"": 3}) said "segment : no such segment", naming nothing."""
    with Memory.open(remembered) as mem:
        with pytest.raises(UsageError) as caught:
            mem.hydrate("deploy key", segments={"": 3})
    assert str(caught.value) == "segment '': no such segment (segments in this memory: default)"


def test_an_unknown_mounted_cell_names_the_readers_own_way_to_list_cells(remembered):
    """It named both ways at once (`atc cells list, or cells_list in Python`)."""
    out = _atc(remembered, "hydrate", "deploy key", "--mount", "cell_000000000000")
    assert out.exit_code == 2
    assert out.output == ("atc: mount cell_000000000000: no such cell (atc cells list names "
                          "them)\n")
    with Memory.open(remembered) as mem:
        with pytest.raises(BadArgument) as caught:   # README: a name the home lacks
            mem.hydrate("deploy key", mount="cell_000000000000")
    assert str(caught.value) == ("mount cell_000000000000: no such cell "
                                 "(attention_cloud.cells.cells_list(mem) names them)")
