:- module(atc_path_disclosure,
          [ shown_text/4,               % +Record, +Level, +Text0, -Text
            shown_tokens/5,             % +Record, +Level, +Text0, +Tokens0, -Tokens
            shown_path/3,               % +Ceiling, +Object, -Shown
            shown_value/2,              % +Value0, -Value
            shown_field/4               % +Record, +Field, +Value0, -Value
          ]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(journal, []).

/** <module> What a grantee reads of the owner's paths

The owner's own memory keeps every path as it was read; these rewrite what a grantee is shown
of it, where their view is rendered (the filtered vocabulary, frames, `show --as`):

  - a rung at L0 or L1 (the owner's words, verbatim or shortened: what such a grant gives) is
    shown as written;
  - a rung or distillation at L2 or L3 names no directory of the owner's: every path of their
    machine (path_parts_/2: `/home/marco/projects/spotter/deps/plug/mix.exs`, `~/x/y`,
    `C:\x\y`) is its file's name (`mix.exs`), the tags made of the owner's home folder and
    working directory (`#home #marco`) are left out, and an L3 does not start with the
    pointer to its file (README: "at L2 and L3 nothing");
  - a relation's object that is such a path: at a ceiling of L0 or L1 the owner's home folder
    (`/home/NAME`, `/Users/NAME`, `/root`) is `~` (`~/.cache/x/cache.py`); at L2 or L3 the
    file's name alone.

A path relative to the working directory (`src/app/cache.py`) names none of the owner's
directories and is shown as it is.
*/

%!  shown_text(+Record, +Level, +Text0:string, -Text:string) is det.
%   Text0, a rung of Record at Level, as a grantee reads it (see the module header).
shown_text(_, Level, Text0, Text) :-
    memberchk(Level, [l0, l1]), !,
    Text = Text0.
shown_text(Record, Level, Text0, Text) :-
    % most rungs hold no path and an L2 no tag: each step reads the text only where it may
    % have something to change (a frame shows dozens of rungs)
    (   ( sub_string(Text0, _, _, _, "/") ; sub_string(Text0, _, _, _, "\\") )
    ->  split_string(Text0, " ", "", Words0),    % only words with a slash are read
        maplist(word_paths_cut_, Words0, Words, DirLists),
        atomic_list_concat(Words, ' ', Joined),
        atom_string(Joined, Text1),
        append(DirLists, Dirs0)
    ;   Text1 = Text0, Dirs0 = []
    ),
    once(without_pointer_(Record, Level, Text1, Text2)),
    (   sub_string(Text2, _, _, _, "#")
    ->  record_dirs_(Record, Dirs1),
        append(Dirs0, Dirs1, Dirs2),
        sort(Dirs2, Dirs),
        without_dir_tags_(Dirs, Text2, Text)
    ;   Text = Text2
    ).

%!  shown_tokens(+Record, +Level, +Text0:string, +Tokens0:integer, -Tokens:integer) is det.
%   The tokens of Text0, a rung of Record at Level counted Tokens0, as a grantee reads it:
%   Tokens0 where shown_text/4 leaves it as it is, else the estimate of what is shown (the
%   owner's count grew with the directories and the pointer's line the grantee may not read).
shown_tokens(Record, Level, Text0, Tokens0, Tokens) :-
    shown_text(Record, Level, Text0, Text),
    (   Text == Text0 -> Tokens = Tokens0 ; atc_hydrate:estimate_tokens(Text, Tokens) ).

%!  shown_field(+Record, +Field, +Value0:string, -Value:string) is semidet.
%   A distillation's field (distilled/3, L2) as a grantee reads it: as shown_text/4 at L2; a
%   `tag` made of the owner's home folder or working directory (`marco`) is not there.
shown_field(Record, tag, Value0, Value) :- !,
    record_dirs_(Record, Dirs),
    atom_string(Tag, Value0),
    \+ memberchk(Tag, Dirs),
    Value = Value0.
shown_field(Record, _, Value0, Value) :-
    shown_text(Record, l2, Value0, Value).

%!  shown_path(+Ceiling, +Object, -Shown) is det.
%   A relation's Object as a grantee who sees its subject at Ceiling is told it.
shown_path(Ceiling, Object, Shown) :-
    (   text_(Object),
        atom_codes(Object, Codes),
        path_parts_(Codes, Parts)
    ->  (   memberchk(Ceiling, [l0, l1])
        ->  home_as_tilde_(Parts, Parts1),
            atomic_list_concat(Parts1, '/', Joined),
            (   Parts1 = ['~'|_] -> Shown = Joined
            ;   Parts1 = [Drive|_], sub_atom(Drive, _, 1, 0, ':') -> Shown = Joined
            ;   atom_concat('/', Joined, Shown)
            )
        ;   file_name_(Parts, Shown)
        )
    ;   Shown = Object
    ).

%!  shown_value(+Value0, -Value) is det.
%   A cell's skeleton value (a text, or a list of them: its top entities) as a grantee reads
%   it: each path its file's name.
shown_value(V0, V) :-
    (   is_list(V0) -> maplist(shown_value, V0, V)
    ;   text_(V0) -> shown_path(l3, V0, V1), same_type_(V0, V1, V)
    ;   V = V0
    ).

same_type_(V0, V1, V) :-
    (   string(V0) -> atom_string(V1, V) ; V = V1 ).

text_(X) :- ( atom(X) ; string(X) ), !.

% word_paths_cut_(+Word, -Shown, -Dirs): a word of a text (between spaces) as paths_cut_/4
% shows it.
word_paths_cut_(Word, Shown, Dirs) :-
    (   ( sub_string(Word, _, _, _, "/") ; sub_string(Word, _, _, _, "\\") )
    ->  string_codes(Word, Codes0),
        paths_cut_(Codes0, 0' , Codes, Dirs),
        string_codes(Shown, Codes)
    ;   Shown = Word, Dirs = []
    ).

% paths_cut_(+Codes, +Prev, -Out, -Dirs): Codes with every path that starts after a boundary
% (Prev) cut to its file's name; Dirs the tags of the directory names cut.
paths_cut_([], _, [], []) :- !.
paths_cut_(Codes, Prev, Out, Dirs) :-
    boundary_(Prev),
    path_start_(Codes),
    span_(Codes, Path, Rest),
    path_parts_(Path, Parts), !,
    file_name_(Parts, Name),
    atom_codes(Name, NameCodes),
    append(NameCodes, Out1, Out),
    home_tags_(Parts, Tags),
    append(Tags, Dirs1, Dirs),
    last(Path, Last),
    paths_cut_(Rest, Last, Out1, Dirs1).
paths_cut_([C|Cs], _, [C|Out], Dirs) :-
    paths_cut_(Cs, C, Out, Dirs).

boundary_(C) :- code_type(C, space), !.
boundary_(C) :- memberchk(C, `"'\`([{<,;|=`).

path_start_([0'/, C|_]) :- \+ stop_(C), C =\= 0'/.
path_start_([0'~, 0'/|_]).
path_start_([D, 0':, 0'\\|_]) :- code_type(D, alpha).

stop_(C) :- code_type(C, space), !.
stop_(C) :- memberchk(C, `"'\`()[]{}<>,;|`).

span_([C|Cs], [C|Path], Rest) :-
    \+ stop_(C), !,
    span_(Cs, Path, Rest).
span_(Rest, [], Rest).

% path_parts_(+Codes, -Parts): Codes is a path on the owner's machine; Parts its names as
% atoms (`~` or the drive first where written). Such a path is one from the home folder (`~/`,
% `/home/`, `/Users/`, `/root/`), a temporary folder (`/tmp/`, `/var/`, `/private/`), a drive
% (`C:\\`), or any absolute path of two directories or more: `/v1/charges` (an API's route) and
% `/etc/hosts` name nothing of the owner's and stay as written.
path_parts_(Codes, Parts) :-
    (   Codes = [0'/|_] ; Codes = [0'~, 0'/|_] ; Codes = [_, 0':, 0'\\|_] ),
    atom_codes(Atom, Codes),
    split_string(Atom, "/\\", "", Strings),
    exclude(==(""), Strings, Kept),
    Kept = [_, _|_],
    maplist([S, A]>>atom_string(A, S), Kept, Parts),
    (   Parts = [_, _, _|_] -> true
    ;   Parts = [First|_], memberchk(First, ['~', home, 'Users', root, tmp, var, private])
    ->  true
    ;   Codes = [_, 0':|_]
    ).

% file_name_(+Parts, -Name): what a path is shown as at L2 and L3: its last name; the home
% folder itself (`/home/marco`) is `~`, its last name being the owner's user.
file_name_(Parts, Name) :-
    (   home_as_tilde_(Parts, ['~']) -> Name = '~' ; last(Parts, Name) ).

% The owner's home folder as ~: /home/NAME/..., /Users/NAME/..., /root/...
home_as_tilde_([home, _|Rest], ['~'|Rest]) :- !.
home_as_tilde_(['Users', _|Rest], ['~'|Rest]) :- !.
home_as_tilde_([root|Rest], ['~'|Rest]) :- !.
home_as_tilde_(Parts, Parts).

% A directory's name as curation makes a tag of it (lowercase letters, digits, `_`).
dir_tag_(Part, Tag) :-
    Part \== '~',
    \+ sub_atom(Part, _, 1, 0, ':'),
    downcase_atom(Part, Lower),
    atom_codes(Lower, Cs),
    tag_codes_(Cs, TagCs0),
    strip_underscores_(TagCs0, TagCs),
    TagCs \== [],
    atom_codes(Tag, TagCs).

tag_codes_([], []).
tag_codes_([C|Cs], Out) :-
    (   ( code_type(C, digit) ; between(0'a, 0'z, C) )
    ->  Out = [C|Out1], tag_codes_(Cs, Out1)
    ;   Out = [0'_|Out1], skip_unsafe_(Cs, Rest), tag_codes_(Rest, Out1)
    ).

skip_unsafe_([C|Cs], Rest) :-
    \+ ( code_type(C, digit) ; between(0'a, 0'z, C) ), !,
    skip_unsafe_(Cs, Rest).
skip_unsafe_(Rest, Rest).

strip_underscores_(Cs0, Cs) :-
    exclude_edges_(Cs0, Cs1),
    reverse(Cs1, R0), exclude_edges_(R0, R1), reverse(R1, Cs).

exclude_edges_([0'_|Cs], Out) :- !, exclude_edges_(Cs, Out).
exclude_edges_(Cs, Cs).

% home_tags_(+Parts, -Tags): the tags curation makes of a path's home folder (`#home
% #marco`): the owner's user name is no part of a grant. The directories below it are left
% as tags: they are as often the record's topic (`#cache`) as its place.
home_tags_(Parts, Tags) :-
    (   Parts = [home, U|_] -> Home = [home, U]
    ;   Parts = ['Users', U|_] -> Home = ['Users', U]
    ;   Parts = [root|_] -> Home = [root]
    ;   Home = []
    ),
    convlist(dir_tag_, Home, Tags).

% record_dirs_(+Record, -Tags): the tags of the home folders of the paths Record's links name
% (its files), and of every directory of its working directory (where the owner keeps the
% project: its last name is shown only at L1 or more detail): tags curation may have made of
% them though no path fitted the rung.
record_dirs_(Record, Tags) :-
    findall(T, ( member(P, [touches_file, mentions_file, cwd]),
                 atc_journal:relation(Record, P, O),
                 text_(O), atom_codes(O, Cs), path_parts_(Cs, Parts),
                 (   P == cwd -> convlist(dir_tag_, Parts, Ts) ; home_tags_(Parts, Ts) ),
                 member(T, Ts) ),
            Tags).

% An L3 starts with the pointer to its item's file (`s.jsonl:5 #tag ...`): a grantee is told
% nothing of where a record was read below L1.
without_pointer_(Record, l3, Text0, Text) :-
    atc_journal:item(Record),
    atc_journal:item_local_source(Record, Local),
    string_concat(Local, Rest, Text0),
    (   Rest == "" -> true ; sub_string(Rest, 0, 1, _, " ") ), !,
    split_string(Rest, "", " ", [Text]).
without_pointer_(_, _, Text, Text).

% Text without its `#tag` words that name one of Dirs.
without_dir_tags_([], Text, Text) :- !.
without_dir_tags_(Dirs, Text0, Text) :-
    split_string(Text0, " ", "", Words0),
    exclude(dir_tag_word_(Dirs), Words0, Words),
    atomic_list_concat(Words, ' ', Joined),
    atom_string(Joined, Text).

dir_tag_word_(Dirs, Word) :-
    string_concat("#", Tag, Word),
    atom_string(A, Tag),
    memberchk(A, Dirs).
