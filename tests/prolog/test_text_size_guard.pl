:- use_module('../../rules/memory_meter', [process_memory/1]).
:- use_module('../../rules/text_size_guard', [text_size_checked/2, format_args_chars/2]).
:- use_module(library(plunit)).
:- use_module(library(apply)).

% doubled(+K, -Atom): an atom of 2^K characters.
doubled(K, A) :-
    length(L, K),
    foldl([_, A0, A1]>>atom_concat(A0, A0, A1), L, x, A).

% in_limits(+MemoryLimit, :Goal): Goal as if run by rules/api.pl's within_limits_/2 with
% that memory limit (limits/9: the memory at its start third, the limit fourth).
in_limits(Memory, Goal) :-
    process_memory(Start),
    setup_call_cleanup(
        nb_setval(atc_limit_state, active(0, limits(0, 0, Start, Memory, 0, 0, 0, 0, 0))),
        Goal,
        nb_setval(atc_limit_state, idle)).

:- begin_tests(text_size_guard).

test(the_process_memory_counts_atoms) :-
    process_memory(B0),
    doubled(25, A),                     % 32 MB, and the atoms before it
    process_memory(B),
    atom_length(A, _),
    B - B0 > 30 * 1048576.

test(a_join_past_what_the_limit_leaves_is_refused,
     [throws(error(text_limit(atomic_list_concat/2, 209715200, _), _))]) :-
    doubled(20, A),
    length(As, 200), maplist(=(A), As),
    in_limits(67108864, atomic_list_concat(As, _)).

test(the_separator_counts, [throws(error(text_limit(atomic_list_concat/3, 209715399, _), _))]) :-
    doubled(20, A),
    length(As, 200), maplist(=(A), As),
    in_limits(67108864, atomic_list_concat(As, -, _)).

test(outside_a_limited_call_a_join_is_the_builtins, true(N == 20971520)) :-
    doubled(20, A),
    length(As, 20), maplist(=(A), As),
    atomic_list_concat(As, J),
    atom_length(J, N).

test(splitting_is_not_checked, true(L == [a, b, c])) :-
    in_limits(1, atomic_list_concat(L, -, 'a-b-c')).

test(format_args_count_texts_and_code_lists, true(N == 8)) :-
    format_args_chars([abc, "de", [0'f, 0'g], f(long_atom_not_counted), 7], N).

test(a_small_text_is_never_measured) :-
    in_limits(0, text_size_checked(format/2, 1000)).

:- end_tests(text_size_guard).
