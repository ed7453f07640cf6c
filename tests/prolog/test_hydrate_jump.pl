:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* Which records the jump weighs (atc_hydrate:seed_ranking/5), with the host's searches stubbed:
   the semantic search returns the same few hits whatever the query, BM25 one more record past
   the semantic cut, and every record the jump asks about by name has cosine 0.3. */

:- dynamic atc_jump:semantic_hits/4, atc_jump:lexical_hits/4, atc_jump:similarity_scores/4,
   atc_jump:similarity_within_scores/4.

% the host's form of an answer (hits(Keys, Scores), the keys one text); BM25's the list form
atc_jump:semantic_hits(Q, _, _, hits(Text, Scores)) :-
    (   Q == "nothing near"
    ->  Text = "", Scores = []
    ;   Text = "old1\nold2\nold3\nnew1", Scores = [0.6, 0.55, 0.5, 0.45]
    ).
atc_jump:lexical_hits(_, _, _, [lex1-5.0]).
atc_jump:similarity_scores(_, Joined, _, Pairs) :-
    atomic_list_concat(Records, '\n', Joined),
    findall(R-0.3, member(R, Records), Pairs).
atc_jump:similarity_within_scores(_, Groups, _, Pairs) :-
    findall(R-0.3, ( member(Members-LeftOut, Groups),
                     atomic_list_concat(Rs, '\n', Members),
                     atomic_list_concat(Out, '\n', LeftOut),
                     member(R, Rs), R \== '', \+ memberchk(R, Out) ), Pairs).

dated(H, Seq, Time, item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", "text", [])).

memory :-
    store_reset,
    maplist(dated, [old1, old2, old3, lex1, passing, new1], [0, 1, 2, 3, 4, 5],
            ["2024-01-05T10:00:00Z", "2024-01-06T10:00:00Z", "2024-01-07T10:00:00Z",
             "2024-01-08T10:00:00Z", "2024-03-01T10:00:00Z", "2024-03-11T10:00:00Z"], Items),
    journal_add_items(Items, _).

seeds(Goal, Pairs) :-
    once(atc_hydrate:seed_ranking(Goal, default, 10, _, Seeds)),
    findall(H-S, member(c(H, S, _, _, _), Seeds), Pairs).

:- begin_tests(hydrate_jump, [setup(memory), cleanup(store_reset)]).

% "ten days ago" read against the newest item (2024-03-11): the passing mention of 2024-03-01
% is no search's hit, yet it is weighed, with the time prior on top of its cosine.
test(a_goal_naming_a_time_weighs_the_items_of_its_window, [true(S > 0.8 * 0.3)]) :-
    seeds("what did I buy ten days ago", Pairs),
    memberchk(passing-S, Pairs).

test(a_goal_naming_no_time_weighs_only_search_hits, [fail]) :-
    seeds("what did I buy", Pairs),
    memberchk(passing-_, Pairs).

% A BM25 hit the semantic search did not return is scored with its real cosine, not zero.
test(a_lexical_hit_past_the_semantic_cut_keeps_its_cosine,
     [true(S =:= round((0.8 * 0.3 + 0.2 * 1.0) * 1.3 * 10000) / 10000)]) :-
    seeds("what did I buy", Pairs),
    memberchk(lex1-S, Pairs).

% The host answers a search as hits(Keys, Scores): nearest/4 reads them as Key-Score pairs,
% best first, live records only (none when the host found none).
test(the_hosts_hits_are_read_as_pairs,
     [true(Hits-None == [old1-0.6, old2-0.55, old3-0.5, new1-0.45]-[])]) :-
    nearest("what did I buy", 10, [], Hits),
    nearest("nothing near", 10, [], None).

% Hits the index still holds for a record erased since are passed over: nearest/4 gives the
% first K live ones, in the host's order, and no more than K (none for K = 0).
test(the_first_k_live_hits_past_an_erased_one,
     [setup(memory), cleanup(memory),
      true(Got == [[old2-0.55, old3-0.5], [old2-0.55, old3-0.5, new1-0.45], []])]) :-
    journal_tombstone(old1, "forget"),
    nearest("what did I buy", 2, [], Two),
    nearest("what did I buy", 10, [], All),
    nearest("what did I buy", 0, [], None),
    Got = [Two, All, None].

:- end_tests(hydrate_jump).
