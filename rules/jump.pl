:- module(atc_jump,
          [ nearest/3,                  % +Query, +K, -Hits  |  +Query, -Handle, -Score
            nearest/4,                  % +Query, +K, +Options, -Hits
            lexical/4,                  % +Query, +K, +Options, -Hits
            similarity/3,               % +Query, +Records, -Pairs
            similarity/4,               % +Query, +Records, +K, -Pairs
            vector_similarity/4,        % +Query, +Keys, +K, -Pairs
            similarity_within/4,        % +Query, +Groups, +K, -Pairs
            similarity_within_texts/4,  % +Query, +Groups, +K, -Pairs
            jump_available/1,           % +Options
            nearest_handle_arg/1        % @Arg
          ]).
:- use_module(library(error)).
:- use_module(library(lists)).
:- use_module(library(apply)).
:- use_module(library(pairs)).
:- use_module(journal).
:- use_module(ladder).
% Arithmetic compiled to VM instructions (this file only): a frame's look-ups here would
% otherwise call rules/arith_guard.pl's wrapped is/2 and comparisons (hydrate.pl does the same).
:- set_prolog_flag(optimise, true).

/** <module> The jump: similarity search callable mid-proof

nearest/3 lands directly on the items (and arcs) most similar to a query, by cosine over the
memory's embeddings. It is implemented in Python (faiss) and registered by the host as
atc_jump:semantic_hits/4; this module gives it its public shape and its errors.

```
?- nearest("tests failing", H, S), item_kind(H, error).
?- nearest("retry policy", 5, Hits).
```

When nothing is embedded (no curation yet, or no embedder configured) nearest raises
existence_error(embeddings, Why) rather than answering an empty list, so a caller can
declare a recency fallback instead of pretending relevance.
*/

%!  nearest(+Query, +K, -Hits) is det.
%!  nearest(+Query, -Handle, -Score) is nondet.
%
%   With an integer K: Hits is a list of Handle-Score, best first, at most K long.
%   Otherwise: one Handle-Score per solution, best first (from the best 50).
%   Query is text (a string) or a handle (an atom) whose stored vector is used; a blank text
%   finds nothing.
%   @error existence_error(embeddings, Why) when nothing can be searched.
%   @error type_error(integer, K) for a K that is a number but no integer (it failed, as if
%   no handle were the number 2.5)

nearest(Query, K, Hits) :-
    integer(K), !,
    nearest(Query, K, [], Hits).
nearest(Query, Handle, Score) :-
    nearest_handle_arg(Handle),
    nearest(Query, 50, [], Hits),
    member(Handle-Score, Hits).

%!  nearest_handle_arg(@Arg) is det.
%   The second argument of nearest/3 when it is no integer K: unbound, or a handle (an atom)
%   asked about. A number is a K that is not an integer, anything else no handle.
%   @error type_error(integer, Arg) for a number; type_error(handle, Arg) for anything else
nearest_handle_arg(H) :-
    (   ( var(H) ; atom(H) )
    ->  true
    ;   number(H)
    ->  type_error(integer, H)
    ;   type_error(handle, H)
    ).

%!  nearest(+Query, +K, +Options, -Hits) is det.
%
%   As nearest/3 with filters: segment(S), kinds(ListOfKinds), level(L), record(item|arc)
%   (session rollups have no vectors: record(rollup) finds nothing).
%   Hits are live records only (tombstoned items never come back).

nearest(Query, K, Options0, Hits) :-
    must_be(nonneg, K),
    jump_options_(Options0, Options),
    query_arg_(Query, Q),
    (   current_predicate(atc_jump:semantic_hits/4)
    ->  (   blank_(Q)
        ->  Raw = []
        ;   Fetch is K + 16,
            catch(semantic_hits(Q, Fetch, Options, Found), E, embeddings_error_(E)),
            host_pairs_(Found, Raw)
        )
    ;   existence_error(embeddings, 'no embedder is attached to this engine')
    ),
    live_top_(Raw, K, Hits).

% A blank query names nothing to be near: the embedder still made a vector of it, and the
% search answered records that happened to lie closest to that (0.18 for "").
blank_(Q) :-
    split_string(Q, "", " \t\n\r", [""]).

% jump_options_(+Options0, -Options): the options nearest/4 and lexical/4 read, each checked:
% one it does not know, a kinds(...) that is no list or a level that is no rung was a filter
% that matched nothing, or was ignored, without a word. A level or record given as a string
% (level("l1"), as JSON shows it) is read as the atom, as the vocabulary reads its arguments.
jump_options_(Options0, Options) :-
    must_be(list, Options0),
    maplist(jump_option_, Options0, Options).

jump_option_(O, _) :-
    var(O), !,
    instantiation_error(O).
jump_option_(segment(S), segment(S)) :- !,
    must_be(atomic, S).
jump_option_(kinds(Ks), kinds(Ks)) :- !,
    must_be(list(atomic), Ks).
jump_option_(level(L0), level(L)) :- !,
    journal_atom_arg(L0, L),
    must_be(oneof([l0, l1, l2, l3]), L).
jump_option_(record(R0), record(R)) :- !,
    journal_atom_arg(R0, R),
    must_be(oneof([item, arc, rollup]), R).
jump_option_(stats_segments(Ss), stats_segments(Ss)) :- !,   % lexical/4: BM25 statistics of
    must_be(list(atomic), Ss).                                % these segments' records alone
jump_option_(within(Keys), within(Lines)) :- !,           % lexical/4: only these records
    within_lines_(Keys, Lines).                               % (one a line), by their statistics
jump_option_(without(Keys), without(Lines)) :- !,        % lexical/4: not these records
    within_lines_(Keys, Lines).                               % (one a line), nor their statistics
jump_option_(O, _) :-
    domain_error(jump_option, O).

% within(Keys), without(Keys): a text of one handle a line, or a list of handles (what a Prolog user writes
% for "these records"; it was a type error), joined into that text.
within_lines_(Keys, Keys) :-
    atomic(Keys), !.
within_lines_(Keys, Lines) :-
    is_list(Keys), !,
    must_be(list(atomic), Keys),
    atomic_list_concat(Keys, '\n', Lines).
within_lines_(Keys, _) :-
    must_be(atomic, Keys).

%!  lexical(+Query, +K, +Options, -Hits) is det.
%   BM25 over the same records as nearest/4 (exact names, numbers and identifiers), best first.
%   Options as nearest/4's, and stats_segments(Segments): only the records of Segments are
%   scored, by their statistics alone (a grantee's searches: what lies in the segments they
%   do not read moves none of their scores); within(Keys): only the records named in Keys
%   (an atom or string, one handle a line, or a list of handles) are scored, by their statistics alone, in place of
%   stats_segments (a grantee's searches within what they see: no score depends on the rest);
%   without(Keys): the records named in Keys are neither scored nor counted in the statistics
%   (a grantee's searches where no set is kept: the records of their segments a label hides).
lexical(Query, K, Options0, Hits) :-
    must_be(nonneg, K),
    jump_options_(Options0, Options),
    query_arg_(Query, Q),
    (   current_predicate(atc_jump:lexical_hits/4)
    ->  Fetch is K + 16,
        lexical_hits(Q, Fetch, Options, Found),
        host_pairs_(Found, Raw),
        live_top_(Raw, K, Hits)
    ;   Hits = []
    ).

%!  similarity(+Query, +Records:list, -Pairs:list) is det.
%!  similarity(+Query, +Records:list, +K, -Pairs:list) is det.
%
%   Pairs is Record-Cosine for each of Records that has a vector, in the order given; with K,
%   only the K best, best first. Query (as for nearest/3) is compared with the record's best
%   vector, its text or its distillation: the score nearest/3 would give it. Scores records a
%   search did not return, such as BM25 hits past the semantic cut, the items of a time window,
%   or the records a traversal rule walked to.
%   @error existence_error(embeddings, Why) when nothing can be compared.

similarity(Query, Records, Pairs) :-
    similarity_(Query, Records, all, Pairs).

similarity(Query, Records, K, Pairs) :-
    must_be(nonneg, K),
    similarity_(Query, Records, K, Pairs).

similarity_(Query, Records, K, Pairs) :-
    must_be(list(atomic), Records),
    query_arg_(Query, Q),
    atomic_list_concat(Records, '\n', Joined),      % one text crosses the bridge, not N atoms
    (   current_predicate(atc_jump:similarity_scores/4)
    ->  catch(similarity_scores(Q, Joined, K, Found), E, embeddings_error_(E)),
        host_pairs_(Found, Pairs)
    ;   existence_error(embeddings, 'no embedder is attached to this engine')
    ).

%!  vector_similarity(+Query, +Keys:list, +K, -Pairs:list) is det.
%
%   As similarity/4, but each of Keys is one vector's key, scored by that vector alone: an
%   item's text (its handle), its distillation (`Handle#l2`) or an arc's summary (its
%   handle); Pairs are Key-Score. similarity/4 scores a record by the best of its text and
%   its distillation; a search at one level (nearest/4's `level(L)`) within given records
%   needs the vector of that level.
%   @error existence_error(embeddings, Why) when nothing can be compared.
vector_similarity(Query, Keys, K, Pairs) :-
    must_be(nonneg, K),
    must_be(list(atomic), Keys),
    query_arg_(Query, Q),
    atomic_list_concat(Keys, '\n', Joined),
    (   current_predicate(atc_jump:vector_similarity_scores/4)
    ->  catch(vector_similarity_scores(Q, Joined, K, Found), E, embeddings_error_(E)),
        host_pairs_(Found, Pairs)
    ;   existence_error(embeddings, 'no embedder is attached to this engine')
    ).

%!  similarity_within(+Query, +Groups:list, +K, -Pairs:list) is det.
%
%   As similarity/4 (K an integer, or `all` for every record in no particular order) over the
%   records of Groups, each Members-LeftOut (two lists of records): the members of each group
%   but those left out. The host keeps a group's vector rows between calls while the vectors
%   do not change, so the members of a cell compared frame after frame (hydrate.pl's cell
%   walk) cost no lookup per record.
%   @error existence_error(embeddings, Why) when nothing can be compared.

similarity_within(Query, Groups, K, Pairs) :-
    (   K == all -> true ; must_be(nonneg, K) ),
    must_be(list, Groups),
    query_arg_(Query, Q),
    maplist(group_text_, Groups, Texts),
    similarity_within_texts(Q, Texts, K, Pairs).

%!  similarity_within_texts(+Query, +Groups:list, +K, -Pairs:list) is det.
%
%   similarity_within/4 with each group given as MembersText-LeftOutText, the records of each
%   list joined by newlines (atoms or strings): for a caller that keeps a group's texts between
%   calls (hydrate.pl keeps a focus cell's), the records are not joined again every time.
%   @error existence_error(embeddings, Why) when nothing can be compared.

similarity_within_texts(Query, Texts, K, Pairs) :-
    query_arg_(Query, Q),
    (   current_predicate(atc_jump:similarity_within_scores/4)
    ->  catch(similarity_within_scores(Q, Texts, K, Found), E, embeddings_error_(E)),
        host_pairs_(Found, Pairs)
    ;   existence_error(embeddings, 'no embedder is attached to this engine')
    ).

% host_pairs_(+Found, -Pairs): the host's answer as Key-Score pairs. The host gives
% hits(KeysText, Scores), the keys joined by newlines and the scores in the same order (one
% text crosses the bridge, not a term per hit): Scores a text too, each score as Python's
% repr writes it (the shortest text that reads back as the same float), or a list of floats
% when some score is not finite; a list of Key-Score pairs is taken as it is.
host_pairs_(hits(Text, Scores0), Pairs) :- !,
    (   string(Scores0) -> host_scores_(Scores0, Scores) ; Scores = Scores0 ),
    (   Scores == []
    ->  Pairs = []
    ;   atomic_list_concat(Keys, '\n', Text),
        pairs_keys_values(Pairs, Keys, Scores)
    ).
host_pairs_(Pairs, Pairs).

host_scores_("", []) :- !.
host_scores_(Text, Scores) :-
    split_string(Text, "\n", "", Parts),
    maplist(number_string, Scores, Parts).

group_text_(Members-LeftOut, MembersText-LeftOutText) :-
    must_be(list(atomic), Members),
    must_be(list(atomic), LeftOut),
    atomic_list_concat(Members, '\n', MembersText),
    atomic_list_concat(LeftOut, '\n', LeftOutText).

%!  jump_available(+Options) is semidet.
%   True when nearest/4 with Options can answer from embeddings.
jump_available(Options) :-
    catch(nearest("probe", 1, Options, _), error(existence_error(embeddings, _), _), fail).

query_arg_(Query, Q) :-
    (   var(Query) -> instantiation_error(Query)  % not "text_or_handle expected, found _123"
    ;   string(Query) -> Q = Query
    ;   atom(Query) -> Q = Query
    ;   is_list(Query) -> string_codes(Q, Query)
    ;   type_error(text_or_handle, Query)
    ).

embeddings_error_(error(python_error('EmbeddingsUnavailable', Why), _)) :- !,
    existence_error(embeddings, Why).
embeddings_error_(error(python_error('EmbeddingError', Why), _)) :- !,
    existence_error(embeddings, Why).
embeddings_error_(E) :-
    throw(E).

% live_top_(+Raw, +K, -Hits): the first K live hits of Raw, in its order. The search fetches
% K + 16 (a record erased since the index was saved is still in it): the hits past the K-th
% live one are not looked up.
live_top_(_, 0, []) :- !.
live_top_([], _, []).
live_top_([Hit|Raw], K, Hits) :-
    (   live_hit_(Hit)
    ->  Hits = [Hit|Hits1],
        K1 is K - 1,
        live_top_(Raw, K1, Hits1)
    ;   live_top_(Raw, K, Hits)
    ).

live_hit_(Key-_) :-
    (   item(Key) -> true ; arc(Key) -> true ; rollup(Key, _) ).

% The optimise flag ends with this file (a compiled .qlf load does not restore it: hydrate.pl).
:- set_prolog_flag(optimise, false).
