"""What curation embeds of an item depends on its kind: a tool's output and a file operation by
their head, without a distillation vector; everything a person or the agent said whole, with one.

A user curating an agent's transcripts relies on it for speed (tool output is most of the text)
and on the rest for recall: BM25 still reads a tool output whole, and the same rule holds for
vectors made by curation, by its repair of missing vectors and by ``atc curate --reembed``.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.embed import load_embedder
from attention_cloud.home import write_config
from attention_cloud.jump import distillation_key
from attention_cloud.paths import samples_dir
from attention_cloud.vector_texts import TOOL_OUTPUT_HEAD_CHARS, TOOL_OUTPUT_KINDS, indexed_text

from test_reembed import stored


def run(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


@pytest.fixture(scope="module")
def curated(tmp_path_factory) -> Path:
    """The bundled agent sessions (tool results, file operations, errors, goals, conclusions)
    ingested and curated with the hash embedder."""
    home = tmp_path_factory.mktemp("tool-vectors") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(samples_dir()), home=home).exit_code == 0
    assert run("curate", home=home).exit_code == 0
    return home


def items_by_kind(mem: Memory) -> dict[str, list[tuple[str, str]]]:
    """kind -> [(handle, indexed text)] of the home's curated items."""
    out: dict[str, list[tuple[str, str]]] = {}
    for row in mem.query("item_kind(H, K), item_text(H, T)").rows:
        out.setdefault(str(row["K"]), []).append((str(row["H"]), indexed_text(str(row["T"]), None)))
    return out




def check_the_rule(home: Path, spec: str) -> None:
    """Each tool output's vector is its head's and it has no distillation vector; a longer
    one's differs from its whole text's; every other item's vector is its whole text's."""
    embedder = load_embedder(spec)
    vectors = stored(home)
    with Memory.open(home) as mem:
        kinds = items_by_kind(mem)
    long_tool_outputs = 0
    for kind, items in kinds.items():
        for handle, text in items:
            if kind in TOOL_OUTPUT_KINDS:
                head = text[:TOOL_OUTPUT_HEAD_CHARS]
                assert np.allclose(vectors[handle], embedder.embed([head])[0], atol=1e-3), handle
                assert distillation_key(handle) not in vectors, handle
                if len(text) > TOOL_OUTPUT_HEAD_CHARS:
                    long_tool_outputs += 1
                    assert not np.allclose(vectors[handle], embedder.embed([text])[0], atol=1e-3)
            else:
                assert np.allclose(vectors[handle], embedder.embed([text])[0], atol=1e-3), handle
    assert long_tool_outputs >= 3  # the samples hold long greps, edits and a subagent's report
    others = [h for k, items in kinds.items() if k not in TOOL_OUTPUT_KINDS for h, _ in items]
    assert any(distillation_key(h) in vectors for h in others)  # what people said keeps its L2


def test_curation_embeds_tool_output_by_its_head_and_what_was_said_whole(curated):
    check_the_rule(curated, "hash")


def test_bm25_still_finds_a_tool_output_by_words_past_its_head(curated):
    with Memory.open(curated) as mem:
        kinds = items_by_kind(mem)
        handle, text = next((h, t) for k in sorted(TOOL_OUTPUT_KINDS) for h, t in kinds.get(k, [])
                            if len(t) > TOOL_OUTPUT_HEAD_CHARS + 40)
        hits = [key for key, _ in mem.jump.lexical.search(text[TOOL_OUTPUT_HEAD_CHARS:], 3)]
    assert handle in hits


def test_repair_gives_lost_vectors_back_by_the_same_rule(curated, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(curated, home)
    with Memory.open(home) as mem:
        keys = list(mem.jump.vectors.keys())
        mem.jump.remove([k for k in keys if "#" not in k])  # every item and arc loses its vectors
        mem.jump.flush()
    assert not [k for k in stored(home) if k.startswith("it_") and "#" not in k]
    out = run("curate", "--format", "json", home=home)
    assert out.exit_code == 0, out.output
    check_the_rule(home, "hash")


def test_reembed_follows_the_same_rule(curated, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(curated, home)
    out = run("curate", "--reembed", "--embedder", "hash:256", home=home)
    assert out.exit_code == 0, out.output
    check_the_rule(home, "hash:256")


def test_a_second_curate_does_not_look_for_tool_output_distillations(curated, tmp_path,
                                                                      monkeypatch):
    """The check that every item has its vectors, at the start of each run, passes over tool
    output (which has no distillation vector by design) instead of asking Prolog for each
    one's distillation on every run: at a million agent items that was most of the home, every
    time."""
    import attention_cloud.curation as curation

    home = tmp_path / "home"
    shutil.copytree(curated, home)
    asked: list[str] = []
    original = curation._distillation_entries
    monkeypatch.setattr(curation, "_distillation_entries",
                        lambda mem, handles: asked.extend(handles) or original(mem, handles))
    with Memory.open(home) as mem:
        tool_items = {h for k in TOOL_OUTPUT_KINDS for h, _ in items_by_kind(mem).get(k, [])}
        report = mem.curate()
    assert tool_items and report.items == 0 and report.repaired == 0 and report.embedded == 0
    assert not tool_items & set(asked)


def test_a_home_can_embed_tool_output_whole(tmp_path):
    """``"tool_output_head_chars": null`` (an embedder that reads far more than MiniLM's 256
    word pieces) embeds tool output whole, with its distillation, like every other kind."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash", "tool_output_head_chars": None})
    assert run("ingest", str(samples_dir()), home=home).exit_code == 0
    assert run("curate", home=home).exit_code == 0
    embedder = load_embedder("hash")
    vectors = stored(home)
    with Memory.open(home) as mem:
        kinds = items_by_kind(mem)
    tool_outputs = [(h, t) for k in sorted(TOOL_OUTPUT_KINDS) for h, t in kinds.get(k, [])]
    assert len([t for _, t in tool_outputs if len(t) > TOOL_OUTPUT_HEAD_CHARS]) >= 3
    for handle, text in tool_outputs:
        assert np.allclose(vectors[handle], embedder.embed([text])[0], atol=1e-3), handle
    assert any(distillation_key(h) in vectors for h, _ in tool_outputs)


def test_a_shorter_head_is_what_tool_output_is_embedded_by(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash", "tool_output_head_chars": 64})
    assert run("ingest", str(samples_dir()), home=home).exit_code == 0
    assert run("curate", home=home).exit_code == 0
    embedder = load_embedder("hash")
    vectors = stored(home)
    with Memory.open(home) as mem:
        kinds = items_by_kind(mem)
    for handle, text in (p for k in sorted(TOOL_OUTPUT_KINDS) for p in kinds.get(k, [])):
        assert np.allclose(vectors[handle], embedder.embed([text[:64]])[0], atol=1e-3), handle
        assert distillation_key(handle) not in vectors


@pytest.mark.parametrize("value", ["256", 0, -5, True, 1.5])
def test_a_bad_head_is_one_line_naming_the_key(tmp_path, value):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(samples_dir()), home=home).exit_code == 0
    journal = (home / "journal.pl").read_bytes()
    config = json.loads((home / "config.json").read_text())
    (home / "config.json").write_text(json.dumps({**config, "tool_output_head_chars": value}))
    out = CliRunner().invoke(main, ["curate", "--home", str(home)])
    assert out.exit_code != 0
    message = out.output.strip()
    assert "tool_output_head_chars" in message and len(message.splitlines()) == 1, message
    assert (home / "journal.pl").read_bytes() == journal
