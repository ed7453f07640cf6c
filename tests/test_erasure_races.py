"""Erasure beside other processes: a receipt another process is storing while `atc forget`
runs is neither torn away under its writer nor left holding the forgotten text."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

from attention_cloud import Memory
from attention_cloud.agents.hooks import log
from test_erasure import ROOT, SECRET, curated, files_holding  # noqa: F401 - the fixture


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


# a hook process logging line after line while the erasure rewrites hooks.log
LOGGER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from attention_cloud.agents.hooks import log
home, stop = Path(sys.argv[2]), Path(sys.argv[3])
n = 0
while not stop.exists():
    log(home, "prompt", f"line {n}")
    n += 1
    time.sleep(0.0005)  # well under the size that rotates the log
log(home, "prompt", f"line {n}")
print(n + 1)
"""


def test_hook_lines_logged_while_forget_redacts_the_log_are_all_kept(curated, tmp_path):
    # the hooks appended to hooks.log without its lock while `atc forget` rewrote it (read,
    # redact, rename over): a line appended between the read and the rename went to the
    # replaced file and was lost
    home, _, _ = curated
    stop = tmp_path / "stop"
    logger = subprocess.Popen([sys.executable, "-c", LOGGER, str(ROOT / "host"), str(home),
                               str(stop)], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (home / "hooks.log").exists() or \
                "line 50\n" not in (home / "hooks.log").read_text(encoding="utf-8"):
            assert time.monotonic() < deadline and logger.poll() is None
            time.sleep(0.01)
        with Memory.open(home) as mem:
            texts = {r["H"]: r["T"] for r in mem.query("item_text(H, T)").rows}
            for handle, text in sorted(texts.items())[:4]:  # each rewrites the log: it quotes
                log(home, "prompt", f"quoted {text}")        # the item forgotten
                mem.forget([handle])
    finally:
        stop.touch()
        written = int(logger.communicate(timeout=60)[0])
    lines = (home / "hooks.log").read_text(encoding="utf-8").splitlines()
    logged = {line.rsplit(" ", 1)[-1] for line in lines if " prompt line " in line}
    assert logged == {str(n) for n in range(written)}


# `atc forget` killed (SIGKILL) right after it wrote its plan, before any file was redacted
KILLED_FORGET = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory, erasure
erasure.redact_home_files = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
with Memory.open(sys.argv[2]) as mem:
    mem.forget([sys.argv[3]])
"""


def test_doctor_names_an_interrupted_erasure_until_it_is_finished(curated):
    # after a kill mid-forget the text was still on disk, and `atc doctor` said nothing of it
    from click.testing import CliRunner

    from attention_cloud.cli import main

    home, _, secret = curated
    killed = subprocess.run([sys.executable, "-c", KILLED_FORGET, str(ROOT / "host"), str(home),
                             secret], timeout=300)
    assert killed.returncode == -9 and files_holding(home, SECRET)
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert doctor.exit_code == 0
    assert "erasure interrupted" in doctor.output and "1 item" in doctor.output
    done = CliRunner().invoke(main, ["forget", secret, "--yes", "--home", str(home)])
    assert done.exit_code == 0, done.output
    assert files_holding(home, SECRET) == []
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert doctor.exit_code == 0 and "erasure" not in doctor.output
