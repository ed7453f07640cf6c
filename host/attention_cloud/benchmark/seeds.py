"""Where trial seeds come from: the development list in the repository, or a file outside it.

Hold-out seeds (§22) must live where the evaluated agent cannot read them; :func:`inside_repository`
lets a sealed run refuse a seed file that sits inside the checkout.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError

_ROOT = Path(__file__).resolve().parent.parent.parent.parent
DEV_SEEDS_FILE = _ROOT / "scripts" / "bench" / "attention_dev_seeds.txt"


def load_seeds(path: str | Path) -> list[int]:
    """Non-negative integer seeds, one per line; blank lines and ``#`` comments are skipped."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read seeds file {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:   # a binary file given by mistake: was a traceback
        raise InputError(f"cannot read seeds file {path}: not UTF-8 text ({exc.reason} at "
                         f"byte {exc.start})") from None
    seeds: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            seed = int(line)
        except ValueError:
            raise InputError(f"{path}:{number}: not an integer seed: {line!r}") from None
        if seed < 0:
            raise InputError(f"{path}:{number}: seeds must be non-negative")
        seeds.append(seed)
    if len(set(seeds)) != len(seeds):
        raise InputError(f"{path}: repeated seeds would pair a trial with itself")
    if not seeds:
        raise InputError(f"{path}: no seeds")
    return seeds


def dev_seeds() -> list[int]:
    """The development seeds shipped in the repository."""
    if not DEV_SEEDS_FILE.exists():
        raise InputError("development seeds not found (scripts/bench/attention_dev_seeds.txt); "
                         "pass --seeds-file")
    return load_seeds(DEV_SEEDS_FILE)


def inside_repository(path: str | Path) -> bool:
    """True when ``path`` lies inside the checkout this package runs from."""
    try:
        Path(path).resolve().relative_to(_ROOT)
    except ValueError:
        return False
    return (_ROOT / ".git").exists() or (_ROOT / "pyproject.toml").exists()
