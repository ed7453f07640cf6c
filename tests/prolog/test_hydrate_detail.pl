:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/hydrate').
:- use_module('../../rules/ladder').
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

/* A top fact's excerpt grown to its core (atc_hydrate:core_focus_/7): when the room the frame
   left a top fact held only its summary or other sentences, the excerpt of its core (the
   sentence holding most of the goal) takes its place and weaker facts give way for the room.
   LongMemEval's "average improvement in framerate" question: the 500-token frame showed the
   answer's summary beside weaker summaries, never the sentence naming the 20%. The host's
   excerpt of a core is stubbed here (one sentence of 60 tokens, the span [10, 40]), and its
   token estimator (a token per word: the speaker label "assistant: " is one). */

atc_hydrate:host_estimate_tokens(Text, Tokens) :-
    split_string(Text, " ", " ", Words),
    length(Words, Tokens).

:- dynamic core_tokens/1.
core_tokens(60).

atc_hydrate:host_excerpts(_, [core(_, _, _, _, _)], [[x(T, 0.6, "… the core …", 1, 5, [[10, 40]])]]) :-
    core_tokens(T).

core_memory :-
    store_reset,
    journal_add_items([item(answer, src, "s", 1, conclusion, assistant, "", "2024-01-05T10:00:00Z",
                            default, "f:1", "a long answer", [])], _),
    ladder_store([rungs(answer, test, "its summary", "d", "s", t(30, 3, 2), [], [])]).

% The frame after the fit and the excerpts: the best fact whole, the answer at its summary (no
% excerpt fitted the room left), two weaker facts whole.
core_frame(Base) :-
    placed(best, 1.0, l0, [l0-60], B),
    placed(answer, 0.9, l1, [l0-300, l1-30], A),
    placed(a, 0.7, l0, [l0-50], Aa),
    placed(b, 0.6, l0, [l0-40], Bb),
    Base = [B, A, Aa, Bb].

framing(framing(0, 0, 2)).

:- begin_tests(hydrate_focus_core, [setup(core_memory), cleanup(store_reset)]).

test(a_top_facts_summary_grows_to_its_core,
     [true(Levels-Gone == [best-l0, answer-excerpt, a-l0]-[b])]) :-
    core_frame(Base),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 200, Base, Base, Placed, Left),
    findall(Id-L, ( member(p(c(Id, _, _, _, _), L0, _, _), Placed),
                    ( L0 = excerpt(_, _, _, _) -> L = excerpt ; L = L0 ) ), Levels),
    aggregate_all(sum(T), member(p(_, _, T, _), Placed), Used),
    assertion(Used =< 200),
    findall(Id, member(c(Id, _, _, _, _), Left), Gone).

test(an_excerpt_holding_its_core_stays, [fail]) :-
    core_frame([B, p(C, _, _, Rungs)|Rest]),
    framing(Framing),
    Shown = p(C, excerpt(l1, 0.7, "…", _{kept: 2, of: 5, spans: [[0, 9], [10, 40]]}), 80, Rungs),
    atc_hydrate:core_focus_("goal", Framing, 200, [B, p(C, l1, 30, Rungs)|Rest],
                            [B, Shown|Rest], _, _).

test(a_core_over_half_the_budget_is_left_out, [fail]) :-
    core_frame(Base),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 100, Base, Base, _, _).

test(a_weaker_fact_gives_way_by_a_rung_when_that_is_enough,
     [true(Levels == [best-l0, answer-excerpt, a-l1, b-l0])]) :-
    placed(best, 1.0, l0, [l0-60], B),
    placed(answer, 0.9, l1, [l0-300, l1-30], A),
    placed(a, 0.7, l0, [l0-80, l1-10], Aa),
    placed(b, 0.6, l0, [l0-10], Bb),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 150, [B, A, Aa, Bb], [B, A, Aa, Bb], Placed, []),
    findall(Id-L, ( member(p(c(Id, _, _, _, _), L0, _, _), Placed),
                    ( L0 = excerpt(_, _, _, _) -> L = excerpt ; L = L0 ) ), Levels).

test(a_stronger_fact_never_gives_way, [fail]) :-
    placed(best, 1.0, l0, [l0-60, l1-10], B),
    placed(answer, 0.9, l1, [l0-300, l1-30], A),
    placed(strong, 0.95, l0, [l0-70, l1-10], S),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 180, [B, A, S], [B, A, S], _, _).

test(the_best_facts_core_may_take_more_than_half_the_budget,
     [true(Levels == [answer-excerpt, a-l0])]) :-
    placed(answer, 1.0, l1, [l0-300, l1-30], A),
    placed(a, 0.7, l0, [l0-20], Aa),
    placed(b, 0.6, l0, [l0-30], Bb),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 90, [A, Aa, Bb], [A, Aa, Bb], Placed, _),
    findall(Id-L, ( member(p(c(Id, _, _, _, _), L0, _, _), Placed),
                    ( L0 = excerpt(_, _, _, _) -> L = excerpt ; L = L0 ) ), Levels).

test(a_fact_below_the_three_most_relevant_does_not_grow, [fail]) :-
    placed(x, 1.0, l0, [l0-10], X),
    placed(y, 0.98, l0, [l0-10], Y),
    placed(z, 0.95, l0, [l0-10], Z),
    placed(answer, 0.9, l1, [l0-300, l1-30], A),
    placed(b, 0.6, l0, [l0-80], Bb),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 200, [X, Y, Z, A, Bb], [X, Y, Z, A, Bb], _, _).

test(a_stronger_facts_excerpt_stays_as_it_was_shown,
     [true(Shown-Levels == 100-[best-excerpt, answer-excerpt, a-l0])]) :-
    placed(best, 1.0, l1, [l0-400, l1-30], B),
    placed(answer, 0.9, l1, [l0-300, l1-30], A),
    placed(a, 0.6, l0, [l0-80], Aa),
    B = p(BC, _, _, BRungs),
    BestShown = p(BC, excerpt(l1, 0.7, "… best …", _{kept: 2, of: 9, spans: [[0, 5], [10, 40]]}),
                  100, BRungs),
    framing(Framing),
    atc_hydrate:core_focus_("goal", Framing, 250, [B, A, Aa], [BestShown, A, Aa], Placed, []),
    memberchk(p(c(best, _, _, _, _), _, Shown, _), Placed),
    findall(Id-L, ( member(p(c(Id, _, _, _, _), L0, _, _), Placed),
                    ( L0 = excerpt(_, _, _, _) -> L = excerpt ; L = L0 ) ), Levels).

:- end_tests(hydrate_focus_core).

/* The line naming a day: every timed fact is priced with it, and the frame writes it once above
   the facts of that day, grouped (atc_hydrate:used_tokens_/2, by_day_/2). */

dated_(H, Seq, Time, item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", "a turn", [])).

days_memory :-
    store_reset,
    maplist(dated_, [m1, t1, m2], [1, 2, 3],
            ["2024-01-05T10:00:00Z", "2024-01-06T09:00:00Z", "2024-01-05T11:00:00Z"], Items),
    journal_add_items(Items, _).

:- begin_tests(hydrate_day_lines, [setup(days_memory), cleanup(store_reset)]).

test(the_facts_of_a_day_pay_for_its_line_once, [true(Used == 36)]) :-
    b_setval(atc_day_line, 4),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1, m2, untimed], Placed),
    atc_hydrate:used_tokens_(Placed, Used).

test(without_the_lines_price_the_facts_cost_their_prices, [true(Used == 40)]) :-
    b_setval(atc_day_line, 0),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1, m2, untimed], Placed),
    atc_hydrate:used_tokens_(Placed, Used).

% The fit, the promotion and the refill ask again and again; each asking is answered for the
% facts and the line's price it names, never for those of an earlier one.
test(each_asking_counts_its_own_facts_days,
     [true(Used == [36, 16, 20, 36, 76, 20, 57])]) :-
    b_setval(atc_day_line, 4),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1, m2, untimed], All),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, m2], SameDay),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1], TwoDays),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-20, l1-10], P), [m1, t1, m2, untimed], AllRicher),
    atc_hydrate:used_tokens_(All, U1),
    atc_hydrate:used_tokens_(SameDay, U2),
    atc_hydrate:used_tokens_(TwoDays, U3),
    atc_hydrate:used_tokens_(All, U4),
    atc_hydrate:used_tokens_(AllRicher, U5),
    atc_hydrate:used_tokens_(TwoDays, U6),
    b_setval(atc_day_line, 1),
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1, m2, untimed, m1, m2], Six),
    atc_hydrate:used_tokens_(Six, U7),
    Used = [U1, U2, U3, U4, U5, U6, U7].

test(a_days_facts_are_written_together_the_best_first, [true(Ids == [m1, m2, t1, untimed])]) :-
    maplist([Id, P]>>placed(Id, 0.5, l0, [l0-10], P), [m1, t1, untimed, m2], Placed),
    atc_hydrate:by_day_(Placed, Grouped),
    findall(Id, member(p(c(Id, _, _, _, _), _, _, _), Grouped), Ids).

% The frame's order as plainly read: each day's facts after the first of that day, the days in
% the order of their first fact, a fact without a day on its own.
plain_first_seen_([], []).
plain_first_seen_([Key-P|Rest], [P|Grouped]) :-
    partition([K-_]>>(K == Key), Rest, Same, Others),
    pairs_values(Same, SameFacts),
    append(SameFacts, Tail, Grouped),
    plain_first_seen_(Others, Tail).

day_keys_(N, Days, Keyed) :-
    findall(Key-f(I), ( between(1, N, I),
                        (   I mod 7 =:= 0 -> Key = alone(I)
                        ;   D is (I * 13) mod Days, format(string(Day), "2024-01-~|~`0t~d~2+", [D]),
                            Key = day(Day)
                        ) ),
            Keyed).

test(many_days_facts_grouped_in_the_order_of_their_first,
     [forall(member(N-Days, [0-1, 1-1, 2-1, 7-3, 30-4, 50-20, 50-40, 150-60, 150-150])),
      true(Grouped == Plain)]) :-
    day_keys_(N, Days, Keyed),
    atc_hydrate:group_first_seen_(Keyed, Grouped),
    plain_first_seen_(Keyed, Plain).

:- end_tests(hydrate_day_lines).
