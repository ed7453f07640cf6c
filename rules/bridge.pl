:- module(atc_bridge,
          [ error_message/2,              % +Error, -Message
            define_python_predicate/5,    % +Module, +Name, +Arity, +Key, +Nondet
            format_directive_in/2,        % +Codes, +Letters
            compile_rules/3,              % +Source, +Wrapper, -Libraries
            compile_libraries/2           % +Files, +Wrapper
          ]).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(occurs)).

/** <module> Prolog side of the Python bridge

The host registers one foreign predicate, atc_bridge:'$py_call'(+Key, +Args, -Result), and every
Python callable is reached through a small wrapper clause that this module asserts. Wrappers are
built as terms, never from text. Errors raised in Python arrive as
error(python_error(Type, Message), _) and read like any other error.
*/

:- multifile prolog:error_message//1.

prolog:error_message(python_error(Type, Message)) -->
    [ 'Python ~w: ~w'-[Type, Message] ].

%!  error_message(+Error, -Message:string) is det.
%
%   Message is SWI-Prolog's own wording of Error, folded into one line.

error_message(error(python_error(Type, Text), _), Message) :-
    atom(Type), string(Text), !,        % one wording on both backends (janus has its own rule)
    format(string(Message), "Python ~w: ~w", [Type, Text]).
error_message(error(existence_error(procedure, PI), context(user_code, Hint)), Message) :-
    string(Hint), !,                    % rules/api.pl's unknown_named_/2: no DWIM of `user'
    format(string(Message), "Unknown procedure: ~q (~w)", [PI, Hint]).
error_message(error(permission_error(call, sandboxed, PI), context(user_code, Hint)), Message) :-
    string(Hint), !,                    % rules/api.pl's unknown_named_/2, for a refused call
    format(string(Message), "No permission to call sandboxed `~q' (~w)", [PI, Hint]).
error_message(error(resource_error(stack), Context), Message) :-
    stack_overflow_message(Context, Message), !.
error_message(error(instantiation_error, sandbox(_, [])), Message) :-
    !,                                  % SWI-Prolog's wording runs two lines together here
    Message = "Sandbox restriction! Could not derive which predicate may be called from \c
               a goal called through a variable (G = ..., G): write the goal itself".
error_message(Error, Message) :-
    (   catch('$messages':translate_message(Error, Lines0, []), _, fail)
    ->  true
    ;   Lines0 = ['~p'-[Error]]
    ),
    maplist(inert_line_, Lines0, Lines),
    with_output_to(string(Raw), print_message_lines(current_output, '', Lines)),
    split_string(Raw, "\n", " \t", Parts0),
    exclude(==(""), Parts0, Parts),
    atomic_list_concat(Parts, ' ', Joined),
    (   atom_length(Joined, N), N > 2000
    ->  sub_atom(Joined, 0, 2000, _, Head),
        atom_concat(Head, ' ...', Shown)
    ;   Shown = Joined
    ),
    atom_string(Shown, Message).

%!  stack_overflow_message(+Context:dict, -Message:string) is semidet.
%
%   A stack overflow (the context dict of `resource_error(stack)`) said as the limit that
%   stopped the call, with the user predicates of the recursion SWI-Prolog found, else of the
%   deepest calls:
%   `stopped: ran past its stack limit of 256 MB (probable infinite recursion in reach/2)`.
%   SWI-Prolog's own message is five lines of stack sizes, internal frames
%   (`'$bags':findall_loop`) and advice a user of atc cannot follow (`--stack_limit`,
%   set_prolog_flag/2). Fails on a context that is not such a dict.

stack_overflow_message(Context, Message) :-
    is_dict(Context),
    get_dict(stack_limit, Context, KB), integer(KB),
    MB is KB // 1024,
    (   get_dict(cycle, Context, Frames), recursion_pis_(Frames, PIs)
    ->  format(string(Why), "probable infinite recursion in ~w", [PIs])
    ;   get_dict(non_terminating, Context, Frames), recursion_pis_(Frames, PIs)
    ->  format(string(Why), "possible non-terminating recursion in ~w", [PIs])
    ;   get_dict(depth, Context, Depth), integer(Depth)
    ->  (   get_dict(stack, Context, Frames), recursion_pis_(Frames, PIs)
        ->  format(string(Why), "~D calls deep, in ~w", [Depth, PIs])
        ;   format(string(Why), "~D calls deep", [Depth])
        )
    ;   Why = "a term or recursion too large for it"
    ),
    format(string(Message), "stopped: ran past its stack limit of ~D MB (~w)", [MB, Why]).

% recursion_pis_(+Frames, -Text): the user predicates (not the system's or a library's) of
% the frames SWI-Prolog lists, each once, in order (`p/1, q/2`); fails when there is none.
recursion_pis_(Frames, Text) :-
    is_list(Frames),
    findall(PI, ( member(frame(_, M:Goal, _), Frames),
                   atom(M), callable(Goal),
                   \+ module_property(M, class(system)),
                   \+ module_property(M, class(library)),
                   functor(Goal, N, A),
                   format(string(PI), "~q/~w", [N, A]) ),
            PIs0),
    list_to_set(PIs0, PIs),
    PIs \== [],
    atomic_list_concat(PIs, ', ', Text).

% inert_line_(+Line, -Inert): a line of a translated message that prints without running
% anything. An error's terms come from user code (a query may throw what it likes), and a
% message line is a format directive with arguments: `format("~@", [shell(X)])` thrown as an
% error would run shell(X) here, outside the sandbox and its limits, and `~W` passes write
% options (`portray_goal(G)` calls G). A line whose directive runs a goal, pads by a computed
% or huge count, or whose arguments carry `portray_goal`, is shown as the term it is instead.
inert_line_(Fmt-Args, Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = Fmt-Args ; Line = '~q'-[Fmt-Args] ).
inert_line_(ansi(Attr, Fmt, Args), Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = ansi(Attr, Fmt, Args) ; Line = '~q'-[Fmt-Args] ).
inert_line_(url(URL, Fmt-Args), Line) :- !,
    (   inert_format_(Fmt, Args) -> Line = url(URL, Fmt-Args) ; Line = '~q'-[Fmt-Args] ).
inert_line_(Line, Line) :-
    (   memberchk(Line, [nl, flush, at_same_line])
    ;   Line = url(_)
    ;   Line = begin(_, _)
    ;   Line = end(_)
    ), !.
inert_line_(Fmt, Line) :-
    (   inert_format_(Fmt, []) -> Line = Fmt ; Line = '~q'-[Fmt] ).

inert_format_(Fmt, Args) :-
    catch(text_to_string(Fmt, S), error(_, _), fail),
    string_codes(S, Cs),
    \+ format_directive_in(Cs, [0'@]),
    \+ ( sub_term(T, Args), compound(T), T = portray_goal(_) ).

%!  format_directive_in(+Codes:list, +Letters:list) is semidet.
%
%   True when the format/2 directive text Codes holds a directive that pads by a computed
%   count (`~*c`) or one of 6 digits or more (`~100000000c`: allocated in one C call), whose
%   counts add up past 99,999 (`~t~99999+` 3,000 times over: 300 MB of padding in one C call,
%   which ran 63 s past a 2 s limit and grew the process by 1.8 GB), or whose letter is one of
%   Letters (codes) whatever its argument (digits, or a backquote and a fill character). `~~`
%   is a plain tilde. `[0'@]` finds a directive that runs a goal, `[0'W]` one that takes write
%   options (`portray_goal(G)` calls G).
format_directive_in(Codes, Letters) :-
    format_directive_in_(Codes, Letters, 0).

format_directive_in_([0'~|T], Letters, Sum0) :- !,
    (   T = [0'~|Rest]
    ->  format_directive_in_(Rest, Letters, Sum0)
    ;   directive_in_(T, Letters)
    ->  true
    ;   directive_count_(T, Count),
        Sum is Sum0 + Count,
        (   format_counts_max(Max), Sum > Max
        ->  true
        ;   format_directive_in_(T, Letters, Sum)
        )
    ).
format_directive_in_([_|T], Letters, Sum) :-
    format_directive_in_(T, Letters, Sum).

%!  format_counts_max(-Max) is det.
%   The most the counts of one format text's directives may add up to: one count's own bound
%   (5 digits), so a text asks for no more padding or digits than one directive could.
format_counts_max(99999).

% After a `~`: its argument, then its letter.
directive_in_([0'*|_], _) :- !.
directive_in_([0'`, _, L|_], Letters) :-
    memberchk(L, Letters), !.
directive_in_(Cs, Letters) :-
    digits_(Cs, 0, N, Rest),
    (   N >= 6 -> true ; Rest = [L|_], memberchk(L, Letters) ).

digits_([C|Cs], N0, N, Rest) :-
    code_type(C, digit), !,
    N1 is N0 + 1,
    digits_(Cs, N1, N, Rest).
digits_(Rest, N, N, Rest).

% directive_count_(+Codes, -Count): the numeric argument after a `~` (0 when none); fewer than
% 6 digits (directive_in_/2 has refused more).
directive_count_(Cs, Count) :-
    count_value_(Cs, 0, Count).

count_value_([C|Cs], V0, V) :-
    code_type(C, digit(W)), !,
    V1 is V0 * 10 + W,
    count_value_(Cs, V1, V).
count_value_(_, V, V).

%!  define_python_predicate(+Module, +Name, +Arity, +Key, +Nondet) is det.
%
%   Define Module:Name/Arity as a call of the Python callable registered under Key. The first
%   Arity-1 arguments go to Python; its return value is unified with the last argument. When
%   Nondet is true the callable returns a list and each element is one solution.

define_python_predicate(Module, Name, Arity, Key, Nondet) :-
    must_be(atom, Module),
    must_be(atom, Name),
    must_be(positive_integer, Arity),
    functor(Head, Name, Arity),
    Head =.. [_|Args],
    append(In, [Out], Args),
    (   Nondet == true
    ->  Body = ( atc_bridge:'$py_call'(Key, In, Results), lists:member(Out, Results) )
    ;   Body = ( atc_bridge:'$py_call'(Key, In, Result), Out = Result )
    ),
    dynamic(Module:Name/Arity),
    retractall(Module:Head),
    assertz(Module:(Head :- Body)).

%!  compile_rules(+Source, +Wrapper, -Libraries:list(string)) is det.
%
%   Load the rules file Source as `load_files(Source, [if(true)])` does, compiling it on the
%   way (qcompile/2) into the `.qlf` file beside Wrapper, so that a later process loads that
%   instead (bridge/rules_cache.py: about a third of the CPU). Wrapper, a new `.pl` file written
%   here, is what gets compiled: it loads Source, and the `.qlf` holds every project file
%   Source loads, not SWI-Prolog's libraries (loaded from the library as the `.qlf` loads).
%   Paths are written as quoted terms, never pasted into source text.
%
%   A library loaded only while the rules were compiled (library(yall), for the lambdas that
%   goal expansion removes) would be missing after the `.qlf` loads, and with it what it adds
%   to multifile predicates (sandbox's safe_meta_predicate/1 for `>>`, which a user's query
%   may use), so the `.qlf` ends with a directive loading each file that compiling loaded.
%
%   Libraries are the files of SWI-Prolog's own library that compiling loaded, each after the
%   files its loading loaded (the order they finished loading in): compile_libraries/2 compiles
%   them, in a later process that has not loaded them yet.
%
%   @error permission_error(open, source_sink, Wrapper) when Wrapper cannot be written.

compile_rules(Source0, Wrapper0, Libraries) :-
    atom_string(Source, Source0),
    atom_string(Wrapper, Wrapper0),
    findall(F, source_file(F), Before),
    setup_call_cleanup(
        open(Wrapper, write, Out, [encoding(utf8)]),
        ( format(Out, "% Generated by Attention Cloud (rules/bridge.pl, compile_rules/2).~n", []),
          forall(member(Term, [(:- load_files(Source, [if(true)])), atc_rules_loaded_libraries]),
                 write_term(Out, Term, [quoted(true), fullstop(true), nl(true)])) ),
        close(Out)),
    Expansion = ( user:term_expansion(atc_rules_loaded_libraries, Directive) :-
                      atc_bridge:loaded_since_directive_(Before, Wrapper, Directive) ),
    setup_call_cleanup(asserta(Expansion, Ref),
                       qcompile(user:Wrapper, [include(user)]),
                       erase(Ref)),
    libraries_loaded_since_(Before, Libraries).

%!  compile_libraries(+Files:list(text), +Wrapper) is det.
%
%   Compile the files of SWI-Prolog's own library Files (compile_rules/3's Libraries, in that
%   order) into the `.qlf` file beside Wrapper, loading them on the way: a process that loads
%   it before the compiled rules reads no library from source (bridge/rules_cache.py: about
%   0.15 s of CPU of the 0.2 a start spent loading the compiled rules). qcompile/2 holds a
%   library only where the load naming it asks for it (qcompile(part)), and only one not loaded
%   yet, so each file is named after those it loads. Files outside SWI-Prolog's home, or gone,
%   are left out: the rest still load from the library as the rules load. Loaded with the
%   optimise flag off, importing nothing, as the rules' own loading of them does. Paths are
%   written as quoted terms, never pasted into source text.
%
%   @error permission_error(open, source_sink, Wrapper) when Wrapper cannot be written.

compile_libraries(Files0, Wrapper0) :-
    atom_string(Wrapper, Wrapper0),
    current_prolog_flag(home, Home),
    atom_concat(Home, '/', Prefix),
    findall(File, ( member(File0, Files0), atom_string(File, File0),
                    sub_atom(File, 0, _, _, Prefix), exists_file(File) ), Files),
    setup_call_cleanup(
        open(Wrapper, write, Out, [encoding(utf8)]),
        ( format(Out, "% Generated by Attention Cloud (rules/bridge.pl, compile_libraries/2).~n", []),
          write_term(Out, (:- load_files(Files, [qcompile(part), if(not_loaded), imports([])])),
                     [quoted(true), fullstop(true), nl(true)]) ),
        close(Out)),
    current_prolog_flag(optimise, Optimise),
    setup_call_cleanup(set_prolog_flag(optimise, false),
                       qcompile(user:Wrapper),
                       set_prolog_flag(optimise, Optimise)).

% libraries_loaded_since_(+Before, -Files): the files of SWI-Prolog's home loaded since Before
% was taken, as strings, each after the files its loading loaded: the files' load tree (a file's
% first load_context names the file whose loading loaded it) walked children first.
libraries_loaded_since_(Before, Files) :-
    findall(F, ( source_file(F), \+ memberchk(F, Before) ), New),
    include(load_root_(New), New, Roots),
    foldl(finished_(New), Roots, [], Finished),
    reverse(Finished, Ordered),
    current_prolog_flag(home, Home),
    atom_concat(Home, '/', Prefix),
    findall(S, ( member(F, Ordered), sub_atom(F, 0, _, _, Prefix), atom_string(F, S) ), Files).

load_root_(New, File) :-
    \+ ( loaded_by_(File, Parent), memberchk(Parent, New) ).

loaded_by_(File, Parent) :-
    once(source_file_property(File, load_context(_, Parent:_, _))).

loaded_from_(Parent, File) :-
    loaded_by_(File, Parent0),          % its first loader, not any file that loaded it again
    Parent0 == Parent.

% finished_(+New, +File, +Done0, -Done): Done0 with File's load tree pushed, children first.
finished_(New, File, Done0, [File|Done]) :-
    include(loaded_from_(File), New, Children),
    foldl(finished_(New), Children, Done0, Done).

% loaded_since_directive_(+Before, +Wrapper, -Directive): a directive loading every file loaded
% since Before was taken, but Wrapper (project files the .qlf holds are loaded by then: to
% if(not_loaded) they are no-ops), importing nothing, as their loading imported nothing.
loaded_since_directive_(Before, Wrapper,
                        (:- load_files(Files, [if(not_loaded), imports([])]))) :-
    findall(F, ( source_file(F), F \== Wrapper, \+ memberchk(F, Before) ), Files).
