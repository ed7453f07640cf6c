"""A warm process for the prompt hook, so recall does not pay a cold start before every prompt.

Claude Code starts ``atc hook user-prompt`` anew for every prompt. Cold, one such process
imports numpy and faiss, loads the Prolog rules, opens the home and the vectors, and builds
the day index: most of a second on a 10k-item home, before any search. So the hook first asks
a per-home **recall server** over a Unix socket (``home/hooks/recall.sock``, mode 0600); the
server keeps memory open and answers in milliseconds. When none answers, the hook starts one
(detached) and answers this prompt itself, cold; the next prompt is warm.

The server also captures for the Stop and SessionEnd hooks (:func:`.hooks.capture_warm`):
it keeps where it left each transcript it read (:mod:`~attention_cloud.ingest.resume`, in
this process's memory only), so a turn's capture parses the lines the turn appended, and
the embedder and indexes are already loaded. For that it takes the write lock without
waiting and gives it back when done (another writer at work: it answers that it did not
capture, and the hook's own process captures cold, waiting as usual; a server that dies
mid-capture leaves the journal at its last whole batch, and the hook's process, which got
no answer, captures cold). Otherwise it only reads memory (it writes receipts and the hook's
per-session state), so it never stands in the way of ``atc ingest``; like the MCP server it
follows other writers, and reopens memory, dropping every kept reading, when the journal
was compacted (an erasure). It exits after
:data:`IDLE_S` seconds without a request, when its home is removed, or on ``{"stop": true}``.
One server per home: it holds ``home/hooks/recall.lock`` (flock) while it runs.

On a home whose journal exceeds :data:`COLD_MAX_JOURNAL_BYTES` the hook does not answer cold
(seconds, on a large home): with no server up it starts one and lets that prompt go without
memory. ``ATC_HOOK_SERVER=off`` makes the hook neither ask nor start a server (always cold).
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

#: The server exits after this many seconds without a request.
IDLE_S = 1800

#: How long the hook waits for the server's answer before answering itself.
ANSWER_TIMEOUT_S = 20.0

#: How long the capture hook's process waits for the server's capture (an ingest and a
#: curate) before capturing cold itself (which then waits for the server's write lock).
CAPTURE_TIMEOUT_S = 300.0

_MAX_REQUEST = 8 * 1024 * 1024

#: Above this journal size (about 100k items) a cold process would hold the prompt for
#: seconds: with no server answering, the hook starts one and lets this prompt go without memory.
COLD_MAX_JOURNAL_BYTES = 256 * 1024 * 1024


def socket_path(home: Path) -> Path:
    """Where the home's recall server listens."""
    return home / "hooks" / "recall.sock"


#: The longest path a Unix socket's address holds (sockaddr_un's 108 bytes, less the NUL).
SOCKET_PATH_MAX = 107


@contextlib.contextmanager
def _address(path: Path) -> Iterator[str]:
    """An address for the socket file ``path`` that fits a Unix socket's address: the path
    itself, or, for a home deep in the tree, the same file through ``/proc/self/fd`` of its
    folder (Linux), which binds and connects to exactly that file."""
    if len(os.fsencode(str(path))) <= SOCKET_PATH_MAX:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)


def enabled() -> bool:
    """False when ``ATC_HOOK_SERVER=off`` (or 0/no/false); UsageError for a value that is
    none of :data:`~attention_cloud.environment.SWITCH_WORDS` (a typo, or set to nothing)."""
    from ..environment import SWITCH_WORDS, choice

    return choice("ATC_HOOK_SERVER", SWITCH_WORDS) is not False


def ask(home: Path, message: dict[str, Any], *, timeout: float = ANSWER_TIMEOUT_S) -> dict | None:
    """Send one request to the home's recall server; its answer, or None when none answers."""
    path = socket_path(home)
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        with _address(path) as address:
            sock.connect(address)
        sock.sendall(json.dumps(message).encode("utf-8") + b"\n")
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return json.loads(data.decode("utf-8")) if data else None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def start(home: Path) -> None:
    """Start the home's recall server, detached (it exits at once when one already runs)."""
    if not home.is_dir():
        return
    subprocess.Popen([sys.executable, "-m", "attention_cloud.agents.recall_server", str(home)],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)


def serve(home: Path, *, idle_s: float = IDLE_S) -> None:
    """Serve recall requests for ``home`` until idle for ``idle_s`` seconds (or stopped)."""
    import fcntl

    from .hooks import log, user_prompt
    from .memory_host import MemoryHost

    folder = home / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    lock = open(folder / "recall.lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return                                    # another server has this home
    path = socket_path(home)
    path.unlink(missing_ok=True)                  # a stale socket of a server that died
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)                    # the socket is the user's alone
    try:
        with _address(path) as address:
            server.bind(address)
    except OSError as exc:
        log(home, "recall-server", f"cannot listen on {path}: {exc}; prompts are answered cold")
        server.close()
        lock.close()
        return
    finally:
        os.umask(old_mask)
    server.listen(8)
    server.settimeout(5.0)
    host = MemoryHost(home)
    log(home, "recall-server", f"started pid={os.getpid()}")
    last = time.monotonic()
    try:
        while time.monotonic() - last < idle_s and home.is_dir():
            try:
                conn, _ = server.accept()
            except socket.timeout:
                continue
            last = time.monotonic()
            with conn:
                if not _answer(conn, home, host, user_prompt):
                    break
    finally:
        server.close()
        path.unlink(missing_ok=True)
        host.close()
        log(home, "recall-server", f"stopped pid={os.getpid()}")
        lock.close()


def _answer(conn: socket.socket, home: Path, host: Any, user_prompt: Any) -> bool:
    """Answer one request; False when it asks the server to stop."""
    conn.settimeout(10.0)
    data = b""
    try:
        while len(data) <= _MAX_REQUEST and (chunk := conn.recv(65536)):
            data += chunk
        request = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):     # RecursionError: JSON nested too deep
        return True
    if not isinstance(request, dict):
        return True
    if request.get("stop"):
        conn.sendall(b'{"stopped": true}')
        return False
    if "capture" in request:
        _send(conn, _captured(request["capture"], home, host))
        return True
    # A request this server cannot answer is answered with an error (the hook then answers
    # cold), never by ending the server: `[1]` or an option of the wrong type ended it.
    try:
        options = request.get("options") or {}
        answer = {"output": user_prompt(request.get("payload", ""), home,
                                        budget=int(options.get("budget", 800)),
                                        plane=str(options.get("plane", "default")),
                                        segments=tuple(options.get("segments", ())),
                                        min_score=options.get("min_score"),
                                        memory=host.memory, via="server")}
    except Exception as exc:                          # noqa: BLE001 - the server lives on
        from ..errors import one_line
        from .hooks import log

        # read in the hook log, by a CLI user: the error's CLI words (AtcError.told)
        log(home, "recall-server", f"request not answered: {one_line(exc, 'cli')}")
        answer = {"error": one_line(exc, "cli")}
    _send(conn, answer)
    return True


def _captured(request: Any, home: Path, host: Any) -> dict[str, Any]:
    """The answer to a capture request (:func:`.hooks.capture_warm`); an error is logged and
    answered, and the hook's process captures cold."""
    from ..errors import one_line
    from .hooks import capture_warm, log

    try:
        return capture_warm(request, home, host)
    except Exception as exc:                          # noqa: BLE001 - the server lives on
        log(home, "recall-server", f"capture not done: {one_line(exc, 'cli')}")
        return {"error": one_line(exc, "cli")}


def _send(conn: socket.socket, answer: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(answer).encode("utf-8"))
    except OSError:
        pass    # the asker gave up waiting


def recall(raw: bytes, home: Path, **options: Any) -> str:
    """What the prompt hook prints: the recall server's answer when one runs, else this
    process's own (cold), starting a server for the next prompt."""
    from .hooks import user_prompt

    try:
        text = raw.decode("utf-8") if len(raw) <= _MAX_REQUEST // 2 else None
    except UnicodeDecodeError:
        text = None                               # this process reports what is wrong
    if enabled() and text is not None:
        answer = ask(home, {"payload": text,
                            "options": {**options, "segments": list(options.get("segments", ()))}})
        if answer is not None and "output" in answer:
            return str(answer["output"])
    journal = home / "journal.pl"
    size = journal.stat().st_size if journal.exists() else 0
    if enabled() and text is not None and size > COLD_MAX_JOURNAL_BYTES:
        from .hooks import log

        start(home)
        log(home, "user-prompt", f"no recall server yet; the home ({size >> 20} MiB of journal) "
                                 "is too large to answer cold, so this prompt goes without "
                                 "memory while one starts")
        return ""
    output = user_prompt(raw, home, **options)
    if enabled() and text is not None and size:
        start(home)
    return output


if __name__ == "__main__":  # the detached server process
    serve(Path(sys.argv[1]))
