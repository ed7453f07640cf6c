:- module(atc_authority,
          [ claim_type/2,                 % ?ClaimType, ?Description
            claim_authority/3             % ?ClaimType, ?SourceKind, ?Authority
          ]).

/** <module> Claim-specific source authority registry

Authority is not a global trust score: a live health endpoint settles "is the feed up now?" but
says nothing about why a design was chosen. For each claim type this registry ranks kinds of
source by authority, a number in [0,1] read as the probability that one inspection of that kind
of source reveals the true current value of the claim.

A source registered in a scope names its kind (by default its own name); when it gives no
authority of its own, atc_tms:tms_add_source/4 looks the pair up here, and an unknown pair is an
existence error rather than a silent default.

The orderings follow the seed: for live state, live health endpoint > process state > recent log
> cached status > own summary > remembered prose; for historical decisions the written decision
record outranks anything live.
*/

%!  claim_type(?ClaimType:atom, ?Description:string) is nondet.
%
%   The claim types the controller, the registry and the validator know.

claim_type(live_system_state,   "whether a live service or feed is operating right now").
claim_type(deploy_state,        "what is deployed where, right now").
claim_type(dependency_version,  "the current published version of a dependency").
claim_type(compatibility,       "which configuration is compatible with which versions").
claim_type(queue_depth,         "how much work is waiting in a queue").
claim_type(worker_state,        "whether a worker is running, finished or failed").
claim_type(historical_decision, "what was decided in the past, and why").
claim_type(historical_result,   "the outcome of a finished run or benchmark").
claim_type(documentation,       "what static documentation says").
claim_type(security_advisory,   "known vulnerabilities affecting a component").
claim_type(absence_claim,       "that something does not exist or did not happen").

%!  claim_authority(?ClaimType:atom, ?SourceKind:atom, ?Authority:float) is nondet.
%
%   SourceKind inspected for ClaimType reveals the truth with probability Authority. Listed best
%   first per claim type; atc_authority:ranking is recomputed from the numbers, not this order.

claim_authority(live_system_state, live_health_endpoint, 0.99).
claim_authority(live_system_state, process_state,        0.90).
claim_authority(live_system_state, recent_log,           0.75).
claim_authority(live_system_state, cached_status,        0.50).
claim_authority(live_system_state, own_summary,          0.25).
claim_authority(live_system_state, remembered_prose,     0.10).

claim_authority(deploy_state, deploy_api,       0.97).
claim_authority(deploy_state, deploy_manifest,  0.90).
claim_authority(deploy_state, process_state,    0.85).
claim_authority(deploy_state, recent_log,       0.70).
claim_authority(deploy_state, cached_status,    0.40).
claim_authority(deploy_state, own_summary,      0.20).
claim_authority(deploy_state, remembered_prose, 0.10).

claim_authority(dependency_version, package_registry, 0.97).
claim_authority(dependency_version, changelog,        0.70).
claim_authority(dependency_version, deploy_manifest,  0.55).
claim_authority(dependency_version, cached_status,    0.40).
claim_authority(dependency_version, own_summary,      0.20).
claim_authority(dependency_version, remembered_prose, 0.10).

claim_authority(compatibility, compatibility_matrix, 0.95).
claim_authority(compatibility, changelog,            0.50).
claim_authority(compatibility, design_memo,          0.30).
claim_authority(compatibility, own_summary,          0.20).
claim_authority(compatibility, remembered_prose,     0.10).

claim_authority(queue_depth, queue_api,         0.98).
claim_authority(queue_depth, metrics_dashboard, 0.80).
claim_authority(queue_depth, recent_log,        0.50).
claim_authority(queue_depth, cached_status,     0.30).
claim_authority(queue_depth, own_summary,       0.10).

claim_authority(worker_state, process_state,      0.95).
claim_authority(worker_state, worker_result_file, 0.90).
claim_authority(worker_state, recent_log,         0.70).
claim_authority(worker_state, worker_chat,        0.40).
claim_authority(worker_state, own_summary,        0.20).
claim_authority(worker_state, remembered_prose,   0.10).

% For the past, the record written at the time outranks anything live.
claim_authority(historical_decision, decision_record,  0.95).
claim_authority(historical_decision, design_memo,      0.85).
claim_authority(historical_decision, meeting_notes,    0.70).
claim_authority(historical_decision, changelog,        0.60).
claim_authority(historical_decision, own_summary,      0.40).
claim_authority(historical_decision, remembered_prose, 0.30).

claim_authority(historical_result, results_archive,  0.98).
claim_authority(historical_result, benchmark_report, 0.90).
claim_authority(historical_result, recent_log,       0.60).
claim_authority(historical_result, own_summary,      0.50).
claim_authority(historical_result, remembered_prose, 0.30).

claim_authority(documentation, documentation_site, 0.95).
claim_authority(documentation, design_memo,        0.70).
claim_authority(documentation, own_summary,        0.30).
claim_authority(documentation, remembered_prose,   0.20).

claim_authority(security_advisory, advisory_database, 0.97).
claim_authority(security_advisory, security_digest,   0.70).
claim_authority(security_advisory, changelog,         0.50).
claim_authority(security_advisory, own_summary,       0.20).

% An absence is only as good as the listing that was searched.
claim_authority(absence_claim, authoritative_listing, 0.95).
claim_authority(absence_claim, search_index,          0.80).
claim_authority(absence_claim, recent_log,            0.50).
claim_authority(absence_claim, own_summary,           0.20).
claim_authority(absence_claim, remembered_prose,      0.10).
