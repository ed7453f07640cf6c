"""``Source.json_text``: a JSON file's text with each character beyond U+FFFF written as the
JSON escape of its surrogate pair (so a document of emoji is decoded at one or two bytes a
character), the same value decoded, and a character after an odd number of backslashes left
as written (escaping it would make an invalid escape valid)."""

from __future__ import annotations

import json
import random

from attention_cloud.ingest.source import make_source

PIECES = ["a", "é", "📋", "😀", "\\", '"', "\n", "\U0010fffd", " ", "{", "]"]


def test_a_document_of_emoji_and_backslashes_decodes_to_the_same_value():
    rng = random.Random(4)
    for _ in range(2000):
        value = {"text": "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))),
                 "list": ["".join(rng.choice(PIECES) for _ in range(3))]}
        source = make_source(json.dumps(value, ensure_ascii=False).encode(), name="x.json")
        text = source.json_text
        assert all(ord(ch) <= 0xFFFF for ch in text)
        assert json.loads(text) == value


def test_a_character_after_an_odd_number_of_backslashes_is_left_as_written():
    for slashes, escaped in ((0, True), (1, False), (2, True), (3, False)):
        data = b'{"a": "x' + b"\\" * slashes + "📋".encode() + b'"}'
        text = make_source(data, name="x.json").json_text
        assert ("📋" not in text) is escaped and ("\\ud83d\\udccb" in text) is escaped


def test_a_file_without_such_characters_is_its_text():
    data = json.dumps({"a": "plain \\ text é"}).encode()
    assert make_source(data, name="x.json").json_text == data.decode()
