:- module(atc_attention_state,
          [ attention_add_goal/4,         % +Scope, +Goal, +DependsOn, +Options
            goal/2,                       % ?Scope, ?Goal
            goal_info/3,                  % +Scope, +Goal, -Info
            goal_dependency/3,            % ?Scope, ?Goal, ?Belief
            goal_decides/3,               % ?Scope, ?Goal, ?Belief
            goal_stakes/3,                % ?Scope, ?Goal, ?LossIfWrong
            goal_deadline/3,              % ?Scope, ?Goal, ?DeadlineAt
            goal_flag/3,                  % ?Scope, ?Goal, ?Flag
            goal_rule/3,                  % ?Scope, ?Goal, ?Cases

            attention_add_event/8,        % +Scope, +Kind, +Source, +Target, +Payload, +TrustedPriority, +Now, -Result
            attention_controller_event/5, % +Scope, +Kind, +Target, +Now, -Id
            event/7,                      % ?Scope, ?Id, ?Kind, ?Source, ?Target, ?Priority, ?At
            event_payload/3,              % ?Scope, ?Id, ?Payload
            event_trusted/2,              % ?Scope, ?Id
            event_pending/2,              % ?Scope, ?Id
            event_handled/3,              % +Scope, +Id, +At
            event_kind/1,                 % ?Kind

            attention_set_weight/3,       % +Scope, +Name, +Value
            weight/3,                     % +Scope, +Name, -Value

            attention_state_drop/1        % +Scope
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(attention_store).
:- use_module(attention_checks).
:- use_module(tms).
:- use_module(validator).
:- use_module(trace).
:- use_module('../facts/attention_weights').

/** <module> What attention attends for: goals, incoming events and the weights in force

Goals name the beliefs their next decision depends on and what a wrong decision would cost,
and may spell out the decision as a rule over yes/no beliefs (which option for which values),
so that attention can tell how much each belief matters; events are interruptions, failed actions, state changes and drafted claims arriving from
sources. Both are inputs to candidate generation (attention_candidates.pl).

Events are where untrusted text enters, so this module is also the first line of the seed's
§24 defences:

  - an event's priority comes from trusted metadata only: a trusted_priority given by an
    untrusted (or unregistered) source is dropped on arrival, and the payload text is stored
    for the record but never read by any rule;
  - each source may add at most `source_rate_limit` events per `rate_window_s`; more are refused
    with `rate_limited` and logged as `event_refused`;
  - at most `max_pending_events` events wait in one scope; more are refused with `queue_full`;
  - a state change reported by a trusted source dirties dependent beliefs at once; one from an
    untrusted source only nominates the source for inspection.
*/

:- dynamic
    goal_/8,             % goal_(Scope, Goal, LossIfWrong, DeadlineAt, Irreversible, SafetyCritical, Decides, CreatedAt)
    goal_dependency_/3,  % goal_dependency_(Scope, Goal, Belief)
    goal_rule_/3,        % goal_rule_(Scope, Goal, Cases): case(Belief-Bool pairs, Option) list
    event_/8,            % event_(Scope, Id, Kind, Source, Target, Priority, At, Trusted)
    event_payload_/3,    % event_payload_(Scope, Id, PayloadText): kept, never interpreted
    event_handled_/3,    % event_handled_(Scope, Id, At)
    weight_override_/3.  % weight_override_(Scope, Name, Value)

% Journalled by the store (rules/store.pl); `bench-*` scopes never reach the journal.
:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_attention_state:goal_/8).
atc_store:durable_predicate(atc_attention_state:goal_dependency_/3).
atc_store:durable_predicate(atc_attention_state:goal_rule_/3).
atc_store:durable_predicate(atc_attention_state:event_/8).
atc_store:durable_predicate(atc_attention_state:event_payload_/3).
atc_store:durable_predicate(atc_attention_state:event_handled_/3).
atc_store:durable_predicate(atc_attention_state:weight_override_/3).


                 /*******************************
                 *            GOALS             *
                 *******************************/

%!  attention_add_goal(+Scope, +Goal, +DependsOn:list, +Options:dict) is det.
%
%   Goal's next decision depends on the beliefs DependsOn (ids). Options keys: `loss_if_wrong`
%   (required, in [0,1e6]), `deadline_at` (Unix seconds or null), `irreversible`,
%   `safety_critical` (booleans, default false), `decides` (the belief whose value is the
%   decision, default the first dependency), `rule` (the decision as a list of
%   `_{when: _{Belief: Bool, ...}, option: Option}` cases over yes/no dependencies: which
%   option is right for which values; default none), `now` (when the goal was set).
%   @error existence_error(belief, B) for an unknown dependency
%   @error domain_error(non_empty_list, DependsOn)
%   @error domain_error(rule_dependency, B) for a rule naming a belief outside DependsOn

attention_add_goal(Scope0, Goal0, DependsOn0, Options) :-
    scope_atom(Scope0, Scope),
    new_id_atom(Goal0, Goal),
    must_be(list, DependsOn0),
    (   DependsOn0 == []
    ->  domain_error(non_empty_list, DependsOn0)
    ;   true
    ),
    maplist(text_atom, DependsOn0, DependsOn),
    forall(member(B, DependsOn), belief_current(Scope, B, _)),
    must_be(dict, Options),
    (   get_dict(loss_if_wrong, Options, Loss), Loss \== null
    ->  must_be_stakes(Loss)
    ;   existence_error(key, loss_if_wrong, Options)
    ),
    opt_(Options, deadline_at, null, Deadline),
    (   Deadline == null -> true ; must_be_time(Deadline) ),
    opt_(Options, irreversible, false, Irreversible),
    must_be_boolean_atom(Irreversible),
    opt_(Options, safety_critical, false, Safety),
    must_be_boolean_atom(Safety),
    DependsOn = [First|_],
    opt_(Options, decides, First, Decides0),
    text_atom(Decides0, Decides),
    belief_current(Scope, Decides, _),
    opt_(Options, rule, [], Rule),
    rule_cases_(Rule, DependsOn, Cases),
    opt_(Options, now, 0, Now),
    must_be_time(Now),
    scoped_retract(atc_attention_state:goal_(Scope, Goal, _, _, _, _, _, _)),
    scoped_retract(atc_attention_state:goal_dependency_(Scope, Goal, _)),
    scoped_retract(atc_attention_state:goal_rule_(Scope, Goal, _)),
    scoped_assert(atc_attention_state:goal_(Scope, Goal, Loss, Deadline, Irreversible, Safety,
                                        Decides, Now)),
    forall(member(B, DependsOn),
           scoped_assert(atc_attention_state:goal_dependency_(Scope, Goal, B))),
    (   Cases == []
    ->  true
    ;   scoped_assert(atc_attention_state:goal_rule_(Scope, Goal, Cases))
    ).

% A rule arrives as a list of `_{when: _{Belief: Bool}, option: Option}`; it is kept as
% case(Pairs, Option) with Pairs the sorted Belief-Bool pairs.
rule_cases_(Rule, DependsOn, Cases) :-
    must_be(list, Rule),
    maplist(rule_case_(DependsOn), Rule, Cases).

rule_case_(DependsOn, Case, case(Pairs, Option)) :-
    must_be(dict, Case),
    (   get_dict(when, Case, When), get_dict(option, Case, Option0)
    ->  true
    ;   domain_error(rule_case, Case)
    ),
    must_be(dict, When),
    dict_pairs(When, _, Pairs0),
    maplist(rule_condition_(DependsOn), Pairs0, Pairs1),
    sort(Pairs1, Pairs),
    must_be(atomic, Option0),
    text_atom(Option0, Option).

rule_condition_(DependsOn, B0-V, B-V) :-
    text_atom(B0, B),
    (   memberchk(B, DependsOn) -> true ; domain_error(rule_dependency, B) ),
    must_be_boolean_atom(V).

opt_(Dict, Key, Default, Value) :-
    (   get_dict(Key, Dict, V), V \== null
    ->  Value = V
    ;   Value = Default
    ).

%!  goal(?Scope, ?Goal) is nondet.
%
%   Goal is set in Scope.

goal(Scope, Goal) :-
    goal_(Scope, Goal, _, _, _, _, _, _).

%!  goal_dependency(?Scope, ?Goal, ?Belief) is nondet.
%
%   Goal's decision depends on Belief (as named when the goal was set; follow
%   atc_tms:belief_current/3 for what it has become).

goal_dependency(Scope, Goal, Belief) :-
    goal_dependency_(Scope, Goal, Belief).

%!  goal_decides(?Scope, ?Goal, ?Belief) is nondet.
%
%   The value of (what became of) Belief is Goal's decision.

goal_decides(Scope, Goal, Belief) :-
    goal_(Scope, Goal, _, _, _, _, Belief, _).

%!  goal_stakes(?Scope, ?Goal, ?LossIfWrong) is nondet.
%
%   Deciding Goal wrongly costs LossIfWrong.

goal_stakes(Scope, Goal, Loss) :-
    goal_(Scope, Goal, Loss, _, _, _, _, _).

%!  goal_deadline(?Scope, ?Goal, ?DeadlineAt) is nondet.
%
%   Goal must be decided by DeadlineAt (Unix seconds); goals without a deadline have none.

goal_deadline(Scope, Goal, Deadline) :-
    goal_(Scope, Goal, _, Deadline, _, _, _, _),
    Deadline \== null.

%!  goal_rule(?Scope, ?Goal, ?Cases:list) is nondet.
%
%   Goal's decision is spelled out as Cases, each case(Pairs, Option): Option is right when
%   every Belief-Bool pair of Pairs holds (beliefs as named when the goal was set). Goals
%   without a rule have none.

goal_rule(Scope, Goal, Cases) :-
    goal_rule_(Scope, Goal, Cases).

%!  goal_flag(?Scope, ?Goal, ?Flag) is nondet.
%
%   Flag is `irreversible` or `safety_critical` and holds for Goal.

goal_flag(Scope, Goal, irreversible) :-
    goal_(Scope, Goal, _, _, true, _, _, _).
goal_flag(Scope, Goal, safety_critical) :-
    goal_(Scope, Goal, _, _, _, true, _, _).

%!  goal_info(+Scope, +Goal, -Info:dict) is det.
%
%   Everything set for Goal.
%   @error existence_error(goal, Goal)

goal_info(Scope0, Goal0, Info) :-
    scope_atom(Scope0, Scope),
    text_atom(Goal0, Goal),
    (   goal_(Scope, Goal, Loss, Deadline, Irr, Safety, Decides, Created)
    ->  findall(B, goal_dependency_(Scope, Goal, B), Deps),
        findall(_{when: When, option: Option},
                ( goal_rule_(Scope, Goal, Cases), member(case(Pairs, Option), Cases),
                  dict_pairs(When, _, Pairs) ), Rule),
        Info = _{goal_id: Goal, depends_on: Deps, loss_if_wrong: Loss, deadline_at: Deadline,
                 irreversible: Irr, safety_critical: Safety, decides: Decides, rule: Rule,
                 created_at: Created}
    ;   existence_error(goal, Goal)
    ).


                 /*******************************
                 *            EVENTS            *
                 *******************************/

%!  event_kind(?Kind) is nondet.
%
%   The kinds of event a source can report.

event_kind(interruption).
event_kind(failed_action).
event_kind(state_change).
event_kind(claim_drafted).

%!  attention_add_event(+Scope, +Kind, +Source, +Target, +Payload, +TrustedPriority, +Now,
%!                      -Result:dict) is det.
%
%   Source reports an event of Kind about Target at Now. Payload is free text kept for the
%   record and never interpreted. TrustedPriority (a probability, or null) is honoured only when
%   Source is registered in Scope and trusted. Result is `_{status, event_id}`, status one of
%   `accepted`, `rate_limited`, `queue_full` (event_id null when refused). A trusted
%   `state_change` about a registered source dirties the beliefs that depend on it at once
%   (Result then also has `dirtied`); `claim_drafted` names a claim type as Target and registers
%   a pending state-sensitive claim.
%   @error domain_error(event_kind, Kind)
%   @error existence_error(source, Target) for a state change about an unregistered source
%   @error existence_error(claim_type, Target) for a drafted claim of an unknown type

attention_add_event(Scope0, Kind0, Source0, Target0, Payload, Priority0, Now, Result) :-
    scope_atom(Scope0, Scope),
    text_atom(Kind0, Kind),
    (   event_kind(Kind) -> true ; domain_error(event_kind, Kind) ),
    text_atom(Source0, Source),
    text_atom(Target0, Target),
    must_be(text, Payload),
    must_be_bounded_text(payload, Payload),
    must_be_time(Now),
    (   Priority0 == null -> true ; must_be_probability(Priority0) ),
    (   Kind == state_change -> source_info(Scope, Target, _) ; true ),
    (   Kind == claim_drafted -> validator_known_claim_type(Target) ; true ),
    (   source_trusted(Scope, Source)
    ->  Trusted = true, Priority = Priority0
    ;   Trusted = false, Priority = null
    ),
    (   refusal_(Scope, Source, Now, Reason)
    ->  trace_record(Scope, event_refused, Now,
                     [source-Source, kind-Kind, target-Target, reason-Reason]),
        Result = _{status: Reason, event_id: null}
    ;   next_id(Scope, atc_attention_state:event_taken_(Scope), ev, Id),
        scoped_assert(atc_attention_state:event_(Scope, Id, Kind, Source, Target, Priority, Now,
                                             Trusted)),
        scoped_assert(atc_attention_state:event_payload_(Scope, Id, Payload)),
        arrival_effect_(Kind, Trusted, Scope, Id, Target, Now, Extra),
        put_dict(Extra, _{status: accepted, event_id: Id}, Result)
    ).

%!  attention_controller_event(+Scope, +Kind, +Target, +Now, -Id) is det.
%
%   The controller itself reports an event (a failed inspection becomes a `failed_action` about
%   the source). Its source is `controller`, trusted by construction and never rate limited.

attention_controller_event(Scope, Kind, Target, Now, Id) :-
    must_be(oneof([failed_action, interruption]), Kind),
    next_id(Scope, atc_attention_state:event_taken_(Scope), ev, Id),
    scoped_assert(atc_attention_state:event_(Scope, Id, Kind, controller, Target, null, Now, true)),
    scoped_assert(atc_attention_state:event_payload_(Scope, Id, "")).

event_taken_(Scope, Id) :-
    event_(Scope, Id, _, _, _, _, _, _).

refusal_(Scope, Source, Now, rate_limited) :-
    weight(Scope, source_rate_limit, Limit),
    weight(Scope, rate_window_s, Window),
    Since is Now - Window,
    aggregate_all(count, ( event_(Scope, _, _, Source, _, _, At, _), At > Since ), N),
    N >= Limit,
    !.
refusal_(Scope, _, _, queue_full) :-
    weight(Scope, max_pending_events, Max),
    aggregate_all(count, event_pending(Scope, _), N),
    N >= Max.

% A trusted state change is a fact about the world: dirty its dependants now. Anything from an
% untrusted source stays a pending event that can only nominate an inspection.
arrival_effect_(state_change, true, Scope, Id, Target, Now, _{dirtied: Dirtied}) :- !,
    tms_source_changed(Scope, Target, Now, Dirtied),
    event_handled(Scope, Id, Now).
arrival_effect_(claim_drafted, _, Scope, Id, Target, Now, _{claim_id: ClaimId}) :- !,
    validator_draft(Scope, Target, '', drafted, Now, ClaimId),
    event_handled(Scope, Id, Now).
arrival_effect_(_, _, _, _, _, _, _{}).

%!  event(?Scope, ?Id, ?Kind, ?Source, ?Target, ?Priority, ?At) is nondet.
%
%   Event Id of Kind arrived from Source about Target at At. Priority is the trusted priority,
%   or null when none was given or the source is not trusted.

event(Scope, Id, Kind, Source, Target, Priority, At) :-
    event_(Scope, Id, Kind, Source, Target, Priority, At, _).

%!  event_trusted(?Scope, ?Id) is nondet.
%
%   Event Id came from a source registered in its scope as trusted (or from the controller).

event_trusted(Scope, Id) :-
    event_(Scope, Id, _, _, _, _, _, true).

%!  event_payload(?Scope, ?Id, ?Payload) is nondet.
%
%   The text that came with event Id, for display only.

event_payload(Scope, Id, Payload) :-
    event_payload_(Scope, Id, Payload).

%!  event_pending(?Scope, ?Id) is nondet.
%
%   Event Id has not been handled yet.

event_pending(Scope, Id) :-
    event_(Scope, Id, _, _, _, _, _, _),
    \+ event_handled_(Scope, Id, _).

%!  event_handled(+Scope, +Id, +At) is det.
%
%   Mark event Id handled at At.

event_handled(Scope, Id, At) :-
    (   event_handled_(Scope, Id, _)
    ->  true
    ;   scoped_assert(atc_attention_state:event_handled_(Scope, Id, At))
    ).


                 /*******************************
                 *           WEIGHTS            *
                 *******************************/

%!  attention_set_weight(+Scope, +Name, +Value:number) is det.
%
%   Override weight Name for Scope (ablations, per-agent tuning).
%   @error existence_error(attention_weight, Name), domain_error(finite_number, Value)

attention_set_weight(Scope0, Name0, Value) :-
    scope_atom(Scope0, Scope),
    text_atom(Name0, Name),
    (   attention_weight(Name, _, _) -> true ; existence_error(attention_weight, Name) ),
    must_be(number, Value),
    must_be_finite(Value),
    (   Value >= 0 -> true ; domain_error(non_negative_weight, Value) ),
    scoped_retract(atc_attention_state:weight_override_(Scope, Name, _)),
    scoped_assert(atc_attention_state:weight_override_(Scope, Name, Value)).

% The TMS weighs a dirty belief with the weight in force here (atc_tms:dirty_p_changed/2):
% one P(changed) for the controller, `belief show` and a re-observation's starting confidence.
:- multifile atc_tms:dirty_p_changed_hook/2.
atc_tms:dirty_p_changed_hook(Scope, P) :-
    weight(Scope, dirty_p_changed, P).

%!  weight(+Scope, +Name, -Value) is det.
%
%   The value of weight Name in force for Scope.
%   @error existence_error(attention_weight, Name)

weight(Scope, Name, Value) :-
    (   weight_override_(Scope, Name, V)
    ->  Value = V
    ;   attention_weight(Name, V, _)
    ->  Value = V
    ;   existence_error(attention_weight, Name)
    ).

%!  attention_state_drop(+Scope) is det.
%
%   Forget the goals, events and weight overrides of Scope.

attention_state_drop(Scope0) :-
    scope_atom(Scope0, Scope),
    scoped_retract(atc_attention_state:goal_(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_attention_state:goal_dependency_(Scope, _, _)),
    scoped_retract(atc_attention_state:goal_rule_(Scope, _, _)),
    scoped_retract(atc_attention_state:event_(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_attention_state:event_payload_(Scope, _, _)),
    scoped_retract(atc_attention_state:event_handled_(Scope, _, _)),
    scoped_retract(atc_attention_state:weight_override_(Scope, _, _)).
