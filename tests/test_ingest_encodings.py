"""Transcripts in the encodings and line ends other tools write: UTF-16 and UTF-32 with a byte
order mark (Windows Notepad's "Unicode", PowerShell 5's ``>``), and classic Mac line ends (CR
alone). Each is read as the same transcript in UTF-8 with LF would be, its pointers and
``atc show --source`` included; a file that claims UTF-16 and is not is refused in one line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from attention_cloud.errors import InputError
from attention_cloud.ingest import parse_path
from attention_cloud.ingest.pointers import read_pointer

CHAT = "User: why does the deploy fail on Fridays?\nAssistant: the staging DB is read-only then\n"
RECORDS = "".join(json.dumps(r) + "\n" for r in (
    {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:04:05Z",
     "message": {"role": "user", "content": "find why the nightly build is red"}},
    {"type": "assistant", "uuid": "u2", "sessionId": "s", "timestamp": "2026-01-02T03:04:09Z",
     "message": {"role": "assistant",
                 "content": [{"type": "text", "text": "the cache key changed \u00e9\U0001F600"}]}},
))
ENCODINGS = ["utf-16", "utf-16-be", "utf-32"]


def _bom(encoding: str) -> bytes:
    return {"utf-16": "\ufeff".encode("utf-16-le"), "utf-16-be": "\ufeff".encode("utf-16-be"),
            "utf-32": "\ufeff".encode("utf-32-le")}[encoding]


def _encoded(text: str, encoding: str) -> bytes:
    body = text.encode({"utf-16": "utf-16-le", "utf-32": "utf-32-le"}.get(encoding, encoding))
    return _bom(encoding) + body


def _read(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path, parse_path(path)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("name,text", [("chat.txt", CHAT), ("session.jsonl", RECORDS)])
def test_a_transcript_with_a_byte_order_mark_reads_as_its_utf8_twin(tmp_path, encoding, name,
                                                                    text):
    twin = tmp_path / "utf8" / name
    twin.parent.mkdir()
    twin.write_text(text, encoding="utf-8")
    plain = parse_path(twin)
    path, wide = _read(tmp_path, name, _encoded(text, encoding))
    assert wide.format == plain.format
    assert [(i.kind, i.text, i.time, i.handle) for i in wide.items] == \
        [(i.kind, i.text, i.time, i.handle) for i in plain.items]
    assert [i.pointer for i in wide.items] == [f"{path}:1", f"{path}:2"]
    first = read_pointer(wide.items[0].pointer)
    assert first == text.split("\n")[0]


def test_crlf_in_utf16_is_read_as_lines(tmp_path):
    _, result = _read(tmp_path, "chat.txt", _encoded(CHAT.replace("\n", "\r\n"), "utf-16"))
    assert [i.text for i in result.items] == ["why does the deploy fail on Fridays?",
                                             "the staging DB is read-only then"]


@pytest.mark.parametrize("data,line,problem", [
    (b"\xff\xfe" + "User: hi there\n".encode("utf-16-le") + b"U", 2,
     "an odd number of bytes (a half character at the end)"),
    (b"\xff\xfe" + "User: a".encode("utf-16-le") + b"\x00\xd8" + "\n".encode("utf-16-le"), 1,
     "a lone surrogate (half of a character's pair)"),
])
def test_a_file_that_is_not_the_utf16_its_mark_claims_is_refused_in_one_line(tmp_path, data,
                                                                              line, problem):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        parse_path(path)
    assert str(caught.value) == f"{path}:{line}: invalid UTF-16 (byte order mark FF FE): {problem}"


def test_classic_mac_line_ends_split_turns_and_pointers(tmp_path):
    path, result = _read(tmp_path, "mac.txt", CHAT.replace("\n", "\r").encode())
    assert [i.text for i in result.items] == ["why does the deploy fail on Fridays?",
                                             "the staging DB is read-only then"]
    assert [i.pointer for i in result.items] == [f"{path}:1", f"{path}:2"]
    assert read_pointer(result.items[1].pointer) == "Assistant: the staging DB is read-only then"


def test_classic_mac_line_ends_in_json_lines(tmp_path):
    _, result = _read(tmp_path, "mac.jsonl", RECORDS.replace("\n", "\r").encode())
    assert [i.kind for i in result.items] == ["user_goal", "conclusion"]
    assert not result.skipped


def test_a_lone_cr_inside_lf_text_stays_text(tmp_path):
    """Only a file with no LF at all has CR line ends: a CR inside an LF file is its text."""
    _, result = _read(tmp_path, "mixed.txt", b"User: progress 10%\r50%\r100% done now\n"
                      b"Assistant: the copy finished fine\n")
    assert len(result.items) == 2


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home),
                           *args], capture_output=True, text=True, timeout=120)


def test_cli_ingests_utf16_and_shows_its_source_then_refuses_a_broken_one(tmp_path):
    home = tmp_path / "home"
    good = tmp_path / "notes.txt"
    good.write_bytes(_encoded(CHAT, "utf-16"))
    done = _atc(home, "ingest", str(good), "--format-output", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new"] == 2
    listed = _atc(home, "query", "item_source(H, P), item_text(H, T)", "--format", "json")
    rows = {r["T"]: r["H"] for r in json.loads(listed.stdout)}
    shown = _atc(home, "show", rows["the staging DB is read-only then"], "--source")
    assert shown.returncode == 0, shown.stderr
    assert "Assistant: the staging DB is read-only then" in shown.stdout
    before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
    bad = tmp_path / "broken.txt"
    bad.write_bytes(_encoded(CHAT, "utf-16")[:-1])
    refused = _atc(home, "ingest", str(bad))
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        f"atc: {bad}: line 2: invalid UTF-16 (byte order mark FF FE): an odd number of bytes "
        "(a half character at the end)"]
    assert {p: p.read_bytes() for p in home.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("name,text", [("chat.txt", CHAT + "User: ça coûte 5 € — 一\n"),
                                       ("session.jsonl", RECORDS)])
def test_wide_text_without_a_byte_order_mark_reads_as_its_utf8_twin(tmp_path, codec, name, text):
    """Some tools (a .NET StreamWriter given Encoding.Unicode without a preamble, a Python
    script's ``open(..., encoding="utf-16-le")``) write UTF-16 with no mark: its NUL pattern
    gives it away, and it reads as the same transcript in UTF-8 would."""
    twin = tmp_path / "utf8" / name
    twin.parent.mkdir()
    twin.write_text(text, encoding="utf-8")
    plain = parse_path(twin)
    path, wide = _read(tmp_path, name, text.encode(codec))
    assert wide.format == plain.format
    assert [(i.kind, i.text, i.time, i.handle) for i in wide.items] == \
        [(i.kind, i.text, i.time, i.handle) for i in plain.items]
    assert read_pointer(wide.items[0].pointer) == text.split("\n")[0]


def test_binary_data_that_looks_like_utf16_says_so(tmp_path):
    """UTF-16 without its mark that does not decode (cut in half a character) is refused, with
    a hint at what the file seems to be rather than "binary" alone."""
    path = tmp_path / "cut.txt"
    path.write_bytes(CHAT.encode("utf-16-le")[:-1])
    with pytest.raises(InputError) as caught:
        parse_path(path)
    assert str(caught.value) == (
        f"{path}:1: binary data (NUL byte at column 2), not a text transcript (it looks like "
        "UTF-16 LE without a byte order mark, but does not decode as it: an odd number of bytes)")


def test_real_binary_data_is_still_refused_as_binary(tmp_path):
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256)) * 4)
    with pytest.raises(InputError) as caught:
        parse_path(path)
    assert str(caught.value) == \
        f"{path}:3: binary data (NUL byte at column 1), not a text transcript"
