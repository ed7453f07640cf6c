:- module(atc_search_guard,
          [ search_pairs_max/1          % -Max
          ]).
:- use_module(library(lists), [member/2, reverse/2]).
:- use_module(library(assoc), [list_to_assoc/2, get_assoc/3]).
:- use_module(library(pairs), [pairs_keys_values/3]).
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

split_string/4 is the same search by another shape: each character of the text is looked
for in the separators, and each end of each field in the pad characters, one comparison per
character of them, in one C call. A grantee's text of 1,048,576 `a` (a one-character string
doubled twenty times) split at 400,000 distinct characters (numlist/3, string_codes/2) held
`--time-limit 1` for minutes. Its characters are a set, so each is counted once; a split
whose text length times distinct separator and pad characters still passes
search_pairs_max/1 is made here, a character at a time, each looked up in a balanced tree,
so the limit stops it. Its fields are the builtin's.
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

% split_string_(+Text, +SepChars, +Pad, -Parts, +Wrapped): split_string/4. A call whose text
% times its separator and pad characters passes the limit is the builtin's with each of them
% once, or, when that still passes it, split_long_/4's.
split_string_(Text, Sep, Pad, Parts, Wrapped) :-
    (   long_split_(Text, Sep, Pad, N)
    ->  distinct_codes_(Sep, SepCodes),
        distinct_codes_(Pad, PadCodes),
        length(SepCodes, S1),
        length(PadCodes, P1),
        search_pairs_max(Max),
        (   N * (S1 + P1) > Max
        ->  split_long_(Text, SepCodes, PadCodes, Parts)
        ;   string_codes(Sep1, SepCodes),
            string_codes(Pad1, PadCodes),
            split_string(Text, Sep1, Pad1, Parts)
        )
    ;   call(Wrapped)
    ).

% long_split_(+Text, +Sep, +Pad, -N): Text's N characters times Sep's and Pad's pass the
% limit. Checked on every call (frames split ~1,000 texts), so a type test, no catch/3:
% anything else (an unbound or wrong argument) is the builtin's, and its error.
long_split_(Text, Sep, Pad, N) :-
    split_text_length_(Sep, S),
    split_text_length_(Pad, P),
    split_text_length_(Text, N),
    search_pairs_max(Max),
    N * (S + P) > Max.

split_text_length_(T, L) :-
    (   string(T) -> string_length(T, L)
    ;   atom(T) -> atom_length(T, L)
    ;   is_list(T) -> length(T, L)                 % codes or characters
    ;   number(T) -> atom_length(T, L)
    ).

distinct_codes_(Text, Codes) :-
    string_codes(Text, Codes0),
    sort(Codes0, Codes).

% split_long_(+Text, +SepCodes, +PadCodes, -Parts): split_string/4 as the builtin does it
% (checked against it on random texts: tests/prolog/test_search_guard.pl). The text is
% stripped of pad at both ends; a field that starts at a separator is empty, any other runs
% from its first character that is no pad (pad characters that are separators too are
% skipped there) to the next separator, stripped of pad at its end; after a separator that
% is a pad character, the pad characters after it are skipped, separators among them
% (`"a//b"` split at `/` with `/` as pad is two fields).
split_long_(Text, SepCodes, PadCodes, Parts) :-
    code_set_(SepCodes, Seps),
    code_set_(PadCodes, Pads),
    string_codes(Text, Codes0),
    stripped_(Codes0, Pads, Codes),
    fields_(Codes, Seps, Pads, Parts).

code_set_(Codes, Set) :-
    pairs_keys_values(Pairs, Codes, Codes),
    list_to_assoc(Pairs, Set).

% padded_(+Codes, +Pads, -Rest): Codes without its leading pad characters.
padded_([C|Cs], Pads, Rest) :-
    get_assoc(C, Pads, _), !,
    padded_(Cs, Pads, Rest).
padded_(Codes, _, Codes).

% stripped_(+Codes, +Pads, -Stripped): Codes without its leading and trailing pad.
stripped_(Codes0, Pads, Codes) :-
    padded_(Codes0, Pads, Codes1),
    reverse(Codes1, Rev0),
    padded_(Rev0, Pads, Rev),
    reverse(Rev, Codes).

fields_(Codes, Seps, Pads, [Part|Parts]) :-
    (   Codes = [C|_], get_assoc(C, Seps, _)
    ->  Field0 = [], Rest = Codes
    ;   padded_(Codes, Pads, Codes1),
        field_(Codes1, Seps, Field0, Rest)
    ),
    reverse(Field0, Rev0),
    padded_(Rev0, Pads, Rev),
    reverse(Rev, Field),
    string_codes(Part, Field),
    (   Rest = [Sep|After]
    ->  (   get_assoc(Sep, Pads, _)
        ->  padded_(Rest, Pads, Next)
        ;   Next = After
        ),
        fields_(Next, Seps, Pads, Parts)
    ;   Parts = []
    ).

% field_(+Codes, +Seps, -Field, -Rest): Field the codes before the first separator; Rest
% starts with that separator, or is [] when there is none.
field_([], _, [], []).
field_([C|Cs], Seps, Field, Rest) :-
    (   get_assoc(C, Seps, _)
    ->  Field = [], Rest = [C|Cs]
    ;   Field = [C|Field1],
        field_(Cs, Seps, Field1, Rest)
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
:- wrap_predicate(system:split_string(T, S, P, L), atc_search_guard, W,
                  atc_search_guard:split_string_(T, S, P, L, W)).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
