"""Erasure beside other processes: a receipt another process is storing while `atc forget`
runs is neither torn away under its writer nor left holding the forgotten text."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

from attention_cloud import Memory
from test_erasure import SECRET, curated, files_holding  # noqa: F401 - the fixture


# a receipt being stored by another process: the lock a save holds, its file half written
HOLDER = """
import fcntl, json, os, sys
folder = sys.argv[1]
fd = os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
tmp = os.path.join(folder, f"r_00000000000000aa.{os.getpid()}-1.tmp")
with open(tmp, "w") as out:
    json.dump({"id": "r_00000000000000aa", "goal": sys.argv[2], "facts": []}, out)
print("held", flush=True)
sys.stdin.readline()
os.replace(tmp, os.path.join(folder, "r_00000000000000aa.json"))
"""


def test_forget_waits_for_a_receipt_being_stored_and_then_redacts_it(curated):
    # `atc forget` swept receipts/*.tmp as a killed save's leftovers, also the file a live
    # `atc hydrate` was about to rename: that hydrate failed, or its receipt landed after the
    # redaction, holding the forgotten text
    home, _, secret = curated
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(home / "receipts"),
                               f"Please store the {SECRET} password"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    done: list[BaseException | None] = []

    def forget() -> None:
        try:
            with Memory.open(home) as mem:
                mem.forget([secret])
            done.append(None)
        except BaseException as exc:  # noqa: BLE001 - reported below
            done.append(exc)

    try:
        assert holder.stdout.readline().strip() == "held"
        worker = threading.Thread(target=forget)
        worker.start()
        deadline = time.monotonic() + 120
        while not (home / "erasure.pending.json").exists() and worker.is_alive():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.5)  # the erasure is at its redaction now
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.wait(timeout=60) == 0  # its file was there to rename
        worker.join(timeout=300)
    finally:
        if holder.poll() is None:
            holder.kill()
    assert done == [None]
    assert files_holding(home, SECRET) == []
