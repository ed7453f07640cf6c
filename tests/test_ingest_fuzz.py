"""Damaged transcripts of every format hold to the contract for bad input: a one-line
InputError, or items with every unusable record counted (skipped or ignored), never a crash.

The regression cases are mutants a mutation fuzzer found (qa19); the property test below runs
a fixed, seeded set of mutants of each format's fixture so a new reader is held to it too."""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path

import pytest

from attention_cloud.errors import InputError
from attention_cloud.ingest import FORMATS, parse_text
from attention_cloud.ingest.records import ParseResult

# one fixture per format: the table the format tests keep (a new format is added there once)
from test_ingest_formats import FIXTURES, ONE_OF_EACH, _places  # noqa: E402


def _load(fixture: str) -> tuple[str, object]:
    """("json", document) or ("jsonl", [record per non-blank line])."""
    text = (FIXTURES / fixture).read_text()
    try:
        return "json", json.loads(text)
    except json.JSONDecodeError:
        return "jsonl", [json.loads(line) for line in text.splitlines() if line.strip()]


def _dump(kind: str, document: object) -> bytes:
    if kind == "jsonl" and isinstance(document, list):
        text = "\n".join(json.dumps(record) for record in document) + "\n"
    else:
        text = json.dumps(document)
    return text.encode("utf-8", "surrogatepass")


def _set(document: object, path: tuple, value: object) -> object:
    node = document
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return document


def _mutant(fixture: str, path: tuple, value: object) -> bytes:
    kind, document = _load(fixture)
    return _dump(kind, _set(document, path, value))


def _parse(data: bytes, name: str, format: str | None) -> ParseResult | None:
    """The parse result, or None after a one-line InputError; anything else fails the test."""
    try:
        return parse_text(data, name=name, format=format)
    except InputError as error:
        assert "\n" not in str(error) and "\r" not in str(error), str(error)
        return None


# -- found by fuzzing: a type or id that is a list or an object, not a string ----------------------
# Each raised TypeError (unhashable type) from a set or dict lookup before the fix.
UNHASHABLE = [
    ("openai", "openai_chat.json", ("messages", 5, "content", 0, "type")),
    ("anthropic", "anthropic_messages.json", ("messages", 1, "content", 0, "type")),
    ("openai-responses", "openai_responses.json", ("input", 0, "type")),
    ("openai-responses", "openai_responses.json", ("input", 0, "content", 0, "type")),
    ("codex", "codex_rollout.jsonl", (1, "payload", "content", 0, "type")),
    ("codex", "codex_rollout.jsonl", (3, "payload", "type")),
    ("codex", "codex_rollout.jsonl", (7, "type")),
    ("langchain", "langchain_messages.json", (2, "type")),
    ("langchain", "langchain_messages.json", (2, "data", "content", 2, "id")),
    ("langchain", "langchain_messages.json", (2, "data", "tool_calls", 0, "id")),
    ("openhands", "openhands_v1_events.json", (0, "kind")),
    ("openhands", "openhands_v1_events.json", (2, "kind")),
    ("openhands", "openhands_v1_events.json", (4, "observation", "kind")),
    ("claude-code", "claude_code_session.jsonl", (0, "type")),
]


@pytest.mark.parametrize("value", [[], {"a": 1}], ids=["list", "object"])
@pytest.mark.parametrize("detected", [False, True], ids=["forced", "detected"])
@pytest.mark.parametrize("format,fixture,path", UNHASHABLE,
                         ids=[f"{f}:{'/'.join(map(str, p))}" for f, _, p in UNHASHABLE])
def test_a_type_or_id_of_the_wrong_kind_is_no_crash(format, fixture, path, value, detected):
    data = _mutant(fixture, path, value)
    result = _parse(data, Path(fixture).name, None if detected else format)
    if result is not None:
        assert result.items, "a damaged record must not cost the rest of the transcript"


# -- found by fuzzing: a content block that is not an object vanished without a count ----------------
BLOCK_NOT_AN_OBJECT = [
    ("anthropic", "anthropic_messages.json", ("messages", 1, "content", 1)),
    ("langchain", "langchain_messages.json", (2, "data", "content", 1)),
    ("claude-code", "claude_code_session.jsonl", (6, "message", "content", 0)),
    ("claude-code", "claude_code_session.jsonl", (11, "message", "content", 0)),
]


@pytest.mark.parametrize("value", [None, 7, True, []], ids=["null", "number", "bool", "list"])
@pytest.mark.parametrize("format,fixture,path", BLOCK_NOT_AN_OBJECT,
                         ids=[f"{f}:{'/'.join(map(str, p))}" for f, _, p in BLOCK_NOT_AN_OBJECT])
def test_a_content_block_that_is_not_an_object_is_counted_as_skipped(format, fixture, path,
                                                                      value):
    before = parse_text((FIXTURES / fixture).read_bytes(), name=fixture, format=format)
    after = parse_text(_mutant(fixture, path, value), name=fixture, format=format)
    assert len(after.items) < len(before.items)          # the block held an item ...
    assert any(f"content block {path[-1]} is not an object" in reason
               for _, reason in after.skipped)            # ... and its loss is reported


# -- the contract, over seeded mutants of every format -------------------------------------------
_VALUES = [None, 0, -1, 2.5, 10**30, True, "", "x", [], ["x", 1], {}, {"a": None},
           "'), foo:- halt. \"q\" `t`", "\ud800", "a\x00b", "one\r\ntwo", "\ufeffbom",
           "2026-13-45T99:99:99Z", 1e18, "yesterday"]
_GARBAGE = [b"{", b"]", b"\n1\n", b"\nnull\n", b"\n[]\n", b"\xff", b"\xed\xa0\x80", b"\x00",
            b"'), foo:- halt.", b"\\ud800"]
MUTANTS_PER_FORMAT = 150


def _document_mutant(kind: str, document: object, rng: random.Random) -> bytes:
    document = copy.deepcopy(document)
    path = rng.choice([p for p in _places(document) if p])
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    operation = rng.randrange(4)
    if operation == 0 or isinstance(parent, list) and operation == 1:
        parent[path[-1]] = copy.deepcopy(rng.choice(_VALUES))
    elif operation == 1:
        parent[f"{path[-1]}_renamed"] = parent.pop(path[-1])
    elif operation == 2 and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, list):                       # a duplicated or truncated list
        if rng.random() < 0.5:
            parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
        else:
            del parent[path[-1]:]
    else:
        parent[path[-1]] = "y" * rng.choice([100_000, 1_100_000])
    return _dump(kind, document)


def _byte_mutant(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(1, len(data))
    operation = rng.randrange(5)
    if operation == 0:
        return data[:at]                                  # truncated anywhere
    if operation == 1:
        return data[:at] + rng.choice(_GARBAGE) + data[at:]
    if operation == 2:
        return data.replace(b"\n", b"\r\n")
    if operation == 3:
        return b"\xef\xbb\xbf" + data
    return data[:at] + b"z" * 1_100_000 + data[at:]       # a 1 MB line


@pytest.mark.parametrize("format", FORMATS)
def test_every_reader_holds_to_the_contract_on_damaged_input(format):
    fixture = ONE_OF_EACH[format]
    data = (FIXTURES / fixture).read_bytes()
    document = None if format in ("markdown", "text", "whatsapp", "aider", "notes",
                                  "imessage") else _load(fixture)
    rng = random.Random(f"qa19:{format}")
    for number in range(MUTANTS_PER_FORMAT):
        if document is not None and rng.random() < 0.6:
            mutant = _document_mutant(*document, rng)
        else:
            mutant = _byte_mutant(data, rng)
        started = time.monotonic()
        result = _parse(mutant, fixture, format if number % 3 else None)
        assert time.monotonic() - started < 10, f"mutant {number} took over 10 s"
        if result is not None:
            assert all(item.handle.startswith("it_") for item in result.items)


# -- found by fuzzing: a 1 MB action line in a trajectory took 17 s (shlex is quadratic) -----------
def test_a_one_megabyte_action_line_is_read_in_seconds():
    document = json.loads((FIXTURES / "swe_agent_run.traj").read_text())
    step = next(m for m in document["history"] if m["role"] == "assistant" and m.get("action"))
    step["action"] = "echo " + "z" * 1_000_000 + "\n"
    started = time.monotonic()
    result = parse_text(json.dumps(document), name="run.traj", format="trajectory")
    assert time.monotonic() - started < 3
    assert len(result.items) == len(parse_text((FIXTURES / "swe_agent_run.traj").read_bytes(),
                                               name="run.traj").items)


# -- found by fuzzing: an integer of over 4,300 digits raised ValueError out of json ---------------
HUGE_NUMBER = "1" + "0" * 5000


@pytest.mark.parametrize("format", [f for f in FORMATS if f not in ("markdown", "text")])
def test_a_number_too_long_to_convert_is_a_one_line_error(format):
    document = ('{"messages": [{"role": "user", "content": "fix the importer", '
                f'"timestamp": {HUGE_NUMBER}}}]}}')
    assert _parse(document.encode(), "huge.json", format) is None


def test_a_number_too_long_to_convert_costs_its_line_only():
    lines = (FIXTURES / "claude_code_session.jsonl").read_text().splitlines()
    before = parse_text("\n".join(lines) + "\n", name="s.jsonl", format="claude-code")
    lines.insert(1, f'{{"type": "user", "n": {HUGE_NUMBER}}}')
    after = parse_text("\n".join(lines) + "\n", name="s.jsonl", format="claude-code")
    assert len(after.items) == len(before.items)
    assert after.skipped == [(2, "invalid JSON: exceeds the limit (4300 digits) for integer "
                                 "string conversion")]
