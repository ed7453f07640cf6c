"""What every memory benchmark shares: the run's provenance, markdown tables, cached corpora and
homes, and the BENCHMARKS.md section writer.

Contents:
    run_header          command line, machine, SWI-Prolog version and bridge backend, as markdown
    markdown_table      rows as a GitHub markdown table
    percentile_ms       a latency percentile in milliseconds
    rss_mb, peak_rss_mb resident memory of this process (now, and its high-water mark)
    CpuClock            wall and CPU seconds of a block
    WorkFolder          a run's scratch folder, removed at its end unless worth keeping
    corpus              a generated corpus of N items (cached under .local/bench-cache/)
    build_home          a memory home ingested (and optionally curated) from a corpus, cached
    update_benchmarks   replace one "### sub-heading" of a "## section" in BENCHMARKS.md

Cached corpora and homes live under ``.local/bench-cache/`` (gitignored). A cached home records
the git revision that built it; ``--rebuild`` in the benchmarks ignores the cache.
"""
from __future__ import annotations

import json
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

CACHE = ROOT / ".local" / "bench-cache"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"


# -- provenance -----------------------------------------------------------------------------------
def command_line() -> str:
    """The exact command that is running, relative to the repository root."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = script.relative_to(ROOT)
    except ValueError:
        shown = script
    return shlex.join([".venv/bin/python", str(shown), *sys.argv[1:]])


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return float("nan")


def git_revision() -> str:
    """Short commit of the working tree, with ``+dirty`` when product files differ from it."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "host", "rules", "facts"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


def machine() -> dict[str, Any]:
    """Machine, Prolog and bridge facts for a report (starts the Prolog engine)."""
    from attention_cloud.bridge import get_prolog

    pl = get_prolog()
    return {
        "nproc": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)),
        "ram_gb": round(_ram_gb(), 1),
        "cpu": _cpu_model(),
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "python": platform.python_version(),
        "swipl": pl.version,
        "bridge": pl.backend,
        "git": git_revision(),
    }


def run_header(title: str) -> str:
    """A markdown preamble: what ran, where, on which Prolog and bridge."""
    m = machine()
    return (f"**{title}** — `{command_line()}`\n\n"
            f"Machine: {m['nproc']} CPUs ({m['affinity']} usable), {m['ram_gb']} GB RAM, {m['cpu']}; "
            f"load average at start {m['load']}. Python {m['python']}, SWI-Prolog {m['swipl']}, "
            f"bridge backend {m['bridge']}, product at git {m['git']}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.\n")


# -- numbers and tables ---------------------------------------------------------------------------
def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub markdown table; floats keep the precision they were formatted with."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def percentile_ms(seconds: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (linear interpolation) of durations, in milliseconds."""
    import numpy as np

    return 1000.0 * float(np.percentile(np.asarray(seconds, dtype=float), q)) if seconds else float("nan")


def rss_mb() -> float:
    """Resident set size of this process now, in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def peak_rss_mb() -> float:
    """The resident set high-water mark of this process, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_seconds() -> tuple[float, float]:
    """CPU seconds of this process and of its finished children (worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


@dataclass
class CpuClock:
    """``with CpuClock() as c: ...`` then ``c.wall``, ``c.cpu`` (CPU seconds of this process and
    of child processes that finished inside the block, e.g. parse workers) and ``c.child_cpu``."""

    wall: float = 0.0
    cpu: float = 0.0
    child_cpu: float = 0.0
    _start: tuple[float, float, float] = field(default=(0.0, 0.0, 0.0), repr=False)

    def __enter__(self) -> "CpuClock":
        self._start = (time.perf_counter(), *_cpu_seconds())
        return self

    def __exit__(self, *exc: object) -> None:
        own, kids = _cpu_seconds()
        self.wall = time.perf_counter() - self._start[0]
        self.child_cpu = kids - self._start[2]
        self.cpu = own - self._start[1] + self.child_cpu


class WorkFolder:
    """A run's scratch folder (homes, logs): a new one in the temporary folder, removed when
    the run ends, unless the run found something worth a look there (:meth:`keep`: a hang's
    stacks, a failed check), it ended on an exception, or the caller named a folder of its own
    (``--keep DIR``: made if needed, never removed). A kept folder is named on stdout. A run
    that kept its folder whatever happened left one in the temporary folder each time, the
    test suite's runs included.

        with WorkFolder("atc-stop-soak-", args.keep) as work:
            ...
            if hangs:
                work.keep(f"{hangs} hang(s)")
    """

    def __init__(self, prefix: str, named: Path | None = None) -> None:
        self.prefix, self.named = prefix, named
        self.reasons: list[str] = []
        self.path = named if named is not None else Path()

    def __enter__(self) -> "WorkFolder":
        if self.named is not None:
            self.named.mkdir(parents=True, exist_ok=True)
        else:
            self.path = Path(tempfile.mkdtemp(prefix=self.prefix))
        return self

    def keep(self, why: str) -> None:
        """Keep the folder at the end, for ``why`` (said with its name)."""
        self.reasons.append(why)

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            self.keep(f"the run ended on {kind.__name__}")
        if self.named is None and not self.reasons:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        print(f"work folder kept ({'; '.join(self.reasons) or '--keep'}): {self.path}",
              flush=True)


def progress(message: str) -> None:
    """A progress line on stderr (the report goes to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- cached corpora and homes ---------------------------------------------------------------------
def corpus(items: int, seed: int = 1, *, rebuild: bool = False) -> Path:
    """The folder of a generated corpus of ``items`` items (gen_corpus.py), made once and kept."""
    from gen_corpus import generate

    folder = CACHE / f"corpus-{items}-s{seed}"
    done = folder / ".complete.json"
    if done.exists() and not rebuild:
        return folder / "data"
    if folder.exists():
        shutil.rmtree(folder)
    progress(f"generating a corpus of {items} items (seed {seed})")
    stats = generate(items, folder / "data", seed)
    done.write_text(json.dumps({"items": stats.items, "files": stats.files, "records": stats.records,
                                "bytes": stats.bytes}), encoding="utf-8")
    return folder / "data"


def corpus_stats(folder: Path) -> dict[str, int]:
    """What :func:`corpus` wrote: items, files, records, bytes."""
    return json.loads((folder.parent / ".complete.json").read_text(encoding="utf-8"))


def doctor_unclean(home: Path) -> str | None:
    """Why ``atc doctor`` on ``home`` is not clean (it fails, or names a problem), or None.

    The doctor's checks run in this process (what ``atc doctor`` prints is their lines, and
    it exits 1 when they fail): they read the home's files only, and a process of its own
    would add no more than a start of Python and SWI-Prolog (about 1.2 s of CPU) to a soak
    that has just run the commands under test.
    """
    from attention_cloud.doctor import PROBLEM_WORDS, run_doctor

    ok, lines = run_doctor(str(home))
    problems = [line.strip() for line in lines if any(word in line for word in PROBLEM_WORDS)]
    if not ok or problems:
        return f"exit {0 if ok else 1}: {'; '.join(problems) or lines[-1]}"
    return None


#: Largest corpus ingested with one ``Memory.ingest`` call when building a home.
ONE_CALL_ITEMS = 200_000
#: Files (about 100 items each) per ``Memory.ingest`` call above that.
FILES_PER_CALL = 200


@dataclass
class BuiltHome:
    """A cached home and how it was built."""

    path: Path
    info: dict[str, Any]


def build_home(items: int, *, seed: int = 1, embedder: str = "hash", curate: bool = False,
               rebuild: bool = False, snapshot: bool = True, echoes: bool = True,
               distillation_vectors: bool = True) -> BuiltHome:
    """A home holding the ``items``-item corpus, ingested (and curated), cached by parameters.

    Builds in a child process so the caller's Prolog engine and RSS stay untouched. The home
    is closed normally (which snapshots a large journal); with ``snapshot`` it is also
    snapshotted explicitly, so both the journal and a current snapshot exist. Corpora above
    :data:`ONE_CALL_ITEMS` are ingested :data:`FILES_PER_CALL` files per ``Memory.ingest`` call:
    one call for a million items exceeds SWI-Prolog's default 1 GB stack (see ingest_speed.py).
    ``echoes=False`` curates with the home's ``"echoes": false`` (no echo detection);
    ``distillation_vectors=False`` with ``"distillation_vectors": false`` (one vector per item).
    """
    per_call = FILES_PER_CALL if items > ONE_CALL_ITEMS else 0
    tag = f"home-{items}-s{seed}-{embedder.replace(':', '_')}-{'curated' if curate else 'ingested'}"
    if curate and not echoes:
        tag += "-noechoes"
    if curate and distillation_vectors:  # homes cached before distillation vectors lack them
        tag += "-l2v"
    folder = CACHE / tag
    done = folder / "built.json"
    if done.exists() and not rebuild:
        return BuiltHome(folder / "home", json.loads(done.read_text(encoding="utf-8")))
    data = corpus(items, seed)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    progress(f"building {tag} (child process)")
    script = (
        "import json, resource, sys, time\n"
        "from pathlib import Path\n"
        "from attention_cloud import Memory\n"
        "from attention_cloud.home import write_config\n"
        "home, data, embedder, curate, snap = Path(sys.argv[1]), sys.argv[2], sys.argv[3], "
        "sys.argv[4] == '1', sys.argv[5] == '1'\n"
        "per_call = int(sys.argv[6])\n"
        "def peak():\n"
        "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS:'): return int(line.split()[1]) / 1024\n"
        "last = [0.0, '']\n"
        "def show(event):\n"  # one line on stderr (the build log) per phase change or 30 s
        "    now = time.time()\n"
        "    if event.phase != last[1] or now - last[0] >= 30 or event.done == event.total:\n"
        "        last[:] = [now, event.phase]\n"
        "        print(time.strftime('%H:%M:%S'), event.phase, event.done, event.total, "
        "f'rss {rss():.0f} MB peak {peak():.0f} MB', file=sys.stderr, flush=True)\n"
        "home.mkdir(parents=True)\n"
        "write_config(home, {'embedder': embedder, 'echoes': sys.argv[7] == '1', "
        "'distillation_vectors': sys.argv[8] == '1'})\n"
        "info = {}\n"
        "mem = Memory.open(home)\n"
        "files = sorted(Path(data).rglob('*.jsonl'))\n"
        "groups = [files[i:i + per_call] for i in range(0, len(files), per_call)] if per_call else [[data]]\n"
        "t = time.perf_counter(); info['items'] = sum(mem.ingest(g, progress=show).new for g in groups)\n"
        "info['ingest_s'] = time.perf_counter() - t; info['ingest_calls'] = len(groups)\n"
        "info['ingest_peak_rss_mb'] = peak()\n"
        "if curate:\n"
        "    t = time.perf_counter(); c = mem.curate(progress=show); info['curate_s'] = time.perf_counter() - t\n"
        "    info['curate'] = c.as_dict(); info['curate_peak_rss_mb'] = peak()\n"
        "    info['curate_end_rss_mb'] = rss()\n"
        "if snap:\n"
        "    t = time.perf_counter(); info['snapshot_facts'] = mem.snapshot(); "
        "info['snapshot_s'] = time.perf_counter() - t\n"
        "mem.close()\n"
        "info['peak_rss_mb'] = peak()\n"
        "print(json.dumps(info))\n"
    )
    # One BLAS thread: the product's exact searches (echo detection) thrash with more on a
    # busy machine; vectors are the same, only the build is faster. Recorded in the info.
    # The child's progress lines (phase, count, RSS and its peak) go to build.log beside the home.
    env = {**os.environ, "PYTHONPATH": str(ROOT / "host"), "OPENBLAS_NUM_THREADS": "1"}
    with open(folder / "build.log", "w", encoding="utf-8") as log:
        proc = subprocess.run([sys.executable, "-c", script, str(folder / "home"), str(data), embedder,
                               "1" if curate else "0", "1" if snapshot else "0", str(per_call),
                               "1" if echoes else "0", "1" if distillation_vectors else "0"],
                              stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    if proc.returncode != 0:
        tail = (folder / "build.log").read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"building {tag} failed:\n{tail}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info.update({"embedder": embedder, "seed": seed, "echoes": echoes,
                 "distillation_vectors": distillation_vectors, "git": git_revision(), "blas_threads": 1,
                 "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    done.write_text(json.dumps(info, indent=1), encoding="utf-8")
    progress(f"built {tag}: {info}")
    return BuiltHome(folder / "home", info)


# -- BENCHMARKS.md --------------------------------------------------------------------------------
def update_benchmarks(section: str, subsection: str, body: str, path: Path = BENCHMARKS_MD, *,
                      first: bool = False) -> None:
    """Replace (or add) ``### subsection`` inside ``## section`` of BENCHMARKS.md with ``body``.

    A new subsection goes to the end of its section, or to its start with ``first``. Other
    sections, including those other benchmarks write, are kept as they are.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    lines = text.splitlines()
    sec = _find_heading(lines, "## " + section, 0, len(lines))
    if sec is None:
        lines += ["", "## " + section, ""]
        sec = len(lines) - 2
    sec_end = _next_heading(lines, sec + 1, ("## ",))
    sub = _find_heading(lines, "### " + subsection, sec + 1, sec_end)
    block = ["### " + subsection, "", *body.rstrip("\n").splitlines(), ""]
    if sub is None and first:
        lines[sec + 1:sec + 1] = ["", *block[:-1]]
    elif sub is None:
        insert_at = sec_end
        while insert_at > sec + 1 and not lines[insert_at - 1].strip():
            insert_at -= 1
        lines[insert_at:insert_at] = ["", *block]
    else:
        sub_end = _next_heading(lines, sub + 1, ("## ", "### "))
        lines[sub:sub_end] = block
    path.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")


def order_subsections(section: str, names: Sequence[str], path: Path = BENCHMARKS_MD) -> None:
    """Put the named ``### `` subsections of ``## section`` first, in this order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    sec = _find_heading(lines, "## " + section, 0, len(lines))
    if sec is None:
        return
    sec_end = _next_heading(lines, sec + 1, ("## ",))
    body = lines[sec + 1:sec_end]
    starts = [i for i, line in enumerate(body) if line.startswith("### ")] + [len(body)]
    head, blocks = body[:starts[0]], {}
    for a, b in zip(starts, starts[1:]):
        blocks[body[a][4:].strip()] = body[a:b]
    ordered = [n for n in names if n in blocks] + [n for n in blocks if n not in names]
    lines[sec + 1:sec_end] = head + [line for n in ordered for line in blocks[n]]
    path.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")


def _find_heading(lines: list[str], heading: str, start: int, stop: int) -> int | None:
    for i in range(start, stop):
        if lines[i].strip() == heading:
            return i
    return None


def _next_heading(lines: list[str], start: int, prefixes: tuple[str, ...]) -> int:
    for i in range(start, len(lines)):
        if lines[i].startswith(prefixes) and not lines[i].startswith("####"):
            return i
    return len(lines)


def timed(fn: Callable[..., Any], sink: list[float]) -> Callable[..., Any]:
    """``fn`` wrapped so that each call's wall seconds are appended to ``sink``."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            sink.append(time.perf_counter() - start)

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def consult_text(mem: Any, source: str) -> None:
    """Load Prolog ``source`` (a bench's instrumentation) into ``mem``'s engine, through a
    temporary file (the bridge consults files)."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as fh:
        fh.write(source)
    try:
        mem.pl.consult(fh.name)
    finally:
        os.unlink(fh.name)
