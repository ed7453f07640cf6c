"""Filesystem events for the watcher: inotify through ``watchdog``, or nothing (polling).

:func:`start_events` schedules an observer on every watched path (a folder recursively, a file
through its folder) and returns an :class:`EventFeed` that collects the paths events name and
wakes the watcher; or it returns the reason events cannot be had (``watchdog`` has no inotify
here, the kernel's inotify watches or instances ran out, ...), and the watcher polls instead.
The feed is a set, so a burst of events on one file costs one stat.
"""
from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from .wake import Wake

#: Builds the observer; tests replace it to simulate exhausted inotify watches.
ObserverFactory = Callable[[], Any]


def _inotify_observer() -> Any:
    from watchdog.observers.inotify import InotifyObserver

    return InotifyObserver()


class EventFeed:
    """Paths named by filesystem events since the last :meth:`drain`, and a wake-up."""

    def __init__(self, observer: Any, wake: Wake) -> None:
        self.observer = observer
        self.wake = wake
        self._lock = threading.Lock()
        self._paths: set[Path] = set()
        self._rescan = False

    def note(self, path: str | bytes, *, rescan: bool = False) -> None:
        """Called from the observer's thread for every event."""
        with self._lock:
            if rescan:
                self._rescan = True
            elif path:
                self._paths.add(Path(os.fsdecode(path)))
        self.wake.set()

    def drain(self) -> tuple[set[Path], bool]:
        """The paths noted since the last call, and whether a folder changed (a rescan)."""
        with self._lock:
            paths, self._paths = self._paths, set()
            rescan, self._rescan = self._rescan, False
        return paths, rescan

    @property
    def alive(self) -> bool:
        """False once the observer's thread has died (watches ran out on a new folder, ...)."""
        return bool(self.observer.is_alive())

    def stop(self) -> None:
        try:
            self.observer.stop()
            self.observer.join(timeout=5)
        except Exception:  # stopping a dead observer: nothing left to stop
            pass


def _handler(feed: EventFeed) -> Any:
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return  # reading changes nothing
            if event.is_directory:
                if event.event_type in ("created", "moved", "deleted"):
                    feed.note("", rescan=True)  # a folder moved in or out: walk again
                return
            feed.note(event.src_path)
            dest = getattr(event, "dest_path", "")
            if dest:
                feed.note(dest)

    return Handler()


def start_events(paths: Iterable[Path], wake: Wake,
                 factory: ObserverFactory | None = None) -> EventFeed | str:
    """An event feed for ``paths``, or why there can be none (the watcher then polls)."""
    try:
        observer = (factory or _inotify_observer)()
    except ImportError:
        return "inotify is not available here (watchdog has no inotify observer)"
    except OSError as exc:
        return f"cannot start inotify ({exc.strerror or exc})"
    feed = EventFeed(observer, wake)
    handler = _handler(feed)
    try:
        for path in paths:
            if path.is_dir():
                observer.schedule(handler, os.fspath(path), recursive=True)
            else:  # a file: its folder, whose events are filtered down to it by the watcher
                observer.schedule(handler, os.fspath(path.parent), recursive=False)
        observer.start()
    except OSError as exc:
        feed.stop()
        return (f"inotify watches ran out ({exc.strerror or exc}; raise "
                "fs.inotify.max_user_watches)" if exc.errno in (errno.ENOSPC, errno.EMFILE) else
                f"cannot watch ({exc.strerror or exc})")
    return feed
