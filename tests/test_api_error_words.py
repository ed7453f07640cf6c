"""Errors and notes the Python API gives name its own arguments (``mount``, ``budget``,
``readers``, ``token_env``), not the CLI's options (``--mount``, ``--budget``): a program that
called ``mem.hydrate(goal, mount=...)`` was told about an option it never had. Where the
command line spells one differently, both names are given."""
from __future__ import annotations

import re

import pytest

from attention_cloud import AtcError, BadArgument, InputError, UsageError
from attention_cloud.show import show_record
from attention_cloud.sharing import add_mount, declassify, label

CLI_OPTION = re.compile(r"(?<![\w(])--[a-z]")


def _problem(call, kind=AtcError) -> str:
    with pytest.raises(kind) as caught:
        call()
    return str(caught.value)


def test_api_errors_name_the_api_arguments(curated_samples) -> None:
    mem = curated_samples
    # README (Python API): a cell given to a mount that the home does not hold is a
    # BadArgument, an InputError, as a handle, receipt id or saved rule is (a UsageError before)
    mount = _problem(lambda: mem.hydrate("retry policy", mount="cell_nope"), BadArgument)
    assert mount.startswith("mount cell_nope: no such cell") and not CLI_OPTION.search(mount)

    forget = _problem(lambda: mem.forget([]), UsageError)
    assert "handles, session or query" in forget and not CLI_OPTION.search(forget)

    reembed = _problem(lambda: mem.reembed("none"), UsageError)
    assert not CLI_OPTION.search(reembed), reembed

    (arc,) = mem.query("arc(A), !").rows[0].values()
    source = _problem(lambda: show_record(mem, arc, "l1", True), InputError)
    assert "no single source record" in source and not CLI_OPTION.search(source)

    nothing = _problem(lambda: label(mem, ["it_0"]), UsageError)
    assert "readers, restrictions or retention" in nothing, nothing
    why = _problem(lambda: declassify(mem, ["it_0"], why=" "), UsageError)
    assert why.startswith("declassify needs why"), why
    env = _problem(lambda: add_mount(mem, "team", "http://127.0.0.1:1", "not a var"), UsageError)
    assert env.startswith("token_env (--token-env) must name an environment variable"), env


def test_a_reader_the_home_does_not_hold_is_a_bad_argument_in_the_api_words(curated_samples):
    """README (Python API): a principal the home does not hold is a BadArgument, an
    InputError. A grantee's read for an unknown reader raised UsageError, its message sending
    a Python caller to `atc principal list`; the command line keeps that hint."""
    from click.testing import CliRunner

    from attention_cloud.cli import main
    from attention_cloud.sharing import reader_hydrate, reader_query

    for read in (lambda: reader_hydrate(curated_samples, "nobody", "retry policy"),
                 lambda: reader_query(curated_samples, "nobody", "item(H)")):
        said = _problem(read, BadArgument)
        assert said.startswith("nobody: no such principal in this home") and "atc " not in said
    home = str(curated_samples.home)
    curated_samples.close()
    out = CliRunner().invoke(main, ["query", "item(H)", "--as", "nobody", "--home", home])
    assert out.exit_code == 2
    assert out.stderr == "atc: nobody: no such principal in this home (atc principal list)\n"


def test_the_receipt_of_a_frame_without_room_names_the_budget_not_an_option(curated_samples):
    for budget in (0, 3):
        empty = curated_samples.hydrate("retry policy", budget=budget).receipt["empty"]
        assert empty and "budget" in empty and not CLI_OPTION.search(empty), empty


def test_the_command_line_still_names_its_options(curated_samples) -> None:
    """The commands check what they need before calling the API, in their own words."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    home = str(curated_samples.home)
    curated_samples.close()
    said = {}
    for args in (["label", "it_0"], ["declassify", "it_0", "--why", "reviewed"], ["forget"]):
        out = CliRunner().invoke(main, [*args, "--home", home])
        assert out.exit_code == 2 and out.output.count("\n") == 1, out.output
        said[args[0]] = out.output
    assert said["label"] == "atc: give at least one of --reader, --restrict, --retain-until\n"
    assert said["declassify"] == ("atc: give at least one of --restriction, --reader, "
                                  "--all-readers, --retain-until\n")
    assert said["forget"] == "atc: name what to forget: handles, --session or --query\n"


def test_forgetting_a_handle_memory_never_held_is_an_input_error(curated_samples) -> None:
    """It was a PrologError in Prolog's words (item `it_…' does not exist), exit 2 as for a
    bad query; it is now what `show` and the MCP tool say of a missing item: an InputError
    naming the handle (exit 2, as every name the home does not hold), memory unchanged."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    mem = curated_samples
    missing = "it_0000000000000000"
    for dry_run in (True, False):
        said = _problem(lambda: mem.forget([missing], dry_run=dry_run), InputError)
        assert said == f"{missing}: no such item in this memory"
    home = str(mem.home)
    journal = (mem.home / "journal.pl").read_bytes()
    mem.close()
    out = CliRunner().invoke(main, ["forget", missing, "--yes", "--home", home])
    assert out.exit_code == 2 and out.output == f"atc: {missing}: no such item in this memory\n"
    assert (curated_samples.home / "journal.pl").read_bytes() == journal


def test_the_labels_of_a_record_memory_never_held_are_refused(curated_samples) -> None:
    """record_labels said it raised InputError for no such record, and gave a typo'd handle
    the labels of an unlabelled record (so `atc label it_typo --show` printed them and exit
    0); it now refuses it in one line, and still reads every item, arc and rollup."""
    from click.testing import CliRunner

    from attention_cloud.cli import main
    from attention_cloud.sharing import record_labels

    mem = curated_samples
    missing = "it_0000000000000000"
    said = _problem(lambda: record_labels(mem, missing), InputError)
    assert said == f"{missing}: no such item, arc or rollup in this memory"
    row = mem.query("item(I), arc(A), rollup(R, _), !").rows[0]
    for handle in row.values():
        assert record_labels(mem, handle)["restrictions"] == []
    home = str(mem.home)
    mem.close()
    out = CliRunner().invoke(main, ["label", missing, "--show", "--home", home])
    assert out.exit_code == 2 and out.output == f"atc: {said}\n"


def test_naming_a_grant_principal_or_membership_that_is_not_there_is_one_plain_line(
        curated_samples) -> None:
    """They were PrologErrors in Prolog's quoting (grant `g_nope' does not exist; membership
    `bob-ops' does not exist), exit 2 as for bad usage; each is now an InputError saying
    what is missing, exit 1, as every other "no such" is, and nothing is written."""
    from click.testing import CliRunner

    from attention_cloud.cli import main
    from attention_cloud.sharing import (add_principal, join_team, leave_team,
                                         remove_principal, revoke_grant)

    mem = curated_samples
    add_principal(mem, "alice", owner=True)
    add_principal(mem, "bob")
    add_principal(mem, "ops", kind="team")
    said = {"revoke": _problem(lambda: revoke_grant(mem, "g_nope"), InputError),
            "remove": _problem(lambda: remove_principal(mem, "nobody"), InputError),
            "join": _problem(lambda: join_team(mem, "nobody", "ops"), InputError),
            "leave": _problem(lambda: leave_team(mem, "bob", "ops"), InputError)}
    assert said == {"revoke": "g_nope: no such grant in this home",
                    "remove": "nobody: no such principal in this home",
                    "join": "nobody: no such principal in this home",
                    "leave": "bob is not a member of ops"}
    home = str(mem.home)
    journal = (mem.home / "journal.pl").read_bytes()
    mem.close()
    out = CliRunner().invoke(main, ["grant", "revoke", "g_nope", "--home", home])
    assert out.exit_code == 2 and out.output == "atc: g_nope: no such grant in this home\n"
    assert (curated_samples.home / "journal.pl").read_bytes() == journal
