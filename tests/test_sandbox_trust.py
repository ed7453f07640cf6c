"""library(sandbox) takes each library's word for its own predicates: only the vouched ones'.

A library declares its own predicates safe (multifile sandbox:safe_primitive/1 and the like)
and the autoloader loads it for the first goal that names one, during the very check, so any
library on the system vouched for itself. Declarations now stand only from library(sandbox),
the project's rules and the libraries the project vouches for (rules/sandbox_trust.pl).
"""
from __future__ import annotations

import pytest

from test_sandbox_escapes import _refused

#: Goals that library(sandbox) allowed on the word of a library nobody vouched for.
UNVOUCHED = [
    # library(crypto): one C call per prime that no limit interrupts (at 50,000 bits, minutes)
    "crypto_generate_prime(64, P, [])",
    "maplist(crypto_is_prime, [7], [[]])",
    # library(sgml): dtd/2 loads a DTD file into an object shared by every later call
    "dtd(html, D)",
    # library(intercept)
    "intercept(send_signal(x), x, true)",
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A home of two lines, shared with bob."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("trust")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    notes = root / "notes.txt"
    notes.write_text("Ada: the kiln runs hot on Tuesdays.\nBen: then fire it on Monday.\n",
                     encoding="utf-8")
    mem = Memory.open(home)
    mem.ingest([notes], format="text")
    add_principal(mem, "alice", owner=True)
    add_principal(mem, "bob")
    add_grant(mem, "bob", segments=["default"], ceiling="L2")
    yield mem
    mem.close()


@pytest.mark.parametrize("goal", UNVOUCHED)
def test_a_library_nobody_vouched_for_cannot_declare_its_own_predicates_safe(shared, goal):
    """Asked twice: the first check autoloads the library (and its declarations), the
    second meets them already loaded; neither may trust them."""
    from attention_cloud.sharing import reader_query

    for _ in range(2):
        assert "No permission" in _refused(lambda: shared.query(goal))
        assert "No permission" in _refused(lambda: reader_query(shared, "bob", goal))


@pytest.mark.parametrize("goal, answer", [
    ("maplist([X, Y]>>(Y is X * 2), [1, 2], L)", [2, 4]),
    ("foldl([X, A0, A]>>(A is A0 + X), [1, 2, 3], 0, L)", 6),
    ("aggregate_all(count, item(_), L)", None),
    ("when(nonvar(X), L = X), X = 3", 3),
    ("isub(kiln, kilns, L, [normalize(true)])", None),
    ("must_be(integer, 3), forall(member(X, [1]), X > 0), L = ok", "ok"),
    ("debug(atc_topic, \"~w\", [x]), L = ok", "ok"),
    ("sha_hash(abc, H, []), hash_atom(H, L0), sub_atom(L0, 0, 4, _, L)", "a999"),
])
def test_the_vouched_libraries_still_answer(shared, goal, answer):
    from attention_cloud.sharing import reader_query

    for result in (shared.query(goal), reader_query(shared, "bob", goal)):
        assert result.rows, goal
        if answer is not None:
            assert result.rows[0]["L"] == answer, result.rows
