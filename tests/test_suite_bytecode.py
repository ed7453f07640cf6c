"""The suite's byte-code folder (conftest.PYCACHE) on a clean clone: pip's byte-code serves the
workers, and the project's files are compiled before the workers start (tests/pycache_fill.py)."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pycache_fill

ROOT = Path(__file__).resolve().parent.parent


def _in_prefix(prefix: Path, source: str) -> Path:
    """Where Python looks for ``source``'s byte-code with ``PYTHONPYCACHEPREFIX=prefix``."""
    code = ("import importlib.util, sys; "
            f"print(importlib.util.cache_from_source({source!r}))")
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    return Path(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                               capture_output=True, text=True).stdout.strip())


def test_workers_on_an_empty_byte_code_folder_load_what_pip_compiled(tmp_path):
    """click is imported by the workers (tests/test_cli.py), not by the pytest process that
    hands out the files: on an empty folder each worker compiled it again."""
    prefix = tmp_path / "pycache"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
         "-k", "no_test_has_this_name", "tests/test_cli.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 5, run.stdout + run.stderr   # collected, none selected
    click_source = importlib.util.find_spec("click").origin
    served = _in_prefix(prefix, click_source)
    installed = Path(click_source).parent / "__pycache__" / served.name
    assert served.is_file(), sorted(p.name for p in served.parent.iterdir())
    assert os.path.samefile(served, installed)
    # the package and the selected test module were compiled before the workers, once
    cli_source = str(ROOT / "host" / "attention_cloud" / "cli.py")
    assert _in_prefix(prefix, cli_source).is_file()
    rewritten = [p.name for p in (prefix / str(ROOT / "tests").lstrip(os.sep)).iterdir()]
    assert any(name.startswith("test_cli.") and "-pytest-" in name for name in rewritten)


def test_installed_byte_code_is_linked_once_until_an_installed_tree_changes(tmp_path):
    tree = tmp_path / "site"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("x = 1\n")
    tag = sys.implementation.cache_tag
    (tree / "pkg" / "__pycache__" / f"mod.{tag}.pyc").write_bytes(b"pyc")
    (tree / "pkg" / "__pycache__" / "mod.other-99.pyc").write_bytes(b"not this python's")
    prefix = tmp_path / "prefix"

    assert pycache_fill.link_installed_bytecode(prefix, [str(tree)]) == 1
    linked = prefix / str(tree).lstrip(os.sep) / "pkg" / f"mod.{tag}.pyc"
    assert os.path.samefile(linked, tree / "pkg" / "__pycache__" / f"mod.{tag}.pyc")
    linked.unlink()
    assert pycache_fill.link_installed_bytecode(prefix, [str(tree)]) == 0   # stamped
    (tree / "new").mkdir()   # a package installed: the tree is walked again
    assert pycache_fill.link_installed_bytecode(prefix, [str(tree)]) == 1
    assert linked.is_file()
