:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/ladder').
:- use_module(library(plunit)).

fresh :- store_reset.
add(H, Seq, Goal) :-
    journal_add_items([item(H, src, "s1", Seq, conclusion, assistant, Goal, "", default, "f:1",
                            "We decided to use backoff.", [])], _).
rungs(Id, Prov) :-
    ladder_store([rungs(Id, 'extractive@1', "one", "decisions: use backoff", "tags: x",
                        t(1, 4, 2), [decision-"use backoff"], Prov)]).

:- begin_tests(ladder, [setup(fresh), cleanup(fresh)]).

test(rungs_and_l0, [setup(fresh), true(L-T1 == ["We decided to use backoff.", "one"]-"one")]) :-
    add(h1, 0, "g"), rungs(h1, [h1]),
    findall(X, ( member(Lv, [l0, l1]), rung(h1, Lv, X) ), L),
    rung(h1, l1, T1).

test(restore_replaces, [setup(fresh), true(N == 1)]) :-
    add(h1, 0, "g"), rungs(h1, [h1]), rungs(h1, [h1]),
    aggregate_all(count, rung(h1, l1, _), N).

test(uncurated, [setup(fresh), true(Hs == [h2])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"), rungs(h1, [h1]),
    ladder_uncurated(10, Vs),
    findall(H, member(view(H, _, _, _, _, _, _, _), Vs), Hs).

test(uncurated_count_follows_curation, [setup(fresh), true(Ns == [2, 1, 0])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_uncurated_count(N0),
    rungs(h1, [h1]), ladder_uncurated_count(N1),
    rungs(h2, [h2]), ladder_uncurated_count(N2),
    Ns = [N0, N1, N2].

test(smallest_skeleton, [setup(fresh), true(T == 2)]) :-
    add(h1, 0, "g"), \+ ladder_smallest_skeleton(_),
    rungs(h1, [h1]), ladder_smallest_skeleton(T).

test(arc_members_in_order, [setup(fresh), true(Ms == [h1, h2])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([arc(arc_1, s1, "g", [h1, h2])]),
    findall(H, arc_member(arc_1, H), Ms).

test(forgetting_invalidates_derivatives, [setup(fresh), true(Ids-Left == [arc_1]-[])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([arc(arc_1, s1, "g", [h1, h2])]),
    rungs(arc_1, [h1, h2]),
    journal_tombstone(h1, "forget"),
    findall(T, rung(arc_1, l1, T), []),
    ladder_invalidate([h1], Ids),
    findall(A, arc(A), Left).

test(erasing_drops_echo_marks, [setup(fresh), true(Echoes-Marks == [h2]-[])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([echo(h2, h1, 0.9)]),
    ladder_erase([h1], _, Echoes),
    findall(E-O, atc_ladder:echo_(E, O, _), Marks).

test(bad_record, [setup(fresh), throws(error(domain_error(ladder_record, junk), _))]) :-
    ladder_store([junk]).

:- end_tests(ladder).
