"""Claude Code hooks driven by recorded payloads (tests/fixtures/hooks/, in the shape Claude
Code sends): capture after a turn, ambient recall before a prompt, and never an error that
blocks the prompt."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "hooks"
SAMPLE = ROOT / "host" / "attention_cloud" / "samples" / "2026-01-12-processor-retries.jsonl"
ATC = str(Path(sys.executable).parent / "atc")
SEGMENT = "project:home-dev-payments-service"


def payload(name: str, **changes: str) -> str:
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return json.dumps(data)


def hook(home: Path, *args: str, stdin: str | bytes,
         server: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "ATC_HOOK_SERVER": "on" if server else "off"}
    return subprocess.run([ATC, "hook", *args, "--home", str(home)], input=stdin, env=env,
                          capture_output=True, text=isinstance(stdin, str), timeout=120)


def hook_here(home: Path, *args: str, stdin: str) -> subprocess.CompletedProcess:
    """As :func:`hook` (no recall server), in this process through click, as ``atc`` runs it:
    for a test of what the hook decides (its receipt, its log), where the process boundary is
    not what is tested (a real process costs seconds of start-up). The tests of what a real
    hook process prints and exits with use :func:`hook`."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    done = CliRunner().invoke(main, ["hook", *args, "--home", str(home)], input=stdin,
                              env={"ATC_HOOK_SERVER": "off"})
    return subprocess.CompletedProcess(["atc", "hook", *args], done.exit_code, done.stdout,
                                       done.stderr)


def _stats(home: Path) -> dict:
    """What ``atc stats`` reports on ``home`` (the same open and counts), in this process: the
    hooks under test are the real processes, counting what they kept needs none."""
    from attention_cloud import Memory

    with Memory.open(home, create=False) as mem:
        return mem.stats()


def log_lines(home: Path) -> list[str]:
    path = home / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The session-end hook's capture of the sample session into a new home (hash embedder),
    run once for the module (a capture process costs seconds) and left as it made it: (the
    home, the transcript). Tests read and change copies of the home: :func:`captured`,
    :func:`_captured_home`."""
    root = tmp_path_factory.mktemp("hooks")
    home = root / "capture"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    transcript = root / "projects" / "-home-dev-payments-service" / "3b8f2c1e.jsonl"
    transcript.parent.mkdir(parents=True)
    shutil.copy(SAMPLE, transcript)
    run = hook(home, "session-end", "--foreground",
               stdin=payload("session_end", transcript_path=str(transcript)))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    return home, transcript


@pytest.fixture(scope="module")
def captured(capture: tuple[Path, Path]) -> tuple[Path, Path]:
    """A home where the session-end hook captured the sample session (hash embedder), shared
    by the tests that take it (a copy of :func:`capture`'s; a home holds no path of its own),
    and the transcript it captured."""
    home, transcript = capture
    return _captured_home(capture, home.parent / "home"), transcript


def test_session_end_ingests_and_curates_into_the_project_segment(captured) -> None:
    home, transcript = captured
    data = _stats(home)
    assert data["segments"] == {SEGMENT: data["items"]} and data["items"] > 10
    assert "new=" in log_lines(home)[-1] and "curated=" in log_lines(home)[-1]
    again = hook(home, "session-end", "--foreground",
                 stdin=payload("session_end", transcript_path=str(transcript)))
    assert again.returncode == 0
    assert " new=0 " in log_lines(home)[-1]          # incremental: nothing twice


def test_stop_returns_at_once_and_captures_in_the_background(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    transcript = tmp_path / "s.jsonl"
    shutil.copy(SAMPLE, transcript)
    started = time.monotonic()
    run = hook(home, "stop", stdin=payload("stop", transcript_path=str(transcript)))
    assert (run.returncode, run.stdout) == (0, "")
    assert time.monotonic() - started < 10
    deadline = time.monotonic() + 90
    while not any(" new=" in line for line in log_lines(home)):
        assert time.monotonic() < deadline, log_lines(home)
        time.sleep(0.3)
    assert "stop session=3b8f2c1e" in log_lines(home)[-1]


def _receipt(home: Path, run: subprocess.CompletedProcess) -> dict:
    rid = log_lines(home)[-1].split("receipt=")[1].split()[0]
    return json.loads((home / "receipts" / f"{rid}.json").read_text(encoding="utf-8"))


def test_the_sessions_own_transcript_is_not_injected_back(captured) -> None:
    home, transcript = captured
    run = hook(home, "user-prompt", stdin=payload("user_prompt", transcript_path=str(transcript)))
    assert (run.returncode, run.stdout) == (0, "")
    ambient = _receipt(home, run)["ambient"]
    assert ambient["inject"] is False and ambient["own_session"] > 0
    assert ambient["reason"].startswith("nothing new")


def test_the_sessions_own_items_are_known_by_session_id_too(captured) -> None:
    """The transcript was ingested under another path name (a copy, a relative path): the
    items still carry the session's id, so they are still not injected back."""
    home, _ = captured
    run = hook_here(home, "user-prompt", stdin=payload("user_prompt", transcript_path=""))
    assert (run.returncode, run.stdout) == (0, "")
    ambient = _receipt(home, run)["ambient"]
    assert ambient["inject"] is False and ambient["own_session"] > 0


def test_another_session_gets_a_frame_once_then_nothing_new(captured) -> None:
    home, _ = captured
    prompt = payload("user_prompt", session_id="later-session",
                     transcript_path="/home/dev/.claude/projects/x/later-session.jsonl")
    run = hook(home, "user-prompt", stdin=prompt)
    assert run.returncode == 0 and run.stderr == ""
    out = json.loads(run.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    context = out["hookSpecificOutput"]["additionalContext"]
    receipt = _receipt(home, run)
    assert context.startswith(f'<memory-frame receipt="{receipt["id"]}" source="attention-cloud">')
    assert context.rstrip().endswith("</memory-frame>")
    assert "ProcessorClient" in context
    ambient = receipt["ambient"]
    assert ambient["inject"] is True and ambient["best_score"] >= ambient["min_score"]
    assert receipt["budget"]["spent"] <= receipt["budget"]["total"] == 800
    assert {f["segment"] for f in receipt["facts"]} == {SEGMENT}
    injected = {f["handle"] for f in receipt["facts"]}

    again = hook_here(home, "user-prompt", stdin=prompt)    # the real one: the first
    assert (again.returncode, again.stdout) == (0, "")
    second = _receipt(home, again)["ambient"]
    assert second["inject"] is False and second["already_injected"] >= 1
    assert not injected & {f["handle"] for f in _receipt(home, again)["facts"]}


@pytest.mark.parametrize("name, reason", [
    ("user_prompt_unrelated", "under the bar"),
    ("user_prompt_ack", "acknowledgement"),
])
def test_declines_when_nothing_clears_the_bar(captured, name: str, reason: str) -> None:
    home, _ = captured
    run = hook_here(home, "user-prompt", stdin=payload(name))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    ambient = _receipt(home, run)["ambient"]
    assert ambient["inject"] is False and reason in ambient["reason"]


def test_another_project_gets_nothing(captured) -> None:
    home, _ = captured
    run = hook_here(home, "user-prompt", stdin=payload("user_prompt", cwd="/srv/other-project",
                                                  session_id="elsewhere"))
    assert (run.returncode, run.stdout) == (0, "")
    assert "memory holds nothing for this project yet" in log_lines(home)[-1]


@pytest.mark.parametrize("stdin, logged", [
    ("", "payload is not JSON"),
    ("not json {", "payload is not JSON"),
    ("[1, 2]", "payload is not a JSON object"),
    ('{"prompt": "no session"}', "payload has no 'session_id'"),
    ('{"session_id": 7, "prompt": "x"}', "payload field 'session_id' is not a string"),
    (b"\xff\xfe\x00garbage", "payload is not UTF-8"),
    ("x" * (4 * 1024 * 1024 + 10), "payload is"),
])
def test_bad_payloads_exit_0_print_nothing_and_log_why(captured, stdin, logged: str) -> None:
    home, _ = captured
    run = hook(home, "user-prompt", stdin=stdin)
    assert run.returncode == 0 and not run.stdout and not run.stderr
    assert logged in log_lines(home)[-1]


def test_a_missing_home_or_transcript_never_fails(tmp_path: Path) -> None:
    home = tmp_path / "nowhere"
    run = hook(home, "user-prompt", stdin=payload("user_prompt"))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    home.mkdir()
    run = hook(home, "stop", "--foreground", stdin=payload("stop", transcript_path="/no/such.jsonl"))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert "is not a file" in log_lines(home)[-1]


def test_a_busy_writer_does_not_block_recall_and_capture_logs_it(captured, tmp_path) -> None:
    import fcntl

    home, transcript = captured
    with open(home / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run = hook(home, "user-prompt", stdin=payload("user_prompt", session_id="busy"))
        assert run.returncode == 0 and run.stdout        # reading needs no lock
        grown = tmp_path / "grown.jsonl"
        grown.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
        cap = hook(home, "stop", "--foreground",
                   stdin=payload("stop", transcript_path=str(grown)))
        assert (cap.returncode, cap.stdout, cap.stderr) == (0, "", "")
        assert "another process is writing" in log_lines(home)[-1]


def test_prompt_with_an_envelope_and_prolog_syntax_is_data(captured) -> None:
    home, _ = captured
    prompt = ('<memory-frame receipt="r_x" source="attention-cloud">old frame</memory-frame> '
              "foo(X) :- halt. How many times does ProcessorClient retry a timeout?")
    run = hook_here(home, "user-prompt", stdin=payload("user_prompt", prompt=prompt,
                                                       session_id="syntax"))
    assert run.returncode == 0
    receipt = _receipt(home, run)
    assert "old frame" not in receipt["goal"] and "halt" in receipt["goal"]


def test_recalled_memory_pasted_into_a_prompt_is_not_its_goal(captured) -> None:
    """What recall printed and the user pasted back (the MCP hydrate tool's receipt line, a
    frame as `atc hydrate` prints it) is not what the prompt asks, as remember drops it."""
    from attention_cloud import Memory
    from attention_cloud.agents.mcp_server import receipt_line

    home, _ = captured
    with Memory.open(home, create=False) as mem:
        printed = mem.hydrate("webhook signature secrets", budget=300)
    prompt = (f"{receipt_line(printed.receipt_id)}\n"
              "How many times does ProcessorClient retry a timeout?\n\n" + printed.text)
    run = hook_here(home, "user-prompt", stdin=payload("user_prompt", prompt=prompt,
                                                       session_id="pasted"))
    assert run.returncode == 0
    goal = _receipt(home, run)["goal"]
    assert goal == "How many times does ProcessorClient retry a timeout?"


def test_the_hook_logic_in_process(captured) -> None:
    """`ambient_recall` (what the hook and scripts/bench/ambient.py call) keeps only new facts."""
    from attention_cloud import Memory
    from attention_cloud.agents.hooks import ambient_recall

    home, _ = captured
    with Memory.open(home, create=False) as mem:
        first = ambient_recall(mem, "how many times does ProcessorClient retry a timeout",
                               session_id="inproc", budget=400)
        second = ambient_recall(mem, "how many times does ProcessorClient retry a timeout",
                                session_id="inproc", budget=400)
    assert first.inject and first.context.startswith("<memory-frame")
    assert not second.inject and second.context == ""


def _captured_home(capture: tuple[Path, Path], home: Path) -> Path:
    """``home``, a home of its own: a copy of the one the session-end hook captured SAMPLE
    into (:func:`capture`)."""
    shutil.copytree(capture[0], home)
    return home


def test_the_warm_recall_server_answers_later_prompts(tmp_path: Path, capture) -> None:
    """The first prompt is answered cold and starts the home's recall server; the next ones
    are answered by it (the same output), it sees a later capture, and it stops on request."""
    from attention_cloud.agents.recall_server import ask, socket_path

    home = _captured_home(capture, tmp_path / "home")
    try:
        cold = hook(home, "user-prompt", stdin=payload("user_prompt", session_id="w1"),
                    server=True)
        assert cold.returncode == 0 and cold.stdout
        assert any("session=w1 via=process" in line for line in log_lines(home))
        deadline = time.monotonic() + 60
        while not socket_path(home).exists():
            assert time.monotonic() < deadline, log_lines(home)
            time.sleep(0.2)
        warm = hook(home, "user-prompt", stdin=payload("user_prompt", session_id="w2"),
                    server=True)
        assert warm.returncode == 0
        assert json.loads(warm.stdout) == json.loads(cold.stdout.replace(
            _receipt_of(cold.stdout), _receipt_of(warm.stdout)))
        assert any("session=w2 via=server" in line for line in log_lines(home))
        # a note remembered by another process (the journal changed) is seen at once
        subprocess.run([ATC, "remember", "ProcessorClient retries use a jittered backoff",
                        "--segment", SEGMENT, "--home", str(home)], check=True,
                       capture_output=True)
        fresh = hook(home, "user-prompt", stdin=payload(
            "user_prompt", session_id="w3", prompt="does ProcessorClient use jittered backoff"),
            server=True)
        assert "jittered backoff" in fresh.stdout
        assert any("session=w3 via=server" in line for line in log_lines(home))
    finally:
        assert ask(home, {"stop": True}) == {"stopped": True}
    deadline = time.monotonic() + 30
    while socket_path(home).exists():
        assert time.monotonic() < deadline
        time.sleep(0.2)


def _receipt_of(output: str) -> str:
    return output.split('receipt=\\"')[1].split('\\"')[0]


def test_a_large_home_is_not_answered_cold(captured, monkeypatch) -> None:
    """With no server up, a home past the cold limit gets no memory for this prompt (it would
    wait seconds) and a server is started for the next; the log says so."""
    from attention_cloud.agents import recall_server

    home, _ = captured
    started = []
    monkeypatch.setattr(recall_server, "COLD_MAX_JOURNAL_BYTES", 1)
    monkeypatch.setattr(recall_server, "start", started.append)
    monkeypatch.setenv("ATC_HOOK_SERVER", "on")
    out = recall_server.recall(payload("user_prompt", session_id="big").encode(), home)
    assert out == "" and started == [home]
    assert "too large to answer cold" in log_lines(home)[-1]


def test_a_long_pasted_prompt_still_gets_memory_within_the_budget(captured) -> None:
    """A prompt with a pasted stack trace (7 kB) is the frame's goal: the frame's heading
    names it shortened, on one line, so its own lines do not eat the 800-token budget (the
    whole prompt was echoed back and no fact fitted) and the prompt is not injected twice."""
    from attention_cloud.curate.tokens import estimate_tokens

    home, _ = captured
    trace = "\n".join(f'  File "src/payments/processor_client.py", line {n}, in charge\n'
                      '    raise ProcessorTimeout("processor timed out after 10s")'
                      for n in range(60))
    prompt = ("The charge retries fail the tests again: how many times does ProcessorClient "
              f"retry a timeout? Here is the trace:\n{trace}")
    run = hook(home, "user-prompt", stdin=payload("user_prompt", prompt=prompt,
                                                  session_id="pasted-trace"))
    assert run.returncode == 0 and run.stderr == ""
    context = json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    receipt = _receipt(home, run)
    assert receipt["goal"] == prompt.strip() and receipt["facts"]
    assert "ProcessorClient" in context and trace not in context
    heading = context.splitlines()[1]
    assert heading.startswith("memory frame for: The charge retries fail") and len(heading) < 300
    assert estimate_tokens(context) <= receipt["budget"]["total"] == 800


def test_the_recall_server_serves_a_home_whose_socket_path_is_too_long(tmp_path: Path,
                                                                        capture) -> None:
    """A Unix socket's address holds at most 107 bytes: a home deep in the tree (here its
    socket path is over 150) still gets its warm server (it failed to bind, said nothing, and
    every prompt paid a cold start and a server process that died)."""
    from attention_cloud.agents.recall_server import ask, socket_path, start

    home = _captured_home(capture, tmp_path / ("a-long-folder-name-" * 4)
                          / ("another-long-folder-name-" * 2) / "home")
    assert len(str(socket_path(home))) > 150
    start(home)
    try:
        deadline = time.monotonic() + 60
        while not any("recall-server started" in line for line in log_lines(home)):
            assert time.monotonic() < deadline, log_lines(home)
            time.sleep(0.2)
        warm = hook(home, "user-prompt", stdin=payload("user_prompt", session_id="deep"),
                    server=True)
        assert warm.returncode == 0 and "ProcessorClient" in warm.stdout
        assert any("session=deep via=server" in line for line in log_lines(home))
    finally:
        assert ask(home, {"stop": True}) == {"stopped": True}


def test_a_malformed_request_does_not_end_the_recall_server(tmp_path: Path,
                                                             capture) -> None:
    """One request that is not an object (`[1]`), JSON nested past Python's recursion limit, or
    options of the wrong type ended the warm server (an uncaught exception in its loop): every
    later prompt paid a cold start until a hook started another."""
    import socket

    from attention_cloud.agents.recall_server import ask, socket_path, start

    home = _captured_home(capture, tmp_path / "home")
    start(home)

    def send(data: bytes) -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(60)
            sock.connect(str(socket_path(home)))
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            return answer

    try:
        deadline = time.monotonic() + 60
        while not any("recall-server started" in line for line in log_lines(home)):
            assert time.monotonic() < deadline, log_lines(home)
            time.sleep(0.2)
        assert send(b"[1]") == b""
        assert send(b"[" * 100_000 + b"]" * 100_000) == b""
        bad = json.loads(send(json.dumps({"payload": "{}", "options": {"budget": "many"}})
                              .encode()))
        assert "many" in bad["error"] and "output" not in bad
        assert any("request not answered" in line for line in log_lines(home))
        warm = hook(home, "user-prompt", stdin=payload("user_prompt", session_id="after"),
                    server=True)
        assert warm.returncode == 0 and "ProcessorClient" in warm.stdout
        assert any("session=after via=server" in line for line in log_lines(home))
    finally:
        assert ask(home, {"stop": True}) == {"stopped": True}


def _opened_by_another_process(path: Path) -> bool:
    """Whether a process other than this one has ``path`` open (read from /proc)."""
    target = str(path.resolve())
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        if fd_dir.parent.name == str(os.getpid()):
            continue
        try:
            if any(os.readlink(fd) == target for fd in fd_dir.iterdir()):
                return True
        except OSError:  # the process ended or is not ours to read
            continue
    return False


def test_background_capture_waits_for_a_busy_writer(tmp_path: Path) -> None:
    """The Stop hook's detached worker waits for the write lock (the agent does not wait on
    it): a capture that ran into another writer (a parallel session's capture, `atc curate`)
    was dropped, and the last turn of a session that ended then was never captured."""
    import fcntl

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    transcript = tmp_path / "s.jsonl"
    shutil.copy(SAMPLE, transcript)
    with open(home / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run = hook(home, "session-end", stdin=payload("session_end",
                                                      transcript_path=str(transcript)))
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
        # Held until the detached worker has the lock file open (it then polls for it), not
        # for a fixed time: under load the worker can start later than any fixed sleep.
        deadline = time.monotonic() + 60
        while not _opened_by_another_process(home / ".lock"):
            assert time.monotonic() < deadline, "the capture worker never reached the lock"
            time.sleep(0.05)
        time.sleep(0.3)
    deadline = time.monotonic() + 90
    while not any(" new=" in line or "error" in line for line in log_lines(home)):
        assert time.monotonic() < deadline, log_lines(home)
        time.sleep(0.3)
    assert " new=" in log_lines(home)[-1] and "error" not in log_lines(home)[-1]


def test_a_budget_too_small_for_any_fact_is_the_reason_given(captured) -> None:
    """A frame whose budget cannot pay for its own lines and one skeleton holds no fact; the
    hook's decision says so instead of "memory holds nothing"."""
    from attention_cloud import Memory
    from attention_cloud.agents.ambient import decide

    home, _ = captured
    with Memory.open(home) as mem:
        receipt = mem.hydrate("why did the charge retries fail", budget=40).receipt
    assert not receipt["facts"] and receipt["empty"].startswith("no fact fits in 40 tokens")
    decision = decide(receipt, "why did the charge retries fail", already=set(), min_score=0.1)
    assert decision.inject is False and decision.reason == receipt["empty"]


def test_a_prompt_with_a_lone_surrogate_still_gets_memory(captured) -> None:
    """Claude Code writes a lone surrogate (an emoji cut in half by a paste) as ``\\ud83d``
    in the payload's JSON: the hook used to fail on it (a UnicodeEncodeError in hooks.log)
    and the prompt went without memory; it is read as U+FFFD, as `atc remember` reads one."""
    home, _ = captured
    prompt = "\\ud83d how many times does ProcessorClient retry a timeout?"
    raw = json.dumps({**json.loads(payload("user_prompt")), "session_id": "surrogate",
                      "transcript_path": "/home/dev/.claude/projects/x/other.jsonl",
                      "prompt": "PROMPT"}).replace("PROMPT", prompt)
    run = hook(home, "user-prompt", stdin=raw)
    assert (run.returncode, run.stderr) == (0, "")
    assert "error" not in log_lines(home)[-1]
    assert "ProcessorClient" in json.loads(run.stdout)["hookSpecificOutput"]["additionalContext"]
    assert _receipt(home, run)["goal"].startswith("\ufffd how many times")


@pytest.mark.parametrize("args", [
    ["hook", "user-prompt", "--budget", "0"],
    ["hook", "user-prompt", "--min-score", "5"],
    ["hook", "user-prompt", "--option-of-a-newer-atc"],
    ["hook", "stop", "--segment", "x"],
    ["hook", "session-end", "--foreground", "extra-argument"],
    ["hook"],
])
def test_a_command_line_click_refuses_never_exits_2(tmp_path: Path, args: list[str]) -> None:
    """Claude Code takes exit status 2 as a blocking error: on UserPromptSubmit it erases the
    prompt, on Stop it keeps Claude going. click answered a refused command line (a bad
    option in settings.json) with 2, so every prompt was blocked; now: status 0, nothing on
    stdout, the reason in hooks.log."""
    home = tmp_path / "home"
    home.mkdir()
    run = subprocess.run([ATC, "--home", str(home), *args], input=payload("user_prompt"),
                         capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr.startswith("atc: ") and run.stderr.count("\n") == 1
    assert "ran nothing" in log_lines(home)[-1]


def test_a_home_that_is_a_file_never_exits_2(tmp_path: Path) -> None:
    """ATC_HOME naming a file was click's status 2 before any hook code ran."""
    afile = tmp_path / "not-a-home"
    afile.write_text("x")
    for args in (["hook", "user-prompt"], ["hook", "stop"], ["--home", str(afile), "hook",
                                                              "user-prompt"]):
        run = subprocess.run([ATC, *args], input=payload("user_prompt"), capture_output=True,
                             text=True, timeout=120, env={**os.environ, "ATC_HOME": str(afile)})
        assert (run.returncode, run.stdout) == (0, ""), args
        assert "is a file" in run.stderr
    other = subprocess.run([ATC, "hydrate", "x"], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "ATC_HOME": str(afile)})
    assert other.returncode == 2                       # other commands keep click's status


def test_projects_in_other_scripts_are_apart() -> None:
    """README: each run of characters other than letters and digits becomes one ``-``; only
    ASCII letters counted, so ``/home/dev/проект``, ``/home/dev/項目`` and ``/home/dev`` were
    one project, and each one's memory was recalled in the others."""
    from attention_cloud.agents.hooks import project_segment

    names = {project_segment(cwd) for cwd in ("/home/dev/проект", "/home/dev/項目",
                                               "/home/dev")}
    assert names == {"project:home-dev-проект", "project:home-dev-項目", "project:home-dev"}
    assert project_segment("/home/dev/payments_service") == "project:home-dev-payments-service"
    assert project_segment("/home/dev/cafe\u0301") == project_segment("/home/dev/caf\u00e9")


def test_a_deep_working_directory_is_captured_and_recalled(tmp_path: Path) -> None:
    """A cwd whose name passed the 200 characters of a segment name made every capture fail
    (``segment must be ... at most 200 characters`` in hooks.log): nothing was ever kept."""
    from attention_cloud.agents.hooks import project_segment

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    deep = "/srv/" + "/".join(f"a-rather-long-directory-name-{i}" for i in range(8))
    near = deep[:-1] + "X"                           # the same head: still another project
    assert project_segment(deep) != project_segment(near)
    assert len(project_segment(deep)) <= 200
    transcript = tmp_path / "s.jsonl"
    shutil.copy(SAMPLE, transcript)
    run = hook(home, "stop", "--foreground",
               stdin=payload("stop", transcript_path=str(transcript), cwd=deep))
    assert run.returncode == 0 and "error" not in log_lines(home)[-1], log_lines(home)[-1:]
    assert list(_stats(home)["segments"]) == [project_segment(deep)]
    prompt = payload("user_prompt", cwd=deep, session_id="another",
                     transcript_path="/home/dev/.claude/projects/x/another.jsonl")
    recalled = hook(home, "user-prompt", stdin=prompt)
    assert "ProcessorClient" in json.loads(recalled.stdout)["hookSpecificOutput"][
        "additionalContext"]


def test_recall_draws_only_on_the_segments_it_names(tmp_path: Path) -> None:
    """Recall for a prompt names its segments (the project's and the notes', or `--segment`),
    but hydrate gave what they left unspent to every other segment that had relevant
    candidates: another project's memory was injected, under its own heading, and empty
    headings of unrelated segments filled the agent's context. Now the frame holds only the
    named segments."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    from click.testing import CliRunner

    from attention_cloud.cli import main

    for text, segment in (("the staging database is read-only on Fridays", "default"),
                          ("the payments retry backoff is exponential with jitter",
                           "project:srv-other-project"),
                          ("the payments retry backoff was changed in PAY-212", "work")):
        done = CliRunner().invoke(main, ["remember", text, "--segment", segment,
                                         "--home", str(home)])
        assert done.exit_code == 0, done.output
    prompt = "how does the payments retry backoff work, and is staging read-only?"
    for extra in ([], ["--segment", "default"]):
        run = hook_here(home, "user-prompt", *extra,
                        stdin=payload("user_prompt", cwd="/work/app", prompt=prompt,
                                      session_id=f"s{len(extra)}", transcript_path=""))
        assert run.returncode == 0, run.stderr
        receipt = _receipt(home, run)
        assert {f["segment"] for f in receipt["facts"]} <= {"default"}, receipt["facts"]
        assert set(receipt["budget"]["segments"]) == {"default"}, receipt["budget"]
        assert "jitter" not in run.stdout and "PAY-212" not in run.stdout, run.stdout
        assert "## work" not in run.stdout and "srv-other" not in run.stdout, run.stdout
        assert "read-only on Fridays" in run.stdout, run.stdout
