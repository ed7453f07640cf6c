:- module(atc_journal,
          [ item/1,                     % ?Handle
            item_kind/2,                % ?Handle, ?Kind
            item_role/2,                % ?Handle, ?Role
            item_speaker/2,             % ?Handle, ?Name
            item_goal/2,                % ?Handle, ?Goal
            item_session/2,             % ?Handle, ?Session
            item_time/2,                % ?Handle, ?Time
            item_seq/2,                 % ?Handle, ?Seq
            session_item/3,             % +Session, +Seq, -Handle
            journal_session/1,          % ?Session
            item_segment/2,             % ?Handle, ?Segment
            item_source/2,              % ?Handle, ?Pointer
            item_source_name/2,         % ?Handle, ?SourceName
            item_local_source/2,        % +Handle, -Pointer
            path_last_name/2,           % +Path, -Name
            item_text/2,                % ?Handle, ?L0Text
            relation/3,                 % ?Subject, ?Predicate, ?Object
            journal_links/3,            % +Predicate, ?Subject, ?Object
            tombstoned/1,               % ?Handle
            forgotten/5,                % ?Handle, ?Digest, ?Time, ?Who, ?Reason

            journal_add_items/2,        % +Items, -Counts
            journal_add_encoded/2,      % +Strings, -Counts
            journal_add_relation/3,     % +Subject, +Predicate, +Object
            journal_tombstone/2,        % +Handle, +Reason
            journal_supersede/5,        % +Source, +Segment, +Keep, +LastLine, -Handles
            journal_supersede_answered/4, % +Source, +Segment, +Keep, -Handles
            journal_supersede_sources/3, % +Sources, +Keep, -Handles
            journal_session_sources/2,  % +Sessions, -Pairs
            journal_refresh/3,          % +Strings, +Keep, -Changed
            journal_follow_moved/2,     % +Strings, -Moved
            journal_successors/3,       % +Superseded, +Keep, -Pairs
            journal_superseded_readings/2, % +Handles, -Readings
            journal_adopt_launch_goals/2, % +Handles, -Changed
            journal_adopt_launches/2,   % +Launches, -Changed
            journal_erase/4,            % +Handle, +Who, +Reason, -Record
            journal_erase/5,            % +Handle, +Who, +Reason, +Dropped, -Record
            journal_replace_goal/4,     % +Session, +Goal, +Marker, -Handles
            erased_goal_marker/1,       % -Marker
            journal_erasable/2,         % +Handle, -Dict
            journal_text_digest/2,      % +Text, -Digest
            journal_refuses/2,          % +Handle, +Text
            journal_expire_text/2,      % +Before, -Count
            journal_watermark/3,        % ?Source, ?Size, ?Digest
            journal_set_watermark/3,    % +Source, +Size, +Digest
            journal_stats/1,            % -Stats
            journal_segment/1,          % ?Segment
            journal_speakers/1,         % -Names
            journal_item_speakers/2,    % +Handles, -Pairs
            journal_user_speakers/2,    % +Names, -Users
            journal_atom_arg/2,         % ?Arg, -Stored
            journal_string_arg/2        % ?Arg, -Stored
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(aggregate)).
:- use_module(library(ordsets)).
:- use_module(library(solution_sequences)).
:- use_module(library(sha)).
:- use_module(store).
% Loaded before the flag below, though no clause here names it: library(apply_macros), when
% another file has loaded it, expands this file's maplist/N calls and loads library(yall) on
% the way, which would then be compiled with the flag (its arithmetic past the guard).
:- use_module(library(yall), []).
% Arithmetic compiled to VM instructions (this file only): a frame reads items' pointers and
% counts here, and a call of is/2 or a comparison would go through rules/arith_guard.pl's
% wrapper. Every expression here is the module's own (lines, counts, bits), none a caller's.
:- set_prolog_flag(optimise, true).

/** <module> The journal: typed items as facts

An item is one unit of an agent's history: a user goal, an assistant conclusion, a file operation,
an error, a useful tool result. It is identified by a content-derived handle, so adding the same
item twice changes nothing (ingestion is an upsert). Each item carries the goal that was active
when it was produced and a stable pointer to its verbatim source record.

```
?- item_kind(H, error), item_goal(H, G).
```

Only this module changes these facts, always through the durable store.

**Erasure.** journal_erase/4 removes every fact of an item (its fields, its text, its links,
its tombstone; with a session's last item, the session's working directory) and keeps only the minimal audit record forgotten/5: handle, a digest of its
text, when, who asked and why, with the digests of its text's lines and the lines of its source
it was read from (forgotten_line_/1, forgotten_place_/4: no text). Ingestion refuses an item
whose handle, or whose text's digest, is forgotten, and a text that is a part of a forgotten one
(journal_refuses/2, forgotten_at_/3), and counts it (`forgotten` in the counts), so
re-ingesting the source never brings the item back, whole or in parts.
*/

:- dynamic
    item_/10,       % Handle, SourceName, Session, Seq, Kind, Role, Goal, Time, Segment, Pointer
                    % (Goal and Pointer compacted: see stored_goal_/2 and stored_pointer_/3)
    text_/2,        % Handle, L0Text
    relation_/3,    % Subject, Predicate, Object
    tombstone_/3,   % Handle, Time, Reason
    watermark_/3,   % SourceName, Size, Digest
    forgotten_/5,   % Handle, Digest, Time, Who, Reason: what remains of an erased item
    forgotten_goal_/2, % Session, Digest: a goal of Session that an erased user goal set
    forgotten_line_/1, % LineKey: a line of an erased item's text (60 bits of its digest)
    forgotten_place_/4, % Handle, SourceName, FirstLine, LastLine: where the erased item was read
    segment_/1,     % Segment that has (had) items: lets hydration list segments without a scan
    session_cwd_/2, % Session, Cwd: the working directory its items share ([]: none), see below
    no_cwd_/1.      % Handle: an item without a working directory in a session with one

:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_journal:item_/10).
atc_store:durable_predicate(atc_journal:text_/2).
atc_store:durable_predicate(atc_journal:relation_/3).
atc_store:durable_predicate(atc_journal:tombstone_/3).
atc_store:durable_predicate(atc_journal:watermark_/3).
atc_store:durable_predicate(atc_journal:segment_/1).
atc_store:durable_predicate(atc_journal:session_cwd_/2).
atc_store:durable_predicate(atc_journal:no_cwd_/1).
atc_store:durable_predicate(atc_journal:forgotten_/5).
atc_store:durable_predicate(atc_journal:forgotten_goal_/2).
atc_store:durable_predicate(atc_journal:forgotten_line_/1).
atc_store:durable_predicate(atc_journal:forgotten_place_/4).

		 /*******************************
		 *      QUERY VOCABULARY        *
		 *******************************/

%!  item(?Handle) is nondet.
%   Handle is a journal item that has not been tombstoned.
item(H) :-
    item_(H, _, _, _, _, _, _, _, _, _),
    \+ tombstone_(H, _, _).

%!  journal_atom_arg(?Arg, -Stored) is det.
%!  journal_string_arg(?Arg, -Stored) is det.
%
%   An argument of a user's goal as the journal stores it: an atom (a kind, a segment, a
%   relation's object) given as a string, or a string (a time) given as an atom, is converted;
%   anything else is Stored as it is. The query vocabulary (atc_memory, atc_grantee_view)
%   looks bound arguments up through these, so `item_kind(H, "error")` is no silent `false`.
journal_atom_arg(X, Y) :-
    (   string(X) -> atom_string(Y, X) ; Y = X ).

journal_string_arg(X, Y) :-
    (   atom(X) -> atom_string(X, Y) ; Y = X ).

%!  item_kind(?Handle, ?Kind) is nondet.
%   Kind is one of user_goal, conclusion, file_op, error, tool_result, turn.
item_kind(H, Kind) :- live_(H, _, _, _, Kind, _, _, _, _, _).

%!  item_role(?Handle, ?Role) is nondet.
%   Role is the speaker: user, assistant, tool or system.
item_role(H, Role) :- live_(H, _, _, _, _, Role, _, _, _, _).

%!  item_speaker(?Handle, ?Name:string) is nondet.
%
%   Name is who said the item: the name its transcript gives (an OpenAI message's `name`, an
%   `author`, a speaker line's name, `subagent` for a Claude Code sidechain), stored as the
%   link relation(Handle, speaker, Name); else its role (`user`, `assistant`, ...). Name may be
%   given as a string or an atom: `item_speaker(H, "Priya")` lists her items.
item_speaker(H, Name) :-
    (   nonvar(Name)
    ->  atom_string(Who, Name),                  % a string or an atom
        (   link_(H, speaker, Who),
            \+ tombstone_(H, _, _)
        ;   live_(H, _, _, _, _, Who, _, _, _, _),
            \+ link_(H, speaker, _)
        )
    ;   live_(H, _, _, _, _, Role, _, _, _, _),
        (   link_(H, speaker, Who) -> true ; Who = Role ),
        atom_string(Who, Name)
    ).

%!  item_goal(?Handle, ?Goal:string) is nondet.
%   Goal is the goal that was active when the item was produced ("" before any goal).
item_goal(H, Goal) :-
    (   string(Goal)
    ->  % a bound goal is looked up in its stored form, so the clause index on it is used
        atom_string(Stored, Goal),
        (   live_(H, _, _, _, _, _, Stored, _, _, _)
        ;   live_(H, _, _, _, _, _, Goal, _, _, _)      % homes written before goals were atoms
        )
    ;   live_(H, _, _, _, _, _, Stored, _, _, _),
        stored_goal_(Text, Stored),
        Goal = Text
    ).

%!  journal_session(?Session) is nondet.
%   Session is one memory holds items of, each once, from the record of its working directory
%   (session_cwd_/2): every session ingested since that record came in; a session of an older
%   home without one is not listed.
journal_session(Session) :- session_cwd_(Session, _).

%!  item_session(?Handle, ?Session) is nondet.
item_session(H, Session) :- live_(H, _, Session, _, _, _, _, _, _, _).

%!  item_seq(?Handle, ?Seq:integer) is nondet.
%   Seq is the item's position within its session (0-based).
item_seq(H, Seq) :- live_(H, _, _, Seq, _, _, _, _, _, _).

%!  session_item(+Session, +Seq:integer, -Handle) is nondet.
%   Handle is the live item at position Seq of Session: item_session/2 and item_seq/2 in one
%   call, which the clause index answers without visiting the session's other items (a
%   frame asks it for the turns before and after each seed; item_session(H, S), item_seq(H,
%   Seq) walked every item of S, ~0.7 ms of a 100k-item frame).
session_item(Session, Seq, H) :- live_(H, _, Session, Seq, _, _, _, _, _, _).

%!  item_time(?Handle, ?Time:string) is nondet.
%   Time is ISO 8601 UTC, or "" when the source had no time.
item_time(H, Time) :- live_(H, _, _, _, _, _, _, Time, _, _).

%!  item_segment(?Handle, ?Segment) is nondet.
%   Segment is the namespace the item was ingested into (default: default).
item_segment(H, Segment) :- live_(H, _, _, _, _, _, _, _, Segment, _).

%!  item_source(?Handle, ?Pointer:string) is nondet.
%   Pointer is `path:line`, `path:first-last` (a text turn over several lines) or
%   `path#/json/pointer`, addressing the verbatim record.
item_source(H, Pointer) :-
    (   string(Pointer)
    ->  % a bound pointer is looked up in its stored form, so the clause indexes are used
        (   line_pointer_(Pointer, Src, Line),
            live_(H, Src, _, _, _, _, _, _, _, Line)
        ;   live_(H, _, _, _, _, _, _, _, _, Pointer)
        )
    ;   live_(H, Src, _, _, _, _, _, _, _, Stored),
        stored_pointer_(Text, Src, Stored),
        Pointer = Text
    ).

% Pointer is Source:Line, Line in its canonical digits (the form stored as the line alone).
line_pointer_(Pointer, Src, Line) :-
    split_string(Pointer, ":", "", Parts),
    last(Parts, Digits),
    string_length(Digits, N),
    sub_string(Pointer, 0, _, After, Prefix),
    After =:= N + 1,
    !,
    catch(number_string(Line, Digits), error(syntax_error(_), _), fail),
    integer(Line), Line >= 0,
    number_string(Line, Canonical), Canonical == Digits,
    atom_string(Src, Prefix).

%!  item_source_name(?Handle, ?Source) is nondet.
%   Source is the name of the ingested file or stream the item came from.
item_source_name(H, Source) :- live_(H, Source, _, _, _, _, _, _, _, _).

%!  item_local_source(+Handle, -Pointer:string) is semidet.
%   Pointer is item_source/2's without the directories of the file it names
%   (`/home/alice/acme/s.jsonl:5` is `s.jsonl:5`): where in its file the item was read, not
%   where its owner keeps the file. Fails when the pointer does not hold its source's file
%   name followed by its place in it.
item_local_source(H, Local) :-
    live_(H, Src, _, _, _, _, _, _, _, _),
    item_source(H, Pointer),
    path_last_name(Src, Name),
    local_pointer_(Pointer, Name, Local).

% The pointer from the first Name in it that a directory (or nothing) precedes and its place
% (`:line`, `#/json/pointer`, or nothing) follows: a JSON pointer may hold the name again.
local_pointer_(Pointer, Name, Local) :-
    sub_string(Pointer, Before, _, After, Name),
    (   Before =:= 0
    ->  true
    ;   Sep is Before - 1, sub_string(Pointer, Sep, 1, _, C), separator_(C)
    ),
    (   After =:= 0
    ->  true
    ;   sub_string(Pointer, _, After, 0, Place), sub_string(Place, 0, 1, _, P),
        memberchk(P, [":", "#"])
    ),
    !,
    sub_string(Pointer, Before, _, 0, Local).

separator_("/").
separator_("\\").

%!  path_last_name(+Path, -Name:atom) is semidet.
%   Name is the last name of Path, a file's or a directory's, `/` and `\` both separating
%   (`/home/alice/acme/` is `acme`); fails for a path of separators alone.
path_last_name(Path, Name) :-
    split_string(Path, "/\\", "", Parts),
    exclude(==(""), Parts, Names),
    last(Names, Last),
    atom_string(Name, Last).

%!  item_text(?Handle, ?Text:string) is nondet.
%   Text is the item's L0 (verbatim) text.
item_text(H, Text) :-
    text_(H, Text),
    \+ tombstone_(H, _, _).

%!  relation(?Subject, ?Predicate, ?Object) is nondet.
%
%   The entity graph: links such as touches_file, mentions, in_session, cwd, tool. An item's
%   link to its own session, relation(Item, in_session, Session), is read from its session field
%   (item_session/2) rather than kept as a fact of its own (a fact and its clause indexes, ~200
%   bytes an item); homes written before hold it as a fact too, answered once. Its working
%   directory, relation(Item, cwd, Dir), is read from its session's when they agree (the usual
%   case: every message of a Claude Code session names the same one): see implied_cwd_/2.
relation(S, in_session, O) :-
    live_(S, _, O, _, _, _, _, _, _, _),
    \+ link_(S, in_session, O).                   % a home of the older form: the fact answers
relation(S, cwd, O) :-
    implied_cwd_(S, O).
relation(S, P, O) :-
    link_(S, P, O),
    \+ tombstone_(S, _, _).

% relation_/3 looked up by ONE argument, its subject or else its object: SWI-Prolog then builds
% (and keeps) a clause index on each alone. Bound together with the predicate it would build a
% joint index on subject and predicate instead, whose hash buckets alone take 12 MB at 100k
% items (524k buckets of 24 bytes, against 131k on the subject), for a walk no faster: an item
% has a few links.
link_(S, P, O) :-
    (   nonvar(S)
    ->  relation_(S, P0, O0), P0 = P, O0 = O
    ;   nonvar(O)
    ->  relation_(S0, P0, O), P0 = P, S0 = S
    ;   relation_(S, P, O)
    ).

%!  journal_links(+Predicate, ?Subject, ?Object) is nondet.
%
%   relation(Subject, Predicate, Object) for a Predicate named by few links (speaker,
%   mentions_date), read by one pass over the links rather than through a clause index on the
%   predicate, which SWI-Prolog would build on first use and keep (24 bytes a link, 11 MB at
%   100k items) for lookups that run once per change of memory.
journal_links(P, S, O) :-
    must_be(atom, P),
    (   ( P == in_session ; P == cwd )
    ->  relation(S, P, O)
    ;   relation_(S, P0, O),
        P0 == P,
        \+ tombstone_(S, _, _)
    ).

% The link of item H to its own session Ses: implied by its item_/10 fact, not stored.
implied_link_(H, Ses, rel(S, P, O)) :-
    S == H, P == in_session, O == Ses.

% An item's working directory, when it is its session's. session_cwd_(Session, Cwd) is set by
% the first item of a session stored (Cwd [] when that item had none); a later item of the
% session whose own cwd is the same stores nothing, one with another stores its relation_/3
% link, one with none stores no_cwd_(Item). A million-item home sheds a million links and
% their two clause indexes (~290 MB warm, a ninth of its facts). Exact whatever the session's
% value: an item with a link or a no_cwd_/1 mark of its own never reads it. Homes written
% before, whose sessions have no session_cwd_/2, keep every link as a fact.
implied_cwd_(S, O) :-
    (   nonvar(S)
    ->  item_(S, _, Ses, _, _, _, _, _, _, _),
        session_cwd_(Ses, O0),
        O0 \== [],
        \+ own_cwd_(S),
        \+ tombstone_(S, _, _),
        O = O0
    ;   session_cwd_(Ses, O),
        O \== [],
        live_(S, _, Ses, _, _, _, _, _, _, _),
        \+ own_cwd_(S)
    ).

own_cwd_(S) :-
    (   no_cwd_(S)
    ->  true
    ;   relation_(S, P, _), P == cwd
    ->  true
    ).

% Rels without the cwd link its session implies; Marks the facts the item stores for it
% besides its links (a new session's session_cwd_/2, the item's no_cwd_/1). Decided before
% the item's item_/10 fact is asserted: a session that has items already but no value (a
% home written before) gets [] (every cwd of it stays a link).
cwd_links_(Rels0, H, Ses, Rels, Marks) :-
    partition(cwd_link_, Rels0, Cwds, Others),
    (   Cwds == [] -> Cwd = [] ; Cwds = [rel(_, _, C)] -> Cwd = C ; Cwd = many ),
    (   session_cwd_(Ses, SesCwd)
    ->  Marks = Marks0
    ;   Cwd \== many,
        \+ item_(_, _, Ses, _, _, _, _, _, _, _)
    ->  SesCwd = Cwd, Marks = [session_cwd_(Ses, Cwd)|Marks0]
    ;   SesCwd = [], Marks = [session_cwd_(Ses, [])|Marks0]
    ),
    (   Cwd == SesCwd
    ->  Rels = Others, Marks0 = []
    ;   Cwd == []
    ->  Rels = Others, Marks0 = [no_cwd_(H)]
    ;   Rels = Rels0, Marks0 = []
    ).

cwd_link_(rel(_, P, _)) :- P == cwd.

:- multifile atc_store:implied_fact/1.
atc_store:implied_fact(atc_journal:relation_(S, in_session, O)) :-
    item_(S, _, O, _, _, _, _, _, _, _).

%!  tombstoned(?Handle) is nondet.
tombstoned(H) :- tombstone_(H, _, _).

%!  forgotten(?Handle, ?Digest:string, ?Time:float, ?Who:string, ?Reason:string) is nondet.
%
%   The audit record of an erased item: its handle, `sha256:HEX` of its L0 text (UTF-8; of
%   the text read again from its transcript when retention had dropped it; "" when neither
%   was to be had), the POSIX time it was erased, who asked and why. Beside it only digests
%   of its lines and its source's line numbers remain (forgotten_line_/1, forgotten_place_/4).
forgotten(H, Digest, Time, Who, Reason) :-
    forgotten_(H, Digest, Time, Who, Reason).

live_(H, Src, Ses, Seq, K, R, G, T, Seg, P) :-
    item_(H, Src, Ses, Seq, K, R, G, T, Seg, P),
    \+ tombstone_(H, _, _).

% How item_/10 stores two fields, to keep a million items small in memory: many items share a
% goal, so it is stored as an atom (one copy in the atom table); a pointer `Source:Line` is
% stored as the integer Line, its source being in the fact already. Other values (and the
% strings of homes written before) are stored as they are, so both forms are read.
stored_goal_(Goal, Stored) :-
    (   var(Goal)
    ->  ( atom(Stored) -> atom_string(Stored, Goal) ; Goal = Stored )
    ;   atom_string(Stored, Goal)
    ).

stored_pointer_(Pointer, Src, Stored) :-
    (   var(Pointer)
    ->  (   integer(Stored)
        ->  string_concat(Src, ":", Head),       % not format/3: a frame writes ~50 of these
            number_string(Stored, Line),
            string_concat(Head, Line, Pointer)
        ;   Pointer = Stored
        )
    ;   atom_length(Src, N),
        sub_string(Pointer, 0, N, _, Prefix),
        atom_string(Src, Prefix),
        sub_string(Pointer, N, 1, After, ":"),
        sub_string(Pointer, _, After, 0, Digits),
        catch(number_string(Line, Digits), error(syntax_error(_), _), fail),
        integer(Line), Line >= 0,
        number_string(Line, Digits1), Digits1 == Digits      % exactly: no "007", no "+7"
    ->  Stored = Line
    ;   Stored = Pointer
    ).

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

journal_add_items(Items, Counts) :-
    must_be(list, Items),
    foldl(add_term_, Items, c([], 0, 0), Added),
    counts_(Added, Counts).

add_term_(Item0, Added0, Added) :-
    checked_item_(Item0, Item),
    stored_item_(Item, Stored),
    (   refused_(Stored)
    ->  refuse_(Added0, Added)
    ;   add_item_(Stored, _Wire, Added0, Added)
    ).

% An erased item is never ingested again: its handle, or its text's digest, is forgotten; nor
% is a part of it that a reading of its file, read again, gives at the place it was read.
refused_(Item) :-
    arg(1, Item, H),
    arg(11, Item, Text),
    (   journal_refuses(H, Text)
    ->  true
    ;   arg(2, Item, Src),
        arg(10, Item, Pointer),
        forgotten_at_(Src, Pointer, Text)
    ).

%!  journal_refuses(+Handle, +Text) is semidet.
%   True when an item of Handle or of Text was erased (forgotten/5): it is not taken again;
%   nor is a Text that begins with an erased text to the end of one of its lines, which is
%   what reading the item's file again gives once it grew: the turn went on below it, or the
%   call it was, read before its result, has its output (`\n(no result in the transcript)`
%   after the call in the erased text); nor a Text made only of lines of erased texts (lines
%   under three characters passed over; a line's part after a speaker's `Name:` counts as the
%   line, see erased_line_keys_/2): a forgotten turn that split in two once a name in it
%   spoke again, or a part of a forgotten output quoted whole elsewhere.
journal_refuses(H, Text) :-
    (   forgotten_(H, _, _, _, _)
    ->  true
    ;   forgotten_(_, D, _, _, _), D \== ""            % only when something was erased
    ->  (   journal_text_digest(Text, Digest),
            forgotten_(_, Digest, _, _, _)
        ->  true
        ;   forgotten_head_(Text)
        ->  true
        ;   forgotten_lines_(Text)
        )
    ).

% Every line of Text that counts (counted_lines_/2) is a line of an erased text, and there is
% one.
forgotten_lines_(Text) :-
    forgotten_line_(_),
    !,
    counted_lines_(Text, Lines),
    Lines \== [],
    forall(member(Line, Lines),                       % stops at the first line of its own
           ( line_key_(Line, Key), forgotten_line_(Key) )).

% A Text read at the place an erased item was read, in the same source, whose first line is
% a line of an erased text: a part of the item that a later reading of its grown file gives
% (a turn split where a name spoke again), with whatever was appended below it.
forgotten_at_(Src, Pointer, Text) :-
    forgotten_place_(_, Src, _, _),
    !,
    pointer_first_line_(Pointer, Src, Line),
    forgotten_place_(_, Src, First, Last),
    Line >= First, Line =< Last,
    !,
    text_lines_(Text, [Head|_]),
    line_key_(Head, Key),
    forgotten_line_(Key).

% The first line a stored pointer names (`Source:N` is stored as N; `Source:N-M` as a string).
pointer_first_line_(Stored, _, Line) :-
    integer(Stored),
    !,
    Line = Stored.
pointer_first_line_(Stored, Src, First) :-
    pointer_lines_(Stored, Src, First, _).

% The lines `Source:N` or `Source:N-M` names (N-N for one line); fails for another pointer.
pointer_lines_(N, _, N, N) :-
    integer(N),
    !.
pointer_lines_(Stored, Src, First, Last) :-
    atom_length(Src, Len),
    sub_string(Stored, 0, Len, _, Prefix),
    atom_string(Src, Prefix),
    sub_string(Stored, Len, 1, After, ":"),
    sub_string(Stored, _, After, 0, Range),
    split_string(Range, "-", "", Parts),
    maplist(line_number_, Parts, Ns),
    (   Ns = [First] -> Last = First
    ;   Ns = [First, Last], First =< Last
    ).

line_number_(S, N) :-
    catch(number_string(N, S), error(syntax_error(_), _), fail),
    integer(N).

% Text's lines that are not blank, in order, their surrounding blanks trimmed.
text_lines_(Text, Lines) :-
    split_string(Text, "\n", " \t\r", Lines0),
    exclude(==(""), Lines0, Lines).

% Text's lines that count where a text is read anywhere: those of three characters or more.
% A shorter one (`}`, `ok`, a list marker) says nothing of what text it is in, and is passed
% over as a blank one is (a later `ok` is not refused for an erased text's `ok` line); at the
% place an erased item was read (forgotten_at_/3) every line counts.
counted_lines_(Text, Lines) :-
    text_lines_(Text, Lines0),
    exclude(short_line_, Lines0, Lines).

short_line_(Line) :-
    string_length(Line, N),
    N < 3.

% A line's key: the first 60 bits of the SHA-256 of its UTF-8 bytes, an integer (a small
% journal record and clause index a line; a chance match needs ~2^30 lines forgotten).
line_key_(Line, Key) :-
    sha_hash(Line, [B0, B1, B2, B3, B4, B5, B6, B7|_], [algorithm(sha256), encoding(utf8)]),
    Key is (B0 << 52) \/ (B1 << 44) \/ (B2 << 36) \/ (B3 << 28) \/ (B4 << 20)
         \/ (B5 << 12) \/ (B6 << 4) \/ (B7 >> 4).

% The keys an erased Text leaves: each of its lines, and each line's part after each of the
% first four colons in its first 80 characters (a `**` or `__` after it dropped, blanks
% trimmed), which is what the line gives once a name or stamp before the colon is read as a
% speaker of its own: `Tomás: which bank?`, `**Tomás:** which bank?`, `[10:30] Tomás:which`.
erased_line_keys_(Text, Keys) :-
    text_lines_(Text, Lines),
    foldl(line_variants_, Lines, [], Variants),
    maplist(line_key_, Variants, Keys0),
    sort(Keys0, Keys).

line_variants_(Line, Vs0, [Line|Vs]) :-
    findall(Rest, limit(4, speaker_rest_(Line, Rest)), Rests),
    append(Rests, Vs0, Vs).

speaker_rest_(Line, Rest) :-
    sub_string(Line, Before, 1, After, ":"),
    Before > 0,
    (   Before > 80 -> !, fail ; true ),
    sub_string(Line, _, After, 0, Rest0),
    (   ( sub_string(Rest0, 0, 2, _, "**") ; sub_string(Rest0, 0, 2, _, "__") )
    ->  sub_string(Rest0, 2, _, 0, Rest1)
    ;   Rest1 = Rest0
    ),
    split_string(Rest1, "", " \t\r", [Rest]),
    Rest \== "".

% The digest of each of Text's first lines, one line more each time, is taken on from the one
% before (sha_hash_ctx/4): linear in Text's length. An erased text leaves the key of each of
% its lines (erase_leaves_lines_/2), so the head stops growing at the first line that is no
% erased text's: no longer head can be one. Without that, every multi-line text of an ingest
% into a home that ever forgot something was hashed line by line to its end (+55 % of the
% ingest's CPU for 20,000 three-line turns). Erasures made before the keys were kept are
% matched whole only (journal_refuses/2's digest).
forgotten_head_(Text) :-
    split_string(Text, "\n", "", [First|Rest]),
    Rest \== [],
    erased_line_or_blank_(First),
    sha_new_ctx(C0, [algorithm(sha256), encoding(utf8)]),
    forgotten_head_(Rest, First, C0).

forgotten_head_([Next|Rest], Line, C0) :-
    sha_hash_ctx(C0, Line, C1, Hash),
    (   forgotten_hash_(Hash)
    ->  true
    ;   sha_hash_ctx(C1, "\n(no result in the transcript)", _, Called),
        forgotten_hash_(Called)
    ->  true
    ;   erased_line_or_blank_(Next),
        sha_hash_ctx(C1, "\n", C2, _),
        forgotten_head_(Rest, Next, C2)
    ).

% Line (its blanks trimmed) is blank or a line of an erased text (erased_line_keys_/2).
erased_line_or_blank_(Line) :-
    split_string(Line, "", " \t\r", [Trimmed]),
    (   Trimmed == ""
    ->  true
    ;   line_key_(Trimmed, Key),
        forgotten_line_(Key)
    ).

forgotten_hash_(Hash) :-
    hash_atom(Hash, Hex),
    atom_string(Hex, HexS),
    string_concat("sha256:", HexS, Digest),
    forgotten_(_, Digest, _, _, _),
    !.

refuse_(c(Hs, U, F0), c(Hs, U, F)) :- F is F0 + 1.

checked_item_(Item, item(H, Src, SesA, Seq, K, R, G, T, Seg, P, Text, Rels)) :-
    (   Item = item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels)
    ->  true
    ;   type_error(journal_item, Item)
    ),
    must_be(atom, H),
    must_be(integer, Seq),
    maplist(must_be(atom), [Src, K, R, Seg]),
    maplist(must_be(string), [G, T, P, Text]),
    must_be(list, Rels),
    atom_string(SesA, Ses).

% An item with its goal and pointer as item_/10 stores them (stored_goal_/2, stored_pointer_/3).
stored_item_(item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels),
             item(H, Src, Ses, Seq, K, R, SG, T, Seg, SP, Text, Rels)) :-
    stored_goal_(G, SG),
    stored_pointer_(P, Src, SP).

%!  journal_add_encoded(+Strings:list(string), -Counts:dict) is det.
%
%   As journal_add_items/2, for items in the host's batch wire format (see
%   attention_cloud/wire.py): each string starts with a separator character that occurs in none
%   of its fields, followed by the fields, each preceded by that separator. Fields are cut out
%   with split_string/4, never parsed as Prolog.
%   @error syntax_error(bad_wire_item) on a malformed string.

journal_add_encoded(Strings, Counts) :-
    must_be(list(string), Strings),
    current_prolog_flag(stack_limit, Limit),
    Floor is Limit // 8,
    nb_setval(atc_wire_collect, collect(0, Floor, Limit)),
    foldl(add_wire_collecting_, Strings, c([], 0, 0)-[], Added-_),
    counts_(Added, Counts).

% add_wire_collecting_(+Wire, +Acc0, -Acc): add_wire_/3, and every 1,000 items a garbage
% collection when the global stack holds more than an eighth of the stack limit and twice
% what the last one left, or half the limit. SWI-Prolog's own collections left a batch's
% garbage in place: one
% file is one batch, and a 10 MB Claude Code file (18,180 items) ran past a 128 MB stack
% limit, a 100 MB one (~180,000 items) past the default 1 GB, though what the batch holds
% alive stays near 67 MB at 18,180 items (each item's fields cut from its wire string).
add_wire_collecting_(Wire, Acc0, Acc) :-
    nb_getval(atc_wire_collect, collect(N0, Floor0, Limit)),
    N is N0 + 1,
    (   N mod 1000 =:= 0,
        statistics(globalused, Used),
        Used > min(Floor0, Limit // 2)
    ->  garbage_collect,
        statistics(globalused, Left),
        Floor is max(Floor0, 2 * Left)
    ;   Floor = Floor0
    ),
    nb_setval(atc_wire_collect, collect(N, Floor, Limit)),
    add_wire_(Wire, Acc0, Acc).

% A known handle is counted without decoding the rest of its item (re-ingesting a grown file).
% Erased lists the Session-Goal of the erased user goals met so far: a file read again gives
% them before the items read under them.
add_wire_(Wire, Added0-Erased0, Added-Erased) :-
    (   wire_handle_(Wire, H),
        item_(H, _, _, _, _, _, _, _, _, _)
    ->  known_(H, Added0, Added),
        Erased = Erased0
    ;   wire_item_(Wire, Stored),
        (   refused_(Stored)
        ->  refuse_(Added0, Added),
            erased_goal_(Stored, Erased0, Erased)
        ;   unerased_goal_(Erased0, Stored, Wire, Stored1, Wire1),
            add_item_(Stored1, Wire1, Added0, Added),
            Erased = Erased0
        )
    ).

% The goal an erased user goal set (stored form): the items after it were read under it.
erased_goal_(Item, Erased0, Erased) :-
    (   arg(5, Item, user_goal), arg(7, Item, G), G \== ''
    ->  arg(3, Item, Ses),
        Erased = [Ses-G|Erased0]
    ;   Erased = Erased0
    ).

% A new item read under an erased goal takes the marker that erasure gave the items already
% held under it (journal_replace_goal/4), so the erased text never comes back as a goal; its
% wire string no longer says what it stores, so it is made again (add_new_item_/2).
unerased_goal_(Erased, Item0, Wire0, Item, Wire) :-
    Item0 = item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels),
    (   (   Erased \== [],
            memberchk(Ses-G, Erased)
        ->  true
        ;   forgotten_goal_(Ses, _),            % a subagent's, from its parent file on disk
            journal_text_digest(G, Digest),
            forgotten_goal_(Ses, Digest)
        )
    ->  erased_goal_marker(Marker),
        stored_goal_(Marker, Stored),
        Item = item(H, Src, Ses, Seq, K, R, Stored, T, Seg, P, Text, Rels)
    ;   Item = Item0,
        Wire = Wire0
    ).

wire_handle_(Wire, H) :-
    wire_start_(Wire, Start, Sep),
    sub_string(Wire, End, 1, _, Sep), End >= Start,
    !,
    Length is End - Start,
    sub_atom(Wire, Start, Length, _, H).

% Where a wire string's first field starts, and its separator (see wire_fields_/2).
wire_start_(Wire, Start, Sep) :-
    sub_string(Wire, 0, 1, _, First),
    (   First == "\u0000" -> Start = 2, sub_string(Wire, 1, 1, _, Sep) ; Start = 1, Sep = First ).

counts_(c(Handles0, Unchanged, Forgotten),
        _{new: New, unchanged: Unchanged, new_handles: Handles, forgotten: Forgotten}) :-
    reverse(Handles0, Handles),
    length(Handles, New).

% Items below are in stored form (stored_item_/2).
add_item_(Item, Wire, c(Hs0, U0, F), Added) :-
    arg(1, Item, H),
    (   item_(H, _, _, _, _, _, _, _, _, _)
    ->  known_(H, c(Hs0, U0, F), Added)
    ;   add_new_item_(Item, Wire),
        Added = c([H|Hs0], U0, F)
    ).

% A handle already in the journal is unchanged, or new again when it was superseded.
known_(H, c(Hs, U0, F), Added) :-
    (   revived_(H)
    ->  Added = c([H|Hs], U0, F)
    ;   U is U0 + 1, Added = c(Hs, U, F)
    ).

% A new item whose facts are all new too (the usual case) is logged as ONE journal record, its
% wire string, instead of a term per fact; its undo removes its facts by handle. Anything else
% (leftover text or relations under that handle, a relation about another subject, a
% non-atom field) goes fact by fact, so replay always rebuilds exactly these facts.
add_new_item_(Item, Wire) :-
    Item = item(H, _, _, _, _, _, _, _, Seg, _, _, Rels),
    (   segment_(Seg) -> true ; durable_assert(atc_journal:segment_(Seg)) ),
    (   record_item_(H, Rels)
    ->  (   var(Wire) -> item_wire_(Item, Wire) ; true ),
        durable_undo(atc_journal:unadd_item_(H)),
        assert_item_(Item, _),
        durable_record(atc_journal:item2, Wire)
    ;   add_item_facts_(Item)
    ).

record_item_(H, Rels) :-
    \+ text_(H, _),
    \+ relation_(H, _, _),
    \+ no_cwd_(H),
    own_links_(Rels, H).

own_links_([], _).
own_links_([rel(S, P, O)|Rels], H) :-
    S == H, atom(P), atom(O),
    own_links_(Rels, H).

% The facts of a new item; Facts is how many (the count replay reports).
assert_item_(item(H, Src, Ses, Seq, K, R, SG, T, Seg, SP, Text, Rels), Facts) :-
    exclude(implied_link_(H, Ses), Rels, Own),
    distinct_links_(Own, Distinct),
    cwd_links_(Distinct, H, Ses, Unique, Marks),
    assertz(item_(H, Src, Ses, Seq, K, R, SG, T, Seg, SP)),
    assertz(text_(H, Text)),
    forall(member(Mark, Marks), assertz(Mark)),
    length(Marks, N),
    Facts0 is 2 + N,
    assert_links_(Unique, Facts0, Facts).

assert_links_([], N, N).
assert_links_([rel(S, P, O)|Rels], N0, N) :-
    assertz(relation_(S, P, O)),
    N1 is N0 + 1,
    assert_links_(Rels, N1, N).

% A link named twice is stored once (sort/2 checks cheaply that none is, the usual case).
distinct_links_(Rels, Unique) :-
    sort(Rels, Sorted),
    length(Rels, N),
    (   length(Sorted, N) -> Unique = Rels ; list_to_set(Rels, Unique) ).

add_item_facts_(item(H, Src, Ses, Seq, K, R, SG, T, Seg, SP, Text, Rels)) :-
    durable_assert(atc_journal:item_(H, Src, Ses, Seq, K, R, SG, T, Seg, SP)),
    durable_assert(atc_journal:text_(H, Text)),
    (   session_cwd_(Ses, SesCwd), SesCwd \== [],
        \+ ( member(rel(S0, P0, _), Rels), S0 == H, P0 == cwd )
    ->  durable_assert(atc_journal:no_cwd_(H))      % its session's cwd is not its own
    ;   true
    ),
    forall(member(rel(S, Pr, O), Rels), journal_add_relation(S, Pr, O)).

% Undo of a recorded item: it had no facts under its handle before (and its session no value
% for its cwd, when it has no other item now).
unadd_item_(H) :-
    (   item_(H, _, Ses, _, _, _, _, _, _, _) -> true ; true ),
    retractall(item_(H, _, _, _, _, _, _, _, _, _)),
    retractall(text_(H, _)),
    retractall(relation_(H, _, _)),
    retractall(no_cwd_(H)),
    (   nonvar(Ses), \+ item_(_, _, Ses, _, _, _, _, _, _, _)
    ->  retractall(session_cwd_(Ses, _))
    ;   true
    ).

:- multifile atc_store:replay_record/3.
atc_store:replay_record(atc_journal:item2, Wire, Facts) :-
    wire_item_(Wire, Item),
    replay_item_(Item, Facts).
atc_store:replay_record(atc_journal:item, Wire, Facts) :-       % the first form of the record
    wire1_item_(Wire, Item0),
    stored_item_(Item0, Item),
    replay_item_(Item, Facts).

replay_item_(Item, Facts) :-
    arg(1, Item, H),
    (   item_(H, _, _, _, _, _, _, _, _, _)
    ->  Facts = 0
    ;   assert_item_(Item, Facts)
    ).

% The wire: a separator, then every field preceded by it. Fields: handle, source, session,
% seq, kind, role, goal, time, segment, pointer, text, then predicate and object of each of the
% item's relations. The pointer is "=Line" for Source:Line, else "|" and the pointer itself.
% The result is an item in stored form.
wire_item_(Wire, item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels)) :-
    (   wire_fields_(Wire, ["", HS, SrcS, SesS, SeqS, KS, RS, GS, T, SegS, PS, Text|RelFields]),
        number_string(Seq, SeqS),
        integer(Seq),
        sub_string(PS, 0, 1, After, Form),
        sub_string(PS, 1, After, 0, PText),
        wire_pointer_(Form, PText, P),
        atom_string(H, HS),
        atom_string(Src, SrcS),
        atom_string(Ses, SesS),
        atom_string(K, KS),
        atom_string(R, RS),
        atom_string(G, GS),
        atom_string(Seg, SegS),
        wire_links_(RelFields, H, Rels)
    ->  true
    ;   syntax_error(bad_wire_item)
    ).

% split_string/4 also splits at NUL, so an item holding one is marked by a leading NUL and cut
% by searching for the separator instead.
wire_fields_(Wire, Fields) :-
    sub_string(Wire, 0, 1, _, First),
    (   First == "\u0000"
    ->  sub_string(Wire, 1, 1, _, Sep),
        sub_string(Wire, 1, _, 0, Rest),
        split_at_(Rest, Sep, Fields)
    ;   split_string(Wire, First, "", Fields)
    ).

split_at_(Text, Sep, [Field|Fields]) :-
    (   sub_string(Text, Before, _, After, Sep)
    ->  sub_string(Text, 0, Before, _, Field),
        sub_string(Text, _, After, 0, Rest),
        split_at_(Rest, Sep, Fields)
    ;   Field = Text,
        Fields = []
    ).

wire_pointer_("=", Digits, Line) :- number_string(Line, Digits), integer(Line).
wire_pointer_("|", Pointer, Pointer).

wire_links_([], _, []).
wire_links_([P0, O0|T], H, [rel(H, P, O)|Rels]) :-
    atom_string(P, P0),
    atom_string(O, O0),
    wire_links_(T, H, Rels).

% The first wire form (kept to replay homes that hold it): pointer as it is, relations as
% subject, predicate, object. Gives an item as journal_add_items/2 takes it.
wire1_item_(Wire, item(H, Src, Ses, Seq, K, R, G, T, Seg, P, Text, Rels)) :-
    (   wire_fields_(Wire, ["", HS, SrcS, SesS, SeqS, KS, RS, G, T, SegS, P, Text|RelFields]),
        number_string(Seq, SeqS),
        integer(Seq),
        maplist(atom_string, [H, Src, Ses, K, R, Seg], [HS, SrcS, SesS, KS, RS, SegS]),
        wire1_relations_(RelFields, Rels)
    ->  true
    ;   syntax_error(bad_wire_item)
    ).

wire1_relations_([], []).
wire1_relations_([S0, P0, O0|T], [rel(S, P, O)|Rels]) :-
    atom_string(S, S0), atom_string(P, P0), atom_string(O, O0),
    wire1_relations_(T, Rels).

% The wire of a stored-form item with only its own relations (record_item_/2).
item_wire_(item(H, Src, Ses, Seq, K, R, SG, T, Seg, SP, Text, Rels), Wire) :-
    (   integer(SP) -> format(string(PS), "=~d", [SP]) ; string_concat("|", SP, PS) ),
    stored_goal_(G, SG),
    foldl(link_fields_, Rels, LinkFields, []),
    Fields = [H, Src, Ses, Seq, K, R, G, T, Seg, PS, Text|LinkFields],
    separator_(Fields, Sep),
    (   member(F, Fields), sub_atom(F, _, _, _, '\u0000') -> Mark = '\u0000' ; Mark = '' ),
    with_output_to(string(Wire),
                   ( write(Mark), forall(member(F, Fields), ( write(Sep), write(F) )) )).

link_fields_(rel(_, P, O), [P, O|T], T).

% The first of U+001F, U+001E, U+001D, U+001C, then the private-use characters from U+E000 on,
% that occurs in no field (a finite text cannot hold them all).
separator_(Fields, Sep) :-
    between(0, inf, I),
    (   I < 4 -> Code is 0x1F - I ; Code is 0xE000 + I - 4 ),
    char_code(Sep, Code),
    \+ ( member(F, Fields), sub_atom(F, _, _, _, Sep) ),
    !.

%!  journal_add_relation(+Subject, +Predicate, +Object) is det.
%   Add a link to the entity graph unless it is already there.
journal_add_relation(S, P, O) :-
    must_be(atomic, S),
    must_be(atom, P),
    must_be(atomic, O),
    (   link_(S, P, O)
    ->  true
    ;   P == in_session, item_(S, _, O, _, _, _, _, _, _, _)
    ->  true                                    % an item's own session: implied, not stored
    ;   P == cwd, implied_cwd_(S, O)
    ->  true                                    % its session's: implied, not stored
    ;   P == cwd, implied_cwd_(S, Implied)
    ->  durable_assert(atc_journal:relation_(S, cwd, Implied)),  % a second one: both stored
        durable_assert(atc_journal:relation_(S, P, O))
    ;   durable_assert(atc_journal:relation_(S, P, O))
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
        durable_assert(atc_journal:tombstone_(H, Now, Reason))
    ).

%!  journal_supersede(+Source, +Segment, +Keep:list(atom), +LastLine:integer,
%!                    -Handles:list(atom)) is det.
%
%   A file that only grew was read again whole (its first bytes are those read before), and
%   the new reading is the better one: a turn that went on below its first line, a name that
%   became a speaker once it spoke again. Tombstone (reason superseded_reason/1) the live items
%   of Source in Segment, in the sessions of Keep's items, whose source starts at or before
%   LastLine (a line the new reading covered) and that the new reading did not give again
%   (not in Keep). Handles are those tombstoned. An item without a line in its pointer (a JSON
%   document's) is never superseded. The caller commits.
journal_supersede(Src, Seg, Keep, LastLine, Handles) :-
    must_be(atom, Src), must_be(atom, Seg), must_be(list(atom), Keep), must_be(integer, LastLine),
    pairs_keys_values(Pairs, Keep, Keep),
    list_to_assoc(Pairs, Kept),
    distinct_sessions_(Keep, Sessions),
    findall(H, ( member(Ses, Sessions),
                 % by session alone, then the rest compared: a clause index on the session
                 % serves (curation's), none is built on the source or the segment
                 item_(H, Src0, Ses, _, _, _, _, _, Seg0, Stored),
                 Src0 == Src, Seg0 == Seg,
                 \+ get_assoc(H, Kept, _),
                 \+ tombstone_(H, _, _),
                 stored_first_line_(Stored, Src, First),
                 First =< LastLine ),
            Found),
    sort(Found, Handles),
    superseded_reason(Reason),
    forall(member(H, Handles), journal_tombstone(H, Reason)).

%!  journal_supersede_answered(+Source, +Segment, +Keep:list(atom), -Handles:list(atom)) is det.
%
%   A file read again, grown or written anew (a JSON document is rewritten whole each time it
%   grows), whose new reading Keep holds the result of a call that an earlier reading kept
%   without one (relation no_result): tombstone (reason superseded_reason/1) those live items
%   of Source in Segment, in the sessions of Keep's items, that Keep does not give again and
%   that an item of Keep answers (answered_call_/2: the same call, with its output). A call
%   still unanswered, or no longer in the file, is left alone. Handles are those tombstoned.
%   The caller commits.
journal_supersede_answered(Src, Seg, Keep, Handles) :-
    must_be(atom, Src), must_be(atom, Seg), must_be(list(atom), Keep),
    pairs_keys_values(Pairs, Keep, Keep),
    list_to_assoc(Pairs, Kept),
    distinct_sessions_(Keep, Sessions),
    findall(H, ( member(Ses, Sessions),
                 item_(H, Src0, Ses, _, _, _, _, _, Seg0, _),
                 Src0 == Src, Seg0 == Seg,
                 relation_(H, no_result, true),
                 \+ get_assoc(H, Kept, _),
                 \+ tombstone_(H, _, _),
                 once(( member(New, Keep), answered_call_(H, New) )) ),
            Found),
    sort(Found, Handles),
    superseded_reason(Reason),
    forall(member(H, Handles), journal_tombstone(H, Reason)).

%!  journal_supersede_sources(+Sources:list(atom), +Keep:list(atom), -Handles:list(atom)) is det.
%
%   Another export of the same conversation was read and is the one kept (a Messenger or
%   Instagram thread's JSON pages, where memory held the items of its HTML pages: the same
%   messages under other handles, the pages' times to the minute in the account's zone).
%   Tombstone (reason superseded_reason/1) the live items read from Sources in the sessions of
%   Keep's items that Keep does not give. Handles are those tombstoned. The caller commits.
journal_supersede_sources(Sources, Keep, Handles) :-
    must_be(list(atom), Sources), must_be(list(atom), Keep),
    sort(Sources, From),
    pairs_keys_values(Pairs, Keep, Keep),
    list_to_assoc(Pairs, Kept),
    distinct_sessions_(Keep, Sessions),
    findall(H, ( member(Ses, Sessions),
                 live_(H, Src, Ses, _, _, _, _, _, _, _),
                 ord_memberchk(Src, From),
                 \+ get_assoc(H, Kept, _) ),
            Found),
    sort(Found, Handles),
    superseded_reason(Reason),
    forall(member(H, Handles), journal_tombstone(H, Reason)).

%!  journal_session_sources(+Sessions:list(atom), -Pairs:list(pair)) is det.
%
%   Session-Source for each source file that live items of one of Sessions were read from,
%   each pair once, sorted.
journal_session_sources(Sessions, Pairs) :-
    must_be(list(atom), Sessions),
    findall(Ses-Src, ( member(Ses, Sessions), live_(_, Src, Ses, _, _, _, _, _, _, _) ),
            Pairs0),
    sort(Pairs0, Pairs).

%!  journal_refresh(+Strings:list(string), +Keep:list(atom), -Changed:list(atom)) is det.
%
%   A grown file's new reading may give a turn it gave before (the same handle: session, kind,
%   identity and text) with other fields: at another place (an earlier turn split in two, so
%   the turns after it moved on by one) or time (the file's order of day and month decided the
%   other way once later dates came). Of the items of Strings (the host's wire format) whose
%   handle is in Keep and that the journal held before, those with other fields (order, time,
%   goal, role, pointer) or own links take the new reading's: their item_/10 fact is replaced
%   and their links follow (a working-directory link is left as it is; the segment an item is
%   held in stays: a file read again into another segment leaves its items where they are). Changed are those
%   handles, in the order of Strings. The caller commits.
journal_refresh(Strings, Keep, Changed) :-
    must_be(list(string), Strings),
    must_be(list(atom), Keep),
    (   Keep == []
    ->  Changed = []
    ;   pairs_keys_values(Pairs, Keep, Keep),
        list_to_assoc(Pairs, Kept),
        foldl(refresh_wire_(Kept), Strings, [], Changed0),
        reverse(Changed0, Changed)
    ).

refresh_wire_(Kept, Wire, Changed0, Changed) :-
    (   wire_handle_(Wire, H),
        get_assoc(H, Kept, _),
        item_(H, Src0, Ses0, Seq0, K0, R0, SG0, T0, Seg0, SP0),
        \+ read_as_stored_(Wire, H, Seq0, R0, SG0, T0, SP0),
        wire_item_(Wire, Read),
        stored_item_(Read, item(H, Src, Ses, Seq, K, R, SG1, T, _, SP, _, Rels)),
        kept_goal_(SG0, SG1, SG),
        Old = item_(H, Src0, Ses0, Seq0, K0, R0, SG0, T0, Seg0, SP0),
        New = item_(H, Src, Ses, Seq, K, R, SG, T, Seg0, SP),  % its segment stays
        own_links_of_(H, Old0),
        findall(rel(H, P, O), ( member(rel(S, P, O), Rels), S == H,
                                P \== in_session, P \== cwd ), New0),
        sort(Old0, OldLinks),
        sort(New0, NewLinks),
        ( Old \== New ; OldLinks \== NewLinks )
    ->  (   Old == New
        ->  true
        ;   durable_retract(atc_journal:Old),
            durable_assert(atc_journal:New)
        ),
        forall(( member(rel(H, P, O), OldLinks), \+ memberchk(rel(H, P, O), NewLinks) ),
               durable_retract(atc_journal:relation_(H, P, O))),
        forall(member(rel(H, P, O), NewLinks), journal_add_relation(H, P, O)),
        Changed = [H|Changed0]
    ;   Changed = Changed0
    ).

%!  journal_follow_moved(+Strings:list(string), -Moved:list(atom)) is det.
%
%   A transcript read at a path memory has not read it at may give items the journal holds
%   from another file: the same transcript, its folder moved or renamed. Of the items of
%   Strings (the host's wire format) that the journal held before from a source file that no
%   longer exists, each takes the new reading's source and pointer, so that its pointer (and
%   every receipt written after) resolves where the file is now; its other fields stay (the
%   handle, made from session, kind, identity and text, says it is the same record). An item
%   whose file is still there (a copy read beside it) keeps pointing at that file. The places
%   erased items were read from in the gone file (forgotten_place_/4) move with them, so the
%   moved file still refuses the parts of a forgotten turn (journal_refuses/2). Moved are
%   those handles, in the order of Strings. The caller commits.
journal_follow_moved(Strings, Moved) :-
    must_be(list(string), Strings),
    foldl(follow_moved_, Strings, []-[], Moved0-Gone),
    reverse(Moved0, Moved),
    forall(member(Src0-moved(Src), Gone), move_forgotten_places_(Src0, Src)).

% Gone lists what was found of each source met so far, Src0-kept (still there) or
% Src0-moved(Src) (gone, read at Src now): a file's items share one source, one stat.
follow_moved_(Wire, Moved0-Gone0, Moved-Gone) :-
    (   wire_handle_(Wire, H),
        item_(H, Src0, Ses, Seq, K, R, SG, T, Seg, SP0),
        wire_source_(Wire, SrcS),
        \+ atom_string(Src0, SrcS)              % read at another path, the usual re-read not
    ->  atom_string(SrcA, SrcS),
        source_gone_(Src0, SrcA, Gone0, Gone, IsGone),
        (   IsGone == true
        ->  wire_item_(Wire, Read),
            stored_item_(Read, item(H, Src, _, _, _, _, _, _, _, SP, _, _)),
            durable_retract(atc_journal:item_(H, Src0, Ses, Seq, K, R, SG, T, Seg, SP0)),
            durable_assert(atc_journal:item_(H, Src, Ses, Seq, K, R, SG, T, Seg, SP)),
            Moved = [H|Moved0]
        ;   Moved = Moved0
        )
    ;   Moved = Moved0,
        Gone = Gone0
    ).

source_gone_(Src0, Src, Gone0, Gone, IsGone) :-
    (   memberchk(Src0-Found, Gone0)
    ->  Gone = Gone0
    ;   (   exists_file(Src0) -> Found = kept ; Found = moved(Src) ),
        Gone = [Src0-Found|Gone0]
    ),
    (   Found == kept -> IsGone = false ; IsGone = true ).

move_forgotten_places_(Src0, Src) :-
    forall(forgotten_place_(H, Src0, First, Last),
           (   durable_retract(atc_journal:forgotten_place_(H, Src0, First, Last)),
               durable_assert(atc_journal:forgotten_place_(H, Src, First, Last)) )).

% The source field of a wire string (its second), cut out without decoding the rest.
wire_source_(Wire, Src) :-
    wire_start_(Wire, Start, Sep),
    sub_string(Wire, End1, 1, _, Sep), End1 >= Start,
    !,
    From is End1 + 1,
    sub_string(Wire, End2, 1, _, Sep), End2 >= From,
    !,
    Length is End2 - From,
    sub_string(Wire, From, Length, _, Src).

%!  journal_adopt_launch_goals(+Handles:list(atom), -Changed:list(atom)) is det.
%
%   A Claude Code subagent's file is written while it runs, before the call that launched it
%   has its result, and only that result says which agent it launched: items of the subagent
%   read before it (a live capture) were stored with goal "" (subagents.py). Of Handles, each
%   item linked launched_agent to an agent and holding a goal gives that goal to the live
%   items of its session linked agent to that agent whose goal is "", as one ingest of the
%   final files gives it them (the first launch of an agent wins). Changed are those items,
%   sorted. The caller commits.
journal_adopt_launch_goals(Handles, Changed) :-
    must_be(list(atom), Handles),
    findall(X-G, ( member(H, Handles),
                   relation_(H, launched_agent, Agent),
                   item_(H, _, Ses, _, _, _, G, _, _, _),
                   \+ stored_goal_("", G),
                   relation_(X, agent, Agent),
                   item_(X, _, Ses, _, _, _, G0, _, _, _),
                   stored_goal_("", G0),
                   \+ tombstone_(X, _, _) ),
            Pairs0),
    adopt_goals_(Pairs0, Changed).

%!  journal_adopt_launches(+Launches:list, -Changed:list(atom)) is det.
%
%   As journal_adopt_launch_goals/2, for the launches a parent transcript read in this batch
%   names without a result to carry them: launch(Session, Agent, Goal) each, from the
%   `progress` records of a Task/Agent call whose result was never written (its session
%   killed while the subagent ran). A Goal whose text an erasure replaced in Session
%   (forgotten_goal_/2) is given as the marker it was replaced by. Changed are the items
%   given a goal, sorted. The caller commits.
journal_adopt_launches(Launches, Changed) :-
    must_be(list, Launches),
    findall(X-G, ( member(launch(Ses, Agent, Goal), Launches),
                   Goal \== "",
                   relation_(X, agent, Agent),
                   item_(X, _, Ses, _, _, _, G0, _, _, _),
                   stored_goal_("", G0),
                   \+ tombstone_(X, _, _),
                   launch_goal_(Ses, Goal, G) ),
            Pairs0),
    adopt_goals_(Pairs0, Changed).

launch_goal_(Ses, Goal, Stored) :-
    (   forgotten_goal_(Ses, _),
        journal_text_digest(Goal, Digest),
        forgotten_goal_(Ses, Digest)
    ->  erased_goal_marker(Marker),
        stored_goal_(Marker, Stored)
    ;   stored_goal_(Goal, Stored)
    ).

% Each item X of X-Goal pairs takes its first Goal; Changed are those items, sorted.
adopt_goals_(Pairs, Changed) :-
    list_to_assoc_first_(Pairs, Goals),
    assoc_to_keys(Goals, Changed),
    forall(( gen_assoc(X, Goals, G),
             item_(X, Src, S, Seq, K, R, _, T, Seg, P) ),
           ( durable_retract(atc_journal:item_(X, _, _, _, _, _, _, _, _, _)),
             durable_assert(atc_journal:item_(X, Src, S, Seq, K, R, G, T, Seg, P)) )).

list_to_assoc_first_(Pairs, Assoc) :-
    empty_assoc(A0),
    foldl(put_first_, Pairs, A0, Assoc).

put_first_(K-V, A0, A) :-
    (   get_assoc(K, A0, _) -> A = A0 ; put_assoc(K, A0, V, A) ).

% A goal an erasure replaced (its text was the erased item's) stays replaced: the new reading
% gives the erased text again.
kept_goal_(Stored, Read, Goal) :-
    (   erased_goal_marker(Marker), stored_goal_(Marker, Stored) -> Goal = Stored ; Goal = Read ).

%!  erased_goal_marker(-Marker:string) is det.
%   The goal of the items whose goal was an erased item's text (journal_replace_goal/4).
erased_goal_marker("[forgotten]").

% The usual case, told without decoding the item: a reading that gives the stored item's
% fields and own links (as strings; source, session, kind and segment are the handle's or
% the file's own).
read_as_stored_(Wire, H, Seq, R, SG, T, SP) :-
    wire_fields_(Wire, [_, _, _, _, SeqS, _, RS, GS, T1, _, PS, _|LinkFields]),
    T1 == T,
    number_string(Seq1, SeqS), Seq1 == Seq,
    atom_string(R, RS),
    stored_goal_(G, SG), G == GS,
    (   integer(SP) -> string_concat("=", Digits, PS), number_string(SP, Digits)
    ;   string_concat("|", SP, PS)
    ),
    wire_link_pairs_(LinkFields, Read0),
    sort(Read0, Read),
    findall(P-O, ( relation_(H, P0, O0), P0 \== cwd, atom_string(P0, P), atom_string(O0, O) ),
            Stored0),
    sort(Stored0, Stored),
    Read == Stored.

% The link fields of a wire item as Predicate-Object strings, but those its session implies.
wire_link_pairs_([], []).
wire_link_pairs_([P, O|T], Pairs) :-
    (   memberchk(P, ["in_session", "cwd"]) -> Pairs = Rest ; Pairs = [P-O|Rest] ),
    wire_link_pairs_(T, Rest).

% An item's stored links of its own, but those its session implies or a working directory.
own_links_of_(H, Links) :-
    findall(rel(H, P, O), ( relation_(H, P, O), P \== cwd ), Links).

distinct_sessions_(Handles, Sessions) :-
    findall(S, ( member(H, Handles), item_(H, _, S, _, _, _, _, _, _, _) ), Ss),
    sort(Ss, Sessions).

% The first line a stored pointer names: `Src:Line`, `path:First-Last`, `path:Line#/json`.
stored_first_line_(Stored, Src, First) :-
    stored_line_range_(Stored, Src, First, _).

%!  journal_successors(+Superseded:list(atom), +Keep:list(atom), -Pairs:list) is det.
%
%   Old-New for each item Old of Superseded (journal_supersede/5) and each item New of Keep,
%   the reading that superseded it, of the same source, session and segment that holds its
%   text now: one whose lines overlap Old's (the whole turn it began, or the two turns it was
%   split into), or, for a call read before its result (relation no_result), the call with
%   its result (the same text up to the output).
journal_successors(Superseded, Keep, Pairs) :-
    must_be(list(atom), Superseded),
    must_be(list(atom), Keep),
    findall(Old-New,
            ( member(Old, Superseded),
              item_(Old, Src, Ses, _, _, _, _, _, Seg, SP0),
              member(New, Keep), New \== Old,
              item_(New, Src1, Ses1, _, _, _, _, _, Seg1, SP1),
              Src1 == Src, Ses1 == Ses, Seg1 == Seg,
              (   stored_line_range_(SP0, Src, F0, L0),
                  stored_line_range_(SP1, Src, F1, L1),
                  F1 =< L0, F0 =< L1
              ->  true
              ;   answered_call_(Old, New)
              ) ),
            Pairs0),
    sort(Pairs0, Pairs).

%!  journal_superseded_readings(+Handles:list(atom), -Readings:list(atom)) is det.
%
%   The items a later reading of their file superseded whose text an item of Handles holds
%   now (journal_successors/3): the shorter readings of a turn, a call read before its
%   result. Tombstoned, they are out of every query, yet hold that text: erasing Handles
%   must erase them too. Sorted, none of Handles.
journal_superseded_readings(Handles, Readings) :-
    must_be(list(atom), Handles),
    superseded_reason(Reason),
    distinct_sessions_(Handles, Sessions),
    findall(Old, ( member(Ses, Sessions),
                   item_(Old, _, Ses, _, _, _, _, _, _, _),
                   tombstone_(Old, _, Reason),
                   \+ memberchk(Old, Handles) ),
            Candidates),
    journal_successors(Candidates, Handles, Pairs),
    pairs_keys(Pairs, Readings0),
    sort(Readings0, Readings).

% Old is a call kept without its result ("<call>\n(no result in the transcript)") and New
% the same call with one.
answered_call_(Old, New) :-
    relation_(Old, no_result, true),
    text_(Old, OldText),
    sub_string(OldText, Before, _, 0, "\n(no result in the transcript)"),
    Before > 0,
    sub_string(OldText, 0, Before, _, Call),
    text_(New, NewText),
    string_concat(Call, Rest, NewText),
    sub_string(Rest, 0, 1, _, "\n").

% The first and last line a stored pointer names (`Src:Line`, `path:First-Last`,
% `path:Line#/json`); fails for a pointer without lines.
stored_line_range_(Stored, Src, First, Last) :-
    (   integer(Stored)
    ->  First = Stored, Last = Stored
    ;   stored_pointer_(Pointer, Src, Stored),
        pointer_place_(Pointer, Src, Place),
        split_string(Place, "#", "", [Path|_]),
        split_string(Path, ":", "", Parts),
        last(Parts, Range),
        split_string(Range, "-", "", [FirstDigits|LastDigits]),
        line_number_(FirstDigits, First),
        (   LastDigits = [Digits], line_number_(Digits, Last0)
        ->  Last = Last0
        ;   Last = First
        )
    ).

% What follows the file in a pointer, `:2-3` or `:4#/content/0`: read after Src when the
% pointer starts with it, as the host writes them, since a path may hold `#` and `:` itself
% (a folder named `C#`); else the whole pointer.
pointer_place_(Pointer, Src, Place) :-
    (   atom_string(Src, Path),
        string_concat(Path, Place0, Pointer)
    ->  Place = Place0
    ;   Place = Pointer
    ).

%!  superseded_reason(?Reason:string) is det.
%   The tombstone reason of an item a later reading of its grown file superseded
%   (journal_supersede/5); such an item is live again if a reading gives it again.
superseded_reason("superseded: a later reading of its grown file no longer gives it").

% A superseded item that a reading gives again is live again (its tombstone lifted).
revived_(H) :-
    superseded_reason(Reason),
    tombstone_(H, _, Reason),
    durable_retract(atc_journal:tombstone_(H, _, _)).

%!  journal_erasable(+Handle, -Item:dict) is semidet.
%
%   What erasing Handle must find and remove elsewhere: `handle`, `kind`, `session`, `goal`
%   (text), `source` (pointer), `text` ("" once retention dropped it) and `forgotten` (true when
%   it is erased already; then only `handle` and `source` are known). Tombstoned items are
%   included. Fails for a handle the journal never held.
journal_erasable(H, _{handle: H, kind: K, session: S, goal: G, source: P, text: X,
                      forgotten: false}) :-
    item_(H, Src, S, _, K, _, SG, _, _, SP),
    !,
    stored_goal_(G, SG),
    stored_pointer_(P, Src, SP),
    (   text_(H, X) -> true ; X = "" ).
journal_erasable(H, _{handle: H, kind: none, session: none, goal: "", source: "", text: "",
                      forgotten: true}) :-
    forgotten_(H, _, _, _, _).

%!  journal_text_digest(+Text, -Digest:string) is det.
%   Digest is `sha256:` and the hex SHA-256 of Text's UTF-8 bytes (the audit record's digest).
journal_text_digest(Text, Digest) :-
    sha_hash(Text, Hash, [algorithm(sha256), encoding(utf8)]),
    hash_atom(Hash, Hex),
    atom_string(Hex, HexS),
    string_concat("sha256:", HexS, Digest).

%!  journal_erase(+Handle, +Who:string, +Reason:string, -Record) is det.
%
%   Erase item Handle: retract its fields, text, links (both ways) and tombstone, and keep the
%   audit record forgotten(Handle, Digest, Time, Who, Reason), which Record is. Facts are
%   retracted by handle, so the journal's record of the change holds no text. Erasing an
%   erased handle changes nothing and gives its record.
%   @error existence_error(item, Handle) for a handle the journal never held.
journal_erase(H, Who, Reason, Record) :-
    journal_erase(H, Who, Reason, "", Record).

%!  journal_erase(+Handle, +Who:string, +Reason:string, +Dropped:string, -Record) is det.
%
%   As journal_erase/4; Dropped is the item's text read again from its transcript when its L0
%   is no longer held (retention dropped it; "" when unknown), so that its digests are kept
%   all the same. Dropped is used for the digests only: it is never stored.
journal_erase(H, Who, Reason, Dropped, forgotten(H, Digest, Time, Who1, Reason1)) :-
    must_be(atom, H),
    must_be(string, Who),
    must_be(string, Reason),
    must_be(string, Dropped),
    (   forgotten_(H, Digest, Time, Who1, Reason1)
    ->  true
    ;   item_(H, _, Ses, _, _, _, _, _, _, _)
    ->  (   text_(H, Text), Text \== "" -> true ; Text = Dropped ),
        (   Text \== "" -> journal_text_digest(Text, Digest) ; Digest = "" ),
        get_time(Time),
        Who1 = Who, Reason1 = Reason,
        erase_leaves_lines_(H, Text),
        durable_retract(atc_journal:item_(H, _, _, _, _, _, _, _, _, _)),
        durable_retract(atc_journal:text_(H, _)),
        durable_retract(atc_journal:relation_(H, _, _)),
        durable_retract(atc_journal:relation_(_, _, H)),
        durable_retract(atc_journal:no_cwd_(H)),
        durable_retract(atc_journal:tombstone_(H, _, _)),
        (   item_(_, _, Ses, _, _, _, _, _, _, _)
        ->  true
        ;   durable_retract(atc_journal:session_cwd_(Ses, _))  % its last item: its directory
        ),
        durable_assert(atc_journal:forgotten_(H, Digest, Time, Who, Reason))
    ;   existence_error(item, H)
    ).

% What an erased item leaves so that no reading brings a part of it back: its lines' keys
% (digests) and the lines of its source it was read from (a pointer, not text).
erase_leaves_lines_(H, Text) :-
    erased_line_keys_(Text, Keys),
    forall(( member(Key, Keys), \+ forgotten_line_(Key) ),
           durable_assert(atc_journal:forgotten_line_(Key))),
    (   item_(H, Src, _, _, _, _, _, _, _, P),
        pointer_lines_(P, Src, First, Last),
        \+ forgotten_place_(H, Src, First, Last)
    ->  durable_assert(atc_journal:forgotten_place_(H, Src, First, Last))
    ;   true
    ).

%!  journal_replace_goal(+Session, +Goal:string, +Marker:string, -Handles:list) is det.
%
%   Every item of Session produced under Goal (the text of an erased user goal) gets Marker
%   as its goal instead; Handles are those items. Facts are retracted by handle, so the
%   journal's record of the change does not repeat Goal. Goal's digest is kept
%   (forgotten_goal_/2), so an item of Session read under it later takes Marker too: a
%   subagent's items whose launching goal comes from its parent file on disk.
journal_replace_goal(Session, Goal, Marker, Handles) :-
    must_be(atom, Session),
    must_be(string, Goal),
    must_be(string, Marker),
    atom_string(Stored, Goal),
    atom_string(New, Marker),
    journal_text_digest(Goal, Digest),
    (   forgotten_goal_(Session, Digest)
    ->  true
    ;   durable_assert(atc_journal:forgotten_goal_(Session, Digest))
    ),
    findall(H, ( item_(H, _, Session, _, _, _, G, _, _, _),
                 ( G == Stored ; G == Goal ) ),
            Handles0),
    sort(Handles0, Handles),
    forall(member(H, Handles),
           (   item_(H, Src, S, Seq, K, R, _, T, Seg, P)
           ->  durable_retract(atc_journal:item_(H, _, _, _, _, _, _, _, _, _)),
               durable_assert(atc_journal:item_(H, Src, S, Seq, K, R, New, T, Seg, P))
           ;   true
           )).

%!  journal_expire_text(+Before:string, -Count:integer) is det.
%
%   Retention for L0: drop the verbatim text of every item produced before Before (an ISO 8601
%   time) that has been curated (so its L1..L3 rungs remain to render it). The item, its
%   pointer to the verbatim source and its relations stay. Items without a time never expire.
journal_expire_text(Before, Count) :-
    must_be(string, Before),
    findall(H, ( item_(H, _, _, _, _, _, _, T, _, _), T \== "", T @< Before,
                 text_(H, _), atc_ladder:curated(H, _) ),
            Hs),
    forall(member(H, Hs),
           ( text_(H, Text),
             atc_ladder:ladder_unshare_l0(H, Text),   % rungs that share it keep a copy
             durable_retract(atc_journal:text_(H, _)) )),
    length(Hs, Count).

%!  journal_watermark(?Source, ?Size, ?Digest) is nondet.
%   How much of Source has been ingested: its size and a digest of that prefix.
journal_watermark(Source, Size, Digest) :-
    watermark_(Source, Size, Digest).

%!  journal_set_watermark(+Source, +Size, +Digest) is det.
journal_set_watermark(Source, Size, Digest) :-
    must_be(atom, Source),
    must_be(nonneg, Size),
    durable_retract(atc_journal:watermark_(Source, _, _)),
    durable_assert(atc_journal:watermark_(Source, Size, Digest)).

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
%   Counts of items, live items, tombstones, relations, sessions and items per kind. The
%   relations are the stored links of what is not tombstoned: a grown file read again counts
%   those of the reading that won, as one ingest of the whole file does.
journal_stats(_{items: Items, live: Live, tombstoned: Tomb, relations: Rels,
                sessions: Sessions, kinds: Kinds, segments: Segs}) :-
    aggregate_all(count, item_(_, _, _, _, _, _, _, _, _, _), Items),
    aggregate_all(count, tombstone_(_, _, _), Tomb),
    Live is Items - Tomb,
    (   Tomb =:= 0
    ->  aggregate_all(count, relation_(_, _, _), Rels)
    ;   aggregate_all(count, ( relation_(Subject, _, _), \+ tombstone_(Subject, _, _) ), Rels)
    ),
    aggregate_all(count, distinct(S, item_(_, _, S, _, _, _, _, _, _, _)), Sessions),
    findall(K-N, aggregate(count, H^live_kind_(H, K), N), Kinds),
    findall(G-N, aggregate(count, H^live_seg_(H, G), N), Segs).

%!  journal_speakers(-Names:list(atom)) is det.
%
%   The distinct names memory knows as speakers (relation(_, speaker, Name)), sorted. Computed
%   once per change of the relations (one pass over the speaker links), so a goal can be read
%   for the names of people in memory without a scan per hydration; after items were only
%   added, with their links, the new items' speakers are added to the names instead.
journal_speakers(Names) :-
    (   predicate_property(atc_journal:relation_(_, _, _), last_modified_generation(G))
    ->  true
    ;   G = 0
    ),
    (   nb_current(journal_speakers_cache, s(G, Names0, _, _))
    ->  Names = Names0
    ;   nb_current(journal_speakers_cache, s(_, Names0, RMark0, IMark0)),
        store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), IMark0, IMark, since(Items)),
        store_grown(atc_journal:relation_(_, _, _), RMark0, RMark, Added),
        new_items_speakers_(Items, Added, New)      % every new link is a new item's
    ->  ord_union(Names0, New, Names),
        nb_setval(journal_speakers_cache, s(G, Names, RMark, IMark))
    ;   findall(N, ( relation_(_, P, N), P == speaker ), Ns),   % (journal_links/3)
        sort(Ns, Names),
        store_mark(atc_journal:relation_(_, _, _), RMark),
        store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), none, IMark, _),
        nb_setval(journal_speakers_cache, s(G, Names, RMark, IMark))
    ).

% new_items_speakers_(+Items, +Added, -Names): the speakers of Items (item_ clauses just
% added), when the Added relation clauses are exactly theirs; fails otherwise (a link added to
% an older record: the names are read again).
new_items_speakers_(Items, Added, Names) :-
    findall(H, ( member(Item, Items), arg(1, Item, H) ), Hs),
    aggregate_all(count, ( member(H, Hs), relation_(H, _, _) ), Added),
    findall(N, ( member(H, Hs), relation_(H, P, N), P == speaker ), Ns),
    sort(Ns, Names).

%!  journal_item_speakers(+Handles:list, -Pairs:list) is det.
%   Handle-Name (Name a string) for each of Handles whose transcript names its speaker.
journal_item_speakers(Handles, Pairs) :-
    must_be(list, Handles),
    findall(H-Name, ( member(H, Handles), link_(H, speaker, A), atom_string(A, Name) ),
            Pairs).

%!  journal_user_speakers(+Names:list, -Users:list(string)) is det.
%
%   Those of Names (strings or atoms) that some live item of the user's role names as its
%   speaker: the people who took the user's role in memory. A transcript whose people take
%   their roles by who speaks first (plain text with named speaker lines) gives it to one of
%   them who speaks there, so a person is not the user of one session and the assistant of the
%   next (Memory.ingest). One lookup of a name's speaker links, up to its first user item.
journal_user_speakers(Names, Users) :-
    must_be(list, Names),
    findall(Name,
            ( member(N, Names),
              atom_string(Who, N),
              once(( link_(H, speaker, Who), live_(H, _, _, _, _, user, _, _, _, _) )),
              atom_string(Who, Name) ),
            Users).

live_kind_(H, K) :- item_kind(H, K).
live_seg_(H, G) :- item_segment(H, G).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
