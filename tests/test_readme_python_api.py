"""README's Python API is the package's: every method it names exists and takes the keywords
it shows, every public method of ``Memory`` is one README tells of, and the exceptions it
names derive as it says and carry what it says they carry.

README's ```python blocks run, their results' shapes checked, in tests/test_readme_commands.py;
this module reads the API README names in its prose (``Memory.hydrate(..., bridge=False)``,
``walk=""``) against ``inspect.signature``. No home: nothing here opens one.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import attention_cloud
from attention_cloud import Memory

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: Public methods of Memory README does not name, with why.
NOT_IN_README = {
    "saved_rule_sources": "the saved rules as Path-Text terms for the server and the grantee "
                          "view's loader; a user reads them with rules_list()",
    "saved_rule_texts": "the saved rules' texts for the package's own loaders",
    "snapshot": "the compiled snapshot, rebuilt by the writing commands themselves",
    "store_ladder": "the curators' one batch of curated records (curate() is the user's call)",
    "embedder_spec": "the embedder a home's vectors are queried with, for the package's "
                     "checks; config.json and `atc doctor` say it to a user",
}


def _readme_text() -> str:
    return "\n".join(doc.read_text(encoding="utf-8") for doc in DOCS)


def _public_methods() -> list[str]:
    return sorted(name for name, member in inspect.getmembers(Memory)
                  if not name.startswith("_") and callable(member))


def _named_methods() -> set[str]:
    return set(re.findall(r"\b(?:mem|Memory)\.([a-z_]+)\b", _readme_text()))


def test_every_method_readme_names_exists():
    assert sorted(_named_methods() - set(_public_methods())) == []


def test_every_public_method_is_one_readme_tells_of():
    """A method only its docstring names (``rules_list``, ``rules_remove``, ``acquire`` were)
    is one a user reading README never finds, though the CLI they read about calls it."""
    untold = [name for name in _public_methods()
              if name not in _named_methods() and name not in NOT_IN_README]
    assert untold == [], f"public Memory methods README never names: {untold}"


def test_the_unnamed_methods_listed_still_exist():
    assert [name for name in NOT_IN_README if name not in _public_methods()] == []


def _shown_calls() -> list[tuple[str, list[str]]]:
    """(method, keywords) of each call README shows inline: ``Memory.hydrate(..., bridge=False)``,
    ``Memory.query(time_limit=)``."""
    calls = []
    for span in re.findall(r"`[^`]*?\b(?:mem|Memory)\.([a-z_]+)\(([^`()]*)\)", _readme_text()):
        method, args = span
        calls.append((method, re.findall(r"\b([a-z_]+)=", args)))
    return calls


SHOWN = _shown_calls()


@pytest.mark.parametrize("method, keywords", SHOWN, ids=[f"{m}({','.join(k)})" for m, k in SHOWN])
def test_each_call_readme_shows_takes_the_keywords_it_shows(method, keywords):
    params = inspect.signature(getattr(Memory, method)).parameters
    missing = [k for k in keywords if k not in params]
    assert missing == [], f"Memory.{method}{inspect.signature(getattr(Memory, method))}"


#: Keywords README's Python API section names bare (``walk=""``), and the methods it names
#: them of.
BARE_KEYWORDS = {"walk": ["hydrate"], "rules": ["hydrate", "query"],
                 "keep_indexes": ["release"]}


def _python_api_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Python API", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("keyword, methods", sorted(BARE_KEYWORDS.items()))
def test_each_bare_keyword_of_the_python_api_section_is_taken(keyword, methods):
    assert f"{keyword}=" in _python_api_section()
    lacking = [m for m in methods
               if keyword not in inspect.signature(getattr(Memory, m)).parameters]
    assert lacking == []


#: README's Python API section: each exception, the one it derives from, and what it carries.
EXCEPTIONS = {
    "InputError": ("AtcError", None), "UsageError": ("AtcError", None),
    "HomeError": ("AtcError", None), "EmbeddingError": ("AtcError", None),
    "PrologError": ("AtcError", "term"), "BadArgument": ("InputError", None),
    "WriterBusy": ("HomeError", "holder"),
}


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_each_exception_derives_as_readme_says(name):
    base, carries = EXCEPTIONS[name]
    section = _python_api_section()
    assert f"`{name}`" in section
    cls = getattr(attention_cloud, name)
    assert issubclass(cls, getattr(attention_cloud, base))
    if carries:
        assert f"`.{carries}`" in section
        assert getattr(cls("a message", **{carries: 7}), carries) == 7
