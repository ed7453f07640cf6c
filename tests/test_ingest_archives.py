"""Exports arrive zipped (WhatsApp's "Export chat" with media, ChatGPT's and Slack's data
exports, Telegram's): ingesting the archive itself said ``binary data (NUL byte at column 6),
not a text transcript``, which did not say what to do. It names the archive now, in one line,
exit 1, the journal unchanged."""
from __future__ import annotations

import gzip
import zipfile

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


def _zipped(path):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_chat.txt", "[5/8/23, 1:56:03 PM] Priya: Are we on?\n"
                                      "[5/8/23, 1:57:10 PM] Tomás: Yes at seven.\n")


def _gzipped(path):
    path.write_bytes(gzip.compress(b'{"type": "user"}\n' * 10))


@pytest.mark.parametrize("name, write, says", [
    ("WhatsApp Chat - Priya.zip", _zipped, "a zip archive"),
    ("session.jsonl.gz", _gzipped, "gzip-compressed"),
])
def test_an_archive_is_refused_saying_what_it_is(tmp_path, name, write, says):
    path = tmp_path / name
    write(path)
    home = tmp_path / "home"
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)])
    assert out.exit_code == 1 and out.output.count("\n") == 1, out.output
    assert f"{path}: {says}" in out.output and "unzip" in out.output  # gunzip too
    assert not home.exists() or not any(home.iterdir())
