"""README's Configuration section is what config.json takes: the settings its table lists are
the ones checked, each default it shows is accepted and is the code's, each embedder form it
shows is taken, each wrong setting it shows is refused naming its key, and each environment
variable it lists is one the code reads.

No home: config.json's check is a pure function (``attention_cloud.home.check_config``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from attention_cloud import HomeError, home
from attention_cloud.ingest.item_limits import DEFAULT_MAX_ITEM_CHARS
from attention_cloud.ingest.source import DEFAULT_MAX_FILE_BYTES
from attention_cloud.receipt_cap import DEFAULT_KEPT
from attention_cloud.vector_texts import TOOL_OUTPUT_HEAD_CHARS

ROOT = Path(__file__).resolve().parent.parent


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]


def _table() -> dict[str, tuple[str, str]]:
    """Each row: key -> (meaning, default), as the table shows them."""
    rows = {}
    for line in _section().splitlines():
        row = re.match(r"^\| `(\w+)` \| (.*) \| ([^|]*) \|$", line)
        if row:
            rows[row.group(1)] = (row.group(2), row.group(3).strip())
    return rows


TABLE = _table()

#: Defaults the table gives as no value: key -> why.
NO_DEFAULT = {"curator": "none: no model curator", "retention": "keep all: nothing expires"}

#: The code's default of each setting the table gives a number for.
CODE_DEFAULTS = {"tool_output_head_chars": TOOL_OUTPUT_HEAD_CHARS,
                 "max_file_bytes": DEFAULT_MAX_FILE_BYTES,
                 "max_item_chars": DEFAULT_MAX_ITEM_CHARS, "receipts_kept": DEFAULT_KEPT}

#: Placeholders of the embedder forms the table shows, filled: placeholder -> value.
EMBEDDER_PLACEHOLDERS = {"DIM": "384", "TABLE.npy": "table.npy", "NAME": "all-MiniLM-L6-v2",
                         "URL": "http://localhost:8080/v1", "=M": "=text-embedding-3-small",
                         "/path/model.onnx": "/m/model.onnx", "/path/vocab.txt": "/m/vocab.txt"}


def _default(key: str):
    """The default the table shows, as config.json would hold it: a JSON value (``true``,
    ``256``, ``268435456 (256 MiB)``), else the word as a string (``minilm``)."""
    word = re.match(r"`?([^` ]+)`?", TABLE[key][1]).group(1)
    try:
        return json.loads(word)
    except ValueError:
        return word


def test_the_table_lists_every_setting_config_json_takes():
    assert sorted(TABLE) == sorted(home._SETTINGS)


@pytest.mark.parametrize("key", sorted(k for k in TABLE if k not in NO_DEFAULT))
def test_each_default_shown_is_taken_and_is_the_codes(key):
    value = _default(key)
    assert home.check_config({key: value}) == {key: value}
    if key in CODE_DEFAULTS:
        assert value == CODE_DEFAULTS[key]


def _embedder_forms() -> list[str]:
    forms = re.findall(r"`((?:minilm|hash|static|none|onnx|st|openai)[^`]*)`",
                       TABLE["embedder"][0])
    filled = []
    for form in forms:
        for placeholder, value in EMBEDDER_PLACEHOLDERS.items():
            form = form.replace(placeholder, value)
        filled.append(form)
    return filled


@pytest.mark.parametrize("spec", _embedder_forms())
def test_each_embedder_form_shown_is_taken(spec):
    assert home.check_config({"embedder": spec})


def _wrong_settings() -> list[tuple[str, object]]:
    """The settings the paragraph under the table shows refused: ``"retention": "x"``, and the
    embedders it names bare (``"hash:abc"``)."""
    paragraph = _section().split("A `config.json` that", 1)[1].split("\n\n", 1)[0]
    wrong = [(key, json.loads(value))
             for key, value in re.findall(r'`"(\w+)": ("[^"]*")`', paragraph)]
    wrong += [("embedder", spec) for spec in re.findall(r'`"((?:hash|onnx|openai)[^"]*)"`',
                                                       paragraph)]
    return wrong


@pytest.mark.parametrize("key, value", _wrong_settings())
def test_each_wrong_setting_shown_is_refused_naming_its_key(key, value):
    with pytest.raises(HomeError, match=rf"config\.json: {key} must be"):
        home.check_config({key: value}, "config.json")


def test_the_misspelt_key_shown_is_noted_with_the_setting_meant():
    assert home.config_warnings({"echos": False}) == [
        "echos is not a setting (did you mean echoes?): it is ignored"]


def _variables() -> list[str]:
    environment = _section().split("Environment:", 1)[1]
    return sorted(set(re.findall(r"`(ATC_[A-Z_]+)", environment)))


def _sources() -> str:
    paths = [*(ROOT / "host").rglob("*.py"), *(ROOT / "scripts").rglob("*")]
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in paths if p.is_file())


def test_each_environment_variable_listed_is_one_the_code_reads():
    sources = _sources()
    assert len(_variables()) > 8
    assert [name for name in _variables() if name not in sources] == []
