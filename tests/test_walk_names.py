"""The built-in walk is reachable by its name wherever a walk is named (README, "Traversal
rules written mid-inference").

Before, every walk name was taken for a user rule: `atc hydrate --walk entity_walk`,
`Memory.hydrate(walk="entity_walk")` and `POST /v1/hydrate {"walk": "entity_walk"}` all
answered "walk_rule `entity_walk' does not exist", though planes name that walk
(`walk: entity_walk`). Now the name of a built-in walk runs it; any other name is still a
user rule, and one no rules file defines is still refused.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from granted_home import granted_memory  # noqa: E402

GOAL = "what did we fix in the cache"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A small curated home granted to bob at L2: (the home, bob's token)."""
    from attention_cloud.sharing import add_principal

    memory = granted_memory(tmp_path_factory.mktemp("walks"), "L2")
    try:
        memory.curate()
        token = add_principal(memory, "carl")
        from attention_cloud.sharing import add_grant
        add_grant(memory, "carl", segments=["default"], ceiling="L2")
    finally:
        memory.close()
    return memory.home, token


def test_the_owner_names_the_built_in_walk(home):
    from attention_cloud import Memory

    with Memory.open(home[0]) as memory:
        frame = memory.hydrate(GOAL, walk="entity_walk")
        assert frame.receipt["facts"]
        with pytest.raises(Exception, match="no_such_walk"):
            memory.hydrate(GOAL, walk="no_such_walk")


def test_the_cli_takes_the_built_in_walk_for_the_owner_and_a_grantee(home):
    from attention_cloud.cli import main

    for extra in ([], ["--as", "bob"]):
        result = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--walk", "entity_walk",
                                           "--home", str(home[0]), *extra])
        assert result.exit_code == 0, result.output
        assert "does not exist" not in result.output


def test_the_server_takes_the_built_in_walk(home):
    from attention_cloud.sharing.mounts import MountError, call_mount
    from test_sharing import Server

    server = Server(home[0])
    try:
        frame = call_mount(server.url, home[1], "/v1/hydrate",
                           {"goal": GOAL, "walk": "entity_walk"})
        with pytest.raises(MountError, match="no_such_walk"):
            call_mount(server.url, home[1], "/v1/hydrate", {"goal": GOAL, "walk": "no_such_walk"})
    finally:
        server.stop()
    assert frame["receipt"]["facts"]
