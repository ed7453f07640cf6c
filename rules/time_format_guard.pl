:- module(atc_time_format_guard,
          [ time_format_checked/3,      % +PI, +Format, +Time
            time_format_max/2           % ?What, ?Max
          ]).
% Arithmetic compiled to VM instructions (this file only): every format_time/3,4 of the
% process comes here first, and its sums are over the format's own codes.
:- set_prolog_flag(optimise, true).

/** <module> format_time/3,4 on formats it writes safely in one C call

library(sandbox) allows format_time/3,4 with any format (sandbox_trust.pl narrows only its
output), and SWI-Prolog 9.0.4 writes the format in one C call that no limit interrupts:

  - `%Nf` writes a time's seconds with N digits of their fraction into a buffer of 256
    bytes on the C stack: N of 255 or more overflows it and glibc ends the process (`***
    stack smashing detected ***`, SIGABRT), and so do the seconds of a date/9 term past
    about 10^190 (`%64f`) or 10^240 (`%f`), whose whole digits are written there too. A
    grantee's `format_time(atom(A), '%999f', 0.5)`, 31 characters, ended `atc serve` for
    every principal.
  - the time grows faster than the format's length and the text 12 times as fast (`%c` is
    24 characters): a format of 2^24 `%c` built by doubling held a grantee's
    `atc query --time-limit 2` for 66 s and grew it to 2.6 GB, past the 1 GB memory limit.

So both are wrapped for every caller: a format longer than time_format_max(length, Max)
characters, a directive whose number (the N of `%Nf`; leading zeros read as the C code
reads them) passes time_format_max(digits, Max), or a date/9 whose seconds have more whole
digits than time_format_max(seconds_digits, Max) raises
error(time_format_limit(PI, What, Value, Max), _) before the builtin runs. A format that is
no text is left to the builtin's own type error; `%%` is a `%` written, not a directive. A
stamp (a number) is written apart from the buffer's whole digits: 10^300 with `%64f` is safe.
*/

%!  time_format_max(?What, ?Max) is nondet.
%   The bounds: `length`, a format's characters (its text at most 12 times as many, in
%   ~0.05 s); `digits`, the number a directive takes (`%9f`: nanoseconds; 254 is the
%   builtin's last safe one).
time_format_max(length, 65536).
time_format_max(digits, 64).
time_format_max(seconds_digits, 100).

%!  time_format_checked(+PI, +Format, +Time) is det.
%   True when format_time/3,4 (PI) may write Time by Format.
%   @error time_format_limit(PI, length, Chars, Max) for a format too long
%   @error time_format_limit(PI, digits, N, Max) for a directive's number too large
%   @error time_format_limit(PI, seconds_digits, more, Max) for a date/9's seconds too large
time_format_checked(PI, Format, Time) :-
    seconds_checked_(PI, Time),
    (   format_length_(Format, Length)
    ->  time_format_max(length, MaxLength),
        (   Length > MaxLength
        ->  throw(error(time_format_limit(PI, length, Length, MaxLength), _))
        ;   format_codes_(Format, Codes)
        ->  time_format_max(digits, MaxDigits),
            directives_checked_(Codes, PI, MaxDigits)
        ;   true
        )
    ;   true
    ).

% seconds_checked_(+PI, +Time): a date/9's seconds (its sixth argument) of at most Max whole
% digits; anything else is the builtin's to judge.
seconds_checked_(PI, Time) :-
    (   compound(Time),
        compound_name_arity(Time, date, 9),
        arg(6, Time, Seconds),
        number(Seconds),
        time_format_max(seconds_digits, Max),
        abs(Seconds) >= 10.0 ** Max
    ->  throw(error(time_format_limit(PI, seconds_digits, more, Max), _))
    ;   true
    ).

% format_length_(+Format, -Length): the characters of a text, measured before it is copied
% (a list: its cells); fails for what is no text or list, the builtin's to refuse.
format_length_(Format, Length) :-
    (   atom(Format) -> atom_length(Format, Length)
    ;   string(Format) -> string_length(Format, Length)
    ;   '$skip_list'(Length, Format, Tail), Tail == []
    ).

% format_codes_(+Format, -Codes): Format's codes; fails for what is no text (a partial or
% mixed list), the builtin's to refuse.
format_codes_(Format, Codes) :-
    (   atom(Format) -> atom_codes(Format, Codes)
    ;   string(Format) -> string_codes(Format, Codes)
    ;   catch(text_to_string(Format, String), error(_, _), fail),
        string_codes(String, Codes)
    ).

directives_checked_([], _, _).
directives_checked_([C|Cs], PI, Max) :-
    (   C == 0'%
    ->  (   Cs = [0'%|Rest]
        ->  true                                % %% writes a %
        ;   directive_number_(Cs, 0, N, Rest),
            (   N > Max
            ->  throw(error(time_format_limit(PI, digits, N, Max), _))
            ;   true
            )
        )
    ;   Rest = Cs
    ),
    directives_checked_(Rest, PI, Max).

% directive_number_(+Codes, +N0, -N, -Rest): the number the digits at the head of Codes
% spell, read no further than one past Max matters (a number kept small: 10^40 digits are
% one more than Max all the same).
directive_number_([D|Ds], N0, N, Rest) :-
    D >= 0'0, D =< 0'9,
    !,
    N1 is min(N0 * 10 + D - 0'0, 1000000),
    directive_number_(Ds, N1, N, Rest).
directive_number_(Rest, N, N, Rest).

:- wrap_predicate(system:format_time(_, F, T), atc_time_format_guard, W,
                  ( atc_time_format_guard:time_format_checked(format_time/3, F, T), W )).
:- wrap_predicate(system:format_time(_, F, T, _), atc_time_format_guard, W,
                  ( atc_time_format_guard:time_format_checked(format_time/4, F, T), W )).

:- multifile prolog:error_message//1.
prolog:error_message(time_format_limit(PI, length, Length, Max)) -->
    [ '~w: a format of ~D characters is too long to write (at most ~D)'-[PI, Length, Max] ].
prolog:error_message(time_format_limit(PI, digits, N, Max)) -->
    [ '~w: a directive asks for ~D digits, more than ~D'-[PI, N, Max] ].
prolog:error_message(time_format_limit(PI, seconds_digits, more, Max)) -->
    [ '~w: a date''s seconds of more than ~D digits: too long to write'-[PI, Max] ].

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
