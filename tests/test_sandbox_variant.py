"""Hashing a term whose subterms are shared may not hold the process past the time limit.

variant_sha1/2 and variant_hash/2 walk a term node by node in one C call, a shared subterm
once for each place it appears: a grantee's goal built a term of 40 levels, each holding the
one below twice (40 cells of memory, 2^40 nodes unfolded), and `variant_sha1(T, H)` held
`atc query --as bob --time-limit 1` past the test's 60 s (about two days at 0.66 s per 2^22
nodes). Now such a term is refused in one line before the builtin walks it (its check walks
at most 1,000,000 nodes: a fraction of a second, more than 1 s on a loaded machine, hence the
tests' 10 s limit).
"""
from __future__ import annotations

import pytest

from granted_home import granted_home, run_atc

SHARED = "numlist(1, 40, L), foldl([_, T0, f(T0, T0)]>>true, L, a, T)"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("variant"))


@pytest.mark.parametrize("reader", [(), ("--as", "bob")], ids=["owner", "grantee"])
@pytest.mark.parametrize("hash_goal", ["variant_sha1(T, H)", "variant_hash(T, H)"])
def test_a_term_of_shared_subterms_is_refused_not_walked(home, reader, hash_goal):
    out = run_atc(home, "query", *reader, "--time-limit", "10", f"{SHARED}, {hash_goal}")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == ("atc: term unfolds to more than 1,000,000 nodes (its shared "
                          "subterms counted each time they appear): too large to hash\n")


def test_small_terms_hash_as_before(home):
    out = run_atc(home, "query", "--as", "bob", "--format", "json",
                  "variant_sha1(f(X, Y, X), A), variant_sha1(f(P, Q, P), B), "
                  "(A == B -> Same = yes ; Same = no), atom_length(A, N)")
    assert out.returncode == 0, out.stderr
    assert '"Same": "yes"' in out.stdout and '"N": 40' in out.stdout
