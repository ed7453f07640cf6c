"""Shared fixtures: a fresh memory home per test, the process-wide Prolog engine, copies of
homes built once per process; and the order scripts/test's workers take the files in."""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Where the byte-code of every Python process the suite starts is kept (a mirror tree, outside
#: the source folders; gitignored). The suite starts hundreds of `atc` and script processes:
#: without byte-code each compiled the package from source again, about 0.2-0.4 s of CPU a start
#: (BENCHMARKS.md, "The suite's wall time", round 30). Set before any process is started, so
#: every child inherits it, under scripts/test or a plain pytest; PYTHONDONTWRITEBYTECODE would
#: turn it off. The prefix hides the byte-code pip compiled beside the installed modules: it is
#: linked in, and under pytest-xdist the project's files are compiled before the workers start
#: (pytest_configure, pytest_sessionstart: tests/pycache_fill.py), so that a clean clone pays
#: each compile once, not once per worker (BENCHMARKS.md, round 35, qa218).
PYCACHE = ROOT / ".local" / "pycache"
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ.setdefault("PYTHONPYCACHEPREFIX", str(PYCACHE))
sys.dont_write_bytecode = False
sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]

import pycache_fill  # noqa: E402  (tests/: a helper of this file)

# A suite started with Ctrl-C ignored (a background job of a non-interactive shell, nohup)
# handed that to every `atc` it started, and the tests that interrupt one waited on a process
# that never saw it (test_interrupts: minutes at full CPU, then a timeout). A handled signal is
# reset to its default in a child, an ignored one is not: handle it here, so children see the
# Ctrl-C a user's terminal would send them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: The cache of derived files (MiniLM's faster form, the compiled rules: paths.cache_dir), fixed
#: for every process the suite starts to the one this user's `scripts/setup` filled. Tests that
#: hand a child a home folder of its own (the README's blocks and python blocks) otherwise sent it
#: to `<that folder>/.cache`, empty: each such child derived MiniLM's form again (about 7 s of
#: CPU) and compiled the rules from source (about 0.8 s). The tests of where the cache goes
#: unset it themselves.
from attention_cloud.paths import cache_dir  # noqa: E402  (after the byte-code settings)

os.environ.setdefault("ATC_CACHE", str(cache_dir()))

#: The test files that take longest (a run of scripts/test with --durations: each file's tests
#: summed, round 34 at main f2017340, less what rounds 34 and 35 took out of them; the serial
#: pass's tests not counted), longest first: here 9-80 s each, most of it in `atc` processes and
#: soaks. scripts/test spreads whole files over worker processes in the order they are
#: collected: a long file handed out last would run alone while the other workers sit idle, so
#: under workers these start first. Only the order changes.
LONGEST_FILES_FIRST = (
    "test_readme_commands.py",
    "test_crash.py",
    "test_ingest_fuzz_cli.py",
    "test_concurrent_home.py",
    "test_sandbox_corpus.py",
    "test_long_reader.py",
    "test_bridge_soak.py",
    "test_embed_derived.py",
    "test_agent_loop_soak.py",
    "test_prolog_suites.py",
    "test_rules_cache.py",
    "test_readers.py",
    "test_watch.py",
    "test_bench_reader_soak.py",
    "test_frame_json.py",
    "test_sandbox_escapes.py",
    "test_bench_nearest.py",
    "test_closed_output.py",
    "test_first_answers.py",
    "test_bench_stop_soak.py",
)


def pytest_ignore_collect(collection_path, config):
    """The serial pass (``-m serial``) skips importing test files that mark no test serial:
    collecting all of them costs about 10 s of CPU to select a handful."""
    if (config.option.markexpr or "").strip() != "serial":
        return None
    if (collection_path.suffix == ".py" and collection_path.name.startswith("test_")
            and "mark.serial" not in collection_path.read_text(encoding="utf-8")):
        return True
    return None   # the others (--ignore) decide


def pytest_configure(config):
    """The prefix hides the byte-code pip compiled beside the installed modules: the pytest
    process that runs or hands out the tests links it in (its workers find it there)."""
    if not hasattr(config, "workerinput"):
        pycache_fill.link_installed_bytecode(Path(sys.pycache_prefix),
                                             pycache_fill.installed_roots())


def pytest_sessionstart(session):
    """Under pytest-xdist, before the workers start (xdist starts them in a later
    ``pytest_sessionstart``): compile the package's and the tests' modules once, in parallel, so
    that on a clean clone each worker does not compile the same files at the same moment."""
    config = session.config
    if hasattr(config, "workerinput") or not config.pluginmanager.has_plugin("dsession"):
        return
    here = config.invocation_params.dir
    test_paths = [here / arg.split("::")[0] for arg in config.args]
    pycache_fill.compile_project(config, [ROOT / "host", ROOT / "tests"],
                                 [p for p in test_paths if p.exists()],
                                 min(os.cpu_count() or 1, int(config.option.numprocesses)))


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist workers, the files of LONGEST_FILES_FIRST come first (a stable sort:
    every worker collects the same order, and a file's tests keep theirs)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    rank = {name: i for i, name in enumerate(LONGEST_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def pl():
    """The embedded Prolog engine (one per process, rules loaded)."""
    from attention_cloud.bridge import get_prolog

    return get_prolog()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty memory home directory for one test."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def hash_home_and_session(home: Path, tmp_path: Path) -> tuple[Path, Path]:
    """An empty home with the ``hash`` embedder, not opened (for tests of real processes),
    and a copy of a sample Claude Code session to capture into it."""
    import shutil

    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    transcript = tmp_path / "session.jsonl"
    shutil.copy(Path(__file__).resolve().parents[1] / "host" / "attention_cloud" / "samples"
                / "2026-01-12-processor-retries.jsonl", transcript)
    return home, transcript


@pytest.fixture
def children_tmpdir(tmp_path: Path, monkeypatch) -> Path:
    """The temporary folder of every process this test starts from now on (``TMPDIR``) and of
    this one's :mod:`tempfile`: an empty folder of the test's own, for the test to find empty
    at its end. Scripts and bench runs that left a folder in /tmp each time they ran left
    dozens behind every suite run."""
    import tempfile

    folder = tmp_path / "children-tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def memory(home: Path):
    """A Memory opened on a fresh home, closed after the test."""
    from attention_cloud import Memory

    mem = Memory.open(home)
    yield mem
    mem.close()


@pytest.fixture
def hash_memory(home: Path):
    """A Memory opened on a fresh home with the ``hash`` embedder (no model to load), closed
    after the test."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    write_config(home, {"embedder": "hash"})
    mem = Memory.open(home)
    yield mem
    mem.close()


@pytest.fixture
def home_from_journal(tmp_path: Path):
    """Make a home (``hash`` embedder) whose journal is a copy of a fixture journal written by
    earlier code: ``home_from_journal(FIXTURE / "journal.pl")``."""
    import shutil

    from attention_cloud.home import write_config

    def make(journal: Path) -> Path:
        path = tmp_path / "home"
        path.mkdir()
        shutil.copy(journal, path / "journal.pl")
        write_config(path, {"embedder": "hash"})
        return path

    return make


@pytest.fixture(scope="session")
def curated_hash_memory():
    """Make a Memory on a new home under a folder (the ``hash`` embedder: no model to load)
    with transcripts ingested and curated, for the caller to close:
    ``curated_hash_memory(tmp_path, transcript)``."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    def make(root: Path, *transcripts: Path):
        home = root / "home"
        home.mkdir()
        write_config(home, {"embedder": "hash"})
        mem = Memory.open(home)
        mem.ingest(list(transcripts))
        mem.curate()
        return mem

    return make


@pytest.fixture
def durable_writes(monkeypatch) -> list[tuple[str, str]]:
    """The fsyncs (``home.fsync_path``, as ``("fsync", name)``) and renames (``os.replace``,
    as ``("replace", target name)``) made from now on in this test, in order: a file replaced
    durably shows its temporary file's fsync, its rename, then its folder's fsync."""
    from attention_cloud import home as home_module

    events: list[tuple[str, str]] = []
    real_fsync, real_replace = home_module.fsync_path, os.replace
    monkeypatch.setattr(home_module, "fsync_path",
                        lambda path: (events.append(("fsync", Path(path).name)), real_fsync(path)))
    monkeypatch.setattr(os, "replace",
                        lambda a, b: (events.append(("replace", Path(b).name)), real_replace(a, b)))
    return events


@pytest.fixture(scope="session")
def built_home(tmp_path_factory):
    """A copy of a home built once per test process: ``built_home(key, build, dest)`` calls
    ``build(folder)`` the first time ``key`` is asked for (it must make a home in ``folder``
    and leave it closed), then copies that home into ``dest`` (which may be an empty folder)
    for this and every later caller and returns ``dest``. Ingesting and curating the same
    transcripts for each test of a file cost a second or more a test; a copy costs
    milliseconds, and each test still changes a home of its own (a home holds no absolute
    path of its own, so a copy works as built)."""
    import shutil

    built: dict[str, Path] = {}

    def copy(key: str, build, dest: Path) -> Path:
        if key not in built:
            folder = tmp_path_factory.mktemp("built") / "home"
            build(folder)
            built[key] = folder
        shutil.copytree(built[key], dest, dirs_exist_ok=True)
        return dest

    return copy


def _curate_the_samples(home: Path) -> None:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from attention_cloud.paths import samples_dir

    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()])
        mem.curate()


@pytest.fixture
def curated_samples(home: Path, built_home):
    """A Memory on ``home``, a copy of a home holding the bundled sample sessions ingested and
    curated (``hash`` embedder), closed after the test."""
    from attention_cloud import Memory

    mem = Memory.open(built_home("samples-hash-curated", _curate_the_samples, home))
    yield mem
    mem.close()


@pytest.fixture
def curated_samples_home(home: Path, built_home) -> Path:
    """As ``curated_samples`` (the same built home, copied into ``home``), left closed: for a
    test whose own process or child opens it."""
    return built_home("samples-hash-curated", _curate_the_samples, home)
