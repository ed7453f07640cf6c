"""A JSON document is decoded once at ingest, not once by format detection and again by its
parser: a large export (ChatGPT's conversations.json, tens of MB) took that time twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import parse_path

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def _whole_decodes(monkeypatch, path: Path) -> tuple[int, list[str]]:
    """How many times json.loads decoded (nearly) the whole of ``path``, and the texts read."""
    size = len(path.read_text(encoding="utf-8").strip())
    real = json.loads
    calls = []

    def counting(text, *args, **kwargs):
        if isinstance(text, (str, bytes)) and len(text.strip()) >= size * 0.9:
            calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    result = parse_path(path)
    return len(calls), [item.text for item in result.items]


@pytest.mark.parametrize("name,layout", [
    ("chatgpt_conversations.json", "as written"),
    ("chatgpt_conversations.json", "one line"),
    ("openai_chat.json", "indented"),
    ("openai_array.json", "indented"),
])
def test_a_json_document_is_decoded_once(monkeypatch, tmp_path, name, layout):
    document = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    path = tmp_path / name
    if layout == "as written":
        path.write_bytes((FIXTURES / name).read_bytes())
    else:
        path.write_text(json.dumps(document, ensure_ascii=False,
                                   indent=None if layout == "one line" else 2) + "\n",
                        encoding="utf-8")
    expected = [item.text for item in parse_path(path).items]
    decodes, texts = _whole_decodes(monkeypatch, path)
    assert decodes == 1
    assert texts == expected and texts        # the same items as before


def test_a_document_taken_once_is_not_held_for_a_second_reader():
    """The kept document goes to one parser (which may change it); a second read decodes anew."""
    from attention_cloud.ingest.detect import detect_source_format
    from attention_cloud.ingest.jsonlines import json_document
    from attention_cloud.ingest.source import read_path

    source = read_path(FIXTURES / "chatgpt_conversations.json")
    assert detect_source_format(source) == "chatgpt"
    first = json_document(source)
    first.clear() if isinstance(first, list) else None
    assert json_document(source)                 # decoded again, not the emptied list
