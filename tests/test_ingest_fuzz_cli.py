"""Damaged transcripts through the real `atc ingest` process: ingested whole and readable, or
refused in one line naming the file with the home byte for byte as it was (README, Command
line: "Errors are one line on stderr"; the guide's "the journal unchanged").

A bounded slice of scripts/bench/ingest_fuzz.py: one seeded mutant per format (the mutation
kind rotates with the format, so the slice spans cuts, flips, bad UTF-8, BOMs, line ends,
deep nesting, huge numbers, duplicate keys, wrong types, odd text and odd names), each
ingested into a new home and into one that already holds items, and a slice of the odd
command lines. The bench runs the rest (`--per-format`, `--cli`)."""
from __future__ import annotations

import subprocess

import pytest

from bench_scripts import load_bench_script
from test_ingest_formats import ONE_OF_EACH


fuzz = load_bench_script("ingest_fuzz")
SEED = 33


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A curated home holding items, copied afresh for each mutant."""
    return fuzz.make_seeded_home(tmp_path_factory.mktemp("ingest-fuzz"))


def _mutant(index: int, fmt: str):
    made = sorted(fuzz.cases(fmt, ONE_OF_EACH[fmt], SEED, per_format=100, huge_mb=0,
                             encodings=False), key=lambda case: case.mutation)
    return made[(index * 7) % len(made)]


@pytest.mark.parametrize("index, fmt", list(enumerate(ONE_OF_EACH)), ids=list(ONE_OF_EACH))
def test_a_damaged_transcript_is_ingested_readable_or_refused_leaving_the_home(
        seeded, tmp_path, index, fmt):
    home, held = seeded
    case = _mutant(index, fmt)
    tally = fuzz.Tally()
    fuzz.run_case(case, home, held, tmp_path, tally, None)
    assert not tally.defects, (case.mutation, tally.defects)


#: The re-encoded and mixed mutants run here (the bench runs every format's): a JSON
#: document's each, and a JSON Lines session's DOS ending and mixed records.
ENCODED = [("openai", m) for m in ("UTF-16 LE with its mark", "UTF-16 BE without a mark",
                                   "Latin-1", "CRLF line ends and a DOS end-of-file mark",
                                   "NUL inside text", "another format's record")] + \
    [("claude-code", m) for m in ("CRLF line ends and a DOS end-of-file mark",
                                  "records of other formats mixed in")]


@pytest.mark.parametrize("fmt, mutation", ENCODED, ids=[f"{f}-{m}" for f, m in ENCODED])
def test_a_transcript_saved_otherwise_is_read_or_refused_for_its_real_problem(
        seeded, tmp_path, fmt, mutation):
    """Before: the chat export with a DOS end-of-file mark was refused as "cannot detect
    format", as was the one with a record appended."""
    home, held = seeded
    (case,) = [c for c in fuzz.cases(fmt, ONE_OF_EACH[fmt], SEED, per_format=0, huge_mb=0)
               if c.mutation.startswith(mutation)]
    assert case.expect in ("read", "named")
    tally = fuzz.Tally()
    fuzz.run_case(case, home, held, tmp_path, tally, None)
    assert not tally.defects, (case.mutation, tally.defects)


def test_the_judge_holds_a_transcript_saved_otherwise_to_more_than_the_contract():
    undetected = _done(1, "atc: chat.json: cannot detect format (try --format)\n")
    named = _done(1, "atc: chat.json:11: invalid UTF-8 (byte 0xe9 at column 29)\n")
    assert fuzz._unmet("read", named) == "refused a transcript only saved otherwise"
    assert fuzz._unmet("named", undetected).startswith("'cannot detect format'")
    assert fuzz._unmet("named", named) is None
    assert fuzz._unmet("", undetected) is None


def test_odd_command_lines_of_ingest_and_the_reading_commands_are_refused_in_one_line(
        seeded, tmp_path):
    home, _ = seeded
    tally = fuzz.Tally()
    fuzz.run_cli(home, tmp_path, tally, commands={"ingest", "query", "show", "hydrate"})
    assert tally.outcomes["cli"]["refused"] > 20
    assert not tally.defects, tally.defects


# -- the judge itself: what it must call a defect ---------------------------------------------

def _done(code: int, stderr: str) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess([], code, b"", stderr.encode())


def test_the_judge_calls_a_traceback_or_a_second_line_or_an_unnamed_file_a_defect():
    named = "atc: chat.json: cannot detect format (try --format)"
    assert fuzz.refusal_defect(_done(1, named + "\n"), "chat.json") is None
    assert fuzz.refusal_defect(_done(1, "Traceback (most recent call last):\n x\n"),
                               "chat.json") == "traceback"
    assert fuzz.refusal_defect(_done(1, named + "\nmore\n"), "chat.json") == "stderr of 2 lines"
    assert fuzz.refusal_defect(_done(1, "atc: bad input\n"), "chat.json") == \
        "stderr does not name the file"


def test_the_home_digest_sees_a_changed_byte_and_a_new_folder(tmp_path):
    (tmp_path / "journal.pl").write_bytes(b"a")
    before = fuzz.home_digest(tmp_path)
    (tmp_path / "journal.pl").write_bytes(b"b")
    assert fuzz.home_digest(tmp_path) != before
    (tmp_path / "journal.pl").write_bytes(b"a")
    (tmp_path / "locks").mkdir()
    assert fuzz.home_digest(tmp_path) != before
    assert fuzz.home_digest(tmp_path / "none") == {}


# -- defects the fuzzer found -----------------------------------------------------------------

@pytest.mark.parametrize("output", [[], ["--format", "json"]], ids=["text", "json"])
def test_show_source_of_a_json_record_holding_a_lone_surrogate_escape(tmp_path, output):
    """A JSON writer with ASCII output writes a lone surrogate as ``\\ud800``; the item was
    ingested, but `atc show H --source` of a record in a JSON document died with
    UnicodeEncodeError ('surrogates not allowed'), a traceback. The record is shown as the
    file writes it, the escape kept."""
    import json as json_module

    from click.testing import CliRunner

    from attention_cloud.cli import main

    chat = tmp_path / "chat.json"
    chat.write_text(json_module.dumps({"messages": [
        {"role": "user", "content": "why do the retries stop"},
        {"role": "assistant", "content": "the budget \ud800 ran out after \udfff three tries"}]},
        indent=1))
    home = tmp_path / "home"
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(chat), "--home", str(home)]).exit_code == 0
    rows = json_module.loads(runner.invoke(main, ["query", "item_text(H, T)", "--format", "json",
                                                  "--home", str(home)]).stdout)
    handle = next(row["H"] for row in rows if "budget" in row["T"])
    shown = runner.invoke(main, ["show", handle, "--source", *output, "--home", str(home)],
                          catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    verbatim = json_module.loads(shown.stdout)["verbatim"] if output else shown.stdout
    assert "the budget \\ud800 ran out after \\udfff three tries" in verbatim


def test_show_source_of_a_record_in_a_json_document_after_a_byte_order_mark(tmp_path):
    """A JSON export written with a UTF-8 BOM is ingested (the mark dropped); `atc show H
    --source` read the file again without dropping it and refused every item, exit 1: `not
    readable as UTF-8 JSON (Unexpected UTF-8 BOM ...)`."""
    import json as json_module

    from click.testing import CliRunner

    from attention_cloud.cli import main

    chat = tmp_path / "chat.json"
    chat.write_bytes(b"\xef\xbb\xbf" + json_module.dumps({"messages": [
        {"role": "user", "content": "why do the retries stop"},
        {"role": "assistant", "content": "the budget ran out after three tries"}]},
        indent=1).encode())
    home = tmp_path / "home"
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(chat), "--home", str(home)]).exit_code == 0
    rows = json_module.loads(runner.invoke(main, ["query", "item_text(H, T)", "--format", "json",
                                                  "--home", str(home)]).stdout)
    assert len(rows) == 2
    for row in rows:
        shown = runner.invoke(main, ["show", row["H"], "--source", "--home", str(home)])
        assert shown.exit_code == 0, shown.output
        assert row["T"].split(": ", 1)[-1] in shown.stdout
