"""Run a README ```python example as a script, checking that what each line comes back with has
the shape the comment beside it says.

    python readme_example_shapes.py example.py

A comment at the end of a statement (``report = mem.ingest([...])  # IngestReport(new=…,
skipped=[…])``) that states a shape is checked against the value the statement computed (the
expression's, or the assigned name's), at any depth (inside a ``with`` too):

* ``Name(field=…, flag=True, items=[…])``, anywhere in the comment: an instance of a class
  named ``Name`` with each field; a field shown as a literal (``True``, ``3``) has that value,
  one shown as ``[…]`` is a list; ``, None if …`` after it allows None;
* ``Name;`` or a lone ``Name`` opening the comment: an instance of a class named ``Name``;
* ``dict: a, b, c``: a dict holding those keys;
* ``[{"H": "it_…", "G": "…"}]``, prose after it or not: a list of dicts, each holding those
  keys, a value shown with a text before ``…`` beginning with it;
* ``<tag attr="prefix…``: a string beginning with the text before the first ``…``.

Any other comment is prose and checks nothing. A shape the value lacks exits 3 with one line per
mismatch, naming the example's line; the example's own errors propagate as they would.
"""
from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
from typing import Any

_CALL = re.compile(r"\b([A-Z]\w+)\(([^()]*)\)")
_BARE = re.compile(r"^([A-Z][A-Za-z]+)(?:;|$)")
_DICT = re.compile(r"^dict: ([\w, ]+)$")
_ROWS = re.compile(r"^\[\{(.*?)\}\]")
_MARKUP = re.compile(r"^(<[\w-]+ [^…]*)…")


def shape_problems(value: Any, comment: str) -> list[str]:
    """What ``value`` lacks of the shape ``comment`` states (nothing when it states none)."""
    comment = comment.strip()
    if match := _CALL.search(comment):
        name, fields = match.groups()
        if value is None and re.search(r"None if", comment[match.end():]):
            return []
        problems = _class_problems(value, name)
        for field in (f.strip() for f in fields.split(",")):
            if field in ("", "…"):    # "and more fields"
                continue
            key, _, shown = (part.strip() for part in field.partition("="))
            problems += _field_problems(value, name, key, shown)
        return problems
    if match := _BARE.match(comment):
        return _class_problems(value, match.group(1))
    if match := _DICT.match(comment):
        keys = [k.strip() for k in match.group(1).split(",")]
        if not isinstance(value, dict):
            return [f"a dict, not {type(value).__name__}"]
        return [f"no key {k!r}" for k in keys if k not in value]
    if match := _ROWS.match(comment):
        shown = dict(re.findall(r'"(\w+)": "([^"…]*)…?"', match.group(1)))
        if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
            return [f"a list of dicts, not {value!r:.80}"]
        return [f"row {row!r:.80}: {k!r} missing or not beginning {prefix!r}"
                for row in value for k, prefix in shown.items()
                if not str(row.get(k, "\0")).startswith(prefix)]
    if match := _MARKUP.match(comment):
        prefix = match.group(1)
        if not isinstance(value, str) or not value.startswith(prefix):
            return [f"a text beginning {prefix!r}, not {str(value)[:80]!r}"]
    return []


def _class_problems(value: Any, name: str) -> list[str]:
    names = [cls.__name__ for cls in type(value).__mro__]
    return [] if name in names else [f"a {name}, not {type(value).__name__} ({value!r:.80})"]


def _field_problems(value: Any, name: str, key: str, shown: str) -> list[str]:
    if not hasattr(value, key):
        return [f"{name} has no field {key!r}"]
    got = getattr(value, key)
    if shown == "[…]" and not isinstance(got, list):
        return [f"{name}.{key} is a list, not {type(got).__name__}"]
    try:
        literal = ast.literal_eval(shown) if shown and "…" not in shown else None
    except (ValueError, SyntaxError):
        return []
    if literal is not None and got != literal:
        return [f"{name}.{key} is {literal!r}, not {got!r}"]
    return []


def end_comments(source: str) -> dict[int, str]:
    """The comment ending each line that holds code before it: line number -> its text."""
    comments, code_lines = {}, set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            if token.start[0] in code_lines:
                comments[token.start[0]] = token.string[1:].strip()
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT, tokenize.ENCODING):
            code_lines.add(token.start[0])
    return comments


class _Checked(ast.NodeTransformer):
    """After each statement whose last line's comment is in ``comments``, a call of
    ``__shape__(value, comment, line)``."""

    def __init__(self, comments: dict[int, str]):
        self.comments = comments

    def _check(self, value: ast.expr, line: int) -> ast.stmt:
        return ast.Expr(ast.Call(ast.Name("__shape__", ast.Load()),
                                 [value, ast.Constant(self.comments[line]), ast.Constant(line)],
                                 []))

    def visit_Expr(self, node: ast.Expr):
        if node.end_lineno not in self.comments:
            return node
        kept = ast.Assign([ast.Name("__value__", ast.Store())], node.value)
        return [kept, self._check(ast.Name("__value__", ast.Load()), node.end_lineno)]

    def visit_Assign(self, node: ast.Assign):
        target = node.targets[0]
        if node.end_lineno not in self.comments or not isinstance(target, ast.Name):
            return node
        return [node, self._check(ast.Name(target.id, ast.Load()), node.end_lineno)]


def run(path: str) -> list[str]:
    """Run the example at ``path``; the shape mismatches found, one line each."""
    source = open(path, encoding="utf-8").read()
    tree = ast.fix_missing_locations(_Checked(end_comments(source)).visit(ast.parse(source)))
    found: list[str] = []

    def shape(value: Any, comment: str, line: int) -> None:
        found.extend(f"line {line}: `# {comment}`: {p}" for p in shape_problems(value, comment))

    # The example sees itself as the script run, as under `python example.py`: its argv, and
    # its own folder first on the import path (not this file's).
    sys.argv = [path]
    sys.path[0] = os.path.dirname(os.path.abspath(path))
    exec(compile(tree, path, "exec"),
         {"__name__": "__main__", "__file__": path, "__shape__": shape})
    return found


if __name__ == "__main__":
    problems = run(sys.argv[1])
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(3)
