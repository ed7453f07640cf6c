"""The shapes README's Python comments state are read as they read to a user: a value that
lacks one is named, one that has it passes (tests/readme_example_shapes.py, which
tests/test_readme_commands.py runs each ```python block through)."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from readme_example_shapes import end_comments, shape_problems

SHAPES = Path(__file__).resolve().parent / "readme_example_shapes.py"


@dataclass
class IngestReport:
    new: int
    skipped: list


@dataclass
class Remembered:
    handle: str
    new: bool


@pytest.mark.parametrize("value, comment", [
    (IngestReport(2, []), "IngestReport(new=…, skipped=[…])"),
    (Remembered("it_1", True), "Remembered(handle=…, new=True)"),
    (None, "Item(kind=…, text=…), None if not held"),
    (IngestReport(0, []), "IngestReport; it says what came in"),
    ({"goal": "g", "plane": "p", "extra": 1}, "dict: goal, plane"),
    ([{"H": "it_1", "G": "x"}], '[{"H": "it_…", "G": "…"}]'),
    ('<memory-frame receipt="r_12">…', '<memory-frame receipt="r_…" source="x">…'),
    (42, "the frame, in prose: no shape"),
])
def test_a_value_of_the_shape_shown_passes(value, comment):
    assert shape_problems(value, comment) == []


@pytest.mark.parametrize("value, comment, named", [
    ({"new": 2}, "IngestReport(new=…)", "a IngestReport, not dict"),
    (IngestReport(2, ()), "IngestReport(new=…, skipped=[…])", "IngestReport.skipped is a list"),
    (IngestReport(2, []), "IngestReport(new=…, unchanged=…)", "no field 'unchanged'"),
    (Remembered("it_1", False), "Remembered(new=True)", "Remembered.new is True, not False"),
    (None, "Item(kind=…)", "a Item, not NoneType"),
    ({"goal": "g"}, "dict: goal, plane", "no key 'plane'"),
    ([{"H": "cell_1"}], '[{"H": "it_…"}]', "not beginning 'it_'"),
    ("<frame>", '<memory-frame receipt="r_…">…', "a text beginning"),
])
def test_a_value_lacking_the_shape_shown_is_named(value, comment, named):
    assert any(named in problem for problem in shape_problems(value, comment)), \
        shape_problems(value, comment)


def test_only_comments_after_code_are_read():
    source = "# a heading\nx = 1  # dict: a\n# a note\n"
    assert end_comments(source) == {2: "dict: a"}


def test_a_mismatch_in_a_nested_statement_fails_the_run(tmp_path):
    example = tmp_path / "example.py"
    example.write_text("with open(__file__) as f:\n"
                       "    rows = [{'H': 'x'}]   # [{\"H\": \"it_…\"}]\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(SHAPES), str(example)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 3 and "line 2:" in proc.stderr, proc.stderr
