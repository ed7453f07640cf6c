:- module(atc_when,
          [ goal_time_window/4,         % +Goal, +Now, -Window, -Phrase
            goal_time_pieces/4,         % +Goal, +Now, -Pieces, -Phrase
            memory_now/1,               % -Stamp
            memory_newest/1,            % -Stamp
            memory_now_for/2,           % +Goal, -Stamp
            window_holds_all/2,         % +From, +To
            items_between/3,            % +From, +To, -Items
            items_between/4,            % +From, +To, +Max, -Items
            item_stamp/2,               % +Item, -Stamp
            item_dated_in/3,            % +Item, +From, +To
            items_dated_between/4,      % +From, +To, +Max, -Items
            records_between/5,          % +Records, +From, +To, +Max, -Items
            records_dated_between/5,    % +Records, +From, +To, +Max, -Items
            segments_items_between/4,   % +Segments, +From, +To, -Items
            goal_words/2,               % +Goal, -Words
            goal_recency_cue/2          % +Goal, -Phrase
          ]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(error)).
:- use_module(library(aggregate)).
:- use_module(library(ordsets)).
:- use_module(journal).
:- use_module(store, [store_appended/4]).
% Arithmetic compiled to VM instructions (this file only): a frame's look-ups here would
% otherwise call rules/arith_guard.pl's wrapped is/2 and comparisons (hydrate.pl does the same).
:- set_prolog_flag(optimise, true).

/** <module> When: the time a goal points at ("two months ago", "last week", "in March")

Hydration anchors a goal that names a time: the items written inside the window it names count
more in the jump (rules/hydrate.pl), and the receipt says which window was read from which
words. Times are POSIX stamps (seconds, UTC); `Now` is the caller's clock, by default the
time of the newest item in memory (memory_now/1): an agent's memory is written up to the
moment it asks, and a replayed or imported history keeps its own present.

Expressions recognised (case-insensitive; numbers as digits or words one to twelve, "a",
"an", "a couple of", "a few"):

  | goal says                          | window                                   |
  |------------------------------------|------------------------------------------|
  | N days / weeks / months / years ago | N units before Now, ± a quarter of that (at least a day) |
  | last / past N units, last unit      | from N units (1 and a half when N is omitted) before Now to Now |
  | yesterday, last night; today, tonight | the last two days; the last day        |
  | last weekend, over the weekend      | the latest weekend before Now's day, ± a day |
  | this week / month / year            | the last 7 / 31 / 366 days               |
  | last Monday, this past Friday, on Friday | that weekday's most recent date before Now: that one day |
  | next / this coming Friday; on Friday in a plan ("can I ... on Friday") | the first such date after Now's day: that one day |
  | (on) Thursday 12 January, Friday the 20th of January 2023 | that day, as below (the weekday only names it) |
  | in / during / early / late March, last June | that month's most recent occurrence up to Now (last June: before Now's month) |
  | March 2023, in March 2023, in March last / this / next year | that month of that year |
  | March 5, on 5 March, the 5th of March (, 2023) | that day, ± a day (its latest occurrence up to Now when no year is written) |
  | in / during 2023 (ending the goal or a clause) | that year ("in 2048 bytes" is no time) |
  | 2023-05-08, 2023/05/08, 21/10/2022, 10-21-2022 | that day, ± a day (digits: the order of day and month only when one is above 12) |
  | the week of 21 October (2022), the week of 2022-10-21 | that day and the six after it, ± a day |
  | before / prior to X                | from the year 1 to where X starts (X's window without its slack) |
  | until / till / up to X             | from the year 1 to X's end                |
  | since X; after X                   | from X's start (after: X's end) to Now    |
  | between X and Y, from X to Y, X to / through Y | from the start of the earlier to the end of the later |
  | X and Y, X or Y, X, Y and Z (commas), on Monday, Wednesday and Friday | each its own window (goal_time_pieces/4); goal_time_window/4 gives their span |

A bound or a range may name a month, a weekday or a day bare ("until Friday", "before 5
March", "between March and May"); a bare month must end the goal or a clause, or stand in a
list that a joined time ends ("January, March and May"). A bound after a unit is none ("the
day before yesterday" is yesterday). Of times without a year each is read up to the one after
it ("between March and May" asked in April is last year's); a year written on the first alone
is the later ones' ("January 2023 and March" is March 2023, "December 2022 and January" is
January 2023).

An item is *dated* inside a window when it was written there or when its text names a day
there: ingestion resolves "yesterday", "two days ago", "last Friday" in a turn against the
turn's own time and keeps the day as relation(Item, mentions_date, 'YYYY-MM-DD'). So "what
did Priya do last week" finds the turn that said "I started pottery yesterday" a week later
about it, and a frame can tell the day a thing happened, not only the day it was said.

```
?- get_time(Now), goal_time_window("what did I buy two weeks ago", Now, From-To, Phrase).
Phrase = "two weeks ago", ...
```
*/

%!  goal_time_window(+Goal:string, +Now, -Window:pair, -Phrase:string) is semidet.
%
%   Window is From-To (POSIX stamps, From =< To) for the first time expression in Goal (with
%   more joined to it, the span of all; a bound, an open interval), and Phrase the
%   words it was read from. Fails when Goal names no time. Now is a POSIX stamp or
%   ISO 8601 text, as item_time/2 gives it.
%   @error domain_error(iso_8601_time, Now) for text that is no time
goal_time_window(Goal, Now, From-To, Phrase) :-
    goal_time_pieces(Goal, Now, Pieces, Phrase),
    Pieces = [From-_|_],
    last(Pieces, _-To).

%!  goal_time_pieces(+Goal:string, +Now, -Pieces:list(pair), -Phrase:string) is semidet.
%
%   Pieces are the windows (From-To, sorted, apart) of the times Goal names, as
%   goal_time_window/4 reads them: one for a time, a bound or a range ("between March and
%   May"), one a time for times joined by "and" or "or" ("in January and March" is January
%   and March, not February). goal_time_window/4's window is their span.
%   @error domain_error(iso_8601_time, Now) for text that is no time
goal_time_pieces(Goal, Now0, Pieces, Phrase) :-
    stamp_arg_(Now0, Now),
    goal_words(Goal, Words),
    first_time_(Words, none, Now, Pieces0, Used), !,
    weekday_ahead_(Words, Used, Now, Pieces0, Pieces1),
    merged_pieces_(Pieces1, Pieces),
    atomic_list_concat(Used, ' ', PhraseAtom),
    atom_string(PhraseAtom, Phrase).

% merged_pieces_(+Windows, -Pieces): Windows sorted, those that overlap or touch made one.
merged_pieces_(Windows, Pieces) :-
    msort(Windows, [W|Ws]),
    foldl(merge_piece_, Ws, [W], Rev),
    reverse(Rev, Pieces).

merge_piece_(F-T, [F0-T0|Done], Out) :-
    (   F =< T0
    ->  T1 is max(T0, T), Out = [F0-T1|Done]
    ;   Out = [F-T, F0-T0|Done]
    ).

% weekday_ahead_(+Words, +Used, +Now, +Pieces0, -Pieces): "on Friday" in a goal that plans
% ("can I migrate staging on Friday", "we will ship on Friday") is the coming Friday, in any
% other ("what did we decide on Friday") the last one; "on Monday, Wednesday and Friday" the
% coming or the last three. An agent speaks of its plans; a past tense anywhere in the goal
% wins over a modal ("what did we say we would do on Friday").
weekday_ahead_(Words, ["on"|Named], Now, _, Pieces) :-
    phrase(weekdays_(Days, Joins), Named),
    \+ ( member(P, Words), past_cue_(P) ),
    once(( member(F, Words), plan_cue_(F) )), !,
    maplist(next_weekday(Now), Days, Dates),
    maplist(weekday_piece_, Dates, Pieces0),
    (   memberchk(range, Joins)                     % "on Monday to Friday": the days between
    ->  span_(Pieces0, Span), Pieces = [Span]
    ;   Pieces = Pieces0
    ).
weekday_ahead_(_, _, _, Pieces, Pieces).

weekday_piece_(Day, Day-To) :-
    weekday_window(Day, Day, To).

% weekdays_(-Days, -Joins)//: weekdays alone, joined ("monday wednesday and friday"), and the
% joiners between them (time_joiner//1).
weekdays_([D|Ds], Js) --> weekday(D), more_weekdays_(Ds, Js).

more_weekdays_(Ds, [J|Js]) --> time_joiner(J), !, weekdays_(Ds, Js).
more_weekdays_(Ds, Js) --> weekdays_(Ds, Js), !.
more_weekdays_([], []) --> [].

% Words that say a goal plans: a modal or a future ("going", "planning", "scheduled").
plan_cue_(W) :-
    memberchk(W, ["will", "can", "could", "should", "shall", "would", "may", "might", "must",
                  "going", "gonna", "plan", "planning", "scheduled", "schedule", "let's",
                  "upcoming", "need", "needs", "want"]).
plan_cue_(W) :- ( sub_atom(W, _, 3, 0, '\'ll') ; sub_atom(W, _, 3, 0, '’ll') ; W == "let’s" ), !.

% Words that say a goal asks about what was: an auxiliary in the past tense.
past_cue_(W) :-
    memberchk(W, ["did", "was", "were", "had", "didn't", "wasn't", "weren't", "hadn't"]).

% first_time_(+Words, +Prev, +Now, -Pieces, -Used): the first time the words name, its windows
% (time_phrase//3), Used the words it was read from, Prev the word before Words (a bound after
% a unit is none).
first_time_(Words, Prev, Now, Pieces, Used) :-
    phrase(time_phrase(Prev, Now, Pieces), Words, After), !,
    append(Used, After, Words).
first_time_([W|Ws], _, Now, Pieces, Used) :-
    first_time_(Ws, W, Now, Pieces, Used).

%!  goal_recency_cue(+Goal:string, -Phrase:string) is semidet.
%
%   Phrase is the words of Goal that ask for the newest of what it is about ("What happened
%   most recently with the car?", "the latest", "lately", "the last time"): no window, but an
%   order. "Last" after an article or a possessive counts too when it names no time ("the
%   user's last request", "my last message", "the last error"; "the last week" is a window,
%   goal_time_window/4). Fails when Goal has none.
goal_recency_cue(Goal, Phrase) :-
    goal_words(Goal, Words),
    (   append(_, Rest, Words),
        recency_cue_(Cue),
        append(Cue, _, Rest)
    ->  true
    ;   append(_, [Owner, "last"|After], Words),
        last_owner_(Owner),
        After = [Next|_],
        \+ memberchk(Next, ["name", "names"]),          % "my last name" is a surname
        \+ phrase(time_expression(0, _, _, _), ["last"|After], _)
    ->  Cue = [Owner, "last"]
    ), !,
    atomic_list_concat(Cue, ' ', PhraseAtom),
    atom_string(PhraseAtom, Phrase).

% The words before "last" that make it the newest of something: an article or a possessive.
last_owner_(W) :-
    (   memberchk(W, ["the", "my", "your", "our", "their", "his", "her", "its"])
    ->  true
    ;   sub_string(W, _, 2, 0, S), memberchk(S, ["'s", "’s", "s'"])
    ).

recency_cue_(["most", "recently"]).
recency_cue_(["most", "recent"]).
recency_cue_(["the", "last", "time"]).
recency_cue_(["latest"]).
recency_cue_(["lately"]).
recency_cue_(["recently"]).
recency_cue_(["newest"]).

% goal_read_chars(-Max): how much of a goal its readers read (host: jump.MAX_QUERY_CHARS).
goal_read_chars(32768).

%!  goal_words(+Goal:string, -Words:list(string)) is det.
%
%   Goal lowercased and split into words at blanks and punctuation (apostrophes stay inside
%   words: "i'm"). The goal readers here and in hydrate.pl (goal_speaker/2) read these.
%   Only the goal's first goal_read_chars/1 characters are read, as the vector and BM25
%   searches read it (jump.MAX_QUERY_CHARS): a frame read every word of a pasted log some
%   times over (a 1 MB goal took 21 s on a 47-item home; a 10 MB one ran out of stack).
goal_words(Goal, Words) :-
    goal_read_chars(Max),
    (   string_length(Goal, N), N > Max
    ->  sub_string(Goal, 0, Max, _, Read)
    ;   Read = Goal
    ),
    string_lower(Read, Lower),
    split_string(Lower, " \t\n\r,.;:!?()\"", " \t\n\r,.;:!?()\"", Words0),
    exclude(==(""), Words0, Words).

%!  memory_now(-Stamp:number) is det.
%
%   The time of the newest item in memory (0 when no item has a time: see memory_newest/1,
%   which tells that apart from a memory whose newest item is of 1970-01-01T00:00:00Z).
memory_now(Stamp) :-
    newest_(Newest),
    (   Newest == none -> Stamp = 0 ; Stamp = Newest ).

%!  memory_newest(-Stamp:number) is semidet.
%
%   The time of the newest item in memory, before 1970 too (a negative stamp); fails when no
%   item has a time. What a frame's default `now` is.
memory_newest(Stamp) :-
    newest_(Newest),
    Newest \== none,
    Stamp = Newest.

% newest_(-Stamp): the newest item's stamp, or `none`. Read from the day index when it is
% current; after a change of the items it is found without rebuilding the index
% (newest_stamp_/1), so a frame whose goal names no time does not pay the index's scan after
% every write (an agent loop ingests every turn): the index is built when a window is asked.
% `none`, not 0, for no time: 0 and every stamp below it are times (before 1970), which a
% memory of only such items was taken for "no time" by (no `now`, no window).
newest_(Stamp) :-
    items_generation_(G),
    (   nb_current(when_time_index, G)
    ->  nb_getval(when_memory_now, Stamp)
    ;   nb_current(when_newest, n(G, Stamp0, _))
    ->  Stamp = Stamp0
    ;   nb_current(when_newest, n(_, Stamp0, Mark0)),
        store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), Mark0, Mark, since(New)),
        newest_of_added_(New, Stamp0, Stamp1)
    ->  nb_setval(when_newest, n(G, Stamp1, Mark)),
        Stamp = Stamp1
    ;   newest_stamp_(Stamp0)
    ->  store_appended(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), none, Mark, _),
        nb_setval(when_newest, n(G, Stamp0, Mark)),
        Stamp = Stamp0
    ;   time_index_ready_,
        nb_getval(when_memory_now, Stamp)
    ).

% newest_of_added_(+Items, +Stamp0, -Stamp): the newest of Stamp0 and the times of Items (item_
% clauses just added, store_appended/4): after an agent's turn, memory_now/1 reads the turn's
% items, not every item. Fails when one of their times does not read as one (the index decides).
newest_of_added_(Items, Stamp0, Stamp) :-
    foldl(newer_, Items, Stamp0, Stamp).

newer_(Item, S0, S) :-
    arg(1, Item, H),
    (   item_time(H, T), T \== ""
    ->  item_stamp_(T, S1),
        (   S0 == none -> S = S1 ; S is max(S0, S1) )
    ;   S = S0
    ).

%!  memory_now_for(+Goal, -Stamp) is det.
%
%   The newest item's time for a frame of Goal, `none` when no item has one (memory_newest/1):
%   when Goal names a time, its window will be read from the day index, so the index is
%   brought up to date first and the newest time read from it (not found once without it and
%   then again by the rebuild).
memory_now_for(Goal, Stamp) :-
    (   goal_time_window(Goal, 4.0e9, _, _)     % any present: does the goal name a time at all
    ->  time_index_ready_,
        nb_getval(when_memory_now, Stamp)
    ;   newest_(Stamp)
    ).

% newest_stamp_(-Stamp): the stamp the day index would give as memory_now, from the item times
% alone. Journal times are UTC text ("2026-01-05T08:00:00Z", with or without a fraction or the
% Z): their order as text is their order in time to the second, so only the greatest is read
% (item_stamp_/2 drops the fraction too); any other form is read one by one. Fails, leaving it
% to the index, when the greatest such text does not read as a time.
newest_stamp_(Stamp) :-
    findall(T, ( item_time(_, T), T \== "" ), Times),
    partition(plain_utc_, Times, Plain, Other),
    (   Plain == []
    ->  Stamps0 = []
    ;   max_member(Newest, Plain),
        utc_stamp_(Newest, S),
        Stamps0 = [S]
    ),
    findall(S1, ( member(T1, Other), item_stamp_(T1, S1) ), Stamps1),
    append(Stamps0, Stamps1, Stamps),
    (   Stamps == [] -> Stamp = none ; max_list(Stamps, Stamp) ).

plain_utc_(T) :-
    string_length(T, Len), Len >= 19,
    string_code(11, T, 0'T),
    (   Len =:= 19
    ->  true
    ;   string_code(20, T, C),
        (   C == 0'Z -> Len =:= 20 ; C == 0'., string_code(Len, T, 0'Z) )
    ).

% stamp_arg_(+Time, -Stamp:number) is det.
%
% Stamp is Time as a POSIX stamp: Time is one already, or ISO 8601 text (an atom or a
% string: `"2024-03-20T16:00:00Z"`, as item_time/2 gives it, or a day, `"2024-03-20"`).
% A user's goal read the vocabulary's times as text and had to pass numbers here: a string
% was a type error from is/2 that named neither the argument nor what it should be.
% @error instantiation_error; domain_error(iso_8601_time, Time) for text that is no time;
% type_error(posix_stamp_or_iso_8601, Time) for anything else
stamp_arg_(Time, Stamp) :-
    (   number(Time)
    ->  Stamp = Time
    ;   var(Time)
    ->  instantiation_error(Time)
    ;   ( atom(Time) ; string(Time) )
    ->  (   catch(parse_time(Time, iso_8601, Stamp0), _, fail)
        ->  Stamp = Stamp0
        ;   domain_error(iso_8601_time, Time)
        )
    ;   type_error(posix_stamp_or_iso_8601, Time)
    ).

%!  window_holds_all(+From:number, +To:number) is semidet.
%
%   The window From-To (POSIX stamps) holds every item memory has: it starts on or before the
%   day of the oldest and ends at or after the newest. Such a window ("before today" asked
%   after the last item was written) tells no item apart from another by its time. Fails
%   when no item has a time.
window_holds_all(From, To) :-
    time_index_ready_,
    nb_getval(when_memory_now, Newest),
    Newest \== none,
    nb_getval(when_time_days, Oldest-_),
    From =< Oldest * 86400,
    To >= Newest.

%!  items_between(+From, +To, -Items:list) is det.
%!  items_between(+From, +To, +Max, -Items:list) is det.
%
%   The items written between From and To (inclusive; POSIX stamps or ISO 8601 text, see
%   stamp_arg_/2), newest first; with
%   Max (a count, or `inf`) at most the Max newest, reading the days back from To and stopping
%   once it has them, so a wide window costs what it returns. Read from a day index built on
%   first use after the items change (one scan of their times, shared with memory_now/1):
%   hydration searches inside the window a goal names ("ten days ago") even when nothing there
%   ranks among the memory's best.
items_between(From, To, Items) :-
    items_between(From, To, inf, Items).

items_between(From0, To0, Max, Items) :-
    stamp_arg_(From0, From),
    stamp_arg_(To0, To),
    (   Max == inf -> true ; must_be(nonneg, Max) ),
    time_index_ready_,
    nb_getval(when_time_days, Oldest-Newest),         % days outside memory hold nothing
    FirstDay is max(Oldest, floor(From / 86400)),
    LastDay is min(Newest, floor(To / 86400)),
    newest_days_(LastDay, FirstDay, From-To, Max, Items).

newest_days_(Day, First, _, _, []) :-
    Day < First, !.
newest_days_(_, _, _, 0, []) :- !.
newest_days_(Day, First, From-To, Max, Items) :-
    (   day_items_(Day, Stamps, Handles)
    ->  in_window_(Stamps, Handles, From, To, Hs)
    ;   Hs = []
    ),
    take_upto_(Max, Hs, Taken, Max1),
    append(Taken, Rest, Items),
    Previous is Day - 1,
    newest_days_(Previous, First, From-To, Max1, Rest).

% The live items of one day's lists (newest first) written between From and To.
in_window_([], [], _, _, []).
in_window_([S|Ss], [H|Hs], From, To, In) :-
    (   S >= From, S =< To, item_time(H, _)         % in the window and still live
    ->  In = [H|In1]
    ;   In = In1
    ),
    in_window_(Ss, Hs, From, To, In1).

take_upto_(inf, Hs, Hs, inf) :- !.
take_upto_(Max, Hs, Taken, Left) :-
    length(Hs, N),
    (   N =< Max
    ->  Taken = Hs, Left is Max - N
    ;   length(Taken, Max), append(Taken, _, Hs), Left = 0
    ).

%!  item_dated_in(+Item, +From:number, +To:number) is semidet.
%
%   Item was written between the POSIX stamps From and To, or names a day (mentions_date) that
%   overlaps them.
item_dated_in(H, From, To) :-
    (   item_stamp(H, Stamp), Stamp >= From, Stamp =< To
    ->  true
    ;   relation(H, mentions_date, Date),
        date_day_(Date, Day),
        Day * 86400 =< To, (Day + 1) * 86400 > From
    ->  true
    ).

%!  items_dated_between(+From:number, +To:number, +Max, -Items:list) is det.
%
%   As items_between/4, and then (up to Max in all) the items whose text names a day inside
%   the window (item_dated_in/3), latest day first.
items_dated_between(From, To, Max, Items) :-
    items_between(From, To, Max, Written),
    FirstDay is floor(From / 86400),
    LastDay is floor(To / 86400),
    findall(Day-H, ( mention_day_(Day, H), Day >= FirstDay, Day =< LastDay, item_time(H, _) ),
            Pairs0),
    sort(1, @>=, Pairs0, Pairs),
    pairs_values(Pairs, Mentioning0),
    list_to_set(Mentioning0, Mentioning),
    sort(Written, Seen),
    exclude(in_ordset_(Seen), Mentioning, New),
    (   Max == inf
    ->  append(Written, New, Items)
    ;   length(Written, N), Room is max(0, Max - N),
        take_upto_(Room, New, Extra, _),
        append(Written, Extra, Items)
    ).

in_ordset_(Set, X) :- ord_memberchk(X, Set).

%!  records_between(+Records:list, +From, +To, +Max, -Items:list) is det.
%!  records_dated_between(+Records:list, +From, +To, +Max, -Items:list) is det.
%
%   items_between/4 and items_dated_between/4 over the items among Records alone (a
%   grantee's kept set, rules/grants.pl reader_records/2): what they hold, newest first (items
%   written in the same second in the order of Records), at most Max. They cost what Records
%   hold: the whole home's window, fetched and then filtered, cost what the home holds.
records_between(Records, From0, To0, Max, Items) :-
    stamp_arg_(From0, From),
    stamp_arg_(To0, To),
    (   Max == inf -> true ; must_be(nonneg, Max) ),
    written_between_(Records, From, To, Written),
    take_upto_(Max, Written, Items, _).

records_dated_between(Records, From0, To0, Max, Items) :-
    stamp_arg_(From0, From),
    stamp_arg_(To0, To),
    (   Max == inf -> true ; must_be(nonneg, Max) ),
    written_between_(Records, From, To, Written),
    FirstDay is floor(From / 86400),
    LastDay is floor(To / 86400),
    sort(Written, Seen),
    findall(Day-H, ( member(H, Records), \+ ord_memberchk(H, Seen),
                     latest_day_named_(H, FirstDay, LastDay, Day) ),
            Pairs0),
    sort(1, @>=, Pairs0, Pairs),
    pairs_values(Pairs, Mentioning),
    append(Written, Mentioning, Items0),
    take_upto_(Max, Items0, Items, _).

%!  segments_items_between(+Segments:list, +From, +To, -Items:list) is det.
%
%   items_between/3 over the items of Segments alone: those written between From and To,
%   newest first (items of the same second by segment, then in journal order). Read from a
%   day index per segment, built on first use after the items change (one scan of the items,
%   made only when this is asked: a grantee's window where no kept set is, whose grants name
%   segments, rules/grantee_view.pl), so it costs what Segments hold in the window, not what
%   the home holds: read from the home's window, the time taken told a grantee how many
%   records of other segments it held.
segments_items_between(Segments, From0, To0, Items) :-
    must_be(list(atom), Segments),
    stamp_arg_(From0, From),
    stamp_arg_(To0, To),
    segment_index_ready_,
    FirstDay is floor(From / 86400),
    LastDay is floor(To / 86400),
    findall(Stamp-H,
            ( member(Segment, Segments),
              segment_day_items_(Segment, Day, Dated),
              Day >= FirstDay, Day =< LastDay,
              member(Stamp-H, Dated), Stamp >= From, Stamp =< To,
              item_time(H, _) ),                          % still live
            Pairs0),
    sort(1, @>=, Pairs0, Pairs),
    pairs_values(Pairs, Items).

:- dynamic segment_day_items_/3.        % Segment, Day, Stamp-Handle pairs: newest first

segment_index_ready_ :-
    items_generation_(G),
    (   nb_current(when_segment_index, G)
    ->  true
    ;   retractall(segment_day_items_(_, _, _)),
        findall((Segment-Day)-(Stamp-H),
                ( item_time(H, T), item_stamp_(T, Stamp), item_segment(H, Segment),
                  Day is floor(Stamp / 86400) ),
                Dated),
        sort(1, @>=, Dated, Sorted),                  % stable: journal order within a day
        group_pairs_by_key(Sorted, Days),
        forall(member((Segment-Day)-Pairs, Days),
               ( sort(1, @>=, Pairs, Newest),
                 assertz(segment_day_items_(Segment, Day, Newest)) )),
        nb_setval(when_segment_index, G),
        garbage_collect,
        trim_stacks
    ).

% The live items of Records written between From and To, newest first.
written_between_(Records, From, To, Written) :-
    findall(Stamp-H, ( member(H, Records), item_stamp(H, Stamp), Stamp >= From, Stamp =< To ),
            Pairs0),
    sort(1, @>=, Pairs0, Pairs),
    pairs_values(Pairs, Written).

% The latest day from FirstDay to LastDay that live item H's text names.
latest_day_named_(H, FirstDay, LastDay, Day) :-
    item_time(H, _),
    aggregate_all(max(D), ( relation(H, mentions_date, Date), date_day_(Date, D),
                            D >= FirstDay, D =< LastDay ),
                  Day),
    integer(Day).

date_day_(Date, Day) :-
    atom_length(Date, 10),
    sub_atom(Date, 4, 1, _, -),
    digits_(Date, 1, 4, Y), digits_(Date, 6, 2, M), digits_(Date, 9, 2, D),
    date_time_stamp(date(Y, M, D, 0, 0, 0, 0, -, -), Stamp),
    Day is floor(Stamp / 86400).

%!  item_stamp(+Item, -Stamp:number) is semidet.
%
%   The POSIX time Item was written, read from its time text (the day index holds stamps by
%   day, not by item); fails for an item with no time.
item_stamp(H, Stamp) :-
    item_time(H, T),
    item_stamp_(T, Stamp), !.

% The day index: ONE fact per day that has items, not one per item (100 bytes and two clause
% indexes less per item, 12 MB at 100k items): day_items_(Day, Stamps, Handles), the items
% written that day newest first (an item's place in both lists the same; items of the same
% second in journal order). item_stamp/2 reads an item's time instead of an index by handle.
:- dynamic day_items_/3.                % Day, Stamps, Handles: the day index
:- dynamic mention_day_/2.              % Day, Handle: the days items' texts name (mentions_date)

time_index_ready_ :-
    items_generation_(G),
    (   nb_current(when_time_index, G)
    ->  true
    ;   retractall(day_items_(_, _, _)),
        retractall(mention_day_(_, _)),
        findall(Day-(Stamp-H),
                ( item_time(H, T), item_stamp_(T, Stamp), Day is floor(Stamp / 86400) ),
                Dated),
        sort(1, @>=, Dated, ByDay),                   % stable: journal order within a day
        group_pairs_by_key(ByDay, Days),
        forall(member(Day-Pairs, Days), assert_day_(Day, Pairs)),
        forall(( journal_links(mentions_date, H, Date), date_day_(Date, Day) ),
               assertz(mention_day_(Day, H))),
        (   Days = [Newest-Latest|_]
        ->  last(Days, Oldest-_),
            pairs_keys(Latest, LatestStamps),
            max_list(LatestStamps, Now),
            nb_setval(when_time_days, Oldest-Newest),
            nb_setval(when_memory_now, Now)
        ;   nb_setval(when_time_days, 1-0),           % no dated item: every window is empty
            nb_setval(when_memory_now, none)
        ),
        nb_setval(when_time_index, G),
        garbage_collect,                              % the scan's terms: give the stacks back
        trim_stacks
    ).

assert_day_(Day, Pairs) :-
    sort(1, @>=, Pairs, Newest),
    pairs_keys_values(Newest, Stamps, Handles),
    assertz(day_items_(Day, Stamps, Handles)).

% The POSIX stamp of an item's time text. Journal times are UTC ("2026-01-05T08:00:00.123Z"):
% those are read field by field (a fraction of a second dropped), three times faster than
% parse_time/3, which reads every other ISO 8601 form.
item_stamp_(T, Stamp) :-
    T \== "",
    (   utc_stamp_(T, Stamp0)
    ->  Stamp = Stamp0
    ;   catch(parse_time(T, iso_8601, Stamp), _, fail)
    ).

utc_stamp_(T, Stamp) :-
    string_length(T, Len), Len >= 19,
    string_code(11, T, 0'T),
    utc_end_(Len, T), !,
    % the fields' digits read in place, code by code: a sub_string/5 and a number_string/2 a
    % field went through the search and number guards' wrappers (a frame reads ~30 times,
    % the day index every item's at a build: ~7 -> ~3 us a time)
    digits_(T, 1, 4, Y), digits_(T, 6, 2, M), digits_(T, 9, 2, D),
    digits_(T, 12, 2, H), digits_(T, 15, 2, Mi), digits_(T, 18, 2, S),
    date_time_stamp(date(Y, M, D, H, Mi, S, 0, -, -), Stamp).

% utc_end_(+Len, +T): what follows the seconds of T (Len characters): nothing, "Z", or a
% fraction of a second and "Z" (".123Z").
utc_end_(19, _) :- !.
utc_end_(Len, T) :-
    string_code(20, T, C),
    (   C == 0'Z -> Len =:= 20
    ;   C == 0'., string_code(Len, T, 0'Z)
    ).

% digits_(+Text, +At, +Count, -N): the Count characters of Text from At (1-based) are decimal
% digits 0-9, N their value.
digits_(T, At, Count, N) :-
    digits_(Count, T, At, 0, N).

digits_(0, _, _, N, N) :- !.
digits_(Left, T, At, N0, N) :-
    string_code(At, T, C),
    C >= 0'0, C =< 0'9,
    N1 is N0 * 10 + C - 0'0,
    At1 is At + 1,
    Left1 is Left - 1,
    digits_(Left1, T, At1, N1, N).

% O(1), where counting the clauses is not: number_of_clauses walks them (4 ms at 100k items).
items_generation_(G) :-
    (   predicate_property(atc_journal:item_(_,_,_,_,_,_,_,_,_,_), last_modified_generation(G0))
    ->  G = G0
    ;   G = 0
    ).

% --- grammar over lowercase words -------------------------------------------------------------

% time_phrase(+Prev, +Now, -Pieces)//: the windows of the time the goal names at this word,
% Prev the word before it (`none` at the start). A bound ("before today", "since last June",
% "until Friday") is an open interval, not the day it names; a range ("between March and
% May", "from May to July") the span from the first to the last; times joined by "and" or
% "or" ("in January and March", "in January, March and May") a window each. A bound after a
% unit ("the day before yesterday", "the week after next") is no bound.
time_phrase(Prev, Now, [From-To]) -->
    bound_word(Side),
    { \+ unit_word(Prev, _), Prev \== "night" },
    time_point(Now, F, T, Slack), !,
    { bound_window(Side, Now, F, T, Slack, From, To) }.
time_phrase(_, Now, [Span]) -->
    ( ["between"] ; ["from"] ), time_pair(time_point, two, Now, Pieces), !,
    { span_(Pieces, Span) }.
time_phrase(_, Now, Pieces) -->
    time_pair(time_expression, one_or_two, Now, Pieces).

span_(Pieces, From-To) :-
    pairs_keys_values(Pieces, Froms, Tos),
    min_list(Froms, From),
    max_list(Tos, To).

% time_pair(+First, +Count, +Now, -Pieces)//: a time read by the grammar First (a month
% alone is a time only after "between" or "from": time_point//4) and, Count `two`, more joined
% to it ("January and March", "May to July", "January, March and May": goal_words/2 dropped
% the commas), or, `one_or_two`, maybe none. Pieces are their windows, or, where a joiner
% makes a range ("May to July", "Monday through Friday"), the one span from the earliest start
% to the latest end. How each is dated: later_times_//4 and dated_backward_/2.
time_pair(First, Count, Now, Pieces, Words, Rest) :-
    call(First, Now, F1, T1, Slack1, Words, Mid),
    read_words_(Words, Mid, FirstWords),
    (   later_times_(Now, t(FirstWords, F1, Slack1), Later, Joins, Mid, Rest0)
    ->  Rest = Rest0,
        dated_backward_([t(First, FirstWords, F1-T1)|Later], Windows),
        (   memberchk(range, Joins)
        ->  span_(Windows, Span), Pieces = [Span]
        ;   Pieces = Windows
        )
    ;   Count == one_or_two,
        Rest = Mid, Pieces = [F1-T1]
    ).

% later_times_(+Now, +First, -Later, -Joins)//: the times listed after the first, each
% t(Grammar, Words, From-To), and how each is joined (time_joiner//1): none or more side by
% side or joined (time_listed_//4: "March" in "January, March and May", "June" in "May and
% June and July"), then the last after a joiner (time_point//4). A month or day written
% without a year, after a first time that writes one, is read in that year or the next, at or
% after the first ("January 2023 and March" is March 2023, "December 2022 and January"
% January 2023); otherwise at Now, as its latest occurrence.
later_times_(Now, First, [T|Ts], [J|Js]) -->
    ( time_joiner(J) -> [] ; { J = each } ),        % "May and June and July" too
    later_time_(time_listed_, Now, First, T),
    later_times_(Now, First, Ts, Js).
later_times_(Now, First, [T], [J]) -->
    time_joiner(J),
    later_time_(time_point, Now, First, T).

later_time_(Grammar, Now, t(FirstWords, F1, Slack1), t(Grammar, Words, F-T), S0, S) :-
    call(Grammar, Now, F0, T0, _, S0, S),
    read_words_(S0, S, Words),
    (   named_year_(FirstWords),
        undated_calendar_(Words),
        year_on_(F1, Slack1, Then),
        phrase(call(Grammar, Then, F2, T2, _), Words)
    ->  F = F2, T = T2
    ;   F = F0, T = T0
    ).

% read_words_(+Words, +Rest, -Read): the words of Words before Rest, its tail, found by
% identity: append/3 would compare Rest with every tail, each to its end where the words repeat
% ("in january january …" took 35 s at 2,000 words).
read_words_(Words, Rest, Read) :-
    (   tail_read_(Words, Rest, Read0)
    ->  Read = Read0
    ;   append(Read, Rest, Words)                   % Rest a copy (a pushback), not the tail
    ->  true
    ).

tail_read_(Words, Rest, []) :-
    same_term(Words, Rest), !.
tail_read_([W|Ws], Rest, [W|Read]) :-
    tail_read_(Ws, Rest, Read).

% time_listed_(+Now, -From, -To, -Slack)//: a time inside a list, which more times follow: a
% month or a weekday written bare ("March" in "January, March and May"), maybe with its day
% and year; the list's end says they are times. No cue starts one: "in January on Monday and
% Friday" is no list of three.
time_listed_(Now, From, To, Slack) -->
    month(M), optional_day(D), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To), day_slack(D, Slack) }.
time_listed_(Now, From, To, 86400) -->
    [W], { day_word(W, D, ordinal) }, optional_of, month(M), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To) }.
time_listed_(Now, From, To, 0) -->
    weekday(D),
    { last_weekday(Now, D, Day), weekday_window(Day, From, To) }.

% dated_backward_(+Times, -Spans): the windows of Times (t(Grammar, Words, From-To)), each time
% that names a month but no year re-read as its latest occurrence up to the end of the time
% after it, where it would otherwise start after that one: "between March and May" asked in
% April is March to May of last year, and "January, March and May" asked in April is last
% year's three.
dated_backward_(Times, Spans) :-
    reverse(Times, [t(_, _, Last)|Earlier]),
    foldl(dated_before_, Earlier, [Last], Spans).

dated_before_(t(Grammar, Words, F-T), [Next|Spans], [Span, Next|Spans]) :-
    Next = NextFrom-NextTo,
    (   F > NextFrom,
        undated_calendar_(Words),
        phrase(call(Grammar, NextTo, F1, T1, _), Words)
    ->  Span = F1-T1
    ;   Span = F-T
    ).

% The words of a time name a month and no year: a time the calendar dates by what is around it.
undated_calendar_(Words) :-
    \+ named_year_(Words),
    once(( member(W, Words), month_word(W, _) )).

named_year_(Words) :- once(( append(_, Rest, Words), phrase(named_year(0, _), Rest, _) )).

% year_on_(+From, +Slack, -Then): the last moment before the same date a year after the time
% whose window starts at From (Slack before the time itself): the times after it are read as
% their latest occurrence up to Then.
year_on_(From, Slack, Then) :-
    Start is From + Slack,
    stamp_date_time(Start, date(Y, M, D, _, _, _, _, _, _), 'UTC'),
    Y1 is Y + 1,
    date_time_stamp(date(Y1, M, D, 0, 0, 0, 0, -, -), Next),
    Then is Next - 1.

% The words that make a time a bound, and on which side.
bound_word(before) --> ( ["before"] ; ["prior", "to"] ; ["earlier", "than"] ), !.
bound_word(until) --> ( ["until"] ; ["till"] ; ["up", "until"] ; ["up", "to"] ), !.
bound_word(since) --> ["since"], !.
bound_word(after) --> ( ["after"] ; ["later", "than"] ), !.

% time_joiner(-Join)//: a word joining two times, `each` where the times stay apart ("January
% and March"), `range` where it runs from one to the other ("May to July").
time_joiner(each) --> ( ["and"] ; ["or"] ), !.
time_joiner(range) --> ( ["to"] ; ["through"] ; ["until"] ; ["till"] ), !.

% A time as a bound, a range's end or the second of two names it: any expression, or, as the
% word before says it is a time, a month alone ("and March", "to July") where it ends the goal
% or a clause ("and may I ask" is no May) or a named year follows ("and March last year"), a
% year alone likewise ("since 2021"), a weekday alone ("until Friday") or a day before its
% month ("before 5 March").
time_point(Now, From, To, Slack) --> time_expression(Now, From, To, Slack), !.
time_point(Now, From, To, 0) --> month(M), named_year(Now, Y), !,     % "and March last year"
    { calendar_span(Now, Y, M, none, From, To) }.
time_point(Now, From, To, 0) --> month(M), year_ends, !,
    { calendar_span(Now, none, M, none, From, To) }.
time_point(_, From, To, 0) --> year(Y), year_ends, !,      % "since 2021"
    { year_span(Y, From, To) }.
time_point(Now, From, To, 0) --> weekday(D), !,
    { last_weekday(Now, D, Day), weekday_window(Day, From, To) }.
time_point(Now, From, To, 86400) -->
    optional_the, [W], { day_word(W, D, _) }, optional_of, month(M), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To) }.

% bound_window(+Side, +Now, +From, +To, +Slack, -BFrom, -BTo): the open interval a bound on
% the window From-To names. Slack is how far the window reaches past the time itself on each
% side (a day's window holds a day either side): "before X" ends where X starts and "after X"
% starts where it ends; "until X" and "since X" hold X, with its slack. The open end is the
% first moment of the year 1 or Now; "after X" where nothing of X's end lies before Now (X runs
% to Now, or is to come) is X's own window, not an empty one.
bound_window(before, _, From, _, Slack, Open, To) :- open_start(Open), To is From + Slack.
bound_window(until, _, _, To, _, Open, To) :- open_start(Open).
bound_window(since, Now, From, To0, _, From, To) :- To is max(Now, To0).
bound_window(after, Now, From0, To0, Slack, From, To) :-
    From1 is To0 - Slack,
    (   From1 < Now
    ->  From = From1, To = Now
    ;   From = From0, To = To0          % X runs to Now ("after last week") or is a plan: X
    ).

%!  open_start(-Stamp) is det.
%
%   The first moment of the year 1 (UTC): where a window that a bound leaves open ("before
%   today") starts.
open_start(-62135596800).

time_expression(Now, From, To, S) -->
    amount(N), unit(U), ["ago"], !,
    { Center is Now - N * U,
      S is max(86400, N * U / 4),
      From is Center - S, To is Center + S }.
time_expression(Now, From, To, 0) -->
    ( ["last"] ; ["past"] ; ["previous"] ), amount(N), unit(U), !,
    { From is Now - N * U * 1.1, To = Now }.
time_expression(Now, From, To, 0) -->
    ( ["last"] ; ["past"] ; ["previous"] ), unit(U), !,
    { From is Now - 1.5 * U, To = Now }.
time_expression(Now, From, To, 0) -->
    ( ["yesterday"] ; ["last", "night"] ), !,
    { From is Now - 2 * 86400, To = Now }.
time_expression(Now, From, To, 86400) -->
    ( ["last", "weekend"] ; ["over", "the", "weekend"] ), !,
    { last_weekend(Now, Saturday),
      From is Saturday - 86400, To is Saturday + 3 * 86400 }.
time_expression(Now, From, To, 0) -->
    ( ["today"] ; ["tonight"] ; ["this", "morning"] ; ["this", "afternoon"] ; ["this", "evening"] ), !,
    { From is Now - 86400, To = Now }.
time_expression(Now, From, To, 0) -->
    ["this"], this_span(Days), !,
    { From is Now - Days * 86400, To = Now }.
time_expression(Now, From, To, 86400) -->
    ["week", "of"], week_start(Now, Day), !,           % "the week of 21 October": 7 days on
    { From is Day - 86400, To is Day + 8 * 86400 }.
time_expression(Now, From, To, S) -->
    optional_on, weekday(_), weekday_date(Now, M, D, Y), !,   % "on Thursday 12 January": the date
    { calendar_span(Now, Y, M, D, From, To), day_slack(D, S) }.
time_expression(Now, From, To, 0) -->
    ( ["next"] ; ["this", "coming"] ; ["coming"] ), weekday(D), !,
    { next_weekday(Now, D, Day), weekday_window(Day, From, To) }.
time_expression(Now, From, To, 0) -->
    ( ["last"] ; ["on"] ; ["this", "past"] ), weekday(D), !,
    { last_weekday(Now, D, Day), weekday_window(Day, From, To) }.
time_expression(Now, From, To, 0) -->
    ["last"], month(M), !,                             % "last June": before Now's month
    { last_month_before(Now, M, From, To) }.
time_expression(Now, From, To, S) -->
    month_cue, month(M), optional_day(D), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To), day_slack(D, S) }.
time_expression(Now, From, To, 86400) -->
    month(M), day_number(D), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To) }.
time_expression(Now, From, To, 0) -->
    month(M), year(Y), !,                              % "May 2023": no verb is followed by a year
    { calendar_span(Now, Y, M, none, From, To) }.
time_expression(Now, From, To, 86400) -->
    day_before_month(D), month(M), optional_year(Now, Y), !,
    { calendar_span(Now, Y, M, D, From, To) }.
time_expression(Now, From, To, 86400) -->
    optional_on, [W], { numeric_date_word(W, Y, M, D) }, !,
    { calendar_span(Now, Y, M, D, From, To) }.
time_expression(_Now, From, To, 0) -->
    year_cue, year(Y), year_ends, !,
    { year_span(Y, From, To) }.

% How far a date's window reaches past it on each side (calendar_span/6): a day either side
% of a day, nothing around a month.
day_slack(none, 0) :- !.
day_slack(_, 86400).

amount(N) --> [W], { number_word(W, N) }, !.
amount(N) --> [W], { atom_number(W, N), integer(N), N > 0, N < 1000 }, !.
amount(2) --> ["a", "couple", "of"], !.
amount(2) --> ["a", "couple"], !.
amount(3) --> ["a", "few"], !.
amount(3) --> ["several"], !.
amount(1) --> ["a"], !.
amount(1) --> ["an"], !.

number_word("one", 1).    number_word("two", 2).     number_word("three", 3).
number_word("four", 4).   number_word("five", 5).    number_word("six", 6).
number_word("seven", 7).  number_word("eight", 8).   number_word("nine", 9).
number_word("ten", 10).   number_word("eleven", 11). number_word("twelve", 12).

unit(U) --> [W], { unit_word(W, U) }.

unit_word("day", 86400).       unit_word("days", 86400).
unit_word("week", 604800).     unit_word("weeks", 604800).
unit_word("month", 2629800).   unit_word("months", 2629800).   % 1/12 of a Julian year
unit_word("year", 31557600).   unit_word("years", 31557600).

this_span(7) --> ["week"].
this_span(31) --> ["month"].
this_span(366) --> ["year"].

weekday(D) --> [W], { weekday_word(W, D) }.

% ISO day of the week: Monday 1 .. Sunday 7 (format_time %u).
weekday_word("monday", 1).    weekday_word("tuesday", 2).   weekday_word("wednesday", 3).
weekday_word("thursday", 4).  weekday_word("friday", 5).    weekday_word("saturday", 6).
weekday_word("sunday", 7).

% A month name counts only after a cue or before a day number: "may" and "march" are verbs too.
month_cue --> ( ["in"] ; ["during"] ; ["early"] ; ["late"] ; ["mid"] ; ["of"] ), !.   % "since", "until": bounds

month(M) --> [W], { month_word(W, M) }.

month_word("january", 1).   month_word("february", 2).  month_word("march", 3).
month_word("april", 4).     month_word("may", 5).       month_word("june", 6).
month_word("july", 7).      month_word("august", 8).    month_word("september", 9).
month_word("october", 10).  month_word("november", 11). month_word("december", 12).

optional_day(D) --> day_number(D), !.
optional_day(none) --> [].

day_number(D) --> [W], { day_word(W, D, _) }.

% A day written before its month: "on 28 May", "the 28th of May", "28th May", "28 May 2023".
% A bare number needs "on" before it or a year after the month ("the 3 may be wrong" is no day).
day_before_month(D) --> ["on"], [W], { day_word(W, D, _) }, optional_of, !.
day_before_month(D) --> [W], { day_word(W, D, ordinal) }, optional_of, !.
day_before_month(D), [M, Y] --> [W, M, Y], { day_word(W, D, _), month_word(M, _), year_word(Y, _) }.

% The day "the week of ..." starts on, written as any day below.
week_start(Now, Day) -->
    (   [W], { numeric_date_word(W, Y, M, D) }
    ;   month(M), day_number(D), optional_year(Now, Y)
    ;   optional_the, [W], { day_word(W, D, _) }, optional_of, month(M), optional_year(Now, Y)
    ), !,
    { calendar_span(Now, Y, M, D, From, _), Day is From + 86400 }.

% A date written in digits as one word: ISO `2023-05-08` (`2023/05/08`, and `2023-05-08T10:00`,
% whose time goal_words/2 cuts at the colon), or `21/10/2022` and `10-21-2022` when one of day
% and month is above 12 (`05/06/2023` could be either: no day is read from it).
numeric_date_word(W, Y, M, D) :-
    split_string(W, "-/", "", [A, B, C0]),
    (   sub_string(C0, Before, _, _, "t") -> sub_string(C0, 0, Before, _, C) ; C = C0 ),
    maplist(digits_, [A, B, C], [NA, NB, NC]),
    (   year_word(A, Y), string_length(C, 2)
    ->  M = NB, D = NC
    ;   year_word(C, Y), string_length(A, AL), AL =< 2, string_length(B, BL), BL =< 2,
        (   NA > 12, NB =< 12 -> D = NA, M = NB
        ;   NB > 12, NA =< 12 -> M = NA, D = NB
        ;   NA =:= NB -> D = NA, M = NB
        )
    ),
    between(1, 12, M),
    catch(date_time_stamp(date(Y, M, D, 0, 0, 0, 0, -, -), Day), _, fail),
    stamp_date_time(Day, date(Y, M, D, _, _, _, _, _, _), 'UTC').   % no 31 April

digits_(S, N) :-
    string_length(S, L), L > 0,
    string_codes(S, Cs), forall(member(C, Cs), code_type(C, digit)),
    number_string(N, S).

optional_of --> ["of"], !.
optional_of --> [].

optional_on --> ["on"], !.
optional_on --> [].

% The date after a weekday that names its day of the week: "12 January", "the 12th of January",
% "January 20th 2023" (a bare number counts here: a weekday before it says it is a day).
weekday_date(Now, M, D, Y) --> optional_the, [W], { day_word(W, D, _) }, optional_of, month(M), optional_year(Now, Y).
weekday_date(Now, M, D, Y) --> month(M), day_number(D), optional_year(Now, Y).

optional_the --> ["the"], !.
optional_the --> [].

% day_word(+Word, -Day, -Form): Word writes a day of the month, as a number or an ordinal.
day_word(W, N, Form) :-
    (   atom_number(W, N) -> Form = number
    ;   sub_string(W, 0, _, 2, Digits), sub_string(W, _, 2, 0, Suffix),
        memberchk(Suffix, ["st", "nd", "rd", "th"]),
        number_string(N, Digits), Form = ordinal
    ),
    integer(N), N >= 1, N =< 31.

% A year the goal writes after a month or a day ("May 2023", "May 28th, 2023"; goal_words/2
% dropped the comma), or after a cue alone ("in 2023").
optional_year(Now, Y) --> named_year(Now, Y), !.
optional_year(_, none) --> [].

% named_year(+Now, -Year)//: a year written in digits, or named against Now ("March last
% year" is March of the year before Now's, "in May this year" May of Now's year).
named_year(_, Y) --> year(Y), !.
named_year(Now, Y) --> [W, "year"], { year_offset_(W, Offset) }, !,
    { stamp_date_time(Now, date(Y0, _, _, _, _, _, _, _, _), 'UTC'), Y is Y0 + Offset }.

year_offset_("last", -1).
year_offset_("this", 0).
year_offset_("next", 1).

year(Y) --> [W], { year_word(W, Y) }.

year_word(W, Y) :-
    string_length(W, 4),
    number_string(Y, W), integer(Y), Y >= 1900, Y =< 2199.

year_cue --> ( ["in"] ; ["during"] ), !.

% A year alone ends the goal or a clause of it ("in 2023?", "in 2023 about her sister"): "in
% 2048 bytes" and "in 2000 ms" are amounts, which a time read from them would take out of the
% words the jump searches for.
year_ends([], []).
year_ends([W|Ws], [W|Ws]) :-
    memberchk(W, ["and", "or", "but", "about", "with", "for", "to", "when", "what", "where",
                  "who", "which", "how", "did", "was", "were", "is", "are", "at", "on", "by"]).

% --- calendar ----------------------------------------------------------------------------------

% today_(+Now, -Today, -W): the midnight (UTC) that starts Now's day and its ISO weekday.
today_(Now, Today, W) :-
    Today is floor(Now / 86400) * 86400,
    format_time(atom(A), '%u', Today),
    atom_number(A, W).

% The most recent date (midnight UTC) before Now falling on ISO weekday D.
last_weekday(Now, D, Day) :-
    today_(Now, Today, W),
    Back0 is (W - D) mod 7,
    ( Back0 =:= 0 -> Back = 7 ; Back = Back0 ),
    Day is Today - Back * 86400.

% The first date (midnight UTC) after Now's day falling on ISO weekday D ("next Friday" asked
% on a Friday is a week on).
next_weekday(Now, D, Day) :-
    today_(Now, Today, W),
    Ahead0 is (D - W) mod 7,
    ( Ahead0 =:= 0 -> Ahead = 7 ; Ahead = Ahead0 ),
    Day is Today + Ahead * 86400.

% A weekday's window is its one day: the anchor line then names it (a weekday carries no
% date, so the day around it that a written date keeps, calendar_span/6, read as a range).
weekday_window(Day, Day, To) :- To is Day + 86400.

% calendar_span(+Now, +Year, +Month, +Day, -From, -To): the window of a date the goal writes.
% A day is that day, with a day either side (the journal's times are UTC, the
% speaker's day may not be); without a day, the whole month. Year `none`: the latest such day
% or month not after Now (a month is then cut at Now); a written year is taken as it is, even
% after Now (a goal may ask about a plan).
calendar_span(Now, none, M, none, From, To) :- !,
    last_month_span(Now, M, From, To).
calendar_span(_, Y, M, none, From, To) :- !,
    month_span_(Y, M, From, To).
calendar_span(Now, Y0, M, D, From, To) :-
    (   Y0 == none
    ->  stamp_date_time(Now, date(NY, NM, ND, _, _, _, _, _, _), 'UTC'),
        ( M-D @=< NM-ND -> Y = NY ; Y is NY - 1 )
    ;   Y = Y0
    ),
    date_time_stamp(date(Y, M, D, 0, 0, 0, 0, -, -), Day),
    From is Day - 86400,
    To is Day + 2 * 86400.

year_span(Y, From, To) :-
    date_time_stamp(date(Y, 1, 1, 0, 0, 0, 0, -, -), From),
    Y1 is Y + 1,
    date_time_stamp(date(Y1, 1, 1, 0, 0, 0, 0, -, -), To).

month_span_(Y, M, From, To) :-
    date_time_stamp(date(Y, M, 1, 0, 0, 0, 0, -, -), From),
    ( M =:= 12 -> Y1 is Y + 1, M1 = 1 ; Y1 = Y, M1 is M + 1 ),
    date_time_stamp(date(Y1, M1, 1, 0, 0, 0, 0, -, -), To).

% The Saturday (midnight UTC) of the latest weekend before Now's day; on a Saturday or a
% Sunday, of the weekend before it (ingestion reads "last weekend" in a turn the same way).
last_weekend(Now, Saturday) :-
    today_(Now, Today, W),
    Back0 is (W - 6) mod 7,
    ( Back0 < 2 -> Back is Back0 + 7 ; Back = Back0 ),
    Saturday is Today - Back * 86400.

% last_month_before(+Now, +M, -From, -To): month M of the latest year where it ends by the
% start of Now's month ("last June" asked in June is a year ago).
last_month_before(Now, M, From, To) :-
    stamp_date_time(Now, date(Y0, M0, _, _, _, _, _, _, _), 'UTC'),
    ( M < M0 -> Y = Y0 ; Y is Y0 - 1 ),
    month_span_(Y, M, From, To).

% The span of month M in the latest year where it does not start after Now.
last_month_span(Now, M, From, To) :-
    stamp_date_time(Now, date(Y0, M0, _, _, _, _, _, _, _), 'UTC'),
    ( M =< M0 -> Y = Y0 ; Y is Y0 - 1 ),
    date_time_stamp(date(Y, M, 1, 0, 0, 0, 0, -, -), From),
    ( M =:= 12 -> Y1 is Y + 1, M1 = 1 ; Y1 = Y, M1 is M + 1 ),
    date_time_stamp(date(Y1, M1, 1, 0, 0, 0, 0, -, -), To0),
    To is min(Now, To0).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
