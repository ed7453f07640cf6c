:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/api').
:- use_module(library(plunit)).

% An item of session S at position Q, under Goal, linked launched_agent -> Agent.
launch_item(H, S, Q, Goal, Agent,
            item(H, src, S, Q, tool_result, tool, Goal, "", default, "f:1", "Task report",
                 [rel(H, launched_agent, Agent)])).

fresh :-
    store_reset.

:- begin_tests(api_linked_goals, [setup(fresh), cleanup(fresh)]).

test(goal_of_the_launch, [setup(fresh), true(Goals == ["fix the rounding bug"])]) :-
    launch_item(h1, "s1", 3, "fix the rounding bug", a7c1d2e, I),
    journal_add_items([I], _),
    api_linked_goals(launched_agent, a7c1d2e, Goals).

test(unknown_agent_is_empty, [setup(fresh), true(Goals == [])]) :-
    launch_item(h1, "s1", 3, "fix the rounding bug", a7c1d2e, I),
    journal_add_items([I], _),
    api_linked_goals(launched_agent, nobody, Goals).

test(earliest_first_each_once_tombstones_hidden, [setup(fresh), true(Goals == ["first", "second"])]) :-
    launch_item(h1, "s1", 9, "second", x, I1),
    launch_item(h2, "s1", 2, "first", x, I2),
    launch_item(h3, "s1", 12, "first", x, I3),
    launch_item(h4, "s0", 1, "gone", x, I4),
    journal_add_items([I1, I2, I3, I4], _),
    journal_tombstone(h4, "test"),
    api_linked_goals(launched_agent, x, Goals).

:- end_tests(api_linked_goals).

% An item of segment Seg (a chat line).
segment_item(H, Seg, item(H, src, "s1", 1, turn, user, "", "", Seg, "f:1", "a line", [])).

:- begin_tests(api_sessions_apart, [setup(fresh), cleanup(fresh)]).

% Sessions told apart from another file of their name: `Stem~` and 8 hex digits, that stem only.
test(told_apart_sessions_of_the_stem, [true(Pairs == ['chat~0a1b2c3d'-"/y/chat.txt:1"])]) :-
    findall(item(H, src, S, 0, turn, user, "", "", default, P, "text", []),
            member(H-S-P, [ h1-"chat"-"/x/chat.txt:1",
                            h2-"chat~0a1b2c3d"-"/y/chat.txt:1",
                            h3-"chat~notahexx"-"/z/chat.txt:1",
                            h4-"other~0a1b2c3d"-"/w/other.txt:1",
                            h5-"chat~0a1b2c3d9"-"/v/chat.txt:1" ]),
            Items),
    journal_add_items(Items, _),
    api_sessions_apart([chat], Pairs).

:- end_tests(api_sessions_apart).

:- begin_tests(api_earlier_sources, [setup(fresh), cleanup(fresh)]).

% Items of three sessions read from three files, at the times given.
timed_items :-
    findall(item(H, Src, S, 0, turn, user, "", T, default, P, "text", []),
            member(H-Src-S-T-P, [ h1-'/a/s1.jsonl'-"s1"-"2026-03-02T10:01:00Z"-"/a/s1.jsonl:1",
                                  h2-'/a/s1.jsonl'-"s1"-"2026-03-02T10:05:00Z"-"/a/s1.jsonl:2",
                                  h3-'/b/s2.jsonl'-"s2"-"2026-03-02T11:00:00Z"-"/b/s2.jsonl:1",
                                  h4-'/c/s3.jsonl'-"s3"-"2026-03-03T09:00:00Z"-"/c/s3.jsonl:1" ]),
            Items),
    journal_add_items(Items, _).

% A copy keeps its record's time: the files read at those times.
test(sources_at_the_times, [true(Sources == ['/a/s1.jsonl'])]) :-
    timed_items,
    api_sources_at_times(["2026-03-02T10:05:00Z", "2026-03-02T12:00:00Z"], Sources).

% A file of new records follows on from a session that ended before it began: the latest ones.
test(sources_of_the_sessions_just_before, [true(Sources == ['/b/s2.jsonl'])]) :-
    timed_items,
    api_sources_before("2026-03-02T12:00:00Z", 1, Sources).

test(sources_of_two_sessions_before, [true(Sources == ['/a/s1.jsonl', '/b/s2.jsonl'])]) :-
    timed_items,
    api_sources_before("2026-03-02T12:00:00Z", 2, Sources).

:- end_tests(api_earlier_sources).

:- begin_tests(api_segments_held, [setup(fresh), cleanup(fresh)]).

test(other_segments_counted, [setup(fresh), true(Held == [chat-2, default-1])]) :-
    segment_item(h1, default, I1),
    segment_item(h2, chat, I2),
    segment_item(h3, chat, I3),
    segment_item(h4, work, I4),
    journal_add_items([I1, I2, I3, I4], _),
    api_segments_held([h1, h2, h3, h4, unknown], work, Held).

test(same_segment_and_tombstones_say_nothing, [setup(fresh), true(Held == [])]) :-
    segment_item(h1, work, I1),
    segment_item(h2, chat, I2),
    journal_add_items([I1, I2], _),
    journal_tombstone(h2, "test"),
    api_segments_held([h1, h2], work, Held).

test(a_handle_list_is_required, [setup(fresh), error(type_error(_, _))]) :-
    api_segments_held(h1, work, _).

:- end_tests(api_segments_held).

% api_sharing_begin/2 leaves its batch open: the host writes a declassification's audit line
% between the changes and their commit (or undoes them).
labelled :-
    store_reset,
    launch_item(h1, "s1", 1, "g", x, I),
    journal_add_items([I], _),
    api_sharing_change([principal_add(alice, person, true), label(h1, restriction, private)], _).

:- begin_tests(api_sharing_begin, [setup(labelled), cleanup(fresh)]).

test(abort_leaves_the_label, [setup(labelled), true(Rs == [private])]) :-
    api_sharing_begin([declassify(h1, restriction, private)], [C]),
    C.derived == false,
    api_batch_abort,
    atc_grants:record_labels(h1, labels(_, Rs, _)).

test(commit_keeps_the_change, [setup(labelled), true(Rs == [])]) :-
    api_sharing_begin([declassify(h1, restriction, private)], _),
    api_batch_commit,
    atc_grants:record_labels(h1, labels(_, Rs, _)).

test(a_refused_change_is_undone_before_it_returns, [setup(labelled), true(Rs == [private])]) :-
    catch(api_sharing_begin([declassify(h1, restriction, private),
                             declassify(h1, restriction, pii)], _), error(existence_error(_, _), _),
          true),
    atc_grants:record_labels(h1, labels(_, Rs, _)).

:- end_tests(api_sharing_begin).
