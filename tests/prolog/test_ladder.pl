:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/ladder').
:- use_module(library(plunit)).
:- use_module(library(yall)).
:- use_module(library(apply)).

fresh :- store_reset.
add(H, Seq, Goal) :-
    journal_add_items([item(H, src, "s1", Seq, conclusion, assistant, Goal, "", default, "f:1",
                            "We decided to use backoff.", [])], _).
rungs(Id, Prov) :-
    ladder_store([rungs(Id, 'extractive@1', "one", "decisions: use backoff", "tags: x",
                        t(1, 4, 2), [decision-"use backoff"], Prov)]).

:- begin_tests(ladder, [setup(fresh), cleanup(fresh)]).

test(rungs_and_l0, [setup(fresh), true(L-T1 == ["We decided to use backoff.", "one"]-"one")]) :-
    add(h1, 0, "g"), rungs(h1, [h1]),
    findall(X, ( member(Lv, [l0, l1]), rung(h1, Lv, X) ), L),
    rung(h1, l1, T1).

test(restore_replaces, [setup(fresh), true(N == 1)]) :-
    add(h1, 0, "g"), rungs(h1, [h1]), rungs(h1, [h1]),
    aggregate_all(count, rung(h1, l1, _), N).

% A rung's sizes (UTF-8 bytes << 32 + words) are stored after its rungs and read back by
% level; storing the rungs again drops them (the new text's are stored after it), sizes of a
% record not stored are not kept, and ladder_unsized/2 lists the records without them.
size_(Bytes, Words, S) :- S is Bytes << 32 + Words.

test(rung_sizes_stored_and_dropped,
     [setup(fresh), true(R == [26-4, 3-1, 22-3, none, [h1], []])]) :-
    add(h1, 0, "g"), rungs(h1, [h1]),
    ladder_unsized(10, U0), findall(Id, member(unsized(Id, _, _, _, _), U0), Before),
    size_(26, 4, S0), size_(3, 1, S1), size_(22, 3, S2), size_(7, 2, S3),
    ladder_store([sizes(h1, S0, S1, S2, S3), sizes(nothing, S0, none, none, none)]),
    rung_size(h1, l0, B0, W0), rung_size(h1, l1, B1, W1), rung_size(h1, l2, B2, W2),
    ladder_unsized(10, Left),
    rungs(h1, [h1]),
    ( rung_size(h1, l1, _, _) -> Again = kept ; Again = none ),
    ( rung_size(nothing, l0, _, _) -> Stray = [nothing] ; Stray = [] ),
    R = [B0-W0, B1-W1, B2-W2, Again, Before, Left],
    assertion(Stray == []).

% The sizes given with a record's rungs are held in the record itself (no fact of their own,
% ~90 bytes a record less); storing its L0 tokens again keeps them; sizes stored later
% replace them there. Sizes stored later for a record without them (a home curated before
% them) are a fact of their own until a snapshot writes them into the record.
test(rung_sizes_held_in_the_record,
     [setup(fresh), true(R == [26-4, 22-3, 0, 9-2, 0, Tail, 5-[h3], 11-3, 1, Tail4])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"), add(h3, 2, "g"),
    size_(26, 4, S0), size_(3, 1, S1), size_(22, 3, S2), size_(7, 2, S3),
    ladder_store([rungs(h1, 'extractive@1', "one", "decisions: use backoff", "tags: x",
                        t(1, 4, 2), [decision-"use backoff"], [h1]),
                  l0_tokens(h1, 5),
                  sizes(h1, S0, S1, S2, S3)]),
    rung_size(h1, l0, B0, W0), rung_size(h1, l2, B2, W2),
    aggregate_all(count, atc_ladder:rung_sizes_(_, _, _, _, _), N1),
    ladder_store([rungs(h2, 'extractive@1', "one", "decisions: use backoff", "tags: x",
                        t(1, 4, 2), [decision-"use backoff"], [h2]),
                  l0_tokens(h2, 5),
                  sizes(h2, S0, S1, S2, S3)]),
    size_(9, 2, T0),
    ladder_store([sizes(h2, T0, S1, S2, S3)]),   % later: replace the record's
    ladder_store([l0_tokens(h2, 6)]),
    rung_size(h2, l0, B, W),
    aggregate_all(count, atc_ladder:rung_sizes_(_, _, _, _, _), N2),
    Tail = sized(6, T0, S1, S2, S3),
    atc_ladder:record_(h2, _, _, _, _, _, _, _, _, _, Written),
    rungs(h3, [h3]),                            % none given: listed to be sized
    once(rung_tokens(h1, l0, L0Tokens)),
    ladder_unsized(10, Left), findall(Id, member(unsized(Id, _, _, _, _), Left), Ids),
    size_(11, 3, U0),
    ladder_store([sizes(h3, U0, S1, S2, S3)]),   % later, for a record without them
    rung_size(h3, l0, B3, W3),
    aggregate_all(count, atc_ladder:rung_sizes_(_, _, _, _, _), N3),
    atc_ladder:record_(h3, C3, V1, X1, V2, X2, V3, X3, F3, P3, Tail3),
    atc_store:current_form(atc_ladder:record_(h3, C3, V1, X1, V2, X2, V3, X3, F3, P3, Tail3),
                           record_(_, _, _, _, _, _, _, _, _, _, Tail4)),
    Tail4 = sized(none, U0, S1, S2, S3),
    R = [B0-W0, B2-W2, N1, B-W, N2, Written, L0Tokens-Ids, B3-W3, N3, Tail4].

% A record read once for several answers (stored_/2, what rungs_of/3 reads) carries its L0
% token count where the record's tail holds the sizes beside it.
test(stored_record_carries_l0_tokens_not_its_sizes, [setup(fresh), true(L0 == 5)]) :-
    add(h1, 0, "g"),
    size_(26, 4, S0), size_(3, 1, S1), size_(22, 3, S2), size_(7, 2, S3),
    ladder_store([rungs(h1, 'extractive@1', "one", "decisions: use backoff", "tags: x",
                        t(1, 4, 2), [decision-"use backoff"], [h1]),
                  l0_tokens(h1, 5), sizes(h1, S0, S1, S2, S3)]),
    atc_ladder:stored_(h1, rec(_, _, _, _, _, _, _, _, _, L0)).

% A home written before holds the sizes as rung_sizes_/5 facts beside its records: they are
% read from there, and its snapshot writes them in the record and no such fact.
test(rung_sizes_of_older_records_written_in_the_record,
     [setup(fresh), true(R == [26-4, [], sized(5, S0, S1, S2, S3), [], 26-4])]) :-
    add(h1, 0, "g"), rungs(h1, [h1]),
    size_(26, 4, S0), size_(3, 1, S1), size_(22, 3, S2), size_(7, 2, S3),
    % as the code before wrote them: the record with its L0 tokens alone, the sizes apart
    retract(atc_ladder:record_(h1, C, R1, T1, R2, T2, R3, T3, F, P, _)),
    assertz(atc_ladder:record_(h1, C, R1, T1, R2, T2, R3, T3, F, P, 5)),
    assertz(atc_ladder:rung_sizes_(h1, S0, S1, S2, S3)),
    rung_size(h1, l0, B0, W0),
    ladder_unsized(10, Left),
    atc_ladder:record_(h1, C1, A1, U1, A2, U2, A3, U3, F1, P1, Tail1),
    atc_store:current_form(atc_ladder:record_(h1, C1, A1, U1, A2, U2, A3, U3, F1, P1, Tail1),
                           record_(_, _, _, _, _, _, _, _, _, _, Tail)),
    findall(X, atc_store:written_facts(atc_ladder:rung_sizes_/5, X), Written),
    % and a snapshot's record read back
    retract(atc_ladder:record_(h1, _, _, _, _, _, _, _, _, _, _)),
    assertz(atc_ladder:record_(h1, C, R1, T1, R2, T2, R3, T3, F, P, Tail)),
    retractall(atc_ladder:rung_sizes_(_, _, _, _, _)),
    rung_size(h1, l0, B, W),
    R = [B0-W0, Left, Tail, Written, B-W].

test(uncurated, [setup(fresh), true(Hs == [h2])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"), rungs(h1, [h1]),
    ladder_uncurated(10, Vs),
    findall(H, member(view(H, _, _, _, _, _, _, _, _), Vs), Hs).

test(uncurated_count_follows_curation, [setup(fresh), true(Ns == [2, 1, 0])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_uncurated_count(N0),
    rungs(h1, [h1]), ladder_uncurated_count(N1),
    rungs(h2, [h2]), ladder_uncurated_count(N2),
    Ns = [N0, N1, N2].

% The count kept after each write (grown by what was added, or counted again) is the count
% of every live item without rungs, whatever the writes: turns of one to twenty items (past
% store_appended/4's limit), curation, re-adding an item, tombstones, erasure.
test(uncurated_count_after_any_writes, [setup(fresh), true(Bad == [])]) :-
    set_random(seed(7)),
    numlist(1, 120, Steps),
    foldl(write_step_, Steps, 0, _),
    findall(S, ( member(S, Steps), nb_current(uncurated_bad, S) ), Bad0),
    ( nb_current(uncurated_mismatch, Bad0x) -> Bad = Bad0x ; Bad = Bad0 ).

write_step_(Step, N0, N) :-
    random_between(1, 10, Op),
    (   Op =< 5
    ->  random_between(1, 20, K),
        findall(item(H, src, "s1", Seq, conclusion, assistant, "g", "", default, "f:1", Text, []),
                ( between(1, K, I), Seq is N0 + I, format(atom(H), "h~w", [Seq]),
                  format(string(Text), "turn ~w", [Seq]) ),
                Items),
        journal_add_items(Items, _),
        N is N0 + K
    ;   Op =< 7, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        ( item(H) -> rungs(H, [H]) ; true ), N = N0
    ;   Op == 8, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        format(string(Text), "turn ~w", [Seq]),
        journal_add_items([item(H, src, "s1", Seq, conclusion, assistant, "g", "", default, "f:1", Text, [])], _),
        N = N0
    ;   Op == 9, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        ( item(H) -> journal_tombstone(H, "test") ; true ), N = N0
    ;   Op == 10, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        ( item(H) -> journal_erase(H, "test", "test", _) ; true ), N = N0
    ;   N = N0
    ),
    ladder_uncurated_count(Kept),
    ladder_uncurated_handles(Hs), length(Hs, Counted),
    (   Kept =:= Counted -> true ; nb_setval(uncurated_mismatch, [Step-Op-Kept-Counted]) ).

test(smallest_skeleton, [setup(fresh), true(T == 2)]) :-
    add(h1, 0, "g"), \+ ladder_smallest_skeleton(_),
    rungs(h1, [h1]), ladder_smallest_skeleton(T).

test(curated_texts, [setup(fresh),
                     true(Got == "h1\nh3"-2-"arc_1"-1)]) :-
    add(h1, 0, "g"), add(h2, 1, "g"), add(h3, 2, "g"),
    rungs(h1, [h1]), rungs(h3, [h3]),
    ladder_store([arc(arc_1, s1, "g", [h1, h3])]), rungs(arc_1, [h1, h3]),
    ladder_curated_texts(Items, N, Arcs, M),
    Got = Items-N-Arcs-M.

test(curated_texts_empty, [setup(fresh), true(Got == ""-0-""-0)]) :-
    add(h1, 0, "g"),
    ladder_curated_texts(Items, N, Arcs, M),
    Got = Items-N-Arcs-M.

test(arc_members_in_order, [setup(fresh), true(Ms == [h1, h2])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([arc(arc_1, s1, "g", [h1, h2])]),
    findall(H, arc_member(arc_1, H), Ms).

% A given arc's members are its live ones in its order, as the arcs listed with theirs give
% them (arc_member/2 asks a given arc whether it is live once, not per member); an arc one of
% whose members is erased has none, until curation rebuilds it.
test(a_given_arcs_members_are_those_listed_with_it,
     [setup(fresh), true(R == [[h1, h2, h3], [h1, h2, h3], [], [], [h4]])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"), add(h3, 2, "g"), add(h4, 3, "h"),
    ladder_store([arc(arc_1, s1, "g", [h1, h2, h3]), arc(arc_2, s1, "h", [h4])]),
    rungs(arc_1, [h1, h2, h3]),
    findall(H, arc_member(arc_1, H), Given0),
    findall(H, ( arc_member(A, H), A == arc_1 ), Listed0),
    journal_tombstone(h2, "forget"),
    findall(H, arc_member(arc_1, H), Given1),
    findall(H, ( arc_member(A, H), A == arc_1 ), Listed1),
    findall(H, arc_member(arc_2, H), Other),
    R = [Given0, Listed0, Given1, Listed1, Other].

test(forgetting_invalidates_derivatives, [setup(fresh), true(Ids-Left == [arc_1]-[])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([arc(arc_1, s1, "g", [h1, h2])]),
    rungs(arc_1, [h1, h2]),
    journal_tombstone(h1, "forget"),
    findall(T, rung(arc_1, l1, T), []),
    ladder_invalidate([h1], Ids),
    findall(A, arc(A), Left).

test(erasing_drops_echo_marks, [setup(fresh), true(Echoes-Marks == [h2]-[])]) :-
    add(h1, 0, "g"), add(h2, 1, "g"),
    ladder_store([echo(h2, h1, 0.9)]),
    ladder_erase([h1], _, Echoes),
    findall(E-O, atc_ladder:echo_(E, O, _), Marks).

test(bad_record, [setup(fresh), throws(error(domain_error(ladder_record, junk), _))]) :-
    ladder_store([junk]).

:- end_tests(ladder).

% The packed form: one record_/11 per record answers as the first fact forms did.
add_at(H, Session, Seq, Text) :-
    journal_add_items([item(H, src, Session, Seq, conclusion, assistant, "g", "2026-01-01T00:00:00Z",
                            default, "f:1", Text, [])], _).
record(Id, R1, R2, R3, Fields, Prov) :-
    atc_ladder:record_(Id, _, R1, _, R2, _, R3, _, Fields, Prov, _).
vocabulary(Id, V) :-
    findall(rung(L, T), rung(Id, L, T), Rs),
    findall(tok(L, T), rung_tokens(Id, L, T), Ts),
    findall(F-X, distilled(Id, F, X), Ds),
    findall(H, provenance(Id, H), Ps),
    findall(C, curated(Id, C), Cs),
    V = [Rs, Ts, Ds, Ps, Cs].

:- begin_tests(ladder_packed, [setup(fresh), cleanup(fresh)]).

test(rungs_held_once, [setup(fresh),
                       true(Got == r(l0, l0, "tag line", ["Short.", "Short.", "tag line"]))]) :-
    add_at(h1, s1, 0, "Short."),
    ladder_store([rungs(h1, c, "Short.", "Short.", "tag line", t(2, 2, 3), [], [h1])]),
    record(h1, R1, R2, R3, _, self),
    findall(T, ( member(L, [l1, l2, l3]), rung(h1, L, T) ), Ts),
    Got = r(R1, R2, R3, Ts).

test(l0_expiry_keeps_shared_rungs, [setup(fresh), true(Got == ["Short.", "Short."]-none-"Short.")]) :-
    add_at(h1, s1, 0, "Short."),
    ladder_store([rungs(h1, c, "Short.", "Short.", "t", t(2, 2, 1), [], [h1])]),
    ladder_expire(l0, "2027-01-01", 1),
    findall(T, ( member(L, [l1, l2]), rung(h1, L, T) ), Ts),
    (   rung(h1, l0, _) -> L0 = some ; L0 = none ),
    record(h1, R1, _, _, _, _),
    Got = Ts-L0-R1.

test(rung_expiry_keeps_a_rung_sharing_it, [setup(fresh), true(Got == [l2-"same", l3-"other"])]) :-
    add_at(h1, s1, 0, "Long text."),
    ladder_store([rungs(h1, c, "same", "same", "other", t(1, 1, 1), [], [h1])]),
    record(h1, _, l1, _, _, _),
    ladder_expire(l1, "2027-01-01", 1),
    findall(L-T, rung(h1, L, T), Got0),
    exclude([L-_]>>(L == l0), Got0, Got).

test(fields_in_order_with_their_multiplicity,
     [setup(fresh), true(Got == [[entity-"X", tag-"t", entity-"X", outcome-"Done."], [h1, h1], [h1], []])]) :-
    add_at(h1, s1, 0, "Text."),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1),
                        [entity-"X", tag-"t", entity-"X", outcome-"Done."], [h1])]),
    findall(F-V, distilled(h1, F, V), Fields),
    findall(I, distilled(I, entity, "X"), ByEntity),
    findall(I, distilled(I, tag, "t"), ByTag),
    findall(I, distilled(I, entity, 'X'), ByAtom),        % values are strings
    Got = [Fields, ByEntity, ByTag, ByAtom].

% rungs_of/3 reads a record once for the levels a frame may show: it answers what rung/3
% (which levels exist) and rung_tokens/3 (their stored prices) answer level by level, and
% rung_held/2 which levels exist as rung/3 does, for
% rungs that are the L0 text, rendered fields, an empty rung, expired rungs,
% an arc, an item without a record, a dropped L0 text and a tombstoned item.
rungs_agree_(Id) :-
    Levels = [l0, l1, l2, l3],
    findall(L-T, ( member(L, Levels), once(rung(Id, L, _)),
                   ( rung_tokens(Id, L, T0) -> T = T0 ; T = none ) ), Expected),
    rungs_of(Id, Levels, Got),
    assertion(Got == Expected),
    findall(L-T, ( member(L, [l1, l3]), member(L-T, Expected) ), Part),
    rungs_of(Id, [l1, l3], GotPart),
    assertion(GotPart == Part),
    findall(L, ( member(L, Levels), rung_held(Id, L) ), Held),   % told without the texts
    pairs_keys(Expected, Held).

test(rungs_of_answers_as_rung_and_rung_tokens, [setup(fresh), true(Shapes == [4, 4, 4, 1]-fields)]) :-
    Ids = [h1, h2, h3, h4, arc_1, nothing],
    add_at(h1, s1, 0, "Short."), add_at(h2, s1, 1, "Long text about backoff."),
    add_at(h3, s1, 2, "Third."), add_at(h4, s1, 3, "Uncurated."),
    ladder_store([rungs(h1, c, "Short.", "Short.", "tag line", t(2, 2, 3), [], [h1]),
                  rungs(h2, c, "one", "decisions: use backoff", "decisions: use backoff",
                        t(1, 4, 4), [decision-"use backoff"], [h2]),
                  rungs(h3, c, "three", "", "tags: t", t(1, 0, 2), [tag-"t"], [h3]),
                  arc(arc_1, s1, "g", [h1, h2]),
                  rungs(arc_1, c, "a", "b", "c", t(1, 1, 1), [], [h1, h2])]),
    maplist(rungs_agree_, Ids),
    findall(N, ( member(Id, [h1, h2, h3, h4]), rungs_of(Id, [l0, l1, l2, l3], R),
                 length(R, N) ), Ns),
    record(h2, _, R2, _, _, _),
    Shapes = Ns-R2,
    ladder_expire(l1, "2027-01-01", _),
    maplist(rungs_agree_, Ids),
    ladder_expire(l0, "2027-01-01", _),
    maplist(rungs_agree_, Ids),
    journal_tombstone(h2, "gone"),
    maplist(rungs_agree_, Ids).

test(provenance_implied_and_found_from_the_item,
     [setup(fresh), true(Got == [self-[h1], members-[h1, h2], rollup-[h1, h2], facts-[h2, h1],
                                 [arc_1, h1, other, ses_1]])]) :-
    add_at(h1, s1, 0, "One."), add_at(h2, s1, 1, "Two."),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [], [h1]),
                  arc(arc_1, s1, "g", [h1, h2]),
                  rungs(arc_1, c, "a", "b", "c", t(1, 1, 1), [], [h1, h2]),
                  rollup(ses_1, s1),
                  rungs(ses_1, c, "a", "b", "c", t(1, 1, 1), [], [h1, h2]),
                  rungs(other, c, "a", "b", "c", t(1, 1, 1), [], [h2, h1])]),
    findall(K-Ps, ( member(Id, [h1, arc_1, ses_1, other]),
                    record(Id, _, _, _, _, P), ( P = rollup(_) -> K = rollup ; K = P ),
                    findall(H, provenance(Id, H), Ps) ), Got0),
    findall(Id, provenance(Id, h1), Ids0), msort(Ids0, Ids),
    append(Got0, [Ids], Got).

test(provenance_enumerated_once, [setup(fresh), true(N == 2)]) :-
    add_at(h1, s1, 0, "One."), add_at(h2, s1, 1, "Two."),
    ladder_store([rungs(other, c, "a", "b", "c", t(1, 1, 1), [], [h2, h1])]),
    aggregate_all(count, provenance(_, _), N).

test(tombstoned_item_invalidates_its_rollup, [setup(fresh), true(Ids-Live == [arc_1, h1, ses_1]-[])]) :-
    add_at(h1, s1, 0, "One."), add_at(h2, s1, 1, "Two."),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [], [h1]),
                  arc(arc_1, s1, "g", [h1, h2]),
                  rungs(arc_1, c, "a", "b", "c", t(1, 1, 1), [], [h1, h2]),
                  rollup(ses_1, s1),
                  rungs(ses_1, c, "a", "b", "c", t(1, 1, 1), [], [h1, h2])]),
    journal_tombstone(h1, "gone"),
    findall(R, rung(ses_1, l1, R), Live),
    ladder_invalidate([h1], Ids).

test(l0_tokens_folded_and_kept, [setup(fresh), true(Got == [7, 0, 7, 1])]) :-
    add_at(h1, s1, 0, "One."),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [], [h1]), l0_tokens(h1, 7)]),
    rung_tokens(h1, l0, T1),
    aggregate_all(count, atc_ladder:l0_tokens_(_, _), N1),
    ladder_invalidate([h1], _),                  % its rungs go, its L0 count stays
    rung_tokens(h1, l0, T2),
    aggregate_all(count, atc_ladder:l0_tokens_(_, _), N2),
    Got = [T1, N1, T2, N2].

test(old_forms_answer_and_upgrade, [setup(fresh), true(Before-Count-Old == After-1-0)]) :-
    add_at(h1, s1, 0, "One."),
    forall(member(F, [rung_(h1, l1, "One.", 2), rung_(h1, l3, "tags", 1),
                      distill_(h1, tag, "t"), distill_(h1, entity, "E"), provenance_(h1, h1),
                      curated_(h1, 'extractive@1.0'), l0_tokens_(h1, 2)]),
           durable_assert(atc_ladder:F)),
    vocabulary(h1, Before),
    findall(I, distilled(I, entity, "E"), [h1]),
    ladder_upgrade(10, Count),
    vocabulary(h1, After),
    findall(I, distilled(I, entity, "E"), [h1]),
    aggregate_all(count, ( member(G, [rung_(_, _, _, _), distill_(_, _, _), curated_(_, _),
                                      provenance_(_, _), l0_tokens_(_, _)]),
                           call(atc_ladder:G) ), Old).

test(entity_index_follows_the_record, [setup(fresh), true(Got == [[], [h1], [], 1])]) :-
    add_at(h1, s1, 0, "One."),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [entity-"Old"], [h1])]),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [entity-"New"], [h1])]),
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [entity-"New"], [h1])]),
    findall(I, distilled(I, entity, "Old"), Old),
    findall(I, distilled(I, entity, "New"), New),
    journal_tombstone(h1, "gone"),
    findall(I, distilled(I, entity, "New"), Dead),
    aggregate_all(count, atc_ladder:entity_(_, _, _), N),
    Got = [Old, New, Dead, N].

% An L2 that is its distillation rendered (curation's L2 of most items: "outcomes: a | b;
% entities: x, y") is not held a second time as text: the record names it `fields` and it
% reads back the same, as does an L3 sharing it, after its L1 expires and after the L0 text
% is dropped. An L2 that says anything else is kept as it was given.
test(l2_rendered_from_its_fields,
     [setup(fresh), true(Got == [fields, l2, T, T, T, T, "decisions: other", "decisions: other"])]) :-
    T = "decisions: use backoff | retry twice; outcomes: ok; entities: X, Y",
    Fields = [entity-"X", decision-"use backoff", tag-"t", entity-"Y", outcome-"ok",
              decision-"retry twice"],
    add_at(h1, s1, 0, "We decided to use backoff and retry twice; it was ok for X and Y."),
    ladder_store([rungs(h1, c, "one", T, T, t(1, 9, 9), Fields, [h1])]),
    record(h1, _, R2, R3, _, _),
    rung(h1, l2, L2a), rung(h1, l3, L3a),
    ladder_expire(l1, "2027-01-01", 1),
    rung(h1, l2, L2b),
    ladder_expire(l0, "2027-01-01", 1),
    rung(h1, l2, L2c),
    add_at(h2, s1, 1, "Other."),
    ladder_store([rungs(h2, c, "one", "decisions: other", "x", t(1, 3, 1),
                        [decision-"something else"], [h2])]),
    rung(h2, l2, Other),
    record(h2, _, OtherR2, _, _, _),
    Got = [R2, R3, L2a, L3a, L2b, L2c, Other, OtherR2].

% A home written before holds such an L2 as text: its snapshot writes the record in the
% form above (and its fields as the term), a record whose L2 says anything else unchanged.
test(l2_text_of_older_records_written_as_fields,
     [true(Got == [fields-fields(entity('X'), outcome("ok")), "outcomes: not ok"-none])]) :-
    Old = record_(h1, c, "one", 1, "outcomes: ok; entities: X", 4, l2, 4,
                  [entity-['X'], outcome-["ok"]], self, 3),
    atc_store:current_form(atc_ladder:Old, record_(_, _, _, _, R2, _, _, _, F, _, _)),
    Other = record_(h2, c, "one", 1, "outcomes: not ok", 4, l2, 4,
                    fields(outcome("ok")), self, 3),
    (   atc_store:current_form(atc_ladder:Other, record_(_, _, _, _, R2b, _, _, _, _, _, _))
    ->  Changed = R2b
    ;   Changed = none
    ),
    Got = [R2-F, "outcomes: not ok"-Changed].

test(bad_field, [setup(fresh), throws(error(type_error(field_value, oops), _))]) :-
    ladder_store([rungs(h1, c, "a", "b", "c", t(1, 1, 1), [oops], [h1])]).

% Which rungs a record has (rungs_of/3, every frame's fovea) tells an L2 of `fields` from its
% distillation without rendering it (fields_held_/1): it holds one exactly when the rendering
% (fields_text_/2) gives a text, for every shape a distillation is stored in: sections of
% values, tags alone (which render nothing), a group with no values, none at all, and the
% list form of homes written before.
test(a_fields_rung_held_exactly_when_it_renders,
     [true(Got == [true, true, true, false, false, false, false, true])]) :-
    Shapes = [fields(decision("a"), tag("t")),
              fields(tag("t"), entity("X", "Y")),
              fields(outcome("ok"), fact("f"), constraint("c")),
              fields(tag("t")),
              fields(decision, tag("u")),
              [],
              [decision-["a"]],
              fields(tag("t"), fact("f"))],
    findall(Held,
            ( member(F, Shapes),
              (   atc_ladder:fields_held_(F) -> Held = true ; Held = false ),
              (   atc_ladder:fields_text_(F, _) -> Renders = true ; Renders = false ),
              assertion(Held == Renders) ),
            Got).

:- end_tests(ladder_packed).
