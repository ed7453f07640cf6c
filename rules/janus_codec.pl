:- module(atc_janus_codec,
          [ run/7,                        % +Module, +Name, +Payload, +NVars, +Outs, +Limit, -Done
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
| atom A                    | -("a", Text)                 | py{a: A}                      |
| true / false              | @(true) / @(false)           | py{a: true} / py{a: false}    |
| null (Python None)        | @(none)                      | py{a: null}                   |
| list                      | list of wires                | list of wires                 |
| partial list [X..|T]      | (not sent)                   | py{p: Wires, tail: TailWire}  |
| compound f(A1..An)        | -("t", "f", [W1..Wn])        | py{t: f, a: [W1..Wn]}         |
| dict (tag unbound)        | -("d", Keys, Wires)          | py{d: Keys, v: Wires}         |
| variable                  | -("v", Index)                | py{v: 0}                      |
| other (rational, blob)    | (not sent)                   | its ~q text                   |
| text with lone surrogates | -("s", Codes)                | py{s: Codes}                  |

Prolog -> Python, tagged wires are dicts, never `-` tuples: janus-swi 1.5.3 leaks a reference
to each item of a tuple it builds (64 bytes or more per atom, compound or error returned, seen
with scripts/bench/bridge_soak.py), so a long-running process would grow without bound. Dicts
convert without a leak.

Values travel inside a Python object, the *payload*: Prolog reads the arguments from its `args`
attribute with py_call/3 and py_string_as(string), so text is never turned into atoms or parsed,
and sets the reply on its `reply` attribute. Goals are built as terms; nothing here reads Prolog
text.

Text holding a lone UTF-16 surrogate (a JSON "\ud800" escape makes one) is not UTF-8, and janus
fails to convert it. Both directions first try the plain wire; only when janus reports such a
Unicode error is the wire resent with that text as code lists (-(s, Codes)), which is exact.
The goal itself runs once either way: conversions are retried, never calls.

Registered Python callables are reached through atc_bridge:'$py_call'/3, which install_dispatcher/0
defines as python_call/3 once the bridge module is loaded.
*/

%!  run(+Module, +Name, +Payload, +NVars:nonneg, +Outs:list(nonneg), +Limit:nonneg, -Done)
%   is det.
%
%   Call Module:Name(Args...) where Args are the wires in Payload's `args` attribute, decoded
%   with NVars fresh variables, and set Payload's `reply` attribute; Done is `true`. The reply is
%   the list of solutions (at most Limit, all when Limit is 0), each the list of wires of the
%   variables numbered Outs. When the goal raises, the reply is `-(error, Wire, Message)` with
%   the error's wire and SWI-Prolog's wording of it ("" when the bridge's messages are not
%   loaded yet).

run(Module, Name, Payload, NVars, Outs, Limit, true) :-
    payload_args(Payload, Wires),
    functor(Vars, v, NVars),
    decode_list(Wires, Vars, Args),
    Goal =.. [Name|Args],
    maplist(var_at(Vars), Outs, OutVars),
    catch(solutions(Limit, Module:Goal, OutVars, Reply0), Error0, true),
    (   var(Error0)
    ->  Reply = Reply0
    ;   host_context(Error0, Module:Goal, Error),
        error_reply(Error, Reply)
    ),
    set_reply(Payload, Reply).

% The wires in Payload's args; resent as code lists if janus cannot convert some text.
payload_args(Payload, Wires) :-
    catch(janus:py_call(Payload:args, Wires, [py_string_as(string)]), Error, true),
    (   var(Error)
    ->  true
    ;   unicode_error(Error)
    ->  janus:py_call(Payload:text_safe_args(), Wires, [py_string_as(string)])
    ;   throw(Error)
    ).

% Hand Reply to Python; with text as code lists where janus cannot convert it.
set_reply(Payload, Reply) :-
    catch(janus:py_setattr(Payload, reply, Reply), Error, true),
    (   var(Error)
    ->  true
    ;   unicode_error(Error)
    ->  text_safe(Reply, Safe),
        janus:py_setattr(Payload, reply, Safe)
    ;   throw(Error)
    ).

unicode_error(error(python_error(Class, _), _)) :-
    memberchk(Class, ['UnicodeEncodeError', 'UnicodeDecodeError']).

%   text_safe(+Wire, -Safe) is det.
%
%   Safe is Wire with each string or atom that holds a surrogate code point replaced by
%   -(s, Codes). Only used after janus failed on Wire, so its cost does not matter.
text_safe(Wire, Safe) :-
    (   (   string(Wire)
        ;   atom(Wire)
        ),
        has_surrogate(Wire)
    ->  atom_codes(Wire, Codes),
        Safe = py{s: Codes}
    ;   is_list(Wire)
    ->  maplist(text_safe, Wire, Safe)
    ;   is_dict(Wire)
    ->  dict_pairs(Wire, Tag, Pairs),
        pairs_keys_values(Pairs, Keys, Values),
        maplist(text_safe, Values, SafeValues),
        pairs_keys_values(SafePairs, Keys, SafeValues),
        dict_pairs(Safe, Tag, SafePairs)
    ;   compound(Wire)
    ->  compound_name_arguments(Wire, Name, Args),
        maplist(text_safe, Args, SafeArgs),
        compound_name_arguments(Safe, Name, SafeArgs)
    ;   Safe = Wire
    ).

has_surrogate(Text) :-
    atom_codes(Text, Codes),
    member(Code, Codes),
    between(0xD800, 0xDFFF, Code),
    !.

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
collector(atc_janus_codec:solutions/4).

error_reply(Error, py{error: Wire, message: Message}) :-
    encode(Error, Wire),
    (   catch(atc_bridge:error_message(Error, Message0), _, fail)
    ->  Message = Message0
    ;   Message = ""
    ).

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
    wire_text(Text, String),
    atom_string(Atom, String).
decode_tagged("v", Index, Vars, Var) :-
    !,
    var_at(Vars, Index, Var).
decode_tagged("s", Codes, _, String) :-
    !,
    string_codes(String, Codes).
decode_tagged(Tag, Value, _, _) :-
    domain_error(janus_wire, -(Tag, Value)).

decode_tagged("t", NameText, Wires, Vars, Term) :-
    !,
    wire_text(NameText, NameString),
    atom_string(Name, NameString),
    decode_list(Wires, Vars, Args),
    compound_name_arguments(Term, Name, Args).
decode_tagged("d", KeyTexts, Wires, Vars, Dict) :-
    !,
    maplist(wire_text, KeyTexts, KeyStrings),
    maplist(atom_string, Keys, KeyStrings),
    decode_list(Wires, Vars, Values),
    pairs_keys_values(Pairs, Keys, Values),
    dict_pairs(Dict, _, Pairs).
decode_tagged(Tag, Name, Values, _, _) :-
    domain_error(janus_wire, -(Tag, Name, Values)).

% Text in a name or key: a string, or code lists where it holds lone surrogates.
wire_text(Text, Text) :-
    string(Text),
    !.
wire_text(-("s", Codes), String) :-
    string_codes(String, Codes).

% Python's None and booleans, as janus passes them.
constant(none, null).
constant(true, true).
constant(false, false).

%!  encode(@Term, -Wire) is det.
%
%   Wire is the form of Term that janus hands to Python without loss (see the module table).

encode(Term, Wire) :-
    (   var(Term)
    ->  Wire = py{v: 0}
    ;   string(Term)
    ->  Wire = Term
    ;   integer(Term)
    ->  Wire = Term
    ;   float(Term)
    ->  Wire = Term
    ;   Term == []
    ->  Wire = []
    ;   atom(Term)
    ->  (   blob(Term, Type),
            text_blob(Type)
        ->  Wire = py{a: Term}
        ;   format(string(Wire), "~q", [Term])
        )
    ;   Term = [_|_]
    ->  encode_cells(Term, Wires, Tail),
        (   Tail == []
        ->  Wire = Wires
        ;   encode(Tail, TailWire),
            Wire = py{p: Wires, tail: TailWire}
        )
    ;   is_dict(Term)
    ->  dict_pairs(Term, _, Pairs),
        pairs_keys_values(Pairs, Keys, Values),
        encode_list(Values, Wires),
        Wire = py{d: Keys, v: Wires}
    ;   compound(Term)
    ->  compound_name_arguments(Term, Name, Args),
        encode_list(Args, Wires),
        Wire = py{t: Name, a: Wires}
    ;   format(string(Wire), "~q", [Term])       % rationals: the pyswip backend's text, too
    ).

% Atoms of text: ISO Latin-1 ones are `text` blobs, wider ones `ucs_text`.
text_blob(text).
text_blob(ucs_text).

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

%!  install_dispatcher is det.
%
%   Define atc_bridge:'$py_call'(+Key, +Args, -Result) as python_call/3, once module bridge is
%   loaded. It is asserted and then compiled rather than written as a clause of this file:
%   loading bridge.pl abolishes predicates other files defined in its module, not these.

install_dispatcher :-
    (   predicate_property(atc_bridge:'$py_call'(_, _, _), defined)
    ->  true
    ;   assertz((atc_bridge:'$py_call'(Key, Args, Result) :-
                    atc_janus_codec:python_call(Key, Args, Result))),
        compile_predicates([atc_bridge:'$py_call'/3])
    ).

%!  python_call(+Key, +Args:list, -Result) is det.
%
%   Call the Python callable registered under Key with Args; Result is its return value. A
%   Python exception is raised here as error(python_error(Type, Message), _), the form the
%   pyswip backend uses too.

python_call(Key, Args, Result) :-
    encode_list(Args, Wires),
    catch(dispatch(Key, Wires, Reply), Error, true),
    (   var(Error)
    ->  true
    ;   unicode_error(Error)        % converting the arguments failed: the callable did not run
    ->  text_safe(Wires, SafeWires),
        dispatch(Key, SafeWires, Reply)
    ;   throw(Error)
    ),
    python_reply(Reply, Result).

dispatch(Key, Wires, Reply) :-
    janus:py_call('attention_cloud.bridge.janus_engine':dispatch(Key, Wires), Reply,
                  [py_string_as(string)]).

%   python_reply(+Reply, -Result) is det.
%
%   Result of a callable from the dispatcher's reply: -("ok", Payload, NVars) with the result's
%   wire in Payload's args, or -("error", Type, Message).
python_reply(-("ok", Payload, NVars), Result) :-
    !,
    payload_args(Payload, Wire),
    functor(Vars, v, NVars),
    decode(Wire, Vars, Result).
python_reply(-("error", TypeText, MessageWire), _) :-
    !,
    wire_text(TypeText, TypeString),
    atom_string(Type, TypeString),
    wire_text(MessageWire, Message),
    throw(error(python_error(Type, Message), _)).
python_reply(Reply, _) :-
    domain_error(janus_python_reply, Reply).
