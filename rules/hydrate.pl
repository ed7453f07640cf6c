:- module(atc_hydrate,
          [ hydrate/3,                  % +Goal, +Options, -Frame
            estimate_tokens/2,          % +Text, -Tokens
            level_rank/2,               % ?Level, ?Rank
            goal_speaker/2,             % +Goal, -Speaker
            goal_speaker/3,             % +Goal, +Reader, -Speaker
            segment_readable/2          % +Reader, +Segment
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(library(ordsets)).
:- use_module(library(assoc)).
:- use_module(library(aggregate)).
:- use_module(library(solution_sequences)).
% Stems for goal terms (distinct_on_goal_/3). A SWI-Prolog built without the nlp package has
% no porter_stem: words are compared as written there (word_stem_/2), without a load warning.
:- if(exists_source(library(porter_stem))).
:- use_module(library(porter_stem), [porter_stem/2]).
:- else.
porter_stem(Word, Word).
:- endif.
:- use_module(journal).
:- use_module(ladder).
:- use_module(jump).
:- use_module(when).
:- use_module(path_disclosure, [shown_text/4, shown_value/2]).
:- use_module(grants, [visible/3, visible_source/4, grant_scopes/2, grant_segments/2, scope_admits/3,
                        home_owner/1,
                        reader_items/2, reader_records/2, reader_segments/2,
                        reader_unseen_options/2, scope_record/2]).
:- use_module(cells).
:- use_module('../facts/planes').
% Arithmetic compiled to VM instructions (this file only; the flag is scoped to it): a frame
% evaluates some thousands of comparisons and sums, each otherwise a call of is/2 or >=/2.
:- set_prolog_flag(optimise, true).

/** <module> Hydration: a goal, a plane and a budget rendered into a frame with its receipt

hydrate/3 plans the frame entirely in Prolog:

  1. *Jump* per segment: nearest/4 (embeddings) fused with lexical/4 (BM25), so exact names
     and numbers count beside paraphrase. With no embeddings the jump is lexical; with neither
     it seeds by recency and every such fact says so.
  2. *Walk*: from the seeds through structure: the seed's arc (an arc record stands in for its
     members when it has several), the entity graph (same file, same error, same named thing),
     neighbours in the session, and items produced under the same goal (the trajectory). A
     plane may name a user rule instead; what it adds is `seeded_by: rule:<name>`. The
     *bridge* then brings in the items of other sessions that share a seed's rare named
     thing (an entity expansion; the segment's `bridged` list names the seed and the thing):
     the second piece of a multi-hop question.
  3. *Fovea*: detail by distance from the focus: seeds at L0, their arc at L1, one hop at L2,
     the periphery at L3; never above the ceiling.
  4. *Budget*: candidates are taken best first (the map of the cells around the focus after
     the goal's own), at least one per ~50 tokens of budget and more
     while they hold less than the budget (so the number of facts follows from their sizes;
     the plane's fact cap is a hard bound),
     and a near-duplicate of one taken is left out (the receipt's `suppressed`), as is a
     summary whose members the frame shows verbatim, once it is placed. Over budget,
     demote the least relevant fact one rung (L0 → L1 → L2 → L3) before
     anything is dropped; what still does not fit, plus what lay past the selection, becomes
     breadcrumbs (L3 pointers in `beyond`) within a small reserved share (none in a frame too
     small for that share to hold one: crumb_share_/3) and what the facts leave. Budget left over,
     or detail a weak fact can give up, then raises the facts that gain most from detail (a
     relevant one-hop neighbour shown verbatim rather than as its distillation). A fact left
     below L0 whose verbatim text is long may then show an *excerpt* of it instead: its
     sentences nearest the goal, verbatim (excerpts_/5; shown at l0, listed in the segment's
     `excerpted`); but the frame's best fact, a turn someone said, is shown whole when it fits,
     weaker facts giving way (focus_whole_/7).
  5. *Spare*: what the segments leave unspent of their shares goes to the segments the plane
     shares by '*' (or the mounts) that left relevant candidates out, best first, each fitted
     again with it (spare_flow_/6; the receipt's segment says `share`, `received` and `why`).

```
?- hydrate("why did the payment retries fail", _{budget: 1500, plane: execution}, Frame).
```

Frame = frame(Meta, Facts, Beyond) where Meta is a dict (goal, plane, path, budget, spent,
segments, anchor, now: the time the goal was read against, speakers: who said each item by
handle, in_window: why each item counted as inside the anchor's window, by handle (`written`,
or the day its text names there), recency: the words that asked for the newest, or ""; each segment's dict lists what it left out as redundant in `suppressed`, and says in `found`
whether its search found any candidate at all), each fact is fact(Id, Segment, Level, SeededBy, Score, Tokens, Hops, Source,
Time, Text, Dirty) and each breadcrumb crumb(Id, Segment, Level, Tokens, Source, Text).
*/

		 /*******************************
		 *            ENTRY             *
		 *******************************/

%!  hydrate(+Goal:string, +Options:dict, -Frame) is det.
%
%   Options: budget (total tokens, default 2000), plane (default), segments (list of
%   Segment-Budget overriding the plane), ceiling (most detailed level allowed, l0..l3,
%   default l0), rules (module holding user rules, default none), walk (entity_walk or
%   rule(Name): the walk, overriding the plane's), now (POSIX stamp or ISO 8601 text that a
%   goal's "two weeks ago" is read against; default the newest item's time, see when.pl),
%   reader (a principal: the frame holds only what visible/3 lets them see, each fact at most
%   at their ceiling for it; default none, the home's owner reading),
%   cells (`auto`, the default: the walk expands through cell adjacency when memory holds
%   cells and the reader is the owner, through the entity graph otherwise; `false`: the
%   entity graph), mount (a list of
%   cells, a cell named twice counted once: the frame is drawn only from each cell and its
%   neighbourhood to `depth` links, default 1; each mount renders independently with an
%   equal share of the budget, as a part labelled `mount:Cell`, what one leaves unspent going
%   to those that left relevant candidates out, and the parts merge into one
%   frame, a record in two mounts kept once), bridge (`true`, the default: a seed's rare
%   named things bring in the items of other sessions that name them, the second hop of a
%   multi-hop question; `false`: no bridge), excerpt (`true`, the default: a fact whose
%   verbatim text is long for the frame may be shown as a verbatim excerpt of the sentences
%   nearest the goal, see excerpts_/5; `false`: never).
%   @error existence_error(plane, P) for an unknown plane; domain_error for a bad budget or
%   a `now` that is not an ISO 8601 time; existence_error(cell, C) for a mount that is no cell.

hydrate(Goal0, Options, frame(Meta, Facts, Beyond)) :-
    text_string_(Goal0, Goal),
    notes_follow_memory_,
    option_(Options, plane, default, Plane),
    option_(Options, rules, none, RulesModule),
    (   plane_settings_(RulesModule, Plane, Settings0) -> true ; unknown_plane_(RulesModule, Plane) ),
    option_(Options, budget, 2000, Budget),
    must_be(nonneg, Budget),
    option_(Options, ceiling, l0, Ceiling),
    (   level_rank(Ceiling, _) -> true ; domain_error(level, Ceiling) ),
    option_(Options, segments, [], Overrides),
    option_(Options, walk, Settings0.walk, Walk),
    option_(Options, now, default, Now0),
    option_(Options, reader, none, Reader),
    must_be(atom, Reader),
    (   Reader == none -> true ; reader_items(Reader, _) ),  % kept: built after a change only
    option_(Options, cells, auto, CellsOpt),
    must_be(oneof([auto, true, false]), CellsOpt),
    (   CellsOpt \== false, cells_exist, reads_cells_(Reader) -> UseCells = true ; UseCells = false ),
    option_(Options, mount, [], Mounts0),
    must_be(list(atom), Mounts0),
    list_to_set(Mounts0, Mounts),        % a cell named twice is one part, not two halves
    option_(Options, depth, 1, MountDepth),
    must_be(nonneg, MountDepth),
    time_anchor_(Goal, Now0, Now, Anchor),
    goal_priors_(Goal, Reader, Anchor, Priors),
    option_(Options, bridge, true, Bridge),
    must_be(boolean, Bridge),
    option_(Options, excerpt, true, Excerpt),
    must_be(boolean, Excerpt),
    framing_(Goal, Plane, Anchor, Budget, Now, FrameFraming, FactFraming, CrumbFraming,
             EdgeFraming, LoneHeading),
    goal_terms_(Goal, GoalTerms),
    Settings1 = Settings0.put(_{ceiling: Ceiling, rules: RulesModule, walk: Walk, priors: Priors,
                                reader: Reader, goal: Goal, goal_terms: GoalTerms,
                                cells: UseCells, bridge: Bridge,
                                fact_framing: FactFraming, crumb_framing: CrumbFraming,
                                edge_framing: EdgeFraming, lone_heading: LoneHeading,
                                frame_framing: FrameFraming-Budget, excerpt: Excerpt}),
    (   Mounts == []
    ->  segment_budgets_(RulesModule, Plane, Reader, Budget, Overrides, SegBudgets0),
        include(segment_readable_(Reader), SegBudgets0, SegBudgets),
        open_segments_(RulesModule, Plane, Overrides, Open)
    ;   mount_budgets_(Reader, Mounts, MountDepth, Budget, SegBudgets),
        pairs_keys(SegBudgets, Open)    % every mount's share is an equal split: open
    ),
    length(SegBudgets, NParts),         % a frame of one part writes no heading for it
    head_base_(SegBudgets, Budget, HeadBase),
    Settings = Settings1.put(_{parts: NParts, frame_framing: FrameFraming-HeadBase}),
    heading_debts_(Settings, SegBudgets, PartBudgets),
    foldl(hydrate_segment_(Goal, Settings), PartBudgets, Parts0a, 0, _),
    spare_flow_(Goal, Settings, Budget, Open, Parts0a, Parts0),
    foldl(part_spent_sum_, Parts0, 0, Spent0),
    distinct_parts_(Parts0, Parts1, Spent0, Spent),
    maplist(part_framing_(Settings), Parts1, Parts),
    pairs_keys_values_(Parts, SegMetas, FactLists, CrumbLists),
    append(FactLists, Facts),
    append(CrumbLists, Beyond),
    maplist(segment_path_, SegMetas, Paths),
    overall_path_(Paths, Path),
    foldl(segment_framing_sum_, SegMetas, 0, Framing),
    Total is max(Budget, Spent),
    anchor_meta_(Anchor, AnchorMeta),
    stamp_meta_(Now, NowMeta),
    fact_speakers_(Facts, Speakers),
    fact_windows_(Anchor, Facts, InWindow),
    (   goal_recency_cue(Goal, Recency) -> true ; Recency = "" ),
    Meta = _{goal: Goal, plane: Plane, path: Path, budget: Total, spent: Spent,
             framing: Framing, ceiling: Ceiling, segments: SegMetas, anchor: AnchorMeta,
             now: NowMeta, speakers: Speakers, in_window: InWindow, recency: Recency}.

% reads_cells_(+Reader): the frame may walk through cells. Not a grantee's: cells partition
% every item, hidden ones included, so which of their items a walk through them brought in,
% and at what score, moved when the owner wrote where they cannot see (visible/3 shows them
% no cell). Their walk is the entity graph's, as in a home without cells.
reads_cells_(none) :- !.
reads_cells_(Reader) :-
    home_owner(Reader).

% Why each item of the frame counted as inside the window the goal names (time_prior_/3), a
% dict by handle: `written` when it was written there, else the first day its text names there
% (mentions_date, "2023-05-28"); items outside it, and every item when the goal names no time,
% have none.
fact_windows_(none, _, InWindow) :- !,
    dict_pairs(InWindow, in_window, []).
fact_windows_(window(_, _, Pieces, _), Facts, InWindow) :-
    findall(Id-How, ( member(fact(Id, _, _, _, _, _, _, _, _, _, _), Facts),
                      item_time(Id, _),
                      item_window_(Id, Pieces, How) ), Pairs0),
    sort(1, @<, Pairs0, Pairs),
    dict_pairs(InWindow, in_window, Pairs).

% item_window_(+Id, +Pieces, -How): Id written inside one of the windows (`written`), or else
% naming a day inside one (the day).
item_window_(Id, Pieces, How) :-
    (   item_stamp(Id, Stamp),
        once(( member(From-To, Pieces), Stamp >= From, Stamp =< To ))
    ->  How = written
    ;   findall(Day, relation(Id, mentions_date, Day), Days0),
        sort(Days0, Days),
        member(Day, Days),
        catch(parse_time(Day, iso_8601, Start), _, fail),
        once(( member(From-To, Pieces), Start =< To, Start + 86400 > From ))
    ->  atom_string(Day, How)
    ).

% The time the goal was read against (time_anchor_/4), ISO 8601 UTC; null when there is none.
stamp_meta_(Now, Meta) :-
    (   Now == none -> Meta = null ; iso_utc_(Now, Meta) ).

% iso_utc_(+Stamp, -Text): Stamp as ISO 8601 UTC text, the year in four digits (a sign before
% the year 1): format_time/4's %F writes the year 1 as "1-01-01", which no reader of ISO 8601
% takes, though `now` may be any time of the years 1 to 9999.
iso_utc_(Stamp, Text) :-
    stamp_date_time(Stamp, date(Year, _, _, _, _, _, _, _, _), 'UTC'),
    format_time(string(Rest), '-%m-%dT%TZ', Stamp, posix),
    Digits is abs(Year),
    (   Year < 0 -> Sign = "-" ; Sign = "" ),
    format(string(Text), "~w~|~`0t~d~4+~w", [Sign, Digits, Rest]).

% Who said each item of the frame (item_speaker/2: the transcript's name, else the role), a
% dict by handle; records that are not items (arcs, rollups, cells) have none.
fact_speakers_(Facts, Speakers) :-
    findall(Id-Who, ( member(fact(Id, _, _, _, _, _, _, _, _, _, _), Facts),
                      item_speaker(Id, Who) ), Pairs0),
    sort(1, @<, Pairs0, Pairs),
    dict_pairs(Speakers, speakers, Pairs).

% framing_(+Goal, +Plane, +Anchor, +Budget, +Now, -Frame, -Fact, -Crumb, -Edge, -Lone): the tokens the
% frame's text spends around the facts' own text, which the budget pays for too (what the frame costs in a
% prompt is its whole text, envelope included): Frame for the envelope and the lines that head
% the frame, Fact = framing(Verbatim, Derived, Excerpt) for the line that heads each fact (at L0
% its rung and time: the text is all there is; above L0 also the handle that pages back to the
% detail; for an excerpt of L0 also how many sentences it kept; a pair of those, for records
% with a time and without: framing(Timed, Untimed)), Crumb for a breadcrumb's own
% line, Edge = edge(Beyond, LeftOut) for the lines a segment writes only when it has
% breadcrumbs (their heading) or left near-duplicates out (the line counting them): paid then,
% not reserved in every segment. The host estimates them once per frame on the lines its
% render_text writes, at their longest in a frame of Budget tokens read against Now (no "as of"
% when it is 0) (attention_cloud.hydration.framing_estimates, host_frame_framing/6; a
% segment's heading: host_segment_framing/3). A timed fact's price holds the line naming its
% day, which the frame writes once for the facts of a day: the tokens of that line are kept in
% the global atc_day_line for used_tokens_/2, which charges it once per day. Lone is what a
% frame of one part writes in place of its part's heading (the blank line after the frame's
% head): the frame's second line gives its path and its tokens already.
framing_(Goal, Plane, Anchor, Budget, Now, Frame, Fact, Crumb, edge(Beyond, LeftOut), Lone) :-
    (   Anchor = window(_, _, _, Phrase) -> true ; Phrase = "" ),
    (   Now == none -> Timed = false ; Timed = true ),
    host_frame_framing(Goal, Plane, Phrase, Budget, Timed,
                       [Frame, Verbatim, Derived, Excerpt, Crumb, Beyond, LeftOut,
                        Verbatim0, Derived0, Excerpt0, VerbatimM, DerivedM, ExcerptM,
                        VerbatimM0, DerivedM0, ExcerptM0, DayLine, Lone]),
    b_setval(atc_day_line, DayLine),
    b_setval(atc_day_shared, none),
    frame_memos_,
    Fact = framings(framing(Verbatim, Derived, Excerpt), framing(Verbatim0, Derived0, Excerpt0),
                    framing(VerbatimM, DerivedM, ExcerptM), framing(VerbatimM0, DerivedM0, ExcerptM0)).

% crumb_share_(+Settings, +Budget, -Share): the tokens kept for breadcrumbs, the plane's share
% of the budget when it holds one short crumb with its lines, else none: a small frame's
% breadcrumbs come from what its facts leave (breadcrumbs_/6 takes all of it). A crumb is a
% pointer, its heading and line about as dear as a short turn verbatim: kept out of a
% 500-token frame's fit, the room for one (34 tokens) cost it evidence (LongMemEval dev, 0.747
% of it verbatim without that reserve, 0.718 with it).
crumb_share_(Settings, Budget, Share) :-
    Share0 is max(0, floor(Budget * Settings.breadcrumbs)),
    Settings.edge_framing = edge(Beyond, _),
    OneCrumb is Settings.crumb_framing + Beyond + 16,
    (   Share0 >= OneCrumb -> Share = Share0 ; Share = 0 ).

% A part's own framing: its share of the frame's head, its heading, the lines that head its
% breadcrumbs and what it left out (when it has any), and the line of each fact and breadcrumb.
part_framing_(Settings, part(M0, Facts, Crumbs), part(M, Facts, Crumbs)) :-
    (   get_dict(share, M0, Share) -> true ; Share = M0.budget ),   % a receiver's: its share
    segment_heading_tokens_(Settings, M0.segment, M0.budget, Heading),
    head_share_(Settings, Share, Head),
    HeadingTokens is Heading + Head,
    length(Crumbs, NC),
    (   get_dict(excerpted, M0, Cut) -> true ; Cut = [] ),
    findall(H, member(_{handle: H}, Cut), CutIds),
    foldl(fact_framing_sum_(Settings.fact_framing, CutIds), Facts, 0, FactsFraming0),
    % each timed fact's price holds the line naming its day, which the frame writes once above
    % the facts of that day (by_day_/2): hydrate/3's framing said ~370 tokens more than a frame
    % of a hundred short turns wrote
    findall(Id, member(fact(Id, _, _, _, _, _, _, _, _, _, _), Facts), Ids),
    shared_day_lines_of_(Ids, Shared),
    FactsFraming is FactsFraming0 - Shared,
    (   get_dict(suppressed, M0, Left) -> true ; Left = [] ),
    edge_tokens_(Settings, Crumbs, Left, Edge),
    Framing is HeadingTokens + FactsFraming + NC * Settings.crumb_framing + Edge,
    M = M0.put(framing, Framing).

% edge_tokens_(+Settings, +Crumbs, +LeftOut, -Tokens): the breadcrumbs' heading when there are
% breadcrumbs, and the line counting near-duplicates when some were left out.
edge_tokens_(Settings, Crumbs, Left, Tokens) :-
    Settings.edge_framing = edge(Beyond, LeftOut),
    (   Crumbs == [] -> B = 0 ; B = Beyond ),
    (   Left == [] -> L = 0 ; L = LeftOut ),
    Tokens is B + L.

% part_heading_tokens_(+Settings, +Label, +Share, -Tokens): a part's heading lines and its share
% of the frame's head (in proportion to its share of the budget, so declared segment budgets
% still add up to the frame's); a frame of one part writes no heading for it (Settings.parts).
part_heading_tokens_(Settings, Label, Share, Tokens) :-
    segment_heading_tokens_(Settings, Label, Share, Heading),
    head_share_(Settings, Share, Head),
    Tokens is Heading + Head.

% head_base_(+PartBudgets, +Budget, -Base): what the parts share the frame's head over: their
% planned shares together, as the receipt shares it (hydration._share_head). Fixed segment
% budgets that add up to less than the frame's leave the rest to no part; shared over the whole
% budget, the head's share of that rest was charged to no part while the receipt laid it on
% the parts, and a part holding a fact was reported over its own budget (12 + 74 of 73).
head_base_(PartBudgets, Budget, Base) :-
    pairs_values(PartBudgets, Shares),
    sum_list(Shares, Planned),
    (   Planned > 0 -> Base = Planned ; Base = Budget ).

% head_share_(+Settings, +Share, -Tokens): a part's share of the frame's head, in proportion to
% its share of the parts' planned shares together (head_base_/3; rounded up).
head_share_(Settings, Share, Tokens) :-
    Settings.frame_framing = Head-Budget,
    Tokens is ceiling(Head * Share / max(1, Budget)).

segment_heading_tokens_(Settings, Label, Share, Tokens) :-
    (   get_dict(parts, Settings, 1)
    ->  Tokens = Settings.lone_heading
    ;   host_segment_framing(Label, Share, Tokens)
    ).

fact_framing_sum_(Framing, CutIds, fact(Id, _, Level0, _, _, _, _, _, Time, _, _), F0, F) :-
    (   memberchk(Id, CutIds) -> Level = excerpt(_, _, _, _) ; Level = Level0 ),
    timed_framing_(Framing, Id, Time, Triple),
    fact_framing_(Triple, Id, Level, T),
    F is F0 + T.

% timed_framing_(+Framing, +Id, +Time, -Triple): record_framing_/3 for a rendered fact, whose
% time (time_of_/2) it carries: not looked up again.
timed_framing_(framing(Timed, Untimed), _, Time, Triple) :- !,
    (   Time == "" -> Triple = Untimed ; Triple = Timed ).
timed_framing_(framings(Timed, Untimed, TimedM, UntimedM), Id, Time, Triple) :- !,
    (   marked_dirty_(Id)
    ->  timed_framing_(framing(TimedM, UntimedM), Id, Time, Triple)
    ;   timed_framing_(framing(Timed, Untimed), Id, Time, Triple)
    ).
timed_framing_(Framing, _, _, Framing).

% fact_framing_(+Framing, +Id, +Level, -Tokens): the line heading record Id at Level. Framing is
% framing(Verbatim, Derived, Excerpt), or framing(Timed, Untimed) with one such triple for a
% record with a time and one for a record without (its heading shows no time: a transcript
% of plain messages would otherwise pay a time's seven tokens on every fact and leave them
% unspent), or framings(Timed, Untimed, TimedMarked, UntimedMarked), the last two for a record
% a dirty belief rests on (its heading says DIRTY: priced on every fact, that mark left ~2
% tokens a fact unspent, ~50 of a 2000-token frame).
fact_framing_(Framing, Id, Level, Tokens) :-
    outer_framing_(Framing), !,
    record_framing_(Framing, Id, Triple),
    fact_framing_(Triple, Id, Level, Tokens).
fact_framing_(framing(Verbatim, _, _), _, l0, Verbatim) :- !.
fact_framing_(framing(_, _, Excerpt), _, excerpt(_, _, _, _), Excerpt) :- !.
fact_framing_(framing(_, Derived, _), _, _, Derived).

% record_framing_(+Framing, +Id, -Triple): the framing(Verbatim, Derived, Excerpt) that heads
% record Id: the timed or the untimed one (told once for all of a record's rungs: fovea_/3
% prices four).
record_framing_(framing(Timed, Untimed), Id, Framing) :- !,
    (   time_of_(Id, "") -> Framing = Untimed ; Framing = Timed ).
record_framing_(framings(Timed, Untimed, TimedM, UntimedM), Id, Framing) :- !,
    (   marked_dirty_(Id)
    ->  record_framing_(framing(TimedM, UntimedM), Id, Framing)
    ;   record_framing_(framing(Timed, Untimed), Id, Framing)
    ).
record_framing_(Framing, _, Framing).

outer_framing_(framing(_, _)).
outer_framing_(framings(_, _, _, _)).

% marked_dirty_(+Id): the frame heads Id with DIRTY (render_fact_/3's dirty_beliefs_/2): a
% belief resting on it went dirty. Most memories hold no dirty belief at all: the first look
% answers for them, before any search by record.
marked_dirty_(Id) :-
    current_predicate(atc_tms:dirty/4),
    once(atc_tms:dirty(_, _, _, _)),
    dirty_beliefs_(Id, [_|_]).

segment_framing_sum_(Meta, F0, F) :-
    F is F0 + Meta.framing.

% The time window the goal names (when.pl), read against Now: the `now` option (a POSIX stamp
% or an ISO 8601 text, any time of the years 1 to 9999, 1970 and before included) or else the
% newest item's time, before 1970 too; Now is `none` when no item has a time (or a grantee
% sees none: the `now` option `none`), which no window is read against. A time of 0 or less,
% given or the newest item's, was taken for that "no time" before.
time_anchor_(Goal, Now0, Now, Anchor) :-
    (   Now0 == default
    ->  memory_now_for(Goal, Now)
    ;   Now0 == none
    ->  Now = none
    ;   number(Now0)
    ->  (   Now0 >= -62135596800, Now0 =< 253402300799   % the years 1 to 9999 (NaN is neither)
        ->  Now = Now0
        ;   domain_error(now_within_the_years_1_to_9999, Now0)
        )
    ;   text_string_(Now0, NowText),
        (   catch(parse_time(NowText, iso_8601, Now), _, fail) -> true
        ;   domain_error(iso_8601_time, Now0)
        )
    ),
    (   Now \== none, goal_time_pieces(Goal, Now, Pieces, Phrase)
    ->  Pieces = [From-_|_],
        last(Pieces, _-To),
        Anchor = window(From, To, Pieces, Phrase)
    ;   Anchor = none
    ).

% What the goal says beyond its topic, read once per frame: priors(Speaker, Anchor, About),
% Speaker being speaker(Who) or none, Who a list of the people the goal names (goal_people_/3)
% or a role (goal_speaker/3), Anchor window(From, To, Pieces, Phrase) (From-To the span of
% the Pieces, goal_time_pieces/4) or none, About the speaker(Who) whose items the speaker
% prior favours (goal_about_/3: the people the goal names but one it only asks to do
% something) or none. For a reader, the people are those they see speak: a
% name only the owner's other records hold is read as no name.
goal_priors_(Goal, Reader, Anchor, priors(Speaker, Anchor, About)) :-
    (   goal_people_(Goal, Reader, Names), Names \== []
    ->  Speaker = speaker(Names),
        goal_about_(Goal, Names, About)
    ;   goal_speaker(Goal, Reader, Role) -> Speaker = speaker(Role), About = Speaker
    ;   Speaker = none, About = none
    ).

% goal_about_(+Goal, +Names, -About): speaker(People), the people of Names (those Goal names)
% whose memory Goal is about. A person Goal only asks to do something now ("Can Tomás suggest
% a lens for Priya's camera?", "Does Tomás have any ideas for Priya?") is asked for it, not
% recalled: what is to be found is Priya's camera, as "can you suggest ... my camera" favours
% the user's items and not the assistant's (goal_speaker/3 reads a request as no past act).
% Favouring both of a two-person chat favoured neither (a preference question lost its piece
% at 500 tokens to the asked person's long reply). A person asked to say again what they said
% ("Can Tomás remind Priya what the lens cost?") or also named otherwise ("Can Tomás suggest
% a lens like the one Tomás recommended?") stays, and a goal naming only people it asks keeps
% them all.
goal_about_(Goal, Names, speaker(About)) :-
    split_string(Goal, " \t\n\r,.;:!?()\"", " \t\n\r,.;:!?()\"", Tokens0),
    exclude(==(""), Tokens0, Tokens1),
    maplist(goal_token_, Tokens1, Tokens),
    pairs_values(Tokens, Lowers),
    exclude(only_asked_(Lowers), Names, About0),
    (   About0 == [] -> About = Names ; About = About0 ).

% only_asked_(+Lowers, +Name): every place the goal's lower-case tokens write Name (its first
% word) is right after a word that asks ("can", "could", "does" ...) and before a request
% ("suggest", "have any ideas").
only_asked_(Lowers, Name) :-
    atom_string(Name, Text),
    split_string(Text, " ", " ", [First|Rest]),
    name_key_(First, Key),
    length(Rest, Skip),
    findall(At, nth0(At, Lowers, Key), Places),
    Places \== [],
    forall(member(At, Places), asked_at_(Lowers, At, Skip)).

asked_at_(Lowers, At, Skip) :-
    At > 0,
    Before is At - 1,
    nth0(Before, Lowers, Ask),
    memberchk(Ask, ["can", "could", "would", "will", "should", "may", "might", "does", "do"]),
    Next is At + 1 + Skip,
    length(Said, Next),
    append(Said, [Verb|After], Lowers),
    request_(Verb, After).

% A request for something new: "remind", "tell", "show" ask the person to say again what
% they said, which is in their own items ("can you remind me" favours no one, goal_speaker/3).
request_(Verb, _) :-
    memberchk(Verb, ["suggest", "recommend", "help", "provide", "offer"]), !.
request_("have", After) :-
    (   After = [Few|More], memberchk(Few, ["any", "some", "a", "an", "other", "more"])
    ->  true
    ;   More = After
    ),
    More = [Output|_],
    (   assistant_output_(Output) -> true ; memberchk(Output, ["tips", "thoughts", "options"]) ).

anchor_meta_(none, null).
anchor_meta_(window(From, To, _, Phrase), _{phrase: Phrase, from: F, to: T}) :-
    iso_utc_(From, F),
    iso_utc_(To, T).

% A user rules module may define its own planes (plane/2, plane_segment/3). A user plane
% without plane_segment/3 clauses of its own takes every segment ('*'), as when the module
% defines none: a rules file splitting one plane's segments left its other planes none.
plane_settings_(Module, Plane, Settings) :-
    (   user_plane_(Module, Plane, S0)
    ->  plane(default, Defaults),
        (   catch(Settings = Defaults.put(S0), _, fail)
        ->  true
        ;   throw(error(plane_setting(Plane, settings, 'a dict of settings', S0), _))
        ),
        dict_pairs(Settings, _, Pairs),
        forall(member(Key-Value, Pairs), plane_setting_checked_(Plane, Key, Value))
    ;   plane(Plane, Settings)
    ).

% A user plane's settings, each checked before the frame reads it: `seeds: foo` was `is/2:
% Arithmetic: foo/0 is not a function`, naming neither the plane nor the setting, and a key
% the frame does not read (`seed: 3`) was ignored.
plane_setting_checked_(Plane, Key, Value) :-
    (   plane_setting_type_(Key, Type, Expected)
    ->  (   is_of_type(Type, Value)
        ->  true
        ;   throw(error(plane_setting(Plane, Key, Expected, Value), _))
        )
    ;   throw(error(plane_setting(Plane, Key, 'one of seeds, fact_cap, depth, walk, \c
                                 trajectory, breadcrumbs', Key), _))
    ).

plane_setting_type_(seeds, nonneg, 'a count').
plane_setting_type_(fact_cap, nonneg, 'a count').
plane_setting_type_(depth, nonneg, 'a count of hops').
plane_setting_type_(walk, callable, 'entity_walk or rule(Name)').
plane_setting_type_(trajectory, between(0.0, 1.0), 'a number from 0 to 1').
plane_setting_type_(breadcrumbs, between(0.0, 1.0), 'a number from 0 to 1').

:- multifile prolog:error_message//1.
prolog:error_message(plane_setting(Plane, settings, Expected, Value)) --> !,
    [ 'plane ~q: its settings must be ~w, not ~W'-
      [Plane, Expected, Value, [quoted(true), max_depth(6)]] ].
prolog:error_message(plane_setting(Plane, Key, Expected, Key)) --> !,
    [ 'plane ~q: no setting ~q (~w)'-[Plane, Key, Expected] ].
prolog:error_message(plane_setting(Plane, Key, Expected, Value)) -->
    [ 'plane ~q: ~q must be ~w, not ~W'-
      [Plane, Key, Expected, Value, [quoted(true), max_depth(6)]] ].

% An unknown plane names the planes there are (the shipped ones and a rules module's own),
% since nothing else lists them: `planes: default, execution, exploration`.
unknown_plane_(Module, Plane) :-
    findall(P, plane(P, _), Shipped),
    catch(findall(P, limit(50, ( user_plane_(Module, P, _), atom(P) )), Own), _, Own = []),
    append(Shipped, Own, Planes0),
    list_to_set(Planes0, Planes),
    atomic_list_concat(Planes, ', ', Names),
    atom_concat('planes: ', Names, Known),
    throw(error(existence_error(plane, Plane), context(_, Known))).

user_plane_(Module, Plane, Settings) :-
    Module \== none,
    current_predicate(Module:plane/2),
    Module:plane(Plane, Settings).

plane_segment_(Module, Plane, S, Share) :-
    (   user_plane_(Module, Plane, _)
    ->  (   current_predicate(Module:plane_segment/3),
            once(Module:plane_segment(Plane, _, _))
        ->  Module:plane_segment(Plane, S, Share)
        ;   S = '*', Share = 1
        )
    ;   plane_segment(Plane, S, Share)
    ).

segment_path_(Meta, Path) :-
    get_dict(path, Meta, Path).

pairs_keys_values_([], [], [], []).
pairs_keys_values_([part(M, F, C)|T], [M|Ms], [F|Fs], [C|Cs]) :-
    pairs_keys_values_(T, Ms, Fs, Cs).

option_(Options, Key, Default, Value) :-
    (   get_dict(Key, Options, V0), V0 \== null -> Value = V0 ; Value = Default ).

text_string_(Text, String) :-
    (   string(Text) -> String = Text
    ;   atom(Text) -> atom_string(Text, String)
    ;   type_error(text, Text)
    ).

% The least capable path wins: a frame never claims more relevance than its weakest segment.
overall_path_([], recency).
overall_path_(Paths, Path) :-
    Paths \== [],
    maplist(path_rank_, Paths, Ranks),
    min_list(Ranks, Min),
    path_rank_(Path, Min), !.

path_rank_(recency, 0).
path_rank_(lexical, 1).
path_rank_(semantic, 2).
path_rank_(hybrid, 3).

%!  level_rank(?Level, ?Rank) is nondet.
%   Levels of detail from most (l0, rank 0) to least (l3, rank 3).
level_rank(l0, 0).
level_rank(l1, 1).
level_rank(l2, 2).
level_rank(l3, 3).

		 /*******************************
		 *     READING FOR A GRANTEE    *
		 *******************************/

% With a reader (a principal other than the owner), every record a frame considers passes
% visible/3: the jump's hits, the walk's neighbours, a walk rule's answers, and the fovea
% places each at most at the reader's ceiling for it. Segments the reader sees nothing of
% get no budget.
%!  segment_readable(+Reader, +Segment) is semidet.
%   Reader (a principal, or `none` for the owner) may read some item of Segment: a segment a
%   frame gives them budget for.
segment_readable(Reader, Segment) :-
    segment_readable_(Reader, Segment-_).

segment_readable_(none, _) :- !.
segment_readable_(Reader, Segment-_) :-
    reader_segments(Reader, Segments), !,  % their kept set's
    ord_memberchk(Segment, Segments).
segment_readable_(Reader, Segment-_) :-
    grant_scopes(Reader, Scopes),       % a segment no grant names: no item of it to ask about
    scope_admits(Scopes, Segment, _),
    once(( item_segment(H, Segment), visible(Reader, H, _) )).

readable_(none, _) :- !.
readable_(Reader, Id) :-
    visible(Reader, Id, _), !.

readable_pair_(Reader, Id-_) :-
    readable_(Reader, Id).

% readable_pairs_(+Reader, +Pairs0, -Pairs): the Id-Value pairs of Pairs0 whose Id Reader may
% read; for the owner (none) all of them, without a call per pair (the jump filters its ~250
% hits twice a frame).
readable_pairs_(none, Pairs, Pairs) :- !.
readable_pairs_(Reader, Pairs0, Pairs) :-
    include(readable_pair_(Reader), Pairs0, Pairs).

% The most detailed level a fact of Id may show: the frame's ceiling, or the reader's ceiling
% for Id when that is less detailed.
record_ceiling_(Settings, _, Ceiling) :-
    \+ ( get_dict(reader, Settings, Reader), Reader \== none ), !,
    Ceiling = Settings.ceiling.
record_ceiling_(Settings, Id, Ceiling) :-
    visible(Settings.reader, Id, Max), !,
    level_rank(Settings.ceiling, R0),
    level_rank(Max, R1),
    R is max(R0, R1),
    level_rank(Ceiling, R).

% A fact the ceiling capped: shown at the most detailed level its ceiling allows while the
% record holds a more detailed one (the receipt's "capped_by": "ceiling").
capped_by_ceiling_(Settings, p(c(Id, _, _, _, _), Level, _, _)) :-
    record_ceiling_(Settings, Id, Ceiling),
    level_rank(Ceiling, CR),
    CR > 0,
    available_levels_(Id, Ceiling, [Level|_]),
    level_rank(Above, AR), AR < CR,
    rung_held(Id, Above), !.

		 /*******************************
		 *           BUDGETS            *
		 *******************************/

% SegBudgets: list of Segment-Budget. Overrides are absolute; the rest of the total is shared
% by the plane's segments ('*' expands to every segment in memory the plane does not name) that
% Reader sees something of (none: the owner sees every one), so a grantee's frame is not left
% with the shares of segments it gets nothing from.
segment_budgets_(Module, Plane, Reader, Total, Overrides, SegBudgets) :-
    must_be(list, Overrides),
    findall(S-Share, plane_share_(Module, Plane, Overrides, S, Share), Named),
    first_shares_(Named, [], Shared0),
    include(segment_readable_(Reader), Shared0, Shared),
    sum_values_(Overrides, Fixed),
    (   Fixed =< Total -> true ; domain_error(segment_budgets_within(Total), Overrides) ),
    Rest is max(0, Total - Fixed),
    sum_values_(Shared, ShareSum),
    (   ShareSum > 0
    ->  findall(S-B, ( member(S-Sh, Shared), B is floor(Rest * Sh / ShareSum) ), Split)
    ;   Split = []
    ),
    append(Overrides, Split, SegBudgets0),
    (   SegBudgets0 == [] -> SegBudgets = [default-Total] ; SegBudgets = SegBudgets0 ).

plane_share_(Module, Plane, Overrides, S, Share) :-
    plane_segment_(Module, Plane, S0, Share),
    (   S0 == '*'
    ->  journal_segment(S),
        \+ plane_segment_(Module, Plane, S, _)
    ;   S = S0
    ),
    \+ memberchk(S-_, Overrides).

% first_shares_(+Pairs, +Seen, -Firsts): a segment a plane names twice (a line copied, a rules
% file repeating another's) is one part of the frame, with the share it is first given: two
% parts drew it twice, each over its own share, and the receipt kept one of them.
first_shares_([], _, []).
first_shares_([S-Share|Pairs], Seen, Firsts) :-
    (   memberchk(S, Seen)
    ->  Firsts = Firsts1
    ;   Firsts = [S-Share|Firsts1]
    ),
    first_shares_(Pairs, [S|Seen], Firsts1).

% open_segments_(+Module, +Plane, +Overrides, -Open): the segments whose budget the plane
% leaves open ('*': an equal share of what is left), which may receive what other segments
% leave unspent (spare_flow_/6). A segment the user gave a budget (`--segment S=N`, or a
% plane_segment/3 naming it) keeps the budget as written.
open_segments_(Module, Plane, Overrides, Open) :-
    findall(S, ( plane_segment_(Module, Plane, '*', _),
                 plane_share_(Module, Plane, Overrides, S, _),
                 \+ plane_segment_(Module, Plane, S, _) ), Open0),
    sort(Open0, Open).

% spare_flow_(+Goal, +Settings, +Budget, +Open, +Parts0, -Parts): the tokens the parts leave
% unspent go to the open parts that left relevant candidates out (their `more`: the best
% score among them), best first: each is fitted again with its share and all the frame's
% budget the other parts do not use. Open lists the parts as hydrate_segment_/6 takes them (a
% segment, or a mount(Cell, Cells, Members)). With an equal split, a segment of 800 turns
% relevant to the goal spent 129 of its 200 tokens with more left out while three small chats
% beside it left theirs unspent: the frame held 419 of its 800 tokens; so did a small cell
% mounted beside a large one. The receipt's segment says what it received beyond its share
% (`share`, `received`, `why`).
spare_flow_(Goal, Settings, Budget, Open, Parts0, Parts) :-
    findall(Best-Segment,
            ( member(part(M, _, _), Parts0), get_dict(more, M, Best),
              member(Segment, Open), segment_label_(Segment, M.segment) ),
            Hungry0),
    sort(1, @>=, Hungry0, Hungry),
    foldl(receive_spare_(Goal, Settings, Budget), Hungry, Parts0, Parts1),
    maplist(forget_more_, Parts1, Parts).

% A receiver pays the frame's head in proportion to its share, as before it received: the head
% is paid once, the parts' shares of it adding up to it (part_heading_tokens_/4; the host
% shares it the same way). Its heading is written with the larger count, and the fit gets the
% rest. Priced in proportion to its larger budget, it paid part of the head twice (the others
% had paid their shares of it already): a 106-token frame over three segments held nothing.
receive_spare_(Goal, Settings, Budget, Best-Segment, Parts0, Parts) :-
    maplist(part_used_, Parts0, Used),
    sum_list(Used, AllUsed),
    segment_label_(Segment, Label),
    nth0(I, Parts0, Part0), Part0 = part(M0, _, _), M0.segment == Label, !,
    nth0(I, Used, Own),
    Share = M0.budget,
    Larger is Budget - (AllUsed - Own),
    Received is Larger - Share,
    head_share_(Settings, Share, OwnHead),
    head_share_(Settings, Larger, LargerHead),
    Credit is OwnHead - LargerHead,      % a debt of no more than 0: the head it need not pay
    spare_min_(Budget, M0, Min),
    (   Received >= Min,
        hydrate_segment_(Goal, Settings, Segment-Larger-Credit, part(M1, F1, C1), 0, _),
        M1.spent > M0.spent                % a second fit that shows no more is not kept
    ->  (   Segment = mount(_, _, _) -> Others = mounts ; Others = segments ),
        format(string(Why), "left relevant candidates out (best score ~4f) while other \c
                             ~w left ~d tokens of the frame's budget unspent",
               [Best, Others, Received]),
        M = M1.put(_{share: Share, received: Received, why: Why}),
        nth0(I, Parts0, _, Rest),
        nth0(I, Parts, part(M, F1, C1), Rest)
    ;   Parts = Parts0
    ).

% spare_min_(+Budget, +Meta, -Min): the fewest tokens worth fitting a part again for: what a
% segment's own refill round asks, or any at all for a part that shows nothing yet (a small
% frame's shares each too thin for a heading and a fact, when the whole budget holds one).
spare_min_(Budget, Meta, Min) :-
    (   Meta.spent =:= 0 -> Min = 1 ; refill_min_(Budget, Min) ).

% What a part takes of the frame's budget, as its fit reserved it (hydrate_segment_/6's `used`).
part_used_(part(M, _, _), M.used).

forget_more_(part(M0, F, C), part(M, F, C)) :-
    del_dict(used, M0, _, M1),
    (   del_dict(more, M1, _, M) -> true ; M = M1 ).

part_spent_sum_(part(M, _, _), S0, S) :-
    S is S0 + M.spent.

sum_values_(Pairs, Sum) :-
    pairs_values(Pairs, Values),
    sum_list(Values, Sum).

		 /*******************************
		 *          ONE SEGMENT         *
		 *******************************/

% heading_debts_(+Settings, +SegBudgets, -PartBudgets): each Segment-Share as
% Segment-Share-Debt, Debt the tokens it pays of the headings of parts too small for their
% own: every part is written with its heading and its share of the frame's head, and a part
% of 0 tokens (`--segment chats=0`) paid neither, so the frame came out over its budget by
% them. The parts with the most to spare pay first.
heading_debts_(Settings, SegBudgets, PartBudgets) :-
    maplist(heading_shortfall_(Settings), SegBudgets, Rows),
    foldl(shortfall_sum_, Rows, 0, Debt),
    sort(3, @>=, Rows, BySpare),
    foldl(take_debt_, BySpare, Debt-[], _-Taken),
    maplist(part_debt_(Taken), Rows, PartBudgets).

heading_shortfall_(Settings, Segment-Share, r(Segment, Share, Spare, Short)) :-
    segment_label_(Segment, Label),
    part_heading_tokens_(Settings, Label, Share, Heading),
    Spare is max(0, Share - Heading),
    Short is max(0, Heading - Share).

shortfall_sum_(r(_, _, _, Short), S0, S) :-
    S is S0 + Short.

take_debt_(r(Segment, _, Spare, _), Debt0-Taken, Debt-[Segment-Take|Taken]) :-
    Take is min(Spare, Debt0),
    Debt is Debt0 - Take.

part_debt_(Taken, r(Segment, Share, _, _), Segment-Share-Debt) :-
    memberchk(Segment-Debt, Taken).

hydrate_segment_(Goal, Settings, Segment-Share-Debt, part(Meta, Facts, Crumbs), Spent0, Spent) :-
    segment_label_(Segment, Label),
    part_heading_tokens_(Settings, Label, Share, HeadingTokens),
    Budget is max(0, Share - HeadingTokens - Debt),
    crumb_share_(Settings, Budget, CrumbShare),
    FitBudget0 is Budget - CrumbShare,
    work_budget_(Budget, Work),
    Page is Work // 25,               % a deeper page for a larger budget (below)
    segment_candidates_(Goal, Settings, Segment, Page, Path, Candidates0),
    select_facts_(Candidates0, Settings, FitBudget0, Placed0, PastCap, Suppressed0, Sigs),
    exact_rungs_(Settings, Placed0, Placed),
    left_out_cost_(Settings, Suppressed0, LeftOut0),
    FitBudget1 is max(0, FitBudget0 - LeftOut0),
    fit_(Placed, FitBudget1, Fitted0, Dropped0),
    distinct_shown_(Fitted0, Fitted1, SameShown),
    append(Suppressed0, SameShown, Suppressed1),
    refit_left_out_(Settings, Suppressed0, SameShown, Fitted1, FitBudget1,
                    Fitted, FitBudget, Dropped1),
    append(Dropped0, Dropped1, Dropped),
    promote_(Fitted, FitBudget, Kept0, GaveWay0),
    excerpts_(Goal, Settings, FitBudget, Kept0, KeptCut),
    focus_whole_(Goal, Settings, FitBudget, Kept0, KeptCut, Base, Kept1a, GaveWay1),
    focus_core_(Goal, Settings, FitBudget, Base, Kept1a, Kept1b, GaveWay2),
    exact_excerpts_(Settings, Kept1b, Kept1),
    append([GaveWay0, GaveWay1, GaveWay2], GaveWay),
    append([Dropped, GaveWay, PastCap], Outside0),
    refill_(Settings, FitBudget, Suppressed1, Kept1, Outside0, Sigs, Kept2, Outside1,
            Suppressed2),
    % a raise paid by facts giving way counted each of their day lines as freed, and a day
    % line another fact of that day still needs was not: the fit has the last word, within
    % what the line counting the left out leaves when only the refill left something out
    (   Suppressed1 == [] -> line_unpaid_(Settings, false, Suppressed2, Line) ; Line = 0 ),
    LastBudget is max(0, FitBudget - Line),
    fit_(Kept2, LastBudget, Kept3, Late),
    append(Late, Outside1, Outside),
    by_day_(Kept3, Kept),
    include(repeats_kept_(Kept), Suppressed2, Suppressed),
    left_out_cost_(Settings, Suppressed, LeftOut),
    used_tokens_(Kept, Used),
    CrumbBudget is Budget - LeftOut - Used,
    breadcrumbs_(Outside, Label, Settings, CrumbBudget, Crumbs, CrumbTokens),
    render_facts_(Label, Settings.fact_framing, Settings.reader, Kept, Facts),
    foldl(fact_tokens_sum_, Facts, 0, Text),
    SegSpent is Text + CrumbTokens,
    Spent is Spent0 + SegSpent,
    maplist(suppressed_meta_(Label), Suppressed, SuppressedMeta),
    findall(_{handle: Id, from: From, entity: E},
            ( member(p(c(Id, _, bridge(From, E0), _, _), _, _, _), Kept),
              reader_entity_(Settings.reader, E0, E) ),
            Bridged),
    findall(Id, ( member(P, Kept), P = p(c(Id, _, _, _, _), _, _, _),
                  capped_by_ceiling_(Settings, P) ),
            Capped),
    findall(D, ( member(p(c(Id, _, _, _, _), excerpt(_, _, _, Info), _, _), Kept),
                 put_dict(handle, Info, Id, D) ),
            Excerpted),
    length(Crumbs, NC),
    edge_tokens_(Settings, Crumbs, [], BeyondLine),
    % what the fit reserved of Share, for spare_flow_/6: the lines it priced at their longest
    % (a part's `spent` plus its framing as planned fell short of the framing as written by
    % up to ~15 tokens, and a frame given those went over its budget); the headings this part
    % pays for (Debt) count in the parts they head, and the head a receiver need not pay (a
    % negative Debt, receive_spare_/6) is not reserved
    Reserved is HeadingTokens + min(0, Debt) + LeftOut + Used + CrumbTokens
        + NC * Settings.crumb_framing + BeyondLine,
    (   Candidates0 == [] -> Found = false ; Found = true ),
    Meta0 = _{segment: Label, budget: Share, spent: SegSpent, path: Path,
              suppressed: SuppressedMeta, capped: Capped, bridged: Bridged,
              excerpted: Excerpted, used: Reserved, found: Found},
    more_left_out_(Outside, Meta0, Meta).

% A segment that left candidates out says how relevant the best of them is (`more`), for
% spare_flow_/6; one that showed all it found says nothing.
more_left_out_(Outside, Meta0, Meta) :-
    (   best_score_(Outside, Best)
    ->  Meta = Meta0.put(more, Best)
    ;   Meta = Meta0
    ).

% best_score_(+Facts, -Best) is semidet: the highest score (a number) of Facts, candidates
% c(Id, Score, ...) or placed facts p(c(...), ...); fails when none has one. A walk compiled
% with this file's optimise flag: aggregate_all(max(S), ...) takes each score through the
% guarded is/2 of library(aggregate) (~19,000 calls of the guard's check in 60 frames).
best_score_(Facts, Best) :-
    best_score_(Facts, none, Best).

best_score_([], Best0, Best) :-
    Best0 \== none,
    Best = Best0.
best_score_([F|Fs], Best0, Best) :-
    (   fact_score_(F, S), number(S)
    ->  (   Best0 == none -> Best1 = S ; Best1 is max(Best0, S) )
    ;   Best1 = Best0
    ),
    best_score_(Fs, Best1, Best).

fact_score_(c(_, S, _, _, _), S).
fact_score_(p(c(_, S, _, _, _), _, _, _), S).

% segment_candidates_(+Goal, +Settings, +Segment, +Page, -Path, -Candidates): the jump's hits
% (at least Page of each search), what the walk, the bridge and the speaker add to its seeds,
% merged.
segment_candidates_(Goal, Settings, Segment, Page, Path, Candidates) :-
    Priors = Settings.priors,
    jump_(Goal, Priors, Settings.reader, Segment, Settings.seeds, Page, Path, SeedHits,
          MoreHits),
    walk_(Settings, Segment, SeedHits, Walked),
    bridge_(Settings, Segment, SeedHits, Walked, Expanded0),
    walk_speaker_(Priors, Expanded0, Expanded),
    merge_candidates_(SeedHits, Expanded, MoreHits, Candidates).

% left_out_cost_(+Settings, +Suppressed, -Tokens): the line that counts the near-duplicates a
% segment left out costs its tokens only when there are some.
left_out_cost_(Settings, Suppressed, Tokens) :-
    Settings.edge_framing = edge(_, LeftOut),
    (   Suppressed == [] -> Tokens = 0 ; Tokens = LeftOut ).

% refit_left_out_(+Settings, +Before, +SameShown, +Fitted0, +Budget0, -Fitted, -Budget,
% -Dropped): when only the fit's result showed near-duplicates (facts shown in the same words),
% the line counting them is paid now: the fit runs again within what is left after it.
refit_left_out_(Settings, [], [_|_], Fitted0, Budget0, Fitted, Budget, Dropped) :- !,
    left_out_cost_(Settings, [x], LeftOut),
    Budget is max(0, Budget0 - LeftOut),
    fit_(Fitted0, Budget, Fitted, Dropped).
refit_left_out_(_, _, _, Fitted, Budget, Fitted, Budget, []).

% A part of the frame is a segment of memory, or a mount: mount(Cell, Cells, Members), the
% region within the mount's depth of Cell and the live items in it (sorted).
segment_label_(mount(C, _, _), Label) :- !,
    atom_concat('mount:', C, Label).
segment_label_(S, S).

% Each mount gets an equal share of the budget. A grantee's region is of the cells they see,
% linked through cells they see (as cell_region/3 reads for them in a query): the owner's,
% through a cell hidden from them, drew its items among their candidates, and showed the
% visible ones as the mounted cell's neighbours.
mount_budgets_(Reader, Mounts, Depth, Budget, Parts) :-
    length(Mounts, N),
    Share is Budget // N,
    findall(mount(C, Cells, Members)-Share,
            ( member(C, Mounts),
              reader_region_(Reader, C, Depth, Cells),
              findall(H, ( member(C1, Cells), cell_member(C1, H) ), Hs),
              sort(Hs, Members) ),
            Parts).

reader_region_(none, C, Depth, Cells) :- !,
    cell_region(C, Depth, Cells).
reader_region_(Reader, C, Depth, Cells) :-
    (   readable_(Reader, C) -> true ; existence_error(cell, C) ),
    cells_region_via(readable_neighbours_(Reader), C, Depth, Cells).

readable_neighbours_(Reader, C, Pairs) :-
    cell_neighbours(C, Pairs0),
    readable_pairs_(Reader, Pairs0, Pairs).

% Mounts render independently; a record two of them hold is kept where it came first (the
% later part gives back its tokens). So do segments: a cell of two segments' items is in
% both. A breadcrumb points past the frame's edge: one that another part shows as a fact,
% or that a part before it points at already, is left out too (a cell summary was at once
% a fact of one segment and a breadcrumb of another).
distinct_parts_(Parts0, Parts, Spent0, Spent) :-
    foldl(distinct_part_, Parts0, Parts1, []-Spent0, Shown-Spent1),
    foldl(distinct_crumbs_, Parts1, Parts, Shown-Spent1, _-Spent).

distinct_crumbs_(part(M0, Fs, Cs0), part(M, Fs, Cs), Seen0-S0, Seen-S) :-
    partition(crumb_seen_(Seen0), Cs0, Again, Cs),
    foldl(crumb_tokens_sum_, Again, 0, Back),
    findall(Id, member(crumb(Id, _, _, _, _, _), Cs), Ids),
    append(Seen0, Ids, Seen),
    S is S0 - Back,
    (   Back =:= 0 -> M = M0 ; Spent is M0.spent - Back, M = M0.put(spent, Spent) ).

crumb_seen_(Seen, crumb(Id, _, _, _, _, _)) :-
    memberchk(Id, Seen).

crumb_tokens_sum_(crumb(_, _, _, T, _, _), A0, A) :-
    A is A0 + T.

distinct_part_(part(M0, Fs0, Cs), part(M, Fs, Cs), Seen0-S0, Seen-S) :-
    partition(fact_seen_(Seen0), Fs0, Again, Fs),
    foldl(fact_tokens_sum_, Again, 0, Back),
    findall(Id, member(fact(Id, _, _, _, _, _, _, _, _, _, _), Fs), Ids),
    append(Seen0, Ids, Seen),
    S is S0 - Back,
    (   Back =:= 0 -> M = M0 ; Spent is M0.spent - Back, M = M0.put(spent, Spent) ).

fact_seen_(Seen, fact(Id, _, _, _, _, _, _, _, _, _, _)) :-
    memberchk(Id, Seen).

fact_tokens_sum_(fact(_, _, _, _, _, T, _, _, _, _, _), A0, A) :-
    A is A0 + T.

% A record left out as redundant is listed when the fact it repeats is in the frame: one
% that repeated a fact the fit later dropped is no repeat of anything the reader sees (a
% 0-token frame listed near-duplicates "like" facts it did not hold).
repeats_kept_(Kept, Left) :-
    arg(2, Left, Like),
    memberchk(p(c(Like, _, _, _, _), _, _, _), Kept).

% redundant(Id, Like, Sim): a near-duplicate of Like; covered(Id, Like, 1.0): a summary whose
% members (Like the first) the frame shows verbatim (covered_summaries_/3).
suppressed_meta_(Segment, Left,
                 _{handle: Id, segment: Segment, suppressed: Why, like: Like,
                   similarity: Sim}) :-
    Left =.. [Why, Id, Like, Sim].

split_at_(N, List, Front, Back) :-
    length(List, Len),
    (   Len =< N -> Front = List, Back = []
    ;   length(Front, N), append(Front, Back, List)
    ).

		 /*******************************
		 *             JUMP             *
		 *******************************/

% A candidate is c(Id, Score, SeededBy, Hops, Role) with Role seed, arc, near or far.

%!  seed_ranking(+Goal, +Segment, +K, -Path, -Seeds:list) is det.
%
%   The jump phase of hydrate/3 on its own: the K best records for Goal in Segment as
%   c(Id, Score, SeededBy, 0, seed) terms, and the Path that produced them (hybrid, semantic,
%   lexical or recency). Benchmarks use it to measure the jump exactly as frames are seeded.
seed_ranking(Goal, Segment, K, Path, Seeds) :-
    time_anchor_(Goal, default, _, Anchor),
    goal_priors_(Goal, none, Anchor, Priors),
    jump_(Goal, Priors, none, Segment, K, Path, Seeds, _).

% Seeds are the K best hits (the focus). The next hits are the Reserve: relevance-ranked
% candidates that fill whatever budget the focus and its walk leave, so a frame uses its budget
% on relevant memory instead of ending early. Page asks for at least that many hits of each
% search: a hit per 25 tokens of the segment's budget (80 at 2000; a hit per 30 until a fact's
% heading stopped writing its day, which the facts of a day now share: a short turn with its
% lines costs ~18 tokens, not ~22, and 66 hits left a 2000-token frame of them at four fifths
% of its budget with nothing past it), so that a frame of short
% turns ("Saltbu. It means salt shed.") is not left a quarter empty with the default 48 as all
% its candidates, and hits fused from deeper lists rank better (a held-out 2000-token frame
% found the turn that dates a proposal, which the top 48 of each search left out). Every
% frame pays for the deeper page: 2 ms of 22 at 100k items; a hit per 20 tokens cost 6.
jump_(Goal, Priors, Reader, Segment, K, Path, Seeds, Reserve) :-
    jump_(Goal, Priors, Reader, Segment, K, 0, Path, Seeds, Reserve).

jump_(Goal, priors(Speaker, Anchor0, About), Reader, Segment, K, Page, Path, Seeds, Reserve) :-
    weighing_anchor_(Anchor0, Anchor),
    (   Reader == none -> Fetch is max(max(K * 4, 48), Page) ; Fetch is max(max(K * 16, 192), Page) ),
    window_items_(Anchor, Segment, Reader, InWindow),
    timeless_goal_(Goal, Anchor, InWindow, Goal1),
    semantic_goal_(Goal1, Speaker, SemGoal),
    time_weight_(Anchor, SemGoal, TimeWeight),
    Want is max(max(K * 4, 48), Page),
    (   catch(reader_fetch_(Reader, Want, Fetch, scope_nearest_(Segment, SemGoal),
                            readable_pair_(Reader), Sem),
              error(existence_error(embeddings, _), _), fail)
    ->  HaveSem = true
    ;   Sem = [], HaveSem = false
    ),
    reader_stats_(Reader, Segment, Stats),
    reader_fetch_(Reader, Want, Fetch, scope_lexical_(Segment, Goal1, Stats),
                  readable_pair_(Reader), Lex0),
    (   Speaker = speaker(Names), is_list(Names), SemGoal \== Goal1, Lex0 \== []
    ->  reader_fetch_(Reader, Want, Fetch, scope_lexical_(Segment, SemGoal, Stats),
                      readable_pair_(Reader), Topic),
        named_lexical_(Names, Lex0, Topic, Sem, Lex)
    ;   Lex = Lex0
    ),
    (   HaveSem == true, Lex \== [] -> Path = hybrid
    ;   HaveSem == true -> Path = semantic
    ;   Lex \== [] -> Path = lexical
    ;   Path = recency
    ),
    (   Path == recency
    ->  recency_seeds_(Reader, Segment, K, Seeds), Reserve = []
    ;   lexical_cosines_(HaveSem, SemGoal, Sem, Lex, Sem1),
        window_cosines_(HaveSem, InWindow, SemGoal, Fetch, Sem1, SemAll0),
        readable_pairs_(Reader, SemAll0, SemAll),
        fuse_(SemAll, Lex, Fused0),
        open_arcs_(Segment, Fused0, Fused10),
        readable_pairs_(Reader, Fused10, Fused1),
        speaker_prior_(About, Fused1, Fused1a),
        failure_prior_(Goal, Fused1a, Fused1b),
        instructions_prior_(Fused1b, Fused2),
        time_prior_(TimeWeight, Fused2, Fused3),
        recency_prior_(Goal, Fused3, Fused4),
        role_latest_(Speaker, Goal, Reader, Segment, Fused4, Fused),
        discount_echoes_(Reader, Fused, Scored),
        split_at_(K, Scored, Top, Rest),
        findall(c(Id, S, relevance, 0, seed), member(Id-S, Top), Seeds),
        findall(C, reserve_candidate_(Rest, C), Reserve)
    ).

% A hit past the seeds that still scores, as a reserve candidate. Its comparison is in a clause
% of its own, compiled with this file's optimise flag (in findall/3's goal it would be a call of
% the guarded >/2: ~180 a frame at 100k items).
reserve_candidate_(Rest, c(Id, S, relevance, 0, reserve)) :-
    member(Id-S, Rest),
    S > 0.

% named_lexical_(+Names, +Hits, +TopicHits, +Sem, -Lex): the BM25 hits of a goal that names
% people (Names, goal_people_/3), with the names' match given to every record those people
% speak that either search found, not only to those on BM25's page. Each record a person
% speaks is indexed after their name ("Jonas: Very London."), so the name matches all of them
% and BM25's length norm ranks the shortest first: for "Which city does Jonas live in now?" at
% 500 tokens the page of 48 hits was his 48 shortest turns, each with most of BM25's share,
% and his turns about moving to Bergen, past the page, had none of it (0.36 where the page's
% fillers had 0.37-0.51). Now such a record past the page scores what the goal without the
% names scores it (TopicHits) plus the least the name gave any of that person's records on
% the page, at most the page's best; what the page found keeps its score (BM25's share is
% measured against the page's best, which stays the best), and a record of someone else is a
% hit only by its own words (TopicHits: the name flooding the page had pushed it past).
named_lexical_(Names, Hits, TopicHits, Sem, Lex) :-
    list_to_assoc(TopicHits, Topic),
    findall(Only, ( member(H-S, Hits), spoken_by_(H, Names),
                    ( get_assoc(H, Topic, T) -> true ; T = 0.0 ),
                    Only is S - T ), Onlys),
    (   min_list(Onlys, Least0) -> Least is max(0.0, Least0) ; Least = 0.0 ),
    pairs_keys(Hits, Found0),
    sort(Found0, Found),
    Hits = [_-Top|_],
    findall(H-S, ( ( member(H-T, TopicHits) ; member(H-_, Sem), T = 0.0 ),
                   \+ ord_memberchk(H, Found),
                   (   spoken_by_(H, Names) -> S0 is T + Least ; S0 = T ),
                   S is min(Top, S0),
                   S > 0 ), More0),
    sort(2, @>=, More0, More1),             % a record both searches found: its best
    sort(1, @<, More1, More),
    append(Hits, More, All),
    sort_by_score_(All, Lex).

% weighing_anchor_(+Anchor, -Weighing): the window the jump weighs. One that holds every item
% (window_holds_all/2: "before today" asked after the last turn) weighs none: it tells no item
% apart, and its ×1.4 on every item, its words out of the search and its window's cosines only
% moved the ranking by chance (a LongMemEval question lost evidence that way). The frame's
% anchor line and receipt still say which window was read. Times apart ("in January and
% March") hold every item only where the stretches between them hold none written there.
weighing_anchor_(window(From, To, Pieces, _), none) :-
    window_holds_all(From, To),
    \+ ( gap_(Pieces, GapFrom, GapTo), items_between(GapFrom, GapTo, 1, [_]) ), !.
weighing_anchor_(Anchor, Anchor).

% timeless_goal_(+Goal, +Anchor, +InWindow, -Goal1): Goal without the words of the time it
% names, for the embedder and BM25. Those words say when, which the window weighs
% (time_prior_/3); read as words they would favour every turn that says "last week" or "in
% June", whenever it was said. A goal that is nothing but its time stays as it is, and so
% does one whose window holds nothing of the segment (InWindow '', window_items_/4): no item
% was written or names a day then, so no window can weigh what the goal asks, and its time
% words say what the turns are about ("the two novels I finished in January and March",
% asked of chats from May: "January" was cut from the search and the window weighed nothing).
timeless_goal_(Goal, none, _, Goal) :- !.
timeless_goal_(Goal, window(_, _, _, _), '', Goal) :- !.
timeless_goal_(Goal, window(_, _, _, Phrase), _, Goal1) :-
    split_string(Phrase, " ", " ", PhraseWords),
    split_string(Goal, " \t\n\r", " \t\n\r", Tokens0),
    exclude(==(""), Tokens0, Tokens),
    maplist(bare_lower_, Tokens, Lower),
    (   append(Before, Rest, Lower),
        append(PhraseWords, _, Rest)
    ->  length(Before, At), length(PhraseWords, N),
        length(TokensBefore, At), append(TokensBefore, Rest0, Tokens),
        length(Dropped, N), append(Dropped, TokensAfter, Rest0),
        append(TokensBefore, TokensAfter, Kept),
        atomic_list_concat(Kept, ' ', Text),
        (   sub_atom(Text, _, 1, _, C), char_type(C, alpha)
        ->  atom_string(Text, Goal1)
        ;   Goal1 = Goal
        )
    ;   Goal1 = Goal
    ).

bare_lower_(Token, Lower) :-
    split_string(Token, "", ",.;:!?()\"", [Bare]),
    string_lower(Bare, Lower).

% The jump within a segment (the index filters by segment) or within a mount's region (the
% cosine of every member of the region, and the BM25 hits of the whole memory that lie in it).
scope_nearest_(mount(_, _, Members), Goal, Fetch, Sem) :- !,
    (   Members == [] -> Sem = [] ; similarity(Goal, Members, Fetch, Sem) ).
scope_nearest_(Segment, Goal, Fetch, Sem) :-
    nearest(Goal, Fetch, [segment(Segment)], Sem).

scope_lexical_(mount(_, _, Members), Goal, Stats, Fetch, Lex) :- !,
    Wide is Fetch * 20,
    lexical(Goal, Wide, Stats, Lex0),
    include(in_members_(Members), Lex0, Lex1),
    take_(Fetch, Lex1, Lex).
scope_lexical_(Segment, Goal, Stats, Fetch, Lex) :-
    lexical(Goal, Fetch, [segment(Segment)|Stats], Lex).

% reader_stats_(+Reader, +Segment, -Options): a grantee's BM25 scores are weighed by the
% records of the segment searched alone (for a mounted cell, of the segments their grants
% name): weighed by the whole home's, a score told them how many hidden records held the
% word. The owner's are the whole index's, as is a mounted cell's for a grant of the whole home.
% Where no set of what they see is kept, the records of those segments a label hides from
% them are left out of the statistics too (reader_unseen_options/2).
reader_stats_(none, _, []) :- !.
reader_stats_(Reader, Segment, [stats_segments([Segment])|Unseen]) :-
    atom(Segment), !,
    reader_unseen_options(Reader, Unseen).
reader_stats_(Reader, _, Stats) :-
    grant_segments(Reader, Segments),
    reader_unseen_options(Reader, Unseen),
    (   Segments == any -> Stats = Unseen ; Stats = [stats_segments(Segments)|Unseen] ).

in_members_(Members, H-_) :-
    (   ord_memberchk(H, Members) -> true ; arc(H), arc_member(H, M), ord_memberchk(M, Members) -> true ).

% A BM25 hit past the semantic cut still has a cosine: it is looked up (similarity/3), so the
% fusion weighs what each record really scores instead of counting a missing cosine as zero.
lexical_cosines_(false, _, Sem, _, Sem).
lexical_cosines_(true, Goal, Sem, Lex, SemAll) :-
    pairs_keys(Lex, LexKeys),
    with_cosines_(Goal, LexKeys, all, Sem, SemAll).

% A goal that names a time ("what did I buy ten days ago") is also compared with the items
% written inside that window (the newest 1000), and the Fetch best of them join the candidates:
% a turn that says it in passing may rank nowhere in the whole memory, yet be one of a handful
% that week. The time prior then weighs them in like any other candidate.
% InWindow is window_items_/4's.
window_cosines_(false, _, _, _, Sem, Sem).
window_cosines_(true, InWindow, Goal, Fetch, Sem, SemAll) :-
    (   InWindow == ''
    ->  SemAll = Sem
    ;   pairs_keys(Sem, SemKeys),
        atomic_list_concat(SemKeys, '\n', Scored),
        catch(similarity_within_texts(Goal, [InWindow-Scored], Fetch, Extra),
              error(existence_error(embeddings, _), _), Extra = []),
        append(Sem, Extra, SemAll)
    ).

% window_items_(+Anchor, +Segment, +Reader, -InWindow): the items of Segment in the window
% Anchor names, window_group_/4's text; '' for a goal naming no time or a window holding none.
window_items_(none, _, _, '').
window_items_(window(_, _, Pieces, _), Segment, Reader, InWindow) :-
    window_group_(Pieces, Segment, Reader, InWindow).

% window_group_(+Pieces, +Segment, +Reader, -Text): the items of the window's pieces
% (items_dated_between/4, the newest 1000, the latest piece's first) that lie in Segment, a
% line each, sorted; kept between frames until the items change (kept_/5), and then one group
% of similarity_within_texts/4, whose vector rows the host keeps too: a frame naming "last
% week" after another does not list, filter and look up a thousand items again (~2 ms of a
% 100k-item frame).
% For a grantee the window is the newest 1000 items of it they see (reader_fetch_/6), made
% for each frame: what they see changes with grants, which the kept value's generation does
% not follow.
window_group_(Pieces, Segment, none, Text) :- !,
    window_generation_(G),
    kept_(window, window(Pieces, Segment), G, window_group_made_(Pieces, Segment, none),
          Text).
window_group_(Pieces, Segment, Reader, Text) :-
    window_group_made_(Pieces, Segment, Reader, Text).

window_group_made_(Pieces, Segment, Reader, Text) :-
    reverse(Pieces, Latest),
    foldl(piece_items_(Reader), Latest, InWindow0, []),
    take_(1000, InWindow0, InWindow),
    include(item_in_segment_(Segment), InWindow, Candidates),
    sort(Candidates, Sorted),
    atomic_list_concat(Sorted, '\n', Text).

% piece_items_(+Reader, +Piece, -Items, +Rest): Items the newest 1000 items dated in Piece
% that Reader sees, then Rest (a difference list, for foldl/4).
piece_items_(Reader, From-To, Items, Rest) :-
    reader_fetch_(Reader, 1000, 1000, items_dated_between(From, To), readable_(Reader), Kept),
    append(Kept, Rest, Items).

% reader_fetch_(+Reader, +Want, +Fetch, :Fetch_2, :Keep_1, -Kept): Kept is what Keep_1 accepts
% of the Fetch first of a ranking (call(Fetch_2, Fetch, Raw): a search's best hits, a window's
% newest items). A grantee whose set of records is kept (reader_items/2) has a segment's
% searches run within that set (reader_search_/4): the Fetch best of what they see, however
% much is hidden. Otherwise a grantee sees only part of the home, and the Fetch first may be
% all hidden from them: for them Fetch grows eight-fold until Want are kept, the ranking has
% no more, or reader_fetch_cap_/1 is reached. The owner's (Reader none) is the one fetch.
reader_fetch_(Reader, _, Fetch, Fetch_2, Keep_1, Kept) :-
    Reader \== none,
    reader_search_(Fetch_2, Reader, Fetch, Raw), !,
    include(Keep_1, Raw, Kept).
reader_fetch_(Reader, Want, Fetch, Fetch_2, Keep_1, Kept) :-
    call(Fetch_2, Fetch, Raw),
    include(Keep_1, Raw, Kept0),
    reader_fetch_cap_(Cap),
    (   (   Reader == none
        ;   length(Kept0, N), N >= Want
        ;   length(Raw, Got), Got < Fetch
        ;   Fetch >= Cap
        )
    ->  Kept = Kept0
    ;   Fetch1 is min(Cap, Fetch * 8),
        reader_fetch_(Reader, Want, Fetch1, Fetch_2, Keep_1, Kept)
    ).

reader_fetch_cap_(200000).

% reader_search_(+Fetch_2, +Reader, +Fetch, -Hits): a segment's semantic or BM25 search run
% within the records Reader sees (reader_records/2): the cosine of each of them (similarity/4,
% the score nearest/4 gives), and BM25 scoring only them, by their statistics alone (lexical/4's
% within/1): no score then depends on what Reader cannot see; and a time window's items, or
% the newest, read from them (records_between/5). Fails when Reader's set is not kept (grants
% of whole segments, naming neither session nor segment, or very wide), or for a mount's
% region.
reader_search_(scope_nearest_(Segment, Goal), Reader, Fetch, Sem) :-
    atom(Segment),
    reader_records(Reader, Records0),
    include(searched_in_(Segment), Records0, Records),
    similarity(Goal, Records, Fetch, Sem).
reader_search_(scope_lexical_(Segment, Goal, Stats), Reader, Fetch, Lex) :-
    atom(Segment),
    reader_records(Reader, Records0),
    include(searched_in_(Segment), Records0, Records),
    atomic_list_concat(Records, '\n', Within),
    lexical(Goal, Fetch, [segment(Segment), within(Within)|Stats], Lex).

reader_search_(items_between(From, To), Reader, Fetch, Items) :-
    reader_records(Reader, Records),
    records_between(Records, From, To, Fetch, Items).
reader_search_(items_dated_between(From, To), Reader, Fetch, Items) :-
    reader_records(Reader, Records),
    records_dated_between(Records, From, To, Fetch, Items).

% What a segment's search can find: its items and arcs (and rollups, which have no vectors).
searched_in_(Segment, R) :-
    (   item(R) -> true ; arc(R) -> true ; rollup(R, _) ),
    item_in_segment_(Segment, R).

% What a window's items depend on: the items, their times and the days they mention.
window_generation_(g(I, T, R)) :-
    modified_(atc_journal:item_(_, _, _, _, _, _, _, _, _, _), I),
    modified_(atc_journal:tombstone_(_, _, _), T),
    modified_(atc_journal:relation_(_, _, _), R).

% with_cosines_(+Goal, +Records, +Limit, +Sem, -SemAll): Sem plus the cosines of those Records
% it lacks (all of them, or the Limit best); unchanged when nothing can be compared.
with_cosines_(Goal, Records, Limit, Sem, SemAll) :-
    sort(Records, Sorted),
    pairs_keys(Sem, SemKeys0),
    sort(SemKeys0, SemKeys),
    ord_subtract(Sorted, SemKeys, Unseen),
    (   Unseen == []
    ->  SemAll = Sem
    ;   catch(cosines_(Limit, Goal, Unseen, Extra), error(existence_error(embeddings, _), _), Extra = []),
        append(Sem, Extra, SemAll)
    ).

cosines_(all, Goal, Records, Pairs) :- !,
    similarity(Goal, Records, Pairs).
cosines_(K, Goal, Records, Pairs) :-
    similarity(Goal, Records, K, Pairs).

item_in_segment_(Segment, H) :-
    in_segment_(H, Segment).

% Relevance = 0.8 * cosine + 0.2 * BM25 scaled by the best BM25 score of this query: cosine
% carries paraphrase, BM25 carries exact identifiers and numbers. Cosines of a query spread
% over a narrow band (0.2-0.6 for MiniLM) and BM25/max over 0-1, so the larger cosine weight is
% what makes the two count about equally (scripts/bench/lme_rankings.py compares shares). A
% BM25 hit past the semantic cut has its cosine looked up (lexical_cosines_/5); a semantic hit
% past the BM25 cut counts BM25 as zero, which it nearly is.
% One pass over both lists merged by key (not a memberchk per key: lists run to ~150 records).
fuse_(Sem, Lex, Fused) :-
    (   Lex = [_-Best|_], Best > 0 -> true ; Best = 1 ),
    (   Sem == [] -> WS = 0.0, WL = 1.0
    ;   Lex == [] -> WS = 1.0, WL = 0.0
    ;   WS = 0.8, WL = 0.2
    ),
    findall(K-V, ( member(K-C, Sem), V = cos(C) ; member(K-L, Lex), V = bm25(L) ), Tagged),
    keysort(Tagged, ByKey),
    group_pairs_by_key(ByKey, Groups),
    findall(K-Score, ( member(K-Vs, Groups), fused_score_(Vs, Best, WS, WL, Score) ), Pairs),
    sort_by_score_(Pairs, Fused).

% The arithmetic of a findall/3 goal runs in a clause of its own: a goal findall/3 calls is
% compiled when called, without this file's optimise flag (its arithmetic a call of is/2).
fused_score_(Vs, Best, WS, WL, Score) :-
    ( memberchk(cos(C), Vs) -> true ; C = 0.0 ),
    ( memberchk(bm25(L), Vs) -> LN is L / Best ; LN = 0.0 ),
    Score0 is WS * max(0.0, C) + WL * LN,
    Score is round(Score0 * 10000) / 10000.

% Keyed by a maplist/3, not a findall/3: findall copies each pair twice, and a frame sorts its
% ~250 hits this way after each prior (~50 us a sort).
sort_by_score_(Pairs, Sorted) :-
    maplist(score_keyed_, Pairs, Keyed),
    keysort(Keyed, KeyedSorted),
    pairs_values(KeyedSorted, Sorted).

score_keyed_(K-S, NS-(K-S)) :- NS is -S.

% A candidate keyed by its score negated, best first after keysort/2 (sort_by_score_/2's
% maplist in place of a findall).
candidate_keyed_(C, NS-C) :-
    C = c(_, S, _, _, _),
    NS is -S.

% The focus is verbatim memory: an arc the jump lands on lifts its member items (the walk still
% brings arcs in as stand-ins for their members) to half its score plus half their own, so the
% members that match the goal lead and the arc's other steps follow, and a matching arc never
% ties all its steps at one score. Session rollups summarise whole sessions: they never seed.
% In a mount only the members in its region are lifted: an arc is linked to one cell, and its
% steps may lie in cells the mount does not reach.
% A member's own score is looked up in a dict of the pairs (the first score of each key, as
% memberchk/2 finds it in the list): a frame's ~250 hits hold ~25 arcs of ~10 members, and a
% scan of the list per member cost ~0.5 ms of a frame where a goal names a failing test. A
% dict, not an AVL tree: list_to_assoc/2 does its arithmetic through the guarded is/2 (~265
% calls a frame); dict_pairs/3 and get_dict/3 are C (250 pairs and their look-ups: 60 us,
% 500 us as an AVL tree through the guard).
open_arcs_(Segment, Pairs, Out) :-
    sort(1, @<, Pairs, ByKey),
    dict_pairs(Scores, scores, ByKey),
    findall(K-S, ( member(R-S0, Pairs), record_items_(R, S0, Scores, Segment, K, S) ), Opened),
    best_pairs_(Opened, Out).

record_items_(R, S, _, _, R, S) :-
    item(R), !.
record_items_(A, S0, Scores, Segment, H, S) :-
    arc(A), !,
    arc_member(A, H),
    (   Segment = mount(_, _, _) -> in_segment_(H, Segment) ; true ),
    (   get_dict(H, Scores, Own) -> true ; Own = 0.0 ),
    S is round((0.5 * S0 + 0.5 * Own) * 10000) / 10000.

best_pairs_(Pairs, Best) :-
    msort(Pairs, Sorted),
    best_pairs_by_key_(Sorted, Unique),
    sort_by_score_(Unique, Best).

best_pairs_by_key_([], []).
best_pairs_by_key_([K-S|T], Out) :-
    best_for_key_(T, K, S, Best, Rest),
    Out = [K-Best|Out1],
    best_pairs_by_key_(Rest, Out1).

best_for_key_([K-S1|T], K, S0, Best, Rest) :- !,
    S is max(S0, S1),
    best_for_key_(T, K, S, Best, Rest).
best_for_key_(Rest, _, S, S, Rest).

% A goal that asks what the assistant said ("what did you recommend", "your suggestion")
% favours the assistant's items; one in the first person otherwise ("did I", "my trip")
% favours the user's own. A favoured item's score counts 30 % more: who said something is
% part of what the goal asks for, which neither embeddings nor BM25 see.
speaker_prior_(none, Pairs, Pairs).
speaker_prior_(speaker(Role), Pairs, Out) :-
    maplist(speaker_boost_(Role), Pairs, Out0),
    sort_by_score_(Out0, Out).

speaker_boost_(Who, K-S, K-S1) :-
    (   spoken_by_(K, Who) -> S1 is round(S * 1.3 * 10000) / 10000 ; S1 = S ).

% A goal that asks about a failure ("why did git push fail", "what broke the build", "the
% migration error") is about the run that failed, not the ones that went well: a command's
% successful output shares the command's words with such a goal as much as its failure does,
% and four successful pushes ranked above the push that failed (a 200-token frame showed only
% successes). Items kept as errors count 30 % more; a goal without such a word is untouched.
failure_prior_(Goal, Pairs, Out) :-
    (   goal_words(Goal, Words), member(W, Words), failure_word_(W)
    ->  maplist(failure_boost_, Pairs, Out0),
        sort_by_score_(Out0, Out)
    ;   Out = Pairs
    ).

failure_boost_(K-S, K-S1) :-
    (   item_kind(K, error) -> S1 is round(S * 1.3 * 10000) / 10000 ; S1 = S ).

failure_word_(W) :-
    memberchk(W, ["fail", "fails", "failed", "failing", "failure", "failures", "error",
                  "errors", "errored", "broke", "broken", "crash", "crashed", "crashes",
                  "exception", "exceptions", "traceback", "rejected", "refused", "denied"]).

% A system message is the instructions an agent ran under (SWE-agent's and many chat exports'
% first message, the same in every session): it shares words with most goals, being about the
% task, yet is rarely what a goal asks about: its score counts half.
instructions_prior_(Pairs, Out) :-
    (   member(K-_, Pairs), item_role(K, system)
    ->  maplist(instructions_discount_, Pairs, Out0),
        sort_by_score_(Out0, Out)
    ;   Out = Pairs
    ).

instructions_discount_(K-S, K-S1) :-
    (   item_role(K, system) -> S1 is round(S / 2 * 10000) / 10000 ; S1 = S ).

% Item K was said by Who: a role (user, assistant), or one of a list of named people.
spoken_by_(K, Who) :-
    (   is_list(Who)
    ->  relation(K, speaker, Name), memberchk(Name, Who)
    ;   item_role(K, Who)
    ).

% A walk neighbour inherits its seed's score, speaker boost included: an item of the other
% speaker gives that boost back, so the goal's speaker is favoured across the whole frame
% (the user's own statements, not the assistant's replies next to them, for "did I ...").
walk_speaker_(priors(_, _, none), Found, Found).
walk_speaker_(priors(_, _, speaker(Role)), Found, Out) :-
    maplist(walk_speaker_score_(Role), Found, Out).

walk_speaker_score_(Who, c(Id, S, By, Hops, R), c(Id, S1, By, Hops, R)) :-
    (   item_role(Id, _), \+ spoken_by_(Id, Who)
    ->  S1 is round(S / 1.3 * 10000) / 10000
    ;   S1 = S
    ).

%!  goal_speaker(+Goal:string, -Speaker:atom) is semidet.
%
%   The speaker whose items Goal asks about: a person memory knows as a speaker (an
%   item_speaker/2 name) when Goal names them ("When did Priya start the pottery class?"; the
%   first one named that the goal does not only ask to do something), else `assistant` when
%   it refers to what "you" said, did or recommended, the role a goal names in the third
%   person ("what did the user ask for", "the assistant's suggestion"), `user` when it is
%   otherwise in the first person; fails for none of these. Hydration favours the items of
%   every person a goal names, but one it only asks to do something while it names another
%   ("Can Tomás suggest a lens for Priya's camera?" favours Priya's; goal_about_/3).
goal_speaker(Goal, Speaker) :-
    goal_speaker(Goal, none, Speaker).

%!  goal_speaker(+Goal:string, +Reader:atom, -Speaker:atom) is semidet.
%
%   goal_speaker/2 as Reader (a principal, or `none` for the owner) may know it: a person
%   counts only when Reader sees one of their records (visible/3), so a name that speaks only
%   where Reader cannot see is read as a name memory does not know, not as a person.
goal_speaker(Goal, Reader, Speaker) :-
    goal_people_(Goal, Reader, Names), Names = [_|_], !,
    goal_about_(Goal, Names, speaker([Speaker|_])).
goal_speaker(Goal, _, Role) :-
    goal_words(Goal, Words),
    (   addressed_to_assistant_(Words) -> Role = assistant
    ;   role_named_(Words, Named) -> Role = Named
    ;   member(W, Words), first_person_(W) -> Role = user
    ).

% A goal that asks about a role in the third person, as one agent reading another's history
% does: "what did the user ask for", "the user's request", "why the assistant changed it".
% The role word must be the subject of a question or of a verb, or a possessive: "the user
% table" is a table.
role_named_(Words, Role) :-
    append(_, ["the", Word|Rest], Words),
    role_word_(Word, Role, Possessive),
    (   Possessive == true
    ->  true
    ;   Rest = [Verb|_], role_act_(Verb)
    ->  true
    ;   append(_, ["did", "the", Word|_], Words)
    ),
    !.

role_word_(W, Role, Possessive) :-
    (   sub_string(W, Before, 2, 0, "'s") -> sub_string(W, 0, Before, _, Bare), Possessive = true
    ;   Bare = W, Possessive = false
    ),
    (   memberchk(Bare, ["user", "human"]) -> Role = user
    ;   memberchk(Bare, ["assistant", "agent", "ai", "bot", "model"]) -> Role = assistant
    ).

role_act_(W) :- assistant_act_(W), !.
role_act_(W) :- memberchk(W, ["ask", "asks", "want", "wants", "say", "says", "like", "likes",
                              "prefer", "prefers", "need", "needs", "think", "thinks", "mention",
                              "mentions", "tell", "tells", "write", "writes", "suggest",
                              "suggests", "recommend", "recommends", "request", "requests"]).

addressed_to_assistant_(Words) :-
    append(_, ["did", "you"|_], Words), !.              % "what did you suggest"
addressed_to_assistant_(Words) :-
    append(_, [You, Next|_], Words),
    (   You == "you", assistant_act_(Next)
    ;   You == "your", assistant_output_(Next)
    ), !.

assistant_act_(W) :- sub_string(W, _, 2, 0, "ed"), string_length(W, N), N > 3, !.
assistant_act_(W) :- memberchk(W, ["said", "told", "gave", "wrote", "made", "were", "did", "had",
                                   "sent", "shared", "taught", "showed", "came", "thought",
                                   "meant", "found", "chose", "drew", "built", "got", "put"]).

assistant_output_(W) :- memberchk(W, ["suggestion", "suggestions", "recommendation",
                                      "recommendations", "answer", "advice", "list", "response",
                                      "reply", "idea", "ideas", "explanation", "example"]).

% The speakers memory knows (journal_speakers/1) that Goal names, in the order it names them.
% A name matches the goal's words case-insensitively and without accents, a possessive
% ("Priya's", "James'") included, but a capitalised name only where the goal writes it
% capitalised too, when the goal shows that it spells names with capitals (goal_cased_/2):
% "will" in "Will you check if it will rain in Lisbon?" is not a speaker called Will, while
% "What did priya say?" asks about Priya. No word list: the names are memory's own. A speaker of several words is named
% by the first of them too, as people name each other ("What did Dana suggest?" asks about
% "Dana Whitfield" of a chat export), unless the goal writes another speaker's whole name
% there ("Dana Lee" is not "Dana Whitfield").
goal_people_(Goal, Reader, Names) :-
    journal_speakers(Known),
    (   Known == []
    ->  Names = []
    ;   split_string(Goal, " \t\n\r,.;:!?()\"", " \t\n\r,.;:!?()\"", Tokens0),
        exclude(==(""), Tokens0, Tokens1),
        maplist(goal_token_, Tokens1, Tokens),
        goal_cased_(Goal, Cased),
        findall(At-Name-Len, ( member(Name, Known),
                               name_at_(Name, Tokens, Cased, At, Len),
                               speaks_to_(Reader, Name) ), Found0),
        findall(At, member(At-_-2, Found0), Whole),       % Len 2 stands for "whole name"
        exclude(first_word_taken_(Whole), Found0, Found1),
        findall(At-Name, member(At-Name-_, Found1), Found),
        keysort(Found, Sorted),
        pairs_values(Sorted, Names0),
        list_to_set(Names0, Names)
    ).

first_word_taken_(Whole, At-_-1) :- memberchk(At, Whole).

% goal_cased_(+Goal, -Cased): Cased is true when Goal capitalises a word no sentence asks to
% be capitalised: not its first word, nor one after a word ending a sentence (. ! ?), nor "I"
% ("I'm", "I'd" ...). Such a writer spells names with capitals, so a lower-case word is no
% name; one whose only capitals start sentences ("What did priya say?") shows nothing.
goal_cased_(Goal, Cased) :-
    split_string(Goal, " \t\n\r", " \t\n\r", Words0),
    exclude(==(""), Words0, Words),
    (   append(_, [Before, Word|_], Words),
        \+ sentence_end_(Before),
        capitalised_word_(Word),
        \+ ( written_token_(Word, _-Lower), first_person_(Lower) )
    ->  Cased = true
    ;   Cased = false
    ).

sentence_end_(Word) :-
    split_string(Word, "", ")\"'’”", [Bare]),
    sub_string(Bare, _, 1, 0, Last),
    memberchk(Last, [".", "!", "?", "。", "！", "？"]).

% capitalised_word_(+Word): Word's first letter (after quotes or brackets) is a capital.
capitalised_word_(Word) :-
    string_chars(Word, Chars),
    member(C, Chars), char_type(C, alpha), !,
    char_type(C, upper(_)), \+ char_type(C, lower(_)).

% speaks_to_(+Reader, +Name): Reader sees a record Name speaks in (the owner, `none`, sees all).
speaks_to_(none, _) :- !.
speaks_to_(Reader, Name) :-
    once(( relation(H, speaker, Name), visible(Reader, H, _) )).

% semantic_goal_(+Goal, +Speaker, -SemGoal): what the embedder compares with memory, Goal
% without the names of the speakers it names. Every turn of a speaker is embedded after that
% speaker's name, so a name in the goal pulls toward the speaker's shortest turns rather than the
% ones about the goal's topic (LongMemEval's questions asked by name ranked the evidence 3-6
% times lower); who is asked about is weighed by the speaker prior instead. BM25 keeps the names.
semantic_goal_(Goal, speaker(Names), SemGoal) :-
    is_list(Names), !,
    split_string(Goal, " \t\n\r", " \t\n\r", Words0),
    exclude(==(""), Words0, Words),
    maplist(written_token_, Words, Tokens),
    goal_cased_(Goal, Cased),
    foldl(drop_name_(Cased), Names, Words-Tokens, Kept-_),
    atomic_list_concat(Kept, ' ', Text),
    (   sub_atom(Text, _, 1, _, C), char_type(C, alpha)
    ->  atom_string(Text, SemGoal)
    ;   SemGoal = Goal
    ).
semantic_goal_(Goal, _, Goal).

written_token_(Word, Token) :-
    split_string(Word, "", ",.;:!?()\"", [Bare]),
    goal_token_(Bare, Token).

% drop_name_(+Cased, +Name, +Words-Tokens, -Kept-KeptTokens): every place the goal writes Name
% (as name_at_/5 matches it) cut out of the parallel lists of words and their tokens.
drop_name_(Cased, Name, Words-Tokens, Kept-KeptTokens) :-
    (   name_at_(Name, Tokens, Cased, At, inside)
    ->  atom_string(Name, Text),             % cut out of the word that holds it
        nth0(At, Words, Word, WordsRest),
        atomic_list_concat(Pieces, Text, Word),
        atomic_list_concat(Pieces, '', Rest),
        atom_string(Rest, RestText),
        (   RestText == ""
        ->  Words1 = WordsRest, nth0(At, Tokens, _, Tokens1)
        ;   written_token_(RestText, Token),
            nth0(At, Words1, RestText, WordsRest),
            nth0(At, Tokens, _, TokensRest), nth0(At, Tokens1, Token, TokensRest)
        ),
        drop_name_(Cased, Name, Words1-Tokens1, Kept-KeptTokens)
    ;   name_at_(Name, Tokens, Cased, At, Match)
    ->  atom_string(Name, Text),
        split_string(Text, " ", " ", Parts),
        (   Match == 1 -> N = 1 ; length(Parts, N) ),
        length(WordsBefore, At), append(WordsBefore, WordsRest, Words),
        length(TokensBefore, At), append(TokensBefore, TokensRest, Tokens),
        length(DropW, N), append(DropW, WordsAfter, WordsRest),
        length(DropT, N), append(DropT, TokensAfter, TokensRest),
        append(WordsBefore, WordsAfter, Words1),
        append(TokensBefore, TokensAfter, Tokens1),
        drop_name_(Cased, Name, Words1-Tokens1, Kept-KeptTokens)
    ;   Kept = Words, KeptTokens = Tokens
    ).

% A goal token as Token-Lowercase, a possessive cut off: 's, or the apostrophe alone after a
% name ending in s ("James' car", "Tomás’ bike").
goal_token_(Token0, Token-Lower) :-
    (   ( sub_string(Token0, B, 2, 0, "'s") ; sub_string(Token0, B, _, 0, "’s")
        ; sub_string(Token0, B, 1, 0, "'") ; sub_string(Token0, B, _, 0, "’") ), B > 0
    ->  sub_string(Token0, 0, B, _, Token)
    ;   Token = Token0
    ),
    name_key_(Token, Lower).

%   name_key_(+Text, -Key): Text lower-cased with the accents of Latin letters taken off, the
%   form a name is compared in: people type "Zoe" and "Tomas" for the Zoë and Tomás an export
%   names (as BM25 folds them, embed/terms.py). Plain ASCII, most text, is only lower-cased.
name_key_(Text, Key) :-
    string_lower(Text, Lower),
    string_codes(Lower, Codes),
    (   \+ ( member(C, Codes), C > 127 )
    ->  Key = Lower
    ;   maplist(unaccent_code_, Codes, Plain),
        string_codes(Key, Plain)
    ).

unaccent_code_(C, P) :-
    (   C > 127,
        char_code(Char, C),
        sub_atom('àáâãäåāăąçćĉċčďđèéêëēĕėęěĝğġģĥħìíîïĩīĭįıĵķĺļľŀłñńņňòóôõöøōŏőŕŗřśŝşšţťŧùúûüũūŭůűųŵýÿŷźżž',
                 I, 1, _, Char)
    ->  sub_atom('aaaaaaaaacccccddeeeeeeeeegggghhiiiiiiiiijklllllnnnnooooooooorrrsssstttuuuuuuuuuuwyyyzzz',
                 I, 1, _, Base),
        char_code(Base, P)
    ;   P = C
    ).

% name_at_(+Name, +Tokens, +Cased, -At, -Match): Name is written from token At on: whole
% (Match 2: every word of it) or, for a name of several words, its first word alone (Match 1),
% when the goal does not write it whole anywhere, and not as the goal's first word (whose
% capital says nothing: "May I ..." does not name May Chen). A name in a script written
% without spaces between words (李雷) is found inside token At (Match inside): "李雷昨天做了什么"
% is one token.
name_at_(Name, Tokens, Cased, At, Match) :-
    atom_string(Name, Text),
    split_string(Text, " ", " ", Parts),
    (   words_at_(Name, Parts, Tokens, Cased, At)
    ->  Match = 2
    ;   account_pieces_(Parts, Pieces),
        words_at_(Name, Pieces, Tokens, Cased, At)
    ->  Match = 2                               % "priya.p", which the goal's tokens split
    ;   (   Parts = [Given, _|_]
        ;   account_pieces_(Parts, [Given, _|_])
        ),
        string_length(Given, L), L >= 2,
        words_at_(Name, [Given], Tokens, Cased, At), At > 0
    ->  Match = 1
    ;   unspaced_(Text),
        nth0(At, Tokens, _-Lower), sub_string(Lower, _, _, _, Text)
    ->  Match = inside
    ).

% account_pieces_(+Parts, -Pieces): an account name of one word that joins its pieces with dots
% or underscores, as Discord's, Instagram's and Telegram's usernames do (`priya.p`, `tomas_r`),
% as those pieces: the goal's tokens split it at a dot ("What did priya.p say?"), and its first
% piece is the person's given name ("What did Priya say?"), as a name's first word is.
account_pieces_([Text], Pieces) :-
    split_string(Text, "._", "", Pieces),
    Pieces = [_, _|_],
    \+ memberchk("", Pieces).

% unspaced_(+Text): Text is written wholly in scripts that put no spaces between words (Chinese,
% Japanese kana, Thai) or attach particles to a name (Korean: 민수가): its words are not tokens.
unspaced_(Text) :-
    string_codes(Text, Codes),
    Codes \== [],
    forall(member(C, Codes), unspaced_code_(C)).

unspaced_code_(C) :-
    (   between(0x3040, 0x30FF, C)       % hiragana, katakana
    ;   between(0x3400, 0x9FFF, C)       % CJK ideographs
    ;   between(0xF900, 0xFAFF, C)
    ;   between(0xAC00, 0xD7AF, C)       % Hangul
    ;   between(0x0E00, 0x0E7F, C)       % Thai
    ), !.

words_at_(Name, Parts, Tokens, Cased, At) :-
    maplist(name_key_, Parts, Lowers),
    pairs_keys_values(Pattern, Written, Lowers),
    append(Before, Rest, Tokens),
    append(Pattern, _, Rest),
    (   Cased == true, sub_atom(Name, 0, 1, _, C), upcase_atom(C, C), \+ downcase_atom(C, C)
    ->  Written = [First|_], sub_string(First, 0, 1, _, F), string_upper(F, F), \+ string_lower(F, F)
    ;   true
    ),
    !,
    length(Before, At).

% "me" is left out: "can you remind me" asks the assistant, it does not say the user spoke.
first_person_(W) :- memberchk(W, ["i", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"]).

% time_weight_(+Anchor, +SemGoal, -Weight): how the window the goal names weighs in. A goal
% that asks nothing but a time, once its time and the people it names are taken out
% ("What did Tomás do on May 28?" is "What did do on"), has no topic for a relevance ranking
% to follow: its cosines favour the turns that look like questions, and a ×1.4 could not
% lift the hike of 28 May above them. Its window comes first (window_first(Pieces)).
time_weight_(none, _, none).
time_weight_(window(_, _, Pieces, Phrase), SemGoal, Weight) :-
    goal_words(SemGoal, Words),
    split_string(Phrase, " ", " ", PhraseWords),   % a goal that is only its time keeps them
    (   forall(member(W, Words), ( topicless_word_(W) ; memberchk(W, PhraseWords) ))
    ->  Weight = window_first(Pieces)
    ;   Weight = window_boost(Pieces)
    ).

% Words that ask, point or link, and the verbs of doing, saying and happening: a goal of
% only these names no topic.
topicless_word_(W) :-
    memberchk(W, ["what", "when", "where", "who", "whom", "which", "how", "why", "whats",
                  "what's", "did", "do", "does", "doing", "done", "was", "were", "is", "are",
                  "be", "been", "has", "have", "had", "i", "me", "my", "you", "your", "he",
                  "him", "his", "she", "her", "they", "them", "their", "we", "us", "our", "it",
                  "its", "the", "a", "an", "on", "in", "at", "of", "to", "for", "from", "with",
                  "about", "and", "or", "up", "else", "anything", "something", "there", "that",
                  "this", "then", "any", "happen", "happened", "happening", "say", "said",
                  "talk", "talked", "tell", "told", "mention", "mentioned", "discuss",
                  "discussed", "get", "got", "go", "went"]).

% An item written inside the window the goal names ("two weeks ago") counts 40 % more: the
% time is part of what the goal asks for, and neither embeddings nor BM25 read dates. For a
% goal with no topic (time_weight_/3) every item dated in the window ranks above every other,
% in the order of its own score: 0.5 + S/2 against S/2.
time_prior_(none, Pairs, Pairs).
time_prior_(window_first(Pieces), Pairs, Out) :-
    maplist(window_first_(Pieces), Pairs, Out0),
    sort_by_score_(Out0, Out).
time_prior_(window_boost(Pieces), Pairs, Out) :-
    maplist(time_boost_(Pieces), Pairs, Out0),
    sort_by_score_(Out0, Out).

% A goal that asks for the newest of what it is about ("What happened most recently with the
% car?", goal_recency_cue/2) weighs the items among its candidates by when they were written:
% the newest counts 40 % more (as much as an item inside a window a goal names), the oldest as
% it is, the others in proportion to their time. Relevance still decides what is about the car.
recency_prior_(Goal, Pairs, Out) :-
    (   goal_recency_cue(Goal, _),
        findall(T, ( member(K-_, Pairs), item_stamp(K, T) ), Stamps),
        Stamps = [_, _|_],
        min_list(Stamps, Oldest), max_list(Stamps, Newest),
        Newest > Oldest
    ->  maplist(recency_boost_(Oldest, Newest), Pairs, Out0),
        sort_by_score_(Out0, Out)
    ;   Out = Pairs
    ).

% A goal that asks for nothing but a speaker's newest words ("what was the user's last
% request", "what did the assistant say most recently", "what did Priya say last"... once
% the role or name, the words that ask for the newest and the words of asking are taken out,
% nothing is left): no topic for relevance to follow, so the turns it asks for ("continue
% until all are done") ranked nowhere, below every tool output that says "user" or
% "request". That speaker's turns (item_speaker/2: a subagent's are the subagent's; tool
% output and file operations are no one's turns) among memory's newest 2000 items, the ten
% newest, join the candidates and rank above every other, newest first; the others keep half
% their score, as for a goal that names only a time (window_first_/4).
role_latest_(speaker(Speaker), Goal, Reader, Segment, Pairs, Out) :-
    (   is_list(Speaker) -> maplist(text_string_, Speaker, Whos)
    ;   memberchk(Speaker, [user, assistant]), atom_string(Speaker, Who), Whos = [Who]
    ),
    goal_recency_cue(Goal, Cue),
    goal_words(Goal, Words),
    split_string(Cue, " ", " ", CueWords),
    maplist(string_lower, Whos, Named),
    forall(member(W, Words),
           ( topicless_word_(W) ; memberchk(W, CueWords) ; role_goal_word_(W)
           ; spoken_name_word_(Named, W) )),
    memory_newest(Now),
    reader_fetch_(Reader, 2000, 2000, items_between(-62135596800, Now), readable_(Reader),
                  Newest0),                     % from the year 1: before 1970 too
    take_(2000, Newest0, Newest),
    include(role_turn_(Whos, Segment, Reader), Newest, Turns0),
    take_(10, Turns0, Turns),
    Turns = [_|_], !,
    length(Turns, N),
    findall(K-S, ( nth1(I, Turns, K), S is round((1 - (I - 1) / (2 * N)) * 10000) / 10000 ),
            Top),
    findall(K-S1, ( member(K-S, Pairs), \+ memberchk(K-_, Top), S1 is round(S / 2 * 10000) / 10000 ),
            Rest),
    append(Top, Rest, Out).
role_latest_(_, _, _, _, Pairs, Pairs).

% The words of a goal about a role's turn: the role itself and what a turn is.
role_goal_word_(W) :-
    memberchk(W, ["user", "user's", "human", "assistant", "assistant's", "agent", "agent's",
                  "request", "requests", "requested", "ask", "asks", "asked", "message",
                  "messages", "prompt", "prompts", "instruction", "instructions", "question",
                  "questions", "want", "wanted", "last", "most", "recent", "recently", "latest",
                  "newest", "thing"]).

% W is a word of a speaker's name, or of its possessive ("priya's").
spoken_name_word_(Named, W) :-
    member(Name, Named),
    split_string(Name, " ", " ", Parts),
    member(P, Parts),
    (   W == P -> true ; string_concat(P, Tail, W), memberchk(Tail, ["'s", "’s", "'"]) ), !.

role_turn_(Whos, Segment, Reader, K) :-
    member(Who, Whos), item_speaker(K, Who), !,
    item_kind(K, Kind), \+ memberchk(Kind, [tool_result, error, file_op]),
    item_in_segment_(Segment, K),
    readable_(Reader, K).

recency_boost_(Oldest, Newest, K-S, K-S1) :-
    (   item_stamp(K, T)
    ->  S1 is round(S * (1 + 0.4 * (T - Oldest) / (Newest - Oldest)) * 10000) / 10000
    ;   S1 = S
    ).

window_first_(Pieces, K-S, K-S1) :-
    (   dated_in_pieces_(K, Pieces)
    ->  S1 is round((0.5 + S / 2) * 10000) / 10000
    ;   S1 is round(S / 2 * 10000) / 10000
    ).

time_boost_(Pieces, K-S, K-S1) :-
    (   dated_in_pieces_(K, Pieces)     % written in the window, or naming a day in it
    ->  S1 is round(S * 1.4 * 10000) / 10000
    ;   S1 = S
    ).

% An item dated (item_dated_in/3) in one of the windows a goal's times name: "in January and
% March" weighs no item of February.
dated_in_pieces_(K, [From-To]) :- !,
    item_dated_in(K, From, To).
dated_in_pieces_(K, Pieces) :-
    member(From-To, Pieces),
    item_dated_in(K, From, To), !.

% gap_(+Pieces, -From, -To): a stretch between two windows of Pieces, on backtracking each.
gap_(Pieces, From, To) :-
    append(_, [_-From, To-_|_], Pieces).

% An echo (a restatement of older memory from another session) counts half.
discount_echoes_(Reader, Pairs, Out) :-
    maplist(echo_discount_(Reader), Pairs, Out0),
    sort_by_score_(Out0, Out).

% An echo counts half because its original holds the same content; for a reader who sees no
% original it is the only copy (and its halving would tell them an original exists).
echo_discount_(Reader, K-S, K-S1) :-
    (   echo_of(K, O, _), readable_(Reader, O) -> S1 is S * 0.5 ; S1 = S ).

take_(K, List, Front) :-
    split_at_(K, List, Front, _).

recency_seeds_(Reader, Segment, K, Seeds) :-
    findall(T-(Sess-Seq)-H,
            ( reader_scope_item_(Reader, Segment, H), readable_(Reader, H),
              item_time(H, T), item_session(H, Sess), item_seq(H, Seq) ),
            Keyed),
    sort(0, @>=, Keyed, Newest),
    take_(K, Newest, Top),
    length(Top, N),
    findall(c(H, Score, recency, 0, seed),
            ( nth1(I, Top, _-_-H), Score is round((1 - (I - 1) / max(1, N)) * 1000) / 1000 ),
            Seeds).

% The items of a segment a reader may see: of their kept set when there is one (not every
% item of the segment, each asked about), else of the segment or mount.
reader_scope_item_(Reader, Segment, H) :-
    (   Reader \== none, atom(Segment), reader_records(Reader, Records)
    ->  member(H, Records),
        item_segment(H, Segment)
    ;   scope_item_(Segment, H)
    ).

scope_item_(mount(_, _, Members), H) :- !,
    member(H, Members).
scope_item_(Segment, H) :-
    item_segment(H, Segment).

		 /*******************************
		 *             WALK             *
		 *******************************/

walk_(Settings, Segment, Seeds, Expanded) :-
    (   Settings.walk = rule(Name)
    ->  user_walk_(Settings.rules, Settings.reader, Name, Segment, Seeds, Expanded)
    ;   Settings.cells == true
    ->  cell_walk_(Settings, Segment, Seeds, Expanded)
    ;   Depth = Settings.depth,
        entity_walk_(Settings, Segment, Seeds, Depth, Expanded)
    ).

entity_walk_(Settings, Segment, Seeds, Depth, Expanded) :-
    walk_hops_(1, Depth, Settings, Segment, Seeds, Seeds, [], Expanded).

% The walk through cells (memory holds a partition): a seed's own story (its arc, the turns
% before and after it), then the map instead of the entity graph. Detail falls off with cell
% distance from the focus: the members of the seeds' cells (the focus) most similar to the
% goal come in as one-hop neighbours (L2 to start), the central members of the cells adjacent
% to the focus further out (L3), and those adjacent cells' own summaries stand for the members
% the budget cannot hold (L2, demoted first under pressure); with a walk depth of 2 the cells
% one link further contribute their summaries (L3). Everything it adds says
% `seeded_by: cell_adjacency`.
cell_walk_(Settings, Segment, Seeds, Expanded) :-
    findall(Id, member(c(Id, _, _, _, _), Seeds), SeedIds0),
    sort(SeedIds0, SeedIds),
    findall(c(N, S, entity_expansion, 1, Role),
            ( member(c(Id, S0, _, _, _), Seeds),
              story_neighbour_(Settings.reader, Id, N, W, Role),
              in_segment_(N, Segment),
              readable_(Settings.reader, N),
              \+ ord_memberchk(N, SeedIds),
              weighted_score_(S0, W, S) ),
            Story),
    cell_candidates_(Settings, Segment, Seeds, SeedIds, FromCells0),
    include(readable_candidate_(Settings.reader), FromCells0, FromCells),
    append(Story, FromCells, Found),
    best_per_id_(Found, Expanded).

readable_candidate_(Reader, c(Id, _, _, _, _)) :-
    readable_(Reader, Id).

% Cells as Cell-Score: the focus (the cells of the seeds, each at its best seed's score), then
% the rings around it (Ring-Cells pairs, 1 the cells adjacent to the focus, ...), each cell at
% the score of the cell it was reached from times the link's weight, the `cell_ring_width_/1`
% heaviest links of each cell followed.
cell_candidates_(Settings, Segment, Seeds, SeedIds, Found) :-
    findall(C-S, ( member(c(Id, S, _, _, _), Seeds), cell_of(Id, C), in_segment_(C, Segment) ),
            Focus0),
    best_by_key_(Focus0, Focus),
    (   Focus == []
    ->  Found = []
    ;   Depth is max(1, Settings.depth),
        pairs_keys(Focus, FocusCells),
        rings_(1, Depth, Segment, Focus, FocusCells, Rings),
        Settings.priors = priors(Speaker, _, _),
        semantic_goal_(Settings.goal, Speaker, SemGoal),
        focus_members_(SemGoal, Focus, SeedIds, Segment, Near),
        findall(Cand, ( member(Ring-Cells, Rings),
                        ring_candidate_(Ring, Segment, Cells, SeedIds, Cand) ),
                Far),
        append(Near, Far, Found)
    ).

cell_ring_width_(3).

% weighted_score_(+Score, +Weight, -S): Score times Weight to four places, for the findall/3
% goals of the walk, the rings and the bridge: in a clause of its own its arithmetic is
% compiled with this file's optimise flag, where in the goal it ran through the guarded is/2
% (~140 calls a frame at 100k items, each checked by rules/arith_guard.pl's wrapper).
weighted_score_(Score, Weight, S) :-
    S is round(Score * Weight * 10000) / 10000.

rings_(Ring, Depth, _, _, _, []) :-
    Ring > Depth, !.
rings_(Ring, Depth, Segment, Frontier, Seen0, [Ring-Cells|Rings]) :-
    cell_ring_width_(Width),
    findall(C2-S,
            ( member(C-S0, Frontier),
              cell_neighbours(C, Ns),
              take_(Width, Ns, Top),
              member(C2-W, Top),
              \+ memberchk(C2, Seen0),
              in_segment_(C2, Segment),
              weighted_score_(S0, W, S) ),
            Cells0),
    best_by_key_(Cells0, Cells),
    (   Cells == []
    ->  Rings = []
    ;   pairs_keys(Cells, New),
        append(Seen0, New, Seen),
        Next is Ring + 1,
        rings_(Next, Depth, Segment, Cells, Seen, Rings)
    ).

% The focus cells' members most similar to the goal, cell_focus_members_/1 per focus cell:
% the score of their cell's best seed times 0.7, scaled from half to all of it by how close
% they come to the best of them (cosine). The members compared come from the focus cells in
% order of their score, at most cell_focus_pool_/1 of them (the cost of a frame stays bounded
% however large its cells), and a cell whose members all lie in the segment is not checked
% member by member.
focus_members_(Goal, Focus, SeedIds, Segment, Near) :-
    sort(2, @>=, Focus, ByScore),
    cell_focus_pool_(Pool),
    focus_pool_(ByScore, Segment, SeedIds, Pool, Groups),
    length(Focus, NF),
    cell_focus_members_(PerCell),
    K is PerCell * NF,
    (   \+ ( member(g(_, _, Own), Groups), Own > 0 )
    ->  Pairs = []
    ;   findall(Ms-LO, member(g(Ms, LO, _), Groups), Within),
        catch(similarity_within_texts(Goal, Within, K, Pairs),
              error(existence_error(embeddings, _), _), Pairs = [])
    ),
    (   Pairs = [_-Best0|_] -> Best is max(Best0, 1.0e-6) ; Best = 1.0 ),
    findall(c(H, S, cell_adjacency, 1, near),
            ( member(H-Cos, Pairs), cell_of(H, C), memberchk(C-SC, Focus),
              near_member_score_(SC, Cos, Best, S) ),
            Near).

% A focus member's score (focus_members_/5), in a clause of its own so that its arithmetic is
% compiled with this file's optimise flag (in findall/3's goal it would run through the
% guarded is/2: ~170 a frame at 100k items).
near_member_score_(CellScore, Cos, Best, S) :-
    S is round(CellScore * 0.7 * (0.5 + 0.5 * max(0.0, Cos) / Best) * 10000) / 10000.

cell_focus_members_(6).
cell_focus_pool_(600).

% The pool: g(MembersText, LeftOutText, Own) per focus cell: its members and those not
% compared (the seeds, and members outside the segment) as newline-joined texts
% (similarity_within_texts/4), and how many are compared; cells taken while fewer than Left
% members were pooled.
focus_pool_([], _, _, _, []).
focus_pool_([C-_|Cs], Segment, SeedIds, Left, Groups) :-
    (   Left =< 0
    ->  Groups = []
    ;   focus_group_(C, Segment, MembersText, OutText, InSegment),
        findall(H, ( member(H, SeedIds), item(H), cell_of(H, C0), C0 == C,   % a member of C
                      counted_in_(H, Segment, OutText) ),
                Seeds),
        length(Seeds, NSeeds),
        Own is InSegment - NSeeds,
        (   Seeds == []
        ->  LeftOut = OutText
        ;   atomic_list_concat([OutText|Seeds], '\n', LeftOut)
        ),
        Left1 is Left - Own,
        Groups = [g(MembersText, LeftOut, Own)|Rest],
        focus_pool_(Cs, Segment, SeedIds, Left1, Rest)
    ).

% A seed of a focus cell that focus_group_/5 counted as compared (in the segment).
counted_in_(H, Segment, OutText) :-
    (   OutText == '' -> true ; in_segment_(H, Segment) ).

% focus_group_(+Cell, +Segment, -MembersText, -OutText, -InSegment): Cell's live members as one
% text (a line each), those outside Segment as another ('' when every member lies in it), and
% how many lie in it. Kept per cell and segment until the cells or the items change: a frame
% asks for the groups of the cells the frames before it asked for, and building them member by
% member cost 1.5-3 ms of a 100k-item frame.
focus_group_(C, Segment, MembersText, OutText, InSegment) :-
    focus_groups_generation_(G),
    kept_(focus, focus(C, Segment), G, focus_group_made_(C, Segment),
          t(MembersText, OutText, InSegment)).

focus_group_made_(C, Segment, t(MembersText, OutText, InSegment)) :-
    focus_group_made_(C, Segment, MembersText, OutText, InSegment).

focus_group_made_(C, Segment, MembersText, OutText, InSegment) :-
    findall(H, cell_member(C, H), Members),
    (   cell_info(C, segments, [Only]), Only == Segment
    ->  Out = []
    ;   exclude(in_segment_of_(Segment), Members, Out)
    ),
    atomic_list_concat(Members, '\n', MembersText),
    atomic_list_concat(Out, '\n', OutText),
    length(Members, NM),
    length(Out, NO),
    InSegment is NM - NO.

in_segment_of_(Segment, H) :- in_segment_(H, Segment).

% What focus groups depend on: the cells' membership and the items' liveness.
focus_groups_generation_(g(M, I, T)) :-
    modified_(atc_cells:member_(_, _), M),
    modified_(atc_journal:item_(_, _, _, _, _, _, _, _, _, _), I),
    modified_(atc_journal:tombstone_(_, _, _), T).

modified_(Head, G) :-
    (   predicate_property(Head, last_modified_generation(G0)) -> G = G0 ; G = 0 ).

% kept_(+Kind, +Key, +Generation, :Make, -Value): Value as call(Make, Value) made it for Key
% while Generation (what values of Kind depend on) stands still: made once, then kept between
% frames. Values of Kind of another generation are dropped as soon as one of this generation
% is made, and every value past kept_limit_/1 (a frame's keys recur: its goal's window, its
% focus cells). Keys holding a mount (a frame's own member list) are not kept.
kept_(_, Key, _, Make, Value) :-
    (   \+ ground(Key) ; sub_term(M, Key), compound(M), M = mount(_, _, _) ),
    !,
    call(Make, Value).
kept_(Kind, Key, G, Make, Value) :-
    (   kept_value_(Kind, Key, G, Value0)
    ->  Value = Value0
    ;   call(Make, Value),
        forall(( kept_value_(Kind, _, G0, _), G0 \== G ), retractall(kept_value_(Kind, _, G0, _))),
        (   predicate_property(kept_value_(_, _, _, _), number_of_clauses(N)),
            kept_limit_(Max), N >= Max
        ->  retractall(kept_value_(_, _, _, _))
        ;   true
        ),
        assertz(kept_value_(Kind, Key, G, Value))
    ).

% day_seen_(Id, Day): the day of record Id's time (fact_day_/2), or none; per thread, cleared
% by each frame (framing_/9).
:- thread_local day_seen_/2.
:- dynamic kept_value_/4.           % Kind, Key, Generation, Value (kept_/5)

kept_limit_(1024).

% Ring 1: the adjacent cell's summary (standing for its members) and its central members
% of the segment (a cell of two segments' items is adjacent in each, and a central member of
% the other segment came into this one's frame as its fact, and as the other's breadcrumb);
% further rings: the summary alone, at the periphery's rung.
ring_candidate_(1, _, Cells, _, c(C, S, cell_adjacency, 1, near)) :-
    member(C-S0, Cells),
    S is round(S0 * 0.6 * 10000) / 10000.
ring_candidate_(1, Segment, Cells, SeedIds, c(H, S, cell_adjacency, 2, far)) :-
    member(C-S0, Cells),
    cell_info(C, central, Central),
    take_(2, Central, Two),
    member(H, Two),
    item(H),
    in_segment_(H, Segment),
    \+ ord_memberchk(H, SeedIds),
    S is round(S0 * 0.5 * 10000) / 10000.
ring_candidate_(Ring, _, Cells, _, c(C, S, cell_adjacency, Ring, far)) :-
    Ring > 1,
    member(C-S0, Cells),
    S is round(S0 * 0.5 * 10000) / 10000.

% Key-Score pairs, the best score per key, sorted by key.
best_by_key_(Pairs0, Pairs) :-
    msort(Pairs0, Sorted),
    best_pairs_by_key_(Sorted, Pairs).

walk_hops_(Hop, Depth, _, _, _, _, Acc, Acc) :-
    Hop > Depth, !.
walk_hops_(Hop, Depth, Settings, Segment, Frontier, Seen0, Acc0, Acc) :-
    findall(c(N, S, entity_expansion, Hop, Role),
            ( member(c(Id, S0, _, _, _), Frontier),
              neighbour_(Settings, Id, N, Weight, Role0),
              in_segment_(N, Segment),
              readable_(Settings.reader, N),
              \+ memberchk(c(N, _, _, _, _), Seen0),
              role_at_hop_(Role0, Hop, Role),
              S is round(S0 * Weight * 10000) / 10000 ),
            Found0),
    best_per_id_(Found0, Found),
    append(Seen0, Found, Seen),
    append(Acc0, Found, Acc1),
    Next is Hop + 1,
    walk_hops_(Next, Depth, Settings, Segment, Found, Seen, Acc1, Acc).

role_at_hop_(arc, 1, arc) :- !.
role_at_hop_(_, 1, near) :- !.
role_at_hop_(_, _, far).

in_segment_(Id, mount(_, Cells, _)) :- !,
    once(( cell_of(Id, C), memberchk(C, Cells) )).
in_segment_(Id, Segment) :-
    (   item_segment(Id, S) -> S == Segment
    ;   cell(Id) -> cell_info(Id, segments, Segs), memberchk(Segment, Segs)
    ;   arc(Id) -> once(( arc_member(Id, M), item_segment(M, Segment) ))
    ;   true
    ).

% neighbour_(+Settings, +Id, -Neighbour, -Weight, -Role)
% The structure of a seed's own story (its arc, the turns before and after it), then the
% entity graph and the goal's trajectory.
neighbour_(Settings, Id, N, W, Role) :-
    story_neighbour_(Settings.reader, Id, N, W, Role).
neighbour_(Settings, Id, Other, 0.7, near) :-
    shared_entity_(Settings.reader, Id, Other).
neighbour_(Settings, Id, Other, W, near) :-
    item_goal(Id, G), G \== "",
    W is 0.4 + 0.5 * Settings.trajectory,
    \+ item_arc(Id, _),
    first_seen_(Settings.reader, 6, Other, ( item_goal(Other, G), Other \== Id )).

% story_neighbour_(+Reader, +Id, -Neighbour, -Weight, -Role)
% An arc with several members stands in for them; a small arc contributes its members. An
% arc with a member hidden from Reader is not theirs to read (its summary was written from
% that member): the members they see nearest Id stand in (arc_mates_near_/4), so the seed
% keeps its arc's story where it lost it whole. The
% turns before and after Id are the nearest of its session each side that Reader sees
% (seen_turn_/6): for a grantee the owner's next turn may be hidden, and filtering it out
% left them no turn after the seed, so their frame lacked the reply an owner of the turns
% they see would have had, and told by that lack that something sat there.
story_neighbour_(Reader, Id, Arc, 0.85, arc) :-
    item_arc(Id, Arc),
    arc_has_more_than_two_(Arc),
    readable_(Reader, Arc).
story_neighbour_(Reader, Id, Mate, 0.85, arc) :-
    item_arc(Id, Arc),
    (   \+ arc_has_more_than_two_(Arc)
    ->  arc_member(Arc, Mate), Mate \== Id
    ;   \+ readable_(Reader, Arc)
    ->  arc_mates_near_(Reader, Arc, Id, Mate)
    ).
story_neighbour_(_, Arc, Member, 0.8, arc) :-
    arc(Arc),
    arc_member(Arc, Member).
story_neighbour_(Reader, Id, Other, 0.6, near) :-
    item_session(Id, S), item_seq(Id, Q),
    ( Step = -1 ; Step = 1 ),
    story_reach_(Reader, Reach),
    seen_turn_(Reader, S, Q, Step, Reach, Other).

% seen_turn_(+Reader, +Session, +Seq, +Step, +Reach, -Other): Other is the first item of
% Session past Seq in Step's direction that Reader sees: looked up place by place for Reach
% places (a place may be empty: an erased item's), then, for a grantee, among the session's
% items beyond (seen_turn_beyond_/5).
seen_turn_(Reader, S, Q, Step, Reach, Other) :-
    Q1 is Q + Step,
    Q1 >= 0,
    (   Reach =:= 0
    ->  Reader \== none,
        seen_turn_beyond_(Reader, S, Q, Step, Other)
    ;   session_item(S, Q1, O), readable_(Reader, O)
    ->  Other = O
    ;   Reach1 is Reach - 1,
        seen_turn_(Reader, S, Q1, Step, Reach1, Other)
    ).

% seen_turn_beyond_(+Reader, +Session, +Seq, +Step, -Other): the nearest item of Session past
% Seq in Step's direction that Reader sees, from the session's items listed by their places.
% Stopping at story_reach_/2's places left a seed past a run of more than 100 hidden turns
% without its story, where one past 100 or fewer had it: whether the next turn came told the
% grantee how long the hidden run was.
% The session's last place and its places are kept between frames (session_places_/3), so a
% seed at the session's end pays a lookup of its last place, not a read of its items.
seen_turn_beyond_(Reader, S, Q, Step, Other) :-
    (   Step =:= 1
    ->  session_places_(last, S, Last),
        Q < Last,
        session_places_(pairs, S, Places),
        member(Q2-O, Places), Q2 > Q
    ;   session_places_(pairs, S, Places),
        reverse(Places, Backwards),
        member(Q2-O, Backwards), Q2 < Q
    ),
    readable_(Reader, O), !,
    Other = O.

% session_places_(+What, +Session, -Value): of Session's live items, the greatest place
% (What = last; -1 for none) or their Seq-Handle pairs in order (What = pairs), kept while
% the items stand still (each kept apart: the last place alone is a small copy to read).
session_places_(What, S, Value) :-
    modified_(atc_journal:item_(_, _, _, _, _, _, _, _, _, _), I),
    modified_(atc_journal:tombstone_(_, _, _), T),
    kept_(session_places(What), S, g(I, T), session_places_made_(What, S), Value).

session_places_made_(pairs, S, Pairs) :-
    findall(Q-O, session_item(S, Q, O), Pairs0),
    keysort(Pairs0, Pairs).
session_places_made_(last, S, Last) :-
    (   aggregate_all(max(Q), session_item(S, Q, _), Max) -> Last = Max ; Last = -1 ).

% How far the story looks place by place past turns its reader does not see: the owner sees
% every turn (the one next to the seed, or none there); a grantee looks past up to 100 hidden
% or empty places each side (each a lookup of the policy: a kept set's ~2 µs, else ~40 µs),
% then among the session's items beyond, so only a seed past a longer hidden run, or at the
% session's end, pays for reading the session's items.
story_reach_(none, 1) :- !.
story_reach_(_, 100).

% arc_mates_near_(+Reader, +Arc, +Id, -Mate): the members of Arc that Reader sees nearest Id,
% up to three each side (an arc can hold hundreds: a run of failures), looked up outward from
% Id so that a long arc costs what is near the seed.
arc_mates_near_(Reader, Arc, Id, Mate) :-
    findall(M, arc_member(Arc, M), Members),
    append(Before, [Id|After], Members), !,
    reverse(Before, Back),
    (   first_readable_(Reader, 3, After, Mates)
    ;   first_readable_(Reader, 3, Back, Mates)
    ),
    member(Mate, Mates).

% first_readable_(+Reader, +K, +Ids, -Readable): the first K of Ids that Reader may read.
first_readable_(_, 0, _, []) :- !.
first_readable_(_, _, [], []).
first_readable_(Reader, K, [Id|Ids], Readable) :-
    (   readable_(Reader, Id)
    ->  Readable = [Id|Rest], K1 is K - 1
    ;   Readable = Rest, K1 = K
    ),
    first_readable_(Reader, K1, Ids, Rest).

% Counted up to the third member: a seed's arc can hold hundreds (a run of test failures, a
% day's edits), and counting them all, twice per seed, cost ~1 ms of such a frame.
arc_has_more_than_two_(Arc) :-
    solutions_up_to_(3, arc_member(Arc, _), 3).

% solutions_up_to_(+Most, +Goal, -N): N is how many solutions Goal has, counted to Most at the
% most, as aggregate_all(count, limit(Most, Goal), N). Counted here with compiled arithmetic:
% the library's count adds each solution by a call of the guarded is/2 (~450 a frame at 100k
% items, rare_entity_/2's mostly).
solutions_up_to_(Most, Goal, N) :-
    Count = count(0),
    \+ \+ (   Most > 0,                 % \+ \+: no binding of Goal's stays; nb_setarg's count does
            call(Goal),
            arg(1, Count, N0),
            N1 is N0 + 1,
            nb_setarg(1, Count, N1),
            N1 >= Most
        ->  true
        ;   true
        ),
    arg(1, Count, N).

% Entities that pick out something specific, not the whole session or tool.
walk_predicate_(touches_file).
walk_predicate_(mentions).
walk_predicate_(names).

shared_entity_(Reader, Id, Other) :-
    walk_predicate_(P),
    relation(Id, P, E),
    first_seen_(Reader, 5, Other, ( relation(Other, P, E), Other \== Id )).

% first_seen_(+Reader, +Most, ?Other, :Candidate): Other is one of the first Most records
% Candidate gives that Reader may read. A grantee's are counted among those they see: taking
% the first Most and then leaving out the hidden ones let records hidden from them, written
% first, take every place (a seed touching a file 420 hidden records touch had no neighbour by
% it), which told them such records exist. Past walk_scan_/1 candidates read they are sought
% among the records Reader may see (listed_record_/2), so hidden ones never cost
% more than that; where those cannot be listed (a grant of the whole home or by a tag, an
% entity or a time alone, past reader_set_limit_/1 items) the candidates are read on, to
% reader_fetch_cap_/1 as the searches fetch: stopping at 400 left a seed of a whole-home
% grantee no neighbour where hidden records came first.
:- meta_predicate first_seen_(+, +, ?, 0).
first_seen_(none, Most, _, Candidate) :- !,
    limit(Most, Candidate).
first_seen_(Reader, Most, Other, Candidate) :-
    walk_scan_(Scan),
    Read = read(0),
    findall(Other, limit(Most, ( limit(Scan, Candidate),
                                 arg(1, Read, R0), R is R0 + 1, nb_setarg(1, Read, R),
                                 readable_(Reader, Other) )),
            Seen0),
    length(Seen0, N),
    (   N < Most, arg(1, Read, Scan)
    ->  (   records_listed_(Reader)
        ->  findall(Other, limit(Most, ( listed_record_(Reader, Other), Candidate )), Seen)
        ;   reader_fetch_cap_(Cap),
            findall(Other, limit(Most, ( limit(Cap, Candidate), readable_(Reader, Other) )),
                    Seen)
        )
    ;   Seen = Seen0
    ),
    member(Other, Seen).

walk_scan_(400).

% listed_record_(+Reader, -Record): the records Reader may see, listed: their kept set, else
% the records of the segments their grants name that they see; none where neither can be
% listed (records_listed_/1 fails: a grant of the whole home or by a tag, an entity or a time
% alone, past reader_set_limit_/1 items).
records_listed_(Reader) :-
    (   reader_records(Reader, _) -> true ; grant_segments(Reader, Segments), Segments \== any ).

listed_record_(Reader, X) :-
    (   reader_records(Reader, Records)
    ->  member(X, Records)
    ;   grant_segments(Reader, Segments), Segments \== any
    ->  scope_record(Reader, X),
        readable_(Reader, X)
    ).

		 /*******************************
		 *     BRIDGE: THE SECOND HOP   *
		 *******************************/

% bridge_(+Settings, +Segment, +Seeds, +Walked, -Expanded)
% Multi-hop: once a seed holds one piece of what the goal needs, the other pieces often lie in
% other sessions that name the same specific thing without the goal's words ("the job at
% Halvorsen & Kim" in one session, "Halvorsen & Kim moved her to Lisbon" in another). A
% seed's rare named things (its L2 entities that at most bridge_df_/1 items of memory
% hold: a name, a place, an amount, a date, not the speaker everyone's turns name) bring in
% the items of *other* sessions that name them too, at the seed's score times
% bridge_weight_/1. Such a candidate is seeded by bridge(Seed, Entity): in the frame it is an
% entity expansion (`seeded_by: entity_expansion`) and the segment's `bridged` list says which
% seed and which named thing brought it. Walked keeps what the walk found, in its order (a
% record the walk reached keeps its place, with the bridge's score where that is higher), so
% the bridge only adds and raises. Off with the option `bridge: false`; a user walk rule
% replaces it.
bridge_(Settings, _, _, Walked, Walked) :-
    (   Settings.bridge == false ; Settings.walk = rule(_) ), !.
bridge_(Settings, Segment, Seeds, Walked, Expanded) :-
    findall(Id, member(c(Id, _, _, _, _), Seeds), SeedIds0),
    sort(SeedIds0, SeedIds),
    bridge_weight_(W),
    rare_entities_(Settings.reader, Seeds, Rare),
    findall(c(Other, S, bridge(Id, E), 1, near),
            ( member(c(Id, S0, _, _, _), Seeds),
              record_sessions_(Id, Sessions),
              distilled(Id, entity, E),
              ord_memberchk(E, Rare),
              distilled(Other, entity, E),
              item(Other),
              \+ ord_memberchk(Other, SeedIds),
              item_session(Other, OtherSession),
              \+ memberchk(OtherSession, Sessions),
              in_segment_(Other, Segment),
              readable_(Settings.reader, Other),
              weighted_score_(S0, W, S) ),
            Bridged0),
    best_per_id_(Bridged0, Bridged),
    maplist(bridged_if_better_(Bridged), Walked, Walked1),
    findall(Id, member(c(Id, _, _, _, _), Walked), WalkedIds),
    exclude(candidate_in_(WalkedIds), Bridged, New),
    append(Walked1, New, Expanded).

% A walked candidate the bridge reaches with a higher score takes the bridge's, in place.
bridged_if_better_(Bridged, c(Id, S, By, Hops, Role), C) :-
    (   memberchk(c(Id, SB, ByB, HopsB, RoleB), Bridged), SB > S
    ->  C = c(Id, SB, ByB, HopsB, RoleB)
    ;   C = c(Id, S, By, Hops, Role)
    ).

bridge_df_(8).
bridge_weight_(0.7).

% rare_entities_(+Reader, +Seeds, -Rare): the named things of the seeds that two to
% bridge_df_/1 items the Reader sees hold (arcs and rollups, which repeat their members'
% entities, not counted), an ordered set. Each is counted once per frame: seeds about one
% failing test name the same test file and error, and counting an entity's holders (up to
% bridge_df_/1 + 1, each read from its record) per seed that names it cost ~1.5 ms of such a
% frame. For a grantee only the holders they see count: records hidden from them made an
% entity common (no bridge, and a hint that hidden records name it). Their count stops at
% bridge_df_/1 + 1 visible holders; past bridge_scan_/1 holders read, it goes on among the
% records they may see alone (reader_holders_/4), so hidden holders never make it common.
% A person who speaks in memory (journal_speakers/1, or the first word of such a name) is no
% such thing, however few turns write their name: "thanks, Priya" in three sessions linked
% every seed that named her to them, and who a goal asks about the speaker prior weighs.
rare_entities_(Reader, Seeds, Rare) :-
    findall(E, ( member(c(Id, _, _, _, _), Seeds), distilled(Id, entity, E) ), Es0),
    sort(Es0, Es1),
    journal_speakers(Speakers),
    exclude(participant_name_(Reader, Speakers), Es1, Es),
    include(rare_entity_(Reader), Es, Rare).

% participant_name_(+Reader, +Speakers, +E): E is the name of a speaker Reader sees speak
% (speaks_to_/2: a name only hidden records speak under still bridges, as for a name memory
% does not know), or its first word.
participant_name_(Reader, Speakers, E) :-
    text_string_(E, Entity),
    member(Name, Speakers),
    atom_string(Name, Text),
    (   Text == Entity -> true ; split_string(Text, " ", " ", [Entity, _|_]) ),
    speaks_to_(Reader, Name), !.

rare_entity_(none, E) :- !,
    bridge_df_(Max),
    Over is Max + 1,
    solutions_up_to_(Over, ( distilled(X, entity, E), item(X) ), N),
    N >= 2, N =< Max.
rare_entity_(Reader, E) :-
    bridge_df_(Max),
    bridge_scan_(Scan),
    Count = held(0, 0),                 % holders read, holders the reader sees
    (   distilled(X, entity, E), item(X),
        arg(1, Count, H0), H is H0 + 1, nb_setarg(1, Count, H),
        (   H > Scan
        ->  true                        % held by too many: common
        ;   readable_(Reader, X)
        ->  arg(2, Count, N0), N1 is N0 + 1, nb_setarg(2, Count, N1),
            N1 > Max                    % seen by too many: common, and no need to read on
        )
    ->  true
    ;   true
    ),
    Count = held(Held, N0),
    (   Held =< Scan
    ->  N = N0
    ;   reader_holders_(Reader, E, Max, N)
    ),
    N >= 2, N =< Max.

% reader_holders_(+Reader, +E, +Max, -N): how many items Reader sees hold E, counted to Max + 1,
% read from the records they may see (their kept set, else the records of the segments their
% grants name), once the holders read passed bridge_scan_/1. Stopping there called E common
% for them whoever held it: two holders they see beside 400 hidden ones made no bridge, which
% told them hidden records name E. Where neither can be listed (a grant of the whole home,
% or by a tag, an entity or a time alone, past reader_set_limit_/1 items) the holders are read
% on, to reader_fetch_cap_/1 as the searches fetch (E was common for them past 400, however
% few they saw).
reader_holders_(Reader, E, Max, N) :-
    Over is Max + 1,
    (   records_listed_(Reader)
    ->  solutions_up_to_(Over, ( listed_record_(Reader, X), item(X), distilled(X, entity, E) ), N)
    ;   reader_fetch_cap_(Cap),
        solutions_up_to_(Over, ( limit(Cap, ( distilled(X, entity, E), item(X) )),
                                 readable_(Reader, X) ), N)
    ).

bridge_scan_(400).

% The sessions a record belongs to: an item's own, an arc's members'.
record_sessions_(Id, [S]) :-
    item_session(Id, S), !.
record_sessions_(Id, Sessions) :-
    findall(S, ( arc_member(Id, M), item_session(M, S) ), Sessions0),
    sort(Sessions0, Sessions).

% best_per_id_(+Cands, -Best): one candidate per record, the best scored (the first given of
% those tied), in the order of the records. One sort by record and then score (keysort/2 is
% stable), the first of each record's run taken: a sort per record cost ~0.5 ms of a frame.
best_per_id_(Cands, Best) :-
    maplist(record_keyed_, Cands, Keyed),
    keysort(Keyed, Sorted),
    first_per_id_(Sorted, Best).

record_keyed_(C, k(Id, NS)-C) :-
    C = c(Id, S, _, _, _),
    NS is -S.

first_per_id_([], []).
first_per_id_([k(Id, _)-C|T], [C|Best]) :-
    skip_id_(T, Id, Rest),
    first_per_id_(Rest, Best).

skip_id_([k(Id0, _)-_|T], Id, Rest) :-
    Id0 == Id, !,
    skip_id_(T, Id, Rest).
skip_id_(Rest, _, Rest).

% A walk rule is a Name/2 the rules module defines itself, checked here where it is called:
% the plane that names it is user code, run again for the frame after atc_memory:hydrate/3
% confined it, and need not answer the same (a plane given as a list of Key=Value pairs was
% not read there at all), so `plane(p, [walk=rule(shell)])` reached system:shell/2.
user_walk_(Module, Reader, Name, Segment, Seeds, Expanded) :-
    (   Module \== none,
        atom(Name),
        functor(Head, Name, 2),
        current_predicate(Module:Name/2),
        \+ predicate_property(Module:Head, imported_from(_))
    ->  true
    ;   existence_error(walk_rule, Name)
    ),
    findall(Id-S, member(c(Id, S, _, _, _), Seeds), SeedPairs),
    atom_concat('rule:', Name, By),
    catch(findall(c(N, S, By, 1, near),
                  ( call(Module:Name, SeedPairs, Out),
                    walk_yield_(Out, N, S0),
                    item(N), in_segment_(N, Segment), readable_(Reader, N),
                    S is min(1.0, max(0.0, S0)) ),
                  Found0),
          E,
          throw(error(walk_rule_failed(Name, E), _))),
    best_per_id_(Found0, Expanded).

% walk_yield_(+Out, -Handle, -Score): what a walk rule yielded, Handle-Score (a handle given
% as a string read as the atom it names). A rule that yields a bare handle, or a pair whose
% score is no number, was called with Handle-Score to unify and added nothing, silently.
walk_yield_(Out, N, S) :-
    (   nonvar(Out), Out = N0-S, atom_or_string_(N0), number(S)
    ->  atom_string(N, N0)
    ;   type_error('Handle-Score (a handle and a number)', Out)
    ).

atom_or_string_(X) :- ( atom(X) ; string(X) ), !.

% Seeds first, then what the walk found and the reserve of further hits, best first: a walk
% neighbour carries its seed's score times the strength of the link, so a strongly relevant
% reserve hit outranks a weakly linked neighbour and the reverse. A record reached both ways
% keeps the higher score, and says how it got it. The map of the cells around the focus
% (map_candidate_/1) comes after all of them, best first.
merge_candidates_(Seeds, Expanded, Reserve, Candidates) :-
    findall(Id, member(c(Id, _, _, _, _), Seeds), SeedIds),
    findall(Id, member(c(Id, _, _, _, _), Reserve), ReserveIds0),
    sort(ReserveIds0, ReserveIds),
    walk_discount_(Factor),
    maplist(discount_walk_(Factor, ReserveIds), Expanded, Discounted),
    append(Discounted, Reserve, Found),
    exclude(candidate_in_(SeedIds), Found, Rest1),
    best_per_id_(Rest1, Rest0),
    partition(map_candidate_, Rest0, Map0, Found0),
    by_score_(Found0, Rest),
    by_score_(Map0, Map),
    append([Seeds, Rest, Map], Candidates).

% A walk neighbour the goal's own search did not find (not among its reserve hits) is scored
% walk_discount_/1 times what its link gave it. On short turns nearly every seed's exchange is an
% arc of more than two pieces, which stands in for them at 0.85 of the seed's score
% (story_neighbour_/4): above most of the goal's weaker hits, whose fused scores lie in a narrow
% band, so the seeds' arcs filled the candidates the selection offers and the second piece of a
% two-session question fell past them (dev split cut into short turns: 13 % of a 500-token
% frame's fact tokens went to seeds' arcs, none of them evidence). A neighbour the goal also
% matches keeps its score (a reserve hit that is reached both ways keeps the higher, below);
% the bridge (seeded by bridge/2, not entity_expansion) has its own weight, bridge_weight_/1.
walk_discount_(0.7).

discount_walk_(Factor, ReserveIds, c(Id, S, entity_expansion, H, Role),
               c(Id, S1, entity_expansion, H, Role)) :-
    \+ ord_memberchk(Id, ReserveIds),
    !,
    S1 is S * Factor.
discount_walk_(_, _, Candidate, Candidate).

% map_candidate_(+Candidate): a candidate that stands for a cell around the focus rather than for
% the goal: an adjacent cell's summary or one of its central members (ring_candidate_/5), scored
% by the link alone. It points at a region the frame does not reach; offered before the goal's
% own candidates, it took their room in a memory small enough for a frame to hold much of it: in
% the 2000-token frames of the held-out chats (141-183 turns) these took ~230 tokens a frame,
% ahead of relevance hits that held evidence, and none of the 250 central members shown there
% was evidence ("Rosa: Perfect.", "Rosa: Yes please.": the short turns nearest a cell's centre).
% So the map fills what the goal's candidates leave, as breadcrumbs fill what the facts leave.
map_candidate_(c(Id, _, cell_adjacency, Hops, Role)) :-
    (   Role == far -> true ; Hops =:= 1, cell(Id) ).

candidate_in_(Ids, c(Id, _, _, _, _)) :-
    memberchk(Id, Ids).

		 /*******************************
		 *     SELECTION, NOT TWICE     *
		 *******************************/

% select_facts_(+Candidates, +Settings, +Budget, -Placed, -Past, -Suppressed): the candidates
% that go to the fit, best first, each placed at its fovea rung (fovea_/3). At least one per
% ~50 tokens of Budget is offered (a frame of long turns keeps its best facts in detail rather
% than many as skeletons), and more while what they hold at their starting rungs is under
% overfill_/1 times the Budget (material for the fit, which demotes and drops what is worth
% least per token), up to the plane's fact_cap (cap_room_/3, fact_charge_/4): the number of
% facts follows from their sizes, so a frame of short turns holds more of them than one of long
% turns, and either spends its budget when memory has enough. The fit and the promotion weigh
% every fact against every other, so their cost grows with the square of the facts offered: the
% overfill stays small. A candidate whose content a fact already taken holds
% (redundancy_/4: a near-duplicate, or an echo of it) is not taken, since it would cost its
% tokens for what the frame already says; Suppressed lists it as redundant(Id, Like, Sim).
% Past is what lay beyond the selection (breadcrumbs).
select_facts_(Candidates, Settings, Budget, Placed, Past, Suppressed) :-
    select_facts_(Candidates, Settings, Budget, Placed, Past, Suppressed, _).

% select_facts_/7: Sigs are the sigs of the facts placed (text_sig_/2), their word sets and
% numbers as far as the comparisons made them, for refill_/9 to compare its candidates with.
select_facts_(Candidates, Settings, Budget, Placed, Past, Suppressed, Sigs) :-
    overfill_(Over),
    Want is Budget * Over,
    Floor is min(Settings.fact_cap, max(4, Budget // 50)),
    cap_room_(Settings, Budget, Room),
    select_facts_(Candidates, s(Settings, Budget, known{}), Room, Floor, Want, [], Placed,
                  Past, Suppressed, Sigs).

% cap_room_(+Settings, +Budget, -Room): the plane's fact_cap as a share of the budget. A plane
% states how many facts of a full share its segment holds at the reference budget
% (fact_cap_budget_/1) and at any larger one: a share is the larger of Budget and the reference
% over fact_cap, and a fact is charged its starting tokens, at most a share and at least a
% quarter of the reference's share (fact_charge_/4). So the execution plane keeps 24 facts of
% normal length at 2000 tokens, as before, but more when they are short or the budget is larger
% (a fixed count left a 6000-token frame of short tool results at a tenth of its budget), and
% the facts a segment can offer stay bounded for time: at most 4 * fact_cap, times the budget
% over the reference above it, up to work_budget_/2's bound.
cap_room_(Settings, Budget, Room) :-
    fact_cap_budget_(Ref),
    work_budget_(Budget, Work),
    (   Settings.fact_cap > 0 -> Room is max(Work, Ref) ; Room = 0 ).

fact_charge_(Settings, Budget, Tokens, Charge) :-
    fact_cap_budget_(Ref),
    Cap = Settings.fact_cap,
    work_budget_(Budget, Work),
    Share is max(Work, Ref) / Cap,
    Least is Ref / (4 * Cap),
    Charge is min(Share, max(Least, Tokens)).

%   The budget at which a plane's fact_cap counts facts of any length: the default budget.
fact_cap_budget_(2000).

% work_budget_(+Budget, -Work): the budget a segment's search depth and fact room follow, at
% most 50,000 tokens. Both grow with the budget, and choosing among the facts weighs each
% against every other: a 100,000-token frame on a 100k-item home took 5 s and one of 400,000
% ran past the 30-second limit (an error, no frame). A larger budget holds what 50,000 does.
work_budget_(Budget, Work) :- Work is min(Budget, 50000).

% The sigs a refill round's selection already holds (Known, a dict by handle: those of the
% facts kept and of those the fit let go) are taken, not made again: a sig's word set costs
% ~25 us, and a round compares its candidates with every fact kept (~16 % of a frame's word
% sets were made a second time).
select_facts_([], _, _, _, _, Taken, [], [], [], Taken).
select_facts_([C|Cs], SB, N, Floor, Want, Taken, Placed, Past, Suppressed, Sigs) :-
    SB = s(Settings, Budget, Known),
    (   ( N =< 0 ; Want =< 0, Floor =< 0 )
    ->  Placed = [], Suppressed = [], Past = [C|Cs], Sigs = Taken
    ;   fovea_(Settings, C, P),
        (   P == none
        ->  select_facts_(Cs, SB, N, Floor, Want, Taken, Placed, Past, Suppressed, Sigs)
        ;   known_sig_(Known, P, Sig),
            (   get_dict(goal_terms, Settings, Terms) -> true ; Terms = [] ),
            redundancy_(Sig, Taken, Terms, Verdict),
            (   Verdict = like(Like, Sim)
            ->  C = c(Id, _, _, _, _),
                Suppressed = [redundant(Id, Like, Sim)|Suppressed1],
                select_facts_(Cs, SB, N, Floor, Want, Taken, Placed, Past, Suppressed1, Sigs)
            ;   P = p(_, _, Tokens, _),
                Placed = [P|Placed1],
                fact_charge_(Settings, Budget, Tokens, Charge),
                N1 is N - Charge,
                Floor1 is Floor - 1,
                Want1 is Want - Tokens,
                select_facts_(Cs, SB, N1, Floor1, Want1, [Sig|Taken], Placed1, Past,
                              Suppressed, Sigs)
            )
        )
    ).

% refill_(+Settings, +Budget, +Suppressed0, +Kept0, +Outside0, +Sigs, -Kept, -Outside,
% -Suppressed) (Sigs: the selection's, select_facts_/7):
% the selection offers candidates until their starting rungs hold the budget, but a long record
% (a tool output, a log) counts there at its verbatim length and the fit then shows it at a
% rung a fraction as long: the frame ended with most of its budget unspent (two thirds of it
% on the real Claude Code sessions) while candidates lay past it. When the facts placed, their
% promotion and their excerpts leave refill_min_/2 or more of Budget, the candidates left out
% (those the fit and the promotion let go, and those past the selection) are offered again,
% best first, for what is left: selected as before (not twice what a kept fact says), fitted
% and promoted within it, and placed after the facts already kept, which keep their rungs and
% excerpts. At most refill_rounds_/1 rounds. Suppressed0 is the segment's near-duplicates so
% far; when it is empty and the round adds the first, the line counting them is paid from the
% round's room (refill_left_out_/8).
% Budget holds the line counting what the segment left out when Supp0 is not empty (the fit
% was given what the line leaves); when the refill is the first to leave something out, every
% round from then on charges that line to what the facts use (line_unpaid_/4): charged only
% in the round that first left something out, the next round spent its 16 tokens again, and
% 500-token frames of short turns came out at 501-512 by their own receipt.
refill_(Settings, Budget, Supp0, Kept0, Outside0, Sigs, Kept, Outside, Supp) :-
    refill_rounds_(Rounds),
    (   Supp0 == [] -> Paid = false ; Paid = true ),
    refill_(Rounds, Paid, Settings, Budget, Supp0, Kept0, Outside0, Sigs, Kept, Outside,
            Supp).

refill_(Rounds, Paid, Settings, Budget, Supp00, Kept00, Outside0, Sigs, Kept, Outside,
        Supp) :-
    covered_left_out_(Settings, Supp00, Kept00, Kept0, Covered, _),
    append(Supp00, Covered, Supp0),
    used_tokens_(Kept0, Used0),
    line_unpaid_(Settings, Paid, Supp0, Line),
    Used is Used0 + Line,
    cap_room_(Settings, Budget, Room0),
    foldl(charge_kept_(Settings, Budget), Kept0, Room0, Room),
    Free0 is Budget - Used,
    refill_min_(Budget, Min),
    (   Rounds > 0, Room > 0, Free0 >= Min, Outside0 \== [],
        by_score_(Outside0, Pool),
        sigs_by_handle_(Sigs, Known),
        maplist(known_sig_(Known), Kept0, Taken),
        select_facts_(Pool, s(Settings, Budget, Known), Room, 0, Free0, Taken, New00, Past,
                      Supp1, Sigs1),
        exact_rungs_(Settings, New00, New0),
        fit_(New0, Free0, New1, Dropped0),
        append(Kept0, New1, Kept1),
        distinct_shown_(Kept1, Kept2, Same),        % only a new fact can repeat a kept one
        append(Kept0, New2, Kept2),
        append([Supp0, Supp1, Same], Supp2),
        refill_left_out_(Settings, Supp0, Supp2, New2, Free0, New3, Free, Dropped1),
        New3 \== []
    ->  promote_(New3, Free, New4, GaveWay),
        exact_excerpts_(Settings, New4, New),
        append(Kept0, New, Kept3),
        append([Dropped0, Dropped1, GaveWay, Past], Outside1),
        Rounds1 is Rounds - 1,
        refill_(Rounds1, Paid, Settings, Budget, Supp2, Kept3, Outside1, Sigs1, Kept, Outside,
                Supp)
    ;   Kept = Kept0, Outside = Outside0, Supp = Supp0
    ).

% line_unpaid_(+Settings, +Paid, +Supp, -Tokens): the line counting what the segment left out,
% when it left something out (Supp) and its budget does not hold that line already (Paid).
line_unpaid_(Settings, Paid, Supp, Tokens) :-
    (   Paid == false, Supp \== [] -> left_out_cost_(Settings, Supp, Tokens) ; Tokens = 0 ).

% covered_left_out_(+Settings, +Supp0, +Kept0, -Kept, -Covered, -Line): Kept0 without its
% covered summaries (covered_summaries_/3); Line is the tokens of the line counting what the
% segment left out when these are its first (Supp0 empty), and they are left out only when
% their tokens pay for that line: the frame stays within its budget.
covered_left_out_(Settings, Supp0, Kept0, Kept, Covered, Line) :-
    covered_summaries_(Kept0, Kept1, Covered1),
    (   Covered1 == []
    ->  Kept = Kept0, Covered = [], Line = 0
    ;   Supp0 \== []
    ->  Kept = Kept1, Covered = Covered1, Line = 0
    ;   left_out_cost_(Settings, [x], Line0),
        used_tokens_(Kept0, Used0),
        used_tokens_(Kept1, Used1),
        Used0 - Used1 >= Line0
    ->  Kept = Kept1, Covered = Covered1, Line = Line0
    ;   Kept = Kept0, Covered = [], Line = 0
    ).

% covered_summaries_(+Kept0, -Kept, -Covered): a summary (an arc's or a cell's rung) whose every
% member the frame shows whole and verbatim says nothing the frame does not: it is left out as
% covered(Id, Like, 1.0), Like the first of its members the frame shows, and its tokens go to
% the next candidates. Summaries are placed before their members (an arc comes in at its seed's
% score), so whether the members came too is known only once the frame is placed. In a frame
% holding much of a chat of short turns, the arc of three or four turns ("That's a win.: Great
% name.") stood beside those very turns at L0, ~30 tokens with its line for nothing new (46 of
% the 56 arcs of the held-out conversations' 2000-token frames).
covered_summaries_(Kept0, Kept, Covered) :-
    findall(Id, ( member(p(c(Id, _, _, _, _), l0, _, _), Kept0), item(Id) ), Shown0),
    sort(Shown0, Shown),
    length(Shown, NShown),
    covered_summaries_(Kept0, Shown, NShown, Kept0, Kept, Covered).

covered_summaries_([], _, _, _, [], []).
covered_summaries_([P|Ps], Shown, NShown, All, Kept, Covered) :-
    P = p(c(Id, _, _, _, _), _, _, _),
    (   summary_members_(Id, NShown, Members),
        ord_subset(Members, Shown)
    ->  once(( member(p(c(Like, _, _, _, _), l0, _, _), All), ord_memberchk(Like, Members) )),
        Covered = [covered(Id, Like, 1.0)|Covered1],
        covered_summaries_(Ps, Shown, NShown, All, Kept, Covered1)
    ;   Kept = [P|Kept1],
        covered_summaries_(Ps, Shown, NShown, All, Kept1, Covered)
    ).

% summary_members_(+Id, +Most, -Members): the members of arc or cell Id (sorted, at least one),
% when it has at most Most of them: a summary with more members than the frame shows items is
% not looked into (a cell of a large memory holds thousands).
summary_members_(Id, Most, Members) :-
    (   arc(Id) -> Member_1 = arc_member(Id)
    ;   cell(Id) -> Member_1 = cell_member(Id)
    ),
    Over is Most + 1,
    findall(M, limit(Over, call(Member_1, M)), Members0),
    sort(Members0, Members),
    Members = [_|_],
    length(Members0, N),
    N =< Most.

% What the facts kept so far take of the cap's room, at the rungs they are shown at.
charge_kept_(Settings, Budget, p(_, _, Tokens, _), R0, R) :-
    fact_charge_(Settings, Budget, Tokens, Charge),
    R is R0 - Charge.

% refill_left_out_(+Settings, +Supp0, +Supp, +New0, +Free0, -New, -Free, -Dropped): when the
% round left out the segment's first near-duplicate, the line counting them is paid now: its
% new facts are fitted again within what is left after it. Held back before every round, that
% line's 16 tokens kept a small frame from its last short fact.
refill_left_out_(Settings, [], [_|_], New0, Free0, New, Free, Dropped) :- !,
    left_out_cost_(Settings, [x], Line),
    Free is max(0, Free0 - Line),
    fit_(New0, Free, New, Dropped).
refill_left_out_(_, _, _, New, Free, New, Free, []).

% Candidates best first (a stable sort: equal scores keep their order).
by_score_(Cands, Sorted) :-
    maplist(candidate_keyed_, Cands, Keyed),
    keysort(Keyed, SortedPairs),
    pairs_values(SortedPairs, Sorted).

% A refill is worth a round when a fortieth of the budget (and at least a short fact) is left:
% less than that goes to the breadcrumbs.
refill_min_(Budget, Min) :-
    Min is max(16, Budget // 40).
refill_rounds_(3).

% Past the floor, candidates are taken until their starting rungs hold the budget: enough
% that a frame of short turns fills, few enough that the fit and the promotion stay
% cheap (offering three times the budget doubled the CPU of a 2000-token frame).
overfill_(1.0).

% sig(Id, Size, Level, Words, Numbers): a record's content for comparing with others: Size the tokens
% of its most detailed rung (Level), Words its set of lowercase words there and of its
% speaker's name ("Priya" and "Tomás" saying the same words say two things), left unbound
% until a comparison needs them (most candidates have no partner of a similar size), then
% words(Count, Least, Prefix, Set, Bits): Set the ordered word set, Count its size, Least the
% fewest words a smaller set may have to come near it, Prefix its first words and Bits its
% signature (jaccard_/4's filters); Numbers the numbers it states
% (sig_numbers_/1), unbound until a near-duplicate's are compared with it.
text_sig_(p(c(Id, _, _, _, _), _, _, [Level-Size|_]), sig(Id, Size, Level, _, _)).

% known_sig_(+Known, +Placed, -Sig): Placed's sig, the one in Known (a dict of sigs by
% handle) when it is there for the same rung, so that what comparisons made of it is kept
% (its size may be the rung's price before exact_rungs_/3 counted it whole, a token or two
% more: a loose bound either way).
known_sig_(Known, P, Sig) :-
    text_sig_(P, Sig0),
    Sig0 = sig(Id, _, Level, _, _),
    (   get_dict(Id, Known, Sig1),
        Sig1 = sig(Id, _, Level, _, _)
    ->  Sig = Sig1
    ;   Sig = Sig0
    ).

% sigs_by_handle_(+Sigs, -Known): Sigs in a dict by handle (the first of a handle's; handles
% are atoms). The pairs are made by maplist/3, not findall/3: a copy would part each sig from
% the one the selection binds. A dict, not an AVL tree: ord_list_to_assoc/2 does its
% arithmetic through the guarded is/2 (~45 calls a frame), dict_pairs/3 is C.
sigs_by_handle_(Sigs, Known) :-
    maplist(sig_keyed_, Sigs, Pairs0),
    sort(1, @<, Pairs0, Pairs),
    dict_pairs(Known, known, Pairs).

sig_keyed_(Sig, Id-Sig) :-
    arg(1, Sig, Id).

sig_words_(sig(Id, _, Level, Words, _)) :-
    (   nonvar(Words) -> true
    ;   rung(Id, Level, Text0)
    ->  (   speaker_label_(Id, Label)       % who said it is part of what it says
        ->  string_concat(Label, Text0, Text)
        ;   Text = Text0
        ),
        text_words_(Text, Set),
        word_set_(Set, Words)
    ;   word_set_([], Words)
    ).

% The prefix holds the words of which a set with a Jaccard index of near_duplicate_/1 or more
% with another must share at least one with the other's prefix (prefix filtering: the first
% common word of two sets sharing at least ceil(Min * Count) words lies within Count -
% ceil(Min * Count) + 1 words of the start of each; one more word is kept against rounding).
% Bits is the set's signature (word_bits_/2). Least is ceiling(Min * Count): a set of N =< Count
% words has min(N, Count) < Min * max(N, Count), an index under Min whatever they share,
% exactly when N < Least (N an integer), an integer comparison a pair's check makes instead of
% the float product.
word_set_(Set, words(Count, Least, Prefix, Set, Bits)) :-
    length(Set, Count),
    near_duplicate_(Min),
    Least is ceiling(Min * Count),
    Keep is min(Count, Count - Least + 2),
    length(Prefix, Keep),
    append(Prefix, _, Set),
    word_bits_(Set, Bits).

% word_bits_(+Words, -Bits): a 224-bit signature of a word set, b(B0, B1, B2, B3) of 56 bits
% each (small integers): each word sets the one bit its term_hash/2 picks. A bit set in one
% set's signature and not in the other's stands for at least one word of that set the other
% lacks, so the popcount of the two signatures' xor (bits_apart_/3) never exceeds the number
% of words in one set only: a pair whose count passes what near_duplicate_/1 allows is told
% apart by a few integer operations instead of a walk of both sets (jaccard_/4). Frames of
% many short tool outputs, nearly each other's words, compare ~1,600 pairs; a walk of two
% 30-word sets that differ costs ~4 us, this test ~0.3 us, a signature ~7 us once per record.
word_bits_(Words, b(B0, B1, B2, B3)) :-
    word_bits_(Words, 0, 0, 0, 0, B0, B1, B2, B3).

word_bits_([], B0, B1, B2, B3, B0, B1, B2, B3).
word_bits_([W|Ws], A0, A1, A2, A3, B0, B1, B2, B3) :-
    term_hash(W, H),
    At is H mod 224,
    Bit is 1 << (At mod 56),
    Part is At // 56,
    (   Part =:= 0 -> C0 is A0 \/ Bit, word_bits_(Ws, C0, A1, A2, A3, B0, B1, B2, B3)
    ;   Part =:= 1 -> C1 is A1 \/ Bit, word_bits_(Ws, A0, C1, A2, A3, B0, B1, B2, B3)
    ;   Part =:= 2 -> C2 is A2 \/ Bit, word_bits_(Ws, A0, A1, C2, A3, B0, B1, B2, B3)
    ;   C3 is A3 \/ Bit, word_bits_(Ws, A0, A1, A2, C3, B0, B1, B2, B3)
    ).

% bits_apart_(+BitsA, +BitsB, -Least): at least Least words lie in only one of the two sets.
bits_apart_(b(A0, A1, A2, A3), b(B0, B1, B2, B3), Least) :-
    Least is popcount(A0 xor B0) + popcount(A1 xor B1) + popcount(A2 xor B2)
           + popcount(A3 xor B3).

text_words_(Text, Words) :-
    string_lower(Text, Lower),
    split_string(Lower, " \t\n\r.,;:!?()[]{}\"'`", " \t\n\r.,;:!?()[]{}\"'`", Parts),
    sort(Parts, Words0),
    ord_del_element(Words0, "", Words).

% redundancy_(+Sig, +Taken, +GoalTerms, -Verdict): like(Handle, Similarity) when a record
% already taken holds this one's content: it is an echo of this one or this one of it
% (curation's paraphrase echoes, ladder echo_of/3), or their word sets overlap by at least
% near_duplicate_/1 (Jaccard) and it is not a person's restatement with a change
% (restated_/3); none otherwise. Either way, what the goal asks about is compared too
% (distinct_on_goal_/3): two turns that open with the same long request and each name
% another graduation in passing are near-duplicates as a whole, but the goal asks about the
% graduations. Always succeeds, so word sets computed here stay bound for later checks.
redundancy_(Sig, Taken, GoalTerms, Verdict) :-
    Sig = sig(Id, _, _, _, _),
    findall(O-S0, ( echo_of(Id, O, S0) ; echo_of(O, Id, S0) ), Echoes),  % once, not per pair
    (   Echoes \== [],
        member(Other-Sim0, Echoes),
        T = sig(Other, _, _, _, _),
        memberchk(T, Taken),
        \+ distinct_on_goal_(GoalTerms, Sig, T)
    ->  Sim is round(Sim0 * 100) / 100.0,
        Verdict = like(Other, Sim)
    ;   near_duplicate_(Min),
        Sig = sig(_, Size, _, _, _),
        size_window_(Size, Window),
        near_duplicate_of_(Taken, Sig, Window, Min, GoalTerms, Verdict)
    ).

% A pair that is no near-duplicate (~1,200 a frame at 100k items, nearly all of them) costs
% the size test, the two sigs' word sets (made once) and near_words_/3's integer tests: no
% index of 0.0 is bound and compared. The word sets and numbers are bound outside any
% condition that may fail, so that they stay made for the next pair and the refill.
near_duplicate_of_([], _, _, _, _, none).
near_duplicate_of_([T|Ts], Sig, Window, Min, GoalTerms, Verdict) :-
    T = sig(Other, SizeT, _, WT, _),
    (   similar_size_(Window, SizeT)    % tokens: a loose bound on the words
    ->  sig_words_(Sig), sig_words_(T),
        arg(4, Sig, W),
        (   near_words_(W, WT, J),
            J >= Min
        ->  sig_numbers_(Sig), sig_numbers_(T),     % bound here, kept
            (   \+ states_another_number_(Sig, T),
                \+ restated_(Sig, T, J),
                \+ distinct_on_goal_(GoalTerms, Sig, T)
            ->  Sim is round(J * 100) / 100.0,
                Verdict = like(Other, Sim)
            ;   near_duplicate_of_(Ts, Sig, Window, Min, GoalTerms, Verdict)
            )
        ;   near_duplicate_of_(Ts, Sig, Window, Min, GoalTerms, Verdict)
        )
    ;   near_duplicate_of_(Ts, Sig, Window, Min, GoalTerms, Verdict)
    ).

% distinct_on_goal_(+GoalTerms, +Sig, +SigT): Sig says something about the goal that SigT
% does not: a sentence of Sig (at its compared rung) holds a goal term (goal_terms_/2, compared
% by stem) and no sentence of SigT has near_duplicate_/1 of its words (Jaccard; numbers left
% to states_another_number_/2, so a line that differs only in its timing is the same line).
% Judged on the whole text, a near-duplicate's distinct part weighs little however much the
% goal asks about it: two turns that open with the same long request, each naming another
% graduation in passing, or two test reports that name another failing test.
% A sentence found word for word in the other is passed over first (most of a near-duplicate
% is), so only the sentences that differ are stemmed and compared.
distinct_on_goal_(GoalTerms, sig(Id, _, Level, _, _), sig(Other, _, LevelT, _, _)) :-
    GoalTerms \== [],
    rung(Id, Level, Text),
    sentence_word_sets_(Text, Sets),
    (   rung(Other, LevelT, TextT) -> sentence_word_sets_(TextT, SetsT0) ; SetsT0 = [] ),
    sort(SetsT0, SetsT),
    member(Words, Sets),
    \+ ord_memberchk(Words, SetsT),
    once(( member(W, Words), word_stems_(W, Stems),
           member(Stem, Stems), ord_memberchk(Stem, GoalTerms) )),
    \+ ( member(WordsT, SetsT), near_duplicate_words_(Words, WordsT) ), !.

% sentence_word_sets_(+Text, -Sets): the word set (text_words_/2, less the words holding a
% digit) of each sentence of Text: a line, or a part of one ended by ". ", "! " or "? ".
sentence_word_sets_(Text, Sets) :-
    split_string(Text, "\n", "\r", Lines),
    findall(Set, ( member(Line, Lines),
                   sentence_of_line_(Line, Sentence),
                   text_words_(Sentence, Words),
                   exclude(holds_digit_, Words, Set),
                   Set \== [] ),
            Sets).

sentence_of_line_(Line, Sentence) :-
    atomic_list_concat(Parts0, '. ', Line),
    member(P0, Parts0),
    atomic_list_concat(Parts1, '! ', P0),
    member(P1, Parts1),
    atomic_list_concat(Parts2, '? ', P1),
    member(Sentence, Parts2).

% A digit is 0-9 (char_type/2's digit(_) on Linux). A word (~300 a frame at 100k items are
% asked) is read as codes and walked in this file's compiled arithmetic: half the time of a
% split of it at the digits, which made its parts and passed split_string/4's guard
% (search_guard.pl). A longer text is split once in C, not walked a code at a time.
holds_digit_(Word) :-
    (   string(Word), string_length(Word, N), N =< 64
    ->  string_codes(Word, Codes),
        digit_in_(Codes)
    ;   split_string(Word, "0123456789", "", [_, _|_])
    ).

digit_in_([C|Cs]) :-
    (   C >= 0'0, C =< 0'9
    ->  true
    ;   digit_in_(Cs)
    ).

near_duplicate_words_(A, B) :-
    near_duplicate_(Min),
    ord_intersection(A, B, Common), length(Common, NC),
    ord_union(A, B, All), length(All, NA),
    NC >= Min * NA.

% word_stems_(+Word, -Stems): the stems of Word and of its parts between symbols, so that a
% path or identifier ("tests/test_billing") meets the goal's words ("billing tests").
word_stems_(Word, Stems) :-
    split_string(Word, "/_-:#@=+*<>|\\~", "", Parts0),
    exclude(==(""), Parts0, Parts),
    findall(S, ( member(P, [Word|Parts]), word_stem_(P, S) ), Stems).

word_stem_(Word, Stem) :-
    (   catch(porter_stem(Word, Stem0), _, fail)
    ->  atom_string(Stem0, Stem)
    ;   Stem = Word
    ).

% goal_terms_(+Goal, -Terms): the ordered set of the stems (strings) of Goal's words that
% name what it is about: not its question and pointing words (topicless_word_/1), nor those
% that ask how many, how long or how often (asking_word_/1), nor words of fewer than three
% letters.
goal_terms_(Goal, Terms) :-
    goal_words(Goal, Words),
    findall(S, ( member(W, Words),
                 string_length(W, L), L >= 3,
                 \+ topicless_word_(W),
                 \+ asking_word_(W),
                 word_stem_(W, S) ),
            Terms0),
    sort(Terms0, Terms).

asking_word_(W) :-
    memberchk(W, ["many", "much", "long", "times", "time", "often", "total", "all", "both",
                  "each", "every", "ever", "ago", "past", "last", "first", "since", "can",
                  "could", "would", "should", "will", "you", "your", "yours"]).

% Two sizes are similar when min(Size, SizeT) >= 0.7 * max(Size, SizeT). For an integer Size
% the integer sizes that are form a window Lo..Hi, found once per candidate with the same float
% arithmetic, so that a pair's check is two integer comparisons.
size_window_(Size, window(Size, Lo, Hi)) :-
    (   integer(Size), Size >= 0
    ->  Lo is ceiling(0.7 * Size),      % k =< Size: k >= 0.7 * Size
        Hi0 is floor(Size / 0.7),       % k >= Size: 0.7 * k =< Size
        widest_(Hi0, Size, Hi)
    ;   Lo = none, Hi = none
    ).

widest_(K, Size, Hi) :-
    K1 is K + 1,
    K0 is K - 1,
    (   0.7 * K1 =< Size -> widest_(K1, Size, Hi)
    ;   0.7 * K > Size -> widest_(K0, Size, Hi)
    ;   Hi = K
    ).

similar_size_(window(Size, Lo, Hi), SizeT) :-
    (   integer(SizeT), Lo \== none
    ->  SizeT >= Lo, SizeT =< Hi
    ;   min(Size, SizeT) >= 0.7 * max(Size, SizeT)
    ).

% Two records whose words are 80 % the same say the same thing (a repeated error line, a
% message sent twice): the second costs its tokens for nothing new. Unless it states a number
% the other lacks: "watered on day 3" and "watered on day 9" are two facts (as for echoes).
near_duplicate_(0.8).

% near_duplicate_share_(P, Q): Min / (1 + Min) as the fraction P / Q (0.8 / 1.8 = 4 / 9), the
% share of two sets' summed sizes their common words must reach for an index of Min
% (jaccard_/4 takes ceiling(P * Sum / Q) in integers; a test holds it to near_duplicate_/1).
near_duplicate_share_(4, 9).

% restated_(+Sig, +SigT, +J): Sig says again, with a change, what the same person said in SigT
% (J < 1: not in the same words): a message sent again with one phrase changed ("get rid of my
% old sneakers" for "store my old sneakers") is how a person corrects or updates what they
% said, and the change is the fact. Tool output, errors and derived records are not spoken;
% another person repeating the words (an assistant echoing the user) adds nothing.
restated_(sig(Id, _, _, _, _), sig(Other, _, _, _, _), J) :-
    J < 1.0,
    item_kind(Id, Kind), spoken_kind_(Kind),
    item_kind(Other, KindT), spoken_kind_(KindT),
    item_speaker(Id, Who), item_speaker(Other, Who).

spoken_kind_(user_goal).
spoken_kind_(turn).
spoken_kind_(conclusion).

% states_another_number_(+Sig, +SigT): Sig's text (at its compared rung) states a number that
% SigT's does not. Numbers that time a run rather than state a fact do not count: a check that
% failed five times in the same words, "done in 0m12.09s" once and "0m12.13s" the next, is
% one failure (incidental_number_//0).
states_another_number_(sig(_, _, _, _, Numbers), sig(_, _, _, _, NumbersT)) :-
    Numbers \== [],
    \+ ord_subset(Numbers, NumbersT).

% A sig's numbers, found once per frame: left unbound until a comparison needs them (a record
% near-duplicating several taken ones is compared with each), and bound outside any negation
% or condition, which would undo the binding.
sig_numbers_(sig(Id, _, Level, _, Numbers)) :-
    (   nonvar(Numbers) -> true ; numbers_stated_(Id, Level, Numbers) ).

% numbers_stated_(+Id, +Level, -Numbers): the ordered set of the words of Id's rung at Level
% (split at white space, trimmed of punctuation, lower case) that hold a digit, less the
% incidental ones.
numbers_stated_(Id, Level, Numbers) :-
    (   rung(Id, Level, Text),
        holds_digit_(Text)
    ->  string_lower(Text, Lower),
        split_string(Lower, " \t\n\r", " \t\n\r", Words),
        findall(N, ( member(W, Words), stated_number_(W, N) ), Numbers0),
        sort(Numbers0, Numbers)
    ;   Numbers = []
    ).

stated_number_(Word, N) :-
    holds_digit_(Word),                 % trimming the punctuation below keeps every digit
    split_string(Word, "", ".,;:!?()[]{}\"'`<>*=", [N]),
    string_codes(N, Codes),
    \+ phrase(incidental_number_, Codes).

% How long something took and when to the second, as tools and logs print them: 0m12.09s,
% 1.52s, 340ms, 15:05:33(.120), 2026-02-12t15:05:33z. A clock time without seconds (a meeting
% at 15:05) and a date (on 2023-05-08) are facts and still count.
incidental_number_ --> digits_, "m", digits_, fraction_, "s".
incidental_number_ --> digits_, ".", digits_, "s".
incidental_number_ --> digits_, fraction_, "ms".
incidental_number_ --> clock_seconds_.
incidental_number_ --> digits_, "-", digits_, "-", digits_, "t", clock_seconds_, rest_.

clock_seconds_ --> digits_, ":", digits_, ":", digits_, fraction_.

fraction_ --> ".", digits_.
fraction_ --> [].

digits_ --> [C], { code_type(C, digit) }, digits0_.
digits0_ --> [C], { code_type(C, digit) }, !, digits0_.
digits0_ --> [].

rest_ --> [_], !, rest_.
rest_ --> [].

% distinct_shown_(+Placed, -Kept, -Suppressed): a fact the fit left in the same words as one
% before it (its rung at its level, and its speaker) is dropped as redundant(Id, Like, 1.0),
% its tokens going to promotion: records that differ only in what their summaries leave out
% (a run's timing, a token count) would otherwise be shown as one line several times.
distinct_shown_(Placed, Kept, Suppressed) :-
    distinct_shown_(Placed, [], Kept, Suppressed).

distinct_shown_([], _, [], []).
distinct_shown_([P|Ps], Seen, Kept, Suppressed) :-
    P = p(c(Id, _, _, _, _), Level, _, Rungs),
    (   atom(Level),
        Rungs = [Most-_|_], Level \== Most,    % at its most detailed rung, selection compared it
        rung(Id, Level, Text)
    ->  ( speaker_label_(Id, Label) -> true ; Label = "" ),
        Key = Label-Text
    ;   Key = none
    ),
    (   Key \== none, memberchk(Key-Like, Seen)
    ->  Suppressed = [redundant(Id, Like, 1.0)|Suppressed1],
        distinct_shown_(Ps, Seen, Kept, Suppressed1)
    ;   Kept = [P|Kept1],
        distinct_shown_(Ps, [Key-Id|Seen], Kept1, Suppressed)
    ).

% jaccard_(+A, +B, +Min, -J): the Jaccard index of two word sets (words/4 of sig_words_/1), or
% 0.0 when it is surely below Min: their sizes alone put it there (the index is at most the
% ratio of the sizes), their signatures show more words in one set only than Min allows
% (bits_apart_/3, a lower bound), their prefixes share no word, or a walk of both counts more
% such words than that (it stops there: most pairs compared are not near-duplicates and
% differ early; the union's size by a sort of both cost a whole sort).
% Min is near_duplicate_/1's, for which the word sets were made (word_set_/2). A pair's
% arithmetic is on integers (~1,300 pairs a frame at 100k items; the float products and the
% ceiling cost a third of a pair's check).
jaccard_(A, B, _, J) :-
    (   near_words_(A, B, J0) -> J = J0 ; J = 0.0 ).

% near_words_(+A, +B, -J) is semidet: jaccard_/4's index where it is not surely below Min,
% failing where it is. One clause: a call leaves no choice point (two clauses whose first
% arguments are both words/5 did, ~1,200 pairs a frame).
near_words_(words(LA, LeastA, PA, A, BA), words(LB, LeastB, PB, B, BB), J) :-
    (   LA >= LB -> LB >= LeastA ; LA >= LeastB ),
    Sum is LA + LB,
    (   Sum =:= 0
    ->  J = 1.0                         % two empty sets
    ;   % J >= Min when the common words I >= Min * Sum / (1 + Min), and the words in one
        % set only number Sum - 2 * I
        near_duplicate_share_(P, Q),
        MaxApart is Sum - 2 * ((P * Sum + Q - 1) // Q),
        bits_apart_(BA, BB, Least),
        Least =< MaxApart,
        ord_intersect(PA, PB),
        apart_within_(A, B, 0, MaxApart, Apart),
        LU is (Sum + Apart) // 2,       % the union's size
        J is (Sum - LU) / LU
    ).

% apart_within_(+A, +B, +Apart0, +Max, -Apart): Apart is Apart0 plus the number of words in
% only one of the ordered sets A and B; fails as soon as that passes Max.
apart_within_([], B, Apart0, Max, Apart) :- !,
    length(B, N),
    Apart is Apart0 + N,
    Apart =< Max.
apart_within_(A, [], Apart0, Max, Apart) :- !,
    length(A, N),
    Apart is Apart0 + N,
    Apart =< Max.
apart_within_([X|Xs], [Y|Ys], Apart0, Max, Apart) :-
    compare(Order, X, Y),
    (   Order == (=)
    ->  apart_within_(Xs, Ys, Apart0, Max, Apart)
    ;   Apart1 is Apart0 + 1,
        Apart1 =< Max,
        (   Order == (<)
        ->  apart_within_(Xs, [Y|Ys], Apart1, Max, Apart)
        ;   apart_within_([X|Xs], Ys, Apart1, Max, Apart)
        )
    ).

		 /*******************************
		 *            FOVEA             *
		 *******************************/

% p(Candidate, Level, Tokens, Rungs): Rungs are the Level-Tokens pairs this record has, detail
% first, never above the ceiling; the fact starts at its role's rung (or the next one below),
% or at a more detailed one that costs no more (a short turn's summary is the turn itself, and
% its heading line, which names the handle, makes it dearer than the verbatim text).
fovea_(Settings, C, Placed) :-
    C = c(Id, _, _, _, Role),
    (   record_ceiling_(Settings, Id, Ceiling)
    ->  levels_from_(Ceiling, Allowed),
        rungs_of(Id, Allowed, Stored)   % the levels it has, and their stored prices
    ;   Stored = []                     % not visible to the reader: never placed
    ),
    (   Stored == []
    ->  Placed = none
    ;   target_level_(Role, Target),
        level_rank(Ceiling, CR),
        level_rank(Target, TR0),
        TR is max(CR, TR0),
        pairs_keys(Stored, Levels),
        first_at_or_below_(Levels, TR, Target1),
        label_tokens_(Id, LabelTokens),
        record_framing_(Settings.fact_framing, Id, Framing),
        maplist(framed_rung_tokens_(Framing, Id, LabelTokens), Stored, Rungs),
        memberchk(Target1-TargetTokens, Rungs),
        once(( member(Level-Tokens, Rungs), Tokens =< TargetTokens )),
        Placed = p(C, Level, Tokens, Rungs)
    ).

% What a rung costs the frame: its text (its speaker label's LabelTokens included) and the
% line that heads the fact (fit, give way and promotion all count it; the receipt reports the
% text's tokens).
framed_rung_tokens_(Framing, Id, LabelTokens, Level-Stored, Level-Tokens) :-
    priced_tokens_(Id, LabelTokens, Level, Stored, Tokens0),
    fact_framing_(Framing, Id, Level, Line),
    Tokens is Tokens0 + Line.

target_level_(seed, l0).
target_level_(reserve, l0).
target_level_(arc, l1).
target_level_(near, l2).
target_level_(far, l3).

% available_levels_(+Id, +Ceiling, -Levels): the levels under Ceiling Id has a rung at.
available_levels_(Id, Ceiling, Levels) :-
    levels_from_(Ceiling, Allowed),
    rungs_of(Id, Allowed, Rungs),
    pairs_keys(Rungs, Levels).

% levels_from_(+Ceiling, -Levels): the levels a fact may take under Ceiling, detail first.
levels_from_(Ceiling, Levels) :-
    level_rank(Ceiling, CR),
    findall(L, level_from_(CR, L), Levels).

% The comparison in a clause of its own, compiled with this file's optimise flag (in findall/3's
% goal it would be a call of the guarded >=/2: ~80 levels_from_/2 a frame).
level_from_(CeilingRank, Level) :-
    level_rank(Level, R),
    R >= CeilingRank.

% The first available level at or below (less detailed than) rank TR, else the least detailed.
first_at_or_below_(Levels, TR, Level) :-
    (   member(Level, Levels), level_rank(Level, R), R >= TR
    ->  true
    ;   last(Levels, Level)
    ).

% The tokens of a rung of Id, its speaker label's (label_tokens_/2) included.
fact_tokens_(Id, Level, Tokens) :-
    label_tokens_(Id, LabelTokens),
    fact_tokens_(Id, LabelTokens, Level, Tokens).

fact_tokens_(Id, LabelTokens, Level, Tokens) :-
    (   rung_tokens(Id, Level, T) -> Stored = T ; Stored = none ),
    priced_tokens_(Id, LabelTokens, Level, Stored, Tokens).

% priced_tokens_(+Id, +LabelTokens, +Level, +Stored, -Tokens): fact_tokens_/4 given the
% rung's stored price (rung_tokens/3), or `none` where it has none (its text is estimated).
priced_tokens_(Id, LabelTokens, Level, Stored, Tokens) :-
    (   Stored \== none -> Tokens0 = Stored
    ;   rung(Id, Level, Text) -> estimate_tokens(Text, Tokens0)
    ;   Tokens0 = 0
    ),
    (   Tokens0 > 0 -> Tokens is Tokens0 + LabelTokens ; Tokens = Tokens0 ).

% The tokens of Id's speaker label (0 without one), counted once per record, not per rung,
% and estimated once per label in a process: estimating is a call to the host, and most
% candidates of a frame carry one of a few labels ("user: ", "assistant: ", a name).
% The days the item's text names (date_note_/3) are shown after it and counted here as well.
label_tokens_(Id, LabelTokens) :-
    (   speaker_label_(Id, Label)
    ->  (   label_tokens_known_(Label, Known)
        ->  SpeakerTokens = Known
        ;   estimate_tokens(Label, SpeakerTokens),
            assertz(label_tokens_known_(Label, SpeakerTokens))
        )
    ;   SpeakerTokens = 0
    ),
    date_note_(Id, _, NoteTokens),
    LabelTokens is SpeakerTokens + NoteTokens.

:- dynamic label_tokens_known_/2.   % as many as the names memory knows, and the two roles

% date_note_(+Id, -Note, -Tokens): what the frame writes after the text of an item that names
% days (relation(Id, mentions_date, Day): "yesterday" said on 4 April), each relative expression
% with the day ingestion read it as, " [yesterday = Mon 2023-04-03]", so a reader need not
% count back from the time the turn was written; "" and 0 for an item that names none. Written
% by the host from the item's verbatim text (host_date_note/4, ~0.5 ms a note), once per item
% in a process while its days, its time and whether its text is held stand (a handle names its
% text, so a held text is the one the note was made from; once retention drops it, the note
% names the days alone); in a bare swipl without the host there is no note.
date_note_(Id, Note, Tokens) :-
    findall(Day, relation(Id, mentions_date, Day), Days0),
    (   Days0 \== [],
        current_predicate(atc_hydrate:host_date_note/4)
    ->  sort(Days0, Days),
        ( item_time(Id, Time) -> true ; Time = "" ),
        ( rung(Id, l0, Text) -> Held = held ; Text = "", Held = dropped ),
        Key = Days-Time-Held,
        (   date_note_known_(Id, Key0, Note0, Tokens0), Key0 == Key
        ->  Note = Note0, Tokens = Tokens0
        ;   host_date_note(Text, Time, Days, Note),
            estimate_tokens(Note, Tokens),
            retractall(date_note_known_(Id, _, _, _)),      % one made from what was before
            assertz(date_note_known_(Id, Key, Note, Tokens))
        )
    ;   Note = "", Tokens = 0
    ).

:- dynamic date_note_known_/4.      % Id, Days-Time-Held, Note, Tokens: the notes written so far
:- dynamic notes_generation_/1.     % G: the erasures the kept notes saw (notes_generation_now_/1)

% notes_follow_memory_: the notes kept between frames (date_note_known_/4, note_shape_known_/5)
% dropped, once a frame, after an item was forgotten or tombstoned: its note, words of its text,
% was held for as long as the process ran. Other writes (a turn captured, a note remembered)
% leave them: each is made again only when its own item changed (date_note_/3), ~0.5 ms of the
% host's a note. A check is two clause generations (~1 µs).
notes_follow_memory_ :-
    notes_generation_now_(G),
    (   notes_generation_(G0), G0 == G
    ->  true
    ;   retractall(date_note_known_(_, _, _, _)),
        retractall(note_shape_known_(_, _, _, _, _)),
        retractall(notes_generation_(_)),
        assertz(notes_generation_(G))
    ).

notes_generation_now_(g(Forgotten, Tombstoned)) :-
    modified_(atc_journal:forgotten_(_, _, _, _, _), Forgotten),
    modified_(atc_journal:tombstone_(_, _, _), Tombstoned).

% reader_date_note_(+Reader, +Id, -Note): the date note as Reader is shown it. The note quotes
% the words of the verbatim text that name each day ("yesterday"): a grantee below L0 for Id
% is shown the days alone (the mentions_date relation they may read), not those words.
reader_date_note_(Reader, Id, Note) :-
    (   Reader \== none,
        \+ visible(Reader, Id, l0),
        current_predicate(atc_hydrate:host_date_note/4),
        findall(Day, relation(Id, mentions_date, Day), Days0),
        Days0 \== []
    ->  sort(Days0, Days),
        ( item_time(Id, Time) -> true ; Time = "" ),
        host_date_note("", Time, Days, Note)
    ;   date_note_(Id, Note, _)
    ).

%!  host_date_note(+Text:string, +Time:string, +Days:list(atom), -Note:string) is det.
%
%   The note a frame writes after an item's Text, written at Time, that names Days
%   (YYYY-MM-DD): `" [yesterday = Mon 2023-04-03]"`, or `""`. Implemented by the host
%   (attention_cloud.ingest.timefmt.date_note, which also read the days at ingest), registered
%   in this module when the bridge starts.

% "Priya: ", the label an item's text is shown after: the speaker its transcript names
% (journal item_speaker/2), else "user: " or "assistant: " for what an unnamed party said, so a
% frame says who "I" and "you" are (a user's plan and an assistant's suggestion read alike
% without it); counted in the fact's tokens. Tool output, system text and file operations
% ("read src/x.py") are not labelled: they say what they are, and an agent's memory holds
% many of them.
% Within a frame each record's label is told once (label_kept_/2, kept from framing_/10's
% frame_memos_/0 to the frame's end): the selection's word sets, the fit's prices, the fovea's
% and the rendered texts ask for it ~220 times a frame for ~60 records, each asking three
% look-ups of the journal's 100k-fact tables. Outside a frame it is told from the journal.
speaker_label_(Id, Label) :-
    (   nb_current(atc_labels_kept, true)
    ->  (   label_kept_(Id, Kept)
        ->  true
        ;   ( speaker_label_told_(Id, Kept0) -> Kept = Kept0 ; Kept = none ),
            assertz(label_kept_(Id, Kept))
        ),
        Kept \== none,
        Label = Kept
    ;   speaker_label_told_(Id, Label)
    ).

% label_kept_(Id, Label): speaker_label_/2 of record Id in this thread's frame, or none.
:- thread_local label_kept_/2.

% frame_memos_: what a frame tells once per record starts empty, and the labels are kept
% until the frame's end (a backtrackable flag: a later query outside a frame reads the journal).
frame_memos_ :-
    retractall(day_seen_(_, _)),
    retractall(label_kept_(_, _)),
    b_setval(atc_labels_kept, true).

speaker_label_told_(Id, Label) :-
    (   relation(Id, speaker, Name)
    ->  true
    ;   item_role(Id, Name),
        labelled_role_(Name),
        \+ item_kind(Id, file_op)
    ),
    !,
    (   text_name_(Name)                % a name's text as ~w writes it; format/3 costs ~10x
    ->  string_concat(Name, ": ", Label)
    ;   format(string(Label), "~w: ", [Name])
    ).

text_name_(Name) :- atom(Name), !.
text_name_(Name) :- string(Name).

labelled_role_(user).
labelled_role_(assistant).

		 /*******************************
		 *      DEMOTION AND BUDGET     *
		 *******************************/

% fit_(+Placed, +Budget, -Kept, -Dropped): while over budget, give way where the least value
% is lost per token saved: demote a fact one rung, or drop it. Presence is kept as long as
% its detail can pay (a rung down saves more per value lost than leaving does, for any fact
% whose rungs shrink); dropping a weak skeleton beats demoting the best fact's text.
fit_(Placed, Budget, Kept, Dropped) :-
    used_tokens_(Placed, Used),
    (   Used =< Budget
    ->  Kept = Placed, Dropped = []
    ;   give_way_(Placed, Placed1, Gone),
        fit_(Placed1, Budget, Kept, Dropped0),
        (   Gone == none -> Dropped = Dropped0 ; Dropped = [Gone|Dropped0] )
    ).

used_tokens_(Placed, Used) :-
    foldl(add_tokens_, Placed, 0, Priced),
    shared_day_lines_(Placed, Shared),
    Used is Priced - Shared.

% shared_day_lines_(+Placed, -Tokens): what the facts' prices count twice or more of the lines
% naming their days. Each timed fact is priced with the line naming its day (framing_/9), but
% the frame writes that line once above the facts of a day, grouped (by_day_/2): the facts of
% one day pay for one line, whichever of them stay, so giving way and raising detail see what
% the frame will write. Never more than the prices: a cost of facts together is at most the
% sum of their costs apart.
shared_day_lines_(Placed, Tokens) :-
    placed_ids_(Placed, Ids),
    shared_day_lines_of_(Ids, Tokens).

% placed_ids_(+Placed, -Ids): the records of the facts Placed, in order (what a findall/3 of
% member/2 gives, without copying the facts).
placed_ids_([], []).
placed_ids_([P|Ps], Ids) :-
    (   nonvar(P), P = p(C, _, _, _), nonvar(C), C = c(Id, _, _, _, _)
    ->  Ids = [Id|Ids1]
    ;   Ids = Ids1
    ),
    placed_ids_(Ps, Ids1).

% shared_day_lines_of_(+Ids, -Tokens): shared_day_lines_/2 of the records Ids. The fit, the
% promotion and the refill ask for the same records at step after step (a rung changed, no
% fact dropped; ~9 times a frame over ~50 facts, each fact's day looked up each time), so the
% last answer is kept with its line's price and records (atc_day_shared, per thread, undone on
% backtracking, reset by framing_/10 for each frame) and given again for the same ones.
shared_day_lines_of_(Ids, Tokens) :-
    (   nb_current(atc_day_line, Line), Line > 0
    ->  (   nb_current(atc_day_shared, shared(Line0, Ids0, Tokens0)),
            Line0 == Line, Ids0 == Ids
        ->  Tokens = Tokens0
        ;   ids_days_(Ids, Days),
            length(Days, Timed),
            sort(Days, Distinct),
            length(Distinct, N),
            Tokens is Line * (Timed - N),
            b_setval(atc_day_shared, shared(Line, Ids, Tokens))
        )
    ;   Tokens = 0
    ).

% ids_days_(+Ids, -Days): the day of each of Ids that has one (fact_day_/2), in order: what a
% findall/3 of member/2 gives, without copying each day into its bag and out (~4 lists of ~40
% records a frame at 100k items).
ids_days_([], []).
ids_days_([Id|Ids], Days) :-
    (   fact_day_(Id, Day)
    ->  Days = [Day|Days1]
    ;   Days = Days1
    ),
    ids_days_(Ids, Days1).

% fact_day_(+Id, -Day): the UTC day (YYYY-MM-DD) of a record whose time is ISO 8601 UTC as the
% journal writes it, the day the frame's line above it names (hydration._day_and_clock); fails
% for a record without such a time (its heading shows the stored text, and no day line). Told
% once per record and frame (day_seen_/2): the fit asks for every fact at every step.
fact_day_(Id, Day) :-
    (   day_seen_(Id, Seen)
    ->  true
    ;   time_of_(Id, Time),
        (   string_codes(Time, Codes),
            Codes = [Y1, Y2, Y3, Y4, 0'-, M1, M2, 0'-, D1, D2, 0'T, H1, H2, 0':, I1, I2, 0':, S1, S2, 0'Z],
            digit_codes_([Y1, Y2, Y3, Y4, M1, M2, D1, D2, H1, H2, I1, I2, S1, S2])
        ->  sub_string(Time, 0, 10, _, Seen)
        ;   Seen = none
        ),
        assertz(day_seen_(Id, Seen))
    ),
    Seen \== none,
    Day = Seen.

% digit_codes_(+Codes): every code is a decimal digit 0-9 (compared in this file's compiled
% arithmetic: forall/2 over between/3 was a meta-call of each).
digit_codes_([]).
digit_codes_([C|Cs]) :-
    C >= 0'0, C =< 0'9,
    digit_codes_(Cs).

% by_day_(+Kept, -Grouped): the facts of a segment as the frame writes them: the facts of one
% day together (under one line naming it), the days in the order of their first fact, each
% day's facts (and the facts without a day) in their order. The best fact stays first.
by_day_(Kept, Grouped) :-
    foldl(day_keyed_, Kept, Keyed, 0, _),
    group_first_seen_(Keyed, Grouped).

day_keyed_(P, Key-P, N0, N) :-
    P = p(c(Id, _, _, _, _), _, _, _),
    N is N0 + 1,
    (   fact_day_(Id, Day) -> Key = day(Day) ; Key = alone(N0) ).

% group_first_seen_(+Keyed, -Grouped): the values of the Key-Value pairs Keyed, those of one key
% together at the place of its first, each key's in their order. By two stable sorts, not a
% pass over the rest per key: a frame of ~50 facts on ~40 days made ~1,000 comparisons
% (~0.15 ms), and its square grows with the facts of a large budget's frame.
group_first_seen_(Keyed, Grouped) :-
    numbered_pairs_(Keyed, 0, Numbered),    % Key-(Place-Value)
    keysort(Numbered, ByKey),
    first_places_(ByKey, Placed),           % FirstPlace-Value
    keysort(Placed, InOrder),
    pairs_values(InOrder, Grouped).

numbered_pairs_([], _, []).
numbered_pairs_([K-V|T], I, [K-(I-V)|T1]) :-
    I1 is I + 1,
    numbered_pairs_(T, I1, T1).

first_places_([], []).
first_places_([K-(I-V)|T], [I-V|T1]) :-
    same_key_first_(T, K, I, T1).

same_key_first_([K1-(_-V)|T], K, I, [I-V|T1]) :-
    K1 == K, !,
    same_key_first_(T, K, I, T1).
same_key_first_(T, _, _, T1) :-
    first_places_(T, T1).

add_tokens_(p(_, _, T, _), A0, A) :-
    A is A0 + T.

% A fact's value is its relevance relative to the frame's best, cubed (a fact half as relevant
% as the best is worth an eighth as much), times the fidelity of its rung (level_fidelity_/2).
% Each step (demote one rung, or drop from the last rung) is keyed by the value it gives up per
% token it saves; the cheapest step is taken.
give_way_(Placed, Out, Gone) :-
    frame_best_score_(Placed, Best),
    cheapest_step_(give_way_step_, Best, Placed, I, Step, _, _, _),
    apply_step_(Placed, I, Step, Out, Gone).

% cheapest_step_(:Steps, +Best, +Placed, -I, -Step, -Key, -Loss, -Saved): of the steps Steps
% offers (give_way_step_/5 or room_step_/5), the one (for the I-th fact) that loses the least
% value per token saved; fails when Placed is empty.
cheapest_step_(Steps, Best, Placed, I, Step, Key, Loss, Saved) :-
    findall(Key0-I0-Step0-Loss0-Saved0,
            ( nth0(I0, Placed, P),
              call(Steps, Best, P, Step0, Loss0, Saved0),
              ratio_(Loss0, Saved0, Key0) ),
            Ranked),
    keysort(Ranked, [Key-I-Step-Loss-Saved|_]).

ratio_(Loss, Saved, Key) :- Key is Loss / Saved.

% affordable_step_(+Best, +Others, +Gain, +Rate, -I, -Step, -Loss, -Saved): of the ways the
% facts Others can make room (room_step_/5), the one losing least value per token saved among
% those losing less than Gain and less per token than Rate; fails when there is none.
affordable_step_(Best, Others, Gain, Rate, I, Step, Loss, Saved) :-
    findall(Ranked0, affordable_(Best, Others, Gain, Rate, Ranked0), Ranked),
    keysort(Ranked, [_-I-Step-Loss-Saved|_]).

% A step of affordable_step_/8 as Key-I-Step-Loss-Saved: in a clause of its own, so that its
% comparisons are compiled (as findall/3's goal each was a call of the guarded </2).
affordable_(Best, Others, Gain, Rate, Key-I-Step-Loss-Saved) :-
    nth0(I, Others, P),
    room_step_(Best, P, Step, Loss, Saved),
    Loss < Gain,
    ratio_(Loss, Saved, Key),
    Key < Rate.

% apply_step_(+Placed, +I, +Step, -Out, -Gone): Gone is the dropped candidate, or none.
apply_step_(Placed, I, Step, Out, Gone) :-
    nth0(I, Placed, p(C, _, _, Rungs), Rest),
    (   Step = demote(L1, T1)
    ->  nth0(I, Out, p(C, L1, T1, Rungs), Rest), Gone = none
    ;   Out = Rest, Gone = C
    ).

frame_best_score_(Placed, Best) :-
    best_score_(Placed, Best0),
    Best is max(Best0, 1.0e-9).

% The value of a fact at a rung: relevance relative to the best, cubed, times the rung's fidelity.
fact_value_(Best, S, Level, Value) :-
    level_fidelity_(Level, F),
    Value is (max(S, 0.0) / Best) ** 3 * F.

% The steps of giving way for a placed fact: demote(Level, Tokens) to its next shorter rung, or
% drop; Loss is the value given up, Saved (>= 1) the tokens freed. A long fact's next rung
% saves most of its tokens for part of its value, so it is demoted long before dropping it
% would pay; a short fact whose next rung saves a token or two is dropped as cheaply as one
% with no rung below (were it only demotable, that token would shield it: a weaker fact
% without one would go first).
give_way_step_(Best, P, Step, Loss, Saved) :-
    P = p(_, L, T, Rungs),
    (   lower_rung_(Rungs, L, T, L1, T1)
    ->  ( Step = demote(L1, T1) ; Step = drop )
    ;   Step = drop
    ),
    step_cost_(Best, P, Step, Loss, Saved).

% step_cost_(+Best, +Placed, +Step, -Loss, -Saved): the value a step gives up and the tokens it
% frees (at least 1).
step_cost_(Best, p(c(_, S, _, _, _), L, T, _), Step, Loss, Saved) :-
    fact_value_(Best, S, L, V0),
    (   Step = demote(L1, T1)
    ->  fact_value_(Best, S, L1, V1)
    ;   T1 = 0, V1 = 0.0
    ),
    Loss is V0 - V1,
    Saved is max(1, T - T1).

% How much of what a record says each rung carries: the verbatim text all of it, a one-sentence
% summary well under half, the distillation and the skeleton little more than a pointer.
level_fidelity_(l0, 1.0).
level_fidelity_(l1, 0.4).
level_fidelity_(l2, 0.15).
level_fidelity_(l3, 0.05).

% The rungs down that are shorter than the current one, nearest first (a distillation can be
% longer than the one-sentence summary above it: demoting to it would cost detail and save
% nothing).
lower_rung_(Rungs, Level, Tokens, Lower, LowerTokens) :-
    level_rank(Level, R),
    member(Lower-LowerTokens, Rungs),
    level_rank(Lower, R1),
    R1 > R,
    LowerTokens < Tokens.

% promote_(+Placed, +Budget, -Out, -Dropped): the fovea sets where each fact starts (seeds
% verbatim, one hop at the distillation, ...); what giving way left of the budget, and detail
% weaker facts can pay for, goes to the facts that gain most from more detail. Each move raises
% one fact to a richer rung (the move gaining most value per extra token first), paid from the
% free budget or by other facts giving way (make_room_/7) for less value than it gains; a rung
% no longer than the current one is taken for free. A move may skip rungs: a distillation can
% be longer than the verbatim turn above it, and raising a rung at a time paid for the dearer
% rung in passing, dropping a weaker fact to free a few tokens that the next move gave back.
% Every move raises the frame's total value, so the loop ends; the bound only caps its work.
% Dropped are the facts that gave way entirely.
promote_([], _, [], []) :- !.
promote_(Placed, Budget, Out, Dropped) :-
    frame_best_score_(Placed, Best),       % the best fact never gives way: the best score stays
    promote_(Placed, Best, Budget, 120, Out, Dropped).

promote_(Placed, _, _, 0, Placed, []) :- !.
promote_(Placed, Best, Budget, N, Out, Dropped) :-
    used_tokens_(Placed, Used),
    Free is Budget - Used,
    findall(Key-I-L1-T1-Gain,
            ( nth0(I, Placed, P), promotion_(P, Best, Key, L1, T1, Gain) ),
            Ups0),
    keysort(Ups0, Ups),
    (   member(Key-I-L1-T1-Gain, Ups),
        nth0(I, Placed, p(C, _, T0, Rungs), Others),
        Need is T1 - T0 - Free,
        Rate is -Key,
        make_room_(Others, Best, Need, Gain, Rate, Others1, Gone)
    ->  (   Gone == []                  % nothing left: the raised fact goes back at I
        ->  nth0(I, Placed1, p(C, L1, T1, Rungs), Others1)
        ;   put_back_(Placed, I, p(C, L1, T1, Rungs), Others1, Placed1)
        ),
        N1 is N - 1,
        promote_(Placed1, Best, Budget, N1, Out, Dropped0),
        append(Gone, Dropped0, Dropped)
    ;   Out = Placed, Dropped = []
    ).

% A more detailed rung of P (on backtracking, each) that gains value, the gain per token it
% costs negated (Key: the best first in a keysort).
promotion_(p(c(_, S, _, _, _), L, T, Rungs), Best, Key, L1, T1, Gain) :-
    richer_rung_(Rungs, L, L1, T1),
    fact_value_(Best, S, L, V0),
    fact_value_(Best, S, L1, V1),
    Gain is V1 - V0,
    Gain > 0,
    Key is -(Gain / max(1, T1 - T)).

% One way a fact can make room for another's detail: down to any shorter rung, or out of the
% frame. Unlike fit_/4, which steps one rung at a time so that presence outlasts detail, a
% promotion looks at the whole way down: a skeleton is often about as long as a summary, so
% the step that frees tokens cheaply is leaving, not the rung below.
room_step_(Best, P, Step, Loss, Saved) :-
    P = p(_, L, T, Rungs),
    (   lower_rung_(Rungs, L, T, L1, T1), Step = demote(L1, T1)
    ;   Step = drop
    ),
    step_cost_(Best, P, Step, Loss, Saved).

% put_back_(+Placed, +I, +Raised, +Others, -Placed1): Raised back at the place of Placed's I-th
% fact among Others (the rest of Placed after making room, in their order, some maybe gone).
put_back_(Placed, I, Raised, Others, Placed1) :-
    length(Before, I),
    append(Before, _, Placed),
    include(still_placed_(Others), Before, Stayed),
    length(Stayed, K),
    length(Front, K),
    append(Front, Back, Others),
    append(Front, [Raised|Back], Placed1).

still_placed_(Others, p(c(Id, _, _, _, _), _, _, _)) :-
    memberchk(p(c(Id, _, _, _, _), _, _, _), Others).

% On backtracking, each more detailed rung of a fact than Level: those before it in Rungs
% (detail first, see fovea_/3), nearest first; fails at the most detailed.
richer_rung_(Rungs, Level, Richer, Tokens) :-
    richer_rungs_(Rungs, Level, [], Before),
    member(Richer-Tokens, Before).

richer_rungs_([L-T|Rungs], Level, Acc, Before) :-
    (   L == Level
    ->  Before = Acc
    ;   richer_rungs_(Rungs, Level, [L-T|Acc], Before)
    ).

% make_room_(+Others, +Best, +Need, +Gain, +Rate, -Others1, -Gone): free Need tokens by the
% cheapest steps of giving way (room_step_/5) that the promotion can pay for: each loses less
% value per token than the promotion gains per token (Rate), and all of them together less
% than its Gain; fails when that cannot free enough. The cheapest step is sought among those
% only (affordable_step_/8): a long weak fact is often the cheapest per token to drop, yet
% losing all of it would cost more than the raise gains, while a shorter one would free the few
% tokens wanted. Gone are the facts that left the frame: a weak fact's summary is worth less
% than a strong fact's verbatim text.
make_room_(Others, _, Need, _, _, Others, []) :-
    Need =< 0, !.
make_room_(Others, Best, Need, Gain, Rate, Others1, Gone) :-
    affordable_step_(Best, Others, Gain, Rate, I, Step, Loss, Saved),
    apply_step_(Others, I, Step, Others0, Left),
    Need1 is Need - Saved,
    Gain1 is Gain - Loss,
    make_room_(Others0, Best, Need1, Gain1, Rate, Others1, Gone0),
    (   Left == none -> Gone = Gone0 ; Gone = [Left|Gone0] ).

		 /*******************************
		 *   EXCERPTS OF LONG RECORDS   *
		 *******************************/

% excerpts_(+Goal, +Settings, +Budget, +Placed0, -Placed): once the fit and the promotion have
% placed every fact, a fact they left below L0 whose verbatim text (L0) is long (more than
% excerpt_share_/1 of the Budget) may show instead an *excerpt* of it: the sentences of its L0
% nearest the Goal, verbatim, in their order, joined by an ellipsis where text is left out (the
% host's attention_cloud.excerpt cuts it, host_excerpts/3). The excerpt may take the tokens of
% the rung it replaces and what the frame left of the Budget; it replaces that rung when it
% holds more of the goal's weight than the rung does (by a quarter of it when no longer: a
% summary that already answers is kept), so the facts, and every fact shown whole, are those
% of the frame without excerpts. The best facts are asked first, at most excerpt_facts_/1 a
% segment, each given all that is left. The frame shows such a fact at level l0, with the
% handle, and the segment's `excerpted` list says which spans of the L0 it kept. Off with the
% option `excerpt: false`, or without the host (a bare swipl).
excerpts_(_, Settings, _, Placed, Placed) :-
    (   Settings.excerpt == false
    ;   \+ current_predicate(atc_hydrate:host_excerpts/3)
    ), !.
excerpts_(Goal, Settings, Budget, Placed0, Placed) :-
    excerpt_share_(Share),
    excerpt_facts_(Most),
    Long is floor(Budget * Share),
    findall(I, limit(Most, ( nth0(I, Placed0, P), excerptable_(P, Long) )), Is),
    used_tokens_(Placed0, Used),
    Free is Budget - Used,
    foldl(excerpt_fact_(Goal, Settings.fact_framing), Is, Placed0-Free, Placed-_).

% A placed fact shown below L0 whose L0 is longer than Long.
excerptable_(p(_, Level, _, [l0-T0|_]), Long) :-
    Level \== l0,
    Level \= excerpt(_, _, _, _),
    T0 > Long.

% excerpt_fact_(+Goal, +Framing, +I, +Placed0-Free0, -Placed-Free): the I-th fact as an excerpt
% of at most its tokens and Free0 more, when the host finds one that holds more of the goal.
excerpt_fact_(Goal, Framing, I, Placed0-Free0, Placed-Free) :-
    nth0(I, Placed0, p(C, Level, T, Rungs), Rest),
    C = c(Id, _, _, _, _),
    rung(Id, l0, Text),
    rung(Id, Level, LevelText),
    level_fidelity_(Level, Fidelity),
    text_tokens_(Framing, Id, Level, T, LevelTokens),
    excerpt_cost_(Framing, Id, 0, Around),
    Cap is T + Free0 - Around,
    excerpt_keep_(Id, Keep),
    (   Cap > 0,
        host_excerpts(Goal, [req(Text, LevelText, LevelTokens, Fidelity, [Cap], Keep)], [[X|_]]),
        X = x(XT, F, XText, Kept, Of, Spans),
        F > Fidelity,
        excerpt_cost_(Framing, Id, XT, Tokens),
        Tokens =< T + Free0
    ->  Excerpt = excerpt(Level, F, XText, _{kept: Kept, of: Of, spans: Spans}),
        nth0(I, Placed, p(C, Excerpt, Tokens, Rungs), Rest),
        Free is Free0 - (Tokens - T)
    ;   Placed = Placed0, Free = Free0
    ).

% focus_whole_(+Goal, +Settings, +Budget, +Placed0, +Excerpted, -Base, -Placed, -Gone): the frame's
% focus, its best fact, shown whole rather than as an excerpt when its whole text fits. When
% excerpts_/5 made the best fact of Placed0 an excerpt (its own words hold the goal better than
% its summary), and it is a turn someone said (spoken_kind_/1), not a tool's output or an
% error, whose lines stand alone, and its whole verbatim text fits Budget, it is placed whole,
% the other facts giving way for its room (fit_/4: least value lost per token saved first),
% and the excerpts are chosen again for the others; Gone are the facts that left. A message
% cut to the sentences nearest the goal loses what holds them together (the list an item
% belongs to, the sentence "this website" refers to), and the value per token that the fit
% weighs favours any few shorter, weaker facts over the rest of the best one:
% LongMemEval's questions about an earlier answer of the assistant ("the website you
% recommended for free lessons") had 500-token frames showing an excerpt of that answer beside
% weaker turns, where a frame of the whole answer holds what the question needs verbatim. A
% log's or a tool output's excerpt keeps the lines that matter (the failing test and its
% assertion), and the rest of it costs its room for noise: it stays an excerpt.
% Base is the placement the excerpts were chosen on: Placed0, or the one with the focus whole.
focus_whole_(Goal, Settings, Budget, Placed0, Excerpted, Base, Placed, Gone) :-
    whole_focus_(Budget, Placed0, Excerpted, Base, Gone),
    !,
    excerpts_(Goal, Settings, Budget, Base, Placed).
focus_whole_(_, _, _, Placed0, Excerpted, Placed0, Excerpted, []).

% whole_focus_(+Budget, +Placed0, +Excerpted, -Placed, -Gone): Placed0 with its best fact at
% its whole L0 and the others fitted to what is left of Budget, when Excerpted (Placed0 after
% excerpts_/5) shows that fact as an excerpt of a spoken record whose L0 fits Budget; fails
% otherwise.
whole_focus_(Budget, Placed0, Excerpted, Placed, Gone) :-
    frame_best_score_(Excerpted, Best),
    nth0(I, Excerpted, p(C, excerpt(_, _, _, _), _, Rungs)),
    C = c(Id, Best, _, _, _),
    !,
    item_kind(Id, Kind), spoken_kind_(Kind),
    memberchk(l0-Whole, Rungs),
    Whole =< Budget,
    nth0(I, Placed0, _, Others0),
    Room is Budget - Whole,
    fit_(Others0, Room, Others, Gone),
    put_back_(Placed0, I, p(C, l0, Whole, Rungs), Others, Placed).

% focus_core_(+Goal, +Settings, +Budget, +Base, +Excerpted, -Placed, -Gone): a top fact's
% excerpt grown to its core, the sentence (or line) of its L0 holding most of the goal's weight,
% when the room the frame left it held only other sentences or none. Of the facts excerpts_/5
% asks about (the best placed first), the first whose excerpt in Excerpted (Base after
% excerpts_/5) lacks its core (host_excerpts/3, a core/5 request), that is among the frame's
% most relevant (core_rank_/1), and whose core holds more of the goal than its rung and fits
% Budget (at most core_share_/1 of it, but for the frame's best fact), is placed as the excerpt
% of its core; the weaker facts of Base give way for its room (fit_/4: least value lost per
% token saved first), and the excerpts are chosen again for the others; Gone are the facts
% that left. An excerpt's fidelity grows in step with its length, so
% the fit never pays for the few tokens more that make a fragment the sentence it was cut from:
% LongMemEval's question on "the average improvement in framerate" of a submission had a
% 500-token frame show the answer's first clause ("The 'Experimental Results' section of the ...
% submission presents") or its summary beside weaker summaries, never the sentence naming the
% 20%. One fact a segment grows so.
focus_core_(Goal, Settings, Budget, Base, Excerpted, Placed, Gone) :-
    Settings.excerpt \== false,
    current_predicate(atc_hydrate:host_excerpts/3),
    core_focus_(Goal, Settings.fact_framing, Budget, Base, Excerpted, Base1, Gone),
    !,
    excerpts_(Goal, Settings, Budget, Base1, Placed).
focus_core_(_, _, _, _, Excerpted, Excerpted, []).

% core_focus_(+Goal, +Framing, +Budget, +Base, +Excerpted, -Placed, -Gone): Base with the first
% fact lacking its core (focus_core_/7) at the excerpt of its core, the others fitted to what is
% left of Budget; fails when no fact lacks it.
core_focus_(Goal, Framing, Budget, Base, Excerpted, Placed, Gone) :-
    excerpt_share_(Share),
    excerpt_facts_(Most),
    core_share_(CoreShare),
    core_rank_(Rank),
    Long is floor(Budget * Share),
    limit(Most, ( nth0(I, Base, P), excerptable_(P, Long) )),
    P = p(C, Level, T, Rungs),
    C = c(Id, Score, _, _, _),
    aggregate_all(count, ( member(p(c(_, S, _, _, _), _, _, _), Base), S > Score ), Above),
    Above < Rank,
    rung(Id, l0, Text),
    rung(Id, Level, LevelText),
    level_fidelity_(Level, Fidelity),
    text_tokens_(Framing, Id, Level, T, LevelTokens),
    excerpt_keep_(Id, Keep),
    host_excerpts(Goal, [core(Text, LevelText, LevelTokens, Fidelity, Keep)], [[X]]),
    X = x(XT, F, XText, Kept, Of, Spans),
    nth0(I, Excerpted, Shown),
    \+ shows_spans_(Shown, Spans),
    excerpt_cost_(Framing, Id, XT, Cost),
    (   Above =:= 0 -> Cost =< Budget ; Cost =< Budget * CoreShare ),
    !,
    nth0(I, Excerpted, _, Shown0),          % the stronger facts as shown, excerpts and all
    partition(stronger_than_(Score), Shown0, Stronger, _),
    nth0(I, Base, _, Others0),
    exclude(stronger_than_(Score), Others0, Weaker),
    used_tokens_(Stronger, StrongerTokens),
    Room is Budget - Cost - StrongerTokens,
    Room >= 0,
    fit_(Weaker, Room, Weaker1, Gone),
    append(Stronger, Weaker1, Stayed),
    convlist(placed_in_(Stayed), Others0, Others),
    Core = excerpt(Level, F, XText, _{kept: Kept, of: Of, spans: Spans}),
    put_back_(Base, I, p(C, Core, Cost, Rungs), Others, Placed).

% Only weaker facts give way for a core: a fact at least as relevant keeps its place and rung,
% or the excerpt it was given (chosen again with less room, it would be cut for the core).
stronger_than_(Score, p(c(_, S, _, _, _), _, _, _)) :-
    S >= Score.

% placed_in_(+Stayed, +P, -Q): Q is the fact P as it stayed (maybe demoted) among Stayed;
% fails when it left (the others keep their order).
placed_in_(Stayed, p(c(Id, _, _, _, _), _, _, _), Q) :-
    Q = p(c(Id, _, _, _, _), _, _, _),
    memberchk(Q, Stayed).

% Whether a placed fact is an excerpt keeping every one of Spans.
shows_spans_(p(_, excerpt(_, _, _, Info), _, _), Spans) :-
    forall(member(Span, Spans), memberchk(Span, Info.spans)).

% The core of a fact other than the frame's best may take at most half the segment's budget:
% the other half stays the others' (the best fact's, like its whole text, all of it). Only a
% fact among the frame's three most relevant grows so: the core of a weaker one holds a word
% or two of the goal (a tool error's "Trace Context" for "what does the review context builder
% do") and would push out facts about as relevant as it.
core_share_(0.5).
core_rank_(3).

% excerpt_keep_(+Id, -Keep): what an excerpt of Id keeps first when it fits: an error's summary,
% which curation leads with its diagnostic ("lib/x.ex:57:13:pattern_match The pattern can never
% match the type."): the goal's words lie in the failure's heading lines ("why did the pre-commit
% check fail"), and the excerpt they chose showed those in place of the cause. "" otherwise.
excerpt_keep_(Id, Keep) :-
    (   item_kind(Id, error), rung(Id, l1, Keep0) -> Keep = Keep0 ; Keep = "" ).

% text_tokens_(+Framing, +Id, +Level, +Framed, -Tokens): a rung's own text's tokens, from what
% it costs the frame (its speaker label and the line heading the fact left out).
text_tokens_(Framing, Id, Level, Framed, Tokens) :-
    label_tokens_(Id, LT),
    fact_framing_(Framing, Id, Level, Line),
    Tokens is Framed - LT - Line.

% What an excerpt of Tokens text tokens costs the frame: its speaker label and heading line too.
excerpt_cost_(Framing, Id, Tokens, Framed) :-
    label_tokens_(Id, LT),
    fact_framing_(Framing, Id, excerpt(_, _, _, _), Line),
    Framed is Tokens + LT + Line.

% A record is excerpted when its L0 takes more than a quarter of the segment's budget; at most
% 3 facts a segment are asked for (the best placed first).
excerpt_share_(0.25).
excerpt_facts_(3).

%!  host_excerpts(+Goal:string, +Requests:list, -Results:list) is det.
%
%   Implemented in Python (attention_cloud.excerpt, registered in this module when a home's
%   jump opens). Requests are req(L0Text, RungText, RungTokens, RungFidelity, Caps, Keep):
%   the record's L0, the rung an excerpt would replace (text, tokens, fidelity), a list of
%   token caps and a text whose sentences of L0Text the excerpt keeps first when they fit
%   ("" for none: excerpt_keep_/2); each result is a
%   list of x(Tokens, Fidelity, Text, Kept, Of, Spans), one per distinct excerpt, the
%   largest first: Text verbatim pieces of L0Text holding Goal's terms, Kept of Of sentences
%   (or lines) kept, Spans their [Start, End] character offsets in L0Text. A request
%   core(L0Text, RungText, RungTokens, RungFidelity, Keep) asks for the record's core: the
%   excerpt of its one unit holding most of Goal's weight, alone (with the heading it follows
%   and what Keep pins); its result is [x(...)], or [] when the core holds no more of the goal
%   than the rung.

% Breadcrumbs: the skeleton (L3, or the least detailed rung there is) of what lies just past
% the cutoff, most relevant first, while they fit what the facts left of the budget.
breadcrumbs_(Outside, Segment, Settings, Budget0, Crumbs, Spent) :-
    Settings.edge_framing = edge(Beyond, _),     % their heading, paid when there are any
    Budget is Budget0 - Beyond,
    crumbs_(Outside, Segment, Settings, Budget, 0, _, 8, Crumbs0),
    crumbs_shown_tokens_(Crumbs0, Crumbs),
    foldl(crumb_tokens_sum_, Crumbs, 0, Spent).

% A crumb costs its line and a rung of no fewer than 0 tokens: once the line alone no longer
% fits, no candidate left can (a frame that spent its budget has hundreds past it, each
% costing a look at its rungs, ~2 ms at 100k items).
crumbs_(Cands, Seg, Settings, Budget, S0, S, N, Crumbs) :-
    (   ( Cands == [] ; N =:= 0 ; S0 + Settings.crumb_framing > Budget )
    ->  S = S0, Crumbs = []
    ;   Cands = [c(Id, _, _, _, _)|T],
        crumb_(Id, Seg, Settings, Budget, S0, S1, Crumbs, Crumbs1, N, N1),
        crumbs_(T, Seg, Settings, Budget, S1, S, N1, Crumbs1)
    ).

crumb_(Id, Seg, Settings, Budget, S0, S, Crumbs, Rest, N0, N) :-
    (   record_ceiling_(Settings, Id, Ceiling),
        least_detailed_level_(Id, Ceiling, L),
        fact_tokens_(Id, 0, L, Tok),    % a breadcrumb is the bare rung: no speaker label
        S0 + Tok + Settings.crumb_framing =< Budget
    ->  rung(Id, L, Text0),
        settings_reader_(Settings, Reader),
        reader_text_(Reader, Id, L, Text0, Text),
        source_of_(Reader, Id, Src),
        S is S0 + Tok + Settings.crumb_framing, N is N0 - 1,
        Crumbs = [crumb(Id, Seg, L, Tok, Src, Text)|Rest]   % Tok: the rung's, until counted
    ;   S = S0, N = N0, Crumbs = Rest
    ).

% render_facts_(+Segment, +Framing, +Reader, +Placed, -Facts): the facts as the frame writes
% them, each with the tokens of its text as written (estimate_all_/2, one call for them all):
% the fit priced the speaker's name, the rung and the date note each rounded up (and a
% grantee's rung at the owner's length), 1-2 tokens over on most facts, and the receipt
% reported that figure as spent. The whole is never more than those parts (the estimate is
% subadditive), so the budget the fit kept holds. Without the host's estimator (a bare swipl)
% a fact keeps the fit's figure.
render_facts_(Segment, Framing, Reader, Placed, Facts) :-
    maplist(render_fact_(Segment, Reader), Placed, Facts),
    maplist(fact_text_, Facts, Texts),
    (   estimate_all_(Texts, Tokens)
    ->  maplist(fact_tokens_bound_, Facts, Tokens)
    ;   maplist(fit_tokens_(Framing), Placed, Facts)
    ).

fact_text_(fact(_, _, _, _, _, _, _, _, _, Text, _), Text).

fact_tokens_bound_(fact(_, _, _, _, _, Tokens, _, _, _, _, _), Tokens).

fit_tokens_(Framing, p(c(Id, _, _, _, _), Rung, Framed, _),
            fact(_, _, _, _, _, Tokens, _, _, _, _, _)) :-
    fact_framing_(Framing, Id, Rung, Line),
    Tokens is Framed - Line.

% fact_extra_(+Id, -Extra): what the frame writes around the owner's rung of Id, its speaker's
% name before it and its date note after it (shown_text_/5), as x(NameBytes, NameWords,
% NoteBytes, NoteWords), or none where it writes neither; fails where a name or a note could
% run into the rung's words (a name ends in ": ", a note starts with a space: never so far) or
% the host is not there to size them (text_shape_/5).
fact_extra_(Id, Extra) :-
    (   speaker_label_(Id, Label)
    ->  text_shape_(Label, LabelBytes, LabelWords, _, LabelEnd),
        ( LabelBytes =:= 0 ; LabelEnd =:= 1 )
    ;   LabelBytes = 0, LabelWords = 0
    ),
    date_note_(Id, Note, _),
    (   Note == ""
    ->  NoteBytes = 0, NoteWords = 0
    ;   note_shape_(Id, Note, NoteBytes, NoteWords, NoteStart),
        NoteStart =:= 1
    ),
    (   LabelBytes + NoteBytes =:= 0
    ->  Extra = none
    ;   Extra = x(LabelBytes, LabelWords, NoteBytes, NoteWords)
    ).

% size_tokens_(+Bytes, +Words, -Tokens): the estimate of a text of Bytes UTF-8 bytes and Words
% words (attention_cloud.curate.tokens.tokens_for: max(ceil(bytes/4), ceil(words*1.3))).
size_tokens_(Bytes, Words, Tokens) :-
    Tokens is max((Bytes + 3) // 4, (Words * 13 + 9) // 10).

% text_shape_(+Text, -Bytes, -Words, -Starts, -Ends): Text's UTF-8 bytes and words, and
% whether it starts and ends with a space (1 or 0), as the host's estimator reads them; kept
% per text in a process (a few names: "user: ", "assistant: ", the speakers memory knows).
text_shape_(Text, Bytes, Words, Starts, Ends) :-
    (   text_shape_known_(Text, B, W, S, E)
    ->  true
    ;   current_predicate(atc_hydrate:host_text_shape/2),
        host_text_shape(Text, [B, W, S, E]),
        assertz(text_shape_known_(Text, B, W, S, E))
    ),
    Bytes = B, Words = W, Starts = S, Ends = E.

:- dynamic text_shape_known_/5.     % Text, Bytes, Words, Starts, Ends: the speakers' names

% note_shape_(+Id, +Note, -Bytes, -Words, -Starts): text_shape_/5 of Id's date note, kept per
% item (its note is written once per item in a process, date_note_/3).
note_shape_(Id, Note, Bytes, Words, Starts) :-
    (   note_shape_known_(Id, Note0, B, W, S), Note0 == Note
    ->  true
    ;   current_predicate(atc_hydrate:host_text_shape/2),
        host_text_shape(Note, [B, W, S, _]),
        retractall(note_shape_known_(Id, _, _, _, _)),
        assertz(note_shape_known_(Id, Note, B, W, S))
    ),
    Bytes = B, Words = W, Starts = S.

:- dynamic note_shape_known_/5.     % Id, Note, Bytes, Words, Starts

%!  host_text_shape(+Text:string, -Shape:list(integer)) is det.
%
%   [Bytes, Words, Starts, Ends] of Text: its UTF-8 bytes, its words as estimate_tokens/2
%   counts them, whether it starts and whether it ends with a space (1 or 0). Implemented by
%   the host (attention_cloud.curate.tokens.text_shape), registered in this module when the
%   bridge starts.

% estimate_all_(+Texts, -Tokens): estimate_tokens/2 of each of Texts, in one call to the host;
% fails without the host's estimator. The host registers the call its bridge converts
% cheapest: pyswip converts a list's texts at ~13 µs each (~5 times the estimates), so there
% they cross as one string and the estimates come back as one; janus converts lists in C.
estimate_all_(Texts, Tokens) :-
    (   Texts == []
    ->  Tokens = []
    ;   current_predicate(atc_hydrate:host_estimate_tokens_packed/2)
    ->  length_prefixed_(Texts, Parts),
        atomics_to_string(Parts, Packed),
        host_estimate_tokens_packed(Packed, Answer),
        split_string(Answer, " ", "", Numbers),
        maplist(number_string, Tokens, Numbers)
    ;   current_predicate(atc_hydrate:host_estimate_tokens_all/2)
    ->  host_estimate_tokens_all(Texts, Tokens)
    ;   current_predicate(atc_hydrate:host_estimate_tokens/2)
    ->  maplist(estimate_tokens, Texts, Tokens)
    ).

% length_prefixed_(+Texts, -Parts): each text after its length in characters and a colon,
% so that no text needs escaping, whatever it holds.
length_prefixed_([], []).
length_prefixed_([Text|Texts], [Length, ":", Text|Parts]) :-
    string_length(Text, Length),
    length_prefixed_(Texts, Parts).

%!  host_estimate_tokens_packed(+Packed:string, -Estimates:string) is det.
%
%   estimate_tokens/2 of each text in Packed (each written as its length in characters, a
%   colon and the text), written as one string of decimal numbers separated by single spaces,
%   in the texts' order: implemented by the host (attention_cloud.curate.tokens), registered
%   in this module when the bridge starts (pyswip).

%!  host_estimate_tokens_all(+Texts:list(string), -Tokens:list(integer)) is det.
%
%   estimate_tokens/2 of each of Texts, in one call: implemented by the host
%   (attention_cloud.curate.tokens), registered in this module when the bridge starts (janus).

render_fact_(Segment, Reader, p(c(Id, Score, By0, Hops, _), Rung, _, _),
             fact(Id, Segment, Level, By, Score, _Tokens, Hops, Source, Time, Text, Dirty)) :-
    shown_text_(Reader, Id, Rung, Level, Text), !,
    (   By0 = bridge(_, _) -> By = entity_expansion ; By = By0 ),
    source_of_(Reader, Id, Source),
    time_of_(Id, Time),
    dirty_beliefs_(Id, Dirty).

% shown_text_(+Reader, +Id, +Rung, -Level, -Text): the text the frame writes for Id at Rung
% (a level, or an excerpt: verbatim pieces of L0, which the receipt marks), as Reader reads it,
% after its speaker's name and followed by its date note; Level is the receipt's level.
shown_text_(Reader, Id, Rung, Level, Text) :-
    (   Rung = excerpt(_, _, Text0, _)
    ->  Level = l0
    ;   Level = Rung,
        rung(Id, Level, Text00),
        reader_text_(Reader, Id, Level, Text00, Text0)
    ),
    (   speaker_label_(Id, Label) -> string_concat(Label, Text0, Text1) ; Text1 = Text0 ),
    reader_date_note_(Reader, Id, Note),
    string_concat(Text1, Note, Text).

% exact_rungs_(+Settings, +Placed0, -Placed): the facts placed, each rung priced at what the
% frame writes for it (shown_text_/5 counted whole, and its heading line) rather than at its
% parts each rounded up: its speaker's name, its rung and its date note were 1-2 tokens over
% on most facts (a frame of short turns left about a token a fact unspent while its receipt
% said it was spent, and a frame given the budget its receipt said it cost dropped a fact).
% Only a record with a name or a date note is priced again (the rest are their rungs). The
% owner's rungs whose sizes curation stored are priced by arithmetic (sized_rungs_/5); the
% rest at once, in one call to the host for the frame's placed facts, not one for every
% candidate: the fovea prices hundreds. Never dearer than the price it replaces, so the
% budget the fit keeps holds.
exact_rungs_(Settings, Placed0, Placed) :-
    settings_reader_(Settings, Reader),
    (   Reader == none
    ->  foldl(sized_rungs_(Settings.fact_framing), Placed0, Placed1, Keys0, []),
        sort(Keys0, Keys),
        (   Keys == []
        ->  Placed = Placed1
        ;   counted_rungs_(Settings, Reader, Keys, Placed1, Placed)
        )
    ;   findall(Id-Level,
                ( member(p(c(Id, _, _, _, _), _, _, Rungs), Placed0),
                  label_tokens_(Id, LT), LT > 0,
                  member(Level-_, Rungs) ),
                Keys0),
        sort(Keys0, Keys),
        counted_rungs_(Settings, Reader, Keys, Placed0, Placed)
    ).

% sized_rungs_(+Framing, +Placed0, -Placed, -Unsized0, +Unsized): an owner's fact with its
% rungs priced by arithmetic: the estimate is a function of a text's UTF-8 bytes and words,
% and both add up over its name, its rung (rung_size/4, stored by curation) and its note.
% A rung is priced so only where its price is what its stored sizes give (the sizes are
% that rung's, not a text since replaced); the others are left in Unsized (Id-Level) for the
% host to count, as are all of a fact whose name or note cannot be summed (fact_extra_/2).
sized_rungs_(Framing, P0, P, Unsized0, Unsized) :-
    P0 = p(C, Rung, T0, Rungs0),
    C = c(Id, _, _, _, _),
    (   fact_extra_(Id, Extra)
    ->  (   Extra == none
        ->  P = P0, Unsized0 = Unsized
        ;   record_framing_(Framing, Id, Triple),
            Extra = x(LB, LW, NB, NW),
            size_tokens_(LB, LW, LabelTokens),
            size_tokens_(NB, NW, NoteTokens),
            Parts is LabelTokens + NoteTokens,
            foldl(sized_rung_(Triple, Id, Extra, Parts), Rungs0, Rungs, Unsized0, Unsized),
            (   atom(Rung), memberchk(Rung-T1, Rungs) -> T = T1 ; T = T0 ),
            P = p(C, Rung, T, Rungs)
        )
    ;   findall(Id-Level, member(Level-_, Rungs0), Keys),
        append(Keys, Unsized, Unsized0),
        P = P0
    ).

sized_rung_(Triple, Id, x(LB, LW, NB, NW), Parts, Level-T0, Level-T, Unsized0, Unsized) :-
    fact_framing_(Triple, Id, Level, Line),
    (   rung_size(Id, Level, RB, RW),
        size_tokens_(RB, RW, RungTokens),
        (   RungTokens > 0 -> T0 =:= RungTokens + Parts + Line ; T0 =:= Line )
    ->  Bytes is LB + RB + NB,
        Words is LW + RW + NW,
        size_tokens_(Bytes, Words, Tokens),
        T is min(T0, Tokens + Line),
        Unsized0 = Unsized
    ;   T = T0,
        Unsized0 = [Id-Level|Unsized]
    ).

% counted_rungs_(+Settings, +Reader, +Keys, +Placed0, -Placed): the rungs Keys (Id-Level) of
% the facts placed priced at their texts as written, counted by the host in one call (the
% owner's counts kept between frames, exact_kept_/2); the other rungs as they are.
counted_rungs_(Settings, Reader, Keys, Placed0, Placed) :-
    exact_kept_(Reader, Keep),
    partition(exact_known_in_(Keep), Keys, Known, Unknown),
    findall(Key-Text, ( member(Key, Unknown), Key = Id-Level,
                        shown_text_(Reader, Id, Level, _, Text) ), Texts0),
    pairs_keys_values(Texts0, New, Texts),
    (   estimate_all_(Texts, Tokens)
    ->  pairs_keys_values(NewPairs, New, Tokens),
        exact_keep_(Keep, NewPairs),
        maplist(exact_known_pair_(Keep), Known, KnownPairs),
        append(KnownPairs, NewPairs, Pairs0),
        sort(1, @<, Pairs0, Pairs),
        list_to_assoc(Pairs, Exact),
        maplist(exact_rungs_of_(Settings.fact_framing, Exact), Placed0, Placed)
    ;   Placed = Placed0
    ).

% exact_kept_(+Reader, -Keep): the owner's exact prices are kept between frames while the
% items, their rungs and their relations (a speaker, the days a text names) stand still:
% Keep is keep(Generation), each price kept with the generation it was counted in (a frame of
% another thread may count while one writes), or none for a grantee (whose texts are cut of
% the owner's paths). Counting them again cost a frame of a hundred short turns ~5 ms of
% bridge.
exact_kept_(Reader, Keep) :-
    (   Reader == none
    ->  exact_generation_(G),
        Keep = keep(G)
    ;   Keep = none
    ).

exact_generation_(g(I, T, R, C, Rel)) :-
    modified_(atc_journal:item_(_, _, _, _, _, _, _, _, _, _), I),
    modified_(atc_journal:tombstone_(_, _, _), T),
    modified_(atc_ladder:record_(_, _, _, _, _, _, _, _, _, _, _), R),
    modified_(atc_ladder:curated_(_, _), C),
    modified_(atc_journal:relation_(_, _, _), Rel).

exact_known_in_(keep(G), Id-Level) :-
    exact_known_(Id, Level, G, _).

exact_known_pair_(keep(G), Id-Level, (Id-Level)-Tokens) :-
    exact_known_(Id, Level, G, Tokens), !.

% exact_keep_(+Keep, +Pairs): the prices counted, kept for the frames after: those of another
% generation are dropped first, and all of them past exact_kept_limit_/1.
exact_keep_(none, _).
exact_keep_(keep(G), Pairs) :-
    exact_drop_old_(G),
    (   predicate_property(exact_known_(_, _, _, _), number_of_clauses(N)),
        exact_kept_limit_(Max), N >= Max
    ->  retractall(exact_known_(_, _, _, _))
    ;   true
    ),
    forall(member((Id-Level)-Tokens, Pairs), assertz(exact_known_(Id, Level, G, Tokens))).

% the kept prices are asserted after those before them: the first of another generation,
% while there is one, comes first
exact_drop_old_(G) :-
    (   once(exact_known_(_, _, G0, _)), G0 \== G
    ->  retractall(exact_known_(_, _, G0, _)),
        exact_drop_old_(G)
    ;   true
    ).

:- dynamic exact_known_/4.          % Id, Level, Generation, Tokens: the owner's rungs as written
exact_kept_limit_(200000).

exact_rungs_of_(Framing, Exact, p(C, Rung, T0, Rungs0), p(C, Rung, T, Rungs)) :-
    C = c(Id, _, _, _, _),
    record_framing_(Framing, Id, Triple),   % its heading, told once for all of its rungs
    maplist(exact_rung_(Triple, Exact, Id), Rungs0, Rungs),
    (   atom(Rung), memberchk(Rung-T1, Rungs) -> T = T1 ; T = T0 ).

exact_rung_(Framing, Exact, Id, Level-T0, Level-T) :-
    (   get_assoc(Id-Level, Exact, Tokens)
    ->  fact_framing_(Framing, Id, Level, Line),
        T is min(T0, Tokens + Line)
    ;   T = T0
    ).

% exact_excerpts_(+Settings, +Placed0, -Placed): the facts shown as excerpts priced so too
% (an excerpt's price is its text's, its speaker's name's and its heading's, each rounded up).
exact_excerpts_(Settings, Placed0, Placed) :-
    settings_reader_(Settings, Reader),
    findall(Text, ( member(p(c(Id, _, _, _, _), Rung, _, _), Placed0),
                    Rung = excerpt(_, _, _, _),
                    shown_text_(Reader, Id, Rung, _, Text) ),
            Texts),
    (   Texts \== [],
        estimate_all_(Texts, Tokens)
    ->  foldl(exact_excerpt_(Settings.fact_framing), Placed0, Placed, Tokens, [])
    ;   Placed = Placed0
    ).

exact_excerpt_(Framing, P0, P, Tokens0, Tokens) :-
    (   P0 = p(C, Rung, Framed, Rungs),
        Rung = excerpt(_, _, _, _)
    ->  Tokens0 = [T|Tokens],
        C = c(Id, _, _, _, _),
        fact_framing_(Framing, Id, Rung, Line),
        Exact is min(Framed, T + Line),
        P = p(C, Rung, Exact, Rungs)
    ;   P = P0, Tokens = Tokens0
    ).

% crumbs_shown_tokens_(+Crumbs0, -Crumbs): each breadcrumb with the tokens the receipt reports
% for it: its text as its line writes it (on one line, its runs of white space as one space),
% counted (a grantee's text, cut of the owner's paths, had the owner's rung's figure), all of
% them in one call to the host (a call each was ~3.6 more calls a frame); without the host's
% estimator, each keeps its rung's figure. The crumbs were chosen by their rungs' figures,
% which the counts only report.
crumbs_shown_tokens_(Crumbs0, Crumbs) :-
    maplist(crumb_line_, Crumbs0, Lines),
    (   estimate_all_(Lines, Tokens)
    ->  maplist(crumb_tokens_set_, Crumbs0, Tokens, Crumbs)
    ;   Crumbs = Crumbs0
    ).

crumb_line_(crumb(_, _, _, _, _, Text), Line) :-
    normalize_space(string(Line), Text).

crumb_tokens_set_(crumb(Id, Seg, L, _, Src, Text), Tokens, crumb(Id, Seg, L, Tokens, Src, Text)).

% reader_text_(+Reader, +Id, +Level, +Text0, -Text): a rung as the frame's reader reads it: the
% owner's as it is, a grantee's naming none of the owner's directories (path_disclosure.pl).
% The receipt counts what the reader reads (render_facts_/5, crumbs_shown_tokens_/2).
reader_text_(Reader, Id, Level, Text0, Text) :-
    (   Reader == none -> Text = Text0 ; shown_text(Id, Level, Text0, Text) ).

% reader_entity_(+Reader, +Entity0, -Entity): a bridging named thing as the receipt's reader
% is told it: the owner's as distilled, a grantee's a path's file name alone (an entity can be
% a path on the owner's machine: `/home/priya/private/offer.pdf`).
reader_entity_(Reader, E0, E) :-
    (   Reader == none -> E = E0 ; shown_value(E0, E) ).

% least_detailed_level_(+Id, +Ceiling, -Level): the last of available_levels_/3's levels, found
% from the least detailed up: a frame that spent its budget looks at hundreds of candidates past
% it, most of which hold every rung, and reading all four (the verbatim text among them) to
% keep the last cost ~1 ms of such a frame. Asked with rung_held/2, which copies no text (rung/3
% copied each L3, or rendered the distillation it is, to throw it away).
least_detailed_level_(Id, Ceiling, Level) :-
    level_rank(Ceiling, CR),
    member(Level, [l3, l2, l1, l0]),
    level_rank(Level, R),
    R >= CR,
    rung_held(Id, Level), !.

% source_of_(+Reader, +Id, -Source): the pointer to Id's verbatim record, an arc's by its
% first member's; a grantee's as visible_source/4 tells it ("" where it tells nothing).
source_of_(Reader, Id, Source) :-
    (   cell(Id) -> atom_concat('cell:', Id, A), atom_string(A, Source)
    ;   pointer_item_(Id, Item)
    ->  (   Reader == none -> item_source(Item, Source)
        ;   visible_source(Reader, Id, Item, S) -> Source = S
        ;   Source = ""
        )
    ;   Source = ""
    ).

% the reader a frame is for (none: the owner), where its settings name one
settings_reader_(Settings, Reader) :-
    (   get_dict(reader, Settings, R) -> Reader = R ; Reader = none ).

pointer_item_(Id, Item) :-
    (   item(Id) -> Item = Id
    ;   arc(Id), arc_member(Id, Item) -> true          % arc_member/2's are live items
    ).

% When the record was written: an item's time, an arc's first member's; "" when unknown.
time_of_(Id, Time) :-
    (   item_time(Id, T) -> Time = T
    ;   cell(Id), cell_info(Id, span, [T, _]) -> Time = T
    ;   arc(Id), arc_member(Id, First), item_time(First, T) -> Time = T
    ;   Time = ""
    ).

% Beliefs resting on this item that went dirty (when the belief system is loaded).
% Most memories hold no dirty belief at all: the first look answers for them (as
% marked_dirty_/1), before a search of the beliefs' supports for each fact of the frame.
dirty_beliefs_(Id, Dirty) :-
    (   current_predicate(atc_tms:item_dirty_beliefs/2),
        current_predicate(atc_tms:dirty/4),
        once(atc_tms:dirty(_, _, _, _))
    ->  catch(atc_tms:item_dirty_beliefs(Id, Dirty), _, Dirty = [])
    ;   Dirty = []
    ).

		 /*******************************
		 *        TOKEN ESTIMATE        *
		 *******************************/

%!  estimate_tokens(+Text, -Tokens:integer) is det.
%
%   The project's one token estimator, max(ceil(utf8_bytes / 4), ceil(words * 1.3)), is
%   defined once, in the host (attention_cloud.curate.tokens.estimate_tokens), which the
%   bridge registers as host_estimate_tokens/2 in this module when it starts. Curation stores
%   every rung's count with the rung, so hydration asks only for a rung that has none (an
%   uncurated item's L0). In a bare swipl without the host, calling it raises
%   existence_error(procedure, atc_hydrate:host_estimate_tokens/2). Receipts say their token
%   counts are estimates.
estimate_tokens(Text, Tokens) :-
    host_estimate_tokens(Text, Tokens).


% The optimise flag ends with this file. Loaded from the compiled rules (.qlf) SWI-Prolog runs a
% file's directives without restoring its file-scoped flags at its end: the flag would stay set
% for the files and libraries loaded after it (their arithmetic past arith_guard.pl's check).
:- set_prolog_flag(optimise, false).
