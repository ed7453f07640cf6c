:- module(attention_candidates,
          [ generator/1,                  % ?Generator
            attention_generate/5,         % +Scope, +Goal, +Generator, +Now, -Proposals
            attention_scores/4,           % +Scope, +Goal, +Now, -Scores
            goal_claims/3,                % +Scope, +Goal, -ClaimRelevances
            deadline_pressure/4,          % +Scope, +Goal, +Now, -Pressure
            p_belief_wrong/4              % +Scope, +ClaimType-Subject, +Now, -P
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(aggregate)).
:- use_module(tms).
:- use_module(validator).
:- use_module(attention_state).
:- use_module('../facts/claim_policy').
:- use_module('../facts/volatility').

/** <module> Candidate generation and heuristic value of computation

Candidate generation is a separate, measurable subsystem (seed §7, §18): each generator below is
one rule that proposes computations for one reason, and attention_generate/5 runs any one of
them alone, so candidate recall can be measured per generator.

| generator               | proposes                                                        |
|-------------------------|-----------------------------------------------------------------|
| goal_dependency         | inspecting each source of each claim the goal depends on        |
| dirty_belief            | inspecting the sources of every dirty belief                    |
| stale_belief            | inspecting the sources of beliefs whose P(stale) passed a threshold |
| contradiction           | inspecting the sources of a claim live beliefs disagree on      |
| failed_action           | diagnosing a reported failure (tool error, failed inspection)   |
| state_sensitive_claim   | inspecting the best source for a drafted or blocked claim       |
| deadline                | the dependencies of other goals whose deadline is near          |
| interruption            | handling an incoming event (never an automatic switch)          |
| state_change            | inspecting a source an untrusted party says has changed         |
| exploration             | probing one never-inspected source, within a small quota        |

A proposal is proposal(Trigger, Key, GoalIds, EventIds); Key is
key(inspect_source, Source, ClaimType-Subject), key(handle_interruption, Target, from(Source))
or key(diagnose_failure, Target, from(Source)). Proposals sharing a key merge into one candidate.

attention_scores/4 merges and scores them (seed §3.3, §8, §11.1):

    P(belief wrong)      = 1 - confidence * (1 - P(stale)), at least `dirty_p_wrong` when
                           dirty and `contradiction_p_wrong` when contradicted
    P(decision changes)  = P(belief wrong) * authority * goal relevance, and 0 when the source
                           is less authoritative than the firmest live belief's effective
                           confidence (its reading could not overturn it)
    E|ΔU|                = loss if wrong * deadline pressure (* other_goal_weight for a
                           goal other than the attended one)
    predicted_voc        = P(decision changes) * E|ΔU|
    net_voc              = predicted_voc - λ cost - μ switch cost

Goal relevance is 1 for a claim a goal depends on directly and `support_decay` per
justification hop beyond. Events are scored from trusted metadata only: the priority a trusted
source attached, a fixed low probability otherwise; their text is never read. Lexicographic
floors (§11.2) are computed here too; ordering, aging, quotas and stopping are attention.pl's.
*/

%!  generator(?Generator) is nondet.
%
%   Generator is one of the candidate generators, in the order they run.

generator(goal_dependency).
generator(dirty_belief).
generator(stale_belief).
generator(contradiction).
generator(failed_action).
generator(state_sensitive_claim).
generator(deadline).
generator(interruption).
generator(state_change).
generator(exploration).

% Which trigger names a merged candidate: the most specific reason first.
trigger_rank(validator_forced,       1).
trigger_rank(contradiction,          2).
trigger_rank(dirty_belief,           3).
trigger_rank(failed_action,          4).
trigger_rank(state_sensitive_claim,  5).
trigger_rank(state_change,           6).
trigger_rank(deadline,               7).
trigger_rank(goal_dependency,        8).
trigger_rank(stale_belief,           9).
trigger_rank(interruption,          10).
trigger_rank(exploration,           11).

%!  attention_generate(+Scope, +Goal, +Generator, +Now, -Proposals:list) is det.
%
%   Proposals are what Generator alone proposes while attending to Goal at Now, without
%   duplicates, in standard order.
%   @error domain_error(generator, Generator), existence_error(goal, Goal)

attention_generate(Scope, Goal, Generator, Now, Proposals) :-
    (   generator(Generator) -> true ; domain_error(generator, Generator) ),
    context_(Scope, Goal, Now, Ctx),
    findall(P, propose(Generator, Ctx, P), Ps),
    sort(Ps, Proposals).

context_(Scope, Goal, Now, ctx(Scope, Goal, Now, Closures)) :-
    (   goal(Scope, Goal) -> true ; existence_error(goal, Goal) ),
    findall(G-Claims, ( goal(Scope, G), goal_claims(Scope, G, Claims) ), Closures).

%!  goal_claims(+Scope, +Goal, -ClaimRelevances:list(pair)) is det.
%
%   ClaimRelevances pairs each claim (ClaimType-Subject) Goal's decision depends on with its
%   relevance: 1 for a dependency's own claim, times `support_decay` for each justification
%   hop to a belief that supports it. Sorted by claim.

goal_claims(Scope, Goal, ClaimRels) :-
    weight(Scope, support_decay, Decay),
    findall(B-1.0, ( goal_dependency(Scope, Goal, B0), belief_current(Scope, B0, B) ), Q0),
    closure_(Q0, Scope, Decay, [], [], Pairs),
    msort(Pairs, Sorted),
    group_pairs_by_key(Sorted, Grouped),
    maplist(max_relevance_, Grouped, ClaimRels).

max_relevance_(Claim-Rs, Claim-R) :-
    max_list(Rs, R).

closure_([], _, _, _, Acc, Acc).
closure_([B-Rel|Queue0], Scope, Decay, Seen, Acc0, Acc) :-
    (   memberchk(B, Seen)
    ->  closure_(Queue0, Scope, Decay, Seen, Acc0, Acc)
    ;   once(belief_claim(Scope, B, T, S)),
        Rel1 is Rel * Decay,
        findall(C-Rel1, ( belief_support(Scope, B, belief(C0)), belief_current(Scope, C0, C) ),
                More),
        append(Queue0, More, Queue),
        closure_(Queue, Scope, Decay, [B|Seen], [(T-S)-Rel|Acc0], Acc)
    ).

attended_claims_(ctx(_, Goal, _, Closures), Claims) :-
    memberchk(Goal-Claims, Closures).

% Sources that can answer a claim.
claim_source_(Scope, T-_, Source) :-
    source_claim_type(Scope, Source, T).

inspect_key_(Source, Claim, key(inspect_source, Source, Claim)).


                 /*******************************
                 *          GENERATORS          *
                 *******************************/

%!  propose(+Generator, +Ctx, -Proposal) is nondet.

propose(goal_dependency, Ctx, proposal(goal_dependency, Key, [Goal], [])) :-
    Ctx = ctx(Scope, Goal, _, _),
    attended_claims_(Ctx, Claims),
    member(Claim-_, Claims),
    claim_source_(Scope, Claim, Source),
    inspect_key_(Source, Claim, Key).
propose(dirty_belief, ctx(Scope, _, _, Closures), proposal(dirty_belief, Key, Goals, [])) :-
    setof(B, C^( belief_dirty(Scope, B, C), belief_live(Scope, B) ), Dirty),
    member(B, Dirty),
    belief_claim(Scope, B, T, S),
    claim_goals_(Closures, T-S, Goals),
    claim_source_(Scope, T-S, Source),
    inspect_key_(Source, T-S, Key).
propose(stale_belief, ctx(Scope, _, Now, Closures), proposal(stale_belief, Key, Goals, [])) :-
    weight(Scope, stale_threshold, Threshold),
    belief_live(Scope, B),
    \+ belief_dirty(Scope, B, _),
    belief_p_stale(Scope, B, Now, P),
    P >= Threshold,
    belief_claim(Scope, B, T, S),
    claim_goals_(Closures, T-S, Goals),
    claim_source_(Scope, T-S, Source),
    inspect_key_(Source, T-S, Key).
propose(contradiction, ctx(Scope, _, _, Closures), proposal(contradiction, Key, Goals, [])) :-
    contradiction(Scope, T, S, _),
    claim_goals_(Closures, T-S, Goals),
    claim_source_(Scope, T-S, Source),
    inspect_key_(Source, T-S, Key).
propose(failed_action, ctx(Scope, _, _, _), Proposal) :-
    event_proposal_(Scope, failed_action, diagnose_failure, Proposal).
propose(interruption, ctx(Scope, _, _, _), Proposal) :-
    event_proposal_(Scope, interruption, handle_interruption, Proposal).
propose(state_sensitive_claim, ctx(Scope, _, _, Closures), proposal(Trigger, Key, Goals, [])) :-
    validator_pending_claim(Scope, _, T, Subject, Origin),
    (   Origin == validator -> Trigger = validator_forced ; Trigger = state_sensitive_claim ),
    pending_subject_(Scope, T, Subject, S),
    top_source_(Scope, T, Source),
    claim_goals_(Closures, T-S, Goals),
    inspect_key_(Source, T-S, Key).
propose(deadline, ctx(Scope, Goal, Now, Closures), proposal(deadline, Key, [G], [])) :-
    weight(Scope, deadline_horizon_s, Horizon),
    member(G-Claims, Closures),
    G \== Goal,
    goal_deadline(Scope, G, Deadline),
    Deadline - Now =< Horizon,
    member(Claim-_, Claims),
    claim_source_(Scope, Claim, Source),
    inspect_key_(Source, Claim, Key).
propose(state_change, ctx(Scope, _, _, Closures), proposal(state_change, Key, Goals, [Ev])) :-
    event(Scope, Ev, state_change, _, Source, _, _),
    event_pending(Scope, Ev),
    setof(T-S, B^( belief_origin(Scope, B, Source), belief_live(Scope, B),
                   belief_claim(Scope, B, T, S) ), Claims),
    member(Claim, Claims),
    claim_goals_(Closures, Claim, Goals),
    inspect_key_(Source, Claim, Key).
propose(exploration, ctx(Scope, _, _, Closures), proposal(exploration, Key, [], [])) :-
    findall(T, ( member(_-Claims, Closures), member((T-_)-_, Claims) ), Ts0),
    sort(Ts0, GoalTypes),
    findall(NegA-Source,
            ( source_rank(Scope, Source, T, A, _),
              \+ memberchk(T, GoalTypes),
              \+ inspection(Scope, _, Source, _, _, _, _, _),
              NegA is -A ), Pairs),
    msort(Pairs, [_-Source|_]),
    source_claim_type(Scope, Source, T),
    (   claim_beliefs_of_type_(Scope, T, [S|_]) -> true ; S = '' ),
    inspect_key_(Source, T-S, Key).

% Goals whose closure holds Claim, as a sorted list.
claim_goals_(Closures, Claim, Goals) :-
    findall(G, ( member(G-Claims, Closures), memberchk(Claim-_, Claims) ), Gs),
    sort(Gs, Goals).

% Pending events of one kind, grouped by (source, target): one candidate per group.
event_proposal_(Scope, Kind, CandidateKind, proposal(Kind, Key, [], Evs)) :-
    setof(Ev, At^P^( event(Scope, Ev, Kind, Source, Target, P, At),
                     event_pending(Scope, Ev) ), Evs),
    Key = key(CandidateKind, Target, from(Source)).

% A claim drafted without a subject is checked for every subject believed of its type.
pending_subject_(Scope, T, '', S) :- !,
    (   claim_beliefs_of_type_(Scope, T, Subjects), Subjects \== []
    ->  member(S, Subjects)
    ;   S = ''
    ).
pending_subject_(_, _, S, S).

claim_beliefs_of_type_(Scope, T, Subjects) :-
    findall(S, ( belief_live(Scope, B), belief_claim(Scope, B, T, S) ), Ss),
    sort(Ss, Subjects).

% The most authoritative source registered for a claim type (ties by name).
top_source_(Scope, T, Source) :-
    findall(NegA-S, ( source_rank(Scope, S, T, A, _), NegA is -A ), Pairs),
    msort(Pairs, [_-Source|_]).


                 /*******************************
                 *           SCORING            *
                 *******************************/

%!  attention_scores(+Scope, +Goal, +Now, -Scores:list(dict)) is det.
%
%   Run every generator, merge proposals by key and score each merged candidate. A score is a
%   dict with the seed's §8 fields (less the candidate id and times, which attention.pl adds)
%   plus `key`, `triggers` and `origin` (the event source for event candidates, `controller`
%   otherwise).

attention_scores(Scope, Goal, Now, Scores) :-
    context_(Scope, Goal, Now, Ctx),
    findall(Key-p(Trigger, Goals, Evs),
            ( generator(G), propose(G, Ctx, proposal(Trigger, Key, Goals, Evs)) ), Pairs0),
    msort(Pairs0, Pairs),
    group_pairs_by_key(Pairs, Grouped),
    maplist(score_(Ctx), Grouped, Scores).

score_(Ctx, Key-Ps, Score) :-
    findall(T, member(p(T, _, _), Ps), Ts0),
    sort(Ts0, Ts1),
    map_list_to_pairs(trigger_rank, Ts1, Ranked0),
    keysort(Ranked0, Ranked),
    pairs_values(Ranked, Triggers),
    Triggers = [Trigger|_],
    findall(G, ( member(p(_, Gs, _), Ps), member(G, Gs) ), Goals0),
    findall(E, ( member(p(_, _, Es), Ps), member(E, Es) ), Evs0),
    sort(Evs0, Evs),
    score_key_(Key, Ctx, Triggers, Goals0, Evs, Score0),
    Key = key(Kind, Target, _),
    put_dict(_{key: Key, kind: Kind, target: Target, trigger: Trigger, triggers: Triggers},
             Score0, Score).

score_key_(key(inspect_source, Source, T-S), Ctx, Triggers, Goals0, _, Score) :- !,
    Ctx = ctx(Scope, Attended, Now, Closures),
    once(source_rank(Scope, Source, T, A, Cost)),
    claim_beliefs(Scope, T, S, Live),
    p_belief_wrong(Scope, T-S, Now, PWrong),
    findall(G, ( member(G-Claims, Closures), memberchk((T-S)-_, Claims) ), Gs1),
    append(Goals0, Gs1, Gs2),
    sort(Gs2, GoalIds),
    best_goal_(Ctx, T-S, GoalIds, Triggers, best(BestGoal, Rel, Stakes, Loss)),
    overturn_(Scope, Live, Now, A, Overturn),
    PChange is PWrong * A * Rel * Overturn,
    Predicted0 is PChange * Stakes,
    (   Triggers == [exploration]
    ->  weight(Scope, exploration_value, EV),
        Predicted is max(Predicted0, EV * A)
    ;   Predicted = Predicted0
    ),
    (   ( BestGoal == Attended ; BestGoal == claim ; BestGoal == none )
    ->  Switch = 0
    ;   weight(Scope, switch_cost_other, Switch)
    ),
    net_(Scope, Predicted, Cost, Switch, Net),
    evidence_age_(Scope, Live, Now, Age),
    claim_volatility_(Scope, T, Live, Class),
    goal_deadline_s_(Scope, BestGoal, Now, DeadlineS),
    floor_(Ctx, Source, T-S, GoalIds, Floor),
    Score = _{ origin: controller, goal_ids: GoalIds, claim_ids: Live,
               claim_type: T, subject: S, best_goal: BestGoal,
               goal_relevance: Rel, p_belief_wrong: PWrong, p_decision_changes: PChange,
               loss_if_wrong: Loss, stakes: Stakes, authority: A, evidence_age_s: Age,
               volatility: Class, deadline_s: DeadlineS, cost: Cost, switch_cost: Switch,
               predicted_voc: Predicted, net_voc: Net, floor: Floor, events: [] }.
score_key_(key(Kind, Target, from(Origin)), Ctx, _, _, Evs, Score) :-
    memberchk(Kind, [handle_interruption, diagnose_failure]),
    Ctx = ctx(Scope, Attended, Now, _),
    event_probability_(Scope, Kind, Evs, P),
    (   event_related_(Ctx, Target)
    ->  once(goal_stakes(Scope, Attended, Loss)),
        deadline_pressure(Scope, Attended, Now, Pressure),
        Stakes is Loss * Pressure,
        Rel = 1.0, Switch = 0, GoalIds = [Attended], BestGoal = Attended
    ;   weight(Scope, event_loss, Stakes),
        Loss = Stakes, Rel = 0.0, GoalIds = [], BestGoal = none,
        weight(Scope, switch_cost_other, Switch)
    ),
    (   catch(source_cost(Scope, Origin, Cost), error(existence_error(_, _), _), fail)
    ->  true
    ;   Cost = 1.0
    ),
    (   catch(source_authority(Scope, Origin, A), error(existence_error(_, _), _), fail),
        source_trusted(Scope, Origin)
    ->  true
    ;   A = null
    ),
    Predicted is P * Stakes,
    net_(Scope, Predicted, Cost, Switch, Net),
    aggregate_all(max(At), ( member(E, Evs), event(Scope, E, _, _, _, _, At) ), Latest),
    Age is max(0, Now - Latest),
    goal_deadline_s_(Scope, BestGoal, Now, DeadlineS),
    Score = _{ origin: Origin, goal_ids: GoalIds, claim_ids: [], claim_type: null,
               subject: null, best_goal: BestGoal, goal_relevance: Rel,
               p_belief_wrong: null, p_decision_changes: P, loss_if_wrong: Loss,
               stakes: Stakes, authority: A, evidence_age_s: Age, volatility: null,
               deadline_s: DeadlineS, cost: Cost, switch_cost: Switch,
               predicted_voc: Predicted, net_voc: Net, floor: false, events: Evs }.

% A reading can change what is believed only if it is at least as firm as the firmest live
% belief on the claim (tms:tms_observe/6 keeps a weaker reading as a mere contradiction), so a
% summary or a partial source is worth nothing once the authoritative reading is in.
overturn_(Scope, Live, Now, A, Overturn) :-
    findall(E, ( member(B, Live), belief_effective_confidence(Scope, B, Now, E) ), Es),
    max_list([0.0|Es], Firmest),
    (   A >= Firmest -> Overturn = 1.0 ; Overturn = 0.0 ).

net_(Scope, Predicted, Cost, Switch, Net) :-
    weight(Scope, cost_weight, Lambda),
    weight(Scope, switch_weight, Mu),
    Net is Predicted - Lambda * Cost - Mu * Switch.

% The goal through which inspecting the claim is worth most. The attended goal counts fully,
% another goal only while its deadline is near (at other_goal_weight), and a drafted or
% blocked claim counts as work in hand with the stakes of an unattached event.
best_goal_(ctx(Scope, Attended, Now, Closures), Claim, GoalIds, Triggers, Best) :-
    findall(V-best(G, Rel, Stakes, Loss),
            ( member(G, GoalIds),
              member(G-Claims, Closures),
              memberchk(Claim-Rel, Claims),
              goal_weight_(Scope, Attended, G, Now, W),
              goal_stakes(Scope, G, Loss),
              deadline_pressure(Scope, G, Now, Pressure),
              Stakes is Loss * Pressure * W,
              V is Rel * Stakes ), Options0),
    (   ( memberchk(state_sensitive_claim, Triggers) ; memberchk(validator_forced, Triggers) )
    ->  weight(Scope, event_loss, ClaimStakes),
        Options = [ClaimStakes-best(claim, 1.0, ClaimStakes, ClaimStakes)|Options0]
    ;   Options = Options0
    ),
    (   Options == []
    ->  Best = best(none, 0.0, 0.0, 0.0)
    ;   max_member(_-Best, Options)
    ).

goal_weight_(_, Attended, Attended, _, 1.0) :- !.
goal_weight_(Scope, _, G, Now, W) :-
    (   goal_deadline(Scope, G, Deadline),
        weight(Scope, deadline_horizon_s, Horizon),
        Deadline - Now =< Horizon
    ->  weight(Scope, other_goal_weight, W)
    ;   W = 0.0
    ).

%!  deadline_pressure(+Scope, +Goal, +Now, -Pressure) is det.
%
%   1 without a deadline or while it is beyond the horizon, rising linearly to
%   1 + `deadline_boost` at the deadline (and staying there once it has passed).

deadline_pressure(Scope, Goal, Now, Pressure) :-
    (   goal_deadline(Scope, Goal, Deadline)
    ->  weight(Scope, deadline_horizon_s, Horizon),
        weight(Scope, deadline_boost, Boost),
        Left is Deadline - Now,
        Closeness is max(0, min(1, 1 - Left / max(1, Horizon))),
        Pressure is 1 + Boost * Closeness
    ;   Pressure = 1.0
    ).

%!  p_belief_wrong(+Scope, +Claim, +Now, -P) is det.
%
%   Probability that what is believed about Claim (ClaimType-Subject) is wrong at Now: the
%   largest over its live beliefs of 1 - confidence * (1 - P(stale)), raised to `dirty_p_wrong`
%   for a dirty belief and to `contradiction_p_wrong` while the beliefs disagree;
%   `unknown_p_wrong` when nothing is believed.

p_belief_wrong(Scope, T-S, Now, P) :-
    claim_beliefs(Scope, T, S, Live),
    (   Live == []
    ->  weight(Scope, unknown_p_wrong, P)
    ;   weight(Scope, dirty_p_wrong, PDirty),
        findall(PB, ( member(B, Live), belief_wrong_(Scope, B, Now, PDirty, PB) ), PBs),
        max_list(PBs, P0),
        (   contradiction(Scope, T, S, _)
        ->  weight(Scope, contradiction_p_wrong, PC),
            P is max(P0, PC)
        ;   P = P0
        )
    ).

belief_wrong_(Scope, B, Now, PDirty, P) :-
    belief_observed(Scope, B, Confidence, _, _),
    belief_p_stale(Scope, B, Now, PStale),
    P0 is 1 - Confidence * (1 - PStale),
    (   belief_dirty(Scope, B, _)
    ->  P is max(P0, PDirty)
    ;   P = P0
    ).

evidence_age_(_, [], _, null) :- !.
evidence_age_(Scope, Live, Now, Age) :-
    aggregate_all(max(At), ( member(B, Live), belief_observed(Scope, B, _, At, _) ), Latest),
    Age is max(0, Now - Latest).

claim_volatility_(Scope, _, [B|_], Class) :- !,
    once(belief_observed(Scope, B, _, _, Class)).
claim_volatility_(_, T, [], Class) :-
    (   default_volatility(T, Class) -> true ; Class = null ).

goal_deadline_s_(Scope, Goal, Now, Left) :-
    (   atom(Goal), goal_deadline(Scope, Goal, Deadline)
    ->  Left is Deadline - Now
    ;   Left = null
    ).

% Trusted metadata only: a priority attached by a trusted source, a fixed default otherwise.
event_probability_(Scope, Kind, Evs, P) :-
    findall(Pr, ( member(E, Evs), event_trusted(Scope, E),
                  event(Scope, E, _, _, _, Pr0, _),
                  trusted_default_(Scope, Kind, Pr0, Pr) ), Ps),
    (   Ps == []
    ->  weight(Scope, untrusted_event_p, P)
    ;   max_list(Ps, P)
    ).

trusted_default_(_, _, Pr, Pr) :- Pr \== null, !.
trusted_default_(Scope, diagnose_failure, _, Pr) :- !, weight(Scope, failed_action_p, Pr).
trusted_default_(Scope, _, _, Pr) :- weight(Scope, default_event_p, Pr).

% An event is about the attended goal when it names the goal, a belief or a source it uses.
event_related_(Ctx, Target) :-
    Ctx = ctx(Scope, Attended, _, _),
    (   Target == Attended
    ->  true
    ;   attended_claims_(Ctx, Claims),
        (   belief_claim(Scope, Target, T, S), memberchk((T-S)-_, Claims)
        ->  true
        ;   source_claim_type(Scope, Target, T), memberchk((T-_)-_, Claims)
        )
    ).


                 /*******************************
                 *            FLOORS            *
                 *******************************/

% Lexicographic floors (seed §11.2) bypass ordinary ranking: governance, not preference. Each
% fires only on the most authoritative source of the claim, so one inspection clears it.
floor_(Ctx, Source, Claim, GoalIds, Floor) :-
    Ctx = ctx(Scope, Attended, Now, Closures),
    Claim = T-_,
    (   floor_reason_(Scope, Attended, Now, Closures, Source, Claim, GoalIds, Reason),
        top_source_(Scope, T, Source)
    ->  Floor = Reason
    ;   Floor = false
    ).

floor_reason_(Scope, _, Now, _, _, Claim, GoalIds, safety_critical_invariant) :-
    member(G, GoalIds),
    goal_flag(Scope, G, safety_critical),
    stale_evidence_(Scope, Claim, Now).
floor_reason_(Scope, Attended, Now, _, _, Claim, GoalIds, irreversible_stale_evidence) :-
    memberchk(Attended, GoalIds),
    goal_flag(Scope, Attended, irreversible),
    stale_evidence_(Scope, Claim, Now).
floor_reason_(Scope, Attended, Now, _, Source, Claim, GoalIds, mandatory_proof) :-
    memberchk(Attended, GoalIds),
    Claim = T-S,
    mandatory_proof(T),
    claim_policy(T, Requirements),
    memberchk(fresh_authoritative_evidence(MaxAge, MinA), Requirements),
    source_rank(Scope, Source, _, A, _),
    A >= MinA,
    \+ ( claim_beliefs(Scope, T, S, Live),
         member(B, Live),
         \+ belief_dirty(Scope, B, _),
         belief_origin(Scope, B, O),
         source_rank(Scope, O, _, OA, _), OA >= MinA,
         belief_observed(Scope, B, _, At, _),
         Now - At =< MaxAge ).

% No clean belief on the claim is fresh enough to act on irreversibly.
stale_evidence_(Scope, T-S, Now) :-
    weight(Scope, stale_threshold, Threshold),
    claim_beliefs(Scope, T, S, Live),
    \+ ( member(B, Live),
         \+ belief_dirty(Scope, B, _),
         belief_p_stale(Scope, B, Now, P),
         P < Threshold ).
