:- module(atc_attention_api,
          [ add_source/4,                 % +Scope, +Name, +ClaimType, +Options
            add_belief/3,                 % +Scope, +Id, +Belief
            add_goal/4,                   % +Scope, +Goal, +DependsOn, +Options
            add_event/8,                  % +Scope, +Kind, +Source, +Target, +Payload, +Priority, +Now, -Result
            set_weight/3,                 % +Scope, +Name, +Value
            source_changed/4,             % +Scope, +Source, +Now, -Dirtied
            item_changed/4,               % +Scope, +Handle, +Now, -Dirtied
            attend/6,                     % +Scope, +Goal, +Budget, +Now, +Current, -Result
            inspect/7,                    % +Scope, +Candidate, +Value, +Now, +Succeeded, +Cost, -Outcome
            claim/8,                      % +Scope, +Text, +ClaimType, +Subject, +Evidence, +Mode, +Now, -Verdict
            drop/1,                       % +Scope

            belief/4,                     % +Scope, +Id, +Now, -Info
            why/3,                        % +Scope, +Id, -Why
            beliefs/3,                    % +Scope, +Now, -Infos
            source/3,                     % +Scope, +Name, -Info
            goal/3,                       % +Scope, +Goal, -Info
            decision/3,                   % +Scope, +Goal, -Decision
            candidate/3,                  % +Scope, +Candidate, -Info
            generate/5,                   % +Scope, +Goal, +Generator, +Now, -Proposals
            claims/2,                     % +Scope, -Claims
            trace/3,                      % +Scope, +Filter, -Events
            weight/3,                     % +Scope, +Name, -Value
            max_budget/1                  % -Inspections
          ]).
:- use_module(library(error)).
:- use_module(library(apply)).
:- use_module(attention_checks).
:- use_module(attention_store).
:- use_module(tms).
:- use_module(trace).
:- use_module(validator).
:- use_module(attention_state, except([weight/3])).
:- use_module(attention_candidates).
:- use_module(attention).
:- use_module(grants, [belief_labels/3, labels_dict/2]).

/** <module> What the host calls for beliefs, attention, claims and the trace

One facade over tms, attention_state, attention_candidates, attention, validator and trace, so the
Python package (attention_cloud.attention) calls one module with plain values. Each call that
changes anything runs as one store batch (atc_api:api_batch/1 when the memory API is loaded): it is
journalled and committed as a whole, or undone as a whole when it raises, so a bad argument never
leaves half a change behind. Reads run directly.

    ?- add_source(s, registry, dependency_version, _{kind: package_registry}),
       attend(s, deploy, 3, 1700000000, null, R).
*/

:- meta_predicate durably(0).

% A change is one batch of the memory home's journal when the memory API is loaded.
durably(Goal) :-
    (   current_predicate(atc_api:api_batch/1)
    ->  atc_api:api_batch(Goal)
    ;   once(Goal)
    ).

%!  add_source(+Scope, +Name, +ClaimType, +Options:dict) is det.
%   See atc_tms:tms_add_source/4.
add_source(Scope, Name, ClaimType, Options) :-
    durably(tms_add_source(Scope, Name, ClaimType, Options)).

%!  add_belief(+Scope, +Id, +Belief:dict) is det.
%   See atc_tms:tms_add_belief/3.
add_belief(Scope, Id, Belief) :-
    durably(tms_add_belief(Scope, Id, Belief)).

%!  add_goal(+Scope, +Goal, +DependsOn:list, +Options:dict) is det.
%   See atc_attention_state:attention_add_goal/4.
add_goal(Scope, Goal, DependsOn, Options) :-
    durably(attention_add_goal(Scope, Goal, DependsOn, Options)).

%!  add_event(+Scope, +Kind, +Source, +Target, +Payload, +Priority, +Now, -Result:dict) is det.
%   See atc_attention_state:attention_add_event/8.
add_event(Scope, Kind, Source, Target, Payload, Priority, Now, Result) :-
    durably(attention_add_event(Scope, Kind, Source, Target, Payload, Priority, Now, Result)).

%!  set_weight(+Scope, +Name, +Value) is det.
%   See atc_attention_state:attention_set_weight/3.
set_weight(Scope, Name, Value) :-
    durably(attention_set_weight(Scope, Name, Value)).

%!  source_changed(+Scope, +Source, +Now, -Dirtied:list) is det.
%   See atc_tms:tms_source_changed/4.
source_changed(Scope, Source, Now, Dirtied) :-
    durably(tms_source_changed(Scope, Source, Now, Dirtied)).

%!  item_changed(+Scope, +Handle, +Now, -Dirtied:list) is det.
%   See atc_tms:tms_item_changed/4.
item_changed(Scope, Handle, Now, Dirtied) :-
    durably(tms_item_changed(Scope, Handle, Now, Dirtied)).

%!  attend(+Scope, +Goal, +Budget, +Now, +Current, -Result:dict) is det.
%   See atc_attention:attention_attend/6.
attend(Scope, Goal, Budget, Now, Current, Result) :-
    durably(attention_attend(Scope, Goal, Budget, Now, Current, Result)).

%!  inspect(+Scope, +Candidate, +Value, +Now, +Succeeded, +Cost, -Outcome:dict) is det.
%   See atc_attention:attention_inspect/7.
inspect(Scope, Candidate, Value, Now, Succeeded, Cost, Outcome) :-
    durably(attention_inspect(Scope, Candidate, Value, Now, Succeeded, Cost, Outcome)).

%!  claim(+Scope, +Text, +ClaimType, +Subject, +Evidence:list, +Mode, +Now, -Verdict:dict) is det.
%   See atc_validator:validator_claim/8.
claim(Scope, Text, ClaimType, Subject, Evidence, Mode, Now, Verdict) :-
    durably(validator_claim(Scope, Text, ClaimType, Subject, Evidence, Mode, Now, Verdict)).

%!  drop(+Scope) is det.
%   See atc_attention:attention_drop/1.
drop(Scope) :-
    durably(attention_drop(Scope)).

%!  belief(+Scope, +Id, +Now, -Info:dict) is det.
%   See atc_tms:belief_info/4; `labels` adds the labels the belief carries from the items
%   that justify it (atc_grants:belief_labels/3, as a dict), and `p_stale` is the one the
%   controller weighs (p_stale_as_weighed_/3).
belief(Scope, Id, Now, Info) :-
    belief_info(Scope, Id, Now, Info0),
    belief_labels(Scope, Id, Labels),
    labels_dict(Labels, LabelsDict),
    p_stale_as_weighed_(Scope, Info0, Info1),
    Info = Info1.put(labels, LabelsDict).

%!  why(+Scope, +Id, -Why:dict) is det.
%   See atc_tms:belief_why/3.
why(Scope, Id, Why) :-
    belief_why(Scope, Id, Why).

%!  beliefs(+Scope, +Now, -Infos:list(dict)) is det.
%   See atc_tms:belief_list/3; `p_stale` as in belief/4.
beliefs(Scope, Now, Infos) :-
    belief_list(Scope, Now, Infos0),
    maplist(p_stale_as_weighed_(Scope), Infos0, Infos).

% `p_stale_by_age` is the hazard model's P(stale) from the belief's age alone; `p_stale` is
% that, or for a dirty belief at least the `dirty_p_changed` weight: what the controller takes
% as the chance its state changed (attention_candidates' claim_p_right/5). Shown by age alone,
% a belief whose support had just been superseded read "P(stale) 0.008".
p_stale_as_weighed_(Scope0, Info0, Info) :-
    scope_atom(Scope0, Scope),
    ByAge = Info0.p_stale,
    (   Info0.dirty == true
    ->  weight(Scope, dirty_p_changed, Dirty),
        P is max(ByAge, Dirty)
    ;   P = ByAge
    ),
    Info = Info0.put(_{p_stale: P, p_stale_by_age: ByAge}).

%!  source(+Scope, +Name, -Info:dict) is det.
%   See atc_tms:source_info/3.
source(Scope0, Name, Info) :-
    scope_atom(Scope0, Scope),
    source_info(Scope, Name, Info).

%!  goal(+Scope, +Goal, -Info:dict) is det.
%   See atc_attention_state:goal_info/3.
goal(Scope, Goal, Info) :-
    goal_info(Scope, Goal, Info).

%!  decision(+Scope, +Goal, -Decision:dict) is det.
%   See atc_attention:attention_decision/3.
decision(Scope, Goal, Decision) :-
    attention_decision(Scope, Goal, Decision).

%!  candidate(+Scope, +Candidate, -Info:dict) is det.
%   See atc_attention:attention_candidate/3.
candidate(Scope, Candidate, Info) :-
    attention_candidate(Scope, Candidate, Info).

%!  generate(+Scope, +Goal, +Generator, +Now, -Proposals:list(dict)) is det.
%
%   What one generator alone proposes, as `_{trigger, kind, target, claim_type, subject,
%   goal_ids, events}` dicts: the measurable candidate-generation stage.

generate(Scope0, Goal0, Generator0, Now, Proposals) :-
    scope_atom(Scope0, Scope),
    text_atom(Goal0, Goal),
    text_atom(Generator0, Generator),
    must_be_time(Now),
    attention_generate(Scope, Goal, Generator, Now, Ps),
    maplist(proposal_dict_, Ps, Proposals).

proposal_dict_(proposal(Trigger, key(Kind, Target, Extra), Goals, Evs), Dict) :-
    (   Extra = T-S0 -> subject_text(S0, S) ; T = null, S = null ),
    Dict = _{trigger: Trigger, kind: Kind, target: Target, claim_type: T, subject: S,
             goal_ids: Goals, events: Evs}.

%!  claims(+Scope, -Claims:list(dict)) is det.
%   See atc_validator:validator_claims/2.
claims(Scope, Claims) :-
    validator_claims(Scope, Claims).

%!  trace(+Scope, +Filter:dict, -Events:list(dict)) is det.
%   See atc_trace:trace_events/3.
trace(Scope, Filter, Events) :-
    trace_events(Scope, Filter, Events).

%!  weight(+Scope, +Name, -Value) is det.
%   See atc_attention_state:weight/3.
weight(Scope0, Name0, Value) :-
    scope_atom(Scope0, Scope),
    text_atom(Name0, Name),
    atc_attention_state:weight(Scope, Name, Value).

%!  max_budget(-Inspections:integer) is det.
%   See atc_attention:attention_max_budget/1.
max_budget(Max) :-
    attention_max_budget(Max).
