:- use_module('../../rules/occurs_guard', [occurs_pairs_max/1]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% pair(+N, +M, -X, -Y): f(A1..AN) and f(g(L)..g(L)), L a list of M numbers.
pair(N, M, X, Y) :-
    length(As, N),
    numlist(1, M, L),
    length(Gs, N),
    maplist(=(g(L)), Gs),
    X =.. [f|As],
    Y =.. [f|Gs].

:- begin_tests(occurs_guard).

test(big_terms_unify_as_the_builtin) :-
    pair(2000, 100000, X, Y),
    unify_with_occurs_check(X, Y),
    arg(2000, X, g(L)),
    length(L, 100000).

test(a_binding_that_would_make_a_cycle_fails, [fail]) :-
    pair(2000, 100000, X, Y0),
    arg(1, X, A),
    Y0 =.. [f, _|Rest],
    Y =.. [f, g(A)|Rest],
    unify_with_occurs_check(X, Y).

test(a_later_binding_through_an_earlier_one_is_checked, [fail]) :-
    pair(2000, 100000, X0, Y0),
    X0 =.. [f, A|Rest],
    X =.. [f, A, A|Rest],
    Y0 =.. [f, _|YRest],
    Y =.. [f, B, g(B)|YRest],
    unify_with_occurs_check(X, Y).

test(a_big_unification_stops_at_the_time_limit, [throws(time_limit_exceeded)]) :-
    pair(40000, 1000000, X, Y),
    call_with_time_limit(0.5, unify_with_occurs_check(X, Y)).

test(small_terms_as_before) :-
    unify_with_occurs_check(f(X, b), f(a, Y)),
    X == a, Y == b,
    \+ unify_with_occurs_check(Z, f(Z)).

:- end_tests(occurs_guard).
