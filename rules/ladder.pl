:- module(atc_ladder,
          [ rung/3,                     % ?Id, ?Level, ?Text
            rung_tokens/3,              % ?Id, ?Level, ?Tokens
            distilled/3,                % ?Id, ?Field, ?Value
            provenance/2,               % ?Id, ?SourceHandle
            arc/1,                      % ?Arc
            arc_member/2,               % ?Arc, ?Handle
            arc_goal/2,                 % ?Arc, ?Goal
            arc_session/2,              % ?Arc, ?Session
            item_arc/2,                 % ?Handle, ?Arc
            rollup/2,                   % ?Rollup, ?Session
            echo_of/3,                  % ?Echo, ?Original, ?Similarity
            curated/2,                  % ?Id, ?Curator

            ladder_store/1,             % +Records
            ladder_uncurated/2,         % +Limit, -Items
            ladder_uncurated_count/1,   % -Count
            ladder_uncurated_of/2,      % +Handles, -Items
            ladder_unrung/2,            % +Ids, -Unrung
            ladder_smallest_skeleton/1, % -Tokens
            ladder_session_items/2,     % +Session, -Items
            ladder_curated_items/1,     % -Handles
            ladder_distillations/2,     % +Handles, -Records
            ladder_item_segments/2,     % +Handles, -Pairs
            ladder_stale_sessions/1,    % -Sessions
            ladder_invalidate/2,        % +Handles, -Invalidated
            ladder_erase/3,             % +Handles, -Invalidated, -Echoes
            ladder_drop_records/1,      % +Ids
            ladder_expire/3             % +Level, +Before, -Count
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(solution_sequences)).
:- use_module(store).
:- use_module(journal).

/** <module> The level-of-detail ladder: rungs, distillations, arcs, rollups, echoes

L0 is the verbatim item text (owned by the journal). Curation adds, for every item, arc and
session rollup: L1 (one sentence), L2 (the distillation, rendered; its structured parts are
distilled/3 facts) and L3 (the skeleton: tags, entities, pointer). Every curated record names
the items it was computed from (provenance/2), so forgetting an item can invalidate what was
derived from it.

```
?- item_kind(H, error), rung(H, l1, Summary).
?- arc_member(A, H), rung(A, l2, Distillation).
```
*/

:- dynamic
    rung_/4,          % Id, Level, Text, Tokens        (l1..l3; l0 of items lives in journal)
    distill_/3,       % Id, Field, Value               (entity, decision, constraint, outcome, tag, fact)
    provenance_/2,    % Id, SourceHandle
    arc_/3,           % Arc, Session, Goal
    arc_member_/3,    % Arc, Handle, Order
    rollup_/2,        % Rollup, Session
    echo_/3,          % Echo, Original, Similarity
    curated_/2,       % Id, Curator
    l0_tokens_/2.     % Handle, Tokens

:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_ladder:rung_/4).
atc_store:durable_predicate(atc_ladder:distill_/3).
atc_store:durable_predicate(atc_ladder:provenance_/2).
atc_store:durable_predicate(atc_ladder:arc_/3).
atc_store:durable_predicate(atc_ladder:arc_member_/3).
atc_store:durable_predicate(atc_ladder:rollup_/2).
atc_store:durable_predicate(atc_ladder:echo_/3).
atc_store:durable_predicate(atc_ladder:curated_/2).
atc_store:durable_predicate(atc_ladder:l0_tokens_/2).

		 /*******************************
		 *         VOCABULARY           *
		 *******************************/

%!  rung(?Id, ?Level, ?Text:string) is nondet.
%   Text of an item, arc or rollup at Level (l0 .. l3). Arcs and rollups have no l0.
rung(Id, l0, Text) :-
    item_text(Id, Text).
rung(Id, Level, Text) :-
    rung_(Id, Level, Text, _),
    live_record_(Id).

%!  rung_tokens(?Id, ?Level, ?Tokens:integer) is nondet.
%   Estimated token cost of a rung (the project's one estimator, see estimate_tokens/2 docs).
rung_tokens(Id, l0, Tokens) :-
    l0_tokens_(Id, Tokens),
    item(Id).
rung_tokens(Id, Level, Tokens) :-
    rung_(Id, Level, _, Tokens),
    live_record_(Id).

%!  distilled(?Id, ?Field, ?Value:string) is nondet.
%   Structured L2 facts: Field is entity, decision, constraint, outcome, tag or fact (a
%   first-person fact or preference stated in a conversation).
distilled(Id, Field, Value) :-
    distill_(Id, Field, Value),
    live_record_(Id).

%!  provenance(?Id, ?Handle) is nondet.
%   Curated record Id was computed from journal item Handle.
provenance(Id, Handle) :- provenance_(Id, Handle).

%!  arc(?Arc) is nondet.
%   A run of consecutive same-goal items in one session.
arc(A) :- arc_(A, _, _), live_record_(A).

%!  arc_member(?Arc, ?Handle) is nondet.
arc_member(A, H) :- arc_member_(A, H, _), arc(A), item(H).

%!  arc_goal(?Arc, ?Goal:string) is nondet.
arc_goal(A, G) :- arc_(A, _, G), live_record_(A).

%!  arc_session(?Arc, ?Session) is nondet.
arc_session(A, S) :- arc_(A, S, _), live_record_(A).

%!  item_arc(?Handle, ?Arc) is nondet.
item_arc(H, A) :- arc_member(A, H).

%!  rollup(?Rollup, ?Session) is nondet.
%   Rollup is the session-level summary record of Session.
rollup(R, S) :- rollup_(R, S), live_record_(R).

%!  echo_of(?Echo, ?Original, ?Similarity:float) is nondet.
%   Echo restates Original (from an earlier session); its relevance is discounted, never deleted.
echo_of(E, O, Sim) :- echo_(E, O, Sim), item(E), item(O).

%!  curated(?Id, ?Curator) is nondet.
%   Id was curated by Curator (extractive@Version or model:Name).
curated(Id, C) :- curated_(Id, C).

% A derived record is live while every item in its provenance is live.
live_record_(Id) :-
    \+ ( provenance_(Id, H), tombstoned(H) ).

		 /*******************************
		 *           WRITING            *
		 *******************************/

%!  ladder_store(+Records:list) is det.
%
%   Store curated records, each one of
%     - rungs(Id, Curator, L1, L2, L3, Tokens, Fields, Provenance), Tokens = t(T1,T2,T3),
%       Fields a list of Field-Value;
%     - l0_tokens(Handle, Tokens);
%     - arc(Arc, Session, Goal, Members);
%     - rollup(Id, Session);
%     - echo(Echo, Original, Similarity).
%   A record that exists already is replaced (curation is idempotent).

ladder_store(Records) :-
    must_be(list, Records),
    maplist(store_record_, Records).

store_record_(rungs(Id, Curator, L1, L2, L3, t(T1, T2, T3), Fields, Prov)) :- !,
    must_be(atom, Id),
    maplist(must_be(string), [L1, L2, L3]),
    clear_record_(Id),
    durable_assert(atc_ladder:rung_(Id, l1, L1, T1)),
    durable_assert(atc_ladder:rung_(Id, l2, L2, T2)),
    durable_assert(atc_ladder:rung_(Id, l3, L3, T3)),
    forall(member(F-V, Fields), durable_assert(atc_ladder:distill_(Id, F, V))),
    forall(member(P, Prov), durable_assert(atc_ladder:provenance_(Id, P))),
    durable_assert(atc_ladder:curated_(Id, Curator)).
store_record_(l0_tokens(H, T)) :- !,
    must_be(nonneg, T),
    durable_retract(atc_ladder:l0_tokens_(H, _)),
    durable_assert(atc_ladder:l0_tokens_(H, T)).
store_record_(arc(A, S, G, Members)) :- !,
    must_be(list(atom), Members),
    (   arc_(A, _, _)
    ->  true
    ;   durable_assert(atc_ladder:arc_(A, S, G)),
        foldl(store_member_(A), Members, 0, _)
    ).
store_record_(rollup(R, S)) :- !,
    (   rollup_(R, S) -> true ; durable_assert(atc_ladder:rollup_(R, S)) ).
store_record_(echo(E, O, Sim)) :- !,
    durable_retract(atc_ladder:echo_(E, _, _)),
    durable_assert(atc_ladder:echo_(E, O, Sim)).
store_record_(Other) :-
    domain_error(ladder_record, Other).

store_member_(A, H, I0, I) :-
    durable_assert(atc_ladder:arc_member_(A, H, I0)),
    I is I0 + 1.

clear_record_(Id) :-
    durable_retract(atc_ladder:rung_(Id, _, _, _)),
    durable_retract(atc_ladder:distill_(Id, _, _)),
    durable_retract(atc_ladder:provenance_(Id, _)),
    durable_retract(atc_ladder:curated_(Id, _)).

%!  ladder_uncurated(+Limit, -Items:list) is det.
%   Up to Limit live items without rungs, as
%   view(Handle, Session, Seq, Kind, Goal, Time, Pointer, Text).
ladder_uncurated(Limit, Items) :-
    findall(V, limit(Limit, ( item(H), \+ curated_(H, _), item_view_(H, V) )), Items).

%!  ladder_uncurated_of(+Handles:list, -Items:list) is det.
%   The views (see ladder_uncurated/2) of those of Handles that are live and have no rungs.
ladder_uncurated_of(Hs, Items) :-
    must_be(list(atom), Hs),
    findall(V, ( member(H, Hs), item(H), \+ curated_(H, _), item_view_(H, V) ), Items).

%!  ladder_unrung(+Ids:list, -Unrung:list) is det.
%   Those of Ids (items, arcs, rollups) that have no curated rungs now: after an erasure, the
%   records whose vectors and BM25 entries must go (a record rebuilt since keeps its own).
ladder_unrung(Ids, Unrung) :-
    must_be(list(atom), Ids),
    exclude(has_rungs_, Ids, Unrung).

has_rungs_(Id) :- curated_(Id, _).

%!  ladder_uncurated_count(-Count:integer) is det.
%   How many live items have no rungs yet (atc curate builds them). Counted once per change of
%   the items, tombstones or curated records, so a frame asking every time costs one scan
%   after each change, not one per frame.
ladder_uncurated_count(Count) :-
    ladder_generations_(G),
    (   nb_current(atc_ladder_uncurated, G-Count0)
    ->  Count = Count0
    ;   aggregate_all(count, ( item(H), \+ curated_(H, _) ), Count),
        nb_setval(atc_ladder_uncurated, G-Count)
    ).

ladder_generations_(g(I, T, C)) :-
    generation_(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), I),
    generation_(atc_journal:tombstone_(_,_,_), T),
    generation_(atc_ladder:curated_(_,_), C).

generation_(Head, G) :-
    (   predicate_property(Head, last_modified_generation(G0)) -> G = G0 ; G = 0 ).

%!  ladder_smallest_skeleton(-Tokens:integer) is semidet.
%   The fewest tokens a live record's L3 skeleton takes: a budget below it fits no fact.
%   Fails when nothing is curated.
ladder_smallest_skeleton(Tokens) :-
    aggregate_all(min(T), rung_tokens(_, l3, T), Tokens),
    integer(Tokens).

%!  ladder_curated_items(-Handles:list) is det.
%   Every live item that has rungs.
ladder_curated_items(Handles) :-
    findall(H, ( item(H), curated_(H, _) ), Handles).

%!  ladder_distillations(+Handles:list, -Records:list) is det.
%   d(Handle, Kind, Segment, L2Text) for each of Handles that is a live item with an L2 rung
%   other than its text: the items curation gives a distillation vector.
ladder_distillations(Handles, Records) :-
    findall(d(H, K, S, T),
            ( member(H, Handles), item(H), rung(H, l2, T), T \== "",
              \+ item_text(H, T),
              item_kind(H, K), item_segment(H, S) ),
            Records).

%!  ladder_item_segments(+Handles:list, -Pairs:list) is det.
%   Handle-Segment for each of Handles that is a live item.
ladder_item_segments(Handles, Pairs) :-
    findall(H-S, ( member(H, Handles), item_segment(H, S) ), Pairs).

%!  ladder_session_items(+Session, -Items:list) is det.
%   All live items of Session in order, as views (see ladder_uncurated/2).
ladder_session_items(Session, Items) :-
    findall(Seq-V, ( item_session(H, Session), item_seq(H, Seq), item_view_(H, V) ), Pairs),
    keysort(Pairs, Sorted),
    pairs_values(Sorted, Items).

item_view_(H, view(H, S, Q, K, G, T, P, X)) :-
    item_session(H, S), item_seq(H, Q), item_kind(H, K), item_goal(H, G),
    item_time(H, T), item_source(H, P), item_text(H, X).

%!  ladder_expire(+Level, +Before:string, -Count:integer) is det.
%
%   Retention per level: drop Level (l0, l1 or l2) of every item produced before Before (ISO
%   8601). L3 skeletons never expire, and an item keeps at least one rung: L0 goes only once
%   the item is curated. Hydration renders whatever rungs remain.
%   @error domain_error(expirable_level, Level) for l3 or anything else
ladder_expire(l0, Before, Count) :- !,
    journal_expire_text(Before, Count).
ladder_expire(Level, Before, Count) :-
    (   memberchk(Level, [l1, l2]) -> true ; domain_error(expirable_level, Level) ),
    must_be(string, Before),
    findall(H, ( rung_(H, Level, _, _), item_time(H, T), T \== "", T @< Before ), Hs),
    forall(member(H, Hs), durable_retract(atc_ladder:rung_(H, Level, _, _))),
    length(Hs, Count).

%!  ladder_stale_sessions(-Sessions:list) is det.
%   Sessions with live items but no live rollup: new, or invalidated by forgetting an item.
ladder_stale_sessions(Sessions) :-
    findall(S, ( distinct(S, item_session(_, S)), \+ rollup(_, S) ), Sessions).

%!  ladder_drop_records(+Ids:list) is det.
%   Remove the rungs, distillation and provenance of each of Ids (records whose owner deleted
%   them, such as a cell that no longer exists).
ladder_drop_records(Ids) :-
    must_be(list(atom), Ids),
    maplist(clear_record_, Ids).

%!  ladder_invalidate(+Handles:list, -Invalidated:list) is det.
%
%   Drop every curated record whose provenance includes one of Handles: their own rungs (so
%   they are curated again), and the arcs and rollups computed from them (rebuilt by the next
%   curation from the items that remain). Invalidated are the record ids, sorted.
ladder_invalidate(Hs, Ids) :-
    must_be(list(atom), Hs),
    findall(Id, ( member(H, Hs), provenance_(Id, H) ), Ids0),
    sort(Ids0, Ids),
    forall(member(Id, Ids),
           ( clear_record_(Id),
             durable_retract(atc_ladder:arc_(Id, _, _)),
             durable_retract(atc_ladder:arc_member_(Id, _, _)),
             durable_retract(atc_ladder:rollup_(Id, _)) )).

%!  ladder_erase(+Handles:list, -Invalidated:list, -Echoes:list) is det.
%
%   ladder_invalidate/2 for erased items, and every other fact naming them: their L0 token
%   counts and echo marks. Echoes are the surviving items that were marked as echoes of an
%   erased one: their mark is gone, and curation may find them another original.
ladder_erase(Hs, Ids, Echoes) :-
    ladder_invalidate(Hs, Ids),
    findall(E, ( member(H, Hs), echo_(E, H, _), \+ memberchk(E, Hs) ), Es0),
    sort(Es0, Echoes),
    forall(member(H, Hs),
           ( durable_retract(atc_ladder:l0_tokens_(H, _)),
             durable_retract(atc_ladder:echo_(H, _, _)),
             durable_retract(atc_ladder:echo_(_, H, _)),
             durable_retract(atc_ladder:arc_member_(_, H, _)),
             durable_retract(atc_ladder:provenance_(_, H)) )).
