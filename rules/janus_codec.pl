:- module(janus_codec,
          [ run/7,                        % +Module, +Name, +Payload, +NVars, +Outs, +Limit, -Reply
            decode/3,                     % +Wire, +Vars, -Term
            encode/2,                     % +Term, -Wire
            install_dispatcher/0,
            python_call/3                 % +Key, +Args, -Result
          ]).
:- use_module(library(apply)).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(solution_sequences)).

/** <module> Exact term exchange for the janus-swi bridge backend

janus-swi converts values by its own rules: Python text becomes a Prolog atom (or, with
py_string_as(string), a string), a Prolog atom comes back as plain Python text, a tuple is a `-`
compound, and other compounds do not come back as data at all. The bridge promises more (see
host/attention_cloud/bridge/terms.py): strings and atoms stay apart, compounds, dicts and
variables cross exactly. So both directions use a small *wire* form that janus carries without
loss, built only from text, numbers, lists, `@(true|false|none)` and `-` tuples:

| Term                      | Wire (Python -> Prolog)      | Wire (Prolog -> Python)       |
|---------------------------|------------------------------|-------------------------------|
| string S                  | S                            | S                             |
| number N                  | N                            | N                             |
| atom A                    | -("a", Text)                 | -(a, A)                       |
| true / false              | @(true) / @(false)           | -(a, true) / -(a, false)      |
| null (Python None)        | @(none)                      | -(a, null)                    |
| list                      | list of wires                | list of wires                 |
| partial list [X..|T]      | (not sent)                   | -(p, Wires, TailWire)         |
| compound f(A1..An)        | -("t", "f", [W1..Wn])        | -(t, f, [W1..Wn])             |
| dict (tag unbound)        | -("d", Keys, Wires)          | -(d, [K-W, ...])              |
| variable                  | -("v", Index)                | -(v)                          |
| other (rational, blob)    | (not sent)                   | its ~q text                   |

Python -> Prolog values arrive as a Python object (the *payload*) whose `args` attribute is read
with py_call/3 and py_string_as(string), so text is never turned into atoms or parsed. Goals are
built as terms; nothing here reads Prolog text.

Registered Python callables are reached through bridge:'$py_call'/3, which install_dispatcher/0
defines as python_call/3 once the bridge module is loaded.
*/

%!  run(+Module, +Name, +Payload, +NVars:nonneg, +Outs:list(nonneg), +Limit:nonneg, -Reply)
%   is det.
%
%   Call Module:Name(Args...) where Args are the wires in Payload's `args` attribute, decoded
%   with NVars fresh variables. Reply is the list of solutions (at most Limit, all when Limit is
%   0), each the list of wires of the variables numbered Outs. When the goal raises, Reply is
%   `-(error, Wire, Message)` with the error's wire and SWI-Prolog's wording of it ("" when
%   the bridge's messages are not loaded yet).

run(Module, Name, Payload, NVars, Outs, Limit, Reply) :-
    janus:py_call(Payload:args, Wires, [py_string_as(string)]),
    functor(Vars, v, NVars),
    decode_list(Wires, Vars, Args),
    Goal =.. [Name|Args],
    maplist(var_at(Vars), Outs, OutVars),
    catch(solutions(Limit, Module:Goal, OutVars, Reply0), Error0, true),
    (   var(Error0)
    ->  Reply = Reply0
    ;   host_context(Error0, Module:Goal, Error),
        error_reply(Error, Reply)
    ).

var_at(Vars, Index, Var) :-
    I is Index + 1,
    arg(I, Vars, Var).

solutions(0, Goal, OutVars, Solutions) :-
    !,
    findall(Wires, (call(Goal), encode_list(OutVars, Wires)), Solutions).
solutions(1, Goal, OutVars, Solutions) :-      % the common once/1 case: no findall copy
    !,
    (   call(Goal)
    ->  encode_list(OutVars, Wires),
        Solutions = [Wires]
    ;   Solutions = []
    ).
solutions(Limit, Goal, OutVars, Solutions) :-
    findall(Wires, (limit(Limit, Goal), encode_list(OutVars, Wires)), Solutions).

% An unknown goal called from the host reads as it does through the C API (the pyswip
% backend): its context is the host's call, not the collector that runs it here (findall/3's
% meta-call, limit/2 or solutions/4). Errors from deeper calls keep their context.
host_context(error(existence_error(procedure, PI), context(Caller, Extra)), Module:Goal,
             error(existence_error(procedure, PI), context(system:'$c_call_prolog'/0, Extra))) :-
    collector(Caller),
    functor(Goal, Name, Arity),
    (   PI == Name/Arity
    ;   PI == Module:Name/Arity
    ),
    !.
host_context(Error, _, Error).

collector(system:'<meta-call>'/1).
collector(solution_sequences:limit/2).
collector(janus_codec:solutions/4).

error_reply(Error, -(error, Wire, Message)) :-
    encode(Error, Wire),
    (   python_error_message(Error, Message0)
    ->  Message = Message0
    ;   catch(bridge:error_message(Error, Message0), _, fail)
    ->  Message = Message0
    ;   Message = ""
    ).

% library(janus) words python_error(Class, Value) itself (for a Python exception object as
% Value), and its prolog:error_message//1 clause is loaded before bridge.pl's. Errors from
% registered callables carry the message text instead; word those as bridge.pl does, so both
% backends say the same.
python_error_message(error(python_error(Type, Text), _), Message) :-
    atom(Type),
    string(Text),
    format(string(Message), "Python ~w: ~w", [Type, Text]).

%!  decode(+Wire, +Vars, -Term) is det.
%
%   Term is the value Wire stands for (see the module table). Variable number I is arg I+1 of
%   the compound Vars, so the same number is the same variable.

decode(Wire, Vars, Term) :-
    (   string(Wire)
    ->  Term = Wire
    ;   number(Wire)
    ->  Term = Wire
    ;   Wire == []
    ->  Term = []
    ;   Wire = [_|_]
    ->  decode_list(Wire, Vars, Term)
    ;   Wire = -(Tag, Value)
    ->  decode_tagged(Tag, Value, Vars, Term)
    ;   Wire = -(Tag, Name, Values)
    ->  decode_tagged(Tag, Name, Values, Vars, Term)
    ;   Wire = @(Constant)
    ->  constant(Constant, Term)
    ;   domain_error(janus_wire, Wire)
    ).

decode_list([], _, []).
decode_list([Wire|Wires], Vars, [Term|Terms]) :-
    decode(Wire, Vars, Term),
    decode_list(Wires, Vars, Terms).

decode_tagged("a", Text, _, Atom) :-
    !,
    atom_string(Atom, Text).
decode_tagged("v", Index, Vars, Var) :-
    !,
    var_at(Vars, Index, Var).
decode_tagged(Tag, Value, _, _) :-
    domain_error(janus_wire, -(Tag, Value)).

decode_tagged("t", NameText, Wires, Vars, Term) :-
    !,
    atom_string(Name, NameText),
    decode_list(Wires, Vars, Args),
    compound_name_arguments(Term, Name, Args).
decode_tagged("d", KeyTexts, Wires, Vars, Dict) :-
    !,
    maplist(atom_string, Keys, KeyTexts),
    decode_list(Wires, Vars, Values),
    pairs_keys_values(Pairs, Keys, Values),
    dict_pairs(Dict, _, Pairs).
decode_tagged(Tag, Name, Values, _, _) :-
    domain_error(janus_wire, -(Tag, Name, Values)).

% Python's None and booleans, as janus passes them.
constant(none, null).
constant(true, true).
constant(false, false).

%!  encode(@Term, -Wire) is det.
%
%   Wire is the form of Term that janus hands to Python without loss (see the module table).

encode(Term, Wire) :-
    (   var(Term)
    ->  Wire = -(v)
    ;   string(Term)
    ->  Wire = Term
    ;   integer(Term)
    ->  Wire = Term
    ;   float(Term)
    ->  Wire = Term
    ;   Term == []
    ->  Wire = []
    ;   atom(Term)
    ->  (   blob(Term, text)
        ->  Wire = -(a, Term)
        ;   format(string(Wire), "~q", [Term])
        )
    ;   Term = [_|_]
    ->  encode_cells(Term, Wires, Tail),
        (   Tail == []
        ->  Wire = Wires
        ;   encode(Tail, TailWire),
            Wire = -(p, Wires, TailWire)
        )
    ;   is_dict(Term)
    ->  dict_pairs(Term, _, Pairs),
        maplist(encode_pair, Pairs, WirePairs),
        Wire = -(d, WirePairs)
    ;   compound(Term)
    ->  compound_name_arguments(Term, Name, Args),
        encode_list(Args, Wires),
        Wire = -(t, Name, Wires)
    ;   format(string(Wire), "~q", [Term])       % rationals: the pyswip backend's text, too
    ).

encode_list([], []).
encode_list([Term|Terms], [Wire|Wires]) :-
    encode(Term, Wire),
    encode_list(Terms, Wires).

% The cells of a list up to its tail ([] for a proper list, else what ends it).
encode_cells(List, Wires, Tail) :-
    (   nonvar(List), List = [Head|Rest]
    ->  encode(Head, Wire),
        Wires = [Wire|More],
        encode_cells(Rest, More, Tail)
    ;   Wires = [],
        Tail = List
    ).

encode_pair(Key-Value, -(Key, Wire)) :-
    encode(Value, Wire).

%!  install_dispatcher is det.
%
%   Define bridge:'$py_call'(+Key, +Args, -Result) as python_call/3, once module bridge is
%   loaded. It is asserted and then compiled rather than written as a clause of this file:
%   loading bridge.pl abolishes predicates other files defined in its module, not these.

install_dispatcher :-
    (   predicate_property(bridge:'$py_call'(_, _, _), defined)
    ->  true
    ;   assertz((bridge:'$py_call'(Key, Args, Result) :-
                    janus_codec:python_call(Key, Args, Result))),
        compile_predicates([bridge:'$py_call'/3])
    ).

%!  python_call(+Key, +Args:list, -Result) is det.
%
%   Call the Python callable registered under Key with Args; Result is its return value. A
%   Python exception is raised here as error(python_error(Type, Message), _), the form the
%   pyswip backend uses too.

python_call(Key, Args, Result) :-
    encode_list(Args, Wires),
    janus:py_call('attention_cloud.bridge.janus_engine':dispatch(Key, Wires), Reply,
                  [py_string_as(string)]),
    python_reply(Reply, Result).

%   python_reply(+Reply, -Result) is det.
%
%   Result of a callable from the dispatcher's reply: -("ok", Wire, NVars) or
%   -("error", Type, Message).
python_reply(-("ok", Wire, NVars), Result) :-
    !,
    functor(Vars, v, NVars),
    decode(Wire, Vars, Result).
python_reply(-("error", TypeText, Message), _) :-
    !,
    atom_string(Type, TypeText),
    throw(error(python_error(Type, Message), _)).
python_reply(Reply, _) :-
    domain_error(janus_python_reply, Reply).
