:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/tms').
:- use_module('../../facts/authority').
:- use_module('../../facts/volatility').
:- use_module(library(plunit)).
:- use_module(library(time)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).

% A chain of justifications: a is read from the registry, b cites a, c cites b; d is unrelated.
chain(S) :-
    tms_add_source(S, registry, dependency_version, _{kind: package_registry}),
    tms_add_source(S, matrix, compatibility, _{kind: compatibility_matrix}),
    add(S, a, dependency_version, libfoo, "4.1", 0.9, 1000, [], registry),
    add(S, b, compatibility, deploy, "A", 0.9, 1000, ["a"], null),
    add(S, c, compatibility, rollout, "ok", 0.8, 1000, ["belief:b"], null),
    add(S, d, compatibility, other, "x", 0.8, 1000, [], matrix).

% add(+Scope, +Id, +Type, +Subject, +Value, +Confidence, +ObservedAt, +Supports, +Source)
add(S, Id, Type, Subject, Value, Conf, At, Supports, Source) :-
    default_volatility(Type, Class),
    tms_add_belief(S, Id, _{claim_type: Type, subject: Subject, value: Value,
                            confidence: Conf, observed_at: At, volatility: Class,
                            supports: Supports, source: Source}).

fresh :-
    store_reset.

:- begin_tests(tms_sources, [setup(fresh), cleanup(fresh)]).

test(authority_from_registry, [setup(fresh), A == 0.97]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    source_authority(s, registry, A).

test(authority_given_wins, [setup(fresh), A == 0.42]) :-
    tms_add_source(s, odd, dependency_version, _{authority: 0.42}),
    source_authority(s, odd, A).

test(unknown_claim_type, [setup(fresh), throws(error(existence_error(claim_type, weather), _))]) :-
    tms_add_source(s, x, weather, _{}).

test(kind_not_ranked_for_claim_type,
     [setup(fresh), throws(error(existence_error(source_authority, historical_result-package_registry), _))]) :-
    tms_add_source(s, x, historical_result, _{kind: package_registry}).

test(negative_cost, [setup(fresh), throws(error(domain_error(cost, -1), _))]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry, cost: -1}).

test(authority_above_one, [setup(fresh), throws(error(domain_error(probability, 1.5), _))]) :-
    tms_add_source(s, registry, dependency_version, _{authority: 1.5}).

:- end_tests(tms_sources).

:- begin_tests(tms_authority_registry).

ranking(ClaimType, Kinds) :-
    findall(NegA-K, ( claim_authority(ClaimType, K, A), NegA is -A ), Pairs),
    keysort(Pairs, Sorted),
    pairs_values(Sorted, Kinds).

test(live_state_order,
     Kinds == [live_health_endpoint, process_state, recent_log, cached_status, own_summary,
               remembered_prose]) :-
    ranking(live_system_state, Kinds).

test(historical_decision_prefers_the_record, [setup(fresh), true]) :-
    ranking(historical_decision, [decision_record|_]),
    \+ claim_authority(historical_decision, live_health_endpoint, _),
    claim_authority(historical_decision, own_summary, Own),
    claim_authority(live_system_state, own_summary, OwnLive),
    Own > OwnLive.

test(every_ranked_claim_type_is_known, [setup(fresh), true]) :-
    forall(claim_authority(T, _, A), ( claim_type(T, _), A >= 0, A =< 1 )).

:- end_tests(tms_authority_registry).

:- begin_tests(tms_beliefs, [setup(fresh), cleanup(fresh)]).

test(info, [setup(fresh), V-Dirty-Src == "4.1"-false-registry]) :-
    chain(s),
    belief_info(s, a, 1000, I),
    V = I.value, Dirty = I.dirty, Src = I.source.

test(unknown_volatility, [setup(fresh), throws(error(existence_error(volatility_class, sometimes), _))]) :-
    tms_add_belief(s, x, _{claim_type: compatibility, subject: s, value: "v", confidence: 0.5,
                           observed_at: 0, volatility: sometimes}).

test(confidence_out_of_range, [setup(fresh), throws(error(domain_error(probability, 2), _))]) :-
    tms_add_belief(s, x, _{claim_type: compatibility, subject: s, value: "v", confidence: 2,
                           observed_at: 0, volatility: config_docs}).

test(negative_observation_time, [setup(fresh), throws(error(domain_error(time_seconds, -5), _))]) :-
    tms_add_belief(s, x, _{claim_type: compatibility, subject: s, value: "v", confidence: 0.5,
                           observed_at: -5, volatility: config_docs}).

% A subject or value that is no number (NaN, an infinity) was stored and came back in
% `atc belief list --format json` as a bare NaN/Infinity that strict JSON parsers refuse.
test(nan_subject, [setup(fresh), throws(error(domain_error(finite_number, _), _))]) :-
    Subject is nan,
    add(s, x, compatibility, Subject, "v", 0.5, 0, [], null).

test(infinite_subject, [setup(fresh), throws(error(domain_error(finite_number, _), _))]) :-
    Subject is -inf,
    add(s, x, compatibility, Subject, "v", 0.5, 0, [], null).

test(infinite_value, [setup(fresh), throws(error(domain_error(finite_number, _), _))]) :-
    Value is inf,
    add(s, x, compatibility, s, Value, 0.5, 0, [], null).

test(finite_numbers_stay, [setup(fresh), Subject-Value == 12-1.5e300]) :-
    add(s, x, compatibility, 12, 1.5e300, 0.5, 0, [], null),
    belief_info(s, x, 0, I),
    Subject = I.subject, Value = I.value.

test(missing_key, [setup(fresh), throws(error(existence_error(key, value, _), _))]) :-
    tms_add_belief(s, x, _{claim_type: compatibility, subject: s, confidence: 0.5,
                           observed_at: 0, volatility: config_docs}).

test(unknown_support, [setup(fresh), throws(error(existence_error(support, ghost), _))]) :-
    add(s, x, compatibility, s, "v", 0.5, 0, ["ghost"], null).

test(missing_journal_item, [setup(fresh), throws(error(existence_error(journal_item, it_nothing), _))]) :-
    add(s, x, compatibility, s, "v", 0.5, 0, ["it_nothing"], null).

test(self_support_is_a_cycle, [setup(fresh), throws(error(domain_error(acyclic_justification, b-b), _))]) :-
    chain(s),
    add(s, b, compatibility, deploy, "A", 0.9, 1000, ["b"], null).

test(indirect_cycle, [setup(fresh), throws(error(domain_error(acyclic_justification, a-c), _))]) :-
    chain(s),
    add(s, a, dependency_version, libfoo, "4.1", 0.9, 1000, ["c"], null).

test(cycle_leaves_belief_unchanged, [setup(fresh), Supports == []]) :-
    chain(s),
    catch(add(s, a, dependency_version, libfoo, "4.1", 0.9, 1000, ["c"],
                                       null), _, true),
    findall(X, belief_support(s, a, X), Supports).

% Recording b again under another claim: before, b silently became a belief about the
% rollout, and c, which cites it, rested on that.
test(same_id_other_claim_is_refused,
     [setup(fresh), throws(error(permission_error(change_claim, belief, b-(compatibility-deploy)), _))]) :-
    chain(s),
    add(s, b, compatibility, rollout, "A", 0.9, 1000, ["a"], null).

test(same_id_other_claim_leaves_it, [setup(fresh), T-S-V == compatibility-deploy-"A"]) :-
    chain(s),
    catch(add(s, b, dependency_version, deploy, "B", 0.9, 1000, [], null), _, true),
    belief_claim(s, b, T, S),
    belief_value(s, b, V).

% A ladder: each belief cites the two before it. The cycle check followed every path (their
% number grows as Fibonacci's): 28 rungs took 1.6 s for the next belief, 40 would take minutes.
ladder(S, N) :-
    tms_add_source(S, registry, dependency_version, _{kind: package_registry}),
    forall(between(0, N, I),
           ( format(atom(Id), 'r~d', [I]),
             findall(P, ( member(J, [I-1, I-2]), K is J, K >= 0,
                          format(string(P), 'r~d', [K]) ), Ps),
             add(S, Id, dependency_version, Id, "1", 0.9, 1000, Ps, registry) )).

test(ladder_of_supports_is_checked_in_linear_time, [setup(fresh), Supports == [belief(r59), belief(r60)]]) :-
    call_with_time_limit(10, ladder(s, 60)),
    add(s, top, dependency_version, top, "1", 0.9, 1000, ["r60", "r59"], null),
    findall(X, belief_support(s, top, X), Supports0),
    msort(Supports0, Supports).

test(ladder_cycle_is_still_found, [setup(fresh), throws(error(domain_error(acyclic_justification, r0-r60), _))]) :-
    call_with_time_limit(10, ladder(s, 60)),
    add(s, r0, dependency_version, r0, "1", 0.9, 1000, ["r60"], registry).

% Growing a chain: a new belief cites the last one. Before, the cycle check walked the whole
% chain below the cited belief for each new one (nothing can cite a belief not yet recorded),
% so recording a chain of n beliefs took time quadratic in n (3000: 74 s). Counted in
% inferences, not seconds: adding to a 400-long chain costs what adding to a 10-long one does.
test(a_new_belief_on_a_long_chain_costs_no_walk_of_the_chain, [setup(fresh), true(Long =< Short + 200)]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    grow_chain_(s, 400),
    inferences_to_add_(s, n400, "c399", Long),
    store_reset,
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    grow_chain_(s, 10),
    inferences_to_add_(s, n10, "c9", Short).

grow_chain_(S, N) :-
    forall(between(0, N, I),
           ( format(atom(Id), 'c~d', [I]),
             (   I =:= 0
             ->  Ps = [], Source = registry      % the chain rests on one reading
             ;   J is I - 1, format(string(P), 'c~d', [J]), Ps = [P], Source = null
             ),
             add(S, Id, dependency_version, x, "1", 0.9, 1000, Ps, Source) )).

inferences_to_add_(S, Id, Support, Inferences) :-
    statistics(inferences, I0),
    add(S, Id, dependency_version, x, "1", 0.9, 1000, [Support], null),
    statistics(inferences, I1),
    Inferences is I1 - I0.

% A source change dirties a chain of n beliefs. Before, each dirtied belief scanned every
% support fact of the scope for its dependants, and the seen set was a list: time quadratic in
% n (2000 beliefs: 2.5 s). Counted in inferences: 8 times the chain cost 64 times as much
% before, at most 12 times now (linear, with some slack for index building).
test(dirtying_a_chain_costs_in_proportion_to_its_length, [setup(fresh), true(Long =< 12 * Short)]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    grow_chain_(s, 100),
    inferences_to_change_(s, Short, Dirtied100),
    Dirtied100 = [c0, c1, c2|_],
    store_reset,
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    grow_chain_(s, 800),
    inferences_to_change_(s, Long, Dirtied800),
    length(Dirtied800, 801).

inferences_to_change_(S, Inferences, Dirtied) :-
    statistics(inferences, I0),
    tms_source_changed(S, registry, 2000, Dirtied),
    statistics(inferences, I1),
    Inferences is I1 - I0.

test(a_recorded_belief_citing_its_own_dependant_is_still_refused,
     [setup(fresh), throws(error(domain_error(acyclic_justification, c0-c5), _))]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    grow_chain_(s, 5),
    add(s, c0, dependency_version, x, "1", 0.9, 1000, ["c5"], registry).

test(a_superseded_belief_s_citers_count_as_its_successor_s, [setup(fresh),
     throws(error(domain_error(acyclic_justification, _), _))]) :-
    chain(s),                        % c cites b, b cites a
    tms_record_inspection(s, registry, libfoo, "4.2", 2000, true, 1.0, I),
    tms_observe(s, I, dependency_version, libfoo, 2000, Outcome),
    New = Outcome.new_belief,        % a@insp-1: b's citation of a now means it
    add(s, New, dependency_version, libfoo, "4.2", 0.97, 2000, ["c"], registry).

% why expands each of the 61 beliefs once; each of the 59 other citations of one is named with
% why: null (the tree of a ladder had as many nodes as the ladder has paths).
test(why_expands_a_shared_support_once, [setup(fresh), Expanded-Named == 61-59]) :-
    call_with_time_limit(10, ladder(s, 60)),
    call_with_time_limit(10, belief_why(s, r60, Why)),
    why_count_(Why, 0, Expanded, 0, Named).

why_count_(Why, E0, E, N0, N) :-
    E1 is E0 + 1,
    foldl(why_count_support_, Why.supports, E1-N0, E-N).

why_count_support_(Sup, E0-N0, E-N) :-
    (   Sup.kind == belief, Sup.why \== null
    ->  why_count_(Sup.why, E0, E, N0, N)
    ;   Sup.kind == belief
    ->  E = E0, N is N0 + 1
    ;   E = E0, N = N0
    ).

test(why_tree, [setup(fresh), Kind-Id-Inner == belief-b-a]) :-
    chain(s),
    belief_why(s, c, W),
    W.supports = [S],
    Kind = S.kind, Id = S.id,
    [Inner0] = S.why.supports, Inner = Inner0.id.

test(contradiction, [setup(fresh), Ids == [x1, x2]]) :-
    add(s, x1, compatibility, deploy, "A", 0.9, 0, [], null),
    add(s, x2, compatibility, deploy, "B", 0.6, 0, [], null),
    add(s, x3, compatibility, other, "B", 0.6, 0, [], null),
    contradiction(s, compatibility, deploy, Ids),
    \+ contradiction(s, compatibility, other, _).

:- end_tests(tms_beliefs).

:- begin_tests(tms_dirty, [setup(fresh), cleanup(fresh)]).

test(source_change_dirties_transitively, [setup(fresh), Dirtied == [a, b, c]]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, Dirtied),
    \+ belief_dirty(s, d, _).

test(causes_name_the_path, [setup(fresh), Causes == [a-source_changed(registry), b-via(a), c-via(b)]]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    findall(B-C, belief_dirty(s, B, C), Causes0),
    msort(Causes0, Causes).

test(unknown_source, [setup(fresh), throws(error(existence_error(source, nowhere), _))]) :-
    chain(s),
    tms_source_changed(s, nowhere, 2000, _).

test(justified_by_dirty_starts_dirty, [setup(fresh), Cause == via(a)]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    add(s, e, compatibility, e, "y", 0.9, 2000, ["a"], null),
    belief_dirty(s, e, Cause).

test(reobserving_clears_dirt, [setup(fresh), true]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    add(s, a, dependency_version, libfoo, "4.1", 0.9, 2100, [], registry),
    \+ belief_dirty(s, a, _).

% Re-recording a belief with the value it had is the same agreement an inspection would be:
% what was dirty only through it is clean again, transitively.
test(reobserving_same_value_cleans_dependants, [setup(fresh), Dirty == []]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    add(s, a, dependency_version, libfoo, "4.1", 0.9, 2100, [], registry),
    findall(B-C, belief_dirty(s, B, C), Dirty).

test(reobserving_new_value_keeps_dependants_dirty,
     [setup(fresh), Causes == [b-belief_revised(a), b-via(a), c-via(b)]]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    add(s, a, dependency_version, libfoo, "4.2", 0.9, 2100, [], registry),
    \+ belief_dirty(s, a, _),
    findall(B-C, belief_dirty(s, B, C), Causes0),
    msort(Causes0, Causes).

% b is re-recorded but still cites the dirty a: it stays dirty, and so does c through it.
test(reobserving_on_dirty_support_cleans_nothing, [setup(fresh), Causes == [a-source_changed(registry), b-via(a), c-via(b)]]) :-
    chain(s),
    tms_source_changed(s, registry, 2000, _),
    add(s, b, compatibility, deploy, "A", 0.9, 2100, ["a"], null),
    findall(B-C, belief_dirty(s, B, C), Causes0),
    msort(Causes0, Causes).

% A diamond dirtied in one event: f cites a and b, both read from the registry. Before, f was
% marked via(a) only (the first path reached), so re-observing a cleaned f while b, which it
% also cites, stayed dirty.
test(diamond_stays_dirty_while_one_path_is, [setup(fresh), Causes == [b-source_changed(registry), f-via(b)]]) :-
    tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
    add(s, a, dependency_version, liba, "1", 0.9, 1000, [], registry),
    add(s, b, dependency_version, libb, "1", 0.9, 1000, [], registry),
    add(s, f, dependency_version, libf, "1", 0.9, 1000, ["a", "b"], null),
    tms_source_changed(s, registry, 2000, _),
    add(s, a, dependency_version, liba, "1", 0.9, 2100, [], registry),
    findall(B-C, belief_dirty(s, B, C), Causes0),
    msort(Causes0, Causes).

test(scopes_are_separate, [setup(fresh), Dirtied == []]) :-
    chain(s),
    chain(t),
    tms_source_changed(t, registry, 2000, _),
    findall(B, belief_dirty(s, B, _), Dirtied).

test(journal_items_flag_dirty_beliefs, [setup(fresh), Flagged == [j]]) :-
    journal_add_items([item(it_abc, src, "s1", 0, conclusion, assistant, "g", "", default,
                            "f:1", "deploys use config A", [])], _),
    tms_add_source(s, matrix, compatibility, _{kind: compatibility_matrix}),
    add(s, j, compatibility, deploy, "A", 0.9, 0, ["it_abc", "matrix"],
                                 null),
    item_dirty_beliefs(it_abc, []),
    tms_source_changed(s, matrix, 10, _),
    item_dirty_beliefs(it_abc, Flagged).

test(item_change_dirties_citing_beliefs, [setup(fresh), Dirtied == [j]]) :-
    journal_add_items([item(it_abc, src, "s1", 0, conclusion, assistant, "g", "", default,
                            "f:1", "deploys use config A", [])], _),
    add(s, j, compatibility, deploy, "A", 0.9, 0, ["item:it_abc"], null),
    tms_item_changed(s, it_abc, 10, Dirtied).

:- end_tests(tms_dirty).

:- begin_tests(tms_staleness).

test(hazard_formula, [setup(fresh), true(Diff < 1.0e-9)]) :-
    p_stale(deploy_state, 3600, P),
    Diff is abs(P - (1 - exp(-2.7778e-4 * 3600))).

test(immutable_never_stale, [setup(fresh), P =:= 0]) :-
    p_stale(immutable, 1.0e9, P).

test(more_volatile_is_staler, [setup(fresh), true]) :-
    p_stale(queue_depth, 600, Q),
    p_stale(deploy_state, 600, D),
    p_stale(static_docs, 600, S),
    Q > D, D > S.

test(older_is_staler, [setup(fresh), true]) :-
    p_stale(deploy_state, 60, P1),
    p_stale(deploy_state, 6000, P2),
    P2 > P1, P2 < 1.

test(negative_age, [setup(fresh), throws(error(domain_error(time_seconds, -1), _))]) :-
    p_stale(deploy_state, -1, _).

test(unknown_class, [setup(fresh), throws(error(existence_error(volatility_class, vibes), _))]) :-
    p_stale(vibes, 1, _).

test(numeric_hazard, [setup(fresh), true(Diff < 1.0e-12)]) :-
    tms_add_belief(s, x, _{claim_type: worker_state, subject: w, value: "up", confidence: 0.9,
                           observed_at: 1000, volatility: 0.001}),
    belief_p_stale(s, x, 1600, P),
    Diff is abs(P - (1 - exp(-0.6))).

test(absurd_hazard, [setup(fresh), throws(error(domain_error(hazard_per_second, 5), _))]) :-
    tms_add_belief(s, x, _{claim_type: worker_state, subject: w, value: "up", confidence: 0.9,
                           observed_at: 1000, volatility: 5}).

test(chance_agreement, all(V-P == [true-0.5, "false"-0.5, "4.2"-0.0, up-0.0])) :-
    member(V, [true, "false", "4.2", up]),
    chance_agreement(V, P).

test(reading_accuracy_counts_chance, [Yes-Open == 0.95-0.9]) :-
    reading_accuracy(0.9, true, Yes),
    reading_accuracy(0.9, "4.2", Open).

% A stale yes/no belief keeps the coin flip; an open-ended one keeps nothing.
test(stale_yes_no_belief_is_a_coin_flip, [setup(fresh), true((YesNo =:= 0.5, Open =:= 0))]) :-
    tms_add_belief(s, y, _{claim_type: worker_state, subject: a, value: true, confidence: 0.9,
                           observed_at: 0, volatility: queue_depth}),
    tms_add_belief(s, o, _{claim_type: worker_state, subject: b, value: "up", confidence: 0.9,
                           observed_at: 0, volatility: queue_depth}),
    belief_effective_confidence(s, y, 100000, YesNo),     % 100000 s at one change per 30 s
    belief_effective_confidence(s, o, 100000, Open).

% A dirty belief's state changed with P(changed) = the `dirty_p_changed` weight (0.8), as the
% controller and `atc belief show` take it, not with certainty: a fresh yes/no belief of
% confidence 0.9 keeps 0.9 * 0.2 + 0.8 * 0.5, an open-ended one 0.9 * 0.2.
test(dirty_belief_changed_with_the_dirty_weight,
     [setup(fresh), true((abs(YesNo - 0.58) < 1.0e-9, abs(Open - 0.18) < 1.0e-9))]) :-
    tms_add_source(s, registry, worker_state, _{authority: 0.9}),
    add(s, y, worker_state, a, true, 0.9, 1000, [], registry),
    add(s, o, worker_state, b, "up", 0.9, 1000, [], registry),
    tms_source_changed(s, registry, 1000, _),
    belief_effective_confidence(s, y, 1000, YesNo),
    belief_effective_confidence(s, o, 1000, Open).

% A subject is text when shown: one named `null` or `true` is stored as that atom, which the
% host reads as JSON's null or true; belief_info/4 and belief_why/3 give it as a string.
test(subject_named_like_a_json_literal_is_shown_as_text,
     [setup(fresh), Shown-Why == "null"-"true"]) :-
    tms_add_source(s, registry, worker_state, _{authority: 0.9}),
    add(s, n, worker_state, "null", "up", 0.9, 1000, [], registry),
    add(s, t, worker_state, "true", "up", 0.9, 1000, [], registry),
    belief_info(s, n, 1000, Info), Shown = Info.subject,
    belief_why(s, t, W), Why = W.subject.

:- end_tests(tms_staleness).

:- begin_tests(tms_observe, [setup(fresh), cleanup(fresh)]).

observe(S, Source, Subject, Value, Now, Outcome) :-
    source_claim_type(S, Source, T),
    tms_record_inspection(S, Source, Subject, Value, Now, true, 1.0, I),
    tms_observe(S, I, T, Subject, Now, Outcome).

test(new_value_supersedes_and_dirties_dependants, [setup(fresh), New-Dirtied-Current == 'a@insp-1'-[b, c]-'a@insp-1']) :-
    chain(s),
    observe(s, registry, libfoo, "4.2", 30000, O),
    New = O.new_belief, Dirtied = O.dirtied,
    belief_current(s, a, Current),
    belief_value(s, Current, "4.2"),
    \+ belief_live(s, a).

test(same_value_refreshes, [setup(fresh), Changed-At == false-30000]) :-
    chain(s),
    tms_source_changed(s, registry, 20000, _),
    observe(s, registry, libfoo, "4.1", 30000, O),
    Changed = O.belief_changed,
    belief_observed(s, a, _, At, _),
    \+ belief_dirty(s, a, _),
    \+ belief_dirty(s, b, _),        % dirty only through a, which held
    \+ belief_dirty(s, c, _).

test(weak_reading_contradicts_instead, [setup(fresh), Contradiction-Live == true-[a, 'a@insp-1']]) :-
    chain(s),
    tms_add_source(s, summary, dependency_version, _{kind: own_summary}),
    observe(s, summary, libfoo, "3.9", 1000, O),
    Contradiction = O.contradiction,
    claim_beliefs(s, dependency_version, libfoo, Live).

% Two independent yes/no readings that agree: Bayes, not the firmer of the two.
test(agreeing_yes_no_reading_combines, [setup(fresh), true(abs(C - Expected) < 1.0e-9)]) :-
    tms_add_source(s, api, worker_state, _{authority: 0.8}),          % reads right 0.9
    tms_add_belief(s, w, _{claim_type: worker_state, subject: w1, value: true, confidence: 0.9,
                           observed_at: 500, volatility: immutable}),
    observe(s, api, w1, true, 1000, O),
    O.belief_changed == false,
    belief_observed(s, w, C, 1000, _),
    Expected is 0.81 / (0.81 + 0.01).

% A caller's belief already named a@insp-1: the reading's belief takes the next free id, and
% each id still names one belief.
test(new_belief_id_already_taken, [setup(fresh), New-Values == 'a@insp-1.2'-["9"]]) :-
    chain(s),
    add(s, 'a@insp-1', dependency_version, libbar, "9", 0.9, 1000, [], null),
    observe(s, registry, libfoo, "4.2", 30000, O),
    New = O.new_belief,
    belief_current(s, a, New),
    belief_value(s, New, "4.2"),
    findall(V, belief_value(s, 'a@insp-1', V), Values).

test(first_reading_creates_belief, [setup(fresh), Id == 'compatibility:fresh@insp-1']) :-
    chain(s),
    observe(s, matrix, fresh, "B", 1000, O),
    Id = O.new_belief.

:- end_tests(tms_observe).

:- begin_tests(tms_drop, [setup(fresh), cleanup(fresh)]).

test(drop_forgets_scope, [setup(fresh), true]) :-
    chain(s),
    chain(t),
    tms_drop(s),
    \+ belief_live(s, _),
    belief_live(t, a).

:- end_tests(tms_drop).

% An erasure replaces the fields that quote the erased text (tms_redact/2): the
% belief keeps its other fields, its supports and its dirt, and no dependant goes dirty for it.
:- begin_tests(tms_redact, [setup(fresh), cleanup(fresh)]).

test(redacts_only_the_named_fields,
     [setup(fresh), true(Got == ['[forgotten]'-libfoo, "A"-deploy, [belief(a)], []])]) :-
    chain(s),
    tms_redact([text(belief, s, a, value, "4.1")], '[forgotten]'),
    belief_value(s, a, V), belief_claim(s, a, _, Subject),
    belief_value(s, b, VB), belief_claim(s, b, _, SB),
    findall(Sup, belief_support(s, b, Sup), Sups),
    findall(C, belief_dirty(s, b, C), Dirt),
    Got = [V-Subject, VB-SB, Sups, Dirt].

test(redacts_a_subject_and_an_inspection,
     [setup(fresh), true(Got == ['[forgotten]'-"4.1", '[forgotten]'])]) :-
    chain(s),
    tms_record_inspection(s, registry, libfoo, 'secret 4.2', 2000, true, 1, I),
    tms_redact([text(belief, s, a, subject, "libfoo"), text(inspection, s, I, value, "secret 4.2")],
               '[forgotten]'),
    belief_claim(s, a, _, Subject), belief_value(s, a, V),
    inspection(s, I, _, _, _, IV, _, _),
    Got = [Subject-V, IV].

:- end_tests(tms_redact).
