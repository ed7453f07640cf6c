"""A long-running reader beside other writers (README "Python API": ``Memory.refresh()``; "Agents":
the MCP server's MemoryHost): after any run of other processes' writes it answers what a
freshly opened Memory of the home answers, and never what was forgotten."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Var
from attention_cloud.home import write_config

ROOT = Path(__file__).resolve().parent.parent


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in another process, as a capture hook or a user's shell would run it."""
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=300)


def _nearest(mem: Memory, text: str) -> list:
    return mem.query(f'nearest("{text}", 5, Hs)').rows[0]["Hs"]


def _home(tmp_path: Path, notes: list[str]) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        for note in notes:
            mem.remember(note)
    return home



def _start_reader(home: Path, kind: str) -> tuple[subprocess.Popen, Any]:
    """The long-lived reader process (``kind``: an open Memory or a MemoryHost) and ``ask()``,
    which has it answer once more and returns its answers."""
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(home), kind, str(ROOT / "tests")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask() -> dict:
        reader.stdin.write("\n")
        reader.stdin.flush()
        got = json.loads(reader.stdout.readline())
        assert "error" not in got, got.get("error")
        return got["answers"]

    return reader, ask


def test_a_reader_follows_a_move_to_another_embedder_made_elsewhere(tmp_path):
    """`atc curate --reembed --embedder` in another process: the reader's refresh opens the
    new vectors with the new embedder (it went on embedding goals with the old one, and every
    search by meaning failed: "holds 256-d vectors of embedder 'hash-v1-256', not 512-d")."""
    home = _home(tmp_path, ["the invoice export runs nightly at two",
                            "the retry policy stops at five attempts"])
    mem = Memory.open(home, create=False)
    try:
        before = mem.hydrate("when does the invoice export run", budget=300)
        assert before.receipt["path"] in ("semantic", "hybrid")
        moved = _atc(home, "curate", "--reembed", "--embedder", "hash:256")
        assert moved.returncode == 0, moved.stderr
        assert mem.refresh()
        hits = _nearest(mem, "invoice export nightly")
        frame = mem.hydrate("when does the invoice export run", budget=300)
    finally:
        mem.close()
    with Memory.open(home, create=False) as fresh:
        assert hits == _nearest(fresh, "invoice export nightly")
        assert frame.text.split("\n", 2)[2] == fresh.hydrate(
            "when does the invoice export run", budget=300).text.split("\n", 2)[2]
        assert frame.receipt["path"] == before.receipt["path"]


_SWAP_HOOK = """
:- dynamic qa_swap/2.
qa_arm(From, To) :- retractall(qa_swap(_, _)), assertz(qa_swap(From, To)).
qa_swap_now :- ( retract(qa_swap(From, To)) -> rename_file(From, To) ; true ).
qa_unwrap :- unwrap_predicate(atc_store:stream_epoch_/2, qa_swap).
:- wrap_predicate(atc_store:stream_epoch_(_, _), qa_swap, Wrapped, (Wrapped, user:qa_swap_now)).
"""


def _texts_in_view(mem: Memory) -> set[str]:
    """The item texts of the view ``mem`` holds now, read without the catching up every
    public call does first."""
    (solutions, _) = mem.pl.once("atc_api:api_query", "item(H), item_text(H, T)",
                                 {"limit": 1000, "module": Atom("atc_query")}, Var(), Var())
    return {str(pair.args[1]) for sol in solutions for pair in sol if str(pair.args[0]) == "T"}


@pytest.fixture
def swap_after_epoch_read(tmp_path):
    """A hook that replaces a journal by another file right after the reader read its epoch:
    the moment an erasure elsewhere renames its compacted journal into place."""
    from attention_cloud.bridge import get_prolog

    pl = get_prolog()
    hook = tmp_path / "swap_hook.pl"
    hook.write_text(_SWAP_HOOK, encoding="utf-8")
    pl.consult(hook)
    yield lambda src, dst: pl.once("user:qa_arm", str(src), str(dst))
    pl.once("user:qa_unwrap")


def test_a_journal_compacted_while_a_reader_refreshes_is_never_read_from_the_old_offset(
        tmp_path, swap_after_epoch_read):
    """An erasure elsewhere renames its compacted journal over journal.pl while a reader
    refreshes: the refresh either reads the journal it checked to its end (what was committed
    before it was called is there) or says memory must be opened again. It read the new file
    from the old file's offset instead: the note committed before the refresh was missing, and
    a refresh that landed on a line start would have replayed the new file's facts twice."""
    home = _home(tmp_path, ["the first note is about the invoice export",
                            "the second note is about the retry policy"])
    other = tmp_path / "other"
    shutil.copytree(home, other)
    with Memory.open(other, create=False) as mem:  # as atc remember would, without 6 starts
        for i in range(6):
            assert mem.remember(f"padding note {i} so the compacted journal is long").new
        (victim,) = [r["H"] for r in mem.query(
            'item_text(H, "the first note is about the invoice export")').rows]
    assert _atc(other, "forget", victim, "--yes").returncode == 0
    mem = Memory.open(home, create=False)
    try:
        assert _atc(home, "remember", "a third note, committed before the refresh").returncode == 0
        swap_after_epoch_read(other / "journal.pl", home / "journal.pl")
        caught_up = mem.refresh()
        texts = _texts_in_view(mem)  # not mem.query: it would take in the swapped journal first
        if caught_up:
            assert "a third note, committed before the refresh" in texts
            assert len(texts) == 3
        assert not mem.refresh()  # now the replaced journal is seen: open memory again
        # the next call reads the swapped-in journal afresh by itself
        after = {r["T"] for r in mem.query("item(H), item_text(H, T)", limit=1000).rows}
        assert "the first note is about the invoice export" not in after and len(after) == 7
    finally:
        mem.close()
    with Memory.open(home, create=False) as fresh:
        texts = {r["T"] for r in fresh.query("item(H), item_text(H, T)", limit=1000).rows}
    assert "the first note is about the invoice export" not in texts


# -- a long-lived reader against a fresh open, across random writes elsewhere -------------------
GOALS = ["why did the export fail", "what did we decide about the retry policy",
         "what happened two days ago"]
NOW = "2026-03-01T12:00:00Z"
WORDS = ("export retry payments invoice processor timeout policy staging database friday deploy "
         "cache queue worker ledger refund webhook nightly flaky migration schema index").split()


def answers(mem: Memory) -> dict:
    """What a reader answers: items, stats, the newest time, the uncurated count, the speakers,
    frames (text and receipt facts) for fixed goals and present, BM25 and nearest hits."""
    out: dict = {"items": sorted(r["H"] for r in mem.query("item(H)", limit=100000).rows)}
    stats = mem.stats()
    for key in ("home", "disk_bytes"):
        stats.pop(key)
    out["stats"] = stats
    out["memory_now"] = mem.pl.once("atc_when:memory_now", Var())[0]
    out["uncurated"] = mem.pl.once("atc_ladder:ladder_uncurated_count", Var())[0]
    out["speakers"] = sorted(map(str, mem.pl.once("atc_journal:journal_speakers", Var())[0]))
    out["frames"] = []
    for goal in GOALS:
        frame = mem.hydrate(goal, budget=600, now=NOW)
        out["frames"].append({"text": re.sub(r"receipt r_[0-9a-f]+", "receipt R", frame.text),
                              "path": frame.receipt["path"], "facts": frame.receipt["facts"]})
    for word in ("export", "retry", "payments"):
        out[f"bm25 {word}"] = mem.query(f'lexical("{word}", 5, [], Hs)').rows[0]["Hs"]
    out["nearest"] = _nearest(mem, "export retry failure")
    return json.loads(json.dumps(out, default=str))


_READER = """
import json, sys, traceback
sys.path.insert(0, sys.argv[3])
from test_long_reader import answers
from attention_cloud import Memory
from attention_cloud.agents.memory_host import MemoryHost
home, kind = sys.argv[1], sys.argv[2]
host = MemoryHost(home) if kind == "host" else None
mem = None if host else Memory.open(home, create=False)
for _ in sys.stdin:
    try:
        if host:
            now = host.memory()
        else:
            if not mem.refresh():  # an erasure elsewhere: open memory again
                mem = Memory.open(home, create=False)
            now = mem
        print(json.dumps({"answers": answers(now)}), flush=True)
    except Exception:
        print(json.dumps({"error": traceback.format_exc()}), flush=True)
"""


class _Writer:
    """Random writes to a home, each by a Memory opened and closed for it (another process
    as far as the reader is concerned)."""

    def __init__(self, root: Path, home: Path, seed: int) -> None:
        self.root, self.home, self.rng = root, home, random.Random(seed)
        self.files: list[Path] = []
        self.clock = 1767225600 + 86400 * 40

    def _lines(self, path: Path, count: int) -> None:
        with open(path, "a", encoding="utf-8") as out:
            for _ in range(count):
                self.clock += self.rng.randint(60, 86400)
                role = self.rng.choice(["user", "assistant"])
                record = {"role": role, "timestamp": self.clock,
                          "content": " ".join(self.rng.choice(WORDS)
                                              for _ in range(self.rng.randint(4, 14)))}
                if role == "user" and self.rng.random() < 0.5:
                    record["name"] = self.rng.choice(["Priya", "Omar", "Lena"])
                out.write(json.dumps(record) + "\n")

    def ingest(self, mem: Memory) -> str:
        path = self.root / f"t{len(self.files)}.jsonl"
        self.files.append(path)
        self._lines(path, self.rng.randint(3, 12))
        mem.ingest([path], segment=self.rng.choice(["default", "work"]))
        return f"ingest {path.name}"

    def append(self, mem: Memory) -> str:
        path = self.rng.choice(self.files)
        self._lines(path, self.rng.randint(1, 5))
        mem.ingest([path])
        return f"append {path.name}"

    def curate(self, mem: Memory) -> str:
        mem.curate()
        return "curate"

    def remember(self, mem: Memory) -> str:
        curate = self.rng.random() < 0.5
        mem.remember(" ".join(self.rng.choice(WORDS) for _ in range(8)),
                     kind=self.rng.choice(["note", "decision"]), curate=curate)
        return f"remember curate={curate}"

    def forget(self, mem: Memory) -> str:
        handle = self.rng.choice(sorted(r["H"] for r in mem.query("item(H)", limit=100000).rows))
        mem.forget([handle], reason="test")
        return f"forget {handle}"

    def snapshot(self, mem: Memory) -> str:
        mem.snapshot()
        return "snapshot"

    def reembed(self, mem: Memory) -> str:
        target = "hash:256" if mem.config.get("embedder") == "hash" else "hash"
        mem.reembed(target)
        return f"reembed {target}"

    def rebuild_cells(self, mem: Memory) -> str:
        from attention_cloud.cells import rebuild

        rebuild(mem)
        return "cells rebuild"

    def step(self, name: str | None = None) -> str:
        """One random write (or the one ``name`` says)."""
        ops = [(self.ingest, 4), (self.append, 3), (self.curate, 4), (self.remember, 3),
               (self.forget, 1), (self.snapshot, 1), (self.reembed, 0.7), (self.rebuild_cells, 0.5)]
        op = (getattr(self, name) if name else
              self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0])
        with Memory.open(self.home) as mem:
            return op(mem)


@pytest.mark.parametrize("kind,seed", [("memory", 1), ("host", 2)])
def test_a_long_lived_reader_answers_as_a_fresh_open_after_every_write(tmp_path, kind, seed):
    """Seeded random ingests, appends, curates, remembers, forgets, snapshots, re-embeds and
    cell rebuilds by other processes: after each, the long-lived reader (an open Memory that
    refreshes, or the MCP server's MemoryHost) answers exactly what a fresh open answers."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    writer = _Writer(tmp_path, home, seed)
    with Memory.open(home) as mem:
        writer.ingest(mem)
        writer.curate(mem)
    reader, ask = _start_reader(home, kind)

    try:
        ask()
        done: list[str] = []
        for i in range(28):  # each kind of write at least once, whatever the seed draws
            done.append(writer.step({9: "forget", 14: "reembed", 19: "rebuild_cells"}.get(i)))
            got = ask()
            with Memory.open(home, create=False) as fresh:
                want = answers(fresh)
            differ = [key for key in want if want[key] != got.get(key)]
            assert not differ, (done[-4:], {k: (want[k], got.get(k)) for k in differ})
    finally:
        reader.stdin.close()
        reader.wait(60)


# -- kill -9 in the middle of a curate, beside a long-lived reader -------------------------------
_KILLED_CURATE = """
import os, signal, sys
import numpy as np
from attention_cloud import Memory
from attention_cloud.cells import rows
from attention_cloud.embed import lexical, store
home, where = sys.argv[1], sys.argv[2]
die = lambda: os.kill(os.getpid(), signal.SIGKILL)
if where == "cell rows appended":          # the first cells' rows written, the rest not
    copy = rows._copy_cells
    def copy_then_die(store_, members_of, cells, written, out):
        result = copy(store_, members_of, cells, written, out)
        out.flush()
        die()
    rows._copy_cells = copy_then_die
elif where == "cell rows table written":    # rows and table durable, rows.json not replaced
    replace = os.replace
    def replace_or_die(src, dst, *a, **k):
        if str(dst).endswith("rows.json"):
            die()
        return replace(src, dst, *a, **k)
    os.replace = replace_or_die
elif where == "bm25 line torn":             # half a line of the BM25 log reaches the file
    def torn(self, record):
        import json
        line = json.dumps(record) + "\\n"
        self._log.write(line[: len(line) // 2])
        self._log.flush()
        die()
    lexical.LexicalIndex._append = torn
elif where == "key snapshot written":       # the key-table snapshot is in place, no manifest names it
    store.KEY_SNAPSHOT_CHECKPOINT_BYTES = 0
    save = store.VectorStore._save_key_snapshot_if_due
    def save_then_die(self, *, checkpoint=False):
        save(self, checkpoint=checkpoint)
        if self._key_snapshot and checkpoint:
            die()
    store.VectorStore._save_key_snapshot_if_due = save_then_die
with Memory.open(home) as mem:
    mem.curate()
"""


def _copies_match_the_log(mem: Memory) -> int:
    """Every cell member whose copy the walk would read: that copy equals its row in the vector
    log. Returns how many members have one."""
    import numpy as np

    from attention_cloud.cells import cells_list
    from attention_cloud.cells.rows import CellRows

    store = mem.jump.read_vectors()
    copies = CellRows.open(mem.home, store)
    if copies is None:
        return 0
    used = 0
    try:
        for cell in cells_list(mem):
            members = [r["H"] for r in mem.query(f"cell_member({cell['id']}, H)", limit=100000).rows]
            ids = store.ids(members + [f"{m}#l2" for m in members])
            at = copies.copies(ids[: len(members)], ids[len(members):])
            for j in np.flatnonzero(at >= 0):
                assert np.allclose(copies.read(np.array([at[j]]))[0], store.vector(members[j]),
                                   atol=1e-3), members[j]
                used += 1
    finally:
        copies.close()
    return used


@pytest.fixture(scope="module")
def curated_then_grown(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home curated once (its cells have rows to append to), then grown by three ingests not
    yet curated; built once for the module: each test curates a copy of its own."""
    root = tmp_path_factory.mktemp("killed-curate")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    writer = _Writer(root, home, 7)
    for _ in range(3):
        with Memory.open(home) as mem:
            writer.ingest(mem)
    with Memory.open(home) as mem:
        writer.curate(mem)
        assert _copies_match_the_log(mem) > 0  # cell rows to append to
        for _ in range(3):
            writer.ingest(mem)
    return home


@pytest.mark.parametrize("where", ["cell rows appended", "cell rows table written",
                                   "bm25 line torn", "key snapshot written"])
def test_a_curate_killed_midway_leaves_readers_and_the_next_curate_right(tmp_path, where,
                                                                        curated_then_grown):
    home = tmp_path / "home"
    shutil.copytree(curated_then_grown, home)
    reader, ask = _start_reader(home, "memory")

    try:
        ask()
        killed = subprocess.run([sys.executable, "-c", _KILLED_CURATE, str(home), where],
                                capture_output=True, text=True, timeout=300)
        assert killed.returncode == -9, killed.stderr[-2000:]
        for phase in ("killed", "curated again"):
            if phase == "curated again":  # by this process: another writer to the reader
                with Memory.open(home) as mem:
                    mem.curate()
            got = ask()
            with Memory.open(home, create=False) as fresh:
                want = answers(fresh)
                copied = _copies_match_the_log(fresh)
            differ = [key for key in want if want[key] != got.get(key)]
            assert not differ, (phase, {k: (want[k], got.get(k)) for k in differ})
        assert want["uncurated"] == 0
        # every cell's copies are whole again: those the killed run changed were not left to
        # be read row by row from the log until the cells change again
        assert copied == want["stats"]["cells"]["members"], (copied, want["stats"]["cells"])
    finally:
        reader.stdin.close()
        reader.wait(60)
