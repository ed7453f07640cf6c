"""The BM25 index's committed.json is made durable with the log it describes.

``LexicalIndex.flush`` fsynced the log, then wrote ``committed.json`` (how many bytes of which
log file readers may read) by a bare rename. After a power cut the rename can be lost while the
log, the journal batch and the removal of ``ingest.pending.jsonl`` (all fsynced) are kept: every
reader (``atc hydrate``, ``atc query``, ``atc serve``) then read the log only as far as the older
committed.json said, and never found the batch's items by BM25 until some writer flushed again
(a read-only home: never); after two log compactions it could even name the current log by an
inode the older log had, and show a reader part of it. It is now fsynced before it replaces the
old one and its folder after, as the vector store's manifest and config.json are.
"""
from __future__ import annotations

from pathlib import Path

from attention_cloud.embed.lexical import LexicalIndex


def test_committed_json_is_fsynced_before_it_replaces_the_old_and_its_folder_after(
        tmp_path: Path, request) -> None:
    folder = tmp_path / "lexical"
    index = LexicalIndex.open(folder)
    index.add(["it_1"], ["the staging database is read-only on Fridays"])
    events = request.getfixturevalue("durable_writes")  # from here on: the flush alone
    index.flush()
    at = events.index(("replace", "committed.json"))
    assert events[at - 1] == ("fsync", "committed.json.tmp")
    assert events[at + 1] == ("fsync", folder.name)
    index.close()
    reader = LexicalIndex.open(folder, read_only=True)
    assert reader.has("it_1")  # what the durable committed.json names is what readers read
