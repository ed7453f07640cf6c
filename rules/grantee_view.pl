:- module(atc_grantee_view,
          [ item/1, item_kind/2, item_role/2, item_speaker/2, item_goal/2, item_session/2,
            item_time/2, item_seq/2, item_segment/2, item_source/2, item_source_name/2,
            item_text/2,
            relation/3,
            cell/1, cell_of/2, cell_member/2, cell_adjacent/3, cell_info/3, cell_neighbours/2,
            cell_path/3, cell_region/3, cell_hot/2,
            rung/3, rung_tokens/3, distilled/3, provenance/2, arc/1, arc_member/2, arc_goal/2,
            arc_session/2, item_arc/2, rollup/2, echo_of/3, curated/2,
            nearest/3, nearest/4, lexical/4, similarity/3, similarity/4,
            hydrate/3, goal_speaker/2, goal_time_window/4, goal_time_pieces/4, memory_now/1,
            items_between/3, items_between/4,

            grantee_view_reader/1,      % -Principal
            grantee_view_run/2,         % +Principal, :Goal
            grantee_view_reads/1,       % -Records
            grantee_view_module/1       % ?Module
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(journal, []).
:- use_module(ladder, []).
:- use_module(jump, []).
:- use_module(when, []).
:- use_module(hydrate, []).
:- use_module(memory, []).
:- use_module(grants).
:- use_module(cells, []).
:- use_module(store, [store_appended/4]).
:- use_module(path_disclosure, [shown_text/4, shown_tokens/5, shown_path/3, shown_value/2,
                                            shown_field/4]).

/** <module> The query vocabulary as a grantee sees it

Every predicate of the public vocabulary (atc_memory), each one filtered through visible/3 for
the principal reading (grantee_view_run/2 sets it for the call): a record the reader may not
see does not exist here, and a rung above the reader's ceiling for a record is not there
either. A grantee's goals and rules run in a user module that imports this module's vocabulary
instead of atc_memory's (memory_user_module/2), so no goal or rule can name a raw fact: the
names it can call are these.

What each field needs, for a record the reader sees at ceiling Max:

  - metadata (kind, role, speaker, session, seq, time, segment, arcs, rollups, relations to
    visible records or entities): any ceiling (L3 is presence); seq numbers the items of a
    session the reader sees among themselves, and a chat's message ids are not shown (a
    reply names the handle it answers): the owner's numbering would place hidden items;
  - where a record was read (item_source/2, item_source_name/2, an item's `cwd`): Max L1 or
    more detailed, and then the file's or directory's name alone, no directory of the
    owner's (visible_source/4);
  - rung(Id, L, Text) and rung_tokens/3: L no more detailed than Max; a rung at L2 or L3,
    and distilled/3's values, name no directory of the owner's, and a relation's object
    that is a path is shown as Max allows (path_disclosure.pl);
  - distilled/3 (the structured L2): Max L2 or more detailed;
  - item_text/2, item_goal/2 and arc_goal/2 (verbatim text): Max L0.

Outside grantee_view_run/2 no reader is set and every predicate here fails: the view fails
closed.
*/

:- meta_predicate grantee_view_run(+, 0).

%!  grantee_view_run(+Principal, :Goal) is semidet.
%   Run Goal (once) with Principal as the reader the vocabulary here filters for, as one read
%   of the policy (grants_read_once/1).
grantee_view_run(P, Goal) :-
    must_be(atom, P),
    % hydrate/3 reads these as no reader (the owner): a principal so named, from an older atc,
    % reads nothing rather than everything
    (   memberchk(P, [none, null]) -> permission_error(read_as, principal, P) ; true ),
    retractall(read_(_)),
    retractall(seq_rank_(_, _, _)),
    retractall(seq_ranked_(_)),
    retractall(goal_start_(_, _, _)),
    retractall(shown_arc_memo_(_, _)),
    b_setval(atc_grantee_reader, P),
    grants_read_once(Goal).             % each record's visibility worked out once a call

:- dynamic read_/1.                     % read_(Record): the running call read its text

%!  grantee_view_reads(-Records:list) is det.
%   The records whose text (a rung, verbatim text, a distillation, a cell's aggregates) the
%   last grantee_view_run/2 read, sorted: the audit log names them, whether or not an answer
%   does (`rung(_, l2, T)` answers no handle; a count over every text answers a number).
grantee_view_reads(Records) :-
    findall(R, read_(R), Records0),
    sort(Records0, Records).

% read_noted_(+Id): Id's text is read (noted once; a goal may read it over and over).
read_noted_(Id) :-
    (   read_(Id) -> true ; assertz(read_(Id)) ).

%!  grantee_view_reader(-Principal) is semidet.
%   The principal the running call reads for; fails when none is set.
grantee_view_reader(P) :-
    catch(b_getval(atc_grantee_reader, P), _, fail),
    atom(P),
    P \== [].

%!  grantee_view_module(?Module) is nondet.
%   Module is a user module whose vocabulary is this view (made by memory_user_module/2).
grantee_view_module(M) :-
    atc_memory:memory_is_user_module(M),
    predicate_property(M:item(_), imported_from(atc_grantee_view)).

% seen_(+Id, -Max): the reader sees Id at Max.
seen_(Id, Max) :-
    grantee_view_reader(P),
    visible(P, Id, Max), !.

seen_at_(Id, Level) :-
    seen_(Id, Max),
    rank_(Max, MR), rank_(Level, LR),
    LR >= MR.

rank_(l0, 0).
rank_(l1, 1).
rank_(l2, 2).
rank_(l3, 3).

% A relation's object: a record must be seen too; an entity (text) is part of the skeleton.
object_seen_(O) :-
    (   atom(O), ( atc_journal:item(O) ; atc_ladder:arc(O) ; atc_ladder:rollup(O, _) )
    ->  seen_(O, _)
    ;   true
    ).

% kept_(?Id, +Keys): with Id and every one of Keys (the other arguments a lookup could be
% indexed on) unbound, and a set of what the reader sees kept (reader_records/2), Id is drawn
% from it in turn: enumerating records costs what the reader sees, not what the home holds
% (`item(H)` as a reader of one session of a 100k-item home walked every item). Where none is
% kept and their grants name segments, Id is drawn from the records of those segments
% (scope_record/2): `item(H)` as a reader of a 716-item segment beside 20,000 hidden items
% walked them all (~270 ms against the owner's ~25). Otherwise true, and the caller's own
% lookup enumerates (by its index), seen_/2 checking each.
kept_(Id, Keys) :-
    (   var(Id), maplist(var, Keys), grantee_view_reader(P)
    ->  (   reader_records(P, Records)
        ->  member(Id, Records)
        ;   grant_segments(P, Segments), Segments \== any
        ->  scope_record(P, Id)
        ;   true
        )
    ;   true
    ).

		 /*******************************
		 *          VOCABULARY          *
		 *******************************/

%!  item(?H) is nondet.
item(H0) :-
    atom_arg_(H0, H), grantee_view_reader(_), kept_(H, []), atc_journal:item(H), seen_(H, _).
%!  item_kind(?H, ?Kind) is nondet.
item_kind(H0, K) :-
    atom_arg_(H0, H), atom_arg_(K, K1), kept_(H, [K1]), atc_journal:item_kind(H, K1), seen_(H, _).
%!  item_role(?H, ?Role) is nondet.
item_role(H0, R) :-
    atom_arg_(H0, H), atom_arg_(R, R1), kept_(H, [R1]), atc_journal:item_role(H, R1), seen_(H, _).
%!  item_speaker(?H, ?Name) is nondet.
item_speaker(H0, N) :-
    atom_arg_(H0, H), kept_(H, [N]), atc_journal:item_speaker(H, N), seen_(H, _).
%!  item_goal(?H, ?Goal) is nondet.
%   Verbatim text: only for a reader who sees at L0 both H and the turn that set its goal
%   (goal_shown_/2).
item_goal(H0, G0) :-
    atom_arg_(H0, H), string_arg_(G0, G), kept_(H, [G]), atc_journal:item_goal(H, G),
    seen_at_(H, l0),
    goal_shown_(H, G),
    read_noted_(H).

% goal_shown_(+H, +G): the reader sees at L0 the item that set G, H's goal: the first of the
% run of items of H's session carrying G up to H. A goal is the words of a user's turn, and
% the replies after it carry them: a label hiding the turn must hide them there too.
goal_shown_(_, "") :- !.
goal_shown_(H, G) :-
    atc_journal:item_session(H, S),
    atc_journal:item_seq(H, Q),
    goal_run_start_(S, Q, G, Start),
    seen_at_(Start, l0).

:- thread_local goal_start_/3.          % Session, Seq, the first item of its goal's run

% goal_run_start_(+S, +Q, +G, -Start): walked back from Q while the item before carries G,
% each step's answer kept for the call (a session's items read once, not once an item).
goal_run_start_(S, Q, G, Start) :-
    (   goal_start_(S, Q, Start0)
    ->  Start = Start0
    ;   Q1 is Q - 1,
        (   atc_journal:session_item(S, Q1, P), atc_journal:item_goal(P, G)
        ->  goal_run_start_(S, Q1, G, Start)
        ;   once(atc_journal:session_item(S, Q, Start))
        ),
        assertz(goal_start_(S, Q, Start))
    ).
%!  item_session(?H, ?S) is nondet.
item_session(H0, S) :-
    atom_arg_(H0, H), atom_arg_(S, S1), kept_(H, [S1]), atc_journal:item_session(H, S1),
    seen_(H, _).
%!  item_time(?H, ?T) is nondet.
item_time(H0, T) :-
    atom_arg_(H0, H), string_arg_(T, T1), kept_(H, [T1]), atc_journal:item_time(H, T1),
    seen_(H, _).
%!  item_seq(?H, ?N) is nondet.
%   N is H's place (0-based) among the items of its session the reader sees, in the owner's
%   order: the owner's numbering (0, 1, 3) would tell them where hidden items sit and how many.
item_seq(H0, N) :-
    atom_arg_(H0, H), kept_(H, []), atc_journal:item_session(H, S), seen_(H, _),
    seen_seq_(S, H, N).

:- thread_local
    seq_rank_/3,                        % Session, Handle, the reader's place for it
    seq_ranked_/1.                      % Session: its places are worked out for this call

% seen_seq_(+Session, +H, -N): H's place among the items of Session the reader sees, worked
% out once a call: for every session at once from their kept set where one is kept (the cost
% follows what they see), else for Session from its items.
seen_seq_(S, H, N) :-
    (   seq_ranked_(S)
    ->  true
    ;   grantee_view_reader(P), reader_records(P, Records)
    ->  findall(S1-(Q-I), ( member(I, Records), atc_journal:item_session(I, S1),
                            atc_journal:item_seq(I, Q), seen_(I, _) ),
                Keyed),
        msort(Keyed, Sorted),
        group_pairs_by_key(Sorted, Groups),
        forall(member(S1-Pairs, Groups), rank_session_(S1, Pairs)),
        (   seq_ranked_(S) -> true ; assertz(seq_ranked_(S)) )
    ;   findall(Q-I, ( atc_journal:item_session(I, S), atc_journal:item_seq(I, Q),
                       seen_(I, _) ),
                Pairs0),
        msort(Pairs0, Pairs),
        rank_session_(S, Pairs)
    ),
    seq_rank_(S, H, N).

rank_session_(S, Pairs) :-
    forall(nth0(K, Pairs, _-I), assertz(seq_rank_(S, I, K))),
    assertz(seq_ranked_(S)).
%!  item_segment(?H, ?S) is nondet.
item_segment(H0, S) :-
    atom_arg_(H0, H), atom_arg_(S, S1), kept_(H, [S1]), atc_journal:item_segment(H, S1),
    seen_(H, _).
%!  item_source(?H, ?Pointer) is nondet.
%   Where H was read, as visible_source/4 tells the reader: its file's name alone (no
%   directory of the owner's, no place in the file), for a reader who sees H at L1 or L0.
item_source(H0, P0) :-
    atom_arg_(H0, H), string_arg_(P0, P), grantee_view_reader(R),
    kept_(H, []), atc_journal:item(H),
    visible_source(R, H, H, P).
%!  item_source_name(?H, ?Name) is nondet.
%   The name of H's file without its directories, for a reader who sees H at L1 or L0.
item_source_name(H0, N0) :-
    atom_arg_(H0, H), atom_arg_(N0, N), grantee_view_reader(R),
    kept_(H, []), atc_journal:item_source_name(H, Src),
    visible_place(R, H, Src, N).
%!  item_text(?H, ?Text) is nondet.
%   L0: only for a reader who sees H at L0.
item_text(H0, T0) :-
    atom_arg_(H0, H), string_arg_(T0, T), kept_(H, [T]), atc_journal:item_text(H, T),
    seen_at_(H, l0),
    read_noted_(H).
%!  relation(?S, ?P, ?O) is nondet.
%   Links of records the reader sees to records they see or to entities; an item's working
%   directory (`cwd`) as visible_place/4 tells it; a path (a file it touches) as shown_path/3
%   tells it at the reader's ceiling for S (a bound O finds the links shown so: the file's
%   name finds a link to `/home/marco/x/cache.py` for a reader told `cache.py`, the owner's
%   path itself nothing).
relation(S0, P0, O0) :-
    atom_arg_(S0, S), atom_arg_(P0, P), atom_arg_(O0, O),
    (   P \== cwd, \+ message_link_(P), kept_(S, [O]),
        ( nonvar(O) -> O1 = O ; true ),  % looked up by it, as the owner's index has it
        atc_journal:relation(S, P, O1), P \== cwd, \+ message_link_(P),
        seen_(S, Max), object_seen_(O1),
        shown_path(Max, O1, O)
    ;   P = reply_to,                   % the message answered, by its handle, where seen
        reply_seen_(S, O)
    ;   shown_file_(P, O),              % a file as the reader was shown it: its name, or ~/...
        member(P, [touches_file, mentions_file]),
        kept_(S, []),
        atc_journal:relation(S, P, O1), O1 \== O,
        seen_(S, Max),
        shown_path(Max, O1, O)
    ;   P = cwd,                        % the owner's directory: its last name, at L1 or L0
        kept_(S, [O]), atc_journal:relation(S, cwd, Dir), grantee_view_reader(R),
        visible_place(R, S, Dir, O)
    ;   atc_cells:cell_relation(S, P, O), seen_(S, _), seen_(O, _)     % a member or a cell
    ).

% A chat's message ids (`relation(H, message_id, 'Chat#12')`, and `reply_to` naming one) are
% the owner's numbering of a chat (a place in the export, a line): read by a grantee, #4 then
% #6 says a message between is hidden, and a reply to #5 which. They read no message_id (the
% handle is a message's id to them) and a reply_to whose object is the handle of the message
% answered, where they see it.
message_link_(P) :- nonvar(P), memberchk(P, [message_id, reply_to]).

% reply_seen_(?S, ?O): S, seen, answers O, seen, by the owner's message ids.
reply_seen_(S, O) :-
    (   nonvar(O)
    ->  atc_journal:relation(O, message_id, Id),
        atc_journal:relation(S, reply_to, Id)
    ;   kept_(S, []),
        atc_journal:relation(S, reply_to, Id),
        atc_journal:relation(O, message_id, Id)
    ),
    seen_(S, _), seen_(O, _).

% shown_file_(?P, +O): O, bound, may be a path of the owner's as shown_path/3 tells a reader
% it (its file's name, or from `~`): the owner's file links are read to find it, as no index
% holds it. With P unbound only an O that reads as a file (`cache.py`, `~/x`) is looked for
% so: `relation(H, P, 'Alice')` does not read every file link of the home.
shown_file_(P, O) :-
    atom(O),
    \+ sub_atom(O, 0, 1, _, '/'),
    (   nonvar(P) -> true
    ;   sub_atom(O, 0, 1, _, '~') -> true
    ;   sub_atom(O, _, _, _, '.')
    ).

%!  cell(?C) is nondet.
%   Cells (rules/cells.pl) the reader sees: none, since visible/3 shows no grantee a cell (a
%   partition of every item, hidden ones included). These predicates and the links, paths and
%   regions below answer as for a home without cells, whatever the owner's partition holds.
cell(C0) :-
    atom_arg_(C0, C), grantee_view_reader(_), kept_(C, []), atc_cells:cell(C), seen_(C, _).
%!  cell_of(?H, ?C) is nondet.
cell_of(H0, C0) :-
    atom_arg_(H0, H), atom_arg_(C0, C), atc_cells:cell_of(H, C), seen_(H, _), seen_(C, _).
%!  cell_member(?C, ?H) is nondet.
cell_member(C0, H0) :-
    atom_arg_(C0, C), atom_arg_(H0, H), atc_cells:cell_member(C, H), seen_(C, _), seen_(H, _).
%!  cell_adjacent(?C, ?C2, ?W) is nondet.
cell_adjacent(C0, D0, W) :-
    atom_arg_(C0, C), atom_arg_(D0, C2), atc_cells:cell_adjacent(C, C2, W), seen_(C, _),
    seen_(C2, _).
%!  cell_info(?C, ?Key, ?Value) is nondet.
%   Size, span, top entities and tags, segments: the skeleton (L3) of a cell.
cell_info(C0, K0, V) :-
    atom_arg_(C0, C), atom_arg_(K0, K), atc_cells:cell_info(C, K, V0), seen_(C, _),
    shown_value(V0, V),                 % its top entities: a path is its file's name
    read_noted_(C).
%!  cell_neighbours(+C, -Pairs) is det.
%   The neighbours the reader sees; a cell they do not see does not exist (as for the owner,
%   an unknown cell is an error).
cell_neighbours(C0, Pairs) :-
    atom_arg_(C0, C),
    named_(cell_neighbours/2, ( seen_cell_arg_(C), seen_neighbours_(C, Pairs) )).
%!  cell_path(+C1, +C2, -Path) is semidet.
%   A shortest path through cells the reader sees (the owner's may cross one they do not).
%   A cell they do not see is an error as for no such cell, as the owner's unknown cell is
%   (it failed, which the owner's never does for a cell: the two answers differed).
cell_path(A0, B0, Path) :-
    atom_arg_(A0, A), atom_arg_(B0, B),
    named_(cell_path/3, ( must_be(atom, A), must_be(atom, B),
                          seen_cell_arg_(A), seen_cell_arg_(B) )),
    atc_cells:cells_path_via(atc_grantee_view:seen_neighbours_, A, B, Path).
%!  cell_region(+C, +Depth, -Cells) is det.
%   The cells the reader sees within Depth links of C, linked through cells they see.
cell_region(C0, D, Cells) :-
    atom_arg_(C0, C),
    named_(cell_region/3, ( seen_cell_arg_(C), must_be(nonneg, D) )),
    atc_cells:cells_region_via(atc_grantee_view:seen_neighbours_, C, D, Cells).

seen_cell_(C) :- atc_cells:cell(C), seen_(C, _).

% seen_cell_arg_(+C): C is a cell the reader sees, else an error as for no such cell.
seen_cell_arg_(C) :-
    must_be(atom, C),
    (   seen_cell_(C) -> true ; existence_error(cell, C) ).

seen_neighbours_(C, Pairs) :-
    atc_cells:cell_neighbours(C, Pairs0),
    include(seen_pair_, Pairs0, Pairs).

% named_(+PI, :Goal): Goal, its argument errors naming PI as atc_memory's do.
named_(PI, Goal) :-
    catch(Goal, error(Formal, Context), named_error_(PI, Formal, Context)).

named_error_(PI, Formal, Context) :-
    (   var(Context) -> throw(error(Formal, context(PI, _)))
    ;   Context = context(P, Message), var(P) -> throw(error(Formal, context(PI, Message)))
    ;   throw(error(Formal, Context))
    ).

%!  cell_hot(?C, ?Heat) is nondet.
%   The cells the reader's own frames drew from (not the owner's or another grantee's).
cell_hot(C0, S) :-
    atom_arg_(C0, C), grantee_view_reader(P), atc_cells:cell_hot_as(P, C, S), seen_(C, _).

seen_pair_(C-_) :- seen_(C, _).

% A bound argument as the journal stores it, as atc_memory reads it (journal_atom_arg/2).
atom_arg_(X, Y) :- atc_journal:journal_atom_arg(X, Y).
string_arg_(X, Y) :- atc_journal:journal_string_arg(X, Y).

%!  rung(?Id, ?Level, ?Text) is nondet.
%   Only rungs at or below the reader's ceiling for Id, as the reader is shown them; a bound
%   Text finds the rungs shown so.
rung(Id0, L0, T0) :-
    atom_arg_(Id0, Id), atom_arg_(L0, L), string_arg_(T0, T), kept_(Id, [T]),
    (   var(T)
    ->  atc_ladder:rung(Id, L, T1)
    ;   shown_shorter_(T, Id, L, T1, atc_ladder:rung(Id, L, T1))
    ),
    seen_at_(Id, L),
    shown_text(Id, L, T1, T),
    read_noted_(Id).
%!  rung_tokens(?Id, ?Level, ?N) is nondet.
%   The tokens of rung(Id, Level, Text)'s Text as the reader is shown it.
rung_tokens(Id0, L0, N) :-
    atom_arg_(Id0, Id), atom_arg_(L0, L), kept_(Id, [N]), atc_ladder:rung_tokens(Id, L, N1),
    seen_at_(Id, L),
    (   memberchk(L, [l0, l1]) -> N = N1
    ;   atc_ladder:rung(Id, L, T1) -> shown_tokens(Id, L, T1, N1, N)
    ;   N = N1
    ).
%!  distilled(?Id, ?Field, ?Value) is nondet.
%   The structured L2: for a reader who sees Id at L2 or more detailed, as they are shown it;
%   a bound Value finds the values shown so.
distilled(Id0, F0, V0) :-
    atom_arg_(Id0, Id), atom_arg_(F0, F), string_arg_(V0, V),
    (   var(V)
    ->  atc_ladder:distilled(Id, F, V1)
    ;   shown_shorter_(V, Id, _, V1, atc_ladder:distilled(Id, F, V1))
    ),
    seen_at_(Id, l2),
    shown_field(Id, F, V1, V),
    read_noted_(Id).

% shown_shorter_(+Shown, ?Id, ?Level, -Text0, :Lookup): Text0 may be the owner's text a reader
% is shown as Shown: Shown itself, found through the index (Lookup with Text0 = Shown), or at
% L2 or L3 a longer text whose paths, pointer or tags the reader is shown cut (only a text
% holding what is cut is longer; each is then compared by the caller): the records the reader
% sees are read for it (their kept set, else every record's). Where the records they may see
% can be listed (their kept set, or their segments' records: kept_/2) and Id is unbound, each
% is read once for both: a lookup by text alone reads every record of the home (rungs have
% no index by text), so it cost with the records of segments they cannot read.
shown_shorter_(Shown, Id, Level, Text0, Lookup) :-
    var(Id), reader_listed_, !,
    string_length(Shown, Length),
    kept_(Id, []),
    call(Lookup),
    (   Text0 == Shown
    ->  true
    ;   ( var(Level) -> true ; memberchk(Level, [l2, l3]) ),
        string_length(Text0, Length0), Length0 > Length
    ).
shown_shorter_(Shown, Id, Level, Text0, Lookup) :-
    (   Text0 = Shown,
        call(Lookup)
    ;   ( var(Level) -> true ; memberchk(Level, [l2, l3]) ),
        string_length(Shown, Length),
        kept_(Id, []),
        call(Lookup),
        Text0 \== Shown,
        string_length(Text0, Length0), Length0 > Length
    ).

% reader_listed_: the records the reader may see can be listed (kept_/2 draws them): their
% kept set, or the records of the segments their grants name.
reader_listed_ :-
    grantee_view_reader(P),
    (   reader_records(P, _) -> true ; grant_segments(P, Segments), Segments \== any ).
%!  provenance(?Id, ?H) is nondet.
provenance(Id0, H0) :-
    atom_arg_(Id0, Id), atom_arg_(H0, H),
    (   atc_ladder:provenance(Id, H) ; atc_cells:cell_provenance(Id, H) ),
    seen_(Id, _), seen_(H, _).
%!  arc(?A) is nondet.
%   The arcs the reader is shown (visible_arc/4): the owner's arcs they see whole and, for an
%   arc with a member hidden from them, the arc of the two or more members they see, which
%   has no rung, goal or vector for them (the owner's were written from the hidden member).
arc(A0) :- atom_arg_(A0, A), shown_arc_(A, _, _).
%!  arc_member(?A, ?H) is nondet.
%   H is a member of A as the reader is shown it: only members they see.
arc_member(A0, H0) :-
    atom_arg_(A0, A), atom_arg_(H0, H),
    (   var(A), nonvar(H)
    ->  atc_ladder:item_arc(H, Arc),
        shown_arc_(A, Arc, Members),
        memberchk(H, Members)
    ;   shown_arc_(A, _, Members),
        member(H, Members)
    ).
%!  arc_goal(?A, ?G) is nondet.
%   Verbatim text: for a reader who sees A at L0 and the turn that set its goal (its first
%   member's, goal_shown_/2).
arc_goal(A0, G0) :-
    atom_arg_(A0, A), string_arg_(G0, G), atc_ladder:arc_goal(A, G), seen_at_(A, l0),
    (   once(atc_ladder:arc_member(A, First)) -> goal_shown_(First, G) ; true ),
    read_noted_(A).
%!  arc_session(?A, ?S) is nondet.
arc_session(A0, S) :-
    atom_arg_(A0, A), atom_arg_(S, S1), shown_arc_(A, Arc, _), atc_ladder:arc_session(Arc, S1).
%!  item_arc(?H, ?A) is nondet.
item_arc(H0, A0) :-
    arc_member(A0, H0).

:- thread_local shown_arc_memo_/2.      % Shown, Arc: an arc the running call was shown as Shown

% shown_arc_(?Shown, ?Arc, -Members): the reader is shown the owner's arc Arc as Shown, made
% of Members (visible_arc/4). A Shown that is not the owner's arc's own id is found again
% from the call's earlier answers, else among the arcs of the items the reader sees.
shown_arc_(Shown, Arc, Members) :-
    grantee_view_reader(P),
    (   nonvar(Arc)
    ->  true
    ;   var(Shown)
    ->  reader_arc_(Arc)
    ;   atc_ladder:arc(Shown)
    ->  Arc = Shown
    ;   shown_arc_memo_(Shown, Arc0)
    ->  Arc = Arc0
    ;   sub_atom(Shown, 0, _, _, arc_),
        reader_arc_(Arc)
    ),
    visible_arc(P, Arc, Shown, Members),
    (   Shown == Arc -> true
    ;   shown_arc_memo_(Shown, Arc) -> true
    ;   assertz(shown_arc_memo_(Shown, Arc))
    ).

% reader_arc_(-Arc): each arc with a member among the records the reader may see (kept_/2).
reader_arc_(Arc) :-
    findall(A, ( kept_(H, []), atc_ladder:item_arc(H, A) ), Arcs0),
    sort(Arcs0, Arcs),
    member(Arc, Arcs).
%!  rollup(?R, ?S) is nondet.
rollup(R0, S0) :- atom_arg_(R0, R), atom_arg_(S0, S), atc_ladder:rollup(R, S), seen_(R, _).
%!  echo_of(?E, ?O, ?Sim) is nondet.
echo_of(E0, O0, Sim) :-
    atom_arg_(E0, E), atom_arg_(O0, O), atc_ladder:echo_of(E, O, Sim), seen_(E, _), seen_(O, _).
%!  curated(?Id, ?Curator) is nondet.
curated(Id0, C0) :- atom_arg_(Id0, Id), atom_arg_(C0, C), atc_ladder:curated(Id, C), seen_(Id, _).

%!  nearest(+Query, +K, -Hits) is det.
%!  nearest(+Query, -Handle, -Score) is nondet.
%   The jump over the records the reader sees (a handle as Query must be one of them).
%   Their argument errors name them, as atc_memory's do (`nearest/3: Arguments are not
%   sufficiently instantiated`).
nearest(Q, K, Hits) :-
    integer(K), !,
    named_(nearest/3, nearest_(Q, K, [], Hits)).
nearest(Q, H, S) :-
    named_(nearest/3, ( atc_jump:nearest_handle_arg(H), nearest_(Q, 50, [], Hits) )),
    member(H-S, Hits).

%!  nearest(+Query, +K, +Options, -Hits) is det.
nearest(Q, K, Options, Hits) :-
    named_(nearest/4, nearest_(Q, K, Options, Hits)).

nearest_(Q, K, Options, Hits) :-
    must_be(nonneg, K),
    query_seen_(Q),
    (   grantee_view_reader(P), reader_records(P, Records),
        kept_set_options_(Options, Wanted)
    ->  % their kept set: the cosine of each of its items and arcs the options select (the
        % score nearest/4 gives them), not fetching eight-fold until K of the home's best are
        % theirs (how long that took told how many hidden records an option matched)
        (   string(Q), split_string(Q, "", " \t\n\r", [""])
        ->  Hits = []                   % a blank text finds nothing, as nearest/4 says
        ;   include(searchable_(Wanted), Records, Searched),
            kept_set_search_(Wanted, Q, Searched, K, Hits)
        )
    ;   grantee_view_reader(P), grant_segments(P, Segments), Segments \== any
    ->  segments_search_(Segments, Q, K, Options, Hits)
    ;   seen_search_(atc_jump:nearest(Q), Options, K, Hits)
    ).

% segments_search_(+Segments, +Q, +K, +Options, -Hits): where no set of what the reader sees
% is kept (grants of whole segments; or too wide a one), the search runs in each segment
% their grants name, the K best of them all answered: what they cannot see in the segments
% they do not read neither comes first, costing eight-fold fetches, nor tells by how long a
% search took how many hidden records are like the query. A segment(S) option they do not
% read answers nothing.
segments_search_(Segments, Q, K, Options, Hits) :-
    atc_jump:jump_options_(Options, Checked),
    (   select(segment(S0), Checked, Rest)
    ->  atom_string(S, S0),
        (   memberchk(S, Segments) -> Searched = [S] ; Searched = [] )
    ;   Searched = Segments, Rest = Checked
    ),
    findall(Hits1, ( member(S, Searched),
                     seen_search_(atc_jump:nearest(Q), [segment(S)|Rest], K, Hits1) ),
            Lists),
    append(Lists, All),
    sort(2, @>=, All, Best0),               % Handle-Score, best first (ties kept)
    length(Best0, N),
    (   N =< K -> Hits = Best0 ; length(Hits, K), append(Hits, _, Best0) ).

% kept_set_search_(+Wanted, +Q, +Searched, +K, -Hits): the K best of the records Searched
% by cosine: each by the best of its vectors (similarity/4, as nearest/4 with no level), or
% at a level by that level's vector alone (vector_similarity/4): an item's text (l0), an
% arc's summary (l1), an item's distillation (l2, keyed Handle#l2, answered as the handle,
% as nearest/4 answers it).
kept_set_search_(w(_, _, _, any), Q, Searched, K, Hits) :- !,
    atc_jump:similarity(Q, Searched, K, Hits).
kept_set_search_(w(_, _, _, l2), Q, Searched, K, Hits) :- !,
    findall(Key, ( member(R, Searched), atom_concat(R, '#l2', Key) ), Keys),
    atc_jump:vector_similarity(Q, Keys, K, Hits0),
    findall(R-S, ( member(Key-S, Hits0), atom_concat(R, '#l2', Key) ), Hits).
kept_set_search_(w(_, _, _, _), Q, Searched, K, Hits) :-
    atc_jump:vector_similarity(Q, Searched, K, Hits).

% kept_set_options_(+Options, -Wanted): Options (checked as nearest/4 checks them) as the
% records of a kept set they select: w(Segment, Kinds, Record, Level), each `any` where not
% given (a level picks one of a record's vectors: kept_set_search_/5).
kept_set_options_(Options0, w(Segment, Kinds, Record, Level)) :-
    atc_jump:jump_options_(Options0, Options),
    (   memberchk(level(Level), Options) -> true ; Level = any ),
    (   memberchk(segment(S), Options) -> atom_string(Segment, S) ; Segment = any ),
    (   memberchk(kinds(Ks), Options) -> maplist([K, A]>>atom_string(A, K), Ks, Kinds)
    ;   Kinds = any
    ),
    (   memberchk(record(R), Options) -> Record = R ; Record = any ).

% What a search can answer: items and arcs (rollups have no vectors), of the segment, kinds
% and record type asked for (an arc's vector is of kind `arc`, in its segment).
searchable_(w(Segment, Kinds, Record, Level), R) :-
    (   atc_journal:item(R)
    ->  Type = item,
        ( Kinds == any -> true ; atc_journal:item_kind(R, Kind), memberchk(Kind, Kinds) )
    ;   atc_ladder:arc(R)
    ->  Type = arc,
        ( Kinds == any -> true ; memberchk(arc, Kinds) )
    ),
    ( Record == any -> true ; Record == Type ),
    level_vector_of_(Level, Type),
    ( Segment == any -> true ; atc_hydrate:in_segment_(R, Segment) ).

% Which records have a vector at a level: items their text (l0) and distillation (l2), arcs
% their summary (l1).
level_vector_of_(any, _).
level_vector_of_(l0, item).
level_vector_of_(l1, arc).
level_vector_of_(l2, item).

%!  lexical(+Query, +K, +Options, -Hits) is det.
lexical(Q, K, Options, Hits) :-
    named_(lexical/4, lexical_(Q, K, Options, Hits)).

lexical_(Q, K, Options0, Hits) :-
    must_be(nonneg, K),
    must_be(list, Options0),
    query_seen_(Q),
    grantee_view_reader(P),
    % scored by the statistics of the records the reader sees (their kept set, reader_items/2),
    % else of the segments their grants name, whatever the goal asked: weighed by the whole
    % home's, a score told how many hidden records held a word
    exclude(stats_option_, Options0, Options1),
    (   reader_records(P, Records)
    ->  atomic_list_concat(Records, '\n', Within),
        append(Options1, [within(Within)], Options)
    ;   grant_segments(P, Segments),
        (   Segments == any
        ->  Options2 = Options1
        ;   append(Options1, [stats_segments(Segments)], Options2)
        ),
        reader_unseen_options(P, Unseen),     % and not what a label hides
        append(Options2, Unseen, Options)
    ),
    seen_search_(atc_jump:lexical(Q), Options, K, Hits).

% The options that choose which records' statistics score a search: the reader's own would
% let them name hidden records and read their statistics from the scores.
stats_option_(O) :- nonvar(O), ( O = stats_segments(_) ; O = within(_) ; O = without(_) ).

%!  similarity(+Query, +Records, -Pairs) is det.
%!  similarity(+Query, +Records, +K, -Pairs) is det.
%   Scores for the given records the reader sees.
similarity(Q, Records, Pairs) :-
    named_(similarity/3, ( must_be(list, Records),
                           query_seen_(Q),
                           include(seen_record_, Records, Seen),
                           atc_jump:similarity(Q, Seen, Pairs) )).
similarity(Q, Records, K, Pairs) :-
    named_(similarity/4, ( must_be(list, Records),
                           query_seen_(Q),
                           include(seen_record_, Records, Seen),
                           atc_jump:similarity(Q, Seen, K, Pairs) )).

seen_record_(R) :- atom(R), seen_(R, _).

seen_hit_(Id-_) :- seen_(Id, _).

query_seen_(Q) :-
    (   atom(Q)
    ->  (   seen_(Q, _) -> true ; existence_error(record, Q) )
    ;   true
    ).

% seen_search_(:Search_3, +Options, +K, -Hits): the K best hits the reader sees. A search
% answers the best hits of every record, so a fixed over-fetch (K*4+50) gave a reader who
% sees a small part of the home fewer than K hits though K visible ones matched: the fetch
% grows eight-fold until K of its hits are visible, the search has nothing more to give, or
% it reaches the cap (seen_search_cap_/1), whichever comes first; a reader who sees most of
% the home is answered by the first fetch, as before.
seen_search_(Search_3, Options, K, Hits) :-
    Fetch is K * 4 + 50,
    seen_search_(Search_3, Options, K, Fetch, Hits).

seen_search_(Search_3, Options, K, Fetch, Hits) :-
    call(Search_3, Fetch, Options, Raw),
    seen_top_(Raw, K, Hits0),
    length(Hits0, N),
    seen_search_cap_(Cap),
    (   (   N >= K
        ;   length(Raw, Got), Got < Fetch
        ;   Fetch >= Cap
        )
    ->  Hits = Hits0
    ;   Fetch1 is min(Cap, Fetch * 8),
        seen_search_(Search_3, Options, K, Fetch1, Hits)
    ).

% The most raw hits one search of a grantee's asks for: past it a home almost wholly hidden
% from them answers what it found, rather than every search ranking the whole home.
seen_search_cap_(200000).

seen_top_(Raw, K, Hits) :-
    include(seen_hit_, Raw, Seen),
    length(Seen, N),
    (   N =< K -> Hits = Seen ; length(Hits, K), append(Hits, _, Seen) ).

%!  hydrate(+Goal, +Options:dict, -Frame) is det.
%   A frame for the reader: hydrate/3 with `reader` set to them (every fact visible, each at
%   most at its ceiling); `rules` may only name a grantee's user module, and a `mount` only
%   cells the reader sees.
%   @error permission_error(use, rules_module, M) for any other module
%   @error existence_error(cell, C) for a mount the reader does not see (as for no cell)
hydrate(Goal, Options, Frame) :-
    named_(hydrate/3, ( must_be(text, Goal), must_be(dict, Options) )),
    grantee_view_reader(P),
    (   get_dict(rules, Options, Rules), Rules \== none
    ->  (   atom(Rules), grantee_view_module(Rules) -> true
        ;   permission_error(use, rules_module, Rules)
        )
    ;   true
    ),
    (   get_dict(mount, Options, Mounts), is_list(Mounts)
    ->  forall(( member(C, Mounts), atom(C) ),  % a cell the reader does not see is no cell
               ( seen_(C, _) -> true ; existence_error(cell, C) ))
    ;   true
    ),
    (   get_dict(now, Options, Now), Now \== null, Now \== default
    ->  Options1 = Options
    ;   reader_newest_(Stamp),          % the newest item *they* see, not the owner's newest
        Options1 = Options.put(now, Stamp)
    ),
    atc_memory:hydrate(Goal, Options1.put(reader, P), Frame),
    Frame = frame(_, Facts, Beyond),
    forall(( member(F, Facts), arg(1, F, Id) ; member(C, Beyond), arg(1, C, Id) ),
           read_noted_(Id)).

%!  goal_speaker(+Goal, -Speaker) is semidet.
%   As atc_memory's, naming only a person who speaks in a record the reader sees.
goal_speaker(Goal, S) :-
    named_(goal_speaker/2, must_be(text, Goal)),
    grantee_view_reader(P),
    atc_hydrate:goal_speaker(Goal, P, S).

%!  goal_time_window(+Goal, +Now, -Window, -Phrase) is semidet.
%   Reads only the goal's words.
goal_time_window(G, N, W, P) :-
    named_(goal_time_window/4, ( must_be(text, G), atc_when:goal_time_window(G, N, W, P) )).

%!  goal_time_pieces(+Goal, +Now, -Pieces, -Phrase) is semidet.
%   Reads only the goal's words.
goal_time_pieces(G, N, Ps, P) :-
    named_(goal_time_pieces/4, ( must_be(text, G), atc_when:goal_time_pieces(G, N, Ps, P) )).

%!  memory_now(-Stamp) is det.
%   The newest time among the items the reader sees (0 when none). Read from the set kept for
%   them (reader_items/2) when there is one; else by reading the item times of the segments
%   their grants name (grant_scopes/2), newest first, until one the reader sees (a grant of
%   one old session of a large segment checks every newer item of it).
memory_now(Stamp) :-
    reader_newest_(Newest),
    (   Newest == none -> Stamp = 0 ; Stamp = Newest ).

% reader_newest_(-Stamp): the newest time among the items the reader sees, or `none` when they
% see no item with a time (a frame's `now` then: 0 is a time, 1970-01-01, and items before it
% are read against their own newest).
reader_newest_(Stamp) :-
    (   grantee_view_reader(P)              % no reader: no item is seen (the view fails closed)
    ->  (   reader_records(P, Records)      % their kept set: the newest of it, no scan
        ->  findall(T, ( member(H, Records), dated_(H, T, _) ), Ts)
        ;   memory_now_scanned_(P, Ts)
        )
    ;   Ts = []
    ),
    (   Ts == [] -> Stamp = none
    ;   max_member(Newest, Ts),
        parse_time(Newest, iso_8601, Stamp)
    ).

% The times of the newest item Principal sees in each segment their scopes admit (and of the
% items added since the last scan), found walking every item's time newest first.
memory_now_scanned_(P, Ts) :-
    grant_scopes(P, Scopes),
    times_newest_first_(Segments, Recent),
    findall(T, ( ( member(Seg-Times, Segments), scope_admits(Scopes, Seg, _)
                 ; Times = Recent
                 ),
                 newest_seen_time_(Scopes, Times, T) ),
            Ts).

% newest_seen_time_(+Scopes, +Times, -T): the first (the greatest) time of Times, triples
% Time-Segment-Handle in descending order of the text, that a scope admits and whose item is
% live, still of that time, and seen.
newest_seen_time_(Scopes, Times, T) :-
    member(T-Seg-H, Times),
    scope_admits(Scopes, Seg, T),
    atc_journal:item_time(H, T),
    seen_(H, _), !.

% times_newest_first_(-Segments, -Recent): every item's time text (not "") with its segment
% and handle, as triples Time-Segment-Handle in descending order of the text (as max_member/2
% orders them): per segment (Segment-Triples pairs), built by one scan of the items, and
% Recent, the items added since (an agent's turns, read through store_appended/4 so a write
% does not cost another scan). Items since erased stay until the next scan;
% newest_seen_time_/3 checks each is live.
times_newest_first_(Segments, Recent) :-
    Head = atc_journal:item_(_,_,_,_,_,_,_,_,_,_),
    (   predicate_property(Head, last_modified_generation(G)) -> true ; G = 0 ),
    (   nb_current(grantee_view_times, times(G, _, Segments0, Recent0))
    ->  Segments = Segments0, Recent = Recent0
    ;   nb_current(grantee_view_times, times(_, Mark0, Segments0, Recent0)),
        store_appended(Head, Mark0, Mark, since(New)),
        length(Recent0, N0), length(New, N1), N0 + N1 =< 4096
    ->  findall(T-S-H, ( member(Item, New), arg(1, Item, H), dated_(H, T, S) ), Added),
        append(Added, Recent0, Recent1),
        sort(1, @>=, Recent1, Recent),
        Segments = Segments0,
        nb_setval(grantee_view_times, times(G, Mark, Segments, Recent))
    ;   store_appended(Head, none, Mark, _),
        findall(S-(T-S-H), dated_(H, T, S), Pairs0),
        sort(1, @>=, Pairs0, Pairs1),               % by segment; stable: journal order
        findall(S-Desc, ( group_pairs_by_key(Pairs1, Groups), member(S-Triples, Groups),
                          sort(1, @>=, Triples, Desc) ),
                Segments),
        Recent = [],
        nb_setval(grantee_view_times, times(G, Mark, Segments, Recent))
    ).

dated_(H, T, S) :-
    atc_journal:item_time(H, T), T \== "",
    atc_journal:item_segment(H, S).

%!  items_between(+From, +To, -Items) is det.
%!  items_between(+From, +To, +Max, -Items) is det.
%   An unbound From, To or Max is an instantiation error naming the predicate, as
%   atc_memory's is (it was reported as "Sandbox restriction! ... a goal called through a
%   variable", a goal the grantee never wrote).
items_between(F, T, Items) :-
    named_(items_between/3, bounds_given_(F, T, inf)),
    items_between_(F, T, inf, Items).
items_between(F, T, Max, Items) :-
    named_(items_between/4, bounds_given_(F, T, Max)),
    items_between_(F, T, Max, Items).

bounds_given_(F, T, Max) :-
    (   var(F) -> instantiation_error(F)
    ;   var(T) -> instantiation_error(T)
    ;   Max == inf -> true
    ;   must_be(nonneg, Max)
    ).

items_between_(F, T, Max, Items) :-
    (   grantee_view_reader(P), reader_records(P, Records)    % their kept set: no scan
    ->  atc_when:records_between(Records, F, T, Max, Items)
    ;   (   grantee_view_reader(P), grant_segments(P, Segments), Segments \== any
        ->  atc_when:segments_items_between(Segments, F, T, Raw)  % their segments' window
        ;   atc_when:items_between(F, T, inf, Raw)
        ),
        include(seen_record_, Raw, Seen),
        (   Max == inf -> Items = Seen
        ;   must_be(nonneg, Max),
            length(Seen, N),
            (   N =< Max -> Items = Seen ; length(Items, Max), append(Items, _, Seen) )
        )
    ).

		 /*******************************
		 *           SANDBOX            *
		 *******************************/

% Every predicate here only reads, through visible/3; hydrate/3 confines its options above.
% One safe_primitive/1 fact per vocabulary predicate, made from the export list when loading.
vocabulary_head_(Head) :-
    module_property(atc_grantee_view, exports(PIs)),
    member(Name/Arity, PIs),
    \+ memberchk(Name, [grantee_view_reader, grantee_view_run, grantee_view_reads,
                         grantee_view_module]),
    functor(Head, Name, Arity).

:- multifile sandbox:safe_primitive/1.
term_expansion(safe_vocabulary_, Clauses) :-
    findall(sandbox:safe_primitive(atc_grantee_view:H), vocabulary_head_(H), Clauses).
safe_vocabulary_.
