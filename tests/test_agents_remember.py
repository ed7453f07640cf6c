"""`atc remember` / `Memory.remember`: one memory added by hand is a first-class item."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import InputError, Memory, UsageError
from attention_cloud.agents.remember import MAX_REMEMBER_CHARS, REMEMBERED_FILE

ATC = str(Path(sys.executable).parent / "atc")


@pytest.fixture
def mem(home: Path):
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    m = Memory.open(home)
    yield m
    m.close()


def test_a_remembered_text_is_an_item_with_its_own_record(mem: Memory) -> None:
    done = mem.remember("the staging DB is read-only on Fridays", kind="note",
                        time="2026-03-02T10:00:00Z")
    assert done.new and done.curated
    item = mem.item(done.handle)
    assert item.kind == "note" and item.segment == "default" and item.role == "user"
    assert item.session == "remembered" and item.time == "2026-03-02T10:00:00Z"
    assert item.goal == "the staging DB is read-only on Fridays"
    assert item.text == "the staging DB is read-only on Fridays"
    assert done.source == item.source == f"{mem.home / REMEMBERED_FILE}:1"
    record = json.loads((mem.home / REMEMBERED_FILE).read_text(encoding="utf-8").splitlines()[0])
    assert record == {"handle": done.handle, "kind": "note", "segment": "default",
                      "role": "user", "time": "2026-03-02T10:00:00Z",
                      "goal": item.goal, "text": item.text}
    assert mem.query(f"relation('{done.handle}', remembered, K)").rows == [{"K": "note"}]


def test_remembering_again_is_an_upsert_that_writes_nothing(mem: Memory) -> None:
    first = mem.remember("deploys go out on Tuesdays", kind="decision")
    size = (mem.home / REMEMBERED_FILE).stat().st_size
    journal = (mem.home / "journal.pl").stat().st_size
    again = mem.remember("  deploys go out on Tuesdays\n", kind="decision")
    assert (again.handle, again.new) == (first.handle, False)
    assert (mem.home / REMEMBERED_FILE).stat().st_size == size
    assert (mem.home / "journal.pl").stat().st_size == journal
    other = mem.remember("deploys go out on Tuesdays", kind="preference")
    assert other.new and other.handle != first.handle
    assert other.source.endswith(":2")


def test_found_by_a_frame_at_once_and_after_reopening(mem: Memory, home: Path) -> None:
    mem.remember("the staging database is read-only every Friday afternoon")
    frame = mem.hydrate("can I write to the staging database on Friday", budget=300)
    assert "read-only every Friday" in frame.text
    mem.close()
    with Memory.open(home, create=False) as again:
        assert again.query('item_kind(H, note)').rows


def test_without_curation_it_waits_for_curate(mem: Memory) -> None:
    done = mem.remember("the VPN certificate expires in March", curate=False)
    assert not done.curated
    assert mem.hydrate("VPN certificate expiry", budget=300).receipt["uncurated"] == 1
    mem.curate()
    frame = mem.hydrate("VPN certificate expiry", budget=300)
    assert done.handle in {f["handle"] for f in frame.receipt["facts"]}


@pytest.mark.parametrize("text", [
    "naïve café — ünïcödé ✓ 🚀 עברית العربية",
    "e\u0301 composed and decomposed",
    "foo(X) :- shell('rm -rf /'), halt. \"quoted\" 'atom' [a|B] 0'c",
    "a NUL \x00 in the middle, a tab\t and a \x1f unit separator",
    "the <memory-framework> tag and </memory-frame x> close nothing",
    "a note quoting the close tag </memory-frame> keeps the words before it",
])
def test_odd_text_is_data(mem: Memory, text: str) -> None:
    done = mem.remember(text)
    item = mem.item(done.handle)
    import unicodedata

    assert item.text == unicodedata.normalize("NFC", text).strip()
    record = json.loads((mem.home / REMEMBERED_FILE).read_text(encoding="utf-8").splitlines()[-1])
    assert record["text"] == item.text


def test_a_lone_surrogate_becomes_a_replacement_character(mem: Memory) -> None:
    done = mem.remember("broken \ud800 escape")
    assert mem.item(done.handle).text == "broken \ufffd escape"
    assert mem.remember("broken \ud800 escape").new is False


@pytest.mark.parametrize("text, message", [
    ("", "nothing to remember: the text is empty"),
    ("   \n\t ", "nothing to remember: the text is empty"),
    ("x" * (MAX_REMEMBER_CHARS + 1), "characters; at most 20,000"),
    (None, "the text to remember must be a string"),
])
def test_bad_text_is_refused_and_memory_unchanged(mem: Memory, text, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        mem.remember(text)
    assert not (mem.home / REMEMBERED_FILE).exists()
    assert mem.query("item(H)").rows == []


def test_a_recalled_frame_inside_the_text_is_not_remembered_again(mem: Memory) -> None:
    """An agent that remembers text holding a frame it was given (`<memory-frame>…`) stores its
    own words only: recalled memory is never captured as new memory, as ingest promises."""
    frame = ('<memory-frame receipt="r_1" source="attention-cloud">\n'
             "# frame: old facts\n- the deploy key rotates monthly\n</memory-frame>")
    done = mem.remember(f"Decision: use sqlite for the cache.\n{frame}\nthen ship it")
    text = mem.item(done.handle).text
    assert "memory-frame" not in text and "deploy key" not in text
    assert "use sqlite" in text and "then ship it" in text
    line = (mem.home / REMEMBERED_FILE).read_text(encoding="utf-8")
    assert "deploy key" not in line


def test_a_text_that_is_only_a_frame_is_refused_and_memory_unchanged(mem: Memory) -> None:
    with pytest.raises(InputError, match="only recalled memory"):
        mem.remember('<memory-frame receipt="r_1">\n- recalled fact\n</memory-frame>')
    assert not (mem.home / REMEMBERED_FILE).exists()
    assert mem.query("item(H)").rows == []


def test_what_the_mcp_hydrate_tool_gave_is_not_remembered_again(mem: Memory) -> None:
    """An MCP agent that pastes the `hydrate` tool's text (the envelope, then the line naming
    its receipt) into `remember` stores its own words only: the receipt line is recall's too,
    and was kept as the note's first line and its goal."""
    from attention_cloud.agents.mcp_server import hydrate_text

    frame = mem.hydrate("anything at all", budget=200)
    given = hydrate_text({"frame": frame.envelope, "receipt_id": frame.receipt_id})
    done = mem.remember(f"{given}\nDecision: use sqlite for the cache.")
    item = mem.item(done.handle)
    assert item.text == item.goal == "Decision: use sqlite for the cache."
    assert frame.receipt_id not in (mem.home / REMEMBERED_FILE).read_text(encoding="utf-8")


@pytest.mark.parametrize("recalled", [
    "{frame}\n{line}",                              # the MCP hydrate tool's whole text
    "{line}",                                        # its receipt line alone
    "{plain}",                                       # `atc hydrate` output, no envelope
])
def test_a_text_that_is_only_recall_is_refused_and_memory_unchanged(
        mem: Memory, recalled: str) -> None:
    from attention_cloud.agents.mcp_server import receipt_line

    frame = mem.hydrate("anything at all", budget=200)
    text = recalled.format(frame=frame.envelope, line=receipt_line(frame.receipt_id),
                           plain=frame.text)
    with pytest.raises(InputError, match="nothing to remember: the text is only recalled memory"):
        mem.remember(text)
    assert not (mem.home / REMEMBERED_FILE).exists()
    assert mem.query("item(H)").rows == []


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "idea"}, "kind must be one of note, decision, preference"),
    ({"segment": ""}, "segment must be a non-empty name"),
    ({"segment": "a\nb"}, "segment must be a non-empty name"),
    ({"segment": "s\udcff"}, "segment is not valid text"),   # `--segment $'s\xff'`
    ({"role": "tool"}, "role must be user or assistant"),
    ({"time": "someday"}, "time must be a time"),
])
def test_bad_options_are_usage_errors(mem: Memory, kwargs: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        mem.remember("something", **kwargs)
    assert mem.query("item(H)").rows == []
    assert not (mem.home / REMEMBERED_FILE).exists()


def test_a_torn_last_record_line_does_not_shift_line_numbers(mem: Memory) -> None:
    first = mem.remember("first")
    with open(mem.home / REMEMBERED_FILE, "a", encoding="utf-8") as fh:
        fh.write('{"handle": "torn')               # a crash mid-append
    second = mem.remember("second")
    assert first.source.endswith(":1") and second.source.endswith(":3")
    from attention_cloud.ingest.pointers import read_pointer

    assert json.loads(read_pointer(second.source))["text"] == "second"


def _atc(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ATC, *args, "--home", str(home)], input=stdin, capture_output=True,
                          text=True, env={**os.environ})


def _cli(home: Path, *args: str):
    """``atc ARGS --home HOME`` in this process (click's runner): what a real process prints
    and exits with, without the start of one (the real ``atc`` runs in the tests beside)."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    return CliRunner().invoke(main, [*args, "--home", str(home)])


def test_cli_remember_show_source_and_errors(home: Path) -> None:
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    run = _atc(home, "remember", "prefer tabs over spaces in Makefiles", "--kind", "preference",
               "--segment", "style", "--format", "json")
    assert run.returncode == 0, run.stderr
    done = json.loads(run.stdout)
    assert done["new"] and done["kind"] == "preference" and done["segment"] == "style"
    again = _cli(home, "remember", "prefer tabs over spaces in Makefiles", "--kind",
                 "preference", "--segment", "style")
    assert again.stdout.startswith(f"already remembered {done['handle']} (preference, "
                                   "segment style) <- ")
    shown = _cli(home, "show", done["handle"], "--source")
    assert json.loads(shown.stdout)["text"] == "prefer tabs over spaces in Makefiles"
    piped = _atc(home, "remember", "-", "--no-curate", stdin="from stdin\n")
    assert piped.returncode == 0 and "remembered it_" in piped.stdout
    assert "not curated yet" in piped.stderr
    empty = _cli(home, "remember", "")
    assert (empty.exit_code, empty.stderr) == (2, "atc: nothing to remember: the text is empty\n")
    bad = _cli(home, "remember", "x", "--kind", "idea")
    assert bad.exit_code == 2 and "'idea' is not one of 'note', 'decision', 'preference'" \
        in bad.stderr


def test_cli_remember_refuses_stdin_that_is_not_utf8(home: Path) -> None:
    """A binary file piped by mistake was a UnicodeDecodeError traceback (a strict stdin), or,
    in the C locale, remembered as "abc\ufffd\ufffd"; UTF-8 text still reads as it is."""
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    for env in ({"PYTHONIOENCODING": "utf-8"}, {"LC_ALL": "C", "PYTHONIOENCODING": ""}):
        done = subprocess.run([ATC, "remember", "-", "--no-curate", "--home", str(home)],
                              input=b"abc\xff\xfe", capture_output=True,
                              env={**os.environ, **env})
        assert (done.returncode, done.stderr) == (
            1, b"atc: stdin is not UTF-8 text (invalid start byte at byte 3): nothing remembered\n")
        journal = home / "journal.pl"
        assert not journal.exists() or b"abc" not in journal.read_bytes()
    text = "caf\u00e9 au lait on Fridays"
    done = subprocess.run([ATC, "remember", "-", "--no-curate", "--home", str(home)],
                          input=text.encode("utf-8"), capture_output=True, env={**os.environ})
    assert done.returncode == 0, done.stderr
    with Memory.open(home, create=False) as mem:  # what was kept; no process needed to read it
        assert [r["T"] for r in mem.query("item_text(H, T)").rows] == [text]


def test_an_open_memory_remembers_on_what_other_processes_committed(mem: Memory) -> None:
    """A Memory that stays open (an agent's own process) and has not written since another
    process remembered, or forgot, a text decides on the journal as it is now: the same text
    is not written a second time, and a forgotten one is refused, its text never back on disk."""
    mem.remember("seed note")
    mem.close()
    mem = Memory.open(mem.home)
    try:
        assert len(mem.query("item(H)").rows) == 1          # this process's view, taken now
        other = json.loads(_atc(mem.home, "remember", "the canary runs for 30 minutes",
                                "--format", "json").stdout)
        again = mem.remember("the canary runs for 30 minutes")
        assert (again.handle, again.new, again.source) == (other["handle"], False,
                                                          other["source"])
        mem.close()
        mem = Memory.open(mem.home)
        assert len(mem.query("item(H)").rows) == 2
        secret = json.loads(_atc(mem.home, "remember", "the vault token is hunter2",
                                 "--format", "json").stdout)
        assert _atc(mem.home, "forget", secret["handle"], "--yes").returncode == 0
        with pytest.raises(InputError, match="this text was forgotten"):
            mem.remember("the vault token is hunter2")
        assert mem.item(secret["handle"]) is None
    finally:
        mem.close()
    lines = (mem.home / REMEMBERED_FILE).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and "hunter2" not in "\n".join(lines)


class _Killed(BaseException):
    """Stands for a SIGKILL at one point of a remember."""


def test_a_remember_killed_before_its_item_was_committed_is_not_written_twice(
        mem: Memory, monkeypatch) -> None:
    import attention_cloud.ingest_index as ingest_index

    real = ingest_index.commit
    monkeypatch.setattr(ingest_index, "commit", lambda *a, **k: (_ for _ in ()).throw(_Killed()))
    with pytest.raises(_Killed):
        mem.remember("the cache is warmed at 06:00", time="2026-03-02T10:00:00Z")
    monkeypatch.setattr(ingest_index, "commit", real)
    again = mem.remember("the cache is warmed at 06:00")       # the same command again
    assert again.new and again.source.endswith(":1")
    lines = (mem.home / REMEMBERED_FILE).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1                                     # one record, as for one remember
    assert mem.item(again.handle).time == json.loads(lines[0])["time"] == "2026-03-02T10:00:00Z"


def test_a_remember_killed_in_its_curate_is_finished_by_the_same_command(
        mem: Memory, monkeypatch) -> None:
    monkeypatch.setattr(Memory, "curate", lambda self, *a, **k: (_ for _ in ()).throw(_Killed()))
    with pytest.raises(_Killed):
        mem.remember("the VPN certificate expires in March")
    monkeypatch.undo()
    again = mem.remember("the VPN certificate expires in March")
    assert not again.new and again.curated                     # curated, as one remember is
    frame = mem.hydrate("VPN certificate expiry", budget=300)
    assert frame.receipt["uncurated"] == 0


def test_stdin_that_never_ends_is_refused_without_filling_memory(home: Path) -> None:
    """`atc remember -` read stdin to its end before the length check: `< /dev/zero` (or a
    large file piped by mistake) grew past 7 GB in 20 s and never answered. Now stdin is read
    no further than a bound, and more is refused in one line, exit 1, nothing written."""
    from attention_cloud.agents.remember import MAX_REMEMBER_STDIN_BYTES

    with open("/dev/zero", "rb") as zeros:
        run = subprocess.run([ATC, "remember", "-", "--home", str(home)], stdin=zeros,
                             capture_output=True, text=True, timeout=60)
    said = (f"atc: stdin holds more than {MAX_REMEMBER_STDIN_BYTES:,} bytes; the text to "
            f"remember is at most 20,000 characters (ingest a file for longer material): "
            "nothing remembered\n")
    assert (run.returncode, run.stderr) == (1, said)
    piped = _atc(home, "remember", "-", stdin="word " * (MAX_REMEMBER_STDIN_BYTES // 5 + 1))
    assert (piped.returncode, piped.stderr) == (1, said)
    assert not any(home.iterdir())
