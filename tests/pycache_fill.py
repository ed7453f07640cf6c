"""Fill the suite's byte-code folder (``conftest.PYCACHE``) before pytest-xdist starts its
workers, so that a clean clone compiles each file once, not once per worker.

With ``PYTHONPYCACHEPREFIX`` set, Python looks for byte-code only in a mirror tree under that
folder: it ignores the ``__pycache__`` folders pip and the interpreter's installer filled beside
the installed modules, and every worker compiled the same ~1,100 files (the installed modules
the suite imports, the package, the assertion-rewritten test modules) at the same moment
(BENCHMARKS.md, *The suite's byte-code, compiled once*, round 35). Here the installed byte-code
is linked into the mirror, and the project's own files are compiled once, in parallel.
"""
from __future__ import annotations

import fnmatch
import importlib.util
import os
import sys
import sysconfig
from pathlib import Path

# The pool and the compiler are imported where they are used: this module is imported before
# the installed byte-code is linked, and a module imported first would be compiled again.

#: Folders under an installed tree whose byte-code the suite never loads: another
#: interpreter's packages below the standard library, the standard library's own tests.
_NOT_IMPORTED = {"site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo"}


def _mirror(prefix: Path, source_dir: str) -> Path:
    """The folder under ``prefix`` where Python looks for the byte-code of ``source_dir``'s
    modules (``importlib.util.cache_from_source`` with a prefix)."""
    return prefix / os.path.abspath(source_dir).lstrip(os.sep)


def _link(source: str, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:   # another file system: a link that names it serves as well
        os.symlink(source, target)


def link_installed_bytecode(prefix: Path, roots: list[str]) -> int:
    """Link every byte-code file in the ``__pycache__`` folders under ``roots`` (installed
    trees: site-packages, the standard library) to where Python looks for it under ``prefix``,
    where none is there yet; returns how many were linked. A stamp in ``prefix`` keeps a later
    run from walking the trees again until one of them changes (a package installed or
    removed). A link is never written through: Python replaces a stale byte-code file with a
    new one (write and rename), so the installed one stays as pip left it."""
    tag = f".{sys.implementation.cache_tag}"   # pytest's rewritten plugins: .cpython-311-pytest-9.2.0
    stamp = prefix / ".installed-bytecode"
    state = "\n".join(f"{root} {os.stat(root).st_mtime_ns}" for root in roots)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == state:
        return 0
    linked = 0
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in _NOT_IMPORTED]
            if os.path.basename(folder) != "__pycache__":
                continue
            target_dir = _mirror(prefix, os.path.dirname(folder))
            for name in files:
                if tag not in name or not name.endswith(".pyc"):
                    continue
                target = target_dir / name
                if not os.path.lexists(target):
                    target_dir.mkdir(parents=True, exist_ok=True)
                    _link(os.path.join(folder, name), target)
                    linked += 1
    prefix.mkdir(parents=True, exist_ok=True)
    stamp.write_text(state, encoding="utf-8")
    return linked


def installed_roots() -> list[str]:
    """The installed trees: the standard library's and site-packages' folders."""
    paths = sysconfig.get_paths()
    return sorted({paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")
                   if os.path.isdir(paths[key])})


def _python_files(tops: list[Path]) -> list[Path]:
    """The ``.py`` files among ``tops`` and under those that are folders, each once."""
    found = (p for top in tops for p in ([top] if top.is_file() else sorted(top.rglob("*.py"))))
    return list(dict.fromkeys(p for p in found if p.suffix == ".py"))


def _stale(source: Path, compiled: Path) -> bool:
    try:
        return compiled.stat().st_mtime < source.stat().st_mtime
    except FileNotFoundError:
        return True


def _compile_plain(source: str) -> None:
    import py_compile

    py_compile.compile(source, doraise=False, quiet=2)


#: The pytest configuration the forked compilers rewrite test modules with (set before the
#: pool forks: a Config does not pickle).
_CONFIG = None


def _compile_rewritten(source: str) -> None:
    from _pytest.assertion import rewrite

    path = Path(source)
    try:
        source_hash, code = rewrite._rewrite_test(path, _CONFIG)
    except (SyntaxError, ValueError, OSError):   # the workers' collection reports it
        return
    rewrite._write_pyc(_CONFIG.stash[rewrite.assertstate_key], code, source_hash,
                       rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL))


def _rewritten_pyc(path: Path) -> Path | None:
    """Where pytest keeps ``path``'s assertion-rewritten byte-code, or None where this
    pytest's rewriting is not the one this module knows (then the workers rewrite it)."""
    try:
        from _pytest.assertion import rewrite

        return rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
    except (ImportError, AttributeError):
        return None


def _rewritten_plugins(config) -> list[Path]:
    """The installed modules of the packages pytest rewrites as plugins (hypothesis, anyio,
    xdist) that this process has loaded: every worker loads and rewrote them again."""
    try:
        from _pytest.assertion.rewrite import assertstate_key

        marked = config.stash[assertstate_key].hook._must_rewrite
    except (ImportError, AttributeError, KeyError):
        return []
    sources = (getattr(module, "__file__", None) for name, module in list(sys.modules.items())
               if name.partition(".")[0] in marked)
    return [Path(source) for source in sources if source and source.endswith(".py")]


def compile_project(config, project_dirs: list[Path], test_paths: list[Path],
                    workers: int) -> int:
    """Compile, in ``workers`` processes, the modules under ``project_dirs`` and the test
    modules under ``test_paths`` (rewritten as pytest's assertion rewriting does, when it is
    on) whose byte-code under the prefix is missing or older than the source; returns how many
    were compiled."""
    global _CONFIG
    patterns = config.getini("python_files") + ["conftest.py"]
    rewriting = config.getoption("assertmode") == "rewrite"

    def is_test(path: Path) -> bool:
        return any(fnmatch.fnmatch(path.name, p) for p in patterns)

    jobs: dict[str, list[str]] = {"plain": [], "rewritten": []}
    for path in _python_files(project_dirs):
        if not is_test(path) and _stale(path, Path(importlib.util.cache_from_source(str(path)))):
            jobs["plain"].append(str(path))
    for path in _python_files(test_paths) + _rewritten_plugins(config) if rewriting else ():
        pyc = _rewritten_pyc(path) if is_test(path) or path.is_relative_to(sys.prefix) \
            or path.is_relative_to(sys.base_prefix) else None
        if pyc is not None and _stale(path, pyc):
            jobs["rewritten"].append(str(path))
    total = len(jobs["plain"]) + len(jobs["rewritten"])
    if not total:
        return 0
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _CONFIG = config
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=max(1, workers), mp_context=context) as pool:
        list(pool.map(_compile_plain, jobs["plain"], chunksize=16))
        list(pool.map(_compile_rewritten, jobs["rewritten"], chunksize=8))
    return total
