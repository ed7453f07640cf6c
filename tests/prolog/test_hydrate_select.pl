:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/ladder').
:- use_module('../../rules/hydrate').
:- use_module('../../rules/cells').
:- use_module(library(plunit)).

/* Which candidates a frame takes to its fit (atc_hydrate:select_facts_/6): as many as their
   sizes call for, up to the plane's fact cap, and never a near-duplicate of one already taken.
   The host's token estimator is stubbed: a token per word. The records are tool output (no
   speaker label), but for the test of labels. */

atc_hydrate:host_estimate_tokens(Text, Tokens) :-
    split_string(Text, " ", " ", Words),
    length(Words, Tokens).

item_(H, Seq, Text, Item) :-
    item_(H, Seq, tool, Text, Item).

item_(H, Seq, Role, Text, item(H, src, "s", Seq, Kind, Role, "", "2024-01-05T10:00:00Z", default,
                               "f:1", Text, [])) :-
    ( Role == tool -> Kind = tool_result ; Kind = turn ).

words_(N, Word, Text) :-
    length(Ws, N), maplist(=(Word), Ws),
    atomic_list_concat(Ws, ' ', A), atom_string(A, Text).

memory :-
    store_reset,
    Dup = "Pre-commit validation failed: the hook rejected the commit",
    maplist(item_, [d1, d2, d3, diag], [0, 1, 2, 3],
            [Dup, Dup, "Pre-commit validation failed: the hook rejected the commit again",
             "ruff E501: src/retry.py line 42 is too long"], Dups),
    findall(I, ( between(1, 40, K), atom_concat(s, K, H), format(string(T), "short turn ~w", [K]),
                 item_(H, K, T, I) ), Short),
    words_(100, long, LongText),
    findall(I, ( between(1, 10, K), atom_concat(l, K, H), format(string(T), "~w ~w", [LongText, K]),
                 item_(H, K, T, I) ), Long),
    item_(n1, 60, "the tomatoes in the garden got watered by the hose on day 3", N1),
    item_(n2, 61, "the tomatoes in the garden got watered by the hose on day 9", N2),
    Run = "Pre-commit validation failed: mix dialyzer found that the pattern can never match the type returned by the tracer call in lib/trace.ex:58 of the spotter application; Total errors: 2, Skipped: 0, Unnecessary Skips: 0; done in ",
    findall(I, ( member(H-Seq-Took, [t1-70-"0m12.09s at 14:05:33", t2-71-"0m12.13s at 14:07:10",
                                     t3-72-"340ms at 14:09:02.120"]),
                 string_concat(Run, Took, T), item_(H, Seq, T, I) ), Timed),
    item_(r1, 80, "the dialyzer runner allows at most 3 retries per check at 14:05", R1),
    item_(r2, 81, "the dialyzer runner allows at most 9 retries per check at 14:05", R2),
    item_(sys, 90, "You are an agent: fix the bug", Sys0),
    setarg(6, Sys0, system),
    item_(u1, 100, user, "I moved to Lisbon in May", U1),
    item_(a1, 101, assistant, "I moved to Lisbon in May", A1),
    item_(p1, 102, user, "I moved to Lisbon in May", P1),
    item_(f1, 103, "the retry policy stops at five attempts", F1),
    item_(o1, 104, assistant, "read src/payments/retry.py", O1),
    Kept = "I need to organize my closet this weekend and I am looking forward to storing my old sneakers in a shoe rack",
    item_(k1, 110, user, Kept, K1),
    item_(k2, 111, user, "I need to organize my closet this weekend and I am looking forward to getting rid of my old sneakers in a shoe rack", K2),
    item_(k3, 112, user, Kept, K3),
    setarg(5, O1, file_op),
    setarg(12, P1, [rel(p1, speaker, 'Priya')]),
    append([Dups, Short, Long, [N1, N2], Timed, [R1, R2, Sys0], [U1, A1, P1, F1, O1, K1, K2, K3]], Items),
    journal_add_items(Items, _).

cands_(Ids, Cands) :-
    length(Ids, N),
    findall(c(Id, S, relevance, 0, seed),
            ( nth1(I, Ids, Id), S is 1 - I / (N + 1) ), Cands).

% Selection on its own: the line heading each fact costs nothing here (framing(0, 0, 0)), but in
% the last test.
select_(Ids, Cap, Budget, Taken, Suppressed) :-
    select_(Ids, Cap, framing(0, 0, 0), Budget, Taken, Suppressed).

select_(Ids, Cap, Framing, Budget, Taken, Suppressed) :-
    cands_(Ids, Cands),
    atc_hydrate:select_facts_(Cands, _{ceiling: l0, fact_cap: Cap, fact_framing: Framing},
                              Budget, Placed, _, Suppressed),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), Placed), Taken).

:- begin_tests(hydrate_select, [setup(memory), cleanup(store_reset)]).

test(a_near_duplicate_gives_way_to_the_next_distinct_fact,
     [true(Taken-Suppressed == [d1, diag]-[redundant(d2, d1, 1.0), redundant(d3, d1, 0.88)])]) :-
    select_([d1, d2, d3, diag], 80, 1000, Taken, Suppressed).

test(short_records_make_many_facts, [true(N == 10)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 80, 30, Taken, []),      % 3 tokens each, until they hold the budget
    length(Taken, N).

test(long_records_make_few_facts, [true(N == 4)]) :-
    findall(H, ( between(1, 10, K), atom_concat(l, K, H) ), Ids),
    select_(Ids, 80, 100, Taken, []),     % 101 tokens each: the floor of four facts
    length(Taken, N).

test(a_large_budget_offers_a_fact_per_50_tokens_at_least, [true(N == 10)]) :-
    findall(H, ( between(1, 10, K), atom_concat(l, K, H) ), Ids),
    select_(Ids, 80, 500, Taken, []),     % 1010 tokens offered for 500: the floor is 10
    length(Taken, N).

% A plane's fact_cap counts facts of a full share of the reference budget (2000 tokens / cap):
% a short fact counts less, at least a quarter share, so a cap of 5 takes 20 short facts at
% most, at a budget up to the reference's.
test(the_planes_fact_cap_is_a_hard_bound, [true(N == 20)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 5, 1000, Taken, []),
    length(Taken, N).

% Above the reference budget the bound grows with the budget (it was a count whatever the
% budget, and a large frame of short facts ended at a tenth of its budget).
test(the_planes_fact_cap_scales_with_the_budget, [true(N == 30)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 5, 3000, Taken, []),     % room 3000, a quarter share (100 tokens) each
    length(Taken, N).

test(a_number_the_other_lacks_is_a_fact_of_its_own, [true(Suppressed == [])]) :-
    select_([n1, n2], 80, 1000, _, Suppressed).

test(numbers_that_only_time_a_run_do_not_make_two_facts,
     [true(Taken-Suppressed == [t1]-[redundant(t2, t1, 0.85), redundant(t3, t1, 0.81)])]) :-
    select_([t1, t2, t3], 80, 1000, Taken, Suppressed).

test(a_clock_time_without_seconds_and_another_count_still_do, [true(Suppressed == [])]) :-
    select_([r1, r2], 80, 1000, _, Suppressed).

test(a_fact_shown_in_the_words_of_one_before_it_is_left_out,
     [true(Kept-Suppressed == [t1, t3, diag]-[redundant(t2, t1, 1.0)])]) :-
    % t1 and t2 differ at L0 (another timing) but share their one-line summary; at L0 (their
    % most detailed rung, which selection compared) t3 and diag are left as they are
    forall(member(Id, [t1, t2]),
           ladder_store([rungs(Id, 'extractive@1', "Pre-commit validation failed: [DIALYZER]",
                               "errors: 2", "dialyzer", t(6, 2, 1), [], [Id])])),
    findall(p(c(Id, 1.0, relevance, 0, seed), Lv, 10, [l0-40, l1-6]),
            member(Id-Lv, [t1-l1, t2-l1, t3-l0, diag-l0]), Placed),
    atc_hydrate:distinct_shown_(Placed, KeptP, Suppressed),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), KeptP), Kept).

% What a person says repeats only in the same words: a message sent again with one phrase
% changed is how someone updates what they said (tool output repeats at 80 % of its words).
test(a_person_saying_it_again_with_a_change_is_two_facts,
     [true(Changed-Same == []-[redundant(k3, k1, 1.0)])]) :-
    select_([k1, k2], 80, 1000, _, Changed),
    select_([k1, k3], 80, 1000, _, Same).

test(a_system_message_counts_half, [true(Out == [diag-0.6, sys-0.4])]) :-
    atc_hydrate:instructions_prior_([sys-0.8, diag-0.6], Out).

test(the_line_heading_each_fact_is_part_of_its_cost, [true(N-M == 10-34)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 80, framing(7, 12, 15), 100, Taken, []),   % 3 + 7 tokens each: ten hold 100
    length(Taken, N),
    select_(Ids, 80, framing(0, 0, 0), 100, Bare, []),  % without the lines: 34
    length(Bare, M).

% A turn says who said it: the transcript's name, else the unnamed party's role; tool output,
% system text and file operations stand as they are. The label is part of what the fact costs and says (the
% same words from the user and from the assistant are two facts).
test(a_turn_is_labelled_with_who_said_it,
     [true(Labels-Extra-Suppressed ==
           ["user: ", "assistant: ", "Priya: ", none, none]-[1, 1, 1, 0, 0]-[])]) :-
    Ids = [u1, a1, p1, diag, o1],           % o1: the assistant's file operation
    findall(L, ( member(Id, Ids), ( atc_hydrate:speaker_label_(Id, L0) -> L = L0 ; L = none ) ),
            Labels),
    findall(E, ( member(Id, Ids), atc_ladder:rung(Id, l0, Text),
                 atc_hydrate:host_estimate_tokens(Text, Own),
                 atc_hydrate:fact_tokens_(Id, l0, T), E is T - Own ), Extra),
    select_([u1, a1, p1], 80, 1000, _, Suppressed).

% A frame tells each record's label once and keeps it to the frame's end: the same labels as
% told from the journal, and the next frame (or a query outside a frame) sees a speaker named
% since.
labels_(Ids, Labels) :-
    findall(L, ( member(Id, Ids), ( atc_hydrate:speaker_label_(Id, L0) -> L = L0 ; L = none ) ),
            Labels).

test(a_frame_keeps_each_label_and_the_next_frame_sees_a_new_speaker,
     [true([InFrame, InFrameAgain, NextFrame, Outside] == [Plain, Plain, Named, Named]),
      cleanup(retractall(atc_journal:relation_(u1, speaker, 'Ana')))]) :-
    Ids = [u1, a1, p1, diag, o1, u1],
    labels_(Ids, Plain),
    atc_hydrate:frame_memos_,
    labels_(Ids, InFrame),
    labels_(Ids, InFrameAgain),
    assertz(atc_journal:relation_(u1, speaker, 'Ana')),
    atc_hydrate:frame_memos_,               % the next frame
    labels_(Ids, NextFrame),
    b_setval(atc_labels_kept, []),          % a query outside a frame
    labels_(Ids, Outside),
    Named = ["Ana: ", "assistant: ", "Priya: ", none, none, "Ana: "].

% A fact starts at its role's rung unless a more detailed one costs no more: a short record's
% summary is its text, and the line heading a derived rung (it names the handle) makes it the
% dearer of the two.
test(a_fact_starts_at_a_more_detailed_rung_that_costs_no_more, [true(Level-Tokens == l0-7)]) :-
    Text = "the retry policy stops at five attempts",
    ladder_store([rungs(f1, 'extractive@1', Text, Text, "#turn", t(7, 7, 1), [], [f1])]),
    atc_hydrate:fovea_(_{ceiling: l0, fact_framing: framing(0, 12, 15)},
                       c(f1, 0.5, cell_adjacency, 1, near), p(_, Level, Tokens, _)).

% A refill round compares its candidates with the facts kept, and takes each kept fact's sig
% from the selection (select_facts_/7): the word set the selection made for it (d1's, made to
% compare d2 and d3 with it) is the one the round compares with, not made a second time.
test(a_refill_round_takes_the_selections_sigs, [true(Same-Again == true-[redundant(d2, d1, 1.0)])]) :-
    cands_([d1, d2, d3, diag], Cands),
    Settings = _{ceiling: l0, fact_cap: 80, fact_framing: framing(0, 0, 0)},
    atc_hydrate:select_facts_(Cands, Settings, 1000, Placed, _, _, Sigs),
    D1 = sig(d1, _, _, Words, _),
    memberchk(D1, Sigs),
    assertion(nonvar(Words)),
    atc_hydrate:sigs_by_handle_(Sigs, Known),
    memberchk(P1, Placed), P1 = p(c(d1, _, _, _, _), _, _, _),
    atc_hydrate:known_sig_(Known, P1, sig(d1, _, _, WordsAgain, _)),
    (   same_term(Words, WordsAgain) -> Same = true ; Same = false ),
    % the round: d2 offered again beside the kept d1 is still its near-duplicate
    cands_([d2], Pool),
    atc_hydrate:select_facts_(Pool, s(Settings, 1000, Known), 1000, 0, 1000,
                              [D1], _, _, Again, _).

:- end_tests(hydrate_select).

/* A seed's own story in the cell walk (story_neighbour_/5, read as the owner): the turns just before and after it
   in its session, never the items at those positions of another session, nor a forgotten one. */

story_memory :-
    store_reset,
    findall(item(H, src, S, Q, turn, user, "", "", default, "f:1", "a turn", []),
            member(H-S-Q, [a0-"sa"-0, a1-"sa"-1, a2-"sa"-2, a3-"sa"-3, b1-"sb"-1, b2-"sb"-2]),
            Items),
    journal_add_items(Items, _).

:- begin_tests(hydrate_story, [setup(story_memory), cleanup(store_reset)]).

test(a_seeds_turns_before_and_after_it_in_its_session, [true(Near == [a0, a2])]) :-
    findall(N, atc_hydrate:story_neighbour_(none, a1, N, _, near), Near).

test(the_first_turn_has_only_the_next, [true(Near == [b2])]) :-
    findall(N, atc_hydrate:story_neighbour_(none, b1, N, _, near), Near).

test(a_tombstoned_neighbour_is_not_in_the_story, [true(Near == [a1])]) :-
    journal_tombstone(a3, "test"),
    findall(N, atc_hydrate:story_neighbour_(none, a2, N, _, near), Near).

:- end_tests(hydrate_story).

/* Breadcrumbs (atc_hydrate:breadcrumbs_/6): what lies past the facts, a skeleton each, best
   first, while they fit what the facts left. Each short turn costs 3 tokens and its line 2. */

crumbs_of_(Count, Budget, Ids, Inferences) :-
    findall(c(H, 0.5, relevance, 0, reserve), ( between(1, Count, K), atom_concat(s, K, H) ), Outside),
    Settings = _{ceiling: l0, crumb_framing: 2, edge_framing: edge(1, 1)},
    statistics(inferences, I0),
    once(atc_hydrate:breadcrumbs_(Outside, default, Settings, Budget, Crumbs, _)),
    statistics(inferences, I1),
    Inferences is I1 - I0,
    findall(Id, member(crumb(Id, _, _, _, _, _), Crumbs), Ids).

:- begin_tests(hydrate_crumbs, [setup(memory), cleanup(store_reset)]).

test(crumbs_are_taken_best_first_while_they_fit, [true(Ids == [s1, s2])]) :-
    crumbs_of_(40, 12, Ids, _).            % heading 1, two crumbs of 5: 11

% A frame that spent its budget has hundreds of candidates past it; once not even a crumb's
% line fits, none of them can, and looking at each one's rungs cost ~2 ms a frame at 100k.
test(candidates_past_a_spent_budget_are_not_looked_at, [true(Many == Few)]) :-
    crumbs_of_(10, 12, _, Few),
    crumbs_of_(400, 12, _, Many).

:- end_tests(hydrate_crumbs).

/* One candidate per record (atc_hydrate:best_per_id_/2): the walk, the bridge and the merge
   each find a record more than once; the best scored stays, the first given of those tied,
   and the records come in their order. */

:- begin_tests(hydrate_best_per_id).

test(the_best_of_each_record_in_record_order,
     [true(Best == [c(a, 0.9, seed, 0, x), c(b, 0.5, near, 1, y), c(c, 0.2, far, 2, z)])]) :-
    atc_hydrate:best_per_id_([c(b, 0.3, near, 1, w), c(c, 0.2, far, 2, z), c(a, 0.4, near, 1, v),
                              c(b, 0.5, near, 1, y), c(a, 0.9, seed, 0, x)], Best).

test(of_those_tied_the_first_given_stays,
     [true(Best == [c(a, 0.5, bridge(s, e), 1, near), c(b, 1.0, near, 1, near)])]) :-
    atc_hydrate:best_per_id_([c(b, 1.0, near, 1, near), c(a, 0.5, bridge(s, e), 1, near),
                              c(a, 0.5, walk, 1, near), c(b, 1.0, seed, 0, seed)], Best).

test(none, [true(Best == [])]) :-
    atc_hydrate:best_per_id_([], Best).

:- end_tests(hydrate_best_per_id).

/* The best score among a segment's facts (best_score_/2): the frame's best placed fact
   (frame_best_score_/2) and what a segment that left candidates out says of the best of them
   (`more`). A score that is no number is passed over, as aggregate_all/3's number(S) did. */

:- begin_tests(hydrate_best_score).

test(of_candidates_the_highest, [true(Best =:= 0.9)]) :-
    atc_hydrate:best_score_([c(a, 0.4, seed, 0, x), c(b, 0.9, near, 1, y), c(c, 0.2, far, 2, z)],
                            Best).

test(of_placed_facts_the_highest, [true(Best =:= 0.7)]) :-
    atc_hydrate:best_score_([p(c(a, 0.7, seed, 0, x), l0, 12, []),
                             p(c(b, 0.1, near, 1, y), l1, 5, [])], Best).

test(a_score_that_is_no_number_is_passed_over, [true(Best =:= 0.3)]) :-
    atc_hydrate:best_score_([c(a, none, seed, 0, x), c(b, 0.3, near, 1, y)], Best).

test(none_scored, [fail]) :-
    atc_hydrate:best_score_([c(a, none, seed, 0, x)], _).

test(none, [fail]) :-
    atc_hydrate:best_score_([], _).

test(a_segment_that_left_candidates_out_says_the_best_of_them,
     [true(Meta == meta{segment: s, more: 0.6})]) :-
    atc_hydrate:more_left_out_([c(a, 0.2, seed, 0, x), c(b, 0.6, near, 1, y)], meta{segment: s},
                               Meta).

test(a_segment_that_showed_all_it_found_says_nothing, [true(Meta == meta{segment: s})]) :-
    atc_hydrate:more_left_out_([], meta{segment: s}, Meta).

:- end_tests(hydrate_best_score).

/* A fact's heading line (fovea_/3 prices each rung with it): the timed one for a record with a
   time, the untimed one for a record without (its heading shows none). */

framing_memory :-
    store_reset,
    journal_add_items([item(timed, src, "s", 1, tool_result, tool, "", "2024-01-05T10:00:00Z",
                            default, "f:1", "three words here", []),
                       item(untimed, src, "s", 2, tool_result, tool, "", "", default, "f:2",
                            "three words here", [])], _).

priced_(Id, Rungs) :-
    Settings = _{ceiling: l0, fact_framing: framing(framing(10, 20, 30), framing(1, 2, 3))},
    atc_hydrate:fovea_(Settings, c(Id, 0.5, relevance, 0, seed), p(_, _, _, Rungs)).

:- begin_tests(hydrate_fact_framing, [setup(framing_memory), cleanup(store_reset)]).

test(a_record_with_a_time_pays_the_timed_line, [true(Rungs == [l0-13])]) :-
    priced_(timed, Rungs).

test(a_record_without_one_pays_the_untimed_line, [true(Rungs == [l0-4])]) :-
    priced_(untimed, Rungs).

:- end_tests(hydrate_fact_framing).

/* The near-duplicate test's Jaccard index (jaccard_/4): whatever its filters skip, it finds a
   pair at or above the threshold exactly when the word sets' true index is there, and then
   reports that index. Seeded random word sets, most of them edits of one another. */

random_words_(N, Words) :-
    length(Ws0, N),
    maplist([W]>>( random_between(1, 60, K), format(string(W), "w~d", [K]) ), Ws0),
    sort(Ws0, Words).

edited_(Words0, Words) :-                   % drop some words, add some
    include([_]>>( random(X), X > 0.12 ), Words0, Kept),
    random_between(0, 3, NAdd),
    random_words_(NAdd, Added),
    ord_union(Kept, Added, Words).

true_jaccard_([], [], 1.0) :- !.
true_jaccard_(A, B, J) :-
    ord_intersection(A, B, I), length(I, NI),
    ord_union(A, B, U), length(U, NU),
    J is NI / NU.

% jaccard_mismatches_(+Pairs, -Wrong, -Hits): the pairs whose jaccard_/4 answer at the 0.8
% threshold differs from the plain index (true_jaccard_/3), and how many pairs reach it.
jaccard_mismatches_(Pairs, Wrong, Hits) :-
    findall(A-B-J-Want,
            ( member(A-B, Pairs),
              atc_hydrate:word_set_(A, WA), atc_hydrate:word_set_(B, WB),
              atc_hydrate:jaccard_(WA, WB, 0.8, J),
              true_jaccard_(A, B, Want),
              \+ ( Want >= 0.8 -> J =:= Want ; J < 0.8 ) ),
            Wrong),
    aggregate_all(count, ( member(A-B, Pairs), true_jaccard_(A, B, J), J >= 0.8 ), Hits).

:- begin_tests(hydrate_jaccard).

test(a_pair_passes_exactly_when_its_index_reaches_the_threshold, [true(Wrong == [])]) :-
    set_random(seed(42)),
    findall(A-B, ( between(1, 3000, _),
                   random_between(0, 30, N), random_words_(N, A),
                   ( random(X), X < 0.7 -> edited_(A, B) ; random_between(0, 30, M),
                                                           random_words_(M, B) ) ),
            Pairs),
    jaccard_mismatches_(Pairs, Wrong, Hits),
    assertion(Hits > 300).                  % the threshold's side is exercised

% Sets of up to 300 words fill most of a 224-bit signature (word_bits_/2): the bound the
% signatures give grows weak, and must still never reject a pair the threshold admits.
test(long_word_sets_pass_exactly_when_their_index_reaches_the_threshold, [true(Wrong == [])]) :-
    set_random(seed(7)),
    findall(A-B, ( between(1, 400, _),
                   random_between(40, 300, N), long_words_(N, A),
                   ( random(X), X < 0.8 -> long_edit_(A, B) ; random_between(40, 300, M),
                                                                long_words_(M, B) ) ),
            Pairs),
    jaccard_mismatches_(Pairs, Wrong, Hits),
    assertion(Hits > 40).

% The signatures' bound (bits_apart_/3) against its plain reading: never more than the words
% in one set only, and equal to it where no two words of the pair share a bit.
test(signature_bound_never_exceeds_the_words_in_one_set_only, [true(Wrong == [])]) :-
    set_random(seed(11)),
    findall(A-B, ( between(1, 2000, _),
                   random_between(0, 40, N), long_words_(N, A),
                   random_between(0, 40, M), long_words_(M, B) ),
            Pairs),
    findall(A-B-Least-Apart,
            ( member(A-B, Pairs),
              atc_hydrate:word_bits_(A, BA), atc_hydrate:word_bits_(B, BB),
              atc_hydrate:bits_apart_(BA, BB, Least),
              ord_symdiff(A, B, Only), length(Only, Apart),
              Least > Apart ),
            Wrong).

% The pair's arithmetic on integers (near_duplicate_share_/2, word_set_/2's Least) rejects and
% bounds as the float products of near_duplicate_/1 did: the sizes' test for every pair of
% counts up to 400, and the words two sets may hold apart for every summed size up to 50,000.
test(integer_filters_answer_as_the_float_products, [true(Wrong == [])]) :-
    atc_hydrate:near_duplicate_(Min),
    atc_hydrate:near_duplicate_share_(P, Q),
    assertion(abs(P / Q - Min / (1 + Min)) < 1.0e-12),
    findall(count(LA, LB),
            ( between(0, 400, LA), between(0, 400, LB),
              Least is ceiling(Min * max(LA, LB)),
              (   min(LA, LB) < Min * max(LA, LB) -> Float = true ; Float = false ),
              (   min(LA, LB) < Least -> Int = true ; Int = false ),
              Float \== Int ),
            Wrong1),
    findall(sum(Sum),
            ( between(0, 50000, Sum),
              Float is Sum - 2 * ceiling(Min * Sum / (1 + Min) - 1.0e-9),
              Int is Sum - 2 * ((P * Sum + Q - 1) // Q),
              Float =\= Int ),
            Wrong2),
    append(Wrong1, Wrong2, Wrong).

test(signature_bound_is_exact_for_two_words) :-
    atc_hydrate:word_bits_(["alpha"], BA), atc_hydrate:word_bits_(["beta"], BB),
    atc_hydrate:bits_apart_(BA, BA, 0),
    atc_hydrate:bits_apart_(BA, BB, Least),
    term_hash("alpha", HA), term_hash("beta", HB),
    (   HA mod 224 =:= HB mod 224 -> Least == 0 ; Least == 2 ).

:- end_tests(hydrate_jaccard).

/* Which words and texts hold a digit (atc_hydrate:holds_digit_/1: the sentences compared on a
   goal's words leave them out, and a record's numbers are its words that hold one). A word is
   walked by its codes, a long text split at the digits: either tells what the split of any
   text at "0123456789" tells, the digits of other scripts (Arabic-Indic, full width) not
   counted, for strings and atoms, short and long. */

digit_split_(Text) :-
    split_string(Text, "0123456789", "", [_, _|_]).

random_text_(Text) :-
    random_between(0, 90, N),
    length(Cs, N),
    maplist([C]>>( random_member(C, [0'a, 0'Z, 0' , 0'_, 0'., 0'0, 0'5, 0'9, 0'/, 0'\x663, 0'\xFF13, 0'\xE9]) ), Cs),
    (   maybe -> string_codes(Text, Cs) ; atom_codes(Text, Cs) ).

:- begin_tests(hydrate_digits).

test(a_digit_is_0_to_9_anywhere_in_the_text) :-
    forall(member(T-Held, ["w3"-true, "3"-true, "abc"-false, ""-false, "retry_9x"-true,
                           "\x663\"-false, "\xFF13\"-false, 'v2'-true, 'v'-false]),
           (   atc_hydrate:holds_digit_(T) -> Held == true ; Held == false )).

test(words_and_long_texts_answer_as_the_split_at_the_digits, [true(Wrong == [])]) :-
    set_random(seed(201)),
    findall(T, ( between(1, 3000, _), random_text_(T),
                 \+ ( atc_hydrate:holds_digit_(T) -> digit_split_(T) ; \+ digit_split_(T) ) ),
            Wrong).

:- end_tests(hydrate_digits).

long_words_(N, Words) :-
    length(Ws0, N),
    maplist([W]>>( random_between(1, 2000, K), format(string(W), "word~d", [K]) ), Ws0),
    sort(Ws0, Words).

long_edit_(Words0, Words) :-                % drop a few words, add a few
    include([_]>>( random(X), X > 0.06 ), Words0, Kept),
    random_between(0, 8, NAdd),
    long_words_(NAdd, Added),
    ord_union(Kept, Added, Words).

% An unknown plane (a typo, `--plane exec`) names the planes there are: the error said only
% that the plane does not exist, and nothing lists them.
:- begin_tests(hydrate_unknown_plane, [setup(store_reset), cleanup(store_reset)]).

test(the_error_names_the_known_planes,
     [true(Msg == 'planes: default, execution, exploration')]) :-
    catch(hydrate("why did the deploy fail", _{plane: exec}, _),
          error(existence_error(plane, exec), context(_, Msg)), true).

:- end_tests(hydrate_unknown_plane).

/* A summary the frame's own facts say in full (atc_hydrate:refill_/8, covered_summaries_/3): an
   arc whose every member is shown verbatim is left out as covered, and its tokens go to the
   next candidate; one with a member the frame does not show stays. A token per word, no lines
   but the near-duplicates line (2 tokens). */

covered_memory :-
    store_reset,
    maplist([H, Seq, T, I]>>item_(H, Seq, user, T, I),
            [m1, m2, m3, x1], [1, 2, 3, 4],
            ["the studio is called Echo Lane", "that's a win", "great name",
             "tomorrow is your first day right"], Items),
    journal_add_items(Items, _),
    ladder_store([arc(a3, "s", "g", [m1, m2, m3]), arc(a2, "s", "g", [m1, x1])]).

shown_(Id, Level, Tokens, p(c(Id, 0.5, relevance, 0, seed), Level, Tokens, [Level-Tokens])).

refill_of_(Shown, Budget, Ids, Supp) :-
    Settings = _{ceiling: l0, fact_cap: 80, fact_framing: framing(0, 0, 0),
                 edge_framing: edge(1, 2)},
    atc_hydrate:refill_(Settings, Budget, [], Shown, [c(x1, 0.3, relevance, 0, reserve)], [],
                        Kept, _, Supp),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), Kept), Ids).

:- begin_tests(hydrate_covered, [setup(covered_memory), cleanup(store_reset)]).

% m1-m3 take 5 + 3 + 2 tokens and the arc 16 of a budget of 30: too little is left for a refill
% round (16 tokens) until the arc has left, and then x1 comes in (the left-out line paid).
test(an_arc_whose_members_are_all_shown_gives_way_to_the_next_fact,
     [true(Ids-Supp == [m1, m2, m3, x1]-[covered(a3, m1, 1.0)])]) :-
    maplist(shown_, [m1, m2, m3, a3], [l0, l0, l0, l1], [5, 3, 2, 16], Shown),
    refill_of_(Shown, 30, Ids, Supp).

test(an_arc_with_a_member_not_shown_stays, [true(Ids-Supp == [m1, a2]-[])]) :-
    maplist(shown_, [m1, a2], [l0, l1], [5, 6], Shown),
    refill_of_(Shown, 12, Ids, Supp).

test(a_member_shown_as_a_summary_does_not_cover_it, [true(Supp == [])]) :-
    maplist(shown_, [m1, m2, m3, a3], [l0, l1, l0, l1], [5, 3, 2, 6], Shown),
    refill_of_(Shown, 16, _, Supp).

% The first thing a segment leaves out costs the line counting it: a summary cheaper than that
% line stays, and the frame within its budget.
test(a_summary_cheaper_than_the_left_out_line_stays, [true(Supp == [])]) :-
    maplist(shown_, [m1, m2, m3, a3], [l0, l0, l0, l1], [5, 3, 2, 1], Shown),
    refill_of_(Shown, 11, _, Supp).

:- end_tests(hydrate_covered).

/* The map comes last (atc_hydrate:merge_candidates_/4): the summaries and central members of
   the cells around the focus stand for a region, not for the goal, so they follow every
   candidate found for the goal (the walk's neighbours, the reserve of hits), however their link
   scored them; a focus cell's member the goal is near stays where its score puts it. */

map_memory :-
    covered_memory,
    cells_store([cell(cm, [m1, m2, m3], [m2]), cell(cx, [x1], [x1])], [], [a(cm, cx, 0.8)],
                [t_min-0.0]).

:- begin_tests(hydrate_map_last, [setup(map_memory), cleanup(store_reset)]).

test(the_cells_around_the_focus_follow_the_goals_own_candidates,
     [true(Ids == [m1, m3, x1, cx, m2, cm])]) :-
    Seeds = [c(m1, 0.9, relevance, 0, seed)],
    Walked = [c(cx, 0.5, cell_adjacency, 1, near),          % an adjacent cell's summary
              c(m2, 0.45, cell_adjacency, 2, far),          % a central member of a cell
              c(m3, 0.3, cell_adjacency, 1, near),          % a focus cell's member near the goal
              c(cm, 0.2, cell_adjacency, 2, far)],          % a cell two links out
    Reserve = [c(x1, 0.1, relevance, 0, reserve)],
    atc_hydrate:merge_candidates_(Seeds, Walked, Reserve, Cands),
    findall(Id, member(c(Id, _, _, _, _), Cands), Ids).

:- end_tests(hydrate_map_last).

/* The walk discount (atc_hydrate:walk_discount_/1): a walk neighbour the goal's own search did
   not find is scored 0.7 of what its link gave it, so on short turns a seed's arc (0.85 of its
   seed) no longer takes the place of the goal's weaker hits; one the goal also found keeps the
   higher score, and the bridge keeps its own weight. */

:- begin_tests(hydrate_walk_discount, [setup(map_memory), cleanup(store_reset)]).

test(a_walk_neighbour_the_goal_did_not_find_yields_to_the_goals_hits,
     [true(Scored == [m1-0.9, cx-0.8, x1-0.7, m2-0.65, m3-0.455])]) :-
    Seeds = [c(m1, 0.9, relevance, 0, seed)],
    Walked = [c(cx, 0.8, bridge(m1, 'Nordvik'), 1, near),   % the bridge: its own weight
              c(m2, 0.65, entity_expansion, 1, arc),        % also a hit of the goal's: kept
              c(m3, 0.65, entity_expansion, 1, arc)],       % a seed's arc the goal did not find
    Reserve = [c(x1, 0.7, relevance, 0, reserve), c(m2, 0.4, relevance, 0, reserve)],
    atc_hydrate:merge_candidates_(Seeds, Walked, Reserve, Cands),
    findall(Id-S, ( member(c(Id, S0, _, _, _), Cands), S is round(S0 * 1000) / 1000 ), Scored).

:- end_tests(hydrate_walk_discount).
