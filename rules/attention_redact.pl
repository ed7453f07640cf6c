:- module(atc_attention_redact,
          [ attention_text_leaves/1,      % -Leaves
            attention_redact_leaves/2,    % +Hits, +Marker
            attention_citing_values/2     % +Handles, -Texts
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(ordsets)).
:- use_module(attention_store).
:- use_module(tms, [belief_support/3]).

/** <module> Erasure on the attention side: the free text beside beliefs, claims and events

Beliefs, inspections, event payloads, claims and the trace hold text that whoever recorded them
wrote (an agent's claim, a reading of a source), which may copy a part of a journal item. An
erasure (host/attention_cloud/erasure.py) asks for every such text (attention_text_leaves/1),
judges which of them quote what it erases, and has those replaced wherever they stand
(attention_redact_leaves/2): one text replaced by the same marker in a belief, the candidate
keyed on its subject and the trace event naming it, so the records still join. A belief that
cites an erased item as support also loses its value (attention_citing_values/2), since the
value was read from there.

Only the fields that hold free text are read and rewritten (text_arg_/3): ids, claim types,
kinds and the trace's field names are the product's own vocabulary and stay, and so do the
values of the trace's fields that name such things (trace_vocabulary_key_/1). An id is never
rewritten, even one that is itself the erased text: every record and journal line joins on it
(README, Erasure).
*/

%!  text_arg_(?Fact, ?ArgIndex, ?Shape) is nondet.
%   ArgIndex of the durable Fact holds free text: `leaf` (an atom or string), `term` (any
%   term: its atomic leaves), `pairs` (a Key-Value list: the values' leaves) or
%   `candidate_key` (a candidate's key: only its subject or target, candidate_key_text_/3).
text_arg_(atc_tms:belief(_, _, _, _, _, _, _, _), 4, leaf).
text_arg_(atc_tms:belief(_, _, _, _, _, _, _, _), 5, leaf).
text_arg_(atc_tms:inspection(_, _, _, _, _, _, _, _), 5, leaf).
text_arg_(atc_tms:inspection(_, _, _, _, _, _, _, _), 6, leaf).
text_arg_(atc_validator:claim_(_, _, _, _, _, _, _, _), 4, leaf).
text_arg_(atc_validator:claim_(_, _, _, _, _, _, _, _), 5, leaf).
text_arg_(atc_validator:pending_(_, _, _, _, _, _), 4, leaf).
text_arg_(atc_attention_state:event_(_, _, _, _, _, _, _, _), 5, leaf).
text_arg_(atc_attention_state:event_payload_(_, _, _), 3, leaf).
text_arg_(atc_attention:candidate_(_, _, _, _, _), 3, candidate_key).
text_arg_(atc_trace:trace_event(_, _, _, _, _), 5, pairs).

%!  candidate_key_text_(+Key, -Text, -Hole) is semidet.
%   Text is the free text of a candidate's Key (attention_candidates: `key(inspect_source,
%   Source, ClaimType-Subject)` or `key(Kind, Target, from(Source))`), and Hole is Key-Text
%   with that text open: the subject read about, or an event's target (free text there, as in
%   the event). Its kind, source and claim type are vocabulary: offered as text, a source
%   named like the erased text was renamed in the key and the candidate no longer named a
%   source that exists. Another shape (an older journal) is not matched: all its leaves are
%   then text.
candidate_key_text_(key(inspect_source, Source, Type-Subject), Subject,
                    key(inspect_source, Source, Type-New)-New) :- !.
candidate_key_text_(key(Kind, Target, from(Source)), Target,
                    key(Kind, New, from(Source))-New).

%!  trace_vocabulary_key_(?Key) is nondet.
%   A trace field whose value is an id, a claim type, a source name or one of the product's
%   codes, never free text: it is neither offered to the erasure's judge nor rewritten.
%   Offered, an id such as `claim-1` or `attn-2` was rewritten in the trace when the erased
%   text happened to hold it, and the trace no longer joined the record it named. Any other
%   key (subject, value, previous, target, ...) is read as free text.
trace_vocabulary_key_(candidate_id).
trace_vocabulary_key_(turn_id).
trace_vocabulary_key_(goal_id).
trace_vocabulary_key_(inspection_id).
trace_vocabulary_key_(claim_id).
trace_vocabulary_key_(source).
trace_vocabulary_key_(claim_type).
trace_vocabulary_key_(kind).
trace_vocabulary_key_(trigger).
trace_vocabulary_key_(triggers).
trace_vocabulary_key_(previous_trigger).
trace_vocabulary_key_(origin).
trace_vocabulary_key_(mode).
trace_vocabulary_key_(missing).
trace_vocabulary_key_(evidence).
trace_vocabulary_key_(failure_code).
trace_vocabulary_key_(selection_reason_code).
trace_vocabulary_key_(reason).
trace_vocabulary_key_(new_belief).
trace_vocabulary_key_(dirtied).

text_fact_(Module:Head) :-
    distinct(Module:Head, text_arg_(Module:Head, _, _)).

%!  attention_text_leaves(-Leaves:list(string)) is det.
%   Every distinct text in a free-text field of the attention side (numbers left out).
attention_text_leaves(Leaves) :-
    findall(Text,
            ( text_fact_(M:Head), call(M:Head),
              text_arg_(M:Head, I, Shape), arg(I, Head, Value),
              shape_leaf_(Shape, Value, Leaf), atom_string(Leaf, Text) ),
            Texts),
    sort(Texts, Leaves).

shape_leaf_(leaf, Value, Value) :- text_leaf_(Value).
shape_leaf_(candidate_key, Key, Leaf) :-
    (   candidate_key_text_(Key, Text, _)
    ->  term_leaf_(Text, Leaf)
    ;   term_leaf_(Key, Leaf)
    ).
shape_leaf_(term, Value, Leaf) :- term_leaf_(Value, Leaf).
shape_leaf_(pairs, Pairs, Leaf) :-
    is_list(Pairs),
    member(K-V, Pairs),
    \+ vocabulary_field_(Pairs, K),
    term_leaf_(V, Leaf).

term_leaf_(Term, Term) :- text_leaf_(Term).
term_leaf_(Term, Leaf) :- compound(Term), \+ is_dict(Term), arg(_, Term, Arg), term_leaf_(Arg, Leaf).
term_leaf_(Dict, Leaf) :- is_dict(Dict), get_dict(_, Dict, V), term_leaf_(V, Leaf).

% `true`, `false` and `null` are JSON's literals (a yes/no value, the trace's flags), never
% text: offered to the judge, forgetting an item that said "true" made every one the marker.
text_leaf_(X) :- string(X), !.
text_leaf_(X) :- atom(X), X \== [], \+ json_literal_(X).

json_literal_(true).
json_literal_(false).
json_literal_(null).

%!  attention_redact_leaves(+Hits:list(string), +Marker:atom) is det.
%   Each text of Hits, wherever a free-text field holds it (as attention_text_leaves/1 reads
%   them), replaced by Marker (an atom for an atom, a string for a string), durably; the
%   other fields stay.
attention_redact_leaves(Hits, Marker) :-
    must_be(list, Hits),
    must_be(atom, Marker),
    maplist(text_string_, Hits, Strings),
    sort(Strings, Set),
    forall(( text_fact_(M:Head), findall(M:Head, M:Head, Facts), member(M:Fact, Facts) ),
           redact_fact_(M, Fact, Set, Marker)).

redact_fact_(M, Fact, Set, Marker) :-
    Fact =.. [Name|Args0],
    findall(I-Shape, text_arg_(M:Fact, I, Shape), Shapes),
    rewrite_args_(Args0, 1, Shapes, Set, Marker, Args),
    (   Args == Args0
    ->  true
    ;   New =.. [Name|Args],
        scoped_retract(M:Fact),
        scoped_assert(M:New)
    ).

rewrite_args_([], _, _, _, _, []).
rewrite_args_([A0|As0], I, Shapes, Set, Marker, [A|As]) :-
    (   memberchk(I-Shape, Shapes)
    ->  rewrite_(Shape, A0, Set, Marker, A)
    ;   A = A0
    ),
    I1 is I + 1,
    rewrite_args_(As0, I1, Shapes, Set, Marker, As).

rewrite_(leaf, V0, Set, Marker, V) :- rewrite_leaf_(V0, Set, Marker, V).
rewrite_(candidate_key, Key0, Set, Marker, Key) :-
    (   candidate_key_text_(Key0, Text0, Key-Text)
    ->  rewrite_term_(Text0, Set, Marker, Text)
    ;   rewrite_term_(Key0, Set, Marker, Key)
    ).
rewrite_(term, V0, Set, Marker, V) :- rewrite_term_(V0, Set, Marker, V).
rewrite_(pairs, Ps0, Set, Marker, Ps) :-
    (   is_list(Ps0)
    ->  maplist(rewrite_field_(Ps0, Set, Marker), Ps0, Ps)
    ;   Ps = Ps0
    ).

rewrite_field_(Fields, _, _, K-V, K-V) :- vocabulary_field_(Fields, K), !.
rewrite_field_(_, Set, Marker, P0, P) :- rewrite_pair_(Set, Marker, P0, P).

% Field K of a trace event's Fields names vocabulary: a trace_vocabulary_key_/1, or the target
% of an inspect_source candidate (a source name there; an event's target elsewhere is text).
vocabulary_field_(_, K) :-
    trace_vocabulary_key_(K), !.
vocabulary_field_(Fields, target) :-
    memberchk(kind-inspect_source, Fields).

rewrite_pair_(Set, Marker, K-V0, K-V) :- !, rewrite_term_(V0, Set, Marker, V).
rewrite_pair_(_, _, P, P).

rewrite_term_(T0, Set, Marker, T) :-
    (   text_leaf_(T0)
    ->  rewrite_leaf_(T0, Set, Marker, T)
    ;   is_dict(T0)
    ->  dict_pairs(T0, Tag, Ps0),
        maplist(rewrite_pair_(Set, Marker), Ps0, Ps),
        dict_pairs(T, Tag, Ps)
    ;   compound(T0)
    ->  T0 =.. [F|As0],
        maplist(rewrite_arg_(Set, Marker), As0, As),
        T =.. [F|As]
    ;   T = T0
    ).

rewrite_arg_(Set, Marker, A0, A) :-
    rewrite_term_(A0, Set, Marker, A).

rewrite_leaf_(V0, Set, Marker, V) :-
    (   text_leaf_(V0), atom_string(V0, S), ord_memberchk(S, Set)
    ->  (   string(V0) -> atom_string(Marker, V) ; V = Marker )
    ;   V = V0
    ).

text_string_(Text, String) :-
    atom_string(Text, String).

%!  attention_citing_values(+Handles:list(atom), -Texts:list) is det.
%   The value of every belief that cites one of Handles as support (item(H)), as
%   text(belief, Scope, Id, value, Value) for tms_redact/2: it was read from that item.
attention_citing_values(Handles, Texts) :-
    must_be(list, Handles),
    findall(text(belief, Scope, Id, value, Value),
            ( member(H, Handles),
              belief_support(Scope, Id, item(H)),
              atc_tms:belief(Scope, Id, _, _, Value, _, _, _),
              \+ forgotten_(Value) ),
            Texts0),
    sort(Texts0, Texts).

% A value already erased. The marker is written as a string in place of a string value (every
% value the host passes): compared with the atom alone, such a value was listed, and redacted,
% again by every later erasure of the item.
forgotten_(Value) :-
    ( atom(Value) ; string(Value) ),
    atom_string(Value, "[forgotten]").
