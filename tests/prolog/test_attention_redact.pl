:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/tms').
:- use_module('../../rules/attention_state').
:- use_module('../../rules/attention_candidates').
:- use_module('../../rules/attention').
:- use_module('../../rules/validator').
:- use_module('../../rules/trace').
:- use_module('../../rules/attention_redact').
:- use_module(attention_fixtures).
:- use_module(library(plunit)).
:- use_module(library(lists)).
:- use_module(library(apply)).

% What an erasure finds and rewrites on the attention side (rules/attention_redact.pl): the free
% text of beliefs, inspections, event payloads, claims, candidates' keys and the trace; never
% ids, claim types or the trace's field names.

secret("zqvault token 7f3k9").

% A scope whose every free-text field quotes the secret: a belief's subject (an atom once
% stored) and value (a string), one citing journal item it_sec, an event payload, a claim,
% a candidate keyed on the subject, its trace events, and an inspection read about it.
quoted(S) :-
    secret(Secret),
    t0(T0),
    journal_add_items([item(it_sec, src, "s1", 0, conclusion, assistant, "g", "", default,
                            "f:1", "the vault token is zqvault token 7f3k9", [])], _),
    tms_add_source(S, registry, dependency_version, _{kind: package_registry}),
    string_concat("about ", Secret, Subject),
    string_concat("read ", Secret, Value),
    belief(S, quoting, dependency_version, Subject, Value, 0.9, 0, [], registry),
    belief(S, citing, dependency_version, libfoo, "4.1", 0.9, 0, ["it_sec"], registry),
    attention_add_goal(S, deploy, [quoting, citing], _{loss_if_wrong: 1.0, now: T0}),
    string_concat("payload ", Secret, Payload),
    attention_add_event(S, claim_drafted, registry, dependency_version, Payload, null, T0, _),
    string_concat("claim ", Secret, Claim),
    validator_claim(S, Claim, dependency_version, null, [], 'attention-only', T0, _),
    attention_attend(S, deploy, 3, T0, null, R),
    member(C, R.ranked), C.kind == inspect_source, atom_string(C.subject, Subject), !,
    T1 is T0 + 1,
    attention_inspect(S, C.candidate_id, Value, T1, true, null, _).

marker('[forgotten]').

% Every leaf holding the secret, as the erasure's judge would pick them.
hits(Hits) :-
    secret(Secret),
    attention_text_leaves(Leaves),
    % Secret declared shared ({Free}/Lambda): where library(yall) is loaded when this file is
    % compiled (rules/journal.pl loads it), the lambda is compiled away and an undeclared
    % global is a fresh variable, which every leaf matches
    include({Secret}/[L]>>sub_string(L, _, _, _, Secret), Leaves, Hits).

:- begin_tests(attention_redact).

test(leaves_hold_every_free_text_field, [setup(fresh), Missing == []]) :-
    quoted(s),
    attention_text_leaves(Leaves),
    secret(Secret),
    findall(Want, ( member(Prefix, ["about ", "read ", "payload ", "claim "]),
                    string_concat(Prefix, Secret, Want) ), Wanted),
    exclude({Leaves}/[W]>>memberchk(W, Leaves), Wanted, Missing).

% Before: every value of the trace's fields was a leaf, ids and codes too ("attn-1", "claim-1",
% "turn-1", "highest_net_voc"): one an erased text happened to hold was rewritten in the trace
% while the record it named kept it.
test(leaves_leave_out_ids_codes_and_field_names, [setup(fresh)]) :-
    quoted(s),
    attention_text_leaves(Leaves),
    forall(member(Name, ["quoting", "citing", "deploy", "attn-1", "turn-1", "claim-1",
                         "insp-1", "highest_net_voc", "ATTN_SUMMARY_SUBSTITUTION",
                         "candidate_id", "it_sec"]),
           \+ memberchk(Name, Leaves)),
    forall(member(L, Leaves), string(L)).

test(a_trace_id_held_by_the_erased_text_stays, [setup(fresh)]) :-
    quoted(s),
    attention_redact_leaves(["attn-1", "claim-1"], '[forgotten]'),
    trace_events(s, _{event: candidate_selected}, [Selected|_]),
    Selected.candidate_id == 'attn-1',
    atc_attention:candidate_(s, 'attn-1', _, _, _).

test(redaction_reaches_every_record_and_keeps_the_rest, [setup(fresh)]) :-
    quoted(s),
    hits(Hits),
    Hits \== [],
    marker(M),
    attention_redact_leaves(Hits, M),
    hits([]),
    % the belief keeps its id, claim type, confidence and source; its subject stays an atom
    atc_tms:belief(s, quoting, dependency_version, Subject, Value, _, _, _),
    Subject == M,
    Value == "[forgotten]",
    atc_tms:origin(s, quoting, registry),
    % what was not a quote stays as it was
    atc_tms:belief(s, citing, dependency_version, libfoo, "4.1", _, _, _).

test(the_candidate_and_its_trace_still_join_after_redaction, [setup(fresh)]) :-
    quoted(s),
    hits(Hits),
    marker(M),
    attention_redact_leaves(Hits, M),
    atc_attention:candidate_(s, Cand, Key, _, _),
    sub_term(M, Key),
    trace_events(s, _{event: candidate_selected}, Selected),
    member(E, Selected), E.candidate_id == Cand,
    !.

test(redacting_nothing_changes_nothing, [setup(fresh), After == Before]) :-
    quoted(s),
    attention_text_leaves(Before),
    attention_redact_leaves([], '[forgotten]'),
    attention_redact_leaves(["no record holds this text"], '[forgotten]'),
    attention_text_leaves(After).

test(citing_values_are_the_values_read_from_the_item, [setup(fresh), Texts == [text(belief, s, citing, value, "4.1")]]) :-
    quoted(s),
    attention_citing_values([it_sec], Texts).

% Before: a value redacted as the string "[forgotten]" was compared with the atom alone, and
% listed (and redacted) again by every later erasure of the item.
test(citing_values_skip_a_value_already_forgotten, [setup(fresh), Texts == []]) :-
    quoted(s),
    attention_redact_leaves(["4.1"], '[forgotten]'),
    attention_citing_values([it_sec], Texts).

test(citing_values_of_an_item_nobody_cites, [setup(fresh), Texts == []]) :-
    quoted(s),
    attention_citing_values([it_other], Texts).

% Decided: ids (beliefs, sources, goals, candidates, scopes) are the records' keys, the
% product's vocabulary, and are never rewritten: renaming one would break every record and
% journal line that joins on it. An id that is itself the secret survives (README, Erasure:
% do not name a belief after a secret).
test(an_id_is_never_rewritten_even_when_it_is_the_text, [setup(fresh)]) :-
    belief(s, 'zqsecretid', dependency_version, libfoo, "4.1", 0.9, 0, [], null),
    attention_text_leaves(Leaves),
    \+ memberchk("zqsecretid", Leaves),
    attention_redact_leaves(["zqsecretid"], '[forgotten]'),
    atc_tms:belief(s, zqsecretid, _, libfoo, "4.1", _, _, _).

test(bad_arguments_raise, [setup(fresh), throws(error(type_error(list, nope), _))]) :-
    attention_redact_leaves(nope, '[forgotten]').

% Before: every atomic leaf of a candidate's key was free text, its kind, source and claim type
% too: a source named like the erased text was renamed in the key and the candidate no longer
% named a source that exists. Now only the subject (an inspection's) or the target (an
% event's, free text there as in the event) is.
test(a_candidate_key_keeps_its_kind_source_and_claim_type, [setup(fresh)]) :-
    t0(T0),
    tms_add_source(s, zq7source, dependency_version, _{kind: package_registry}),
    belief(s, b, dependency_version, "zq7subject", "4.1", 0.9, 0, [], zq7source),
    attention_add_goal(s, g, [b], _{loss_if_wrong: 1.0, now: T0}),
    attention_attend(s, g, 3, T0, null, _),
    attention_text_leaves(Leaves),
    memberchk("zq7subject", Leaves),
    \+ memberchk("zq7source", Leaves),
    \+ memberchk("dependency_version", Leaves),
    \+ memberchk("inspect_source", Leaves),
    attention_redact_leaves(["zq7source", "zq7subject"], '[forgotten]'),
    atc_attention:candidate_(s, _, Key, _, _),
    Key == key(inspect_source, zq7source, dependency_version-'[forgotten]').

test(an_event_candidate_key_offers_its_target, [setup(fresh)]) :-
    t0(T0),
    tms_add_source(s, pager, dependency_version, _{kind: package_registry}),
    belief(s, b, dependency_version, libfoo, "4.1", 0.9, 0, [], pager),
    attention_add_goal(s, g, [b], _{loss_if_wrong: 1.0, now: T0}),
    attention_add_event(s, interruption, pager, "zq7 target text", "", null, T0, _),
    attention_attend(s, g, 3, T0, null, _),
    atc_attention:candidate_(s, _, key(handle_interruption, Target, from(pager)), _, _),
    atom_string(Target, "zq7 target text"),
    attention_redact_leaves(["zq7 target text"], '[forgotten]'),
    atc_attention:candidate_(s, _, key(handle_interruption, '[forgotten]', from(pager)), _, _).

% `true`, `false` and `null` are JSON's literals, not text: a yes/no belief's value, a claim's
% and the trace's flags (succeeded, belief_changed, ...). Offered as text, forgetting an item
% that said "true" turned every yes/no belief and every trace flag into the marker.
test(json_literals_are_not_text, [setup(fresh), Offered-Values-Flags == []-[true, false]-[]]) :-
    t0(T0),
    tms_add_source(s, api, worker_state, _{kind: process_state}),
    belief(s, up, worker_state, web, true, 0.9, 0, [], api),
    belief(s, down, worker_state, db, false, 0.9, 0, [], api),
    attention_add_goal(s, g, [up, down], _{loss_if_wrong: 1.0, now: T0}),
    attention_attend(s, g, 3, T0, null, R),
    member(C, R.ranked), C.kind == inspect_source, !,
    T1 is T0 + 1,
    attention_inspect(s, C.candidate_id, true, T1, true, null, _),
    attention_text_leaves(Leaves),
    include([L]>>memberchk(L, ["true", "false", "null"]), Leaves, Offered),
    marker(M),
    attention_redact_leaves(["true", "false", "null"], M),
    findall(V, ( member(B, [up, down]), belief_value(s, B, V) ), Values),
    findall(K, ( atc_trace:trace_event(s, _, _, _, Fs), member(K-M, Fs) ), Flags).

:- end_tests(attention_redact).
