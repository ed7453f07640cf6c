:- module(atc_ladder,
          [ rung/3,                     % ?Id, ?Level, ?Text
            rung_tokens/3,              % ?Id, ?Level, ?Tokens
            rung_size/4,                % +Id, +Level, -Bytes, -Words
            rungs_of/3,                 % +Id, +Levels, -Rungs
            rung_held/2,                % +Id, +Level
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
            ladder_uncurated_handles/1, % -Handles
            ladder_uncurated_of/2,      % +Handles, -Items
            ladder_item_views/2,        % +Handles, -Items
            ladder_unrung/2,            % +Ids, -Unrung
            ladder_smallest_skeleton/1, % -Tokens
            ladder_session_items/2,     % +Session, -Items
            ladder_session_arcs/2,      % +Session, -Arcs
            ladder_curated_items/1,     % -Handles
            ladder_curated_texts/4,     % -Items, -ItemCount, -Arcs, -ArcCount
            ladder_distillations/2,     % +Handles, -Records
            ladder_item_segments/2,     % +Handles, -Pairs
            ladder_stale_sessions/1,    % -Sessions
            ladder_sessions_curated/2,  % +Sessions, -Curated
            ladder_invalidate/2,        % +Handles, -Invalidated
            ladder_erase/3,             % +Handles, -Invalidated, -Echoes
            ladder_drop_records/1,      % +Ids
            ladder_expire/3,            % +Level, +Before, -Count
            ladder_unshare_l0/2,        % +Handle, +Text
            ladder_upgrade/2,           % +Limit, -Count
            ladder_unsized/2            % +Limit, -Records
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(solution_sequences)).
:- use_module(library(assoc)).
:- use_module(store).
:- use_module(journal).
% Arithmetic compiled to VM instructions (this file only): a frame's look-ups here would
% otherwise call rules/arith_guard.pl's wrapped is/2 and comparisons (hydrate.pl does the same).
:- set_prolog_flag(optimise, true).

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
    record_/11,       % Id, Curator, R1, T1, R2, T2, R3, T3, Fields, Prov, Tail (see below)
    entity_/3,        % EntityAtom, Id, Live: distilled(Id, entity, E) looked up by E
    entity_ids_/2,    % EntityAtom, ids(Id, ...): the same, grouped (written by snapshots)
    arc_/3,           % Arc, Session, Goal
    arc_member_/3,    % Arc, Handle, Order
    rollup_/2,        % Rollup, Session
    echo_/3,          % Echo, Original, Similarity
    l0_tokens_/2,     % Handle, Tokens   (an item whose L0 count is not in its record_/11)
    rung_sizes_/5,    % Id, S0, S1, S2, S3: sizes of a record written before they were in it
    provenance_/2,    % Id, SourceHandle (provenance that record_/11 does not imply)
    rung_/4,          % Id, Level, Text, Tokens \
    distill_/3,       % Id, Field, Value         > the first fact forms, read but no longer
    curated_/2.       % Id, Curator             /  written (ladder_upgrade/2 converts them)

:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_ladder:record_/11).
atc_store:durable_predicate(atc_ladder:entity_/3).
atc_store:durable_predicate(atc_ladder:entity_ids_/2).
atc_store:durable_predicate(atc_ladder:rung_/4).
atc_store:durable_predicate(atc_ladder:distill_/3).
atc_store:durable_predicate(atc_ladder:provenance_/2).
atc_store:durable_predicate(atc_ladder:arc_/3).
atc_store:durable_predicate(atc_ladder:arc_member_/3).
atc_store:durable_predicate(atc_ladder:rollup_/2).
atc_store:durable_predicate(atc_ladder:echo_/3).
atc_store:durable_predicate(atc_ladder:curated_/2).
atc_store:durable_predicate(atc_ladder:l0_tokens_/2).
atc_store:durable_predicate(atc_ladder:rung_sizes_/5).

/* How a curated record is stored: ONE fact per record,

     record_(Id, Curator, R1, T1, R2, T2, R3, T3, Fields, Prov, Tail)

   instead of the three rung_/4, one distill_/3 per field value, one provenance_/2 per source
   item, curated_/2 and l0_tokens_/2 it took before (about 28 facts per item, 5 kB):

   - Ri is the text of rung li (a string), or the atom `l0` (the item's own L0 text), `l1` or
     `l2` (the text of that rung of this record), or `none` (the rung expired); Ti its tokens.
     Short items have the same text on several rungs: it is held once. Before L0 text or a
     rung is dropped, the rungs that name it get the text itself (unshare_/2). R2 may also
     be `fields`: the L2 is the record's distillation rendered as curation renders it
     ("decisions: a | b; entities: x, y", fields_text_/2), the case of most items, so that
     text is not held beside the values it repeats (~150 bytes a record); it is named so only
     when the rendering gives the very text stored, and snapshots write an older record's L2
     so when it does (atc_store:current_form/2).
   - Fields is the distillation as groups of consecutive values of one field, in the order
     given, held as one term fields(G1, ..., Gn), each group Field(V1, ..., Vk), or `[]` when
     there is none (a list [Field-[V1, ..., Vk], ...] in homes written before: it took half
     as much memory again, a list cell per value; field_group_/3 reads both, and snapshots
     and compaction write the term, see atc_store:current_form/2). Entity and tag values are
     held as atoms (shared by every record that names them), the others as strings.
     entity_(E, Id, Live) indexes the entities by value,
     one fact per occurrence, Live saying how to check the record is live without reading it
     (`self`, `members`, `[]`, or `record`: read its provenance). Snapshots and compaction
     write them grouped instead, entity_ids_(E, ids(Id1, ..., Idn)) (one fact per entity, in
     the order of its occurrences, atc_store:written_facts/2): a fact per occurrence took 170
     bytes with its index entry, an entry of a group 8. A group is not kept up to date when a
     record changes: an entry counts while its record still names E and no entity_/3 fact
     names the pair (a record stored again has those, in the order a fact per occurrence
     gives); the next snapshot leaves the others out, and forgetting an item drops them.
   - Prov is `self` (an item's own record), `members` (an arc's, its members), `rollup(Hs)`
     (a rollup's: items of its session, found from the item by its session), `[]`, or `facts`
     (anything else: provenance_/2 facts, as before).
   - Tail is L0Tokens, or sized(L0Tokens, S0, S1, S2, S3) once the rungs' sizes are known
     (rung_size/4: Si the UTF-8 bytes << 32 + words of rung li, or `none`). L0Tokens is an
     item's L0 token count (`none` for arcs, rollups and cells); an item whose record is
     dropped keeps it as l0_tokens_/2. Sizes given with the rungs (curation gives them in the
     same list) are stored in the record; sizes stored later for a record without them (a
     home curated before them, filled once) are a rung_sizes_/5 fact, as every record's were
     in homes written before: a journal line of their own rather than the record written
     again. A record holds its sizes in one place only (sizes stored later for a record that
     has them replace them there), so rung_size/4 reads the record, else the fact; snapshots
     and compaction write such a fact into the record (atc_store:current_form/2). A fact of
     its own took 176 bytes a record and a clause index entry; in the record they take 88.

   The first fact forms (rung_/4, distill_/3, curated_/2, provenance_/2) of homes written
   before stay readable: every predicate below answers from both; ladder_upgrade/2 rewrites
   them in the new form, and store_record_/2 replaces them whenever a record is stored again.
*/

		 /*******************************
		 *         VOCABULARY           *
		 *******************************/

%!  rung(?Id, ?Level, ?Text:string) is nondet.
%   Text of an item, arc or rollup at Level (l0 .. l3). Arcs and rollups have no l0.
rung(Id, l0, Text) :-
    item_text(Id, Text).
rung(Id, Level, Text) :-
    stored_(Id, Stored),
    rung_in_(Stored, Id, Level, Text).

rung_in_(rec(_, R1, _, R2, _, R3, _, F, Prov, _), Id, Level, Text) :-
    live_prov_(Prov, Id),
    record_level_(Level, R1, R2, R3, R),
    R \== none,
    rung_text_(item(Id), R, R1, R2, F, Text0),
    Text = Text0.
rung_in_(old, Id, Level, Text) :-
    rung_(Id, Level, Text, _),
    live_record_(Id).

% How record Id is stored: rec(Curator, R1, T1, R2, T2, R3, T3, Fields, Prov, L0Tokens) from
% its record_/11 (read once; L0Tokens taken out of its Tail, so a reader of rec/10 never sees
% the sizes), or `old` (the first fact forms); each record, then `old`, when Id is unbound. An
% Id is never in both forms.
stored_(Id, Stored) :-
    (   nonvar(Id)
    ->  (   record_(Id, C, R1, T1, R2, T2, R3, T3, F, P, Tail)
        ->  tail_l0_(Tail, L0),
            Stored = rec(C, R1, T1, R2, T2, R3, T3, F, P, L0)
        ;   Stored = old
        )
    ;   record_(Id, C, R1, T1, R2, T2, R3, T3, F, P, Tail),
        tail_l0_(Tail, L0),
        Stored = rec(C, R1, T1, R2, T2, R3, T3, F, P, L0)
    ;   Stored = old
    ).

%!  rung_tokens(?Id, ?Level, ?Tokens:integer) is nondet.
%   Estimated token cost of a rung (the project's one estimator, see estimate_tokens/2 docs).
rung_tokens(Id, l0, Tokens) :-
    (   nonvar(Id)
    ->  (   record_(Id, _, _, _, _, _, _, _, _, _, Tail), tail_l0_(Tail, T0), integer(T0)
        ->  T = T0
        ;   l0_tokens_(Id, T)
        )
    ;   record_(Id, _, _, _, _, _, _, _, _, _, Tail),
        tail_l0_(Tail, T),
        integer(T)
    ;   l0_tokens_(Id, T)
    ),
    item(Id),
    Tokens = T.
rung_tokens(Id, Level, Tokens) :-
    stored_(Id, Stored),
    rung_tokens_in_(Stored, Id, Level, Tokens).

rung_tokens_in_(rec(_, R1, T1, R2, T2, R3, T3, _, Prov, _), Id, Level, Tokens) :-
    live_prov_(Prov, Id),
    record_level_(Level, R1-T1, R2-T2, R3-T3, R-T),
    R \== none,
    Tokens = T.
rung_tokens_in_(old, Id, Level, Tokens) :-
    rung_(Id, Level, _, Tokens),
    live_record_(Id).

%!  rungs_of(+Id, +Levels:list(atom), -Rungs:list(pair)) is det.
%
%   Rungs are Level-Tokens for each of Levels at which Id has a rung (rung/3 succeeds), in
%   the order of Levels; Tokens is the rung's rung_tokens/3 count, or `none` where it has
%   none. rung/3 and rung_tokens/3 give the same answers, but each reads the record again
%   (its rung texts and distillation copied each time): a frame asks ~4 levels of ~60
%   records for both, ~8 reads a record; here it is read once.
rungs_of(Id, Levels, Rungs) :-
    must_be(nonvar, Id),
    stored_(Id, Stored),
    (   item_text(Id, _) -> Held = true ; Held = false ),
    rungs_of_(Levels, Id, Stored, Held, Rungs).

rungs_of_([], _, _, _, []).
rungs_of_([Level|Levels], Id, Stored, Held, Rungs) :-
    (   stored_rung_(Stored, Id, Held, Level)
    ->  (   stored_rung_tokens_(Stored, Id, Level, T) -> Tokens = T ; Tokens = none ),
        Rungs = [Level-Tokens|Rest]
    ;   Rungs = Rest
    ),
    rungs_of_(Levels, Id, Stored, Held, Rest).

%!  rung_held(+Id, +Level) is semidet.
%
%   True when Id has a rung at Level (once(rung(Id, Level, _)) succeeds), told from its record
%   without building or copying the rung's text: a frame asks which is the least detailed rung
%   of ~60 records past its budget (its breadcrumbs), and rung/3 copied each L3 text, or
%   rendered its distillation, to throw it away. Whether the L0 text is held is asked only of
%   a rung that is the L0 text.
rung_held(Id, l0) :- !,
    once(rung(Id, l0, _)).
rung_held(Id, Level) :-
    must_be(nonvar, Id),
    stored_(Id, Stored),
    stored_rung_(Stored, Id, unasked(Id), Level).

% once(rung(Id, Level, _)), Id's record read as Stored, Held whether its L0 text is
% (item_text/2; unasked(Id): asked when a rung turns out to be it): a rung that is the L0 text
% ("a short turn's summary is the turn itself") does not copy that text again.
stored_rung_(_, _, true, l0) :- !.
stored_rung_(rec(_, R1, _, R2, _, R3, _, F, Prov, _), Id, Held, Level) :- !,
    live_prov_(Prov, Id),
    record_level_(Level, R1, R2, R3, R),
    R \== none,
    rung_held_(R, R1, R2, F, Held), !.
stored_rung_(Stored, Id, _, Level) :-
    rung_in_(Stored, Id, Level, _), !.

% rung_text_/6 succeeds for stored rung R, the L0 text held or not (Held), not built.
rung_held_(R, _, _, _, _) :- string(R), !.
rung_held_(l0, _, _, _, Held) :- !, l0_held_(Held).
rung_held_(l1, R1, R2, F, Held) :- !, rung_held_(R1, R1, R2, F, Held).
rung_held_(l2, R1, R2, F, Held) :- !, rung_held_(R2, R1, R2, F, Held).
rung_held_(fields, _, _, F, _) :- fields_held_(F).

l0_held_(true).
l0_held_(unasked(Id)) :- item_text(Id, _), !.

% fields_held_(+F): fields_text_(F, _) succeeds (some section has a value), told without
% rendering the text: a frame asks which rungs ~60 records have at ~4 levels each, most of
% them an L2 of `fields`, and building each text to throw it away was ~1.5 % of a warm frame's
% Prolog time at 100k items.
fields_held_(F) :-
    compound(F), \+ F = [_|_],
    compound_name_arguments(F, _, Groups),
    member(G, Groups),
    compound(G),
    compound_name_arity(G, Field, Arity),
    Arity > 0,
    section_field_(Field), !.

section_field_(decision).
section_field_(constraint).
section_field_(outcome).
section_field_(fact).
section_field_(entity).

% once(rung_tokens(Id, Level, Tokens)), Id's record read as Stored.
stored_rung_tokens_(Stored, Id, l0, Tokens) :-
    (   Stored = rec(_, _, _, _, _, _, _, _, _, T0), integer(T0)
    ->  T = T0
    ;   l0_tokens_(Id, T)
    ),
    item(Id), !,
    Tokens = T.
stored_rung_tokens_(Stored, Id, Level, Tokens) :-
    rung_tokens_in_(Stored, Id, Level, Tokens), !.

%!  rung_size(+Id, +Level, -Bytes:integer, -Words:integer) is semidet.
%   The UTF-8 bytes and the words (runs of non-space, as the host's estimator splits them) of
%   the text of Id at Level, as curation stored them beside its tokens: the estimate of a text
%   joined from pieces whose words do not run together is the estimate of their sums
%   (hydrate.pl prices "Name: " + rung + date note so, without a call to the host). Fails
%   where none was stored (a home curated before them: curation stores them at its next
%   run). As stored: a caller that prices with them checks that they give the rung's
%   rung_tokens/3 (hydrate.pl checks the price counted from those), so that sizes of a text
%   since replaced are never used.
rung_size(Id, Level, Bytes, Words) :-
    (   record_(Id, _, _, _, _, _, _, _, _, _, sized(_, S0, S1, S2, S3))
    ->  true
    ;   rung_sizes_(Id, S0, S1, S2, S3)        % stored apart (see the storage note)
    ),
    size_at_(Level, S0, S1, S2, S3, S),
    integer(S),
    Bytes is S >> 32,
    Words is S /\ 0xffffffff.

size_at_(l0, S, _, _, _, S).
size_at_(l1, _, S, _, _, S).
size_at_(l2, _, _, S, _, S).
size_at_(l3, _, _, _, S, S).

% The L0 token count a record's Tail holds (see the storage note).
tail_l0_(Tail, L0) :-
    (   Tail = sized(L00, _, _, _, _) -> L0 = L00 ; L0 = Tail ).

% Tail with its L0 token count replaced by L0 (its sizes kept).
tail_with_l0_(Tail0, L0, Tail) :-
    (   Tail0 = sized(_, S0, S1, S2, S3) -> Tail = sized(L0, S0, S1, S2, S3) ; Tail = L0 ).

% Tail holding L0 and the sizes Sizes (sized(S0, S1, S2, S3), or none).
tail_sized_(L0, Sizes, Tail) :-
    (   Sizes = sized(S0, S1, S2, S3) -> Tail = sized(L0, S0, S1, S2, S3) ; Tail = L0 ).

record_level_(l1, R, _, _, R).
record_level_(l2, _, R, _, R).
record_level_(l3, _, _, R, R).

% The text of stored rung R of a record whose rungs are R1, R2 and distillation Fields; L0 is
% item(Id) (the live item's L0 text) or text(Text).
rung_text_(_, R, _, _, _, Text) :- string(R), !, Text = R.
rung_text_(L0, l0, _, _, _, Text) :- !, l0_text_(L0, Text).
rung_text_(L0, l1, R1, R2, F, Text) :- !, rung_text_(L0, R1, R1, R2, F, Text).
rung_text_(L0, l2, R1, R2, F, Text) :- !, rung_text_(L0, R2, R1, R2, F, Text).
rung_text_(_, fields, _, _, F, Text) :- fields_text_(F, Text).

% Fields rendered as curation renders an L2 (Distillation.render in curate/distill.py): the
% sections in the order decisions, constraints, outcomes, facts, entities, each "label: "
% and its values in their order, joined by " | " (by ", " for entities); the sections joined
% by "; ". Fails for a distillation with no section (tags alone render nothing).
fields_text_(F, Text) :-
    compound(F), \+ F = [_|_],
    compound_name_arguments(F, _, Groups),
    section_(Groups, decision, "decisions: ", " | ", Parts0, Parts1),
    section_(Groups, constraint, "constraints: ", " | ", Parts1, Parts2),
    section_(Groups, outcome, "outcomes: ", " | ", Parts2, Parts3),
    section_(Groups, fact, "facts: ", " | ", Parts3, Parts4),
    section_(Groups, entity, "entities: ", ", ", Parts4, []),
    Parts0 = [_|Parts],                         % the first section has no "; " before it
    atomics_to_string(Parts, Text).

% The section of Field, if it has values: "; ", Label and its values joined by Joiner.
section_(Groups, Field, Label, Joiner, Parts0, Parts) :-
    (   field_values_(Groups, Field, [V1|Vn])
    ->  Parts0 = ["; ", Label, V1|Joined],
        joined_(Vn, Joiner, Joined, Parts)
    ;   Parts0 = Parts
    ).

% The values of Field's groups, in their order (a field's values may come in several groups).
field_values_([], _, []).
field_values_([G|Gs], Field, Values) :-
    (   functor(G, Field, _)
    ->  G =.. [_|Vs],
        append(Vs, Rest, Values),
        field_values_(Gs, Field, Rest)
    ;   field_values_(Gs, Field, Values)
    ).

joined_([], _, Parts, Parts).
joined_([V|Vs], Joiner, [Joiner, V|Parts0], Parts) :-
    joined_(Vs, Joiner, Parts0, Parts).

l0_text_(item(Id), Text) :- item_text(Id, Text).
l0_text_(text(Text), Text).

%!  distilled(?Id, ?Field, ?Value:string) is nondet.
%   Structured L2 facts: Field is entity, decision, constraint, outcome, tag or fact (a
%   first-person fact or preference stated in a conversation).
distilled(Id, Field, Value) :-
    (   var(Id), Field == entity, nonvar(Value)
    ->  (   string(Value),                      % values are strings
            atom_string(A, Value),
            entity_occurrence_(A, Id, Live),    % one per occurrence
            live_entity_(Live, Id)
        ;   distilled_in_(old, Id, Field, Value)
        )
    ;   stored_(Id, Stored),
        distilled_in_(Stored, Id, Field, Value)
    ).

distilled_in_(rec(_, _, _, _, _, _, _, Fields, Prov, _), Id, Field, Value) :-
    live_prov_(Prov, Id),
    field_value_(Fields, Field, Value).
distilled_in_(old, Id, Field, Value) :-
    distill_(Id, Field, Value),
    live_record_(Id).

% Record Id names entity E (an atom), once per occurrence, in the order they were stored: the
% entries of E's group that still count, then its facts of one occurrence each. Live: how to
% check Id is live (see entity_/3).
entity_occurrence_(E, Id, Live) :-
    (   entity_ids_(E, Ids),
        arg(_, Ids, Id),
        grouped_current_(E, Id, Live)
    ;   entity_(E, Id, Live)
    ).

% An entry Id of E's group counts: its record names E, and no entity_/3 fact does it again.
grouped_current_(E, Id, Live) :-
    \+ entity_(E, Id, _),
    record_(Id, _, _, _, _, _, _, _, Fields, P, _),
    once(( field_group_(Fields, entity, Es), memberchk(E, Es) )),
    entity_live_(P, Live).

entity_live_(P, Live) :-
    (   memberchk(P, [self, members, []]) -> Live = P ; Live = record ).

% Snapshots and compaction write the entity index as one group per entity (see the storage
% note): its entries that count, then its facts, in that order; no entity_/3 fact.
:- multifile atc_store:written_facts/2.
% One entity at a time: the stacks hold one group, not every occurrence of the home.
atc_store:written_facts(atc_ladder:entity_/3, entity_ids_(E, Ids)) :-
    findall(E0, ( entity_ids_(E0, _) ; entity_(E0, _, _) ), Es0),
    sort(Es0, Es),
    member(E, Es),
    findall(Id, entity_occurrence_(E, Id, _), IdList),
    IdList \== [],
    compound_name_arguments(Ids, ids, IdList).
atc_store:written_facts(atc_ladder:entity_ids_/2, _) :-
    fail.                                       % written with entity_/3's

% Field and its values Vs (a list) of each group of stored Fields, in order, in either form:
% fields(G1, ..., Gn) with Gi = Field(V1, ..., Vk), or (homes written before) [Field-Vs, ...].
field_group_(Fields, Field, Vs) :-
    (   compound(Fields), \+ Fields = [_|_]
    ->  arg(_, Fields, Group),
        compound_name_arguments(Group, Field, Vs)
    ;   member(Field-Vs, Fields)
    ).

% A value of Fields (see the storage note), as a string where it is held as an atom.
field_value_(Fields, Field, Value) :-
    (   nonvar(Value), nonvar(Field), text_field_(Field), string(Value)
    ->  atom_string(A, Value),                  % a lookup: compare in the stored form
        field_group_(Fields, Field, Vs),
        member(V, Vs), V == A
    ;   field_group_(Fields, Field, Vs),
        member(V, Vs),
        (   atom(V), text_field_(Field) -> atom_string(V, S) ; S = V ),
        Value = S
    ).

% The fields whose values are held as atoms: few distinct values, repeated by many records.
text_field_(entity).
text_field_(tag).

%!  provenance(?Id, ?Handle) is nondet.
%   Curated record Id was computed from journal item Handle.
provenance(Id, H) :-
    (   var(Id), nonvar(H)
    ->  (   record_of_item_(H, Id)
        ;   provenance_(Id, H)
        )
    ;   stored_(Id, Stored),
        provenance_in_(Stored, Id, H)
    ).

provenance_in_(rec(_, _, _, _, _, _, _, _, Prov, _), Id, H) :-
    (   Prov == facts -> provenance_(Id, H) ; prov_member_(Prov, Id, H) ).
provenance_in_(old, Id, H) :-
    provenance_(Id, H),
    \+ record_(Id, _, _, _, _, _, _, _, _, _, _).     % those are the record's (facts)

prov_member_(self, Id, Id).
prov_member_(members, Id, H) :- arc_member_(Id, H, _).
prov_member_(rollup(Hs), _, H) :- member(H, Hs).

% The records whose provenance names item H, other than by provenance_/2.
record_of_item_indexed_(H, Id) :-
    record_(H, _, _, _, _, _, _, _, _, self, _),
    Id = H.
record_of_item_indexed_(H, Id) :-
    arc_member_(Id, H, _),
    record_(Id, _, _, _, _, _, _, _, _, members, _).

record_of_item_(H, Id) :-
    record_of_item_indexed_(H, Id).
record_of_item_(H, Id) :-
    (   item_session(H, Session)
    ->  rollup_(Id, Session),
        record_(Id, _, _, _, _, _, _, _, _, Prov, _),
        Prov = rollup(Hs),
        memberchk(H, Hs)
    ;   rollups_of_erased_([H], Id)            % tombstoned, or erased in this batch
    ).

% The rollups whose provenance names one of Hs, items not live (whose session is not looked
% up): one scan.
rollups_of_erased_(Hs, Id) :-
    sort(Hs, Sorted),
    record_(Id, _, _, _, _, _, _, _, _, Prov, _),
    Prov = rollup(Members),
    once(( member(H, Members), ord_memberchk(H, Sorted) )).

%!  arc(?Arc) is nondet.
%   A run of consecutive same-goal items in one session.
arc(A) :- arc_(A, _, _), live_record_(A).

%!  arc_member(?Arc, ?Handle) is nondet.
%   Handle is a live member of the live arc Arc, in the arc's order. A given Arc is asked
%   whether it is live once, not once per member (a warm frame at 100k items asks ~40 arcs
%   for their ~20 members each: ~90 arc/1 calls a frame fewer).
arc_member(A, H) :-
    (   nonvar(A)
    ->  arc(A),
        arc_member_(A, H, _),
        item(H)
    ;   arc_member_(A, H, _),
        arc(A),
        item(H)
    ).

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
curated(Id, C) :-
    stored_(Id, Stored),
    (   Stored = rec(C0, _, _, _, _, _, _, _, _, _)
    ->  C = C0
    ;   curated_(Id, C)
    ).

% A derived record is live while every item in its provenance is live. While nothing is
% tombstoned every record is: no scan of its provenance (a cell's or an arc's runs to hundreds
% of items, and hydration asks for every rung it weighs).
live_record_(Id) :-
    (   \+ tombstoned(_)
    ->  true
    ;   record_(Id, _, _, _, _, _, _, _, _, Prov, _)
    ->  live_prov_(Prov, Id)
    ;   \+ ( provenance_(Id, H), tombstoned(H) )
    ).

live_prov_(self, Id) :- !, \+ tombstoned(Id).
live_prov_([], _) :- !.
live_prov_(_, _) :- \+ tombstoned(_), !.
live_prov_(members, Id) :- !, \+ ( arc_member_(Id, H, _), tombstoned(H) ).
live_prov_(rollup(Hs), _) :- !, \+ ( member(H, Hs), tombstoned(H) ).
live_prov_(facts, Id) :- \+ ( provenance_(Id, H), tombstoned(H) ).

live_entity_(record, Id) :- !, live_record_(Id).
live_entity_(Prov, Id) :- live_prov_(Prov, Id).

% Id has curated rungs (in either form).
has_record_(Id) :-
    (   record_(Id, _, _, _, _, _, _, _, _, _, _) -> true ; curated_(Id, _) ).

		 /*******************************
		 *           WRITING            *
		 *******************************/

%!  ladder_store(+Records:list) is det.
%
%   Store curated records, each one of
%     - rungs(Id, Curator, L1, L2, L3, Tokens, Fields, Provenance), Tokens = t(T1,T2,T3),
%       Fields a list of Field-Value;
%     - l0_tokens(Handle, Tokens);
%     - sizes(Id, S0, S1, S2, S3): the UTF-8 bytes and words of Id's rungs l0..l3 (rung_size/4),
%       each Bytes << 32 + Words, or none; after Id's rungs (storing them drops the sizes);
%       in the same list as Id's rungs, they are stored in the same fact;
%     - arc(Arc, Session, Goal, Members);
%     - rollup(Id, Session);
%     - echo(Echo, Original, Similarity);
%     - drop_arc(Arc): an arc its session's items no longer form (it gained a member, one
%       left it), removed with its rungs.
%   A record that exists already is replaced (curation is idempotent). An item's l0_tokens
%   in the same list as its rungs is kept in the same fact (see the storage note).

ladder_store(Records) :-
    must_be(list, Records),
    findall(H-T, member(l0_tokens(H, T), Records), L0s0),
    sort(1, @<, L0s0, L0s1),                    % one per item, the first given
    list_to_assoc(L0s1, Given),
    findall(H-T, ( member(rungs(H, _, _, _, _, _, _, _), Records),
                   get_assoc(H, Given, T) ), L0s2),
    sort(1, @<, L0s2, L0s3),
    list_to_assoc(L0s3, L0s),                   % those kept in their record_/11
    findall(H-sized(S0, S1, S2, S3), member(sizes(H, S0, S1, S2, S3), Records), Sizes0),
    reverse(Sizes0, Sizes1),
    sort(1, @<, Sizes1, Sizes2),                % one per record, the last given
    list_to_assoc(Sizes2, SizesGiven),
    findall(H-S, ( member(rungs(H, _, _, _, _, _, _, _), Records),
                   get_assoc(H, SizesGiven, S) ), Sizes3),
    sort(1, @<, Sizes3, Sizes4),
    list_to_assoc(Sizes4, Sizes),               % those kept in their record_/11
    maplist(store_record_(L0s, Sizes), Records).

store_record_(L0s, Sizes, Record) :-
    (   Record = rungs(_, _, _, _, _, _, _, _)
    ->  store_rungs_(L0s, Sizes, Record)
    ;   Record = sizes(Id, _, _, _, _), atom(Id), get_assoc(Id, Sizes, _)
    ->  true                                    % in the record of its rungs (above)
    ;   store_record_(L0s, Record)
    ).

store_rungs_(L0s, Sizes, rungs(Id, Curator, L1, L2, L3, t(T1, T2, T3), Fields, Prov)) :-
    must_be(atom, Id),
    maplist(must_be(string), [L1, L2, L3]),
    must_be(list, Fields),
    must_be(list(atom), Prov),
    clear_record_(Id),
    (   get_assoc(Id, L0s, T0)
    ->  must_be(nonneg, T0),
        durable_retract(atc_ladder:l0_tokens_(Id, _)),
        L0 = T0
    ;   L0 = none
    ),
    (   get_assoc(Id, Sizes, Sized)
    ->  Sized = sized(S0, S1, S2, S3),
        maplist(must_be_size_, [S0, S1, S2, S3])
    ;   Sized = none
    ),
    tail_sized_(L0, Sized, Tail),
    assert_record_(Id, Curator, [L1-T1, L2-T2, L3-T3], Fields, Prov, Tail).

store_record_(L0s, l0_tokens(H, T)) :- !,
    must_be(nonneg, T),
    (   get_assoc(H, L0s, T0), T0 == T
    ->  true                                % in its record (above)
    ;   record_(H, C, R1, T1, R2, T2, R3, T3, Fs, P, Tail0),
        tail_l0_(Tail0, L0), integer(L0)
    ->  tail_with_l0_(Tail0, T, Tail),
        durable_retract(atc_ladder:record_(H, _, _, _, _, _, _, _, _, _, _)),
        durable_assert(atc_ladder:record_(H, C, R1, T1, R2, T2, R3, T3, Fs, P, Tail))
    ;   durable_retract(atc_ladder:l0_tokens_(H, _)),
        durable_assert(atc_ladder:l0_tokens_(H, T))
    ).
store_record_(_, sizes(Id, S0, S1, S2, S3)) :- !,
    must_be(atom, Id),
    maplist(must_be_size_, [S0, S1, S2, S3]),
    durable_retract(atc_ladder:rung_sizes_(Id, _, _, _, _)),
    (   record_(Id, C, R1, T1, R2, T2, R3, T3, Fs, P, Tail0)  % sizes of rungs stored, not of others
    ->  (   Tail0 = sized(L0, _, _, _, _)           % stored with its rungs: replaced there
        ->  Tail = sized(L0, S0, S1, S2, S3),
            (   Tail == Tail0
            ->  true
            ;   durable_retract(atc_ladder:record_(Id, _, _, _, _, _, _, _, _, _, _)),
                durable_assert(atc_ladder:record_(Id, C, R1, T1, R2, T2, R3, T3, Fs, P, Tail))
            )
        ;   durable_assert(atc_ladder:rung_sizes_(Id, S0, S1, S2, S3))   % a line, not the
        )                                                               % record again
    ;   true
    ).
store_record_(_, arc(A, S, G, Members)) :- !,
    must_be(list(atom), Members),
    (   arc_(A, _, _)
    ->  true
    ;   durable_assert(atc_ladder:arc_(A, S, G)),
        foldl(store_member_(A), Members, 0, _)
    ).
store_record_(_, drop_arc(A)) :- !,
    must_be(atom, A),
    clear_record_(A),
    durable_retract(atc_ladder:arc_(A, _, _)),
    durable_retract(atc_ladder:arc_member_(A, _, _)).
store_record_(_, rollup(R, S)) :- !,
    (   rollup_(R, S) -> true ; durable_assert(atc_ladder:rollup_(R, S)) ).
store_record_(_, echo(E, O, Sim)) :- !,
    durable_retract(atc_ladder:echo_(E, _, _)),
    durable_assert(atc_ladder:echo_(E, O, Sim)).
store_record_(_, Other) :-
    domain_error(ladder_record, Other).

% a rung's size (rung_size/4) packed as Bytes << 32 + Words, or none
must_be_size_(S) :-
    (   S == none -> true ; must_be(nonneg, S) ).

store_member_(A, H, I0, I) :-
    durable_assert(atc_ladder:arc_member_(A, H, I0)),
    I is I0 + 1.

% The record of Id in its one fact, from Levels ([Text-Tokens] for l1..l3, Text `none` for a
% dropped rung), Fields (Field-Value), Prov (handles) and Tail (L0 tokens or none, with the
% rungs' sizes where known: see the storage note).
assert_record_(Id, Curator, Levels, Fields, Prov, Tail) :-
    (   Prov == [Id], item_text(Id, L0Text) -> true ; L0Text = none ),
    pack_fields_(Fields, Groups),
    fields_term_(Groups, Packed),
    pack_rungs_(L0Text, Packed, Levels, [R1-T1, R2-T2, R3-T3]),
    pack_prov_(Id, Prov, P),
    durable_assert(atc_ladder:record_(Id, Curator, R1, T1, R2, T2, R3, T3, Packed, P, Tail)),
    entity_live_(P, Live),
    forall(( field_group_(Packed, entity, Es), member(E, Es), atom(E) ),
           durable_assert(atc_ladder:entity_(E, Id, Live))),
    (   P == facts
    ->  forall(member(H, Prov), durable_assert(atc_ladder:provenance_(Id, H)))
    ;   true
    ).

% A rung's text is held once: the item's L0 text becomes `l0`, a lower rung's text `l1`/`l2`,
% an L2 that is the distillation Packed rendered `fields`.
pack_rungs_(L0, Packed, [L1-T1, L2-T2, L3-T3], [R1-T1, R2-T2, R3-T3]) :-
    pack_rung_(L1, [L0-l0], R1),
    pack_rung_(L2, [L0-l0, L1-l1], R20),
    rendered_l2_(R20, Packed, R2),
    pack_rung_(L3, [L0-l0, L1-l1, L2-l2], R3).

% R2 is `fields` where the stored L2 text R20 is the distillation Packed rendered.
rendered_l2_(R20, Packed, R2) :-
    (   string(R20), fields_text_(Packed, Text), Text == R20
    ->  R2 = fields
    ;   R2 = R20
    ).

pack_rung_(none, _, R) :- !, R = none.
pack_rung_(Text, Shared, R) :-
    (   member(Same-Ref, Shared), Same \== none, Same == Text
    ->  R = Ref
    ;   R = Text
    ).

% Fields as groups of consecutive values of one field (the order is kept).
pack_fields_([], []).
pack_fields_([Pair|Pairs], [F-[S|Ss]|Groups]) :-
    field_pair_(Pair, F, V),
    stored_value_(F, V, S),
    same_field_(Pairs, F, Ss, Rest),
    pack_fields_(Rest, Groups).

same_field_([Pair|Pairs], F, [S|Ss], Rest) :-
    field_pair_(Pair, F0, V),
    F0 == F, !,
    stored_value_(F, V, S),
    same_field_(Pairs, F, Ss, Rest).
same_field_(Rest, _, [], Rest).

field_pair_(Pair, F, V) :-
    (   Pair = F-V, atom(F) -> true ; type_error(field_value, Pair) ).

% Groups (Field-Values, see pack_fields_/2) as the one term a record holds.
fields_term_([], []) :- !.
fields_term_(Groups, Term) :-
    findall(G, ( member(F-Vs, Groups), compound_name_arguments(G, F, Vs) ), Gs),
    compound_name_arguments(Term, fields, Gs).

% A record of a home written before holds its fields as a list: snapshots and compaction
% write it with the term (the same record; readers read both).
% An older record's L2 that is its fields rendered is written as `fields` (the storage note),
% and the sizes of its rungs held in rung_sizes_/5 go into its Tail.
:- multifile atc_store:current_form/2.
atc_store:current_form(atc_ladder:record_(Id, C, R1, T1, R20, T2, R3, T3, F0, P, Tail0),
                       record_(Id, C, R1, T1, R2, T2, R3, T3, Packed, P, Tail)) :-
    (   F0 = [_|_] -> fields_term_(F0, Packed) ; Packed = F0 ),
    rendered_l2_(R20, Packed, R2),
    (   rung_sizes_(Id, S0, S1, S2, S3)
    ->  tail_l0_(Tail0, L0),
        tail_sized_(L0, sized(S0, S1, S2, S3), Tail)
    ;   Tail = Tail0
    ),
    (   Packed \== F0 -> true ; R2 \== R20 -> true ; Tail \== Tail0 ).

% Snapshots and compaction write the sizes of a record in its record_/11 (above); a
% rung_sizes_/5 fact whose record is not in that form (none is, as stored) is written as is.
:- multifile atc_store:written_facts/2.
atc_store:written_facts(atc_ladder:rung_sizes_/5, rung_sizes_(Id, S0, S1, S2, S3)) :-
    rung_sizes_(Id, S0, S1, S2, S3),
    \+ record_(Id, _, _, _, _, _, _, _, _, _, _).

stored_value_(F, V, S) :-
    (   text_field_(F), string(V) -> atom_string(S, V) ; S = V ).

record_entities_(Packed, Entities) :-
    findall(E, ( field_group_(Packed, entity, Es), member(E, Es), atom(E) ), Entities0),
    sort(Entities0, Entities).

% Provenance the record implies (see the storage note), else `facts`.
pack_prov_(Id, Prov, P) :-
    (   Prov == []
    ->  P = []
    ;   Prov == [Id]
    ->  P = self
    ;   arc_(Id, _, _),
        findall(H, arc_member_(Id, H, _), Members),
        Members == Prov
    ->  P = members
    ;   rollup_(Id, Session),
        forall(member(H, Prov), item_session(H, Session))
    ->  P = rollup(Prov)
    ;   P = facts
    ).

% Everything stored for record Id, in either form. An item keeps its L0 token count.
clear_record_(Id) :-
    (   record_(Id, _, _, _, _, _, _, _, Packed, P, Tail)
    ->  tail_l0_(Tail, L0),
        record_entities_(Packed, Entities),
        forall(member(E, Entities), durable_retract(atc_ladder:entity_(E, Id, _))),
        durable_retract(atc_ladder:record_(Id, _, _, _, _, _, _, _, _, _, _)),
        (   integer(L0)
        ->  durable_retract(atc_ladder:l0_tokens_(Id, _)),
            durable_assert(atc_ladder:l0_tokens_(Id, L0))
        ;   true
        ),
        (   P == facts -> durable_retract(atc_ladder:provenance_(Id, _)) ; true )
    ;   true
    ),
    durable_retract(atc_ladder:rung_sizes_(Id, _, _, _, _)),
    durable_retract(atc_ladder:rung_(Id, _, _, _)),
    durable_retract(atc_ladder:distill_(Id, _, _)),
    durable_retract(atc_ladder:provenance_(Id, _)),
    durable_retract(atc_ladder:curated_(Id, _)).

% The rungs of record Id as Text-Tokens (Text `none` for a dropped rung), L0 its item's L0
% text as rung_text_/6 takes it: to change one and store the record again.
record_texts_(Id, L0, Texts) :-
    record_(Id, _, R1, T1, R2, T2, R3, T3, F, _, _),
    findall(Text-T,
            ( member(R-T, [R1-T1, R2-T2, R3-T3]),
              (   R == none -> Text = none ; rung_text_(L0, R, R1, R2, F, Text) ) ),
            Texts).

% Store record Id again with the rungs Levels (Text-Tokens), sharing L0Text (or none); its
% distillation, provenance and entity index stay as they are.
restore_rungs_(Id, Levels, L0Text) :-
    record_(Id, C, _, _, _, _, _, _, Packed, P, Tail),
    pack_rungs_(L0Text, Packed, Levels, [R1-T1, R2-T2, R3-T3]),
    durable_retract(atc_ladder:record_(Id, _, _, _, _, _, _, _, _, _, _)),
    durable_assert(atc_ladder:record_(Id, C, R1, T1, R2, T2, R3, T3, Packed, P, Tail)).

%!  ladder_unshare_l0(+Handle, +Text:string) is det.
%   Item Handle's L0 text, Text, is about to be dropped: the rungs of its record that share it
%   get the text itself (the journal calls this before it drops L0 text, see
%   journal_expire_text/2).
ladder_unshare_l0(H, Text) :-
    (   record_(H, _, R1, _, R2, _, R3, _, _, _, _),
        memberchk(l0, [R1, R2, R3])
    ->  record_texts_(H, text(Text), Texts),
        restore_rungs_(H, Texts, none)
    ;   true
    ).

%!  ladder_upgrade(+Limit, -Count:integer) is det.
%
%   Rewrite up to Limit records still in the first fact forms (rung_/4, distill_/3,
%   provenance_/2, curated_/2 and an item's l0_tokens_/2; homes written before record_/11)
%   as one record_/11 fact each; Count is how many (0 when none is left). Everything answers
%   the same before and after.
ladder_upgrade(Limit, Count) :-
    must_be(positive_integer, Limit),
    findall(Id-C, limit(Limit, curated_(Id, C)), Olds),
    forall(member(Id-C, Olds), upgrade_record_(Id, C)),
    length(Olds, Count).

upgrade_record_(Id, C) :-
    findall(Text-T,
            ( member(L, [l1, l2, l3]),
              (   rung_(Id, L, Text, T) -> true ; Text = none, T = 0 ) ),
            Levels),
    findall(F-V, distill_(Id, F, V), Fields),
    findall(H, provenance_(Id, H), Prov),
    (   l0_tokens_(Id, L0) -> true ; L0 = none ),
    clear_record_(Id),
    durable_retract(atc_ladder:l0_tokens_(Id, _)),
    assert_record_(Id, C, Levels, Fields, Prov, L0).

%!  ladder_unsized(+Limit, -Records:list) is det.
%
%   Up to Limit curated records without their rungs' sizes (rung_size/4; homes curated before
%   they were stored, and cells), each unsized(Id, T0, T1, T2, T3): Ti the text of rung li,
%   or none. Curation stores their sizes (ladder_store/1's sizes/5) at the start of a run.
ladder_unsized(Limit, Records) :-
    must_be(positive_integer, Limit),
    clauses_(record_(_, _, _, _, _, _, _, _, _, _, _), NRecords),
    clauses_(rung_sizes_(_, _, _, _, _), NSized),
    generation_(atc_ladder:record_(_, _, _, _, _, _, _, _, _, _, _), GR),
    generation_(atc_ladder:rung_sizes_(_, _, _, _, _), GS),
    (   NSized >= NRecords              % sizes only ever of a record (a home written before)
    ->  Records = []
    ;   nb_current(atc_ladder_sized, g(GR, GS))
    ->  Records = []                    % none found since the records last changed: a run's
    ;   unsized_(Limit, Records),       % start asks, and scans once per change of them
        (   Records == [] -> nb_setval(atc_ladder_sized, g(GR, GS)) ; true )
    ).

clauses_(Head, N) :-
    (   predicate_property(Head, number_of_clauses(N0)) -> N = N0 ; N = 0 ).

unsized_(Limit, Records) :-
    findall(unsized(Id, T0, T1, T2, T3),
            limit(Limit, ( record_(Id, _, _, _, _, _, _, _, _, _, Tail),
                           Tail \= sized(_, _, _, _, _),
                           \+ rung_sizes_(Id, _, _, _, _),
                           maplist(rung_or_none_(Id), [l0, l1, l2, l3], [T0, T1, T2, T3]) )),
            Records).

rung_or_none_(Id, Level, Text) :-
    (   rung(Id, Level, T) -> Text = T ; Text = none ).

%!  ladder_uncurated(+Limit, -Items:list) is det.
%   Up to Limit live items without rungs, as
%   view(Handle, Session, Seq, Kind, Goal, Time, Pointer, Text, AnswersCall): AnswersCall
%   true for a tool's output paired with its call (answers_call_/2), else false.
ladder_uncurated(Limit, Items) :-
    findall(V, limit(Limit, ( item(H), \+ has_record_(H), item_view_(H, V) )), Items).

%!  ladder_uncurated_handles(-Handles:list) is det.
%   Every live item without rungs, in journal order. Curation reads this once and takes the
%   views a batch at a time (ladder_uncurated_of/2): asking ladder_uncurated/2 for each batch
%   would walk past every item curated so far, a cost that grows with the square of the run.
ladder_uncurated_handles(Hs) :-
    findall(H, ( item(H), \+ has_record_(H) ), Hs).

%!  ladder_uncurated_of(+Handles:list, -Items:list) is det.
%   The views (see ladder_uncurated/2) of those of Handles that are live and have no rungs.
ladder_uncurated_of(Hs, Items) :-
    must_be(list(atom), Hs),
    findall(V, ( member(H, Hs), item(H), \+ has_record_(H), item_view_(H, V) ), Items).

%!  ladder_item_views(+Handles:list, -Items:list) is det.
%   The views (see ladder_uncurated/2) of those of Handles that are live items, curated or not,
%   in the order of Handles: one call for a chunk of items (echo detection) instead of one each.
ladder_item_views(Hs, Items) :-
    must_be(list(atom), Hs),
    findall(V, ( member(H, Hs), item(H), item_view_(H, V) ), Items).

%!  ladder_unrung(+Ids:list, -Unrung:list) is det.
%   Those of Ids (items, arcs, rollups) that have no curated rungs now: after an erasure, the
%   records whose vectors and BM25 entries must go (a record rebuilt since keeps its own).
ladder_unrung(Ids, Unrung) :-
    must_be(list(atom), Ids),
    exclude(has_record_, Ids, Unrung).

%!  ladder_uncurated_count(-Count:integer) is det.
%   How many live items have no rungs yet (atc curate builds them). Counted once per change of
%   the items, tombstones or curated records, so a frame asking every time costs one scan
%   after each change, not one per frame; after items were only added (an agent's turn), the
%   count grows by those of them without rungs (store_appended/4) instead.
ladder_uncurated_count(Count) :-
    ladder_generations_(G),
    (   nb_current(atc_ladder_uncurated, u(G0, Count0, Mark0)),
        (   G0 == G
        ->  Mark = Mark0, New = []
        ;   G0 = g(_, T, C, R), G = g(_, T, C, R),     % only items were added since
            store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), Mark0, Mark, since(New))
        )
    ->  aggregate_all(count, ( member(Item, New), arg(1, Item, H), newly_uncurated_(H) ), Added),
        Count is Count0 + Added
    ;   aggregate_all(count, ( item(H), \+ has_record_(H) ), Count),
        store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), none, Mark, _)
    ),
    nb_setval(atc_ladder_uncurated, u(G, Count, Mark)).

% An item just written: live, without rungs, and its only item_ clause (not one counted before).
newly_uncurated_(H) :-
    item(H),
    \+ has_record_(H),
    aggregate_all(count, atc_journal:item_(H, _, _, _, _, _, _, _, _, _), 1).

ladder_generations_(g(I, T, C, R)) :-
    generation_(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), I),
    generation_(atc_journal:tombstone_(_,_,_), T),
    generation_(atc_ladder:curated_(_,_), C),
    generation_(atc_ladder:record_(_,_,_,_,_,_,_,_,_,_,_), R).

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
    findall(H, ( item(H), has_record_(H) ), Handles).

%!  ladder_curated_texts(-Items:string, -ItemCount:integer, -Arcs:string, -ArcCount:integer) is det.
%   Every live curated item (ladder_curated_items/1) and every live arc, as two texts of ids
%   joined by newlines, with how many of each. Curation's start-of-run check reads them all
%   on every run: one text crosses to the host at once where a list costs a conversion per
%   atom (~5 us: seconds a run at a million items). The counts let the host tell an id that
%   holds a newline (never made by ingest) and read the lists instead.
ladder_curated_texts(Items, ItemCount, Arcs, ArcCount) :-
    ladder_curated_items(Hs),
    findall(A, arc(A), As),
    length(Hs, ItemCount),
    length(As, ArcCount),
    atomic_list_concat(Hs, '\n', ItemsAtom),
    atomic_list_concat(As, '\n', ArcsAtom),
    atom_string(ItemsAtom, Items),
    atom_string(ArcsAtom, Arcs).

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

%!  ladder_session_arcs(+Session, -Arcs:list(atom)) is det.
%   Every arc stored for Session, sorted, live or not (one whose member a later reading
%   superseded is hidden, not gone): those a rebuild of its arcs keeps or drops (drop_arc/1
%   records of ladder_store/1). An arc with a live member whose L0 retention dropped is left
%   out: the session's items as curation reads them (ladder_session_items/2) lack that member,
%   so they cannot form it again, and its rungs are what is left of the member.
ladder_session_arcs(Session, Arcs) :-
    must_be(atom, Session),
    findall(A, ( arc_(A, Session, _),
                 \+ ( arc_member_(A, H, _), item(H), \+ item_text(H, _) ) ),
            Arcs0),
    sort(Arcs0, Arcs).

item_view_(H, view(H, S, Q, K, G, T, P, X, Call)) :-
    item_session(H, S), item_seq(H, Q), item_kind(H, K), item_goal(H, G),
    item_time(H, T), item_source(H, P), item_text(H, X),
    (   answers_call_(H, K) -> Call = true ; Call = false ).

% A tool's output (or its failure) that ingestion paired with its call: its text starts with
% the call's label (`$ git status`), which its summary names.
answers_call_(H, K) :-
    memberchk(K, [tool_result, error]),
    once(relation(H, tool, _)).

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
    findall(H, ( has_rung_(H, Level), item_time(H, T), T \== "", T @< Before ), Hs),
    forall(member(H, Hs), drop_rung_(H, Level)),
    length(Hs, Count).

has_rung_(H, Level) :-
    record_(H, _, R1, _, R2, _, R3, _, _, _, _),
    record_level_(Level, R1, R2, R3, R),
    R \== none.
has_rung_(H, Level) :-
    rung_(H, Level, _, _).

drop_rung_(H, Level) :-
    (   record_(H, _, _, _, _, _, _, _, _, _, _)
    ->  record_texts_(H, item(H), Texts0),
        nth1(I, [l1, l2, l3], Level),
        nth1(I, Texts0, _-T, Rest),
        nth1(I, Texts, none-T, Rest),
        record_(H, _, _, _, _, _, _, _, _, P, _),
        (   P == self, item_text(H, L0Text) -> true ; L0Text = none ),
        restore_rungs_(H, Texts, L0Text)
    ;   durable_retract(atc_ladder:rung_(H, Level, _, _))
    ).

%!  ladder_stale_sessions(-Sessions:list) is det.
%   Sessions with live items but no live rollup: new, or invalidated by forgetting an item.
ladder_stale_sessions(Sessions) :-
    findall(S, ( distinct(S, item_session(_, S)), \+ rollup(_, S) ), Sessions).

%!  ladder_sessions_curated(+Sessions:list, -Curated:list) is det.
%   Those of Sessions none of whose live items lacks rungs, in the order of Sessions: a long
%   curation run builds their arcs and rollups while it still holds their items' rungs.
ladder_sessions_curated(Sessions, Curated) :-
    must_be(list(atom), Sessions),
    include(session_curated_, Sessions, Curated).

session_curated_(Session) :-
    \+ ( item_session(H, Session), \+ has_record_(H) ).

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
    records_from_(Hs, Ids),
    forall(member(Id, Ids),
           ( clear_record_(Id),
             durable_retract(atc_ladder:arc_(Id, _, _)),
             durable_retract(atc_ladder:arc_member_(Id, _, _)),
             durable_retract(atc_ladder:rollup_(Id, _)) )).

% The records computed from any of Hs (provenance/2), sorted; the rollups of items already
% erased from the journal are found in one scan, not one per item.
records_from_(Hs, Ids) :-
    partition(journal_holds_, Hs, Known, Gone),     % Gone: tombstoned or erased
    findall(Id, ( member(H, Known), provenance(Id, H) ), Ids0),
    findall(Id, ( member(H, Gone),
                  (   record_of_item_indexed_(H, Id)
                  ;   provenance_(Id, H)
                  ) ),
            Ids1),
    (   Gone == [] -> Ids2 = [] ; findall(Id, rollups_of_erased_(Gone, Id), Ids2) ),
    append([Ids0, Ids1, Ids2], Ids3),
    sort(Ids3, Ids).

journal_holds_(H) :- item(H), !.

% E's group without the entries that no longer count (an erased item's entity is not kept).
prune_entity_group_(E) :-
    (   entity_ids_(E, Ids0)
    ->  findall(Id, ( arg(_, Ids0, Id), grouped_current_(E, Id, _) ), Kept),
        durable_retract(atc_ladder:entity_ids_(E, _)),
        (   Kept == []
        ->  true
        ;   compound_name_arguments(Ids, ids, Kept),
            durable_assert(atc_ladder:entity_ids_(E, Ids))
        )
    ;   true
    ).

%!  ladder_erase(+Handles:list, -Invalidated:list, -Echoes:list) is det.
%
%   ladder_invalidate/2 for erased items, and every other fact naming them: their L0 token
%   counts and echo marks. Echoes are the surviving items that were marked as echoes of an
%   erased one: their mark is gone, and curation may find them another original.
ladder_erase(Hs, Ids, Echoes) :-
    records_from_(Hs, Ids0),
    findall(E, ( member(Id, Ids0), record_(Id, _, _, _, _, _, _, _, Fields, _, _),
                 field_group_(Fields, entity, Es), member(E, Es), entity_ids_(E, _) ),
            Grouped0),
    sort(Grouped0, Grouped),
    ladder_invalidate(Hs, Ids),
    maplist(prune_entity_group_, Grouped),
    findall(E, ( member(H, Hs), echo_(E, H, _), \+ memberchk(E, Hs) ), Es0),
    sort(Es0, Echoes),
    forall(member(H, Hs),
           ( durable_retract(atc_ladder:l0_tokens_(H, _)),
             durable_retract(atc_ladder:echo_(H, _, _)),
             durable_retract(atc_ladder:echo_(_, H, _)),
             durable_retract(atc_ladder:arc_member_(_, H, _)),
             durable_retract(atc_ladder:provenance_(_, H)) )).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
