"""A query text's vector is kept for the principal whose call embedded it: one grantee's
search does not find another's (or the owner's) goal already embedded, which told them, by
how long their search took, what others had asked (README "Sharing")."""
from __future__ import annotations

import pytest

from attention_cloud.sharing import add_grant, add_principal
from attention_cloud.sharing.reads import reader_hydrate, reader_query
from granted_home import granted_memory

ASKED = "is the acquisition of initech closing in march"


@pytest.fixture
def embedded(tmp_path, monkeypatch):
    """The granted home with a second grantee, carol, and the texts its embedder embeds."""
    mem = granted_memory(tmp_path, "L0", curate=True)
    add_principal(mem, "carol")
    add_grant(mem, "carol", segments=["default"], ceiling="L0")
    embedder = mem.jump.embedder
    texts: list[str] = []
    real = embedder.embed

    def counted(batch, *a, **kw):
        texts.extend(batch)
        return real(batch, *a, **kw)

    monkeypatch.setattr(embedder, "embed", counted)
    yield mem, texts
    mem.close()


def test_a_goal_one_grantee_asked_is_embedded_again_for_another(embedded):
    mem, texts = embedded
    reader_hydrate(mem, "bob", ASKED)
    assert texts.count(ASKED) == 1
    # before: carol's search found bob's vector kept (no embedding: ~0.1 s faster with
    # MiniLM, median 18 ms against 109 for a text nobody asked)
    reader_query(mem, "carol", f'nearest("{ASKED}", 1, H)')
    assert texts.count(ASKED) == 2
    mem.query(f'nearest("{ASKED}", 1, H)')          # the owner's calls keep their own
    assert texts.count(ASKED) == 3


def test_a_principal_still_finds_their_own_goal_kept(embedded):
    mem, texts = embedded
    reader_hydrate(mem, "bob", ASKED)
    reader_query(mem, "bob", f'nearest("{ASKED}", 1, H)')
    mem.query(f'nearest("{ASKED}", 1, H)')
    mem.query(f'nearest("{ASKED}", 1, H)')
    assert texts.count(ASKED) == 2                  # once for bob, once for the owner


def test_whose_call_embeds_is_told_per_thread(embedded):
    """`atc serve` answers principals on threads of their own: the principal whose call embeds
    was one value for the whole process, so a grantee's call on one thread keyed the vectors
    another thread's call embedded (the owner's query, meanwhile, found bob's vector kept)."""
    import threading

    mem, texts = embedded
    inside, done = threading.Event(), threading.Event()

    def bobs_call():
        with mem.jump.queries_of("bob"):
            inside.set()
            done.wait(30)

    bob = threading.Thread(target=bobs_call)
    bob.start()
    assert inside.wait(30)
    try:
        mem.jump.query_vector(ASKED)               # the owner's, on this thread
    finally:
        done.set()
        bob.join(30)
    with mem.jump.queries_of("bob"):
        mem.jump.query_vector(ASKED)               # bob's own: not the owner's kept vector
    assert texts.count(ASKED) == 2
