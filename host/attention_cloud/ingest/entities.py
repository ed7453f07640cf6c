"""Deterministic entity extraction: file paths, error class names, error-looking output.

Everything here is a plain regular expression over a bounded piece of text, so extraction is
cheap, repeatable and linear in the input. Paths are recognised by a known file extension
(``src/app.py``, ``/repo/README.md``, ``tests/test_x.py::test_y`` gives ``tests/test_x.py``);
error classes by the Python/Java naming habit of a capitalised identifier ending in ``Error``,
``Exception``, ``Warning``, ``Timeout``, ``Interrupt`` or ``Exit`` (``ValueError``,
``requests.exceptions.ReadTimeout`` gives ``ReadTimeout``).
"""
from __future__ import annotations

import posixpath
import re

MAX_ENTITIES_PER_KIND = 8
"""At most this many paths and this many error classes are linked from one item."""

_PROBE_CHARS = 20_000

_EXTENSIONS = (
    "py pyi pyx ipynb js jsx mjs cjs ts tsx vue svelte json jsonl yaml yml toml ini cfg conf env "
    "md rst txt csv tsv sql sh bash zsh fish ps1 bat go rs java kt kts scala groovy gradle rb php "
    "c h cc cpp cxx hpp hh cs fs swift m mm pl pm lua r jl dart ex exs erl hrl hs ml mli clj "
    "html htm css scss sass less xml xsd proto graphql gql tf tfvars hcl lock log cmake mk "
    "dockerfile tex bib svg"
).split()
_PATH = re.compile(
    r"(?<![\w./~@+-])"
    r"((?:~|\.{1,2})?/?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.(?:" + "|".join(_EXTENSIONS) + r"))"
    r"(?![\w/-]|\.\w)",
)
_ERROR_CLASS = re.compile(
    r"(?<![\w])(?:[A-Za-z_]\w*\.)*([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Timeout|Interrupt|Exit))\b"
)
_ERROR_CLASS_HINT = re.compile(r"Error|Exception|Warning|Timeout|Interrupt|Exit")

# Output that reports a failure: a Python traceback, "SomethingError: ..." or "Error: ..." at
# the start of a line, pytest/unittest failure summaries, non-zero exit statuses, shell and
# compiler failures. Anchored alternatives keep ordinary prose ("no errors found") out.
_ERROR_OUTPUT = re.compile(
    r"Traceback \(most recent call last\)"
    r"|^\s*(?:[\w.]*(?:Error|Exception)|Error|ERROR|FATAL|Fatal|fatal|error(?:\[\w+\])?)(?::|\s*!)\s"
    r"|^(?:FAILED|FAIL:|ERROR\b)"
    r"|\b[1-9]\d* (?:failed|errors?)\b(?=[ ,=]|$)"
    r"|\b[Ee]xit (?:code|status)[: ]\s*[1-9]\d*"
    r"|\bexited with (?:code|status) [1-9]\d*"
    r"|\b(?:returned )?non-zero exit"
    r"|: command not found\b"
    r"|^npm ERR!"
    r"|\bpanicked at\b",
    re.MULTILINE,
)


def probe(text: str) -> str:
    """A bounded view of ``text`` (head and tail) for pattern checks on huge outputs."""
    if len(text) <= 2 * _PROBE_CHARS:
        return text
    return text[:_PROBE_CHARS] + "\n" + text[-_PROBE_CHARS:]


def looks_like_error(text: str) -> bool:
    """True when tool output or a message reports a failure (see module docstring)."""
    return _ERROR_OUTPUT.search(probe(text)) is not None


def error_classes(text: str) -> list[str]:
    """Distinct error class names in ``text``, in order of first appearance (at most 8)."""
    view = probe(text)
    if _ERROR_CLASS_HINT.search(view) is None:
        return []
    found: list[str] = []
    for match in _ERROR_CLASS.finditer(view):
        name = match.group(1)
        if name not in found:
            found.append(name)
            if len(found) == MAX_ENTITIES_PER_KIND:
                break
    return found


def file_paths(text: str, cwd: str = "") -> list[str]:
    """Distinct file paths mentioned in ``text`` (made relative to ``cwd`` when under it)."""
    view = probe(text)
    if "." not in view:
        return []
    found: list[str] = []
    for match in _PATH.finditer(view):
        path = relative_path(match.group(1), cwd)
        if path not in found:
            found.append(path)
            if len(found) == MAX_ENTITIES_PER_KIND:
                break
    return found


def relative_path(path: str, cwd: str = "") -> str:
    """``path`` relative to ``cwd`` when it lies under it, else ``path`` normalised.

    Tools log absolute paths (``/home/dev/repo/src/app.py``) while people write relative ones
    (``src/app.py``); relating both to the same entity needs one spelling.
    """
    path = path.strip()
    if not path:
        return path
    if cwd and path.startswith("/") and cwd.startswith("/"):
        base = cwd.rstrip("/") + "/"
        if path.startswith(base):
            path = path[len(base) :]
    normal = posixpath.normpath(path) if "/." in path or "//" in path or path.startswith("./") else path
    return normal
