"""Every JSON output an integrator parses has a JSON Schema shipped in the package
(`attention_cloud.schemas`, one NAME.schema.json each), printed by the command's own
`--schema`, and real output meets it: `atc show` (an item, its source, an arc, a rollup, a
cell, a grantee's view), `forget` (and its dry run), `remember`, `rules list`, `cells
list|show|hot|rebuild`, `principal/grant/mount list`, `audit` (reads, a declassification, an
erasure), the attention commands, and each MCP tool's published outputSchema."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.schemas import (COMMANDS, SCHEMA_NAMES, bundled, schema, schema_problems,
                                     standalone)

ROOT = Path(__file__).resolve().parent.parent
SESSION = ROOT / "tests" / "fixtures" / "ingest" / "claude_code_session.jsonl"
NOW = "1000000"

#: Each command that prints JSON, with the schema its --schema prints.
SCHEMA_FLAGS = [
    (["show"], "show"), (["forget"], "forget"), (["remember"], "remember"),
    (["rules", "list"], "rules"), (["cells", "list"], "cells"), (["cells", "show"], "cell"),
    (["cells", "hot"], "hot_cells"), (["cells", "rebuild"], "cells_rebuild"),
    (["principal", "list"], "principals"), (["grant", "list"], "grants"),
    (["mount", "list"], "mounts"), (["audit"], "audit"), (["belief", "show"], "belief"),
    (["belief", "why"], "why"), (["belief", "list"], "beliefs"), (["attend"], "attend"),
    (["inspect"], "inspect"), (["claim"], "claim"), (["trace"], "trace"),
    (["ingest"], "ingest"), (["stats"], "stats"), (["curate"], "curate"),
    (["watch"], "watch"), (["query"], "query"), (["hydrate"], "frame"), (["label"], "labels")]


def atc(home: Path, *argv: str) -> Any:
    """The JSON a command printed (run in this process), failing the test if it failed."""
    out = CliRunner().invoke(main, [*argv, "--home", str(home)])
    assert out.exit_code == 0, f"{argv}: {out.output} {out.exception!r}"
    return json.loads(out.stdout)


def conforms(document: Any, name: str) -> None:
    assert schema_problems(document, name) == [], (name, document)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Any]:
    """A curated home shared with bob, its records shown, forgotten, audited and attended
    to; every JSON output by a name of the test's own."""
    from attention_cloud.memory import current
    from attention_cloud.sharing import add_grant, add_principal, declassify, label
    from attention_cloud.sharing.policy import add_mount
    from attention_cloud import Memory

    home = tmp_path_factory.mktemp("schemas") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    out: dict[str, Any] = {}
    CliRunner().invoke(main, ["ingest", str(SESSION), "--home", str(home)])
    atc(home, "curate", "--format", "json")
    rules = home.parent / "mine.pl"
    rules.write_text("my_rule(X) :- item_kind(X, error).\n", encoding="utf-8")
    CliRunner().invoke(main, ["rules", "add", str(rules), "--name", "mine", "--home", str(home)])
    with Memory.open(home) as mem:
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "bob")
        add_principal(mem, "ops", kind="team")
        add_grant(mem, "bob", segments=["default"], ceiling="L1")
        add_mount(mem, "theirs", "http://127.0.0.1:9/", "THEIR_TOKEN")
        items = [row["H"] for row in mem.query("item(H)", limit=50).rows]
        arc = mem.query("arc(A)", limit=1).rows[0]["A"]
        rollup = mem.query("rollup(R, _)", limit=1).rows[0]["R"]
        label(mem, [items[1]], restrictions=["private"])
        declassify(mem, [items[1]], why="bob may read it", restrictions=["private"])
    first, gone = items[0], items[2]
    out["show"] = atc(home, "show", first, "--format", "json")
    out["show_source"] = atc(home, "show", first, "--source", "--format", "json")
    out["show_l3"] = atc(home, "show", first, "--level", "L3", "--format", "json")
    out["show_arc"] = atc(home, "show", arc, "--format", "json")
    out["show_rollup"] = atc(home, "show", rollup, "--format", "json")
    out["cells"] = atc(home, "cells", "list", "--format", "json")
    out["show_cell"] = atc(home, "show", out["cells"][0]["id"], "--format", "json")
    out["cell"] = atc(home, "cells", "show", out["cells"][0]["id"], "--format", "json")
    atc(home, "hydrate", "--goal", "the flaky cache test", "--format", "json")
    out["hot_cells"] = atc(home, "cells", "hot", "--format", "json")
    out["show_as"] = atc(home, "show", first, "--as", "bob", "--format", "json")
    atc(home, "hydrate", "--goal", "the flaky cache test", "--as", "bob", "--format", "json")
    atc(home, "query", "item_kind(H, K)", "--as", "bob", "--limit", "3", "--format", "json")
    out["remember"] = atc(home, "remember", "the staging DB is read-only on Fridays",
                          "--format", "json")
    out["remember_again"] = atc(home, "remember", "the staging DB is read-only on Fridays",
                                "--format", "json")
    out["rules"] = atc(home, "rules", "list", "--format", "json")
    out["principals"] = atc(home, "principal", "list", "--format", "json")
    out["grants"] = atc(home, "grant", "list", "--format", "json")
    out["mounts"] = atc(home, "mount", "list", "--format", "json")
    out["forget_preview"] = atc(home, "forget", gone, "--dry-run", "--format", "json")
    out["forget"] = atc(home, "forget", gone, "--yes", "--format", "json")
    out["forget_again"] = atc(home, "forget", gone, first, "--yes", "--format", "json")
    out["cells_rebuild"] = atc(home, "cells", "rebuild", "--format", "json")
    out["audit"] = atc(home, "audit", "--format", "json")
    out["labels_show"] = atc(home, "label", items[1], items[4], "--show", "--format", "json")
    out["labels_set"] = atc(home, "label", items[3], "--restrict", "pii", "--reader", "bob",
                            "--retain-until", "2030-01-01", "--format", "json")
    from attention_cloud.agents.mcp_server import recent
    out["recent_receipts"] = recent(home)       # the MCP resource receipts://recent
    # the attention side: a chain of beliefs, one about a subject named like JSON's literals
    a = ["--now", NOW]
    for argv in (["source", "add", "registry", "--type", "dependency_version", "--kind",
                  "package_registry"],
                 ["source", "add", "api", "--type", "worker_state", "--kind", "process_state"],
                 ["belief", "add", "ver", "--type", "dependency_version", "--subject", "libfoo",
                  "--value", "4.1", "--confidence", "0.9", "--volatility", "package_release",
                  "--source", "registry", "--age", "20000"],
                 ["belief", "add", "compat", "--type", "compatibility", "--subject", "deploy",
                  "--value", "A", "--confidence", "0.9", "--volatility", "config_docs",
                  "--supports", "ver", "--age", "20000"],
                 ["belief", "add", "odd", "--type", "worker_state", "--subject", "null",
                  "--value", "true", "--confidence", "0.8", "--volatility", "queue_depth",
                  "--age", "600"],
                 ["belief", "add", "odder", "--type", "worker_state", "--subject", "true",
                  "--value", "false", "--confidence", "0.8", "--volatility", "queue_depth",
                  "--age", "600"]):
        done = CliRunner().invoke(main, [*argv, *a, "--home", str(home)])
        assert done.exit_code == 0, done.output
    out["attend"] = atc(home, "attend", "--goal", "deploy", "--depends-on", "compat",
                        "--depends-on", "odd", "--depends-on", "odder", "--loss", "1",
                        "--budget", "3", "--format", "json", *a)
    registry = next(c["candidate_id"] for c in out["attend"]["ranked"]
                    if c["target"] == "registry")
    out["inspect"] = atc(home, "inspect", registry, "--result", "4.2", "--format", "json", *a)
    out["belief"] = atc(home, "belief", "show", "ver", "--format", "json", *a)
    out["belief_dirty"] = atc(home, "belief", "show", "compat", "--format", "json", *a)
    out["belief_odd"] = atc(home, "belief", "show", "odd", "--format", "json", *a)
    out["beliefs"] = atc(home, "belief", "list", "--format", "json", *a)
    out["why"] = atc(home, "belief", "why", "compat", "--format", "json", *a)
    out["why_odd"] = atc(home, "belief", "why", "odder", "--format", "json", *a)
    out["claim"] = atc(home, "claim", "deploy A", "--type", "compatibility", "--evidence",
                       "compat", "--format", "json", *a)
    out["trace"] = atc(home, "trace", "--format", "json", *a)
    if current() is not None:  # the attention commands keep their Memory open
        current().close()
    return out


@pytest.mark.parametrize("argv,name", SCHEMA_FLAGS, ids=[" ".join(a) for a, _ in SCHEMA_FLAGS])
def test_each_command_prints_the_schema_of_its_json(argv, name) -> None:
    out = CliRunner().invoke(main, [*argv, "--schema"])   # no home, no argument needed
    assert out.exit_code == 0, out.output
    printed = json.loads(out.output)
    assert printed == standalone(name)
    # what it refers to is in it: a library given this one document has nothing to fetch
    referred = set(re.findall(r'"\$ref": "([a-z_]+)\.schema\.json', json.dumps(printed)))
    assert referred <= set(printed.get("$defs", {})) | {name}, referred


def test_every_schema_is_listed_with_what_prints_it_and_has_its_own_id() -> None:
    printed = {name for _, name in SCHEMA_FLAGS} | {"receipt", "mcp", "serve"}
    assert printed == set(SCHEMA_NAMES) == set(COMMANDS)
    for name in SCHEMA_NAMES:
        document = schema(name)
        assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert document["$id"].endswith(f"/{name}.schema.json")


@pytest.mark.parametrize("key,name", [
    ("show", "show"), ("show_source", "show"), ("show_l3", "show"), ("show_arc", "show"),
    ("show_rollup", "show"), ("show_cell", "show"), ("show_as", "show"),
    ("remember", "remember"), ("remember_again", "remember"), ("rules", "rules"),
    ("cells", "cells"), ("cell", "cell"), ("hot_cells", "hot_cells"),
    ("cells_rebuild", "cells_rebuild"), ("principals", "principals"), ("grants", "grants"),
    ("mounts", "mounts"), ("forget_preview", "forget"), ("forget", "forget"),
    ("forget_again", "forget"), ("audit", "audit"), ("attend", "attend"),
    ("inspect", "inspect"), ("belief", "belief"), ("belief_dirty", "belief"),
    ("belief_odd", "belief"), ("beliefs", "beliefs"), ("why", "why"), ("why_odd", "why"),
    ("claim", "claim"), ("trace", "trace"), ("labels_show", "labels"),
    ("labels_set", "labels")])
def test_real_output_meets_its_schema(outputs, key, name) -> None:
    conforms(outputs[key], name)
    # and the schema the command's --schema prints validates it alone, no registry given
    from jsonschema import Draft202012Validator
    assert not list(Draft202012Validator(standalone(name)).iter_errors(outputs[key]))


def test_the_outputs_hold_what_the_schemas_describe(outputs) -> None:
    # not vacuous: each kind of record, event and list is there to be checked
    assert {outputs[k]["record"] for k in ("show", "show_arc", "show_rollup", "show_cell")} \
        == {"item", "arc", "rollup", "cell"}
    assert "verbatim" in outputs["show_source"] and outputs["show_as"]["ceiling"] == "L1"
    assert outputs["remember"]["new"] and not outputs["remember_again"]["new"]
    assert outputs["forget_preview"]["dry_run"] and outputs["forget_again"]["already_forgotten"]
    assert {e["event"] for e in outputs["audit"]} == {"read", "declassify", "forget"}
    assert {e["op"] for e in outputs["audit"] if e["event"] == "read"} \
        == {"show", "hydrate", "query"}
    assert outputs["mounts"] and outputs["hot_cells"] and outputs["rules"]
    assert outputs["belief_dirty"]["dirty"] and outputs["why"]["supports"]
    assert outputs["labels_show"]["set"] == 0 and len(outputs["labels_show"]["records"]) == 2
    assert outputs["labels_set"]["set"] >= 1
    (labelled,) = outputs["labels_set"]["records"]
    assert labelled["restrictions"] == ["pii"] and labelled["readers"] == ["bob"]
    assert labelled["retention"].startswith("2030-01-01")


def test_a_subject_named_like_a_json_literal_is_text(outputs) -> None:
    """Before: a belief about the subject "null" read back as null (`atc belief show` said
    `None`), one about "true" as JSON true; a candidate reading it said "True"."""
    assert outputs["belief_odd"]["subject"] == "null"
    assert outputs["why_odd"]["subject"] == "true"
    subjects = {b["id"]: b["subject"] for b in outputs["beliefs"]}
    assert (subjects["odd"], subjects["odder"]) == ("null", "true")
    read = {c["subject"] for c in outputs["attend"]["ranked"]}
    assert {"null", "true"} <= read, read


def test_each_mcp_tool_publishes_its_results_schema_self_contained(tmp_path) -> None:
    """The SDK published `{"type": "object"}` for every tool: now each tool's outputSchema is
    its result's schema with what it refers to bundled, so a client validates without
    fetching anything, and no other tool's schema beside it (tools/list stays small) (the SDK client does, on every call: tests/test_agents_mcp.py)."""
    from jsonschema.validators import validator_for

    from attention_cloud.agents.mcp_server import listed_tools

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    tools = listed_tools(home)
    # receipts://recent is a resource only; a receipt is the receipt tool's and receipt://ID's
    assert {t.name for t in tools} == set(schema("mcp")["$defs"]) - {"recent_receipts"}
    for tool in tools:
        published = tool.output_schema
        assert published == bundled("mcp", tool.name)
        validator_for(published).check_schema(published)
        assert published["type"] == "object"          # MCP up to 2025-11-25 requires it
        embedded = [d["$id"] for d in published.get("$defs", {}).values() if "$id" in d]
        assert not any(i.endswith("/mcp.schema.json") for i in embedded), \
            f"{tool.name}'s outputSchema carries every other tool's result schema too"
    remember = next(t for t in tools if t.name == "remember").output_schema
    validate = validator_for(remember)(remember)
    good = {"handle": "it_0123456789abcdef", "kind": "note", "segment": "default",
            "new": True, "source": "remembered.jsonl:1", "curated": True}
    assert list(validate.iter_errors(good)) == []
    assert list(validate.iter_errors({**good, "new": "yes"}))


def test_the_mcp_resources_meet_their_schemas(outputs) -> None:
    from jsonschema import Draft202012Validator

    recent = outputs["recent_receipts"]
    assert recent
    validate = Draft202012Validator(bundled("mcp", "recent_receipts"))
    assert [e.message for e in validate.iter_errors(recent)] == []


def test_every_command_with_a_json_output_takes_schema() -> None:
    """A command added with `--format json` (or `--format-output json`) and no `--schema`
    would be an output integrators parse blind (`atc bench`'s suites print theirs with
    --print-schema)."""
    import click

    ctx = click.Context(main)
    lacking = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                walk(command, (*path, name))
                continue
            json_out = any(isinstance(p.type, click.Choice) and "json" in p.type.choices
                           for p in command.params if isinstance(p, click.Option)
                           and {"--format", "--format-output"} & set(p.opts))
            takes = any("--schema" in p.opts for p in command.params)
            if json_out and not takes and path[:1] != ("bench",):
                lacking.append(" ".join((*path, name)))
    walk(main, ())
    assert lacking == [], lacking
