:- module(memory,
          [ item/1, item_kind/2, item_role/2, item_goal/2, item_session/2, item_time/2,
            item_seq/2, item_segment/2, item_source/2, item_source_name/2, item_text/2,
            relation/3
          ]).
:- reexport(journal, [ item/1, item_kind/2, item_role/2, item_goal/2, item_session/2,
                       item_time/2, item_seq/2, item_segment/2, item_source/2,
                       item_source_name/2, item_text/2, relation/3 ]).

/** <module> The public query vocabulary

User goals (`atc query`, `Memory.query`) and user rule files run in this module, under
library(sandbox). It re-exports the read-only vocabulary of the journal, the ladder, the jump and
hydration; nothing here can change memory.
*/
