:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* How a frame spends detail (atc_hydrate:promote_/4): facts placed by distance from the focus are
   raised to a richer rung when budget is left, or when a weaker fact can give up detail (or, from its
   last rung, its place) more cheaply. */

placed(Id, Score, Level, Rungs, p(c(Id, Score, relevance, 1, near), Level, Tokens, Rungs)) :-
    memberchk(Level-Tokens, Rungs).

levels(Placed, Levels) :-
    findall(Id-L, member(p(c(Id, _, _, _, _), L, _, _), Placed), Levels).

:- begin_tests(hydrate_detail).

test(free_budget_raises_a_neighbour_to_verbatim, [true(Levels == [a-l0])]) :-
    placed(a, 0.9, l2, [l0-42, l1-30, l2-40, l3-8], P),
    atc_hydrate:promote_([P], 100, Out, _),
    levels(Out, Levels).

test(no_budget_no_raise, [true(Levels == [a-l2])]) :-
    placed(a, 0.9, l2, [l0-90, l1-60, l2-40, l3-8], P),
    atc_hydrate:promote_([P], 45, Out, _),
    levels(Out, Levels).

test(a_weak_fact_pays_for_a_strong_one, [true(Levels == [a-l0, b-l1])]) :-
    placed(a, 0.9, l2, [l0-50, l1-30, l2-40], A),
    placed(b, 0.2, l0, [l0-60, l1-20], B),
    atc_hydrate:promote_([A, B], 100, Out, _),
    levels(Out, Levels).

test(equal_facts_are_not_traded_for_one_long_one, [true(Levels == [a-l1, b-l0, c-l0, d-l0, e-l0])]) :-
    placed(a, 0.9, l1, [l0-400, l1-40], A),
    maplist([Id, P]>>placed(Id, 0.8, l0, [l0-100, l1-40], P), [b, c, d, e], Others),
    atc_hydrate:promote_([A|Others], 440, Out, _),
    levels(Out, Levels).

test(a_weak_skeleton_leaves_for_a_strong_fact_in_full,
     [true(Levels-Gone == [a-l0]-[b])]) :-
    placed(a, 0.9, l1, [l0-377, l1-38], A),
    placed(b, 0.25, l1, [l0-235, l1-35, l3-30], B),
    atc_hydrate:promote_([A, B], 400, Out, Left),
    levels(Out, Levels),
    findall(Id, member(c(Id, _, _, _, _), Left), Gone).

test(a_raised_fact_keeps_its_place_when_an_earlier_one_leaves,
     [true(Ids == [c, a])]) :-
    placed(b, 0.25, l1, [l0-235, l1-35, l3-30], B),
    placed(c, 0.8, l0, [l0-20], C),
    placed(a, 0.9, l1, [l0-377, l1-38], A),
    atc_hydrate:promote_([B, C, A], 420, Out, [_]),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), Out), Ids).

test(equal_facts_do_not_leave_for_a_stronger_one, [true(Gone == [])]) :-
    placed(a, 0.9, l1, [l0-377, l1-38], A),
    placed(b, 0.85, l1, [l0-235, l1-35, l3-30], B),
    atc_hydrate:promote_([A, B], 400, _, Gone).

% A distillation can be longer than the verbatim turn above it: a fact at L2 whose L1 costs more
% than its L0 is raised straight to L0 within the budget left, not a rung at a time, which
% dropped a weaker fact to pay for the dearer rung in passing (LongMemEval gpt4_59c863d7: an
% evidence turn of 89 tokens left the frame to free the 4 tokens an L1 needed for a moment).
test(a_fact_is_raised_past_a_dearer_rung_without_dropping_another,
     [true(Levels-Gone == [c-l0, a-l0, b-l0]-[])]) :-
    placed(c, 1.0, l0, [l0-20], C),
    placed(a, 0.6, l2, [l0-49, l1-55, l2-42], A),
    placed(b, 0.34, l0, [l0-89], B),
    atc_hydrate:promote_([C, A, B], 160, Out, Gone),
    levels(Out, Levels).

% A promotion short of a few tokens is paid by a step whose loss it outweighs, even when a
% dearer step frees tokens more cheaply per token: dropping a long weak fact would lose more
% than the raise gains, and that once stopped the raise although a short weaker fact could
% leave for it (LongMemEval 81507db6: an evidence turn 3 tokens short of its verbatim text
% stayed at its summary, since the cheapest step per token was dropping a 104-token turn).
test(a_small_shortfall_is_paid_by_a_step_the_raise_outweighs,
     [true(Levels-Gone == [top-l0, a-l0, long-l0]-[short])]) :-
    placed(top, 0.70, l0, [l0-72], Top),
    placed(a, 0.41, l1, [l0-88, l1-55], A),
    placed(long, 0.3665, l0, [l0-104], Long),
    placed(short, 0.35, l1, [l1-36], Short),
    atc_hydrate:promote_([Top, A, Long, Short], 270, Out, Left),
    levels(Out, Levels),
    findall(Id, member(c(Id, _, _, _, _), Left), Gone).

test(never_over_budget, [true(Used =< 120)]) :-
    placed(a, 0.9, l3, [l0-80, l1-40, l2-20, l3-10], A),
    placed(b, 0.7, l3, [l0-70, l1-35, l2-20, l3-10], B),
    placed(c, 0.5, l3, [l0-60, l1-30, l2-20, l3-10], C),
    atc_hydrate:promote_([A, B, C], 120, Out, _),
    aggregate_all(sum(T), member(p(_, _, T, _), Out), Used).

test(a_record_found_twice_keeps_its_better_score,
     [true(Rest == [c(n, 0.7, relevance, 0, reserve), c(m, 0.5, entity_expansion, 1, near)])]) :-
    Seeds = [c(s, 0.9, relevance, 0, seed)],
    Walked = [c(n, 0.4, entity_expansion, 1, near), c(m, 0.5, entity_expansion, 1, near)],
    Reserve = [c(n, 0.7, relevance, 0, reserve), c(s, 0.6, relevance, 0, reserve),
               c(m, 0.3, relevance, 0, reserve)],
    atc_hydrate:merge_candidates_(Seeds, Walked, Reserve, [c(s, _, _, _, _)|Rest]).

% Giving way (atc_hydrate:fit_/4): the step that loses least value per token saved, a rung down
% or out. A short fact whose next rung is a token shorter is dropped before a stronger fact
% that has no rung below (that token once shielded it), and a long fact is still demoted
% rather than dropped.
test(a_token_shorter_rung_does_not_shield_a_weaker_fact, [true(Kept-Gone == [a, b]-[c])]) :-
    placed(a, 0.9, l0, [l0-30], A),
    placed(b, 0.6, l2, [l0-35, l1-40, l2-40], B),
    placed(c, 0.45, l2, [l0-30, l1-35, l2-35, l3-34], C),
    atc_hydrate:fit_([A, B, C], 75, Out, Dropped),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), Out), Kept),
    findall(Id, member(c(Id, _, _, _, _), Dropped), Gone).

test(a_long_fact_is_demoted_before_it_is_dropped, [true(Levels-Dropped == [a-l0, b-l1]-[])]) :-
    placed(a, 0.9, l0, [l0-30], A),
    placed(b, 0.6, l0, [l0-300, l1-40], B),
    atc_hydrate:fit_([A, B], 100, Out, Dropped),
    levels(Out, Levels).

:- end_tests(hydrate_detail).

/* The frame's focus shown whole (atc_hydrate:whole_focus_/5): when the excerpts made the best
   fact an excerpt of what someone said, and its whole text fits, it is placed whole and the
   weaker facts give way for its room; a tool's output keeps its excerpt (its lines stand alone).
   LongMemEval's "remind me of the website you recommended for free lessons": the 500-token
   frame showed an excerpt of the assistant's answer beside weaker turns. */

focus_memory :-
    store_reset,
    journal_add_items([item(said, src, "s", 1, conclusion, assistant, "", "2024-01-05T10:00:00Z",
                            default, "f:1", "a long answer", []),
                       item(output, src, "s", 2, tool_result, tool, "", "2024-01-05T10:01:00Z",
                            default, "f:2", "a long log", [])], _).

% The frame after the fit (best at its summary, three weaker turns whole) and after excerpts_/5
% (the best as an excerpt of 90 tokens).
focus_frame(Best, Placed0, Excerpted) :-
    placed(Best, 1.0, l1, [l0-200, l1-30], B),
    placed(a, 0.85, l0, [l0-60], A),
    placed(b, 0.8, l0, [l0-50], Bb),
    placed(c, 0.7, l0, [l0-40], C),
    Placed0 = [B, A, Bb, C],
    B = p(Cand, _, _, Rungs),
    Excerpted = [p(Cand, excerpt(l1, 0.7, "… the answer …", _{kept: 1, of: 5, spans: [[0, 9]]}),
                   90, Rungs), A, Bb, C].

:- begin_tests(hydrate_focus_whole, [setup(focus_memory), cleanup(store_reset)]).

test(an_excerpted_answer_that_fits_is_shown_whole,
     [true(Levels-Gone == [said-l0, a-l0, b-l0]-[c])]) :-
    focus_frame(said, Placed0, Excerpted),
    atc_hydrate:whole_focus_(310, Placed0, Excerpted, Placed, Left),
    levels(Placed, Levels),
    aggregate_all(sum(T), member(p(_, _, T, _), Placed), Used),
    assertion(Used =< 310),
    findall(Id, member(c(Id, _, _, _, _), Left), Gone).

test(a_tool_outputs_excerpt_stays_an_excerpt, [fail]) :-
    focus_frame(output, Placed0, Excerpted),
    atc_hydrate:whole_focus_(310, Placed0, Excerpted, _, _).

test(an_answer_longer_than_the_budget_stays_an_excerpt, [fail]) :-
    focus_frame(said, Placed0, Excerpted),
    atc_hydrate:whole_focus_(190, Placed0, Excerpted, _, _).

test(a_weaker_facts_excerpt_is_left_as_it_is, [fail]) :-
    placed(said, 0.6, l1, [l0-200, l1-30], S),
    S = p(Cand, _, _, Rungs),
    placed(a, 1.0, l0, [l0-60], A),
    atc_hydrate:whole_focus_(310, [S, A],
                             [p(Cand, excerpt(l1, 0.7, "…", _{}), 90, Rungs), A], _, _).

:- end_tests(hydrate_focus_whole).
