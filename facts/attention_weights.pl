:- module(atc_attention_weights,
          [ attention_weight/3            % ?Name, ?Value, ?Description
          ]).

/** <module> The attention controller's few tunable weights and its bounds

The controller ranks candidate computations by the expected value of the inspection (seed §3.3):

    predicted_voc = P(decision changes) * E|ΔU | change|  =  relevance * novelty * max(0, q - p) * stakes
    net_voc       = predicted_voc - cost_weight * cost - switch_weight * switch_cost

where p is the probability that what is believed is right, q the probability that the reading is
right, and stakes the loss if the decision is wrong (rules/attention_candidates.pl derives it).
The first group below shapes those estimates; the second bounds the controller against floods
and runaway queues (seed §24). A scope may override any weight (atc_attention:attention_set_weight/3),
which is also how an ablation switches one component off without touching this file:
`staleness_weight` 0 ignores staleness, `authority_weight` 0 treats every source as fully
authoritative, `switch_weight` 0 ignores switch costs.
*/

%!  attention_weight(?Name:atom, ?Value:number, ?Description:string) is nondet.
%
%   The default of each weight.

% --- value of computation --------------------------------------------------------------------
attention_weight(cost_weight,            0.05, "λ: utility per unit of inspection cost").
attention_weight(switch_weight,          1.0,  "μ: utility per unit of switch cost").
attention_weight(lookahead,              1,    "1: value a read with the best read after it (outcomes seen in turn); 0: myopic, for batches").
attention_weight(hysteresis_margin,      0.05, "δ: a challenger must beat the current computation by this much").
attention_weight(staleness_weight,       1.0,  "scales every hazard rate the controller uses (0: ignore staleness)").
attention_weight(authority_weight,       1.0,  "authority A counts as 1 - w(1 - A) (0: every source fully authoritative)").
attention_weight(dirty_p_changed,        0.8,  "P(state changed) assumed, at least, for a belief marked dirty").
attention_weight(contradiction_p_wrong,  0.5,  "P(belief wrong) floor when live beliefs on one claim disagree").
attention_weight(unknown_p_wrong,        0.5,  "P(belief wrong) when nothing is believed about the claim").
attention_weight(support_decay,          0.7,  "goal relevance lost per justification hop from a goal's dependency").
attention_weight(deadline_horizon_s,     3600, "deadlines closer than this raise urgency and bring other goals in").
attention_weight(deadline_boost,         1.0,  "urgency at the deadline is 1 + this: it orders worthwhile reads, never adds value").
attention_weight(other_goal_weight,      0.5,  "share of another goal's stakes counted while attending to this one").
attention_weight(switch_cost_other,      0.1,  "switch cost of leaving the attended goal for other work").
attention_weight(untrusted_event_p,      0.05, "P(decision changes) of an event from an untrusted source, whatever it says").
attention_weight(default_event_p,        0.1,  "P(decision changes) of a trusted event that states no priority").
attention_weight(failed_action_p,        0.3,  "P(decision changes) of diagnosing a trusted failed action").
attention_weight(event_loss,             0.5,  "stakes of an event, or a drafted claim, that no goal depends on").
attention_weight(stale_threshold,        0.5,  "evidence is stale for floors and the stale generator when P(stale) reaches this").
attention_weight(aging_rate,             1.0e-4, "aging bonus per second a useful candidate waits").
attention_weight(aging_cap,              0.1,  "the aging bonus never exceeds this").
attention_weight(exploration_share,      0.1,  "at most this share of selections may be exploration").
attention_weight(exploration_value,      0.1,  "predicted value of probing a never-inspected source, times its authority").
% --- bounds -----------------------------------------------------------------------------------
attention_weight(candidate_ttl_s,        3600, "an unserved candidate expires this long after creation").
attention_weight(source_rate_limit,      20,   "events accepted per source per rate window").
attention_weight(rate_window_s,          60,   "the rate window").
attention_weight(source_quota,           3,    "eligible candidates one event source may hold in one ranking").
attention_weight(max_ranked,             200,  "candidates kept in one ranking; the rest are counted as dropped").
attention_weight(max_pending_events,     1000, "events waiting in one scope; later ones are refused as queue_full").
attention_weight(saturation_level,       0.9,  "P(decision changes) at or above this counts as maximal priority").
attention_weight(saturation_share,       0.5,  "the saturation alarm fires when this share of candidates is maximal").
attention_weight(saturation_min,         4,    "the alarm needs at least this many candidates").
attention_weight(default_budget,         3,    "inspection budget when the caller names none").
