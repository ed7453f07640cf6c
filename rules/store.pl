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
            store_prepare_write/0,
            store_release/0,
            store_forget_writer/0,
            store_refresh/1,            % -Outcome
            store_fact_count/1,         % -Count
            store_changes_facts/3,      % +Changes, +Module, -Facts
            store_dump/3,               % +Directory, +PartFacts, -Info
            store_assemble_snapshot/2,  % +Parts, +File
            store_assemble_snapshot/3,  % +Parts, +Lanes, +File
            store_compact/2,            % +File, -Info
            store_adopt_compacted/1,    % +Epoch
            store_epoch/1,              % -Epoch
            store_journal_replaced/0,
            store_reset/0,
            store_say_cut/3,            % +Journal, +Committed, +Cut
            store_appended/4,           % :Head, +Mark0, -Mark, -Appended
            store_grown/4,              % :Head, +Mark0, -Mark, -Added
            store_mark/2                % :Head, -Mark
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(pairs)).
:- use_module(library(readutil)).

/** <module> The durable store: an append-only journal of fact changes plus a snapshot

Every persistent fact of every module changes through durable_assert/1 and durable_retract/1.
A change is applied at once and appended to `journal.pl` in the memory home as a term
`a(M:Fact)` or `r(M:Fact)`; store_commit/1 appends `commit(N)` and flushes, and the host then
fsyncs the file before it acknowledges the batch. store_abort/0 undoes the batch in memory and
cuts its lines from the journal (or, where the file cannot be cut, appends `abort(N)`, which a
replay drops too).

Reopening loads `snapshot.qlf` (a compiled dump of every durable predicate, rebuilt whenever the
SWI-Prolog version differs) and replays the journal from the byte offset the snapshot covers.
The snapshot carries that offset and a digest of the journal bytes before it *inside* itself
(snapshot_covers_/3), so the snapshot and what it covers are one file replaced by one rename;
a snapshot whose journal does not hold those bytes at that offset is refused and the journal is
replayed whole.

The snapshot is written in **parts**: store_dump/3 writes the facts to sources of at most a
given number of facts each, the host compiles each to QLF in a swipl process of its own (a
process compiling a file holds every clause of it, so one process compiling the whole dump held
as much as the writer's facts), and store_assemble_snapshot/2 joins the compiled parts in one
file behind a header line `atc_snapshot(Version, Lengths, Lanes).`. The facts go to two
*lanes* by predicate, balanced by the predicates' sizes in memory (every fact of one predicate
in one lane, in its order); loading reads lane 1's parts one after another from one stream of
the file while a thread reads lane 2's from another, so a million-item home loads on both
cores (loading is most of opening one). A file whose length is not what its header says
(torn), or whose version is not this SWI-Prolog's, is refused before anything is loaded; a
lane that fails to load refuses the snapshot once both lanes have stopped. The parts declare
the durable predicates `multifile`, so each adds its clauses to those of the parts before it.
A snapshot in parts without lanes (header `atc_snapshot(Version, Lengths)`, meta format 3)
loads its parts in order, and one written before parts (one QLF of the whole dump, meta
format 2) loads as one file; the next snapshot replaces either with lanes.

A process keeps the journal offset its memory reflects (its *view*). Before its first change it
takes the journal's write lock and replays what other processes committed since it opened
(store_prepare_write/0), so a batch is always computed on the last committed state, and a
snapshot is written only from a view that reaches the journal's end.
Replay applies only committed batches: a torn tail from a crash is ignored and reported, so the
host can truncate it. A journal unreadable at some line with committed batches past it was
damaged, not torn: opening it raises `atc_journal_damaged(File, Offset)`, so nothing is cut. Text is data: facts are written with quoted(true) and read back with
read_term/3, never consulted as code.

Modules declare what is durable with the multifile fact durable_predicate(M:Name/Arity).
A module may also declare, with the multifile implied_fact(M:Fact), durable facts that other
facts in memory imply (an older form of a home stored them): snapshots, compaction and
store_fact_count/1 leave those out, so a home sheds them at its next snapshot. With the
multifile current_form(M:Fact, Current) it may say how a fact of an older form is written now
(the same fact, held in less memory): snapshots and compaction write Current, so a home's
memory takes the current form once its snapshot is rewritten (its readers read both forms).
A module that stores a predicate in another form in snapshots than it writes it (a group of
facts as one) defines the multifile written_facts(M:Name/Arity, Fact): snapshots, compaction
and store_fact_count/1 take that predicate's facts from it instead of its clauses.

**Compaction** (erasure): store_compact/2 writes every durable fact, as it is in memory, to a
new journal file that starts with `epoch(Id).`, a name no other journal has; the host fsyncs it,
deletes the snapshot, renames it over `journal.pl` and calls store_adopt_compacted/1. A journal
is read through one open stream from the snapshot check to the end of its replay, so a reader
that opens while the journal is replaced reads the old file or the new one, never both; a
writer whose view was taken from a journal of another epoch reloads before its first change
instead of replaying the new file from an offset of the old one. A journal without an epoch
line (every journal before compaction existed) has epoch `none`.

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
:- multifile implied_fact/1.            % M:Fact: stored by an older form, implied by others now
:- dynamic implied_fact/1.
:- multifile current_form/2.            % M:Fact, Current: Fact (an older form) as written now
:- dynamic current_form/2.
:- multifile written_facts/2.           % M:Name/Arity, Fact: what snapshots write for it
:- dynamic written_facts/2.

:- dynamic
    open_store_/3,                      % Directory, JournalStream, BatchNumber
    view_end_/1,                        % Journal offset up to which memory reflects commits
    snapshot_covers_/3,                 % Offset, Digest, Facts: loaded with a snapshot
    journal_epoch_/1,                   % Epoch of the journal the view was read from
    pending_/1.                         % Undo action of the open batch (newest first)
:- thread_local
    replaying_/1,                       % Stream: a journal stream being replayed
    not_text_/2.                        % Stream, Message: it held bytes that are not UTF-8

%!  store_is_open(-Directory) is semidet.
store_is_open(Dir) :-
    open_store_(Dir, _, _).

%!  store_open(+Directory, -Info:dict) is det.
%
%   Load the store in Directory (created if needed), replacing whatever was loaded before.
%   Info has keys `snapshot` (facts loaded from it), `replayed` (committed changes replayed),
%   `committed_bytes` (where the last committed batch ends) and `file_bytes` (journal size);
%   when they differ the journal has a torn tail and the host truncates it before writing.
%   @error atc_journal_damaged(File, Offset) when committed batches follow a line that cannot
%   be read (the journal is left as it is).
%   @error atc_journal_batch_damaged(File, Offset, Why) when a committed batch cannot be
%   applied (a record damaged on disk); the journal is left as it is.

store_open(Dir0, Info) :-
    must_be(text, Dir0),
    atom_string(Dir, Dir0),
    store_close,
    store_reset,
    make_directory_path(Dir),
    load_(Dir, SnapFacts, Replayed, Committed, Batch, Epoch, Size),
    Info = _{snapshot: SnapFacts, replayed: Replayed,
             committed_bytes: Committed, file_bytes: Size},
    asserta(view_end_(Committed)),
    asserta(journal_epoch_(Epoch)),
    asserta(open_store_(Dir, none, Batch)).

% Snapshot and journal read through ONE stream of the journal (see the module doc,
% Compaction): the snapshot is checked against the bytes of the file that is then replayed.
load_(Dir, SnapFacts, Replayed, Committed, Batch, Epoch, Size) :-
    journal_file(Dir, Journal),
    (   catch(open(Journal, read, S, [encoding(octet)]), error(existence_error(_, _), _), fail)
    ->  setup_call_cleanup(
            true,
            ( seek(S, 0, eof, Size),
              stream_epoch_(S, Epoch),
              load_snapshot(Dir, S, Epoch, SnapFacts, From),
              set_stream(S, encoding(utf8)),
              replay_stream_(S, From, Replayed, Committed, Batch) ),
            close(S))
    ;   Epoch = none,
        load_snapshot(Dir, none, Epoch, SnapFacts, _),
        Replayed = 0, Committed = 0, Batch = 0, Size = 0
    ).

%!  store_epoch(-Epoch) is det.
%   Epoch of the journal this process's view was read from (`none` before any compaction).
store_epoch(Epoch) :-
    (   journal_epoch_(E) -> Epoch = E ; Epoch = none ).

%!  store_journal_replaced is semidet.
%   True when the home's journal was compacted (replaced by a file of another epoch) since
%   this process read it: a long-open reader should reopen to see an erasure.
store_journal_replaced :-
    open_store_(Dir, _, _),
    journal_file(Dir, Journal),
    journal_file_epoch_(Journal, Now),
    store_epoch(Then),
    Now \== Then.

journal_file_epoch_(Journal, Epoch) :-
    (   catch(open(Journal, read, S, [encoding(octet)]), error(existence_error(_, _), _), fail)
    ->  setup_call_cleanup(true, stream_epoch_(S, Epoch), close(S))
    ;   Epoch = none
    ).

% The epoch a journal starts with: its first line `epoch(Id).`, else none.
stream_epoch_(S, Epoch) :-
    seek(S, 0, bof, _),
    (   peek_string(S, 6, Head), Head == "epoch("
    ->  catch(read_term(S, T, []), _, T = none),
        (   T = epoch(E), atom(E) -> Epoch = E ; Epoch = none )
    ;   Epoch = none
    ),
    seek(S, 0, bof, _).

%!  store_prepare_write is det.
%
%   Take the journal's write lock (once per open) and bring memory up to the journal's last
%   commit: batches other processes committed since this one opened are replayed, and a torn
%   tail a crashed writer left is cut. Called before a batch computes anything, so it never
%   decides on a stale view. A no-op without an open store.
%   @error permission_error(lock, source_sink, Journal) when another process holds the lock.
store_prepare_write :-
    (   open_store_(_, _, _)
    ->  attach_stream_(_)
    ;   true
    ).

% Open the journal for appending lazily, on the first change: a home that is only read
% never takes the write lock.
attach_stream_(Stream) :-
    open_store_(Dir, Stream0, Batch0),
    (   Stream0 == none
    ->  journal_file(Dir, Journal),
        open(Journal, append, Stream, [encoding(utf8), lock(write), wait(false)]),
        catch_up_(Journal, Batch0, Batch),
        retractall(open_store_(_, _, _)),
        asserta(open_store_(Dir, Stream, Batch))
    ;   Stream = Stream0
    ).

% Replay what was committed past our view; cut what lies past the last commit (we hold the
% journal's lock and the home's, so those bytes belong to no live writer: one killed
% mid-batch, or one whose refused batch could not be cut), and say so, as a reopen does: a
% long-open writer (a watcher, a server, a script's Memory) cut another's tail unsaid.
catch_up_(Journal, Batch0, Batch) :-
    journal_file_epoch_(Journal, Epoch),
    store_epoch(Epoch0),
    Epoch \== Epoch0,
    !,
    (   pending_(_)
    ->  permission_error(catch_up, journal, Journal)   % changes made on a view now gone
    ;   true
    ),
    open_store_(Dir, _, _),
    reload_(Dir, Batch0, Batch).
catch_up_(Journal, Batch0, Batch) :-
    view_end_(View),
    size_file_or_zero(Journal, Size),
    (   Size =< View
    ->  Batch = Batch0
    ;   replay(Journal, View, _, Committed, Batch1),
        ( Batch1 =:= 0 -> Batch = Batch0 ; Batch = Batch1 ),
        set_view_end_(Committed),
        (   Size > Committed
        ->  truncate_file_(Journal, Committed),
            Cut is Size - Committed,
            store_say_cut(Journal, Committed, Cut)
        ;   true
        )
    ).

%!  store_say_cut(+Journal, +Committed, +Cut) is det.
%
%   Say on standard error, in one line, that Cut bytes past the journal's last commit (its
%   byte Committed) were cut, whichever process cut them: from the journal alone a batch a
%   killed writer never finished cannot be told from a file cut short by a copy or a
%   restore, which takes acknowledged batches with it; the user can tell them apart.
store_say_cut(Journal, Committed, Cut) :-
    format(user_error,
           "atc: warning: ~w: ~d bytes past its last commit (byte ~d) cut: a batch a writer \c
            never finished (killed mid-write), or, if no writer was stopped, the file was \c
            cut short (restore it from a copy)~n",
           [Journal, Cut, Committed]).

% The journal was compacted by another process since this one read it: everything is read
% again (the new journal holds the same facts minus what was erased, at other offsets).
reload_(Dir, Batch0, Batch) :-
    forall(durable_predicate(M:N/A), ( functor(H, N, A), retractall(M:H) )),
    retractall(snapshot_covers_(_, _, _)),
    load_(Dir, _, _, Committed, Batch1, Epoch, _),
    Batch is max(Batch0, Batch1),
    set_view_end_(Committed),
    retractall(journal_epoch_(_)),
    asserta(journal_epoch_(Epoch)).

truncate_file_(File, Size) :-
    setup_call_cleanup(open(File, update, S, [type(binary)]),
                       ( seek(S, Size, bof, _), set_end_of_stream(S) ),
                       close(S)).

set_view_end_(Offset) :-
    retractall(view_end_(_)),
    asserta(view_end_(Offset)).

%!  store_release is det.
%
%   Let other writers in between batches: close the journal stream (and with it the journal's
%   write lock) but keep everything loaded. The next change takes the lock again and replays
%   what others committed meanwhile (store_prepare_write/0). A long-running writer (`atc watch`)
%   calls it after each batch. A no-op when nothing is attached.
%   @error permission_error(release, batch, open) inside an open batch.
store_release :-
    (   pending_(_)
    ->  permission_error(release, batch, open)
    ;   open_store_(Dir, Stream, Batch), Stream \== none
    ->  close(Stream),
        retractall(open_store_(_, _, _)),
        asserta(open_store_(Dir, none, Batch))
    ;   true
    ).

%!  store_forget_writer is det.
%
%   In a process forked from one that had the journal open for appending (a worker of a server
%   that opened memory before forking): forget the inherited stream without closing it or
%   writing to it, since the parent goes on writing through the same file. The next write
%   opens the journal itself, under its own lock, and first catches up with what was committed
%   since the fork. A batch some other thread of the parent had open is dropped from the books
%   (only the forking thread lives on in the child).
store_forget_writer :-
    retractall(pending_(_)),
    (   retract(open_store_(Dir, _, Batch))
    ->  asserta(open_store_(Dir, none, Batch))
    ;   true
    ).

%!  store_refresh(-Outcome) is det.
%
%   Bring a reader's view up to the journal's last commit without taking the write lock: the
%   batches other processes committed since this one read the journal are replayed (a batch
%   still being written is not: it is past the last commit). Outcome is replayed(N) (N changes
%   replayed, 0 when nothing was committed meanwhile), `replaced` when the journal was compacted
%   since (an erasure: reopen to stop seeing the forgotten), or `writing` while this process
%   holds the journal (it is up to date). A process that answers for days beside writers (an
%   MCP server, the prompt hook's recall server) follows them this way instead of reopening.
store_refresh(Outcome) :-
    (   \+ open_store_(_, _, _)
    ->  Outcome = replayed(0)
    ;   open_store_(_, Stream, _), Stream \== none
    ->  Outcome = writing
    ;   open_store_(Dir, none, _),
        journal_file(Dir, Journal),
        (   catch(open(Journal, read, S, [encoding(octet)]), error(existence_error(_, _), _), fail)
        ->  setup_call_cleanup(true, refresh_stream_(S, Outcome), close(S))
        ;   store_epoch(Then), Then == none
        ->  Outcome = replayed(0)
        ;   Outcome = replaced
        )
    ).

% The epoch check and the replay read ONE stream of the journal (see the module doc,
% Compaction): a compaction that renames its journal into place between them would otherwise
% have the new file replayed from an offset of the old one.
refresh_stream_(S, Outcome) :-
    stream_epoch_(S, Now),
    store_epoch(Then),
    (   Now == Then
    ->  seek(S, 0, eof, Size),
        view_end_(View),
        (   Size =< View
        ->  Outcome = replayed(0)
        ;   set_stream(S, encoding(utf8)),
            replay_stream_(S, View, Count, Committed, Batch1),
            set_view_end_(Committed),
            open_store_(Dir, none, Batch0),
            (   Batch1 > Batch0
            ->  retractall(open_store_(_, _, _)),
                asserta(open_store_(Dir, none, Batch1))
            ;   true
            ),
            Outcome = replayed(Count)
        )
    ;   Outcome = replaced
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
    retractall(view_end_(_)),
    retractall(journal_epoch_(_)),
    retractall(snapshot_covers_(_, _, _)),
    forall(durable_predicate(M:N/A),
           ( functor(H, N, A), retractall(M:H) )).

%!  durable_assert(+Fact) is det.
%   Assert Fact (Module:Term) and log it in the open batch.
durable_assert(M:Fact) :-
    must_be(callable, Fact),
    assertz(M:Fact, Ref),
    log_change(a(M:Fact)),
    asserta(pending_(erase(Ref))).          % a clause reference: no copy of the fact

%!  store_appended(:Head, +Mark0, -Mark, -Appended) is det.
%
%   What was added to the clauses of Head since Mark0 (a Mark an earlier call gave, or `none`):
%   Appended is since(Heads), the clauses added after it in order, when every clause Mark0
%   covered is still there, in place, and at most store_appended_limit_/1 were added; else
%   `all` (something was retracted or reloaded, or much was added: read the predicate whole).
%   Mark is the mark for now. Lets a summary kept over a large predicate (a count, the newest
%   time) follow a write by reading what it added, not every clause: an agent writes a turn and
%   asks for a frame at once. Costs a walk of the clause list to check the mark and one per
%   clause read (in C: 0.3-3 ms at 100,000 clauses, by how scattered in memory they lie), so
%   the summaries asking after the same write share one answer.
store_appended(M:Head, Mark0, Mark, Appended) :-
    functor(Head, Name, Arity),
    (   predicate_property(M:Head, last_modified_generation(G)) -> true ; G = 0 ),
    (   appended_known_(M:Name/Arity, G, Mark0, Mark1, Appended1)   % asked already (memory_now/1
    ->  Mark = Mark1, Appended = Appended1                           % and the uncurated count)
    ;   appended_(M:Head, Mark0, Mark, Appended),
        retractall(appended_known_(M:Name/Arity, _, _, _, _)),
        assertz(appended_known_(M:Name/Arity, G, Mark0, Mark, Appended))
    ).

:- dynamic appended_known_/5.          % Pred, Generation, Mark0, Mark, Appended

appended_(M:Head, Mark0, Mark, Appended) :-
    (   predicate_property(M:Head, number_of_clauses(N)) -> true ; N = 0 ),
    (   store_appended_limit_(Max),
        still_in_place_(M:Head, Mark0, N, N0),
        N - N0 =< Max
    ->  From is N0 + 1,
        findall(Head-R, ( between(From, N, I), nth_clause(M:Head, I, R), clause(M:Head, true, R) ),
                Pairs),
        pairs_keys_values(Pairs, Heads, Refs),
        (   last(Refs, Last) -> Mark = mark(N, Last) ; Mark = Mark0 ),
        Appended = since(Heads)
    ;   (   N > 0, nth_clause(M:Head, N, Last) -> Mark = mark(N, Last) ; Mark = mark(0, none) ),
        Appended = all
    ).

store_appended_limit_(16).

% still_in_place_(:Head, +Mark0, +N, -N0): every clause Mark0 covered is still there, in place,
% and N (clauses now) is at least as many: whatever changed since was added after them.
still_in_place_(M:Head, mark(N0, Ref0), N, N0) :-
    N >= N0,
    (   Ref0 == none -> N0 =:= 0 ; nth_clause(M:Head, N0, Ref0) ).

%!  store_grown(:Head, +Mark0, -Mark, -Added) is semidet.
%
%   As store_appended/4 when only how many clauses were added matters: Added clauses were
%   added to Head since Mark0 and none Mark0 covered was removed; fails otherwise. Reads no
%   clause but the last (one walk of the clause list).
store_grown(M:Head, Mark0, Mark, Added) :-
    (   predicate_property(M:Head, number_of_clauses(N)) -> true ; N = 0 ),
    still_in_place_(M:Head, Mark0, N, N0),
    Added is N - N0,
    (   Added =:= 0 -> Mark = Mark0 ; nth_clause(M:Head, N, Last), Mark = mark(N, Last) ).

%!  store_mark(:Head, -Mark) is det.
%   A mark of Head's clauses now, for store_appended/4 and store_grown/4.
store_mark(M:Head, Mark) :-
    (   predicate_property(M:Head, number_of_clauses(N)), N > 0, nth_clause(M:Head, N, Last)
    ->  Mark = mark(N, Last)
    ;   Mark = mark(0, none)
    ).

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
%   End the batch: append its commit marker and flush. The host fsyncs afterwards. A batch
%   that logged nothing (it changed nothing, or was aborted and cut) appends no marker: a
%   failed command leaves the journal's bytes as they were.
store_commit :-
    (   open_store_(Dir, Stream, N0), Stream \== none
    ->  catch(commit_(Dir, Stream, N0), E, ( store_abort, throw(E) ))
    ;   true                            % nothing was written in this batch
    ),
    retractall(pending_(_)).

% The undo records stay until the marker is in the file: a write the file system refuses
% (a full disk, a file-size limit) undoes the batch in memory as any failed batch is, rather
% than leaving memory ahead of a journal that never got it.
commit_(Dir, Stream, N0) :-
    flush_output(Stream),
    journal_file(Dir, Journal),
    size_file(Journal, Size),               % we hold the lock: the end is ours
    (   view_end_(Size)
    ->  true                                % no line since the last commit's end
    ;   N is N0 + 1,
        write_term(Stream, commit(N), [fullstop(true), nl(true)]),
        flush_output(Stream),
        size_file(Journal, End),
        set_view_end_(End),
        retractall(open_store_(_, _, _)),
        asserta(open_store_(Dir, Stream, N))
    ).

%!  store_abort is det.
%   Undo the open batch in memory and cut its lines from the journal, which ends again where
%   its last commit did: a failed command leaves the journal's bytes as they were. Where the
%   file cannot be cut the batch is marked `abort(N)` instead, which a replay drops too.
store_abort :-
    (   pending_(_)
    ->  forall(retract(pending_(Undo)), undo_(Undo)),
        (   open_store_(Dir, Stream, N), Stream \== none
        ->  (   catch(flush_output(Stream), _, fail)
            ->  (   cut_aborted_batch_(Dir)
                ->  true
                ;   write_term(Stream, abort(N), [fullstop(true), nl(true)]),
                    flush_output(Stream)
                )
            ;   drop_refused_stream_(Dir, Stream, N)
            )
        ;   true
        )
    ;   true                            % nothing changed since the last commit
    ).

% The file system refused the batch's bytes (a full disk, a file-size limit): the stream
% still holds them and fails every flush and close, so it is closed by force, its bytes
% dropped, and the journal cut to its last commit (the home's write lock is still ours).
% The next change opens the journal again (attach_stream_/1), as after store_release/0, and
% a journal it could not cut has its torn tail cut then, as a crashed writer's is. Before,
% the stream stayed in the books: store_close/0 then failed before the host's cut and
% reopen, and every later batch of the process was kept in memory alone, reported written.
drop_refused_stream_(Dir, Stream, N) :-
    catch(close(Stream, [force(true)]), _, true),
    retractall(open_store_(_, _, _)),
    asserta(open_store_(Dir, none, N)),
    ignore(cut_aborted_batch_(Dir)).

% Truncate the journal to the end of its last commit (our view's end: we hold the lock, so
% every byte past it is the aborted batch's). The stream appends (O_APPEND): the next batch
% is written at the new end. Fails, leaving the file as it is, where it cannot be cut.
cut_aborted_batch_(Dir) :-
    view_end_(End),
    journal_file(Dir, Journal),
    catch(( size_file(Journal, Size), Size >= End,
            ( Size =:= End -> true ; truncate_file_(Journal, End) ) ),
          _, fail).

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
            replay_stream_(S, From, Count, Committed, Batch),
            close(S))
    ;   Count = 0, Committed = 0, Batch = 0
    ).

replay_stream_(S, From, Count, Committed, Batch) :-
    seek(S, 0, eof, Size),
    seek(S, From, bof, _),
    setup_call_cleanup(
        asserta(replaying_(S)),
        ( replay_loop(S, [], 0, Count, From, Committed, 0, Batch),
          refuse_damage_(S, Committed, Size) ),
        ( retractall(replaying_(S)), retractall(not_text_(S, _)) )).

% The journal is written as UTF-8: bytes that are not (a block damaged on disk) are noted
% here rather than printed as the stream's warning lines, and refuse the batch that holds
% them when it commits (apply_batch_/4), where they would be read as U+FFFD.
:- multifile user:message_hook/3.
user:message_hook(io_warning(S, Message), warning, _) :-
    replaying_(S),
    (   not_text_(S, _)
    ->  true
    ;   assertz(not_text_(S, Message))
    ).

% Replay stops at the first term it cannot read. Past it lies either a crashed writer's torn
% batch (no commit marker: cut by the next writer) or, when the file was damaged mid-way
% (a bad line, a bad disk block), committed batches that a cut would destroy: refuse those.
% Only the bytes there were when replay began are looked at: a batch another process
% committed since (a reader does not hold the lock) is no damage.
refuse_damage_(S, Committed, Size) :-
    (   Size =< Committed
    ->  true
    ;   seek(S, Committed, bof, _),
        (   commit_line_follows_(S, Size)
        ->  ( stream_property(S, file_name(File)) -> true ; File = journal ),
            throw(error(atc_journal_damaged(File, Committed), _))
        ;   true
        )
    ).

:- multifile prolog:error_message//1.
prolog:error_message(atc_journal_damaged(File, At)) -->
    [ '~w cannot be read past byte ~d, and committed batches follow: nothing was cut; '-[File, At],
      'mend or remove the bad line (or restore the file) and open the home again' ].

prolog:error_message(atc_journal_batch_damaged(File, From, Why)) -->
    [ '~w: the batch committed from byte ~d cannot be replayed ('-[File, From] ],
    damage_reason_(Why),
    [ '): nothing was cut; mend the bad record (or restore the file) and open the home again' ].

damage_reason_(io_warning(Message)) -->
    !,
    [ '~w'-[Message] ].
damage_reason_(Why) -->
    { catch('$messages':translate_message(error(Why, _), Lines, []), _, fail),
      exclude(==(nl), Lines, OneLine)
    },
    !,
    OneLine.
damage_reason_(Why) -->
    [ '~q'-[Why] ].

% A line `commit(N).` ends with its newline past here; record blocks are skipped by length
% (their text is the user's, and may hold any line).
commit_line_follows_(S, Size) :-
    read_line_to_codes(S, Line0, Tail),
    Tail \== [],                        % not the end, nor a last line torn before its newline
    Tail = [],
    byte_count(S, End),
    End =< Size,
    append(Line, [0'\n], Line0),
    string_codes(Text, Line),
    catch(term_string(T, Text), _, T = '$bad'),
    (   T = commit(K), integer(K)
    ->  true
    ;   T = b(_, Length), integer(Length), Length >= 0
    ->  read_string(S, Length, _),
        skip(S, 0'\n),
        commit_line_follows_(S, Size)
    ;   commit_line_follows_(S, Size)
    ).

replay_loop(S, Pending, C0, C, B0, B, N0, N) :-
    catch(read_term(S, T, []), _, T = '$torn'),
    (   T == end_of_file
    ->  C = C0, B = B0, N = N0
    ;   T == '$torn'
    ->  C = C0, B = B0, N = N0
    ;   T = commit(K), line_end_offset(S, B1)
    ->  reverse(Pending, Ordered),
        apply_batch_(S, B0, Ordered, L),
        C1 is C0 + L,
        replay_loop(S, [], C1, C, B1, B, K, N)
    ;   T = abort(_), line_end_offset(S, B1)
    ->  replay_loop(S, [], C0, C, B1, B, N0, N)
    ;   T = epoch(_), Pending == [], line_end_offset(S, B1)
    ->  replay_loop(S, [], C0, C, B1, B, N0, N)   % a compacted journal's first line
    ;   ( T = a(_) ; T = r(_) )
    ->  replay_loop(S, [T|Pending], C0, C, B0, B, N0, N)
    ;   T = b(Kind, Length), integer(Length), Length >= 0,
        read_block_(S, Length, Text)
    ->  replay_loop(S, [b(Kind, Text)|Pending], C0, C, B0, B, N0, N)
    ;   C = C0, B = B0, N = N0          % anything else: treat as a torn tail
    ).

% A committed batch that cannot be applied (a record damaged on disk whose fields no longer
% split, a record kind this version does not know) is refused, naming where it starts and
% why: its commit marker says it was acknowledged, so it is never cut nor skipped.
apply_batch_(S, From, _, _) :-
    retract(not_text_(S, Message)),
    !,
    ( stream_property(S, file_name(File)) -> true ; File = journal ),
    throw(error(atc_journal_batch_damaged(File, From, io_warning(Message)), _)).
apply_batch_(S, From, Changes, Count) :-
    catch(foldl(apply_change, Changes, 0, Count), Error,
          (   Error = error(Why, _),
              Why \= atc_journal_damaged(_, _),
              Why \= resource_error(_)         % the process's limits, not the record
          ->  ( stream_property(S, file_name(File)) -> true ; File = journal ),
              throw(error(atc_journal_batch_damaged(File, From, Why), _))
          ;   throw(Error)                      % an abort, a stack overflow: as they are
          )).

% The commit term is followed by a newline; the committed prefix ends after it. Fails when
% the file ends first: a marker torn before its newline was never acknowledged, and a writer
% appending after it would glue its first record to the marker's line.
line_end_offset(S, Offset) :-
    get_char(S, C),
    (   C == '\n'
    ->  byte_count(S, Offset)
    ;   C \== end_of_file
    ->  line_end_offset(S, Offset)
    ).

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

% The meta file says which SWI-Prolog compiled the snapshot (a .qlf loads only in the version
% that wrote it) and, for the host, how far it reaches; what the snapshot covers is checked
% against the snapshot's own snapshot_covers_/3, never the meta. A snapshot of the format before
% that fact (meta snapshot/3) is ignored: the journal is replayed whole. Meta format 2 is the
% snapshot as one QLF file, format 3 the snapshot in parts (see SNAPSHOT IN PARTS below); the
% file itself says which it is, so a crash between the two renames (a new snapshot beside the
% old meta) still loads the new snapshot.
load_snapshot(Dir, Stream, Epoch, Facts, From) :-
    snapshot_file(Dir, Qlf),
    snapshot_meta(Dir, Meta),
    (   exists_file(Qlf), exists_file(Meta),
        catch(read_file_to_terms(Meta, [snapshot(Format, Version, _, _)], []), _, fail),
        memberchk(Format, [2, 3, 4]),
        current_prolog_flag(version, Version),
        catch(load_snapshot_file_(Qlf), _, fail),
        snapshot_covers_(From0, Digest, Facts0),
        loaded_facts_(Facts0),
        stream_digest_(Stream, Epoch, From0, Digest)
    ->  From = From0,
        Facts = Facts0
    ;   store_reset,                    % whatever a refused snapshot loaded goes again
        From = 0, Facts = 0
    ).

% A snapshot loaded as many facts as it says it wrote. A part damaged on disk can load
% without an error and hold fewer: one byte of a part's QLF changed loaded none of a home's
% items, and a forget then compacted the journal from that empty view. Counting the clauses
% of the durable predicates costs a lookup per predicate.
loaded_facts_(Facts) :-
    aggregate_all(sum(N),
                  ( durable_predicate(M:Name/Arity),
                    functor(H, Name, Arity),
                    predicate_property(M:H, number_of_clauses(N)) ),
                  Facts).

% A snapshot in parts is loaded lane by lane, lane 2 in a thread of its own (each lane's parts
% in order, from a stream of its own); any other file is loaded as one QLF (the form before
% parts, which the next snapshot replaces).
load_snapshot_file_(File) :-
    setup_call_cleanup(
        open(File, read, S, [encoding(octet)]),
        (   parts_header_(S, Version, Lengths, Lanes, Start)
        ->  Form = parts,
            current_prolog_flag(version, Version),
            sum_list(Lengths, Body),
            size_file(File, Size),
            Size =:= Start + Body,          % a torn or padded file is refused before loading
            part_places_(Lengths, Lanes, Start, 1, Places),
            lane_parts_(Places, 1, Lane1),
            lane_parts_(Places, 2, Lane2),
            load_lanes_(S, File, Lane1, Lane2)
        ;   Form = one_qlf
        ),
        close(S)),
    (   Form == one_qlf
    ->  load_files(File, [if(true), silent(true)])
    ;   true
    ).

% Each part as place(Lane, Offset, K): its lane, where it starts, its number in the file.
part_places_([], [], _, _, []).
part_places_([Length|Lengths], [Lane|Lanes], Offset, K, [place(Lane, Offset, K)|Places]) :-
    Next is Offset + Length,
    K1 is K + 1,
    part_places_(Lengths, Lanes, Next, K1, Places).

lane_parts_([], _, []).
lane_parts_([Place|Places], Lane, Parts) :-
    (   arg(1, Place, Lane)
    ->  Parts = [Place|Parts1]
    ;   Parts = Parts1
    ),
    lane_parts_(Places, Lane, Parts1).

% Lane 2 (when it has parts) loads in a thread while this one loads lane 1; the thread is
% always joined before this returns, so nothing loads into memory after a refusal resets it.
load_lanes_(S, File, Lane1, Lane2) :-
    (   Lane2 == []
    ->  load_parts_(S, File, Lane1)
    ;   setup_call_cleanup(
            thread_create(load_lane_(File, Lane2), Id, []),
            catch(( load_parts_(S, File, Lane1) -> Own = true ; Own = false ), E, Own = E),
            thread_join(Id, Other)),
        Own == true,
        Other == true
    ).

load_lane_(File, Parts) :-
    setup_call_cleanup(open(File, read, S, [encoding(octet)]),
                       load_parts_(S, File, Parts),
                       close(S)).

load_parts_(S, File, Parts) :-
    forall(member(place(_, Offset, K), Parts),
           (   seek(S, Offset, bof, _),
               format(atom(Id), '~w#~d', [File, K]),
               load_files(Id, [stream(S), format(qlf), silent(true)])
           )).

% The header line of a snapshot in parts: atc_snapshot(Version, Lengths, Lanes), Lengths the
% byte length of each part's QLF and Lanes its lane (1 or 2); atc_snapshot(Version, Lengths),
% parts written before lanes, loads every part in lane 1. Start is where the first part begins.
parts_header_(S, Version, Lengths, Lanes, Start) :-
    peek_string(S, 13, Head),
    Head == "atc_snapshot(",
    read_term(S, Header, []),
    (   Header = atc_snapshot(Version, Lengths, Lanes)
    ->  true
    ;   Header = atc_snapshot(Version, Lengths),
        is_list(Lengths),
        length(Lengths, N),
        length(Lanes, N),
        maplist(=(1), Lanes)
    ),
    integer(Version),
    is_list(Lengths),
    is_list(Lanes),
    same_length(Lengths, Lanes),
    forall(member(L, Lanes), memberchk(L, [1, 2])),
    get_char(S, '\n'),
    seek(S, 0, current, Start).

%!  journal_digest(+Journal, +Offset, ?Digest) is semidet.
%
%   Digest is the SHA-1 of the journal's last 4 KB before Offset (and of Offset itself, and of
%   the journal's epoch once it has one): the journal only grows between compactions, so a
%   journal that holds other bytes there, or another epoch, is not the one a snapshot covering
%   Offset was taken from.
journal_digest(Journal, Offset, Digest) :-
    (   exists_file(Journal)
    ->  setup_call_cleanup(open(Journal, read, S, [encoding(octet)]),
                           ( stream_epoch_(S, Epoch), stream_digest_(S, Epoch, Offset, Digest) ),
                           close(S))
    ;   stream_digest_(none, none, Offset, Digest)
    ).

% The digest over an open journal stream (in octet encoding); `none` stands for no journal.
stream_digest_(S, Epoch, Offset, Digest) :-
    (   S == none -> Size = 0 ; seek(S, 0, eof, Size) ),
    Size >= Offset,
    Start is max(0, Offset - 4096),
    Length is Offset - Start,
    (   Length =:= 0
    ->  Bytes = ""
    ;   seek(S, Start, bof, _),
        read_string(S, Length, Bytes)
    ),
    (   Epoch == none
    ->  variant_sha1(Offset-Bytes, Digest)
    ;   variant_sha1(Epoch-Offset-Bytes, Digest)
    ).

%!  store_changes_facts(+Changes:list, +Module, -Facts:list) is det.
%
%   Facts are the facts of Module (each as Module writes it, unqualified) that Changes, lines
%   of the journal changing Module's facts (`a(:(Module,Fact)).`, `r(:(Module,Fact)).`) in
%   the order they were committed, leave, read as terms (data, never code) without touching
%   what this process holds. The host finds such lines in a home's journal without loading
%   it (journal_lines.py): the journal holds every durable fact, so a listing of a few facts
%   (the principals and grants of a home) costs a scan of the file, where opening the home
%   loaded every fact. A line that is not such a change ends the reading there, as an
%   unreadable line ends a replay.
store_changes_facts(Changes, M, Facts) :-
    must_be(list, Changes),
    must_be(atom, M),
    retractall(changed_fact_(_)),
    changes_apply_(Changes, M),
    findall(F, retract(changed_fact_(F)), Facts).

:- thread_local changed_fact_/1.        % Fact: what store_changes_facts/3 has applied so far

changes_apply_([], _).
changes_apply_([Line|Lines], M) :-
    (   catch(term_string(Change, Line), _, fail),
        (   Change = a(M:F)
        ->  assertz(changed_fact_(F))
        ;   Change = r(M:F)
        ->  retractall(changed_fact_(F))
        )
    ->  changes_apply_(Lines, M)
    ;   true
    ).

%!  store_fact_count(-Count:nonneg) is det.
%   Count is the number of durable facts in memory (what a snapshot would hold).
store_fact_count(Count) :-
    aggregate_all(count, kept_fact_(_:_), Count).

% A durable fact as snapshots and compaction write it (implied facts left out, older forms
% in their current form).
stored_fact_(M:H) :-
    kept_fact_(M:H0),
    (   current_form(M:H0, H1) -> H = H1 ; H = H0 ).

% A durable fact in memory that is not implied by others, or what its module writes instead.
kept_fact_(M:H) :-
    durable_predicate(M:N/A),
    (   clause(written_facts(M:N/A, _), _)
    ->  written_facts(M:N/A, H)
    ;   functor(H, N, A),
        clause(M:H, true),
        \+ implied_fact(M:H)
    ).

%!  store_dump(+Directory, +PartFacts:positive_integer, -Info:dict) is det.
%
%   Write every durable fact to loadable sources in Directory, at most PartFacts facts in each
%   (`part-1.pl`, `part-2.pl`, ...; each declares the durable predicates multifile and dynamic,
%   so that the parts add to one another when loaded), in two lanes by predicate (see
%   snapshot_lanes_/1), lane 1's last part ending with snapshot_covers_(Offset, Digest, Facts)
%   for the journal offset the facts reflect. Info has `facts`, `offset`, `parts` (the files,
%   in order) and `lanes` (each part's lane). The host compiles each part to QLF in a
%   separate process, joins them with store_assemble_snapshot/2 and renames the result into
%   place, so a crash at any step leaves the old snapshot or the new one, each knowing what it
%   covers. Only the writer may dump, from a view that reaches the journal's last commit:
%   store_prepare_write/0 takes the lock and catches up first.
%   @error permission_error(snapshot, store, Dir) without an open home, or with a batch open.
store_dump(Dir, PartFacts, _{facts: Count, offset: Offset, parts: Parts, lanes: Lanes}) :-
    must_be(positive_integer, PartFacts),
    (   open_store_(Home, _, _)
    ->  true
    ;   permission_error(snapshot, store, none)
    ),
    (   pending_(_)
    ->  permission_error(snapshot, store, Home)  % a batch is open: its changes are not committed
    ;   true
    ),
    store_prepare_write,
    journal_file(Home, Journal),
    view_end_(Offset),
    journal_digest(Journal, Offset, Digest),
    snapshot_lanes_(LaneOf),
    % Per lane L: its part's stream at argument 2L-1 (none between parts), that part's facts
    % at 2L; then facts in all, the parts as Lane-File (newest first), the last fact's
    % predicate and its lane.
    State = dump(none, 0, none, 0, 0, [], none, 1),
    setup_call_cleanup(
        true,
        ( forall(stored_fact_(Fact), dump_fact_(State, Dir, PartFacts, LaneOf, Fact)),
          arg(5, State, Count),
          part_stream_(State, Dir, 1, S),   % lane 1's last part (the first, for a store with no facts)
          format(S, ':- dynamic(~q).~n', [atc_store:snapshot_covers_/3]),
          write_term(S, atc_store:snapshot_covers_(Offset, Digest, Count),
                     [quoted(true), fullstop(true), nl(true)]) ),
        ( close_part_(State, 1), close_part_(State, 2) )),
    arg(6, State, Newest),
    reverse(Newest, Pairs),
    pairs_keys_values(Pairs, Lanes, Parts).

dump_fact_(State, Dir, PartFacts, LaneOf, Fact) :-
    fact_lane_(State, LaneOf, Fact, Lane),
    Count is 2 * Lane,
    (   arg(Count, State, PartFacts)
    ->  close_part_(State, Lane)            % this part is full: the lane's next fact starts another
    ;   true
    ),
    part_stream_(State, Dir, Lane, S),
    write_term(S, Fact, [quoted(true), ignore_ops(true), fullstop(true), nl(true)]),
    arg(Count, State, N0), N is N0 + 1, nb_setarg(Count, State, N),
    arg(5, State, C0), C is C0 + 1, nb_setarg(5, State, C).

% Facts come predicate by predicate: the lane is looked up once per predicate.
fact_lane_(State, LaneOf, M:H, Lane) :-
    functor(H, N, A),
    (   arg(7, State, M:N/A)
    ->  arg(8, State, Lane)
    ;   (   memberchk((M:N/A)-Lane0, LaneOf) -> Lane = Lane0 ; Lane = 1 ),
        nb_setarg(7, State, M:N/A),
        nb_setarg(8, State, Lane)
    ).

% The stream of lane Lane's part being written, opened (with its declarations) when there is none.
part_stream_(State, Dir, Lane, S) :-
    Arg is 2 * Lane - 1,
    (   arg(Arg, State, S0), S0 \== none
    ->  S = S0
    ;   arg(6, State, Parts0),
        length(Parts0, K0),
        K is K0 + 1,
        format(atom(Name), 'part-~d.pl', [K]),
        directory_file_path(Dir, Name, File),
        open(File, write, S, [encoding(utf8)]),
        nb_setarg(Arg, State, S),
        Count is 2 * Lane,
        nb_setarg(Count, State, 0),
        nb_setarg(6, State, [Lane-File|Parts0]),
        forall(durable_predicate(PI),
               format(S, ':- multifile(~q).~n:- dynamic(~q).~n', [PI, PI]))
    ).

close_part_(State, Lane) :-
    Arg is 2 * Lane - 1,
    arg(Arg, State, S),
    (   S == none
    ->  true
    ;   nb_setarg(Arg, State, none),
        close(S)
    ).

% Each durable predicate's lane (M:Name/Arity-Lane): largest first, each to the lane with less
% so far, by a predicate's clauses times their mean size (cells of the first 50 clauses, plus
% a clause's overhead): what loading it costs, roughly. Every clause of a predicate is in
% one lane, so its order survives the two lanes loading at once. A predicate written in
% another form (written_facts/2: a writer's entity occurrences, millions at a million items,
% written as a few groups) is left out: its clauses say nothing of what it writes, which goes
% to lane 1.
snapshot_lanes_(LaneOf) :-
    findall(Cost-PI,
            ( durable_predicate(PI),
              \+ clause(written_facts(PI, _), _),
              PI = M:N/A,
              functor(H, N, A),
              predicate_property(M:H, number_of_clauses(Clauses)),
              Clauses > 0,
              aggregate_all(sum(Cells)-count, limit(50, ( clause(M:H, true), term_size(H, Cells) )),
                            Sum-Sampled),
              Cost is Clauses * (8 + Sum / max(1, Sampled)) ),
            Costs),
    sort(1, @>=, Costs, Largest),
    assign_lanes_(Largest, 0, 0, LaneOf).

assign_lanes_([], _, _, []).
assign_lanes_([Cost-PI|Costs], L1, L2, [PI-Lane|LaneOf]) :-
    (   L1 =< L2
    ->  Lane = 1, L1a is L1 + Cost, L2a = L2
    ;   Lane = 2, L1a = L1, L2a is L2 + Cost
    ),
    assign_lanes_(Costs, L1a, L2a, LaneOf).

%!  store_assemble_snapshot(+Parts:list, +File) is det.
%
%   Write File as one snapshot in parts: the line `atc_snapshot(Version, Lengths).` (the
%   SWI-Prolog version that compiled the parts, and each part's length in bytes), then each
%   compiled part (a QLF file) in order. Reopening loads the parts one after another from this
%   one file (load_snapshot/5), refusing a file whose length is not what its header says.
store_assemble_snapshot(Parts, File) :-
    must_be(list, Parts),
    length(Parts, N),
    length(Lanes, N),
    maplist(=(1), Lanes),
    store_assemble_snapshot(Parts, Lanes, File).

%!  store_assemble_snapshot(+Parts:list, +Lanes:list, +File) is det.
%
%   As store_assemble_snapshot/2, each part in its lane (1 or 2: store_dump/3's `lanes`), the
%   header line being `atc_snapshot(Version, Lengths, Lanes).`
store_assemble_snapshot(Parts, Lanes, File) :-
    must_be(list, Parts),
    must_be(list(oneof([1, 2])), Lanes),
    same_length(Parts, Lanes),
    maplist(size_file, Parts, Lengths),
    current_prolog_flag(version, Version),
    setup_call_cleanup(
        open(File, write, Out, [encoding(octet)]),
        ( format(Out, '~q.~n', [atc_snapshot(Version, Lengths, Lanes)]),
          forall(member(Part, Parts),
                 setup_call_cleanup(open(Part, read, In, [encoding(octet)]),
                                    copy_stream_data(In, Out),
                                    close(In))) ),
        close(Out)).

		 /*******************************
		 *          COMPACTION          *
		 *******************************/

%!  store_compact(+File, -Info:dict) is det.
%
%   Write the journal as it would be if it had been written from nothing with only the facts
%   in memory now: the line `epoch(Id).` (Id new), then every durable fact as `a(M:Fact)`, a
%   `commit(N)` after every 10,000 and at the end. What was retracted, and every text it held,
%   is not in File. Info has `facts`, `epoch` and `bytes`. The host fsyncs File, removes the
%   snapshot, renames File over the journal and calls store_adopt_compacted/1; each of those
%   steps leaves a home that opens to the old journal or the new one.
%   @error permission_error(compact, store, Dir) without an open home, or with a batch open.
store_compact(File, _{facts: Count, epoch: Epoch, bytes: Bytes}) :-
    (   open_store_(Dir, _, _)
    ->  true
    ;   permission_error(compact, store, none)
    ),
    (   pending_(_)
    ->  permission_error(compact, store, Dir)
    ;   true
    ),
    store_prepare_write,                % the lock, and the journal's last commit, first
    new_epoch_(Epoch),
    setup_call_cleanup(
        open(File, write, S, [encoding(utf8)]),
        ( write_term(S, epoch(Epoch), [quoted(true), fullstop(true), nl(true)]),
          compact_facts_(S, Count),
          byte_count(S, Bytes) ),
        close(S)).

new_epoch_(Epoch) :-
    get_time(Now),
    Stamp is round(Now * 1000),
    Nonce is random(1 << 60),
    format(atom(Epoch), 'c~d_~16r', [Stamp, Nonce]).

compact_facts_(S, Count) :-
    nb_setval(atc_store_compact_n, 0),
    forall(stored_fact_(M:H),
           ( write_term(S, a(M:H), [quoted(true), ignore_ops(true), fullstop(true), nl(true)]),
             nb_getval(atc_store_compact_n, I0),
             I is I0 + 1,
             nb_setval(atc_store_compact_n, I),
             (   I mod 10000 =:= 0
             ->  K is I // 10000,
                 write_term(S, commit(K), [fullstop(true), nl(true)])
             ;   true
             ) )),
    nb_getval(atc_store_compact_n, Count),
    Last is Count // 10000 + 1,
    write_term(S, commit(Last), [fullstop(true), nl(true)]).

%!  store_adopt_compacted(+Epoch) is det.
%
%   The journal file was replaced by the compacted one of Epoch (store_compact/2), whose facts
%   are those in memory: the stream to the old file is closed and the view moved to the new
%   file's end, without reading it again.
store_adopt_compacted(Epoch) :-
    must_be(atom, Epoch),
    open_store_(Dir, Stream, _),
    journal_file(Dir, Journal),
    journal_file_epoch_(Journal, Found),
    (   Found == Epoch
    ->  true
    ;   domain_error(journal_epoch(Epoch), Found)
    ),
    (   Stream == none -> true ; close(Stream) ),
    size_file(Journal, Size),
    retractall(open_store_(_, _, _)),
    asserta(open_store_(Dir, none, 0)),
    set_view_end_(Size),
    retractall(journal_epoch_(_)),
    asserta(journal_epoch_(Epoch)).
