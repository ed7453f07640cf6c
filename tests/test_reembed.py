"""``atc curate --reembed``: another embedder without a re-ingest, frames served all along.

A user moves a curated home to a new embedder. While the new vectors are built the old ones
keep answering (frames stay ``hybrid``); a kill mid-way resumes where it stopped; the switch
leaves exactly the vectors a fresh curation with the new embedder makes, and config.json names
it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import attention_cloud.reembed as reembed_module
from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.embed import VectorStore
from attention_cloud.home import read_config, write_config
from attention_cloud.paths import samples_dir
from attention_cloud.reembed import NEXT_DIR, STATE_FILE

from watching import PipeLines


class Killed(Exception):
    """Stands for a SIGKILL: the run stops between two flushed batches."""


def run(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


def curated_home(path: Path, embedder: str) -> Path:
    path.mkdir()
    write_config(path, {"embedder": embedder})
    assert run("ingest", str(samples_dir()), home=path).exit_code == 0
    assert run("curate", home=path).exit_code == 0
    return path


def stored(home: Path) -> dict[str, np.ndarray]:
    made = json.loads((home / "vectors" / "manifest.json").read_text())
    store = VectorStore.open(home / "vectors", embedder_id=made["embedder_id"], dim=made["dim"],
                             read_only=True)
    try:
        return {key: store.vector(key).copy() for key in store.keys()}
    finally:
        store.close()


def receipt(home: Path) -> dict:
    out = run("hydrate", "--goal", "retry policy for the flaky upload", "--format", "json",
              home=home)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)["receipt"]


def test_a_killed_move_serves_the_old_vectors_and_resumes_to_a_fresh_curations_vectors(
        tmp_path, monkeypatch):
    home = curated_home(tmp_path / "home", "hash")
    monkeypatch.setattr(reembed_module, "BATCH", 20)

    def kill_after_first_batch(event):
        if event.phase == "re-embedding" and event.done > 0:
            raise Killed

    with Memory.open(home) as mem, pytest.raises(Killed):
        mem.reembed("hash:256", progress=kill_after_first_batch)
    assert (home / NEXT_DIR).exists() and (home / STATE_FILE).exists()
    # an item forgotten while the move was stopped: its vector must not be switched in
    partial = VectorStore.open(home / NEXT_DIR, embedder_id="hash-v1-256", dim=256)
    partial.add(["it_forgotten0000000"], np.eye(1, 256, dtype=np.float32), [{"record": "item"}])
    partial.flush()
    partial.close()
    # meanwhile: the old vectors, with the embedder that made them, still answer by meaning
    assert read_config(home)["embedder"] == "hash"
    during = receipt(home)
    assert during["path"] == "hybrid" and during["unembedded"] == 0
    assert during["notes"] == ["the home is moving to embedder 'hash:256': frames use the current "
                               "vectors until the new ones are complete (`atc curate --reembed` "
                               "builds or resumes them)"]

    out = run("curate", "--reembed", "--embedder", "hash:256", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    moved = json.loads(out.stdout)["reembed"]
    assert moved["resumed"] is True and 0 < moved["reembedded"] < moved["records"]
    assert read_config(home)["embedder"] == "hash:256"
    assert not (home / NEXT_DIR).exists() and not (home / STATE_FILE).exists()
    after = receipt(home)
    assert after["path"] == "hybrid" and "notes" not in after

    fresh = stored(curated_home(tmp_path / "fresh", "hash:256"))
    now = stored(home)
    assert sorted(now) == sorted(fresh)
    assert all(np.allclose(now[k], fresh[k], atol=1e-6) for k in now)


def test_a_kill_during_the_switch_is_finished_by_the_next_run(tmp_path, monkeypatch):
    home = curated_home(tmp_path / "home", "hash")
    real_finish = reembed_module._finish

    def killed_finish(mem, state):
        raise Killed

    monkeypatch.setattr(reembed_module, "_finish", killed_finish)
    with Memory.open(home) as mem, pytest.raises(Killed):
        mem.reembed("hash:256")
    monkeypatch.setattr(reembed_module, "_finish", real_finish)
    with Memory.open(home) as mem:
        report = mem.reembed("hash:256")
    assert report.resumed and report.embedded == 0
    assert read_config(home)["embedder"] == "hash:256"
    assert json.loads((home / "vectors" / "manifest.json").read_text())["dim"] == 256
    assert not (home / NEXT_DIR).exists() and not (home / STATE_FILE).exists()


def test_reembed_refuses_none_and_a_bad_spec_leaving_the_home_as_it_was(tmp_path):
    home = curated_home(tmp_path / "home", "hash")
    before = stored(home)
    out = run("curate", "--reembed", "--embedder", "none", home=home)
    assert out.exit_code != 0 and out.output.startswith("atc: reembed needs an embedder")
    out = run("curate", "--reembed", "--embedder", "nosuch:model", home=home)
    assert out.exit_code != 0 and "unknown embedder 'nosuch:model'" in out.output
    out = run("curate", "--embedder", "hash:256", home=home)
    assert out.exit_code != 0 and "--embedder goes with --reembed" in out.output
    assert read_config(home)["embedder"] == "hash" and not (home / NEXT_DIR).exists()
    after = stored(home)
    assert sorted(after) == sorted(before)


def test_curate_with_nothing_new_moves_an_older_vector_store_to_the_current_format(tmp_path):
    """A home whose vectors an earlier version wrote (manifest format 1, a float32 log) is moved
    to the current format by the next `atc curate` even when nothing is new to embed, and
    frames are the same before and after."""
    home = curated_home(tmp_path / "home", "hash")
    folder = home / "vectors"
    made = json.loads((folder / "manifest.json").read_text())
    store = VectorStore.open(folder, embedder_id=made["embedder_id"], dim=made["dim"], read_only=True)
    try:
        keys = store.keys()
        rows = [(key, store.vector(key).astype(np.float32), store.meta(key)) for key in keys]
    finally:
        store.close()
    before = [(f["handle"], f["level"]) for f in receipt(home)["facts"]]
    for path in folder.iterdir():            # the store as the previous format wrote it
        if path.name != "distillations.json":
            path.unlink()
    (folder / "vectors-0.f32").write_bytes(np.stack([r for _, r, _ in rows]).tobytes())
    lines = [json.dumps({"r": i, "k": key, **({"m": meta} if meta else {})})
             for i, (key, _, meta) in enumerate(rows)]
    (folder / "keys-0.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "manifest.json").write_text(json.dumps({
        "format": 1, "embedder_id": made["embedder_id"], "dim": made["dim"], "generation": 0,
        "rows": len(rows), "key_bytes": (folder / "keys-0.jsonl").stat().st_size,
        "live": len(rows), "next_id": len(rows), "index": None}))
    assert [(f["handle"], f["level"]) for f in receipt(home)["facts"]] == before  # read as is
    assert run("curate", home=home).exit_code == 0
    assert json.loads((folder / "manifest.json").read_text())["format"] == 2
    assert not (folder / "vectors-0.f32").exists()
    assert [(f["handle"], f["level"]) for f in receipt(home)["facts"]] == before


def test_curate_replaces_an_older_kind_of_vector_index_and_saves_it(tmp_path, monkeypatch):
    """An approximate index of the kind earlier versions saved (IVF-Flat: every vector again,
    in float32) is rebuilt in the background by a writer; `atc curate` waits for it, even with
    nothing new to embed, so the home is not left holding the old one for its next reader."""
    import faiss

    from attention_cloud.embed import faiss_index, store as store_module
    from attention_cloud.embed.loading import load_embedder

    small = faiss_index.IndexPolicy(flat_limit=1_100, build_chunk=200)  # IVF and background
    monkeypatch.setattr(store_module, "IndexPolicy", lambda: small)     # builds at test size
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    embedder = load_embedder("hash")
    vectors = embedder.embed([f"note {i} on topic {i % 37} and {i % 11}" for i in range(1_500)])
    with VectorStore.open(home / "vectors", embedder_id=embedder.id, dim=embedder.dim) as store:
        store.add([f"k{i}" for i in range(1_500)], vectors)
        assert store.wait_for_index() == "ivf"
        store.flush()
    folder = home / "vectors"
    manifest = json.loads((folder / "manifest.json").read_text())
    old = faiss.IndexIVFFlat(faiss.IndexFlatIP(embedder.dim), embedder.dim, 16,
                             faiss.METRIC_INNER_PRODUCT)
    old.train(vectors.astype(np.float32))
    old.add_with_ids(vectors.astype(np.float32), np.arange(1_500, dtype=np.int64))
    faiss_index.write_index(old, folder / manifest["index"]["file"])
    assert not faiss_index.is_current(faiss_index.read_index(folder / manifest["index"]["file"]))
    assert run("curate", home=home).exit_code == 0
    saved = json.loads((folder / "manifest.json").read_text())["index"]
    index = faiss_index.read_index(folder / saved["file"])
    assert saved["kind"] == "ivf" and faiss_index.is_current(index) and index.ntotal == 1_500


def kill_after_first_batch(home: Path, target: str, monkeypatch) -> None:
    """Start a move to ``target`` and stop it after its first flushed batch, as a kill does."""
    monkeypatch.setattr(reembed_module, "BATCH", 20)

    def stop(event):
        if event.phase == "re-embedding" and event.done > 0:
            raise Killed

    with Memory.open(home) as mem, pytest.raises(Killed):
        mem.reembed(target, progress=stop)
    monkeypatch.setattr(reembed_module, "BATCH", 2000)


def test_plain_reembed_resumes_the_unfinished_move_the_frames_note_names(tmp_path, monkeypatch):
    # the note says "`atc curate --reembed` builds or resumes them": run as written, it moved
    # the home back to the embedder it was leaving, re-embedding everything and dropping the move
    home = curated_home(tmp_path / "home", "hash")
    kill_after_first_batch(home, "hash:256", monkeypatch)
    assert "`atc curate --reembed` builds or resumes them" in receipt(home)["notes"][0]
    out = run("curate", "--reembed", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    moved = json.loads(out.stdout)["reembed"]
    assert moved["embedder"] == "hash:256" and moved["resumed"] is True
    assert 0 < moved["reembedded"] < moved["records"]
    assert read_config(home)["embedder"] == "hash:256"
    assert json.loads((home / "vectors" / "manifest.json").read_text())["dim"] == 256
    assert not (home / STATE_FILE).exists()


def test_plain_reembed_after_config_was_edited_moves_to_the_configured_embedder(tmp_path, monkeypatch):
    home = curated_home(tmp_path / "home", "hash")
    kill_after_first_batch(home, "hash:256", monkeypatch)
    write_config(home, {**read_config(home), "embedder": "hash:128"})  # the user changed their mind
    out = run("curate", "--reembed", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["reembed"]["embedder"] == "hash:128"
    assert read_config(home)["embedder"] == "hash:128"
    assert json.loads((home / "vectors" / "manifest.json").read_text())["dim"] == 128


def test_a_move_killed_after_its_switch_keeps_frames_by_meaning_and_curate_finishes_it(
        tmp_path, monkeypatch):
    # vectors/ holds the new embedder's vectors, config.json still the old name: frames fell
    # back to lexical with a note advising a --reembed back, and `atc curate` failed on the
    # vector store's dimension until someone ran --reembed --embedder with the same target
    home = curated_home(tmp_path / "home", "hash")
    real_finish = reembed_module._finish
    monkeypatch.setattr(reembed_module, "_finish", lambda mem, state: (_ for _ in ()).throw(Killed))
    with Memory.open(home) as mem, pytest.raises(Killed):
        mem.reembed("hash:256")
    monkeypatch.setattr(reembed_module, "_finish", real_finish)
    assert read_config(home)["embedder"] == "hash"
    during = receipt(home)
    assert during["path"] == "hybrid" and during["unembedded"] == 0 and "notes" not in during
    with Memory.open(home) as mem:  # a reader by meaning: the new vectors with their embedder
        assert mem.query('nearest("retry policy", H, S)', limit=3).rows
    out = run("curate", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    assert read_config(home)["embedder"] == "hash:256"
    assert not (home / NEXT_DIR).exists() and not (home / STATE_FILE).exists()
    assert receipt(home)["path"] == "hybrid"


def test_forget_during_an_unfinished_move_leaves_no_vector_of_the_item_to_switch_in(
        tmp_path, monkeypatch):
    # erasure rewrote vectors/ with live rows only but left vectors.next/ alone: the resumed
    # move switched the forgotten item's vector (bytes and key) back into the home
    home = curated_home(tmp_path / "home", "hash")
    kill_after_first_batch(home, "hash:256", monkeypatch)
    partial = VectorStore.open(home / NEXT_DIR, embedder_id="hash-v1-256", dim=256, read_only=True)
    handle = next(k for k in partial.keys() if k.startswith("it_") and "#" not in k)
    row = partial.vector(handle).astype(np.float16).tobytes()
    partial.close()

    def files_holding(needle: bytes) -> list[str]:
        return [str(p.relative_to(home)) for p in home.rglob("*")
                if p.is_file() and p.name != "journal.pl" and p.name != "audit.jsonl"
                and needle in p.read_bytes()]

    assert files_holding(row) and files_holding(handle.encode())
    out = run("forget", handle, "--yes", home=home)
    assert out.exit_code == 0, out.output
    assert files_holding(row) == [] and files_holding(handle.encode()) == []
    out = run("curate", "--reembed", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["reembed"]["resumed"] is True
    assert files_holding(row) == [] and files_holding(handle.encode()) == []
    assert read_config(home)["embedder"] == "hash:256"


def test_a_watcher_keeps_curating_after_another_process_moved_the_home(tmp_path):
    # the watcher's Memory kept config.json as it was at its start: after `atc curate
    # --reembed --embedder hash:256` each of its batches failed ("holds 256-d vectors ...,
    # not 512-d") and what it ingested stayed uncurated for as long as it ran
    import os
    import subprocess
    import sys
    import time

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    folder = tmp_path / "live"
    folder.mkdir()
    (folder / "a.txt").write_text("User: the quokkaline bucket refuses uploads after midnight.\n"
                                  "Assistant: the bucket policy denies writes at night.\n")
    proc = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "watch", str(folder),
                             "--poll", "--interval", "0.3", "--debounce", "0.1", "--settle", "0.5",
                             "--format-output", "json", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})
    events, errors = PipeLines(proc.stdout), PipeLines(proc.stderr)

    def curated_hybrid(goal: str) -> bool:
        out = run("hydrate", "--goal", goal, "--format", "json", home=home)
        found = json.loads(out.stdout)["receipt"] if out.exit_code == 0 else {}
        return found.get("path") == "hybrid" and found.get("uncurated") == 0 \
            and bool(found.get("facts"))

    def batches_curated(lines: list[str]) -> int:
        """The watcher's batches so far that curated something (a JSON event a line)."""
        return sum(e["event"] == "batch" and e["curated"] > 0 for e in map(json.loads, lines))

    def answered_once_curated(goal: str, seconds: float) -> None:
        """Frame ``goal`` after each batch that curates (the watcher says so), not every
        0.5 s, until it is answered from curated items; fails after ``seconds``."""
        deadline = time.monotonic() + seconds
        seen = batches_curated(events.lines)
        while not curated_hybrid(goal):
            events.wait_for(lambda lines: batches_curated(lines) > seen, proc,
                            f"a batch curated for {goal!r}", deadline - time.monotonic())
            seen = batches_curated(events.lines)

    try:
        answered_once_curated("quokkaline bucket", 120)
        out = run("curate", "--reembed", "--embedder", "hash:256", home=home)
        assert out.exit_code == 0, out.output
        (folder / "b.txt").write_text("User: the zebrafinch cron job runs at 04:10 UTC now.\n")
        answered_once_curated("zebrafinch cron", 40)   # the watcher curates after the move
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    out = events.text()
    assert '"event": "error"' not in out, out + errors.text()
    assert json.loads((home / "vectors" / "manifest.json").read_text())["dim"] == 256
