:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/ladder').
:- use_module('../../rules/cells').
:- use_module('../../rules/hydrate').
:- use_module('../../rules/grants').
:- use_module(library(plunit)).

/* The partition as facts (atc_cells): what cells_store/4 keeps, adjacency made symmetric,
   paths and regions over it, and a forgotten item leaving its cell. The host's token
   estimator is stubbed: a token per word. */

atc_hydrate:host_estimate_tokens(Text, Tokens) :-
    split_string(Text, " ", " ", Words),
    length(Words, Tokens).

item_(H, Seq, Time, Text, item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", Text,
                               [rel(H, mentions, 'Redis')])).

memory :-
    store_reset,
    findall(I, ( member(H-Q, [a1-1, a2-2, a3-3, b1-4, b2-5, c1-6, d1-7]),
                 format(string(T), "2026-02-0~wT10:00:00Z", [Q]),
                 format(string(X), "turn ~w", [H]),
                 item_(H, Q, T, X, I) ), Items),
    journal_add_items(Items, _),
    cells_store([cell(ca, [a1, a2, a3], [a2]), cell(cb, [b1, b2], [b1]), cell(cc, [c1], [c1]),
                 cell(cd, [d1], [d1])],
                [], [a(ca, cb, 0.8), a(cb, cc, 0.5), a(cc, ca, 0.1)], [t_min-0.0]).

:- begin_tests(cells, [setup(memory), cleanup(store_reset)]).

test(every_item_in_one_cell, [true(Pairs == [a1-ca, a2-ca, a3-ca, b1-cb, b2-cb, c1-cc, d1-cd])]) :-
    cells_membership(Pairs).

test(adjacency_is_stored_both_ways, [true(Links == [ca-cb-0.8, ca-cc-0.1, cb-ca-0.8, cb-cc-0.5,
                                                    cc-ca-0.1, cc-cb-0.5])]) :-
    findall(A-B-W, cell_adjacent(A, B, W), Links0),
    msort(Links0, Links).

test(neighbours_heaviest_first, [true(Ns == [cb-0.8, cc-0.1])]) :-
    cell_neighbours(ca, Ns).

test(aggregates, [true(X == 3-["2026-02-01T10:00:00Z", "2026-02-03T10:00:00Z"]-["Redis"]-[default])]) :-
    cell_info(ca, size, N), cell_info(ca, span, Span), cell_info(ca, entities, Es),
    cell_info(ca, segments, Segs),
    X = N-Span-Es-Segs.

test(the_cells_ladder, [true(L3 == "cell ca · 3 items from 2026-02-01 to 2026-02-03 · entities: Redis")]) :-
    rung(ca, l3, L3).

test(shortest_path, [true(P == [ca, cc])]) :-
    cell_path(ca, cc, P).

test(no_path_to_an_isolated_cell, [fail]) :-
    cell_path(ca, cd, _).

test(region_by_depth, [true(R0-R1 == [cb]-[ca, cb, cc])]) :-
    cell_region(cb, 0, R0),
    cell_region(cb, 1, R1).

test(region_of_an_unknown_cell, [throws(error(existence_error(cell, nope), _))]) :-
    cell_region(nope, 1, _).

test(arcs_belong_to_their_members_cells, [true(Cs == [ca, cb])]) :-
    ladder_store([arc(arc1, s, "g", [a1, b1]),
                  rungs(arc1, x, "l1", "l2", "l3", t(1, 1, 1), [], [a1, b1])]),
    findall(C, cell_of(arc1, C), Cs0),
    msort(Cs0, Cs).

test(forgetting_refreshes_the_cell, [true(X == 2-[a1, a3]-[])]) :-
    journal_tombstone(a2, "test"),
    cells_forget(a2),
    cell_info(ca, size, N), cells_members(ca, Ms), cell_info(ca, central, Central),
    X = N-Ms-Central.

test(forgetting_the_last_member_drops_the_cell, [true(X == false-[])]) :-
    journal_tombstone(d1, "test"),
    cells_forget(d1),
    ( cell(cd) -> In = true ; In = false ),
    findall(L, rung(cd, L, _), Rungs),
    X = In-Rungs.

test(a_move_and_a_drop, [true(X == [a1, a3, c1]-false-[ca-cb-0.8, cb-ca-0.8])]) :-
    cells_store([cell(ca, [a1, a3, c1], [a1])], [cc], [a(ca, cb, 0.8)], []),
    cells_members(ca, Ms),
    ( cell(cc) -> In = true ; In = false ),
    findall(A-B-W, cell_adjacent(A, B, W), Links0), msort(Links0, Links),
    X = Ms-In-Links.

test(a_member_that_is_no_item, [throws(error(existence_error(item, ghost), _))]) :-
    cells_store([cell(cb, [b1, ghost], [])], [], keep, []).

:- end_tests(cells).

/* A grantee and cells. Cells partition every item, hidden ones included: which items share a
   cell, a cell's aggregates and links, and whether all its members are visible move when the
   owner writes where a grantee cannot see. Before, bob saw cc (all members visible) and
   mounted ca with its region, ca and cc; when alice's private b3 joined cc, cc vanished from
   bob's region. Now no grantee sees a cell, or mounts one, whatever its members; the owner's
   region is unchanged. */

:- begin_tests(cells_mounted_by_a_grantee, [setup(memory), cleanup(store_reset)]).

test(no_grantee_sees_or_mounts_a_cell,
     [true(OwnerCells-OwnerSees-Seen-Mounts ==
           [ca, cb, cc]-[ca, cb, cc, cd]-[]-[ca-no, cb-no, cc-no, cd-no])]) :-
    grants_principal_add(alice, person, true),
    grants_principal_add(bob, person, false),
    grants_grant_add(g1, bob, [], l0, none),
    grants_label(b1, restriction, private),
    atc_hydrate:mount_budgets_(none, [ca], 1, 1000, [mount(ca, OwnerCells, _)-1000]),
    findall(C, ( atc_cells:cell(C), visible(alice, C, _) ), OwnerSees),
    findall(C, ( atc_cells:cell(C), visible(bob, C, _) ), Seen),
    findall(C-M, ( atc_cells:cell(C),
                   catch(( atc_hydrate:mount_budgets_(bob, [C], 1, 1000, _) -> M = yes ; M = fail ),
                         error(existence_error(cell, C), _), M = no) ),
            Mounts).

:- end_tests(cells_mounted_by_a_grantee).
