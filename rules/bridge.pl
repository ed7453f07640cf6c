:- module(atc_bridge,
          [ error_message/2,              % +Error, -Message
            define_python_predicate/5     % +Module, +Name, +Arity, +Key, +Nondet
          ]).
:- use_module(library(lists)).

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
    (   catch('$messages':translate_message(Error, Lines, []), _, fail)
    ->  true
    ;   Lines = ['~p'-[Error]]
    ),
    with_output_to(string(Raw), print_message_lines(current_output, '', Lines)),
    split_string(Raw, "\n", " \t", Parts0),
    exclude(==(""), Parts0, Parts),
    atomic_list_concat(Parts, ' ', Joined),
    atom_string(Joined, Message).

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
