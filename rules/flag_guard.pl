:- module(atc_flag_guard,
          [ flag_guard_install/1,       % +Module
            grantee_prolog_flag/2,      % ?Flag, ?Value
            grantee_flag/1,             % ?Flag
            grantee_statistics/2,       % +Key, -Value
            grantee_thread_statistics/3, % +Thread, +Key, -Value
            grantee_get_time/1,         % -Stamp
            prolog_flag/2,              % ?Flag, ?Value (a grantee's, imported: see below)
            grantee_predicate_property/3, % +Module, +Head, ?Property
            grantee_library_guard/1,    % ?Name/Arity
            statistics/0,               % a grantee's: refused (see below)
            statistics/1,
            call_time/2,
            call_time/3,
            time/1,
            profile/1,
            profile/2,
            help/1,
            apropos/1
          ]).
:- use_module(library(error)).
:- use_module(library(sandbox), []).

/** <module> The Prolog flags a grantee may read

library(sandbox) lets any goal read every Prolog flag, and several describe the owner's
machine and process rather than the language: `os_argv` and `argv` (the command line, a
home's path in it), `executable`, `pid`, `tmp_dir`, `home`, `cpu_count`, the C compiler's
flags. A grantee's user module (memory_user_module/2 with a vocabulary other than the
owner's) gets a current_prolog_flag/2 of its own from flag_guard_install/1, in place of the
system's, that calls grantee_prolog_flag/2: it answers the flags that say how the language behaves (grantee_flag/1) and refuses every other by name,
`permission_error(access, prolog_flag, os_argv)`; enumerating flags (`current_prolog_flag(F,
V)`) enumerates those alone. The owner's own goals read every flag, as before.

statistics/2 is the same kind of window: `statistics(atoms, N)`, `clauses`, `codes`,
`functors`, `predicates`, `atom_space`, the stacks' use and the process's CPU time all grow
with the owner's memory, so a grantee learnt the size of what they may not see (and, from
one read to the next, how much the owner wrote). Every key describes the process, none the
language, so a grantee's module gets a statistics/2 that refuses each by name,
`permission_error(access, statistics, atoms)`, and a thread_statistics/3 that does the same
(`thread_statistics(main, clauses, N)` read what statistics/2 refused).

prolog_flag/2 (library(quintus), which library(sandbox) allows) read every flag
current_prolog_flag/2 refuses (`prolog_flag(os_argv, V)`, `prolog_flag(pid, P)`): a grantee's
module imports this module's prolog_flag/2, which is grantee_prolog_flag/2.

library(statistics) and library(help) declare their own predicates safe to library(sandbox),
which takes their word: statistics/1 answered a grantee, as one dict, every count statistics/2
refuses them (atoms, functors, predicates, code, CPU time, inferences), call_time/2,3 the CPU
time and inferences of a goal of theirs over the owner's memory, and statistics/0, time/1,
profile/1,2, help/1 and apropos/1 print to standard error (help/1 through a pager when it is
a terminal), which is the server's log where a grantee's goal must print nothing. A grantee's
module imports this module's versions (grantee_library_guard/1), which refuse by name,
`permission_error(call, sandboxed, statistics/1)`.

predicate_property/2 names the owner's files (`file('/home/alice/.local/.../grantee_view.pl')`,
`line_count/1`, `autoload/1`) and the database's generation when a predicate was last changed
(`last_modified_generation/1`: a grantee's own rule, loaded after the home, read a number
that grows with every fact the owner's memory holds). A grantee's module gets a
predicate_property/2 that answers only the properties that describe the predicate itself
(grantee_property/1), of a predicate named without a module.
*/

%!  flag_guard_install(+Module) is det.
%   Give Module a current_prolog_flag/2 of its own that is grantee_prolog_flag/2, a
%   statistics/2 that is grantee_statistics/2, a thread_statistics/3 that is
%   grantee_thread_statistics/3, a get_time/1 that is grantee_get_time/1 and a
%   predicate_property/2 that is
%   grantee_predicate_property/3 in Module. Each is a
%   clause in Module rather than an import: an ISO builtin's name cannot be exported (import/1
%   took it with a warning on standard error). prolog_flag/2, a library predicate that
%   emptying Module would remove, is imported from here. Installed once: emptying Module
%   keeps it.
flag_guard_install(M) :-
    (   installed_(M)
    ->  true
    ;   @(redefine_system_predicate(current_prolog_flag(_, _)), M),
        assertz(M:(current_prolog_flag(Flag, Value) :-
                       atc_flag_guard:grantee_prolog_flag(Flag, Value))),
        @(redefine_system_predicate(statistics(_, _)), M),
        assertz(M:(statistics(Key, Value) :-
                       atc_flag_guard:grantee_statistics(Key, Value))),
        @(redefine_system_predicate(thread_statistics(_, _, _)), M),
        assertz(M:(thread_statistics(Thread, Key, Value) :-
                       atc_flag_guard:grantee_thread_statistics(Thread, Key, Value))),
        @(import(atc_flag_guard:prolog_flag/2), M),
        forall(grantee_library_guard(PI), @(import(atc_flag_guard:PI), M)),
        @(redefine_system_predicate(get_time(_)), M),
        assertz(M:(get_time(Stamp) :- atc_flag_guard:grantee_get_time(Stamp))),
        @(redefine_system_predicate(predicate_property(_, _)), M),
        assertz(M:(predicate_property(Head, Property) :-
                       atc_flag_guard:grantee_predicate_property(M, Head, Property))),
        assertz(installed_(M))
    ).

:- dynamic installed_/1.                % installed_(Module): it has the guard

%!  grantee_prolog_flag(?Flag, ?Value) is nondet.
%   system:current_prolog_flag/2 restricted to grantee_flag/1.
%   @error permission_error(access, prolog_flag, Flag) for a flag that describes the host
grantee_prolog_flag(Flag, Value) :-
    (   var(Flag)
    ->  grantee_flag(Flag),
        system:current_prolog_flag(Flag, Value)
    ;   must_be(atom, Flag),
        (   grantee_flag(Flag)
        ->  system:current_prolog_flag(Flag, Value)
        ;   permission_error(access, prolog_flag, Flag)
        )
    ).

%!  grantee_flag(?Flag) is nondet.
%   A flag that says how the language behaves (integers, floats, text syntax, the dialect),
%   nothing about the machine or the process.
grantee_flag(Flag) :-
    member(Flag, [bounded, max_integer, min_integer, max_tagged_integer, min_tagged_integer,
                  float_max, float_min, float_max_integer, float_overflow, float_zero_div,
                  float_undefined, float_rounding, float_underflow, prefer_rationals,
                  rational_syntax, integer_rounding_function, max_arity, max_char_code,
                  max_procedure_arity, double_quotes, back_quotes, character_escapes,
                  var_prefix, traditional, allow_variable_name_as_functor, char_conversion,
                  occurs_check, iso, dialect, version, unknown, last_call_optimisation]).

%!  grantee_statistics(+Key, -Value) is det.
%   Refuses every key: each one measures the owner's process (its atoms, clauses, stacks, CPU
%   time), whose size is the size of the memory hidden from the grantee.
%   @error instantiation_error for an unbound Key
%   @error permission_error(access, statistics, Key) for any other
grantee_statistics(Key, _Value) :-
    must_be(atom, Key),
    permission_error(access, statistics, Key).

%!  grantee_thread_statistics(+Thread, +Key, -Value) is det.
%   Refuses every key, as grantee_statistics/2 does: a thread's counts are the process's
%   (atoms, clauses, code) or its work on the owner's memory (inferences, CPU time).
%   @error instantiation_error for an unbound Key
%   @error permission_error(access, statistics, Key) for any other
grantee_thread_statistics(_Thread, Key, Value) :-
    grantee_statistics(Key, Value).

%!  grantee_get_time(-Stamp) is det.
%   A grantee's get_time/1: refused, as statistics/2 and `cputime` are. The clock to the
%   microsecond measured what they do not see: `get_time(A), Goal, get_time(B)` over the
%   owner's memory takes longer as it holds more records hidden from them (a hidden record a
%   goal names by its handle costs a look at the policy; a handle no record has, none).
%   Their "now" is memory_now/1, the newest record they see.
%   @error permission_error(call, sandboxed, get_time/1) always
grantee_get_time(_Stamp) :-
    refused_(get_time/1).

%!  grantee_library_guard(?PI) is nondet.
%   The library predicates a grantee's module takes from this module, each refused.
grantee_library_guard(statistics/0).
grantee_library_guard(statistics/1).
grantee_library_guard(call_time/2).
grantee_library_guard(call_time/3).
grantee_library_guard(time/1).
grantee_library_guard(profile/1).
grantee_library_guard(profile/2).
grantee_library_guard(help/1).
grantee_library_guard(apropos/1).

%!  statistics is det.
%!  statistics(-Dict) is det.
%!  call_time(:Goal, -Time) is det.
%!  call_time(:Goal, -Time, -Result) is det.
%!  time(:Goal) is det.
%!  profile(:Goal) is det.
%!  profile(:Goal, +Options) is det.
%!  help(+What) is det.
%!  apropos(+Pattern) is det.
%   A grantee's: each throws permission_error(call, sandboxed, Name/Arity) without running
%   its goal (what they would measure is the owner's process, what they print its log).
statistics :- refused_(statistics/0).
statistics(_) :- refused_(statistics/1).
call_time(_, _) :- refused_(call_time/2).
call_time(_, _, _) :- refused_(call_time/3).
time(_) :- refused_(time/1).
profile(_) :- refused_(profile/1).
profile(_, _) :- refused_(profile/2).
help(_) :- refused_(help/1).
apropos(_) :- refused_(apropos/1).

refused_(PI) :-
    permission_error(call, sandboxed, PI).

%!  prolog_flag(?Flag, ?Value) is nondet.
%   A grantee's prolog_flag/2: grantee_prolog_flag/2.
prolog_flag(Flag, Value) :-
    grantee_prolog_flag(Flag, Value).

%!  grantee_predicate_property(+Module, +Head, ?Property) is nondet.
%   system:predicate_property/2 of Module:Head, for the properties grantee_property/1 names.
%   @error instantiation_error for an unbound Head (library(sandbox) refused it before)
%   @error permission_error(access, predicate_property, Head) for a module-qualified Head
grantee_predicate_property(M, Head, Property) :-
    must_be(callable, Head),
    (   Head = _:_
    ->  permission_error(access, predicate_property, Head)
    ;   true
    ),
    system:predicate_property(M:Head, Property),
    grantee_property(Property).

%!  grantee_property(+Property) is semidet.
%   A property of a predicate that says how it is defined and called, nothing of where its
%   file lies on the owner's machine or how much the owner's database changed before it.
grantee_property(Property) :-
    compound(Property),
    !,
    functor(Property, Name, 1),
    memberchk(Name, [meta_predicate, imported_from, implementation_module, number_of_clauses,
                     number_of_rules, size, tabled, indexed]).
grantee_property(Property) :-
    memberchk(Property, [interpreted, visible, built_in, exported, public, non_terminal,
                         foreign, dynamic, static, transparent, defined, iso, thread_local,
                         volatile, discontiguous, multifile, tabled, ssu, det, nodebug,
                         notrace, noprofile]).

:- multifile sandbox:safe_primitive/1.
sandbox:safe_primitive(atc_flag_guard:grantee_prolog_flag(_, _)).
sandbox:safe_primitive(atc_flag_guard:grantee_statistics(_, _)).
sandbox:safe_primitive(atc_flag_guard:grantee_thread_statistics(_, _, _)).
sandbox:safe_primitive(atc_flag_guard:prolog_flag(_, _)).
sandbox:safe_primitive(atc_flag_guard:grantee_predicate_property(_, _, _)).
sandbox:safe_primitive(atc_flag_guard:statistics).     % grantee_library_guard/1's, each
sandbox:safe_primitive(atc_flag_guard:statistics(_)).  % refusing when called
sandbox:safe_primitive(atc_flag_guard:call_time(_, _)).
sandbox:safe_primitive(atc_flag_guard:call_time(_, _, _)).
sandbox:safe_primitive(atc_flag_guard:time(_)).
sandbox:safe_primitive(atc_flag_guard:profile(_)).
sandbox:safe_primitive(atc_flag_guard:profile(_, _)).
sandbox:safe_primitive(atc_flag_guard:help(_)).
sandbox:safe_primitive(atc_flag_guard:apropos(_)).
