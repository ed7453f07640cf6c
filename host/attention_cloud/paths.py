"""Where things live: the shipped Prolog rules and facts (a source checkout or an installed
wheel), and the user's cache of what is derived from them."""
from __future__ import annotations

import os
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


def cache_dir() -> Path:
    """Where derived files live (MiniLM's faster forms, the compiled rules), always an
    absolute path: ``$ATC_CACHE``, else ``$XDG_CACHE_HOME/attention-cloud`` where that is
    absolute (the XDG spec ignores a relative one), else ``~/.cache/attention-cloud``, else,
    where no home folder resolves, :func:`scratch_dir` (a relative path would put the cache
    in whatever folder a command was started from). An empty or relative ``$ATC_CACHE`` is a
    UsageError: the user named a folder on purpose, so it is not ignored as XDG's is."""
    from .environment import absolute_folder

    base = absolute_folder("ATC_CACHE")
    if base is not None:
        return Path(os.path.normpath(base))
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "attention-cloud"
    try:
        home = Path.home()
    except RuntimeError:            # no $HOME and no password entry
        return scratch_dir()
    return home / ".cache" / "attention-cloud" if home.is_absolute() else scratch_dir()


def scratch_dir() -> Path:
    """This user's folder under the system's temporary directory, for derived files where
    no cache can be written. Check it with :func:`is_private` before loading from it:
    another user may have made it first."""
    import tempfile

    return Path(tempfile.gettempdir()) / f"attention-cloud-{os.getuid()}"


def is_private(folder: Path) -> bool:
    """Whether ``folder`` is this user's and no one else may write into it (what is loaded
    from a cache runs as code or feeds the model: another user must not be able to plant it)."""
    info = folder.stat()
    return info.st_uid == os.getuid() and not info.st_mode & 0o022
