"""scripts/bench/nearest.py: nearest/3 from Prolog per index policy, on a tiny corpus.

The run uses a temporary cache (corpus, home, vectors, stores) and a small random static
table instead of the distilled MiniLM table, so it needs no set-up and takes a few seconds.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench" / "nearest.py"
sys.path.insert(0, str(ROOT / "scripts" / "bench"))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from attention_cloud.embed.onnx_model import DEFAULT_VOCAB
    from attention_cloud.embed.wordpiece import load_vocabulary

    tmp = tmp_path_factory.mktemp("nearest")
    table = np.random.default_rng(0).standard_normal((len(load_vocabulary(DEFAULT_VOCAB)), 16))
    np.save(tmp / "table.npy", table.astype(np.float16))
    md = tmp / "BENCHMARKS.md"
    md.write_text("# Benchmarks\n\n## Embeddings and the jump (issue 3)\n\nEarlier figures.\n\n"
                  "## Hydration speed\n\nOther figures.\n", encoding="utf-8")
    out = tmp / "rows.json"
    command = [sys.executable, str(SCRIPT), "--cache", str(tmp / "cache"), "--corpus-items", "2000",
               "--sizes", "1200", "50000", "--queries", "20", "--embedder", f"static:{tmp / 'table.npy'}",
               "--update-md", "--md", str(md), "--json", str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8")), md.read_text(encoding="utf-8"), proc.stdout, tmp


def test_every_size_and_policy_is_measured_from_prolog(tiny_run):
    rows, *_ = tiny_run
    sizes = sorted({r["size"] for r in rows})
    assert sizes[0] == 1200
    # 2,000 items hold fewer than 50,000 distinct vectors: the largest available is indexed
    assert 1200 < sizes[1] < 2000
    assert [(r["size"], r["policy"]) for r in rows] == [(s, p) for s in sizes for p in ("flat", "hnsw", "ivf")]
    for r in rows:
        assert 0 < r["search_p50"] <= r["search_p95"]
        assert 0 < r["nearest_p50"] <= r["nearest_p95"]
        assert 0.5 <= r["recall_nearest"] <= 1.0


def test_flat_is_exact_and_prolog_returns_what_the_store_returns(tiny_run):
    rows, *_ = tiny_run
    for r in rows:
        if r["policy"] == "flat":
            assert r["recall_nearest"] == 1.0 and r["recall_search"] == 1.0
        assert r["recall_nearest"] == pytest.approx(r["recall_search"])


def test_table_lands_in_its_own_subsection(tiny_run):
    _, md, stdout, _ = tiny_run
    section = md.index("## Embeddings and the jump (issue 3)")
    sub = md.index("### nearest/3 from Prolog")
    assert section < md.index("Earlier figures.") < sub < md.index("## Hydration speed")
    lines = md[sub:md.index("## Hydration speed")].splitlines()
    headers = [line for line in lines if line.startswith("| vectors |")]
    rows = [line for line in lines if line.startswith("| 1,")]
    assert len(headers) == 2 and "recall@10 nearest/3" in headers[0]  # one table per size
    assert len(rows) == 6 and sum(line.count("Machine:") for line in lines) == 2
    assert "50,000 asked" in md and "Other figures." in md
    assert "| 1,200 | flat |" in stdout


def test_a_run_of_one_size_keeps_the_other_sizes_figures(tiny_run):
    *_, tmp = tiny_run
    md = tmp / "BENCHMARKS.md"
    command = [sys.executable, str(SCRIPT), "--cache", str(tmp / "cache"), "--corpus-items", "2000",
               "--sizes", "1200", "--policies", "flat", "--queries", "20",
               "--embedder", f"static:{tmp / 'table.npy'}", "--update-md", "--md", str(md)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = md.read_text(encoding="utf-8")
    before, small, large = text[text.index("### nearest/3 from Prolog"):].split("| vectors |")
    assert "--sizes 1200 --policies flat" in before  # the 1,200 table is the new run's ...
    assert [line[:16] for line in small.splitlines() if line.startswith("| 1,")] == ["| 1,200 | flat |"]
    assert "--sizes 1200 50000" in small  # ... the larger size keeps the first run's table
    assert len([line for line in large.splitlines() if line.startswith("| 1,")]) == 3


def test_recall_counts_boundary_ties_and_misses():
    import nearest

    scores = [0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.3, 0.3, 0.1]
    vectors = np.zeros((13, 4), dtype=np.float32)
    for row, score in enumerate(scores):
        vectors[row, 0] = score
        vectors[row, 1 + row % 3] = np.sqrt(1 - score * score)  # rows 9 and 10 differ, score alike
    vectors[12] = [1, 0, 0, 0]  # the query
    handles = [f"it_{row}" for row in range(13)]
    pool = nearest.Pool(vectors, handles, [""] * 13, [""] * 13, [""] * 13, {})
    row_of = {h: i for i, h in enumerate(handles)}
    query = np.array([12])
    truth_rows, truth_scores = nearest.exact_truth(pool, query, np.arange(12))
    assert sorted(truth_rows[0].tolist())[:9] == list(range(9)) and truth_rows[0][-1] in (9, 10)
    other_tie = "it_10" if truth_rows[0][-1] == 9 else "it_9"

    def recall(found: list[str]) -> float:
        return nearest.recall_at_k([found], truth_rows, truth_scores, pool, query, row_of)

    top9 = handles[:9]
    assert recall(top9 + [other_tie]) == 1.0  # the other of two equal 10th scores is as right
    assert recall(top9 + ["it_11"]) == pytest.approx(0.9)  # a lower-scoring row is a miss
    assert recall(top9[:5]) == pytest.approx(0.5)  # too few hits
