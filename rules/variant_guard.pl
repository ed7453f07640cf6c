:- module(atc_variant_guard,
          [ variant_nodes_max/1         % -Max
          ]).
:- use_module(library(terms), [term_size/2]).
% Arithmetic compiled to VM instructions (this file only): no call through arith_guard.pl.
:- set_prolog_flag(optimise, true).

/** <module> Hashing a term with shared subterms, refused past a size

variant_sha1/2 and variant_hash/2 walk a term node by node in one C call, a subterm that
appears twice walked twice. A term holding the one before it twice, 40 times over
(`numlist(1, 40, L), foldl([_, T0, f(T0, T0)]>>true, L, a, T)`: 40 cells of memory), is
2^40 nodes to them: 2^22 took 0.66 s, so 2^40 about two days, and a grantee's
`variant_sha1(T, H)` of it held `atc query --as bob --time-limit 1` until it was killed.
SWI-Prolog's comparisons and unification (==, =@=, compare/3, unify_with_occurs_check/2)
walk such a term once per shared subterm, as does term_size/2; only these two unfold it.

So both are wrapped for every caller: a term that unfolds to more nodes than
variant_nodes_max/1 (1,000,000: ~0.15 s to hash) and than it has cells in memory (a term
without shared subterms, however large, is the builtin's) is refused before the builtin
sees it, error(term_limit(shared_nodes, Max), _). size_abstract_term/3 tells, walking at
most that many nodes: the term is within them when its abstract is a variant of it.
*/

%!  variant_nodes_max(-Max) is det.
%   The most nodes (shared subterms counted each time they appear) a term of fewer cells may
%   unfold to for variant_sha1/2 and variant_hash/2.
variant_nodes_max(1000000).

% hashed_(+Term, +Wrapped): Wrapped (the builtin) once Term is known to unfold to few
% enough nodes. A cyclic term, or one with attributed variables, is the builtin's (its type
% error, at once).
hashed_(T, Wrapped) :-
    (   compound(T),
        acyclic_term(T),
        term_size(T, Cells),
        variant_nodes_max(Max0),
        Max is max(Max0, Cells),
        size_abstract_term(Max, T, Abstract),
        Abstract \=@= T
    ->  throw(error(term_limit(shared_nodes, Max0), _))
    ;   call(Wrapped)
    ).

		 /*******************************
		 *          THE WRAPPERS        *
		 *******************************/

:- wrap_predicate(system:variant_sha1(T, _), atc_variant_guard, W,
                  atc_variant_guard:hashed_(T, W)).
:- wrap_predicate(system:variant_hash(T, _), atc_variant_guard, W,
                  atc_variant_guard:hashed_(T, W)).

:- multifile prolog:error_message//1.
prolog:error_message(term_limit(shared_nodes, Max)) -->
    [ 'term unfolds to more than ~D nodes (its shared subterms counted each time they appear): too large to hash'-[Max] ].

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
