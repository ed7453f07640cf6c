"""Live capture: ``atc watch`` follows transcript folders and keeps memory up to date.

:class:`Watcher` is the loop (events or polling, debounce, batches under a write lock given
back between them, clean stops); :mod:`.files` tracks file states and what is due;
:mod:`.events` wraps watchdog's inotify observer; :mod:`.cli` is the command.
"""
from ..lazy_names import lazy_names

# Imported on first use (PEP 562): `atc --help` mounts `atc watch` (watch/cli.py) without
# importing the watcher, its file table and the transcript readers' names.
__getattr__, __dir__ = lazy_names(__name__, dict.fromkeys(("Watcher", "WatchOptions",
                                                           "WatchTotals"), ".watcher"))

__all__ = ["Watcher", "WatchOptions", "WatchTotals"]
