:- module(attention_fixtures,
          [ fresh/0,
            t0/1,                         % -Now
            belief/9,                     % +Scope, +Id, +Type, +Subject, +Value, +Conf, +At, +Supports, +Source
            deploy_scenario/1,            % +Scope
            candidate_for/3,              % +Result, +Target, -Candidate
            trace_types/2                 % +Scope, -EventTypes
          ]).
:- use_module('../../rules/store').
:- use_module('../../rules/tms').
:- use_module('../../rules/attention_state').
:- use_module('../../rules/trace').
:- use_module('../../facts/volatility').
:- use_module(library(lists)).

/** <module> Shared scenarios for the attention plunit suites

deploy_scenario/1 is the worked example of the attention seed (§30): deploy configuration A or
B; a six-hour-old summary says dependency 4.1 and "A recommended"; thirty inspectable sources,
of which the package registry and the compatibility matrix decide; budget 3.
*/

%!  fresh is det.
%   Forget every durable fact (each test starts empty).
fresh :-
    store_reset.

%!  t0(-Now) is det.
%   The "now" of the scenarios.
t0(1000000).

%!  belief(+Scope, +Id, +Type, +Subject, +Value, +Conf, +At, +Supports, +Source) is det.
%   Add a belief with the default volatility of its claim type.
belief(S, Id, Type, Subject, Value, Conf, At, Supports, Source) :-
    default_volatility(Type, Class),
    tms_add_belief(S, Id, _{claim_type: Type, subject: Subject, value: Value,
                            confidence: Conf, observed_at: At, volatility: Class,
                            supports: Supports, source: Source}).

%!  deploy_scenario(+Scope) is det.
deploy_scenario(S) :-
    t0(T0),
    Obs is T0 - 21600,
    tms_add_source(S, registry, dependency_version, _{kind: package_registry}),
    tms_add_source(S, manifest, dependency_version, _{kind: deploy_manifest}),
    tms_add_source(S, memo, compatibility, _{kind: design_memo}),
    tms_add_source(S, worker_chat, worker_state, _{kind: worker_chat}),
    tms_add_source(S, changelog, dependency_version, _{kind: changelog}),
    tms_add_source(S, security_digest, security_advisory, _{kind: security_digest}),
    tms_add_source(S, matrix, compatibility, _{kind: compatibility_matrix}),
    tms_add_source(S, summary, dependency_version, _{kind: own_summary}),
    forall(between(9, 30, I),
           (   format(atom(N), 'distractor~w', [I]),
               tms_add_source(S, N, queue_depth, _{kind: cached_status})
           )),
    belief(S, dep_version, dependency_version, libfoo, "4.1", 0.9, Obs, ["summary"], summary),
    belief(S, compat, compatibility, deploy, "A", 0.9, Obs, ["dep_version"], summary),
    attention_add_goal(S, deploy, [compat], _{loss_if_wrong: 1.0, now: T0}).

%!  candidate_for(+Result, +Target, -Candidate) is semidet.
%   The ranked candidate of an attend Result whose target is Target.
candidate_for(R, Target, C) :-
    member(C, R.ranked),
    C.target == Target,
    !.

%!  trace_types(+Scope, -Types) is det.
%   The event types of Scope's trace in order.
trace_types(S, Types) :-
    trace_events(S, _{}, Es),
    findall(T, ( member(E, Es), T = E.event ), Types).
