"""A Memory opened before another process wrote serves what is on disk now (README "Erasure",
*Readers*): after `atc forget`, `atc grant revoke` or `atc label` run by another process, no
read of the long-open Memory (frames, queries, items, the jump, a grantee's reads) serves what
was forgotten, revoked or hidden, without the caller checking `stale()` or calling `refresh()`;
nor does the attention Controller's read of a belief quoting a forgotten item, nor the receipt
a frame in flight during the erasure stores.

The writer is always a real `atc` process; the reader is this test process's Memory, opened
before the write."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import InputError
from attention_cloud.home import write_config
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate, reader_query
from attention_cloud.show import show_record

SECRET = "the vault passphrase is zebra-7731-hunter"
KEPT = "the invoice export runs nightly at two"
GRANTED = "the billing team owns the refund queue runbook"


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in another process, as a user's shell would run it."""
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home),
                           *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("follow") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        for note in (SECRET, KEPT):
            mem.remember(note)
        mem.remember(GRANTED, segment="billing")
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "bob")
    return home


def _handle(mem: Memory, text: str) -> str:
    rows = mem.query(f'item(H), rung(H, l0, T), T == "{text}"').rows
    assert len(rows) == 1, rows
    return rows[0]["H"]


def _leaks(value: object, *needles: str) -> list[str]:
    blob = json.dumps(value, default=str)
    return [n for n in needles if n in blob]


def test_a_reader_opened_before_a_forget_elsewhere_no_longer_serves_it(home):
    """Before: every read below still answered from the view read before the erasure (the
    text in frames, `rung/3`, `item()`, `show`, the handle from the jump) until the caller
    checked `stale()` and reopened; `atc serve` and `atc mcp` did, a plain Memory did not."""
    reader = Memory.open(home, create=False)
    try:
        secret = _handle(reader, SECRET)
        assert SECRET in reader.hydrate("vault passphrase", budget=400).text
        _atc(home, "forget", secret, "--reason", "test", "--yes")
        frame = reader.hydrate("vault passphrase", budget=400)
        assert _leaks([frame.text, frame.receipt], SECRET, secret) == []
        assert reader.query(f'rung({secret}, _, T)').rows == []
        assert _leaks(reader.query("rung(H, l0, T)").rows, SECRET, secret) == []
        assert reader.item(secret) is None
        assert _leaks(reader.query('nearest("vault passphrase zebra", 10, Hs)').rows,
                      secret) == []
        with pytest.raises(InputError, match="no such item"):
            show_record(reader, secret, "L0", False)
        assert [e.handle for e in reader.erasures()] == [secret]
        assert KEPT in reader.hydrate("invoice export", budget=400).text  # the rest stays
    finally:
        reader.close()


def test_a_grantee_read_stops_at_a_grant_revoked_elsewhere(home):
    """Before: bob's frames and queries through a Memory opened before `atc grant revoke`
    (run by another process) went on serving the revoked segment."""
    reader = Memory.open(home, create=False)
    try:
        grant = add_grant(reader, "bob", segments=["billing"], ceiling="L0")
        reader.release()
        assert GRANTED in reader_hydrate(reader, "bob", "refund queue runbook", budget=400).text
        _atc(home, "grant", "revoke", grant)
        frame = reader_hydrate(reader, "bob", "refund queue runbook", budget=400)
        assert _leaks([frame.text, frame.receipt], GRANTED) == []
        assert reader_query(reader, "bob", "rung(H, l0, T)").rows == []
    finally:
        reader.close()


def test_a_grantee_read_stops_at_a_label_set_elsewhere(home):
    """`atc label --restrict private` in another process hides the record from bob at his
    next read through the long-open Memory (before: at its next reopen)."""
    reader = Memory.open(home, create=False)
    try:
        add_grant(reader, "bob", segments=["default"], ceiling="L0")
        reader.release()
        kept = _handle(reader, KEPT)
        assert KEPT in reader_hydrate(reader, "bob", "invoice export nightly", budget=400).text
        _atc(home, "label", kept, "--restrict", "private")
        frame = reader_hydrate(reader, "bob", "invoice export nightly", budget=400)
        assert _leaks([frame.text, frame.receipt], KEPT, kept) == []
    finally:
        reader.close()


def test_a_controller_opened_before_a_forget_elsewhere_no_longer_reads_the_quote(tmp_path):
    """A belief whose value quotes an item forgotten by another process: the attention
    Controller of a Memory opened before read the old value (the quote) until a reopen."""
    from attention_cloud.attention import Controller

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        handle = mem.remember(SECRET).handle
    _atc(home, "belief", "add", "vault", "--type", "deploy_state", "--subject", "vault",
         "--value", SECRET, "--confidence", "0.9", "--volatility", "deploy_state")
    reader = Memory.open(home, create=False)
    try:
        beliefs = Controller(reader.pl, memory=reader)
        assert beliefs.belief("vault", now=0)["value"] == SECRET
        _atc(home, "forget", handle, "--yes")
        assert _leaks(beliefs.belief("vault", now=0), SECRET) == []
        assert _leaks(beliefs.beliefs(now=0), SECRET) == []
    finally:
        reader.close()


def test_module_level_readers_follow_too(tmp_path):
    """`show_record`, `hydration.hydrate`, `hooks.ambient_recall` and
    `mounts.hydrate_with_mounts` take the Memory as their first argument and read its engine
    directly: called first after another process's forget, each answered from the old view."""
    from attention_cloud.agents.hooks import ambient_recall
    from attention_cloud.hydration import hydrate
    from attention_cloud.sharing.mounts import hydrate_with_mounts

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    notes = [f"the vault passphrase number {n} is {word}-{n}{n}77-hunter"
             for n, word in enumerate(["zebra", "ocelot", "heron", "marten"])]
    with Memory.open(home) as mem:
        handles = [mem.remember(note).handle for note in notes]
    reader = Memory.open(home, create=False)
    try:
        reader.hydrate("vault passphrase", budget=400)  # a warm reader, indexes open
        readers = [
            lambda: show_record(reader, handles[0], "L0", False),
            lambda: hydrate(reader, "vault passphrase number 1", budget=400),
            lambda: ambient_recall(reader, "vault passphrase number 2", session_id="s",
                                   record=False).frame,
            lambda: hydrate_with_mounts(reader, "vault passphrase number 3", budget=400)]
        for n, read in enumerate(readers):
            _atc(home, "forget", handles[n], "--yes")
            try:
                answer = read()
            except Exception as exc:  # show_record: no such record any more
                answer = str(exc)
            assert _leaks(answer, notes[n], f"{n}{n}77") == [], n
    finally:
        reader.close()


def _files_holding(home: Path, text: str) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and text.encode() in p.read_bytes())


@pytest.fixture
def in_flight(tmp_path, monkeypatch):
    """A home of two notes, a reader opened on it, and ``during(fn)``: fn runs once inside the
    reader's next frame, after the frame was computed and before its receipt is stored."""
    from attention_cloud import hydration

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        secret = mem.remember(SECRET).handle
        mem.remember(KEPT)
    reader = Memory.open(home, create=False)
    reader.hydrate("invoice export", budget=400)
    original = hydration._honest_framing

    def during(fn):
        def hooked(*args, **kwargs):
            monkeypatch.setattr(hydration, "_honest_framing", original)
            fn()
            return original(*args, **kwargs)
        monkeypatch.setattr(hydration, "_honest_framing", hooked)

    yield home, secret, reader, during
    reader.close()


def test_a_frame_in_flight_during_a_forget_elsewhere_stores_no_receipt_holding_it(in_flight):
    """The frame was computed on the view before the erasure, whose receipt redaction ran
    before this receipt was stored: the receipt file kept the goal quoting the forgotten text
    and the item's whole entry (source, time, score), against "no file of the home holds its
    text" and what stage 2 leaves of an entry."""
    home, secret, reader, during = in_flight
    during(lambda: _atc(home, "forget", secret, "--yes"))
    frame = reader.hydrate(f"where did I say {SECRET}", budget=400)
    _assert_redacted(home, frame.receipt_id, secret)


def _assert_redacted(home: Path, receipt_id: str, secret: str) -> None:
    assert [p for p in _files_holding(home, "zebra-7731") if p.startswith("receipts/")] == []
    stored = json.loads((home / "receipts" / f"{receipt_id}.json").read_text())
    named = [f for f in stored["facts"] + stored["beyond"] if f["handle"] == secret]
    assert named and all(set(f) <= {"handle", "segment", "level", "forgotten"}
                         and f["forgotten"] is True for f in named)  # as stage 2 leaves them


def test_a_frame_stored_while_an_erasure_is_under_way_is_redacted_by_its_plan(in_flight):
    """An erasure elsewhere has written its plan (erasure.pending.json) and redacted the
    receipts, its erase batch not yet committed: a receipt stored now is redacted by the plan."""
    home, secret, reader, during = in_flight
    plan = {"handles": [secret], "invalidated": [], "sessions": [], "recurate": [],
            "who": "test", "reason": "test"}
    during(lambda: (home / "erasure.pending.json").write_text(json.dumps(plan)))
    frame = reader.hydrate(f"where did I say {SECRET}", budget=400)
    assert SECRET in frame.text  # the call began before: it answers from its view
    _assert_redacted(home, frame.receipt_id, secret)
