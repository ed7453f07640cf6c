"""The committed changes of one module's facts in a home's journal, found without loading it.

Listing a home's principals loaded its whole store (the snapshot and the journal past it: on
a home of 100,000 items ~150 MB and about a second of CPU) to read a few facts. The journal
holds every durable fact (compaction writes them all to the new file), so the changes of one
module can be read from it alone: this finds their lines, and rules/store.pl
(store_changes_facts/3) reads them as terms, never as code.

The journal's form is rules/store.pl's: a change is one line, ``a(:(M,Fact)).`` or
``r(:(M,Fact)).``; a batch ends with ``commit(N).`` or is dropped by ``abort(N).`` (a batch with
neither, a crash's tail, was never acknowledged); a *record block* is a line ``b(M:Kind,L).``,
then L characters of a module's own text and a newline. A block's text is the user's and may
hold any line (an item saying ``a(:(atc_grants,owner_(eve))).`` then ``commit(9).``), so the
blocks are stepped over by their lengths, and only lines outside them count. The file is
mapped, not read: memory stays what the lines found need.
"""
from __future__ import annotations

import mmap
import re
from bisect import bisect_right
from pathlib import Path

#: A record block's header line, ``b(M:Kind,L).``, from the newline before it; the file's
#: first line has none.
_HEADER = re.compile(rb"\nb\([^\n]*,(\d+)\)\.\n")
_FIRST_HEADER = re.compile(rb"b\([^\n]*,(\d+)\)\.\n")


def committed_changes(journal: Path, module: str) -> list[str]:
    """The lines changing ``module``'s facts in the committed batches of ``journal``, in
    order (none when there is no journal)."""
    try:
        fh = open(journal, "rb")
    except FileNotFoundError:
        return []
    with fh:
        if fh.seek(0, 2) == 0:
            return []
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            blocks, end = _record_blocks(data)
            return _committed(data, blocks, end, module)


def _record_blocks(data: mmap.mmap) -> tuple[list[tuple[int, int]], int]:
    """Each record block's (the newline before its header, the end of its text), in order,
    and where reading ends: the file's end, or a block that cannot be read (torn, or damaged:
    a replay stops there too). A header found inside a block's text is skipped, and where it
    reached past that text the search starts again at the text's end."""
    spans: list[tuple[int, int]] = []
    end = 0
    first = _FIRST_HEADER.match(data)
    headers = _HEADER.finditer(data)
    while True:
        found = first or next(headers, None)
        first = None
        if not found:
            return spans, len(data)
        if found.start() < end:                 # a line of a block's text
            if found.end() > end:               # it took the newline the next header needs
                headers = _HEADER.finditer(data, end)
            continue
        length = int(found.group(1))
        start = found.end()
        stop = start + length
        if not data[start:stop].isascii():    # L is in characters: count them in UTF-8
            text = data[start:start + 4 * length].decode("utf-8", "replace")[:length]
            stop = start + len(text.encode("utf-8"))
        if data[stop:stop + 1] != b"\n":
            return spans, found.start()         # torn: the file ends inside it
        spans.append((found.start(), stop))
        end = stop                              # the newline before the next line


def _committed(data: mmap.mmap, blocks: list[tuple[int, int]], end: int,
               module: str) -> list[str]:
    """The change lines of ``module`` before ``end`` and outside ``blocks`` whose batch was
    committed."""
    mark = rb"(?:[ar]\(:\(" + re.escape(module.encode()) + rb",|commit\(|abort\()"
    found = [m.start() + 1 for m in re.compile(rb"\n" + mark).finditer(data, 0, end)]
    if re.match(mark, data):
        found.insert(0, 0)                      # the file's first line: no newline before it
    starts = [start for start, _ in blocks]
    changes: list[str] = []
    pending: list[str] = []
    for at in found:
        k = bisect_right(starts, at) - 1
        if k >= 0 and at < blocks[k][1]:
            continue                            # a line of a block's text
        line_end = data.find(b"\n", at)
        if line_end < 0:
            break                               # a last line torn before its newline
        line = data[at:line_end].decode("utf-8")
        if line.startswith("commit("):
            changes += pending
            pending = []
        elif line.startswith("abort("):
            pending = []
        else:
            pending.append(line)
    return changes
