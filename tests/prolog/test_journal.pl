:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module(library(plunit)).

item_term(H, Kind, Text, item(H, src, "s1", 0, Kind, assistant, "goal", "", default, "f:1", Text,
                          [rel(H, touches_file, 'a.py')])).

fresh :-
    store_reset.

%  scratch_home(+Base, -Dir): a new directory for a store, removed when the test run halts
%  (tmp_file/2 removes only files it named, so a store's folder would stay in the temp dir).
scratch_home(Base, Dir) :-
    tmp_file(Base, Dir),
    make_directory(Dir),
    at_halt(catch(delete_directory_and_contents(Dir), _, true)).

:- begin_tests(journal, [setup(fresh), cleanup(fresh)]).

test(upsert_adds_once, [setup(fresh), true(N1-N2 == 1-0)]) :-
    item_term(h1, error, "boom", I),
    journal_add_items([I], C1), N1 = C1.new,
    journal_add_items([I], C2), N2 = C2.new.

test(vocabulary, [setup(fresh), true(K-G-P-F == error-"goal"-"f:1"-'a.py')]) :-
    item_term(h1, error, "boom", I),
    journal_add_items([I], _),
    item_kind(h1, K), item_goal(h1, G), item_source(h1, P), relation(h1, touches_file, F).

% A pointer Source:Line whose source is the item's own is stored as the line alone (an
% integer) and written back as text when read.
test(a_line_pointer_reads_back_as_source_and_line, [setup(fresh), true(P-H == "src:7"-h1)]) :-
    journal_add_items([item(h1, src, "s1", 0, turn, user, "", "", default, "src:7", "t", [])], _),
    item_source(h1, P),
    once(item_source(H, "src:7")).

% Where an item was read, without the directories of the owner's that hold its file: the
% place after the name stays (a line, a line range, a JSON pointer that may hold the name
% again), a relative source name under an absolute pointer too; a pointer naming another
% file tells nothing.
local_source_(Src, Pointer, Local) :-
    store_reset,
    journal_add_items([item(h1, Src, "s1", 0, turn, user, "", "", default, Pointer, "t", [])], _),
    (   item_local_source(h1, Local) -> true ; Local = none ).

test(a_local_source_drops_the_owners_directories,
     [true(Ls == ["s.jsonl:7", "s.jsonl:3-9", "c.json#/0/c.json", "a.md:2", "<text>:4",
                  "x.json:1#/y", "n.txt:5", none])]) :-
    maplist([Src-P, L]>>local_source_(Src, P, L),
            [ '/home/alice/acme/s.jsonl'-"/home/alice/acme/s.jsonl:7",
              '/home/alice/acme/s.jsonl'-"/home/alice/acme/s.jsonl:3-9",
              '/home/alice/c.json'-"/home/alice/c.json#/0/c.json",
              'notes/a.md'-"/home/alice/notes/a.md:2",
              '<text>'-"<text>:4",
              'C:\\Users\\alice\\x.json'-"C:\\Users\\alice\\x.json:1#/y",
              '/home/alice/n.txt/n.txt'-"/home/alice/n.txt/n.txt:5",
              '/home/alice/a.md'-"/home/alice/b.md:2"
            ], Ls),
    store_reset.

test(a_paths_last_name, [true(Ns == [acme, acme, 'x.json', '<text>'])]) :-
    maplist(path_last_name, ["/home/alice/acme", "/home/alice/acme/", "C:\\a\\x.json",
                             "<text>"], Ns).

test(a_path_of_separators_has_no_last_name, [fail]) :-
    path_last_name("/", _).

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

test(erase_keeps_only_the_audit_record,
     [setup(fresh), true(Left-D-Who == []-"sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"-"ann")]) :-
    item_term(h1, error, "abc", I),
    journal_add_items([I], _),
    journal_erase(h1, "ann", "secret", forgotten(h1, D, _, Who, "secret")),
    findall(X, ( atc_journal:item_(h1, _, _, _, _, _, _, _, _, _), X = item
               ; atc_journal:text_(h1, _), X = text
               ; atc_journal:relation_(h1, _, _), X = rel ), Left).

test(erased_items_are_refused_by_handle_and_by_text, [setup(fresh), true(C1-C2 == 1-1)]) :-
    item_term(h1, error, "abc", I),
    journal_add_items([I], _),
    journal_erase(h1, "ann", "secret", _),
    journal_add_items([I], Counts1), C1 = Counts1.forgotten,
    item_term(h9, error, "abc", J),                 % same text under another handle
    journal_add_items([J], Counts2), C2 = Counts2.forgotten,
    \+ item(h9).

test(erased_texts_are_refused_in_parts_and_only_in_parts,
     [setup(fresh), true(Refused-Kept == [yes, yes, yes, no, no]-[])]) :-
    item_term(h1, turn, "my card is 4111\n  \n**Tom:** which bank?", I),
    journal_add_items([I], _),
    journal_erase(h1, "ann", "secret", _),
    maplist([T, R]>>( journal_refuses(h9, T) -> R = yes ; R = no ),
            ["my card is 4111", "which bank?", "which bank?\n my card is 4111 ",
             "my card is 4111\nand more", ""], Refused),
    findall(X, ( atc_journal:forgotten_line_(X), \+ integer(X) ), Kept).    % digests only

test(erased_text_read_again_at_its_place_is_refused_with_what_follows, [setup(fresh),
     true(C1-C2 == 1-0)]) :-
    I = item(h1, src, "s1", 0, turn, user, "", "", default, "src:3-4", "the card\nTom: which bank", []),
    journal_add_items([I], _),
    journal_erase(h1, "ann", "secret", _),
    J = item(h2, src, "s1", 1, turn, user, "", "", default, "src:4-5", "which bank\nnew line", []),
    journal_add_items([J], Counts1), C1 = Counts1.forgotten,     % the part at its place
    K = item(h3, src, "s1", 2, turn, user, "", "", default, "src:9-10", "which bank\nnew line", []),
    journal_add_items([K], Counts2), C2 = Counts2.forgotten.     % elsewhere: another text

test(inherited_goal_replaced, [setup(fresh), true(G == "[forgotten]")]) :-
    item_term(h1, error, "abc", I),
    journal_add_items([I], _),
    journal_replace_goal('s1', "goal", "[forgotten]", [h1]),
    item_goal(h1, G).

test(erase_unknown, [setup(fresh), throws(error(existence_error(item, nope), _))]) :-
    journal_erase(nope, "a", "b", _).

% The names kept after each write (the new items' speakers added, or all read again) are those
% of every speaker link, whatever the writes: turns of one to twenty items with speakers, a
% speaker linked to an older item, erasures.
test(speakers_after_any_writes, [setup(fresh), true(Bad == [])]) :-
    set_random(seed(5)),
    numlist(1, 100, Steps),
    foldl(speaker_step_, Steps, 0-[], _-Bad0),
    reverse(Bad0, Bad).

speaker_step_(Step, N0-Bad0, N-Bad) :-
    random_between(1, 10, Op),
    (   Op =< 7
    ->  random_between(1, 20, K),
        findall(item(H, src, "s1", Seq, turn, user, "", "", default, "f:1", Text, Rels),
                ( between(1, K, I), Seq is N0 + I, format(atom(H), "h~w", [Seq]),
                  format(string(Text), "turn ~w", [Seq]),
                  Who is Seq mod 7,
                  (   Who =:= 0 -> Rels = []
                  ;   format(atom(Name), "person~w", [Who]), Rels = [rel(H, speaker, Name)]
                  ) ),
                Items),
        journal_add_items(Items, _),
        N is N0 + K
    ;   Op =< 8, N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        format(atom(Name), "late~w", [Step]),
        ( item(H) -> journal_add_relation(H, speaker, Name) ; true ),
        N = N0
    ;   N0 > 0
    ->  random_between(1, N0, Seq), format(atom(H), "h~w", [Seq]),
        ( item(H) -> journal_erase(H, "test", "test", _) ; true ),
        N = N0
    ;   N = N0
    ),
    journal_speakers(Kept),
    findall(X, relation(_, speaker, X), Xs), sort(Xs, All),
    (   Kept == All -> Bad = Bad0 ; Bad = [Step-Op|Bad0] ).

% the live item at a session's position: the cell walk's turns before and after a seed
test(session_item_is_the_live_item_at_a_sessions_position,
     [setup(fresh), true(Found-Gone-Other == [h2]-[]-[h3])]) :-
    Item = item(H, src, S, Q, turn, user, "goal", "", default, "f:1", "text", []),
    forall(member(H-S-Q, [h1-"s1"-0, h2-"s1"-1, h3-"s2"-1, h4-"s1"-2]),
           journal_add_items([Item], _)),
    findall(X, session_item(s1, 1, X), Found),
    journal_tombstone(h4, "test"),
    findall(X, session_item(s1, 2, X), Gone),
    findall(X, session_item(s2, 1, X), Other).

% the people who took the user's role: a name with only assistant items, one whose user item
% was erased and one memory does not know are not among them
test(user_speakers_are_the_names_of_live_user_items,
     [setup(fresh), true(Users == ["Priya"])]) :-
    forall(nth1(Q, [u1-user-'Priya', u2-assistant-'Daniel', u3-user-'Dana',
                    u4-assistant-'Priya'], H-Role-Name),
           journal_add_items([item(H, src, "s1", Q, turn, Role, "", "", default, "f:1", "text",
                                   [rel(H, speaker, Name)])], _)),
    journal_erase(u3, "test", "test", _),
    journal_user_speakers(["Daniel", 'Priya', "Dana", "Nobody"], Users).

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

% A commit of a batch that logged nothing (one aborted, or one that changed nothing) appends no
% `commit(N).` marker: a failed `atc curate` left one in the journal for every run.
test(an_empty_batch_appends_no_commit_marker,
     [setup(fresh), cleanup(( store_close, fresh )), true(After == Before)]) :-
    scratch_home(atc_store, Dir),
    store_open(Dir, _),
    item_term(h1, error, "boom", I1), item_term(h2, error, "bang", I2),
    journal_add_items([I1], _), store_commit,
    directory_file_path(Dir, 'journal.pl', Journal),
    read_file_to_string(Journal, Before, []),
    store_commit,
    journal_add_items([I2], _), store_abort,
    store_commit,
    read_file_to_string(Journal, After, []).

test(a_batch_after_an_empty_commit_is_numbered_next,
     [setup(fresh), cleanup(( store_close, fresh )), true(Markers == [1, 2])]) :-
    scratch_home(atc_store, Dir),
    store_open(Dir, _),
    item_term(h1, error, "boom", I1), item_term(h2, error, "bang", I2),
    journal_add_items([I1], _), store_commit,
    store_commit,
    journal_add_items([I2], _), store_commit,
    directory_file_path(Dir, 'journal.pl', Journal),
    read_file_to_string(Journal, Text, []),     % record blocks are no terms: lines, then
    split_string(Text, "\n", "", Lines),
    findall(N, ( member(L, Lines), string_concat("commit(", Rest, L),
                 string_concat(Digits, ").", Rest), number_string(N, Digits) ), Markers).

% A compacted journal holds what memory holds, and nothing erased: reopened from it alone
% (no snapshot), memory is the same; the file starts with its epoch.
test(compacted_journal_replays_to_the_same_memory,
     [setup(fresh), cleanup(( store_close, fresh )), true(Ok-Epoch1 == true-Epoch)]) :-
    scratch_home(atc_store, Dir),
    store_open(Dir, _),
    item_term(h1, error, "zorblax secret", I1), item_term(h2, error, "kept text", I2),
    journal_add_items([I1, I2], _), store_commit,
    journal_erase(h1, "ann", "why", _), store_commit,
    findall(F, atc_store:( durable_predicate(M:N/A), functor(F0, N, A), clause(M:F0, true),
                           F = M:F0 ), Before),
    directory_file_path(Dir, 'journal.compact', Tmp),
    store_compact(Tmp, Info), Epoch = Info.epoch,
    read_file_to_string(Tmp, Text, []),
    \+ sub_string(Text, _, _, _, "zorblax"),
    sub_string(Text, 0, _, _, "epoch("),
    directory_file_path(Dir, 'journal.pl', Journal),
    rename_file(Tmp, Journal),
    store_adopt_compacted(Epoch),
    store_open(Dir, _), store_epoch(Epoch1),
    findall(F, atc_store:( durable_predicate(M:N/A), functor(F0, N, A), clause(M:F0, true),
                           F = M:F0 ), After),
    msort(Before, B), msort(After, Af),
    ( B == Af -> Ok = true ; Ok = false ).

:- end_tests(store).

:- begin_tests(item_records, [setup(fresh), cleanup(fresh)]).

% Text that looks like journal syntax, newlines and a field holding the first separator.
awkward_item(item(h5, 'src dir/a.jsonl', 'S 1', 3, error, tool, "fix \u001f it", "",
                  default, "src dir/a.jsonl:4", "ok.\ncommit(9).\nb(atc_journal:item,3).\n'q' \"d\"",
                  [rel(h5, touches_file, 'a b.py'), rel(h5, touches_file, 'a b.py'),
                   rel(h5, mentions, 'KeyError')])).

test(wire_round_trip, [true(Back == Stored)]) :-
    awkward_item(Item0),
    atc_journal:checked_item_(Item0, Item),
    atc_journal:stored_item_(Item, Stored),
    atc_journal:item_wire_(Stored, Wire),
    atc_journal:wire_item_(Wire, Back).

test(wire_separator_avoids_field_text, [true(Sep \== "\u001f")]) :-
    awkward_item(Item0),
    atc_journal:checked_item_(Item0, Item),
    atc_journal:stored_item_(Item, Stored),
    atc_journal:item_wire_(Stored, Wire),
    sub_string(Wire, 0, 1, _, Sep).

test(first_record_form_still_replays, [setup(fresh), true(Facts-Source == 4-"a.jsonl:3")]) :-
    Wire = "\u001fh7\u001fa.jsonl\u001fS\u001f2\u001fturn\u001fuser\u001fg\u001f\u001fdefault\u001fa.jsonl:3\u001ftext\u001fh7\u001fcwd\u001f/w\u001fh7\u001ftool\u001fBash",
    atc_store:replay_record(atc_journal:item, Wire, Facts),
    item_source(h7, Source).

test(bad_wire, [throws(error(syntax_error(bad_wire_item), _))]) :-
    journal_add_encoded(["\u001fh1\u001fonly three"], _).

test(record_replays_to_the_same_facts, [setup(fresh), true(After == Before)]) :-
    awkward_item(Item),
    scratch_home(home, Dir),
    store_open(Dir, _),
    journal_add_items([Item], _),
    store_commit,
    facts_of_(h5, Before),
    store_open(Dir, Info),
    assertion(Info.replayed == 6),      % segment_, item_, text_, two distinct relations,
                                        % and its session's (empty) cwd
    facts_of_(h5, After),
    store_close.

test(abort_removes_a_recorded_item, [setup(fresh), true(Facts == [])]) :-
    awkward_item(Item),
    journal_add_items([Item], _),
    store_abort,
    facts_of_(h5, Facts).

% An aborted batch leaves the journal's bytes as they were (it was marked by an abort(N) line:
% the same state, other bytes), and the next batch committed after it replays alone.
test(abort_leaves_the_journal_bytes_unchanged,
     [setup(fresh), cleanup(( store_close, fresh )), true(Same-Items == true-[h1, h3])]) :-
    scratch_home(home, Dir),
    store_open(Dir, _),
    item_term(h1, error, "kept", I1), item_term(h2, error, "dropped", I2),
    item_term(h3, error, "after", I3),
    journal_add_items([I1], _), store_commit,
    directory_file_path(Dir, 'journal.pl', Journal),
    read_file_to_codes(Journal, Before, [type(binary)]),
    journal_add_items([I2], _), store_abort,
    read_file_to_codes(Journal, After, [type(binary)]),
    ( Before == After -> Same = true ; Same = false ),
    journal_add_items([I3], _), store_commit,
    store_open(Dir, _),
    findall(H, item(H), Items0), msort(Items0, Items).

test(torn_record_is_not_replayed, [setup(fresh), true(Facts-Torn == []-true)]) :-
    awkward_item(Item),
    scratch_home(home, Dir),
    store_open(Dir, _),
    journal_add_items([Item], _),
    store_commit,
    store_close,
    directory_file_path(Dir, 'journal.pl', Journal),
    size_file(Journal, Size),
    Cut is Size - 20,                           % inside the record block, before commit(1)
    read_file_to_string(Journal, Text, [encoding(utf8)]),
    sub_string(Text, 0, Cut, _, Prefix),
    setup_call_cleanup(open(Journal, write, S, [encoding(utf8)]), write(S, Prefix), close(S)),
    store_open(Dir, Info),
    facts_of_(h5, Facts),
    ( Info.committed_bytes < Info.file_bytes -> Torn = true ; Torn = false ),
    store_close.

facts_of_(H, Facts) :-
    findall(F, ( F = atc_journal:item_(H, _, _, _, _, _, _, _, _, _), call(F)
               ; F = atc_journal:text_(H, _), call(F)
               ; F = atc_journal:relation_(H, _, _), call(F) ), Facts).

pointer_item(H, P, item(H, 'dir/a.jsonl', "s", 0, turn, user, "g", "", default, P, "t", [])).

test(pointers_read_back_exactly,
     [setup(fresh), true(Back == ["dir/a.jsonl:12", "dir/a.jsonl:012", "dir/a.jsonl:+1",
                                  "dir/a.jsonl#/messages/3", "dir/a.jsonl:4#/messages/0",
                                  "other.jsonl:5"])]) :-
    Ps = ["dir/a.jsonl:12", "dir/a.jsonl:012", "dir/a.jsonl:+1", "dir/a.jsonl#/messages/3",
          "dir/a.jsonl:4#/messages/0", "other.jsonl:5"],
    foldl([P, I0, I]>>( atom_concat(p, I0, H), pointer_item(H, P, Item),
                        journal_add_items([Item], _), I is I0 + 1 ), Ps, 0, _),
    findall(P, ( between(0, 5, I), atom_concat(p, I, H), item_source(H, P) ), Back).

test(items_are_found_by_their_pointer,
     [setup(fresh), true(Found == [p0-"dir/a.jsonl:12", p1-"dir/a.jsonl:012",
                                   p2-"dir/a.jsonl#/messages/3"])]) :-
    Ps = ["dir/a.jsonl:12", "dir/a.jsonl:012", "dir/a.jsonl#/messages/3"],
    foldl([P, I0, I]>>( atom_concat(p, I0, H), pointer_item(H, P, Item),
                        journal_add_items([Item], _), I is I0 + 1 ), Ps, 0, _),
    findall(H-P, ( member(P, Ps), item_source(H, P) ), Found),
    assertion(\+ item_source(_, "dir/a.jsonl:13")).

test(a_line_pointer_is_stored_as_its_line, [setup(fresh), true(Stored == 12)]) :-
    pointer_item(p1, "dir/a.jsonl:12", Item),
    journal_add_items([Item], _),
    atc_journal:item_(p1, _, _, _, _, _, _, _, _, Stored).

test(goal_text_is_shared_and_reads_back, [setup(fresh), true(Gs == ["fix it", "fix it", ""])]) :-
    forall(member(H-G, [g1-"fix it", g2-"fix it", g3-""]),
           ( item_term(H, turn, "x", item(H, S, Se, Q, K, R, _, T, Sg, P, X, _)),
             journal_add_items([item(H, S, Se, Q, K, R, G, T, Sg, P, X, [])], _) )),
    findall(G, ( member(H, [g1, g2, g3]), item_goal(H, G) ), Gs),
    assertion(item_goal(g1, "fix it")),
    assertion(\+ item_goal(g1, "other")).

:- end_tests(item_records).

% Items of two sessions with every case of a working directory: the session's (h1 sets it,
% h2 shares it), none (h3), another (h4), two (h5); a session whose first item has none (h6).
cwd_item(H, Ses, Cwds, item(H, src, Ses, Seq, turn, user, "g", "", default, Pointer, "t", Rels)) :-
    sub_atom(H, 1, _, 0, Digits), atom_number(Digits, Seq),
    format(string(Pointer), "src:~d", [Seq]),
    findall(rel(H, cwd, C), member(C, Cwds), Rels0),
    append(Rels0, [rel(H, tool, 'Bash')], Rels).

cwd_items([ h1-"s1"-['/a'], h2-"s1"-['/a'], h3-"s1"-[], h4-"s1"-['/b'], h5-"s1"-['/a', '/c'],
            h6-"s2"-[], h7-"s2"-['/a'] ]).

cwd_links_expected([h1-'/a', h2-'/a', h4-'/b', h5-'/a', h5-'/c', h7-'/a']).

add_cwd_items :-
    cwd_items(Specs),
    findall(I, ( member(H-S-C, Specs), cwd_item(H, S, C, I) ), Items),
    journal_add_items(Items, _).

% Every way of asking: by subject, by object, neither.
cwd_answers(All, BySubject, ByObject) :-
    findall(S-O, relation(S, cwd, O), All0), msort(All0, All),
    findall(S-O, ( member(S, [h1, h2, h3, h4, h5, h6, h7]), relation(S, cwd, O) ), B0),
    msort(B0, BySubject),
    findall(S-O, ( member(O, ['/a', '/b', '/c']), relation(S, cwd, O) ), O0),
    msort(O0, ByObject).

:- begin_tests(cwd_links, [setup(fresh), cleanup(fresh)]).

test(each_item_has_exactly_its_own_cwd, [setup(fresh), true(All-BySubject-ByObject == E-E-E)]) :-
    add_cwd_items,
    cwd_links_expected(E),
    cwd_answers(All, BySubject, ByObject).

test(the_sessions_cwd_is_not_stored_per_item, [setup(fresh), true(Stored == [h4-'/b', h5-'/a', h5-'/c', h7-'/a'])]) :-
    add_cwd_items,
    findall(S-O, ( atc_journal:relation_(S, P, O), P == cwd ), Stored0),
    msort(Stored0, Stored).

test(replay_and_erasure_keep_them_exact, [setup(fresh), true(Replayed-Erased == E-E2)]) :-
    scratch_home(home, Dir),
    store_open(Dir, _),
    add_cwd_items,
    store_commit,
    store_open(Dir, _),
    cwd_answers(Replayed, _, _),
    cwd_links_expected(E),
    journal_erase(h1, "me", "test", _),
    store_commit,
    store_open(Dir, _),
    cwd_answers(Erased, _, _),
    store_close,
    exclude(==(h1-'/a'), E, E2).

test(a_second_cwd_added_later_keeps_the_first, [setup(fresh), true(Cwds == ['/a', '/z'])]) :-
    add_cwd_items,
    journal_add_relation(h2, cwd, '/z'),
    journal_add_relation(h1, cwd, '/a'),
    findall(C, relation(h2, cwd, C), Cwds0), msort(Cwds0, Cwds),
    assertion(\+ ( atc_journal:relation_(h1, P, _), P == cwd )).

test(an_aborted_session_leaves_no_cwd, [setup(fresh), true(Left == [])]) :-
    cwd_item(h8, "s3", ['/q'], I),
    journal_add_items([I], _),
    store_abort,
    findall(S-C, atc_journal:session_cwd_(S, C), Left).

test(journal_links_answer_implied_cwds, [setup(fresh), true(L == E)]) :-
    add_cwd_items,
    findall(S-O, journal_links(cwd, S, O), L0), msort(L0, L),
    cwd_links_expected(E).

:- end_tests(cwd_links).

% Superseding what a grown file's earlier reading gave (journal_supersede/5), and the fields of
% what it gives again (journal_refresh/3).
:- begin_tests(supersede, [setup(fresh), cleanup(fresh)]).

read_item(H, Src, Seg, Pointer, I) :-
    item(H, Src, "s1", 0, turn, user, "g", "", Seg, Pointer, "text", []) = I.

read_items :-
    findall(I, ( member(H-Src-Seg-P, [ old-'c.txt'-default-"c.txt:4",       % superseded
                                       kept-'c.txt'-default-"c.txt:1",      % read again
                                       range-'c.txt'-default-"c.txt:2-3",   % a turn's lines
                                       later-'c.txt'-default-"c.txt:9",     % past the reading
                                       other-'d.txt'-default-"d.txt:4",     % another file
                                       work-'c.txt'-work-"c.txt:5",         % another segment
                                       json-'c.txt'-default-"c.txt#/0" ]),  % no line
                 read_item(H, Src, Seg, P, I) ),
            Items),
    journal_add_items(Items, _).

test(only_the_files_lines_not_read_again, [true(Gone-Live == [old, range]-[json, kept, later, other, work])]) :-
    read_items,
    journal_supersede('c.txt', default, [kept], 6, Gone),
    findall(H, item(H), Live0), msort(Live0, Live).

test(a_superseded_item_read_again_is_live_again, [true(New-Live == [old]-true)]) :-
    read_items,
    journal_supersede('c.txt', default, [kept], 6, _),
    read_item(old, 'c.txt', default, "c.txt:4", I),
    journal_add_items([I], Counts), New = Counts.new_handles,
    ( item(old) -> Live = true ; Live = false ).

% A file in a folder whose name holds `#` or `:` (`C#/`, `notes:old/`): its lines are read
% after the file's own name, not at the first `#` of the path.
test(a_path_holding_hash_or_colon_keeps_its_lines, [true(Gone == [hash_range, hash_turn, colon_range])]) :-
    findall(I, ( member(H-Src-P, [ hash_range-'C#/c.txt'-"C#/c.txt:2-3",
                                   hash_turn-'C#/c.txt'-"C#/c.txt:4#/content/0",
                                   hash_kept-'C#/c.txt'-"C#/c.txt:1",
                                   hash_later-'C#/c.txt'-"C#/c.txt:8-9",
                                   colon_range-'n:1/c.txt'-"n:1/c.txt:2-3" ]),
                 read_item(H, Src, default, P, I) ),
            Items),
    journal_add_items(Items, _),
    journal_supersede('C#/c.txt', default, [hash_kept], 6, Hash),
    journal_supersede('n:1/c.txt', default, [hash_kept], 6, Colon),
    append(Hash, Colon, Gone).

% The wire string (the host's format) of a read of `kept` at Seq and Time with Links.
kept_read_again(Seq, Time, Links, Wire) :-
    read_item(kept, 'c.txt', default, "c.txt:1", item(H, Src, _, _, K, R, G, _, Seg, P, X, _)),
    atc_journal:stored_item_(item(H, Src, s1, Seq, K, R, G, Time, Seg, P, X, Links), Stored),
    atc_journal:item_wire_(Stored, Wire).

test(a_reading_that_moves_an_item_gives_it_its_place_time_and_links,
     [setup(fresh), true(Changed-Seq-Time-Links == [kept]-3-"2023-02-01T13:56:03Z"-[in_session-s1, speaker-'Priya'])]) :-
    read_items,
    journal_add_relation(kept, mentions, 'Lisbon'),     % the old reading's link, not the new's
    kept_read_again(3, "2023-02-01T13:56:03Z", [rel(kept, speaker, 'Priya')], Wire),
    journal_refresh([Wire], [kept], Changed),
    item_seq(kept, Seq), item_time(kept, Time),
    findall(P-O, relation(kept, P, O), Links0), msort(Links0, Links).

test(an_item_read_as_before_or_not_in_keep_is_left_alone, [setup(fresh), true(Changed-Seq == []-0)]) :-
    read_items,
    kept_read_again(0, "", [], Same),
    kept_read_again(5, "", [], Moved),
    journal_refresh([Same], [kept], C1),
    journal_refresh([Moved], [later], C2),                % kept is not one the reading gave
    append(C1, C2, Changed),
    item_seq(kept, Seq).

test(an_item_given_again_after_it_was_forgotten_stays_forgotten, [true(Item == none)]) :-
    read_items,
    journal_tombstone(old, "by hand"),
    read_item(old, 'c.txt', default, "c.txt:4", I),
    journal_add_items([I], _),
    ( item(old) -> Item = old ; Item = none ).

% A JSON document written anew: the calls its new reading answers supersede their reading
% without a result (journal_supersede_answered/4), wherever their pointer points.
call_item(H, Src, Text, Rels, item(H, Src, "s1", 0, tool_result, tool, "g", "", default,
                                   "c.json#/1", Text, Rels)).

test(a_call_answered_by_the_new_reading_is_superseded,
     [setup(fresh), true(Gone-Live == [open]-[open2, result])]) :-
    Cut = "$ pytest -q\n(no result in the transcript)",
    call_item(open, 'c.json', Cut, [rel(open, no_result, true)], Open),
    call_item(open2, 'c.json', "$ make lint\n(no result in the transcript)",
              [rel(open2, no_result, true)], Open2),          % still running: stays
    call_item(result, 'c.json', "$ pytest -q\n12 passed", [], Result),
    journal_add_items([Open, Open2], _),
    journal_add_items([Result], _),
    journal_supersede_answered('c.json', default, [open2, result], Gone),
    findall(H, item(H), Live0), msort(Live0, Live).

% Another export of the same conversation read (a Messenger thread's JSON after its HTML page):
% the items memory held from the page's source, in the sessions the new reading gives, go; those
% of another session, another file, or that the reading gives again stay
% (journal_supersede_sources/3); journal_session_sources/2 lists what each session was read from.
test(another_exports_items_of_the_same_sessions_go,
     [true(Before-Gone-Live == [x1-'a.html', x1-'a.json', x2-'a.html']
                               -[page]-[json, other_session, shared])]) :-
    Mine = [page-'a.html'-x1, shared-'a.html'-x1, other_session-'a.html'-x2, json-'a.json'-x1],
    findall(I, ( member(H-Src-Ses, Mine),
                 I = item(H, Src, Ses, 0, turn, user, "g", "", default, "p", "text", []) ),
            Items),
    journal_add_items(Items, _),
    journal_session_sources([x1, x2], Before),
    journal_supersede_sources(['a.html'], [json, shared], Gone),
    findall(H, ( member(H-_-_, Mine), item(H) ), Live0), msort(Live0, Live).

:- end_tests(supersede).

% A transcript read at a new path gives items held from a file no longer there (its folder
% moved): they point at the new place (journal_follow_moved/2); a copy beside a file still
% there leaves them pointing at it.
:- begin_tests(follow_moved, [setup(fresh), cleanup(fresh)]).

moved_wire(H, Src, Pointer, Wire) :-
    atc_journal:stored_item_(item(H, Src, s1, 0, turn, user, "g", "", default, Pointer,
                                  "text", []), Stored),
    atc_journal:item_wire_(Stored, Wire).

held_at(Src) :-
    atom_concat(Src, ':1', P0), atom_string(P0, P),
    journal_add_items([item(kept, Src, "s1", 0, turn, user, "g", "", default, P, "text", [])], _).

test(an_item_of_a_file_gone_points_at_its_new_place,
     [true(Moved-Pointer-Session == [kept]-"/nowhere/b/c.txt:1"-s1)]) :-
    held_at('/nowhere/a/c.txt'),
    moved_wire(kept, '/nowhere/b/c.txt', "/nowhere/b/c.txt:1", Wire),
    journal_follow_moved([Wire], Moved),
    item_source(kept, Pointer), item_session(kept, Session).

test(an_item_of_a_file_still_there_keeps_its_pointer,
     [setup(fresh), cleanup(fresh), true(Moved-Pointer == []-Old)]) :-
    tmp_file_stream(text, Here, Out), close(Out),
    held_at(Here),
    atom_concat(Here, ':1', OldA), atom_string(OldA, Old),
    moved_wire(kept, '/nowhere/copy/c.txt', "/nowhere/copy/c.txt:1", Wire),
    journal_follow_moved([Wire], Moved),
    item_source(kept, Pointer),
    delete_file(Here).

test(an_item_read_at_its_own_path_or_new_is_left_alone, [true(Moved == [])]) :-
    held_at('/nowhere/a/c.txt'),
    moved_wire(kept, '/nowhere/a/c.txt', "/nowhere/a/c.txt:1", Same),
    moved_wire(fresh_one, '/nowhere/b/c.txt', "/nowhere/b/c.txt:2", New),
    journal_follow_moved([Same, New], Moved).

test(the_places_of_erased_items_in_the_gone_file_move_with_it,
     [true(Places == ['/nowhere/b/c.txt'-3-4])]) :-
    held_at('/nowhere/a/c.txt'),
    assertz(atc_journal:forgotten_place_(erased, '/nowhere/a/c.txt', 3, 4)),
    moved_wire(kept, '/nowhere/b/c.txt', "/nowhere/b/c.txt:1", Wire),
    journal_follow_moved([Wire], _),
    findall(S-F-L, atc_journal:forgotten_place_(erased, S, F, L), Places).

:- end_tests(follow_moved).
