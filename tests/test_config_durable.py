"""config.json is made durable like the journal: a power cut must not leave it empty.

``write_config`` wrote a temporary file and renamed it over config.json without an fsync of
either: after a power cut the rename can reach the disk before the data, leaving config.json
empty, and every command then refuses the whole home. The file is now fsynced before the
rename and the folder after it.
"""
from __future__ import annotations

import os
from pathlib import Path

from attention_cloud import home as home_module
from attention_cloud.home import write_config


def test_config_is_fsynced_before_it_replaces_the_old_and_its_folder_after(home: Path,
                                                                           monkeypatch) -> None:
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = home_module.fsync_path, os.replace
    monkeypatch.setattr(home_module, "fsync_path",
                        lambda path: (events.append(("fsync", Path(path).name)), real_fsync(path)))
    monkeypatch.setattr(os, "replace",
                        lambda a, b: (events.append(("replace", Path(b).name)), real_replace(a, b)))
    write_config(home, {"embedder": "hash"})
    assert events == [("fsync", "config.json.tmp"), ("replace", "config.json"),
                      ("fsync", home.name)]
    assert (home / "config.json").read_text(encoding="utf-8").strip().startswith("{")
