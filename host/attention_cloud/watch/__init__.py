"""Live capture: ``atc watch`` follows transcript folders and keeps memory up to date.

:class:`Watcher` is the loop (events or polling, debounce, batches under a write lock given
back between them, clean stops); :mod:`.files` tracks file states and what is due;
:mod:`.events` wraps watchdog's inotify observer; :mod:`.cli` is the command.
"""
from .watcher import Watcher, WatchOptions, WatchTotals

__all__ = ["Watcher", "WatchOptions", "WatchTotals"]
