"""The synthetic corpus generator: deterministic, exact item counts, parseable."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

from attention_cloud.ingest import parse_path

ROOT = Path(__file__).resolve().parent.parent


def load_generator():
    spec = importlib.util.spec_from_file_location(
        "gen_corpus", ROOT / "scripts" / "bench" / "gen_corpus.py"
    )
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules.setdefault("gen_corpus", module)  # dataclasses look their module up
    spec.loader.exec_module(sys.modules["gen_corpus"])
    return sys.modules["gen_corpus"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))}


def test_same_seed_same_corpus_and_exact_item_count(tmp_path):
    gen = load_generator()
    first = gen.generate(1500, tmp_path / "a", seed=7, mean_session_items=60)
    second = gen.generate(1500, tmp_path / "b", seed=7, mean_session_items=60)
    assert first == second and first.items == 1500
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    third = gen.generate(1500, tmp_path / "c", seed=8, mean_session_items=60)
    assert snapshot(tmp_path / "c") != snapshot(tmp_path / "a")
    assert third.items == 1500

    kinds: Counter[str] = Counter()
    sessions = set()
    items = 0
    for path in sorted((tmp_path / "a").rglob("*.jsonl")):
        result = parse_path(path)
        assert result.skipped == [] and result.format == "claude-code"
        items += len(result.items)
        kinds.update(i.kind for i in result.items)
        sessions.update(i.session for i in result.items)
    assert items == 1500
    assert set(kinds) == {"user_goal", "conclusion", "file_op", "error", "tool_result", "turn"}
    assert len(sessions) == first.files > 10


def test_command_line(tmp_path, capsys):
    gen = load_generator()
    assert gen.main(["--items", "200", "--out", str(tmp_path / "cli"), "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith("200 items, ")
    assert any((tmp_path / "cli").rglob("*.jsonl"))
