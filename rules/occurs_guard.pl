:- module(atc_occurs_guard,
          [ occurs_pairs_max/1          % -Max
          ]).
:- use_module(library(lists), [member/2]).
% Arithmetic compiled to VM instructions (this file only): no call through arith_guard.pl.
:- set_prolog_flag(optimise, true).

/** <module> Unification with the occurs check, a binding at a time when the terms are big

unify_with_occurs_check/2 checks each variable it binds against the term it is bound to, in
one C call: time the number of variables times the size of what they are bound to. A goal
unifying f(A1, ..., A4000) with f(g(L), ..., g(L)), L one list of 100,000 numbers (a few
megabytes: shared), took 5.7 s; 40,000 by 1,000,000 would run for many minutes, no limit
interrupting.

So it is wrapped for every caller: when its two terms' sizes (term_size/2) multiply past
occurs_pairs_max/1 (100,000,000) and neither is cyclic, the unification is made here,
argument by argument, each binding checked by a call of its own, so the time limit stops it
between two. It succeeds and fails as the builtin does.
*/

%!  occurs_pairs_max(-Max) is det.
%   The most cells of one term times cells of the other one call of the builtin may take.
occurs_pairs_max(100000000).

unified_(X, Y, Wrapped) :-
    (   compound(X), compound(Y),
        term_size(X, SX), term_size(Y, SY),
        occurs_pairs_max(Max),
        SX * SY > Max,
        acyclic_term(X), acyclic_term(Y)
    ->  unify_oc_(X, Y)
    ;   call(Wrapped)
    ).

% unify_oc_(?X, ?Y): X and Y unified, no variable bound to a term that holds it.
unify_oc_(X, Y) :-
    (   var(X) -> bound_(X, Y)
    ;   var(Y) -> bound_(Y, X)
    ;   compound(X)
    ->  compound(Y),
        compound_name_arity(X, Name, Arity),
        compound_name_arity(Y, Name, Arity),
        args_(1, Arity, X, Y)
    ;   X = Y
    ).

bound_(V, T) :-
    (   var(T) -> V = T
    ;   atomic(T) -> V = T
    ;   term_variables(T, Vs),
        \+ ( member(W, Vs), W == V ),
        V = T
    ).

% args_(+I, +Arity, +X, +Y): arguments I.. unified, the last one as the last call (a list's
% tail), so a long list takes no stack.
args_(I, Arity, X, Y) :-
    arg(I, X, XA),
    arg(I, Y, YA),
    (   I =:= Arity
    ->  unify_oc_(XA, YA)
    ;   unify_oc_(XA, YA),
        I1 is I + 1,
        args_(I1, Arity, X, Y)
    ).

:- wrap_predicate(system:unify_with_occurs_check(X, Y), atc_occurs_guard, W,
                  atc_occurs_guard:unified_(X, Y, W)).

% The optimise flag ends with this file. Loaded from the compiled rules (.qlf) SWI-Prolog runs a
% file's directives without restoring its file-scoped flags at its end: the flag would stay set
% for the files and libraries loaded after it (their arithmetic past arith_guard.pl's check).
:- set_prolog_flag(optimise, false).
