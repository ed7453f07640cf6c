:- use_module('../../rules/number_guard', [number_text_checked/1, number_digits_max/1]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(dcg/basics), [number//1]).

% repeated(+N, +Part, -Codes): Part (codes) N times, then a closing `7`.
repeated(N, Part, Codes) :-
    length(Parts, N),
    maplist(=(Part), Parts),
    append(Parts, Codes0),
    append(Codes0, `7`, Codes).

% digits(+N, -Atom): a numeral of N sevens.
digits(N, A) :-
    length(Cs, N),
    maplist(=(0'7), Cs),
    atom_codes(A, Cs).

too_long(error(syntax_error(number_too_long(100000)), _)).

:- begin_tests(number_guard).

% numerals(+K, +N, -Atom): K numerals of N sevens in a list's text, `[777,777]`.
numerals(K, N, A) :-
    digits(N, D),
    length(Ds, K),
    maplist(=(D), Ds),
    atomic_list_concat(Ds, ',', Inner),
    atomic_list_concat(['[', Inner, ']'], A).

% One text is read in one C call: 20 numerals of 99,999 digits read for 4.8 s under a 0.5 s
% limit before their cost was summed.
test(numerals_costing_more_together_than_one_at_the_limit_are_refused,
     [forall(member(G, [term_to_atom(_, A), tokenize_atom(A, _), atom_to_term(A, _, _)])),
      setup(numerals(20, 99999, A)),
      error(syntax_error(numbers_too_long(100000)))]) :-
    call(G).

test(numerals_within_the_cost_are_read) :-
    numerals(2, 70000, A),                  % 2 x 70,000^2 < 100,000^2
    term_to_atom(T, A),
    length(T, 2),
    numerals(1000, 100, B),
    term_to_atom(U, B),
    length(U, 1000).


test(the_limit_is_100000) :-
    number_digits_max(100000).

test(a_numeral_at_the_limit_is_read) :-
    digits(100000, A),
    atom_number(A, N),
    integer(N).

test(atom_number_fails_past_the_limit, [fail]) :-
    digits(100001, A),
    atom_number(A, _).

% Every builtin that reads a number from text, reached from any module (library code too).
test(every_reader_refuses_past_the_limit, [forall(member(G, [ number_codes(_, C),
        number_chars(_, Ch), number_string(_, S), name(_, C), term_to_atom(_, A),
        atom_to_term(A, _, _), term_string(_, S), read_term_from_atom(A, _, []),
        tokenize_atom(A, _), phrase(number(_), C) ])),
      setup(( digits(300000, A), atom_codes(A, C), atom_chars(A, Ch),
              atom_string(A, S) )),
      error(syntax_error(number_too_long(100000)))]) :-
    call(G).

test(a_numeral_inside_a_term_is_refused, [error(syntax_error(number_too_long(100000)))]) :-
    digits(100001, D),
    atomic_list_concat(['f(x, ', D, ')'], A),
    term_to_atom(_, A).

% The reader takes digit groups as one numeral: `1_000_ 000`, `1 000 000`, `1_/*c*/000`, and
% a comment nested in that comment ends where the reader ends it (`/* /* */ 'x */` is one:
% a scanner that ended it at the first `*/` read the quote as text and split the numeral).
test(digit_groups_count_as_one_numeral,
     [forall(member(Part, [`7_`, `7_ `, `7 `, `7_/**/`, `7_%c\n`, `7_/* /* */ 'x */`])),
      error(syntax_error(number_too_long(100000)))]) :-
    repeated(100000, Part, Codes),
    term_to_atom(_, Codes).

test(radix_and_hex_numerals_count, [forall(member(Prefix, ['0x', '16\'', '0o'])), fail]) :-
    digits(100001, D),
    atom_concat(Prefix, D, A),
    atom_number(A, _).

% SWI-Prolog reads decimal digits of other scripts: `٣٤` is 34.
test(digits_of_other_scripts_count, [error(syntax_error(number_too_long(100000)))]) :-
    length(Cs, 100001),
    maplist(=(0'٣), Cs),
    term_to_atom(_, Cs).

% Text past the limit that holds no long numeral is read as before.
test(long_text_of_short_numbers_and_names_is_read) :-
    length(Ws, 30000),
    maplist(=('a1234567'), Ws),
    atomic_list_concat(Ws, ', ', Inner),
    atomic_list_concat(['[', Inner, ']'], A),
    term_to_atom(T, A),
    length(T, 30000).

test(short_numbers_are_read_as_before) :-
    atom_number('42', 42),
    number_codes(7, ` 7`),
    term_to_atom(f(1000000), 'f(1_000_000)'),
    number_string(255, "0xff"),
    tokenize_atom('a 12 b', [a, 12, b]).

test(number_text_checked_refuses_a_goal_text, [error(syntax_error(number_too_long(100000)))]) :-
    digits(100001, D),
    atomic_list_concat(['X = ', D], A),
    atom_string(A, S),
    number_text_checked(S).

test(number_text_checked_passes_other_terms) :-
    number_text_checked(_),
    number_text_checked(f(x)),
    number_text_checked(42).

:- end_tests(number_guard).
