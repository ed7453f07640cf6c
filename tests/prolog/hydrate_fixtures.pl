:- module(hydrate_fixtures,
          [ turn_item/2,                  % +Turn, -Item
            seed_ids/2                    % +Goal, -Ids
          ]).
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(lists)).

/** <module> Shared pieces of the plunit suites that rank a goal's seeds with the host stubbed

A suite defines the host's searches it needs (atc_jump:semantic_hits/4,
atc_jump:lexical_hits/4); every record the jump compares with the window's items has cosine
0.1 (atc_jump:similarity_scores/4, here).
*/

:- dynamic atc_jump:similarity_scores/4.

atc_jump:similarity_scores(_, Joined, _, Pairs) :-
    atomic_list_concat(Records, '\n', Joined),
    findall(R-0.1, member(R, Records), Pairs).

%!  turn_item(+Turn, -Item) is det.
%
%   Item is the journal item of Turn, `Handle-Time-Seq-Text`: a user's turn of session "s".
turn_item(H-Time-Seq-Text, item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", Text, [])).

%!  seed_ids(+Goal, -Ids) is det.
%
%   Ids are the handles of Goal's best 10 seeds in segment `default`, best first
%   (atc_hydrate:seed_ranking/5).
seed_ids(Goal, Ids) :-
    once(atc_hydrate:seed_ranking(Goal, default, 10, _, Seeds)),
    findall(H, member(c(H, _, _, _, _), Seeds), Ids).
