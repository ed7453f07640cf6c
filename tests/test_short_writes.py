"""numpy writes its arrays (the BM25 snapshot's postings, cells' rows) with C's fwrite: on a
full disk it raises ``OSError: 27847 requested and 4064 written``, with no errno. Found by
scripts/bench/disk_faults.py: `atc ingest` of a large folder onto a disk with 1.5 MB left
ended in a traceback ending in that line, exit 1. Such a write is a refused write like any
other: one line, and a watcher goes on."""
from __future__ import annotations

import subprocess
import sys

#: In a process whose files may not grow past 64 kB (RLIMIT_FSIZE, as a full disk refuses):
#: numpy writes 1 MB through the CLI's error handling, which prints what a user sees.
_CAPPED_NUMPY_WRITE = """
import resource, sys, tempfile
from pathlib import Path
import numpy as np
from attention_cloud.cli import _explaining_errors
from attention_cloud.errors import write_refused

resource.setrlimit(resource.RLIMIT_FSIZE, (65536, resource.RLIM_INFINITY))
scratch = tempfile.TemporaryDirectory()   # removed as the process exits
path = Path(scratch.name) / "postings.npy"
try:
    np.save(path, np.zeros(250_000, dtype=np.int32))
except OSError as exc:
    print("refused:", bool(write_refused(exc)))
try:
    _explaining_errors(np.save, path, np.zeros(250_000, dtype=np.int32))
except Exception as exc:
    print(type(exc).__name__, exc)
"""


def test_a_numpy_write_cut_short_is_a_refused_write_in_one_line(children_tmpdir):
    out = subprocess.run([sys.executable, "-c", _CAPPED_NUMPY_WRITE], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    refused, said = out.stdout.strip().splitlines()
    assert refused == "refused: True"
    assert said.startswith("OneLineError a write of the memory home was cut short ("), said
    assert "requested" in said and "run the command again once the file system takes writes" \
        in said, said
    assert list(children_tmpdir.iterdir()) == []   # its scratch folder removed
