"""Package names imported from their modules on first use (PEP 562).

A package whose ``__init__`` imports every module makes importing any one of them import all:
``attention_cloud.embed.half_floats`` imported faiss and onnxruntime, ``attention_cloud.cells``
numpy for `atc stats`. Such a package lists where each name lives instead::

    __getattr__, __dir__ = lazy_names(__name__, {"VectorStore": ".store", ...})
"""
from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable


def lazy_names(package: str, homes: dict[str, str]) -> tuple[Callable[[str], Any],
                                                              Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose names ``homes`` maps to the
    module (relative, ``.store``) each is imported from when first asked for; an unknown name
    is an AttributeError, as Python's own."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home, package), name)
        setattr(sys.modules[package], name, value)  # asked once: later reads find it directly
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return __getattr__, __dir__
