/*  Bench probe for scripts/bench/curate_memory.py: where Prolog's memory goes, by predicate. */
:- module(atc_bench_memory, [bench_top_predicates/2]).

%! bench_top_predicates(+MinBytes, -Top) is det.
%  Top: p(Name, Bytes, Clauses) of every atc_* predicate of at least MinBytes
%  (predicate_property/2 size: clauses and their indexes), largest first.
bench_top_predicates(Min, Top) :-
    findall(S-p(P, S, C),
            ( current_module(M), atom_concat(atc_, _, M),
              current_predicate(M:N/A), functor(H, N, A),
              \+ predicate_property(M:H, imported_from(_)),
              predicate_property(M:H, size(S)), S >= Min,
              ( predicate_property(M:H, number_of_clauses(C)) -> true ; C = 0 ),
              format(atom(P), '~w:~w/~w', [M, N, A]) ),
            Pairs),
    keysort(Pairs, Sorted), reverse(Sorted, Desc),
    findall(E, member(_-E, Desc), Top).
