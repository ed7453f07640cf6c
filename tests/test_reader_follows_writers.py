"""A Memory opened before another process wrote serves what is on disk now (README "Erasure",
*Readers*): after `atc forget`, `atc grant revoke` or `atc label` run by another process, no
read of the long-open Memory (frames, queries, items, the jump, a grantee's reads) serves what
was forgotten, revoked or hidden, without the caller checking `stale()` or calling `refresh()`.

The writer is always a real `atc` process; the reader is this test process's Memory, opened
before the write."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
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
        with pytest.raises(Exception):
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
