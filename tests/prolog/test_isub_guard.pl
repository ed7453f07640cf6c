:- use_module('../../rules/isub_guard', [isub_pairs_max/1]).
:- use_module(library(plunit)).
:- use_module(library(isub)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% text(+N, +K, -Atom): N letters of a, b and c in an order set by K (two Ks: two texts that
% share many substrings, isub's slowest case).
text(N, K, A) :-
    numlist(1, N, Ns),
    maplist([I, C]>>(C is 0'a + ((I*I*K + I*3) mod 7) mod 3), Ns, Cs),
    atom_codes(A, Cs).

:- begin_tests(isub_guard).

test(the_limit_is_a_million_pairs) :-
    isub_pairs_max(1000000).

test(texts_at_the_limit_are_compared) :-
    text(1000, 7, A),
    text(1000, 11, B),
    isub(A, B, D, []),
    float(D).

test(texts_past_the_limit_are_refused,
     [forall(member(Call, [isub(A, B, _, []), isub(A, B, true, _), isub(S, B, _, [])])),
      setup(( text(1001, 7, A), text(1000, 11, B), atom_string(A, S) )),
      error(isub_too_long(1001, 1000, 1000000))]) :-
    call(Call).

test(a_long_text_against_a_short_one_is_compared) :-
    text(100000, 7, A),
    isub(A, abc, D, []),
    number(D).

test(short_texts_as_before) :-
    isub(hello, hello, true, D1),
    D1 =:= 1.0,
    isub("abc", "abd", D, []),
    D < 1.0.

:- end_tests(isub_guard).
