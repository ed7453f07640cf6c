"""Where derived files go (paths.cache_dir: the compiled rules, MiniLM's faster forms, the
static table). With no home folder to expand "~" in (a service account, a container), or an
XDG_CACHE_HOME that is not absolute (the XDG spec says to ignore it), the cache was a relative
path: building MiniLM's forms made `~/.cache/attention-cloud/` in whatever folder `atc` was
started from. The cache is now always absolute: this user's private temporary folder where
no other resolves, never the current folder."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from attention_cloud.paths import cache_dir


@pytest.fixture
def nowhere(tmp_path, monkeypatch) -> Path:
    """A process started in an empty folder, with no ATC_CACHE and a private temp dir."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("ATC_CACHE", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return work


def _scratch(tmp_path: Path) -> Path:
    return tmp_path / "tmp" / f"attention-cloud-{os.getuid()}"


@pytest.mark.parametrize("xdg", ["~/.cache", "relative/cache", ""])
def test_no_home_folder_puts_the_cache_in_a_private_temporary_folder(nowhere, tmp_path,
                                                                     monkeypatch, xdg):
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr("pwd.getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    assert cache_dir() == _scratch(tmp_path)


def test_a_relative_xdg_cache_home_is_ignored(nowhere, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert cache_dir() == tmp_path / "me" / ".cache" / "attention-cloud"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "attention-cloud"


def test_a_relative_home_is_no_home(nowhere, tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "somewhere")
    assert cache_dir() == _scratch(tmp_path)


def test_the_static_table_and_the_minilm_forms_never_land_in_the_current_folder(
        nowhere, tmp_path, monkeypatch):
    from attention_cloud.embed import derived
    from attention_cloud.embed.static import default_static_path

    monkeypatch.setenv("XDG_CACHE_HOME", "~/.cache")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr("pwd.getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    assert default_static_path().parent == _scratch(tmp_path)
    built = []
    monkeypatch.setattr(derived, "_build_into",
                        lambda form, source, sha, target, work: built.append(target) or target)
    derived.derived_model("exact", Path("unused.onnx"), "0" * 64)
    assert built == [_scratch(tmp_path) / built[0].name]
    assert list(nowhere.iterdir()) == []
    # a scratch folder that others may write into is never used, even as the cache itself
    _scratch(tmp_path).chmod(0o777)
    from attention_cloud.embed.static import StaticEmbedder
    from attention_cloud.errors import EmbeddingError
    with pytest.raises(EmbeddingError, match="set ATC_CACHE"):
        derived.derived_model("exact", Path("unused.onnx"), "0" * 64)
    with pytest.raises(EmbeddingError, match="other users may write"):
        StaticEmbedder()
