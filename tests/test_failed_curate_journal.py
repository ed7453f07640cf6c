"""A curate that fails (here its embedder's model file is missing) left an empty `commit(N).`
marker at the end of the journal, one more each run: the journal changed though nothing was
done. The journal's bytes are now as they were."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main


def test_a_failed_curate_leaves_the_journal_as_it_was(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "onnx:/nonexistent/model.onnx"}',
                                      encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                "--no-curate", "--home", str(home)])
    assert done.exit_code == 0, done.output
    before = (home / "journal.pl").read_bytes()
    for _ in range(2):
        out = runner.invoke(main, ["curate", "--home", str(home)])
        assert out.exit_code == 1, out.output
        assert out.stderr.endswith("atc: ONNX model not found: /nonexistent/model.onnx\n")
    assert (home / "journal.pl").read_bytes() == before
