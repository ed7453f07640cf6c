:- module(atc_grants,
          [ principal/2,                % ?Principal, ?Kind
            member_of/2,                % ?Principal, ?Team
            home_owner/1,               % ?Principal
            grant/6,                    % ?Id, ?Owner, ?Grantee, ?Filter, ?Ceiling, ?Expiry
            grant_revoked/3,            % ?Id, ?Time, ?Who
            grant_reaches/2,            % ?Id, ?Principal
            visible/3,                  % +Principal, ?Record, -MaxLevel
            visible_at/3,               % +Principal, +Record, +Level
            visible_source/4,           % +Principal, +Record, +Item, -Pointer
            visible_place/4,            % +Principal, +Record, +Path, -Name
            visible_arc/4,              % +Principal, +Arc, -Shown, -Members
            reader_items/2,             % +Principal, -Items
            reader_records/2,           % +Principal, -Records
            reader_segments/2,          % +Principal, -Segments
            reader_unseen/2,            % +Principal, -Records
            reader_unseen_options/2,    % +Principal, -Options
            scope_record/2,             % +Principal, -Record
            grants_read_once/1,         % :Goal
            grant_scopes/2,             % +Principal, -Scopes
            grant_segments/2,           % +Principal, -Segments
            scope_admits/3,             % +Scopes, +Segment, +Time
            record_labels/2,            % +Record, -Labels
            belief_labels/3,            % +Scope, +Belief, -Labels
            labels_dict/2,              % +Labels, -Dict
            item_label/3,               % ?Handle, ?Key, ?Value
            pool_mount_refused/2,       % +ReaderKind, +HomeKind
            principal_token/4,          % ?TokenId, ?Principal, ?Salt, ?Hash

            grants_principal_add/3,     % +Principal, +Kind, +Owner
            grants_principal_remove/2,  % +Principal, -Revoked
            grants_token_add/4,         % +TokenId, +Principal, +Salt, +Hash
            grants_member_join/2,       % +Principal, +Team
            grants_member_leave/2,      % +Principal, +Team
            grants_grant_add/5,         % +Id, +Grantee, +Filter, +Ceiling, +Expiry
            grants_grant_add/6,         % +Id, +Grantee, +Filter, +Ceiling, +Expiry, -Made
            grants_grant_revoke/2,      % +Id, +Who
            grants_label/3,             % +Handle, +Key, +Value
            grants_labelled/1,          % ?Handle
            grants_carry_labels/2,      % +From, +To
            grants_declassify/4,        % +Record, +Key, +Value, -Change
            grants_mount_add/3,         % +Name, +Url, +TokenEnv
            grants_mount_remove/1,      % +Name
            grants_mount/3,             % ?Name, ?Url, ?TokenEnv
            grants_now/1,               % -IsoTime
            grants_state/2              % +Source, -State
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(ordsets)).
:- use_module(library(aggregate)).
:- use_module(library(solution_sequences)).
:- use_module(library(sha), [sha_hash/3, hash_atom/2]).

:- meta_predicate grants_read_once(0).
:- use_module(store).
:- use_module(journal).
:- use_module(ladder).
:- use_module(when, [items_between/4]).
:- use_module(cells, [cell/1, cell_provenance/2]).
:- use_module(tms, [belief_support/3]).
:- use_module(attention_store, [scope_atom/2]).
:- use_module(attention_checks, [text_atom/2]).

/** <module> Sharing: principals, teams, grants, labels, and the one visibility policy

A memory home has an *owner* (a person, or a team: a team-owned home is a *pool*). The owner
*grants* a grantee (a person or a team) a *segment* of the home up to a *ceiling* of detail:

```
grant(g_1, alice, platform, [segment(payments)], l2, none)
```

gives every member of team `platform` the items of segment `payments` (and what curation
derived from them alone) down to L2, distillations, never verbatim text. Membership is read
at every read, so joining and leaving take effect at the next one; a revoked or expired
grant reaches nobody from then on (revocation is forward-only: what was read stays in the
owner's access log, which the host keeps).

visible/3 is the one policy every read a grantee makes passes: the frame's jump, walk and
fovea (rules/hydrate.pl, option `reader`), the filtered vocabulary a grantee's goals and rules
see (rules/grantee_view.pl), and the host's `show` and receipts. A record is visible to a
grantee when

  - it is a live item matched by a grant that reaches the grantee (its filter: any of the
    values given per key, every key; keys segment, session, tag, entity, from, to), and the
    item's labels admit the grantee; the ceiling is the most detailed of those grants';
  - or it was derived from items (an arc, a rollup: provenance/2), every one of them is
    visible through grants of whole sessions (filters of segments and sessions alone, or of
    the whole home: whole_grant_/1), and the record's labels admit the grantee; its ceiling is
    the least detailed of theirs. So a summary never shows more of a source than the source
    itself would, and does not vanish when the owner writes on in its session outside a
    grant's time window or tag (no grantee sees a derived record through those).
  - An arc with a member hidden from the grantee is not visible, but its grouping is:
    visible_arc/4 shows them the arc of the members they see, with nothing written from the
    hidden one (no rung, summary or vector) and an id computed from the members they see.
  - A cell is visible to no grantee: cells partition every item of the home, hidden ones
    included, so which items share a cell, its aggregates and links, and whether all its
    members are visible all move when the owner writes where the grantee cannot see.
  - At an L3 ceiling (presence) a record must have a skeleton: a record too small for one,
    whose L3 rung is its L1 or L2 sentence (rules/ladder.pl keeps a tiny item's text as its
    L3), is not visible there, since showing it would show what it says.

Labels only tighten. An item may carry readers (principals or teams: only they may see it),
restrictions (`private`: no grantee; `pii`: only a grantee named among its readers; `team(T)`:
only members of T) and a retention date (after it no grantee sees it). A derived record's
labels are the most restrictive union of its sources' (readers intersect, restrictions union,
retention the earliest), computed by record_labels/2 from provenance at every read, so they are
always current. grants_declassify/4 is the only way down.

Pools: a home owned by a team is a pool. Membership derives the grant: every member reads the
whole pool at L0 (its labels still apply), joining and leaving taking effect at the next read.
A team principal reading a pool is refused, so no pool mounts another and nothing is laundered
through a hierarchy of teams; teams hold persons only.
*/

:- dynamic
    principal_/2,     % Principal, Kind                 (person | team)
    owner_/1,         % Principal                       the home's owner
    member_/2,        % Principal, Team
    token_/4,         % TokenId, Principal, Salt, Hash  (hex; the token itself is never stored)
    grant_/7,         % Id, Owner, Grantee, Filter, Ceiling, Expiry, Created
    revoked_/3,       % Id, Time, Who
    label_/3,         % Handle, Key, Value              (reader P | restriction R | retention Iso)
    declass_/3,       % Record, Key, Value              (a derived record's labels loosened)
    mount_/3.         % Name, Url, TokenEnv             (grants of other homes this one mounts)

:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_grants:principal_/2).
atc_store:durable_predicate(atc_grants:owner_/1).
atc_store:durable_predicate(atc_grants:member_/2).
atc_store:durable_predicate(atc_grants:token_/4).
atc_store:durable_predicate(atc_grants:grant_/7).
atc_store:durable_predicate(atc_grants:revoked_/3).
atc_store:durable_predicate(atc_grants:label_/3).
atc_store:durable_predicate(atc_grants:declass_/3).
atc_store:durable_predicate(atc_grants:mount_/3).

		 /*******************************
		 *          RELATIONS           *
		 *******************************/

%!  principal(?Principal, ?Kind) is nondet.
%   Principal is known to this home as a `person` or a `team`.
principal(P, Kind) :- principal_(P, Kind).

%!  member_of(?Principal, ?Team) is nondet.
%   Principal (a person) belongs to Team.
member_of(P, T) :- member_(P, T).

%!  home_owner(?Principal) is semidet.
%   The principal this home belongs to (set by `atc principal add NAME --owner`).
home_owner(P) :- owner_(P).

%!  grant(?Id, ?Owner, ?Grantee, ?Filter, ?Ceiling, ?Expiry) is nondet.
%   A grant of this home, revoked or not (see grant_revoked/3). Filter is a list of
%   segment(S), session(S), tag(T), entity(E), from(Iso), to(Iso); Ceiling l0..l3; Expiry an
%   ISO 8601 time or `none`.
grant(Id, Owner, Grantee, Filter, Ceiling, Expiry) :-
    grant_(Id, Owner, Grantee, Filter, Ceiling, Expiry, _).

%!  grant_revoked(?Id, ?Time, ?Who) is nondet.
grant_revoked(Id, Time, Who) :- revoked_(Id, Time, Who).

%!  principal_token(?TokenId, ?Principal, ?Salt, ?Hash) is nondet.
%   The salted hash of a principal's bearer token (the host verifies tokens).
principal_token(Id, P, Salt, Hash) :- token_(Id, P, Salt, Hash).

%!  item_label(?Handle, ?Key, ?Value) is nondet.
%   A label set on a record itself: reader-P, restriction-R or retention-Iso.
item_label(H, K, V) :- label_(H, K, V).

%!  grants_mount(?Name, ?Url, ?TokenEnv) is nondet.
%   A grant of another home this home mounts by reference (nothing of it is stored here).
grants_mount(Name, Url, Env) :- mount_(Name, Url, Env).

%!  grants_now(-Iso:atom) is det.
%   The present as ISO 8601 UTC (what expiry and retention are compared with).
grants_now(Iso) :-
    get_time(Now),
    format_time(atom(Iso), '%FT%TZ', Now, posix).

%!  grants_state(+Source, -State:dict) is det.
%   The home's owner (or null), principals (each with its teams), grants (each with its
%   revocation time or null, and whether it is live) and mounts, as lists of dicts. Source is
%   `loaded` (the facts this process holds) or changes(Lines): the facts the journal lines
%   Lines (the committed changes of this module's facts, in order: store_changes_facts/3)
%   leave, so listing the principals of a home does not cost loading all its items. Token
%   hashes stay in Prolog.
grants_state(Source, _{owner: Owner, principals: Ps, grants: Gs, mounts: Ms}) :-
    (   Source = changes(Lines)
    ->  store_changes_facts(Lines, atc_grants, Facts),
        Fact_1 = stored_fact_(Facts)
    ;   must_be(oneof([loaded]), Source),
        Fact_1 = state_fact_
    ),
    (   call(Fact_1, owner_(O)) -> Owner = O ; Owner = null ),
    findall(_{name: P, kind: K, teams: Teams},
            ( call(Fact_1, principal_(P, K)),
              findall(T, call(Fact_1, member_(P, T)), Teams) ),
            Ps),
    grants_now(Now),
    findall(_{id: Id, owner: Ow, grantee: G, filter: F, ceiling: C, expiry: E,
              revoked: Rev, live: Live},
            ( call(Fact_1, grant_(Id, Ow, G, F0, C, E, _)),
              maplist(term_string, F0, F),
              (   call(Fact_1, revoked_(Id, RT, _)) -> Rev = RT ; Rev = null ),
              (   Rev == null, ( E == none ; Now @< E ) -> Live = true ; Live = false ) ),
            Gs),
    findall(_{name: N, url: U, token_env: E}, call(Fact_1, mount_(N, U, E)), Ms).

% state_fact_(?Fact), stored_fact_(+Facts, ?Fact): Fact is one of this module's facts in
% memory, or of those the journal holds (grants_state/2).
state_fact_(F) :- call(F).
stored_fact_(Facts, F) :- member(F, Facts).

%!  grant_reaches(?Id, +Principal) is nondet.
%   Grant Id, live (not revoked, not expired), reaches Principal: it names Principal, or a
%   team Principal is a member of (read now, so membership changes count at the next read).
grant_reaches(Id, P) :-
    grants_now(Now),
    grant_reaches_(Now, Id, P, _, _).

grant_reaches_(Now, Id, P, Filter, Ceiling) :-
    (   Grantee = P
    ;   member_(P, Grantee)
    ),
    grant_(Id, _, Grantee, Filter, Ceiling, Expiry, _),   % indexed on the grantee
    \+ revoked_(Id, _, _),
    (   Expiry == none -> true ; Now @< Expiry ).

%!  pool_mount_refused(+ReaderKind, +HomeKind) is semidet.
%   A reader of ReaderKind may not read a home of HomeKind: a team (a pool's identity) never
%   reads a pool.
pool_mount_refused(team, team).

		 /*******************************
		 *            POLICY            *
		 *******************************/

%!  visible(+Principal, ?Record, -MaxLevel) is nondet.
%
%   Record (an item, arc or rollup) may be shown to Principal at MaxLevel (l0..l3) or any less
%   detailed level. The home's owner sees every live record at l0. Anyone else sees what the
%   live grants reaching them admit (see the module documentation); with Record unbound, the
%   items and derived records visible are enumerated. Inside grants_read_once/1 an answer for
%   a given Record is worked out once and remembered for the rest of that read.

visible(P, Record, Max) :-
    nonvar(Record), atom(P),
    nb_current(atc_grants_read, Read), Read \== none, !,
    (   read_seen_(Read, P, Record, Max0)
    ->  true
    ;   read_set_answer_(Read, P, Record, Max1)
    ->  Max0 = Max1
    ;   (   visible_(P, Record, Max1) -> Max0 = Max1 ; Max0 = none ),
        assertz(read_seen_(Read, P, Record, Max0))
    ),
    Max0 \== none,
    Max = Max0.
visible(P, Record, Max) :-
    visible_(P, Record, Max).

%!  grants_read_once(:Goal) is semidet.
%
%   Run Goal once as one read: visible/3 answers each record it is asked about once, however
%   often the read asks (a grantee's frame asks about the same cell, arc or item from the jump,
%   the walk and the fovea). A read changes nothing visibility reads (grants, members, labels,
%   items); the next read asks afresh. Nested, the outer read's answers serve.
grants_read_once(Goal) :-
    (   nb_current(atc_grants_read, Read), Read \== none
    ->  once(Goal)
    ;   flag(atc_grants_read, N, N + 1),
        setup_call_cleanup(nb_setval(atc_grants_read, N),
                           once(Goal),
                           ( nb_setval(atc_grants_read, none),
                             retractall(read_seen_(N, _, _, _)),
                             retractall(read_set_(N, _, _)) ))
    ).

:- thread_local
    read_seen_/4,                       % Read, Principal, Record, Max (none: not visible)
    read_set_/3.                        % Read, Principal, bounded(Set) | unbounded | unbuilt

% Inside a read, an item's answer comes from the reader's kept set (reader_items/2) when one
% is current: a lookup instead of matching every grant's filter and the item's labels. Whether
% it is current is asked once a read (a read changes nothing visibility depends on). Derived
% records are still worked out by visible_/3.
read_set_answer_(Read, P, Record, Max) :-
    (   read_set_(Read, P, State)
    ->  true
    ;   reader_set_state_(P, State),
        assertz(read_set_(Read, P, State))
    ),
    State = bounded(Set),
    (   reader_item_(Set, Record, Max0)
    ->  Max = Max0
    ;   item(Record)
    ->  Max = none
    ).

visible_(P, Record, Max) :-
    must_be(atom, P),
    principal_(P, Kind),
    (   owner_(P)
    ->  live_record_(Record),
        Max = l0
    ;   owner_(Owner), principal_(Owner, HomeKind), pool_mount_refused(Kind, HomeKind)
    ->  fail
    ;   grants_now(Now),
        findall(g(F, C), grant_reaches_(Now, _, P, F, C), Grants0),
        (   owner_(Pool), principal_(Pool, team), member_(P, Pool)
        ->  Grants = [g([], l0)|Grants0]    % a pool's members: the whole pool, labels apply
        ;   Grants = Grants0
        ),
        Grants \== [],
        (   nonvar(Record)
        ->  visible_(Now, P, Grants, Record, Max)
        ;   (   item(Record)
            ;   derived_record_(Record)
            ),
            visible_(Now, P, Grants, Record, Max)
        )
    ).

		 /*******************************
		 *    WHAT A READER SEES, KEPT  *
		 *******************************/

%!  reader_items(+Principal, -Items) is det.
%
%   The records Principal sees, worked out from the journal's indexes and kept (reader_records/2)
%   until anything visibility depends on changes: grants and their revocation, principals,
%   memberships, labels, the items and what curation derived from them; or the next grant
%   expiry or retention date passes. Items is bounded(Count), Count the records kept, or
%   `unbounded` when no such set is kept: for the owner; where no record has a label and
%   no grant's ceiling is L3 (either may hide records of a segment), for grants of whole
%   segments alone or of the whole home, a pool's members' included (a search finds their
%   records first); and for grants whose filters name more than
%   reader_set_limit_/1 items in all (their searches then filter what they fetch instead).
%
%   The candidates are the items of the sessions a grant's filter names (else of its segments,
%   its entities, its time window or its tags: filter_candidates_/3),
%   each checked by the policy itself (visible/3's), then the arcs and rollups those
%   visible items belong to, each checked likewise: the set is exactly what visible/3 answers.
%   A grantee's searches run within it (rules/hydrate.pl), so what they return cannot depend on
%   hidden records, and costs what the reader sees, not what the home holds.

reader_items(P, Items) :-
    reader_set_current_(P, Items, _, _, _).

%!  reader_records(+Principal, -Records:list) is semidet.
%   The records (items and derived records) Principal sees, as reader_items/2 keeps them,
%   sorted; fails when reader_items/2 gives `unbounded`.
reader_records(P, Records) :-
    reader_set_current_(P, bounded(_), _, Records, _).

%!  reader_segments(+Principal, -Segments:list) is semidet.
%   The segments of the items Principal sees, as reader_items/2 keeps them, sorted; fails
%   when reader_items/2 gives `unbounded`.
reader_segments(P, Segments) :-
    reader_set_current_(P, bounded(_), _, _, Segments).

%!  reader_unseen(+Principal, -Records:list) is semidet.
%   Where no set of what Principal sees is kept (reader_items/2 gives `unbounded`) and their
%   grants are of whole segments or the whole home at ceilings above L3, a record of those
%   segments is hidden from them by a label alone: Records are those the searches score
%   (items, and the arcs made of them), sorted, kept with the set. Their BM25 searches leave them out
%   of the segments' statistics (lexical/4's without/1): weighed in, the score of a record
%   Principal sees moved with how many private notes held a word. Fails where a grant's
%   filter is narrower or its ceiling L3 (what it hides is not found through the labels), and
%   for the owner.
reader_unseen(P, Records) :-
    reader_set_current_(P, unbounded, Set, _, _),
    reader_unseen_(Set, Records).

%!  reader_unseen_options(+Principal, -Options:list) is det.
%   The options of a BM25 search (lexical/4) of Principal's that leave out of its statistics
%   the records reader_unseen/2 gives: [without(Keys)], Keys one a line, where there are
%   any; else [] (the owner, a kept set, whose searches run within it, or none hidden).
reader_unseen_options(P, Options) :-
    (   reader_unseen(P, Hidden), Hidden \== []
    ->  atomic_list_concat(Hidden, '\n', Keys),
        Options = [without(Keys)]
    ;   Options = []
    ).

%!  scope_record(+Principal, -Record) is nondet.
%   Record is an item of a segment Principal's grants name, or a record derived from one, each
%   once: every record they may see, where every grant of theirs names segments (a grant of
%   the whole home, or by a tag, an entity or a time alone, names none: then it fails at once).
%   A grantee's enumeration where no set is kept reads these instead of the whole home's
%   records (rules/grantee_view.pl), so it costs what their segments hold, not what the
%   segments they cannot read do. A derived record is visible only where each of its sources
%   is, so it derives from an item of those segments.
scope_record(P, R) :-
    grant_segments(P, Segments),
    Segments \== any,
    distinct(R, ( member(S, Segments),
                  stored_text_(S, Stored),
                  item_segment(H, Stored),
                  ( R = H ; item_derived_(H, R) ) )).

% reader_unseen_make_(+Set, +P, +Now, +Grants): reader_unseen_/2 of a new unbounded Set, where
% only a label can hide a record of the segments Grants name: the labelled items and arcs and
% the arcs made of labelled items (a label reaches those), each that the policy hides from P,
% in those segments.
reader_unseen_make_(Set, P, Now, Grants) :-
    (   forall(member(g(F, C), Grants), ( C \== l3, ( F == [] ; whole_segments_(F) ) ))
    ->  findall(S, ( member(g(F, _), Grants), member(segment(S0), F), atom_string(S, S0) ),
                Segments0),
        (   memberchk(g([], _), Grants) -> Segments = any ; sort(Segments0, Segments) ),
        % what a search scores: items and arcs (rollups and cells have no BM25 entry, and a
        % cell's policy reads every member: ~7 ms a cell)
        findall(R, ( label_(R, _, _), ( item(R) ; arc(R) ) ), Labelled0),
        sort(Labelled0, Labelled),
        findall(A, ( member(L, Labelled), arc_member(A, L) ), Arcs),
        append(Labelled, Arcs, Records0),
        sort(Records0, Records),
        include(unseen_in_(Now, P, Grants, Segments), Records, Hidden),
        assertz(reader_unseen_(Set, Hidden))
    ;   true
    ).

unseen_in_(Now, P, Grants, Segments, R) :-
    live_record_(R),
    (   Segments == any
    ->  true
    ;   item(R)
    ->  item_segment(R, S0), atom_string(S, S0), memberchk(S, Segments)
    ;   record_source_(R, H), item_segment(H, S0), atom_string(S, S0), memberchk(S, Segments)
    ->  true
    ),
    \+ visible_(Now, P, Grants, R, _).

% reader_set_current_(+P, -Items, -Set, -Records, -Segments): P's kept set, made first when
% there is none or it is out of date.
reader_set_current_(P, Items, Set, Records, Segments) :-
    must_be(atom, P),
    grants_now(Now),
    reader_set_generation_(G),
    (   reader_set_(P, G, Until, Items0, Set0, Records0, Segments0),
        text_order_(Now, Until, (<))
    ->  Items-Set-Records-Segments = Items0-Set0-Records0-Segments0
    ;   with_mutex(atc_reader_sets, reader_set_make_(P, Now, G)),
        reader_set_(P, G, _, Items, Set, Records, Segments)
    ).

% A set is made under a new Set number and replaces the old one only once complete, so a
% read in another thread never looks up a set half made. A make that did not finish (a limit
% stopped the grantee's call that made it) leaves its number in reader_set_making_/1, and the
% next make sweeps what it had asserted: those clauses belonged to no set and stayed for the
% life of the process (a grantee's lexical/4 under a time limit just short of the make, asked
% again and again, left ~7,000 clauses, ~1.3 MB, in `atc serve` a request).
:- dynamic
    reader_set_/7,      % Principal, Generation, Until, Items, Set, Records, Segments (one each)
    reader_item_/3,     % Set, Record, MaxLevel
    reader_unseen_/2,   % Set, Records: of an unbounded set, those a label hides (reader_unseen/2)
    reader_set_making_/1.   % Set: being made (makes run one at a time: atc_reader_sets)

% reader_set_state_(+P, -State): bounded(Set) or unbounded when P's kept set is current, else unbuilt
% (asking builds nothing: a frame, a grantee's lexical/4 and memory_now/1 do).
reader_set_state_(P, State) :-
    reader_set_generation_(G),
    (   reader_set_(P, G, Until, Items, Set, _, _), grants_now(Now),
        text_order_(Now, Until, (<))
    ->  ( Items = bounded(_) -> State = bounded(Set) ; State = unbounded )
    ;   State = unbuilt
    ).

reader_set_make_(P, Now, G) :-
    forall(retract(reader_set_making_(Unfinished)),
           ( retractall(reader_item_(Unfinished, _, _)),
             retractall(reader_unseen_(Unfinished, _)) )),
    flag(atc_reader_set, Set, Set + 1),
    assertz(reader_set_making_(Set)),
    (   reader_grants_(P, Now, Grants)
    ->  (   reader_candidates_(Grants, Candidates)
        ->  forall(( member(H, Candidates), visible_(Now, P, Grants, H, Max) ),
                   assertz(reader_item_(Set, H, Max))),
            findall(D, ( reader_item_(Set, H, _), item_derived_(H, D) ), Derived0),
            sort(Derived0, Derived),
            forall(( member(D, Derived), visible_(Now, P, Grants, D, Max) ),
                   assertz(reader_item_(Set, D, Max))),
            aggregate_all(count, reader_item_(Set, _, _), Count),
            Items = bounded(Count)
        ;   Items = unbounded,
            reader_unseen_make_(Set, P, Now, Grants)
        )
    ;   owner_(P)
    ->  Items = unbounded
    ;   Items = bounded(0)                  % no live grant, or a team reading a pool
    ),
    findall(R, reader_item_(Set, R, _), Records0),
    sort(Records0, Records),
    findall(S, ( member(R, Records), item_segment(R, S) ), Segments0),
    sort(Segments0, Segments),
    reader_set_until_(Now, Until),
    forall(retract(reader_set_(P, _, _, _, Old, _, _)),
           ( retractall(reader_item_(Old, _, _)), retractall(reader_unseen_(Old, _)) )),
    assertz(reader_set_(P, G, Until, Items, Set, Records, Segments)),
    retractall(reader_set_making_(Set)),
    retractall(read_set_(_, P, _)).         % a read that found none uses this one from now

% reader_grants_(+P, +Now, -Grants): the g(Filter, Ceiling) of the live grants reaching P (a
% pool's members: the whole pool); fails for the owner, a team reading a pool, or no grant.
reader_grants_(P, Now, Grants) :-
    principal_(P, Kind),
    \+ owner_(P),
    \+ ( owner_(Owner), principal_(Owner, HomeKind), pool_mount_refused(Kind, HomeKind) ),
    findall(g(F, C), grant_reaches_(Now, _, P, F, C), Grants0),
    (   owner_(Pool), principal_(Pool, team), member_(P, Pool)
    ->  Grants = [g([], l0)|Grants0]
    ;   Grants = Grants0
    ),
    Grants \== [].

% reader_candidates_(+Grants, -Items): every item a grant of Grants may match (the items of
% the sessions its filter names, else of its segments, ...: filter_candidates_/3),
% deduplicated; fails when there are more than reader_set_limit_/1 of them, or, where no
% record a grant matches can be hidden from the reader (grants_hide_none_/1), when one grant
% is of the whole home or every grant is of whole segments: a search then finds the reader's
% records among its first hits, and a set would cost more to make (~40 µs a record) than it
% saves.
reader_candidates_(Grants, Items) :-
    (   grants_hide_none_(Grants)
    ->  \+ memberchk(g([], _), Grants),
        \+ forall(member(g(Filter, _), Grants), whole_segments_(Filter))
    ;   true                            % a hidden record would weigh in a segment's statistics
    ),
    reader_set_limit_(Limit),
    foldl(grant_candidates_(Limit), Grants, [], Lists),
    append(Lists, Items0),
    sort(Items0, Items),
    length(Items, N),
    N =< Limit.

grant_candidates_(Limit, g(Filter, _), Lists, [Items|Lists]) :-
    filter_candidates_(Filter, Limit, Items),
    length(Items, N),
    N =< Limit.

% filter_candidates_(+Filter, +Limit, -Items): the items one key of Filter names, found
% through an index where there is one, at most Limit + 1 of them (more and no set is kept:
% reading on would be wasted): an item the filter matches passes every key, so it is among
% them (each is then checked by the policy itself). A filter of no key (the whole home) takes
% every item; reader_candidates_/2 asks for it only where a label or a presence ceiling may
% hide some: otherwise it hides nothing, and a search of the whole home finds its records
% first. A grant by a tag, an entity or a time
% alone is kept too: with no set, its BM25 statistics were the whole home's, so a score told
% how many hidden records held a word (as a label's were).
filter_candidates_(Filter, Limit, Items) :-
    Most is Limit + 1,
    key_candidates_(Filter, Most, Items).

key_candidates_([], Most, Items) :- !,
    findall(H, limit(Most, item(H)), Items).
key_candidates_(Filter, Most, Items) :-
    findall(S, member(session(S), Filter), Sessions), Sessions \== [], !,
    findall(H, limit(Most, ( member(S, Sessions), stored_text_(S, S1), item_session(H, S1) )),
            Items).
key_candidates_(Filter, Most, Items) :-
    findall(S, member(segment(S), Filter), Segments), Segments \== [], !,
    findall(H, limit(Most, ( member(S, Segments), stored_text_(S, S1), item_segment(H, S1) )),
            Items).
key_candidates_(Filter, Most, Items) :-
    findall(E, member(entity(E), Filter), Entities), Entities \== [], !,
    findall(H, limit(Most, distinct(H, ( member(E, Entities), entity_holder_(E, H) ))), Items).
key_candidates_(Filter, Most, Items) :-
    findall(T, member(from(T), Filter), Froms),
    findall(T, member(to(T), Filter), Tos),
    ( Froms \== [] ; Tos \== [] ),
    maplist(grant_stamp_, Froms, FromStamps),
    maplist(grant_stamp_, Tos, ToStamps),
    !,
    % a day wider each side: the filter compares time texts, the day index stamps
    (   min_list(FromStamps, From0) -> From is From0 - 86400 ; From = -62167219200 ),
    (   max_list(ToStamps, To0) -> To is To0 + 86400 ; To = 253402300799 ),
    items_between(From, To, Most, Items).
key_candidates_(Filter, Most, Items) :-
    findall(T, member(tag(T), Filter), Tags), Tags \== [], !,
    findall(S, ( member(T, Tags), atom_string(T, S) ), Strings),
    % no index of tags: one pass over the items, once per change of memory
    findall(H, limit(Most, ( item(H), once(( member(S, Strings), distilled(H, tag, S) )) )),
            Items).

% grants_hide_none_(+Grants): every item Grants' filters match is visible: no record has a
% label (a restriction, readers or a retention date) and no grant's ceiling is presence (at
% L3 a record too small for a skeleton is not visible: l3_says_text_/1). Where one may be
% hidden, a search weighed by the segments' statistics would count it.
grants_hide_none_(Grants) :-
    \+ label_(_, _, _),
    \+ memberchk(g(_, l3), Grants).

% entity_holder_(+E, -H): item H names entity E, as condition_holds_/2 reads entity(E): a
% distilled entity, or the object of one of its links (stored as an atom, a string or a
% number), each looked up through its index.
entity_holder_(E, H) :-
    atom_string(E, S),
    (   distilled(H, entity, S)
    ;   stored_text_(S, O), relation(H, _, O)
    ;   atom_number(S, O), relation(H, _, O)
    ),
    item(H).

grant_stamp_(Time, Stamp) :-
    atom_string(Time, Text),
    catch(parse_time(Text, iso_8601, Stamp), _, fail).

whole_segments_(Filter) :-
    Filter \== [],
    forall(member(C, Filter), C = segment(_)).

% The forms a text value may be stored in (sessions and segments are atoms, or strings in
% homes written before): each is looked up through the index on that argument.
stored_text_(S, Stored) :-
    atom_string(A, S),
    (   Stored = A
    ;   atom_string(A, Str), Stored = Str
    ).

% A derived record item H is a source of that a grantee may see: what curation computed from
% it (arcs, rollups; its cell is visible to no grantee).
item_derived_(H, D) :-
    (   provenance(D, H)
    ;   arc_member(D, H)
    ),
    D \== H.

%   More candidates than this and a reader's set is not kept: making it costs ~40 µs a record
%   (~0.8 s at the limit, once per change and process), and a reader who sees that much finds
%   it among what a search fetches anyway. ATC_READER_SET_LIMIT (a count) sets another, so
%   that tests and benchmarks reach what lies past it without 20,000 items.
reader_set_limit_(Limit) :-
    (   getenv('ATC_READER_SET_LIMIT', Text),
        catch(atom_number(Text, N), _, fail),
        integer(N), N >= 0
    ->  Limit = N
    ;   Limit = 20000
    ).

% reader_set_until_(+Now, -Until): the next time a grant's expiry or a retention date passes.
reader_set_until_(Now, Until) :-
    findall(T, ( ( grant_(_, _, _, _, _, T, _), T \== none
                 ; label_(_, retention, T)
                 ),
                 text_order_(Now, T, (<)) ),
            Times),
    (   Times == [] -> Until = '9999-12-31T23:59:59Z' ; min_text_(Times, Until) ).

min_text_(Texts, Min) :-
    maplist(atom_string, Texts, Strings),
    min_member(Min, Strings).

% What a reader's set depends on: the generation of every fact visibility reads.
reader_set_generation_(G) :-
    findall(N, ( reader_set_depends_(Head), predicate_generation_(Head, N) ), G).

reader_set_depends_(atc_grants:principal_(_, _)).
reader_set_depends_(atc_grants:owner_(_)).
reader_set_depends_(atc_grants:member_(_, _)).
reader_set_depends_(atc_grants:grant_(_, _, _, _, _, _, _)).
reader_set_depends_(atc_grants:revoked_(_, _, _)).
reader_set_depends_(atc_grants:label_(_, _, _)).
reader_set_depends_(atc_grants:declass_(_, _, _)).
reader_set_depends_(atc_journal:item_(_, _, _, _, _, _, _, _, _, _)).
reader_set_depends_(atc_journal:tombstone_(_, _, _)).
reader_set_depends_(atc_journal:relation_(_, _, _)).
reader_set_depends_(atc_ladder:record_(_, _, _, _, _, _, _, _, _, _, _)).
reader_set_depends_(atc_ladder:entity_(_, _, _)).
reader_set_depends_(atc_ladder:entity_ids_(_, _)).
reader_set_depends_(atc_ladder:arc_(_, _, _)).
reader_set_depends_(atc_ladder:arc_member_(_, _, _)).
reader_set_depends_(atc_ladder:rollup_(_, _)).
reader_set_depends_(atc_ladder:provenance_(_, _)).
reader_set_depends_(atc_ladder:rung_(_, _, _, _)).
reader_set_depends_(atc_ladder:distill_(_, _, _)).

predicate_generation_(Head, G) :-
    (   predicate_property(Head, last_modified_generation(G0)) -> G = G0 ; G = 0 ).

%!  grant_scopes(+Principal, -Scopes:list) is det.
%
%   What bounds the items Principal may see, without reading one: a scope(Segments, Before)
%   per live grant reaching them, Segments the segments its filter names (`any` when it names
%   none) and Before the latest of its `to` times (`none` when it has none). An item outside
%   every scope is visible to no grant of theirs, so a reader's frame need not ask visible/3
%   about the items of a segment no scope names (scope_admits/3). [] for a principal who sees
%   nothing; [scope(any, none)] for the owner and a pool's members.
grant_scopes(P, Scopes) :-
    must_be(atom, P),
    (   \+ principal_(P, _)
    ->  Scopes = []
    ;   owner_(P)
    ->  Scopes = [scope(any, none)]
    ;   principal_(P, Kind), owner_(Owner), principal_(Owner, HomeKind),  % as visible/3
        pool_mount_refused(Kind, HomeKind)
    ->  Scopes = []
    ;   owner_(Pool), principal_(Pool, team), member_(P, Pool)
    ->  Scopes = [scope(any, none)]
    ;   grants_now(Now),
        findall(Scope, ( grant_reaches_(Now, _, P, F, _), filter_scope_(F, Scope) ), Scopes)
    ).

filter_scope_(Filter, scope(Segments, Before)) :-
    findall(S, member(segment(S), Filter), Segments0),
    (   Segments0 == [] -> Segments = any ; sort(Segments0, Segments) ),
    findall(T, member(to(T), Filter), Tos),
    (   Tos == [] -> Before = none ; max_text_(Tos, Before) ).

max_text_(Texts, Max) :-
    maplist(atom_string, Texts, Strings),
    max_member(Max, Strings).

%!  grant_segments(+Principal, -Segments) is det.
%   The segments the live grants reaching Principal name (grant_scopes/2), sorted, or `any`
%   when one of them names none (the owner's, a pool member's). [] for one who sees nothing.
grant_segments(P, Segments) :-
    grant_scopes(P, Scopes),
    (   memberchk(scope(any, _), Scopes)
    ->  Segments = any
    ;   findall(S, ( member(scope(Ss, _), Scopes), member(S, Ss) ), Segments0),
        sort(Segments0, Segments)
    ).

%!  scope_admits(+Scopes, +Segment, +Time) is semidet.
%   An item of Segment written at Time (text as item_time/2 gives it, or `_` for any time)
%   is inside one of Scopes (grant_scopes/2): a grant of them may match it.
scope_admits(Scopes, Segment, Time) :-
    member(scope(Segments, Before), Scopes),
    (   Segments == any -> true ; memberchk(Segment, Segments) ),
    (   Before == none -> true
    ;   var(Time) -> true
    ;   Time \== "", atom_string(Time, T), compare((<), T, Before)
    ), !.

%!  visible_at(+Principal, +Record, +Level) is semidet.
%   Principal may see Record at Level.
visible_at(P, Record, Level) :-
    visible(P, Record, Max), !,
    level_rank_(Max, MR),
    level_rank_(Level, LR),
    LR >= MR.

%!  visible_source(+Principal, +Record, +Item, -Pointer:string) is semidet.
%   Pointer says where Item (Record itself, or the item whose pointer stands for it: an arc's
%   first member) was read, as Principal may be told it: where they see Record at L1 or more
%   detail, its file's name alone (`s.jsonl`, never `/home/alice/acme/s.jsonl:5`: the owner's
%   user and project names are no part of a grant, and the place in the file, a line or a
%   JSON pointer, numbers the record among the owner's, so it would tell where records hidden
%   from Principal sit, and how many); below that, nothing (presence and distillations: the
%   handle is the pointer, which the owner can follow). Fails where Principal is told nothing.
visible_source(P, Record, Item, Pointer) :-
    place_shown_(P, Record),
    item_local_source(Item, _),         % its pointer names its file
    item_source_name(Item, Source),
    path_last_name(Source, Name),
    atom_string(Name, Pointer).

%!  visible_place(+Principal, +Record, +Path, -Name:atom) is semidet.
%   Name is the last name of Path, a directory of the owner's that Record names (an item's
%   working directory), as Principal may be told it: where visible_source/4 tells them a
%   source, its last name alone (`acme`, not `/home/alice/acme`); fails otherwise.
visible_place(P, Record, Path, Name) :-
    place_shown_(P, Record),
    path_last_name(Path, Name).

% Where a record was read is told with its L1 (the turn as it was, shortened) or its L0.
place_shown_(P, Record) :-
    visible_at(P, Record, l1).

%!  visible_arc(+Principal, +Arc, -Shown, -Members:list) is semidet.
%   Principal is shown the owner's arc Arc as the arc Shown grouping Members, the members of
%   Arc they see, in order: Arc itself where they see it (every member, through grants of
%   whole sessions), else, where they see two members or more, the arc curation would make
%   of those alone (its id content-derived from them as curation's: `arc_` and 12 hex digits
%   of the SHA-256 of the handles joined by newlines), which has no rungs, summary or vector
%   for them: Arc's were written from members they do not see. So the grouping of what they
%   see stays (an arc with one hidden member vanished whole, its members' grouping with it),
%   and nothing of the hidden members shows: not their handles, count or times, nor, since
%   Shown is computed from what they see, whether Arc gains a hidden member later.
visible_arc(P, Arc, Shown, Members) :-
    arc(Arc),
    findall(H, ( arc_member(Arc, H), visible(P, H, _) ), Members),
    (   visible(P, Arc, _)
    ->  Shown = Arc
    ;   Members = [_, _|_],
        atomic_list_concat(Members, '\n', Joined),
        sha_hash(Joined, Hash, [algorithm(sha256), encoding(utf8)]),
        hash_atom(Hash, Hex),
        sub_atom(Hex, 0, 12, _, Digits),
        atom_concat(arc_, Digits, Shown)
    ).

visible_(Now, P, Grants, R, Max) :-
    (   item(R)
    ->  item_ceiling_(Grants, R, Max),
        labels_admit_(Now, P, R)
    ;   cell(R)
    ->  fail        % the owner's partition of every item, hidden ones included
    ;   derived_record_(R)
    ->  include(whole_grant_, Grants, Whole),     % an arc or rollup: through these alone
        Whole \== [],
        findall(H, record_source_(R, H), Hs0),
        sort(Hs0, Hs),
        Hs \== [],
        foldl(source_ceiling_(Whole, Now, P), Hs, l0, Max),
        labels_admit_(Now, P, R)
    ),
    \+ ( Max == l3, l3_says_text_(R) ).

% R's L3 rung is not a skeleton but a more detailed rung's text (or a cut of it): a record too
% small for a skeleton says everything at L3, which a presence ceiling must not show.
l3_says_text_(R) :-
    rung(R, l3, Skeleton),
    member(Level, [l1, l2]),
    rung(R, Level, Text),
    (   Skeleton == Text
    ->  true
    ;   sub_string(Skeleton, Before, 1, 0, "\u2026"),
        sub_string(Skeleton, 0, Before, _, Head),
        string_concat(Head, _, Text)
    ),
    !.

% whole_grant_(+Grant): Grant gives whole sessions: its filter names only segments and
% sessions (or nothing: the whole home), so every item the owner writes later in a session it
% covers is covered too. A derived record (an arc, a session rollup) is seen only through such
% grants: through a time window, a tag or an entity, a session's summary was visible while each
% of its members was, and vanished when the owner wrote on in that session outside the window
% (or without the tag), which told the grantee that something was written there.
whole_grant_(g(Filter, _)) :-
    forall(member(C, Filter), ( C = segment(_) ; C = session(_) )).

source_ceiling_(Grants, Now, P, H, Max0, Max) :-
    item(H),
    item_ceiling_(Grants, H, C),
    labels_admit_(Now, P, H),
    less_detailed_(Max0, C, Max).

% The most detailed ceiling among the grants whose filter matches item H.
item_ceiling_(Grants, H, Max) :-
    findall(R, ( member(g(F, C), Grants), filter_matches_(F, H), level_rank_(C, R) ), Ranks),
    min_list(Ranks, MinRank),
    level_rank_(Max, MinRank).

live_record_(R) :-
    (   nonvar(R)
    ->  (   item(R) -> true ; derived_record_(R) )
    ;   item(R)
    ;   derived_record_(R)
    ).

derived_record_(R) :-
    (   nonvar(R)
    ->  ( arc(R) ; rollup(R, _) ; cell(R) ), !
    ;   arc(R)
    ;   rollup(R, _)
    ;   cell(R)
    ).

% The items a derived record was computed from: an arc's or rollup's provenance, a cell's
% members (no grantee sees a cell, visible_/5).
record_source_(R, H) :-
    (   cell(R) -> cell_provenance(R, H) ; provenance(R, H) ).

% A filter is a list of Key(Value) conditions: any value of a key, every key.
filter_matches_(Filter, H) :-
    findall(K, ( member(C, Filter), functor(C, K, 1) ), Keys0),
    sort(Keys0, Keys),
    forall(member(K, Keys),
           ( member(C, Filter), functor(C, K, 1), condition_holds_(C, H) -> true )).

condition_holds_(segment(S), H) :- item_segment(H, S).
condition_holds_(session(S), H) :- item_session(H, S0), same_text_(S0, S).
condition_holds_(tag(T), H) :- distilled(H, tag, V), same_text_(V, T), !.
condition_holds_(entity(E), H) :-
    (   distilled(H, entity, V), same_text_(V, E)
    ->  true
    ;   relation(H, _, O), same_text_(O, E)
    ), !.
condition_holds_(from(From), H) :-
    item_time(H, T), T \== "",
    text_order_(T, From, Ord), Ord \== (<).
condition_holds_(to(To), H) :-
    item_time(H, T), T \== "",
    text_order_(T, To, (<)).

same_text_(A, B) :-
    atom_string(A, S), atom_string(B, S).

text_order_(A, B, Ord) :-
    atom_string(A, SA), atom_string(B, SB),
    compare(Ord, SA, SB).

% Labels admit Principal: not private, pii only for a named reader, every team restriction
% met, a member of the readers (when there are readers), retention not passed.
labels_admit_(Now, P, R) :-
    record_labels(R, labels(Readers, Restrictions, Retention)),
    \+ memberchk(private, Restrictions),
    (   memberchk(pii, Restrictions)
    ->  Readers \== all, named_reader_(P, Readers)
    ;   true
    ),
    forall(member(team(T), Restrictions), ( T == P ; member_(P, T) )),
    (   Readers == all -> true ; named_reader_(P, Readers) ),
    (   Retention == none -> true ; text_order_(Now, Retention, (<)) ).

named_reader_(P, Readers) :-
    member(X, Readers),
    ( X == P ; member_(P, X) ), !.

%!  record_labels(+Record, -Labels) is det.
%
%   The labels in force on Record: labels(Readers, Restrictions, Retention), Readers `all` or
%   an ordered set of principals, Restrictions an ordered set (private, pii, team(T)),
%   Retention `none` or an ISO 8601 time. An item's are its own; a derived record's are the
%   most restrictive union of its own and its sources' (readers intersect, restrictions
%   union, retention the earliest), less what grants_declassify/4 loosened on it.

record_labels(R, Labels) :-
    own_labels_(R, Own),
    (   item(R)
    ->  Labels = Own
    ;   findall(L, ( record_source_(R, H), H \== R, own_labels_(H, L) ), Ls),
        foldl(tighten_, Ls, Own, Union),
        declassified_(R, Union, Labels)
    ).

%!  belief_labels(+Scope, +Belief, -Labels) is det.
%
%   The labels a belief carries: the most restrictive union (as record_labels/2) of the labels
%   of every journal item that justifies it, directly or through the beliefs that support it,
%   so a belief read from a private item is private. No grantee reads beliefs; the labels
%   say what sharing one would expose. A belief no item justifies has none:
%   labels(all, [], none).

belief_labels(Scope0, Belief, Labels) :-
    scope_atom(Scope0, Scope),
    text_atom(Belief, Id),
    belief_items_(Scope, [Id], [Id], [], Items),
    findall(L, ( member(H, Items), record_labels(H, L) ), Ls),
    foldl(tighten_, Ls, labels(all, [], none), Labels).

% belief_items_(+Scope, +Queue, +Seen, +Acc, -Items): the items that justify the queued
% beliefs and, breadth first, the beliefs that support them (each belief visited once).
belief_items_(_, [], _, Acc, Items) :-
    sort(Acc, Items).
belief_items_(Scope, [B|Bs], Seen, Acc, Items) :-
    findall(H, belief_support(Scope, B, item(H)), Hs),
    findall(B2, ( belief_support(Scope, B, belief(B2)), \+ memberchk(B2, Seen) ), New0),
    sort(New0, New),
    append(Seen, New, Seen1),
    append(Bs, New, Queue),
    append(Hs, Acc, Acc1),
    belief_items_(Scope, Queue, Seen1, Acc1, Items).

%!  labels_dict(+Labels, -Dict) is det.
%
%   Labels as a dict for the host, in the shape `atc label --show` prints a record's: readers
%   (`null`: anyone a grant reaches, or a list), restrictions (strings, a team restriction as
%   "team:NAME") and retention (`null` or an ISO 8601 time).

labels_dict(labels(Readers0, Restrictions, Retention0),
            _{readers: Readers, restrictions: Texts, retention: Retention}) :-
    ( Readers0 == all -> Readers = null ; Readers = Readers0 ),
    ( Retention0 == none -> Retention = null ; Retention = Retention0 ),
    maplist(restriction_text_, Restrictions, Texts).

restriction_text_(team(T), Text) :- !, format(string(Text), "team:~w", [T]).
restriction_text_(X, Text) :- atom_string(X, Text).

own_labels_(R, labels(Readers, Restrictions, Retention)) :-
    findall(P, label_(R, reader, P), Ps0),
    (   Ps0 == [] -> Readers = all ; sort(Ps0, Readers) ),
    findall(X, label_(R, restriction, X), Xs0),
    sort(Xs0, Restrictions),
    (   label_(R, retention, D) -> Retention = D ; Retention = none ).

tighten_(labels(R1, X1, T1), labels(R2, X2, T2), labels(R, X, T)) :-
    (   R1 == all -> R = R2
    ;   R2 == all -> R = R1
    ;   ord_intersection(R1, R2, R)
    ),
    ord_union(X1, X2, X),
    (   T1 == none -> T = T2
    ;   T2 == none -> T = T1
    ;   text_order_(T1, T2, (<)) -> T = T1
    ;   T = T2
    ).

declassified_(R, labels(R0, X0, T0), labels(R1, X1, T1)) :-
    (   declass_(R, readers, all) -> R1 = all
    ;   R0 == all -> R1 = all
    ;   findall(P, declass_(R, reader, P), Ps),
        sort(Ps, PSet),
        ord_union(R0, PSet, R1)
    ),
    findall(X, declass_(R, restriction, X), Xs),
    sort(Xs, XSet),
    ord_subtract(X0, XSet, X1),
    (   declass_(R, retention, D) -> T1 = D ; T1 = T0 ).

less_detailed_(A, B, C) :-
    level_rank_(A, RA), level_rank_(B, RB),
    R is max(RA, RB),
    level_rank_(C, R).

level_rank_(l0, 0).
level_rank_(l1, 1).
level_rank_(l2, 2).
level_rank_(l3, 3).

		 /*******************************
		 *           WRITING            *
		 *******************************/

%!  grants_principal_add(+Principal, +Kind, +Owner:boolean) is det.
%   Add a person or team; with Owner true it becomes the home's owner (there is one).
%   @error permission_error(create, principal, P) when it exists
%   @error permission_error(create, owner, P) when the home has another owner
grants_principal_add(P, Kind, Owner) :-
    name_(P),
    (   reserved_name_(P) -> domain_error(unreserved_principal_name, P) ; true ),
    must_be(oneof([person, team]), Kind),
    must_be(boolean, Owner),
    (   principal_(P, _) -> permission_error(create, principal, P) ; true ),
    (   Owner == true, owner_(O) -> permission_error(create, owner, O) ; true ),
    durable_assert(atc_grants:principal_(P, Kind)),
    (   Owner == true -> durable_assert(atc_grants:owner_(P)) ; true ).

%!  grants_principal_remove(+Principal, -Revoked:list) is det.
%   Remove a principal, its tokens and memberships (a team's too); the live grants to it are
%   revoked (listed in Revoked). The owner cannot be removed.
grants_principal_remove(P, Revoked) :-
    existing_principal_(P),
    (   owner_(P) -> permission_error(remove, owner, P) ; true ),
    findall(Id, ( grant_(Id, _, P, _, _, _, _), \+ revoked_(Id, _, _) ), Revoked),
    forall(member(Id, Revoked), grants_grant_revoke(Id, removed(P))),
    durable_retract(atc_grants:token_(_, P, _, _)),
    durable_retract(atc_grants:member_(P, _)),
    durable_retract(atc_grants:member_(_, P)),
    durable_retract(atc_grants:principal_(P, _)).

%!  grants_token_add(+TokenId, +Principal, +Salt, +Hash) is det.
%   Record the salted hash of a token issued to Principal (the host makes and hashes it).
grants_token_add(Id, P, Salt, Hash) :-
    existing_principal_(P),
    must_be(atom, Id),
    maplist(must_be(atom), [Salt, Hash]),
    durable_assert(atc_grants:token_(Id, P, Salt, Hash)).

%!  grants_member_join(+Principal, +Team) is det.
%   Principal, a person, joins Team. Teams hold persons only (no team in a team).
grants_member_join(P, T) :-
    existing_principal_(P),
    existing_principal_(T),
    (   principal_(T, team) -> true ; type_error(team, T) ),
    (   principal_(P, person) -> true ; permission_error(join, team, P) ),
    (   member_(P, T) -> true ; durable_assert(atc_grants:member_(P, T)) ).

%!  grants_member_leave(+Principal, +Team) is det.
%   @error existence_error(membership, P-T)
grants_member_leave(P, T) :-
    (   member_(P, T) -> durable_retract(atc_grants:member_(P, T))
    ;   existence_error(membership, P-T)
    ).

%!  grants_grant_add(+Id, +Grantee, +Filter, +Ceiling, +Expiry) is det.
%   The home's owner grants Grantee the records Filter matches down to Ceiling, until Expiry
%   (ISO 8601 or `none`).
%   @error existence_error(owner, home) when the home has no owner
grants_grant_add(Id, Grantee, Filter, Ceiling, Expiry) :-
    grants_grant_add(Id, Grantee, Filter, Ceiling, Expiry, _).

%!  grants_grant_add(+Id, +Grantee, +Filter, +Ceiling, +Expiry, -Made) is det.
%   As grants_grant_add/5; Made is Id, or the id of an unrevoked grant of the same owner,
%   grantee, filter, ceiling and expiry, which is kept instead of adding its twin (a command
%   retried after a kill must not leave a second grant that revoking the first would miss).
grants_grant_add(Id, Grantee, Filter, Ceiling, Expiry, Made) :-
    (   owner_(Owner),
        grant_(Old, Owner, Grantee, Filter0, Ceiling, Expiry, _),
        Filter0 == Filter,
        \+ revoked_(Old, _, _)
    ->  Made = Old
    ;   Made = Id,
        grant_add_(Id, Grantee, Filter, Ceiling, Expiry)
    ).

grant_add_(Id, Grantee, Filter, Ceiling, Expiry) :-
    must_be(atom, Id),
    (   owner_(Owner) -> true ; existence_error(owner, home) ),
    existing_principal_(Grantee),
    (   Grantee == Owner -> permission_error(grant, principal, Owner) ; true ),
    must_be(list, Filter),
    maplist(filter_condition_, Filter),
    (   level_rank_(Ceiling, _) -> true ; domain_error(level, Ceiling) ),
    (   Expiry == none -> true ; must_be(atom, Expiry) ),
    (   grant_(Id, _, _, _, _, _, _) -> permission_error(create, grant, Id) ; true ),
    grants_now(Now),
    durable_assert(atc_grants:grant_(Id, Owner, Grantee, Filter, Ceiling, Expiry, Now)).

filter_condition_(C) :-
    (   compound(C), C =.. [K, V], memberchk(K, [segment, session, tag, entity, from, to]),
        atomic(V)
    ->  true
    ;   domain_error(grant_filter, C)
    ).

%!  grants_grant_revoke(+Id, +Who) is det.
%   Revoke grant Id from now on (forward-only: reads before stay in the access log).
%   @error existence_error(grant, Id)
grants_grant_revoke(Id, Who) :-
    (   grant_(Id, _, _, _, _, _, _) -> true ; existence_error(grant, Id) ),
    (   revoked_(Id, _, _)
    ->  true
    ;   grants_now(Now),
        durable_assert(atc_grants:revoked_(Id, Now, Who))
    ).

%!  grants_label(+Handle, +Key, +Value) is det.
%
%   Tighten the labels of a record: Key `reader` adds a reader to a record without readers
%   only as the first of a new list (adding one to an existing list would widen it: that is
%   declassification); `readers` gives a list of them at once, which becomes the record's
%   first list together (one at a time, the second would widen the list the first made), or
%   changes nothing when the record's list holds each already; `restriction` adds private,
%   pii or team(T); `retention` sets a date no later than the one in force.
%   @error permission_error(loosen, label, Key-Value) for a change that would loosen
grants_label(H, Key, Value) :-
    must_be(atom, H),
    (   item(H) -> true ; derived_record_(H) -> true ; existence_error(record, H) ),
    own_labels_(H, labels(Readers, _, Retention)),
    (   Key == reader
    ->  existing_principal_(Value),
        (   label_(H, reader, Value) -> true
        ;   Readers == all, \+ label_(H, reader, _)
        ->  durable_assert(atc_grants:label_(H, reader, Value))
        ;   permission_error(loosen, label, reader-Value)
        )
    ;   Key == readers
    ->  must_be(list(atom), Value),
        maplist(existing_principal_, Value),
        (   forall(member(R, Value), label_(H, reader, R)) -> true
        ;   Readers == all, \+ label_(H, reader, _)
        ->  sort(Value, New),
            forall(member(R, New), durable_assert(atc_grants:label_(H, reader, R)))
        ;   member(R, Value), \+ label_(H, reader, R)
        ->  permission_error(loosen, label, reader-R)
        )
    ;   Key == restriction
    ->  restriction_(Value),
        (   label_(H, restriction, Value) -> true
        ;   durable_assert(atc_grants:label_(H, restriction, Value))
        )
    ;   Key == retention
    ->  must_be(atom, Value),
        (   Retention == none -> true
        ;   text_order_(Value, Retention, Ord), Ord \== (>) -> true
        ;   permission_error(loosen, label, retention-Value)
        ),
        durable_retract(atc_grants:label_(H, retention, _)),
        durable_assert(atc_grants:label_(H, retention, Value))
    ;   domain_error(label_key, Key)
    ).

%!  grants_labelled(?Handle) is nondet.
%   Handle carries a label of its own (a reader, a restriction or a retention date).
grants_labelled(H) :-
    (   atom(H) -> once(label_(H, _, _)) ; distinct(H, label_(H, _, _)) ).

%!  grants_carry_labels(+From, +To) is det.
%
%   Item To holds text of item From, which a later reading of their file superseded (the turn
%   went on below its first line, or was split between two speakers): To takes From's labels,
%   tightening only, so what was restricted stays so in the reading that replaced it. Every
%   restriction is added; From's readers become To's when To has none, else To keeps those
%   of its readers that From names too (none left: `private`); the earlier retention date of
%   the two is kept. The caller commits.
grants_carry_labels(From, To) :-
    must_be(atom, From),
    must_be(atom, To),
    forall(( label_(From, restriction, R), \+ label_(To, restriction, R) ),
           durable_assert(atc_grants:label_(To, restriction, R))),
    findall(P, label_(From, reader, P), Readers),
    (   Readers == []
    ->  true
    ;   \+ label_(To, reader, _)
    ->  forall(member(P, Readers), durable_assert(atc_grants:label_(To, reader, P)))
    ;   forall(( label_(To, reader, P), \+ memberchk(P, Readers) ),
               durable_retract(atc_grants:label_(To, reader, P))),
        (   label_(To, reader, _) -> true
        ;   label_(To, restriction, private) -> true
        ;   durable_assert(atc_grants:label_(To, restriction, private))
        )
    ),
    (   label_(From, retention, D),
        \+ ( label_(To, retention, D0), text_order_(D0, D, Ord), Ord \== (>) )
    ->  durable_retract(atc_grants:label_(To, retention, _)),
        durable_assert(atc_grants:label_(To, retention, D))
    ;   true
    ).

restriction_(private) :- !.
restriction_(pii) :- !.
restriction_(team(T)) :- !, existing_principal_(T), principal_(T, team).
restriction_(R) :- domain_error(restriction, R).

%!  grants_declassify(+Record, +Key, +Value, -Change) is det.
%
%   The one way down: loosen one label of Record. On an item the label itself changes; on a
%   derived record (whose labels come from its sources) the loosening is recorded against the
%   record. Key/Value: restriction/R (lifted), reader/P (added to the readers), readers/all
%   (readers lifted), retention/Iso-or-none. Change describes what changed (for the audit log).
%   @error existence_error(label, label(Record, Key, Value)) when Record carries no such
%          restriction (Key restriction) or no readers list to lift or widen (Key reader
%          or readers): the record is named, since one batch may loosen many
grants_declassify(R, Key, Value, Change) :-
    must_be(atom, R),
    (   item(R) -> Derived = false
    ;   derived_record_(R) -> Derived = true
    ;   existence_error(record, R)
    ),
    record_labels(R, labels(Readers, Restrictions, _)),
    (   Key == restriction
    ->  (   memberchk(Value, Restrictions) -> true
        ;   existence_error(label, label(R, restriction, Value))
        )
    ;   Key == reader
    ->  existing_principal_(Value),
        (   Readers == all -> existence_error(label, label(R, reader, Value)) ; true )
    ;   Key == readers
    ->  must_be(oneof([all]), Value),
        (   Readers == all -> existence_error(label, label(R, readers, Value)) ; true )
    ;   Key == retention
    ->  must_be(atom, Value)
    ;   domain_error(label_key, Key)
    ),
    declassify_(Derived, R, Key, Value),
    Change = _{record: R, key: Key, value: Value, derived: Derived}.

declassify_(false, H, restriction, V) :- !,
    durable_retract(atc_grants:label_(H, restriction, V)).
declassify_(false, H, reader, P) :- !,
    durable_assert(atc_grants:label_(H, reader, P)).
declassify_(false, H, readers, all) :- !,
    durable_retract(atc_grants:label_(H, reader, _)).
declassify_(false, H, retention, V) :- !,
    durable_retract(atc_grants:label_(H, retention, _)),
    (   V == none -> true ; durable_assert(atc_grants:label_(H, retention, V)) ).
declassify_(true, R, Key, V) :-
    (   Key == retention -> durable_retract(atc_grants:declass_(R, retention, _)) ; true ),
    (   declass_(R, Key, V) -> true ; durable_assert(atc_grants:declass_(R, Key, V)) ).

%!  grants_mount_add(+Name, +Url, +TokenEnv) is det.
%   Record a mount of another home's grant: its address and the environment variable that
%   holds the token (never the token).
grants_mount_add(Name, Url, Env) :-
    name_(Name),
    maplist(must_be(atom), [Url, Env]),
    (   mount_(Name, _, _) -> permission_error(create, mount, Name) ; true ),
    durable_assert(atc_grants:mount_(Name, Url, Env)).

%!  grants_mount_remove(+Name) is det.
%   @error existence_error(mount, Name)
grants_mount_remove(Name) :-
    (   mount_(Name, _, _) -> durable_retract(atc_grants:mount_(Name, _, _))
    ;   existence_error(mount, Name)
    ).

existing_principal_(P) :-
    must_be(atom, P),
    (   principal_(P, _) -> true ; existence_error(principal, P) ).

% A principal's or mount's name: a letter, then letters, digits, '-', '_' or '.'.
name_(N) :-
    must_be(atom, N),
    (   atom_codes(N, [C|Cs]), ascii_letter_(C),
        forall(member(X, Cs), ( ascii_letter_(X) ; between(0'0, 0'9, X) ; memberchk(X, `-_.`) )),
        atom_length(N, Len), Len =< 64
    ->  true
    ;   domain_error(principal_name, N)
    ).

% Names hydrate/3 reads as no reader, the home's owner (its `reader` option's default, and an
% option left unset): a principal of either name would read everything at L0.
reserved_name_(none).
reserved_name_(null).

ascii_letter_(C) :- between(0'a, 0'z, C), !.
ascii_letter_(C) :- between(0'A, 0'Z, C).
