:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* A goal that names a person, and BM25's page (atc_hydrate:seed_ranking/5, the host's searches
   stubbed). Every record a person speaks is indexed after their name, so the name matches all
   of them and BM25 ranks the shortest first: the page the search with the name returns holds
   Jonas's two short turns and Aisha's turn that writes his name, not his turn about moving,
   which only the semantic search finds; the search without the name finds nothing of his but
   Aisha's turn about Bergen. Any record asked about by name has cosine 0.1. */

:- dynamic atc_jump:semantic_hits/4, atc_jump:lexical_hits/4, atc_jump:similarity_scores/4.

atc_jump:semantic_hits(_, _, _, hits("j_moving\na_mention", [0.5, 0.3])).
atc_jump:lexical_hits(Q, _, _, Hits) :-
    (   sub_atom_icasechk(Q, _, jonas)
    ->  Hits = [j_short-9.0, a_mention-8.0, j_shortish-6.0]
    ;   Hits = [a_bergen-2.0]
    ).
atc_jump:similarity_scores(_, Joined, _, Pairs) :-
    atomic_list_concat(Records, '\n', Joined),
    findall(R-0.1, member(R, Records), Pairs).

turn(H-Who-Seq, item(H, src, "s", Seq, turn, user, "", "2024-03-01T10:00:00Z", default, "f:1",
                     "text", [rel(H, speaker, Who)])).

memory :-
    store_reset,
    maplist(turn, [j_short-'Jonas'-0, j_shortish-'Jonas'-1, j_moving-'Jonas'-2,
                   a_mention-'Aisha'-3, a_bergen-'Aisha'-4], Items),
    journal_add_items(Items, _).

ranking(Goal, Pairs) :-
    once(atc_hydrate:seed_ranking(Goal, default, 10, _, Seeds)),
    findall(H-S, member(c(H, S, _, _, _), Seeds), Pairs).

score(Goal, H, S) :-
    ranking(Goal, Pairs),
    memberchk(H-S, Pairs).

:- begin_tests(hydrate_named_lexical, [setup(memory), cleanup(store_reset)]).

% His turn about moving lay past the page: it gets the least the name gave his turns on the
% page (6 of the page's best 9), on top of its cosine and the speaker prior. Before, it had its
% cosine alone, below his "Ok." that the name alone had found.
test(a_named_persons_turn_past_bm25s_page_gets_the_names_match_too,
     [true(S =:= round((0.8 * 0.5 + 0.2 * 6 / 9) * 1.3 * 10000) / 10000)]) :-
    score("Which city does Jonas live in now?", j_moving, S).

test(the_turn_about_the_topic_ranks_first,
     [true(First == j_moving)]) :-
    ranking("Which city does Jonas live in now?", [First-_|_]).

% What the page found keeps its score.
test(the_pages_hits_keep_their_scores,
     [true(S =:= round((0.8 * 0.1 + 0.2 * 1.0) * 1.3 * 10000) / 10000)]) :-
    score("Which city does Jonas live in now?", j_short, S).

% Another person's turn the name had pushed past the page is a hit by its own words.
test(another_persons_turn_past_the_page_is_a_hit_by_its_own_words,
     [true(S =:= round((0.8 * 0.1 + 0.2 * 2 / 9) * 10000) / 10000)]) :-
    score("Which city does Jonas live in now?", a_bergen, S).

% A goal naming nobody is searched as before: the semantic hit gets no BM25 share. (A
% lower-case "jonas" would name him: a capital only at a sentence's start does not make names
% case-sensitive, test_who_when.py.)
test(a_goal_naming_nobody_is_searched_as_before,
     [true(S =:= round(0.8 * 0.5 * 10000) / 10000)]) :-
    score("What about the move?", j_moving, S).

:- end_tests(hydrate_named_lexical).
