:- module(atc_attention,
          [ attention_attend/6,           % +Scope, +Goal, +Budget, +Now, +Current, -Result
            attention_inspect/7,          % +Scope, +Candidate, +Value, +Now, +Succeeded, +Cost, -Outcome
            attention_decision/3,         % +Scope, +Goal, -Decision
            attention_candidate/3,        % +Scope, +Candidate, -Info
            attention_drop/1,             % +Scope
            attention_max_budget/1        % -Inspections
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(aggregate)).
:- use_module(library(ordsets)).
:- use_module(attention_store).
:- use_module(attention_checks).
:- use_module(tms).
:- use_module(validator).
:- use_module(trace).
:- use_module(attention_state).
:- use_module(attention_candidates).

/** <module> The value-of-computation attention controller

Attention decides which available computation gets the next unit of effort (seed §1). One turn
of the loop of seed §32:

    generate candidates -> estimate net VOC -> select under budget -> inspect -> update beliefs
    -> recompute -> stop when further computation is not worth its cost

is attention_attend/6 (generate, rank, select or stop) followed, when it selects, by
attention_inspect/7 (record what the inspection returned, update beliefs, dirty dependants,
resolve the trace). Candidates are generated and scored by attention_candidates.pl; this module
keeps the candidate table and applies the selection policy of seed §11:

  1. **Floors** (§11.2): a candidate carrying a lexicographic floor (safety-critical invariant,
     irreversible action on stale evidence, mandatory-proof claim type) is inspected before the
     controller stops, whatever its net VOC, and preempts the current computation: it goes first
     once nothing else is worth its cost or the budget left no longer covers more than the
     floors; until then a more valuable read may go first (and may make the floor moot).
  2. **Ranking**: by plan VOC (net VOC plus the expected value of the best read after it, once
     its outcome is known: attention_candidates.pl) plus a bounded **aging** bonus (§11.5) that
     grows while a useful candidate waits (at most `aging_cap`, never for a candidate worth
     nothing: one whose own read cannot change the decision, whatever the read after it is
     worth). Plans that tie (two independent reads: each plan holds both) go to the higher
     net VOC times **urgency** (deadline pressure: up to 1 + `deadline_boost` as the deadline
     nears), so urgency orders worthwhile work but never makes a read worth buying.
  3. **Quotas** (§24): one event source holds at most `source_quota` eligible candidates;
     exploration stays within `exploration_share` of all selections; the ranking keeps at most
     `max_ranked` candidates and counts the rest as dropped.
  4. **Stopping** (§11.3): with no floor and best net VOC <= 0, stop and act; with no budget
     left, stop.
  5. **Hysteresis** (§11.4): when the caller is already working on a candidate, switch to a
     better one only if VOC(B) > VOC(A) + SwitchCost(A -> B) + δ.

A saturation alarm fires when at least `saturation_share` of the ranked candidates have
P(decision changes) at or above `saturation_level` (priority inflation, §25).

Every selection is traced before its outcome (`candidate_selected` with predicted VOC, rank,
budget before and a reason code) and resolved by the inspection (`resolved`).

Worked example (seed §30; the test suite runs it through the CLI):

    ?- attention_attend(s, deploy, 3, T, null, R), R.chosen.target == registry.
*/

:- dynamic
    candidate_/5,        % candidate_(Scope, Id, Key, Trigger, CreatedAt)
    candidate_closed_/4, % candidate_closed_(Scope, Id, Status, At): resolved | expired
    selection_/8,        % selection_(Scope, Id, Turn, Goal, At, PredictedVoc, NetVoc, Rank)
    turn_/5,             % turn_(Scope, Turn, Goal, At, Budget)
    inspected_/3.        % inspected_(Scope, Id, InspectionId)

% Journalled by the store (rules/store.pl); `bench-*` scopes never reach the journal.
:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_attention:candidate_/5).
atc_store:durable_predicate(atc_attention:candidate_closed_/4).
atc_store:durable_predicate(atc_attention:selection_/8).
atc_store:durable_predicate(atc_attention:turn_/5).
atc_store:durable_predicate(atc_attention:inspected_/3).


                 /*******************************
                 *            ATTEND            *
                 *******************************/

%!  attention_max_budget(-Inspections:integer) is det.
%
%   The largest budget attention_attend/6 takes; the CLI asks for it too (it checks a budget
%   before setting a goal, and a copy of the number there drifted from this one).

attention_max_budget(10000).

:- multifile prolog:error_message//1.
prolog:error_message(domain_error(budget, Budget)) -->
    { attention_max_budget(Max), integer(Budget), Budget > Max },
    [ 'a budget is 0 to ~d inspections, not ~w'-[Max, Budget] ].
prolog:error_message(permission_error(inspect, closed_candidate, Id-Status)) -->
    { closed_why_(Status, Why) },
    [ 'candidate ~w is closed (~w): ~w; atc attend proposes fresh ones'-[Id, Status, Why] ].

closed_why_(resolved, 'it was already carried out') :- !.
closed_why_(expired, 'a later attend no longer proposed it') :- !.
closed_why_(_, 'it can no longer be carried out').

%!  attention_attend(+Scope, +Goal, +Budget, +Now, +Current, -Result:dict) is det.
%
%   One attention turn for Goal with Budget inspections left, at Now. Current is the id of the
%   candidate being worked on (for hysteresis) or null. Result is
%   `_{turn_id, ranked, decision, chosen, reason, saturation_alarm, goal_decision, dropped}`:
%   `decision` is `inspect` or `stop`, `chosen` the selected candidate dict or null, `reason` a
%   reason code (`highest_net_voc`, `continue_current`, `hysteresis_keep_current`,
%   `floor_safety_critical_invariant`, `floor_irreversible_stale_evidence`,
%   `floor_mandatory_proof`, `exploration`, `negative_voc`, `budget_exhausted`,
%   `no_candidates`).
%   @error existence_error(goal, Goal), existence_error(candidate, Current)
%   @error type_error(nonneg, Budget), domain_error(budget, Budget) above
%   attention_max_budget/1

attention_attend(Scope0, Goal0, Budget, Now, Current0, Result) :-
    scope_atom(Scope0, Scope),
    text_atom(Goal0, Goal),
    (   goal(Scope, Goal) -> true ; existence_error(goal, Goal) ),
    must_be(nonneg, Budget),
    attention_max_budget(Max),
    (   Budget =< Max -> true ; domain_error(budget, Budget) ),
    must_be_time(Now),
    current_(Scope, Current0, Current),
    attention_scores(Scope, Goal, Now, Budget, Scores),
    next_id(Scope, atc_attention:turn_taken_(Scope), turn, Turn),
    scoped_assert(atc_attention:turn_(Scope, Turn, Goal, Now, Budget)),
    expire_unproposed_(Scope, Goal, Turn, Scores, Now),
    maplist(materialize_(Scope, Goal, Turn, Now), Scores, Cands0),
    order_(Cands0, Cands1),
    eligibility_(Scope, Cands1, Cands2),
    floors_in_time_(Budget, Cands2, Cands2F),
    order_final_(Cands2F, Cands3),
    weight(Scope, max_ranked, MaxRanked),
    bound_(Cands3, MaxRanked, Ranked0, Dropped),
    numbered_(Ranked0, 1, Ranked),
    (   Dropped > 0
    ->  trace_record(Scope, candidate_skipped, Now,
                     [goal_id-Goal, turn_id-Turn, reason-queue_bound, count-Dropped])
    ;   true
    ),
    saturation_(Scope, Goal, Turn, Now, Ranked, Alarm),
    include(eligible_, Ranked, Eligible),
    decide_(Scope, Goal, Turn, Budget, Now, Current, Eligible, Decision, Chosen, Reason),
    attention_decision(Scope, Goal, GoalDecision),
    maplist(public_candidate_, Ranked, Public),
    (   Chosen == null -> PublicChosen = null ; public_candidate_(Chosen, PublicChosen) ),
    Result = _{turn_id: Turn, ranked: Public, decision: Decision, chosen: PublicChosen,
               reason: Reason, saturation_alarm: Alarm, goal_decision: GoalDecision,
               dropped: Dropped}.

turn_taken_(Scope, Turn) :-
    turn_(Scope, Turn, _, _, _).

current_(_, Current0, none) :-
    optional(Current0, none), !.
current_(Scope, Current0, Current) :-
    text_atom(Current0, Current),
    (   candidate_(Scope, Current, _, _, _)
    ->  true
    ;   existence_error(candidate, Current)
    ).

open_candidate_(Scope, Key, Id, Trigger, Created) :-
    candidate_(Scope, Id, Key, Trigger, Created),
    \+ candidate_closed_(Scope, Id, _, _).

% Give each scored key its open candidate: a new one, the waiting one, or (past its time to
% live) a fresh one after recording the old one's expiry.
materialize_(Scope, Goal, Turn, Now, Score, Cand) :-
    get_dict(key, Score, Key),
    get_dict(trigger, Score, Trigger),
    weight(Scope, candidate_ttl_s, TTL),
    (   open_candidate_(Scope, Key, Id0, Trigger0, Created0)
    ->  (   Created0 + TTL < Now
        ->  expire_(Scope, Goal, Turn, Id0, Score, Now),
            create_(Scope, Goal, Turn, Now, Key, Score, Id, Created)
        ;   Id = Id0, Created = Created0,
            (   Trigger0 == Trigger
            ->  true
            ;   scoped_retract(atc_attention:candidate_(Scope, Id, _, _, _)),
                scoped_assert(atc_attention:candidate_(Scope, Id, Key, Trigger, Created)),
                trace_record(Scope, candidate_updated, Now,
                             [candidate_id-Id, goal_id-Goal, turn_id-Turn,
                              trigger-Trigger, previous_trigger-Trigger0])
            )
        )
    ;   create_(Scope, Goal, Turn, Now, Key, Score, Id, Created)
    ),
    Expires is Created + TTL,
    get_dict(plan_voc, Score, Plan),
    get_dict(predicted_voc, Score, Predicted),
    weight(Scope, aging_rate, Rate),
    weight(Scope, aging_cap, Cap),
    % Only a read that can change something ages: one whose plan is worth something only for
    % the read after it (a summary no better than the belief) outranked, by its bonus, the very
    % read it waits for, and was selected for nothing.
    (   Plan > 0, Predicted > 0
    ->  Aging is min(Cap, Rate * max(0, Now - Created)),
        RankScore is Plan + Aging
    ;   Aging = 0.0,
        RankScore = Plan
    ),
    put_dict(_{candidate_id: Id, created_at: Created, expires_at: Expires,
               aging_bonus: Aging, rank_score: RankScore, eligible: true,
               skip_reason: null}, Score, Cand).

create_(Scope, Goal, Turn, Now, Key, Score, Id, Now) :-
    next_id(Scope, atc_attention:candidate_taken_(Scope), attn, Id),
    get_dict(trigger, Score, Trigger),
    scoped_assert(atc_attention:candidate_(Scope, Id, Key, Trigger, Now)),
    Key = key(Kind, Target, _),
    trace_record(Scope, candidate_created, Now,
                 [candidate_id-Id, goal_id-Goal, turn_id-Turn, kind-Kind, target-Target,
                  trigger-Trigger, triggers-Score.triggers, origin-Score.origin,
                  predicted_voc-Score.predicted_voc]).

candidate_taken_(Scope, Id) :-
    candidate_(Scope, Id, _, _, _).

% A candidate that expires while still worth something was starved.
expire_(Scope, Goal, Turn, Id, Score, Now) :-
    scoped_assert(atc_attention:candidate_closed_(Scope, Id, expired, Now)),
    (   Score \== none, get_dict(plan_voc, Score, Plan), Plan > 0
    ->  Extra = [failure_code-'ATTN_STARVATION']
    ;   Extra = []
    ),
    trace_record(Scope, candidate_expired, Now,
                 [candidate_id-Id, goal_id-Goal, turn_id-Turn|Extra]).

expire_unproposed_(Scope, Goal, Turn, Scores, Now) :-
    weight(Scope, candidate_ttl_s, TTL),
    findall(K, ( member(S, Scores), get_dict(key, S, K) ), Keys0),
    sort(Keys0, Keys),
    forall(( open_candidate_(Scope, Key, Id, _, Created),
             Created + TTL < Now,
             \+ ord_memberchk(Key, Keys) ),
           expire_(Scope, Goal, Turn, Id, none, Now)).

% By rank score, then net VOC times urgency, then id for a stable order. Rank scores within
% 1e-9 tie: two independent reads have the same plan value either way round (each plan holds
% both), so the one worth more on its own, weighted by how soon its goal is due, goes first.
order_(Cands, Ordered) :-
    map_list_to_pairs(order_key_, Cands, Pairs),
    keysort(Pairs, Sorted),
    pairs_values(Sorted, Ordered).

order_key_(C, k(NegScore, NegNet, Id)) :-
    NegScore is -round(C.rank_score * 1.0e9),
    NegNet is -C.net_voc * C.urgency,
    Id = C.candidate_id.

% A floor guarantees an inspection before the decision; it does not make a more valuable read
% wait. Floored candidates go first (by severity, then rank) when nothing else is worth its
% cost or when the budget left no longer covers more than them; otherwise a better read may go
% first, and what it reveals may make the floor moot (it then no longer pays for itself).
floors_in_time_(Budget, Cands, Ordered) :-
    partition(floored_eligible_, Cands, Floors, Rest),
    length(Floors, NFloors),
    (   Floors == []
    ->  Ordered = Cands
    ;   (   \+ ( member(C, Rest), eligible_(C), C.plan_voc > 0 )
        ;   Budget =< NFloors
        )
    ->  map_list_to_pairs(floor_key_, Floors, Pairs),
        keysort(Pairs, Sorted),
        pairs_values(Sorted, Urgent),
        append(Urgent, Rest, Ordered)
    ;   Ordered = Cands
    ).

floored_eligible_(C) :-
    eligible_(C),
    C.floor \== false.

floor_key_(C, k(Sev, NegScore, Id)) :-
    floor_severity_(C.floor, Sev),
    NegScore is -C.rank_score,
    Id = C.candidate_id.

floor_severity_(safety_critical_invariant,   1).
floor_severity_(irreversible_stale_evidence, 2).
floor_severity_(mandatory_proof,             3).

% Ineligible candidates stay visible, after the eligible ones.
order_final_(Cands, Ordered) :-
    partition(eligible_, Cands, Eligible, Ineligible),
    append(Eligible, Ineligible, Ordered).

eligible_(C) :-
    get_dict(eligible, C, true).

% Source quotas and the exploration share, walked in rank order.
eligibility_(Scope, Cands0, Cands) :-
    weight(Scope, source_quota, Quota),
    exploration_allowed_(Scope, ExploreOK),
    foldl(eligible_(Quota, ExploreOK), Cands0, Cands, [], _).

eligible_(Quota, ExploreOK, C0, C, Counts0, Counts) :-
    Origin = C0.origin,
    (   Origin \== controller,
        (   memberchk(Origin-N0, Counts0) -> true ; N0 = 0 ),
        N0 >= Quota
    ->  C = C0.put(_{eligible: false, skip_reason: source_quota}),
        Counts = Counts0
    ;   C0.triggers == [exploration], ExploreOK == false
    ->  C = C0.put(_{eligible: false, skip_reason: exploration_quota}),
        Counts = Counts0
    ;   C = C0,
        (   Origin == controller
        ->  Counts = Counts0
        ;   (   selectchk(Origin-N1, Counts0, Rest) -> true ; N1 = 0, Rest = Counts0 ),
            N2 is N1 + 1,
            Counts = [Origin-N2|Rest]
        )
    ).

% Exploration may take the next selection only while it stays within its share of all
% selections made in the scope so far (the next one included).
exploration_allowed_(Scope, Allowed) :-
    weight(Scope, exploration_share, Share),
    aggregate_all(count, selection_(Scope, _, _, _, _, _, _, _), N),
    aggregate_all(count, ( selection_(Scope, Id, _, _, _, _, _, _),
                           candidate_(Scope, Id, _, exploration, _) ), E),
    (   E + 1 =< Share * (N + 1) -> Allowed = true ; Allowed = false ).

bound_(Cands, Max, Kept, Dropped) :-
    length(Cands, N),
    (   N =< Max
    ->  Kept = Cands, Dropped = 0
    ;   length(Kept, Max),
        append(Kept, _, Cands),
        Dropped is N - Max
    ).

numbered_([], _, []).
numbered_([C0|Cs0], N, [C|Cs]) :-
    C = C0.put(rank, N),
    N1 is N + 1,
    numbered_(Cs0, N1, Cs).

saturation_(Scope, Goal, Turn, Now, Ranked, Alarm) :-
    weight(Scope, saturation_level, Level),
    weight(Scope, saturation_share, Share),
    weight(Scope, saturation_min, Min),
    length(Ranked, N),
    aggregate_all(count, ( member(C, Ranked), C.p_decision_changes >= Level ), High),
    (   N >= Min, High >= Share * N
    ->  Alarm = true,
        Fraction is High / N,
        trace_record(Scope, saturation_alarm, Now,
                     [goal_id-Goal, turn_id-Turn, candidates-N, maximal-High,
                      share-Fraction, failure_code-'ATTN_SALIENCE_CAPTURE'])
    ;   Alarm = false
    ).

% The selection policy: budget, floors, stopping rule, hysteresis.
decide_(Scope, Goal, Turn, Budget, Now, _, Eligible, stop, null, budget_exhausted) :-
    Budget =:= 0, !,
    best_net_(Eligible, Best),
    (   Eligible = [Top|_], ( Top.floor \== false ; Top.plan_voc > 0 )
    ->  Extra = [failure_code-'ATTN_UNDERINSPECTION']
    ;   Extra = []
    ),
    trace_record(Scope, attention_budget_exhausted, Now,
                 [goal_id-Goal, turn_id-Turn, budget_before-0, best_net_voc-Best|Extra]).
decide_(Scope, Goal, Turn, Budget, Now, _, [], stop, null, no_candidates) :- !,
    trace_record(Scope, attention_terminated_negative_voc, Now,
                 [goal_id-Goal, turn_id-Turn, budget_before-Budget, best_net_voc-null,
                  reason-no_candidates]).
decide_(Scope, Goal, Turn, Budget, Now, Current, [Top|Rest], Decision, Chosen, Reason) :-
    (   Top.floor \== false
    ->  atom_concat(floor_, Top.floor, Reason),
        switch_event_(Scope, Goal, Turn, Now, Current, Top, switch_accepted),
        Decision = inspect, Chosen = Top
    ;   Top.plan_voc =< 0
    ->  Decision = stop, Chosen = null, Reason = negative_voc,
        trace_record(Scope, attention_terminated_negative_voc, Now,
                     [goal_id-Goal, turn_id-Turn, budget_before-Budget,
                      best_net_voc-Top.net_voc, best_plan_voc-Top.plan_voc,
                      best_candidate-Top.candidate_id])
    ;   Current \== none,
        member(Cur, [Top|Rest]), Cur.candidate_id == Current
    ->  Decision = inspect,
        (   Cur == Top
        ->  Chosen = Top, Reason = continue_current
        ;   weight(Scope, hysteresis_margin, Delta),
            weight(Scope, cost_weight, Lambda),
            CurrentPlan is Cur.predicted_voc - Lambda * Cur.cost + Cur.follow_up,
            (   Top.plan_voc > CurrentPlan + Delta
            ->  switch_event_(Scope, Goal, Turn, Now, Current, Top, switch_accepted),
                Chosen = Top, reason_(Top, Reason)
            ;   switch_event_(Scope, Goal, Turn, Now, Current, Top, switch_rejected),
                Chosen = Cur, Reason = hysteresis_keep_current
            )
        )
    ;   Decision = inspect, Chosen = Top, reason_(Top, Reason)
    ),
    (   Decision == inspect
    ->  once(nth1(Rank, [Top|Rest], Chosen)),
        select_(Scope, Goal, Turn, Budget, Now, Chosen, Rank, Reason)
    ;   true
    ).

reason_(C, exploration) :- C.triggers == [exploration], !.
reason_(_, highest_net_voc).

best_net_([], null).
best_net_([C|_], C.net_voc).

switch_event_(_, _, _, _, none, _, _) :- !.
switch_event_(_, _, _, _, Current, Top, _) :-
    Top.candidate_id == Current, !.
switch_event_(Scope, Goal, Turn, Now, Current, Top, Verdict) :-
    trace_record(Scope, switch_requested, Now,
                 [goal_id-Goal, turn_id-Turn, from-Current, candidate_id-Top.candidate_id]),
    trace_record(Scope, Verdict, Now,
                 [goal_id-Goal, turn_id-Turn, from-Current, candidate_id-Top.candidate_id]).

% Written before any inspection runs: the prediction is on record before the outcome.
select_(Scope, Goal, Turn, Budget, Now, C, Rank, Reason) :-
    Id = C.candidate_id,
    scoped_assert(atc_attention:selection_(Scope, Id, Turn, Goal, Now, C.predicted_voc,
                                       C.net_voc, Rank)),
    trace_record(Scope, candidate_selected, Now,
                 [candidate_id-Id, goal_id-Goal, turn_id-Turn, kind-C.kind,
                  target-C.target, trigger-C.trigger, predicted_voc-C.predicted_voc,
                  net_voc-C.net_voc, plan_voc-C.plan_voc,
                  p_decision_changes-C.p_decision_changes, rank-Rank,
                  budget_before-Budget, selection_reason_code-Reason, floor-C.floor]).

% What the host sees: no internal key or bookkeeping terms.
public_candidate_(C0, C) :-
    del_dict(key, C0, _, C1a),
    del_dict(lookahead, C1a, _, C1),
    del_dict(best_goal, C1, _, C2),
    (   get_dict(events, C2, _) -> del_dict(events, C2, _, C) ; C = C2 ).


                 /*******************************
                 *           INSPECT            *
                 *******************************/

%!  attention_inspect(+Scope, +Candidate, +Value, +Now, +Succeeded, +Cost, -Outcome:dict)
%!      is det.
%
%   Record the outcome of carrying out Candidate at Now: for an inspection, the source returned
%   Value (Succeeded true) or could not be read (Succeeded false); Cost is what it actually cost
%   (null: the source's registered cost). Beliefs are updated (atc_tms:tms_observe/6), dependants
%   dirtied, pending claims on the claim marked checked, goal decisions compared before and
%   after, and the trace resolved. A failed inspection becomes a `failed_action` event. Outcome
%   is `_{inspection_id, belief_changed, new_belief, dirtied, contradiction, decision_changed,
%   utility_delta}`.
%   @error existence_error(candidate, Candidate)
%   @error permission_error(inspect, closed_candidate, Candidate-Status) once `resolved` or
%   `expired`

attention_inspect(Scope0, Cand0, Value, Now, Succeeded, Cost0, Outcome) :-
    scope_atom(Scope0, Scope),
    text_atom(Cand0, Id),
    (   candidate_(Scope, Id, Key, _, _) -> true ; existence_error(candidate, Id) ),
    (   candidate_closed_(Scope, Id, Status, _)
    ->  permission_error(inspect, closed_candidate, Id-Status)
    ;   true
    ),
    must_be(atomic, Value),
    must_be_time(Now),
    must_be_boolean_atom(Succeeded),
    (   optional(Cost0, none) -> true ; must_be_cost(Cost0) ),
    (   selection_of_(Scope, Id, Turn, SelGoal, Predicted)
    ->  Selected = true
    ;   Selected = false, Turn = null, SelGoal = null, Predicted = null
    ),
    findall(G-D, ( goal(Scope, G), attention_decision(Scope, G, D) ), Before),
    trace_record(Scope, inspection_started, Now,
                 [candidate_id-Id, goal_id-SelGoal, turn_id-Turn, selected-Selected]),
    carry_out_(Key, Scope, Id, Value, Now, Succeeded, Cost0, Effect),
    findall(G-D, ( goal(Scope, G), attention_decision(Scope, G, D) ), After),
    decision_changes_(Scope, Id, SelGoal, Now, Before, After, Changed, Delta),
    scoped_assert(atc_attention:candidate_closed_(Scope, Id, resolved, Now)),
    Effect = effect(InspId, Cost, BeliefChanged, NewBelief, Dirtied, Contradiction),
    (   Succeeded == true -> Extra = [] ; Extra = [failure_code-'RETRIEVAL_FAILED'] ),
    trace_record(Scope, resolved, Now,
                 [candidate_id-Id, goal_id-SelGoal, turn_id-Turn, inspection_id-InspId,
                  inspection_succeeded-Succeeded, belief_changed-BeliefChanged,
                  decision_changed-Changed, utility_delta-Delta, actual_cost-Cost,
                  predicted_voc-Predicted, selected-Selected|Extra]),
    Outcome = _{inspection_id: InspId, belief_changed: BeliefChanged, new_belief: NewBelief,
                dirtied: Dirtied, contradiction: Contradiction, decision_changed: Changed,
                utility_delta: Delta}.

selection_of_(Scope, Id, Turn, Goal, Predicted) :-
    findall(At-s(Turn0, Goal0, P0), selection_(Scope, Id, Turn0, Goal0, At, P0, _, _), Ss),
    Ss \== [],
    max_member(_-s(Turn, Goal, Predicted), Ss).

carry_out_(key(inspect_source, Source, T-S), Scope, Id, Value, Now, Succeeded, Cost0,
           effect(InspId, Cost, Changed, New, Dirtied, Contradiction)) :- !,
    (   optional(Cost0, none) -> source_cost(Scope, Source, Cost) ; Cost = Cost0 ),
    (   Succeeded == true -> Reading = Value ; Reading = '' ),
    tms_record_inspection(Scope, Source, S, Reading, Now, Succeeded, Cost, InspId),
    scoped_assert(atc_attention:inspected_(Scope, Id, InspId)),
    validator_claims_checked(Scope, T, S, Now),
    handle_events_(Scope, Id, Now),
    (   Succeeded == true
    ->  trace_record(Scope, inspection_succeeded, Now,
                     [candidate_id-Id, inspection_id-InspId, source-Source]),
        tms_observe(Scope, InspId, T, S, Now, Obs),
        subject_text(S, Subject),
        Changed = Obs.belief_changed, New = Obs.new_belief, Dirtied = Obs.dirtied,
        Contradiction = Obs.contradiction,
        (   Changed == true -> Event = belief_changed ; Event = belief_unchanged ),
        trace_record(Scope, Event, Now,
                     [candidate_id-Id, inspection_id-InspId, claim_type-T, subject-Subject,
                      value-Value, previous-Obs.previous, new_belief-New, dirtied-Dirtied,
                      contradiction-Contradiction])
    ;   trace_record(Scope, inspection_failed, Now,
                     [candidate_id-Id, inspection_id-InspId, source-Source,
                      failure_code-'RETRIEVAL_FAILED']),
        attention_controller_event(Scope, failed_action, Source, Now, _),
        Changed = false, New = null, Dirtied = [], Contradiction = false
    ).
carry_out_(key(_, _, _), Scope, Id, _, Now, Succeeded, Cost0,
           effect(null, Cost, false, null, [], false)) :-
    (   optional(Cost0, none) -> Cost = 1.0 ; Cost = Cost0 ),
    handle_events_(Scope, Id, Now),
    (   Succeeded == true
    ->  trace_record(Scope, inspection_succeeded, Now, [candidate_id-Id])
    ;   trace_record(Scope, inspection_failed, Now,
                     [candidate_id-Id, failure_code-'RETRIEVAL_FAILED'])
    ),
    trace_record(Scope, belief_unchanged, Now, [candidate_id-Id]).

% The events that nominated a candidate are handled once it is carried out.
handle_events_(Scope, Id, Now) :-
    once(candidate_(Scope, Id, Key, _, _)),
    (   Key = key(inspect_source, Source, _)
    ->  forall(( event(Scope, Ev, state_change, _, Source, _, _), event_pending(Scope, Ev) ),
               event_handled(Scope, Ev, Now))
    ;   Key = key(Kind, Target, from(Source)),
        event_kind_for_(Kind, EvKind),
        forall(( event(Scope, Ev, EvKind, Source, Target, _, _), event_pending(Scope, Ev) ),
               event_handled(Scope, Ev, Now))
    ).

event_kind_for_(handle_interruption, interruption).
event_kind_for_(diagnose_failure, failed_action).

decision_changes_(Scope, Id, SelGoal, Now, Before, After, Changed, Delta) :-
    findall(G-From-To, ( member(G-DB, Before), memberchk(G-DA, After),
                         DB.value \== DA.value, From = DB.value, To = DA.value ), Changes),
    forall(member(G-From-To, Changes),
           (   goal_stakes(Scope, G, Loss),
               trace_record(Scope, decision_changed, Now,
                            [candidate_id-Id, goal_id-G, from-From, to-To,
                             utility_delta-Loss])
           )),
    (   SelGoal \== null, \+ memberchk(SelGoal-_-_, Changes)
    ->  trace_record(Scope, decision_unchanged, Now, [candidate_id-Id, goal_id-SelGoal])
    ;   true
    ),
    (   Changes == [] -> Changed = false ; Changed = true ),
    aggregate_all(sum(L), ( member(G-_-_, Changes), goal_stakes(Scope, G, L) ), Delta).


                 /*******************************
                 *           QUERIES            *
                 *******************************/

%!  attention_decision(+Scope, +Goal, -Decision:dict) is det.
%
%   Goal's current decision, `_{goal_id, belief, value, dirty}`: the option its rule chooses
%   for the values currently believed (dirty when any dependency's belief is), or, without a
%   rule, the value of what its deciding belief has become.
%   @error existence_error(goal, Goal)

attention_decision(Scope0, Goal0, Decision) :-
    scope_atom(Scope0, Scope),
    text_atom(Goal0, Goal),
    (   goal_decides(Scope, Goal, B0) -> true ; existence_error(goal, Goal) ),
    belief_current(Scope, B0, B),
    (   goal_rule_decision(Scope, Goal, Value)
    ->  (   goal_dependency(Scope, Goal, D0), belief_current(Scope, D0, D),
            belief_dirty(Scope, D, _)
        ->  Dirty = true
        ;   Dirty = false
        )
    ;   once(belief_value(Scope, B, Value)),
        (   belief_dirty(Scope, B, _) -> Dirty = true ; Dirty = false )
    ),
    Decision = _{goal_id: Goal, belief: B, value: Value, dirty: Dirty}.

%!  attention_candidate(+Scope, +Candidate, -Info:dict) is det.
%
%   What the candidate table holds about Candidate: `_{candidate_id, kind, target, claim_type,
%   subject, trigger, created_at, status, inspections}`, status `open`, `resolved` or
%   `expired`.
%   @error existence_error(candidate, Candidate)

attention_candidate(Scope0, Cand0, Info) :-
    scope_atom(Scope0, Scope),
    text_atom(Cand0, Id),
    (   candidate_(Scope, Id, key(Kind, Target, Claim), Trigger, Created)
    ->  true
    ;   existence_error(candidate, Id)
    ),
    (   Claim = T-S0 -> subject_text(S0, S) ; T = null, S = null ),   % events: from(Source)
    (   candidate_closed_(Scope, Id, Status, _) -> true ; Status = open ),
    findall(I, inspected_(Scope, Id, I), Inspections),
    Info = _{candidate_id: Id, kind: Kind, target: Target, claim_type: T, subject: S,
             trigger: Trigger, created_at: Created, status: Status,
             inspections: Inspections}.

%!  attention_drop(+Scope) is det.
%
%   Forget everything Scope holds: beliefs, sources, goals, events, candidates, claims and
%   trace. Benchmarks drop each trial's scope when it ends.

attention_drop(Scope0) :-
    scope_atom(Scope0, Scope),
    scoped_retract(atc_attention:candidate_(Scope, _, _, _, _)),
    scoped_retract(atc_attention:candidate_closed_(Scope, _, _, _)),
    scoped_retract(atc_attention:selection_(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_attention:turn_(Scope, _, _, _, _)),
    scoped_retract(atc_attention:inspected_(Scope, _, _)),
    attention_state_drop(Scope),
    validator_drop(Scope),
    trace_drop(Scope),
    tms_drop(Scope).
