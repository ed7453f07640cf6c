:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/when').
:- use_module('../../rules/hydrate').
:- use_module(library(plunit)).

% Saturday 2023-03-11 05:28 UTC
now(Now) :- date_time_stamp(date(2023, 3, 11, 5, 28, 0, 0, -, -), Now).

day(Stamp, Day) :- format_time(atom(Day), '%F', Stamp, posix).

window(Goal, Phrase, FromDay-ToDay) :-
    now(Now),
    goal_time_window(Goal, Now, From-To, Phrase),
    day(From, FromDay), day(To, ToDay).

% window_at(+date(Y, M, D), +Goal, -Phrase, -Days): the window asked at noon (UTC) of that day.
window_at(date(Y, M, D), Goal, Phrase, FromDay-ToDay) :-
    date_time_stamp(date(Y, M, D, 12, 0, 0, 0, -, -), Now),
    goal_time_window(Goal, Now, From-To, Phrase),
    day(From, FromDay), day(To, ToDay).

:- begin_tests(when).

test(ago_is_centred_with_slack, [true(P-W == "two months ago"-('2022-12-25'-'2023-01-24'))]) :-
    window("I mentioned visiting a museum two months ago. Did I go with a friend?", P, W).
test(ago_in_digits, [true(P-W == "10 days ago"-('2023-02-26'-'2023-03-03'))]) :-
    window("What kitchen appliance did I buy 10 days ago?", P, W).
test(last_n_units_runs_to_now, [true(P-W == "last 3 months"-('2022-11-30'-'2023-03-11'))]) :-
    window("How many films did I watch in the last 3 months?", P, W).
test(last_unit, [true(P-W == "last week"-('2023-02-28'-'2023-03-11'))]) :-
    window("what did we decide last week", P, W).
test(month_after_cue_is_its_latest_occurrence, [true(W == '2023-02-01'-'2023-03-01')]) :-
    window("Which vehicle did I fix first in February?", _, W).
test(later_month_is_last_year, [true(W == '2022-06-01'-'2022-07-01')]) :-
    window("the deploy in June", _, W).
test(weekday, [true(P-W == "last saturday"-('2023-03-04'-'2023-03-05'))]) :-
    window("what did we do last Saturday", P, W).
% "On Friday" is the last Friday in a question about what was and the coming one in a goal
% that plans (now is Saturday 2023-03-11); either way the window is that one day.
test(on_weekday_in_the_past_is_the_last_one, [true(P-W == "on friday"-('2023-03-10'-'2023-03-11'))]) :-
    window("what did we decide on Friday", P, W).
test(on_weekday_in_a_plan_is_the_coming_one, [true(P-W == "on friday"-('2023-03-17'-'2023-03-18'))]) :-
    window("can I migrate staging on Friday", P, W).
test(on_weekday_with_will_is_the_coming_one, [true(W == '2023-03-13'-'2023-03-14')]) :-
    window("we'll deploy on Monday", _, W).
test(on_weekday_with_a_curly_will_is_the_coming_one, [true(W == '2023-03-13'-'2023-03-14')]) :-
    window("we’ll deploy on Monday", _, W).
test(past_tense_wins_over_a_modal, [true(W == '2023-03-10'-'2023-03-11')]) :-
    window("what did we say we would do on Friday", _, W).
test(on_weekday_without_tense_is_the_last_one, [true(W == '2023-03-06'-'2023-03-07')]) :-
    window("the standup notes on Monday", _, W).
test(next_weekday_is_the_coming_one, [true(P-W == "next saturday"-('2023-03-18'-'2023-03-19'))]) :-
    window("what is planned next Saturday", P, W).
test(this_coming_weekday, [true(P-W == "this coming tuesday"-('2023-03-14'-'2023-03-15'))]) :-
    window("what did we book for this coming Tuesday", P, W).
test(this_past_weekday_is_one_day, [true(W == '2023-03-07'-'2023-03-08')]) :-
    window("what happened this past Tuesday", _, W).
test(yesterday, [true(W == '2023-03-09'-'2023-03-11')]) :-
    window("the error from yesterday", _, W).
% A year the goal writes is that year's, not the month's latest occurrence (now is March 2023).
test(month_with_year, [true(P-W == "in may 2021"-('2021-05-01'-'2021-06-01'))]) :-
    window("What did Priya say in May 2021 about her sister?", P, W).
test(month_of_a_later_year_is_not_cut_at_now, [true(W == '2023-05-01'-'2023-06-01')]) :-
    window("the wedding planned for May 2023", _, W).
test(year_alone, [true(P-W == "in 2021"-('2021-01-01'-'2022-01-01'))]) :-
    window("What did Tomas do in 2021?", P, W).
test(year_alone_before_a_clause, [true(W == '2021-01-01'-'2022-01-01')]) :-
    window("what did Priya say in 2021 about her sister", _, W).
test(number_after_in_is_an_amount, [fail]) :-
    window("the buffer is read in 2048 byte chunks", _, _).
test(number_after_of_is_an_amount, [fail]) :-
    window("a batch of 2000 items failed", _, _).
% A day the goal names is that day (a day either side, as for a weekday), not its whole month.
test(month_and_day, [true(P-W == "may 28"-('2022-05-27'-'2022-05-30'))]) :-
    window("What did Tomas do on May 28?", P, W).
test(day_and_month, [true(P-W == "on 28 may"-('2022-05-27'-'2022-05-30'))]) :-
    window("What did Tomas do on 28 May?", P, W).
test(day_of_month_with_year, [true(P-W == "28th of may 2021"-('2021-05-27'-'2021-05-30'))]) :-
    window("What happened on the 28th of May, 2021?", P, W).
% A weekday before a date only says which day of the week it is: the date is the window, not
% the weekday's latest occurrence ("on Thursday 12 January" is 12 January, not 9 March).
test(weekday_before_day_and_month, [true(P-W == "on thursday 12 january"-('2023-01-11'-'2023-01-14'))]) :-
    window("What happened to Mei on Thursday 12 January?", P, W).
test(weekday_before_month_and_day, [true(P-W == "on friday january 20th 2023"-('2023-01-19'-'2023-01-22'))]) :-
    window("What did Daniel finish on Friday, January 20th, 2023?", P, W).
test(weekday_before_the_nth_of_month, [true(P-W == "on thursday the 12th of january"-('2023-01-11'-'2023-01-14'))]) :-
    window("What broke on Thursday the 12th of January?", P, W).
test(day_this_month, [true(W == '2023-03-04'-'2023-03-07')]) :-
    window("the call on March 5th", _, W).
% Dates in digits, as agents write them: ISO, and day/month or month/day when one is over 12.
test(iso_date, [true(P-W == "on 2023-01-12"-('2023-01-11'-'2023-01-14'))]) :-
    window("What failed on 2023-01-12?", P, W).
test(iso_date_with_time, [true(W == '2023-01-11'-'2023-01-14')]) :-
    window("what did we decide at 2023-01-12T10:30:00Z", _, W).
test(day_first_in_digits, [true(W == '2022-10-20'-'2022-10-23')]) :-
    window("What happened on 21/10/2022?", _, W).
test(month_first_in_digits, [true(W == '2022-10-20'-'2022-10-23')]) :-
    window("what happened 10-21-2022", _, W).
test(digits_either_way_are_no_day, [fail]) :-
    window("What happened on 05/06/2022?", _, _).
test(the_week_of_a_day, [true(P-W == "week of 21 october 2022"-('2022-10-20'-'2022-10-29'))]) :-
    window("What did Aisha do in the week of 21 October 2022?", P, W).
test(the_week_of_a_day_in_digits, [true(W == '2022-10-20'-'2022-10-29')]) :-
    window("the week of 2022-10-21", _, W).
test(no_such_day_in_digits, [fail]) :-
    window("the run of 2023-02-30", _, _).
test(number_before_a_month_verb_is_no_day, [fail]) :-
    window("the 3 may be wrong", _, _).
test(last_night, [true(P-W == "last night"-('2023-03-09'-'2023-03-11'))]) :-
    window("what did Priya cook last night", P, W).
% now is Saturday 11 March: the weekend before, 4-5 March (a day either side)
test(last_weekend, [true(P-W == "last weekend"-('2023-03-03'-'2023-03-07'))]) :-
    window("where did we go last weekend", P, W).
test(recency_cue, [true(Ps == ["most recently", "latest", "the last time"])]) :-
    maplist([G, P]>>goal_recency_cue(G, P),
            ["What happened most recently with the car?", "the latest on the deploy",
             "when was the last time we spoke"], Ps).
test(no_recency_cue, [fail]) :-
    goal_recency_cue("what did we decide last week", _).

% "last" after an article or a possessive asks for the newest, unless it names a time.
test(last_owned_is_recency, [true(Ps == ["user's last", "my last", "the last"])]) :-
    maplist([G, P]>>goal_recency_cue(G, P),
            ["what was the user's last request", "what was my last message",
             "show the last error"], Ps).

test(last_time_is_no_recency, [true(Ns == [])]) :-
    include([G]>>goal_recency_cue(G, _),
            ["what did I do in the last week", "what happened in the last two weeks",
             "what did we eat the last Friday", "what is my last name"], Ns).
test(month_word_as_verb_is_not_a_time, [fail]) :-
    window("I may go to the march", _, _).
test(no_time, [fail]) :-
    window("fix the flaky test in tests/test_queue.py", _, _).
test(prolog_text_is_data, [fail]) :-
    window("foo :- halt. ago", _, _).

test(memory_now_is_the_newest_item, [setup(store_reset), cleanup(store_reset),
                                     true(Day == '2024-02-03')]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "2024-01-01T10:00:00Z", default, "f:1", "a", []),
                       item(h2, src, "s", 1, turn, user, "", "2024-02-03T10:00:00Z", default, "f:2", "b", [])], _),
    memory_now(Now), day(Now, Day).

test(memory_now_follows_new_items, [setup(store_reset), cleanup(store_reset),
                                    true(Days == ['2024-01-01', '2024-05-06'])]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "2024-01-01T10:00:00Z", default, "f:1", "a", [])], _),
    memory_now(Now1), day(Now1, Day1),
    journal_add_items([item(h2, src, "s", 1, turn, user, "", "2024-05-06T10:00:00Z", default, "f:2", "b", [])], _),
    memory_now(Now2), day(Now2, Day2),
    Days = [Day1, Day2].

% After a write memory_now/1 reads the newest time without rebuilding the day index; it must
% give what the index gives, whatever the forms of the times (UTC text with or without a
% fraction or the Z, an offset read one by one, no time at all).
index_now(Now) :-
    atc_when:time_index_ready_, nb_getval(when_memory_now, Now0),
    (   Now0 == none -> Now = 0 ; Now = Now0 ).   % no dated item: memory_now/1's 0

test(memory_now_after_a_write_is_the_index_s, [setup(store_reset), cleanup(store_reset),
                                               true(Nows == [Day1-Day1, Day2-Day2, Day3-Day3])]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "2024-01-01T10:00:00.250Z", default, "f:1", "a", []),
                       item(h2, src, "s", 1, turn, user, "", "2024-01-01T09:00:00", default, "f:2", "b", []),
                       item(h3, src, "s", 2, turn, user, "", "", default, "f:3", "c", [])], _),
    memory_now(A1), index_now(B1), day(A1, Day1), day(B1, Day1x), Day1 == Day1x, A1 =:= B1,
    % an offset time is not plain UTC text: read on its own, and here it is the newest
    journal_add_items([item(h4, src, "s", 3, turn, user, "", "2024-03-02T01:30:00+05:00", default, "f:4", "d", [])], _),
    memory_now(A2), index_now(B2), day(A2, Day2), A2 =:= B2,
    journal_add_items([item(h5, src, "s", 4, turn, user, "", "2024-03-01T20:00:00Z", default, "f:5", "e", [])], _),
    memory_now(A3), index_now(B3), day(A3, Day3), A3 =:= B3,
    A3 =:= A2,                                   % 01:30+05:00 is 20:30 UTC on 1 March: still the newest
    Nows = [Day1-Day1, Day2-Day2, Day3-Day3].

% The same over many writes of every kind: turns of one to twenty items (past
% store_appended/4's limit) in mixed time forms, re-added items, erasures; memory_now/1 asked
% after each, the index's answer computed from scratch beside it.
test(memory_now_after_any_writes_is_the_index_s, [setup(store_reset), cleanup(store_reset),
                                                  true(Bad == [])]) :-
    set_random(seed(11)),
    numlist(1, 80, Steps),
    foldl(now_step_, Steps, 0-[], _-Bad0),
    reverse(Bad0, Bad).

now_step_(Step, N0-Bad0, N-Bad) :-
    random_between(1, 10, Op),
    (   Op =< 7
    ->  random_between(1, 20, K),
        findall(item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", "x", []),
                ( between(1, K, I), Seq is N0 + I, format(atom(H), "h~w", [Seq]), time_form_(Seq, Time) ),
                Items),
        journal_add_items(Items, _),
        N is N0 + K
    ;   Op =< 8, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]), time_form_(Seq, Time),
        journal_add_items([item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", "x", [])], _),
        N = N0
    ;   N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        ( item(H) -> journal_erase(H, "test", "test", _) ; true ),
        N = N0
    ;   N = N0
    ),
    memory_now(Kept),
    nb_delete(when_time_index), index_now(Full),
    (   Kept =:= Full -> Bad = Bad0 ; Bad = [Step-Op-Kept-Full|Bad0] ).

% A time for item Seq in one of the forms transcripts give: UTC text with or without a
% fraction or the Z, an offset, or none; days wander so that the newest is not the last.
time_form_(Seq, Time) :-
    Day is 1 + (Seq * 7919) mod 27,
    Form is Seq mod 5,
    (   Form == 0 -> format(string(Time), "2024-03-~|~`0t~d~2+T10:00:00Z", [Day])
    ;   Form == 1 -> format(string(Time), "2024-03-~|~`0t~d~2+T11:30:00.250Z", [Day])
    ;   Form == 2 -> format(string(Time), "2024-03-~|~`0t~d~2+T09:00:00", [Day])
    ;   Form == 3 -> format(string(Time), "2024-03-~|~`0t~d~2+T23:30:00+05:00", [Day])
    ;   Time = ""
    ).

test(memory_now_of_an_undated_memory_is_zero, [setup(store_reset), cleanup(store_reset),
                                               true(Now == 0)]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "", default, "f:1", "a", [])], _),
    memory_now(Now).

test(memory_newest_of_an_undated_memory_fails, [setup(store_reset), cleanup(store_reset),
                                                fail]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "", default, "f:1", "a", [])], _),
    memory_newest(_).

% A memory of items written before 1970 has a newest time (a negative stamp): it was taken for
% "no time", so a frame over it had no `now` and read no window ("yesterday") against it.
test(memory_newest_before_1970, [setup(store_reset), cleanup(store_reset),
                                 true(Days == ['1965-03-05', '1965-03-05', '1965-03-05'])]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "1965-03-04T10:00:00Z", default, "f:1", "a", []),
                       item(h2, src, "s", 1, turn, user, "", "1965-03-05T09:00:00Z", default, "f:2", "b", [])], _),
    memory_newest(A), memory_now(B),
    memory_now_for("what broke yesterday", C),
    maplist(day, [A, B, C], Days).

test(memory_newest_at_the_epoch_is_a_time, [setup(store_reset), cleanup(store_reset),
                                            true(Now =:= 0)]) :-
    journal_add_items([item(h1, src, "s", 0, turn, user, "", "1970-01-01T00:00:00Z", default, "f:1", "a", [])], _),
    memory_newest(Now).

stamp(Text, Stamp) :- parse_time(Text, iso_8601, Stamp).

dated(H, Seq, Time, item(H, src, "s", Seq, turn, user, "", Time, default, "f:1", "x", [])).

test(items_between_reads_the_window_newest_first,
     [setup(store_reset), cleanup(store_reset), true(Hs == [h3, h2])]) :-
    maplist(dated, [h1, h2, h3, h4, h5], [0, 1, 2, 3, 4],
            ["2024-03-01T10:00:00Z", "2024-03-05T09:00:00Z", "2024-03-06T23:59:00Z",
             "2024-03-08T00:00:00Z", ""], Items),
    journal_add_items(Items, _),
    stamp("2024-03-05T00:00:00Z", From), stamp("2024-03-07T00:00:00Z", To),
    items_between(From, To, Hs).

test(items_between_with_a_limit_keeps_the_newest,
     [setup(store_reset), cleanup(store_reset), true(Hs-None == [h4, h3]-[])]) :-
    maplist(dated, [h1, h2, h3, h4], [0, 1, 2, 3],
            ["2024-03-01T10:00:00Z", "2024-03-02T09:00:00Z", "2024-03-02T23:00:00Z",
             "2024-03-09T00:00:00Z"], Items),
    journal_add_items(Items, _),
    stamp("2024-01-01T00:00:00Z", From), stamp("2024-12-31T00:00:00Z", To),
    items_between(From, To, 2, Hs),
    items_between(From, To, 0, None).

test(items_between_any_span_costs_only_the_memory_s_days,
     [setup(store_reset), cleanup(store_reset), true(Hs-Empty == [h1]-[])]) :-
    dated(h1, 0, "2024-03-02T10:00:00Z", I1), journal_add_items([I1], _),
    items_between(-1.0e15, 1.0e15, Hs),
    items_between(0, 1000, Empty).

test(items_between_in_a_memory_without_dates_is_empty,
     [setup(store_reset), cleanup(store_reset), true(Hs == [])]) :-
    dated(h1, 0, "", I1), journal_add_items([I1], _),
    items_between(0, 1.0e10, Hs).

test(items_between_follows_new_and_forgotten_items,
     [setup(store_reset), cleanup(store_reset), true(Seen == [[h1], [h2, h1], [h2]])]) :-
    stamp("2024-03-01T00:00:00Z", From), stamp("2024-03-31T00:00:00Z", To),
    dated(h1, 0, "2024-03-02T10:00:00Z", I1), journal_add_items([I1], _),
    items_between(From, To, S1),
    dated(h2, 1, "2024-03-03T10:00:00Z", I2), journal_add_items([I2], _),
    items_between(From, To, S2),
    journal_tombstone(h1, "test"),
    items_between(From, To, S3),
    Seen = [S1, S2, S3].

:- end_tests(when).

:- begin_tests(goal_speaker).

test(you_recommended, [true(R == assistant)]) :-
    goal_speaker("Can you remind me of the website you recommended?", R).
test(your_suggestion, [true(R == assistant)]) :-
    goal_speaker("What was your suggestion for the title?", R).
test(first_person, [true(R == user)]) :-
    goal_speaker("Did I visit the museum with a friend?", R).
test(remind_me_alone_is_not_the_user_speaking, [fail]) :-
    goal_speaker("Can you remind me what the average framerate gain was?", _).
test(neither, [fail]) :-
    goal_speaker("why do the tests fail", _).
test(the_user_asked, [true(R == user)]) :-
    goal_speaker("what did the user ask for in the spotter-a0y session", R).
test(the_users_request, [true(R == user)]) :-
    goal_speaker("Summarise the user's request about scrolling", R).
test(does_the_user_prefer, [true(R == user)]) :-
    goal_speaker("What does the user prefer for breakfast?", R).
test(the_assistant_recommended, [true(R == assistant)]) :-
    goal_speaker("Which hotel did the assistant recommend?", R).
test(the_user_table_is_a_table, [fail]) :-
    goal_speaker("how does the user table work", _).
test(the_user_table_locked, [fail]) :-
    goal_speaker("why did the migration lock the user table", _).

:- end_tests(goal_speaker).

:- begin_tests(goal_speaker_did_you).
test(did_you, [true(R == assistant)]) :-
    goal_speaker("what did you suggest for the retry policy?", R).
:- end_tests(goal_speaker_did_you).

:- begin_tests(item_stamps).

test(utc_times_read_fast_agree_with_parse_time,
     [forall(member(T, ["2026-01-05T08:00:07Z", "2026-01-05T08:00:07.123Z", "2024-02-29T23:59:59",
                        "2024-03-01T10:00:00+02:00", "2024-03-01"])),
      true(Fast =:= floor(Slow))]) :-
    atc_when:item_stamp_(T, Fast),
    parse_time(T, iso_8601, Slow).

test(a_time_no_reader_knows_has_no_stamp, [fail]) :-
    atc_when:item_stamp_("soon", _).

% The journal's UTC times are read digit by digit (utc_stamp_/2); any other text, a field not of
% digits included, is left to parse_time/3, which reads it or not as it reads ISO 8601.
test(times_the_fast_reader_passes_on_read_as_parse_time_reads_them,
     [forall(member(T, ["2026-01-05T08:00:07.5", "2026-01-05T08:00:07Zulu", "2026-1-05T08:00:07Z",
                        "2026-01-05T8:00:07Z", "2026-01-05 08:00:07Z", "2026-01-05T08:00:07+01:00"])),
      true(Read == Expected)]) :-
    (   atc_when:item_stamp_(T, Stamp) -> Read = Stamp ; Read = none ),
    (   catch(parse_time(T, iso_8601, S0), _, fail) -> Expected = S0 ; Expected = none ).

test(a_time_with_a_field_not_of_digits_is_not_read_fast, [fail]) :-
    atc_when:utc_stamp_("2026-0a-05T08:00:07Z", _).

test(a_named_day_is_its_day_since_1970, [true(Day == 19450)]) :-
    atc_when:date_day_('2023-04-03', Day).

test(a_named_day_not_of_digits_is_none, [fail]) :-
    atc_when:date_day_('2023-0x-03', _).

:- end_tests(item_stamps).

/* Two times and bounds (now: Saturday 2023-03-11). Before, only the first of two named times
   was read ("in January and March" was January alone) and a bound was read as the day it
   names ("before today" was the window "today", "since last June" no window at all). */
:- begin_tests(when_spans_and_bounds).

test(two_months_joined_are_their_span, [true(P-W == "in january and march"-('2023-01-01'-'2023-03-11'))]) :-
    window("What was the page count of the two novels Rahul finished in January and March?", P, W).
test(two_cued_months, [true(W == '2022-12-01'-'2023-03-01')]) :-
    window("what did I cook in December and in February", _, W).
test(range_between_months, [true(P-W == "between march and may"-('2022-03-01'-'2022-06-01'))]) :-
    window("Which trips did I take between March and May?", P, W).   % March of this year is cut at now: the span is last year's
test(range_from_to, [true(P-W == "from may to july"-('2022-05-01'-'2022-08-01'))]) :-
    window("What did Aisha work on from May to July?", P, W).
test(range_of_days_in_digits, [true(W == '2023-01-01'-'2023-01-22')]) :-
    window("what failed between 2023-01-02 and 2023-01-20", _, W).
test(a_month_verb_after_and_is_no_second_time, [true(P-W == "in january"-('2023-01-01'-'2023-02-01'))]) :-
    window("what did I buy in January and may I ask why", P, W).
% Three or more times listed ("January, March and May": goal_words/2 drops the commas) are the
% span of all of them; before, the list was read as its first ("in january").
test(three_months_listed_are_their_span, [true(P-W == "in january march and may"-('2022-01-01'-'2022-06-01'))]) :-
    window("What did I cook in January, March and May?", P, W).     % May of this year is to come: last year's
test(three_past_months_listed, [true(W == '2022-11-01'-'2023-02-01')]) :-
    window("which books did I finish in November, December and January", _, W).
test(four_dated_months_listed, [true(W == '2022-02-01'-'2022-09-01')]) :-
    window("trips in February 2022, April 2022, June 2022 or August 2022", _, W).
test(three_months_each_joined, [true(P-W == "in may and june and july"-('2022-05-01'-'2022-08-01'))]) :-
    window("what did we grow in May and June and July", P, W).
test(weekdays_listed, [true(P-W == "on monday wednesday and friday"-('2023-03-06'-'2023-03-11'))]) :-
    window("what did I eat on Monday, Wednesday and Friday", P, W).
test(weekdays_listed_in_a_plan_are_the_coming_ones, [true(W == '2023-03-13'-'2023-03-18')]) :-
    window("can you set reminders for my gym sessions on Monday, Wednesday, and Friday", _, W).
test(a_cued_time_after_a_month_is_no_list, [true(P == "in january")]) :-
    window("what did I do in January on Monday and Friday", P, _).
% A list that never ends costs in proportion to its words: a goal of 2,000 times "January"
% took 35 s (the words each listed time read were found by append/3, comparing tails).
test(a_long_run_of_months_reads_in_linear_time, [true(P == "in january")]) :-
    length(Ws, 2000), maplist(=("january"), Ws),
    atomic_list_concat(["in"|Ws], ' ', Goal),
    now(Now),
    call_with_inference_limit(goal_time_window(Goal, Now, _, P), 1000000, R),
    R \== inference_limit_exceeded.
test(a_list_ending_in_a_verb_is_its_first_time, [true(P-W == "in january"-('2023-01-01'-'2023-02-01'))]) :-
    window("what did I buy in January, March and may I ask why", P, W).
% A year written on the first time only is the year of the times after it: "January 2023 and
% March" is March 2023, not the latest March (before, March 2024 when asked in 2024); a month
% before the first's is the next year's ("December 2022 and January": January 2023).
test(a_year_on_the_first_of_two_months_is_the_second_s, [true(W == '2023-01-01'-'2023-04-01')]) :-
    window_at(date(2024, 6, 1), "what did I read in January 2023 and March", _, W).
test(a_year_on_the_first_carries_past_new_year, [true(W == '2022-12-01'-'2023-02-01')]) :-
    window_at(date(2024, 6, 1), "which gifts did I buy in December 2022 and January", _, W).
test(a_year_on_the_first_of_a_list, [true(W == '2021-01-01'-'2021-06-01')]) :-
    window_at(date(2024, 6, 1), "what did I plant in January 2021, March and May", _, W).
test(a_year_on_the_first_of_two_days, [true(W == '2022-03-04'-'2022-04-08')]) :-
    window_at(date(2024, 6, 1), "what happened between 5 March 2022 and 6 April", _, W).
test(a_relative_time_after_a_dated_one_keeps_now, [true(W == '2023-01-01'-'2024-06-01')]) :-
    window_at(date(2024, 6, 1), "what changed between January 2023 and yesterday", _, W).
% "last year" / "this year" after a month names its year: before, "in March last year" was
% the latest March (this year's) and "in January and March last year" January alone.
test(a_month_last_year, [true(P-W == "in march last year"-('2022-03-01'-'2022-04-01'))]) :-
    window("Where did I travel in March last year?", P, W).
test(two_months_last_year, [true(P-W == "in january and march last year"-('2022-01-01'-'2022-04-01'))]) :-
    window("What did I read in January and March last year?", P, W).
test(a_month_this_year_may_be_to_come, [true(W == '2023-05-01'-'2023-06-01')]) :-
    window("what do we plan for the launch in May this year", _, W).   % the latest May is last year's
test(a_year_s_possession_is_no_year, [true(P-W == "in march"-('2023-03-01'-'2023-03-11'))]) :-
    window("what changed in March last year's plan", P, W).
test(before_today_ends_where_today_starts, [true(P-W == "before today"-('1-01-01'-'2023-03-10'))]) :-
    window("Which airlines did I fly with before today?", P, W).
test(before_a_day_ends_at_its_start, [true(W == '1-01-01'-'2023-03-05')]) :-
    window("what did we ship before 5 March", _, W).
test(until_a_weekday_holds_it, [true(P-W == "until friday"-('1-01-01'-'2023-03-11'))]) :-
    window("what was planned until Friday", P, W).
test(since_last_june_runs_to_now, [true(P-W == "since last june"-('2022-06-01'-'2023-03-11'))]) :-
    window("What have I bought since last June?", P, W).
test(since_a_month_runs_to_now, [true(W == '2023-03-01'-'2023-03-11')]) :-
    window("what broke since March", _, W).
test(since_a_year_alone, [true(W == '2021-01-01'-'2023-03-11')]) :-
    window("what has Tomas built since 2021?", _, W).
test(after_a_day_starts_at_its_end, [true(W == '2023-03-06'-'2023-03-11')]) :-
    window("what changed after 5 March", _, W).
test(after_a_time_that_runs_to_now_is_that_time, [true(P-W == "after last week"-('2023-02-28'-'2023-03-11'))]) :-
    window("what changed after last week", P, W).       % not the empty window from now to now
test(last_month_name_is_before_this_month, [true(W == '2022-06-01'-'2022-07-01')]) :-
    window("what did I do last June", _, W).
test(a_bound_on_no_time_is_no_window, [fail]) :-
    window("what changed after the move", _, _).
test(the_day_before_yesterday_is_no_bound, [true(P == "yesterday")]) :-
    window("what did I eat the day before yesterday", P, _).

% The receipt's anchor says which window was read: an open start is the year 1.
test(receipt_anchor_of_a_bound,
     [true(M == [from-"0001-01-01T00:00:00Z", phrase-"before today", to-"2023-03-10T05:28:00Z"])]) :-
    now(Now),
    atc_hydrate:time_anchor_("Which airlines did I fly with before today?", Now, _, A),
    atc_hydrate:anchor_meta_(A, Meta), dict_pairs(Meta, _, M).
test(receipt_anchor_of_two_times,
     [true(M == [from-"2023-01-01T00:00:00Z", phrase-"in january and march", to-"2023-03-11T05:28:00Z"])]) :-
    now(Now),
    atc_hydrate:time_anchor_("the two novels I finished in January and March", Now, _, A),
    atc_hydrate:anchor_meta_(A, Meta), dict_pairs(Meta, _, M).

test(receipt_anchor_of_a_list_of_times,
     [true(M == [from-"2022-01-01T00:00:00Z", phrase-"in january march and may", to-"2022-06-01T00:00:00Z"])]) :-
    now(Now),
    atc_hydrate:time_anchor_("the races I ran in January, March and May", Now, _, A),
    atc_hydrate:anchor_meta_(A, Meta), dict_pairs(Meta, _, M).

% The windows of each time: goal_time_window/4's window is their span, but February is no
% piece of "January and March".
pieces(Goal, Phrase, Days) :-
    now(Now),
    goal_time_pieces(Goal, Now, Pieces, Phrase),
    findall(F-T, ( member(From-To, Pieces), day(From, F), day(To, T) ), Days).

test(pieces_of_two_months_leave_the_one_between, [true(P-D == "in january and march"-['2023-01-01'-'2023-02-01', '2023-03-01'-'2023-03-11'])]) :-
    pieces("the two novels I finished in January and March", P, D).
test(pieces_of_a_list, [true(D == ['2022-01-01'-'2022-02-01', '2022-03-01'-'2022-04-01', '2022-05-01'-'2022-06-01'])]) :-
    pieces("What did I cook in January, March and May?", _, D).
test(a_range_is_one_piece, [true(D == ['2022-03-01'-'2022-06-01'])]) :-
    pieces("Which trips did I take between March and May?", _, D).
test(a_range_joiner_is_one_piece, [true(D == ['2022-05-01'-'2022-08-01'])]) :-
    pieces("what did Aisha work on in May to July", _, D).
test(pieces_that_touch_are_one, [true(D == ['2023-01-01'-'2023-03-01'])]) :-
    pieces("what did I buy in January and February", _, D).
test(a_single_time_is_one_piece, [true(D == ['2023-02-23'-'2023-03-11'])]) :-
    pieces("what did we decide in the last two weeks", _, D).
test(weekdays_in_a_plan_are_pieces, [true(D == ['2023-03-13'-'2023-03-14', '2023-03-15'-'2023-03-16'])]) :-
    pieces("can we do strength training on Monday and Wednesday", _, D).
test(weekdays_in_a_plan_joined_as_a_range, [true(D == ['2023-03-13'-'2023-03-18'])]) :-
    pieces("can we run the job on Monday to Friday", _, D).

:- end_tests(when_spans_and_bounds).
