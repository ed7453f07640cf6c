:- module(atc_api,
          [ api_open/2,                 % +Directory, -Info
            api_close/0,
            api_batch/1,                % :Goal
            api_ingest/2,               % +Items, -Counts
            api_ingest_with_marks/3,    % +Items, +Marks, -Counts
            api_ingest_with_marks/4,    % +Items, +Marks, +Launches, -Counts
            api_watermarks/2,           % +Sources, -Marks
            api_sources_at_times/2,     % +Times, -Sources
            api_sources_before/3,       % +Time, +Count, -Sources
            api_session_pointers/2,     % +Sessions, -Pairs
            api_sessions_apart/2,       % +Stems, -Pairs
            api_session_sources/2,      % +Sessions, -Pairs
            api_segments_held/3,        % +Handles, +Segment, -Held
            api_load_rules/3,           % +Sources, +Module, -Module
            api_load_rules/4,           % +Sources, +Module, +Options, -Module
            api_rule_predicates/2,      % +Text, -Indicators
            api_rule_predicates/3,      % +Name, +Text, -Indicators
            api_rule_predicate_texts/3, % +Name, +Text, -Texts
            api_query/4,                % +GoalText, +Options, -Solutions, -More
            api_stopped/1,              % -Reason
            interrupt_signal/1,         % +Signal
            api_set_limits/1,           % +Options
            api_item/2,                 % +Handle, -Dict
            api_linked_goals/3,         % +Predicate, +Object, -Goals
            api_describe/3,             % +Handle, +Level, -Dict
            api_hydrate/3,              % +Goal, +Options, -Frame
            api_hydrate_json/3,         % +Goal, +Options, -JsonOrFrame
            api_erasable/2,             % +Handles, -Items
            api_erase_plan/2,           % +Handles, -Plan
            api_erase/4,                % +Handles, +Who, +Reason, -Result
            api_erase/5,                % +Handles, +Dropped, +Who, +Reason, -Result
            api_erasures/1,             % -Records
            api_attention_texts/1,      % -Texts
            api_redact_attention/3,     % +Hits, +Handles, +Marker
            api_compact/2,              % +File, -Info
            api_adopt_compacted/1,      % +Epoch
            api_journal_replaced/0,
            api_batch_expire/3,         % +Level, +Before, -Count
            api_ladder_upgrade/2,       % +Limit, -Count

            api_sharing_change/2,       % +Change, -Result
            api_sharing_begin/2,        % +Changes, -Results
            api_batch_commit/0,
            api_batch_abort/0,
            api_sharing_state/1,        % -State
            api_sharing_state_stored/2, % +Changes, -State
            api_visible/3,              % +Reader, +Record, -MaxLevel
            api_visible_levels/3,       % +Reader, +Records, -Levels
            api_reader_uncurated/1,     % +Reader
            api_reader_query/5,         % +Reader, +GoalText, +Options, -Solutions, -More
            api_reader_hydrate/4,       % +Reader, +Goal, +Options, -Frame
            api_reader_hydrate_json/4,  % +Reader, +Goal, +Options, -JsonOrFrame
            api_reader_describe/4,      % +Reader, +Handle, +Level, -Record
            api_reader_rules/2,         % +Sources, -Module
            api_reader_rules/3,         % +Sources, +Options, -Module

            api_prepare_write/0,
            api_release/0,
            api_after_fork/0,
            api_refresh/1               % -Outcome
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(sandbox)).
:- use_module(sandbox_trust, []).      % libraries' own sandbox declarations: vouched ones only
:- use_module(load_guard, []).         % a library autoloaded in a user's call is loaded whole
:- use_module(library(time)).
:- use_module(library(solution_sequences)).
:- use_module(library(ordsets)).
:- use_module(library(pairs)).
:- use_module(library(prolog_code), []).  % before any rules file compiles its arithmetic
% (the optimise flag): goal expansion loads it on first use, and on SWI-Prolog 9.2 that was
% inside ladder.pl, whose flag the library then took, compiling its arithmetic past arith_guard
:- use_module(bridge, [format_directive_in/2]).
:- use_module(term_guard, [text_nesting_checked/1, term_depth_checked/1]).
:- use_module(number_guard, [number_text_checked/1]).  % and wraps the builtins reading numbers
:- use_module(isub_guard, []).       % wraps isub/4: its time grows as the cube of its texts
:- use_module(arith_guard, []).      % wraps is/2 and comparisons: no big-integer step past a bound
:- use_module(search_guard, []).     % wraps sub_atom/5 and the like: a long search a place at a time
:- use_module(occurs_guard, []).     % wraps unify_with_occurs_check/2: big terms a binding at a time
:- use_module(variant_guard, []).    % wraps variant_sha1/2, variant_hash/2: a term unfolding past 1,000,000 nodes refused
:- use_module(memory_meter, [process_memory/1]).  % the memory limit's measure: the process's, not malloc's
:- use_module(text_size_guard, []).  % wraps atomic_list_concat/2,3: no join past what the memory limit leaves
:- use_module(time_format_guard, []).  % wraps format_time/3,4: no `%Nf` past its C buffer, no format past 65,536 characters
:- use_module(store).
:- use_module(journal).
:- use_module(ladder).
:- use_module(jump).
:- use_module(hydrate, []).           % hydrate/3 comes confined from memory
:- use_module(frame_json, [frame_json/2]).
:- use_module(attention_api, []).
:- use_module(tms, [belief_support/3, tms_item_changed/4, tms_redact/2]).
:- use_module(attention_redact, [attention_text_leaves/1, attention_redact_leaves/2,
                                 attention_citing_values/2]).
:- use_module(memory, except([relation/3, provenance/2,     % journal's and ladder's here
                               item/1, item_speaker/2, item_goal/2, item_seq/2,
                               item_source/2, item_source_name/2, item_text/2,
                               item_kind/2, item_role/2, item_session/2, item_segment/2,
                               item_time/2, rung/3, rung_tokens/3, distilled/3,
                               arc_session/2, arc/1, arc_member/2, arc_goal/2, item_arc/2,
                               rollup/2, echo_of/3, curated/2,
                               cell/1, cell_of/2, cell_member/2, cell_adjacent/3,
                               cell_info/3, cell_hot/2,
                               nearest/3, nearest/4, lexical/4, similarity/3, similarity/4,
                               cell_neighbours/2, cell_path/3, cell_region/3,
                               goal_time_window/4, items_between/3, items_between/4,
                               goal_speaker/2])).
                                        % jump's, cells' and when's here, without the
                                        % wrappers that name them in their errors
:- use_module(cells).
:- use_module(grants).
:- use_module(grantee_view, [grantee_view_run/2, grantee_view_reader/1]).

/** <module> The one module the host calls

Every call from Python lands here. Writes run as batches: the batch commits when its goal
succeeds and is undone (in memory and in the journal) when it fails or raises, so a failed
ingest leaves memory exactly as it was.
*/

:- meta_predicate api_batch(0).

%!  api_open(+Directory, -Info:dict) is det.
%   Load the memory home's store (see store_open/2).
api_open(Dir, Info) :-
    nb_setval(atc_frame_primed, false),
    store_open(Dir, Info).

%!  api_close is det.
api_close :-
    nb_setval(atc_frame_primed, false),
    store_close.

%!  api_prepare_write is det.
%   Take the journal's write lock and bring memory up to its last commit, before a writer
%   computes anything (see store_prepare_write/0).
api_prepare_write :-
    store_prepare_write.

%!  api_release is det.
%   Give the journal's write lock back between batches, keeping memory loaded (see
%   store_release/0).
api_release :-
    store_release.

%!  api_after_fork is det.
%   In a forked process: leave the parent's journal stream to the parent (see
%   store_forget_writer/0).
api_after_fork :-
    store_forget_writer.

%!  api_refresh(-Outcome) is det.
%   Catch a reader up with what other processes committed (see store_refresh/1).
api_refresh(Outcome) :-
    store_refresh(Outcome).

%!  api_batch(:Goal) is semidet.
%   Run Goal as one durable batch: committed if it succeeds, undone if it fails or raises.
api_batch(Goal) :-
    store_prepare_write,                % the lock, and the last committed state, first
    catch(Goal, E, true),
    (   var(E)
    ->  store_commit
    ;   store_abort,
        throw(E)
    ),
    !.
api_batch(_) :-
    store_abort,
    fail.

%!  api_ingest(+Items, -Counts) is det.
%   Upsert journal items as one batch (see journal_add_items/2).
api_ingest(Items, Counts) :-
    api_batch(journal_add_items(Items, Counts)).

%!  api_ingest_with_marks(+Encoded, +Marks, -Counts) is det.
%   Upsert items given in the host's wire format (journal_add_encoded/2) and, in the same batch,
%   record each mark(Source, Size, Digest) watermark. A mark(Source, Size, Digest,
%   regrown(Segment, Keep, LastLine)) is that of a file that only grew since it was read and
%   was read again whole: the items of its earlier reading that this one no longer gives are
%   superseded (journal_supersede/5; a call kept without its result that the reading answers,
%   journal_supersede_answered/4, wherever its pointer points), and a mark(Source, Size,
%   Digest, reread(Segment, Keep)) that of a file read before and changed otherwise (a JSON
%   document written anew, or a file beside it that names its people added: the export's
%   users.json): only the calls its new reading answers are superseded; a mark(Source, Size,
%   Digest, replaces(Sources, Keep)) that of a file whose items memory held from other files
%   already, another export of the same conversation (a Messenger thread's HTML pages, Sources,
%   before its JSON): their items in the sessions of Keep that Keep does not give are
%   superseded (journal_supersede_sources/3); and the items either
%   reading gives again with another place, time or links take the new reading's (journal_refresh/3; their curated records are dropped and
%   they leave their cells, so curation computes and places them again; a superseded item
%   leaves its cell too), as do the items of
%   a Claude Code subagent stored without a goal before the call that launched it had its
%   result, which this batch holds (journal_adopt_launch_goals/2). Beliefs citing an item
%   superseded or refreshed go dirty (tms_item_changed/4). Items held from a source file no
%   longer there that the batch reads at another path take its source and pointer
%   (journal_follow_moved/2). Counts is
%   journal_add_encoded/2's, with `superseded`, the handles tombstoned so, `refreshed`,
%   those whose fields changed, `invalidated`, the curated records dropped for them
%   (ladder_invalidate/2: their own, and the arcs and rollups they were in), and `moved`,
%   the items that point at their file's new place.
api_ingest_with_marks(Items, Marks, Counts) :-
    api_ingest_with_marks(Items, Marks, [], Counts).

%!  api_ingest_with_marks(+Encoded, +Marks, +Launches, -Counts) is det.
%   As api_ingest_with_marks/3, and the subagent items still without a goal take the goal of
%   the launches the batch's parent transcripts name, launch(Session, Agent, Goal) each, where
%   no result carries it (journal_adopt_launches/2).
api_ingest_with_marks(Items, Marks, Launches, Counts) :-
    api_batch(( journal_add_encoded(Items, Counts0),
                foldl(apply_mark_, Marks, [], Superseded),
                % items a file read again gives again (grown, or changed otherwise: a JSON
                % document written anew, the export's users.json beside it added) take the
                % new reading's fields and links
                findall(H, ( member(mark(_, _, _, Again), Marks), read_again_(Again, Keep),
                             member(H, Keep) ),
                        Regrown0),
                sort(Regrown0, Regrown1),
                sort(Counts0.new_handles, New),
                ord_subtract(Regrown1, New, Regrown),      % a new item is as read
                journal_refresh(Items, Regrown, Refreshed0),
                % items held from a file no longer there, read at its new place (a folder
                % moved), point there now: only a file read whole (mark/3: read for the
                % first time here, or edited) giving items already held pays for the look,
                % never a grown file read again (mark/4) nor one whose items are all new
                (   Counts0.unchanged > 0,
                    memberchk(mark(_, _, _), Marks)
                ->  journal_follow_moved(Items, Moved)
                ;   Moved = []
                ),
                % a subagent's items read before its launch had a result take its goal now
                journal_adopt_launch_goals(Counts0.new_handles, Adopted0),
                journal_adopt_launches(Launches, Adopted2),    % launches with no result
                ord_union(Adopted0, Adopted2, Adopted),
                subtract(Adopted, Refreshed0, Adopted1),
                append(Refreshed0, Adopted1, Refreshed),
                ladder_invalidate(Refreshed, Invalidated),
                append(Superseded, Refreshed, Changed),
                % both leave their cells now (a cell's size, span and ladder are its live
                % members'); a refreshed item is placed again once curated, as new
                cells_release(Changed),
                beliefs_on_changed_(Changed),
                Counts = Counts0.put(_{superseded: Superseded, refreshed: Refreshed,
                                       invalidated: Invalidated, moved: Moved}) )).

read_again_(regrown(_, Keep, _), Keep).
read_again_(reread(_, Keep), Keep).

% Beliefs citing an item a later reading withdrew or changed go dirty, as for an erased one.
% The beliefs' citations are read once: a re-read may change thousands of items.
beliefs_on_changed_(Hs) :-
    (   Hs == []
    ->  true
    ;   findall(H-Scope, belief_support(Scope, _, item(H)), Cited0),
        sort(Cited0, Cited),
        sort(Hs, Changed),
        get_time(Now),
        forall(( member(H-Scope, Cited), ord_memberchk(H, Changed) ),
               tms_item_changed(Scope, H, Now, _))
    ).

apply_mark_(mark(Src, Size, Digest), Gone, Gone) :-
    journal_set_watermark(Src, Size, Digest).
apply_mark_(mark(Src, Size, Digest, regrown(Seg, Keep, LastLine)), Gone0, Gone) :-
    journal_set_watermark(Src, Size, Digest),
    journal_supersede(Src, Seg, Keep, LastLine, Grown),
    journal_supersede_answered(Src, Seg, Keep, Answered),   % a JSON document's calls too
    ord_union(Grown, Answered, Handles),
    carry_labels_(Handles, Keep),
    append(Gone0, Handles, Gone).
apply_mark_(mark(Src, Size, Digest, replaces(Sources, Keep)), Gone0, Gone) :-
    journal_set_watermark(Src, Size, Digest),
    journal_supersede_sources(Sources, Keep, Handles),    % another export of it, read before
    carry_labels_(Handles, Keep),
    append(Gone0, Handles, Gone).
apply_mark_(mark(Src, Size, Digest, reread(Seg, Keep)), Gone0, Gone) :-
    journal_set_watermark(Src, Size, Digest),
    journal_supersede_answered(Src, Seg, Keep, Handles),
    carry_labels_(Handles, Keep),
    append(Gone0, Handles, Gone).

% The items of the new reading that hold a superseded item's text take its labels: a
% restricted turn that went on below its first line was readable whole by every grantee.
carry_labels_(Superseded, Keep) :-
    include(grants_labelled, Superseded, Labelled),
    (   Labelled == []
    ->  true
    ;   journal_successors(Labelled, Keep, Pairs),
        forall(member(Old-New, Pairs), grants_carry_labels(Old, New))
    ).

%!  api_session_pointers(+Sessions:list(atom), -Pairs:list) is det.
%   Session-Pointer for each of Sessions that items in memory belong to, Pointer the source
%   pointer of one of them: the file a file that would take the same session by default has
%   to be told apart from.
api_session_pointers(Sessions, Pairs) :-
    must_be(list(atom), Sessions),
    findall(S-Pointer, ( member(S, Sessions),
                         once(( item_session(H, S), item_source(H, Pointer) )) ), Pairs).

%!  api_session_sources(+Sessions:list(atom), -Pairs:list) is det.
%   Session-Source for each source file live items of one of Sessions were read from
%   (journal_session_sources/2): where memory holds a conversation another export of it would
%   give again under other handles (a Messenger thread's HTML and JSON pages).
api_session_sources(Sessions, Pairs) :-
    journal_session_sources(Sessions, Pairs).

%!  api_sessions_apart(+Stems:list(atom), -Pairs:list) is det.
%   Session-Pointer for each session memory holds that is named after one of Stems told apart
%   from another file of that name (`Stem~` and 8 hex digits), Pointer the source pointer of
%   one of its items: a file of that name read at a new path may be one of them moved.
%   Sessions are those journal_session/1 lists.
api_sessions_apart(Stems, Pairs) :-
    must_be(list(atom), Stems),
    findall(S-Pointer, ( journal_session(S),
                         sub_atom(S, Before, 9, 0, Tail),
                         sub_atom(Tail, 0, 1, 8, ~),
                         sub_atom(S, 0, Before, _, Stem),
                         memberchk(Stem, Stems),
                         sub_atom(Tail, 1, 8, 0, Hex),
                         atom_codes(Hex, Codes),
                         forall(member(C, Codes), code_type(C, xdigit(_))),
                         once(( item_session(H, S), item_source(H, Pointer) )) ),
            Pairs).

%!  api_segments_held(+Handles:list(atom), +Segment:atom, -Held:list) is det.
%   Other-Count for each segment other than Segment that live items among Handles are in,
%   in standard order: items an ingest into Segment found already held elsewhere (an item
%   keeps the segment it was first ingested into; its handle does not depend on it).
api_segments_held(Handles, Segment, Held) :-
    must_be(list(atom), Handles),
    must_be(atom, Segment),
    findall(Other, ( member(H, Handles), item_segment(H, Other), Other \== Segment ), Others),
    msort(Others, Sorted),
    clumped(Sorted, Held).

%!  api_watermarks(+Sources:list(atom), -Marks:list) is det.
%   The watermark of each source, in order: mark(Size, Digest), or `none` if it has none.
api_watermarks(Sources, Marks) :-
    must_be(list(atom), Sources),
    maplist(source_mark_, Sources, Marks).

source_mark_(Source, Mark) :-
    (   journal_watermark(Source, Size, Digest)
    ->  Mark = mark(Size, Digest)
    ;   Mark = none
    ).

%!  api_sources_at_times(+Times:list(string), -Sources:list(atom)) is det.
%   The sources of the live items whose time is one of Times (`2026-03-02T10:01:00Z`), sorted:
%   the files a Claude Code session resumed with copies of its first records may copy (a copy
%   keeps each record's time).
api_sources_at_times(Times, Sources) :-
    must_be(list, Times),
    findall(Src, ( member(Time0, Times), stored_forms_(Time0, Time),
                   live_item_at_(Time, Src) ),
            Found),
    sort(Found, Sources).

%!  api_sources_before(+Time:string, +Count:integer, -Sources:list(atom)) is det.
%   The sources of the live items of the Count sessions whose last item at or before Time is
%   the latest: the file a session resumed into a file of its own new records follows on from
%   is among them (its last record came before the new file's first).
api_sources_before(Time0, Count, Sources) :-
    must_be(nonneg, Count),
    atom_string(Time0, Time),
    findall(T-Ses, ( atc_journal:live_(_, _, Ses, _, _, _, _, T0, _, _),
                     T0 \== "", T0 \== '', atom_string(T0, T), T @=< Time ),
            Timed),
    sort(0, @>=, Timed, Latest),
    pairs_values(Latest, Sessions0),
    list_to_ord_set([], Seen0),
    first_sessions_(Sessions0, Count, Seen0, Sessions),
    journal_session_sources(Sessions, Pairs),
    pairs_values(Pairs, Found),
    sort(Found, Sources).

first_sessions_([], _, Seen, Seen).
first_sessions_([Ses|Rest], Count, Seen0, Seen) :-
    length(Seen0, Len),
    (   Len >= Count
    ->  Seen = Seen0
    ;   ord_add_element(Seen0, Ses, Seen1),
        first_sessions_(Rest, Count, Seen1, Seen)
    ).

stored_forms_(Time0, Time) :-
    atom_string(Atom, Time0),
    atom_string(Atom, String),
    member(Time, [String, Atom]).

live_item_at_(Time, Src) :-
    atc_journal:item_(H, Src, _, _, _, _, _, Time, _, _),
    \+ atc_journal:tombstone_(H, _, _).

%!  api_erasable(+Handles:list, -Items:list(dict)) is det.
%   What erasing each of Handles must find and remove (journal_erasable/2), in order.
%   @error existence_error(item, Handle) for a handle the journal never held.
api_erasable(Hs, Items) :-
    must_be(list(atom), Hs),
    maplist(erasable_, Hs, Items).

erasable_(H, Item) :-
    (   journal_erasable(H, Item) -> true ; existence_error(item, H) ).

%!  api_erase(+Handles:list, +Who:string, +Reason:string, -Result:dict) is det.
%
%   Erase Handles as one batch: each keeps only its audit record (journal_erase/4); the items
%   of their sessions that inherited an erased user goal get the goal "[forgotten]" and are
%   curated again; every curated record derived from an erased or re-goaled item is dropped
%   (ladder_erase/3, ladder_invalidate/2); each erased item leaves its cell, whose aggregates
%   and ladder are rebuilt without it (cells_release/1); beliefs citing an erased item go
%   dirty. Result has
%   `records` (forgotten(H, Digest, Time, Who, Reason) each), `invalidated` (record ids),
%   `recurate` (re-goaled items), `echoes` (items whose echo original was erased) and
%   `sessions` (whose arcs and rollups must be rebuilt).
%   @error existence_error(item, Handle) for a handle the journal never held (nothing erased).
api_erase(Hs, Who, Reason, Result) :-
    api_erase(Hs, [], Who, Reason, Result).

%!  api_erase(+Handles:list, +Dropped:list, +Who:string, +Reason:string, -Result:dict) is det.
%   As api_erase/4; Dropped holds `[Handle, Text]` for items whose L0 retention dropped, their
%   text read again from their transcripts: digested (journal_erase/5), never stored.
api_erase(Hs, Dropped, Who, Reason, Result) :-
    must_be(list(atom), Hs),
    must_be(list, Dropped),
    api_batch(erase_(Hs, Dropped, Who, Reason, Result)).

%!  api_erase_plan(+Handles:list, -Plan:dict) is det.
%
%   What api_erase/4 would change, changing nothing: `items` (journal_erasable/2 of each),
%   `recurate`, `invalidated` and `sessions` as in its Result.
%   @error existence_error(item, Handle) for a handle the journal never held.
api_erase_plan(Hs, _{items: Items, recurate: Rec, invalidated: Ids, sessions: Sessions}) :-
    must_be(list(atom), Hs),
    erase_plan_(Hs, Items, _, Rec, Sessions),
    append(Hs, Rec, Changed),
    findall(Id, ( member(H, Changed), provenance(Id, H) ), Ids0),
    sort(Ids0, Ids).

erase_plan_(Hs, Items, Goals, Rec, Sessions) :-
    maplist(erasable_, Hs, Items),
    findall(S-G, ( member(I, Items), I.kind == user_goal, I.goal \== "",
                   S = I.session, G = I.goal ), Goals0),
    sort(Goals0, Goals),
    findall(H, ( member(S-G, Goals), item_goal(H, G),
                 item_session(H, S), \+ memberchk(H, Hs) ), Rec0),
    sort(Rec0, Rec),
    findall(S, ( member(I, Items), I.forgotten == false, S = I.session ), Sessions0),
    sort(Sessions0, Sessions).

erase_(Hs, Dropped, Who, Reason, _{records: Records, invalidated: Ids, recurate: Rec,
                                   echoes: Echoes, sessions: Sessions}) :-
    erase_plan_(Hs, _, Goals, _, Sessions),
    maplist(erase_one_(Dropped, Who, Reason), Hs, Records),
    cells_release(Hs),                  % each cell is rebuilt once from its members left
    erased_goal_marker(Marker),
    findall(H, ( member(S-G, Goals),
                 journal_replace_goal(S, G, Marker, Re), member(H, Re) ), Rec0),
    sort(Rec0, Rec),
    ladder_erase(Hs, Ids0, Echoes),
    ladder_invalidate(Rec, Ids1),
    ord_union(Ids0, Ids1, Ids),
    get_time(Now),
    forall(( member(H, Hs), distinct(Scope, belief_support(Scope, _, item(H))) ),
           tms_item_changed(Scope, H, Now, _)).

erase_one_(Dropped, Who, Reason, H, Record) :-
    (   memberchk([H, Text], Dropped), string(Text) -> true ; Text = "" ),
    journal_erase(H, Who, Reason, Text, Record).

%!  api_attention_texts(-Texts:list(string)) is det.
%   Every distinct text in a free-text field of the attention side (beliefs, inspections,
%   claims, event payloads, candidates' keys, the trace: attention_text_leaves/1), for an
%   erasure to judge.
api_attention_texts(Texts) :-
    attention_text_leaves(Texts).

%!  api_redact_attention(+Hits:list(string), +Handles:list, +Marker:string) is det.
%   As one batch: each of Hits replaced by Marker wherever a free-text field of the attention
%   side holds it, and the value of every belief citing one of Handles as support replaced by
%   Marker (it was read from the item).
api_redact_attention(Hits, Handles0, Marker0) :-
    atom_string(Marker, Marker0),
    maplist(handle_atom_, Handles0, Handles),
    api_batch(( attention_citing_values(Handles, Cited),
                tms_redact(Cited, Marker),
                attention_redact_leaves(Hits, Marker) )).

handle_atom_(Handle0, Handle) :-
    atom_string(Handle, Handle0).

%!  api_erasures(-Records:list(dict)) is det.
%   Every erasure's audit record: `handle`, `digest`, `time` (POSIX), `who`, `reason`.
api_erasures(Records) :-
    findall(_{handle: H, digest: D, time: T, who: W, reason: R},
            forgotten(H, D, T, W, R), Records).

%!  api_compact(+File, -Info:dict) is det.
%   Write the compacted journal to File (see store_compact/2).
api_compact(File, Info) :-
    store_compact(File, Info).

%!  api_adopt_compacted(+Epoch) is det.
%   The journal was replaced by the compacted file of Epoch (see store_adopt_compacted/1).
api_adopt_compacted(Epoch) :-
    store_adopt_compacted(Epoch).

%!  api_journal_replaced is semidet.
%   The home's journal was compacted since this process read it (store_journal_replaced/0).
api_journal_replaced :-
    store_journal_replaced.

%!  api_batch_expire(+Level, +Before, -Count) is det.
%   Apply retention to one level as a batch (see ladder_expire/3).
api_batch_expire(Level, Before, Count) :-
    api_batch(ladder_expire(Level, Before, Count)).

%!  api_ladder_upgrade(+Limit, -Count) is det.
%   Rewrite up to Limit curated records of the first fact forms as one batch (ladder_upgrade/2).
api_ladder_upgrade(Limit, Count) :-
    api_batch(ladder_upgrade(Limit, Count)).

%!  api_item(+Handle, -Item:dict) is semidet.
%   All journal fields of a live item.
api_item(H, _{handle: H, kind: K, role: R, goal: G, session: S, seq: Q, time: T, segment: Seg,
             source: P, source_name: Src, text: Text, relations: Rels}) :-
    item_kind(H, K), item_role(H, R), item_goal(H, G), item_session(H, S), item_seq(H, Q),
    item_time(H, T), item_segment(H, Seg), item_source(H, P), item_source_name(H, Src),
    (   item_text(H, Text) -> true ; Text = "" ),   % "" once retention dropped L0
    findall([P1, O], relation(H, P1, O), Rels).

%!  api_linked_goals(+Predicate:atom, +Object:atom, -Goals:list(string)) is det.
%   Goals of the live items H with relation(H, Predicate, Object), earliest item first
%   (session, then seq), each goal once. Ingestion asks it which goal launched a Claude Code
%   subagent: api_linked_goals(launched_agent, AgentId, Goals).
api_linked_goals(P, O, Goals) :-
    findall(S-Q-G, ( relation(H, P, O), item_session(H, S), item_seq(H, Q), item_goal(H, G) ),
            Found),
    msort(Found, Sorted),
    findall(G, member(_-_-G, Sorted), Gs0),
    list_to_set(Gs0, Goals).

%!  api_describe(+Handle, +Level, -Record:dict) is semidet.
%   An item's fields with its text at Level (l0..l3); fails for an unknown handle.
%   @error existence_error(rung, Handle-Level) when that rung has not been curated yet.
api_describe(H, Level, Record) :-
    api_item(H, Item),
    (   rung_text_(H, Level, Text)
    ->  true
    ;   existence_error(rung, H-Level)
    ),
    Record = Item.put(_{level: Level, text: Text}).

:- multifile rung_text_/3.
rung_text_(H, Level, Text) :- rung(H, Level, Text).

%!  api_hydrate(+Goal, +Options, -Frame) is det.
%   hydrate/3 for the host (see atc_hydrate:hydrate/3 for Options), confined as a user goal's
%   is (atc_memory:hydrate/3: `rules` a user module, walk rules defined there) and run under
%   the limits of user code (see api_query/4), since walk rules and planes are user code.
%   The first frame of an open home is preceded by a default frame outside those limits
%   (frame_primed_/1).
api_hydrate(Goal, Options, Frame) :-
    frame_primed_(Goal),
    within_limits_(Options, hydrate(Goal, Options, Frame)).

%!  api_hydrate_json(+Goal, +Options, -Out) is det.
%   api_hydrate/3 for the host: Out is the frame as one JSON text (frame_json/2), which crosses
%   the bridge as one string, or the frame term itself when JSON cannot carry it exactly.
api_hydrate_json(Goal, Options, Out) :-
    api_hydrate(Goal, Options, Frame),
    frame_out_(Frame, Out).

frame_out_(Frame, Out) :-
    (   frame_json(Frame, Json) -> Out = Json ; Out = Frame ).

% The first frame after a home is opened builds what every later frame reuses: SWI-Prolog's
% clause indexes on the journal's large predicates (made on their first call) and the host's
% BM25 and vector tables (loaded on their first search). On a million-item home that is
% seconds and ~0.6 GB of heap, which the limits would charge to the first caller's walk rules
% and planes, and which a loaded machine stretched past the 30 s time limit. A default frame
% for the same goal (its first 2,000 characters), outside the limits, pays for it once per
% open home; what it finds is not used. Its errors are the real call's to report. A home of
% fewer items than the flag atc_prime_items (default 100,000) is not primed: its first frame's
% one-time work is a fraction of a second, and priming would compute every one-shot process's
% frame twice.
:- create_prolog_flag(atc_prime_items, 100000, [type(integer), keep(true)]).

frame_primed_(Goal) :-
    (   nb_current(atc_frame_primed, true)
    ->  true
    ;   current_prolog_flag(atc_prime_items, Least),
        predicate_property(atc_journal:item_(_, _, _, _, _, _, _, _, _, _), number_of_clauses(N)),
        N >= Least
    ->  text_prefix_(Goal, 2000, Prefix),
        catch(ignore(hydrate(Prefix, _{}, _)), _, true),
        nb_setval(atc_frame_primed, true)
    ;   nb_setval(atc_frame_primed, true)
    ).

text_prefix_(Text, Max, Prefix) :-
    (   catch(string_length(Text, N), _, fail), N > Max
    ->  sub_string(Text, 0, Max, _, Prefix)
    ;   Prefix = Text
    ).

		 /*******************************
		 *        USER QUERIES          *
		 *******************************/

%!  api_query(+GoalText:string, +Options:dict, -Solutions:list, -More:boolean) is det.
%
%   Parse GoalText as a Prolog goal and run it in a user module (Options.module, default
%   `atc_query`; see memory_user_module/1), whose only way to memory is the public vocabulary.
%   The goal is refused before it runs when it names a module (`M:G`, `G@M`), a database or
%   flag builtin (user_code_refused_/2) or anything library(sandbox) does not allow. At most
%   Options.limit solutions are collected, each a list of Name-Value pairs for the named
%   variables (Value is the `~p` text of a term that is not ground). More is true when
%   solutions were cut off by the limit.
%
%   The whole call, answers included, runs under the limits of within_limits_/2:
%   Options.time_limit seconds (default 30), Options.stack_limit bytes of Prolog stacks
%   (default 256 MB), Options.memory_limit bytes of memory growth (default 1 GB; process_memory/1) and
%   Options.atom_limit new atoms (default 2,000,000) and what is left of its principal's
%   Options.functor_limit new functors in the process (default 1,000,000; limits_principal_/1);
%   a goal that passes one is aborted, which
%   catch/3 in user code cannot stop (the host reads why with api_stopped/1). Answers are
%   checked before they leave Prolog: Options.answer_cells (default 1,000,000) cells in all,
%   nested at most Options.answer_depth (default 100) deep, never cyclic.
%   @error syntax_error, permission_error (unsafe goal), existence_error (unknown predicate)
%   @error answer_limit(What, Limit) for an answer too large, too deep or cyclic

api_query(Text, Options, Solutions, More) :-
    must_be(string, Text),
    Limit = Options.get(limit, 100),
    must_be(positive_integer, Limit),
    Module = Options.get(module, atc_query),
    (   memory_is_user_module(Module) -> true ; memory_user_module(Module) ),
    within_limits_(Options, query_(Text, Module, Limit, Options, Solutions, More)).

query_(Text, Module, Limit, Options, Solutions, More) :-
    text_nesting_checked(Text),
    number_text_checked(Text),
    goal_read_(Text, Module, Goal, Bindings),
    (   callable(Goal) -> true ; type_error(callable, Goal) ),
    user_code_vet_(Goal),
    catch(safe_goal(Module:Goal), E, unknown_named_(Module, E)),
    Max is Limit + 1,
    Budget = budget(Options.get(answer_cells, 1000000)),
    Depth = Options.get(answer_depth, 100),
    catch(findall(Row,
                  limit(Max, ( Module:Goal, bindings_row_(Bindings, Budget, Depth, Row) )),
                  Rows),
          E2, unknown_named_(Module, E2)),
    (   length(Rows, N), N > Limit
    ->  length(Solutions, Limit), append(Solutions, _, Rows), More = true
    ;   Solutions = Rows, More = false
    ).

% goal_read_(+Text, +Module, -Goal, -Bindings): the one goal Text holds. term_string/3 read
% the first term and dropped the rest, so `item(H). item_kind(H, error)` ran `item(H)` alone,
% and an empty text was the goal end_of_file ("procedure end_of_file/0 does not exist").
goal_read_(Text, Module, Goal, Bindings) :-
    term_string(Goal, Text, [variable_names(Bindings), module(Module)]),
    (   Goal == end_of_file
    ->  throw(error(query_text(empty), _))
    ;   string_concat(Text, "\n.", Closed),       % a goal need not end in a full stop
        setup_call_cleanup(open_string(Closed, S),
                           ( read_term(S, _, [module(Module)]), after_goal_(S, Module) ),
                           close(S))
    ).

% after_goal_(+Stream, +Module): nothing but the closing full stop follows the goal (the one
% appended, met as a clause with no term when the goal had its own), else there is more.
after_goal_(S, Module) :-
    catch(read_term(S, T, [module(Module)]), E, true),
    (   nonvar(E)
    ->  (   E = error(syntax_error(end_of_clause), _) -> true
        ;   throw(error(query_text(more_than_one_goal), _))
        )
    ;   T == end_of_file
    ->  true
    ;   throw(error(query_text(more_than_one_goal), _))
    ).

% Each answer is measured before it is copied out of the proof: cyclic, too deep or, with the
% answers before it, too large is an error here, not a crash of the host's converter. A value
% that is not ground is written as text, its variables named _A, _B, ... across the whole row,
% so an unbound variable is never shown as the atom 'A' and one shared by two columns has one
% name in both.
bindings_row_(Bindings, Budget, Depth, Row) :-
    maplist(binding_measure_(Budget, Depth), Bindings),
    pairs_names_values_(Bindings, Names, Values),
    copy_term(Values, Copies, _Constraints),
    maplist(ground_flag_, Copies, Ground),
    term_variables(Copies, Vars),
    foldl(name_variable_, Vars, 0, _),
    maplist(binding_out_, Names, Ground, Copies, Row).

binding_measure_(Budget, Depth, Name=Value) :-
    (   cyclic_term(Value)
    ->  throw(error(answer_limit(cyclic, Name), _))
    ;   true
    ),
    arg(1, Budget, Left0),
    answer_cost_(Value, 0, Depth, Left0, Left),
    nb_setarg(1, Budget, Left).

pairs_names_values_([], [], []).
pairs_names_values_([N=V|T], [N|Ns], [V|Vs]) :- pairs_names_values_(T, Ns, Vs).

ground_flag_(T, G) :- ( ground(T) -> G = true ; G = false ).

name_variable_('$VAR'(Name), I, I1) :-
    Letter is 0'A + I mod 26,
    (   I < 26 -> format(atom(Name), "_~c", [Letter])
    ;   N is I // 26, format(atom(Name), "_~c~d", [Letter, N])
    ),
    I1 is I + 1.

binding_out_(Name, true, Value, Name-Out) :- !,
    ground_out_(Value, Out).
binding_out_(Name, false, Value, Name-Out) :-
    answer_text_(Value, Out).

answer_text_(Value, Text) :-
    format(string(Text), "~W", [Value, [quoted(true), numbervars(true), portray(true)]]).

% ground_out_(+Value, -Out): a ground answer as the host shows it. Atoms, strings, numbers,
% proper lists, pairs (K-V: `Handle-Score` hits) and dicts keep their shape; any other compound
% is its quoted text, written as a value with variables is. The host's converter wrote
% f("x y", 'A') as `f(x y, A)`: a variable A to the reader, and a string's comma read as
% another argument.
ground_out_(V, V) :-
    atomic(V), !.
ground_out_(V, Out) :-
    is_list(V), !,
    maplist(ground_out_, V, Out).
ground_out_(K-V, K1-V1) :- !,
    ground_out_(K, K1),
    ground_out_(V, V1).
ground_out_(V, Out) :-
    is_dict(V, Tag), !,
    dict_pairs(V, Tag, Pairs),
    pairs_keys_values(Pairs, Keys, Values),
    maplist(ground_out_, Values, Outs),
    pairs_keys_values(OutPairs, Keys, Outs),
    dict_pairs(Out, Tag, OutPairs).
ground_out_(V, Out) :-
    answer_text_(V, Out).

% answer_cost_(+Term, +Depth, +MaxDepth, +Left0, -Left): Left0 cells minus Term's cost.
% Lists are walked along their spine, so a long list is not a deep term.
answer_cost_(T, _, _, L0, L) :-
    var(T), !,
    spend_(1, L0, L).
answer_cost_(T, _, _, L0, L) :-
    atomic(T), !,
    atomic_cost_(T, C),
    spend_(C, L0, L).
answer_cost_(_, D, Max, _, _) :-
    D >= Max, !,
    throw(error(answer_limit(depth, Max), _)).
answer_cost_([H|T], D, Max, L0, L) :- !,
    D1 is D + 1,
    list_cost_([H|T], D, D1, Max, L0, L).
answer_cost_(T, D, Max, L0, L) :-
    compound_name_arity(T, _, A),
    C is A + 1,
    spend_(C, L0, L1),
    D1 is D + 1,
    args_cost_(1, A, T, D1, Max, L1, L).

list_cost_(List, D, D1, Max, L0, L) :-
    (   nonvar(List), List = [H|T]
    ->  spend_(3, L0, L1),
        answer_cost_(H, D1, Max, L1, L2),
        list_cost_(T, D, D1, Max, L2, L)
    ;   answer_cost_(List, D, Max, L0, L)
    ).

args_cost_(I, A, T, D, Max, L0, L) :-
    (   I > A
    ->  L = L0
    ;   arg(I, T, X),
        answer_cost_(X, D, Max, L0, L1),
        I1 is I + 1,
        args_cost_(I1, A, T, D, Max, L1, L)
    ).

atomic_cost_(T, C) :-
    (   ( atom(T) ; string(T) )
    ->  atom_length(T, N), C is 1 + N // 8
    ;   integer(T)
    ->  Bits is msb(abs(T) + 1),
        (   Bits > 13000                % Python reads at most 4,300 digits of an integer
        ->  throw(error(answer_limit(integer, 4000), _))
        ;   C is 1 + Bits // 64
        )
    ;   C = 1
    ).

spend_(C, L0, L) :-
    L is L0 - C,
    (   L < 0
    ->  throw(error(answer_limit(size, cells), _))
    ;   true
    ).

		 /*******************************
		 *     WHAT USER CODE MAY SAY    *
		 *******************************/

% library(sandbox) decides what a goal may call; it allows asserting into the calling module,
% cross-module asserts of facts, abort/0, sleep/1 (which a limit cannot interrupt), limits of its
% own (whose exceptions would be confused with the watchdog's), signal control (sig_atomic/1
% would hold off the watchdog's abort) and lowering stack limits, which a read-only query has
% no use for. It also lets through goals that run code it never checks: print_message/2 and
% message_to_string/2 format a message term's own directives (`format("~@", [shell(X)])`),
% term_string/3 passes its options to write_term/3 (`portray_goal(shell)`), put_attr/3 with
% module freeze wakes a goal on unification, and the setup and cleanup of
% setup_call_cleanup/3 run with signals blocked, where no limit can stop them. It reads every
% global variable (nb_getval/2, b_getval/2, nb_current/2), the host's caches included (the
% names of every speaker in the home, whatever a grantee may see). It allows tabled_call/1,
% whose table outlives the call, shared by every later call and reader and never reclaimed: a
% grantee's `tabled_call(between(N, 400000, X))` grew the server by ~57 MB a request, under
% limits that count each call afresh; not_exists/1, which it allows too, calls tabled_call/1
% for a goal that is not tabled (`not_exists(between(N, 400000, X))`: the same ~57 MB a
% request), and tnot/1 reads tables. library(sandbox) also takes a library's word for its own
% predicates (a multifile sandbox:safe_primitive/1 clause in the library): library(pengines_io),
% which the autoloader loads for the first goal that names one of them, declares all of its
% own safe, though outside a pengine pengine_write_term/2 passes any write options to
% write_term/2 (`portray_goal(shell)` ran a shell command from a grantee's goal) and
% pengine_read/1 and pengine_read_line_to_string/2 read the process's standard input (under
% `atc mcp`, the client's next request); once loaded, it declares system:write_term/2 safe
% too. library(gensym) declares gensym/2, whose counters every later call and principal reads
% (a global variable by another name); library(lazy_lists) lazy_findall/3, whose goal runs in
% an engine of its own that the watchdog's abort, sent to the caller's thread, never reaches
% (a goal of 5 s ran on for minutes); library(sgml) load_structure/3, which opens any file the
% process can read (a grantee's goal read the home's journal.pl whole, hidden records and
% all), and so do its wrappers (load_html/3, load_xml/3, ...); library(crypto)
% crypto_password_hash/3, whose 2^cost rounds run in one C call no limit interrupts (cost(26)
% ran 117 s under a limit of 5 s; cost(30), half an hour). It allows undo/1, whose goal runs
% when backtracking or an exception unwinds past it, at a call port of whatever runs next: after
% `undo((repeat, fail)), throw(x)` that was past the call's limits (the loop held `atc query
% --time-limit 2` until killed). It allows import_module/2, which makes a module of any name it is
% given, for good: a grantee's `between(1, 200000, I), atom_concat(m, I, M), import_module(M, _),
% fail` grew the process by ~200 MB a request, never reclaimed (34 MB to 1.2 GB in six).
% So before the sandbox sees user code, any mention (as a goal, a closure passed to
% call/N or maplist/N, or data) of these names, and any module qualification, is refused.
% Those names stay refused, but the cause is closed at its root too: library(sandbox) now takes
% the word of the libraries sandbox_trust.pl vouches for alone, whenever they were loaded.
user_code_refused_(Name, database) :-
    memberchk(Name, [assert, asserta, assertz, retract, retractall, abolish, erase,
                     recorda, recordz, recorded, flag, clause, compile_aux_clauses,
                     nb_setval, b_setval, nb_linkval, nb_delete, nb_getval, b_getval,
                     nb_current, abolish_all_tables, abolish_private_tables,
                     abolish_shared_tables, tabled_call, not_exists, tnot,
                     gensym, reset_gensym]).
user_code_refused_(Name, system) :-
    memberchk(Name, [abort, halt, sleep, call_with_time_limit, call_with_inference_limit,
                     call_with_depth_limit, alarm, alarm_at, remove_alarm, install_alarm,
                     set_prolog_flag, create_prolog_flag, set_prolog_stack,
                     set_stream, op, style_check, garbage_collect, prolog_listen,
                     thread_create, thread_signal, thread_send_message, thread_exit,
                     with_mutex, mutex_lock, mutex_create, engine_create, lazy_findall,
                     initialization, consult, load_files, use_module, ensure_loaded,
                     '$set_source_module', '@', import_module,
                     sig_atomic, sig_block, sig_unblock, on_signal, prolog_alert_signal,
                     setup_call_cleanup, call_cleanup, setup_call_catcher_cleanup, undo]).
user_code_refused_(Name, unchecked) :-
    memberchk(Name, [print_message, print_message_lines, message_to_codes,
                     message_to_string, term_string, put_attr, put_attrs]).
user_code_refused_(Name, library_trusted) :-
    atom(Name),                             % not a dict's reserved functor name
    sub_atom(Name, 0, _, _, pengine_).      % pengines_io's, and pengine_rpc/3, pengine_create/1
                                            % (HTTP requests, threads) should anything load
                                            % library(pengines_sandbox), which declares them
user_code_refused_(Name, library_trusted) :-
    memberchk(Name, [write_term,
                     load_structure, load_html, load_xml, load_sgml, load_xhtml,
                     load_html_file, load_xml_file, load_sgml_file, load_dtd,
                     new_sgml_parser, sgml_parse,
                     crypto_password_hash]).

%!  user_code_vet_(+Term) is det.
%   Throw error(code_limit(depth, Max), _) when Term (a goal or a rule clause) nests deeper
%   than the terms term_guard.pl writes (code_depth_checked_/1), and
%   permission_error(call, sandboxed, What) when it names a module or a refused builtin
%   anywhere. Text in Term (an atom, a string, a list of codes or
%   characters) holding a format directive that runs code or allocates in one C call is
%   refused too, wherever it stands, since format/2 may be reached through call/N with it:
%   `~W` (write options, `portray_goal(G)` calls G), `~*c` and counts of 6 digits or more
%   (`~100000000c`). A format/1,2,3 directive written as a list that is not text (a partial
%   list) is refused: library(sandbox) cannot read it and would search without end.
user_code_vet_(Term) :-
    (   cyclic_term(Term)
    ->  type_error(acyclic_term, Term)
    ;   true
    ),
    code_depth_checked_(Term),
    vet_(Term).

% code_depth_checked_(+Term): Term nests no deeper than term_guard.pl's bound. Operators nest
% without brackets, which the text's check counts alone, and SWI-Prolog compiles a control
% construct (`,`, `;`, `->`, `\+`) by recursing in C on its nesting: a grantee's rules text of
% 800 KB, `p :- true -> true -> ... true` 100,000 deep, ended the process (SIGSEGV in
% assertz/1, under pyswip's engine without signal handling), `atc serve` with it.
code_depth_checked_(Term) :-
    catch(term_depth_checked(Term), error(term_limit(depth, Max), _),
          throw(error(code_limit(depth, Max), _))).

vet_(T) :-
    var(T), !.
vet_(T) :-
    atom(T), !,
    (   user_code_refused_(T, _)
    ->  permission_error(call, sandboxed, T)
    ;   true
    ),
    vet_text_(T).
vet_(T) :-
    string(T), !,
    vet_text_(T).
vet_(T) :-
    atomic(T), !.
vet_(M:G) :- !,
    permission_error(call, sandboxed, M:G).
vet_(T) :-
    T = [_|_], !,
    (   list_text_(T, S)
    ->  vet_text_(S)
    ;   true
    ),
    vet_elements_(T).
vet_(T) :-
    compound_name_arity(T, Name, Arity),
    (   user_code_refused_(Name, _)
    ->  permission_error(call, sandboxed, Name/Arity)
    ;   true
    ),
    vet_format_(T),
    T =.. [_|Args],
    maplist(vet_, Args).

% list_text_(+List, -String): List is a proper list of codes or of characters. Checked element
% by element, without text_to_string/2, whose error on a list of lists copies the whole list:
% a goal of lists nested 10,000 deep took seconds.
list_text_(L, S) :-
    is_list(L),
    (   maplist(code_element_, L)
    ->  string_codes(S, L)
    ;   maplist(char_element_, L)
    ->  string_chars(S, L)
    ).

code_element_(C) :- integer(C), C >= 0, C =< 0x10ffff.
char_element_(C) :- atom(C), atom_length(C, 1).

% The elements of a list and its tail, along the spine (a long list is not a deep term, and
% each suffix is not read again as text).
vet_elements_(L) :-
    var(L), !.
vet_elements_([H|T]) :- !,
    vet_(H),
    vet_elements_(T).
vet_elements_(Tail) :-
    vet_(Tail).

vet_format_(T) :-
    (   (   T = format(F0) ; T = format(F0, _) ; T = format(_, F0, _) ),
        nonvar(F0), F0 = [_|_],
        \+ format_text_(F0, _)
    ->  permission_error(format, sandboxed, F0)
    ;   true
    ).

% The directive text of a format/1,2,3 call written in the goal: an atom, a string, or a
% list of codes or characters (`~t~9|`, "~a", [126, 97]), as text_to_string/2 reads them;
% fails for anything else.
format_text_(F0, F) :-
    catch(text_to_string(F0, S), error(_, _), fail),
    atom_string(F, S).

% vet_text_(+Text): refuse Text when a `~` in it starts a directive refused above: its
% argument (digits, `*`, or a backquote and a fill character) and its letter are read as
% format/2 reads them, `~~` being a plain tilde.
vet_text_(Text) :-
    (   once(sub_atom(Text, _, _, _, '~')),
        atom_codes(Text, Cs),
        format_directive_in(Cs, [0'W])
    ->  permission_error(format, sandboxed, Text)
    ;   true
    ).

		 /*******************************
		 *            LIMITS            *
		 *******************************/

:- multifile prolog:error_message//1.

prolog:error_message(answer_limit(cyclic, Name)) -->
    [ 'answer ~w is a cyclic term (like X = f(X)) and cannot be returned'-[Name] ].
prolog:error_message(answer_limit(depth, Max)) -->
    [ 'answer nests deeper than ~D levels and cannot be returned'-[Max] ].
prolog:error_message(answer_limit(integer, Digits)) -->
    [ 'answer holds an integer of more than ~D digits and cannot be returned'-[Digits] ].
prolog:error_message(answer_limit(size, cells)) -->
    [ 'answers too large to return (answer_cells limit); narrow the goal or lower --limit'-[] ].
prolog:error_message(query_text(empty)) -->
    [ 'the goal is empty' ].
prolog:error_message(query_text(more_than_one_goal)) -->
    [ 'the text holds more than one goal: join goals with a comma (`item(H), item_kind(H, K)`), not a full stop' ].
prolog:error_message(nesting_limit(Max)) -->
    [ 'text nests brackets more than ~D deep'-[Max] ].
prolog:error_message(code_limit(depth, Max)) -->
    [ 'goal or clause nests terms more than ~D deep (operators such as `,`, `;` and `->` count): too deep to compile'-[Max] ].
prolog:error_message(rules_limit(bytes, Max)) -->
    [ 'rules text is larger than ~D bytes'-[Max] ].
prolog:error_message(rules_directive(D)) -->
    [ 'directive not allowed in a rules file: :- ~W (only :- discontiguous Name/Arity)'-
      [D, [quoted(true), max_depth(6)]] ].
prolog:error_message(rules_defined_twice(Key, Other)) -->
    { (   Key = plane(_, Plane) -> format(string(What), "plane ~q", [Plane])
      ;   format(string(What), "~q", [Key])
      ),
      file_base_name(Other, Base),
      file_name_extension(Rule, _, Base)
    },
    [ '~w is already defined by saved rule ~w (~w), whose clauses would answer too: add this file with --name ~w to replace it, or rename it here'-[What, Rule, Other, Rule] ].
prolog:error_message(rules_clause(Why, Head)) -->
    [ 'rules may not define ~W (~w)'-[Head, [quoted(true), max_depth(6)], Why] ].

% nearest/3,4 and similarity/3,4 with nothing to search: say why in words (the default reads
% "embeddings `\"...\"' does not exist").
prolog:error_message(existence_error(embeddings, Why)) -->
    [ 'no embeddings to search: ~w'-[Why] ].

% A name that names nothing, said as written: the default message quotes it again inside its
% own quotes (candidate `'attn-99'' does not exist) whenever it is no plain atom.
prolog:error_message(existence_error(Kind, Name)) -->
    { Kind \== embeddings, atom(Kind), ( atom(Name) ; string(Name) ) },
    [ '~w `~w\' does not exist'-[Kind, Name] ].
% A walk rule named with no rules file to define it (memory.pl): say where walk rules come from
% (the host words the remedy for each reader: hydration.py, _told_where_walk_rules_come_from).
prolog:error_message(existence_error(walk_rule, Name, no_rules_file)) -->
    [ 'walk_rule `~w\' does not exist: a walk rule is a predicate ~w/2 defined in a rules file or saved in the home; none is here, so only the plane\'s walk (or entity_walk, the built-in one) can run'-[Name, Name] ].

prolog:error_message(limit_stopped(Why)) -->
    stopped_(Why).

% hydrate.pl wraps what a walk rule raised; say it in words, so a stack overflow in a walk
% rule reads as one.
prolog:error_message(walk_rule_failed(Name, E)) -->
    { (   E = error(resource_error(stack), Context),
          atc_bridge:stack_overflow_message(Context, Text)
      ->  Lines = ['~w'-[Text]]
      ;   catch('$messages':translate_message(E, Lines, []), _, fail)
      ->  true
      ;   Lines = ['~p'-[E]]
      )
    },
    [ 'walk rule ~w failed: '-[Name] ],
    Lines.

stopped_(time(T)) --> { seconds_shown_(T, S) }, [ 'stopped: ran past its time limit of ~w s'-[S] ].
stopped_(memory(B)) --> { MB is B // 1048576 }, [ 'stopped: grew memory by more than ~D MB'-[MB] ].
stopped_(atoms(N)) --> [ 'stopped: created more than ~D atoms'-[N] ].
stopped_(functors(N)) -->
    [ 'stopped: made more than ~D new functors (names of compound terms) in this process, which never frees them; no more until it restarts'-[N] ].
stopped_(none) --> [ 'stopped (aborted)'-[] ].
stopped_(interrupted) --> [ 'stopped: interrupted'-[] ].

%!  interrupt_signal(+Signal) is det.
%   The handler of SIGINT that the host forwards into a running call (Ctrl-C; see
%   bridge/interrupts.py): a call under the limits of within_limits_/2 (a user goal, a frame,
%   a rules file) is aborted as a limit aborts it, so catch/3 in user code cannot go on; any
%   other call (a journal batch) goes on, and the host raises the interrupt once it returns.
interrupt_signal(_) :-
    (   nb_current(atc_limit_state, active(Token, _))
    ->  flag(atc_interrupted, _, Token + 1), % the watchdog goes on aborting it (a recovery
                                            % loop); + 1: the flag starts at 0, tokens too
        limit_abort_(Token, interrupted)
    ;   true
    ).

% 30.0 reads as 30 (the limit a user gave as --time-limit 30 or by default), 0.5 as 0.5.
seconds_shown_(T, S) :-
    (   float(T), T =:= truncate(T) -> S is truncate(T) ; S = T ).

%!  api_stopped(-Reason:string) is det.
%   Why the last call under limits was aborted: the host reads this when a call ends in
%   SWI-Prolog's uncatchable `'$aborted'`.
api_stopped(Reason) :-
    (   nb_current(atc_limit_stopped, Why), Why \== [] -> true ; Why = none ),
    message_to_codes_(error(limit_stopped(Why), _), Reason).

message_to_codes_(Error, Text) :-
    atc_bridge:error_message(Error, Text).

% within_limits_(+Options, :Goal): run Goal (once) under one set of limits for the whole call.
% A watchdog *thread* checks the clock, heap growth and atom count every 0.1 s; when a limit is
% passed it signals the calling thread to abort, and goes on signalling every 0.05 s until the
% call has ended. abort/0 raises '$aborted', which catch/3 may catch but always re-raises after
% its recovery goal, so a loop of catches cannot swallow it, and a recovery goal that loops gets
% the next signal. The watchdog is its own thread rather than a chain of alarms run by the
% caller, because a chain breaks when one alarm's signal is lost: on SWI-Prolog 9.2 under janus a
% loop making atoms (atom GC signalling the same thread) lost one now and then, and nothing
% re-armed. A repeated signal from outside cannot be lost that way. Each call has a token, so a
% signal that arrives after its call ended (or in a later call) does nothing. Prolog's stacks are
% capped for the call, what it prints goes to standard error (a goal's format/2 had come out
% before `atc query --format json`'s JSON on stdout; a grantee's goes nowhere, user_output_/1),
% and what it throws is cut down
% (limited_rethrow_/1). Nested calls run inside the outer limits.
within_limits_(_, Goal) :-
    nb_current(atc_limit_state, active(_, _)), !,
    once(Goal).
within_limits_(Options, Goal) :-
    limit_option_(Options, time_limit, 30, Time),
    must_be(number, Time),
    (   Time > 0 -> true ; domain_error(positive_time_limit, Time) ),
    limit_option_(Options, stack_limit, 268435456, Stack),
    limit_option_(Options, memory_limit, 1073741824, Memory),
    limit_option_(Options, atom_limit, 2000000, Atoms),
    limit_option_(Options, functor_limit, 1000000, Functors),
    limits_principal_(Who),
    functors_made_(Who, Made),
    (   Made >= Functors
    ->  throw(error(limit_stopped(functors(Functors)), _))
    ;   true
    ),
    get_time(T0),
    process_memory(H0),
    statistics(atoms, A0),
    statistics(functors, F0),
    Deadline is T0 + Time,
    FunctorsLeft is Functors - Made,
    Limits = limits(Deadline, Time, H0, Memory, A0, Atoms, F0, FunctorsLeft, Functors),
    current_prolog_flag(stack_limit, Stack0),
    flag(atc_limit_token, Token, Token + 1),
    thread_self(Caller),
    current_output(Out0),
    setup_call_cleanup(
        ( user_output_(Out),
          set_output(Out),              % what user code prints is not the host's output
          nb_setval(atc_limit_stopped, []),
          nb_setval(atc_limit_state, active(Token, Limits)),
          set_prolog_flag(stack_limit, Stack),
          stack_room_(Stack, Room0),
          thread_create(watchdog_(Caller, Token, Limits), Dog,
                        [stack_limit(8388608)])
        ),
        catch(once(Goal), E, limited_rethrow_(E)),
        ( nb_setval(atc_limit_state, idle),
          functors_count_(Who, F0),
          set_output(Out0),
          (   Out == user_error -> true ; close(Out) ),
          set_prolog_flag(stack_limit, Stack0),
          set_prolog_stack(global, min_free(Room0)),
          watchdog_stop_(Dog)
        )).

% stack_room_(+StackLimit, -Room0): within a call, the calling thread keeps free after a
% garbage collection a 128th of the call's stack limit in bytes, at most 2 MB (262,144 cells),
% where SWI-Prolog keeps 2 KB; Room0 is what it kept before (restored when the call ends). A
% warm frame leaves ~1.3 MB of garbage: with the default room a 100k-item home's frames were
% collected ~2.9 times each (~0.75 ms of CPU), with 2 MB once (~0.14 ms). Scaled to the
% limit, a call given a small one keeps about the room it had (a fixed 2 MB made a goal of
% 240 KB overflow a 1 MB limit).
stack_room_(StackLimit, Room0) :-
    prolog_stack_property(global, min_free(Room0)),
    Room is max(Room0, min(262144, StackLimit // 1024)),
    set_prolog_stack(global, min_free(Room)).

% SWI-Prolog never frees a functor (nor the atom naming it): a grantee's goal making compound
% terms of fresh names left ~100 bytes each in `atc serve` for good, under every limit of a
% call (114 MB to 565 MB in eight requests). So the functors user code makes are counted per
% principal (the owner's calls as `owner`) for the life of the process: a call that passes
% what is left of its principal's functor_limit is stopped, and once none is left their calls
% are refused before they run. The count is a difference of the process's functors, so a
% library autoloaded by the call counts too (a few hundred, once).
limits_principal_(Who) :-
    (   grantee_view_reader(P) -> Who = P ; Who = owner ).

functors_made_(Who, Made) :-
    (   functors_made_by_(Who, Made0) -> Made = Made0 ; Made = 0 ).

functors_count_(Who, F0) :-
    statistics(functors, F),
    (   F > F0
    ->  functors_made_(Who, Made0),
        Made is Made0 + F - F0,
        retractall(functors_made_by_(Who, _)),
        assertz(functors_made_by_(Who, Made))
    ;   true
    ).

:- dynamic functors_made_by_/2.         % Principal (or owner), new functors made so far

% user_output_(-Out): where what user code prints goes: the owner's to standard error, a
% grantee's nowhere. A grantee never sees the host's standard error (a server's terminal or
% log), and their goal wrote ~50 MB to it in 3 s, escape sequences and all.
user_output_(Out) :-
    (   grantee_view_reader(_)
    ->  open_null_stream(Out)
    ;   Out = user_error
    ).

watchdog_stop_(Dog) :-
    catch(thread_send_message(Dog, done), _, true),
    catch(thread_join(Dog, _), _, true).

% limited_rethrow_(+Error): throw Error again, cut down to what a one-line message needs. User
% code throws what it likes: a cyclic term, one nested 100,000 deep, a list of millions, a huge
% atom or integer. Uncut, it crashed the host's converter (Python's recursion limit) or became
% a message of megabytes, formatted outside every limit. The cut copy holds no attributed
% variable: a frozen goal in it (`freeze(X, (repeat, fail)), throw(error(type_error(X, a), _))`)
% woke when the message was formatted, past the limits, and held the process until killed.
% SWI-Prolog's '$aborted' (a limit's stop) is thrown as it is.
limited_rethrow_(E) :-
    (   E == '$aborted'
    ->  throw(E)
    ;   Budget = budget(4000),
        term_cut_(E, 0, Budget, Cut),
        copy_term_nat(Cut, Plain),
        throw(Plain)
    ).

% term_cut_(+Term, +Depth, !Budget, -Cut): Term with what lies past Budget cells or 40 levels
% replaced by '...', text past 1,000 characters cut (ending in "..."), and an integer of more
% than 4,000 digits named by its size; a small term is copied as it is.
term_cut_(T, _, _, T) :-
    var(T), !.
term_cut_(_, D, Budget, '...') :-
    (   D > 40
    ;   arg(1, Budget, Left), Left =< 0
    ), !.
term_cut_(T, _, Budget, Cut) :-
    atomic(T), !,
    cut_spend_(Budget, 1),
    atomic_cut_(T, Cut).
term_cut_(T, D, Budget, Cut) :-
    is_dict(T, Tag), !,
    dict_pairs(T, Tag, Pairs),
    pairs_keys_values(Pairs, Keys, Values),
    D1 is D + 1,
    cut_args_(Values, D1, Budget, CutValues),
    pairs_keys_values(CutPairs, Keys, CutValues),
    dict_pairs(Cut, Tag, CutPairs).
term_cut_([H|T], D, Budget, Cut) :- !,
    D1 is D + 1,
    cut_list_([H|T], D1, Budget, Cut).
term_cut_(T, D, Budget, Cut) :-
    compound_name_arguments(T, Name, Args),
    cut_spend_(Budget, 1),
    D1 is D + 1,
    cut_args_(Args, D1, Budget, CutArgs),
    compound_name_arguments(Cut, Name, CutArgs).

cut_args_([], _, _, []).
cut_args_([A|As], D, Budget, [C|Cs]) :-
    term_cut_(A, D, Budget, C),
    cut_args_(As, D, Budget, Cs).

% A list's cells along its spine, so a long list is cut, not refused as deep.
cut_list_(L, D, Budget, Cut) :-
    (   var(L)
    ->  Cut = L
    ;   L = [H|T]
    ->  (   arg(1, Budget, Left), Left =< 0
        ->  Cut = ['...']
        ;   cut_spend_(Budget, 1),
            term_cut_(H, D, Budget, CH),
            Cut = [CH|CT],
            cut_list_(T, D, Budget, CT)
        )
    ;   term_cut_(L, D, Budget, Cut)
    ).

cut_spend_(Budget, N) :-
    arg(1, Budget, Left0),
    Left is Left0 - N,
    nb_setarg(1, Budget, Left).

atomic_cut_(T, Cut) :-
    (   ( atom(T) ; string(T) ),
        atom_length(T, N), N > 1000
    ->  sub_string(T, 0, 1000, _, Head),
        string_concat(Head, "...", CutS),
        (   atom(T) -> atom_string(Cut, CutS) ; Cut = CutS )
    ;   integer(T), msb(abs(T) + 1) > 13000
    ->  Digits is truncate(msb(abs(T) + 1) * 0.30103),
        format(atom(Cut), '<an integer of about ~D digits>', [Digits])
    ;   Cut = T
    ).

limit_option_(Options, Key, Default, Value) :-
    (   get_dict(Key, Options, Value0) -> Value = Value0
    ;   nb_current(atc_limit_defaults, Defaults), get_dict(Key, Defaults, Value0) -> Value = Value0
    ;   Value = Default
    ).

%!  api_set_limits(+Options:dict) is det.
%   Change the default limits of user code for this process (keys as in api_query/4:
%   time_limit, stack_limit, memory_limit, atom_limit, functor_limit); options given to a
%   call still win.
%   A stack limit the engine cannot take (above what it can represent, below what its stacks
%   hold now) raises its error here: kept, it made every later query raise it.
api_set_limits(Options) :-
    must_be(dict, Options),
    (   get_dict(stack_limit, Options, Stack)
    ->  current_prolog_flag(stack_limit, Stack0),
        setup_call_cleanup(set_prolog_flag(stack_limit, Stack), true,
                           set_prolog_flag(stack_limit, Stack0))
    ;   true
    ),
    (   nb_current(atc_limit_defaults, D0) -> true ; D0 = _{} ),
    D = D0.put(Options),
    nb_setval(atc_limit_defaults, D).

% watchdog_(+Caller, +Token, +Limits): the watchdog thread's loop; it ends when the call sends
% `done`.
watchdog_(Caller, Token, Limits) :-
    thread_self(Me),
    (   thread_get_message(Me, done, [timeout(0.1)])
    ->  true
    ;   (   flag(atc_interrupted, Mark, Mark), Mark =:= Token + 1   % Ctrl-C, handled once
        ->  Why = interrupted
        ;   limit_passed_(Limits, Why)
        )
    ->  watchdog_stop_call_(Me, Caller, Token, Why)
    ;   watchdog_(Caller, Token, Limits)
    ).

limit_passed_(limits(Deadline, Time, H0, Memory, A0, Atoms, F0, FunctorsLeft, Functors), Why) :-
    get_time(Now),
    process_memory(H),
    statistics(atoms, A),
    statistics(functors, F),
    (   Now > Deadline -> Why = time(Time)
    ;   H - H0 > Memory -> Why = memory(Memory)
    ;   A - A0 > Atoms -> Why = atoms(Atoms)
    ;   F - F0 > FunctorsLeft -> Why = functors(Functors)
    ).

watchdog_stop_call_(Me, Caller, Token, Why) :-
    catch(thread_signal(Caller, limit_abort_(Token, Why)), _, true),
    (   thread_get_message(Me, done, [timeout(0.05)])
    ->  true
    ;   watchdog_stop_call_(Me, Caller, Token, Why)
    ).

% Runs in the calling thread, as a signal: abort the call the token names, if it still runs.
limit_abort_(Token, Why) :-
    (   nb_current(atc_limit_state, active(Token, _))
    ->  nb_setval(atc_limit_stopped, Why),
        abort
    ;   true
    ).

		 /*******************************
		 *         USER RULES           *
		 *******************************/

%!  api_load_rules(+Sources, +Module, -Module) is det.
%!  api_load_rules(+Sources, +Module, +Options:dict, -Module) is det.
%
%   Load the clauses of Sources into the user module Module (made or emptied first by
%   memory_user_module/1), then check every predicate they define with library(sandbox).
%   Sources is a list of Name-Text (Name the file the user knows the text by, Text a string),
%   or one Text (named `rules`). Each text is read on its own, as data first, and every term
%   vetted: no directive but `:- discontiguous Name/Arity`, no clause for another module or for
%   a compiler hook, no refused builtin (see api_query/4). A syntax error or a refused term
%   names its source and line (`fixes.pl:4:17: Syntax error: ...`): the line in that file,
%   not in the texts joined. Nothing of Sources runs while it loads. On any error nothing
%   stays loaded and the error names the reason. Loading runs under the limits of
%   api_query/4 (Options), and the texts may be at most Options.rules_bytes (default
%   1,000,000) bytes long together. With Options.last_wins `true` a predicate the last source
%   defines is that source's alone: the clauses the sources before it give it are left out
%   (a `--rules` file holding an edited copy of a saved rule replaces it for the call, rather
%   than both sets of clauses answering); of the planes (plane/2, plane_segment/3), only those
%   of the names the last source gives are. With Options.one_owner `true` (`atc rules add`)
%   a predicate or plane the last source defines that a source before it defines too is an
%   error naming both.
%   @error permission_error(call, sandboxed, Goal) for unsafe code; syntax_error
%   @error rules_directive(D), rules_clause(Why, Head), rules_limit(bytes, Max),
%   rules_defined_twice(Key, Other)

api_load_rules(Sources, Module, Module) :-
    api_load_rules(Sources, Module, _{}, Module).

api_load_rules(Sources0, Module, Options, Module) :-
    rule_sources_(Sources0, Sources),
    must_be(atom, Module),
    MaxBytes = Options.get(rules_bytes, 1000000),
    foldl(source_length_, Sources, 0, Len),
    (   Len > MaxBytes -> throw(error(rules_limit(bytes, MaxBytes), _)) ; true ),
    memory_user_module(Module),
    LastWins = Options.get(last_wins, false),
    OneOwner = Options.get(one_owner, false),
    catch(within_limits_(Options, load_rules_(Sources, LastWins-OneOwner, Module)),
          E,
          ( memory_user_module(Module), throw(E) )).

rule_sources_(Text, [rules-Text]) :-
    string(Text), !.
rule_sources_(Sources, Sources) :-
    must_be(list, Sources),
    forall(member(S, Sources),
           (   S = Name-Text, atomic(Name), string(Text)
           ->  true
           ;   type_error(rules_source, S)
           )).

source_length_(_-Text, L0, L) :-
    string_length(Text, N),
    L is L0 + N.

load_rules_(Sources, LastWins-OneOwner, M) :-
    maplist(source_terms_(M), Sources, TermLists0),
    (   OneOwner == true -> last_defines_only_its_own_(Sources, TermLists0) ; true ),
    (   LastWins == true,
        append(Earlier0, [Last], TermLists0)
    ->  foldl(defined_pi_, Last, [], Keys),
        maplist(exclude(defines_one_of_(Keys)), Earlier0, Earlier),
        append(Earlier, [Last], TermLists)
    ;   TermLists = TermLists0
    ),
    append(TermLists, Located),
    pairs_values(Located, Terms),
    maplist(add_rule_term_(M), Terms),
    forall(user_predicate_(M, Head),
           catch(safe_goal(M:Head), E, unknown_in_rules_(M, Located, E))).

% last_defines_only_its_own_(+Sources, +TermLists): no predicate (no plane) the last source
% defines is one a source before it defines too. Two saved rules' clauses for one predicate
% were joined: a rule saved again under another name (`atc rules add fixes2.pl`, an edited
% fixes.pl) answered with both the old clauses and the new, every answer of both, silently.
last_defines_only_its_own_(Sources, TermLists) :-
    append(EarlierLists, [Last], TermLists),
    append(EarlierLists, Earlier),
    length(EarlierLists, N),
    length(EarlierSources, N),
    append(EarlierSources, _, Sources),
    forall(( member(Where-T, Last), defines_key_(Where-T, Key) ),
           (   member(OtherWhere-OT, Earlier), defines_key_(OtherWhere-OT, Key)
           ->  OtherWhere = Other:_,
               Where = Name:Line,
               throw(error(rules_defined_twice(Key, Other), file(Name, Line, -1, 0)))
           ;   true
           )).

% What a located clause defines, added to Keys (a directive defines nothing): its predicate,
% or for the planes a file declares (plane/2, plane_segment/3: one predicate that every file
% adds to) the plane it names, so that a file's plane replaces only the plane of that name.
defined_pi_(Located, Keys0, Keys) :-
    (   defines_key_(Located, Key) -> ord_add_element(Keys0, Key, Keys) ; Keys = Keys0 ).

defines_one_of_(Keys, Located) :-
    defines_key_(Located, Key),
    ord_memberchk(Key, Keys).

defines_key_(_-T, Key) :-
    \+ T = (:- _),
    (   T = (H --> _) -> functor(H, N, A0), A is A0 + 2 ; rule_head_(T, H), functor(H, N, A) ),
    (   memberchk(N/A, [plane/2, plane_segment/3]), arg(1, H, Plane), atomic(Plane)
    ->  Key = plane(N/A, Plane)
    ;   Key = N/A
    ).

% source_terms_(+Module, +Name-Text, -Terms): the terms of one source, read from a stream that
% carries its name (a syntax error reads `Name:Line:Col: ...`) and each vetted, an error that
% says nothing of where naming the source and the term's line.
source_terms_(M, Name-Text, Terms) :-
    text_checked_in_(Name, Text),
    setup_call_cleanup(open_source_(Text, Name, S),
                       read_rule_terms_(S, M, Terms0),
                       close(S)),
    maplist(vet_rule_term_at_(Name), Terms0, Terms).

% text_checked_in_(+Source, +Text): the guards that read a source's whole text before the
% reader does (brackets too deep, a number too long), an error naming the source: a saved rule
% that fails them (saved before a guard existed, or edited by hand) failed every query and frame
% with the guard's words alone, and nothing said which file to remove.
text_checked_in_(Name, Text) :-
    catch(( text_nesting_checked(Text), number_text_checked(Text) ),
          error(Formal, Context),
          (   var(Context)
          ->  format(atom(In), 'in ~w', [Name]),
              throw(error(Formal, context(_, In)))
          ;   throw(error(Formal, Context))
          )).

% open_source_(+Text, +Name, -Stream): a stream reading the rules Text that carries its name
% (a syntax error reads `Name:Line:Col: ...`), past a byte order mark that starts it: a file
% an editor saved as UTF-8 with one was a syntax error at 1:3 (a file SWI-Prolog opens itself
% skips it, a string does not).
open_source_(Text, Name, S) :-
    open_string(Text, S),
    set_stream(S, file_name(Name)),
    (   peek_code(S, 0xFEFF) -> get_code(S, _) ; true ).

% vet_rule_term_at_(+Source, +Line-Term, -Where-Term): Term vetted; Where is Source:Line.
vet_rule_term_at_(Name, Line-T, (Name:Line)-T) :-
    catch(vet_rule_term_(T), error(Formal, Context),
          (   var(Context)
          ->  throw(error(Formal, file(Name, Line, -1, 0)))
          ;   throw(error(Formal, Context))
          )).

read_rule_terms_(S, M, Terms) :-
    read_term(S, T, [module(M), syntax_errors(error), term_position(Pos)]),
    (   T == end_of_file
    ->  Terms = []
    ;   stream_position_data(line_count, Pos, Line),
        Terms = [Line-T|Rest],
        read_rule_terms_(S, M, Rest)
    ).


vet_rule_term_(T) :-
    var(T), !,
    instantiation_error(T).
vet_rule_term_((:- discontiguous PIs)) :- !,
    vet_pis_(PIs).
vet_rule_term_((:- D)) :- !,
    throw(error(rules_directive(D), _)).
vet_rule_term_((?- D)) :- !,
    throw(error(rules_directive(D), _)).
vet_rule_term_(T) :-
    rule_head_(T, H),
    (   var(H) -> instantiation_error(H) ; true ),
    (   callable(H) -> true ; type_error(callable, H) ),
    (   H = _:_
    ->  throw(error(rules_clause('a clause for another module', H), _))
    ;   functor(H, N, A), compiler_hook_(N, A)
    ->  throw(error(rules_clause('a compiler hook', N/A), _))
    ;   functor(H, N, A), predicate_property(system:H, defined)
    ->  throw(error(rules_clause('a builtin', N/A), _))
    ;   functor(H, N, A), memory_vocabulary_(N/A)
    ->  throw(error(rules_clause('part of the vocabulary', N/A), _))
    ;   true
    ),
    user_code_vet_(T).

rule_head_((H :- _), H) :- !.
rule_head_((H --> _), H) :- !.
rule_head_(H, H).

memory_vocabulary_(PI) :-
    module_property(atc_memory, exports(PIs)),
    memberchk(PI, PIs).

compiler_hook_(term_expansion, 2).
compiler_hook_(term_expansion, 4).
compiler_hook_(goal_expansion, 2).
compiler_hook_(goal_expansion, 4).

vet_pis_(PIs) :-
    (   var(PIs) -> instantiation_error(PIs)
    ;   PIs = (A, B) -> vet_pis_(A), vet_pis_(B)
    ;   is_list(PIs) -> maplist(vet_pis_, PIs)
    ;   PIs = N/A, atom(N), integer(A) -> true
    ;   PIs = N//A, atom(N), integer(A) -> true
    ;   throw(error(rules_directive(discontiguous(PIs)), _))
    ).

% Clauses are added as data (DCG rules and dict calls expanded as the compiler would, with no
% expansion hooks of the user's own), so nothing of the file runs while it loads.
add_rule_term_(_, (:- _)) :- !.
add_rule_term_(M, T) :-
    @(expand_term(T, X0), M),
    (   is_list(X0) -> Xs = X0 ; Xs = [X0] ),
    forall(member(X, Xs), add_rule_clause_(M, X)).

add_rule_clause_(M, (H :- B0)) :- !,
    @(expand_goal(B0, B), M),
    assertz(M:(H :- B)).
add_rule_clause_(M, H) :-
    assertz(M:H).

% A predicate user code calls that its module cannot see: library(sandbox) names it as a goal
% in the user module (`procedure `atc_query:item_kind(A)' does not exist`), which says nothing
% of the vocabulary and shows a module the user never wrote. unknown_named_/2 throws
% existence_error(procedure, Name/Arity) instead, context(user_code, Hint): Hint names the
% same name at other arities the goal could mean (`item_kind/2`), else says where the names a
% goal may use come from. unknown_in_rules_/3 adds the rule that calls it and its file and
% line. Any other error is thrown as it is.
unknown_named_(M, E) :-
    (   user_code_error_(M, E, Formal, Hint)
    ->  throw(error(Formal, context(user_code, Hint)))
    ;   throw(E)
    ).

unknown_in_rules_(M, Located, E) :-
    (   user_code_error_(M, E, Formal, Hint0)
    ->  (   formal_pi_(Formal, N/A),
            E = error(_, sandbox(_, Stack)),
            member(_:Caller, Stack),
            functor(Caller, CN, CA),
            CN/CA \== N/A,
            rule_location_(Located, CN/CA, Where)
        ->  format(string(Hint), "called by ~q at ~w; ~w", [CN/CA, Where, Hint0])
        ;   Hint = Hint0
        ),
        throw(error(Formal, context(user_code, Hint)))
    ;   throw(E)
    ).

% user_code_error_(+Module, +Error, -Formal, -Hint): an error of library(sandbox) about user
% code, said with the predicate as the user wrote it: unknown (existence_error) or refused
% (permission_error, which named a goal in the user module, `shell(_2892,_2894)' Reachable
% from: atc_query:shell(A)`, and not why).
user_code_error_(M, E, existence_error(procedure, N/A), Hint) :-
    unknown_procedure_(M, E, N/A), !,
    unknown_hint_(M, N, A, Hint).
user_code_error_(M, error(permission_error(call, sandboxed, G0), sandbox(_, Stack)),
                 permission_error(call, sandboxed, N/A), Hint) :-
    (   G0 = _:G -> true ; G = G0 ),
    callable(G), G \= _/_,
    (   member(M:Called, Stack),        % the call as written (shell/1, not the shell/2 it runs)
        functor(Called, N, A),
        \+ rule_defined_(M, N/A)
    ->  true
    ;   functor(G, N, A)
    ),
    Hint = "refused in queries and rules; README, \"Security\"".

rule_defined_(M, N/A) :-
    functor(H, N, A),
    current_predicate(M:N/A),
    \+ predicate_property(M:H, imported_from(_)).

formal_pi_(existence_error(procedure, PI), PI).
formal_pi_(permission_error(call, sandboxed, PI), PI).

unknown_procedure_(M, error(existence_error(procedure, What), _), N/A) :-
    (   What = M:G, callable(G) -> functor(G, N, A)
    ;   What = M:N/A
    ;   What = N/A, atom(N), integer(A)
    ).

unknown_hint_(M, N, A, Hint) :-
    findall(N/A2, ( current_predicate(M:N/A2), A2 \== A ), Near0),
    findall(N/A2, ( current_predicate(system:N/A2), A2 \== A ), Near1),
    append(Near0, Near1, Near2),
    sort(Near2, Near),
    (   Near \== []
    ->  maplist(pi_text_, Near, Texts),
        atomic_list_concat(Texts, ' or ', Shown),
        format(string(Hint), "did you mean ~w?", [Shown])
    ;   Hint = "not a builtin, not in the query vocabulary (README, \"Querying memory with \c
                Prolog\") and not defined by a rules file"
    ).

pi_text_(PI, Text) :-
    format(string(Text), "~q", [PI]).

% rule_location_(+Located, +Name/Arity, -Where): Source:Line of the first clause for Name/Arity.
rule_location_(Located, N/A, Where) :-
    member(Where-T, Located),
    rule_head_(T, H),
    callable(H),
    functor(H, N, A), !.

%!  api_rule_predicates(+Text:string, -Indicators:list) is det.
%!  api_rule_predicates(+Name, +Text:string, -Indicators:list) is det.
%   Name/Arity of every predicate Text defines (read as data, not loaded). A syntax error
%   names Name (the file) and its line, not `Stream <stream>(0x...)`.
api_rule_predicates(Text, Indicators) :-
    api_rule_predicates(rules, Text, Indicators).

api_rule_predicates(Name, Text, Indicators) :-
    text_nesting_checked(Text),
    number_text_checked(Text),
    setup_call_cleanup(open_source_(Text, Name, S),
                       read_clauses_(S, Clauses),
                       close(S)),
    findall(N/A, ( member(C, Clauses), clause_head_(C, H), callable(H), functor(H, N, A) ),
            PIs0),
    sort(PIs0, Indicators).

%!  api_rule_predicate_texts(+Name, +Text:string, -Texts:list(string)) is det.
%   As api_rule_predicates/3, each indicator written as writeq/1 writes it (`'Plane X'/1`,
%   `(-)/2`): what `atc rules list` shows can be pasted back into a goal.
api_rule_predicate_texts(Name, Text, Texts) :-
    api_rule_predicates(Name, Text, Indicators),
    maplist(pi_text_, Indicators, Texts).

read_clauses_(S, Clauses) :-
    read_term(S, T, []),
    (   T == end_of_file -> Clauses = [] ; Clauses = [T|Rest], read_clauses_(S, Rest) ).

clause_head_((:- _), _) :- !, fail.
clause_head_((H :- _), H) :- !.
clause_head_(H, H).

user_predicate_(M, Head) :-
    current_predicate(M:N/A),
    functor(Head, N, A),
    \+ predicate_property(M:Head, imported_from(_)).

		 /*******************************
		 *           SHARING            *
		 *******************************/

%!  api_sharing_change(+Change, -Result) is det.
%
%   Apply one change of the sharing policy (rules/grants.pl), or a list of them, as one durable
%   batch (all or none; Result is then the list of their results). Change is
%   principal_add(P, Kind, Owner), principal_remove(P), token_add(Id, P, Salt, Hash),
%   join(P, Team), leave(P, Team), grant_add(Id, Grantee, Filter, Ceiling, Expiry),
%   grant_revoke(Id, Who), label(Handle, Key, Value), declassify(Record, Key, Value),
%   mount_add(Name, Url, TokenEnv) or mount_remove(Name). Result is `true`, or what the change
%   reports (the grants a removal revoked, what a declassification loosened, the id of the
%   grant a grant_add made or found already made).
%   @error domain_error(sharing_change, C) for anything else

api_sharing_change(Changes, Results) :-
    is_list(Changes), !,
    maplist(sharing_goal_, Changes, Goals, Results),
    api_batch(maplist(call, Goals)).
api_sharing_change(Change, Result) :-
    sharing_goal_(Change, Goal, Result),
    api_batch(Goal).

%!  api_sharing_begin(+Changes:list, -Results:list) is det.
%
%   Make Changes (as api_sharing_change/2) in an open batch and leave it open: the caller
%   writes what must be durable before them (a declassification's audit line), then ends the
%   batch with api_batch_commit/0, or api_batch_abort/0. A change that raises or fails is
%   undone here and the error passed on.
api_sharing_begin(Changes, Results) :-
    must_be(list, Changes),
    maplist(sharing_goal_, Changes, Goals, Results),
    store_prepare_write,
    catch(maplist(call, Goals), E, true),
    (   var(E)
    ->  true
    ;   store_abort,
        throw(E)
    ),
    !.
api_sharing_begin(_, _) :-
    store_abort,
    fail.

%!  api_batch_commit is det.
%   Commit the batch api_sharing_begin/2 left open.
api_batch_commit :-
    store_commit.

%!  api_batch_abort is det.
%   Undo the batch api_sharing_begin/2 left open.
api_batch_abort :-
    store_abort.

sharing_goal_(Change, Goal, Result) :-
    must_be(callable, Change),
    (   sharing_change_(Change, Goal, Result)
    ->  true
    ;   domain_error(sharing_change, Change)
    ).

sharing_change_(principal_add(P, K, O), grants_principal_add(P, K, O), true).
sharing_change_(principal_remove(P), grants_principal_remove(P, Revoked), Revoked).
sharing_change_(token_add(Id, P, S, H), grants_token_add(Id, P, S, H), true).
sharing_change_(join(P, T), grants_member_join(P, T), true).
sharing_change_(leave(P, T), grants_member_leave(P, T), true).
sharing_change_(grant_add(Id, G, F, C, E), grants_grant_add(Id, G, F, C, E, Made), Made).
sharing_change_(grant_revoke(Id, Who), grants_grant_revoke(Id, Who), true).
sharing_change_(label(H, K, V), grants_label(H, K, V), true).
sharing_change_(declassify(R, K, V), grants_declassify(R, K, V, Change), Change).
sharing_change_(mount_add(N, U, E), grants_mount_add(N, U, E), true).
sharing_change_(mount_remove(N), grants_mount_remove(N), true).

%!  api_sharing_state(-State:dict) is det.
%   Principals (with their teams), grants and mounts of this home, as lists of dicts, and its
%   owner (or null). Token hashes stay in Prolog (the host checks one with principal_token/4).
api_sharing_state(State) :-
    grants_state(loaded, State).

%!  api_sharing_state_stored(+Changes:list, -State:dict) is det.
%   api_sharing_state/1 as the committed changes Changes of a home's journal (its lines that
%   change the grants' facts, in order) leave it, read without opening the home
%   (grants_state/2): `atc principal list` on a large home loaded every fact to list a few.
api_sharing_state_stored(Changes, State) :-
    grants_state(changes(Changes), State).

%!  api_visible(+Reader, +Record, -MaxLevel) is semidet.
%   visible/3 for the host: the most detailed level Reader may see Record at.
api_visible(Reader, Record, Max) :-
    visible(Reader, Record, Max), !.

%!  api_visible_levels(+Reader, +Records:list, -Levels:list) is det.
%   The most detailed level Reader may see each of Records at, `none` where they do not see
%   it, in the order of Records: api_visible/3 for a list, worked out as one read (the
%   reader's kept set answers where one is kept). The audit of a grantee's query asks it for
%   every record the query read: asked a record at a time, a goal reading 716 items' text
%   crossed the bridge 716 times (~45 ms of CPU against the goal's own ~2 ms).
api_visible_levels(Reader, Records, Levels) :-
    must_be(atom, Reader),
    must_be(list, Records),
    grants_read_once(maplist(record_level_(Reader), Records, Levels)).

record_level_(Reader, Record, Level) :-
    (   atom(Record), visible(Reader, Record, Max) -> Level = Max ; Level = none ).

%!  api_reader_uncurated(+Reader) is semidet.
%   Some item Reader sees has no rungs yet (curation has not read it): why a frame below L0
%   can be empty for them. Only their own items count: that the owner holds items not curated
%   yet where Reader cannot see is none of theirs. Read from their kept set when there is one,
%   else from the items not curated, until one they see.
api_reader_uncurated(Reader) :-
    must_be(atom, Reader),
    (   reader_records(Reader, Records)
    ->  include(item, Records, Items),
        ladder_unrung(Items, [_|_])
    ;   ladder_uncurated_handles(Handles),
        member(H, Handles),
        visible(Reader, H, _)
    ), !.

%!  api_reader_query(+Reader, +GoalText, +Options, -Solutions, -More) is det.
%   api_query/4 for a grantee: the goal runs in user module `grantee_query` (or
%   Options.module, a grantee's user module) whose vocabulary is atc_grantee_view, with
%   Reader as the principal it filters for.
api_reader_query(Reader, Text, Options, Solutions, More) :-
    must_be(atom, Reader),
    Module = Options.get(module, grantee_query),
    grantee_module_(Module),
    grantee_view_run(Reader, api_query(Text, Options.put(module, Module), Solutions, More)).

%!  api_reader_rules(+Sources, -Module) is det.
%!  api_reader_rules(+Sources, +Options:dict, -Module) is det.
%   Load rules (Name-Text sources or one text, checked as api_load_rules/4 checks them, with
%   its Options: `last_wins`) into the grantee user module `grantee_rules`, whose vocabulary
%   is the filtered view; no sources (`[]`) leaves it empty, as a call without rules must
%   find it (grantees share the module: another's rules are none of theirs).
api_reader_rules(Sources, Module) :-
    api_reader_rules(Sources, _{}, Module).

api_reader_rules(Sources, Options, Module) :-
    Module = grantee_rules,
    grantee_module_(Module),
    (   Sources == []
    ->  memory_user_module(Module, atc_grantee_view)    % emptied: no call's rules stay
    ;   api_load_rules(Sources, Module, Options, Module)
    ).

grantee_module_(M) :-
    (   memory_is_user_module(M)
    ->  (   atc_grantee_view:grantee_view_module(M) -> true
        ;   permission_error(use, grantee_module, M)
        )
    ;   memory_user_module(M, atc_grantee_view)
    ).

%!  api_reader_hydrate(+Reader, +Goal, +Options, -Frame) is det.
%   api_hydrate/3 for a grantee: every record passes visible/3 for Reader and each fact shows
%   at most Reader's ceiling for it; `rules` may only be a grantee user module.
api_reader_hydrate(Reader, Goal, Options, Frame) :-
    must_be(atom, Reader),
    frame_primed_(Goal),
    grantee_view_run(Reader,
                     within_limits_(Options, atc_grantee_view:hydrate(Goal, Options, Frame))).

%!  api_reader_hydrate_json(+Reader, +Goal, +Options, -Out) is det.
%   api_reader_hydrate/4 for the host, its frame as api_hydrate_json/3 gives it.
api_reader_hydrate_json(Reader, Goal, Options, Out) :-
    api_reader_hydrate(Reader, Goal, Options, Frame),
    frame_out_(Frame, Out).

%!  api_reader_describe(+Reader, +Handle, +Level, -Record:dict) is det.
%   What `atc show` prints for a grantee: the record's fields as the filtered view gives them
%   and its text at Level. An arc, rollup or cell at l0 shows l1; a cell's members are its
%   live members (all of which the reader sees, or the cell is not theirs).
%   @error existence_error(record, Handle) when Reader does not see it
%   @error permission_error(read, level, Handle-Level) above Reader's ceiling for it
api_reader_describe(Reader, H, Level0, Record) :-
    must_be(atom, Reader),
    must_be(atom, H),
    (   visible(Reader, H, Max) -> true ; existence_error(record, H) ),
    (   item(H) -> Kind = item, Level = Level0
    ;   arc(H) -> Kind = arc, ( Level0 == l0 -> Level = l1 ; Level = Level0 )
    ;   atc_cells:cell(H) -> Kind = cell, ( Level0 == l0 -> Level = l1 ; Level = Level0 )
    ;   Kind = rollup, ( Level0 == l0 -> Level = l1 ; Level = Level0 )
    ),
    (   visible_at(Reader, H, Level) -> true ; permission_error(read, level, H-Max) ),
    grantee_view_run(Reader, describe_(Kind, H, Level, Max, Record)).

describe_(Kind, H, Level, Max, Record) :-
    V = atc_grantee_view,
    (   V:rung(H, Level, Text) -> true ; existence_error(rung, H-Level) ),
    findall(M, ( Kind == arc -> V:arc_member(H, M)
               ; Kind == cell -> V:cell_member(H, M)
               ; Kind == rollup, V:provenance(H, M), M \== H ),
            Members0),
    (   Kind == arc -> Members = Members0 ; sort(Members0, Members) ),
    findall(F-X, describe_field_(V, Kind, H, F, X), Pairs),
    dict_pairs(Fields, _, Pairs),
    Record = Fields.put(_{handle: H, record: Kind, level: Level, ceiling: Max, text: Text,
                          members: Members}).

describe_field_(V, item, H, F, X) :-
    member(F-G, [kind-item_kind, role-item_role, session-item_session, seq-item_seq,
                 time-item_time, segment-item_segment, source-item_source,
                 goal-item_goal]),
    G2 =.. [G, H, X],
    once(V:G2).
describe_field_(V, arc, H, F, X) :-
    member(F-G, [session-arc_session, goal-arc_goal]),
    G2 =.. [G, H, X],
    once(V:G2).
describe_field_(V, rollup, H, session, S) :-
    once(V:rollup(H, S)).
