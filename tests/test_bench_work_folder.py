"""A bench run's work folder (``bench_env.WorkFolder``) is removed when the run ends, unless
the run kept it for a reason, ended on an exception, or was given a folder of its own: and a
kept folder is named. Runs that kept theirs every time left dozens in /tmp per suite run."""
from __future__ import annotations

import pytest

from bench_scripts import load_bench_script

bench_env = load_bench_script("bench_env")


def test_a_run_that_found_nothing_leaves_no_folder(children_tmpdir, capsys):
    with bench_env.WorkFolder("atc-some-soak-") as work:
        (work.path / "home").mkdir()
        assert work.path.parent.samefile(children_tmpdir)
    assert list(children_tmpdir.iterdir()) == []
    assert capsys.readouterr().out == ""


def test_a_run_that_found_something_keeps_the_folder_and_names_it(children_tmpdir, capsys):
    with bench_env.WorkFolder("atc-some-soak-") as work:
        (work.path / "hang-watch-1.txt").write_text("stacks")
        work.keep("1 hang")
    assert (work.path / "hang-watch-1.txt").read_text() == "stacks"
    assert capsys.readouterr().out == f"work folder kept (1 hang): {work.path}\n"


def test_a_run_that_ended_on_an_exception_keeps_the_folder(children_tmpdir, capsys):
    with pytest.raises(KeyError):
        with bench_env.WorkFolder("atc-some-soak-") as work:
            raise KeyError("x")
    assert work.path.is_dir()
    assert capsys.readouterr().out == (f"work folder kept (the run ended on KeyError): "
                                       f"{work.path}\n")


def test_a_folder_named_by_the_caller_is_made_and_kept(tmp_path, children_tmpdir, capsys):
    named = tmp_path / "keep" / "here"
    with bench_env.WorkFolder("atc-some-soak-", named) as work:
        assert work.path == named and named.is_dir()
    assert named.is_dir() and list(children_tmpdir.iterdir()) == []
    assert capsys.readouterr().out == f"work folder kept (--keep): {named}\n"
