:- module(atc_planes,
          [ plane/2,                    % ?Plane, ?Settings
            plane_segment/3             % ?Plane, ?Segment, ?Share
          ]).

/** <module> Planes: which segments a frame draws from, and how far the walk goes

A plane names its segments with their share of the token budget ('*' stands for every segment
in memory that the plane does not name), the seed count of the jump, the fact cap, the walk
depth, the walk rule, and how strongly the walk prefers the goal's own trajectory (items
produced under the same goal). `atc hydrate --segment S=N` overrides a segment's budget.

Add a plane by asserting facts in a rules file, or edit this file.
*/

%!  plane(?Plane, ?Settings:dict) is nondet.
%   Settings: seeds (jump hits kept per segment), fact_cap (facts of a full share per segment at
%   the default budget of 2000 tokens, scaled with a larger one: hydrate.pl's cap_room_/3),
%   depth (walk hops),
%   walk (entity_walk, or rule(Name) for a user rule), trajectory (0..1 weight of same-goal
%   items), breadcrumbs (share of each segment budget kept for the frame's edge).
plane(default,     _{seeds: 6,  fact_cap: 80, depth: 1, walk: entity_walk, trajectory: 0.5,
                     breadcrumbs: 0.05}).
plane(execution,   _{seeds: 3,  fact_cap: 24, depth: 1, walk: entity_walk, trajectory: 0.9,
                     breadcrumbs: 0.04}).
plane(exploration, _{seeds: 12, fact_cap: 80, depth: 2, walk: entity_walk, trajectory: 0.2,
                     breadcrumbs: 0.08}).

%!  plane_segment(?Plane, ?Segment, ?Share:number) is nondet.
plane_segment(default, '*', 1).
plane_segment(execution, '*', 1).
plane_segment(exploration, '*', 1).
