:- module(atc_text_size_guard,
          [ text_size_checked/2,        % +PI, +Chars
            format_args_chars/2         % +Args, -Chars
          ]).
:- use_module(memory_meter, [process_memory/1]).
% Arithmetic compiled to VM instructions (this file only, after the modules it loads): every
% atomic_list_concat/2,3 of the process comes here first, and its sums are lengths this file
% reads, never a caller's.
:- set_prolog_flag(optimise, true).

/** <module> Text made in one C call, refused past what the memory limit leaves

A call's memory limit (rules/api.pl) is checked by a watchdog every 0.1 s and stops the call
at its next safe point, which a single C call never reaches. atomic_list_concat/2,3 joining
a list and format/2,3 writing its arguments with `~a` or `~s` each copy every text they are
given, as often as the list names it, in one such call: a grantee's list of 2,000
references to one 4 MB atom (made in milliseconds by doubling, then findall/3) joined into
8 GB in 180 s past a 20 s limit, and 1,500 `~a` of a 1 MB atom ran one format/3 for 300 s.

So atomic_list_concat/2,3 are wrapped for every caller, and format/2,3 check for user code
(rules/term_guard.pl): within a limited call, a text that would hold more characters than
the call's memory limit leaves (the limit less the growth so far; a character counted as one
byte) is refused before it is made, error(text_limit(PI, Chars, Left), _). Outside a
limited call, and for a list that is not a proper list of atomic texts (the builtin's own
error), nothing is checked. A call that makes text a step at a time (atom_concat/3 in a
loop, a writer) is stopped by the watchdog as before.
*/

%!  text_size_checked(+PI, +Chars:integer) is det.
%   True when a call of PI making a text of Chars characters stays within what the running
%   call's memory limit leaves, or when no limited call runs.
%   @error text_limit(PI, Chars, LeftBytes) otherwise
text_size_checked(PI, Chars) :-
    (   Chars > 1048576,                % a megabyte: below it nothing worth a look
        nb_current(atc_limit_state, active(_, Limits)),
        % limits/9 of rules/api.pl's within_limits_/2: the memory at the start, the limit
        arg(3, Limits, Start),
        arg(4, Limits, Memory)
    ->  process_memory(Now),
        Left is max(0, Memory - (Now - Start)),
        (   Chars > Left
        ->  throw(error(text_limit(PI, Chars, Left), _))
        ;   true
        )
    ;   true
    ).

%!  format_args_chars(+Args, -Chars:integer) is det.
%   The characters format/2,3 copies from Args at most: each atomic argument's text and
%   each code or character list's length (a compound argument is written term by term, a
%   step the watchdog reaches, and counts 0).
format_args_chars(Args, Chars) :-
    (   is_list(Args) -> List = Args ; List = [Args] ),
    args_chars_(List, 0, Chars).

args_chars_([], Chars, Chars).
args_chars_([A|As], Chars0, Chars) :-
    arg_chars_(A, N),
    Chars1 is Chars0 + N,
    args_chars_(As, Chars1, Chars).

arg_chars_(A, N) :-
    (   text_or_number_(A)
    ->  atom_length(A, N)
    ;   is_list(A)
    ->  length(A, N)
    ;   N = 0
    ).

% joined_(+Parts, +Sep, +PI, +Wrapped): Wrapped (atomic_list_concat/2,3, PI) once the text
% it would make is known to fit; Parts not a proper list of atomic texts is the builtin's to
% refuse.
joined_(Parts, Sep, PI, Wrapped) :-
    (   nb_current(atc_limit_state, active(_, _)),     % first: the project's own joins
        is_list(Parts),                                 % outside a limited call walk nothing
        parts_chars_(Parts, 0, 0, Chars0, Count)
    ->  (   text_or_number_(Sep) -> atom_length(Sep, SepChars) ; SepChars = 0 ),
        Chars is Chars0 + max(0, Count - 1) * SepChars,
        text_size_checked(PI, Chars)
    ;   true
    ),
    call(Wrapped).

parts_chars_([], Chars, Count, Chars, Count).
parts_chars_([P|Ps], Chars0, Count0, Chars, Count) :-
    text_or_number_(P),
    atom_length(P, N),
    Chars1 is Chars0 + N,
    Count1 is Count0 + 1,
    parts_chars_(Ps, Chars1, Count1, Chars, Count).

text_or_number_(T) :-
    (   atom(T) -> true ; string(T) -> true ; number(T) ).

		 /*******************************
		 *          THE WRAPPERS        *
		 *******************************/

:- wrap_predicate(system:atomic_list_concat(L, _), atc_text_size_guard, W,
                  atc_text_size_guard:joined_(L, '', atomic_list_concat/2, W)).
:- wrap_predicate(system:atomic_list_concat(L, S, _), atc_text_size_guard, W,
                  atc_text_size_guard:joined_(L, S, atomic_list_concat/3, W)).

:- multifile prolog:error_message//1.
prolog:error_message(text_limit(Name/Arity, Chars, Left)) -->
    { LeftMB is Left // 1048576 },
    [ '~w/~w: the text would hold ~D characters, more than the call''s memory limit leaves (~D MB): too large to make'-
      [Name, Arity, Chars, LeftMB] ].

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
