"""Compile a list of literal phrases into one fast regular expression (a trie).

Python's regex engine tries the alternatives of ``a|b|c`` one by one at every position, so a
pattern of a hundred phrases costs a hundred checks per word. Factoring the phrases into a
trie (``fail(?:ed|s)?|fix(?:ed)?``) leaves a handful of checks per position, which is what
keeps cue detection cheap enough to run on every item.
"""
from __future__ import annotations

import re

_END = ""  # key marking "a phrase ends here" in the trie


def trie_pattern(phrases: list[str] | tuple[str, ...]) -> str:
    """A regex source matching exactly the given literal phrases, longest alternative first.

    Phrases are matched literally (special characters escaped). The result has no anchors or
    word boundaries; the caller adds those. Deterministic: the same phrases in any order give
    the same pattern.
    """
    root: dict[str, dict] = {}
    for phrase in sorted(set(phrases)):
        if not phrase:
            continue
        node = root
        for char in phrase:
            node = node.setdefault(char, {})
        node[_END] = {}
    return _emit(root)


def _emit(node: dict[str, dict]) -> str:
    ends_here = _END in node
    branches = []
    for char in sorted(k for k in node if k != _END):
        branches.append(_chain(char, node[char]))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if ends_here:
        return f"(?:{body})?" if len(branches) > 1 or len(branches[0]) > 1 else f"{body}?"
    return body


def _chain(char: str, node: dict[str, dict]) -> str:
    """Emit ``char`` followed by its subtree, folding single-child runs into one literal."""
    literal = [re.escape(char)]
    while _END not in node and len(node) == 1:
        (char, node), = node.items()
        literal.append(re.escape(char))
    return "".join(literal) + _emit(node)
