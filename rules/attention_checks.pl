:- module(atc_attention_checks,
          [ must_be_time/1,               % +Seconds
            must_be_probability/1,        % +P
            must_be_cost/1,               % +Cost
            must_be_stakes/1,             % +Loss
            must_be_boolean_atom/1,       % +Bool
            text_atom/2,                  % +Text, -Atom
            new_id_atom/2,                % +Text, -Atom
            visible_identifier/1,         % +Atom
            must_be_bounded_text/2,       % +What, +Value
            must_be_finite/1,             % +Value
            max_text_chars/1,             % -Chars
            subject_key/2,                % +Subject, -Key
            subject_text/2,               % +Key, -Subject
            optional/2                    % +Value, -Maybe
          ]).
:- use_module(library(error)).

/** <module> Argument checks shared by the TMS, the attention controller and the validator

Bad numbers are refused at the door, with library(error) terms, so nothing absurd is stored and
the trace never records a value the controller could not have acted on. The bounds are generous
and documented: a timestamp is Unix seconds between 0 and 1e11 (the year 5138), a cost or a loss
lies between 0 and 1e6, a probability between 0 and 1. No number stored is NaN or infinite:
JSON cannot hold one, and every comparison with NaN is false.
*/

%!  must_be_time(+Seconds) is det.
%
%   Seconds is a Unix time (or an age) between 0 and 1e11.
%   @error type_error(number, Seconds), domain_error(time_seconds, Seconds)

must_be_time(T) :-
    must_be_between_(time_seconds, 0, 1.0e11, T).

%!  must_be_probability(+P) is det.
%
%   P is a number in [0,1].
%   @error type_error(number, P), domain_error(probability, P)

must_be_probability(P) :-
    must_be_between_(probability, 0, 1, P).

%!  must_be_cost(+Cost) is det.
%
%   Cost is a number in [0, 1e6].
%   @error type_error(number, Cost), domain_error(cost, Cost)

must_be_cost(C) :-
    must_be_between_(cost, 0, 1.0e6, C).

%!  must_be_stakes(+Loss) is det.
%
%   Loss (a loss if wrong, in utility units) is a number in [0, 1e6].
%   @error type_error(number, Loss), domain_error(loss_if_wrong, Loss)

must_be_stakes(L) :-
    must_be_between_(loss_if_wrong, 0, 1.0e6, L).

must_be_between_(Domain, Low, High, X) :-
    must_be(number, X),
    (   X >= Low, X =< High
    ->  true
    ;   domain_error(Domain, X)
    ).

%!  must_be_boolean_atom(+Bool) is det.
%
%   Bool is `true` or `false`.

must_be_boolean_atom(B) :-
    must_be(boolean, B).

%!  text_atom(+Text, -Atom) is det.
%
%   Identifiers arrive as strings or atoms and are stored as non-empty atoms.
%   @error type_error(text, Text), domain_error(non_empty_text, Text)

text_atom(Text, Atom) :-
    must_be(text, Text),
    atom_string(Atom, Text),
    (   Atom == ''
    ->  domain_error(non_empty_text, Text)
    ;   true
    ).

%!  new_id_atom(+Text, -Atom) is det.
%
%   An identifier being recorded (a belief, source or goal): text_atom/2, and it must show a
%   character that is not white space and hold no control character (C0, DEL, C1). A blank id
%   printed as nothing and one with a newline broke every line-oriented listing; lookups use
%   text_atom/2 alone, so what an older journal holds can still be named.
%   @error domain_error(identifier, Text)

new_id_atom(Text, Atom) :-
    text_atom(Text, Atom),
    (   visible_identifier(Atom)
    ->  true
    ;   domain_error(identifier, Text)
    ).

%!  visible_identifier(+Name:atom) is semidet.
%
%   Name shows a character that is not white space and holds no control character.

visible_identifier(Name) :-
    atom_codes(Name, Codes),
    member(Shown, Codes), \+ code_type(Shown, space),
    !,
    \+ ( member(Control, Codes), control_code_(Control) ).

control_code_(C) :- C < 0x20.
control_code_(C) :- C >= 0x7f, C =< 0x9f.

:- multifile prolog:error_message//1.
prolog:error_message(domain_error(identifier, Text)) -->
    [ 'an id needs a visible character and no control characters: ~q'-[Text] ].

%!  max_text_chars(-Chars:integer) is det.
%
%   The most characters a free text of the attention side holds (a belief's or an
%   inspection's value or subject, an event's payload, a claim's text): what an item keeps of
%   one message (`max_item_chars`), so a value may still quote an item whole. Unbounded, a
%   20 MB value was journalled whole and printed by every listing.

max_text_chars(32000).

%!  must_be_bounded_text(+What:atom, +Value) is det.
%
%   Value, if text (numbers pass), holds at most max_text_chars/1 characters.
%   @error domain_error(bounded_text(What, Chars), Length)

must_be_bounded_text(What, Value) :-
    (   ( atom(Value) ; string(Value) ),
        atom_length(Value, Length),
        max_text_chars(Max),
        Length > Max
    ->  domain_error(bounded_text(What, Max), Length)
    ;   true
    ).

%!  must_be_finite(+Value) is det.
%
%   Value, if a float, is a number: not NaN, not an infinity (text and integers pass). A
%   subject, value or weight stored as one came back in `--format json` as a bare `NaN` or
%   `Infinity`, which strict JSON parsers refuse, and made the controller's arithmetic fail.
%   @error domain_error(finite_number, Value)

must_be_finite(Value) :-
    (   float(Value),
        float_class(Value, Class),
        memberchk(Class, [nan, infinite])
    ->  domain_error(finite_number, Value)
    ;   true
    ).

% The range checks above in words naming the range: SWI-Prolog's own "Domain error:
% `probability' expected, found `1.5'" said neither what a probability is here nor the bounds.
prolog:error_message(domain_error(probability, X)) -->
    [ '~p is not a probability: a confidence or an authority is between 0 and 1'-[X] ].
prolog:error_message(domain_error(cost, X)) -->
    [ '~p is not a cost: a cost is between 0 and 1000000'-[X] ].
prolog:error_message(domain_error(loss_if_wrong, X)) -->
    [ '~p is not a loss if wrong: a loss is between 0 and 1000000'-[X] ].
prolog:error_message(domain_error(time_seconds, X)) -->
    [ '~p is outside the attention clock: a time or an age is Unix seconds from 0 (1970) \c
       to 1e11 (the year 5138)'-[X] ].
prolog:error_message(domain_error(non_empty_text, X)) -->
    [ '~q is empty: an id or a name needs a visible character'-[X] ].

prolog:error_message(domain_error(finite_number, Value)) -->
    [ '~p is not a finite number: NaN and infinities are refused (JSON cannot hold them)'-[Value] ].

prolog:error_message(domain_error(bounded_text(What, Max), Length)) -->
    [ '~w holds ~d characters; at most ~d are kept'-[What, Length, Max] ].

%!  subject_key(+Subject, -Key) is det.
%
%   What a claim is about, as stored: text becomes an atom (so "libfoo" and libfoo are one
%   subject), numbers stay numbers; null (no subject) becomes ''.
%   @error domain_error(finite_number, Subject) for NaN or an infinity

%!  subject_text(+Key, -Subject) is det.
%
%   A stored subject (subject_key/2) as the host shows it: an atom as a string, so that a
%   subject named `null`, `true` or `false` reads back as that text, not as JSON's null or a
%   boolean (the host reads those atoms as such); a number stays a number.

subject_text(Key, Subject) :-
    (   atom(Key)
    ->  atom_string(Key, Subject)
    ;   Subject = Key
    ).

subject_key(S, '') :-
    S == null, !.
subject_key(S, Key) :-
    must_be(atomic, S),
    must_be_finite(S),
    (   string(S)
    ->  atom_string(Key, S)
    ;   Key = S
    ).

%!  optional(+Value, -Maybe) is det.
%
%   Maybe is `none` when Value is `null` (Python's None) or `none`, else some(Value).

optional(V, none) :-
    (   V == null
    ;   V == none
    ;   var(V)
    ),
    !.
optional(V, some(V)).
