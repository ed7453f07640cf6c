"""An answer holding a lone surrogate code point (built by a goal: `atom_codes(A, [0xD800])`)
is written as U+FFFD, never a crash.

Memory's own text never holds one (ingest and remember store U+FFFD), but a goal can build
any code: `atc query` (the owner's, and `--as` a grantee's) ended in a Python traceback and
exit 1 in both formats, since such a string cannot be written as UTF-8.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from granted_home import granted_memory

GOAL = "atom_codes(A, [0xD800, 0x41]), string_codes(S, [0xDFFF]), B = [f-A]"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("surrogates"), "L2")
    yield memory
    memory.close()


def test_the_api_answers_replacement_characters(mem):
    from attention_cloud.sharing import reader_query

    for rows in (mem.query(GOAL).rows, reader_query(mem, "bob", GOAL).rows):
        assert rows == [{"A": "\ufffdA", "S": "\ufffd", "B": [["f", "\ufffdA"]]}]
        json.dumps(rows, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("as_bob", [False, True], ids=["owner", "grantee"])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_atc_query_writes_them_and_exits_0(mem, tmp_path, fmt, as_bob):
    argv = [sys.executable, "-m", "attention_cloud.cli", "query", GOAL, "--format", fmt]
    out = subprocess.run(argv + (["--as", "bob"] if as_bob else []), capture_output=True,
                         cwd=tmp_path, timeout=120, env={**os.environ, "ATC_HOME": str(mem.home)})
    assert out.returncode == 0, out.stderr.decode("utf-8", "replace")[-2000:]
    assert "\ufffdA" in out.stdout.decode("utf-8")
