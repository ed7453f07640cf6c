"""A writer that takes the home's write lock on a full disk does not keep it.

The lock's file names the writer's pid, for the message another writer gets. On a full disk
(or under a file-size limit) that note is refused; ``WriteLock.acquire`` raised then, the lock
already taken. A caller that took the failed acquire for no lock kept it: the recall server,
whose capture of a turn met a full disk, held the home's write lock until its next capture
(every ``atc curate``, ``atc remember`` and the hook's own capture waited or was refused,
naming no one). Found on a full tmpfs: the hook's capture process waited 28 s on it."""
from __future__ import annotations

import os
import subprocess
import sys

ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "ATC_LOCK_WAIT": "0"}

_SERVER_CAPTURE = """
import resource, sys
from pathlib import Path
from attention_cloud.agents.hooks import capture_warm
from attention_cloud.agents.memory_host import MemoryHost

home, transcript = Path(sys.argv[1]), sys.argv[2]
host = MemoryHost(home)
host.memory()                                   # the server's warm memory, opened with room
resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))   # then the disk fills
try:
    capture_warm({"event": "stop", "session_id": "s1", "transcript_path": transcript,
                  "cwd": "/home/dev/app"}, home, host)
    print("captured", flush=True)
except Exception as exc:                        # the server logs it and lives on
    print("refused", type(exc).__name__, flush=True)
sys.stdin.readline()                            # alive, as a server is, while others write
host.close()
"""


def test_a_capture_refused_by_a_full_disk_lets_the_write_lock_go(hash_home_and_session) -> None:
    home, transcript = hash_home_and_session
    server = subprocess.Popen([sys.executable, "-c", _SERVER_CAPTURE, str(home),
                               str(transcript)], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = server.stdout.readline().split()
        assert said[:1] == ["refused"], (said, server.stderr.read() if not said else "")
        other = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "remember",
                                "the deploy window closes at five", "--no-curate", "--home",
                                str(home)], capture_output=True, text=True, timeout=120,
                               env=ENV)
    finally:
        server.communicate("\n", timeout=60)
    assert other.returncode == 0, other.stderr
