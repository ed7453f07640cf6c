:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module(library(plunit)).

item_term(H, Kind, Text, item(H, src, "s1", 0, Kind, assistant, "goal", "", default, "f:1", Text,
                          [rel(H, touches_file, 'a.py')])).

fresh :-
    store_reset.

:- begin_tests(journal, [setup(fresh), cleanup(fresh)]).

test(upsert_adds_once, [setup(fresh), true(N1-N2 == 1-0)]) :-
    item_term(h1, error, "boom", I),
    journal_add_items([I], C1), N1 = C1.new,
    journal_add_items([I], C2), N2 = C2.new.

test(vocabulary, [setup(fresh), true(K-G-P-F == error-"goal"-"f:1"-'a.py')]) :-
    item_term(h1, error, "boom", I),
    journal_add_items([I], _),
    item_kind(h1, K), item_goal(h1, G), item_source(h1, P), relation(h1, touches_file, F).

test(text_is_data, [setup(fresh), true(T == "foo :- halt. 'q' \"d\"")]) :-
    item_term(h2, conclusion, "foo :- halt. 'q' \"d\"", I),
    journal_add_items([I], _),
    item_text(h2, T).

test(tombstone_hides, [setup(fresh), fail]) :-
    item_term(h1, error, "boom", I),
    journal_add_items([I], _),
    journal_tombstone(h1, "test"),
    item(h1).

test(malformed_item, [setup(fresh), throws(error(type_error(journal_item, bad), _))]) :-
    journal_add_items([bad], _).

test(tombstone_unknown, [setup(fresh), throws(error(existence_error(item, nope), _))]) :-
    journal_tombstone(nope, "x").

:- end_tests(journal).

:- begin_tests(store, [setup(fresh), cleanup(fresh)]).

test(abort_undoes_batch, [setup(fresh), true(Items == [])]) :-
    item_term(h9, error, "boom", I),
    journal_add_items([I], _),
    store_abort,
    findall(H, item(H), Items).

test(commit_keeps_batch, [setup(fresh), true(Items == [h8])]) :-
    item_term(h8, error, "boom", I),
    journal_add_items([I], _),
    store_commit,
    store_abort,
    findall(H, item(H), Items).

:- end_tests(store).
