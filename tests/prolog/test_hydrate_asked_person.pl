:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/jump').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

/* A goal that names two people and asks one of them to do something now ("Can Tomás suggest
   a lens for Priya's camera?") is about the other one's memory: Tomás is asked for a
   suggestion, what is to be recalled is Priya's camera. The speaker prior favours the people
   a goal is about; the one only asked to act is not favoured over them, as "can you suggest
   … my camera" favours the user's items and not the assistant's (goal_speaker/3). The host's
   searches are stubbed: both people's turns have the same cosine and no BM25 hit, so only the
   prior tells them apart. */

:- dynamic atc_jump:semantic_hits/4, atc_jump:lexical_hits/4, atc_jump:similarity_scores/4.

atc_jump:semantic_hits(_, _, _, hits("p_camera\nt_lens", [0.5, 0.5])).
atc_jump:lexical_hits(_, _, _, []).
atc_jump:similarity_scores(_, Joined, _, Pairs) :-
    atomic_list_concat(Records, '\n', Joined),
    findall(R-0.5, member(R, Records), Pairs).

turn(H-Who-Role-Seq, item(H, src, "s", Seq, turn, Role, "", "2024-03-01T10:00:00Z", default,
                          "f:1", "text", [rel(H, speaker, Who)])).

memory :-
    store_reset,
    maplist(turn, [p_camera-'Priya'-user-0, t_lens-'Tomás'-assistant-1], Items),
    journal_add_items(Items, _).

score(Goal, H, S) :-
    once(atc_hydrate:seed_ranking(Goal, default, 10, _, Seeds)),
    memberchk(c(H, S, _, _, _), Seeds).

% the cosine alone (no BM25 hit), times 1.3 for a favoured speaker's turn
favoured(S) :- S =:= round(0.5 * 1.3 * 10000) / 10000.
plain(S) :- S =:= 0.5.

:- begin_tests(hydrate_asked_person, [setup(memory), cleanup(store_reset)]).

% Before, both were favoured (each is a person the goal names), so neither was.
test(the_person_asked_to_suggest_is_not_favoured_over_the_one_it_is_about) :-
    score("Can Tomás suggest a lens that would suit Priya's camera?", p_camera, P),
    score("Can Tomás suggest a lens that would suit Priya's camera?", t_lens, T),
    favoured(P), plain(T).

test(does_someone_have_any_ideas_asks_them) :-
    score("Priya is bored with her camera. Does Tomas have any ideas for her?", p_camera, P),
    score("Priya is bored with her camera. Does Tomas have any ideas for her?", t_lens, T),
    favoured(P), plain(T).

% Asked to recall what they said themselves, they are what the goal is about too.
test(the_person_asked_about_what_they_said_stays_favoured) :-
    score("Can Tomás remind Priya which lens Tomás recommended?", p_camera, P),
    score("Can Tomás remind Priya which lens Tomás recommended?", t_lens, T),
    favoured(P), favoured(T).

% A reminder asks for what the person asked said before: their items are what it is about.
test(the_person_asked_to_remind_stays_favoured) :-
    score("Can Tomás remind Priya what the lens cost?", p_camera, P),
    score("Can Tomás remind Priya what the lens cost?", t_lens, T),
    favoured(P), favoured(T).

% A question about someone's own plans or things is about them, not a request.
test(a_question_about_what_someone_has_is_about_them) :-
    score("Does Tomás have a camera like Priya's?", p_camera, P),
    score("Does Tomás have a camera like Priya's?", t_lens, T),
    favoured(P), favoured(T).

% Asked alone, with nobody else named, the person asked is still the one the goal names.
test(the_only_person_named_stays_favoured) :-
    score("Can Tomás suggest a lens?", p_camera, P),
    score("Can Tomás suggest a lens?", t_lens, T),
    plain(P), favoured(T).

% goal_speaker/3 names the person whose items the goal asks about, as the prior favours them.
test(goal_speaker_names_the_person_the_goal_is_about, [true(Who == "Priya")]) :-
    atc_hydrate:goal_speaker("Can Tomás suggest a lens that would suit Priya's camera?", none, S),
    atom_string(S, Who).

test(goal_speaker_of_a_goal_about_both_names_the_first, [true(Who == "Tomás")]) :-
    atc_hydrate:goal_speaker("Did Tomás like Priya's camera?", none, S),
    atom_string(S, Who).

:- end_tests(hydrate_asked_person).
