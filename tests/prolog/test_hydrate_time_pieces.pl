:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).
:- use_module(hydrate_fixtures).

/* A goal naming times apart ("in January and March") weighs the items of those times, not of
   the months between (atc_hydrate:seed_ranking/5, the host's searches stubbed). Before, the
   goal's window was the span from January to March: the February dinner, which BM25 ranks
   first, took the ×1.4 too and stayed first; and a memory of January to March was a window
   holding every item, which weighed nothing. */

:- dynamic atc_jump:semantic_hits/4, atc_jump:lexical_hits/4.
:- dynamic searched/1.

atc_jump:semantic_hits(_, _, _, hits("c_jan\nc_feb\nc_mar", [0.5, 0.5, 0.5])).
atc_jump:lexical_hits(Q, _, _, [c_feb-5.0, c_jan-4.0, c_mar-4.0]) :-
    assertz(searched(Q)).
dinners :-
    store_reset,
    retractall(searched(_)),
    maplist(turn_item, [ c_jan-"2024-01-14T19:00:00Z"-0-"I cooked a mushroom risotto for dinner.",
                    c_feb-"2024-02-11T19:00:00Z"-1-"I cooked a lamb curry for dinner, the best dinner yet.",
                    c_mar-"2024-03-17T19:00:00Z"-2-"I cooked a lemon pasta for dinner." ], Items),
    journal_add_items(Items, _).

:- begin_tests(hydrate_time_pieces, [cleanup(store_reset)]).

test(two_months_apart_weigh_not_the_one_between,
     [setup(dinners), true(Firsts-Last == [c_jan, c_mar]-c_feb)]) :-
    seed_ids("What did I cook for dinner in January and March?", [A, B, Last]),
    msort([A, B], Firsts).

% A span of the times that holds every item still weighs its pieces while the months between
% hold items: the time words leave the search.
test(a_span_holding_all_but_its_gaps_weighs,
     [setup(dinners), true(Q == "What did I cook for dinner")]) :-
    seed_ids("What did I cook for dinner in January and March?", _),
    once(searched(Q0)),
    text_to_string(Q0, Q).

% A range names the months between: February is inside "from January to March".
test(a_range_weighs_the_months_between,
     [setup(dinners), true(First == c_feb)]) :-
    seed_ids("What did I cook for dinner from January to March?", [First|_]).

% The receipt says which facts lie inside the times: not February's.
test(in_window_is_inside_a_piece, [setup(dinners), true(Pairs == [c_jan-written, c_mar-written])]) :-
    atc_hydrate:time_anchor_("What did I cook in January and March?", default, _, Anchor),
    findall(F, ( member(H, [c_jan, c_feb, c_mar]),
                 functor(F, fact, 11), arg(1, F, H) ), Facts),
    atc_hydrate:fact_windows_(Anchor, Facts, InWindow),
    dict_pairs(InWindow, _, Pairs).

:- end_tests(hydrate_time_pieces).
