:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).
:- use_module(hydrate_fixtures).

/* A goal naming a time whose window holds nothing (atc_hydrate:seed_ranking/5, the host's
   searches stubbed). The chats are from May; "the novel I finished in January" names a month
   no item was written in or names, so its words are what the turns are about: BM25 finds the
   January turn only when the search keeps "January", and without it ranks the other novel
   first. When an item lies in the window, the time words leave the search as before: the
   window weighs when, and "last week" as words would favour every turn that says it. */

:- dynamic atc_jump:semantic_hits/4, atc_jump:lexical_hits/4.
:- dynamic searched/1.

atc_jump:semantic_hits(_, _, _, hits("n_other\nn_january", [0.5, 0.5])).
atc_jump:lexical_hits(Q, _, _, Hits) :-
    assertz(searched(Q)),
    (   sub_atom_icasechk(Q, _, january)
    ->  Hits = [n_january-5.0, n_other-1.0]
    ;   Hits = [n_other-5.0, n_january-4.0]
    ).
memory_of_may :-
    store_reset,
    retractall(searched(_)),
    may_chats(Turns),
    maplist(turn_item, Turns, Items),
    journal_add_items(Items, _).

may_chats([ n_january-"2024-05-10T10:00:00Z"-0-"I finished The Nightingale in January, 440 pages.",
            n_other-"2024-05-12T10:00:00Z"-1-"I finished a novel about a lighthouse keeper." ]).

% One turn written in January: the window holds it.
memory_with_january :-
    store_reset,
    retractall(searched(_)),
    may_chats(Turns),
    maplist(turn_item, [n_old-"2024-01-20T10:00:00Z"-2-"Started a new book today."|Turns], Items),
    journal_add_items(Items, _).

:- begin_tests(hydrate_empty_window, [cleanup(store_reset)]).

% Before, "in January" left the search (the window, Jan 2024, holds none of the May chats)
% and the other novel ranked first by BM25.
test(a_window_holding_nothing_keeps_its_words_in_the_search,
     [setup(memory_of_may), true(First == n_january)]) :-
    seed_ids("Which novel did I finish in January?", [First|_]).

test(the_search_reads_the_goal_whole,
     [setup(memory_of_may), true(Q == "Which novel did I finish in January?")]) :-
    seed_ids("Which novel did I finish in January?", _),
    once(searched(Q0)),
    text_to_string(Q0, Q).

% A window holding an item reads the goal without its time words, as before.
test(a_window_holding_an_item_leaves_its_words_out_of_the_search,
     [setup(memory_with_january), true(Q == "Which novel did I finish")]) :-
    seed_ids("Which novel did I finish in January?", _),
    once(searched(Q0)),
    text_to_string(Q0, Q).

% A window holding every item ("since 2023" of chats from May 2024) tells none apart: it
% weighs nothing and the goal is searched whole. Before, its words left the search.
test(a_window_holding_every_item_keeps_its_words_in_the_search,
     [setup(memory_of_may), true(Q == "Which novel did I finish since 2023?")]) :-
    seed_ids("Which novel did I finish since 2023?", _),
    once(searched(Q0)),
    text_to_string(Q0, Q).

% A bound that leaves an item out (since 12 May: the 10 May turn) weighs as before.
test(a_bound_leaving_an_item_out_weighs,
     [setup(memory_of_may), true(Q == "Which novel did I finish")]) :-
    seed_ids("Which novel did I finish since May 12?", _),
    once(searched(Q0)),
    text_to_string(Q0, Q).

:- end_tests(hydrate_empty_window).
