:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/ladder').
:- use_module('../../rules/hydrate').
:- use_module('../../rules/grants').
:- use_module('../../rules/cells').
:- use_module(library(plunit)).
:- use_module(library(lists)).

/* What the walk, the jump's arcs and the breadcrumbs read of memory, pinned where hydration
   reads it the cheap way: an arc's size counted to its third member, an arc member's own score
   found in a tree of the hits, the rarity of each named thing told once per frame, a
   breadcrumb's rung found from the least detailed up. Each answer is the one the plain
   reading (written out here) gives. */

item_(H, Seq, item(H, src, "s", Seq, turn, user, "", "2024-01-05T10:00:00Z", default, Pointer,
                   "text", [])) :-
    format(string(Pointer), "src:~d", [Seq]).

memory :-
    store_reset,
    numlist(0, 19, Seqs),
    findall(H, ( member(I, Seqs), atom_concat(h, I, H) ), Hs),
    maplist(item_, Hs, Seqs, Items),
    journal_add_items(Items, _),
    % arcs of 2, 3 and 12 members
    ladder_store([arc(a2, "s", "g", [h0, h1]), arc(a3, "s", "g", [h2, h3, h4]),
                  arc(a12, "s", "g", [h5, h6, h7, h8, h9, h10, h11, h12, h13, h14, h15, h16])]),
    % entity "one" held by one item, "two" by two, "eight" by eight, "nine" by nine
    findall(H-Es, ( member(I, Seqs), atom_concat(h, I, H), entities_(I, Es) ), Named),
    forall(member(H-Es, Named),
           ( findall(entity-E, member(E, Es), Fields),
             ladder_store([rungs(H, c, "summary", "distilled", "skeleton", t(3, 2, 1), Fields, [H])])
           )).

entities_(I, Es) :-
    findall(E, ( member(E-N, ["one"-1, "two"-2, "eight"-8, "nine"-9]), I < N ), Es).

% The plain readings the cheap ones stand for.
plain_story_(Id, N) :-
    item_arc(Id, Arc),
    aggregate_all(count, arc_member(Arc, _), C),
    (   C > 2 -> N = Arc ; arc_member(Arc, N), N \== Id ).

plain_rare_(E) :-
    aggregate_all(count, limit(9, ( distilled(X, entity, E), item(X) )), N),
    N >= 2, N =< 8.

:- begin_tests(hydrate_walk, [setup(memory), cleanup(store_reset)]).

test(a_seed_in_an_arc_of_two_brings_its_mate, [true(Ns == [h1])]) :-
    findall(N, atc_hydrate:story_neighbour_(none, h0, N, 0.85, arc), Ns).

test(an_arc_of_three_or_more_stands_in_for_its_members, [true(Ns-Ns12 == [a3]-[a12])]) :-
    findall(N, atc_hydrate:story_neighbour_(none, h3, N, 0.85, arc), Ns),
    findall(N, atc_hydrate:story_neighbour_(none, h9, N, 0.85, arc), Ns12).

test(story_neighbours_are_those_of_the_plain_count, [true(Cheap == Plain)]) :-
    findall(H-N, ( between(0, 19, I), atom_concat(h, I, H),
                   atc_hydrate:story_neighbour_(none, H, N, 0.85, arc) ), Cheap),
    findall(H-N, ( between(0, 19, I), atom_concat(h, I, H), plain_story_(H, N) ), Plain).

% An arc the jump lands on gives way to its members, each at half its score plus half their
% own (0 for a member no search returned), or its own when higher; a member named twice in
% the hits counts its first score (with the second, 0.1, h0 would keep its own 0.6).
test(an_arc_opens_into_its_members_by_their_first_score,
     [true(Out == [h0-0.7, h1-0.4])]) :-
    atc_hydrate:open_arcs_(default, [a2-0.8, h0-0.6, h0-0.1, x-0.0], Out0),
    exclude([K-_]>>(K == x), Out0, Out).

test(a_member_no_search_returned_counts_zero, [true(S =:= 0.4)]) :-
    atc_hydrate:open_arcs_(default, [a2-0.8], Out),
    memberchk(h1-S, Out).

test(rare_entities_are_those_held_by_two_to_eight_items, [true(Rare == ["eight", "two"])]) :-
    atc_hydrate:rare_entities_(none, [c(h0, 1.0, relevance, 0, seed),
                                      c(h1, 0.5, relevance, 0, seed)], Rare).

test(rare_entities_agree_with_the_plain_count, [true(Rare == Plain)]) :-
    atc_hydrate:rare_entities_(none, [c(h0, 1.0, relevance, 0, seed)], Rare),
    findall(E, ( member(E, ["eight", "nine", "one", "two"]), plain_rare_(E) ), Plain).

test(a_breadcrumb_is_the_least_detailed_rung_under_the_ceiling,
     [true(Got == [l3, l3, l3, l3, l0])]) :-
    findall(L, ( member(Id-C, [h0-l0, h0-l1, h0-l2, h0-l3, unrung-l0]),
                 ( Id == unrung -> journal_add_items([item(unrung, src, "s", 99, turn, user, "",
                                                          "", default, "src:99", "bare", [])], _)
                 ; true ),
                 atc_hydrate:least_detailed_level_(Id, C, L) ),
            Got).

test(the_least_detailed_rung_is_the_last_available_level, [true(Cheap == Plain)]) :-
    findall(L, ( member(C, [l0, l1, l2, l3]), atc_hydrate:least_detailed_level_(h4, C, L) ), Cheap),
    findall(L, ( member(C, [l0, l1, l2, l3]), atc_hydrate:available_levels_(h4, C, Ls),
                 last(Ls, L) ), Plain).

% For a grantee an entity is rare by the holders they see: bob, granted the two items naming
% "two", sees two holders of "eight" and of "nine" (held by eight and nine items), so both are
% rare for him, as "nine" is not for the owner. Hidden holders made them common: no bridge
% for him, and a hint that records he cannot see name them.
test(a_grantees_rare_entities_count_the_holders_they_see,
     [true(Bob-Owner == ["eight", "nine", "two"]-["eight", "two"])]) :-
    grants_principal_add(alice, person, true),
    grants_principal_add(bob, person, false),
    grants_grant_add(g1, bob, [entity("two")], l2, none),
    atc_hydrate:rare_entities_(bob, [c(h0, 1.0, relevance, 0, seed)], Bob),
    atc_hydrate:rare_entities_(none, [c(h0, 1.0, relevance, 0, seed)], Owner).

:- end_tests(hydrate_walk).

/* A named thing two records the grantee sees hold, that hundreds they cannot see hold too:
   rare for them, as in a home without the hidden ones. The count of holders stopped at the
   first 400 read, visible or not, and called the thing common past them: no bridge for the
   grantee, and a sign that records hidden from them name it (the owner's frame alone may
   find it common). Two visible holders in segment `pay`, 420 hidden ones in `sec`, read
   first. */

holder_(H, Session, Segment, Seq, item(H, src, Session, Seq, turn, user, "", "2024-01-05T10:00:00Z",
                                       Segment, Pointer, "text", [])) :-
    format(string(Pointer), "src:~d", [Seq]).

% hidden_items_(+Make, -Items): the 420 items x0..x419 of session "hidden" in segment sec,
% each made by call(Make, Handle, Session, Segment, Seq, Item), read before the visible ones.
hidden_items_(Make, Items) :-
    numlist(0, 419, Is),
    findall(H, ( member(I, Is), atom_concat(x, I, H) ), Xs),
    maplist([H, I, It]>>call(Make, H, "hidden", sec, I, It), Xs, Is, Items).

hidden_holders :-
    store_reset,
    hidden_items_(holder_, Hidden),
    holder_(v0, "seen", pay, 500, V0),
    holder_(v1, "seen", pay, 501, V1),
    append(Hidden, [V0, V1], Items),
    journal_add_items(Items, _),
    forall(member(H, [v0, v1|Xs]),
           ladder_store([rungs(H, c, "summary", "distilled", "skeleton", t(3, 2, 1),
                               [entity-"Halvorsen"], [H])])),
    grants_principal_add(alice, person, true),
    grants_principal_add(bob, person, false),
    grants_principal_add(carol, person, false).

:- begin_tests(hydrate_walk_hidden_holders, [setup(hidden_holders), cleanup(store_reset)]).

test(hidden_holders_leave_a_thing_rare_for_a_reader_of_whole_segments,
     [true(Bob-Owner == ["Halvorsen"]-[])]) :-
    grants_grant_add(g1, bob, [segment(pay)], l2, none),
    atc_hydrate:rare_entities_(bob, [c(v0, 1.0, relevance, 0, seed)], Bob),
    atc_hydrate:rare_entities_(none, [c(v0, 1.0, relevance, 0, seed)], Owner).

test(hidden_holders_leave_a_thing_rare_for_a_reader_with_a_kept_set,
     [true(Carol == ["Halvorsen"])]) :-
    grants_grant_add(g2, carol, [session("seen")], l2, none),
    atc_grants:reader_records(carol, _),        % the set is kept: the searches read it
    atc_hydrate:rare_entities_(carol, [c(v0, 1.0, relevance, 0, seed)], Carol).

% A grant of the whole home with the hidden holders labelled private, in a home past the
% reader's set limit: no kept set and no segment to list, so the count stopped at the first
% 400 holders read and called the thing common for dave.
test(hidden_holders_leave_a_thing_rare_for_a_reader_of_the_whole_home_past_the_limit,
     [ setup(unlisted_reader_(dave, l2)), cleanup(unsetenv('ATC_READER_SET_LIMIT')),
       true(Dave == ["Halvorsen"]) ]) :-
    \+ atc_grants:reader_records(dave, _),
    atc_hydrate:rare_entities_(dave, [c(v0, 1.0, relevance, 0, seed)], Dave).

:- end_tests(hydrate_walk_hidden_holders).

/* The walk's neighbours of a seed by a file it touches or the goal it serves, for a grantee:
   the records they see, as in a home without the hidden ones. The walk took the first five
   records touching the file (six serving the goal), hidden ones included, and only then left
   out what the reader may not see: 420 hidden records, written first, touching the same file
   and serving the same goal left a grantee's seed with no such neighbour at all. */

linked_(H, Session, Segment, Seq, item(H, src, Session, Seq, turn, assistant, "fix the ledger",
                                        "2024-01-05T10:00:00Z", Segment, Pointer, "text",
                                        [rel(H, touches_file, 'ledger.py')])) :-
    format(string(Pointer), "src:~d", [Seq]).

hidden_neighbours :-
    store_reset,
    hidden_items_(linked_, Hidden),
    findall(It, ( member(H-Q, [v0-0, v1-5, v2-10]), linked_(H, "seen", pay, Q, It) ), Seen),
    append(Hidden, Seen, Items),
    journal_add_items(Items, _),
    grants_principal_add(alice, person, true),
    grants_principal_add(bob, person, false),
    grants_principal_add(carol, person, false),
    grants_grant_add(g1, bob, [segment(pay)], l0, none),
    grants_grant_add(g2, carol, [session("seen")], l0, none).

% unlisted_reader_(+Reader, +Ceiling): Reader holds a grant of the whole home, every record
% of segment sec is private, and the home is past the reader's set limit (10 items here).
unlisted_reader_(Reader, Ceiling) :-
    setenv('ATC_READER_SET_LIMIT', 10),
    (   principal(Reader, _) -> true ; grants_principal_add(Reader, person, false) ),
    forall(( item(H), item_segment(H, sec), \+ grants_labelled(H) ),
           grants_label(H, restriction, private)),
    (   grant(_, _, Reader, [], _, _) -> true
    ;   atom_concat(g_, Reader, Id), grants_grant_add(Id, Reader, [], Ceiling, none)
    ).

walk_neighbours_(Reader, Id, Role, Ns) :-
    findall(N, ( atc_hydrate:neighbour_(_{reader: Reader, trajectory: 0.5}, Id, N, _, Role),
                 atc_hydrate:readable_(Reader, N) ),
            Ns0),
    sort(Ns0, Ns).

:- begin_tests(hydrate_walk_hidden_neighbours,
               [setup(hidden_neighbours), cleanup(store_reset)]).

test(a_grantees_seed_reaches_the_records_they_see_past_hidden_ones,
     [true(Bob-Carol == [v1, v2]-[v1, v2])]) :-
    walk_neighbours_(bob, v0, near, Bob),
    walk_neighbours_(carol, v0, near, Carol).

% As above for a grantee of the whole home, the hidden records labelled private, past the
% reader's set limit (no kept set, no segment to list): the walk stopped at the first 400
% records read and left dave's seed no neighbour by the file or the goal.
test(a_whole_home_grantees_seed_reaches_the_records_they_see_past_the_limit,
     [ setup(unlisted_reader_(dave, l0)), cleanup(unsetenv('ATC_READER_SET_LIMIT')),
       true(Dave == [v1, v2]) ]) :-
    \+ atc_grants:reader_records(dave, _),
    walk_neighbours_(dave, v0, near, Dave).

test(the_owners_walk_still_takes_the_first_records_it_reads, [true(N == 11)]) :-
    findall(X, atc_hydrate:neighbour_(_{reader: none, trajectory: 0.5}, v0, X, _, near), Xs),
    length(Xs, N).                      % five by the file, six by the goal, as before

:- end_tests(hydrate_walk_hidden_neighbours).

/* A cell holding items of two segments is adjacent in each: the central members it offers
   a segment's frame are that segment's own (one of the other segment's became this frame's
   fact while the other frame listed it past its edge). A cell's ladder is counted by the
   host's estimator, stubbed here: a token per word. */

atc_hydrate:host_estimate_tokens(Text, Tokens) :-
    split_string(Text, " ", " ", Words),
    length(Words, Tokens).

two_segment_cells :-
    store_reset,
    findall(item(H, src, "s", Seq, turn, user, "", "2024-01-05T10:00:00Z", Seg, "src:1",
                 "text", []),
            member(H-Seq-Seg, [x1-1-left, y1-2-right, y2-3-left]), Items),
    journal_add_items(Items, _),
    cells_store([cell(cx, [x1], [x1]), cell(cy, [y1, y2], [y1, y2])], [], [a(cx, cy, 0.9)], []).

:- begin_tests(hydrate_walk_cells, [setup(two_segment_cells), cleanup(store_reset)]).

test(an_adjacent_cells_central_members_are_of_the_frames_segment,
     [true(Left-Right == [cy, y2]-[cy, y1])]) :-
    findall(H, atc_hydrate:ring_candidate_(1, left, [cy-1.0], [x1], c(H, _, _, _, _)), Left),
    findall(H, atc_hydrate:ring_candidate_(1, right, [cy-1.0], [], c(H, _, _, _, _)), Right).

:- end_tests(hydrate_walk_cells).
