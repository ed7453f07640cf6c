:- module(atc_memory,
          [ item/1, item_kind/2, item_role/2, item_speaker/2, item_goal/2, item_session/2, item_time/2,
            item_seq/2, item_segment/2, item_source/2, item_source_name/2, item_text/2,
            relation/3,
            rung/3, rung_tokens/3, distilled/3, provenance/2, arc/1, arc_member/2, arc_goal/2,
            arc_session/2, item_arc/2, rollup/2, echo_of/3, curated/2,
            nearest/3, nearest/4, lexical/4, similarity/3, similarity/4,
            hydrate/3, goal_speaker/2, goal_time_window/4, memory_now/1, items_between/3,
            items_between/4
          ]).
:- reexport(journal, [ item/1, item_kind/2, item_role/2, item_speaker/2, item_goal/2, item_session/2,
                       item_time/2, item_seq/2, item_segment/2, item_source/2,
                       item_source_name/2, item_text/2, relation/3 ]).
:- reexport(ladder, [ rung/3, rung_tokens/3, distilled/3, provenance/2, arc/1, arc_member/2,
                      arc_goal/2, arc_session/2, item_arc/2, rollup/2, echo_of/3, curated/2 ]).
:- reexport(jump, [ nearest/3, nearest/4, lexical/4, similarity/3, similarity/4 ]).
:- reexport(hydrate, [ hydrate/3, goal_speaker/2 ]).
:- reexport(when, [ goal_time_window/4, memory_now/1, items_between/3, items_between/4 ]).

% The jump calls Python (faiss) through predicates the host registers; they only read.
:- multifile sandbox:safe_primitive/1.
sandbox:safe_primitive(atc_jump:nearest(_, _, _)).
sandbox:safe_primitive(atc_jump:nearest(_, _, _, _)).
sandbox:safe_primitive(atc_jump:lexical(_, _, _, _)).
sandbox:safe_primitive(atc_jump:similarity(_, _, _)).
sandbox:safe_primitive(atc_jump:similarity(_, _, _, _)).
sandbox:safe_primitive(atc_hydrate:hydrate(_, _, _)).
sandbox:safe_primitive(atc_hydrate:goal_speaker(_, _)).
sandbox:safe_primitive(atc_when:goal_time_window(_, _, _, _)).
sandbox:safe_primitive(atc_when:memory_now(_)).  % builds the day index on first use (global variables)
sandbox:safe_primitive(atc_when:items_between(_, _, _)).  % builds its day index on first use
sandbox:safe_primitive(atc_when:items_between(_, _, _, _)).

/** <module> The public query vocabulary

User goals (`atc query`, `Memory.query`) and user rule files run in this module, under
library(sandbox). It re-exports the read-only vocabulary of the journal, the ladder, the jump and
hydration; nothing here can change memory.
*/
