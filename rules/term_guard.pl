:- module(atc_term_guard,
          [ text_nesting_checked/1,     % +Text
            term_depth_checked/1,       % +Term
            guarded_builtin/1,          % ?Name/Arity
            format/2,                   % +Format, :Args
            format/3,                   % +Output, +Format, :Args
            writeln/1,                  % +Term
            term_to_atom/2,             % ?Term, ?Atom
            atom_to_term/3,             % ?Atom, ?Term, -Bindings
            sformat/2,                  % -String, +Format
            sformat/3,                  % -String, +Format, +Args
            assertion/1                 % :Goal
          ]).
:- use_module(library(sandbox)).
:- use_module(reader_lexis, [bracket_depth/2]).
:- use_module(text_size_guard, [text_size_checked/2, format_args_chars/2]).
% Arithmetic compiled to VM instructions (this file only): the scanners below compare every
% code of a text, and a call of a comparison goes through rules/arith_guard.pl's wrapper
% (1,000,000 codes: 0.7 s scanned, 1.4 s through the wrapper).
:- set_prolog_flag(optimise, true).

/** <module> Writing and reading terms in user code without recursing past the C stack

SWI-Prolog writes a term (write/1, format/2's `~w`, `~q`, `~p`, term_to_atom/2) and reads one
(term_to_atom/2, atom_to_term/3) by recursing in C on its depth, a list's tail excepted. It
turns a C-stack overflow into an error only when it handles signals, and an engine embedded
through pyswip runs without them: a query that built a chain of 200,000 `+` and wrote it ended
the process (an `atc mcp` or `atc serve` server with it); the C stack holds about 10,000 levels.

A user module (memory_user_module/1) imports the versions below in place of the system's, so a
goal or rule reaches them however it calls them (directly, through call/N, maplist/N, or
with_output_to/2): a term deeper than term_depth_max/1 is refused with an error instead of
written, and text nested deeper than that is refused instead of read. library(sandbox) checks
them as it checks the system's (safe_meta/2 below: format/2,3's `~@` goals and outputs).
*/

:- redefine_system_predicate(format(_, _)).
:- redefine_system_predicate(format(_, _, _)).
:- redefine_system_predicate(writeln(_)).
:- redefine_system_predicate(term_to_atom(_, _)).
:- redefine_system_predicate(atom_to_term(_, _, _)).

:- meta_predicate assertion(0).

%!  guarded_builtin(?PI) is nondet.
%   The builtins a user module takes from this module instead of from `system` or a library.
guarded_builtin(format/2).
guarded_builtin(format/3).
guarded_builtin(writeln/1).
guarded_builtin(term_to_atom/2).
guarded_builtin(atom_to_term/3).
guarded_builtin(sformat/2).
guarded_builtin(sformat/3).
guarded_builtin(assertion/1).

% The deepest term written or read: ~500 bytes of C stack a level in SWI-Prolog 9.0's writer,
% so 1 MB, within a 2 MB thread stack (glibc's default under `ulimit -s unlimited`).
term_depth_max(2000).

%!  format(+Format, :Args) is det.
%!  format(+Output, +Format, :Args) is det.
%!  writeln(+Term) is det.
%!  sformat(-String, +Format) is det.
%!  sformat(-String, +Format, +Args) is det.
%   The system's, after term_depth_checked/1 of what they write and, for the format
%   builtins, text_size_checked/2 of the texts their arguments hold.
format(F, Args) :-
    term_depth_checked(Args),
    format_size_checked(format/2, Args),
    system:format(F, Args).

format(Out, F, Args) :-
    term_depth_checked(Args),
    format_size_checked(format/3, Args),
    system:format(Out, F, Args).

% format_size_checked(+PI, +Args): what `~a` and `~s` copy of Args in one C call fits the
% call's memory limit (rules/text_size_guard.pl: 1,500 `~a` of one 1 MB atom ran 300 s).
format_size_checked(PI, Args) :-
    format_args_chars(Args, Chars),
    text_size_checked(PI, Chars).

writeln(T) :-
    term_depth_checked(T),
    system:writeln(T).

sformat(S, F) :-
    sformat(S, F, []).

sformat(S, F, Args) :-
    term_depth_checked(Args),
    format_size_checked(sformat/3, Args),
    system:format(string(S), F, Args).

%!  term_to_atom(?Term, ?Atom) is det.
%!  atom_to_term(?Atom, ?Term, -Bindings) is det.
%   The system's: a Term given is written once term_depth_checked/1 passes, an Atom given
%   (Term unbound) is read once text_nesting_checked/1 passes.
term_to_atom(T, A) :-
    io_checked_(T, A),
    system:term_to_atom(T, A).

atom_to_term(A, T, Bindings) :-
    io_checked_(T, A),
    system:atom_to_term(A, T, Bindings).

io_checked_(T, A) :-
    (   nonvar(T)
    ->  term_depth_checked(T)
    ;   nonvar(A)
    ->  text_nesting_checked(A)
    ;   true
    ).

%!  assertion(:Goal) is det.
%   library(debug)'s assertion/1 for user code: Goal must succeed (once, its bindings undone),
%   else error(assertion_failed(Goal), _), one line. The library's prints Goal and a backtrace
%   of the project's own frames to standard error first, then throws a term with no message.
assertion(G) :-
    term_depth_checked(G),
    (   \+ \+ call(G)
    ->  true
    ;   strip_module(G, _, Plain),
        throw(error(assertion_failed(Plain), _))
    ).

%!  term_depth_checked(+Term) is det.
%   Throw error(term_limit(depth, Max), _) when Term nests compound terms deeper than
%   term_depth_max/1 (a list's elements are one level below the list; its tail is the list's
%   own level, as the writer walks it). A cyclic term is measured as the writer writes it:
%   factorized into an acyclic skeleton and its cycles (`@(S_1, [S_1=f(S_1)])`).
term_depth_checked(T) :-
    term_depth_max(Max),
    (   measured_within_(T, Max)
    ->  true
    ;   throw(error(term_limit(depth, Max), _))
    ).

measured_within_(T, Max) :-
    (   cyclic_term(T)
    ->  \+ \+ ( '$factorize_term'(T, Skeleton, Cycles),      % binds T's variables
                within_depth_(Skeleton-Cycles, Max) )
    ;   within_depth_(T, Max)
    ).

within_depth_(T, _) :-
    \+ compound(T), !.
within_depth_(T, Left) :-
    Left > 0,
    Left1 is Left - 1,
    (   T = [_|_]
    ->  '$skip_list'(N, T, Tail),
        elements_within_(N, T, Left1),
        within_depth_(Tail, Left)
    ;   compound_name_arity(T, _, Arity),
        args_within_(1, Arity, T, Left1)
    ).

elements_within_(0, _, _) :- !.
elements_within_(N, [H|T], Left) :-
    within_depth_(H, Left),
    N1 is N - 1,
    elements_within_(N1, T, Left).

args_within_(I, Arity, T, Left) :-
    (   I > Arity
    ->  true
    ;   arg(I, T, A),
        within_depth_(A, Left),
        I1 is I + 1,
        args_within_(I1, Arity, T, Left)
    ).

%!  text_nesting_checked(+Text) is det.
%   Throw error(nesting_limit(Max), _) when Text (a goal, rules or a term to be read) nests
%   brackets ((, [, {) deeper than term_depth_max/1, outside quotes, character codes, comments
%   and quasi-quoted text as SWI-Prolog's reader splits them (rules/reader_lexis.pl). Its
%   reader recurses in C on nesting: 30,000 open brackets in a one-line query ended the
%   process. A text no longer than the limit is not scanned.
text_nesting_checked(Text) :-
    term_depth_max(Max),
    (   string_length(Text, N),
        N > Max,
        string_codes(Text, Cs),
        bracket_depth(Cs, Depth),
        Depth > Max
    ->  throw(error(nesting_limit(Max), _))
    ;   true
    ).

		 /*******************************
		 *      WHAT THE SANDBOX SEES    *
		 *******************************/

% As library(sandbox) checks the system's: format's output must be a text sink or the
% current output, and a `~@` directive's argument is a goal to check.
:- multifile sandbox:safe_meta/2.
sandbox:safe_meta(atc_term_guard:format(F, Args), Calls) :-
    format_calls_(F, Args, Calls).
sandbox:safe_meta(atc_term_guard:format(Out, F, Args), Calls) :-
    (   sandbox:safe_output(Out)
    ->  format_calls_(F, Args, Calls)
    ;   % say so here: else the sandbox goes on into the guard's own body and names a
        % builtin of it ('$factorize_term') as what it refuses
        throw(error(sandbox_output(format/3, Out), _))
    ).
sandbox:safe_meta(atc_term_guard:sformat(_, F), Calls) :-
    sandbox:format_calls(F, [], Calls).
sandbox:safe_meta(atc_term_guard:sformat(_, F, Args), Calls) :-
    format_calls_(F, Args, Calls).

% format_calls_(+Format, ?Args, -Calls): sandbox:format_calls/3, an Args unbound when the goal
% is checked (a list the goal builds before it formats) read as SWI-Prolog 9.0's library reads
% it: as many arguments as Format takes, a `~@` among them a call of a goal not known yet (an
% instantiation error, as before). 9.2's library reads an unbound Args as one argument, so
% `findall(B, ..., Bs), format(atom(S), "~a~a", Bs)` was refused on that version alone
% ("not enough arguments (found 1, need 2)").
format_calls_(F, Args, Calls) :-
    (   var(Args), nonvar(F)
    ->  sandbox:format_types(F, Types),
        length(Types, N),
        length(Fresh, N),
        sandbox:format_calls(F, Fresh, Calls)
    ;   sandbox:format_calls(F, Args, Calls)
    ).
sandbox:safe_meta(atc_term_guard:writeln(_), []).
sandbox:safe_meta(atc_term_guard:term_to_atom(_, _), []).
sandbox:safe_meta(atc_term_guard:atom_to_term(_, _, _), []).
sandbox:safe_meta(atc_term_guard:assertion(G), [G]).

:- multifile prolog:error_message//1.
prolog:error_message(term_limit(depth, Max)) -->
    [ 'term nests deeper than ~D levels: too deep to write'-[Max] ].
prolog:error_message(sandbox_output(PI, Out)) -->
    [ '~w may write only to atom(_), string(_), codes(_), chars(_) or current_output '-[PI],
      '(what a goal prints goes to standard error), not ~q'-[Out] ].
prolog:error_message(assertion_failed(G)) -->
    [ 'assertion failed: ~q'-[G] ].

% The optimise flag ends with this file. Loaded from the compiled rules (.qlf) SWI-Prolog runs a
% file's directives without restoring its file-scoped flags at its end: the flag would stay set
% for the files and libraries loaded after it (their arithmetic past arith_guard.pl's check).
:- set_prolog_flag(optimise, false).
