:- module(atc_isub_guard,
          [ isub_pairs_max/1            % -Max
          ]).
:- use_module(library(isub), []).

/** <module> isub/4 on texts short enough to compare in one C call

library(isub) is vouched for (sandbox_trust.pl): its isub/4 computes over its two texts
alone. But its C code takes time growing as fast as the cube of their length: two texts of
1,000 characters took 0.07 s, of 2,000 0.8 s, of 4,000 7 s, and a goal's two texts of 12,000
ran for minutes in one call no limit interrupts, as a grantee's goal under `atc serve`.

So the comparison (isub:'$isub'/5, which isub/4 calls and library(sandbox) allows) is wrapped
for every caller: texts whose lengths multiply past isub_pairs_max/1 (1,000 x 1,000) raise
`error(isub_too_long(Len1, Len2, Max), _)`. isub/4 compares names and short phrases; no
caller of the project passes it more.
*/

%!  isub_pairs_max(-Max) is det.
%   The most pairs of characters isub/4 compares: the product of its texts' lengths.
isub_pairs_max(1000000).

% checked_(+Text1, +Text2): throw when the texts' lengths multiply past the limit. A text
% that is not one is left to '$isub'/5's own type error.
checked_(T1, T2) :-
    (   text_length_(T1, L1),
        text_length_(T2, L2),
        isub_pairs_max(Max),
        L1 * L2 > Max
    ->  throw(error(isub_too_long(L1, L2, Max), _))
    ;   true
    ).

text_length_(T, L) :-
    (   atom(T) -> atom_length(T, L)
    ;   string(T) -> string_length(T, L)
    ;   is_list(T) -> length(T, L)
    ).

:- wrap_predicate(isub:'$isub'(T1, T2, _, _, _), atc_isub_guard, Wrapped,
                  ( atc_isub_guard:checked_(T1, T2), Wrapped )).

:- multifile prolog:error_message//1.
prolog:error_message(isub_too_long(L1, L2, Max)) -->
    [ 'isub/4: texts of ~D and ~D characters are too long to compare '-[L1, L2],
      '(their lengths may multiply to ~D at most: its time grows as their cube)'-[Max] ].
