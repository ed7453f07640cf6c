"""Big input: what ingest holds grows with what it keeps, not with the text it passes over
(round 36, qa226; BENCHMARKS.md "Big input").

A user's message that is a pasted log (a single 50 MB line of a Claude Code session) was told
from a nudge ("continue") by listing every word of it at once: 50 MB of text held ~0.5 GB of
word strings and took ~20 s of a 27 s parse (928 MB peak). At most one word past the longest
nudge is looked at now (5.3 s, 376 MB). And a file read beside a resumed session for the goal
it follows on from keeps to the size limit the session is read under."""

from __future__ import annotations

import json
import tracemalloc

from attention_cloud.bridge import Atom, Var
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_turn, write_records

OLD = "0ld5e551-0000-4000-8000-000000000001"
NEW = "9e75e551-0000-4000-8000-000000000002"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."


def _peak_parse(path):
    tracemalloc.start()
    try:
        result = parse_path(path)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_pasted_log_as_a_prompt_is_told_from_a_nudge_without_listing_its_words(tmp_path):
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:00:00Z",
         "message": {"role": "user", "content": "fix the flaky deploy"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-01-02T03:01:00Z",
         "message": {"role": "user",
                     "content": "here is the log: " + "ERROR ledger sync timed out\n" * 80000}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result, peak = _peak_parse(path)
    # the log is a new goal (words of its own), kept cut to max_item_chars
    assert [i.kind for i in result.items] == ["user_goal", "user_goal"]
    assert result.items[1].goal.startswith("here is the log: ERROR ledger sync")
    size = path.stat().st_size
    assert peak < 10 * size, f"peak {peak / size:.1f}x the file's {size} bytes"  # 16.6x before


def test_a_resumed_session_reads_no_file_beside_it_past_the_size_limit(tmp_path):
    """A session resumed into a new file takes the goal active where it follows on, from the
    old file beside it, which was read whole whatever its size: a 1 GB session beside a
    resumed one was read (twice, split into lines) under a limit of 256 MiB per file. A file
    over the limit the resumed one is read under is not read now: the resumed part starts
    with no goal of its own, as where the old file is gone."""
    old = cc21_turn(OLD, 1, GOAL, "dry-run")
    # a long tool output in the old session: the file is over the limit, its tail under it
    old[2]["message"]["content"][0]["content"] = "KeyError: 'created_at'\n" * 150_000
    old_path = write_records(tmp_path / "p" / f"{OLD}.jsonl", old)
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", cc21_turn(NEW, 4, "continue", "full"))
    limit = old_path.stat().st_size // 2
    tracemalloc.start()
    try:
        items = parse_path(new, max_file_bytes=limit).items
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"{peak:,} bytes at the peak, the old file {limit * 2:,}"
    assert [(i.session, i.goal) for i in items if i.kind == "error"] == [(NEW, "")]
    # under a limit it is within, the old goal goes on as before
    assert [(i.session, i.goal) for i in parse_path(new, max_file_bytes=None).items
            if i.kind == "error"] == [(NEW, GOAL)]


def test_a_file_of_many_items_is_written_within_the_stack_limit(hash_memory, tmp_path):
    """One file's items are one journal batch, and SWI-Prolog's own garbage collections left
    the batch's garbage on the global stack: a 100 MB Claude Code session (~180,000 items of
    400 characters) and a 100 MB ChatGPT export were refused, nothing written, with
    ``stopped: ran past its stack limit of 1,024 MB (65,201 calls deep, in split_string_/5,
    wire_item_/2, add_wire_/3)`` though both are well under the 256 MiB file limit. The batch
    collects its garbage now. Here 8,000 such items under a 48 MB stack limit (before: refused
    at item 1,521)."""
    mem = hash_memory
    path = tmp_path / "session.jsonl"
    with path.open("w") as out:
        for n in range(8000):
            role = "user" if n % 2 == 0 else "assistant"
            said = f"step {n} of the ledger migration, checking the webhook retries " * 6
            out.write(json.dumps({
                "type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                "sessionId": "s1", "timestamp": f"2026-01-02T{n // 3600:02d}:{n // 60 % 60:02d}:"
                f"{n % 60:02d}Z", "message": {"role": role, "content": said[:400]}}) + "\n")
    (was,) = mem.pl.once("current_prolog_flag", Atom("stack_limit"), Var())
    mem.pl.once("set_prolog_flag", Atom("stack_limit"), 48 * 2 ** 20)
    try:
        report = mem.ingest([str(path)])
    finally:
        mem.pl.once("set_prolog_flag", Atom("stack_limit"), was)
    assert report.new == 8000


def test_a_batch_larger_than_the_stack_limit_is_given_the_stack_it_needs(hash_memory, tmp_path):
    """A file's items go to Prolog as one list of strings, which the stack held whole: past
    SWI-Prolog's default limit of 1 GB (a 250 MB Claude Code session, ~450,000 items) the
    file was refused, nothing written, with ``could not build a Prolog term from str``. The
    batch's call is given the stack it needs, the limit put back after. Here a limit of 8 MB
    and a file whose items alone are about as much."""
    mem = hash_memory
    path = tmp_path / "session.jsonl"
    with path.open("w") as out:
        for n in range(8000):
            said = f"step {n} of the ledger migration, checking the webhook retries " * 6
            out.write(json.dumps({
                "type": "user", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                "sessionId": "s1", "timestamp": f"2026-01-02T{n // 3600:02d}:{n // 60 % 60:02d}:"
                f"{n % 60:02d}Z", "message": {"role": "user", "content": said[:400]}}) + "\n")
    (was,) = mem.pl.once("current_prolog_flag", Atom("stack_limit"), Var())
    mem.pl.once("set_prolog_flag", Atom("stack_limit"), 8 * 2 ** 20)
    try:
        report = mem.ingest([str(path)])
        (after,) = mem.pl.once("current_prolog_flag", Atom("stack_limit"), Var())
    finally:
        mem.pl.once("set_prolog_flag", Atom("stack_limit"), was)
    assert report.new == 8000
    assert after == 8 * 2 ** 20      # the limit is put back
