:- module(atc_load_guard, []).

/** <module> Libraries loaded whole, whatever aborts the call that needs them

A predicate of a library nobody has loaded yet is loaded when it is first called (SWI-Prolog's
autoloader, through '$undefined_procedure'/4), and in `atc serve`, `atc mcp` or a `Memory`
held open that first call may be a user's goal. The watchdog stops such a goal with abort/0
sent as a signal (api.pl, "Limits"), handled at the next call port, which may lie inside
the library's loading: SWI-Prolog 9.0 then holds the file as loaded with only the clauses
read so far, and never loads it again. A grantee's `isub(abc, abd, D, [])` stopped by its
time limit while library(isub) loaded library(option) left `isub:option/3` unknown for every
later caller of the process, the owner's rules included (`Unknown procedure:
isub:option/3`), until it restarted.

So an autoload runs with signals held (sig_atomic/1): a signal that arrives meanwhile is
handled once the library is loaded and imported, and the call stops there, its limit's
message as before. Loading a library takes milliseconds; the watchdog sends its abort again
every 0.05 s until the call has ended, so it is never lost. This is the system's own
autoloader, called as it calls it ('$autoload'/1), not another way of finding libraries;
where nothing is autoloaded (the flag `autoload` false, or no library defines the predicate)
the hook fails and the system goes on as before (an existence error, or the module's
`unknown` setting).
*/

:- multifile user:exception/3.
:- dynamic user:exception/3.

user:exception(undefined_predicate, Indicator, retry) :-
    current_predicate('$autoload':'$autoload'/1),     % the system's autoloader, as it calls it
    \+ current_prolog_flag(autoload, false),
    qualified_(Indicator, Qualified),
    sig_atomic('$autoload':'$autoload'(Qualified)).

% '$undefined_procedure'/4 names a predicate of module user without its module.
qualified_(Indicator, Qualified) :-
    (   Indicator = _:_/_ -> Qualified = Indicator ; Qualified = user:Indicator ).
