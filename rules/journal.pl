:- module(journal,
          [ item/1,                     % ?Handle
            item_kind/2,                % ?Handle, ?Kind
            item_role/2,                % ?Handle, ?Role
            item_goal/2,                % ?Handle, ?Goal
            item_session/2,             % ?Handle, ?Session
            item_time/2,                % ?Handle, ?Time
            item_seq/2,                 % ?Handle, ?Seq
            item_segment/2,             % ?Handle, ?Segment
            item_source/2,              % ?Handle, ?Pointer
            item_source_name/2,         % ?Handle, ?SourceName
            item_text/2,                % ?Handle, ?L0Text
            relation/3,                 % ?Subject, ?Predicate, ?Object
            tombstoned/1,               % ?Handle

            journal_add_items/2,        % +Items, -Counts
            journal_add_encoded/2,      % +Strings, -Counts
            journal_add_relation/3,     % +Subject, +Predicate, +Object
            journal_tombstone/2,        % +Handle, +Reason
            journal_expire_text/2,      % +Before, -Count
            journal_watermark/3,        % ?Source, ?Size, ?Digest
            journal_set_watermark/3,    % +Source, +Size, +Digest
            journal_stats/1,            % -Stats
            journal_segment/1           % ?Segment
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(solution_sequences)).
:- use_module(store).

/** <module> The journal: typed items as facts

An item is one unit of an agent's history: a user goal, an assistant conclusion, a file operation,
an error, a useful tool result. It is identified by a content-derived handle, so adding the same
item twice changes nothing (ingestion is an upsert). Each item carries the goal that was active
when it was produced and a stable pointer to its verbatim source record.

```
?- item_kind(H, error), item_goal(H, G).
```

Only this module changes these facts, always through the durable store.
*/

:- dynamic
    item_/10,       % Handle, SourceName, Session, Seq, Kind, Role, Goal, Time, Segment, Pointer
    text_/2,        % Handle, L0Text
    relation_/3,    % Subject, Predicate, Object
    tombstone_/3,   % Handle, Time, Reason
    watermark_/3,   % SourceName, Size, Digest
    segment_/1.     % Segment that has (had) items: lets hydration list segments without a scan

:- multifile store:durable_predicate/1.
store:durable_predicate(journal:item_/10).
store:durable_predicate(journal:text_/2).
store:durable_predicate(journal:relation_/3).
store:durable_predicate(journal:tombstone_/3).
store:durable_predicate(journal:watermark_/3).
store:durable_predicate(journal:segment_/1).

		 /*******************************
		 *      QUERY VOCABULARY        *
		 *******************************/

%!  item(?Handle) is nondet.
%   Handle is a journal item that has not been tombstoned.
item(H) :-
    item_(H, _, _, _, _, _, _, _, _, _),
    \+ tombstone_(H, _, _).

%!  item_kind(?Handle, ?Kind) is nondet.
%   Kind is one of user_goal, conclusion, file_op, error, tool_result, turn.
item_kind(H, Kind) :- live_(H, _, _, _, Kind, _, _, _, _, _).

%!  item_role(?Handle, ?Role) is nondet.
%   Role is the speaker: user, assistant, tool or system.
item_role(H, Role) :- live_(H, _, _, _, _, Role, _, _, _, _).

%!  item_goal(?Handle, ?Goal:string) is nondet.
%   Goal is the goal that was active when the item was produced ("" before any goal).
item_goal(H, Goal) :- live_(H, _, _, _, _, _, Goal, _, _, _).

%!  item_session(?Handle, ?Session) is nondet.
item_session(H, Session) :- live_(H, _, Session, _, _, _, _, _, _, _).

%!  item_seq(?Handle, ?Seq:integer) is nondet.
%   Seq is the item's position within its session (0-based).
item_seq(H, Seq) :- live_(H, _, _, Seq, _, _, _, _, _, _).

%!  item_time(?Handle, ?Time:string) is nondet.
%   Time is ISO 8601 UTC, or "" when the source had no time.
item_time(H, Time) :- live_(H, _, _, _, _, _, _, Time, _, _).

%!  item_segment(?Handle, ?Segment) is nondet.
%   Segment is the namespace the item was ingested into (default: default).
item_segment(H, Segment) :- live_(H, _, _, _, _, _, _, _, Segment, _).

%!  item_source(?Handle, ?Pointer:string) is nondet.
%   Pointer is `path:line` or `path#/json/pointer`, addressing the verbatim record.
item_source(H, Pointer) :- live_(H, _, _, _, _, _, _, _, _, Pointer).

%!  item_source_name(?Handle, ?Source) is nondet.
%   Source is the name of the ingested file or stream the item came from.
item_source_name(H, Source) :- live_(H, Source, _, _, _, _, _, _, _, _).

%!  item_text(?Handle, ?Text:string) is nondet.
%   Text is the item's L0 (verbatim) text.
item_text(H, Text) :-
    text_(H, Text),
    \+ tombstone_(H, _, _).

%!  relation(?Subject, ?Predicate, ?Object) is nondet.
%   The entity graph: links such as touches_file, mentions, in_session, tool.
relation(S, P, O) :-
    relation_(S, P, O),
    \+ tombstone_(S, _, _).

%!  tombstoned(?Handle) is nondet.
tombstoned(H) :- tombstone_(H, _, _).

live_(H, Src, Ses, Seq, K, R, G, T, Seg, P) :-
    item_(H, Src, Ses, Seq, K, R, G, T, Seg, P),
    \+ tombstone_(H, _, _).

		 /*******************************
		 *           WRITING            *
		 *******************************/

%!  journal_add_items(+Items:list, -Counts:dict) is det.
%
%   Upsert Items, each a term
%   item(Handle, Source, Session, Seq, Kind, Role, Goal, Time, Segment, Pointer, Text, Relations)
%   with Relations a list of rel(Subject, Predicate, Object). Items whose handle is already in the
%   journal are left alone. Counts is _{new: N, unchanged: U, new_handles: Hs}. The caller commits.
%   @error type_error if an item is malformed (nothing of the batch is kept: the caller aborts).

journal_add_items(Items, _{new: New, unchanged: Unchanged, new_handles: Handles}) :-
    must_be(list, Items),
    foldl(add_item_, Items, []-0, Handles0-Unchanged),
    reverse(Handles0, Handles),
    length(Handles, New).

add_item_(Item, Hs0-U0, Hs-U) :-
    (   Item = item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels)
    ->  true
    ;   type_error(journal_item, Item)
    ),
    must_be(atom, H),
    must_be(integer, Seq),
    maplist(must_be(atom), [Src, K, R, Seg]),
    maplist(must_be(string), [G, T, P, Text]),
    must_be(list, Rels),
    (   item_(H, _, _, _, _, _, _, _, _, _)
    ->  Hs = Hs0, U is U0 + 1
    ;   atom_string(SesA, Ses),
        durable_assert(journal:item_(H, Src, SesA, Seq, K, R, G, T, Seg, P)),
        (   segment_(Seg) -> true ; durable_assert(journal:segment_(Seg)) ),
        durable_assert(journal:text_(H, Text)),
        forall(member(rel(S, Pr, O), Rels), journal_add_relation(S, Pr, O)),
        Hs = [H|Hs0], U = U0
    ).

%!  journal_add_encoded(+Strings:list(string), -Counts:dict) is det.
%
%   As journal_add_items/2, for items in the host's batch wire format (see
%   attention_cloud/wire.py): each string holds the fields, each prefixed by its length as nine
%   digits. Fields are cut out by length, never parsed as Prolog.
%   @error syntax_error(bad_wire_item) on a malformed string.

journal_add_encoded(Strings, Counts) :-
    must_be(list(string), Strings),
    maplist(decode_item_, Strings, Items),
    journal_add_items(Items, Counts).

decode_item_(S, item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels)) :-
    string_length(S, Len),
    (   wire_fields_(S, 0, Len, [HS, SrcS, Ses, SeqS, KS, RS, G, T, SegS, P, Text, NS|RelFields]),
        number_string(Seq, SeqS),
        number_string(N, NS),
        length(RelFields, RL), RL =:= 3 * N
    ->  maplist(atom_string, [H, Src, K, R, Seg], [HS, SrcS, KS, RS, SegS]),
        wire_relations_(RelFields, Rels)
    ;   syntax_error(bad_wire_item)
    ).

wire_fields_(_, Len, Len, []) :- !.
wire_fields_(S, At, Len, [F|Fs]) :-
    At + 9 =< Len,
    sub_string(S, At, 9, _, NS),
    number_string(N, NS),
    B is At + 9,
    B + N =< Len,
    sub_string(S, B, N, _, F),
    Next is B + N,
    wire_fields_(S, Next, Len, Fs).

wire_relations_([], []).
wire_relations_([S0, P0, O0|T], [rel(S, P, O)|Rels]) :-
    atom_string(S, S0), atom_string(P, P0), atom_string(O, O0),
    wire_relations_(T, Rels).

%!  journal_add_relation(+Subject, +Predicate, +Object) is det.
%   Add a link to the entity graph unless it is already there.
journal_add_relation(S, P, O) :-
    must_be(atomic, S),
    must_be(atom, P),
    must_be(atomic, O),
    (   relation_(S, P, O)
    ->  true
    ;   durable_assert(journal:relation_(S, P, O))
    ).

%!  journal_tombstone(+Handle, +Reason:string) is det.
%   Mark Handle forgotten: it disappears from every query; its facts stay for the audit trail.
journal_tombstone(H, Reason) :-
    must_be(atom, H),
    (   item_(H, _, _, _, _, _, _, _, _, _)
    ->  true
    ;   existence_error(item, H)
    ),
    (   tombstone_(H, _, _)
    ->  true
    ;   get_time(Now),
        durable_assert(journal:tombstone_(H, Now, Reason))
    ).

%!  journal_expire_text(+Before:string, -Count:integer) is det.
%
%   Retention for L0: drop the verbatim text of every item produced before Before (an ISO 8601
%   time) that has been curated (so its L1..L3 rungs remain to render it). The item, its
%   pointer to the verbatim source and its relations stay. Items without a time never expire.
journal_expire_text(Before, Count) :-
    must_be(string, Before),
    findall(H, ( item_(H, _, _, _, _, _, _, T, _, _), T \== "", T @< Before,
                 text_(H, _), ladder:curated(H, _) ),
            Hs),
    forall(member(H, Hs), durable_retract(journal:text_(H, _))),
    length(Hs, Count).

%!  journal_watermark(?Source, ?Size, ?Digest) is nondet.
%   How much of Source has been ingested: its size and a digest of that prefix.
journal_watermark(Source, Size, Digest) :-
    watermark_(Source, Size, Digest).

%!  journal_set_watermark(+Source, +Size, +Digest) is det.
journal_set_watermark(Source, Size, Digest) :-
    must_be(atom, Source),
    must_be(nonneg, Size),
    durable_retract(journal:watermark_(Source, _, _)),
    durable_assert(journal:watermark_(Source, Size, Digest)).

%!  journal_segment(?Segment) is nondet.
%   Segment holds live items. Reads a registry kept at ingest time (homes written before it
%   existed fall back to a scan).
journal_segment(S) :-
    (   segment_(_)
    ->  segment_(S),
        once(item_segment(_, S))
    ;   distinct(S, item_segment(_, S))
    ).

%!  journal_stats(-Stats:dict) is det.
%   Counts of items, live items, tombstones, relations, sessions and items per kind.
journal_stats(_{items: Items, live: Live, tombstoned: Tomb, relations: Rels,
                sessions: Sessions, kinds: Kinds, segments: Segs}) :-
    aggregate_all(count, item_(_, _, _, _, _, _, _, _, _, _), Items),
    aggregate_all(count, tombstone_(_, _, _), Tomb),
    Live is Items - Tomb,
    aggregate_all(count, relation_(_, _, _), Rels),
    aggregate_all(count, distinct(S, item_(_, _, S, _, _, _, _, _, _, _)), Sessions),
    findall(K-N, aggregate(count, H^live_kind_(H, K), N), Kinds),
    findall(G-N, aggregate(count, H^live_seg_(H, G), N), Segs).

live_kind_(H, K) :- item_kind(H, K).
live_seg_(H, G) :- item_segment(H, G).
