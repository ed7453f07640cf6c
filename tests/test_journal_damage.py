"""A journal whose tail is torn is cut back to its last commit; one damaged mid-way, with
committed batches past the bad line, is refused whole (never cut), by readers and writers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _session(path: Path, session: str, n: int = 10) -> Path:
    lines = [json.dumps({"type": "user", "uuid": f"{session}-u{i}", "sessionId": session,
                         "message": {"role": "user",
                                     "content": f"goal {i} of {session}: tune retry {i}"}})
             for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _atc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args],
                          capture_output=True, text=True, timeout=120)


def _atc_here(*args: str):
    """The same command in this process, where a step builds or completes a state and its
    process boundary is not what is tested (each real process costs seconds of start-up)."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    return CliRunner().invoke(main, list(args))


def _live(home: Path) -> int:
    """Live items as ``atc stats`` counts them (the same open and stats), in this process:
    opening reads the journal as a reader does, cutting a torn tail; the errors a damaged
    journal gives a command are checked through real processes (_atc)."""
    from attention_cloud import Memory

    with Memory.open(home, create=False) as mem:
        return mem.stats()["live"]


@pytest.fixture(scope="module")
def three_batches(tmp_path_factory) -> tuple[Path, list[Path]]:
    """A home holding three ingests (three committed batches of 10 items)."""
    root = tmp_path_factory.mktemp("journal_damage")
    home = root / "home"
    srcs = [_session(root / f"s{i}.jsonl", f"S{i}") for i in range(4)]
    for src in srcs[:3]:
        out = _atc_here("ingest", str(src), "--home", str(home))
        assert out.exit_code == 0, out.output
    return home, srcs


def _copy(home: Path, to: Path) -> Path:
    to.mkdir()
    (to / "journal.pl").write_bytes((home / "journal.pl").read_bytes())
    return to


def test_a_bad_line_with_committed_batches_past_it_is_refused_and_nothing_is_cut(
        three_batches, tmp_path):
    home = _copy(three_batches[0], tmp_path / "home")
    journal = home / "journal.pl"
    lines = journal.read_bytes().split(b"\n")
    first_commit = lines.index(b"commit(1).")
    good = lines[first_commit + 1]
    lines[first_commit + 1] = b"zz garbage ((( ."          # the first line of batch 2
    journal.write_bytes(b"\n".join(lines))
    damaged = journal.read_bytes()
    for args in (("stats", "--format", "json"), ("query", "item_text(H, T)"),
                 ("ingest", str(three_batches[1][3]))):
        out = _atc(*args, "--home", str(home))
        assert out.returncode == 1, (args, out.stdout)     # a damaged home: not bad usage (2)
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "journal.pl" in out.stderr and "nothing was cut" in out.stderr, out.stderr
        assert journal.read_bytes() == damaged             # batches 2 and 3 are still there
    lines[first_commit + 1] = good                         # mended: every batch is back
    journal.write_bytes(b"\n".join(lines))
    assert _live(home) == 30


def test_a_record_text_that_holds_a_commit_line_is_not_taken_for_one(tmp_path):
    """The scan past a torn tail skips record blocks by their length: a torn batch whose item
    says `commit(9).` on a line of its own is still cut, not refused."""
    home = tmp_path / "home"
    src = tmp_path / "s.jsonl"
    src.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "S",
                               "message": {"role": "user",
                                           "content": "the journal shows\ncommit(9).\nthen"}})
                   + "\n", encoding="utf-8")
    assert _atc_here("ingest", str(src), "--home", str(home)).exit_code == 0
    journal = home / "journal.pl"
    whole = journal.read_bytes()
    journal.write_bytes(whole[: whole.rindex(b"commit(1).")])   # torn before its commit
    assert _live(home) == 0
    assert journal.read_bytes() == b""


def test_a_torn_or_garbage_last_line_is_cut_and_loses_nothing_before_it(three_batches,
                                                                       tmp_path):
    home, srcs = three_batches
    whole = (home / "journal.pl").read_bytes()
    for n, tail in enumerate((b'a(atc_journal:foo("x")).\nzz((( garbage\n', b'"unclosed',
                              b"b(atc_journal:item2,999).\nshort")):
        copy = _copy(home, tmp_path / f"h{n}")
        (copy / "journal.pl").write_bytes(whole + tail)
        assert _live(copy) == 30
        assert (copy / "journal.pl").read_bytes() == whole  # cut back to the last commit
    copy = _copy(home, tmp_path / "mid-block")
    (copy / "journal.pl").write_bytes(whole[:-60])         # inside batch 3: it was not committed
    assert _live(copy) == 20
    out = _atc_here("ingest", str(srcs[2]), "--home", str(copy))  # the same command completes it
    assert out.exit_code == 0, out.output
    assert _live(copy) == 30


def test_a_commit_marker_torn_before_its_newline_does_not_cost_the_next_batch(three_batches,
                                                                             tmp_path):
    """A writer killed between the marker and its newline: the next writer appended its batch
    to the marker's line, and the reader after it cut both batches (an acknowledged one)."""
    home, srcs = three_batches
    copy = _copy(home, tmp_path / "home")
    journal = copy / "journal.pl"
    journal.write_bytes(journal.read_bytes()[:-1])         # "commit(3)." without its newline
    out = _atc_here("ingest", str(srcs[3]), "--home", str(copy), "--format-output", "json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["new"] == 10             # acknowledged
    assert _live(copy) == 30                               # batch 3 never was: 2 + the new one
    out = _atc_here("ingest", str(srcs[2]), "--home", str(copy))
    assert out.exit_code == 0, out.output
    assert _live(copy) == 40
    assert _live(copy) == 40


#: For a process under a file-size limit: a module it compiles under the limit (one changed
#: since the suite's byte-code was written, or imported late) had its .pyc cut short in the
#: shared byte-code folder, and every later process importing it failed ("Aborted!").
_NO_BYTECODE = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.parametrize("room", [1_500, 30_000, 120_000])
def test_a_full_disk_is_one_line_and_keeps_what_was_committed(three_batches, tmp_path, room):
    """A file-size limit (RLIMIT_FSIZE, as a full disk refuses a write) hit in the journal, the
    pending list, the BM25 log or the vectors: one line, no traceback, nothing half-kept, and
    the same command completes once writes go through."""
    import resource

    home = _copy(three_batches[0], tmp_path / "home")
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    big = _session(tmp_path / "big.jsonl", "BIG", 1500)
    limit = (home / "journal.pl").stat().st_size + room

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    for args in (("ingest", str(big)), ("remember", "the cache is warmed at six")):
        out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args,
                              "--home", str(home)], capture_output=True, text=True,
                             timeout=120, preexec_fn=cap, env=_NO_BYTECODE)
        if out.returncode == 0:
            continue                                       # it fitted
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, \
            out.stderr
        assert "large" in out.stderr or "space" in out.stderr, out.stderr
        assert out.returncode == 1 and "what was committed before is kept" in out.stderr, \
            out.stderr                                      # in Python's writes or Prolog's
        assert _live(home) in (30, 31, 1530)               # whole batches only
    for args in (("ingest", str(big)), ("remember", "the cache is warmed at six")):
        out = _atc_here(*args, "--home", str(home))
        assert out.exit_code == 0, out.output
    assert _live(home) == 1531
    out = _atc_here("stats", "--home", str(home), "--format", "json")
    assert json.loads(out.stdout)["kinds"]["note"] == 1


_KEEPS_WRITING = """
import resource, sys
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.errors import AtcError

home, big, small, limit = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
with Memory.open(home) as mem:
    before = (home / "journal.pl").read_bytes()
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    try:
        mem.ingest([big])
        sys.exit("the capped ingest fitted")
    except (AtcError, OSError):
        pass
    assert (home / "journal.pl").read_bytes() == before, "the refused batch was not cut"
    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print(mem.ingest([small]).new)
"""


def test_a_process_whose_write_was_refused_goes_on_writing_to_the_journal(three_batches,
                                                                          tmp_path):
    """A Memory held open (a watcher, a server, a script) whose batch the file system refused
    in the journal itself: the journal is cut back to its last commit, and the next batch,
    once writes go through, is in the journal. Before, the refused stream stayed in the
    store's books, the close that undoes an ingest failed on it before the cut, and every
    later batch of the process was kept in memory alone: reported new, gone at the next
    open (10 items here)."""
    home = _copy(three_batches[0], tmp_path / "home")
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    big = _session(tmp_path / "big.jsonl", "BIG", 1500)
    limit = (home / "journal.pl").stat().st_size + 30_000
    done = subprocess.run([sys.executable, "-c", _KEEPS_WRITING, str(home), str(big),
                           str(three_batches[1][3]), str(limit)],
                          capture_output=True, text=True, timeout=120, env=_NO_BYTECODE)
    assert done.returncode == 0, done.stderr[-800:]
    assert done.stdout.split() == ["10"]
    assert _live(home) == 40


def _record_body_offsets(journal: bytes, upto: int) -> list[int]:
    """Offsets of every byte inside the item records' bodies (the wire strings between a
    ``b(…, Length)`` header's newline and the record's closing newline) before ``upto``."""
    offsets, at = [], 0
    while True:
        start = journal.find(b"\nb(atc_journal:item2,", at)
        if start < 0 or start >= upto:
            return offsets
        header_end = journal.index(b"\n", start + 1)
        length = len(journal[header_end + 1:].decode("utf-8", "replace")
                     [:int(journal[start + 21:journal.index(b")", start)])].encode())
        offsets.extend(range(header_end + 1, min(header_end + 1 + length, upto)))
        at = header_end + 1 + length


def test_a_damaged_record_of_a_committed_batch_is_refused_naming_the_journal(three_batches,
                                                                            tmp_path):
    """A byte of an item record's body damaged on disk (a bad block, a stray write), in a
    batch other committed batches follow: every command either reads all 30 items (the damage
    fell in a text: there is no checksum to see it) or refuses in one line naming journal.pl
    and where, leaving the file as it was. Before, a record whose fields no longer split
    stopped every command with `atc: Syntax error: bad_wire_item`, naming no file, no place
    and no remedy. Property-style: 40 random offsets and byte values."""
    import random

    whole = (three_batches[0] / "journal.pl").read_bytes()
    last_batch = whole.rindex(b"commit(2).")
    offsets = _record_body_offsets(whole, last_batch)
    rng = random.Random(215)
    refused = 0
    for n in range(40):
        at = rng.choice(offsets)
        value = rng.choice(b"\x00\x1f\x1e\x01\xff=|a7")
        copy = _copy(three_batches[0], tmp_path / f"h{n}")
        damaged = whole[:at] + bytes([value]) + whole[at + 1:]
        (copy / "journal.pl").write_bytes(damaged)
        out = _atc_here("stats", "--format", "json", "--home", str(copy))
        if out.exit_code == 0:
            assert json.loads(out.stdout)["live"] == 30, (at, value)
            continue
        refused += 1
        lines = out.output.strip().splitlines()
        assert out.exit_code == 1 and len(lines) == 1, (at, value, out.output)
        assert str(copy / "journal.pl") in lines[0] and "nothing was cut" in lines[0], \
            (at, value, lines[0])
        assert (copy / "journal.pl").read_bytes() == damaged
    assert refused > 0


@pytest.mark.parametrize("value", [b"=", b"\xff"])
def test_a_damaged_record_is_one_line_through_the_real_command(three_batches, tmp_path, value):
    """Its separator replaced, or a byte that is no UTF-8: one line, exit 1 (a damaged home,
    not bad usage), and none of SWI-Prolog's `Warning: … Illegal UTF-8 start` lines: before,
    the second printed them and then read the text with U+FFFD in it, exit 0."""
    whole = (three_batches[0] / "journal.pl").read_bytes()
    first = _record_body_offsets(whole, len(whole))[0]
    copy = _copy(three_batches[0], tmp_path / "home")
    (copy / "journal.pl").write_bytes(whole[:first] + value + whole[first + 1:])
    out = _atc("query", "item(H)", "--home", str(copy))
    assert out.returncode == 1 and out.stdout == "", out.stderr
    assert out.stderr.startswith(f"atc: {copy / 'journal.pl'}: the batch committed from byte "), \
        out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.parametrize("cut", ["torn-batch", "file-cut-short"])
def test_a_cut_journal_tail_is_said_in_one_line(three_batches, tmp_path, cut):
    """Bytes past the journal's last commit are cut by the next process that may write: a
    batch a killed writer never finished, or (what the journal alone cannot tell from it) a
    file cut short by a copy or a restore, which takes a committed batch with it. Either way
    the command says so in one `atc: warning:` line naming the file, where and how much,
    and goes on. Before, the cut was silent: 10 acknowledged items gone without a word."""
    home = _copy(three_batches[0], tmp_path / "home")
    journal = home / "journal.pl"
    whole = journal.read_bytes()
    last = whole.rindex(b"commit(2).\n") + len(b"commit(2).\n")
    if cut == "torn-batch":
        journal.write_bytes(whole + b"a(atc_journal:foo(\"x\")).\nb(atc_journal:item2,999).\nsh")
        cut_bytes, live = len(journal.read_bytes()) - len(whole), 30
    else:
        journal.write_bytes(whole[:len(whole) - 40])          # the last commit marker lost
        cut_bytes, live = len(whole) - 40 - last, 20
    out = _atc("stats", "--format", "json", "--home", str(home))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["live"] == live
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"atc: warning: {journal}: "), out.stderr
    assert f"{cut_bytes} bytes" in lines[0] and f"byte {len(whole) if cut == 'torn-batch' else last}" \
        in lines[0], lines[0]
    again = _atc("stats", "--format", "json", "--home", str(home))
    assert again.returncode == 0 and again.stderr == "", again.stderr   # said once: it is cut
