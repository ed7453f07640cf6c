:- module(atc_cells,
          [ cell/1,                     % ?Cell
            cell_of/2,                  % ?Handle, ?Cell
            cell_member/2,              % ?Cell, ?Handle
            cell_adjacent/3,            % ?Cell, ?Cell2, ?Weight
            cell_info/3,                % ?Cell, ?Key, ?Value
            cell_neighbours/2,          % +Cell, -Pairs
            cell_path/3,                % +From, +To, -Path
            cell_region/3,              % +Cell, +Depth, -Cells
            cells_path_via/4,           % :Neighbours, +From, +To, -Path
            cells_region_via/4,         % :Neighbours, +Cell, +Depth, -Cells
            cell_hot/2,                 % ?Cell, ?Score
            cell_hot_as/3,              % +Reader, ?Cell, ?Score
            cell_relation/3,            % ?Cell, ?Predicate, ?Object
            cell_provenance/2,          % ?Cell, ?Handle

            cells_exist/0,
            cells_store/4,              % +Cells, +Dropped, +Adjacency, +Params
            cells_forget/1,             % +Handle
            cells_release/1,            % +Handles
            cells_param/2,              % ?Key, ?Value
            cells_membership/1,         % -Pairs
            cells_members/2,            % +Cell, -Handles
            cells_stands_for/5,         % +Cell, +Held, +Max, -Count, -Listed
            cells_unplaced/1,           % -Handles
            cells_inputs/2,             % +Handles, -Rows
            cells_rows/1,               % -Rows
            cells_stats/1               % -Stats
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(ordsets)).
:- use_module(library(aggregate)).
:- use_module(library(solution_sequences)).
:- use_module(store).
:- use_module(journal).
:- use_module(ladder).
% Arithmetic compiled to VM instructions (this file only): a frame's look-ups here would
% otherwise call rules/arith_guard.pl's wrapped is/2 and comparisons (hydrate.pl does the same).
:- set_prolog_flag(optimise, true).

/** <module> Cells: a persisted partition of memory that rules navigate and frames walk

A *cell* is a neighbourhood of related items: every live, curated item belongs to exactly one.
Cells are built by the host from what memory already has (the items' vectors blended with the
entity graph and time, attention_cloud/cells/) and kept here as durable facts in the
`_at_cells` namespace: membership, weighted symmetric adjacency between cells, per-cell
aggregates (time span, size, top entities and tags, segments, the most central members) and
the cell's own ladder, L1..L3 rungs stored through the ladder with provenance to its members,
so `rung(Cell, l2, Text)` stands for the cell in a frame as an arc stands for its steps.
The vocabulary's relation/3 answers `relation(Cell, contains, Handle)` and
`relation(Cell, adjacent, Cell2)` from here; arcs and rollups belong to the cells of their
members (cell_of/2).

```
?- cell_of(H, C), cell_neighbours(C, [Next-W|_]), cell_info(Next, entities, Es).
?- cell_path(C1, C2, Path).
```

Only this module changes these facts; the host sends whole cells (cells_store/4) and this
module diffs them against what is stored, recomputes aggregates and ladders of the cells that
changed, and keeps adjacency symmetric. Forgetting an item (cells_forget/1), or a re-read that
moved items in time (cells_release/1), takes them out of their cells and rebuilds each cell's
aggregates and ladder once without them, in the same batch.
*/

:- dynamic
    member_/2,      % Cell, Handle
    adjacent_/3,    % Cell, Cell2, Weight       (stored in both directions)
    info_/3,        % Cell, Key, Value          (size, span, entities, tags, segments, central)
    param_/2.       % Key, Value                (build parameters the host reads back)

:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_cells:member_/2).
atc_store:durable_predicate(atc_cells:adjacent_/3).
atc_store:durable_predicate(atc_cells:info_/3).
atc_store:durable_predicate(atc_cells:param_/2).

		 /*******************************
		 *          VOCABULARY          *
		 *******************************/

%!  cell(?Cell) is nondet.
%   Cell is a cell of the current partition.
cell(C) :-
    info_(C, size, _).

%!  cell_of(?Handle, ?Cell) is nondet.
%   Cell holds Handle: the one cell of a live item, or each cell holding a member of an arc or
%   a session rollup (a cell summary is its own cell).
cell_of(H, C) :-
    (   nonvar(H)
    ->  (   member_(C0, H)
        ->  \+ tombstoned(H), C = C0
        ;   info_(H, size, _)
        ->  C = H
        ;   distinct(C, ( provenance(H, M), member_(C, M), \+ tombstoned(M) ))
        )
    ;   member_(C, H),
        \+ tombstoned(H)
    ).

%!  cell_member(?Cell, ?Handle) is nondet.
%   Handle is a live item in Cell.
cell_member(C, H) :-
    member_(C, H),
    \+ tombstoned(H).

%!  cell_adjacent(?Cell, ?Cell2, ?Weight:float) is nondet.
%   Cell and Cell2 are neighbours; Weight (0..1) blends centroid similarity and shared
%   entities. Symmetric: cell_adjacent(A, B, W) iff cell_adjacent(B, A, W).
cell_adjacent(C, C2, W) :-
    adjacent_(C, C2, W).

%!  cell_info(?Cell, ?Key, ?Value) is nondet.
%   Aggregates of a cell: `size` (live members), `span` ([From, To], ISO 8601; "" when no
%   member has a time), `entities` and `tags` (the most frequent, strings, most frequent
%   first), `segments` (sorted), `central` (the members nearest the cell's centre).
cell_info(C, K, V) :-
    info_(C, K, V).

%!  cell_neighbours(+Cell, -Neighbours:list) is det.
%   Neighbours are Cell2-Weight, heaviest first (ties by cell id).
cell_neighbours(C, Pairs) :-
    must_be(atom, C),
    findall(NW-C2, heaviest_first_(C, NW-C2), Keyed),
    keysort(Keyed, Sorted),
    maplist(heaviest_first_weight_, Sorted, Pairs).

% An adjacent cell keyed by its negated weight; the negation in a clause of its own, compiled
% with this file's optimise flag (in findall/3's goal it would call the guarded is/2).
heaviest_first_(C, NW-C2) :-
    adjacent_(C, C2, W),
    NW is -W.

heaviest_first_weight_(NW-C2, C2-W) :-
    W is -NW.

%!  cell_path(+From, +To, -Path:list) is semidet.
%   Path is a shortest chain of adjacent cells from From to To (both included); among paths
%   of equal length the one through heavier links first. Fails when none connects them.
%   @error existence_error(cell, C) for a cell memory does not hold (as cell_region/3)
cell_path(From, To, Path) :-
    must_be(atom, From),
    must_be(atom, To),
    forall(member(C, [From, To]), ( cell(C) -> true ; existence_error(cell, C) )),
    cells_path_via(cell_neighbours, From, To, Path).

:- meta_predicate cells_path_via(2, +, +, -), cells_region_via(2, +, +, -).

%!  cells_path_via(:Neighbours, +From, +To, -Path:list) is semidet.
%   A shortest chain from From to To through the links call(Neighbours, Cell, Pairs) gives
%   (Cell2-Weight pairs, heaviest first): cell_path/3 for the owner, through the cells a
%   grantee sees for them (rules/grantee_view.pl). Fails when none connects them.
cells_path_via(Neighbours, From, To, Path) :-
    (   From == To
    ->  Path = [From]
    ;   bfs_(Neighbours, [From], [From-none], To, Parents),
        path_back_(To, Parents, [], Path)
    ).

bfs_(_, [], _, _, _) :- !, fail.
bfs_(Neighbours, Frontier, Seen0, To, Seen) :-
    foldl(expand_(Neighbours), Frontier, []-Seen0, Next0-Seen1),
    (   memberchk(To-_, Seen1)
    ->  Seen = Seen1
    ;   reverse(Next0, Next),
        bfs_(Neighbours, Next, Seen1, To, Seen)
    ).

expand_(Neighbours, C, Next0-Seen0, Next-Seen) :-
    call(Neighbours, C, Ns),
    foldl(visit_(C), Ns, Next0-Seen0, Next-Seen).

visit_(Parent, C2-_, Next0-Seen0, Next-Seen) :-
    (   memberchk(C2-_, Seen0)
    ->  Next = Next0, Seen = Seen0
    ;   Next = [C2|Next0], Seen = [C2-Parent|Seen0]
    ).

path_back_(none, _, Path, Path) :- !.
path_back_(C, Parents, Acc, Path) :-
    memberchk(C-P, Parents),
    path_back_(P, Parents, [C|Acc], Path).

%!  cell_region(+Cell, +Depth:nonneg, -Cells:list) is det.
%   Cells are Cell and every cell at most Depth links from it, sorted.
cell_region(C, Depth, Cells) :-
    must_be(atom, C),
    must_be(nonneg, Depth),
    (   cell(C) -> true ; existence_error(cell, C) ),
    cells_region_via(cell_neighbours, C, Depth, Cells).

%!  cells_region_via(:Neighbours, +Cell, +Depth:nonneg, -Cells:list) is det.
%   Cells are Cell and every cell at most Depth links from it through the links
%   call(Neighbours, C, Pairs) gives (Cell2-Weight pairs), sorted.
cells_region_via(Neighbours, C, Depth, Cells) :-
    region_(Neighbours, Depth, [C], [C], Cells0),
    sort(Cells0, Cells).

region_(_, 0, _, Seen, Seen) :- !.
region_(Neighbours, D, Frontier, Seen0, Seen) :-
    findall(C2, ( member(C, Frontier), call(Neighbours, C, Ns), member(C2-_, Ns),
                  \+ memberchk(C2, Seen0) ), New0),
    sort(New0, New),
    (   New == []
    ->  Seen = Seen0
    ;   append(Seen0, New, Seen1),
        D1 is D - 1,
        region_(Neighbours, D1, New, Seen1, Seen)
    ).

%!  cell_hot(?Cell, ?Score:number) is nondet.
%
%   Cells recent frames drew from, hottest first: each fact of the newest stored receipts
%   (home/receipts/) counts for the cell holding it, a newer receipt more than an older one
%   (the host reads them, attention_cloud/cells/hot.py, registered as receipt_touches/2).
%   No solution when no receipt touched a cell or no host is attached. Score is an integer
%   where every weight summed is whole, a float otherwise.
cell_hot(C, Score) :-
    cell_hot_as(none, C, Score).

%!  cell_hot_as(+Reader, ?Cell, ?Score:float) is nondet.
%
%   cell_hot/2 as Reader sees it: `none` (the owner) from every stored receipt, a grantee
%   from the receipts of their own frames only (what the owner or another grantee read is
%   not theirs to see).
cell_hot_as(Reader, C, Score) :-
    must_be(atom, Reader),
    hot_cells_(Reader, Pairs),
    member(C-Score, Pairs).

hot_cells_(Reader, Pairs) :-
    (   current_predicate(atc_cells:receipt_touches/2)
    ->  receipt_touches(Reader, Touches)
    ;   Touches = []
    ),
    findall(C-W, ( member(H-W0, Touches), touch_cells_(H, W0, C, W) ), Raw),
    keysort(Raw, Sorted),
    group_pairs_by_key(Sorted, Groups),
    findall(NS-C, ( member(C-Ws, Groups), sum_list(Ws, S0), NS is -S0 ), Keyed),
    keysort(Keyed, Ranked),
    findall(C-S, ( member(NS-C, Ranked), S is round(-NS * 1000) / 1000 ), Pairs).

% A fact counts for its cell; an arc or rollup shares its weight among its members' cells.
touch_cells_(H, W0, C, W) :-
    atom(H),
    findall(C0, cell_of(H, C0), Cs),
    length(Cs, N), N > 0,
    W is W0 / N,
    member(C, Cs).

%!  cell_relation(?Cell, ?Predicate, ?Object) is nondet.
%   The cells as links: relation(Cell, contains, Handle) and relation(Cell, adjacent, Cell2),
%   which the vocabulary's relation/3 answers beside the entity graph.
cell_relation(C, contains, H) :-
    cell_member(C, H).
cell_relation(C, adjacent, C2) :-
    adjacent_(C, C2, _).

%!  cell_provenance(?Cell, ?Handle) is nondet.
%   A cell's ladder was computed from its members (the vocabulary's provenance/2 for cells).
cell_provenance(C, H) :-
    cell_member(C, H).

		 /*******************************
		 *         FOR THE HOST         *
		 *******************************/

%!  cells_exist is semidet.
%   True when memory holds a partition.
cells_exist :-
    once(info_(_, size, _)).

%!  cells_param(?Key, ?Value) is nondet.
%   Build parameters stored with the partition (time range, weights, version, ...).
cells_param(K, V) :-
    param_(K, V).

%!  cells_membership(-Pairs:list) is det.
%   Handle-Cell for every live member, sorted by handle.
cells_membership(Pairs) :-
    findall(H-C, cell_member(C, H), Pairs0),
    sort(Pairs0, Pairs).

%!  cells_members(+Cell, -Handles:list) is det.
%   The live members of Cell, sorted.
cells_members(C, Hs) :-
    findall(H, cell_member(C, H), Hs0),
    sort(Hs0, Hs).

%!  cells_stands_for(+Cell, +Held:list, +Max:nonneg, -Count:integer, -Listed:list) is det.
%   What a summary of Cell stands for in a frame that holds the records Held: the live members
%   of Cell not in Held, Count of them, the first Max (sorted) in Listed. Only those cross to
%   the host, not the whole cell.
cells_stands_for(C, Held, Max, Count, Listed) :-
    must_be(nonneg, Max),
    cells_members(C, Ms),
    sort(Held, HeldSet),
    ord_subtract(Ms, HeldSet, Rest),
    length(Rest, Count),
    (   Count =< Max -> Listed = Rest ; length(Listed, Max), append(Listed, _, Rest) ).

%!  cells_unplaced(-Handles:list) is det.
%   Live curated items in no cell (curated since the partition last changed), sorted.
cells_unplaced(Hs) :-
    ladder_curated_items(All),
    exclude(placed_, All, Hs0),
    sort(Hs0, Hs).

placed_(H) :-
    member_(_, H), !.

%!  cells_inputs(+Handles, -Rows:list) is det.
%
%   What the host clusters on, for each of Handles that is a live item (all live curated
%   items when Handles is `all`), sorted by handle: r(Handle, Time, Keys), Time the item's ISO
%   8601 time ("" when none), Keys the entity-graph links that pick out something specific
%   (`P=O` for touches_file, mentions, names and speaker; `session=S`).
cells_inputs(all, Rows) :- !,
    ladder_curated_items(Hs),
    cells_inputs(Hs, Rows).
cells_inputs(Hs0, Rows) :-
    must_be(list, Hs0),
    sort(Hs0, Hs),
    findall(r(H, T, Keys),
            ( member(H, Hs), item_time(H, T), item_keys_(H, Keys) ),
            Rows).

item_keys_(H, Keys) :-
    findall(K, ( key_predicate_(P), relation(H, P, O), atomic_list_concat([P, =, O], K) ), Ks0),
    (   item_session(H, S) -> atomic_list_concat([session, =, S], SK), Ks1 = [SK|Ks0] ; Ks1 = Ks0 ),
    sort(Ks1, Keys).

key_predicate_(touches_file).
key_predicate_(mentions).
key_predicate_(names).
key_predicate_(speaker).

%!  cells_rows(-Rows:list) is det.
%   One dict per cell, largest first (ties by id): id, size, span, entities, tags, segments,
%   neighbours (Cell-Weight, heaviest first), l1.
cells_rows(Rows) :-
    findall(NS-C, ( info_(C, size, S), NS is -S ), Keyed),
    keysort(Keyed, Sorted),
    findall(Row, ( member(_-C, Sorted), cell_row_(C, Row) ), Rows).

cell_row_(C, _{id: C, size: Size, span: Span, entities: Es, tags: Ts, segments: Segs,
               neighbours: Ns, l1: L1}) :-
    info_(C, size, Size),
    info_or_(C, span, ["", ""], Span),
    info_or_(C, entities, [], Es),
    info_or_(C, tags, [], Ts),
    info_or_(C, segments, [], Segs),
    cell_neighbours(C, Pairs),
    findall([C2, W], member(C2-W, Pairs), Ns),
    (   rung(C, l1, L1) -> true ; L1 = "" ).

info_or_(C, K, Default, V) :-
    (   info_(C, K, V0) -> V = V0 ; V = Default ).

%!  cells_stats(-Stats:dict) is det.
%   cells, members, adjacency links (each counted once), largest and smallest cell.
cells_stats(_{cells: N, members: M, links: L, largest: Max, smallest: Min}) :-
    aggregate_all(count, info_(_, size, _), N),
    aggregate_all(sum(S), info_(_, size, S), M),
    aggregate_all(count, ( adjacent_(A, B, _), A @< B ), L),
    findall(S, info_(_, size, S), Sizes),
    (   Sizes == [] -> Max = 0, Min = 0 ; max_list(Sizes, Max), min_list(Sizes, Min) ).

		 /*******************************
		 *           WRITING            *
		 *******************************/

%!  cells_store(+Cells:list, +Dropped:list, +Adjacency, +Params:list) is det.
%
%   Apply a change of the partition (the caller runs it as one batch):
%     - Cells: cell(Id, Members, Central) for every cell created or changed: its members
%       become exactly Members (a handle in another cell moves here), its aggregates and
%       ladder are recomputed, Central (the members nearest its centre) kept; or
%       join(Id, Handles): Handles join the existing cell Id (the rest of it unchanged);
%     - Dropped: cells that no longer exist (their remaining members must be in Cells);
%     - Adjacency: `keep`, or the whole new list of a(Cell, Cell2, Weight), each link once or
%       in both directions; stored in both directions, what is stored and not listed removed;
%     - Params: Key-Value pairs replacing the stored build parameters of those keys.
%   The parameter `version` is incremented by every change (the host's caches compare it).
%   @error existence_error(item, H) for a member that is not a live item.

cells_store(Cells, Dropped, Adjacency, Params) :-
    must_be(list, Cells),
    must_be(list(atom), Dropped),
    must_be(list, Params),
    forall(member(C, Dropped), drop_cell_(C)),
    maplist(store_cell_, Cells),
    (   Adjacency == keep
    ->  true
    ;   store_adjacency_(Adjacency)
    ),
    forall(member(K-V, Params), set_param_(K, V)),
    bump_version_.

drop_cell_(C) :-
    durable_retract(atc_cells:member_(C, _)),
    durable_retract(atc_cells:info_(C, _, _)),
    durable_retract(atc_cells:adjacent_(C, _, _)),
    durable_retract(atc_cells:adjacent_(_, C, _)),
    ladder_drop_records([C]).

store_cell_(join(C, New0)) :- !,
    must_be(atom, C),
    (   cell(C) -> true ; existence_error(cell, C) ),
    must_be(list(atom), New0),
    sort(New0, New),
    forall(member(H, New),
           (   item(H) -> true ; existence_error(item, H) )),
    forall(( member(H, New), \+ member_(C, H) ),
           ( forall(( member_(C0, H), C0 \== C ), leave_cell_(C0, H)),
             durable_assert(atc_cells:member_(C, H)) )),
    refresh_(C).
store_cell_(cell(C, Members0, Central)) :-
    must_be(atom, C),
    must_be(list(atom), Members0),
    sort(Members0, Members),
    forall(member(H, Members),
           ( item(H) -> true ; existence_error(item, H) )),
    findall(H, member_(C, H), Old0),
    sort(Old0, Old),
    ord_subtract(Old, Members, Gone),
    ord_subtract(Members, Old, New),
    forall(member(H, Gone), durable_retract(atc_cells:member_(C, H))),
    forall(member(H, New),
           ( forall(( member_(C0, H), C0 \== C ), leave_cell_(C0, H)),
             durable_assert(atc_cells:member_(C, H)) )),
    set_info_(C, central, Central),
    refresh_(C).

% An item moving to another cell leaves its old one; that cell is refreshed by the caller's
% own cell(...) for it (the host sends every cell it changed).
leave_cell_(C0, H) :-
    durable_retract(atc_cells:member_(C0, H)).

store_adjacency_(List) :-
    must_be(list, List),
    findall(a(A, B, W), ( member(a(A0, B0, W0), List), A0 \== B0,
                          ( A = A0, B = B0 ; A = B0, B = A0 ),
                          W is round(W0 * 10000) / 10000 ), Both),
    sort(Both, New0),
    max_per_link_(New0, New),
    findall(a(A, B, W), adjacent_(A, B, W), Old0),
    sort(Old0, Old),
    ord_subtract(Old, New, Gone),
    ord_subtract(New, Old, Added),
    forall(member(a(A, B, W), Gone), durable_retract(atc_cells:adjacent_(A, B, W))),
    forall(member(a(A, B, W), Added),
           ( cell(A), cell(B) -> durable_assert(atc_cells:adjacent_(A, B, W)) ; true )).

% One weight per ordered pair: the larger, when a link was given twice.
max_per_link_([], []).
max_per_link_([a(A, B, W1), a(A, B, W2)|T], Out) :- !,
    W is max(W1, W2),
    max_per_link_([a(A, B, W)|T], Out).
max_per_link_([X|T], [X|Out]) :-
    max_per_link_(T, Out).

set_param_(K, V) :-
    durable_retract(atc_cells:param_(K, _)),
    durable_assert(atc_cells:param_(K, V)).

bump_version_ :-
    (   param_(version, V0) -> true ; V0 = 0 ),
    V is V0 + 1,
    set_param_(version, V).

set_info_(C, K, V) :-
    (   info_(C, K, V0), V0 == V
    ->  true
    ;   durable_retract(atc_cells:info_(C, K, _)),
        durable_assert(atc_cells:info_(C, K, V))
    ).

%!  cells_forget(+Handle) is det.
%   Take a forgotten item out of its cell and rebuild that cell's aggregates and ladder
%   without it (a cell left empty is dropped). Nothing happens for an item in no cell.
cells_forget(H) :-
    cells_release([H]).

%!  cells_release(+Handles:list(atom)) is det.
%   Take items out of their cells and rebuild each cell they left once, without them (a cell
%   left empty is dropped): a forgotten item, or live items whose time or place a later
%   reading of their file changed (journal_refresh/3), which curation places again as new.
%   Items in no cell are passed over.
cells_release(Hs) :-
    findall(C-H, ( member(H, Hs), member_(C, H) ), Pairs),
    (   Pairs == []
    ->  true
    ;   forall(member(C-H, Pairs), durable_retract(atc_cells:member_(C, H))),
        pairs_values(Pairs, Gone0),
        sort(Gone0, Gone),
        pairs_keys(Pairs, Cs0),
        sort(Cs0, Cs),
        forall(member(C, Cs), released_from_(C, Gone)),
        bump_version_
    ).

released_from_(C, Gone) :-
    (   info_(C, central, Central0)
    ->  exclude(released_(Gone), Central0, Central),
        set_info_(C, central, Central)
    ;   true
    ),
    (   cell_member(C, _)
    ->  refresh_(C)
    ;   drop_cell_(C)
    ).

released_(Gone, H) :-
    ord_memberchk(H, Gone).

		 /*******************************
		 *     AGGREGATES AND LADDER    *
		 *******************************/

% refresh_(+Cell): recompute the aggregates and the ladder of Cell from its live members.
refresh_(C) :-
    cells_members(C, Ms),
    length(Ms, Size),
    set_info_(C, size, Size),
    span_(Ms, Span),
    set_info_(C, span, Span),
    top_values_(Ms, entity_of_, 8, Entities),
    set_info_(C, entities, Entities),
    top_values_(Ms, tag_of_, 8, Tags),
    set_info_(C, tags, Tags),
    findall(S, ( member(H, Ms), item_segment(H, S) ), Segs0),
    sort(Segs0, Segs),
    set_info_(C, segments, Segs),
    ladder_(C, Ms, Size, Span, Entities, Tags).

span_(Ms, [From, To]) :-
    findall(T, ( member(H, Ms), item_time(H, T), T \== "" ), Ts),
    (   Ts == []
    ->  From = "", To = ""
    ;   min_member(From, Ts), max_member(To, Ts)
    ).

entity_of_(H, E) :-
    distilled(H, entity, E0),
    atom_string(E0, E).
entity_of_(H, E) :-
    member(P, [touches_file, mentions, names]),
    relation(H, P, E0),
    atom_string(E0, E).

tag_of_(H, T) :-
    distilled(H, tag, T0),
    atom_string(T0, T).

% The N values Value_2 gives most often over the members (each counted once per member),
% most frequent first, ties alphabetical.
:- meta_predicate top_values_(+, 2, +, -).
top_values_(Ms, Value_2, N, Top) :-
    findall(V, ( member(H, Ms), distinct(V, call(Value_2, H, V)) ), Vs),
    msort(Vs, Sorted),
    clumped(Sorted, Counts),
    findall(NC-V, ( member(V-C, Counts), NC is -C ), Keyed),
    keysort(Keyed, Ranked),
    findall(V, ( member(_-V, Ranked) ), All),
    (   length(All, L), L > N -> length(Top, N), append(Top, _, All) ; Top = All ).

% The cell's own ladder, stored through the ladder (rung/3; its provenance is its membership,
% which the vocabulary's provenance/2 answers from here, so a refresh rewrites three rungs and
% not a fact per member):
% L3 the skeleton (size, span, tags, entities), L1 one line naming what the region is about and
% its most central member's summary, L2 that line and the summaries of up to three central
% members. A cell summary stands for its members in a frame the way an arc stands for its steps.
ladder_(C, Ms, Size, [From, To], Entities, Tags) :-
    day_(From, D1), day_(To, D2),
    (   D1 == "" -> When = "" ; D1 == D2 -> format(string(When), " on ~w", [D1])
    ;   format(string(When), " from ~w to ~w", [D1, D2]) ),
    first_n_(4, Entities, E4),
    first_n_(4, Tags, T4),
    atomic_list_concat(E4, ', ', EText),
    atomic_list_concat(T4, ', ', TText),
    (   E4 \== [] -> format(string(About), " about ~w", [EText])
    ;   T4 \== [] -> format(string(About), " about ~w", [TText])
    ;   About = ""
    ),
    items_word_(Size, Items),
    format(string(Head), "Region of ~D ~w~w~w.", [Size, Items, When, About]),
    (   info_(C, central, Central0) -> true ; Central0 = [] ),
    include(member_of_(Ms), Central0, Central1),
    (   Central1 == [], Ms = [First|_] -> Central = [First] ; Central = Central1 ),
    findall(S, ( member(H, Central), rung(H, l1, S0), normalize_space(string(S), S0) ), Sums),
    (   Sums = [S1|_] -> format(string(L1), "~w E.g. ~w", [Head, S1]) ; L1 = Head ),
    first_n_(3, Sums, S3),
    findall(Line, ( member(S, S3), format(string(Line), "- ~w", [S]) ), Lines),
    (   T4 \== [] -> format(string(TagLine), "tags: ~w", [TText]), Extra = [TagLine] ; Extra = [] ),
    atomic_list_concat([Head|Lines], '\n', L2a),
    atomic_list_concat([L2a|Extra], '\n', L20),
    atom_string(L20, L2),
    format(string(L3a), "cell ~w · ~D ~w~w", [C, Size, Items, When]),
    (   T4 \== [] -> format(string(L3b), "~w · tags: ~w", [L3a, TText]) ; L3b = L3a ),
    (   E4 \== [] -> format(string(L3), "~w · entities: ~w", [L3b, EText]) ; L3 = L3b ),
    maplist(tokens_, [L1, L2, L3], [T1, T2, T3]),
    findall(entity-E, member(E, Entities), F1),
    findall(tag-T, member(T, Tags), F2),
    append(F1, F2, Fields),
    (   rung(C, l1, L1), rung(C, l2, L2), rung(C, l3, L3),
        findall(F-V, distilled(C, F, V), Fields)
    ->  true                            % unchanged: no journal churn
    ;   cell_sizes_(C, [L1, L2, L3], Sizes),
        ladder_store([rungs(C, 'cells@1', L1, L2, L3, t(T1, T2, T3), Fields, [])|Sizes])
    ).

% cell_sizes_(+Cell, +Rungs, -Records): the sizes of a cell's rungs (UTF-8 bytes and words,
% ladder.pl's rung_size/4) for ladder_store/1, so that a frame prices the cell by arithmetic;
% [] without the host, which counts them.
cell_sizes_(C, Rungs, Records) :-
    (   current_predicate(atc_hydrate:host_text_shape/2)
    ->  maplist(packed_size_, Rungs, [S1, S2, S3]),
        Records = [sizes(C, none, S1, S2, S3)]
    ;   Records = []
    ).

packed_size_(Text, Size) :-
    atc_hydrate:host_text_shape(Text, [Bytes, Words|_]),
    Size is Bytes << 32 + Words.

member_of_(Ms, H) :- memberchk(H, Ms).

items_word_(Size, Word) :-
    (   Size =:= 1 -> Word = item ; Word = items ).

day_(T, D) :-
    (   string_length(T, L), L >= 10 -> sub_string(T, 0, 10, _, D) ; D = "" ).

first_n_(N, L, F) :-
    (   length(L, Len), Len > N -> length(F, N), append(F, _, L) ; F = L ).

tokens_(Text, Tokens) :-
    atc_hydrate:estimate_tokens(Text, Tokens).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
