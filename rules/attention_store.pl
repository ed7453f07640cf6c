:- module(atc_attention_store,
          [ scoped_assert/1,              % :Fact
            scoped_retract/1,             % :Pattern
            transient_scope/1,            % +Scope
            next_id/4,                    % +Scope, +Counter_1, +Prefix, -Id
            scope_atom/2                  % +ScopeText, -Scope
          ]).
:- use_module(library(error)).
:- use_module(attention_checks).

/** <module> Scoped durable writes for beliefs, attention and trace

Every fact the TMS, the attention controller and the trace keep has a scope as its first
argument: a namespace for one agent, one project or one benchmark trial. This module is the only
way those modules change their facts:

  - an ordinary scope goes through the store, atc_store:durable_assert/1 and
    atc_store:durable_retract/1, so the change is journalled in the memory home and replayed on open;
  - a scope whose name starts with `bench-` is transient: a benchmark creates thousands of them
    and drops each after one trial, so they live in memory only and never reach the journal.

When no store is loaded (unit tests of the rules alone), ordinary scopes are kept in memory too.

    ?- scoped_assert(atc_tms:dirty(bench-1, b1, source_changed(registry), 10)).
*/

:- meta_predicate
    scoped_assert(:),
    scoped_retract(:).

%!  scoped_assert(:Fact) is det.
%
%   Add Fact (whose first argument is its scope) durably, or in memory for a transient scope.

scoped_assert(M:Fact) :-
    arg(1, Fact, Scope),
    (   use_store(Scope)
    ->  atc_store:durable_assert(M:Fact)
    ;   assertz(M:Fact)
    ).

%!  scoped_retract(:Pattern) is det.
%
%   Remove every clause matching Pattern (whose first argument is its scope, bound).

scoped_retract(M:Pattern) :-
    arg(1, Pattern, Scope),
    must_be(atom, Scope),
    (   use_store(Scope)
    ->  atc_store:durable_retract(M:Pattern)
    ;   retractall(M:Pattern)
    ).

use_store(Scope) :-
    \+ transient_scope(Scope),
    current_predicate(atc_store:durable_assert/1),
    current_predicate(atc_store:durable_retract/1).

%!  transient_scope(+Scope:atom) is semidet.
%
%   True when Scope is a benchmark scope (`bench-...`) that must not reach the journal.

transient_scope(Scope) :-
    sub_atom(Scope, 0, _, _, 'bench-').

%!  next_id(+Scope:atom, :Taken_1, +Prefix:atom, -Id:atom) is det.
%
%   Id is the first free `Prefix-N` (N = 1, 2, ...) of Scope, where call(Taken_1, Id) succeeds
%   for ids already in use. Ids are dense, so a high-water mark is cached; the cache is only a
%   hint, verified against the data on every call, so replaying a journal or dropping and
%   rebuilding a scope never yields a duplicate id.

:- dynamic id_hint/3.                     % id_hint(Scope, Prefix, LastN)
:- meta_predicate next_id(+, 1, +, -).

next_id(Scope, Taken_1, Prefix, Id) :-
    (   id_hint(Scope, Prefix, N0)
    ->  true
    ;   N0 = 0
    ),
    first_free_(Taken_1, Prefix, N0, N),
    retractall(id_hint(Scope, Prefix, _)),
    assertz(id_hint(Scope, Prefix, N)),
    format(atom(Id), '~w-~d', [Prefix, N]).

% Walk forward from the hint to the first free number; if the hint overshot (the scope was
% dropped and rebuilt), walk back to 1 first.
first_free_(Taken_1, Prefix, N0, N) :-
    (   N0 > 0,
        format(atom(Last), '~w-~d', [Prefix, N0]),
        \+ call(Taken_1, Last)
    ->  first_free_up_(Taken_1, Prefix, 1, N)
    ;   N1 is N0 + 1,
        first_free_up_(Taken_1, Prefix, N1, N)
    ).

first_free_up_(Taken_1, Prefix, N0, N) :-
    format(atom(Id), '~w-~d', [Prefix, N0]),
    (   call(Taken_1, Id)
    ->  N1 is N0 + 1,
        first_free_up_(Taken_1, Prefix, N1, N)
    ;   N = N0
    ).

%!  scope_atom(+ScopeText, -Scope:atom) is det.
%
%   Scope names arrive as strings or atoms; they are kept as atoms.
%   @error type_error(text, ScopeText) when it is not text; domain_error(scope, ScopeText) when
%          it is blank or holds a control character (visible_identifier/1)

scope_atom(Text, Scope) :-
    must_be(text, Text),
    atom_string(Scope, Text),
    (   visible_identifier(Scope)
    ->  true
    ;   domain_error(scope, Text)
    ).

:- multifile prolog:error_message//1.
prolog:error_message(domain_error(scope, Text)) -->
    [ 'a scope needs a visible character and no control characters: ~q'-[Text] ].
