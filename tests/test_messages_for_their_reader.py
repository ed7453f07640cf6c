"""An error tells its reader what to do in that reader's own terms: an API caller is not told
to run an `atc` command, an MCP agent is told which tool makes a home; a tool call that fails
leaves no home behind it; the MCP `forget` tool's "no such item" is Memory.forget's own."""
from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from attention_cloud import Memory
from attention_cloud.errors import HomeError, UsageError
from attention_cloud.sharing import policy

mcp = pytest.importorskip("mcp")
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402


def tool_error(home: Path, tool: str, arguments: dict) -> str:
    """The one line a tool call on a server for ``home`` fails with (after the SDK's
    "Error executing tool NAME: ")."""
    from attention_cloud.agents.mcp_server import build_server

    server = build_server(home)

    async def call() -> str:
        try:
            await server.call_tool(tool, arguments)
        except ToolError as exc:
            return str(exc).removeprefix(f"Error executing tool {tool}: ")
        raise AssertionError(f"{tool} did not fail")

    try:
        return anyio.run(call)
    finally:
        server.atc_close()


def test_the_api_on_a_missing_home_names_no_cli_command(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(HomeError) as caught:
        Memory.open(missing, create=False)
    assert str(caught.value) == (f"{missing}: no memory home here (Memory.open(home, "
                                 "create=True) creates one)")
    assert "atc " not in str(caught.value) and not missing.exists()


def test_an_mcp_agent_on_a_missing_home_is_told_the_tool_that_makes_one(tmp_path):
    missing = tmp_path / "nowhere"
    said = tool_error(missing, "query", {"goal": "true"})
    assert said == (f"{missing}: no memory home here (the `remember` tool creates one; "
                    "check the server's --home or $ATC_HOME)")
    assert not missing.exists()


def test_a_grant_without_an_owner_tells_an_api_caller_the_api_call(home):
    with Memory.open(home) as mem:
        policy.add_principal(mem, "platform", kind="team")
        with pytest.raises(UsageError) as caught:
            policy.add_grant(mem, "platform")
    assert str(caught.value) == ("this home has no owner yet: add_principal(mem, NAME, "
                                 "owner=True) names it")


@pytest.mark.parametrize("argument", ["segments", "sessions", "tags", "entities"])
def test_a_grant_filter_that_is_no_text_is_named_by_its_argument(home, argument):
    """A filter value that is no text (a byte of a command line that is not UTF-8) is refused
    naming the argument it came in: `entities`, where it said "each of entitys"."""
    with Memory.open(home) as mem:
        policy.add_principal(mem, "alice", owner=True)
        policy.add_principal(mem, "bob")
        with pytest.raises(UsageError) as caught:
            policy.add_grant(mem, "bob", **{argument: ["x\udcff"]})
    assert str(caught.value).startswith(f"each of {argument} is not valid text")


@pytest.mark.parametrize("tool, arguments", [
    ("attend", {"goal_id": "g"}),
    ("attend", {"goal_id": "g", "depends_on": ["no_such_belief"]}),
    ("claim", {"text": "x", "claim_type": "no_such_type"}),
])
def test_a_failed_tool_call_leaves_no_home_behind(tmp_path, tool, arguments):
    missing = tmp_path / "nowhere"
    said = tool_error(missing, tool, arguments)
    assert "\n" not in said
    assert not missing.exists(), sorted(p.name for p in missing.iterdir())


def test_a_failed_tool_call_keeps_a_home_that_was_there(home):
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    tool_error(home, "attend", {"goal_id": "g"})
    assert (home / "config.json").is_file()


def test_forget_of_an_unknown_handle_is_memory_forgets_own_line(home):
    with Memory.open(home) as mem:
        mem.remember("a note to keep")
        with pytest.raises(Exception) as caught:
            mem.forget(["it_0000000000000000"])
    said = tool_error(home, "forget", {"handle": "it_0000000000000000"})
    assert said == str(caught.value) == "it_0000000000000000: no such item in this memory"


@pytest.mark.parametrize("tool, arguments", [
    ("claim", {"text": "deploy A", "claim_type": "live_system_state"}),
    ("attend", {"goal_id": "deploy"}),
])
def test_a_claim_on_a_missing_home_is_refused_as_atc_claim_refuses_it(tmp_path, tool, arguments):
    # The claim tool made a home where none was and judged the claim against nothing
    # ("allowed", a violation logged into the new home); `atc claim` refuses a missing home
    missing = tmp_path / "nowhere"
    said = tool_error(missing, tool, arguments)
    assert said == (f"{missing}: no memory home here (the `remember` tool creates one; "
                    "check the server's --home or $ATC_HOME)")
    assert not missing.exists()
