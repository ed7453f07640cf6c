:- use_module('../../rules/variant_guard', [variant_nodes_max/1]).
:- use_module(library(plunit)).
:- use_module(library(apply)).

% shared(+N, -T): a term of N levels, each holding the one below twice (2^N nodes unfolded,
% N + 1 cells of memory).
shared(N, T) :-
    numlist(1, N, L),
    foldl([_, T0, f(T0, T0)]>>true, L, a, T).

:- begin_tests(variant_guard).

test(a_term_unfolding_past_the_limit_is_refused,
     [throws(error(term_limit(shared_nodes, 1000000), _))]) :-
    shared(40, T),
    variant_sha1(T, _).

test(variant_hash_too, [throws(error(term_limit(shared_nodes, 1000000), _))]) :-
    shared(40, T),
    variant_hash(T, _).

test(a_shared_term_within_the_limit_is_hashed_as_its_copy) :-
    shared(12, T),                              % 4,096 nodes
    variant_sha1(T, H1),
    copy_term(T, C),
    variant_sha1(C, H2),
    H1 == H2.

test(a_large_term_without_sharing_is_the_builtins) :-
    numlist(1, 1500000, L),                     % 1,500,000 list cells, past the limit
    variant_sha1(L, H),
    atom_length(H, 40).

test(variables_keep_their_variant, true(H1 == H2)) :-
    variant_sha1(f(X, Y, X), H1),
    variant_sha1(f(A, B, A), H2),
    X-Y \== A-B.

test(a_cyclic_term_is_the_builtins_error, [throws(error(type_error(acyclic_term, _), _))]) :-
    X = f(X),
    variant_sha1(X, _).

test(the_limit, Max == 1000000) :-
    variant_nodes_max(Max).

:- end_tests(variant_guard).
