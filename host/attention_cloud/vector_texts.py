"""What curation embeds of an item, by its kind: spoken turns whole, tool output by its head.

Agent transcripts are mostly tool output: on real Claude Code sessions the results of commands
(``tool_result``) and the file operations (``file_op``: a read, an edit's old and new strings)
held three quarters of the word pieces the embedder ran, and the embedder was ~95 % of
``atc curate``. What a goal finds such an item by is at its head: the command and the path, the
first lines of what it printed, the file and the start of the edit. So these two kinds are
embedded by their first :data:`TOOL_OUTPUT_HEAD_CHARS` characters and get no distillation
vector; BM25 still reads the whole text, the frame still shows it, and echo detection still
compares the whole texts. Measured on the real transcripts (BENCHMARKS.md, "Tool output by its
head"): the evidence in frames of 30 questions over them and the items' ranking by vector
alone held, with 45 % fewer word pieces embedded.

Every other kind (user goals, turns, conclusions, errors, notes, ...) is embedded whole, as
before, with its distillation vector: an error's cause is often at its end, and chat benchmarks
have no tool output at all, so their vectors are the same bit for bit.

An item of another kind whose distillation is its text (a short turn) or blank has no
distillation vector either; its text vector's meta says so (:func:`text_vector_meta`), so that
the check at the start of every curate run, which looks for missing vectors, does not ask
Prolog for that item's distillation again on every run.

Curation, its repair of missing vectors and ``atc curate --reembed`` all ask this module.
"""
from __future__ import annotations

from typing import Any

__all__ = ["indexed_text", "TOOL_OUTPUT_KINDS", "TOOL_OUTPUT_HEAD_CHARS", "NO_DISTILLATION_VECTOR",
           "HEAD_SETTING", "tool_output_head", "kinds_without_distillation", "item_vector_text",
           "has_distillation_vector", "text_vector_meta"]

#: Item kinds that are a tool's output or a file operation (not words a person or the agent
#: said): embedded by their head, without a distillation vector.
TOOL_OUTPUT_KINDS = frozenset({"tool_result", "file_op"})
#: Characters of a tool output's (indexed) text its vector reads: the command or path and the
#: first lines. 256 kept the frames and rankings measured; 320-512 did no better there.
TOOL_OUTPUT_HEAD_CHARS = 256
#: The config.json key that sets :data:`TOOL_OUTPUT_HEAD_CHARS` for a home: a number of
#: characters, or null to embed tool output whole with its distillation, like every other kind
#: (an embedder that reads far more than MiniLM's 256 word pieces, a remote one).
HEAD_SETTING = "tool_output_head_chars"
#: The meta field (and value) of the text vector of an item whose kind gets a distillation
#: vector but which has none: its distillation is its text, or blank.
NO_DISTILLATION_VECTOR = {"l2_vector": False}


def indexed_text(text: str, speaker: str | None) -> str:
    """What the embedder and BM25 see of an item: its text after its speaker's name, when
    the transcript names one ("Priya: I signed up ..."), so a goal naming her finds it."""
    return f"{speaker}: {text}" if speaker and text else text


def tool_output_head(config: dict[str, Any]) -> int | None:
    """The characters of a tool output a home's vectors read (its :data:`HEAD_SETTING`;
    :data:`TOOL_OUTPUT_HEAD_CHARS` unless set), None for the whole text."""
    return config.get(HEAD_SETTING, TOOL_OUTPUT_HEAD_CHARS)


def kinds_without_distillation(head: int | None = TOOL_OUTPUT_HEAD_CHARS) -> frozenset[str]:
    """The item kinds that get no distillation vector with tool output read by ``head``."""
    return frozenset() if head is None else TOOL_OUTPUT_KINDS


def item_vector_text(kind: str, text: str, head: int | None = TOOL_OUTPUT_HEAD_CHARS) -> str:
    """The text an item of ``kind`` is embedded as, given its indexed ``text`` (the text BM25
    reads: :func:`indexed_text`) and the home's ``head``
    (:func:`tool_output_head`)."""
    if head is not None and kind in TOOL_OUTPUT_KINDS:
        return text[:head]
    return text


def has_distillation_vector(kind: str, head: int | None = TOOL_OUTPUT_HEAD_CHARS) -> bool:
    """Whether curation gives an item of ``kind`` a vector of its distillation (L2) as well,
    when its L2 differs from its text (a tool output only when embedded whole)."""
    return kind not in kinds_without_distillation(head)


def text_vector_meta(meta: dict[str, Any], kind: str, distilled: bool,
                     head: int | None = TOOL_OUTPUT_HEAD_CHARS) -> dict[str, Any]:
    """The meta of an item's text vector, given the item's ``meta`` (as BM25 keeps it) and
    whether curation gave it a distillation vector: an item of a kind that gets one but has
    none carries :data:`NO_DISTILLATION_VECTOR`."""
    if distilled or not has_distillation_vector(kind, head):
        return meta
    return {**meta, **NO_DISTILLATION_VECTOR}
