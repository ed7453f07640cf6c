:- module(atc_tms,
          [ tms_add_source/4,             % +Scope, +Name, +ClaimType, +Options
            source_claim_type/3,          % ?Scope, ?Source, ?ClaimType
            source_authority/3,           % +Scope, +Source, -Authority
            source_cost/3,                % +Scope, +Source, -Cost
            source_switch_cost/3,         % +Scope, +Source, -SwitchCost
            source_trusted/2,             % +Scope, +Source
            source_info/3,                % +Scope, +Source, -Info
            source_rank/5,                % ?Scope, ?Source, ?ClaimType, ?Authority, ?Cost

            tms_add_belief/3,             % +Scope, +Id, +Belief
            belief_live/2,                % ?Scope, ?Id
            belief_claim/4,               % ?Scope, ?Id, ?ClaimType, ?Subject
            belief_value/3,               % ?Scope, ?Id, ?Value
            belief_observed/5,            % ?Scope, ?Id, ?Confidence, ?ObservedAt, ?Volatility
            belief_origin/3,              % ?Scope, ?Id, ?Source
            belief_support/3,             % ?Scope, ?Id, ?Support
            belief_current/3,             % +Scope, +Id, -Current
            belief_dirty/3,               % ?Scope, ?Id, ?Cause
            belief_dirtied_at/4,          % ?Scope, ?Id, ?Cause, ?At
            belief_info/4,                % +Scope, +Id, +Now, -Info
            belief_why/3,                 % +Scope, +Id, -Why
            dirt_cause_dict/2,            % +Cause, -Dict
            belief_list/3,                % +Scope, +Now, -Infos
            claim_beliefs/4,              % +Scope, +ClaimType, +Subject, -LiveIds
            contradiction/4,              % ?Scope, ?ClaimType, ?Subject, -Ids

            p_stale/3,                    % +Volatility, +AgeSeconds, -P
            volatility_hazard/2,          % +Volatility, -HazardPerSecond
            belief_p_stale/4,             % +Scope, +Id, +Now, -P
            belief_effective_confidence/4, % +Scope, +Id, +Now, -Confidence
            chance_agreement/2,           % +Value, -P
            dirty_p_changed/2,            % +Scope, -P
            reading_accuracy/3,           % +Authority, +Value, -P

            tms_source_changed/4,         % +Scope, +Source, +Now, -Dirtied
            tms_item_changed/4,           % +Scope, +Handle, +Now, -Dirtied
            tms_record_inspection/8,      % +Scope, +Source, +Subject, +Value, +Now, +Succeeded, +Cost, -Id
            inspection/8,                 % ?Scope, ?Id, ?Source, ?ClaimType, ?Subject, ?Value, ?At, ?Succeeded
            tms_observe/6,                % +Scope, +InspectionId, +ClaimType, +Subject, +Now, -Outcome
            item_dirty_beliefs/2,         % +Handle, -BeliefIds
            item_dirty_beliefs/3,         % +Scope, +Handle, -BeliefIds

            tms_redact/2,                 % +Texts, +Marker
            tms_drop/1                    % +Scope
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(assoc)).
:- use_module(attention_store).
:- use_module(attention_checks).
:- use_module('../facts/volatility').
:- use_module('../facts/authority').
:- use_module('../facts/attention_weights').

/** <module> Beliefs that go dirty: a justification-based truth maintenance system

A belief records a claim (claim type and subject), its value, the confidence it was held with,
when it was observed, the volatility class of the state it describes, and why it is held: the
inspections, journal items, sources and other beliefs that support it (Doyle, 1979). Three
things follow from keeping the why:

  - **Dirty propagation.** When a source changes (tms_source_changed/4), or an inspection
    overturns a belief (tms_observe/6), every belief that depends on it, transitively, is marked
    dirty with its cause. A dirty belief is never silently reused: the attention controller
    turns it into a candidate, the validator refuses it as evidence, and hydration can flag the
    journal items it cites (item_dirty_beliefs/2).
  - **Staleness as probability.** P(stale by t) = 1 - exp(-λ t), λ from facts/volatility.pl
    (or given as a number: a hazard per second).
  - **Yes/no facts are never worse than a coin flip.** A stale or dirty belief about an
    open-ended value (a version, a count) is as good as wrong, but one about a yes/no value
    still matches the truth half the time (chance_agreement/2); confidences and reading
    accuracies count that chance (belief_effective_confidence/4, reading_accuracy/3).
  - **Contradictions.** Two live beliefs on one claim with different values are a contradiction
    (contradiction/4), which the controller checks with high priority.

Beliefs are never edited into a different claim: an inspection that disagrees creates a new
belief and marks the old one superseded, so `why` and the trace can always say what was
believed before. Every fact carries its scope first and is written through
atc_attention_store:scoped_assert/1 (journalled, except for `bench-*` scopes).

    ?- tms_add_source(s, registry, dependency_version, _{kind: package_registry}),
       tms_add_belief(s, ver, _{claim_type: dependency_version, subject: "libfoo",
                                value: "4.1", confidence: 0.9, observed_at: 0,
                                volatility: package_release, supports: [], source: null}),
       tms_source_changed(s, registry, 100, Dirtied).
    Dirtied = [] .          % ver did not come from the registry
*/

:- dynamic
    source/7,            % source(Scope, Name, ClaimType, Kind, Authority, Cost, Trusted)
    belief/8,            % belief(Scope, Id, ClaimType, Subject, Value, Confidence, ObservedAt, Volatility)
    origin/3,            % origin(Scope, Id, Source): the source this belief is a reading of
    support/3,           % support(Scope, Id, Support): belief(B) | item(H) | source(S) | inspection(I)
    superseded/4,        % superseded(Scope, Old, New, At)
    dirty/4,             % dirty(Scope, Id, Cause, At)
    inspection/8.        % inspection(Scope, Id, Source, ClaimType, Subject, Value, At, Succeeded)
:- dynamic inspection_cost/3.   % inspection_cost(Scope, Id, Cost)
:- dynamic switch_cost/3.       % switch_cost(Scope, Source, SwitchCost): only when above 0

% Journalled by the store (rules/store.pl); `bench-*` scopes never reach the journal.
:- multifile atc_store:durable_predicate/1.
atc_store:durable_predicate(atc_tms:source/7).
atc_store:durable_predicate(atc_tms:belief/8).
atc_store:durable_predicate(atc_tms:origin/3).
atc_store:durable_predicate(atc_tms:support/3).
atc_store:durable_predicate(atc_tms:superseded/4).
atc_store:durable_predicate(atc_tms:dirty/4).
atc_store:durable_predicate(atc_tms:inspection/8).
atc_store:durable_predicate(atc_tms:inspection_cost/3).
atc_store:durable_predicate(atc_tms:switch_cost/3).


                 /*******************************
                 *           SOURCES            *
                 *******************************/

%!  tms_add_source(+Scope, +Name, +ClaimType, +Options:dict) is det.
%
%   Register (or re-register) a source that answers claims of ClaimType. Options keys, all
%   optional: `kind` (the registry kind, default Name), `authority` (number in [0,1]; null or
%   absent: looked up in facts/authority.pl for ClaimType and kind), `cost` (default 1.0),
%   `switch_cost` (what turning to it costs the work in hand, such as reading a message in the
%   middle of a task; default 0) and `trusted` (default true; events from untrusted sources
%   cannot raise priority).
%
%   @error existence_error(claim_type, ClaimType) for an unknown claim type
%   @error existence_error(source_authority, ClaimType-Kind) when no authority is given and the
%          registry does not rank that kind for that claim type

tms_add_source(Scope0, Name0, ClaimType0, Options) :-
    scope_atom(Scope0, Scope),
    new_id_atom(Name0, Name),
    known_claim_type(ClaimType0, ClaimType),
    must_be(dict, Options),
    option_value(Options, kind, Name, Kind0),
    text_atom(Kind0, Kind),
    option_value(Options, authority, null, Authority0),
    (   Authority0 == null
    ->  registry_authority(ClaimType, Kind, Authority)
    ;   must_be_probability(Authority0),
        Authority = Authority0
    ),
    option_value(Options, cost, 1.0, Cost),
    must_be_cost(Cost),
    option_value(Options, switch_cost, 0.0, Switch),
    must_be_cost(Switch),
    option_value(Options, trusted, true, Trusted),
    must_be_boolean_atom(Trusted),
    scoped_retract(atc_tms:source(Scope, Name, _, _, _, _, _)),
    scoped_retract(atc_tms:switch_cost(Scope, Name, _)),
    scoped_assert(atc_tms:source(Scope, Name, ClaimType, Kind, Authority, Cost, Trusted)),
    (   Switch > 0
    ->  scoped_assert(atc_tms:switch_cost(Scope, Name, Switch))
    ;   true
    ).

registry_authority(ClaimType, Kind, Authority) :-
    (   claim_authority(ClaimType, Kind, Authority)
    ->  true
    ;   existence_error(source_authority, ClaimType-Kind)
    ).

% Name the kinds the registry ranks for the claim type: the bare existence error said neither
% what a kind is nor which ones there are. The CLI's options are named, as `atc source add`
% is where a person meets it (the API's are kind= and authority=).
prolog:error_message(existence_error(source_authority, ClaimType-Kind)) -->
    { findall(K, claim_authority(ClaimType, K, _), Kinds),
      atomic_list_concat(Kinds, ', ', Ranked)
    },
    [ 'source kind ~w has no authority for claim type ~w: give --kind one the registry ranks \
for it (~w) or --authority A in [0, 1]'-[Kind, ClaimType, Ranked] ].

option_value(Dict, Key, Default, Value) :-
    (   get_dict(Key, Dict, V), V \== null
    ->  Value = V
    ;   Value = Default
    ).

known_claim_type(Text, ClaimType) :-
    text_atom(Text, ClaimType),
    (   claim_type(ClaimType, _)
    ->  true
    ;   existence_error(claim_type, ClaimType)
    ).

known_source(Scope, Text, Source) :-
    text_atom(Text, Source),
    (   source(Scope, Source, _, _, _, _, _)
    ->  true
    ;   existence_error(source, Source)
    ).

%!  source_claim_type(?Scope, ?Source, ?ClaimType) is nondet.
%
%   Source, registered in Scope, answers claims of ClaimType.

source_claim_type(Scope, Source, ClaimType) :-
    source(Scope, Source, ClaimType, _, _, _, _).

%!  source_rank(?Scope, ?Source, ?ClaimType, ?Authority, ?Cost) is nondet.
%
%   Source of Scope answers ClaimType with Authority at Cost: the unchecked relation the
%   controller scans while ranking (source_authority/3 and friends check their arguments).

source_rank(Scope, Source, ClaimType, Authority, Cost) :-
    source(Scope, Source, ClaimType, _, Authority, Cost, _).

%!  source_authority(+Scope, +Source, -Authority) is det.
%
%   Authority of Source for its claim type.
%   @error existence_error(source, Source)

source_authority(Scope, Source0, Authority) :-
    known_source(Scope, Source0, Source),
    once(source(Scope, Source, _, _, Authority, _, _)).

%!  source_cost(+Scope, +Source, -Cost) is det.
%
%   What one inspection of Source costs, in the units the cost weight converts to utility.
%   @error existence_error(source, Source)

source_cost(Scope, Source0, Cost) :-
    known_source(Scope, Source0, Source),
    once(source(Scope, Source, _, _, _, Cost, _)).

%!  source_switch_cost(+Scope, +Source, -SwitchCost) is det.
%
%   What turning to Source costs the work in hand, on top of its cost (0 unless registered).

source_switch_cost(Scope, Source, Switch) :-
    (   switch_cost(Scope, Source, S)
    ->  Switch = S
    ;   Switch = 0.0
    ).

%!  source_trusted(+Scope, +Source) is semidet.
%
%   Source is registered in Scope and trusted. Unregistered sources are untrusted.

source_trusted(Scope, Source0) :-
    text_atom(Source0, Source),
    source(Scope, Source, _, _, _, _, true).

%!  source_info(+Scope, +Source, -Info:dict) is det.
%
%   Everything registered about Source.
%   @error existence_error(source, Source)

source_info(Scope, Source0, Info) :-
    known_source(Scope, Source0, Source),
    once(source(Scope, Source, ClaimType, Kind, Authority, Cost, Trusted)),
    source_switch_cost(Scope, Source, Switch),
    Info = _{name: Source, claim_type: ClaimType, kind: Kind, authority: Authority,
             cost: Cost, switch_cost: Switch, trusted: Trusted}.


                 /*******************************
                 *           BELIEFS            *
                 *******************************/

%!  tms_add_belief(+Scope, +Id, +Belief:dict) is det.
%
%   Record a belief, or a new observation of an existing one (which clears its dirt). Belief has
%   the keys `claim_type`, `subject`, `value`, `confidence` (in [0,1]), `observed_at` (Unix
%   seconds), `volatility` (a class of facts/volatility.pl, or a hazard rate per second when the
%   caller knows it better than the classes do), and optionally `supports` (a list of
%   `belief:ID`, `item:HANDLE`, `source:NAME`, `inspection:ID`, or bare ids resolved in that
%   order, with `it_...` read as a journal item) and `source` (the source this belief is a
%   reading of). A belief justified by a dirty belief starts dirty. When a re-observation
%   changes the value, the belief's dependants are marked dirty; when it keeps the value (and
%   its supports are clean), dependants dirty only because it was are clean again, as after an
%   inspection that agrees (tms_observe/6).
%
%   @error existence_error(claim_type | volatility_class | source | belief | journal_item |
%          inspection | support, X) for unknown references
%   @error domain_error(hazard_per_second, H) for a negative or absurd numeric volatility
%   @error domain_error(acyclic_justification, Id-Support) when Support depends on Id
%   @error permission_error(modify, superseded_belief, Id) when Id was superseded
%   @error permission_error(change_claim, belief, Id-(ClaimType0-Subject0)) when Id is held
%          about another claim

tms_add_belief(Scope0, Id0, Belief) :-
    scope_atom(Scope0, Scope),
    new_id_atom(Id0, Id),
    must_be(dict, Belief),
    required(Belief, claim_type, ClaimType0),
    known_claim_type(ClaimType0, ClaimType),
    required(Belief, subject, Subject0),
    must_be_bounded_text(subject, Subject0),
    subject_key(Subject0, Subject),
    required(Belief, value, Value),
    must_be(atomic, Value),
    must_be_finite(Value),
    must_be_bounded_text(value, Value),
    required(Belief, confidence, Confidence),
    must_be_probability(Confidence),
    required(Belief, observed_at, ObservedAt),
    must_be_time(ObservedAt),
    required(Belief, volatility, Volatility0),
    known_volatility(Volatility0, Volatility),
    option_value(Belief, supports, [], SupportTexts),
    must_be(list, SupportTexts),
    maplist(support_term(Scope), SupportTexts, Supports0),
    sort(Supports0, Supports),
    option_value(Belief, source, null, Source0),
    (   Source0 == null
    ->  Origin = none
    ;   known_source(Scope, Source0, OriginSource),
        Origin = some(OriginSource)
    ),
    (   superseded(Scope, Id, _, _)
    ->  permission_error(modify, superseded_belief, Id)
    ;   true
    ),
    same_claim_(Scope, Id, ClaimType, Subject),
    (   cited_(Scope, Id)            % nothing can cite a belief no one cites yet
    ->  maplist(acyclic_support(Scope, Id), Supports)
    ;   true
    ),
    (   belief(Scope, Id, _, _, OldValue, _, _, _)
    ->  Revised = revised(OldValue)
    ;   Revised = new
    ),
    forget_belief_(Scope, Id),
    scoped_assert(atc_tms:belief(Scope, Id, ClaimType, Subject, Value, Confidence, ObservedAt,
                             Volatility)),
    forall(member(S, Supports), scoped_assert(atc_tms:support(Scope, Id, S))),
    (   Origin = some(O)
    ->  scoped_assert(atc_tms:origin(Scope, Id, O))
    ;   true
    ),
    inherit_dirt_(Scope, Id, Supports, ObservedAt),
    (   Revised = revised(Old), Old \== Value
    ->  dependants_dirty_(Scope, Id, belief_revised(Id), ObservedAt, _)
    ;   Revised = revised(_), \+ dirty(Scope, Id, _, _)
    ->  clean_via_(Scope, Id)        % the same value seen again, as an inspection would
    ;   true
    ).

% A field a belief must have. Given as null it is named as such: "key `subject' does not
% exist in _{...}" was wrong (the key was there) and printed the whole belief.
required(Dict, Key, Value) :-
    (   get_dict(Key, Dict, Value0)
    ->  (   Value0 == null
        ->  domain_error(belief_field(Key), null)
        ;   Value = Value0
        )
    ;   existence_error(key, Key, Dict)
    ).

:- multifile prolog:error_message//1.
prolog:error_message(domain_error(belief_field(Key), null)) -->
    [ 'a belief needs a ~w (null given)'-[Key] ].
prolog:error_message(domain_error(hazard_per_second, Hazard)) -->
    [ '~p is not a hazard rate: a volatility given as a number is changes per second, \c
       0 to 1 (or name a volatility class)'-[Hazard] ].

% A volatility is a class name or a hazard per second (at most 1: a change every second).
known_volatility(Hazard, Hazard) :-
    number(Hazard), !,
    (   Hazard >= 0, Hazard =< 1
    ->  true
    ;   domain_error(hazard_per_second, Hazard)
    ).
known_volatility(Text, Class) :-
    text_atom(Text, Class),
    (   volatility_class(Class, _, _)
    ->  true
    ;   existence_error(volatility_class, Class)
    ).

forget_belief_(Scope, Id) :-
    scoped_retract(atc_tms:belief(Scope, Id, _, _, _, _, _, _)),
    scoped_retract(atc_tms:support(Scope, Id, _)),
    scoped_retract(atc_tms:origin(Scope, Id, _)),
    scoped_retract(atc_tms:dirty(Scope, Id, _, _)).

% A support arrives as text; its kind is named by a prefix or found by lookup.
support_term(Scope, Text, Support) :-
    must_be(text, Text),
    atom_string(Atom, Text),
    (   sub_atom(Atom, B, 1, A, ':'),
        sub_atom(Atom, 0, B, _, Kind),
        memberchk(Kind, [belief, item, source, inspection])
    ->  sub_atom(Atom, _, A, 0, Ref),
        Support0 =.. [Kind, Ref]
    ;   bare_support_(Scope, Atom, Support0)
    ),
    checked_support(Scope, Support0, Support).

bare_support_(Scope, Ref, Support) :-
    (   belief(Scope, Ref, _, _, _, _, _, _)
    ->  Support = belief(Ref)
    ;   sub_atom(Ref, 0, _, _, it_)
    ->  Support = item(Ref)
    ;   source(Scope, Ref, _, _, _, _, _)
    ->  Support = source(Ref)
    ;   inspection(Scope, Ref, _, _, _, _, _, _)
    ->  Support = inspection(Ref)
    ;   existence_error(support, Ref)
    ).

checked_support(Scope, belief(B), belief(B)) :- !,
    (   belief(Scope, B, _, _, _, _, _, _)
    ->  true
    ;   existence_error(belief, B)
    ).
checked_support(_, item(H), item(H)) :- !,
    (   journal_item(H)
    ->  true
    ;   existence_error(journal_item, H)
    ).
checked_support(Scope, source(S), source(S)) :- !,
    known_source(Scope, S, _).
checked_support(Scope, inspection(I), inspection(I)) :-
    (   inspection(Scope, I, _, _, _, _, _, _)
    ->  true
    ;   existence_error(inspection, I)
    ).

% The journal module may not be loaded (rules tested alone, or no home): then no item exists.
journal_item(H) :-
    current_predicate(atc_journal:item/1),
    catch(atc_journal:item(H), error(existence_error(_, _), _), fail),
    !.

% Id may not (transitively) support any of its own supports.
:- multifile prolog:error_message//1.
prolog:error_message(domain_error(acyclic_justification, Id-Support)) -->
    [ 'belief ~w cannot cite ~w: ~w already depends on ~w (a cyclic justification)'-
      [Id, Support, Support, Id] ].

% A belief recorded again is a new observation of the same claim. Under another claim type or
% subject it silently became a different belief, and what cited it now rested on that.
prolog:error_message(permission_error(change_claim, belief, Id-(T0-S0))) -->
    [ 'belief ~w is about ~w ~w: recording it again must keep that claim (give the new one another id)'-
      [Id, T0, S0] ].

same_claim_(Scope, Id, ClaimType, Subject) :-
    (   belief(Scope, Id, T0, S0, _, _, _, _),
        T0-S0 \== ClaimType-Subject
    ->  throw(error(permission_error(change_claim, belief, Id-(T0-S0)), _))
    ;   true
    ).

acyclic_support(Scope, Id, belief(B)) :- !,
    (   depends_on_(Scope, B, Id)
    ->  domain_error(acyclic_justification, Id-B)
    ;   true
    ).
acyclic_support(_, _, _).

% Some belief cites Id, or a belief Id superseded (a citation means the belief it has become).
% Only then can Id's supports depend on Id: checking first spares a new belief at the end of a
% long chain the walk down the whole chain (recording a chain of n took time quadratic in n).
cited_(Scope, Id) :-
    support(Scope, _, belief(Id)),
    !.
cited_(Scope, Id) :-
    superseded(Scope, Old, Id, _),
    cited_(Scope, Old),
    !.

% A walk that visits each belief once: following every path (the Seen list guarded only the
% path) took time exponential in the depth of a graph whose beliefs cite two others each (28
% beliefs in a ladder: 1.6 s for the next one; 40: minutes).
depends_on_(Scope, B, Id) :-
    empty_assoc(Visited),
    reaches_([B], Scope, Id, Visited).

reaches_([B|Queue], Scope, Id, Visited) :-
    (   B == Id
    ->  true
    ;   get_assoc(B, Visited, _)
    ->  reaches_(Queue, Scope, Id, Visited)
    ;   put_assoc(B, Visited, true, Visited1),
        findall(S, ( support(Scope, B, belief(S0)), belief_current(Scope, S0, S) ), Ss),
        append(Ss, Queue, Queue1),
        reaches_(Queue1, Scope, Id, Visited1)
    ).

inherit_dirt_(Scope, Id, Supports, At) :-
    forall(( member(belief(S0), Supports),
             belief_current(Scope, S0, S),
             dirty(Scope, S, _, _)
           ),
           add_dirt_(Scope, Id, via(S), At)).

%!  belief_live(?Scope, ?Id) is nondet.
%
%   Id is a belief of Scope that no inspection has superseded (dirty or not).

belief_live(Scope, Id) :-
    belief(Scope, Id, _, _, _, _, _, _),
    \+ superseded(Scope, Id, _, _).

%!  belief_claim(?Scope, ?Id, ?ClaimType, ?Subject) is nondet.
%
%   Belief Id is about Subject, a claim of ClaimType.

belief_claim(Scope, Id, ClaimType, Subject) :-
    belief(Scope, Id, ClaimType, Subject, _, _, _, _).

%!  belief_value(?Scope, ?Id, ?Value) is nondet.
%
%   Belief Id holds Value.

belief_value(Scope, Id, Value) :-
    belief(Scope, Id, _, _, Value, _, _, _).

%!  belief_observed(?Scope, ?Id, ?Confidence, ?ObservedAt, ?Volatility) is nondet.
%
%   Belief Id was observed at ObservedAt with Confidence, about state of class Volatility.

belief_observed(Scope, Id, Confidence, ObservedAt, Volatility) :-
    belief(Scope, Id, _, _, _, Confidence, ObservedAt, Volatility).

%!  belief_origin(?Scope, ?Id, ?Source) is nondet.
%
%   Belief Id is a reading of Source.

belief_origin(Scope, Id, Source) :-
    origin(Scope, Id, Source).

%!  belief_support(?Scope, ?Id, ?Support) is nondet.
%
%   Support (belief(B), item(H), source(S) or inspection(I)) is part of why Id is held.

belief_support(Scope, Id, Support) :-
    support(Scope, Id, Support).

%!  belief_current(+Scope, +Id, -Current) is det.
%
%   Current is the live belief that Id has become, following supersession (Id itself when it
%   is live).
%   @error existence_error(belief, Id)

belief_current(Scope, Id0, Current) :-
    text_atom(Id0, Id),
    (   belief(Scope, Id, _, _, _, _, _, _)
    ->  current_(Scope, Id, Current)
    ;   existence_error(belief, Id)
    ).

current_(Scope, Id, Current) :-
    (   superseded(Scope, Id, Next, _)
    ->  current_(Scope, Next, Current)
    ;   Current = Id
    ).

%!  belief_dirty(?Scope, ?Id, ?Cause) is nondet.
%
%   Belief Id is dirty because of Cause: source_changed(S), item_changed(H),
%   belief_revised(B), superseded(Old, New) or via(B) (a belief it depends on is dirty).

belief_dirty(Scope, Id, Cause) :-
    dirty(Scope, Id, Cause, _).

%!  belief_dirtied_at(?Scope, ?Id, ?Cause, ?At) is nondet.
%
%   Belief Id was marked dirty because of Cause at At.

belief_dirtied_at(Scope, Id, Cause, At) :-
    dirty(Scope, Id, Cause, At).

%!  claim_beliefs(+Scope, +ClaimType, +Subject, -Ids:list) is det.
%
%   Ids are the live beliefs on the claim (ClaimType, Subject), in standard order.

claim_beliefs(Scope, ClaimType, Subject, Ids) :-
    findall(Id, ( belief(Scope, Id, ClaimType, Subject, _, _, _, _),
                  \+ superseded(Scope, Id, _, _) ), Ids0),
    sort(Ids0, Ids).

%!  contradiction(?Scope, ?ClaimType, ?Subject, -Ids:list) is nondet.
%
%   The live beliefs Ids on claim (ClaimType, Subject) do not all hold the same value.

contradiction(Scope, ClaimType, Subject, Ids) :-
    (   ground(Scope-ClaimType-Subject)
    ->  true                            % one claim: no need to enumerate them all
    ;   setof(ClaimType-Subject,
              Id^V^C^O^Vol^( belief(Scope, Id, ClaimType, Subject, V, C, O, Vol),
                             \+ superseded(Scope, Id, _, _) ), Claims),
        member(ClaimType-Subject, Claims)
    ),
    claim_beliefs(Scope, ClaimType, Subject, Ids),
    findall(V, ( member(Id, Ids), belief(Scope, Id, _, _, V, _, _, _) ), Vs0),
    sort(Vs0, Vs),
    Vs = [_, _|_].


                 /*******************************
                 *          STALENESS           *
                 *******************************/

%!  p_stale(+Volatility, +AgeSeconds, -P) is det.
%
%   P = 1 - exp(-λ AgeSeconds), λ the hazard rate of Volatility (volatility_hazard/2).
%   @error existence_error(volatility_class, Class)
%   @error domain_error(time_seconds, AgeSeconds) for a negative or absurd age

p_stale(Volatility, Age, P) :-
    volatility_hazard(Volatility, Lambda),
    must_be_time(Age),
    P is 1 - exp(-Lambda * Age).

%!  volatility_hazard(+Volatility, -HazardPerSecond) is det.
%
%   The hazard rate of Volatility: a class of facts/volatility.pl, or a number that is already
%   a hazard per second.
%   @error existence_error(volatility_class, Class)
%   @error domain_error(hazard_per_second, Volatility) for a negative or absurd number

volatility_hazard(Volatility0, Lambda) :-
    known_volatility(Volatility0, Volatility),
    (   number(Volatility)
    ->  Lambda = Volatility
    ;   volatility_class(Volatility, Lambda, _)
    ).

%!  belief_p_stale(+Scope, +Id, +Now, -P) is det.
%
%   Probability that the state belief Id describes has changed since it was observed. Evidence
%   from the future (clock skew) counts as just observed.

belief_p_stale(Scope, Id, Now, P) :-
    belief(Scope, Id, _, _, _, _, ObservedAt, Class),
    !,
    Age is max(0, Now - ObservedAt),
    p_stale(Class, Age, P).
belief_p_stale(_, Id, _, _) :-
    existence_error(belief, Id).

%!  belief_effective_confidence(+Scope, +Id, +Now, -Confidence) is det.
%
%   The probability that belief Id still holds at Now: its confidence while the state has not
%   changed, and only chance agreement (chance_agreement/2) once it has,
%
%       Confidence = C * (1 - P(stale)) + P(stale) * Chance
%
%   A dirty belief's state changed with P(stale) at least dirty_p_changed/2, as the
%   controller and `atc belief show` take it.

belief_effective_confidence(Scope, Id, Now, Confidence) :-
    once(belief(Scope, Id, _, _, Value, C, _, _)),
    chance_agreement(Value, Chance),
    belief_p_stale(Scope, Id, Now, ByAge),
    (   dirty(Scope, Id, _, _)
    ->  dirty_p_changed(Scope, Dirty),
        P is max(ByAge, Dirty)
    ;   P = ByAge
    ),
    Confidence is C * (1 - P) + P * Chance.

%!  dirty_p_changed(+Scope, -P) is det.
%
%   P(the state changed) taken, at least, for a dirty belief of Scope: the `dirty_p_changed`
%   weight in force. The scope's override lives in atc_attention_state, which uses this
%   module, so it answers through the hook dirty_p_changed_hook/2; without it (this module
%   loaded alone) the default of facts/attention_weights.pl holds.

:- multifile dirty_p_changed_hook/2.

dirty_p_changed(Scope, P) :-
    (   dirty_p_changed_hook(Scope, P0)
    ->  P = P0
    ;   attention_weight(dirty_p_changed, P, _)
    ).

%!  chance_agreement(+Value, -P) is det.
%
%   Probability that a value drawn without any information about a claim still agrees with
%   Value: 1/2 for a yes/no value (`true` or `false`, atom or string), 0 for an open-ended one
%   (a version, a count, a name). A stale yes/no belief is therefore at worst a coin flip, and
%   a reading that fails to reveal the truth still agrees with it half the time.

chance_agreement(Value, P) :-
    (   yes_no_(Value)
    ->  P = 0.5
    ;   P = 0.0
    ).

yes_no_(V) :- V == true.
yes_no_(V) :- V == false.
yes_no_(V) :- V == "true".
yes_no_(V) :- V == "false".

%!  reading_accuracy(+Authority, +Value, -P) is det.
%
%   Probability that a reading of Value from a source of Authority matches the truth: the
%   source reveals the truth with probability Authority and otherwise agrees only by chance,
%   P = Authority + (1 - Authority) * Chance.

reading_accuracy(Authority, Value, P) :-
    chance_agreement(Value, Chance),
    P is Authority + (1 - Authority) * Chance.


                 /*******************************
                 *       DIRTY PROPAGATION      *
                 *******************************/

%!  tms_source_changed(+Scope, +Source, +Now, -Dirtied:list) is det.
%
%   Source changed at Now: every live belief read from it or justified by it is marked dirty
%   with cause source_changed(Source), and so, transitively, is every belief they support.
%   Dirtied lists all of them, nearest first.
%   @error existence_error(source, Source)

tms_source_changed(Scope0, Source0, Now, Dirtied) :-
    scope_atom(Scope0, Scope),
    known_source(Scope, Source0, Source),
    must_be_time(Now),
    findall(Id, ( belief_live(Scope, Id),
                  (   origin(Scope, Id, Source)
                  ;   support(Scope, Id, source(Source))
                  ) ), Seeds0),
    list_to_set(Seeds0, Seeds),
    dirty_closure_(Scope, Seeds, source_changed(Source), Now, Dirtied).

%!  tms_item_changed(+Scope, +Handle, +Now, -Dirtied:list) is det.
%
%   Journal item Handle changed (or was withdrawn): beliefs citing it, and their dependants,
%   are marked dirty with cause item_changed(Handle).

tms_item_changed(Scope0, Handle0, Now, Dirtied) :-
    scope_atom(Scope0, Scope),
    text_atom(Handle0, Handle),
    must_be_time(Now),
    findall(Id, ( belief_live(Scope, Id), support(Scope, Id, item(Handle)) ), Seeds0),
    list_to_set(Seeds0, Seeds),
    dirty_closure_(Scope, Seeds, item_changed(Handle), Now, Dirtied).

% Breadth first from Seeds; each seed gets the root cause, each later belief via(Parent) for
% every dirty belief it cites, not only the first one reached: a belief reached by two paths
% (a diamond) must stay dirty when one of them is cleaned (clean_via_/2) and the other is not.
% The queue is a difference list and the seen set an assoc: with a list for each, dirtying a
% chain of n beliefs took time quadratic in n. Dirtied is the queue itself, in visiting order.
dirty_closure_(Scope, Seeds, Cause, Now, Dirtied) :-
    forall(member(Id, Seeds), add_dirt_(Scope, Id, Cause, Now)),
    list_to_assoc_set_(Seeds, Seen),
    append(Seeds, Tail, Dirtied),
    propagate_(Dirtied, Tail, Scope, Now, Seen).

list_to_assoc_set_(Ids, Assoc) :-
    empty_assoc(Assoc0),
    foldl([Id, A0, A]>>put_assoc(Id, A0, true, A), Ids, Assoc0, Assoc).

% Queue is open at Tail: what is found is appended there, and visited in turn.
propagate_(Queue, Tail, _, _, _) :-
    Queue == Tail,
    !,
    Tail = [].
propagate_([Parent|Queue], Tail0, Scope, Now, Seen0) :-
    findall(D, direct_dependant_(Scope, Parent, D), Ds0),
    list_to_set(Ds0, Ds),
    forall(member(D, Ds), add_dirt_(Scope, D, via(Parent), Now)),
    foldl(enqueue_new_, Ds, Tail0-Seen0, Tail-Seen),
    propagate_(Queue, Tail, Scope, Now, Seen).

enqueue_new_(D, Tail0-Seen0, Tail-Seen) :-
    (   get_assoc(D, Seen0, _)
    ->  Tail = Tail0, Seen = Seen0
    ;   Tail0 = [D|Tail],
        put_assoc(D, Seen0, true, Seen)
    ).

% D is live and cites Parent, or a belief that Parent superseded.
direct_dependant_(Scope, Parent, D) :-
    \+ superseded(Scope, Parent, _, _),
    cited_as_(Scope, Parent, Cited),
    support(Scope, D, belief(Cited)),
    belief_live(Scope, D).

% A citation of Cited means Id: Cited is Id or a belief that was superseded, in one or more
% steps, by Id. Walked from Id, so that finding who cites Id looks up only those citations
% (scanning every support fact of the scope for each belief was quadratic in their number).
cited_as_(_, Id, Id).
cited_as_(Scope, Id, Cited) :-
    superseded(Scope, Previous, Id, _),
    cited_as_(Scope, Previous, Cited).

dependants_dirty_(Scope, Id, Cause, Now, Dirtied) :-
    findall(D, direct_dependant_(Scope, Id, D), Ds0),
    list_to_set(Ds0, Ds),
    dirty_closure_(Scope, Ds, Cause, Now, Dirtied).

add_dirt_(Scope, Id, Cause, Now) :-
    (   dirty(Scope, Id, Cause, _)
    ->  true
    ;   scoped_assert(atc_tms:dirty(Scope, Id, Cause, Now))
    ).


                 /*******************************
                 *    INSPECTIONS (OBSERVING)   *
                 *******************************/

%!  tms_record_inspection(+Scope, +Source, +Subject, +Value, +Now, +Succeeded, +Cost, -Id) is det.
%
%   Record that Source was inspected about Subject at Now, returning Value (any atomic; ignored
%   when Succeeded is false: the source was found unavailable). Id is the new inspection id
%   (`insp-N`), usable as evidence and as a belief support.

tms_record_inspection(Scope0, Source0, Subject0, Value, Now, Succeeded, Cost, Id) :-
    scope_atom(Scope0, Scope),
    known_source(Scope, Source0, Source),
    must_be_bounded_text(subject, Subject0),
    subject_key(Subject0, Subject),
    must_be(atomic, Value),
    must_be_finite(Value),
    must_be_bounded_text(value, Value),
    must_be_time(Now),
    must_be_boolean_atom(Succeeded),
    must_be_cost(Cost),
    once(source(Scope, Source, ClaimType, _, _, _, _)),
    next_id(Scope, atc_tms:inspection_taken_(Scope), insp, Id),
    scoped_assert(atc_tms:inspection(Scope, Id, Source, ClaimType, Subject, Value, Now, Succeeded)),
    scoped_assert(atc_tms:inspection_cost(Scope, Id, Cost)).

inspection_taken_(Scope, Id) :-
    inspection(Scope, Id, _, _, _, _, _, _).

%!  tms_redact(+Texts:list, +Marker:atom) is det.
%
%   Each field Texts names (text(Kind, Scope, Id, Field, _))
%   replaced by Marker in its belief or inspection, durably; every other field, its supports
%   and its dirt stay. A belief whose value is redacted is not revised (no dependant goes
%   dirty for it): its value was not observed to change, only erased.
tms_redact(Texts, Marker) :-
    must_be(list, Texts),
    must_be(atom, Marker),
    forall(member(text(Kind, Scope, Id, Field, _), Texts),
           redact_field_(Kind, Scope, Id, Field, Marker)).

redact_field_(belief, Scope, Id, Field, Marker) :-
    forall(belief(Scope, Id, C, Subject0, Value0, Q, At, V),
           (   redacted_(Field, Marker, Subject0, Value0, Subject, Value),
               scoped_retract(atc_tms:belief(Scope, Id, C, Subject0, Value0, Q, At, V)),
               scoped_assert(atc_tms:belief(Scope, Id, C, Subject, Value, Q, At, V)) )).
redact_field_(inspection, Scope, Id, Field, Marker) :-
    forall(inspection(Scope, Id, Source, C, Subject0, Value0, At, Ok),
           (   redacted_(Field, Marker, Subject0, Value0, Subject, Value),
               scoped_retract(atc_tms:inspection(Scope, Id, Source, C, Subject0, Value0, At, Ok)),
               scoped_assert(atc_tms:inspection(Scope, Id, Source, C, Subject, Value, At, Ok)) )).

redacted_(subject, Marker, _, Value, Marker, Value).
redacted_(value, Marker, Subject, _, Subject, Marker).

%!  tms_observe(+Scope, +InspectionId, +ClaimType, +Subject, +Now, -Outcome:dict) is det.
%
%   Integrate the value a successful inspection returned into the beliefs on the claim
%   (ClaimType, Subject). With Q the reading's accuracy (reading_accuracy/3 of the inspected
%   source's authority):
%
%     - no live belief: a new belief is created, held with confidence Q;
%     - all live beliefs agree with the value: they are re-observed (fresh, clean), held with
%       what the agreement warrants (reobserve_/6);
%     - some disagree and Q is at least their effective confidence: the disagreeing beliefs are
%       superseded (by the agreeing one, or by a new belief) and their dependants go dirty;
%     - some disagree but are held more firmly than Q warrants: the reading is kept as a new,
%       contradicting belief, and the contradiction is left for attention to settle.
%
%   Outcome is `_{belief_changed, new_belief, dirtied, contradiction, previous}`.

tms_observe(Scope, InspId, ClaimType, Subject, Now, Outcome) :-
    once(inspection(Scope, InspId, Source, _, _, Value, _, true)),
    once(source(Scope, Source, _, _, Authority, _, _)),
    reading_accuracy(Authority, Value, Q),
    claim_beliefs(Scope, ClaimType, Subject, Live),
    partition(holds_value_(Scope, Value), Live, Same, Diff),
    previous_values_(Scope, Live, Previous),
    (   Live == []
    ->  default_volatility_(ClaimType, Class),
        new_belief_id_(Scope, ClaimType, Subject, InspId, NewId),
        observed_belief_(Scope, NewId, ClaimType, Subject, Value, Q, Now, Class,
                         Source, InspId),
        Outcome = _{belief_changed: true, new_belief: NewId, dirtied: [],
                    contradiction: false, previous: Previous}
    ;   Diff == []
    ->  forall(member(Id, Same), reobserve_(Scope, Id, Q, Now, Source, InspId)),
        Outcome = _{belief_changed: false, new_belief: null, dirtied: [],
                    contradiction: false, previous: Previous}
    ;   maplist(effective_confidence_(Scope, Now), Diff, Es),
        max_list(Es, Firmest),
        Q >= Firmest
    ->  (   Same = [Keep|_]
        ->  forall(member(Id, Same), reobserve_(Scope, Id, Q, Now, Source, InspId))
        ;   Diff = [First|_],
            once(belief(Scope, First, _, _, _, _, _, Class)),
            new_belief_id_(Scope, First, InspId, Keep),
            observed_belief_(Scope, Keep, ClaimType, Subject, Value, Q, Now, Class,
                             Source, InspId)
        ),
        foldl(supersede_(Scope, Keep, Now), Diff, [], Dirtied),
        Outcome = _{belief_changed: true, new_belief: Keep, dirtied: Dirtied,
                    contradiction: false, previous: Previous}
    ;   Diff = [First|_],
        once(belief(Scope, First, _, _, _, _, _, Class)),
        new_belief_id_(Scope, First, InspId, NewId),
        observed_belief_(Scope, NewId, ClaimType, Subject, Value, Q, Now, Class,
                         Source, InspId),
        Outcome = _{belief_changed: false, new_belief: NewId, dirtied: [],
                    contradiction: true, previous: Previous}
    ).

holds_value_(Scope, Value, Id) :-
    belief(Scope, Id, _, _, Value, _, _, _).

effective_confidence_(Scope, Now, Id, E) :-
    belief_effective_confidence(Scope, Id, Now, E).

previous_values_(Scope, Ids, Values) :-
    findall(V, ( member(Id, Ids), belief(Scope, Id, _, _, V, _, _, _) ), Vs),
    sort(Vs, Values).

default_volatility_(ClaimType, Class) :-
    (   default_volatility(ClaimType, Class)
    ->  true
    ;   Class = deploy_state
    ).

% A belief revised by inspection keeps the stem of the id it replaces: ver -> ver@insp-3.
% A caller may have named a belief that way already; the new one then takes the next free
% ver@insp-3.2, ... (two beliefs under one id would each hide the other).
new_belief_id_(Scope, Old, InspId, New) :-
    (   sub_atom(Old, B, _, _, '@')
    ->  sub_atom(Old, 0, B, _, Stem)
    ;   Stem = Old
    ),
    atomic_list_concat([Stem, '@', InspId], Base),
    free_belief_id_(Scope, Base, New).

new_belief_id_(Scope, ClaimType, Subject, InspId, New) :-
    format(atom(Base), '~w:~w@~w', [ClaimType, Subject, InspId]),
    free_belief_id_(Scope, Base, New).

free_belief_id_(Scope, Base, Id) :-
    (   \+ belief(Scope, Base, _, _, _, _, _, _)
    ->  Id = Base
    ;   between(2, inf, N),
        format(atom(Id), '~w.~d', [Base, N]),
        \+ belief(Scope, Id, _, _, _, _, _, _)
    ->  true
    ).

observed_belief_(Scope, Id, ClaimType, Subject, Value, Confidence, Now, Class, Source, InspId) :-
    scoped_assert(atc_tms:belief(Scope, Id, ClaimType, Subject, Value, Confidence, Now, Class)),
    scoped_assert(atc_tms:support(Scope, Id, inspection(InspId))),
    scoped_assert(atc_tms:origin(Scope, Id, Source)).

% The same value seen again: fresh evidence replaces the old justification and clears dirt.
% Dependants that were dirty only because Id was are clean again: their justification held.
% The new confidence combines what the belief still deserved with the reading's accuracy Q.
reobserve_(Scope, Id, Q, Now, Source, InspId) :-
    once(belief(Scope, Id, ClaimType, Subject, Value, _, _, Class)),
    belief_effective_confidence(Scope, Id, Now, P),
    chance_agreement(Value, Chance),
    agreement_confidence_(P, Q, Chance, C),
    forget_belief_(Scope, Id),
    observed_belief_(Scope, Id, ClaimType, Subject, Value, C, Now, Class, Source, InspId),
    clean_via_(Scope, Id).

% For a yes/no value, Bayes: two independent sources that agree can only both be wrong by
% naming the same wrong value. For an open-ended value such a coincidence has no probability we
% could defend, so the agreement is credited no more than the firmer of the two.
agreement_confidence_(P, Q, Chance, C) :-
    Coincide is Chance / (1 - Chance),
    Both is P * Q,
    Either is Both + (1 - P) * (1 - Q) * Coincide,
    (   Chance > 0, Either > 0
    ->  C is Both / Either
    ;   C is max(P, Q)
    ).

clean_via_(Scope, Id) :-
    findall(D, dirty(Scope, D, via(Id), _), Ds0),
    sort(Ds0, Ds),
    forall(member(D, Ds),
           (   scoped_retract(atc_tms:dirty(Scope, D, via(Id), _)),
               (   dirty(Scope, D, _, _)
               ->  true
               ;   clean_via_(Scope, D)
               )
           )).

supersede_(Scope, New, Now, Old, Dirtied0, Dirtied) :-
    findall(D, ( cited_as_(Scope, Old, Cited),
                 support(Scope, D, belief(Cited)),
                 belief_live(Scope, D) ), Ds0),
    list_to_set(Ds0, Seeds),
    scoped_assert(atc_tms:superseded(Scope, Old, New, Now)),
    scoped_retract(atc_tms:dirty(Scope, Old, _, _)),
    dirty_closure_(Scope, Seeds, superseded(Old, New), Now, Ds),
    append(Dirtied0, Ds, Dirtied1),
    list_to_set(Dirtied1, Dirtied).


                 /*******************************
                 *          REPORTING           *
                 *******************************/

%!  belief_info(+Scope, +Id, +Now, -Info:dict) is det.
%
%   Info describes belief Id at Now: its claim, value, confidence, observation time and age,
%   volatility and P(stale), origin, whether it is live or superseded (and by what), and its
%   dirt (a list of `_{cause, at}`, the cause a dict: dirt_cause_dict/2).
%   @error existence_error(belief, Id)

belief_info(Scope0, Id0, Now, Info) :-
    scope_atom(Scope0, Scope),
    text_atom(Id0, Id),
    must_be_time(Now),
    (   belief(Scope, Id, ClaimType, Subject, Value, Confidence, ObservedAt, Class)
    ->  true
    ;   existence_error(belief, Id)
    ),
    belief_p_stale(Scope, Id, Now, PStale),
    Age is max(0, Now - ObservedAt),
    (   origin(Scope, Id, Source) -> true ; Source = null ),
    (   superseded(Scope, Id, By, _) -> Live = false ; By = null, Live = true ),
    belief_dirt_(Scope, Id, Dirt),
    (   Dirt == [] -> Dirty = false ; Dirty = true ),
    subject_text(Subject, SubjectText),
    Info = _{id: Id, claim_type: ClaimType, subject: SubjectText, value: Value,
             confidence: Confidence, observed_at: ObservedAt, age_s: Age,
             volatility: Class, p_stale: PStale, source: Source, live: Live,
             superseded_by: By, dirty: Dirty, dirt: Dirt}.

% The dirt of belief Id as `_{cause, at}` dicts, the cause as dirt_cause_dict/2 gives it.
belief_dirt_(Scope, Id, Dirt) :-
    findall(_{cause: Dict, at: At},
            ( dirty(Scope, Id, Cause, At), dirt_cause_dict(Cause, Dict) ), Dirt).

%!  dirt_cause_dict(+Cause, -Dict:dict) is det.
%
%   Why a belief went dirty, as named fields a JSON reader takes without parsing a Prolog
%   term again: `_{kind: source_changed, source}`, `_{kind: item_changed, item}`, `_{kind:
%   superseded, belief, by}` (the belief it rests on was replaced by `by`), `_{kind:
%   belief_revised, belief}` (it was recorded again with another value) or `_{kind: via,
%   belief}` (a belief it rests on went dirty). Any other cause an older journal may hold is
%   `_{kind: Name, args}`, each argument as text.

dirt_cause_dict(source_changed(S), _{kind: source_changed, source: S}) :- !.
dirt_cause_dict(item_changed(H), _{kind: item_changed, item: H}) :- !.
dirt_cause_dict(superseded(Old, New), _{kind: superseded, belief: Old, by: New}) :- !.
dirt_cause_dict(via(B), _{kind: via, belief: B}) :- !.
dirt_cause_dict(belief_revised(B), _{kind: belief_revised, belief: B}) :- !.
dirt_cause_dict(Cause, _{kind: Name, args: Args}) :-
    (   compound(Cause)
    ->  compound_name_arguments(Cause, Name, Args0),
        maplist([A, T]>>( atomic(A) -> T = A ; term_string(A, T) ), Args0, Args)
    ;   Name = Cause, Args = []
    ).

%!  belief_why(+Scope, +Id, -Why:dict) is det.
%
%   The justification tree of belief Id: `_{id, value, dirty, supports}` where each support is
%   `_{kind: belief, id, why, deeper}` (recursively, through the belief it has become; `why` is
%   null where that belief was already expanded higher up or to the left, or, with `deeper:
%   true`, where the tree reached why_depth_limit/1 levels: ask belief_why/3 of it to go on),
%   or `_{kind: item|source|inspection, id}`.
%   @error existence_error(belief, Id)

belief_why(Scope0, Id0, Why) :-
    scope_atom(Scope0, Scope),
    text_atom(Id0, Id),
    (   belief(Scope, Id, _, _, _, _, _, _)
    ->  empty_assoc(Seen),
        why_depth_limit(Limit),
        why_(Scope, Id, Limit, Seen, _, Why)
    ;   existence_error(belief, Id)
    ).

%!  why_depth_limit(-Levels:integer) is det.
%
%   How many levels of beliefs one belief_why/3 tree holds. Unbounded, a long chain of
%   justifications nested four terms a level, and a caller converting the tree recursively
%   (the Python bridge, a JSON encoder, a printer) gave up at about 200 levels.

why_depth_limit(32).

% Each belief is expanded once, where the walk first meets it; met again, it is named with
% `why: null`. Expanded on every path, a graph whose beliefs cite two others each grew a tree
% exponential in its depth.
why_(Scope, Id, Left, Seen0, Seen, Why) :-
    once(belief(Scope, Id, ClaimType, Subject, Value, _, _, _)),
    belief_dirt_(Scope, Id, Dirt),
    findall(S, support(Scope, Id, S), Supports0),
    put_assoc(Id, Seen0, true, Seen1),
    Below is Left - 1,
    foldl(why_support_(Scope, Below), Supports0, Supports, Seen1, Seen),
    subject_text(Subject, SubjectText),
    Why = _{id: Id, claim_type: ClaimType, subject: SubjectText, value: Value, dirt: Dirt,
            supports: Supports}.

% Left: how many more levels of beliefs this tree may hold below the belief being expanded.
why_support_(Scope, Left, belief(B0), _{kind: belief, id: B0, why: Sub, deeper: Deeper},
             Seen0, Seen) :- !,
    current_(Scope, B0, B),
    (   get_assoc(B, Seen0, _)
    ->  Sub = null, Deeper = false,
        Seen = Seen0
    ;   Left =< 0
    ->  Sub = null, Deeper = true,
        Seen = Seen0
    ;   Deeper = false,
        why_(Scope, B, Left, Seen0, Seen, Sub)
    ).
why_support_(_, _, Support, _{kind: Kind, id: Ref}, Seen, Seen) :-
    Support =.. [Kind, Ref].

%!  belief_list(+Scope, +Now, -Infos:list(dict)) is det.
%
%   belief_info/4 of every belief in Scope, live or superseded, ordered by id.

belief_list(Scope0, Now, Infos) :-
    scope_atom(Scope0, Scope),
    findall(Id, belief(Scope, Id, _, _, _, _, _, _), Ids0),
    sort(Ids0, Ids),
    maplist(info_at_(Scope, Now), Ids, Infos).

info_at_(Scope, Now, Id, Info) :-
    belief_info(Scope, Id, Now, Info).

%!  item_dirty_beliefs(+Handle, -BeliefIds:list) is det.
%
%   BeliefIds are the live, dirty beliefs in any scope that cite journal item Handle as
%   evidence, so hydration can flag the item. Sorted, without duplicates.

item_dirty_beliefs(Handle0, Ids) :-
    text_atom(Handle0, Handle),
    findall(Id, ( support(Scope, Id, item(Handle)),
                  belief_live(Scope, Id),
                  dirty(Scope, Id, _, _) ), Ids0),
    sort(Ids0, Ids).

%!  item_dirty_beliefs(+Scope, +Handle, -BeliefIds:list) is det.
%
%   As item_dirty_beliefs/2, within one scope.

item_dirty_beliefs(Scope0, Handle0, Ids) :-
    scope_atom(Scope0, Scope),
    text_atom(Handle0, Handle),
    findall(Id, ( support(Scope, Id, item(Handle)),
                  belief_live(Scope, Id),
                  dirty(Scope, Id, _, _) ), Ids0),
    sort(Ids0, Ids).

%!  tms_drop(+Scope) is det.
%
%   Forget every source, belief, inspection and mark of Scope.

tms_drop(Scope0) :-
    scope_atom(Scope0, Scope),
    scoped_retract(atc_tms:source(Scope, _, _, _, _, _, _)),
    scoped_retract(atc_tms:belief(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_tms:origin(Scope, _, _)),
    scoped_retract(atc_tms:support(Scope, _, _)),
    scoped_retract(atc_tms:superseded(Scope, _, _, _)),
    scoped_retract(atc_tms:dirty(Scope, _, _, _)),
    scoped_retract(atc_tms:inspection(Scope, _, _, _, _, _, _, _)),
    scoped_retract(atc_tms:inspection_cost(Scope, _, _)),
    scoped_retract(atc_tms:switch_cost(Scope, _, _)).
