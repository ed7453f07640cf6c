"""`Memory.receipt(ID)`: a stored receipt read back through the Python API, as `atc receipt ID`
prints it, from the process that framed it or any other (an agent that kept the receipt id of
a turn, a reviewer reading a hook's frame). Before, only the CLI, the MCP resource and an
internal module read one."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import InputError, UsageError

SAMPLE = (Path(__file__).resolve().parents[1] / "host" / "attention_cloud" / "samples"
          / "2026-01-12-processor-retries.jsonl")


@pytest.fixture(scope="module")
def framed(tmp_path_factory) -> tuple[Path, dict]:
    home = tmp_path_factory.mktemp("receipt") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([str(SAMPLE)])
        mem.curate()
        frame = mem.hydrate("why do processor retries fail", budget=400)
        assert mem.receipt(frame.receipt_id) == frame.receipt
    return home, frame.receipt


def test_another_process_reads_the_receipt_a_frame_stored(framed) -> None:
    home, receipt = framed
    code = ("import json, sys\nfrom attention_cloud import Memory\n"
            "with Memory.open(sys.argv[1], create=False) as mem:\n"
            "    print(json.dumps(mem.receipt(sys.argv[2])))\n")
    done = subprocess.run([sys.executable, "-c", code, str(home), receipt["id"]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == receipt


def test_an_unknown_or_malformed_id_is_one_clear_error(framed) -> None:
    home, _ = framed
    with Memory.open(home, create=False) as mem:
        with pytest.raises(InputError, match=r"^r_0000000000000000: no such receipt in "):
            mem.receipt("r_0000000000000000")
        with pytest.raises(InputError, match=r"^\.\./config: not a receipt id$"):
            mem.receipt("../config")
        with pytest.raises(UsageError, match=r"^receipt_id must be a string, not 5 \(int\)$"):
            mem.receipt(5)
