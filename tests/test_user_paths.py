"""The path a user takes: a real folder, a bad config, a mistyped home, a home half built.

CliRunner for most cases, real ``atc`` subprocesses where the entry point itself matters (no
traceback, nothing hangs, --watch keeps going).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import EMBEDDER_SCHEMES, write_config
from attention_cloud.paths import samples_dir

from watching import PipeLines

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SESSION = FIXTURES / "claude_code_session.jsonl"
ATC = str(Path(sys.executable).with_name("atc"))


def run(*args: str, home: Path | None = None, env: dict[str, str] | None = None):
    extra = ["--home", str(home)] if home is not None else []
    return CliRunner().invoke(main, [*args, *extra], env=env, catch_exceptions=False)


def atc(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, **kwargs.pop("env", {})}
    return subprocess.run([ATC, *args], capture_output=True, text=True, timeout=timeout,
                          env=env, **kwargs)


def journal_bytes(home: Path) -> bytes:
    path = home / "journal.pl"
    return path.read_bytes() if path.exists() else b""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A project folder as a user has it: one transcript, memory/MEMORY.md (notes, not a
    transcript), an empty session, a FIFO and a link to /dev/zero."""
    root = tmp_path / "projects" / "x"
    (root / "memory").mkdir(parents=True)
    (root / "a.jsonl").write_bytes(SESSION.read_bytes())
    (root / "memory" / "MEMORY.md").write_text("# Memory\n\n- prefers tabs\n")
    (root / "empty.jsonl").write_text("")
    os.mkfifo(root / "pipe.jsonl")
    (root / "zero.jsonl").symlink_to("/dev/zero")
    return root


# -- 6. a user's folder as it is ------------------------------------------------------------------
def test_a_folder_with_notes_empty_files_and_fifos_ingests_the_rest(home, folder):
    out = run("ingest", str(folder), home=home)
    assert out.exit_code == 0, out.output
    assert "new: 17" in out.stdout
    skipped = {line.split(": ", 1)[0].split()[-1]: line.split(": ", 1)[1]
               for line in out.stderr.splitlines() if line.strip().startswith("skipped")}
    assert skipped == {
        str(folder / "memory" / "MEMORY.md"): "cannot detect format",
        str(folder / "empty.jsonl"): "empty file, nothing to parse",
        str(folder / "pipe.jsonl"): "not a regular file (a FIFO), not read",
        str(folder / "zero.jsonl"): "not a regular file (a character device), not read",
    }
    report = json.loads(run("ingest", str(folder), "--format-output", "json", home=home).stdout)
    assert report["files_unchanged"] == 1 and len(report["files_skipped"]) == 4


def test_strict_keeps_all_or_nothing(home, folder):
    run("ingest", str(SESSION), home=home)
    before = journal_bytes(home)
    out = run("ingest", str(folder), "--strict", home=home)
    assert out.exit_code == 1 and out.output.count("\n") == 1
    assert journal_bytes(home) == before


def test_a_named_bad_file_fails_only_when_nothing_else_is_ingested(home, folder):
    alone = run("ingest", str(folder / "empty.jsonl"), home=home)
    assert alone.exit_code == 1
    assert alone.output == f"atc: {folder / 'empty.jsonl'}: empty file, nothing to parse\n"
    together = run("ingest", str(folder / "a.jsonl"), str(folder / "empty.jsonl"), home=home)
    assert together.exit_code == 0 and "new: 17" in together.stdout
    assert f"skipped {folder / 'empty.jsonl'}: empty file" in together.stderr


def test_a_file_name_with_a_newline_or_an_escape_is_reported_on_one_line(home, tmp_path):
    # before: the report printed file names raw: a name holding a newline split its
    # "skipped" or "note" line in two, a terminal escape (ESC[31m) recoloured the user's
    # terminal, and a named file's one-line error took two lines
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / "emp\nty.jsonl").write_text("")
    (odd / "we\nird\x1b[31m.txt").write_text("User: hi there friend\nAssistant: hello back\n")
    done = run("ingest", str(odd), home=home)
    assert done.exit_code == 0 and "new: 2" in done.stdout
    lines = done.stderr.splitlines()
    assert f"  skipped {odd}/emp\\nty.jsonl: empty file, nothing to parse" in lines
    assert f"  note {odd}/we\\nird\\x1b[31m.txt: 2 of 2 items have no time: the file writes " \
        "none for them" in lines
    assert "\x1b" not in done.stderr
    alone = run("ingest", str(odd / "emp\nty.jsonl"), home=home)
    assert alone.exit_code == 1
    assert alone.output == f"atc: {odd}/emp\\nty.jsonl: empty file, nothing to parse\n"


@pytest.mark.parametrize("name,kind", [("pipe.jsonl", "a FIFO"), ("/dev/zero", "a character device")])
def test_a_fifo_or_device_named_directly_is_one_line_and_never_read(home, folder, name, kind):
    path = name if name.startswith("/") else str(folder / name)
    done = atc("ingest", path, "--home", str(home), timeout=60)   # a read would hang or fill memory
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"atc: {path}: not a regular file ({kind}), not read\n"


def test_a_fifo_named_to_watch_is_reported_not_passed_over(folder):
    """`atc watch pipe.jsonl` said "watching pipe.jsonl" and then nothing, ever: the walk of a
    FIFO named directly failed and was passed over as a file gone mid-walk. Now it is a
    problem the watcher logs once (`skipped PATH: not a regular file (a FIFO), not read`), as
    a FIFO found inside a watched folder is."""
    from attention_cloud.watch.files import FileTable

    fifo = folder / "pipe.jsonl"
    table = FileTable([fifo])
    assert table.scan(time.monotonic()) == set()
    assert table.problems == {fifo: "not a regular file (a FIFO), not read"}


def test_files_over_the_size_limit_are_reported(home, folder, tmp_path):
    out = run("ingest", str(folder), "--max-file-bytes", "100", "--format-output", "json", home=home)
    reasons = {Path(e["file"]).name: e["reason"] for e in json.loads(out.stdout)["files_skipped"]}
    assert reasons["a.jsonl"].startswith(f"{SESSION.stat().st_size} bytes, over the 100 bytes limit")
    other = tmp_path / "other"
    other.mkdir()
    write_config(other, {"max_file_bytes": 100})
    out = run("ingest", str(folder / "a.jsonl"), home=other)
    assert out.exit_code == 1 and "over the 100 bytes limit" in out.output


def test_watch_goes_on_past_an_empty_file_and_ingests_it_when_it_fills(home, folder):
    (folder / "pipe.jsonl").unlink()
    proc = subprocess.Popen([ATC, "ingest", str(folder), "--watch", "--interval", "0.3",
                             "--home", str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    out, err = PipeLines(proc.stdout), PipeLines(proc.stderr)
    try:
        # The file is filled once the first batch has read the folder and skipped it as empty:
        # a fixed four seconds were not always enough for the watcher to start on a loaded
        # machine, and the first batch then read the filled file with the rest (new: 18).
        out.wait_for(lambda lines: any("new: " in line for line in lines), proc, "first batch")
        time.sleep(3)   # ten polls of the empty file
        assert proc.poll() is None, err.lines
        (folder / "empty.jsonl").write_text(json.dumps(
            {"type": "user", "uuid": "w1", "sessionId": "W", "timestamp": "2026-01-01T00:00:00Z",
             "message": {"role": "user", "content": "Add a retry budget to the payment client."}})
            + "\n")
        out.wait_for(lambda lines: any("new: 1 " in line for line in lines), proc,
                     "batch of the filled file")
        time.sleep(1)   # polls after it, which must not read it again
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert out.text().count("new: 1 ") == 1     # the filled file, ingested while watching
    assert err.text().count("empty.jsonl: empty file") == 1   # reported once, not every poll


# -- config.json ----------------------------------------------------------------------------------
@pytest.mark.parametrize("config,message", [
    ("[1, 2]", "must be a JSON object of settings, not an array"),
    ('{"retention": "x"}', 'retention must be an object of days per level such as {"l0": 365}, not "x"'),
    ('{"retention": {"l1": "x"}}', 'retention.l1 must be a number of days (0 or more) or null, not "x"'),
    ('{"echoes": "no"}', 'echoes must be true or false, not "no"'),
    ('{"embedder": "minlm"}', 'embedder must be one of minilm, minilm-q8, hash[:DIM] (DIM 16 or more), '
     'static[:TABLE], none, onnx:PATH, st:NAME or openai:URL?model=M, not "minlm"'),
    # a curator missing what it needs: without a URL curation went on extractive in silence,
    # without a model (or with a URL it cannot call) only `atc curate` failed, later
    ('{"curator": {"model": "m"}}',
     "curator.url is missing: it must be the endpoint's http:// or https:// URL"),
    ('{"curator": {"url": "http://127.0.0.1:9/v1"}}',
     "curator.model is missing: it must be the name of the model to ask"),
    ('{"curator": {"url": "ftp://host/v1", "model": "m"}}',
     'curator.url must be the endpoint\'s http:// or https:// URL, not "ftp://host/v1"'),
    ('{"curator": {"url": "http://127.0.0.1:9/v1", "model": " "}}',
     'curator.model must be the name of the model to ask, not " "'),
])
def test_a_bad_config_is_one_line_naming_the_key(home, config, message):
    (home / "config.json").write_text(config)
    done = atc("stats", "--home", str(home))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"atc: {home / 'config.json'}: {message}\n"


@pytest.mark.parametrize("scheme", [s for s in EMBEDDER_SCHEMES if s != "none"])
def test_every_embedder_the_config_check_takes_is_one_the_loader_builds(scheme):
    """config.json's check lists the embedder names without loading the embed package: a name
    added to the loader but not to the list (or the other way round) would be refused, or
    pass the check and fail at the first search."""
    from attention_cloud.embed.loading import UnknownEmbedder, _build

    try:
        _build(f"{scheme}:" if scheme in ("onnx", "st", "openai") else scheme)
    except UnknownEmbedder:
        pytest.fail(f"{scheme} passes config.json's check but the loader does not know it")
    except Exception:  # noqa: BLE001 - a known scheme missing its path or model is fine here
        pass


def test_a_misspelt_embedder_stops_a_write_before_the_journal_changes(home):
    """It used to pass config.json's check: `atc remember` wrote the item, then failed on its
    curate (exit 2), and a search said "Python UnknownEmbedder: ..." without naming the file."""
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(SESSION), home=home).exit_code == 0
    write_config(home, {"embedder": "hsah"})
    before = journal_bytes(home)
    for args in (("remember", "the staging DB is read-only on Fridays"),
                 ("query", 'nearest("retry", 3, Hits)')):
        done = atc(*args, "--home", str(home))
        assert done.returncode == 1, done
        assert done.stderr.startswith(f"atc: {home / 'config.json'}: embedder must be one of ")
        assert done.stderr.count("\n") == 1 and "Python" not in done.stderr
    assert journal_bytes(home) == before


@pytest.mark.parametrize("spec", ["hash:abc", "hash:8", "hash:-4", "onnx:", "st:",
                                  "openai:http://127.0.0.1:9/v1",
                                  "openai:http://127.0.0.1:9/v1?model=", "minilm:large"])
def test_an_embedder_spec_no_embedder_can_be_built_from_stops_every_command(home, spec):
    # before: only the name before ":" was checked, so "hash:abc" or "hash:8" passed:
    # `atc doctor` said the config was ok, `atc stats` ran, and `atc remember` wrote its item
    # and then failed ("bad hash embedder spec ...", naming no file), the journal changed
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(SESSION), home=home).exit_code == 0
    write_config(home, {"embedder": spec})
    before = journal_bytes(home)
    for args in (("remember", "the staging DB is read-only on Fridays"), ("curate",), ("stats",)):
        done = run(*args, home=home)
        assert done.exit_code == 1, (args, done.output)
        assert done.output.startswith(f"atc: {home / 'config.json'}: embedder ")
        assert done.output.count("\n") == 1 and f'not "{spec}"' in done.output
    assert journal_bytes(home) == before
    assert run("doctor", home=home).exit_code == 1


@pytest.mark.parametrize("spec", ["hash:abc", "minilm:large"])
def test_reembed_to_a_spec_no_embedder_is_built_from_leaves_the_config_alone(home, spec):
    """``atc curate --reembed --embedder SPEC`` names the home's embedder from the switch on:
    a spec config.json's check refuses must not get there, or every later command stops."""
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(SESSION), home=home).exit_code == 0
    done = run("curate", "--reembed", "--embedder", spec, home=home)
    assert done.exit_code == 2
    assert done.output.startswith("atc: embedder must be one of minilm") and \
        done.output.count("\n") == 1
    assert json.loads((home / "config.json").read_text()) == {"embedder": "hash"}


@pytest.mark.parametrize("spec", ["hash", "hash:64", "minilm", "minilm-q8", "none", "static",
                                  "static:/tmp/table.npy", "onnx:/m/model.onnx?vocab=/m/v.txt",
                                  "st:all-MiniLM-L6-v2", "openai:http://127.0.0.1:9/v1?model=m"])
def test_every_documented_embedder_spec_passes_the_config_check(spec):
    from attention_cloud.home import check_config

    assert check_config({"embedder": spec}) == {"embedder": spec}


def test_a_setting_misspelt_in_config_gets_a_note_naming_the_one_meant(home):
    """`"echos": false` was ignored in silence, echo detection running on; a key far from every
    setting (a tool's own) is still kept without a word."""
    write_config(home, {"embedder": "hash", "echos": False, "Retention": {"l0": 1},
                        "my_tool": {"x": 1}, "curator": {"url": "http://x", "model": "m",
                                                         "apikey_env": "K"}})
    done = atc("stats", "--home", str(home), "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["home"] == str(home)
    assert sorted(done.stderr.splitlines()) == [
        f"atc: note: {home / 'config.json'}: Retention is not a setting (did you mean "
        "retention?): it is ignored",
        f"atc: note: {home / 'config.json'}: curator.apikey_env is not a setting (did you "
        "mean curator.api_key_env?): it is ignored",
        f"atc: note: {home / 'config.json'}: echos is not a setting (did you mean echoes?): "
        "it is ignored",
    ]


# -- a home that does not exist -------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("hydrate", "--goal", "x"), ("query", "item(H)"), ("stats",), ("show", "it_0"),
    ("receipt", "r_0"),
])
def test_reading_commands_do_not_create_a_home(tmp_path, args):
    missing = tmp_path / "nowhere"
    out = run(*args, home=missing)
    assert out.exit_code == 1
    assert out.output == (f"atc: {missing}: no memory home here (atc ingest creates one; "
                          "check --home or $ATC_HOME)\n")
    assert not missing.exists()


def test_real_entry_point_refuses_a_missing_home(tmp_path):
    done = atc("hydrate", "--goal", "x", env={"ATC_HOME": str(tmp_path / "nowhere")})
    assert done.returncode == 1 and "no memory home here" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "nowhere").exists()


# -- --home before the command --------------------------------------------------------------------
def test_home_before_the_command_env_and_conflicts(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for home in (a, b):
        assert run("ingest", str(SESSION), home=home).exit_code == 0

    def home_of(*args: str, env: dict[str, str] | None = None) -> str:
        out = CliRunner().invoke(main, [*args], env=env, catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)["home"]

    assert home_of("--home", str(a), "stats", "--format", "json") == str(a)
    assert home_of("stats", "--format", "json", env={"ATC_HOME": str(b)}) == str(b)
    assert home_of("--home", str(a), "stats", "--format", "json", env={"ATC_HOME": str(b)}) == str(a)
    assert home_of("--home", str(a), "stats", "--format", "json", "--home", str(b)) == str(b)
    assert os.environ.get("ATC_HOME") != str(a)  # the group's --home does not leak out
    done = atc("--home", str(a), "stats", "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["home"] == str(a)


# -- 7. say what is missing -----------------------------------------------------------------------
@pytest.fixture
def ingested(home) -> Path:
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(samples_dir()), home=home).exit_code == 0
    return home


def test_hydrate_says_how_many_items_are_not_curated(ingested):
    out = run("hydrate", "--goal", "retry policy", "--format", "json", home=ingested)
    assert out.exit_code == 0
    assert json.loads(out.stdout)["receipt"]["uncurated"] == 47
    assert out.stderr.startswith("atc: note: 47 items are not curated yet")
    assert "`atc curate` builds them" in out.stderr
    assert run("curate", home=ingested).exit_code == 0
    out = run("hydrate", "--goal", "retry policy", "--format", "json", home=ingested)
    receipt = json.loads(out.stdout)["receipt"]
    assert receipt["uncurated"] == 0 and "notes" not in receipt and out.stderr == ""


def test_show_an_uncurated_rung_arcs_and_rollups(ingested):
    handle = json.loads(run("query", "item_kind(H, error)", "--format", "json",
                            home=ingested).stdout)[0]["H"]
    out = run("show", handle, "--level", "L2", home=ingested)
    assert out.exit_code == 1
    assert out.output == (f"atc: {handle}: not curated yet, so it has no L2 (only L0, its text); "
                          "`atc curate` builds L1-L3\n")
    assert run("curate", home=ingested).exit_code == 0
    assert run("show", handle, "--level", "L2", home=ingested).exit_code == 0
    rows = json.loads(run("query", "arc(A), arc_member(A, H), rollup(R, S), item_session(H, S)",
                          "--format", "json", "--limit", "1", home=ingested).stdout)
    arc, rollup, member = rows[0]["A"], rows[0]["R"], rows[0]["H"]
    shown = json.loads(run("show", arc, "--format", "json", home=ingested).stdout)
    assert shown["record"] == "arc" and shown["level"] == "L1" and shown["text"]
    assert member in shown["members"]
    text = run("show", arc, "--level", "L3", home=ingested)
    assert text.exit_code == 0 and f"{member}" in text.stdout.splitlines()[-1]
    shown = json.loads(run("show", rollup, "--format", "json", home=ingested).stdout)
    assert shown["record"] == "rollup" and member in shown["members"]
    assert f"atc: {arc}: an arc has no single source record" in \
        run("show", arc, "--source", home=ingested).output
    assert f"atc: {rollup}: a session rollup has no single source record" in \
        run("show", rollup, "--source", home=ingested).output


def test_budgets_too_small_say_so(ingested):
    assert run("curate", home=ingested).exit_code == 0
    zero = run("hydrate", "--goal", "retry policy", "--budget", "0", home=ingested)
    assert "(budget 0 tokens: no room for any fact; give the frame a budget above 0)" in zero.stdout
    assert "memory holds nothing" not in zero.stdout
    tiny = run("hydrate", "--goal", "retry policy", "--budget", "1", home=ingested)
    assert "no fact fits in 1 token: the smallest skeleton (L3) in memory takes" in tiny.stdout
    assert "no fact fits in 1 token:" in tiny.stderr


def test_an_unknown_segment_names_the_segments_that_exist(ingested):
    out = run("hydrate", "--goal", "x", "--segment", "work=100", home=ingested)
    assert out.exit_code == 2
    assert out.output == "atc: segment work: no such segment (segments in this memory: default)\n"


def test_vectors_of_another_embedder_are_named_and_reembed_rebuilds_them(ingested):
    assert run("curate", home=ingested).exit_code == 0
    write_config(ingested, {"embedder": "hash:256"})
    out = run("hydrate", "--goal", "retry policy", "--format", "json", home=ingested)
    receipt = json.loads(out.stdout)["receipt"]
    assert receipt["path"] == "lexical"
    assert receipt["uncurated"] == 0 and receipt["unembedded"] == 47  # none by meaning
    assert "made by embedder 'hash-v1-512' (512-d), not the configured 'hash-v1-256'" in out.stderr
    assert "`atc curate --reembed`" in out.stderr and receipt["notes"]
    again = run("curate", "--reembed", "--format", "json", home=ingested)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["reembed"]["reembedded"] > 0
    out = run("hydrate", "--goal", "retry policy", "--format", "json", home=ingested)
    assert json.loads(out.stdout)["receipt"]["path"] != "lexical" and out.stderr == ""
