:- module(atc_memory,
          [ item/1, item_kind/2, item_role/2, item_speaker/2, item_goal/2, item_session/2, item_time/2,
            item_seq/2, item_segment/2, item_source/2, item_source_name/2, item_text/2,
            relation/3,
            cell/1, cell_of/2, cell_member/2, cell_adjacent/3, cell_info/3, cell_neighbours/2,
            cell_path/3, cell_region/3, cell_hot/2,
            rung/3, rung_tokens/3, distilled/3, provenance/2, arc/1, arc_member/2, arc_goal/2,
            arc_session/2, item_arc/2, rollup/2, echo_of/3, curated/2,
            nearest/3, nearest/4, lexical/4, similarity/3, similarity/4,
            hydrate/3, goal_speaker/2, goal_time_window/4, goal_time_pieces/4, memory_now/1,
            items_between/3, items_between/4,

            memory_user_module/1,       % +Module
            memory_user_module/2,       % +Module, +Vocabulary
            memory_is_user_module/1     % ?Module
          ]).
:- use_module(library(error)).
:- use_module(library(apply)).
:- use_module(journal, [journal_atom_arg/2, journal_string_arg/2]).
:- use_module(cells, []).
:- use_module(ladder, []).
:- use_module(jump, []).
:- use_module(hydrate, []).
:- use_module(term_guard, [guarded_builtin/1]).
:- use_module(flag_guard, [flag_guard_install/1]).
:- reexport(when, [ memory_now/1 ]).

/** <module> The public query vocabulary

User goals (`atc query`, `Memory.query`) and user rule files run in a *user module* of their
own (memory_user_module/1): its only parent is SWI-Prolog's `system` module and it imports
exactly the vocabulary below, so a user goal sees the read-only relations of the journal, the
ladder, the jump and hydration and nothing else of the project (no `user`, no store, no
journal internals). atc_api checks every goal and rule with library(sandbox) on top of that,
refuses module-qualified goals and the database builtins, and runs them under limits.

hydrate/3 here is the journal's hydrate with its `rules` and `walk` options confined: `rules`
must be a user module and a walk rule must be a predicate that module defines itself, so a
frame never reaches `system:shell/2` or a project predicate through an option.
*/

% The jump calls Python (faiss) through predicates the host registers; they only read.
:- multifile sandbox:safe_primitive/1.
sandbox:safe_primitive(atc_jump:nearest(_, _, _)).
sandbox:safe_primitive(atc_jump:nearest(_, _, _, _)).
sandbox:safe_primitive(atc_jump:lexical(_, _, _, _)).
sandbox:safe_primitive(atc_jump:similarity(_, _, _)).
sandbox:safe_primitive(atc_jump:similarity(_, _, _, _)).
sandbox:safe_primitive(atc_hydrate:goal_speaker(_, _)).
sandbox:safe_primitive(atc_when:goal_time_window(_, _, _, _)).
sandbox:safe_primitive(atc_when:goal_time_pieces(_, _, _, _)).
sandbox:safe_primitive(atc_when:memory_now(_)).  % builds the day index on first use (global variables)
sandbox:safe_primitive(atc_when:items_between(_, _, _)).  % builds its day index on first use
sandbox:safe_primitive(atc_when:items_between(_, _, _, _)).
sandbox:safe_primitive(atc_cells:cell_hot(_, _)).        % reads receipts through the host

		 /*******************************
		 *   ERRORS THAT NAME THEIR CALL  *
		 *******************************/

% The predicates of the vocabulary that check their arguments raise what library(error)'s
% must_be/2 raises: an error with no context, so a goal of several calls read "Arguments are
% not sufficiently instantiated" and the user could not tell which. Each is called here with
% its own name put in the error's context ("cell_neighbours/2: Arguments are ...").

%!  cell_neighbours(+Cell, -Pairs) is det.
%!  cell_path(+From, +To, -Path) is semidet.
%!  cell_region(+Cell, +Depth, -Cells) is det.
%   See atc_cells.
cell_neighbours(C, Ps) :-
    catch(known_cell_neighbours_(C, Ps), E, named_error_(cell_neighbours/2, E)).

% An unknown cell is an error here as in cell_region/3 (it answered [], as a cell alone would);
% the walk's own calls, on cells it took from memory, skip the check.
known_cell_neighbours_(C0, Ps) :-
    journal_atom_arg(C0, C),
    must_be(atom, C),
    (   atc_cells:cell(C) -> true ; existence_error(cell, C) ),
    atc_cells:cell_neighbours(C, Ps).
cell_path(C1, C2, Path) :-
    journal_atom_arg(C1, A1), journal_atom_arg(C2, A2),
    catch(atc_cells:cell_path(A1, A2, Path), E, named_error_(cell_path/3, E)).
cell_region(C, Depth, Cells) :-
    journal_atom_arg(C, A),
    catch(atc_cells:cell_region(A, Depth, Cells), E, named_error_(cell_region/3, E)).

%!  nearest(+Query, +K, -Hits) is det.
%!  nearest(+Query, -Handle, -Score) is nondet.
%!  nearest(+Query, +K, +Options, -Hits) is det.
%!  lexical(+Query, +K, +Options, -Hits) is det.
%!  similarity(+Query, +Records, -Pairs) is det.
%!  similarity(+Query, +Records, +K, -Pairs) is det.
%   See atc_jump.
nearest(Q, K, Hits) :-
    catch(atc_jump:nearest(Q, K, Hits), E, named_error_(nearest/3, E)).
nearest(Q, K, Options, Hits) :-
    catch(atc_jump:nearest(Q, K, Options, Hits), E, named_error_(nearest/4, E)).
lexical(Q, K, Options, Hits) :-
    catch(atc_jump:lexical(Q, K, Options, Hits), E, named_error_(lexical/4, E)).
similarity(Q, Records, Pairs) :-
    catch(atc_jump:similarity(Q, Records, Pairs), E, named_error_(similarity/3, E)).
similarity(Q, Records, K, Pairs) :-
    catch(atc_jump:similarity(Q, Records, K, Pairs), E, named_error_(similarity/4, E)).

%!  goal_time_window(+Goal, +Now, -Window, -Phrase) is semidet.
%!  goal_time_pieces(+Goal, +Now, -Pieces, -Phrase) is semidet.
%!  items_between(+From, +To, -Items) is det.
%!  items_between(+From, +To, +Max, -Items) is det.
%   See atc_when.
goal_time_window(Goal, Now, Window, Phrase) :-
    catch(( must_be(text, Goal), atc_when:goal_time_window(Goal, Now, Window, Phrase) ), E,
          named_error_(goal_time_window/4, E)).
goal_time_pieces(Goal, Now, Pieces, Phrase) :-
    catch(( must_be(text, Goal), atc_when:goal_time_pieces(Goal, Now, Pieces, Phrase) ), E,
          named_error_(goal_time_pieces/4, E)).
items_between(From, To, Items) :-
    catch(atc_when:items_between(From, To, Items), E, named_error_(items_between/3, E)).
items_between(From, To, Max, Items) :-
    catch(atc_when:items_between(From, To, Max, Items), E, named_error_(items_between/4, E)).

%!  goal_speaker(+Goal, -Speaker) is semidet.
%   See atc_hydrate.
goal_speaker(Goal, Speaker) :-
    catch(( must_be(text, Goal), atc_hydrate:goal_speaker(Goal, Speaker) ), E,
          named_error_(goal_speaker/2, E)).

% named_error_(+PI, +Error): throw Error, with PI as the predicate of its context when it names
% none. Anything else ('$aborted' of a limit included) is thrown as it came.
named_error_(PI, error(Formal, Context)) :-
    (   var(Context)
    ->  !, throw(error(Formal, context(PI, _)))
    ;   Context = context(P, Message), var(P)
    ->  !, throw(error(Formal, context(PI, Message)))
    ).
named_error_(_, E) :-
    throw(E).

		 /*******************************
		 *    ATOMS AND STRINGS ALIKE    *
		 *******************************/

% What the journal stores as an atom (kinds, roles, sessions, segments, levels, relations)
% answers a bound string as the atom, and a time (a string) answers a bound atom: a user who
% wrote relation(H, speaker, "Priya") after item_speaker(H, "Priya") got `false.`, as did
% item_segment(H, "work"). Unbound arguments come back in the stored type.

%!  item_kind(?H, ?Kind) is nondet.
%!  item_role(?H, ?Role) is nondet.
%!  item_session(?H, ?Session) is nondet.
%!  item_segment(?H, ?Segment) is nondet.
%!  item_time(?H, ?Time:string) is nondet.
%   See atc_journal; a bound argument may be an atom or a string.
item_kind(H, K) :- journal_atom_arg(H, H1), journal_atom_arg(K, K1), atc_journal:item_kind(H1, K1).
item_role(H, R) :- journal_atom_arg(H, H1), journal_atom_arg(R, R1), atc_journal:item_role(H1, R1).
item_session(H, S) :-
    journal_atom_arg(H, H1), journal_atom_arg(S, S1), atc_journal:item_session(H1, S1).
item_segment(H, S) :-
    journal_atom_arg(H, H1), journal_atom_arg(S, S1), atc_journal:item_segment(H1, S1).
item_time(H, T) :-
    journal_atom_arg(H, H1), journal_string_arg(T, T1), atc_journal:item_time(H1, T1).

%!  item(?H) is nondet.
%!  item_speaker(?H, ?Name:string) is nondet.
%!  item_goal(?H, ?Goal:string) is nondet.
%!  item_seq(?H, ?N) is nondet.
%!  item_source(?H, ?Pointer:string) is nondet.
%!  item_source_name(?H, ?Source) is nondet.
%!  item_text(?H, ?Text:string) is nondet.
%   See atc_journal. A handle is an atom; one given as a string ("it_3fa2...", as JSON answers
%   show it) is read as the atom, here and in every item_ predicate above.
item(H) :- journal_atom_arg(H, H1), atc_journal:item(H1).
item_speaker(H, N) :- journal_atom_arg(H, H1), atc_journal:item_speaker(H1, N).
item_goal(H, G) :-
    journal_atom_arg(H, H1), journal_string_arg(G, G1), atc_journal:item_goal(H1, G1).
item_seq(H, N) :- journal_atom_arg(H, H1), atc_journal:item_seq(H1, N).
item_source(H, P) :-
    journal_atom_arg(H, H1), journal_string_arg(P, P1), atc_journal:item_source(H1, P1).
item_source_name(H, N) :-
    journal_atom_arg(H, H1), journal_atom_arg(N, N1), atc_journal:item_source_name(H1, N1).
item_text(H, T) :-
    journal_atom_arg(H, H1), journal_string_arg(T, T1), atc_journal:item_text(H1, T1).

%!  rung(?Id, ?Level, ?Text:string) is nondet.
%!  rung_tokens(?Id, ?Level, ?N) is nondet.
%!  distilled(?Id, ?Field, ?Value:string) is nondet.
%!  arc_session(?A, ?Session) is nondet.
%   See atc_ladder; a bound argument may be an atom or a string.
rung(Id, L, T) :-
    journal_atom_arg(Id, Id1), journal_atom_arg(L, L1), journal_string_arg(T, T1),
    atc_ladder:rung(Id1, L1, T1).
rung_tokens(Id, L, N) :-
    journal_atom_arg(Id, Id1), journal_atom_arg(L, L1), atc_ladder:rung_tokens(Id1, L1, N).
distilled(Id, F, V) :-
    journal_atom_arg(Id, Id1), journal_atom_arg(F, F1), journal_string_arg(V, V1),
    atc_ladder:distilled(Id1, F1, V1).
arc_session(A, S) :-
    journal_atom_arg(A, A1), journal_atom_arg(S, S1), atc_ladder:arc_session(A1, S1).

%!  arc(?A) is nondet.
%!  arc_member(?A, ?H) is nondet.
%!  arc_goal(?A, ?Goal:string) is nondet.
%!  item_arc(?H, ?A) is nondet.
%!  rollup(?R, ?Session) is nondet.
%!  echo_of(?Echo, ?Original, ?Sim) is nondet.
%!  curated(?Id, ?Curator) is nondet.
%   See atc_ladder; a bound argument may be an atom or a string (a handle copied from JSON:
%   arc_member("arc_83f…", H) answered `false.`).
arc(A) :- journal_atom_arg(A, A1), atc_ladder:arc(A1).
arc_member(A, H) :-
    journal_atom_arg(A, A1), journal_atom_arg(H, H1), atc_ladder:arc_member(A1, H1).
arc_goal(A, G) :-
    journal_atom_arg(A, A1), journal_string_arg(G, G1), atc_ladder:arc_goal(A1, G1).
item_arc(H, A) :-
    journal_atom_arg(H, H1), journal_atom_arg(A, A1), atc_ladder:item_arc(H1, A1).
rollup(R, S) :- journal_atom_arg(R, R1), journal_atom_arg(S, S1), atc_ladder:rollup(R1, S1).
echo_of(E, O, Sim) :-
    journal_atom_arg(E, E1), journal_atom_arg(O, O1), atc_ladder:echo_of(E1, O1, Sim).
curated(Id, C) :- journal_atom_arg(Id, Id1), journal_atom_arg(C, C1), atc_ladder:curated(Id1, C1).

%!  cell(?C) is nondet.
%!  cell_of(?H, ?C) is nondet.
%!  cell_member(?C, ?H) is nondet.
%!  cell_adjacent(?C, ?C2, ?W) is nondet.
%!  cell_info(?C, ?Key, ?Value) is nondet.
%!  cell_hot(?C, ?Heat) is nondet.
%   See atc_cells; a bound cell, handle or key may be an atom or a string.
cell(C) :- journal_atom_arg(C, C1), atc_cells:cell(C1).
cell_of(H, C) :- journal_atom_arg(H, H1), journal_atom_arg(C, C1), atc_cells:cell_of(H1, C1).
cell_member(C, H) :-
    journal_atom_arg(C, C1), journal_atom_arg(H, H1), atc_cells:cell_member(C1, H1).
cell_adjacent(C, C2, W) :-
    journal_atom_arg(C, A1), journal_atom_arg(C2, A2), atc_cells:cell_adjacent(A1, A2, W).
cell_info(C, K, V) :-
    journal_atom_arg(C, C1), journal_atom_arg(K, K1), atc_cells:cell_info(C1, K1, V).
cell_hot(C, Heat) :- journal_atom_arg(C, C1), atc_cells:cell_hot(C1, Heat).

%!  relation(?Subject, ?Predicate, ?Object) is nondet.
%   The entity graph (atc_journal:relation/3) and the cells: relation(Cell, contains, Handle),
%   relation(Cell, adjacent, Cell2) (atc_cells, the `_at_cells` namespace). A bound argument
%   may be an atom or a string.
relation(S0, P0, O0) :-
    journal_atom_arg(S0, S), journal_atom_arg(P0, P), journal_atom_arg(O0, O),
    relation_(S, P, O).

relation_(S, P, O) :-
    atc_journal:relation(S, P, O).
relation_(S, P, O) :-
    atc_cells:cell_relation(S, P, O).

%!  provenance(?Id, ?Handle) is nondet.
%   Curated record Id (an item's, arc's or rollup's rungs, or a cell's ladder) was computed
%   from item Handle. A bound argument may be an atom or a string.
provenance(Id0, H0) :-
    journal_atom_arg(Id0, Id), journal_atom_arg(H0, H),
    provenance_(Id, H).

provenance_(Id, H) :-
    atc_ladder:provenance(Id, H).
provenance_(Id, H) :-
    atc_cells:cell_provenance(Id, H).

%!  hydrate(+Goal, +Options:dict, -Frame) is det.
%
%   atc_hydrate:hydrate/3 with its options confined to user code: `rules`, when given, must be
%   a user module (memory_is_user_module/1), and the walk a plane or the `walk` option names
%   (`rule(Name)`) must be a Name/2 that module defines itself.
%   @error permission_error(use, rules_module, M) for any other module
%   @error existence_error(walk_rule, Name) for a walk rule the rules module does not define
%   @error existence_error(walk_rule, Name, no_rules_file) for a walk rule named without a
%   rules module

hydrate(Goal, Options, Frame) :-
    catch(( must_be(text, Goal), must_be(dict, Options) ), E, named_error_(hydrate/3, E)),
    (   get_dict(rules, Options, Rules), Rules \== none
    ->  (   atom(Rules), memory_is_user_module(Rules)
        ->  true
        ;   permission_error(use, rules_module, Rules)
        )
    ;   Rules = none
    ),
    (   get_dict(walk, Options, Walk)
    ->  confined_walk_(Rules, Walk)
    ;   true
    ),
    (   get_dict(plane, Options, Plane), Rules \== none,
        current_predicate(Rules:plane/2)
    ->  forall(( catch(Rules:plane(Plane, S), _, fail), is_dict(S), get_dict(walk, S, W) ),
               confined_walk_(Rules, W))
    ;   true
    ),
    atc_hydrate:hydrate(Goal, Options, Frame).

sandbox:safe_primitive(atc_memory:hydrate(_, _, _)).   % its options are confined above

confined_walk_(_, Walk) :-
    var(Walk), !,
    instantiation_error(Walk).
confined_walk_(_, entity_walk) :- !.
confined_walk_(none, rule(Name)) :- !,
    must_be(atom, Name),
    existence_error(walk_rule, Name, no_rules_file).
confined_walk_(Rules, rule(Name)) :- !,
    must_be(atom, Name),
    (   functor(Head, Name, 2),
        current_predicate(Rules:Name/2),
        \+ predicate_property(Rules:Head, imported_from(_))
    ->  true
    ;   existence_error(walk_rule, Name)
    ).
confined_walk_(_, Walk) :-
    domain_error(walk, Walk).

		 /*******************************
		 *         USER MODULES         *
		 *******************************/

:- dynamic user_module_/2.              % user_module_(Module, Vocabulary): made by memory_user_module/2

%!  memory_user_module(+Module) is det.
%
%   Create Module, or empty it when it exists, as a user module: no clauses, `system` as its
%   only parent and the vocabulary of this module (its exports but these two) imported, with
%   the builtins that write or read a term taken from atc_term_guard (depth-checked).
%   @error permission_error(create, user_module, Module) when Module is a module that is not
%   a user module (a project or library module)

memory_user_module(M) :-
    memory_user_module(M, atc_memory).

%!  memory_user_module(+Module, +Vocabulary) is det.
%
%   As memory_user_module/1, importing the vocabulary from module Vocabulary, which exports
%   every name of it: atc_memory, or atc_grantee_view (the same names, each filtered through
%   the sharing policy for the principal reading). A module of any vocabulary but atc_memory
%   reads only the Prolog flags of atc_flag_guard (none that describes the host). An existing
%   user module is emptied and keeps the vocabulary it was made with.
%   @error domain_error(vocabulary, V) for a module that does not export the vocabulary

memory_user_module(M, Vocabulary) :-
    must_be(atom, M),
    must_be(atom, Vocabulary),
    (   user_module_(M, _)
    ->  wipe_user_module_(M),
        flag_guard_(M)
    ;   current_module(M)
    ->  permission_error(create, user_module, M)
    ;   module_property(Vocabulary, exports(Ex)),
        forall(vocabulary_(PI), memberchk(PI, Ex))
    ->  set_module(M:base(system)),
        forall(vocabulary_(PI), @(import(Vocabulary:PI), M)),
        forall(guarded_builtin(PI), @(import(atc_term_guard:PI), M)),
        assertz(user_module_(M, Vocabulary)),
        flag_guard_(M)
    ;   domain_error(vocabulary, Vocabulary)
    ).

%!  memory_is_user_module(?Module) is nondet.
%   Module was made by memory_user_module/1.
memory_is_user_module(M) :-
    user_module_(M, _).

% flag_guard_(+Module): a grantee's module (any vocabulary but atc_memory) reads no Prolog flag
% that describes the host (rules/flag_guard.pl).
flag_guard_(M) :-
    (   user_module_(M, atc_memory)
    ->  true
    ;   flag_guard_install(M)
    ).

vocabulary_(Name/Arity) :-
    module_property(atc_memory, exports(PIs)),
    member(Name/Arity, PIs),
    \+ memberchk(Name, [memory_user_module, memory_is_user_module]).

% A local predicate with a builtin's name is the module's own guard (flag_guard_/1), which no
% rule may define and abolish/1 may not remove: it stays.
wipe_user_module_(M) :-
    forall(( current_predicate(M:N/A), functor(H, N, A),
             \+ predicate_property(M:H, imported_from(_)),
             \+ predicate_property(system:H, defined) ),
           abolish(M:N/A)).
