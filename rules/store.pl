:- module(atc_store,
          [ store_open/2,               % +Directory, -Info
            store_close/0,
            store_is_open/1,            % -Directory
            durable_assert/1,           % +Module:Fact
            durable_retract/1,          % +Module:Fact
            durable_record/2,           % +Module:Kind, +Text
            durable_undo/1,             % :Goal
            store_commit/0,
            store_abort/0,
            store_dump/2,               % +File, -Facts
            store_reset/0
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).

/** <module> The durable store: an append-only journal of fact changes plus a snapshot

Every persistent fact of every module changes through durable_assert/1 and durable_retract/1.
A change is applied at once and appended to `journal.pl` in the memory home as a term
`a(M:Fact)` or `r(M:Fact)`; store_commit/1 appends `commit(N)` and flushes, and the host then
fsyncs the file before it acknowledges the batch. store_abort/0 undoes the batch in memory and
appends `abort(N)`, so a replay drops it too.

Reopening loads `snapshot.qlf` (a compiled dump of every durable predicate, rebuilt whenever the
SWI-Prolog version differs) and replays the journal from the byte offset the snapshot covers.
Replay applies only committed batches: a torn tail from a crash is ignored and reported, so the
host can truncate it. Text is data: facts are written with quoted(true) and read back with
read_term/3, never consulted as code.

Modules declare what is durable with the multifile fact durable_predicate(M:Name/Arity).

A module that writes many facts at once may log them as one *record* instead of one term per
fact: durable_record/2 appends `b(M:Kind, Length).`, a newline, then Length characters of the
module's own text verbatim and a newline. Writing and reading such a block costs a copy, where
quoting and re-reading a fact costs a scan per token; a module's item of seven facts becomes one
block. The module applies the change in memory itself, registers its undo with durable_undo/1,
and defines atc_store:replay_record(M:Kind, Text, Changes), which replays the record (called for
committed batches only, in journal order) and says how many fact changes it made.
*/

:- multifile durable_predicate/1.
:- dynamic durable_predicate/1.

:- multifile replay_record/3.           % M:Kind, Text, Changes

:- dynamic
    open_store_/3,                      % Directory, JournalStream, BatchNumber
    pending_/1.                         % Undo action of the open batch (newest first)

%!  store_is_open(-Directory) is semidet.
store_is_open(Dir) :-
    open_store_(Dir, _, _).

%!  store_open(+Directory, -Info:dict) is det.
%
%   Load the store in Directory (created if needed), replacing whatever was loaded before.
%   Info has keys `snapshot` (facts loaded from it), `replayed` (committed changes replayed),
%   `committed_bytes` (where the last committed batch ends) and `file_bytes` (journal size);
%   when they differ the journal has a torn tail and the host truncates it before writing.

store_open(Dir0, Info) :-
    must_be(text, Dir0),
    atom_string(Dir, Dir0),
    store_close,
    store_reset,
    make_directory_path(Dir),
    load_snapshot(Dir, SnapFacts, From),
    journal_file(Dir, Journal),
    replay(Journal, From, Replayed, Committed, Batch),
    size_file_or_zero(Journal, Size),
    Info = _{snapshot: SnapFacts, replayed: Replayed,
             committed_bytes: Committed, file_bytes: Size},
    asserta(open_store_(Dir, none, Batch)).

% Open the journal for appending lazily, on the first change: a home that is only read
% never takes the write lock.
attach_stream_(Stream) :-
    open_store_(Dir, Stream0, Batch),
    (   Stream0 == none
    ->  journal_file(Dir, Journal),
        open(Journal, append, Stream, [encoding(utf8), lock(write), wait(false)]),
        retractall(open_store_(_, _, _)),
        asserta(open_store_(Dir, Stream, Batch))
    ;   Stream = Stream0
    ).

%!  store_close is det.
%   Abort any open batch and close the journal stream.
store_close :-
    (   open_store_(_, _, _)
    ->  store_abort,
        forall(retract(open_store_(_, S, _)), ( S == none -> true ; close(S) ))
    ;   true
    ).

%!  store_reset is det.
%   Remove every durable fact from memory (the files are untouched).
store_reset :-
    retractall(pending_(_)),
    forall(durable_predicate(M:N/A),
           ( functor(H, N, A), retractall(M:H) )).

%!  durable_assert(+Fact) is det.
%   Assert Fact (Module:Term) and log it in the open batch.
durable_assert(M:Fact) :-
    must_be(callable, Fact),
    assertz(M:Fact, Ref),
    log_change(a(M:Fact)),
    asserta(pending_(erase(Ref))).          % a clause reference: no copy of the fact

%!  durable_retract(+Fact) is det.
%   Retract every clause matching Fact (Module:Term) and log it.
durable_retract(M:Fact) :-
    must_be(callable, Fact),
    findall(M:Fact, retract(M:Fact), Gone),
    (   Gone == []
    ->  true
    ;   log_change(r(M:Fact)),
        forall(member(G, Gone), asserta(pending_(assertz(G))))
    ).

%!  durable_record(+Kind, +Text:string) is det.
%
%   Log Text verbatim as a record of Kind (Module:Name) in the open batch. The caller has already
%   made the change in memory and registered its undo (durable_undo/1); replay hands Text to
%   atc_store:replay_record/3, which Module defines.
durable_record(M:Kind, Text) :-
    (   open_store_(_, _, _)
    ->  attach_stream_(S),
        string_length(Text, Length),
        format(S, "b(~q,~d).~n", [M:Kind, Length]),
        write(S, Text),
        nl(S)
    ;   true                            % no home open: memory only
    ).

:- meta_predicate durable_undo(0).

%!  durable_undo(:Goal) is det.
%   Run Goal if the open batch is aborted (after the undo of everything logged since).
durable_undo(Goal) :-
    asserta(pending_(call(Goal))).

log_change(Change) :-
    (   open_store_(_, _, _)
    ->  attach_stream_(S),
        write_term(S, Change, [quoted(true), ignore_ops(true), fullstop(true), nl(true)])
    ;   true                            % no home open: memory only (tests, scratch scopes)
    ).

%!  store_commit is det.
%   End the batch: append its commit marker and flush. The host fsyncs afterwards.
store_commit :-
    retractall(pending_(_)),
    (   open_store_(Dir, Stream, N0), Stream \== none
    ->  N is N0 + 1,
        write_term(Stream, commit(N), [fullstop(true), nl(true)]),
        flush_output(Stream),
        retractall(open_store_(_, _, _)),
        asserta(open_store_(Dir, Stream, N))
    ;   true                            % nothing was written in this batch
    ).

%!  store_abort is det.
%   Undo the open batch in memory and mark it aborted in the journal.
store_abort :-
    (   pending_(_)
    ->  forall(retract(pending_(Undo)), undo_(Undo)),
        (   open_store_(_, Stream, N), Stream \== none
        ->  write_term(Stream, abort(N), [fullstop(true), nl(true)]),
            flush_output(Stream)
        ;   true
        )
    ;   true                            % nothing changed since the last commit
    ).

undo_(erase(Ref)) :- ( catch(erase(Ref), _, true) -> true ; true ).
undo_(assertz(Fact)) :- assertz(Fact).
undo_(call(Goal)) :- ( catch(Goal, _, true) -> true ; true ).

		 /*******************************
		 *           REPLAY             *
		 *******************************/

journal_file(Dir, File) :- directory_file_path(Dir, 'journal.pl', File).
snapshot_file(Dir, File) :- directory_file_path(Dir, 'snapshot.qlf', File).
snapshot_meta(Dir, File) :- directory_file_path(Dir, 'snapshot.meta', File).

size_file_or_zero(File, Size) :-
    (   exists_file(File) -> size_file(File, Size) ; Size = 0 ).

replay(Journal, From, Count, Committed, Batch) :-
    (   exists_file(Journal)
    ->  setup_call_cleanup(
            open(Journal, read, S, [encoding(utf8)]),
            ( seek(S, From, bof, _),
              replay_loop(S, [], 0, Count, From, Committed, 0, Batch) ),
            close(S))
    ;   Count = 0, Committed = 0, Batch = 0
    ).

replay_loop(S, Pending, C0, C, B0, B, N0, N) :-
    catch(read_term(S, T, []), _, T = '$torn'),
    (   T == end_of_file
    ->  C = C0, B = B0, N = N0
    ;   T == '$torn'
    ->  C = C0, B = B0, N = N0
    ;   T = commit(K)
    ->  reverse(Pending, Ordered),
        foldl(apply_change, Ordered, 0, L),
        C1 is C0 + L,
        line_end_offset(S, B1),
        replay_loop(S, [], C1, C, B1, B, K, N)
    ;   T = abort(_)
    ->  line_end_offset(S, B1),
        replay_loop(S, [], C0, C, B1, B, N0, N)
    ;   ( T = a(_) ; T = r(_) )
    ->  replay_loop(S, [T|Pending], C0, C, B0, B, N0, N)
    ;   T = b(Kind, Length), integer(Length), Length >= 0,
        read_block_(S, Length, Text)
    ->  replay_loop(S, [b(Kind, Text)|Pending], C0, C, B0, B, N0, N)
    ;   C = C0, B = B0, N = N0          % anything else: treat as a torn tail
    ).

% The commit term is followed by a newline; the committed prefix ends after it.
line_end_offset(S, Offset) :-
    skip(S, 0'\n),
    byte_count(S, Offset).

% A record block: the newline that ends its header, Length characters, a newline. Fails on a
% torn block (the file ends inside it).
read_block_(S, Length, Text) :-
    get_char(S, '\n'),
    read_string(S, Length, Text),
    string_length(Text, Length),
    get_char(S, '\n').

apply_change(a(Fact0), C0, C) :- current_module_(Fact0, Fact), assertz(Fact), C is C0 + 1.
apply_change(r(Fact0), C0, C) :- current_module_(Fact0, Fact), retractall(Fact), C is C0 + 1.
apply_change(b(Kind0, Text), C0, C) :-
    current_module_(Kind0, Kind),
    (   replay_record(Kind, Text, Changes)
    ->  C is C0 + Changes
    ;   domain_error(journal_record, Kind)  % a record this version cannot replay: never guess
    ).

% Journals written before every module took the atc_ prefix name the old modules; their
% changes are applied to the module that owns the predicate now.
current_module_(M0:X, M:X) :-
    (   legacy_module_(M0, M1) -> M = M1 ; M = M0 ).

legacy_module_(journal, atc_journal).
legacy_module_(ladder, atc_ladder).
legacy_module_(tms, atc_tms).
legacy_module_(attention, atc_attention).
legacy_module_(attention_state, atc_attention_state).
legacy_module_(attention_trace, atc_trace).
legacy_module_(validator, atc_validator).

		 /*******************************
		 *           SNAPSHOT           *
		 *******************************/

load_snapshot(Dir, Facts, From) :-
    snapshot_file(Dir, Qlf),
    snapshot_meta(Dir, Meta),
    (   exists_file(Qlf), exists_file(Meta),
        catch(read_file_to_terms(Meta, [snapshot(Version, From0, Facts0)], []), _, fail),
        current_prolog_flag(version, Version),
        size_file_or_zero(Meta, _)
    ->  load_files(Qlf, [if(true), silent(true)]),
        From = From0, Facts = Facts0
    ;   From = 0, Facts = 0
    ).

%!  store_dump(+File, -Facts) is det.
%
%   Write every durable fact to File as a loadable source (dynamic declarations first). The host
%   compiles it to `snapshot.qlf` in a separate process and records the journal offset it covers
%   in `snapshot.meta`, so a crash while snapshotting leaves the previous snapshot in place.
store_dump(File, Count) :-
    store_commit,
    setup_call_cleanup(open(File, write, S, [encoding(utf8)]),
                       dump_facts(S, Count),
                       close(S)).

dump_facts(S, Count) :-
    forall(durable_predicate(M:N/A),
           format(S, ':- dynamic(~q).~n', [M:N/A])),
    aggregate_all(count,
                  ( durable_predicate(M:N/A),
                    functor(H, N, A),
                    clause(M:H, true),
                    write_term(S, M:H, [quoted(true), ignore_ops(true), fullstop(true), nl(true)])
                  ),
                  Count).
