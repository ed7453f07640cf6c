:- use_module('../../rules/api').
:- use_module(library(plunit)).
:- use_module(library(sandbox)).

% library(sandbox) took every library's word for its own predicates. Only the vouched
% libraries' declarations stand (rules/sandbox_trust.pl), whether a library was loaded before
% the check (here, explicitly) or by the autoloader during it.

refused_(Goal) :-
    catch(( safe_goal(user:Goal), fail ), error(permission_error(call, sandboxed, _), _), true).

:- begin_tests(sandbox_trust).

test(loaded_before_the_check_and_not_vouched) :-
    use_module(library(crypto), []),
    use_module(library(intercept), []),
    assertion(refused_(crypto:crypto_is_prime(7, []))),
    assertion(refused_(intercept:send_signal(x))).

test(loaded_during_the_check_and_not_vouched) :-
    assertion(refused_(dtd(html, _))),
    assertion(refused_(dtd(html, _))).

test(vouched_and_project_declarations_stand) :-
    safe_goal(user:maplist([X, Y]>>(Y is X + 1), [1], _)),
    safe_goal(user:aggregate_all(count, member(_, [a]), _)),
    safe_goal(user:isub(a, b, _, [])),
    safe_goal(user:atom_length(abc, _)).

:- end_tests(sandbox_trust).
