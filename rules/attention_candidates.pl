:- module(atc_attention_candidates,
          [ generator/1,                  % ?Generator
            attention_generate/5,         % +Scope, +Goal, +Generator, +Now, -Proposals
            attention_scores/5,           % +Scope, +Goal, +Now, +Budget, -Scores
            goal_claims/4,                % +Scope, +Goal, +Now, -ClaimRelevances
            goal_rule_decision/3,         % +Scope, +Goal, -Option
            deadline_pressure/4,          % +Scope, +Goal, +Now, -Pressure
            claim_p_right/5               % +Scope, +ClaimType-Subject, +Now, -P, -Chance
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(aggregate)).
:- use_module(tms).
:- use_module(attention_checks).
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

attention_scores/5 merges and scores them (seed §3.3, §8, §11.1) by the expected value of the
inspection: the probability that its reading flips the best action, times what the flip is
worth, net of cost. For a claim whose belief is right with probability p and a reading that is
right with probability q, acting on the reading when they disagree gains stakes * (q - p) in
expectation, so

    p                    = P(belief right) (claim_p_right/5: confidence decayed by staleness,
                           a changed yes/no fact still right by chance, dirt and
                           contradictions counted)
    q                    = A + (1 - A) * chance, A the source's authority (atc_tms:reading_accuracy/3)
    novelty              = 1 for a source not read yet; P(state changed since) for one already
                           read (its errors would repeat), 1 again once the claim went dirty
    P(decision changes)  = relevance * novelty * P(reading and belief disagree), 0 unless q > p
    predicted_voc        = relevance * novelty * max(0, q - p) * stakes
    net_voc              = predicted_voc - λ cost - μ switch cost
    plan_voc             = net_voc + expected net value of the best read after it (plan_/4)

A reading less reliable than the belief is worth nothing (q =< p): it could not change the
decision. When the goal spells its decision out as a rule over yes/no beliefs, relevance is
the probability that the claim decides the option, and the value of a read on it is computed
exactly under the rule (rule_read_value_/7). Stakes are the goal's loss if wrong (`other_goal_weight` of it for another goal whose
deadline is near); a deadline raises a candidate's urgency, by which attention.pl orders
independent worthwhile reads, never its value. Relevance is 1 for a claim a goal depends on directly
and `support_decay` per justification hop beyond. Events are scored from trusted metadata
only: the priority a trusted source attached, a fixed low probability otherwise; their text is
never read. Lexicographic floors (§11.2) are computed here too, and never force an inspection
that could not pay for itself even if it settled the claim (relevance * stakes * P(belief
wrong) below its weighted cost) except mandatory proof for an irreversible or safety-critical
goal; ordering, aging, quotas and stopping are attention.pl's.

Ablations switch one component off through scope weights: `staleness_weight` 0 (no hazard is
seen), `authority_weight` 0 (every source counts as fully authoritative), `switch_weight` 0.
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
    findall(G-Claims, ( goal(Scope, G), goal_claims(Scope, G, Now, Claims) ), Closures).

%!  goal_claims(+Scope, +Goal, +Now, -ClaimRelevances:list(pair)) is det.
%
%   ClaimRelevances pairs each claim (ClaimType-Subject) Goal's decision depends on with its
%   relevance at Now: for a dependency's own claim, the probability that its value decides the
%   goal (1 without a rule; with one, given what is believed about the other dependencies),
%   times `support_decay` for each justification hop to a belief that supports it. Sorted by
%   claim.

goal_claims(Scope, Goal, Now, ClaimRels) :-
    weight(Scope, support_decay, Decay),
    findall(B-Rel, ( goal_dependency(Scope, Goal, B0), belief_current(Scope, B0, B),
                     dependency_relevance_(Scope, Goal, B0, Now, Rel) ), Q0),
    closure_(Q0, Scope, Decay, [], [], Pairs),
    msort(Pairs, Sorted),
    group_pairs_by_key(Sorted, Grouped),
    maplist(max_relevance_, Grouped, ClaimRels).

% A dependency matters to a rule only where flipping its value changes the option: its
% relevance is the probability of such an assignment of the other dependencies, weighted by
% how likely each of their values is (the belief right or wrong). Rules over more than a dozen
% beliefs are not enumerated (2^n assignments): every dependency then counts fully.
dependency_relevance_(Scope, Goal, B0, Now, Rel) :-
    dependency_relevance_(Scope, Goal, B0, Now, [], Rel).

% Overrides: Belief-P(true) pairs that replace what is believed (the lookahead's outcomes).
dependency_relevance_(Scope, Goal, B0, Now, Overrides, Rel) :-
    (   goal_rule(Scope, Goal, Cases),
        enumerable_dependencies_(Scope, Goal, Deps),
        selectchk(B0, Deps, Others)
    ->  maplist(dependency_p_true_(Scope, Now, Overrides), Others, Ps),
        pairs_keys_values(Weighted, Others, Ps),
        aggregate_all(sum(W), ( assignment_(Weighted, Assignment, W),
                                W > 0,
                                rule_option_(Cases, [B0-true|Assignment], O1),
                                rule_option_(Cases, [B0-false|Assignment], O2),
                                O1 \== O2 ), Rel0),
        Rel is min(1.0, Rel0)
    ;   Rel = 1.0
    ).

% A rule's dependencies, sorted, when there are few enough to enumerate their assignments.
enumerable_dependencies_(Scope, Goal, Deps) :-
    findall(D, goal_dependency(Scope, Goal, D), Deps0),
    sort(Deps0, Deps),
    length(Deps, N),
    N =< 12.

assignment_([], [], 1.0).
assignment_([B-P|Rest], [B-V|Assignment], W) :-
    assignment_(Rest, Assignment, W0),
    (   V = true, W is W0 * P
    ;   V = false, W is W0 * (1 - P)
    ).

% The option of the first case whose conditions all hold (none when no case does).
rule_option_(Cases, Assignment, Option) :-
    (   member(case(Pairs, O), Cases),
        forall(member(Pair, Pairs), memberchk(Pair, Assignment))
    ->  Option = O
    ;   Option = none
    ).

% P(the dependency is true): its belief's value, right with claim_p_right/5. A value that is
% not yes/no says nothing a rule can use.
dependency_p_true_(_, _, Overrides, B0, P) :-
    memberchk(B0-P0, Overrides), !,
    P = P0.
dependency_p_true_(Scope, Now, _, B0, P) :-
    belief_current(Scope, B0, B),
    once(belief_claim(Scope, B, T, S)),
    once(belief_value(Scope, B, V)),
    claim_p_right(Scope, T-S, Now, Right, _),
    (   ( V == true ; V == "true" )
    ->  P = Right
    ;   ( V == false ; V == "false" )
    ->  P is 1 - Right
    ;   P = 0.5
    ).

%!  goal_rule_decision(+Scope, +Goal, -Option) is semidet.
%
%   Option is what Goal's rule chooses for the values currently believed (each dependency's
%   current belief taken at its word). Fails when Goal has no rule, a dependency's value is not
%   yes/no, or no case matches.

goal_rule_decision(Scope, Goal, Option) :-
    goal_rule(Scope, Goal, Cases),
    findall(B0-V, ( goal_dependency(Scope, Goal, B0), belief_current(Scope, B0, B),
                    once(belief_value(Scope, B, V0)), yes_no_atom_(V0, V) ), Assignment),
    aggregate_all(count, goal_dependency(Scope, Goal, _), N),
    length(Assignment, N),
    rule_option_(Cases, Assignment, Option),
    Option \== none.

yes_no_atom_(V, true) :- ( V == true ; V == "true" ), !.
yes_no_atom_(V, false) :- ( V == false ; V == "false" ).

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
    weighted_p_stale_(Scope, B, Now, P),
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
    claim_source_(Scope, Claim, Source),    % still answers it (it may be re-registered)
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

% The most authoritative source registered for a claim type (ties by name), as authority is
% weighted in the scope.
top_source_(Scope, T, Source) :-
    findall(NegA-S, ( source_rank(Scope, S, T, A0, _),
                      weighted_authority_(Scope, A0, A),
                      NegA is -A ), Pairs),
    msort(Pairs, [_-Source|_]).


                 /*******************************
                 *           SCORING            *
                 *******************************/

%!  attention_scores(+Scope, +Goal, +Now, +Budget, -Scores:list(dict)) is det.
%
%   Run every generator, merge proposals by key and score each merged candidate. A score is a
%   dict with the seed's §8 fields (less the candidate id and times, which attention.pl adds)
%   plus `key`, `triggers` and `origin` (the event source for event candidates, `controller`
%   otherwise), and the value of the best two-read plan that starts with it (`follow_up`,
%   `plan_voc`: see plan_/4) when Budget leaves room for a second read and the scope's
%   `lookahead` weight is on (the caller sees each outcome before it asks again).

attention_scores(Scope, Goal, Now, Budget, Scores) :-
    context_(Scope, Goal, Now, Ctx),
    findall(Key-p(Trigger, Goals, Evs),
            ( generator(G), propose(G, Ctx, proposal(Trigger, Key, Goals, Evs)) ), Pairs0),
    msort(Pairs0, Pairs),
    group_pairs_by_key(Pairs, Grouped),
    maplist(score_(Ctx), Grouped, Scores0),
    weight(Scope, lookahead, Lookahead),
    (   Budget >= 2, Lookahead > 0
    ->  maplist(plan_(Ctx, Scores0), Scores0, Scores)
    ;   maplist(plan_alone_, Scores0, Scores)
    ).

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
    once(source_rank(Scope, Source, T, Registered, Cost)),
    weighted_authority_(Scope, Registered, A),
    claim_beliefs(Scope, T, S, Live),
    claim_p_right(Scope, T-S, Now, P, Chance),
    Q is A + (1 - A) * Chance,
    novelty_(Scope, Source, T-S, Live, Now, Novelty),
    findall(G, ( member(G-Claims, Closures), memberchk((T-S)-_, Claims) ), Gs1),
    append(Goals0, Gs1, Gs2),
    sort(Gs2, GoalIds),
    best_goal_(Ctx, T-S, GoalIds, Triggers, best(BestGoal, Rel, Stakes, Loss)),
    read_value_(Ctx, BestGoal, T-S, [], P, Chance, Q, Rel, Dependency, Value, PFlip),
    PChange is Novelty * PFlip,
    Predicted0 is Novelty * Value * Stakes,
    (   Triggers == [exploration]
    ->  weight(Scope, exploration_value, EV),
        Predicted is max(Predicted0, EV * A)
    ;   Predicted = Predicted0
    ),
    source_switch_cost(Scope, Source, SourceSwitch),
    (   ( BestGoal == Attended ; BestGoal == claim ; BestGoal == none )
    ->  Switch = SourceSwitch
    ;   weight(Scope, switch_cost_other, Other),
        Switch is SourceSwitch + Other
    ),
    net_(Scope, Predicted, Cost, Switch, Net, Price),
    Worth is Rel * Stakes * (1 - P),
    urgency_(Scope, BestGoal, Now, Urgency),
    evidence_age_(Scope, Live, Now, Age),
    claim_volatility_(Scope, T, Live, Class),
    goal_deadline_s_(Scope, BestGoal, Now, DeadlineS),
    floor_(Ctx, Source, T-S, GoalIds, Worth, Price, Floor),
    PWrong is 1 - P,
    subject_text(S, Subject),
    Score = _{ origin: controller, goal_ids: GoalIds, claim_ids: Live,
               claim_type: T, subject: Subject, best_goal: BestGoal,
               goal_relevance: Rel, p_belief_wrong: PWrong, reading_accuracy: Q,
               novelty: Novelty, p_decision_changes: PChange, loss_if_wrong: Loss,
               stakes: Stakes, urgency: Urgency, authority: A, evidence_age_s: Age,
               volatility: Class, deadline_s: DeadlineS, cost: Cost, switch_cost: Switch,
               predicted_voc: Predicted, net_voc: Net, floor: Floor, events: [],
               lookahead: la(T-S, P, Chance, Q, Novelty, Rel, Stakes, Price, BestGoal,
                             Dependency) }.
score_key_(key(Kind, Target, from(Origin)), Ctx, _, _, Evs, Score) :-
    memberchk(Kind, [handle_interruption, diagnose_failure]),
    Ctx = ctx(Scope, Attended, Now, _),
    event_probability_(Scope, Kind, Evs, P),
    (   event_related_(Ctx, Target)
    ->  once(goal_stakes(Scope, Attended, Loss)),
        Stakes = Loss,
        Rel = 1.0, Switch0 = 0, GoalIds = [Attended], BestGoal = Attended
    ;   weight(Scope, event_loss, Stakes),
        Loss = Stakes, Rel = 0.0, GoalIds = [], BestGoal = none,
        weight(Scope, switch_cost_other, Switch0)
    ),
    (   catch(source_cost(Scope, Origin, Cost), error(existence_error(_, _), _), fail)
    ->  source_switch_cost(Scope, Origin, SourceSwitch)
    ;   Cost = 1.0, SourceSwitch = 0.0
    ),
    Switch is Switch0 + SourceSwitch,
    (   catch(source_authority(Scope, Origin, A), error(existence_error(_, _), _), fail),
        source_trusted(Scope, Origin)
    ->  true
    ;   A = null
    ),
    Predicted is P * Stakes,
    net_(Scope, Predicted, Cost, Switch, Net, _),
    urgency_(Scope, BestGoal, Now, Urgency),
    aggregate_all(max(At), ( member(E, Evs), event(Scope, E, _, _, _, _, At) ), Latest),
    Age is max(0, Now - Latest),
    goal_deadline_s_(Scope, BestGoal, Now, DeadlineS),
    Score = _{ origin: Origin, goal_ids: GoalIds, claim_ids: [], claim_type: null,
               subject: null, best_goal: BestGoal, goal_relevance: Rel,
               p_belief_wrong: null, reading_accuracy: null, novelty: 1.0,
               p_decision_changes: P, loss_if_wrong: Loss, stakes: Stakes, urgency: Urgency,
               authority: A, evidence_age_s: Age, volatility: null,
               deadline_s: DeadlineS, cost: Cost, switch_cost: Switch,
               predicted_voc: Predicted, net_voc: Net, floor: false, events: Evs,
               lookahead: none }.

% The value of a read per unit of stakes, and the probability that it changes the decision.
%
% On a yes/no dependency of a goal with a rule, both are exact under the rule: the expected
% probability of choosing the right option after the reading, less before, over every
% assignment of the rule's dependencies (rule_read_value_/7; Dependency names the belief read).
% Otherwise, for a claim believed right with P and a reading right with Q, acting on the
% reading when they disagree gains Rel * max(0, Q - P), and the decision changes when they
% disagree (Dependency is none).
read_value_(ctx(Scope, _, Now, _), Goal, Claim, Overrides, P, Chance, Q, Rel, Dependency,
            Value, PFlip) :-
    (   Chance > 0,
        atom(Goal),
        goal_rule(Scope, Goal, _),
        dependency_claim_(Scope, Goal, B0, Claim),
        rule_read_value_(Scope, Goal, Now, Overrides, B0, Q, Value0-PFlip0)
    ->  Dependency = B0, Value = Value0, PFlip = PFlip0
    ;   Dependency = none,
        Gain is max(0.0, Q - P),
        (   Gain > 0
        ->  p_disagree_(P, Q, Chance, PDisagree)
        ;   PDisagree = 0.0
        ),
        Value is Rel * Gain,
        PFlip is Rel * PDisagree
    ).

% The reading and the belief disagree when exactly one of them is right, or when both are
% wrong in different ways (always for an open-ended value; never for a yes/no one, whose only
% wrong value is shared). Only called when the reading is the more accurate (Q > P), so a
% disagreement flips the decision.
p_disagree_(P, Q, Chance, PDisagree) :-
    Coincide is Chance / (1 - Chance),
    PDisagree is P * (1 - Q) + (1 - P) * (1 - (1 - Q) * Coincide).

% Reading dependency B0 of Goal's rule with accuracy Q: Value is the gain in the probability
% of choosing the right option (the best option after each possible reading, against the best
% now), PFlip the probability that the best option changes. Fails for rules over more than a
% dozen dependencies, or when a dependency is not yes/no.
rule_read_value_(Scope, Goal, Now, Overrides, B0, Q, Value-PFlip) :-
    goal_rule(Scope, Goal, Cases),
    enumerable_dependencies_(Scope, Goal, Deps),
    maplist(yes_no_dependency_(Scope), Deps),
    maplist(dependency_p_true_(Scope, Now, Overrides), Deps, Ps),
    pairs_keys_values(Weighted, Deps, Ps),
    findall(s(W, Option, Truth),
            ( assignment_(Weighted, Assignment, W),
              rule_option_(Cases, Assignment, Option),
              memberchk(B0-Truth, Assignment) ), States),
    best_option_(States, 1.0, 1.0, Best0, Right0),
    Miss is 1 - Q,
    best_option_(States, Q, Miss, BestTrue, RightTrue),        % the reading says true
    best_option_(States, Miss, Q, BestFalse, RightFalse),      % ... says false
    Value is max(0.0, RightTrue + RightFalse - Right0),
    aggregate_all(sum(W), ( member(s(W, _, true), States) ), PTrue),
    PSaysTrue is PTrue * Q + (1 - PTrue) * Miss,
    PSaysFalse is 1 - PSaysTrue,
    (   BestTrue == Best0 -> FlipT = 0.0 ; FlipT = PSaysTrue ),
    (   BestFalse == Best0 -> FlipF = 0.0 ; FlipF = PSaysFalse ),
    PFlip is FlipT + FlipF.

yes_no_dependency_(Scope, B0) :-
    belief_current(Scope, B0, B),
    once(belief_value(Scope, B, V)),
    yes_no_atom_(V, _).

% The option with the largest weight of right states, each state weighted by the likelihood of
% the reading (LikTrue when the read dependency is true, LikFalse when false); Right is that
% weight (unnormalised: summed over readings it gives P(right)). Ties go to the option first in
% standard order, so the choice is stable.
best_option_(States, LikTrue, LikFalse, Best, Right) :-
    findall(Option-W, ( member(s(W0, Option, Truth), States),
                        Option \== none,
                        (   Truth == true -> W is W0 * LikTrue ; W is W0 * LikFalse ) ),
            Pairs0),
    msort(Pairs0, Pairs),
    group_pairs_by_key(Pairs, Grouped),
    findall(NegR-O, ( member(O-Ws, Grouped), sum_list(Ws, R), NegR is -R ), Scored),
    (   msort(Scored, [NegRight-Best|_])
    ->  Right is -NegRight
    ;   Best = none, Right = 0.0
    ).

% A source this scope has read before can only add what changed since: asked again, it repeats
% its reading, errors included, so re-reading it is worth P(the state changed since that
% reading) of a first read, and a full first read again once a belief on the claim went dirty
% after it. (A belief's own origin is different: its reading was taken elsewhere, and its
% confidence already says how far to trust it.)
novelty_(Scope, Source, T-S, Live, Now, Novelty) :-
    (   aggregate_all(max(At), inspection(Scope, _, Source, T, S, _, At, true), Last)
    ->  (   member(B, Live), belief_dirtied_at(Scope, B, _, DirtAt), DirtAt >= Last
        ->  Novelty = 1.0
        ;   claim_volatility_(Scope, T, Live, Class),
            (   Class == null -> Lambda = 0.0 ; volatility_hazard(Class, Lambda) ),
            weight(Scope, staleness_weight, W),
            Age is max(0, Now - Last),
            Novelty is 1 - exp(-W * Lambda * Age)
        )
    ;   Novelty = 1.0
    ).

net_(Scope, Predicted, Cost, Switch, Net, Price) :-
    weight(Scope, cost_weight, Lambda),
    weight(Scope, switch_weight, Mu),
    Price is Lambda * Cost + Mu * Switch,
    Net is Predicted - Price.

% How much source authority counts (the `authority_weight` ablation): A as 1 - w(1 - A).
weighted_authority_(Scope, Registered, A) :-
    weight(Scope, authority_weight, W),
    A is max(0.0, min(1.0, 1 - W * (1 - Registered))).

% The goal through which inspecting the claim is worth most. The attended goal counts fully,
% another goal only while its deadline is near (at other_goal_weight). A drafted or blocked
% claim that no goal's decision hangs on counts as work in hand with the stakes of an
% unattached event; on a goal's claim it is worth what the goal's decision is worth.
best_goal_(ctx(Scope, Attended, Now, Closures), Claim, GoalIds, Triggers, Best) :-
    findall(V-best(G, Rel, Stakes, Loss),
            ( member(G, GoalIds),
              member(G-Claims, Closures),
              memberchk(Claim-Rel, Claims),
              goal_weight_(Scope, Attended, G, Now, W),
              goal_stakes(Scope, G, Loss),
              Stakes is Loss * W,
              V is Rel * Stakes ), Options),
    (   max_member(V0-Best0, Options), V0 > 0
    ->  Best = Best0
    ;   ( memberchk(state_sensitive_claim, Triggers) ; memberchk(validator_forced, Triggers) )
    ->  weight(Scope, event_loss, ClaimStakes),
        Best = best(claim, 1.0, ClaimStakes, ClaimStakes)
    ;   max_member(_-Best0, Options)
    ->  Best = Best0
    ;   Best = best(none, 0.0, 0.0, 0.0)
    ).

goal_weight_(_, Attended, Attended, _, 1.0) :- !.
goal_weight_(Scope, _, G, Now, W) :-
    (   goal_deadline(Scope, G, Deadline),
        weight(Scope, deadline_horizon_s, Horizon),
        Deadline - Now =< Horizon
    ->  weight(Scope, other_goal_weight, W)
    ;   W = 0.0
    ).

% Urgency orders worthwhile work (attention.pl breaks ties between plans by net VOC times
% urgency) but never enters the value: a near deadline does not make a wrong decision cost
% more.
urgency_(Scope, Goal, Now, Urgency) :-
    (   atom(Goal), goal(Scope, Goal)
    ->  deadline_pressure(Scope, Goal, Now, Urgency)
    ;   Urgency = 1.0
    ).

%!  deadline_pressure(+Scope, +Goal, +Now, -Pressure) is det.
%
%   1 without a deadline or while it is beyond the horizon, rising linearly to
%   1 + `deadline_boost` at the deadline (and staying there once it has passed). It is the
%   urgency by which worthwhile candidates are ordered, not a factor of their value.

deadline_pressure(Scope, Goal, Now, Pressure) :-
    (   goal_deadline(Scope, Goal, Deadline)
    ->  weight(Scope, deadline_horizon_s, Horizon),
        weight(Scope, deadline_boost, Boost),
        Left is Deadline - Now,
        Closeness is max(0, min(1, 1 - Left / max(1, Horizon))),
        Pressure is 1 + Boost * Closeness
    ;   Pressure = 1.0
    ).

%!  claim_p_right(+Scope, +Claim, +Now, -P, -Chance) is det.
%
%   P is the probability that what is believed about Claim (ClaimType-Subject) is right at
%   Now, and Chance the probability that a value carrying no information agrees with it
%   (atc_tms:chance_agreement/2: 1/2 when every live belief is a yes/no value, else 0). For each
%   live belief of confidence C whose state changed with probability D since it was observed
%   (P(stale) with hazards scaled by `staleness_weight`, at least `dirty_p_changed` when dirty),
%
%       P(belief right) = C * (1 - D) + D * Chance
%
%   so a stale yes/no belief is at worst a coin flip. P is the smallest over the live beliefs,
%   at most 1 - `contradiction_p_wrong` while they disagree, and 1 - `unknown_p_wrong` (with
%   Chance 0) when nothing is believed.

claim_p_right(Scope, T-S, Now, P, Chance) :-
    claim_beliefs(Scope, T, S, Live),
    (   Live == []
    ->  weight(Scope, unknown_p_wrong, PW),
        P is 1 - PW,
        Chance = 0.0
    ;   findall(PB-CB, ( member(B, Live), belief_p_right_(Scope, B, Now, PB, CB) ), Pairs),
        pairs_keys_values(Pairs, Ps, Chances),
        min_list(Ps, P0),
        min_list(Chances, Chance),
        (   contradiction(Scope, T, S, _)
        ->  weight(Scope, contradiction_p_wrong, PC),
            P is min(P0, 1 - PC)
        ;   P = P0
        )
    ).

belief_p_right_(Scope, B, Now, P, Chance) :-
    once(belief_observed(Scope, B, Confidence, _, _)),
    once(belief_value(Scope, B, Value)),
    chance_agreement(Value, Chance),
    weighted_p_stale_(Scope, B, Now, Stale),
    (   belief_dirty(Scope, B, _)
    ->  weight(Scope, dirty_p_changed, Dirty),
        Changed is max(Stale, Dirty)
    ;   Changed = Stale
    ),
    P is Confidence * (1 - Changed) + Changed * Chance.

% P(stale) with every hazard scaled by `staleness_weight` (0: staleness ignored).
weighted_p_stale_(Scope, B, Now, P) :-
    belief_p_stale(Scope, B, Now, P0),
    weight(Scope, staleness_weight, W),
    P is 1 - (1 - P0) ** W.

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
                 *   LOOKAHEAD (ONE MORE READ)  *
                 *******************************/

% Ranking reads one at a time by their own value is myopic: a cheap partial source can be worth
% reading first because, should it disagree, the expensive authoritative read becomes worth
% its cost; and under a rule, reading the claim that may settle the decision can make another
% read unnecessary. So each candidate X is valued as the best plan of two reads that starts with
% it (one step of lookahead),
%
%     follow_up(X) = Σ_o P(o) * max(0, max_{Y ≠ X} net_voc(Y | o))
%     plan_voc(X)  = net_voc(X) + follow_up(X)
%
% over X's outcomes o (its reading agrees or disagrees with the belief). A read Y on X's claim is
% revalued against the belief X leaves behind; one on another dependency of the same rule with
% X's dependency at its new P(true); others keep their value (so two independent reads tie, and
% attention.pl orders them by their own value). attention.pl ranks, selects and stops by
% plan_voc: it is never below net_voc, and the best plan is positive only when some read is
% worth making now.
plan_(Ctx, All, X0, X) :-
    get_dict(lookahead, X0, LA),
    best_other_net_(All, X0, Now),
    (   LA = la(Claim, P, Chance, Q, _, _, _, _, _, _)
    ->  claim_value_(Ctx, Claim, Value),
        outcomes_(P, Q, Chance, Value, Outcomes),
        foldl(follow_up_(Ctx, All, X0, Claim), Outcomes, 0.0, FollowUp)
    ;   FollowUp = Now
    ),
    Plan is X0.net_voc + FollowUp,
    X = X0.put(_{follow_up: FollowUp, plan_voc: Plan}).

plan_alone_(X0, X) :-
    X = X0.put(_{follow_up: 0.0, plan_voc: X0.net_voc}).

best_other_net_(All, X0, Best) :-
    findall(N, ( member(Y, All), Y.key \== X0.key, N = Y.net_voc ), Nets),
    max_list([0.0|Nets], Best).

follow_up_(Ctx, All, X0, Claim, o(W, RightAfter, TrueAfter), Acc0, Acc) :-
    findall(N, ( member(Y, All), Y.key \== X0.key,
                 net_after_(Ctx, Claim, RightAfter, TrueAfter, Y, N) ), Nets),
    max_list([0.0|Nets], Best),
    Acc is Acc0 + W * Best.

% The believed yes/no value of a claim (none for an open-ended or unknown one).
claim_value_(ctx(Scope, _, _, _), T-S, Value) :-
    claim_beliefs(Scope, T, S, Live),
    (   Live = [B|_], once(belief_value(Scope, B, V)), yes_no_atom_(V, Value0)
    ->  Value = Value0
    ;   Value = none
    ).

% The reading agrees or disagrees with the belief; after each, the agent holds the likelier
% value, right with probability Right; True is then P(claim true) for a yes/no claim (none for
% an open-ended one).
outcomes_(P, Q, Chance, Value, Outcomes) :-
    Coincide is Chance / (1 - Chance),
    PDisagree is P * (1 - Q) + (1 - P) * (1 - (1 - Q) * Coincide),
    PAgree is 1 - PDisagree,
    findall(o(W, Right, True),
            (   (   PAgree > 0,
                    W = PAgree,
                    BeliefRight is P * Q / PAgree,
                    Right = BeliefRight
                ;   PDisagree > 0,
                    W = PDisagree,
                    BeliefRight is P * (1 - Q) / PDisagree,
                    Right is max(BeliefRight, (1 - P) * Q / PDisagree)
                ),
                p_true_of_(Value, BeliefRight, True)
            ),
            Outcomes).

p_true_of_(none, _, none).
p_true_of_(true, BeliefRight, BeliefRight).
p_true_of_(false, BeliefRight, True) :-
    True is 1 - BeliefRight.

% Y's net value once X's outcome is known: a rule-valued read is revalued under the rule with
% X's dependency at its new P(true); a read on X's claim against the belief X leaves behind;
% one on another claim of a rule by the relevance X's outcome leaves it; others keep their
% value.
net_after_(Ctx, Claim, RightAfter, TrueAfter, Y, Net) :-
    Ctx = ctx(Scope, _, Now, _),
    get_dict(lookahead, Y, LA),
    (   LA = la(YClaim, PY, _, QY, NovY, RelY, StakesY, PriceY, GoalY, DepY)
    ->  (   DepY \== none, TrueAfter \== none,
            dependency_claim_(Scope, GoalY, BX, Claim),
            rule_read_value_(Scope, GoalY, Now, [BX-TrueAfter], DepY, QY, Value-_)
        ->  Net is NovY * Value * StakesY - PriceY
        ;   YClaim == Claim
        ->  Net is RelY * NovY * max(0.0, QY - RightAfter) * StakesY - PriceY
        ;   TrueAfter \== none,
            rule_dependencies_(Scope, GoalY, YClaim, Claim, BY, BX)
        ->  dependency_relevance_(Scope, GoalY, BY, Now, [BX-TrueAfter], RelAfter),
            Net is RelAfter * NovY * max(0.0, QY - PY) * StakesY - PriceY
        ;   Net = Y.net_voc
        )
    ;   Net = Y.net_voc
    ).

% YClaim and XClaim are the claims of two dependencies BY, BX of Goal's rule.
rule_dependencies_(Scope, Goal, YClaim, XClaim, BY, BX) :-
    atom(Goal),
    goal_rule(Scope, Goal, _),
    dependency_claim_(Scope, Goal, BY, YClaim),
    dependency_claim_(Scope, Goal, BX, XClaim),
    BX \== BY, !.

dependency_claim_(Scope, Goal, B0, T-S) :-
    goal_dependency(Scope, Goal, B0),
    belief_current(Scope, B0, B),
    once(belief_claim(Scope, B, T, S)).


                 /*******************************
                 *            FLOORS            *
                 *******************************/

% Lexicographic floors (seed §11.2) bypass ordinary ranking: governance, not preference. Each
% fires only on the most authoritative source of the claim, so one inspection clears it.
floor_(Ctx, Source, Claim, GoalIds, Worth, Price, Floor) :-
    Ctx = ctx(Scope, Attended, Now, Closures),
    Claim = T-_,
    (   floor_reason_(Scope, Attended, Now, Closures, Source, Claim, GoalIds, Reason),
        floor_affordable_(Scope, Attended, Reason, Worth, Price),
        top_source_(Scope, T, Source)
    ->  Floor = Reason
    ;   Floor = false
    ).

% A floor overrides the VOC estimate, not arithmetic: it values the inspection as if it settled
% the claim for certain (relevance * stakes * P(belief wrong): the loss it can avert at most),
% and never forces one that could not pay for itself even then. The one exception is mandatory
% proof for a consequential action (an irreversible or safety-critical goal), where the evidence
% rule outranks its price.
floor_affordable_(_, _, _, Worth, Price) :-
    Worth >= Price, !.
floor_affordable_(Scope, Attended, mandatory_proof, _, _) :-
    consequential_(Scope, Attended).

consequential_(Scope, Goal) :-
    (   goal_flag(Scope, Goal, irreversible)
    ->  true
    ;   goal_flag(Scope, Goal, safety_critical)
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
         weighted_p_stale_(Scope, B, Now, P),
         P < Threshold ).
