:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* Which candidates a frame takes to its fit (atc_hydrate:select_facts_/6): as many as their
   sizes call for, up to the plane's fact cap, and never a near-duplicate of one already taken.
   The host's token estimator is stubbed: a token per word. */

atc_hydrate:host_estimate_tokens(Text, Tokens) :-
    split_string(Text, " ", " ", Words),
    length(Words, Tokens).

item_(H, Seq, Text, item(H, src, "s", Seq, turn, assistant, "", "2024-01-05T10:00:00Z", default,
                         "f:1", Text, [])).

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
    append([Dups, Short, Long, [N1, N2]], Items),
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

test(the_planes_fact_cap_is_a_hard_bound, [true(N == 5)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 5, 1000, Taken, []),
    length(Taken, N).

test(a_number_the_other_lacks_is_a_fact_of_its_own, [true(Suppressed == [])]) :-
    select_([n1, n2], 80, 1000, _, Suppressed).

test(the_line_heading_each_fact_is_part_of_its_cost, [true(N-M == 10-34)]) :-
    findall(H, ( between(1, 40, K), atom_concat(s, K, H) ), Ids),
    select_(Ids, 80, framing(7, 12, 15), 100, Taken, []),   % 3 + 7 tokens each: ten hold 100
    length(Taken, N),
    select_(Ids, 80, framing(0, 0, 0), 100, Bare, []),  % without the lines: 34
    length(Bare, M).

:- end_tests(hydrate_select).
