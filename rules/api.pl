:- module(atc_api,
          [ api_open/2,                 % +Directory, -Info
            api_close/0,
            api_batch/1,                % :Goal
            api_ingest/2,               % +Items, -Counts
            api_ingest_with_marks/3,    % +Items, +Marks, -Counts
            api_watermarks/2,           % +Sources, -Marks
            api_load_rules/3,           % +Text, +Module, -Module
            api_rule_predicates/2,      % +Text, -Indicators
            api_query/4,                % +GoalText, +Options, -Solutions, -More
            api_item/2,                 % +Handle, -Dict
            api_describe/3,             % +Handle, +Level, -Dict
            api_hydrate/3,              % +Goal, +Options, -Frame
            api_forget/3,               % +Handle, +Reason, -Invalidated
            api_batch_expire/3          % +Level, +Before, -Count
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(sandbox)).
:- use_module(library(time)).
:- use_module(library(solution_sequences)).
:- use_module(store).
:- use_module(journal).
:- use_module(ladder).
:- use_module(jump).
:- use_module(hydrate).
:- use_module(attention_api, []).
:- use_module(memory).

/** <module> The one module the host calls

Every call from Python lands here. Writes run as batches: the batch commits when its goal
succeeds and is undone (in memory and in the journal) when it fails or raises, so a failed
ingest leaves memory exactly as it was.
*/

:- meta_predicate api_batch(0).

%!  api_open(+Directory, -Info:dict) is det.
%   Load the memory home's store (see store_open/2).
api_open(Dir, Info) :-
    store_open(Dir, Info).

%!  api_close is det.
api_close :-
    store_close.

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
%   record each mark(Source, Size, Digest) watermark.
api_ingest_with_marks(Items, Marks, Counts) :-
    api_batch(( journal_add_encoded(Items, Counts),
                forall(member(mark(Src, Size, Digest), Marks),
                       journal_set_watermark(Src, Size, Digest)) )).

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

%!  api_forget(+Handle, +Reason:string, -Invalidated:list) is det.
%   Tombstone Handle and drop every curated record derived from it, as one batch.
%   Invalidated are the dropped record ids; the sessions they came from are marked for
%   re-curation (their arcs and rollups are rebuilt by the next curate).
%   @error existence_error(item, Handle)
api_forget(H, Reason, Invalidated) :-
    api_batch(( journal_tombstone(H, Reason),
                ladder_forget_derivatives(H, Invalidated) )).

%!  api_batch_expire(+Level, +Before, -Count) is det.
%   Apply retention to one level as a batch (see ladder_expire/3).
api_batch_expire(Level, Before, Count) :-
    api_batch(ladder_expire(Level, Before, Count)).

%!  api_item(+Handle, -Item:dict) is semidet.
%   All journal fields of a live item.
api_item(H, _{handle: H, kind: K, role: R, goal: G, session: S, seq: Q, time: T, segment: Seg,
             source: P, source_name: Src, text: Text, relations: Rels}) :-
    item_kind(H, K), item_role(H, R), item_goal(H, G), item_session(H, S), item_seq(H, Q),
    item_time(H, T), item_segment(H, Seg), item_source(H, P), item_source_name(H, Src),
    (   item_text(H, Text) -> true ; Text = "" ),   % "" once retention dropped L0
    findall([P1, O], relation(H, P1, O), Rels).

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
%   hydrate/3 for the host (see atc_hydrate:hydrate/3 for Options).
api_hydrate(Goal, Options, Frame) :-
    hydrate(Goal, Options, Frame).

		 /*******************************
		 *        USER QUERIES          *
		 *******************************/

%!  api_query(+GoalText:string, +Options:dict, -Solutions:list, -More:boolean) is det.
%
%   Parse GoalText as a Prolog goal over the public vocabulary (module memory), check it with
%   library(sandbox) and collect at most Options.limit solutions, each a list of Name-Value pairs
%   for the named variables (Value is `'_'` when unbound). More is true when solutions were cut
%   off by the limit. Options.time_limit (seconds) bounds the run.
%   @error syntax_error, permission_error (unsafe goal), existence_error (unknown predicate)

api_query(Text, Options, Solutions, More) :-
    must_be(string, Text),
    Limit = Options.get(limit, 100),
    TimeLimit = Options.get(time_limit, 30),
    Module = Options.get(module, atc_memory),
    term_string(Goal, Text, [variable_names(Bindings), module(Module)]),
    (   callable(Goal) -> true ; type_error(callable, Goal) ),
    safe_goal(Module:Goal),
    Max is Limit + 1,
    call_with_time_limit(TimeLimit,
        findall(Row, limit(Max, ( Module:Goal, bindings_row_(Bindings, Row) )), Rows)),
    (   length(Rows, N), N > Limit
    ->  length(Solutions, Limit), append(Solutions, _, Rows), More = true
    ;   Solutions = Rows, More = false
    ).

bindings_row_(Bindings, Row) :-
    maplist(binding_pair_, Bindings, Row).

binding_pair_(Name=Value, Name-Out) :-
    copy_term(Value, Out0),
    (   ground(Out0) -> Out = Out0 ; numbervars(Out0, 0, _), format(string(Out), "~p", [Out0]) ).

		 /*******************************
		 *         USER RULES           *
		 *******************************/

%!  api_load_rules(+Text:string, +Module, -Module) is det.
%
%   Load the clauses in Text into Module (emptied first), which sees the public vocabulary, then
%   check every predicate it defines with library(sandbox). Directives are sandboxed too. On an
%   unsafe or broken clause nothing stays loaded and the error names the reason.
%   @error permission_error(call, sandboxed, Goal) for unsafe code; syntax_error

api_load_rules(Text, Module, Module) :-
    must_be(string, Text),
    must_be(atom, Module),
    wipe_module_(Module),
    add_import_module(Module, atc_memory, end),
    atom_concat(Module, '_source', SourceId),   % one source id per module: SWI-Prolog insists
    catch(( setup_call_cleanup(open_string(Text, S),
                               load_files(Module:SourceId,
                                          [stream(S), sandboxed(true), silent(true)]),
                               close(S)),
            forall(user_predicate_(Module, Head), safe_goal(Module:Head)) ),
          E,
          ( wipe_module_(Module), throw(E) )).

%!  api_rule_predicates(+Text:string, -Indicators:list) is det.
%   Name/Arity of every predicate Text defines (read as data, not loaded).
api_rule_predicates(Text, Indicators) :-
    setup_call_cleanup(open_string(Text, S), read_clauses_(S, Clauses), close(S)),
    findall(N/A, ( member(C, Clauses), clause_head_(C, H), functor(H, N, A) ), PIs0),
    sort(PIs0, Indicators).

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

wipe_module_(M) :-
    forall(user_predicate_(M, Head),
           ( functor(Head, N, A), abolish(M:N/A) )).
