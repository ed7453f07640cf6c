"""scripts/bench/minilm_curate.py: a failing curate child says why, and ``--phases`` clocks
where a curate's CPU goes (hash embedder here: the bench's own MiniLM runs are minutes)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import minilm_curate  # noqa: E402
from attention_cloud.paths import samples_dir  # noqa: E402


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """The bundled agent sessions ingested the way the bench ingests its corpus."""
    home = tmp_path_factory.mktemp("minilm-curate") / "template"
    minilm_curate.ingest(samples_dir(), home)
    return home


def test_a_failing_child_stops_the_bench_with_its_own_error(template, tmp_path, capsys,
                                                             monkeypatch):
    """A ``--before`` tree whose curate fails (here: its package does not import) ends the
    bench with exit 1 and the child's traceback, not a bare CalledProcessError."""
    broken = tmp_path / "broken"
    (broken / "host" / "attention_cloud").mkdir(parents=True)
    (broken / "host" / "attention_cloud" / "__init__.py").write_text(
        "raise RuntimeError('this tree is broken on purpose')\n", encoding="utf-8")
    monkeypatch.setattr(minilm_curate, "ingest", lambda data, home: _copy(template, home))
    code = minilm_curate.main(["--before", str(broken), "--embedders", "hash", "--rounds", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert "this tree is broken on purpose" in err and "exited 1" in err


def test_phases_add_up_to_the_curate_and_name_the_embedder(template, tmp_path):
    figures = minilm_curate.curate(minilm_curate.ROOT, "hash", template, tmp_path, phases=True)
    phases = figures["phases"]
    assert figures["items"] > 20 and phases["missing"] == []
    clocked = {label: phases[label] for label, _ in minilm_curate.PHASES}
    assert clocked["the embedder"] > 0 and clocked["the extractive curator (items)"] > 0
    assert clocked["ladder facts into Prolog (store_ladder)"] > 0
    assert all(seconds >= 0 for seconds in clocked.values())
    assert sum(clocked.values()) + phases["other"] == pytest.approx(figures["cpu"], abs=1e-2)


def _copy(source: Path, target: Path) -> int:
    import shutil

    shutil.copytree(source, target)
    return 1
