"""A script of scripts/bench loaded as a module, so a test runs its functions in process."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "scripts" / "bench"


def load_bench_script(name: str) -> ModuleType:
    """``scripts/bench/<name>.py`` as the module ``name`` (registered in ``sys.modules``, which
    dataclasses defined in it need)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
