"""The writer's indexes a small home keeps open after a curate (curation.KEEP_INDEXES_OPEN_UP_TO,
then Memory.release: kept as readers) never serve nor write back what another process changed
between two calls of the process that keeps them: an item `atc forget` erased in another
process is found by no search of the keeping Memory and written back into no file of the home
by its next curate; what an `atc curate` in another process indexed meanwhile is neither lost
nor doubled when the keeping Memory writes again.

The other process is always a real `atc` subprocess (a user's shell); the keeping one is this
test's Memory, opened, written and released before it runs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory, curation
from attention_cloud.embed import LexicalIndex, VectorStore
from attention_cloud.home import write_config

SECRET = "the vault passphrase is zebra-7731-hunter"
TOKEN = "zebra-7731-hunter"


def _atc(home: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home),
                           *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def _chat(path: Path, session: str, lines: list[str]) -> Path:
    path.write_text(json.dumps({"session_id": session, "messages": [
        {"role": "user" if i % 2 == 0 else "assistant", "content": text}
        for i, text in enumerate(lines)]}), encoding="utf-8")
    return path


def _files_holding(home: Path, needle: str) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and needle.encode() in p.read_bytes())


@pytest.fixture
def keeper(tmp_path: Path):
    """A Memory that ingested, curated (its indexes kept open: a small home) and gave the
    write lock back, as an agent loop does after each turn."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    mem = Memory.open(home)
    mem.ingest(_chat(tmp_path / "a.json", "vault", [
        "where do we keep the vault credentials for staging",
        SECRET,
        "the invoice export runs nightly at two in the morning",
        "noted, the export job is nightly"]), format="openai")
    mem.curate()
    assert mem.jump.records_open() <= curation.KEEP_INDEXES_OPEN_UP_TO
    assert mem.jump._vectors is not None and mem.jump._lexical is not None  # kept open
    mem.release()
    assert mem.jump._vectors is not None and mem.jump._vectors.read_only  # kept as readers
    yield mem
    mem.close()


def _handle_of(mem: Memory, text: str) -> str:
    rows = mem.query(f'item(H), rung(H, l0, T), T == "{text}"').rows
    assert len(rows) == 1, rows
    return rows[0]["H"]


def test_an_item_forgotten_elsewhere_is_neither_served_nor_written_back(keeper: Memory):
    home = keeper.home
    secret = _handle_of(keeper, SECRET)
    assert TOKEN in keeper.hydrate("vault passphrase zebra", budget=600).text
    _atc(home, "forget", secret, "--reason", "test", "--yes")
    assert _files_holding(home, TOKEN) == []

    frame = keeper.hydrate("vault passphrase zebra hunter", budget=600)
    assert TOKEN not in frame.text and secret not in json.dumps(frame.receipt)
    hits = keeper.query('nearest("vault passphrase zebra hunter", 20, Hs)').rows
    assert secret not in json.dumps(hits)

    # the keeping Memory writes again: its held tables must not carry the forgotten record back
    keeper.remember("the staging vault moved to the new secrets manager")
    keeper.curate()
    keeper.release()
    assert _files_holding(home, TOKEN) == []  # (its handle stays: the erasure log names it)
    with VectorStore.open(home / "vectors", embedder_id=keeper.jump.embedder.id,
                          dim=keeper.jump.embedder.dim, read_only=True) as store:
        assert not store.has(secret) and not store.has(f"{secret}#l2")
    with LexicalIndex.open(home / "lexical", read_only=True) as lexical:
        assert not lexical.has(secret)


def test_what_a_curate_elsewhere_indexed_is_kept_once_when_the_keeper_writes_again(
        keeper: Memory, tmp_path: Path):
    home = keeper.home
    other = _chat(tmp_path / "b.json", "kiln", [
        "the kiln cracked my glaze tiles again last night",
        "lower the ramp rate for the glaze firing"])
    _atc(home, "ingest", str(other), "--format", "openai")
    _atc(home, "curate")
    keeper.remember("the pottery studio opens at nine on saturdays")
    keeper.curate()
    keeper.release()

    items = [r["H"] for r in keeper.query("item(H)").rows]
    with VectorStore.open(home / "vectors", embedder_id=keeper.jump.embedder.id,
                          dim=keeper.jump.embedder.dim, read_only=True) as store:
        assert [h for h in items if not store.has(h)] == []
    with LexicalIndex.open(home / "lexical", read_only=True) as lexical:
        assert [h for h in items if not lexical.has(h)] == []
    assert "kiln cracked my glaze tiles" in keeper.hydrate("kiln cracked glaze", budget=600).text
