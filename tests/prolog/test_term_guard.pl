:- use_module('../../rules/term_guard', [term_depth_checked/1, text_nesting_checked/1]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% chain(+N, +Wrap, -T): N levels of Wrap around `x` (Wrap is Outer-Inner: f(V)-V, (a, V)-V).
chain(N, Wrap, T) :-
    chain(N, Wrap, x, T).

chain(N, Wrap, Innermost, T) :-
    numlist(1, N, L),
    foldl([_, A0, A]>>copy_term(Wrap, A-A0), L, Innermost, T).

:- begin_tests(term_guard).

test(depth_at_the_limit_passes) :-
    chain(2000, f(V)-V, T),
    term_depth_checked(T).

test(one_level_past_the_limit_is_refused, [error(term_limit(depth, 2000))]) :-
    chain(2001, f(V)-V, T),
    term_depth_checked(T).

% The writer walks a list's spine in a loop: a long list is one level, its elements one more.
test(a_long_list_is_not_deep) :-
    numlist(1, 200000, L),
    term_depth_checked([L, L]).

test(a_list_of_deep_elements_is_as_deep_as_they_are, [error(term_limit(depth, 2000))]) :-
    chain(2000, f(V)-V, T),
    term_depth_checked([a, b, T]).

test(operators_right_nested_count_every_level, [error(term_limit(depth, 2000))]) :-
    chain(2500, (a, B)-B, T),
    term_depth_checked(T).

test(a_short_cycle_is_written_factorized_and_passes) :-
    X = f(X, a),
    term_depth_checked(X),
    L = [a, b|L],
    term_depth_checked(g(L)).

test(a_long_cycle_is_refused, [error(term_limit(depth, 2000))]) :-
    chain(5000, g(V)-V, Z, T),
    Z = T,
    term_depth_checked(T).

test(checking_leaves_the_variables_of_a_cyclic_term_unbound) :-
    X = f(X, Y),
    term_depth_checked(X),
    var(Y),
    cyclic_term(X).

test(text_nesting_counts_brackets_outside_quotes) :-
    length(Cs, 3000), maplist(=(0'(), Cs), string_codes(Open, Cs),
    format(string(Quoted), "X = \"~s\"", [Open]),
    text_nesting_checked(Quoted).

test(text_nested_past_the_limit_is_refused, [error(nesting_limit(2000))]) :-
    length(Cs, 2001), maplist(=(0'[), Cs), atom_codes(A, Cs),
    text_nesting_checked(A).

% The reader takes 0''' for the code of a quote, 16'FF for a number, '\x41\' for the atom A
% and a comment nested in a comment as one: each hid the brackets after it from a scanner
% that took every ' for a quote and the first */ for a comment's end.
test(text_nesting_is_counted_as_the_reader_splits_the_text,
     [forall(member(Before, ["X = 0''', ", "X = 16'FF, ", "X = '\\x41\\', ",
                             "X = 1 /* /* */ ' */, ", "X = (+/*), ", "X = 0'\\', "])),
      error(nesting_limit(2000))]) :-
    length(Cs, 2001), maplist(=(0'[), Cs), string_codes(Open, Cs),
    string_concat(Before, Open, Text),
    text_nesting_checked(Text).

:- end_tests(term_guard).

