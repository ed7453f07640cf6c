:- use_module('../../rules/store').
:- use_module('../../rules/tms').
:- use_module('../../rules/attention_state').
:- use_module('../../rules/attention_candidates').
:- use_module('../../rules/attention').
:- use_module('../../rules/validator').
:- use_module('../../rules/trace').
:- use_module(attention_fixtures).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(aggregate)).

% A live feed, its health endpoint and a stale summary of it.
feed(S) :-
    t0(T),
    Old is T - 3600,
    tms_add_source(S, health, live_system_state, _{kind: live_health_endpoint}),
    tms_add_source(S, notes, live_system_state, _{kind: own_summary}),
    belief(S, feed_up, live_system_state, intel_feed, "offline", 0.9, Old, [], notes).

inspect_health(S, At, Value, Id) :-
    tms_record_inspection(S, health, intel_feed, Value, At, true, 1.0, Id).

:- begin_tests(validator).

test(attention_only_logs_and_lets_through, [setup(fresh), Allowed-Code == true-'ATTN_SUMMARY_SUBSTITUTION']) :-
    feed(s), t0(T),
    validator_claim(s, "the feed is offline", live_system_state, intel_feed, [],
                    'attention-only', T, V),
    Allowed = V.allowed, Code = V.failure_code,
    V.rescued == false,
    trace_events(s, _{event: validator_violation}, [E]),
    E.category == validator,
    trace_events(s, _{event: validator_rescue}, []).

test(production_blocks_and_names_the_evidence, [setup(fresh), Missing == [fresh_authoritative_evidence]]) :-
    feed(s), t0(T),
    validator_claim(s, "the feed is offline", live_system_state, intel_feed, [], production,
                    T, V),
    V.allowed == false, V.rescued == true,
    Missing = V.missing,
    V.violations = [Why],
    once(sub_string(Why, _, _, _, "300 s")),
    once(sub_string(Why, _, _, _, "inspect health")),
    trace_events(s, _{event: validator_rescue}, [R]),
    R.failure_code == 'VALIDATOR_RESCUED'.

test(rescues_are_never_attention_events, [setup(fresh), Attention == []]) :-
    feed(s), t0(T),
    validator_claim(s, "offline", live_system_state, intel_feed, [], production, T, _),
    trace_events(s, _{category: attention}, Attention).

test(fresh_authoritative_inspection_passes, [setup(fresh), Allowed == true]) :-
    feed(s), t0(T),
    Before is T - 30,
    inspect_health(s, Before, "healthy", I),
    validator_claim(s, "the feed is up", live_system_state, intel_feed, [I], production, T, V),
    Allowed = V.allowed,
    trace_events(s, _{event: claim_accepted}, [_]).

test(old_inspection_is_stale, [setup(fresh), Allowed-Code == false-'ATTN_STALE_STATE']) :-
    feed(s), t0(T),
    Before is T - 301,
    inspect_health(s, Before, "healthy", I),
    validator_claim(s, "the feed is up", live_system_state, intel_feed, [I], production, T, V),
    Allowed = V.allowed, Code = V.failure_code.

test(weak_source_is_authority_neglect, [setup(fresh), Code == 'ATTN_SOURCE_AUTHORITY_NEGLECT']) :-
    feed(s), t0(T),
    tms_record_inspection(s, notes, intel_feed, "offline", T, true, 1.0, I),
    validator_claim(s, "offline", live_system_state, intel_feed, [I], production, T, V),
    Code = V.failure_code.

test(dirty_belief_is_refused, [setup(fresh), Allowed-Code == false-'ATTN_STALE_STATE']) :-
    t0(T),
    tms_add_source(s, health, live_system_state, _{kind: live_health_endpoint}),
    belief(s, up, live_system_state, intel_feed, "up", 0.99, T, [], health),
    tms_source_changed(s, health, T, _),
    validator_claim(s, "up", live_system_state, intel_feed, ["up"], production, T, V),
    Allowed = V.allowed, Code = V.failure_code.

test(clean_fresh_belief_counts, [setup(fresh), Allowed == true]) :-
    t0(T),
    tms_add_source(s, health, live_system_state, _{kind: live_health_endpoint}),
    belief(s, up, live_system_state, intel_feed, "up", 0.99, T, [], health),
    validator_claim(s, "up", live_system_state, intel_feed, ["up"], production, T, V),
    Allowed = V.allowed.

test(absence_needs_the_source_checked, [setup(fresh), A1-A2 == false-true]) :-
    t0(T),
    tms_add_source(s, listing, absence_claim, _{kind: authoritative_listing}),
    validator_claim(s, "no such report", absence_claim, null, [], production, T, V1),
    A1 = V1.allowed,
    % the listing was down: checked and declared unavailable is enough
    tms_record_inspection(s, listing, report, '', T, false, 1.0, I),
    validator_claim(s, "no such report", absence_claim, null, [I], production, T, V2),
    A2 = V2.allowed.

test(history_does_not_go_stale, [setup(fresh), Allowed == true]) :-
    tms_add_source(s, adr, historical_decision, _{kind: decision_record}),
    tms_record_inspection(s, adr, db_choice, "postgres", 10, true, 1.0, I),
    validator_claim(s, "we chose postgres", historical_decision, db_choice, [I], production,
                    1.0e9, V),
    Allowed = V.allowed.

test(evidence_about_another_subject, [setup(fresh), Allowed == false]) :-
    feed(s), t0(T),
    tms_record_inspection(s, health, other_feed, "healthy", T, true, 1.0, I),
    validator_claim(s, "up", live_system_state, intel_feed, [I], production, T, V),
    Allowed = V.allowed.

test(blocked_claim_becomes_a_forced_candidate, [setup(fresh), Trigger-Target == validator_forced-health]) :-
    feed(s), t0(T),
    attention_add_goal(s, g, [feed_up], _{loss_if_wrong: 1.0, now: T}),
    validator_claim(s, "offline", live_system_state, intel_feed, [], production, T, _),
    attention_attend(s, g, 3, T, null, R),
    candidate_for(R, health, C),
    Trigger = C.trigger, Target = C.target.

test(unknown_claim_type, [setup(fresh), throws(error(existence_error(claim_type, gossip), _))]) :-
    validator_claim(s, "x", gossip, null, [], production, 0, _).

test(unknown_mode, [setup(fresh), throws(error(domain_error(validator_mode, lenient), _))]) :-
    validator_claim(s, "x", live_system_state, null, [], lenient, 0, _).

test(unknown_evidence, [setup(fresh), throws(error(existence_error(evidence, 'insp-9'), _))]) :-
    validator_claim(s, "x", live_system_state, null, ['insp-9'], production, 0, _).

test(claims_are_recorded, [setup(fresh), Allowed == [false, true]]) :-
    feed(s), t0(T),
    validator_claim(s, "offline", live_system_state, intel_feed, [], production, T, _),
    validator_claim(s, "offline", live_system_state, intel_feed, [], attention_only, T, _),
    validator_claims(s, Cs),
    findall(A, ( member(C, Cs), get_dict(allowed, C, A) ), Allowed).

% A subject named null or true is that text when the claims are read back (the host read the
% stored atoms as JSON's null and a boolean: Controller.claims() gave None), as belief_info/4
% and belief_why/3 give it; a claim about no subject reads back as "".
test(claimed_subjects_named_like_json_literals_read_back_as_text,
     [setup(fresh), Subjects == ["null", "true", ""]]) :-
    feed(s), t0(T),
    validator_claim(s, "x", live_system_state, "null", [], attention_only, T, _),
    validator_claim(s, "y", live_system_state, "true", [], attention_only, T, _),
    validator_claim(s, "z", live_system_state, null, [], attention_only, T, _),
    validator_claims(s, Cs),
    findall(S, ( member(C, Cs), get_dict(subject, C, S) ), Subjects).

:- end_tests(validator).
