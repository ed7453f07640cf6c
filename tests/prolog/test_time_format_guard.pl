:- use_module('../../rules/time_format_guard', [time_format_max/2]).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% format_of(+N, +Directive, -Format): Directive (an atom) N times over.
format_of(N, Directive, Format) :-
    length(Ds, N),
    maplist(=(Directive), Ds),
    atomic_list_concat(Ds, Format).

:- begin_tests(time_format_guard).

test(the_bounds) :-
    time_format_max(length, 65536),
    time_format_max(digits, 64),
    time_format_max(seconds_digits, 100).

% Before the guard each of these ended the process (SWI-Prolog 9.0.4: a 256-byte buffer on
% the C stack, `*** stack smashing detected ***`), so the suite's swipl died with it.
test(a_fraction_past_the_bound_is_refused,
     [forall(member(Call, [ format_time(atom(_), '%999f', 0.5),
                            format_time(string(_), "%FT%T.%300f", 0.5, posix),
                            format_time(codes(_), [0'%, 0'0, 0'3, 0'0, 0'0, 0'f], 0.5),
                            format_time(atom(_), '%4294967295f', 0.5) ])),
      error(time_format_limit(_, digits, _, 64))]) :-
    call(Call).

% The seconds of a date/9 are written whole into the same buffer: 10^250 ended the process
% with `%f`, 10^200 with `%64f`.
test(a_date_of_seconds_too_long_is_refused,
     [forall(member(S, [1.0e250, -1.0e200, 10^272, 10^400000])),
      error(time_format_limit(format_time/3, seconds_digits, more, 100))]) :-
    Seconds is S,
    format_time(atom(_), '%f', date(2000, 1, 1, 0, 0, Seconds, 0, -, -)).

test(a_date_of_seconds_within_the_bound_is_written) :-
    format_time(atom(A), '%64f', date(2000, 1, 1, 0, 0, 1.0e99, 0, -, -)),
    atom_length(A, 64),
    format_time(atom(B), '%64f', 1.0e308),
    atom_length(B, 64).

test(a_fraction_within_the_bound_is_written) :-
    format_time(atom(A), '%64f', 0.5),
    atom_length(A, 64),
    format_time(atom(B), '%3f', 0.25),
    B == '250'.

test(a_written_percent_is_no_directive) :-
    format_time(atom(A), '%%300f', 0.5),
    A == '%300f'.

test(a_format_too_long_is_refused,
     [error(time_format_limit(format_time/3, length, 65538, 65536))]) :-
    format_of(32769, '%c', F),
    format_time(atom(_), F, 0).

test(a_format_at_the_bound_is_written) :-
    format_of(32768, '%c', F),
    format_time(atom(A), F, 0),
    atom_length(A, N),
    N =:= 32768 * 24.

test(formats_as_before) :-
    format_time(atom(A), '%FT%TZ', 0, posix),
    A == '1970-01-01T00:00:00Z',
    format_time(string(S), "%Y %3:z", 0),
    string(S),
    catch(format_time(atom(_), 42, 0), error(E, _), true),
    nonvar(E).

:- end_tests(time_format_guard).
