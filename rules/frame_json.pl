:- module(atc_frame_json,
          [ frame_json/2                  % +Frame, -Json:string
          ]).
:- use_module(library(apply)).
:- use_module(library(lists)).
% Its foreign json_write_string/2 escapes text in C. A SWI-Prolog built without the http
% package has no library(http/json): frame_json/2 then fails and frames cross as terms.
:- if(exists_source(library(http/json))).
:- use_module(library(http/json), []).
json_available_.
:- else.
json_available_ :- fail.
:- endif.

/** <module> A frame as one JSON text for the host

hydrate/3's frame is some thousand terms (facts, breadcrumbs, the receipt's metadata); the
pyswip bridge reads a term node by node through ctypes (~2 µs a node, ~1.7 ms of a 100k-item
frame). Written here as one JSON text, it crosses as one string that the host parses in C.

The JSON says exactly what the host's term-by-term conversion says of the same frame
(attention_cloud.bridge.terms.to_plain): atoms and strings are JSON strings, numbers are
numbers, lists are arrays, a pair K-V is the array [K, V], a dict is an object whose members
come in the dict's own order (the order the bridge reads them in); frame(Meta, Facts, Beyond)
is the array [Meta, Facts, Beyond] and each fact/11 and crumb/6 the array of its arguments.
Anything JSON cannot carry exactly (another compound, a variable, a rational, an infinity or
NaN, a blob, or text holding a lone UTF-16 surrogate, which SWI-Prolog 9.0's text streams
cannot write) makes frame_json/2 fail, and the host reads that frame as a term.
*/

%!  frame_json(+Frame, -Json:string) is semidet.
%   Json is frame(Meta, Facts, Beyond) as the JSON text [Meta, Facts, Beyond] (see the module
%   comment); fails when the frame holds a value JSON cannot carry exactly.
frame_json(frame(Meta, Facts, Beyond), Json) :-
    json_available_,
    catch(with_output_to(string(Json),
                         ( current_output(Out),
                           write_frame_(Out, Meta, Facts, Beyond) )),
          error(representation_error(_), _),
          fail).

write_frame_(Out, Meta, Facts, Beyond) :-
    put_char(Out, '['),
    value_(Meta, Out),
    put_char(Out, ','),
    records_(Facts, Out),
    put_char(Out, ','),
    records_(Beyond, Out),
    put_char(Out, ']').

% A list of fact/11 or crumb/6 terms: an array of the arrays of their arguments.
records_(List, Out) :-
    put_char(Out, '['),
    records_items_(List, Out).

records_items_(List, Out) :-
    (   List == []
    ->  put_char(Out, ']')
    ;   List = [Record|Rest],
        compound(Record),
        compound_name_arguments(Record, Name, Args),
        memberchk(Name, [fact, crumb]),
        maplist(record_arg_, Args),       % the host reads each with str(), int(), float()
        put_char(Out, '['),
        items_(Args, Out),
        (   Rest == [] -> true ; put_char(Out, ',') ),
        records_items_(Rest, Out)
    ).

% A record's argument is text or a number, or a list of them (a fact's dirty beliefs).
record_arg_(A) :-
    (   atomic(A) -> true ; is_list(A), maplist(atomic, A) ).

% value_(+Value, +Out) is semidet: Value as JSON, or failure for what JSON cannot carry.
value_(V, _) :-
    var(V), !, fail.
value_(V, Out) :-
    string(V), !,
    json:json_write_string(Out, V).
value_(V, Out) :-
    atom(V), !,
    blob(V, Type),
    text_blob_(Type),
    json:json_write_string(Out, V).
value_(V, Out) :-
    integer(V), !,
    write(Out, V).
value_(V, Out) :-
    float(V), !,
    float_class(V, Class),
    memberchk(Class, [zero, subnormal, normal]),
    write(Out, V).
value_([], Out) :- !,
    write(Out, '[]').
value_(V, Out) :-
    is_dict(V), !,
    compound_name_arguments(V, _, [_Tag|ValuesKeys]),
    put_char(Out, '{'),
    members_(ValuesKeys, Out).
value_([H|T], Out) :- !,
    put_char(Out, '['),
    items_([H|T], Out).
value_(K-V, Out) :- !,
    put_char(Out, '['),
    value_(K, Out),
    put_char(Out, ','),
    value_(V, Out),
    put_char(Out, ']').

text_blob_(text).                       % an atom of Latin-1 text
text_blob_(ucs_text).                   % an atom of wider text

% The items of a proper list and the closing bracket; fails on a partial list.
items_(List, Out) :-
    (   List == []
    ->  put_char(Out, ']')
    ;   nonvar(List),
        List = [H|T],
        value_(H, Out),
        (   T == [] -> true ; put_char(Out, ',') ),
        items_(T, Out)
    ).

% A dict's members from its arguments V1, K1, V2, K2, ... (its own order), and the brace.
members_([], Out) :-
    put_char(Out, '}').
members_([V, K|Rest], Out) :-
    key_(K, Out),
    put_char(Out, ':'),
    value_(V, Out),
    (   Rest == [] -> true ; put_char(Out, ',') ),
    members_(Rest, Out).

key_(K, Out) :-
    (   atom(K) -> json:json_write_string(Out, K)
    ;   format(Out, '"~d"', [K])          % a small integer key
    ).
