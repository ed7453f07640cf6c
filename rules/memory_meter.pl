:- module(atc_memory_meter,
          [ process_memory/1            % -Bytes
          ]).
:- use_module(library(readutil), [read_line_to_string/2]).

/** <module> How much memory the process holds, as the limits measure it

A call's memory limit (rules/api.pl, within_limits_/2) is the growth of this measure from the
call's start. SWI-Prolog's statistics(heapused, H) asks the malloc it was built with
(tcmalloc on Debian), but an engine embedded in Python allocates through the process's
malloc (glibc's, loaded first), which tcmalloc never sees: under pyswip `heapused` is 0,
before and after a grantee's goal doubled an atom to 1 GB, so the limit never stopped
anything, and one goal (atomic_list_concat/2 of references to one large atom) grew
`atc serve` past 20 GB until the kernel killed it.

So the measure is the process's anonymous resident memory (Linux: `/proc/self/statm`'s
resident pages less its shared ones, which are files mapped and read, as the vector log's),
whatever allocated it: atoms, findall/3's bags, output buffers, the host's own work. Where
that file cannot be read, heapused.

Example:

    ?- process_memory(B0), length(L, 26), foldl([_,A0,A]>>atom_concat(A0,A0,A), L, x, _),
       process_memory(B), D is (B - B0) // 1048576.
    D = 256.                            % MB: the atoms of every doubling, 2^26 characters last
*/

:- dynamic page_bytes_known_/1.         % page_bytes_known_(Bytes or `unknown`): read once

%!  process_memory(-Bytes:integer) is det.
%   The process's anonymous resident memory in bytes (statistics(heapused) where
%   `/proc/self/statm` cannot be read).
process_memory(Bytes) :-
    (   catch(statm_anonymous_pages_(Pages), _, fail),
        page_bytes_(Page)
    ->  Bytes is Pages * Page
    ;   statistics(heapused, Bytes)
    ).

statm_anonymous_pages_(Pages) :-
    statm_fields_([_Size, Resident, Shared|_]),
    Pages is Resident - Shared.

statm_fields_(Fields) :-
    setup_call_cleanup(open('/proc/self/statm', read, In),
                       read_line_to_string(In, Line),
                       close(In)),
    split_string(Line, " ", "", Texts),
    maplist(number_string, Fields, Texts).

% The page size is not a flag: it is the ratio of /proc/self/status's VmSize (kB) to statm's
% size (pages), rounded to a power of two (both read at once; the process may grow between).
page_bytes_(Page) :-
    (   page_bytes_known_(Known)
    ->  true
    ;   (   catch(page_bytes_read_(Known), _, fail) -> true ; Known = unknown ),
        assertz(page_bytes_known_(Known))
    ),
    Known \== unknown,
    Page = Known.

page_bytes_read_(Page) :-
    setup_call_cleanup(open('/proc/self/status', read, In),
                       read_string(In, _, Status),
                       close(In)),
    statm_fields_([Pages|_]),
    sub_string(Status, Before, _, _, "VmSize:"), !,
    Start is Before + 7,
    sub_string(Status, Start, _, 0, Rest),
    split_string(Rest, "\n", " \t", [Line|_]),
    split_string(Line, " ", " ", [KiB|_]),
    number_string(K, KiB),
    Pages > 0,
    Ratio is K * 1024 / Pages,
    Page is 1 << round(log(Ratio) / log(2)).
