:- module(atc_number_guard,
          [ number_text_checked/1,      % +Text
            number_digits_max/1         % -Max
          ]).
:- use_module(library(porter_stem), [tokenize_atom/2]).
:- use_module(reader_lexis, [block_comment_end/2]).
% Arithmetic compiled to VM instructions (this file only): the scanners below compare every
% code of a text, and a call of a comparison goes through rules/arith_guard.pl's wrapper
% (1,000,000 codes: 0.7 s scanned, 1.4 s through the wrapper).
:- set_prolog_flag(optimise, true).

/** <module> Reading numbers from text without a quadratic C call

SWI-Prolog 9.0 reads the digits of an integer one at a time into a big integer, so reading
one takes time quadratic in its length, inside a single C call that no signal interrupts:
`atom_number/2` on 300,000 digits took 1.9 s, on 1,000,000 digits 21 s, and the time limit
is looked at only when the call returns. A goal builds such a text in milliseconds
(atom_concat/3 doubling a digit twenty times), and every builtin that reads a number from
text does it: atom_number/2, number_codes/2, number_string/2, term_to_atom/2, term_string/2,
library(porter_stem)'s tokenize_atom/2 and the reader itself, so a goal or a rules file that
writes such a number too.

Here those builtins are wrapped (wrap_predicate/4) for every caller, library code that a
goal reaches (library(dcg/basics)' number//1 calls number_codes/2) included: a text holding
a numeral of more than number_digits_max/1 digits is not read. atom_number/2 fails, as it
does for any text that is not a number; the others raise
`error(syntax_error(number_too_long(Max)), _)`, as they do for a number they cannot read, so
the project's own callers, which catch syntax errors where text may be anything, go on.
The limit is far past any number worth reading (an answer holds at most 4,000 digits) and
reading one at the limit takes ~0.2 s. A text is read in one C call whatever it holds, so its
numerals together may cost no more than one at the limit (the squares of their digit counts
summed, at most number_digits_max/1 squared): 20 numerals of 99,999 digits in one
term_to_atom/2 text read for 4.8 s under a 0.5 s limit, and a grantee's text of 60 held
`atc query --time-limit 10` for 22 s. Such a text raises
`error(syntax_error(numbers_too_long(Max)), _)` (atom_number/2 fails).
*/

%!  number_digits_max(-Max) is det.
%   The most digits a numeral may have to be read (100,000).
number_digits_max(100000).

%!  number_text_checked(+Text) is det.
%   Throw error(syntax_error(number_too_long(Max)), _) when Text (an atom, a string, a code
%   or character list) holds a numeral, as the reader would take it, of more than
%   number_digits_max/1 digits. A numeral runs on over digit groups (`1_000_ 000`,
%   `1 000 000`), a radix (`16'FF`, `0x1F`) and letters after its first digit; decimal digits
%   of any script count (SWI-Prolog reads `٣٤` as 34). Text of any other kind, and text no
%   longer than the limit, passes unscanned.
%   @error syntax_error(numbers_too_long(Max)) when its numerals cost more together (the
%   squares of their digit counts summed) than one of Max digits
number_text_checked(Text) :-
    numerals_verdict_(Text, Verdict),
    (   Verdict == ok
    ->  true
    ;   number_digits_max(Max),
        Why =.. [Verdict, Max],
        throw(error(syntax_error(Why), _))
    ).

% numerals_verdict_(+Text, -Verdict): ok, number_too_long (a numeral past the limit) or
% numbers_too_long (numerals that cost more together than one at the limit).
numerals_verdict_(Text, Verdict) :-
    number_digits_max(Max),
    (   text_(Text, Len),
        Len > Max
    ->  text_to_string(Text, S),
        string_codes(S, Codes),
        Budget is Max * Max,
        catch(( scan_(Codes, out, Max, Budget) -> Verdict = ok ; Verdict = number_too_long ),
              atc_numbers_cost, Verdict = numbers_too_long)
    ;   Verdict = ok
    ).

% text_(+T, -Length): T is text of Length characters (a number's text is short).
text_(T, Len) :-
    (   atom(T) -> atom_length(T, Len)
    ;   string(T) -> string_length(T, Len)
    ;   is_list(T), T = [C|_], ( integer(C) ; atom(C) ) -> length(T, Len)
    ).

% scan_(+Codes, +State, +Max, +Budget): no numeral in Codes passes Max digits. States: out
% (between tokens), ident (inside a name: its digits are no number), num(N) (a numeral of N
% digits so far), sep(N) (after a digit group's `_`, where layout and comments may come before the next
% group) and line(N) (inside a line comment there). A walk of a code list: string_code/3
% takes time growing with the index in SWI-Prolog 9.0 (0.6 s for 20,000 codes, 2.2 s for
% 40,000).
% Budget is what the numerals not yet ended may cost: a numeral of N digits costs N^2 as
% it ends (its state leaves num/sep/line), and numerals costing more throw atc_numbers_cost.
scan_([], State, _, Budget) :-
    numeral_ended_(State, out, Budget, _).
scan_([C|Cs], State, Max, Budget) :-
    step_(State, C, Cs, Max, State1, Rest),
    (   atom(State)                 % out or ident, most codes' state: no numeral ends
    ->  scan_(Rest, State1, Max, Budget)
    ;   numeral_ended_(State, State1, Budget, Budget1),
        scan_(Rest, State1, Max, Budget1)
    ).

% numeral_ended_(+State, +State1, +Budget0, -Budget): Budget0 less the cost of the numeral
% that ends going from State to State1 (none ends: Budget0); throws past it.
numeral_ended_(State, State1, Budget0, Budget) :-
    (   atom(State)
    ->  Budget = Budget0
    ;   numeral_digits_(State1, _)
    ->  Budget = Budget0
    ;   arg(1, State, N),
        Budget is Budget0 - N * N,
        (   Budget >= 0 -> true ; throw(atc_numbers_cost) )
    ).

numeral_digits_(num(N), N).
numeral_digits_(sep(N), N).
numeral_digits_(line(N), N).

% step_(+State, +C, +Cs, +Max, -State1, -Rest): read C (Cs after it) in State.
step_(out, C, Cs, _, State, Cs) :-
    (   digit_(C) -> State = num(1)
    ;   code_type(C, csym) -> State = ident
    ;   State = out
    ).
step_(ident, C, Cs, Max, State, Rest) :-
    (   code_type(C, csym) -> State = ident, Rest = Cs
    ;   step_(out, C, Cs, Max, State, Rest)
    ).
step_(num(N), C, Cs, Max, State, Rest) :-
    (   C =:= 0'_
    ->  State = sep(N), Rest = Cs
    ;   ( code_type(C, csym) ; C =:= 0'' )
    ->  N1 is N + 1,
        N1 =< Max,
        State = num(N1), Rest = Cs
    ;   code_type(C, space), Cs = [C1|_], digit_(C1)
    ->  State = num(N), Rest = Cs               % `1 000 000`: groups split by one space
    ;   step_(out, C, Cs, Max, State, Rest)
    ).
step_(sep(N), C, Cs, Max, State, Rest) :-
    (   code_type(C, space)
    ->  State = sep(N), Rest = Cs
    ;   C =:= 0'/, Cs = [0'*|Rest0]          % a comment ends where the reader ends it
    ->  State = sep(N),                         % (nested ones too: rules/reader_lexis.pl)
        (   block_comment_end(Rest0, Rest1) -> Rest = Rest1 ; Rest = [] )
    ;   C =:= 0'%
    ->  State = line(N), Rest = Cs
    ;   code_type(C, csym)
    ->  step_(num(N), C, Cs, Max, State, Rest)
    ;   step_(out, C, Cs, Max, State, Rest)
    ).
step_(line(N), C, Cs, _, State, Cs) :-
    (   C =:= 0'\n -> State = sep(N) ; State = line(N) ).

% digit_(+Code): a decimal digit the reader takes as the start of a number, of any script.
digit_(C) :-
    (   C >= 0'0, C =< 0'9
    ->  true
    ;   C > 127,
        code_type(C, csym),
        \+ code_type(C, upper),
        catch(number_codes(N, [C]), _, fail),
        integer(N)
    ).

		 /*******************************
		 *          THE WRAPPERS        *
		 *******************************/

% wrapped_(?Head, ?Text, ?OnTooLong): Head reads a number from its argument Text; a Text too
% long is refused (throw) or not a number (fail).
wrapped_(system:atom_number(T, _), T, fail).
wrapped_(system:number_codes(_, T), T, throw).
wrapped_(system:number_chars(_, T), T, throw).
wrapped_(system:number_string(_, T), T, throw).
wrapped_(system:name(_, T), T, throw).
wrapped_(system:term_to_atom(_, T), T, throw).
wrapped_(system:atom_to_term(T, _, _), T, throw).
wrapped_(system:term_string(_, T), T, throw).
wrapped_(system:read_term_from_atom(T, _, _), T, throw).
wrapped_(porter_stem:tokenize_atom(T, _), T, throw).

% checked_(+Text, +OnTooLong): the wrappers' test, as cheap as a length for short text.
checked_(Text, OnTooLong) :-
    (   OnTooLong == fail
    ->  numerals_verdict_(Text, ok)
    ;   number_text_checked(Text)
    ).

:- forall(wrapped_(Head, Text, OnTooLong),
          wrap_predicate(Head, atc_number_guard, Wrapped,
                         ( atc_number_guard:checked_(Text, OnTooLong), Wrapped ))).

:- multifile prolog:error_message//1.
prolog:error_message(syntax_error(number_too_long(Max))) -->
    [ 'Syntax error: a number of more than ~D digits: too long to read'-[Max] ].
prolog:error_message(syntax_error(numbers_too_long(Max))) -->
    [ 'Syntax error: numbers that together take longer to read than one of ~D digits'-[Max] ].

% The optimise flag ends with this file. Loaded from the compiled rules (.qlf) SWI-Prolog runs a
% file's directives without restoring its file-scoped flags at its end: the flag would stay set
% for the files and libraries loaded after it (their arithmetic past arith_guard.pl's check).
:- set_prolog_flag(optimise, false).
