:- use_module('../../rules/reader_lexis', [bracket_depth/2, block_comment_end/2]).
:- use_module(library(plunit)).
:- use_module(library(random)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% The reader is the oracle: the brackets it met, read off the subterm positions of what it
% read (a functor's own bracket, a list's, a brace term's, a parenthesised term's).
reader_depth(Text, Depth) :-
    term_string(_, Text, [subterm_positions(P)]),
    position_depth(P, Text, Depth).

position_depth(P, _, 0) :-
    ( var(P) ; P = _-_ ; P = string_position(_, _) ), !.
position_depth(brace_term_position(_, _, A), Text, D) :- !,
    position_depth(A, Text, D0), D is D0 + 1.
position_depth(parentheses_term_position(_, _, A), Text, D) :- !,
    position_depth(A, Text, D0), D is D0 + 1.
position_depth(list_position(_, _, Es, Tail), Text, D) :- !,
    (   Tail == none -> Ps = Es ; Ps = [Tail|Es] ),
    positions_depth(Ps, Text, D0), D is D0 + 1.
position_depth(term_position(From, _, FF, FT, Args), Text, D) :- !,
    positions_depth(Args, Text, D0),
    (   From =:= FF, sub_string(Text, FT, 1, _, "(")     % f(...), not an operator's
    ->  D is D0 + 1
    ;   D = D0
    ).

positions_depth(Ps, Text, D) :-
    foldl([P, D0, D1]>>(position_depth(P, Text, DP), D1 is max(D0, DP)), Ps, 0, D).

scanned_depth(Text, Depth) :-
    string_codes(Text, Codes),
    bracket_depth(Codes, Depth).

% Texts where the reader's split differs from "every ' quotes, the first */ ends a comment".
tricky("X = 0''', Y = [[[a]]]").
tricky("X = 0'', Y = [[[a]]]").
tricky("X = 0'\\', Y = [[[a]]], Z = 'a'").
tricky("X = 0'\\\\, Y = [[[a]]]").
tricky("X = 16'FF, Y = [[[a]]], Z = 'a'").
tricky("X = 2'101, Y = [[[a]]], Z = 'a'").
tricky("X = '\\x41\\', Y = [[[a]]], Z = 'a'").
tricky("X = '\\101\\', Y = [[[a]]], Z = 'a'").
tricky("X = 'a\\c   b', Y = [[[a]]]").
tricky("X = 1 /* /* */ ' */, Y = [[[a]]], Z = 'a'").
tricky("X = (+/*), Y = [[[a]]] /* */").
tricky("X = f(0'(, 0'[, 0'{), Y = [[[a]]]").
tricky("X = 0'%, Y = [[[a]]]").
tricky("X = \"a\\\"(\", Y = [[[a]]]").
tricky("X = `((`, Y = [[[a]]]").
tricky("X = a0, Y = 'b', Z = [[[a]]]").
tricky("X = ./*, Y = [[[a]]] % */ ").

:- begin_tests(reader_lexis).

test(tricky_texts_are_split_as_the_reader_splits_them, [forall(tricky(Text))]) :-
    reader_depth(Text, Expected),
    scanned_depth(Text, Depth),
    assertion(Depth == Expected).

test(a_quote_in_a_quasi_quotation_hides_nothing, Depth == 3) :-
    scanned_depth("X = {|a||'\"(|}, Y = [[[a]]]", Depth).

test(an_open_quote_or_comment_ends_the_count, Depths == [1, 1]) :-
    scanned_depth("[a, 'b, [[[", D1),
    scanned_depth("[a, /* [[[", D2),
    Depths = [D1, D2].

test(nested_comment_ends_where_the_reader_ends_it, Rest == ` x`) :-
    atom_codes(' /* a */ ''b */ x', Codes),
    block_comment_end(Codes, Rest).

% Seeded random terms built of the tricky pieces: whatever the reader reads, the scanner
% never counts fewer brackets than it met.
piece("0'''"). piece("0''"). piece("0'\\'"). piece("0'\\\\"). piece("0'\"").
piece("0'("). piece("0'%"). piece("0'|"). piece("16'FF"). piece("2'101").
piece("'\\x41\\'"). piece("'\\101\\'"). piece("'a\\c  b'"). piece("'it''s'").
piece("\"a\\\"(b\""). piece("`x(`"). piece("a0"). piece("x12"). piece("_0").
piece("'('"). piece("\"[\"").

gap(" "). gap(" /* ( */ "). gap(" /* /* */ ' */ "). gap(" % ' [\n"). gap("").

random_text(0, Text) :- !,
    findall(P, piece(P), Ps), random_member(Text, Ps).
random_text(N, Text) :-
    N1 is N - 1,
    random_text(N1, A), random_text(N1, B),
    findall(G, gap(G), Gs), random_member(Gap, Gs),
    random_between(1, 6, Shape),
    shape_text(Shape, A, B, Gap, Text).

shape_text(1, A, B, G, T) :- format(string(T), "f(~w,~w~w)", [A, G, B]).
shape_text(2, A, B, G, T) :- format(string(T), "[~w~w,~w]", [A, G, B]).
shape_text(3, A, B, G, T) :- format(string(T), "{~w,~w~w}", [A, G, B]).
shape_text(4, A, B, G, T) :- format(string(T), "(~w~w+~w)", [A, G, B]).
shape_text(5, A, _, G, T) :- format(string(T), "- ~w~w", [A, G]).
shape_text(6, A, B, G, T) :- format(string(T), "~w~w= ~w", [A, G, B]).

%  The scanner counts at least the depth the reader met in Text; a text the reader refuses
%  with an error matching Unread counts as read.
not_counted_shallower(Text, Unread) :-
    (   catch(reader_depth(Text, Expected), Unread, fail)
    ->  scanned_depth(Text, Depth),
        (   Depth >= Expected
        ->  true
        ;   format(user_error, "~q: scanned ~w, read ~w~n", [Text, Depth, Expected]),
            fail
        )
    ;   true
    ).

test(random_terms_are_never_counted_shallower_than_read) :-
    set_random(seed(208)),
    forall(between(1, 1500, _),
           (   random_between(0, 5, N),
               random_text(N, Text),
               not_counted_shallower(Text, error(syntax_error(_), _)))).

% Seeded random texts of the characters that decide a split: whatever the reader reads
% (~7 % of them), the scanner never counts fewer brackets than it met. 300,000 texts of
% seed 7 (19,723 read) found none either.
fuzz_alphabet(`016a_'"\`()[]{}|/*%+.,\\xc \n-`).

random_characters(N, Text) :-
    fuzz_alphabet(A),
    length(Cs, N),
    maplist(random_code_(A), Cs),
    string_codes(Text, Cs).

random_code_(Alphabet, C) :-
    random_member(C, Alphabet).

test(random_characters_are_never_counted_shallower_than_read,
     [setup(nb_setval(reader_lexis_quiet, true)), cleanup(nb_setval(reader_lexis_quiet, false))]) :-
    set_random(seed(7)),
    forall(between(1, 30000, _),
           (   random_between(3, 24, N),
               random_characters(N, Text),
               not_counted_shallower(Text, _))).

:- end_tests(reader_lexis).

% The reader's warnings on random text (a deprecated escape) are noise in the fuzz.
:- multifile user:message_hook/3.
user:message_hook(_, warning, _) :-
    nb_current(reader_lexis_quiet, true).
