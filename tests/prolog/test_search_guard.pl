:- use_module('../../rules/search_guard', [search_pairs_max/1]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% text(+N, +Part, -Atom): Part repeated N times.
text(N, Part, A) :-
    length(Ps, N),
    maplist(=(Part), Ps),
    atomic_list_concat(Ps, A).

% long(-Text, -Part): a search past the limit (20,001 places x 10,000 characters): Text is
% 3,000 `xy` then `Part` then 12,000 `xy` then Part again; Part is 5,000 `xy`, a `z`, ...
long(Text, Part) :-
    text(4999, xy, P0),
    atomic_list_concat([P0, z, x], Part),     % 10,000 characters
    text(3000, xy, Head),
    text(3500, xy, Middle),
    atomic_list_concat([Head, Part, Middle, Part, y], Text).

:- begin_tests(search_guard).

test(the_search_is_past_the_limit) :-
    long(Text, Part),
    atom_length(Text, N), atom_length(Part, M),
    search_pairs_max(Max),
    (N - M + 1) * M > Max.

test(sub_atom_answers_as_the_builtin, all(B-L-A == [6000-10000-17001, 23000-10000-1])) :-
    long(Text, Part),
    sub_atom(Text, B, L, A, Part).

test(sub_string_answers_as_the_builtin, all(B == [6000, 23000])) :-
    long(Text, Part),
    atom_string(Text, S),
    atom_string(Part, P),
    sub_string(S, B, _, _, P).

test(sub_atom_icasechk_finds_the_first, [true(S == 6000)]) :-
    long(Text, Part),
    upcase_atom(Text, Upper),                   % the builtin's: a lower-case needle
    sub_atom_icasechk(Upper, S, Part).

test(splitting_answers_as_the_builtin) :-
    long(Text, Part),
    atomic_list_concat(Parts, Part, Text),
    text(3000, xy, Head),
    text(3500, xy, Middle),
    Parts == [Head, Middle, y].

test(a_place_bound_or_a_short_search_is_the_builtins) :-
    sub_atom(hello_world, 4, 1, _, o),
    findall(B, sub_atom(hello_world, B, _, _, o), [4, 7]),
    atomic_list_concat([a, b, c], '_', abc) -> fail ; atomic_list_concat(Ps, '_', a_b_c),
    Ps == [a, b, c].

test(a_long_search_stops_at_the_time_limit, [throws(time_limit_exceeded)]) :-
    text(262144, a, Text),
    text(131072, a, P0),
    atom_concat(P0, b, Part),
    call_with_time_limit(0.5, sub_atom(Text, _, _, _, Part)).

% A text of up to Max characters drawn from Alpha (codes).
random_text(Alpha, Max, S) :-
    random_between(0, Max, N),
    length(Cs, N),
    maplist([C]>>random_member(C, Alpha), Cs),
    string_codes(S, Cs).

% split_string/4 made a character at a time gives the builtin's fields: random short texts,
% separators and pad over a few characters, so that separators are pad too, runs of them
% meet, fields are empty (a short split is the builtin's own, so this compares the two).
test(a_split_made_a_character_at_a_time_is_the_builtins) :-
    set_random(seed(193)),
    Alpha = `ab ,/x`,
    forall(between(1, 5000, _),
           (   random_text(Alpha, 16, T), random_text(Alpha, 4, Sep), random_text(Alpha, 4, Pad),
               split_string(T, Sep, Pad, Builtin),
               string_codes(Sep, S0), sort(S0, SepCodes),
               string_codes(Pad, P0), sort(P0, PadCodes),
               atc_search_guard:split_long_(T, SepCodes, PadCodes, Made),
               assertion(Made == Builtin)
           )).

test(a_split_at_many_distinct_characters_is_made_here, Parts == ["x", "", "y"]) :-
    numlist(0x10000, 0x10000, [Wide]),
    numlist(0x20000, 0x2FFFF, P0),                  % 65,536 pad characters
    string_codes(Pad, [0' |P0]),
    length(L, 2000), maplist(=(0' ), L),            % 2,000 spaces each side
    string_codes(Blanks, L),
    string_codes(WideSep, [Wide]),
    atomic_list_concat([Blanks, x, ',', WideSep, y, Blanks], T0),
    atom_string(T0, T),
    string_length(T, N), search_pairs_max(Max), N * 65538 > Max,
    string_concat(",", WideSep, Sep),
    split_string(T, Sep, Pad, Parts).

:- end_tests(search_guard).
