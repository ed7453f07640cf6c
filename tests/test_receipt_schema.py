"""The receipt's JSON Schema: shipped in the package, printed by ``atc receipt --schema``, and
met by every receipt a user can get (empty memory, uncurated items, cells, mounts, budgets);
and an envelope a frame was injected in, ingested again (nested, truncated), leaves nothing.

The property test over many kinds of frames is ``tests/test_receipt_promises.py``'s
``check_promises``, which validates each receipt and frame against the schema too.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.hydration import load_receipt
from attention_cloud.samples import sample_paths
from attention_cloud.schemas import frame_schema, receipt_schema, schema_problems


def _home(root, name):
    path = root / name
    path.mkdir()
    write_config(path, {"embedder": "hash"})
    return path


@pytest.fixture(scope="module")
def curated(tmp_path_factory):
    """A curated home of the bundled samples, and a note remembered after curation."""
    mem = Memory.open(_home(tmp_path_factory.mktemp("schema"), "home"))
    mem.ingest(sample_paths())
    mem.curate()
    mem.remember("The processor retry limit is 5 attempts with exponential backoff.")
    yield mem
    mem.close()


def test_the_schema_is_printed_by_the_command_line():
    out = CliRunner().invoke(main, ["receipt", "--schema"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == receipt_schema()
    out = CliRunner().invoke(main, ["receipt", "--schema", "frame"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == frame_schema()
    assert receipt_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_printed_frame_schema_validates_alone(curated):
    # before: `atc receipt --schema frame` printed a schema whose receipt was a $ref to
    # receipt.schema.json, which a JSON Schema library given that one document cannot resolve
    # (Python's jsonschema went to the network for it and failed, "Unresolvable:
    # receipt.schema.json"): the frame's contract could not be checked as printed
    from jsonschema import Draft202012Validator
    from referencing import Registry

    printed = json.loads(CliRunner().invoke(main, ["receipt", "--schema", "frame"]).output)
    frame = curated.hydrate("why do processor retries fail", budget=600).as_json()
    alone = Draft202012Validator(printed, registry=Registry())  # nothing to fetch from
    assert list(alone.iter_errors(frame)) == []
    bad = json.loads(json.dumps(frame))
    bad["receipt"]["facts"][0]["level"] = "L7"
    assert [e.message for e in alone.iter_errors(bad)] == [
        "'L7' is not one of ['L0', 'L1', 'L2', 'L3']"]


@pytest.mark.parametrize("argv, message", [
    (["receipt"], "give a receipt id (RID), or --schema"),
    (["receipt", "--schema", "frames"], "'frames' is not one of 'receipt', 'frame'"),
    (["receipt", "r_0123456789abcdef", "--schema"], "give a receipt id or --schema, not both"),
])
def test_a_receipt_command_without_its_argument_says_what_is_missing(argv, message):
    out = CliRunner().invoke(main, argv)
    assert out.exit_code != 0
    assert message in out.output


def test_the_schema_rejects_what_the_contract_forbids(curated):
    receipt = curated.hydrate("why do processor retries fail", budget=600).receipt
    assert schema_problems(receipt) == []
    bad = json.loads(json.dumps(receipt))
    bad["facts"][0]["level"] = "L7"
    del bad["budget"]["spent"]
    assert schema_problems(bad) == ["budget: 'spent' is a required property",
                                    "facts/0/level: 'L7' is not one of ['L0', 'L1', 'L2', 'L3']"]
    assert schema_problems({**receipt, "added_later": 1}) == []   # fields may be added


@pytest.mark.parametrize("kw", [
    dict(budget=0), dict(budget=12), dict(budget=50_000, plane="exploration"),
    dict(budget=900, cells=False), dict(budget=900, bridge=False), dict(budget=900, ceiling="L3"),
])
def test_every_frame_meets_the_schema(curated, kw):
    frame = curated.hydrate("why do processor retries fail", **kw)
    assert schema_problems(frame.receipt) == [], frame.receipt
    assert schema_problems(frame.as_json(), "frame") == []
    assert load_receipt(curated.home, frame.receipt_id) == frame.receipt


def test_a_mounted_cells_frame_meets_the_schema(curated):
    from attention_cloud.cells import cells_list

    cells = [row["id"] for row in cells_list(curated)][:2]
    assert cells
    for mount in (cells[0], cells):
        frame = curated.hydrate("why do processor retries fail", budget=800, mount=mount)
        assert schema_problems(frame.receipt) == [], frame.receipt


def _atc(*argv: str) -> str:
    """``atc ARGV`` in a process of its own (one home per process: the module's Memory stays
    open), its stdout; it must succeed."""
    proc = subprocess.run([sys.executable, "-m", "attention_cloud.cli", *argv],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_an_empty_memory_gives_a_receipt_of_the_same_shape(tmp_path):
    home = _home(tmp_path, "empty")
    printed = json.loads(_atc("hydrate", "anything at all", "--budget", "300", "--format",
                              "json", "--home", str(home)))
    assert schema_problems(printed, "frame") == []
    assert printed["receipt"]["facts"] == [] and printed["receipt"]["now"] is None
    stored = json.loads(_atc("receipt", printed["receipt_id"], "--home", str(home)))
    assert stored == printed["receipt"]
    # injected as it is, even holding nothing, the frame is wrapped once (ARCHITECTURE's
    # envelope contract), so ingestion strips it
    wrapped = _atc("hydrate", "anything at all", "--budget", "0", "--format", "envelope",
                   "--home", str(home)).rstrip("\n")
    assert wrapped.startswith('<memory-frame receipt="r_') and wrapped.endswith("</memory-frame>")
    assert wrapped.count("<memory-frame") == 1


def test_a_frame_injected_twice_nested_or_cut_off_is_never_ingested(curated, tmp_path):
    # the prompt hook injects the envelope; a transcript holding it (quoted inside another
    # frame, or cut off by a context limit) must not bring the frame's text back as memory
    env = curated.hydrate("why do processor retries fail", budget=600).envelope
    assert "memory frame for" in env
    nested = env.replace("\n", "\nquoted: " + env + "\n", 1)   # a frame inside a frame
    assert nested.count("<memory-frame ") == 2
    cut = env[: len(env) // 2]
    text = tmp_path / "chat.txt"
    text.write_text(f"User: first {nested} kept one\nAssistant: noted\nUser: second {cut}\n",
                    encoding="utf-8")
    home = _home(tmp_path, "again")
    _atc("ingest", str(text), "--home", str(home))
    rows = json.loads(_atc("query", "item(H), rung(H, l0, T)", "--format", "json",
                           "--home", str(home)))
    held = [row["T"] for row in rows]
    assert held and not any("memory frame for" in t or "memory-frame" in t for t in held), held
    assert any("kept one" in t for t in held) and any(t == "noted" for t in held), held


def test_every_facts_source_pointer_resolves_to_its_verbatim_record(curated):
    # what a scorer does with a fact's `source`: `atc show HANDLE --source` opens the record
    # it points at; a turn's, a goal's or a conclusion's verbatim record holds its L0 text
    # (tool calls and their output are rendered, `$ pytest …`, from the record's fields)
    from attention_cloud.show import show_record

    def flat(text: str) -> str:
        return " ".join(text.replace("\\n", "\n").replace('\\"', '"').split())

    frame = curated.hydrate("why do processor retries fail", budget=6000, ceiling="L0")
    items = [f for f in frame.receipt["facts"] if f["handle"].startswith("it_") and f["source"]]
    assert items
    for f in items:
        record = show_record(curated, f["handle"], "l0", True)
        assert record["source"] == f["source"] and "source_now" not in record, f
        (kind,) = [row["K"] for row in curated.query(f"item_kind({f['handle']}, K)").rows]
        if kind in ("turn", "user_goal", "conclusion"):
            assert flat(record["text"])[:40] in flat(record["verbatim"]), (f, record)


@pytest.mark.parametrize("prompt, segments", [
    ("why do processor retries fail", None),   # planned, then injected or not
    ("thanks!", None),                          # declined before any search
    ("why do processor retries fail", {}),      # no segment of this project yet
])
def test_the_prompt_hooks_receipts_meet_the_schema(curated, prompt, segments):
    # the hook stores a receipt for every prompt (`atc receipt RID` prints it): one declined
    # before any search said `"path": "none"`, which the receipt's contract did not name
    from attention_cloud.agents.hooks import ambient_recall

    ambient = ambient_recall(curated, prompt, session_id="s-schema", segments=segments,
                             record=False)
    receipt = ambient.frame.receipt
    assert schema_problems(receipt) == [], receipt
    assert load_receipt(curated.home, receipt["id"]) == receipt


def test_a_receipt_redacted_by_forget_still_meets_the_schema(tmp_path):
    # `atc forget` leaves of a fact naming the erased item only its handle, segment, level
    # and `forgotten: true`: the stored receipt `atc receipt RID` printed then broke the schema
    home = str(_home(tmp_path, "forgetting"))
    _atc("remember", "The staging database is read-only on Fridays.", "--home", home)
    _atc("remember", "The staging database password rotates every Monday.", "--home", home)
    printed = json.loads(_atc("hydrate", "staging database", "--budget", "400", "--format",
                              "json", "--home", home))
    handle = printed["receipt"]["facts"][0]["handle"]
    _atc("forget", handle, "--yes", "--home", home)
    stored = json.loads(_atc("receipt", printed["receipt_id"], "--home", home))
    assert {"handle": handle, "forgotten": True}.items() <= stored["facts"][0].items()
    assert schema_problems(stored) == [], stored


def test_the_readme_receipt_example_meets_the_schema() -> None:
    """README's receipt (under "Hydration": "The receipt (stored as `home/receipts/RID.json`")
    is what a script writer copies from: it must be a receipt the schema takes. It left out
    `created`, which every receipt holds."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("The receipt (stored as `home/receipts/RID.json`"):]
    example = re.search(r"```json\n(.*?)```", after, re.S)
    assert example is not None
    assert schema_problems(json.loads(example.group(1)), "receipt") == []
