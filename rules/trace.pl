:- module(atc_trace,
          [ trace_record/4,               % +Scope, +Event, +At, +Fields
            trace_events/3,               % +Scope, +Filter, -Events
            trace_event_type/2,           % ?Event, ?Category
            failure_code/1,               % ?Code
            trace_drop/1                  % +Scope
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(attention_store).
:- use_module(attention_checks).

/** <module> The attention trace: what was selected, written before its outcome is known

The trace is how attention is measured rather than narrated (seed §12). The controller writes
`candidate_selected` with the predicted value, rank, budget before and reason code at the moment
it selects, before any inspection runs; the outcome arrives later as `inspection_succeeded` or
`inspection_failed`, `belief_changed` or `belief_unchanged`, `decision_changed` or
`decision_unchanged`, and one `resolved` event carrying the realized values. Because each event
gets the next sequence number when it is written, "predicted before observed" is checkable:
the selection of a candidate always has a smaller sequence number than its resolution.

Event types are those of the seed's Appendix A, plus `resolved`, `saturation_alarm`,
`event_refused` and `claim_accepted`. Each has a category: `attention` events measure the
controller, `validator` events measure enforcement, and the two are never mixed, so a validator
rescue can never be counted as attention. Failure codes are Appendix B's.

An event is stored as trace_event(Scope, Seq, At, Event, Fields), Fields a list of Key-Value
pairs; trace_events/3 returns dicts.
*/

:- dynamic trace_event/5.               % trace_event(Scope, Seq, At, Event, Fields)

% Journalled by the store (rules/store.pl); `bench-*` scopes never reach the journal.
:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_trace:trace_event/5).

%!  trace_event_type(?Event:atom, ?Category:atom) is nondet.
%
%   Event is a known trace event type of Category `attention` or `validator`.

trace_event_type(candidate_created,                  attention).
trace_event_type(candidate_updated,                  attention).
trace_event_type(candidate_expired,                  attention).
trace_event_type(candidate_selected,                 attention).
trace_event_type(candidate_skipped,                  attention).
trace_event_type(inspection_started,                 attention).
trace_event_type(inspection_succeeded,               attention).
trace_event_type(inspection_failed,                  attention).
trace_event_type(belief_changed,                     attention).
trace_event_type(belief_unchanged,                   attention).
trace_event_type(decision_changed,                   attention).
trace_event_type(decision_unchanged,                 attention).
trace_event_type(switch_requested,                   attention).
trace_event_type(switch_accepted,                    attention).
trace_event_type(switch_rejected,                    attention).
trace_event_type(attention_budget_exhausted,         attention).
trace_event_type(attention_terminated_negative_voc,  attention).
trace_event_type(resolved,                           attention).
trace_event_type(saturation_alarm,                   attention).
trace_event_type(event_refused,                      attention).
trace_event_type(validator_violation,                validator).
trace_event_type(validator_rescue,                   validator).
trace_event_type(claim_accepted,                     validator).

%!  failure_code(?Code:atom) is nondet.
%
%   Code is one of the failure codes of the seed's Appendix B.

failure_code('ATTN_CANDIDATE_MISSING').
failure_code('ATTN_SELECTION_WRONG').
failure_code('ATTN_SWITCH_WRONG').
failure_code('ATTN_STARVATION').
failure_code('ATTN_OVERINSPECTION').
failure_code('ATTN_UNDERINSPECTION').
failure_code('ATTN_SALIENCE_CAPTURE').
failure_code('ATTN_SUMMARY_SUBSTITUTION').
failure_code('ATTN_STALE_STATE').
failure_code('ATTN_SOURCE_AUTHORITY_NEGLECT').
failure_code('RETRIEVAL_FAILED').
failure_code('EVIDENCE_IGNORED').
failure_code('REASONING_FAILED').
failure_code('VALIDATOR_RESCUED').

%!  trace_record(+Scope, +Event, +At, +Fields:list(pair)) is det.
%
%   Append Event, which happened at At, to the trace of Scope with the next sequence number.
%   Fields are Key-Value pairs; `goal_id` and `candidate_id` make the event findable by goal
%   and candidate, `failure_code` must be an Appendix B code.
%   @error domain_error(trace_event, Event), domain_error(failure_code, Code)

trace_record(Scope0, Event, At, Fields) :-
    scope_atom(Scope0, Scope),
    must_be(atom, Event),
    (   trace_event_type(Event, _)
    ->  true
    ;   domain_error(trace_event, Event)
    ),
    must_be_time(At),
    must_be(list, Fields),
    (   memberchk(failure_code-Code, Fields)
    ->  (   failure_code(Code) -> true ; domain_error(failure_code, Code) )
    ;   true
    ),
    next_seq_(Scope, Seq),
    scoped_assert(atc_trace:trace_event(Scope, Seq, At, Event, Fields)).

:- dynamic seq_hint/2.                  % seq_hint(Scope, LastSeq): a hint, verified on use

next_seq_(Scope, Seq) :-
    (   seq_hint(Scope, Last),
        (   Last =:= 0
        ->  \+ trace_event(Scope, _, _, _, _)
        ;   trace_event(Scope, Last, _, _, _)
        ),
        Next is Last + 1,
        \+ trace_event(Scope, Next, _, _, _)
    ->  Seq = Next
    ;   aggregate_all(max(S), trace_event(Scope, S, _, _, _), Max)
    ->  Seq is Max + 1
    ;   Seq = 1
    ),
    retractall(seq_hint(Scope, _)),
    assertz(seq_hint(Scope, Seq)).

%!  trace_events(+Scope, +Filter:dict, -Events:list(dict)) is det.
%
%   Events of Scope in sequence order, each `_{seq, time, event, category, ...fields}`.
%   Filter keys (all optional): `goal_id` (events of that goal, and the events of the
%   candidates selected for it), `candidate_id`, `category` (`attention` or `validator`),
%   `event`. An unknown event type or category is an error, not an empty trace: a misspelt
%   filter looked like a trace in which nothing had happened.
%   @error existence_error(trace_event_type, E), existence_error(trace_category, C)

trace_events(Scope0, Filter, Events) :-
    scope_atom(Scope0, Scope),
    must_be(dict, Filter),
    (   filter_value_(Filter, event, E), \+ ( trace_event_type(T, _), same_text_(E, T) )
    ->  existence_error(trace_event_type, E)
    ;   true
    ),
    (   filter_value_(Filter, category, C), \+ ( trace_event_type(_, K), same_text_(C, K) )
    ->  existence_error(trace_category, C)
    ;   true
    ),
    findall(Seq-event(At, Event, Fields),
            trace_event(Scope, Seq, At, Event, Fields), Pairs0),
    keysort(Pairs0, Pairs),
    goal_candidates_(Pairs, Filter, Candidates),
    include(matches_(Filter, Candidates), Pairs, Kept),
    maplist(event_dict_, Kept, Events).

% The candidates ever selected or created for the filtered goal, so that their outcomes (which
% name the candidate, not always the goal) are kept too.
goal_candidates_(Pairs, Filter, Candidates) :-
    (   filter_value_(Filter, goal_id, Goal)
    ->  findall(C, ( member(_-event(_, _, Fields), Pairs),
                     memberchk(goal_id-G, Fields), same_text_(G, Goal),
                     memberchk(candidate_id-C, Fields) ), Cs),
        sort(Cs, Candidates)
    ;   Candidates = []
    ).

matches_(Filter, Candidates, _-event(_, Event, Fields)) :-
    (   filter_value_(Filter, event, E) -> same_text_(E, Event) ; true ),
    (   filter_value_(Filter, category, Cat)
    ->  trace_event_type(Event, EC), same_text_(Cat, EC)
    ;   true
    ),
    (   filter_value_(Filter, candidate_id, C)
    ->  memberchk(candidate_id-FC, Fields), same_text_(C, FC)
    ;   true
    ),
    (   filter_value_(Filter, goal_id, Goal)
    ->  (   memberchk(goal_id-G, Fields), same_text_(G, Goal)
        ->  true
        ;   \+ memberchk(goal_id-_, Fields),
            memberchk(candidate_id-C, Fields),
            memberchk(C, Candidates)
        )
    ;   true
    ).

filter_value_(Filter, Key, Value) :-
    get_dict(Key, Filter, Value),
    Value \== null.

same_text_(A, B) :-
    atom_string(A, S),
    atom_string(B, S).

event_dict_(Seq-event(At, Event, Fields), Dict) :-
    trace_event_type(Event, Category),
    dict_pairs(Base, _, [seq-Seq, time-At, event-Event, category-Category]),
    dict_pairs(Extra, _, Fields),
    put_dict(Extra, Base, Dict).

%!  trace_drop(+Scope) is det.
%
%   Forget the trace of Scope.

trace_drop(Scope0) :-
    scope_atom(Scope0, Scope),
    scoped_retract(atc_trace:trace_event(Scope, _, _, _, _)),
    retractall(seq_hint(Scope, _)).
