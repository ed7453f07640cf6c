:- module(atc_arith_guard,
          [ arith_bits_max/1,           % -Max
            expression_checked/1,       % +Expression
            arith_guard_wrapped/0,
            arith_guard_unwrapped/0
          ]).

/** <module> Arithmetic whose every step is short enough for one C call

SWI-Prolog evaluates an expression in C, and a big-integer step runs in one GMP call that no
signal interrupts: `X is powm(3, 2^100000, 2^100000 + 7)` ran past 100 s under a 5 s limit,
and `**`, `^`, `<<` or a product of big integers grows a number to the stack's size in one
step. An expression can be built at run time (`foldl/4`, `=..`) and handed to a library
predicate that evaluates it (`sum_list([E], S)`), so no check of a goal's text catches it.
SWI-Prolog 9.0 has no flag that bounds an integer (9.1 added max_integer_size).

So is/2 and the comparisons are wrapped (wrap_predicate/4) for every caller. An expression of
at most 64 nodes whose integers fit in 62 bits and that raises no power nor shifts (the
arithmetic of nearly every call) goes straight to the builtin. Any other is first evaluated
here step by step, each step by the builtin on numbers already computed: a step whose result
would pass arith_bits_max/1 bits (1,000,000: 301,030 digits), or a modular power whose
exponent's and modulus's bits multiply past 50,000,000, is refused before it runs, with
`error(arith_limit(What, Max), _)`; then the builtin evaluates the whole as before. Calls
that SWI-Prolog compiles to virtual-machine instructions (`X is Y + 1` in a clause, any
arithmetic of a file compiled with the optimise flag) do not call is/2 and are not checked:
they add or compare numbers that exist already, never growing one past its operands.
*/

% Loaded before the optimise flag below, which holds for every file loaded while this one is
% (an autoloaded library would compile its arithmetic inline, unchecked: sum_list/2 did).
:- use_module(library(lists), [member/2]).
:- use_module(library(apply), [maplist/3]).

% This module's own arithmetic compiles to virtual-machine instructions, which never call the
% wrapped is/2 nor the comparisons: eval_/2's `V is Step` evaluates a step without recursing
% into the guard.
:- set_prolog_flag(optimise, true).

%!  arith_bits_max(-Max) is det.
%   The most bits an integer (a rational's numerator or denominator) computed by a step of
%   arithmetic may have.
arith_bits_max(1000000).

% The most exponent bits times modulus bits of powm/3: 4096-bit moduli pass (0.02 s a power),
% 20,000 by 20,000 (1 s) does not.
powm_bits_max(50000000).

%!  expression_checked(+Expression) is det.
%   Throw error(arith_limit(What, Max), _) when a step of evaluating Expression would make an
%   integer of more than arith_bits_max/1 bits (What = bits) or a powm/3 past its bound
%   (What = powm_bits). An expression that does not evaluate is left to the builtin's error.
expression_checked(E) :-
    (   number(E)
    ->  true
    ;   plain_(E, 64, _)
    ->  true
    ;   catch(eval_(E, _), error(Formal, _), unevaluable_(Formal))
    ).

% An error other than our own is the builtin's to raise, from the whole expression as before.
unevaluable_(Formal) :-
    (   (   Formal = arith_limit(_, _)
        ;   Formal = permission_error(evaluate, arithmetic_function, _)
        )
    ->  throw(error(Formal, _))
    ;   true
    ).

% plain_(+E, +Nodes0, -Nodes): E has at most Nodes0 nodes, integers of 62 bits or less and
% no power, modular power or shift.
plain_(E, N0, N) :-
    N0 > 0,
    N1 is N0 - 1,
    (   integer(E)
    ->  E >= -4611686018427387904, E =< 4611686018427387904, N = N1
    ;   float(E)
    ->  N = N1
    ;   atom(E)
    ->  \+ process_function_(E),
        N = N1
    ;   compound(E),
        compound_name_arity(E, F, A),
        \+ growing_(F, A),
        plain_args_(1, A, E, N1, N)
    ).

plain_args_(I, A, E, N0, N) :-
    (   I > A
    ->  N = N0
    ;   arg(I, E, X),
        plain_(X, N0, N1),
        I1 is I + 1,
        plain_args_(I1, A, E, N1, N)
    ).

growing_(**, 2).
growing_(^, 2).
growing_(<<, 2).
growing_(>>, 2).
growing_(powm, 3).

% eval_(+E, -V): V is the value of E, every step checked before it runs.
eval_(E, V) :-
    (   var(E)
    ->  V is E                                  % the builtin's instantiation error
    ;   number(E)
    ->  V = E,
        value_checked_(V)
    ;   E = [X]
    ->  eval_(X, V)
    ;   compound(E)
    ->  compound_name_arguments(E, F, Args),
        maplist(eval_, Args, Vs),
        step_checked_(F, Vs),
        compound_name_arguments(Step, F, Vs),
        V is Step,
        value_checked_(V)
    ;   atom(E), process_function_(E), grantee_call_
    ->  permission_error(evaluate, arithmetic_function, E)
    ;   V is E                                  % pi, random, "a", ...
    ).

% process_function_(?Name): an arithmetic function that reads the process rather than numbers:
% `cputime` is the CPU time of the thread that answers every caller, to the nanosecond. A
% grantee is refused statistics/2 and call_time/2 (flag_guard.pl) because a goal's CPU time
% over the owner's memory grows with the records hidden from them; `A is cputime, Goal, B is
% cputime` measured the same. (`inferences` and `realtime` are functions of other versions.)
process_function_(cputime).
process_function_(inferences).
process_function_(realtime).

% The running call is a grantee's (grantee_view.pl sets its reader for the call). Called by
% its module at run time: importing it here would load that module under this file's flag.
grantee_call_ :-
    catch(atc_grantee_view:grantee_view_reader(_), error(existence_error(procedure, _), _), fail).

% step_checked_(+F, +Values): the step F(Values) makes no integer past the limit.
step_checked_(F, [B, P]) :-
    memberchk(F, [**, ^]),
    integer(P), P > 1,
    rational(B, N, D),                          % an integer too: D = 1
    !,
    power_bits_(N, P, BN),
    power_bits_(D, P, BD),
    limited_(bits, BN + BD).
step_checked_(<<, [A, S]) :-
    integer(A), integer(S), A =\= 0, S > 0, !,
    bits_(A, Bits),
    limited_(bits, Bits + S).
step_checked_(>>, [A, S]) :-
    integer(A), integer(S), A =\= 0, S < 0, !,
    bits_(A, Bits),
    limited_(bits, Bits - S).
step_checked_(*, [A, B]) :-
    bits_(A, BA), bits_(B, BB), !,
    limited_(bits, BA + BB).
step_checked_(powm, [_, P, M]) :-
    integer(P), integer(M), !,
    bits_(P, BP), bits_(M, BM),
    powm_bits_max(Max),
    (   BP * BM =< Max
    ->  true
    ;   throw(error(arith_limit(powm_bits, Max), _))
    ).
step_checked_(_, _).

value_checked_(V) :-
    (   bits_(V, Bits)
    ->  limited_(bits, Bits)
    ;   true
    ).

limited_(What, Expr) :-
    arith_bits_max(Max),
    (   Expr =< Max
    ->  true
    ;   throw(error(arith_limit(What, Max), _))
    ).

% power_bits_(+Integer, +P, -Bits): about the bits of Integer ** P, from the logarithm of its
% leading 53 bits (exact enough for a bound; a power of -1, 0 or 1, a rational's denominator
% 1 included, adds none).
power_bits_(X, P, Bits) :-
    A is abs(X),
    (   A =< 1
    ->  Bits = 0
    ;   M is msb(A),
        Shift is max(0, M - 52),
        Top is A >> Shift,
        Bits is truncate(P * (log(Top) / log(2) + Shift)) + 1
    ).

% bits_(+Number, -Bits): the bits of an integer, or of a rational's numerator and denominator
% together; fails for a float.
bits_(X, Bits) :-
    (   integer(X)
    ->  (   X =:= 0 -> Bits = 1 ; Bits is msb(abs(X)) + 1 )
    ;   rational(X, N, D)
    ->  bits_(N, BN), bits_(D, BD), Bits is BN + BD
    ).

		 /*******************************
		 *          THE WRAPPERS        *
		 *******************************/

%!  arith_guard_wrapped is det.
%   Wrap is/2 and the comparisons with expression_checked/1 (loading this module does it).
%   Wrapping again replaces the wrappers.
arith_guard_wrapped :-
    wrap_predicate(system:is(_, E), atc_arith_guard, Wrapped,
                   ( atc_arith_guard:expression_checked(E), Wrapped )),
    forall(compared_(C),
           ( functor(Head, C, 2), arg(1, Head, A), arg(2, Head, B),
             wrap_predicate(system:Head, atc_arith_guard, Wrapped2,
                            ( atc_arith_guard:expression_checked(A),
                              atc_arith_guard:expression_checked(B),
                              Wrapped2 )) )).

%!  arith_guard_unwrapped is det.
%   Take the wrappers away (scripts/bench/guard_cost.py measures their cost so).
arith_guard_unwrapped :-
    unwrap_predicate(system:is/2, atc_arith_guard),
    forall(compared_(C), unwrap_predicate(system:C/2, atc_arith_guard)).

compared_(<).
compared_(>).
compared_(=<).
compared_(>=).
compared_(=:=).
compared_(=\=).

:- arith_guard_wrapped.

:- multifile prolog:error_message//1.
prolog:error_message(arith_limit(bits, Max)) -->
    [ 'arithmetic would make an integer of more than ~D bits: too large to compute'-[Max] ].
prolog:error_message(arith_limit(powm_bits, Max)) -->
    [ 'powm/3: its exponent''s and modulus''s bits multiply past ~D: too long to compute'-[Max] ].

% The optimise flag ends with this file. Loaded from the compiled rules (.qlf) SWI-Prolog runs a
% file's directives without restoring its file-scoped flags at its end: the flag would stay set
% for the files and libraries loaded after it (their arithmetic past arith_guard.pl's check).
:- set_prolog_flag(optimise, false).
