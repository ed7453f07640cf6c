:- use_module('../../rules/store').
:- use_module('../../rules/journal').
:- use_module('../../rules/path_disclosure').
:- use_module(library(plunit)).

% An item read from /home/marco/notes/s.jsonl at line 5, in /home/marco/projects/spotter,
% touching a file outside that directory.
fresh :-
    store_reset,
    journal_add_items(
        [item(h1, '/home/marco/notes/s.jsonl', "s1", 1, file_op, tool, "", "", default,
              "/home/marco/notes/s.jsonl:5", "read /home/marco/.cache/x/cache.py",
              [rel(h1, cwd, '/home/marco/projects/spotter'),
               rel(h1, touches_file, '/home/marco/.cache/x/cache.py')])], _).

:- begin_tests(path_disclosure, [setup(fresh), cleanup(store_reset)]).

test(l0_and_l1_are_the_owners_words, [true(T == "read /home/marco/a/b.py")]) :-
    shown_text(h1, l1, "read /home/marco/a/b.py", T).

% A URL, an API's route, a slash command and a word with a slash are no paths of the owner's.
test(l2_names_files_not_directories,
     [true(T == "read cache.py, then y.txt (b.md) a.txt in ~ https://x.org/a/b /v1/charges /etc/hosts /help and/or")]) :-
    shown_text(h1, l2, "read /home/marco/.cache/x/cache.py, then ~/y.txt (/srv/www/b.md) C:\\Users\\marco\\a.txt in /home/marco https://x.org/a/b /v1/charges /etc/hosts /help and/or", T).

test(l3_loses_its_pointer_and_home_tags, [true(T == "#file_op #py | cache.py")]) :-
    shown_text(h1, l3, "s.jsonl:5 #file_op #home #marco #py #spotter | /home/marco/.cache/x/cache.py", T).

test(l3_of_another_text_keeps_its_first_word, [true(T == "s.jsonl is the log")]) :-
    shown_text(other, l3, "s.jsonl is the log", T).

test(relation_paths_by_ceiling,
     [true(Ps == ['~/.cache/x/cache.py', '~/.cache/x/cache.py', 'cache.py', 'cache.py',
                  'src/a.py', 'KeyError', '/tmp/t/x.out', 'x.out'])]) :-
    findall(P, ( member(L-O, [l0-'/home/marco/.cache/x/cache.py', l1-'/home/marco/.cache/x/cache.py',
                              l2-'/home/marco/.cache/x/cache.py', l3-'/home/marco/.cache/x/cache.py',
                              l3-'src/a.py', l3-'KeyError', l1-'/tmp/t/x.out', l3-'/tmp/t/x.out']),
                 shown_path(L, O, P) ),
            Ps).

test(a_home_tag_is_no_distillation, [fail]) :-
    shown_field(h1, tag, "marco", _).

test(another_tag_stays, [true(V == "cache")]) :-
    shown_field(h1, tag, "cache", V).

:- end_tests(path_disclosure).
