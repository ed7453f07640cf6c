:- module(atc_claim_policy,
          [ claim_policy/2,               % ?ClaimType, ?Requirements
            mandatory_proof/1             % ?ClaimType
          ]).

/** <module> Typed evidence preconditions for claims (the validator's policy)

A claim about the world names its claim type; the validator (rules/validator.pl) checks the
evidence the claim cites against the requirements listed here. Requirements:

  - fresh_authoritative_evidence(MaxAgeS, MinAuthority): at least one cited inspection or belief
    on this claim type, not dirty, observed at most MaxAgeS seconds before the claim, from a
    source whose authority for the claim type is at least MinAuthority.
  - source_checked_or_unavailable: at least one cited inspection of a source of this claim type,
    whether it answered or was found unavailable (a failed inspection counts: the source was
    checked and declared unavailable).
  - cited_evidence(MinAuthority): at least one cited, non-dirty inspection or belief on this
    claim type from a source of at least MinAuthority, of any age (the past does not go stale).

A claim type with an empty list may be claimed freely. A claim type missing from this table is
unknown: the validator raises an existence error rather than letting it through.
*/

%!  claim_policy(?ClaimType:atom, ?Requirements:list) is nondet.
%
%   Requirements that evidence cited by a claim of ClaimType must meet.

claim_policy(live_system_state,   [fresh_authoritative_evidence(300, 0.9)]).
claim_policy(deploy_state,        [fresh_authoritative_evidence(600, 0.85)]).
claim_policy(dependency_version,  [fresh_authoritative_evidence(3600, 0.9)]).
claim_policy(compatibility,       [fresh_authoritative_evidence(3600, 0.9)]).
claim_policy(queue_depth,         [fresh_authoritative_evidence(60, 0.8)]).
claim_policy(worker_state,        [fresh_authoritative_evidence(300, 0.85)]).
claim_policy(security_advisory,   [fresh_authoritative_evidence(86400, 0.9)]).
claim_policy(absence_claim,       [source_checked_or_unavailable]).
claim_policy(historical_decision, [cited_evidence(0.6)]).
claim_policy(historical_result,   [cited_evidence(0.6)]).
claim_policy(documentation,       []).

%!  mandatory_proof(?ClaimType:atom) is nondet.
%
%   Goals that depend on a belief of ClaimType get a lexicographic floor (seed §11.2): the most
%   authoritative available source is inspected before anything else whenever the belief lacks
%   the fresh authoritative evidence its policy demands.

mandatory_proof(live_system_state).
mandatory_proof(deploy_state).
