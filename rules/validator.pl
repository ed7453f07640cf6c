:- module(atc_validator,
          [ validator_claim/8,            % +Scope, +Text, +ClaimType, +Subject, +Evidence, +Mode, +Now, -Verdict
            validator_missing/7,          % +Scope, +ClaimType, +Subject, +Evidence, +Now, -Missing, -Code
            validator_known_claim_type/1, % +ClaimType
            validator_draft/6,            % +Scope, +ClaimType, +Subject, +Origin, +Now, -ClaimId
            validator_pending_claim/5,    % ?Scope, ?ClaimId, ?ClaimType, ?Subject, ?Origin
            validator_claims_checked/4,   % +Scope, +ClaimType, +Subject, +Now
            validator_claims/2,           % +Scope, -Claims
            validator_drop/1              % +Scope
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(aggregate)).
:- use_module(attention_store).
:- use_module(attention_checks).
:- use_module(tms).
:- use_module(trace).
:- use_module('../facts/claim_policy').

/** <module> Claim validator: typed evidence preconditions (enforcement, not attention)

Before a claim about the world is made, it names its claim type and cites evidence:
inspection ids (`insp-N`) or belief ids. The validator checks the citations against the claim
type's policy (facts/claim_policy.pl): live system state needs fresh authoritative evidence
(within 300 s, from a source of authority at least 0.9); an absence claim needs the source
checked or declared unavailable; and so on.

Two modes (seed §6.1):

  - `attention_only`: a violation is logged (`validator_violation`) and the claim goes through.
    This is the mode in which attention is scored: the validator must not rescue it.
  - `production`: a violation blocks the claim, names the missing evidence, logs a
    `validator_rescue`, and leaves a pending claim that the attention controller turns into a
    `validator_forced` candidate. Rescues are trace events of category `validator`, never
    `attention`, so enforcement can never masquerade as improved attention.

Each violation gets the Appendix B code for the stage that failed: citing a dirty or stale
belief is ATTN_STALE_STATE; citing only weak sources when an authoritative one is registered is
ATTN_SOURCE_AUTHORITY_NEGLECT; citing nothing while a stored belief on the claim exists is
ATTN_SUMMARY_SUBSTITUTION; citing nothing at all is ATTN_UNDERINSPECTION.
*/

:- dynamic
    claim_/8,            % claim_(Scope, Id, ClaimType, Subject, Text, Mode, At, Allowed)
    pending_/6,          % pending_(Scope, Id, ClaimType, Subject, Origin, At): awaiting inspection
    pending_done_/3.     % pending_done_(Scope, Id, At)

% Journalled by the store (rules/store.pl); `bench-*` scopes never reach the journal.
:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_validator:claim_/8).
atc_store:durable_predicate(atc_validator:pending_/6).
atc_store:durable_predicate(atc_validator:pending_done_/3).

%!  validator_known_claim_type(+ClaimType) is det.
%
%   ClaimType has a policy.
%   @error existence_error(claim_type, ClaimType)

validator_known_claim_type(Text) :-
    text_atom(Text, ClaimType),
    (   claim_policy(ClaimType, _)
    ->  true
    ;   existence_error(claim_type, ClaimType)
    ).

%!  validator_claim(+Scope, +Text, +ClaimType, +Subject, +Evidence:list, +Mode, +Now,
%!                  -Verdict:dict) is det.
%
%   Check the claim Text of ClaimType about Subject ('' or null: any subject) citing Evidence.
%   Mode is `attention_only` or `production` (`attention-only` is accepted). Verdict is
%   `_{claim_id, allowed, mode, violations, missing, failure_code, rescued}`: `violations` are
%   one-line explanations naming the missing evidence, `missing` the unmet requirement names.
%   @error existence_error(claim_type, ClaimType), existence_error(evidence, Id)
%   @error domain_error(validator_mode, Mode)

validator_claim(Scope0, Text, ClaimType0, Subject0, Evidence0, Mode0, Now, Verdict) :-
    scope_atom(Scope0, Scope),
    must_be(text, Text),
    must_be_bounded_text('claim text', Text),
    validator_known_claim_type(ClaimType0),
    text_atom(ClaimType0, ClaimType),
    subject_(Subject0, Subject),
    mode_(Mode0, Mode),
    must_be_time(Now),
    must_be(list, Evidence0),
    maplist(evidence_(Scope), Evidence0, Evidence),
    validator_missing(Scope, ClaimType, Subject, Evidence, Now, Missing, Code),
    next_id(Scope, atc_validator:claim_taken_(Scope), claim, Id),
    (   Missing == []
    ->  Allowed = true,
        Rescued = false,
        trace_record(Scope, claim_accepted, Now,
                     [claim_id-Id, claim_type-ClaimType, mode-Mode, evidence-Evidence0])
    ;   pairs_keys_values(Missing, Names, Reasons),
        trace_record(Scope, validator_violation, Now,
                     [claim_id-Id, claim_type-ClaimType, mode-Mode, missing-Names,
                      evidence-Evidence0, failure_code-Code]),
        (   Mode == production
        ->  Allowed = false,
            Rescued = true,
            trace_record(Scope, validator_rescue, Now,
                         [claim_id-Id, claim_type-ClaimType, missing-Names,
                          failure_code-'VALIDATOR_RESCUED']),
            validator_draft(Scope, ClaimType, Subject, validator, Now, _)
        ;   Allowed = true,
            Rescued = false
        )
    ),
    scoped_assert(atc_validator:claim_(Scope, Id, ClaimType, Subject, Text, Mode, Now, Allowed)),
    (   Missing == []
    ->  Violations = [], Names = [], FailureCode = null
    ;   Violations = Reasons, FailureCode = Code
    ),
    Verdict = _{claim_id: Id, allowed: Allowed, mode: Mode, violations: Violations,
                missing: Names, failure_code: FailureCode, rescued: Rescued}.

claim_taken_(Scope, Id) :-
    claim_(Scope, Id, _, _, _, _, _, _).

subject_(S0, S) :-
    subject_key(S0, S).

mode_(Mode0, Mode) :-
    text_atom(Mode0, Mode1),
    (   memberchk(Mode1-Mode, ['attention-only'-attention_only, attention_only-attention_only,
                               production-production])
    ->  true
    ;   domain_error(validator_mode, Mode0)
    ).

% Cited evidence is an inspection or a belief of this scope.
evidence_(Scope, Text, Evidence) :-
    text_atom(Text, Id),
    (   inspection(Scope, Id, _, _, _, _, _, _)
    ->  Evidence = inspection(Id)
    ;   belief_claim(Scope, Id, _, _)
    ->  Evidence = belief(Id)
    ;   existence_error(evidence, Id)
    ).

%!  validator_missing(+Scope, +ClaimType, +Subject, +Evidence:list, +Now, -Missing:list(pair),
%!                    -Code) is det.
%
%   Missing pairs each unmet requirement name with a one-line reason; Code is the Appendix B
%   failure code of the first unmet requirement (null when none is missing). Evidence is a list
%   of inspection(Id) and belief(Id) terms.

validator_missing(Scope, ClaimType, Subject, Evidence, Now, Missing, Code) :-
    claim_policy(ClaimType, Requirements),
    foldl(requirement_(Scope, ClaimType, Subject, Evidence, Now), Requirements, [], Missing0),
    reverse(Missing0, Missing),
    (   Missing == []
    ->  Code = null
    ;   failure_code_(Scope, ClaimType, Subject, Evidence, Now, Code)
    ).

requirement_(Scope, ClaimType, Subject, Evidence, Now, Req, Missing0, Missing) :-
    (   satisfied_(Req, Scope, ClaimType, Subject, Evidence, Now)
    ->  Missing = Missing0
    ;   requirement_name_(Req, Name),
        reason_(Req, Scope, ClaimType, Reason),
        Missing = [Name-Reason|Missing0]
    ).

requirement_name_(fresh_authoritative_evidence(_, _), fresh_authoritative_evidence).
requirement_name_(source_checked_or_unavailable, source_checked_or_unavailable).
requirement_name_(cited_evidence(_), cited_evidence).

satisfied_(fresh_authoritative_evidence(MaxAge, MinAuthority), Scope, ClaimType, Subject,
           Evidence, Now) :-
    member(E, Evidence),
    qualifying_(E, Scope, ClaimType, Subject, MinAuthority, At),
    Now - At =< MaxAge,
    !.
satisfied_(source_checked_or_unavailable, Scope, ClaimType, Subject, Evidence, _) :-
    member(inspection(I), Evidence),
    inspection(Scope, I, _, ClaimType, S, _, _, _),
    same_subject_(Subject, S),
    !.
satisfied_(cited_evidence(MinAuthority), Scope, ClaimType, Subject, Evidence, _) :-
    member(E, Evidence),
    qualifying_(E, Scope, ClaimType, Subject, MinAuthority, _),
    !.

% A successful inspection, or a live clean belief read from a source, of enough authority.
qualifying_(inspection(I), Scope, ClaimType, Subject, MinAuthority, At) :-
    inspection(Scope, I, Source, ClaimType, S, _, At, true),
    same_subject_(Subject, S),
    source_authority(Scope, Source, A),
    A >= MinAuthority.
qualifying_(belief(B), Scope, ClaimType, Subject, MinAuthority, At) :-
    belief_claim(Scope, B, ClaimType, S),
    same_subject_(Subject, S),
    belief_live(Scope, B),
    \+ belief_dirty(Scope, B, _),
    belief_origin(Scope, B, Source),
    source_authority(Scope, Source, A),
    A >= MinAuthority,
    belief_observed(Scope, B, _, At, _).

same_subject_('', _) :- !.
same_subject_(S, S).

reason_(fresh_authoritative_evidence(MaxAge, MinAuthority), Scope, ClaimType, Reason) :-
    best_source_text_(Scope, ClaimType, Best),
    format(string(Reason),
           "~w needs an inspection (or clean belief) no older than ~w s from a source of \c
            authority >= ~w~w", [ClaimType, MaxAge, MinAuthority, Best]).
reason_(source_checked_or_unavailable, Scope, ClaimType, Reason) :-
    best_source_text_(Scope, ClaimType, Best),
    format(string(Reason),
           "~w needs an inspection of the source, answered or found unavailable~w",
           [ClaimType, Best]).
reason_(cited_evidence(MinAuthority), Scope, ClaimType, Reason) :-
    best_source_text_(Scope, ClaimType, Best),
    format(string(Reason),
           "~w needs cited evidence from a source of authority >= ~w~w",
           [ClaimType, MinAuthority, Best]).

best_source_text_(Scope, ClaimType, Text) :-
    (   best_source_(Scope, ClaimType, Source, A)
    ->  format(string(Text), "; inspect ~w (authority ~w)", [Source, A])
    ;   Text = "; no source of this claim type is registered"
    ).

best_source_(Scope, ClaimType, Source, A) :-
    aggregate_all(max(A0, S0), ( source_claim_type(Scope, S0, ClaimType),
                                 source_authority(Scope, S0, A0) ), max(A, Source)).

% Which stage failed: stale or dirty evidence, weak evidence despite a strong source, a stored
% summary standing in for an inspection, or no evidence at all.
failure_code_(Scope, ClaimType, Subject, Evidence, _, 'ATTN_STALE_STATE') :-
    member(belief(B), Evidence),
    belief_claim(Scope, B, ClaimType, S), same_subject_(Subject, S),
    (   belief_dirty(Scope, B, _)
    ;   \+ belief_live(Scope, B)
    ),
    !.
failure_code_(Scope, ClaimType, Subject, Evidence, _, Code) :-
    Evidence \== [],
    claim_policy(ClaimType, Requirements),
    (   member(fresh_authoritative_evidence(_, MinA), Requirements)
    ;   member(cited_evidence(MinA), Requirements)
    ),
    !,
    (   member(E, Evidence),
        qualifying_(E, Scope, ClaimType, Subject, MinA, _)
    ->  Code = 'ATTN_STALE_STATE'          % strong enough, but too old
    ;   best_source_(Scope, ClaimType, _, A), A >= MinA
    ->  Code = 'ATTN_SOURCE_AUTHORITY_NEGLECT'
    ;   Code = 'ATTN_UNDERINSPECTION'
    ).
failure_code_(Scope, ClaimType, Subject, [], _, 'ATTN_SUMMARY_SUBSTITUTION') :-
    belief_claim(Scope, B, ClaimType, S), same_subject_(Subject, S),
    belief_live(Scope, B),
    !.
failure_code_(_, _, _, _, _, 'ATTN_UNDERINSPECTION').


                 /*******************************
                 *        PENDING CLAIMS        *
                 *******************************/

%!  validator_draft(+Scope, +ClaimType, +Subject, +Origin, +Now, -ClaimId) is det.
%
%   A state-sensitive claim of ClaimType about Subject ('' for any) is about to be made (Origin
%   `drafted`) or was blocked in production (Origin `validator`): it waits for an inspection of
%   a source of that claim type. Attention reads these through validator_pending_claim/5.

validator_draft(Scope, ClaimType0, Subject0, Origin, Now, Id) :-
    validator_known_claim_type(ClaimType0),
    text_atom(ClaimType0, ClaimType),
    subject_(Subject0, Subject),
    must_be(oneof([drafted, validator]), Origin),
    next_id(Scope, atc_validator:pending_taken_(Scope), pending, Id),
    scoped_assert(atc_validator:pending_(Scope, Id, ClaimType, Subject, Origin, Now)).

pending_taken_(Scope, Id) :-
    pending_(Scope, Id, _, _, _, _).

%!  validator_pending_claim(?Scope, ?ClaimId, ?ClaimType, ?Subject, ?Origin) is nondet.
%
%   ClaimId still waits for an inspection of a source of ClaimType.

validator_pending_claim(Scope, Id, ClaimType, Subject, Origin) :-
    pending_(Scope, Id, ClaimType, Subject, Origin, _),
    \+ pending_done_(Scope, Id, _).

%!  validator_claims_checked(+Scope, +ClaimType, +Subject, +Now) is det.
%
%   A source of ClaimType was inspected about Subject: pending claims on it (or on any subject
%   of that type) no longer wait.

validator_claims_checked(Scope, ClaimType, Subject, Now) :-
    forall(( validator_pending_claim(Scope, Id, ClaimType, S, _),
             ( S == '' ; S == Subject ) ),
           scoped_assert(atc_validator:pending_done_(Scope, Id, Now))).

%!  validator_claims(+Scope, -Claims:list(dict)) is det.
%
%   Every claim checked in Scope, oldest first; a subject as text (subject_text/2: one named
%   null or true is that text, no subject is "").

validator_claims(Scope0, Claims) :-
    scope_atom(Scope0, Scope),
    findall(At-_{claim_id: Id, claim_type: T, subject: S, text: Text, mode: M, at: At,
                 allowed: A},
            ( claim_(Scope, Id, T, S0, Text, M, At, A), subject_text(S0, S) ), Pairs),
    keysort(Pairs, Sorted),
    pairs_values(Sorted, Claims).

%!  validator_drop(+Scope) is det.
%
%   Forget the claims of Scope.

validator_drop(Scope0) :-
    scope_atom(Scope0, Scope),
    scoped_retract(atc_validator:claim_(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_validator:pending_(Scope, _, _, _, _, _)),
    scoped_retract(atc_validator:pending_done_(Scope, _, _)).
