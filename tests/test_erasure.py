"""Erasure: after ``forget`` no file of the home holds the item's text, nothing derived from it
keeps its influence, nothing else is lost, the home reopens after a kill at any step of the
journal's compaction, and re-ingesting the transcript never brings the item back."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import InputError, UsageError
from attention_cloud.home import write_config

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("erasure_fuzz", ROOT / "scripts/bench/erasure_fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
sys.modules["erasure_fuzz"] = fuzz
_spec.loader.exec_module(fuzz)

SECRET = "zorblax quintessence fizzwinkle"
OTHER = "marmoset lanternfish ptarmigan"


def turn(role: str, n: int, session: str, text: str) -> str:
    return json.dumps({"type": role, "uuid": f"{session}-{n}", "sessionId": session,
                       "timestamp": f"2026-01-01T10:0{n}:00Z",
                       "message": {"role": role, "content": text}})


def transcript(folder: Path) -> Path:
    path = folder / "vault.jsonl"
    lines = [turn("user", 0, "S1", f"Please store the {SECRET} password for the vault"),
             turn("assistant", 1, "S1", "We decided to keep the vault password in the keyring; tests pass."),
             turn("assistant", 2, "S1", "Done: the retry loop backs off exponentially and 12 passed."),
             turn("user", 3, "S1", f"Now make the deploy script idempotent, {OTHER}"),
             turn("assistant", 4, "S1", "Going with a lock file; the deploy script is idempotent now.")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def files_holding(home: Path, phrase: str) -> list[str]:
    """Every file of the home whose bytes hold any word of ``phrase`` (case-insensitive)."""
    words = [w.encode() for w in phrase.lower().split()]
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and any(w in p.read_bytes().lower() for w in words))


def _curate(home: Path, source: Path) -> str:
    """Ingest and curate ``source`` into ``home`` and ask two frames (one quotes the secret);
    the secret item's handle."""
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([source])
        mem.curate()
        mem.hydrate("what did we decide about the vault", budget=400)
        mem.hydrate(f"Please store the {SECRET} password for the vault", budget=400)  # quotes it
        return mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")').rows[0]["H"]


_BUILT: dict[str, object] = {}


def _build_curated(home: Path) -> None:
    home.mkdir()
    _BUILT["source"] = transcript(home.parent)
    _BUILT["secret"] = _curate(home, _BUILT["source"])


@pytest.fixture
def curated(home: Path, built_home):
    """A home of its own holding the vault transcript curated: a copy of one built per process.
    Its transcript is the built one's, shared: a test that changes it takes ``curated_here``."""
    built_home("erasure-curated", _build_curated, home)
    return home, _BUILT["source"], _BUILT["secret"]


@pytest.fixture
def curated_here(home: Path, tmp_path: Path):
    """As ``curated``, from a transcript of the test's own."""
    source = transcript(tmp_path)
    return home, source, _curate(home, source)


def test_forget_leaves_no_byte_of_the_text_in_any_file(curated):
    home, source, secret = curated
    assert files_holding(home, SECRET)  # journal, snapshot, BM25, receipts: the scan sees it
    with Memory.open(home) as mem:
        others = {r["H"]: r["T"] for r in mem.query("item_text(H, T)", limit=100).rows
                  if r["H"] != secret}
        keys = set(mem.jump.vectors.keys())
        report = mem.forget([secret], reason="held a password", who="ann")
        assert report.sources == [str(source)]
        gone = {k for k in keys if k.split("#", 1)[0] == secret}  # its text's and distillation's
        assert len(gone) <= report.vectors_dropped <= len(keys) and gone
        assert report.rebuilt["rollups"] == 1 and report.receipts_redacted == 2
        assert sorted(report.regoaled) == sorted(
            r["H"] for r in mem.query('item_goal(H, "[forgotten]")').rows)
        assert len(report.regoaled) == 2  # the two answers given under the forgotten goal
    assert files_holding(home, SECRET) == []
    with Memory.open(home) as mem:  # reopens, from the new snapshot and journal
        assert mem.item(secret) is None
        assert {r["H"]: r["T"] for r in mem.query("item_text(H, T)", limit=100).rows} == others
        rungs = " ".join(r["T"] for r in mem.query("rung(_, _, T)", limit=1000).rows)
        assert "zorblax" not in rungs.lower() and "deploy script" in rungs  # rebuilt, not emptied
        assert OTHER.split()[0] in files_holding(home, OTHER)[0] or files_holding(home, OTHER)
        for h in others:  # nothing else lost: BM25 entries and vectors stay
            assert mem.jump.lexical.has(h) and mem.jump.vectors.has(h)
        (erasure,) = mem.erasures()
        assert (erasure.handle, erasure.who, erasure.reason) == (secret, "ann", "held a password")
        assert erasure.digest.startswith("sha256:") and len(erasure.digest) == 71
        frame = mem.hydrate(SECRET, budget=800)
        assert all("zorblax" not in f.text.lower() for f in frame.facts)
    audit = [json.loads(line) for line in (home / "audit.jsonl").read_text().splitlines()]
    assert [(a["event"], a["handle"], a["who"]) for a in audit] == [("forget", secret, "ann")]


def test_forgetting_an_item_again_keeps_the_audit_record_of_its_erasure(curated):
    """A second ``atc forget`` of the same handle (it says "already forgotten") redacted the
    audit log's ``forget`` line like any entry naming the item: who, why, when and the digest
    were gone, and ``atc audit`` printed ``?``."""
    home, _, secret = curated
    for reason in ("held a password", "again, to be sure"):
        out = CliRunner().invoke(main, ["forget", secret, "--yes", "--as", "ann",
                                        "--reason", reason, "--home", str(home)])
        assert out.exit_code == 0, out.output
    audit = [json.loads(line) for line in (home / "audit.jsonl").read_text().splitlines()]
    assert [(a["event"], a["handle"], a["who"], a["reason"]) for a in audit] == [
        ("forget", secret, "ann", "held a password")]
    assert audit[0]["digest"].startswith("sha256:")
    listed = CliRunner().invoke(main, ["audit", "--home", str(home)])
    assert listed.output.split()[1:3] == ["forget", "ann"]
    assert files_holding(home, SECRET) == []


def test_reingesting_the_transcript_never_brings_it_back(curated_here, tmp_path):
    home, source, secret = curated_here
    with Memory.open(home) as mem:
        mem.forget([secret], reason="secret")
        with open(source, "a", encoding="utf-8") as fh:  # the file grows: it is parsed again
            fh.write(turn("user", 5, "S1", "one more thing") + "\n")
        report = mem.ingest([source])
        assert (report.new, report.forgotten) == (1, 1)
        copy = tmp_path / "copy.jsonl"  # the same text in another session: refused by digest
        copy.write_text(turn("user", 0, "S9", f"Please store the {SECRET} password for the vault")
                        + "\n", encoding="utf-8")
        assert mem.ingest([copy]).forgotten == 1
        assert mem.item(secret) is None
    assert files_holding(home, SECRET) == []


def test_forget_by_session_and_by_query(curated):
    home, _, secret = curated
    with Memory.open(home) as mem:
        goal = f'item_text(H, T), sub_string(T, _, _, _, "{OTHER}")'
        (by_query,) = [r["H"] for r in mem.query(goal).rows]
        report = mem.forget(query=goal)
        assert report.handles == [by_query]
        report = mem.forget(session="S1", dry_run=True)
        assert len(report.handles) == 4 and mem.query("item(H)", limit=10).rows  # nothing done
        mem.forget(session="S1")
        assert mem.query("item(H)").rows == []
        assert mem.query("rung(_, _, T)").rows == []  # no arc or rollup of an empty session
    assert files_holding(home, SECRET) == [] and files_holding(home, OTHER) == []


def test_bad_input_is_one_error_and_changes_nothing(curated):
    home, _, secret = curated
    journal = (home / "journal.pl").read_bytes()
    with Memory.open(home) as mem:
        with pytest.raises(Exception, match="it_0000000000000000"):
            mem.forget(["it_0000000000000000"])
        with pytest.raises(InputError, match="not an item handle"):
            mem.forget(["x'),halt"])
        with pytest.raises(UsageError, match="name what to forget"):
            mem.forget([])
        with pytest.raises(UsageError, match="must bind item handles"):
            mem.forget(query="item_kind(_, K)")
        with pytest.raises(InputError, match="no items in this session"):
            mem.forget(session="nope")
    assert (home / "journal.pl").read_bytes() == journal


def test_cli_lists_asks_and_names_the_transcript(curated):
    home, source, secret = curated
    runner = CliRunner()
    listed = runner.invoke(main, ["forget", secret, "--dry-run", "--home", str(home)])
    assert listed.exit_code == 0 and secret in listed.output and "would forget 1 item:" in listed.output
    refused = runner.invoke(main, ["forget", secret, "--home", str(home)])
    assert refused.exit_code == 2 and "pass --yes" in refused.output
    assert files_holding(home, SECRET)  # neither changed anything
    done = runner.invoke(main, ["forget", secret, "--yes", "--reason", "secret", "--home", str(home)])
    assert done.exit_code == 0, done.output
    assert "forgot 1 items" in done.output
    assert f"{source} still holds the text" in done.output  # (CliRunner mixes stderr in)
    assert files_holding(home, SECRET) == []
    unknown = runner.invoke(main, ["forget", "it_0000000000000000", "--yes", "--home", str(home)])
    assert unknown.exit_code != 0 and unknown.output.count("\n") == 1


@pytest.mark.parametrize("step", range(1, 8))
def test_a_kill_at_any_step_of_compaction_leaves_a_home_that_opens(curated, step):
    """SIGKILL at the step-th fsync/rename of the journal's compaction (and the snapshot
    after it); the home opens, and the next writer finishes the erasure."""
    home, _, secret = curated
    child = subprocess.run([sys.executable, "-c", fuzz.KILL_CHILD, str(ROOT / "host"), str(home),
                            str(step), secret, "1"], capture_output=True, text=True, timeout=300)
    assert child.returncode in (0, -9), child.stderr
    if child.returncode == 0:
        assert int(child.stdout) < step  # fewer steps than that: the erasure completed
    with Memory.open(home) as mem:
        assert mem.item(secret) is None  # the erase batch was committed before compaction
        assert len(mem.query("item(H)").rows) == 4
        mem.finish_erasure()
    assert files_holding(home, SECRET) == []
    assert not (home / "erasure.pending.json").exists()
    with Memory.open(home) as mem:
        kept = [r["H"] for r in mem.query("item(H)").rows]
        assert len(kept) == 4
        for h in kept:  # the finishing run kept what the killed one had rebuilt
            assert mem.jump.lexical.has(h) and mem.jump.vectors.has(h)
            assert mem.query(f"rung({h}, l1, _)").rows


def test_a_reader_opened_before_learns_it_is_stale_and_serves_the_new_state(curated, tmp_path):
    """A Memory opened before another process's erasure is stale() until its next call, which
    reads the compacted journal first (before: it went on serving the item until reopened)."""
    home, _, secret = curated
    reader = Memory.open(home)  # this process: opened before the erasure, holds no lock
    try:
        assert reader.item(secret) is not None and not reader.stale()
        code = ("import sys; sys.path.insert(0, sys.argv[1]); from attention_cloud import Memory\n"
                "with Memory.open(sys.argv[2]) as m: m.forget([sys.argv[3]])")
        subprocess.run([sys.executable, "-c", code, str(ROOT / "host"), str(home), secret],
                       check=True, timeout=300)
        assert reader.stale()
        assert reader.item(secret) is None and not reader.stale()
        extra = tmp_path / "extra.jsonl"
        extra.write_text(turn("user", 0, "S2", "a new session about caching") + "\n")
        reader.ingest([extra])  # its first write reloads the compacted journal first
        assert reader.item(secret) is None and len(reader.query("item(H)").rows) == 5
    finally:
        reader.close()
    with Memory.open(home) as mem:
        assert len(mem.query("item(H)").rows) == 5
    assert files_holding(home, SECRET) == []


def test_randomised_trials_leak_nothing(tmp_path):
    """A small run of scripts/bench/erasure_fuzz.py (the 1,000-trial figures: BENCHMARKS.md)."""
    figures = fuzz.run(6, seed=7, kill_share=0.5, work=tmp_path)
    assert figures["failures"] == []
    assert (figures["leaks"], figures["failed_reopens"], figures["other_items_lost"],
            figures["returned_on_reingest"]) == (0, 0, 0, 0)
    assert figures["killed"] >= 1 and figures["items_forgotten"] >= 6


def test_the_fuzz_sees_a_forgotten_item_quoted_on_the_attention_side(tmp_path, monkeypatch):
    """Before, the fuzz recorded no belief, inspection, event, claim or trace: an erasure that
    left the attention side alone passed it. With the attention redaction switched off (in
    process: no kills), its attention check must name what survived."""
    from attention_cloud import erasure

    monkeypatch.setattr(erasure, "redact_quotes", lambda *args, **kwargs: 0)
    figures = fuzz.run(2, seed=3, kill_share=0.0, work=tmp_path)
    assert any("attention records hold zq" in f for f in figures["failures"]), figures


def test_a_remembered_item_leaves_its_record_and_is_not_remembered_again(home):
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        first = mem.remember(f"the vault code is {SECRET}", curate=True)
        second = mem.remember("the staging DB is read-only on Fridays", curate=True)
        report = mem.forget([first.handle])
        assert report.sources == []  # remembered.jsonl is in the home, and redacted
        lines = (home / "remembered.jsonl").read_text().splitlines()
        assert len(lines) == 2 and json.loads(lines[0]) == {"handle": first.handle,
                                                             "segment": "default",
                                                             "forgotten": True}
        assert mem.item(second.handle).source.endswith("remembered.jsonl:2")  # still right
        with pytest.raises(InputError, match="forgotten"):
            mem.remember(f"the vault code is {SECRET}")
    assert files_holding(home, SECRET) == []


def test_forget_run_again_after_a_kill_finishes_the_erasure_it_interrupted(curated):
    """`atc forget --session S` killed after its erase batch, then run again as a user would:
    the session has no items left, but the text is still in the journal and the indexes, so
    the second run must finish the interrupted erasure before it says there is nothing left."""
    home, _, secret = curated
    handles = ",".join(r["H"] for r in _items_of(home, "S1"))
    child = subprocess.run([sys.executable, "-c", fuzz.KILL_CHILD, str(ROOT / "host"), str(home),
                            "1", handles, "1"], capture_output=True, text=True, timeout=300)
    assert child.returncode == -9, child.stderr
    assert (home / "erasure.pending.json").exists() and files_holding(home, SECRET)
    again = CliRunner().invoke(main, ["forget", "--session", "S1", "--yes", "--home", str(home)])
    assert "no items in this session" in again.output  # true: the killed run erased them
    assert "finished an interrupted erasure of 5 items" in again.output
    assert not (home / "erasure.pending.json").exists()
    assert files_holding(home, SECRET) == []
    with Memory.open(home) as mem:  # the library call does the same
        assert mem.query("item(H)").rows == []


def test_forget_by_session_in_python_finishes_an_interrupted_erasure_first(curated):
    home, _, _ = curated
    handles = ",".join(r["H"] for r in _items_of(home, "S1"))
    subprocess.run([sys.executable, "-c", fuzz.KILL_CHILD, str(ROOT / "host"), str(home),
                    "1", handles, "1"], capture_output=True, text=True, timeout=300)
    with Memory.open(home) as mem:
        with pytest.raises(InputError, match="no items in this session"):
            mem.forget(session="S1")
    assert not (home / "erasure.pending.json").exists()
    assert files_holding(home, SECRET) == []


def _items_of(home: Path, session: str) -> list[dict]:
    with Memory.open(home) as mem:
        return mem.query(f"item_session(H, '{session}')", limit=100).rows


def test_forgetting_a_whole_session_leaves_no_trace_of_its_working_directory(home, tmp_path):
    """A session's items share one working directory, kept once per session (session_cwd_/2):
    when every item of the session is forgotten, the directory (which may name a client or a
    project) must go from the journal too."""
    write_config(home, {"embedder": "hash"})
    cwd = "/home/ann/clients/quuxcorp-merger"
    rows = [json.loads(turn("user", 0, "S7", "Please rename the deploy target")),
            json.loads(turn("assistant", 1, "S7", "Renamed the deploy target; tests pass."))]
    source = tmp_path / "cwd.jsonl"
    source.write_text("\n".join(json.dumps({**r, "cwd": cwd}) for r in rows) + "\n")
    with Memory.open(home) as mem:
        mem.ingest([source])
        mem.curate()
        assert mem.query(f'relation(_, cwd, "{cwd}")').rows or mem.query(
            f"relation(_, cwd, '{cwd}')").rows
        mem.forget(session="S7")
    assert files_holding(home, "quuxcorp") == []


def test_an_open_memory_forgets_what_another_process_added_to_the_session(curated, tmp_path):
    """A Memory opened before another process ingested more of a session erases the whole
    session as the journal now holds it, not as the Memory first read it."""
    home, source, _ = curated
    with Memory.open(home) as mem:
        assert mem.query("item_session(H, 'S1')", limit=100).rows  # read before the other process
        later = tmp_path / "later.jsonl"
        later.write_text(turn("user", 7, "S1", "Also rotate the hydrafrost token weekly") + "\n",
                         encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "ingest", str(later),
                               "--home", str(home)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        report = mem.forget(session="S1", reason="the whole session")
        assert len(report.handles) == 6
    assert files_holding(home, "hydrafrost") == []


def test_forget_while_another_process_writes_is_one_line_before_any_list(curated):
    # `atc forget` beside a running `atc curate`: it printed "forgetting 1 items: ..." on
    # stdout and only then failed on the write lock, so a script reading stdout saw the list
    home, _, secret = curated
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from attention_cloud import Memory; "
         f"m = Memory.open({str(home)!r}); m.acquire(); print('held', flush=True); "
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        atc = Path(sys.executable).with_name("atc")
        out = subprocess.run([str(atc), "forget", secret, "--yes", "--home", str(home)],
                             capture_output=True, text=True, env={**os.environ, "ATC_LOCK_WAIT": "0"})
    finally:
        holder.communicate("", timeout=60)
    assert out.returncode != 0 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "another process is writing" in out.stderr
    assert files_holding(home, SECRET)  # nothing changed
    done = CliRunner().invoke(main, ["forget", secret, "--yes", "--home", str(home)])
    assert done.exit_code == 0 and files_holding(home, SECRET) == []


def test_a_belief_quoting_a_forgotten_text_loses_the_quote(curated):
    """A belief recorded from an item (`atc belief add ... --supports it_...`, an agent's
    `claim`) whose value or subject quotes the item kept it in the journal after `atc forget`:
    `atc belief show` still printed the secret, dirty. The quote becomes `[forgotten]`, in
    a belief that cites the item or not; the belief stays, dirty, with its other fields."""
    home, _, secret = curated
    runner = CliRunner()

    def atc(*args: str):
        out = runner.invoke(main, [*args, "--home", str(home)])
        assert out.exit_code == 0, out.output
        return out.output

    common = ("--type", "deploy_state", "--confidence", "0.9", "--age", "10",
              "--volatility", "deploy_state")
    atc("belief", "add", "vault", "--subject", "vault", "--value", f"store the {SECRET} password",
        "--supports", secret, *common)
    atc("belief", "add", "copied", "--subject", f"the {SECRET} password", "--value", "stored",
        *common)
    atc("belief", "add", "other", "--subject", "deploy", "--value", OTHER, *common)
    atc("forget", secret, "--yes")
    assert files_holding(home, SECRET) == []
    shown = atc("belief", "show", "vault")
    assert "[forgotten]" in shown and "DIRTY" in shown, shown
    assert "[forgotten]" in atc("belief", "show", "copied")
    assert OTHER in atc("belief", "show", "other")
