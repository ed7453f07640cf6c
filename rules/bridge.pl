:- module(atc_bridge,
          [ error_message/2,              % +Error, -Message
            define_python_predicate/5     % +Module, +Name, +Arity, +Key, +Nondet
          ]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(occurs)).

/** <module> Prolog side of the Python bridge

The host registers one foreign predicate, atc_bridge:'$py_call'(+Key, +Args, -Result), and every
Python callable is reached through a small wrapper clause that this module asserts. Wrappers are
built as terms, never from text. Errors raised in Python arrive as
error(python_error(Type, Message), _) and read like any other error.
*/

:- multifile prolog:error_message//1.

prolog:error_message(python_error(Type, Message)) -->
    [ 'Python ~w: ~w'-[Type, Message] ].

%!  error_message(+Error, -Message:string) is det.
%
%   Message is SWI-Prolog's own wording of Error, folded into one line.

error_message(error(python_error(Type, Text), _), Message) :-
    atom(Type), string(Text), !,        % one wording on both backends (janus has its own rule)
    format(string(Message), "Python ~w: ~w", [Type, Text]).
error_message(Error, Message) :-
    (   catch('$messages':translate_message(Error, Lines0, []), _, fail)
    ->  true
    ;   Lines0 = ['~p'-[Error]]
    ),
    maplist(inert_line_, Lines0, Lines),
    with_output_to(string(Raw), print_message_lines(current_output, '', Lines)),
    split_string(Raw, "\n", " \t", Parts0),
    exclude(==(""), Parts0, Parts),
    atomic_list_concat(Parts, ' ', Joined),
    (   atom_length(Joined, N), N > 2000
    ->  sub_atom(Joined, 0, 2000, _, Head),
        atom_concat(Head, ' ...', Shown)
    ;   Shown = Joined
    ),
    atom_string(Shown, Message).

% inert_line_(+Line, -Inert): a line of a translated message that prints without running
% anything. An error's terms come from user code (a query may throw what it likes), and a
% message line is a format directive with arguments: `format("~@", [shell(X)])` thrown as an
% error would run shell(X) here, outside the sandbox and its limits, and `~W` passes write
% options (`portray_goal(G)` calls G). A line whose directive runs a goal, pads by a computed
% or huge count, or whose arguments carry `portray_goal`, is shown as the term it is instead.
inert_line_(Fmt-Args, Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = Fmt-Args ; Line = '~q'-[Fmt-Args] ).
inert_line_(ansi(Attr, Fmt, Args), Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = ansi(Attr, Fmt, Args) ; Line = '~q'-[Fmt-Args] ).
inert_line_(url(URL, Fmt-Args), Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = url(URL, Fmt-Args) ; Line = '~q'-[Fmt-Args] ).
inert_line_(Line, Line) :-
    (   memberchk(Line, [nl, flush, at_same_line])
    ;   Line = url(_)
    ;   Line = begin(_, _)
    ;   Line = end(_)
    ), !.
inert_line_(Fmt, Line) :-
    (   inert_format_(Fmt, []) -> Line = Fmt ; Line = '~q'-[Fmt] ).

inert_format_(Fmt, Args) :-
    catch(text_to_string(Fmt, S), error(_, _), fail),
    string_codes(S, Cs),
    \+ active_directive_(Cs),
    \+ ( sub_term(T, Args), compound(T), T = portray_goal(_) ).

active_directive_([0'~|T]) :- !,
    (   T = [0'~|Rest]
    ->  active_directive_(Rest)
    ;   active_directive_arg_(T)
    ->  true
    ;   active_directive_(T)
    ).
active_directive_([_|T]) :-
    active_directive_(T).

% After a `~`: its argument (digits, `*`, or a backquote and a fill character), then its letter.
active_directive_arg_([0'*|_]) :- !.
active_directive_arg_([0'`, _, 0'@|_]) :- !.
active_directive_arg_(Cs) :-
    digits_(Cs, 0, N, Rest),
    (   N >= 6 -> true ; Rest = [0'@|_] ).

digits_([C|Cs], N0, N, Rest) :-
    code_type(C, digit), !,
    N1 is N0 + 1,
    digits_(Cs, N1, N, Rest).
digits_(Rest, N, N, Rest).

%!  define_python_predicate(+Module, +Name, +Arity, +Key, +Nondet) is det.
%
%   Define Module:Name/Arity as a call of the Python callable registered under Key. The first
%   Arity-1 arguments go to Python; its return value is unified with the last argument. When
%   Nondet is true the callable returns a list and each element is one solution.

define_python_predicate(Module, Name, Arity, Key, Nondet) :-
    must_be(atom, Module),
    must_be(atom, Name),
    must_be(positive_integer, Arity),
    functor(Head, Name, Arity),
    Head =.. [_|Args],
    append(In, [Out], Args),
    (   Nondet == true
    ->  Body = ( atc_bridge:'$py_call'(Key, In, Results), lists:member(Out, Results) )
    ;   Body = ( atc_bridge:'$py_call'(Key, In, Result), Out = Result )
    ),
    dynamic(Module:Name/Arity),
    retractall(Module:Head),
    assertz(Module:(Head :- Body)).
