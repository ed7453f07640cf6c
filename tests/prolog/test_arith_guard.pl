:- use_module('../../rules/arith_guard', [arith_bits_max/1, expression_checked/1]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

too_big(error(arith_limit(bits, 1000000), _)).

:- begin_tests(arith_guard).

test(the_limit_is_a_million_bits) :-
    arith_bits_max(1000000).

% Each step that would grow an integer past the limit is refused before it runs, from any
% caller: a goal, a library predicate evaluating an expression it was given, a comparison.
test(growing_steps_are_refused,
     [forall(member(G, [ X is 3 ** (10 ** 7), X is 7 ^ (7 ^ 9), X is 1 << (10 ** 9),
                         X is -(1) >> -(10 ** 9), X is (2 ** 600000) * (2 ** 600000),
                         X is (1 rdiv 3) ** (10 ** 7), 3 ** (10 ** 8) > 1,
                         1 =:= 2 ^ (10 ** 8), sum_list([2 ** (10 ** 7)], X),
                         max_list([1, 3 ** (10 ** 8)], X),
                         foldl([F, A0, A]>>(A is A0 * F), [2 ** 400000, 2 ** 400000,
                                                          2 ** 400000], 1, X) ])),
      error(arith_limit(bits, 1000000))]) :-
    call(G).

test(a_long_modular_power_is_refused, [error(arith_limit(powm_bits, 50000000))]) :-
    X is powm(3, 2 ^ 100000, 2 ^ 100000 + 7),
    integer(X).

test(a_modular_power_of_4096_bits_is_computed) :-
    X is powm(3, 2 ^ 4095 + 1, 2 ^ 4096 + 7),
    integer(X).

test(results_at_the_limit_are_computed) :-
    X is 2 ** 999999,                           % 1,000,000 bits
    msb(X) =:= 999999,
    Y is (X - 1) // 3 + X mod 7,
    Y < X,
    Z is 1 << 999990,
    Z < X.

% An expression of many steps is checked step by step, and computed as before.
test(long_expressions_are_computed_as_before) :-
    numlist(1, 100000, Ns),
    foldl([N, A, A + N]>>true, Ns, 0, E),
    X is E,
    X =:= 5000050000.

test(ordinary_arithmetic_as_before) :-
    X is 2 + 3 * 4, X == 14,
    Y is 2 ** 10, Y == 1024,
    Z is 2.0 ** 0.5, float(Z),
    W is 2 ** 200, integer(W),
    V is 2 ** -1, V =:= 0.5,
    U is max(3, 4) - min(1, 2), U == 3,
    1 < 2, 2.5 >= 2, 3 =:= 3.0,
    T is 3 ** 600000, msb(T) > 950000.

test(errors_are_the_builtins, [error(type_error(evaluable, foo/0))]) :-
    X is foo + 1,
    integer(X).

test(unbound_is_the_builtins_error, [error(instantiation_error)]) :-
    X is _ + 1,
    integer(X).

test(expression_checked_passes_numbers_and_small_expressions) :-
    expression_checked(1),
    expression_checked(1.5),
    expression_checked(a + b * 2).

:- end_tests(arith_guard).
