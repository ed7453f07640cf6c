"""Where the test suite's CPU goes: a pytest plugin, and the table it makes.

As a plugin (``PYTHONPATH=scripts/bench pytest -p suite_cpu ...``) it writes one line a test
to ``$SUITE_CPU_OUT`` (default ``.local/suite_cpu.tsv``): the test's id, the CPU seconds of
the pytest process itself and of the child processes it waited for (``atc``, scripts:
``getrusage`` SELF and CHILDREN around the test), and its wall seconds. As a script it sums
such a file per test file, longest first, with the share spent in child processes::

    PYTHONPATH=scripts/bench .venv/bin/python -m pytest -q -p no:cacheprovider -p suite_cpu \\
        -m "not serial" tests/test_a.py tests/test_b.py
    .venv/bin/python scripts/bench/suite_cpu.py .local/suite_cpu.tsv [--top 40]

A child that outlives its test (a server left running) is charged to no test.
"""
from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from pathlib import Path

import pytest

_out = None


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Charge the test (set-up, call and tear-down) with the CPU spent while it ran."""
    global _out
    if _out is None:
        path = Path(os.environ.get("SUITE_CPU_OUT", ".local/suite_cpu.tsv"))
        path.parent.mkdir(parents=True, exist_ok=True)
        _out = open(path, "a", buffering=1, encoding="utf-8")
    own, children = _cpu()
    started = time.monotonic()
    yield
    own2, children2 = _cpu()
    _out.write(f"{item.nodeid}\t{own2 - own:.3f}\t{children2 - children:.3f}\t"
               f"{time.monotonic() - started:.3f}\n")


def per_file(path: Path) -> dict[str, list[float]]:
    """Each test file's [own CPU, children's CPU, wall, tests] summed from a plugin file."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for line in path.read_text(encoding="utf-8").splitlines():
        nodeid, own, children, wall = line.split("\t")
        row = files[nodeid.split("::", 1)[0]]
        row[0] += float(own)
        row[1] += float(children)
        row[2] += float(wall)
        row[3] += 1
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tsv", type=Path, help="the file the plugin wrote")
    parser.add_argument("--top", type=int, default=40, help="files shown (default 40)")
    args = parser.parse_args()
    files = per_file(args.tsv)
    rows = sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    print(f"{'CPU s':>8} {'own':>8} {'children':>8} {'wall s':>8} {'tests':>6}  file")
    for name, (own, children, wall, tests) in rows[:args.top]:
        print(f"{own + children:8.1f} {own:8.1f} {children:8.1f} {wall:8.1f} {int(tests):6d}  {name}")
    own = sum(r[0] for r in files.values())
    children = sum(r[1] for r in files.values())
    tests = int(sum(r[3] for r in files.values()))
    print(f"{len(files)} files, {tests} tests: {own + children:.1f} CPU-s, "
          f"{children / max(own + children, 1e-9):.0%} in child processes")


if __name__ == "__main__":
    main()
