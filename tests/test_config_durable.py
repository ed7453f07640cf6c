"""config.json is made durable like the journal: a power cut must not leave it empty.

``write_config`` wrote a temporary file and renamed it over config.json without an fsync of
either: after a power cut the rename can reach the disk before the data, leaving config.json
empty, and every command then refuses the whole home. The file is now fsynced before the
rename and the folder after it.
"""
from __future__ import annotations

from pathlib import Path

from attention_cloud.home import write_config


def test_config_is_fsynced_before_it_replaces_the_old_and_its_folder_after(
        home: Path, durable_writes: list) -> None:
    write_config(home, {"embedder": "hash"})
    assert durable_writes == [("fsync", "config.json.tmp"), ("replace", "config.json"),
                              ("fsync", home.name)]
    assert (home / "config.json").read_text(encoding="utf-8").strip().startswith("{")
