/*  plunit tests for rules/janus_codec.pl: the wire form the janus backend uses.

    The codec's pure parts (encode/2, decode/3, text safety, error contexts) need no janus, so
    this suite runs on any SWI-Prolog:  swipl -g run_tests -t halt tests/janus/test_janus_codec.pl
    Wires are written as janus hands them over: tags and text from Python are strings.
*/
:- use_module(library(plunit)).
:- use_module('../../rules/janus_codec').
:- use_module('../../rules/bridge').

:- begin_tests(janus_codec_encode).

test(plain_values) :-
    encode(["s", 42, -3.5, []], W),
    W == ["s", 42, -3.5, []].
test(atoms_are_tagged_strings_are_not) :-
    encode([abc, "abc", '', '[]'], W),
    W == [py{a: abc}, "abc", py{a: ''}, py{a: '[]'}].
test(wide_atoms_are_atoms) :-
    atom_codes(A, [0x65E5, 0x1F680]),
    encode(A, W),
    W == py{a: A}.
test(compounds_keep_name_and_arguments) :-
    encode(f(x, "y", g(1)), W),
    W == py{t: f, a: [py{a: x}, "y", py{t: g, a: [1]}]}.
test(janus_lookalikes_are_plain_compounds) :-
    encode([@(true), -(a, b), #(x)], W),
    W == [py{t: @, a: [py{a: true}]}, py{t: -, a: [py{a: a}, py{a: b}]}, py{t: #, a: [py{a: x}]}].
test(unbound_variables) :-
    encode(f(_, _), W),
    W == py{t: f, a: [py{v: 0}, py{v: 0}]}.
test(partial_list_keeps_its_tail) :-
    encode([1, 2|_], W),
    W == py{p: [1, 2], tail: py{v: 0}}.
test(dicts_drop_the_tag_and_encode_values) :-
    dict_pairs(D, tag, [k-v, 2-"s"]),
    encode(D, W),
    W = py{d: Keys, v: Values},
    pairs_keys_values(Pairs, Keys, Values),
    msort(Pairs, Sorted),
    Sorted == [2-"s", k-(py{a: v})].
test(rationals_and_blobs_become_text) :-
    X is 1 rdiv 3,
    encode(X, W),
    W == "1r3".

:- end_tests(janus_codec_encode).

:- begin_tests(janus_codec_decode).

test(plain_values) :-
    decode(["s", 42, 2.5, []], v, T),
    T == ["s", 42, 2.5, []].
test(python_constants) :-
    decode([@(true), @(false), @(none)], v, T),
    T == [true, false, null].
test(tagged_atoms_and_compounds) :-
    decode(-("t", "f", [-("a", "x"), "y"]), v, T),
    T == f(x, "y").
test(zero_arity_name_makes_a_compound) :-
    decode(-("t", "g", []), v, T),
    compound(T),
    compound_name_arity(T, g, 0).
test(dict_with_unbound_tag) :-
    decode(-("d", ["a", "b"], [1, -("a", "c")]), v, D),
    is_dict(D, Tag),
    var(Tag),
    dict_pairs(D, _, Pairs),
    Pairs == [a-1, b-c].
test(variables_by_number_share) :-
    decode([-("v", 0), -("v", 1), -("v", 0)], v(A, B), T),
    T == [A, B, A],
    A \== B.
test(code_lists_carry_lone_surrogates) :-
    decode([-("s", [97, 0xD800]), -("a", -("s", [0xDFFF]))], v, [S, A]),
    string_codes(S, [97, 0xD800]),
    atom_codes(A, [0xDFFF]).
test(unknown_wire_is_a_domain_error, error(domain_error(janus_wire, _))) :-
    decode(-("q", 1), v, _).
test(encode_then_decode_is_exact) :-
    T0 = f("s", 'a b', [1, 2.5, g(x)], _{k: "v"}),
    encode(T0, W),
    python_view(W, P),
    decode(P, v, T),
    T =@= T0.

% What Python hands back for a wire it received: atom tags and names arrive as strings, and
% compounds and dicts in the Python -> Prolog form.
python_view(W, P) :-
    (   atom(W), W \== []
    ->  atom_string(W, P)
    ;   is_list(W)
    ->  maplist(python_view, W, P)
    ;   is_dict(W), get_dict(a, W, A), dict_pairs(W, _, [_])
    ->  atom_string(A, PA),
        P = -("a", PA)
    ;   is_dict(W), get_dict(v, W, _), dict_pairs(W, _, [_])
    ->  P = -("v", 0)
    ;   is_dict(W), get_dict(d, W, Ks), get_dict(v, W, Vs)
    ->  maplist(python_view, Ks, PKs),
        maplist(python_view, Vs, PVs),
        P = -("d", PKs, PVs)
    ;   is_dict(W), get_dict(t, W, N), get_dict(a, W, As)
    ->  maplist(python_view, As, PAs),
        atom_string(N, PN),
        P = -("t", PN, PAs)
    ;   compound(W)
    ->  compound_name_arguments(W, N, As),
        maplist(python_view, As, PAs),
        compound_name_arguments(P, N, PAs)
    ;   P = W
    ).

:- end_tests(janus_codec_decode).

:- begin_tests(janus_codec_errors).

test(text_safe_rewrites_only_text_with_surrogates) :-
    string_codes(S, [0x61, 0xD800]),
    atom_codes(A, [0xDC00]),
    atc_janus_codec:text_safe(["ok", S, py{a: A}, 7], Safe),
    Safe == ["ok", py{s: [0x61, 0xD800]}, py{a: py{s: [0xDC00]}}, 7].
test(unknown_host_goal_reads_as_a_host_call) :-
    catch(findall(x, limit(1, user:no_such_goal_here(1)), _), E0, true),
    atc_janus_codec:host_context(E0, user:no_such_goal_here(1), E),
    E = error(existence_error(procedure, no_such_goal_here/1), context(Ctx, _)),
    Ctx == system:'$c_call_prolog'/0.
test(deeper_unknown_goals_keep_their_context) :-
    E0 = error(existence_error(procedure, other/0), context(user:caller/1, _)),
    atc_janus_codec:host_context(E0, user:caller(1), E),
    E == E0.
test(callable_errors_read_like_the_pyswip_backend) :-
    atc_bridge:error_message(error(python_error('ValueError', "bad 8"), _), M),
    M == "Python ValueError: bad 8".

:- end_tests(janus_codec_errors).
