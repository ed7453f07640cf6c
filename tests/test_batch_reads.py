"""Scattered vector rows read in one system call (embed/batch_reads.py) give the rows that
one read per stretch gives, fall back to those reads where the kernel refuses, and say where
a file cut short ends."""
from __future__ import annotations

import os

import numpy as np
import pytest

from attention_cloud.embed import batch_reads, mapped_rows
from attention_cloud.embed.mapped_rows import MappedRows, read_rows, write_header
from attention_cloud.errors import HomeError

DIM = 16
ROWS = 4000


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """A float16 vector log of ROWS random rows, and the rows."""
    rows = np.random.default_rng(5).standard_normal((ROWS, DIM)).astype(np.float16)
    path = tmp_path_factory.mktemp("log") / "vectors.f16"
    with open(path, "wb") as handle:
        write_header(handle, DIM)
        handle.write(rows.tobytes())
    return path, rows


def scattered(seed: int, count: int = 700) -> np.ndarray:
    return np.unique(np.random.default_rng(seed).choice(ROWS, count, replace=False))


def one_by_one(monkeypatch) -> list[int]:
    """Count the preadv calls made from here on."""
    reads: list[int] = []
    real = os.preadv
    monkeypatch.setattr(os, "preadv", lambda fd, bufs, at: reads.append(at) or real(fd, bufs, at))
    return reads


@pytest.mark.skipif(not batch_reads.available(), reason="no native AIO on this system")
def test_scattered_rows_come_in_one_batch_and_equal_the_rows_on_disk(log, monkeypatch):
    path, rows = log
    reads = one_by_one(monkeypatch)
    mapped = MappedRows(path, DIM, np.float16, ROWS)
    for seed, gap in ((1, 1), (2, mapped_rows.GAP_ROWS), (3, 1)):
        asked = scattered(seed)
        with open(path, "rb", buffering=0) as handle:
            got = read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES,
                            path, gap)
        assert np.array_equal(got.view(np.uint16), rows[asked].view(np.uint16))
    shuffled = np.random.default_rng(4).permutation(np.repeat(scattered(9), 2))
    assert np.array_equal(mapped.pread(shuffled), rows[shuffled].astype(np.float32))
    assert reads == []  # none of them one stretch at a time


def test_where_the_kernel_refuses_rows_are_read_one_stretch_at_a_time(log, monkeypatch):
    path, rows = log
    monkeypatch.setattr(batch_reads, "_context", lambda: None)
    reads = one_by_one(monkeypatch)
    asked = scattered(6)
    mapped = MappedRows(path, DIM, np.float16, ROWS)
    assert np.array_equal(mapped.pread(asked), rows[asked].astype(np.float32))
    assert len(reads) == 1 + np.count_nonzero(np.diff(asked) > 1)  # a read per stretch


@pytest.mark.parametrize("batched", [True, False])
def test_a_file_cut_short_names_the_row_it_ends_before(log, tmp_path, monkeypatch, batched):
    path, rows = log
    short = tmp_path / "short.f16"
    short.write_bytes(path.read_bytes()[: mapped_rows.HEADER_BYTES + 3000 * DIM * 2 + 5])
    if not batched:
        monkeypatch.setattr(batch_reads, "_context", lambda: None)
    asked = scattered(7)
    past = int(asked[asked >= 3000][0])
    with open(short, "rb", buffering=0) as handle:
        with pytest.raises(HomeError, match=f"ends before row {past}$"):
            read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES, short)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_reads_with_its_own_context(log):
    """An AIO context belongs to the process that made it: a child (a server's worker) makes
    its own rather than submitting to its parent's."""
    path, rows = log
    asked = scattered(8)
    batch_reads.available()  # the parent's context, made before the fork
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when its rows are right
        try:
            with open(path, "rb", buffering=0) as handle:
                got = read_rows(handle.fileno(), asked, DIM, np.float16,
                                mapped_rows.HEADER_BYTES, path)
            os._exit(0 if np.array_equal(got.view(np.uint16), rows[asked].view(np.uint16)) else 1)
        except BaseException:  # noqa: BLE001 - any failure is the child's answer
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


@pytest.mark.skipif(not batch_reads.available(), reason="no native AIO on this system")
def test_a_batch_stopped_before_its_reap_does_not_answer_for_the_next(log, tmp_path, monkeypatch):
    """Ctrl-C between a batch's submit and its reap leaves its completions in the context;
    the next batch must not take them for its own (here: the short reads of a cut file)."""
    path, rows = log
    short = tmp_path / "short.f16"
    short.write_bytes(path.read_bytes()[: mapped_rows.HEADER_BYTES + 100 * DIM * 2])
    asked = scattered(10, 200)
    real_reap = batch_reads._reap

    def stopped(*args):
        monkeypatch.setattr(batch_reads, "_reap", real_reap)
        raise KeyboardInterrupt

    monkeypatch.setattr(batch_reads, "_reap", stopped)
    with open(short, "rb", buffering=0) as handle, pytest.raises(KeyboardInterrupt):
        read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES, short)
    with open(path, "rb", buffering=0) as handle:
        got = read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES, path)
    assert np.array_equal(got.view(np.uint16), rows[asked].view(np.uint16))


def test_rows_scored_where_they_are_read_give_the_cosines_of_the_rows_gathered(log):
    """MappedRows.products (each distinct row read and scored once, the scores put in the
    order asked) gives bit for bit what einsum gives over the rows gathered in that order."""
    path, rows = log
    mapped = MappedRows(path, DIM, np.float16, ROWS)
    query = np.random.default_rng(11).standard_normal(DIM).astype(np.float32)
    for seed in range(4):
        asked = np.random.default_rng(seed).permutation(np.concatenate([scattered(seed, 300),
                                                                        scattered(seed + 20, 40)]))
        expected = np.einsum("ij,j->i", mapped.pread(asked), query)
        assert np.array_equal(mapped.products(asked, query), expected)


@pytest.mark.skipif(not batch_reads.available(), reason="no native AIO on this system")
def test_batches_of_other_files_and_sizes_one_after_another_read_their_own_rows(log, tmp_path):
    """The batch's control blocks and completions are kept between calls: a batch of fewer
    reads, of another file, after a larger one reads its own rows, and a file cut short is
    still told short after whole reads of a longer one (nothing of the call before counts)."""
    path, rows = log
    other_rows = np.random.default_rng(12).standard_normal((ROWS, DIM)).astype(np.float16)
    other = tmp_path / "other.f16"
    with open(other, "wb") as handle:
        write_header(handle, DIM)
        handle.write(other_rows.tobytes())
    short = tmp_path / "short.f16"
    short.write_bytes(path.read_bytes()[: mapped_rows.HEADER_BYTES + 2000 * DIM * 2])
    with open(path, "rb", buffering=0) as first, open(other, "rb", buffering=0) as second:
        for seed, count in ((13, 900), (14, 40), (15, 300), (16, 9)):
            for handle, held in ((first, rows), (second, other_rows)):
                asked = scattered(seed, count)
                got = read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES, path)
                assert np.array_equal(got.view(np.uint16), held[asked].view(np.uint16))
    asked = scattered(17, 300)
    past = int(asked[asked >= 2000][0])
    with open(short, "rb", buffering=0) as handle:
        with pytest.raises(HomeError, match=f"ends before row {past}$"):
            read_rows(handle.fileno(), asked, DIM, np.float16, mapped_rows.HEADER_BYTES, short)
