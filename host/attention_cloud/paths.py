"""Where the shipped Prolog rules and facts live (a source checkout or an installed wheel)."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    # An installed wheel carries copies under the package; a checkout has them at the repo root.
    for candidate in (_PACKAGE / "_prolog" / name, _PACKAGE.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cannot find the shipped '{name}/' directory next to {_PACKAGE}")


def rules_dir() -> Path:
    """Directory of the Prolog modules (``rules/``)."""
    return _find("rules")


def facts_dir() -> Path:
    """Directory of the shipped fact files (``facts/``)."""
    return _find("facts")


def samples_dir() -> Path:
    """Directory of the bundled demo transcripts."""
    return _PACKAGE / "samples"
