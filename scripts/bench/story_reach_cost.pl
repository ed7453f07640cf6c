/* What a grantee's story costs past hidden turns (qa163): CPU ms of story_neighbour_/5 for
   bob, who sees the last five items of one session of N (the rest in a segment he is not
   granted), for a seed at the session's end and for the first item he sees (whose turn
   before lies past N - 5 hidden ones), each the mean of 20 calls:

       swipl scripts/bench/story_reach_cost.pl [N ...]      (default 1000 20000)
*/
:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/hydrate').
:- use_module('../../rules/grants').

item_of_(N, I, item(H, src, "s", I, turn, user, "", "2024-01-05T10:00:00Z", Seg, P, "text", [])) :-
    atom_concat(x, I, H),
    format(string(P), "src:~d", [I]),
    (   I >= N - 5 -> Seg = pay ; Seg = sec ).

story_cost(N) :-
    store_reset,
    N1 is N - 1, numlist(0, N1, Is),
    maplist(item_of_(N), Is, Items),
    journal_add_items(Items, _),
    grants_principal_add(alice, person, true),
    grants_principal_add(bob, person, false),
    grants_grant_add(g1, bob, [segment(pay)], l0, none),
    atom_concat(x, N1, End),
    First is N - 5, atom_concat(x, First, Early),
    forall(member(Seed-What, [End-'seed at the session end',
                              Early-'seed after the hidden run']),
           (   statistics(cputime, T0),
               forall(between(1, 20, _),
                      findall(O, atc_hydrate:story_neighbour_(bob, Seed, O, _, near), _)),
               statistics(cputime, T1),
               Ms is (T1 - T0) / 20 * 1000,
               format("~d items, ~w: ~3f ms~n", [N, What, Ms])
           )).

main :-
    current_prolog_flag(argv, Argv),
    (   Argv == [] -> Ns = [1000, 20000] ; maplist(atom_number, Argv, Ns) ),
    maplist(story_cost, Ns).

:- initialization(main, main).
