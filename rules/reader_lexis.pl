:- module(atc_reader_lexis,
          [ bracket_depth/2,            % +Codes, -Depth
            block_comment_end/2         % +Codes, -Rest
          ]).
% Arithmetic compiled to VM instructions (this file only): the scanner compares every code of
% a text, and a call of a comparison goes through rules/arith_guard.pl's wrapper.
:- set_prolog_flag(optimise, true).

/** <module> Where SWI-Prolog's reader sees code, comment and quoted text

The guards that look at a text before SWI-Prolog reads it (a goal, a rules file, the text of
term_to_atom/2) must split it as the reader does, or a text can hide from them what the reader
then acts on. SWI-Prolog 9.0's raw reader (pl-read.c, raw_read2()) decides it so:

  - `'` after one or two digits that follow no letter, digit or `_` is no quote: after `0` it
    starts a character code (`0'a`, `0'\n`, `0'''` and `0''` both the quote, `0'||` the bar),
    after a radix up to 36 followed by one of its digits a number (`16'FF`); any other `'`
    opens a quoted atom (`a0'x'`, `123'a'`, `37'1'`).
  - Inside quotes a backslash escape ends as its kind does: `\x41\` and `\101\` take their
    digits and the one character after them (so `'\x41\'` is the atom `'A'`, closed by its
    last quote), `\c` the layout after it, any other the one character after the backslash.
  - A slash and star open a block comment only where a token starts (after a `+` they are
    part of the atom), and a block comment opened inside another nests: the outer one ends
    at the second star and slash, unless the `iso` flag is set.
  - `%` comments to the end of the line; `||` outside quotes and comments starts the text of a
    quasi-quotation, raw up to the next `|}`.

A scanner that took every `'` for a quote and the first star and slash for a comment's end let
`X = 0''', Y = [[[...]]]` (or `16'FF`, `'\x41\'`, a quote in a nested comment, an atom
ending in a slash and star) through the bracket check with 30,000 levels behind it, and the
reader's C recursion ended the process (`atc query`, `atc serve`, `atc mcp`: SIGSEGV).
*/

%!  bracket_depth(+Codes, -Depth) is det.
%   Depth is the deepest nesting of `(`, `[` and `{` in Codes (a list of character codes)
%   outside quotes, character codes, comments and quasi-quoted text, as SWI-Prolog's reader
%   splits them. A close bracket never takes the count below 0; text the reader would stop at
%   (a quote or comment left open) ends the count.
bracket_depth(Codes, Depth) :-
    current_prolog_flag(iso, Iso),
    current_prolog_flag(back_quotes, Back),
    (   Back == symbol_char -> BackQuoted = false ; BackQuoted = true ),
    (   current_prolog_flag(quasi_quotations, true) -> Quasi = true ; Quasi = false ),
    (   current_prolog_flag(character_escapes, true) -> Esc = true ; Esc = false ),
    scan_(Codes, 0, 0, 0, flags(Iso, BackQuoted, Quasi, Esc), 0, 0, Depth).

% scan_(+Codes, +B1, +B2, +B3, +Flags, +Depth0, +Max0, -Max): B1, B2, B3 are the last three
% codes the reader has kept (B1 the last; 0 for none; a comment kept as a space), which decide
% what a `'` or a `|` starts.
scan_([], _, _, _, _, _, M, M).
scan_([C|Cs], B1, B2, B3, F, D, M0, M) :-
    class_(C, F, Class),
    step_(Class, C, Cs, B1, B2, B3, F, D, M0, M).

step_(open, C, Cs, B1, B2, _, F, D, M0, M) :-
    D1 is D + 1,
    M1 is max(M0, D1),
    scan_(Cs, C, B1, B2, F, D1, M1, M).
step_(close, C, Cs, B1, B2, _, F, D, M0, M) :-
    D1 is max(0, D - 1),
    scan_(Cs, C, B1, B2, F, D1, M0, M).
step_(blank, _, Cs, B1, B2, _, F, D, M0, M) :-
    scan_(Cs, 0'\s, B1, B2, F, D, M0, M).
step_(other, C, Cs, B1, B2, _, F, D, M0, M) :-
    scan_(Cs, C, B1, B2, F, D, M0, M).
step_(digit, C, Cs, B1, B2, _, F, D, M0, M) :-
    scan_(Cs, C, B1, B2, F, D, M0, M).
step_(bar, C, Cs, B1, B2, _, F, D, M0, M) :-
    (   B1 =:= 0'|, arg(3, F, true)
    ->  (   quasi_quoted_end_(Cs, 0'|, Rest)
        ->  D1 is max(0, D - 1),               % the `{` of `{|`: one token with it
            scan_(Rest, 0'}, 0'|, 0'|, F, D1, M0, M)
        ;   M = M0                              % never closed: the reader stops
        )
    ;   scan_(Cs, C, B1, B2, F, D, M0, M)
    ).
step_(percent, _, Cs, B1, B2, _, F, D, M0, M) :-
    line_end_(Cs, Rest),
    scan_(Rest, 0'\s, B1, B2, F, D, M0, M).
step_(slash, C, Cs, B1, B2, B3, F, D, M0, M) :-
    (   Cs = [0'*|After]
    ->  (   arg(1, F, Iso),
            comment_end_(After, Iso, Rest)
        ->  scan_(Rest, 0'\s, B1, B2, F, D, M0, M)
        ;   M = M0
        )
    ;   symbols_(Cs, true, F, C, Last, Rest),
        step_after_symbols_(Rest, Last, C, B1, B2, B3, F, D, M0, M)
    ).
step_(dot, C, Cs, B1, B2, B3, F, D, M0, M) :-
    symbols_(Cs, true, F, C, Last, Rest),
    step_after_symbols_(Rest, Last, C, B1, B2, B3, F, D, M0, M).
step_(symbol, C, Cs, B1, B2, B3, F, D, M0, M) :-
    symbols_(Cs, false, F, C, Last, Rest),
    step_after_symbols_(Rest, Last, C, B1, B2, B3, F, D, M0, M).
step_(identifier, C, Cs, B1, _, _, F, D, M0, M) :-
    identifier_(Cs, C, Last, Prev, Rest),
    (   Prev == none -> scan_(Rest, Last, C, B1, F, D, M0, M)
    ;   scan_(Rest, Last, Prev, 0'a, F, D, M0, M)
    ).
step_(double_quote, C, Cs, B1, B2, _, F, D, M0, M) :-
    quoted_or_stop_(Cs, C, B1, B2, F, D, M0, M).
step_(back_quote, C, Cs, B1, B2, _, F, D, M0, M) :-
    quoted_or_stop_(Cs, C, B1, B2, F, D, M0, M).
step_(single_quote, C, Cs, B1, B2, B3, F, D, M0, M) :-
    (   number_quote_(B1, B2, B3, Base)
    ->  number_quoted_(Base, Cs, B1, F, D, M0, M)
    ;   quoted_or_stop_(Cs, C, B1, B2, F, D, M0, M)
    ).

% After a run of symbol characters (the last one Last, the first First), what the reader
% kept ends with Last; the two before it are symbols too, or what came before the run.
step_after_symbols_(Rest, Last, First, B1, B2, _, F, D, M0, M) :-
    (   Last == First
    ->  scan_(Rest, Last, B1, B2, F, D, M0, M)
    ;   scan_(Rest, Last, 0'+, 0'+, F, D, M0, M)
    ).

quoted_or_stop_(Cs, Q, B1, B2, F, D, M0, M) :-
    (   arg(4, F, Esc),
        quoted_end_(Cs, Q, Esc, Rest)
    ->  scan_(Rest, Q, B1, B2, F, D, M0, M)
    ;   M = M0                                  % never closed: the reader stops
    ).

% number_quote_(+B1, +B2, +B3, -Base): the `'` after B3 B2 B1 follows the one or two digits
% of a number (what comes before them is no letter, digit or `_`): their value.
number_quote_(B1, B2, B3, Base) :-
    digit_code_(B1),
    (   digit_code_(B2)
    ->  \+ identifier_continues_(B3),
        Base is (B2 - 0'0) * 10 + B1 - 0'0
    ;   \+ identifier_continues_(B2),
        Base is B1 - 0'0
    ).

digit_code_(C) :- C >= 0'0, C =< 0'9.

identifier_continues_(C) :-
    (   C < 128
    ->  ascii_class_(C, Class),
        ( Class == identifier ; Class == digit )
    ;   code_type(C, prolog_identifier_continue)
    ), !.

% number_quoted_(+Base, +Codes, +B1, +Flags, +D, +M0, -M): Codes follow `Base'`: a character
% code after 0, a digit of a radix up to 36, else a quoted atom.
number_quoted_(0, Cs, _, F, D, M0, M) :- !,
    (   Cs = [X|T]
    ->  char_code_end_(X, T, Last, Rest),
        scan_(Rest, Last, 0'', 0'0, F, D, M0, M)
    ;   M = M0
    ).
number_quoted_(Base, Cs, B1, F, D, M0, M) :-
    (   Base =< 36, Cs = [C2|Rest], digit_value_(Base, C2)
    ->  scan_(Rest, C2, 0'', B1, F, D, M0, M)
    ;   Base =< 36, Cs == []
    ->  M = M0
    ;   quoted_or_stop_(Cs, 0'', B1, 0'0, F, D, M0, M)
    ).

% char_code_end_(+X, +After, -Last, -Rest): the character code 0'X...: `\` takes one more
% character, `'` and `|` take a second one of theirs when it follows.
char_code_end_(0'\\, T, Last, Rest) :- !,
    (   T = [Last|Rest] -> true ; Last = 0'\\, Rest = [] ).
char_code_end_(X, T, X, Rest) :-
    (   ( X =:= 0'' ; X =:= 0'| ),
        T = [X|Rest0]
    ->  Rest = Rest0
    ;   Rest = T
    ).

digit_value_(Base, C) :-
    (   C >= 0'0, C =< 0'9 -> V is C - 0'0
    ;   C >= 0'a, C =< 0'z -> V is C - 0'a + 10
    ;   C >= 0'A, C =< 0'Z -> V is C - 0'A + 10
    ),
    V < Base.

% quoted_end_(+Codes, +Quote, +Escapes, -Rest): Codes after an opening Quote; Rest after the
% closing one, escapes read as raw_read_quoted() reads them. Fails when the text ends first.
quoted_end_([C|Cs], Q, Esc, Rest) :-
    (   C =:= Q
    ->  Rest = Cs
    ;   C =:= 0'\\, Esc == true
    ->  escape_end_(Cs, Q, Esc, Rest)
    ;   quoted_end_(Cs, Q, Esc, Rest)
    ).

escape_end_([E|Cs], Q, Esc, Rest) :-
    (   ( E =:= 0'u ; E =:= 0'U )
    ->  quoted_end_(Cs, Q, Esc, Rest)
    ;   E =:= 0'x
    ->  Cs = [C|Cs1],
        (   digit_value_(16, C)
        ->  digits_then_one_(Cs1, 16, Q, Esc, Rest)
        ;   one_then_on_(C, Cs1, Q, Esc, Rest)
        )
    ;   E =:= 0'c
    ->  layout_skipped_(Cs, Cs1),
        (   Cs1 = [Q1|Rest0], Q1 =:= Q
        ->  Rest = Rest0
        ;   quoted_end_(Cs1, Q, Esc, Rest)      % an escape right after is read as one
        )
    ;   digit_value_(8, E)
    ->  digits_then_one_(Cs, 8, Q, Esc, Rest)
    ;   E =:= 0'\n
    ->  Cs = [C|Cs1],
        one_then_on_(C, Cs1, Q, Esc, Rest)
    ;   quoted_end_(Cs, Q, Esc, Rest)
    ).

% \xHH...H? and \OOO...?: the digits, then one character whatever it is, which closes the
% text when it is the quote.
digits_then_one_([C|Cs], Base, Q, Esc, Rest) :-
    (   digit_value_(Base, C)
    ->  digits_then_one_(Cs, Base, Q, Esc, Rest)
    ;   one_then_on_(C, Cs, Q, Esc, Rest)
    ).

one_then_on_(C, Cs, Q, Esc, Rest) :-
    (   C =:= Q -> Rest = Cs ; quoted_end_(Cs, Q, Esc, Rest) ).

layout_skipped_([C|Cs], Rest) :-
    code_type(C, space), !,
    layout_skipped_(Cs, Rest).
layout_skipped_(Cs, Cs).

line_end_([], []).
line_end_([C|Cs], Rest) :-
    (   C =:= 0'\n -> Rest = [C|Cs] ; line_end_(Cs, Rest) ).

% quasi_quoted_end_(+Codes, +Prev, -Rest): the raw text of a quasi-quotation, to `|}`.
quasi_quoted_end_([C|Cs], Prev, Rest) :-
    (   C =:= 0'}, Prev =:= 0'|
    ->  Rest = Cs
    ;   quasi_quoted_end_(Cs, C, Rest)
    ).

%!  block_comment_end(+Codes, -Rest) is semidet.
%   Codes follow a `/*` that opens a block comment; Rest follows the `*/` that closes it as
%   SWI-Prolog's reader closes it: a `/*` inside opens a nested comment unless the `iso` flag
%   is set. Fails when the text ends first.
block_comment_end(Codes, Rest) :-
    current_prolog_flag(iso, Iso),
    comment_end_(Codes, Iso, Rest).

comment_end_([Last|Cs], Iso, Rest) :-
    comment_end_(Cs, Last, 1, Iso, Rest).

comment_end_([C|Cs], Last, Level, Iso, Rest) :-
    (   C =:= 0'*, Last =:= 0'/
    ->  Level1 is Level + 1,
        comment_end_(Cs, C, Level1, Iso, Rest)
    ;   C =:= 0'/, Last =:= 0'*
    ->  Level1 is Level - 1,
        (   ( Level1 =:= 0 ; Iso == true )
        ->  Rest = Cs
        ;   comment_end_(Cs, C, Level1, Iso, Rest)
        )
    ;   comment_end_(Cs, C, Level, Iso, Rest)
    ).

% symbols_(+Codes, +Wide, +Flags, +First, -Last, -Rest): the run of symbol characters after
% First (wide ones too after `/` and `.`, as the reader takes them); a backquote ends it
% when it quotes.
symbols_([C|Cs], Wide, F, _, Last, Rest) :-
    symbol_code_(C, Wide, F), !,
    symbols_(Cs, Wide, F, C, Last, Rest).
symbols_(Cs, _, _, Last, Last, Cs).

symbol_code_(C, Wide, F) :-
    (   C < 128
    ->  ascii_class_(C, Class),
        (   Class == symbol
        ;   Class == slash
        ;   Class == dot
        ;   Class == back_quote, arg(2, F, false)
        )
    ;   ( C =< 0xff ; Wide == true ),
        code_type(C, prolog_symbol)
    ), !.

% identifier_(+Codes, +First, -Last, -Prev, -Rest): the run of letters, digits and `_` after
% First; Prev the code before Last in it (none when First is Last).
identifier_([C|Cs], First, Last, Prev, Rest) :-
    identifier_continues_(C), !,
    identifier_on_(Cs, First, C, Last, Prev, Rest).
identifier_(Cs, First, First, none, Cs).

identifier_on_([C|Cs], _, P, Last, Prev, Rest) :-
    identifier_continues_(C), !,
    identifier_on_(Cs, P, C, Last, Prev, Rest).
identifier_on_(Cs, Prev, Last, Last, Prev, Cs).

% class_(+Code, +Flags, -Class): what the reader does at Code where a token may start.
class_(C, F, Class) :-
    (   C < 128
    ->  ascii_class_(C, Class0),
        (   Class0 == back_quote, arg(2, F, false) -> Class = symbol ; Class = Class0 )
    ;   code_type(C, prolog_identifier_continue),
        ( code_type(C, prolog_var_start) ; code_type(C, prolog_atom_start) )
    ->  Class = identifier
    ;   code_type(C, space)
    ->  Class = blank
    ;   C =< 0xff, code_type(C, prolog_symbol)
    ->  Class = symbol
    ;   Class = other
    ).

:- dynamic ascii_class_/2.              % Code, Class: made once below, indexed on Code

ascii_class_made_ :-
    retractall(ascii_class_(_, _)),
    forall(between(0, 127, C),
           ( ascii_class_of_(C, Class), assertz(ascii_class_(C, Class)) )),
    compile_predicates([ascii_class_/2]).

ascii_class_of_(C, Class) :-
    (   memberchk(C, `([{`) -> Class = open
    ;   memberchk(C, `)]}`) -> Class = close
    ;   C =:= 0'|  -> Class = bar
    ;   C =:= 0'%  -> Class = percent
    ;   C =:= 0'/  -> Class = slash
    ;   C =:= 0'.  -> Class = dot
    ;   C =:= 0''  -> Class = single_quote
    ;   C =:= 0'"  -> Class = double_quote
    ;   C =:= 0'`  -> Class = back_quote
    ;   code_type(C, space) -> Class = blank
    ;   C >= 0'0, C =< 0'9 -> Class = digit
    ;   C =:= 0'_ -> Class = identifier
    ;   code_type(C, alpha) -> Class = identifier
    ;   code_type(C, prolog_symbol) -> Class = symbol
    ;   Class = other
    ).

:- ascii_class_made_.

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
