:- module(atc_sandbox_trust,
          [ sandbox_hooks_wrapped/0
          ]).
:- use_module(library(sandbox)).
:- use_module(library(lists)).

/** <module> Which libraries library(sandbox) may take at their word

library(sandbox) decides what a goal may call from multifile clauses (safe_primitive/1,
safe_meta/2, safe_global_variable/1, ...) that each library declares about its own
predicates, and the autoloader loads a library for the first goal that names one of them,
during the very check. So any library on the system vouched for itself: pengine_write_term/2
ran a shell command, load_structure/3 read any file, lazy_findall/3 outlived the time limit,
gensym/2 shared counters between principals, each refused by name once found.

Here a declaration stands only when it comes from library(sandbox) itself, from the project's
own rules (this folder) or from a library listed in vouched_library_/1, read for what it
declares. The hooks are static and cannot be erased, so each is wrapped (wrap_predicate/4) to
answer from those clauses alone; the wrapper looks at a clause's file whenever it is asked,
so a library loaded later (by the autoloader, during a check) is never trusted either.
*/

%!  sandbox_hooks_wrapped is det.
%
%   Make every hook of library(sandbox) answer from trusted clauses only (loading this module
%   does it). Wrapping again under the same name replaces the wrapper.
sandbox_hooks_wrapped :-
    trusted_files_recorded_,
    forall(sandbox_hook_(H),
           wrap_predicate(sandbox:H, atc_sandbox_trust, _Untrusted,
                          atc_sandbox_trust:trusted_declaration_(H))).

% trusted_declaration_(+Head): Head, a call of a hook of library(sandbox), holds by a clause
% of a trusted file. The hooks are asked for every goal a check meets, so they answer from a
% copy of the trusted clauses (copy_head_/4), made again when the hook's clause count shows a
% library has loaded since. A copy's body runs in the module its clause named; a cut in it is
% local (the hooks are tests, asked for a yes or a no).
trusted_declaration_(Head) :-
    functor(Head, Name, Arity),
    (   predicate_property(sandbox:Head, number_of_clauses(Count)) -> true ; Count = 0 ),
    (   copied_count_(Name/Arity, Count, Generation)
    ->  true
    ;   with_mutex(atc_sandbox_trust, trusted_copy_made_(Head, Count, Generation))
    ),
    copy_head_(Head, Generation, Body, Copy),
    call(Copy),
    call(Body),
    output_declaration_holds_(Head).

% output_declaration_holds_(+Head): library(sandbox) declares format_time/3,4 and
% normalize_space/2 safe whatever their first argument, an output as format/3's is, though it
% lets format/3 and with_output_to/2 write to text alone (sandbox:safe_output/1): a stream
% alias passed too, and `format_time(user_error, Text, 0)` wrote any bytes (escape sequences
% included) from a grantee's goal to the server's standard error, `user_output` into the
% owner's `atc query --format json` and `atc mcp`'s protocol. The same test holds for them: an
% output unbound when checked is an instantiation error, as for format/3.
output_declaration_holds_(Head) :-
    (   Head = safe_primitive(Goal),
        nonvar(Goal),
        Goal = system:Plain,
        nonvar(Plain),
        text_output_argument_(Plain, Output)
    ->  sandbox:safe_output(Output),
        Output \= current_output,      % safe_output/1's aliases of the caller's streams
        Output \= current_error
    ;   true
    ).

text_output_argument_(format_time(Output, _, _), Output).
text_output_argument_(format_time(Output, _, _, _), Output).
text_output_argument_(normalize_space(Output, _), Output).

% copy_head_(+Head, ?Generation, ?Body, -Copy): the copy of a hook's clause is a clause of a
% predicate of this module named after the hook ('trusted safe_primitive'/6, ...). Its first
% three arguments are the module, name and arity of the goal the hook's first argument names
% where the clause (or the call) gives them, left unbound otherwise, so that the copies are
% indexed by predicate name: a first argument `system:G` of every hook's clause alike is not.
% Two arguments that unify have keys that unify, so the key only skips clauses that could not
% have answered.
copy_head_(Head, Generation, Body, Copy) :-
    Head =.. [Name, First|Rest],
    copy_name_(Name, CopyName),
    key_(First, M, N, A),
    append(Rest, [Generation, Body], Rest1),
    Copy =.. [CopyName, M, N, A, First|Rest1].

copy_name_(safe_primitive, 'trusted safe_primitive').
copy_name_(safe_meta_predicate, 'trusted safe_meta_predicate').
copy_name_(safe_meta, 'trusted safe_meta').
copy_name_(safe_global_variable, 'trusted safe_global_variable').
copy_name_(safe_directive, 'trusted safe_directive').
copy_name_(safe_prolog_flag, 'trusted safe_prolog_flag').

% key_(+Arg, -Module, -Name, -Arity): what Arg (a goal, Module:Goal or Name/Arity) names.
key_(Arg, M, N, A) :-
    (   var(Arg)
    ->  true
    ;   Arg = M0:G
    ->  ( atom(M0) -> M = M0 ; true ),
        key_(G, _, N, A)
    ;   Arg = N0/A0
    ->  ( atom(N0) -> N = N0 ; true ),
        ( integer(A0) -> A = A0 ; true )
    ;   callable(Arg)
    ->  functor(Arg, N, A)
    ;   true
    ).

:- dynamic copied_count_/3.

% trusted_copy_made_(+Head, +Count, -Generation): the trusted clauses of Head's hook, copied
% under a new Generation, made current only once whole, so that a check running meanwhile
% reads the whole older copy; the older copy is then dropped.
trusted_copy_made_(Head, Count, Generation) :-
    functor(Head, Name, Arity),
    (   copied_count_(Name/Arity, Count, Generation)
    ->  true                                % another thread made it while this one waited
    ;   flag(atc_sandbox_trust_generation, Generation, Generation + 1),
        functor(Any, Name, Arity),
        forall(( clause(sandbox:Any, Body, Ref), trusted_clause_(Ref) ),
               ( clause_property(Ref, module(M)),
                 copy_head_(Any, Generation, M:Body, Copy),
                 assertz(Copy) )),
        (   retract(copied_count_(Name/Arity, _, Old))
        ->  assertz(copied_count_(Name/Arity, Count, Generation)),
            copy_head_(Any, Old, _, OldCopy),
            retractall(OldCopy)
        ;   assertz(copied_count_(Name/Arity, Count, Generation))
        )
    ).

% The hooks of library(sandbox) that widen what it allows (SWI-Prolog 9.0.x).
sandbox_hook_(safe_primitive(_)).
sandbox_hook_(safe_meta_predicate(_)).
sandbox_hook_(safe_meta(_, _)).
sandbox_hook_(safe_meta(_, _, _)).
sandbox_hook_(safe_global_variable(_)).
sandbox_hook_(safe_directive(_)).
sandbox_hook_(safe_prolog_flag(_, _)).

% Libraries read for what they declare safe and vouched for: they compute over their arguments
% (terms, text, closures that library(sandbox) checks in turn) and reach no file, stream,
% thread, engine or state that outlives the call.
vouched_library_(apply).
vouched_library_(aggregate).
vouched_library_(yall).
vouched_library_(error).
vouched_library_(debug).            % debug/3 prints only for a topic user code cannot enable
vouched_library_(time).             % its names are refused before the sandbox (api.pl)
vouched_library_(record).
vouched_library_(statistics).       % the owner's statistics/1; a grantee's: flag_guard.pl
vouched_library_(when).             % when/2: its goal is checked as a meta argument
vouched_library_(sha).
vouched_library_(md5).
vouched_library_(porter_stem).
vouched_library_(snowball).
vouched_library_(isub).
vouched_library_(double_metaphone).

% trusted_file_(?File): files whose declarations stand: library(sandbox), the vouched
% libraries and dir(D), the folder of this module (the project's rules).
:- dynamic trusted_file_/1.

trusted_files_recorded_ :-
    retractall(trusted_file_(_)),
    forall(( Spec = library(sandbox) ; vouched_library_(L), Spec = library(L) ),
           (   absolute_file_name(Spec, F, [file_type(prolog), access(read),
                                            file_errors(fail)])
           ->  assertz(trusted_file_(F))
           ;   true
           )),
    module_property(atc_sandbox_trust, file(Here)),
    file_directory_name(Here, Dir),
    assertz(trusted_file_(dir(Dir))).

trusted_clause_(Ref) :-
    clause_property(Ref, file(F)),
    (   trusted_file_(F)
    ->  true
    ;   file_directory_name(F, Dir),
        trusted_file_(dir(Dir))
    ).

:- forall(sandbox_hook_(H), ( copy_head_(H, _, _, C), functor(C, N, A), dynamic(N/A) )).
:- sandbox_hooks_wrapped.
