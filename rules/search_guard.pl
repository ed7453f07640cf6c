:- module(atc_search_guard,
          [ search_pairs_max/1          % -Max
          ]).
:- use_module(library(lists), [member/2]).
% Arithmetic compiled to VM instructions (this file only): every sub_atom/5, sub_string/5 and
% splitting atomic_list_concat/3 comes here first, and long_search_/3's few comparisons of
% lengths (~5,000 in 60 warm frames) went through rules/arith_guard.pl's wrapper. Its
% expressions are lengths and places this file computes, never a caller's.
:- set_prolog_flag(optimise, true).

/** <module> Searching text for a long part, a position at a time

SWI-Prolog 9.0 searches a text for a part (sub_atom/5 and sub_string/5 with the part given
and its place not, sub_atom_icasechk/3, atomic_list_concat/3 splitting at a separator) by
comparing the part at each place in turn, in one C call: time the text's length times the
part's. An atom of 262,144 `a` searched for 131,072 `a` then a `b` ran 11 s under
`--time-limit 1`, a grantee's goal building both in milliseconds; 4,000,000 and 2,000,000
would run most of an hour, no limit interrupting.

So these builtins are wrapped for every caller: a search whose places times part length
passes search_pairs_max/1 (100,000,000, ~0.04 s) is made here a place at a time, each place
one call of the builtin with the place given, so the time limit stops it between two places.
Its answers are the builtin's, in the same order; a shorter search is the builtin's own.
*/

%!  search_pairs_max(-Max) is det.
%   The most characters (places times part length) one call of the builtins compares.
search_pairs_max(100000000).

% long_search_(+Text, +Part, -Last): a search of Part in Text that passes the limit, over
% places 0..Last.
long_search_(Text, Part, Last) :-
    text_length_(Text, N),
    text_length_(Part, M),
    M > 0,
    Last is N - M,
    Last >= 0,
    search_pairs_max(Max),
    (Last + 1) * M > Max.

text_length_(T, L) :-
    (   atom(T) -> atom_length(T, L)
    ;   string(T) -> string_length(T, L)
    ;   number(T) -> atom_length(T, L)
    ).

% place_by_place_(+Text, +Part, ?Before, ?After, +Wrapped): Wrapped (the builtin, Before and
% After its arguments) at each place, Before given; when both are unbound and the search
% long, else Wrapped as it is.
place_by_place_(Text, Part, Before, After, Wrapped) :-
    (   var(Before), var(After),
        nonvar(Text), nonvar(Part),
        long_search_(Text, Part, Last)
    ->  between(0, Last, Before),
        call(Wrapped)
    ;   call(Wrapped)
    ).

% icase_place_(+Haystack, ?Start, +Needle, +Wrapped): sub_atom_icasechk/3, its first match.
icase_place_(Haystack, Start, Needle, Wrapped) :-
    (   var(Start),
        nonvar(Haystack), nonvar(Needle),
        long_search_(Haystack, Needle, Last)
    ->  between(0, Last, Start),
        call(Wrapped),
        !
    ;   call(Wrapped)
    ).

% split_(?Parts, +Sep, +Text, +Wrapped): atomic_list_concat/3 splitting Text at Sep, the
% parts (atoms) found a place at a time when the search is long.
split_(Parts, Sep, Text, Wrapped) :-
    (   \+ is_list(Parts),
        nonvar(Sep), nonvar(Text),
        atomic(Sep), atomic(Text),
        long_search_(Text, Sep, _)
    ->  text_length_(Text, N),
        text_length_(Sep, M),
        parts_(0, 0, N, M, Text, Sep, Found),
        Parts = Found
    ;   call(Wrapped)
    ).

% parts_(+Start, +At, +N, +M, +Text, +Sep, -Parts): the parts of Text from Start, the
% separator looked for at At onwards.
parts_(Start, At, N, M, Text, Sep, Parts) :-
    (   At + M > N
    ->  Len is N - Start,
        sub_atom(Text, Start, Len, 0, Part),
        Parts = [Part]
    ;   sub_atom(Text, At, M, _, Sep)
    ->  Len is At - Start,
        sub_atom(Text, Start, Len, _, Part),
        Parts = [Part|Rest],
        Next is At + M,
        parts_(Next, Next, N, M, Text, Sep, Rest)
    ;   At1 is At + 1,
        parts_(Start, At1, N, M, Text, Sep, Parts)
    ).

		 /*******************************
		 *          THE WRAPPERS        *
		 *******************************/

:- wrap_predicate(system:sub_atom(T, B, _, A, P), atc_search_guard, W,
                  atc_search_guard:place_by_place_(T, P, B, A, W)).
:- wrap_predicate(system:sub_string(T, B, _, A, P), atc_search_guard, W,
                  atc_search_guard:place_by_place_(T, P, B, A, W)).
:- wrap_predicate(system:sub_atom_icasechk(H, S, N), atc_search_guard, W,
                  atc_search_guard:icase_place_(H, S, N, W)).
:- wrap_predicate(system:atomic_list_concat(L, S, T), atc_search_guard, W,
                  atc_search_guard:split_(L, S, T, W)).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
