:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* Which segments of a frame may receive what other segments leave unspent
   (atc_hydrate:open_segments_/4): those whose budget the plane leaves open ('*'), never one
   whose budget the user wrote (a plane_segment/3 naming it, or `--segment S=N`); and what a
   segment says of the candidates it left out (more_left_out_/3). */

item_(H, Segment, item(H, src, "s", 0, turn, user, "", "2024-01-05T10:00:00Z", Segment,
                       "f:1", "a turn", [])).

memory :-
    store_reset,
    maplist(item_, [w1, c1, t1], [work, chats, travel], Items),
    journal_add_items(Items, _).

% A rules module of its own: plane `split` names `work`, the rest share what is left.
budget_rules:plane(split, _{}).
budget_rules:plane(fixed, _{}).
budget_rules:plane_segment(split, work, 2).
budget_rules:plane_segment(split, '*', 1).
budget_rules:plane_segment(fixed, work, 1).
budget_rules:plane_segment(fixed, chats, 1).

:- begin_tests(hydrate_budget, [setup(memory), cleanup(store_reset)]).

test(shipped_plane_every_segment_open, Open == [chats, travel, work]) :-
    atc_hydrate:open_segments_(none, default, [], Open).

test(written_budget_stays_closed, Open == [travel, work]) :-
    atc_hydrate:open_segments_(none, execution, [chats-100], Open).

test(named_segment_stays_closed, Open == [chats, travel]) :-
    atc_hydrate:open_segments_(budget_rules, split, [], Open).

test(plane_without_star_has_none_open, Open == []) :-
    atc_hydrate:open_segments_(budget_rules, fixed, [], Open).

test(more_is_the_best_left_out, Pairs == [more-0.8, segment-work]) :-
    atc_hydrate:more_left_out_([c(a, 0.3, relevance, 0, x), c(b, 0.8, relevance, 1, x)],
                               _{segment: work}, Meta),
    dict_pairs(Meta, _, Pairs).

test(nothing_left_out_says_nothing, Pairs == [segment-work]) :-
    atc_hydrate:more_left_out_([], _{segment: work}, Meta),
    dict_pairs(Meta, _, Pairs).

:- end_tests(hydrate_budget).
