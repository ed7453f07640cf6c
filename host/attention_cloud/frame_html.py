"""The frame as a picture: one self-contained HTML page (inline SVG and CSS, no script, no
network) drawn from a frame's facts and its receipt.

The picture is the fovea seen from above. The goal sits in the middle; the facts the jump found
(``hops`` 0) ring it as the **focus**, the facts one walk step away (``hops`` 1: entity
expansion, cell adjacency, a rule) form the **one hop** band, anything further the
**periphery**; past the edge circle lie the **breadcrumbs** (the receipt's ``beyond``). Each
segment of the frame owns a sector. A fact's disc is sized by its tokens, filled by its rung
(darker is more detail), outlined by ``seeded_by``, and sits nearer the band's inner edge the
higher its score; facts left out as redundant hang off the fact they repeat as hollow grey
rings. Lines from the goal to the focus are the jump, drawn as its ``path`` (semantic, hybrid,
lexical, recency). Hovering any mark shows its text and source pointer (SVG ``<title>``); the
tables under the picture list every fact, breadcrumb and redundant fact with all the receipt's
fields, and the bars beside it each segment's budget, spent, framing and left.

Rendering is a pure function of the facts and the receipt. Every piece of text is escaped, so
item text (``<script>``, quotes, any Unicode) is shown, never run; a Content-Security-Policy
forbids the page any network access or script.
"""
from __future__ import annotations

import html
import math
import re
from typing import Any, Iterable, Sequence

__all__ = ["render_html"]

#: Fill of a fact's disc by rung: the more detail, the darker.
RUNG_FILL = {"L0": "#1d4f91", "L1": "#3d7cc9", "L2": "#8db5e8", "L3": "#d3e2f6"}
#: Outline of a fact's disc by what seeded it (``rule:NAME`` uses the ``rule`` colour).
SEED_STROKE = {"relevance": "#0b7a75", "recency": "#d9822b", "entity_expansion": "#7a4fb5",
               "cell_adjacency": "#b5487a", "rule": "#c23030"}
_OTHER_STROKE = "#555555"
#: How each jump path draws its lines from the goal to the focus.
PATH_DASH = {"semantic": "", "hybrid": "", "lexical": "6 4", "recency": "2 4"}

_W, _H = 760, 640                 # the picture
_CX, _CY = 380, 320               # the goal
_BANDS = ((0, 52, 168), (1, 168, 232), (2, 232, 272))   # (hops, inner radius, outer radius)
_EDGE = 272                       # the frame's edge circle
_CRUMBS = 294                     # where breadcrumbs sit
_TITLE_CHARS = 1200               # text shown in a hover title
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def render_html(receipt: dict[str, Any], facts: Sequence[Any]) -> str:
    """The frame as one self-contained HTML page.

    Args:
        receipt: the frame's receipt (``Frame.receipt``).
        facts: the frame's facts (``Frame.facts``: ``FrameFact`` values, in frame order); their
            texts are shown on hover and in the table.
    """
    segments = _segments(receipt, facts)
    title = f"memory frame: {receipt.get('goal', '')}"
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        f"<title>{_e(_short(title, 120))}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n",
        _header(receipt),
        "<div class=\"main\">\n",
        _picture(receipt, facts, segments),
        "<aside>\n", _budgets(receipt), _legend(), "</aside>\n</div>\n",
        _fact_table(facts),
        _crumb_table(receipt.get("beyond", [])),
        _suppressed_table(receipt.get("suppressed", []), facts),
        _notes(receipt),
        "</body>\n</html>\n",
    ])


# -- escaping -------------------------------------------------------------------------------------
def _clean(text: Any) -> str:
    """Text safe to put in a page: control characters and lone surrogates become U+FFFD."""
    return _CONTROL.sub("\ufffd", str(text))


def _e(text: Any) -> str:
    """Escaped for HTML text and attribute values (quotes included)."""
    return html.escape(_clean(text), quote=True)


def _short(text: Any, limit: int) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _num(value: Any) -> str:
    return f"{float(value):.2f}"


# -- the parts of the page ------------------------------------------------------------------------
def _header(receipt: dict[str, Any]) -> str:
    budget = receipt.get("budget", {})
    total, spent = int(budget.get("total", 0)), int(budget.get("spent", 0))
    anchor = receipt.get("anchor")
    chips = [("plane", receipt.get("plane", "")), ("jump path", receipt.get("path", "")),
             ("ceiling", receipt.get("ceiling", "")),
             ("tokens", f"{spent} spent{_framing_part(budget, ' + ')} of {total}, "
                        f"{_left(total, spent, budget)} left"),
             ("receipt", receipt.get("id", "")), ("created", receipt.get("created", ""))]
    if anchor:
        chips.insert(2, ("anchored to", f"\u201c{anchor.get('phrase', '')}\u201d "
                                        f"{anchor.get('from', '')} \u2192 {anchor.get('to', '')}"))
    items = "".join(f"<span class=\"chip\"><b>{_e(k)}</b> {_e(v)}</span>" for k, v in chips)
    return (f"<header><div class=\"kicker\">memory frame for</div>"
            f"<h1>{_e(receipt.get('goal', ''))}</h1><div class=\"chips\">{items}</div></header>\n")


def _segments(receipt: dict[str, Any], facts: Sequence[Any]) -> list[str]:
    names = list(receipt.get("budget", {}).get("segments", {}))
    for extra in [f.segment for f in facts] + [c.get("segment", "") for c in receipt.get("beyond", [])]:
        if extra not in names:
            names.append(extra)
    return names or ["default"]


def _band(hops: int) -> tuple[float, float]:
    for level, inner, outer in _BANDS:
        if hops <= level:
            return inner, outer
    return _BANDS[-1][1], _BANDS[-1][2]


def _stroke(seeded_by: str) -> str:
    return SEED_STROKE.get(seeded_by.split(":", 1)[0], _OTHER_STROKE)


def _polar(radius: float, angle: float) -> tuple[float, float]:
    return _CX + radius * math.cos(angle), _CY + radius * math.sin(angle)


def _sectors(receipt: dict[str, Any], facts: Sequence[Any],
             segments: list[str]) -> dict[str, tuple[float, float]]:
    """Each segment's (start, end) angle: shares by how much it shows, at least a tenth."""
    crumbs = receipt.get("beyond", [])
    weight = {s: 1 + sum(f.segment == s for f in facts) + sum(c.get("segment") == s for c in crumbs)
              for s in segments}
    floor = sum(weight.values()) / 10
    weight = {s: max(w, floor) for s, w in weight.items()}
    total = sum(weight.values())
    out: dict[str, tuple[float, float]] = {}
    start = -math.pi / 2 + 0.4   # clear of the band labels at the top
    for s in segments:
        span = 2 * math.pi * weight[s] / total
        out[s] = (start, start + span)
        start += span
    return out


def _spread(count: int, start: float, end: float) -> list[float]:
    """``count`` angles spread evenly inside (start, end), away from its borders."""
    step = (end - start) / count
    return [start + step * (i + 0.5) for i in range(count)]


def _picture(receipt: dict[str, Any], facts: Sequence[Any], segments: list[str]) -> str:
    sectors = _sectors(receipt, facts, segments)
    best = max((f.score for f in facts), default=0.0) or 1.0
    scale = min(1.0, math.sqrt(24 / max(len(facts), 1)))
    path = str(receipt.get("path", ""))
    parts = [f"<svg class=\"fovea\" viewBox=\"0 0 {_W} {_H}\" role=\"img\" "
             f"aria-label=\"{_e('the fovea of the frame')}\" xmlns=\"http://www.w3.org/2000/svg\">"]
    parts.append(f"<circle class=\"edge\" cx=\"{_CX}\" cy=\"{_CY}\" r=\"{_EDGE}\"/>")
    for hops, inner, outer in _BANDS[:-1]:
        parts.append(f"<circle class=\"band band{hops}\" cx=\"{_CX}\" cy=\"{_CY}\" r=\"{outer}\"/>")
    for hops, label in ((0, "focus"), (1, "one hop"), (2, "periphery")):
        inner, outer = _band(hops)
        parts.append(f"<text class=\"bandlabel\" x=\"{_CX}\" y=\"{_CY - outer + 13}\">{label}</text>")
    parts.append(f"<text class=\"bandlabel\" x=\"{_CX}\" y=\"{_CY - _CRUMBS - 12}\">"
                 "past the edge: breadcrumbs</text>")
    if len(segments) > 1:
        for name in segments:
            start, end = sectors[name]
            x, y = _polar(_EDGE, start)
            parts.append(f"<line class=\"sector\" x1=\"{_CX}\" y1=\"{_CY}\" "
                         f"x2=\"{x:.1f}\" y2=\"{y:.1f}\"/>")
            middle = (start + end) / 2
            lx, ly = _polar(_CRUMBS + 14, middle)
            side = math.cos(middle)
            anchor = "start" if side > 0.3 else "end" if side < -0.3 else "middle"
            parts.append(f"<text class=\"seglabel\" x=\"{lx:.1f}\" y=\"{ly + 4:.1f}\" "
                         f"text-anchor=\"{anchor}\">{_e(_short(name, 24))}</text>")
    where: dict[str, tuple[float, float, float]] = {}   # handle -> x, y, radius
    marks: list[str] = []
    lines: list[str] = []
    for name in segments:
        start, end = sectors[name]
        mine = [(i, f) for i, f in enumerate(facts, 1) if f.segment == name]
        for hops, _, _ in _BANDS:
            ring = [(i, f) for i, f in mine if min(f.hops, _BANDS[-1][0]) == hops]
            for angle, (i, f) in zip(_spread(len(ring), start, end) if ring else [], ring):
                inner, outer = _band(f.hops)
                strength = max(0.0, min(1.0, f.score / best))
                radius = inner + 12 + (outer - inner - 24) * (1 - strength)
                x, y = _polar(radius, angle)
                size = max(7.0, min(22.0, (5 + 1.1 * math.sqrt(max(f.tokens, 0))) * scale))
                where[f.handle] = (x, y, size)
                if f.hops == 0:
                    dash = PATH_DASH.get(path, "3 3")
                    lines.append(f"<line class=\"jump\" x1=\"{_CX}\" y1=\"{_CY}\" x2=\"{x:.1f}\" "
                                 f"y2=\"{y:.1f}\" stroke-dasharray=\"{dash}\"/>")
                marks.append(_fact_mark(i, f, x, y, size))
        crumbs = [c for c in receipt.get("beyond", []) if c.get("segment") == name]
        for angle, crumb in zip(_spread(len(crumbs), start, end) if crumbs else [], crumbs):
            x, y = _polar(_CRUMBS, angle)
            marks.append(
                f"<g class=\"crumb\"><title>{_e(_crumb_title(crumb))}</title>"
                f"<circle cx=\"{x:.1f}\" cy=\"{y:.1f}\" r=\"6.5\"/></g>")
    repeats: dict[str, int] = {}
    for row in receipt.get("suppressed", []):
        like = where.get(row.get("like", ""))
        if like is None:
            continue
        x0, y0, size = like
        j = repeats[row["like"]] = repeats.get(row["like"], -1) + 1
        angle = math.atan2(y0 - _CY, x0 - _CX) + (0.7 * ((j + 1) // 2) * (-1) ** j)
        x, y = x0 + (size + 10) * math.cos(angle), y0 + (size + 10) * math.sin(angle)
        marks.append(
            f"<g class=\"redundant\"><title>{_e(_redundant_title(row))}</title>"
            f"<line x1=\"{x0:.1f}\" y1=\"{y0:.1f}\" x2=\"{x:.1f}\" y2=\"{y:.1f}\"/>"
            f"<circle cx=\"{x:.1f}\" cy=\"{y:.1f}\" r=\"5\"/></g>")
    parts.extend(lines)
    parts.append(f"<g class=\"goal\"><title>{_e('goal: ' + str(receipt.get('goal', '')))}</title>"
                 f"<circle cx=\"{_CX}\" cy=\"{_CY}\" r=\"40\"/>"
                 f"<text x=\"{_CX}\" y=\"{_CY - 3}\">goal</text>"
                 f"<text class=\"small\" x=\"{_CX}\" y=\"{_CY + 12}\">jump: {_e(path)}</text></g>")
    parts.extend(marks)
    if not facts and not receipt.get("beyond"):
        parts.append(f"<text class=\"empty\" x=\"{_CX}\" y=\"{_CY + 70}\">"
                     "memory holds nothing for this goal</text>")
    parts.append("</svg>\n")
    return "".join(parts)


def _fact_mark(number: int, fact: Any, x: float, y: float, size: float) -> str:
    fill = RUNG_FILL.get(fact.level.upper(), _OTHER_STROKE)
    ink = "#ffffff" if fact.level.upper() in ("L0", "L1") else "#102a4c"
    label = (f"<text class=\"num\" x=\"{x:.1f}\" y=\"{y + 3.5:.1f}\" fill=\"{ink}\">{number}</text>"
             if size >= 7 else "")
    return (f"<g class=\"fact\" id=\"mark-{number}\"><title>{_e(_fact_title(number, fact))}</title>"
            f"<circle cx=\"{x:.1f}\" cy=\"{y:.1f}\" r=\"{size:.1f}\" fill=\"{fill}\" "
            f"stroke=\"{_stroke(fact.seeded_by)}\"/>{label}</g>")


def _fact_title(number: int, fact: Any) -> str:
    head = (f"#{number} {fact.handle} \u00b7 {fact.level.upper()} \u00b7 score {_num(fact.score)} "
            f"\u00b7 {fact.tokens} tokens \u00b7 {fact.seeded_by} \u00b7 segment {fact.segment}")
    when = f"\nwritten {fact.time}" if fact.time else ""
    return f"{head}\nsource: {fact.source}{when}\n\n{_short(fact.text, _TITLE_CHARS)}"


def _crumb_title(crumb: dict[str, Any]) -> str:
    return (f"beyond the frame: {crumb.get('handle', '')} \u00b7 {crumb.get('level', '')} "
            f"\u00b7 {crumb.get('tokens', 0)} tokens\nsource: {crumb.get('source', '')}\n\n"
            f"{_short(crumb.get('text', ''), _TITLE_CHARS)}")


def _redundant_title(row: dict[str, Any]) -> str:
    return (f"left out as redundant: {row.get('handle', '')}\nrepeats {row.get('like', '')} "
            f"(similarity {_num(row.get('similarity', 0))})")


def _framing_part(budget: dict[str, Any], sep: str) -> str:
    # the frame's own lines (the receipt's framing) are paid from the budget too
    return f"{sep}{int(budget['framing'])} framing" if "framing" in budget else ""


def _left(total: int, spent: int, budget: dict[str, Any]) -> int:
    return max(total - spent - int(budget.get("framing", 0)), 0)


def _budgets(receipt: dict[str, Any]) -> str:
    rows = []
    for name, seg in receipt.get("budget", {}).get("segments", {}).items():
        budget, spent = int(seg.get("budget", 0)), int(seg.get("spent", 0))
        share = 100.0 * min(spent, budget) / budget if budget else 0.0
        framing = _framing_part(seg, " \u00b7 ")
        rows.append(
            f"<div class=\"budget\"><div class=\"bname\">{_e(name)} "
            f"<span class=\"muted\">{_e(seg.get('path', ''))}</span></div>"
            f"<div class=\"bar\" title=\"{spent} of {budget} tokens\">"
            f"<div class=\"spent\" style=\"width:{share:.1f}%\"></div></div>"
            f"<div class=\"bnums\">{spent} spent{framing} \u00b7 "
            f"{_left(budget, spent, seg)} left "
            f"\u00b7 {budget} budget</div></div>")
    return "<h2>budget per segment</h2>\n" + ("".join(rows) or "<p class=\"muted\">none</p>") + "\n"


def _legend() -> str:
    rungs = "".join(f"<li><i class=\"dot\" style=\"background:{c}\"></i>{k}</li>"
                    for k, c in RUNG_FILL.items())
    seeds = "".join(f"<li><i class=\"ring\" style=\"border-color:{c}\"></i>"
                    f"{'rule:NAME' if k == 'rule' else k}</li>" for k, c in SEED_STROKE.items())
    paths = "".join(f"<li><svg width=\"34\" height=\"8\"><line x1=\"0\" y1=\"4\" x2=\"34\" y2=\"4\" "
                    f"class=\"jump\" stroke-dasharray=\"{d}\"/></svg>{k}</li>"
                    for k, d in PATH_DASH.items())
    return ("<h2>legend</h2>\n<div class=\"legend\">"
            f"<div><h3>rung (fill)</h3><ul>{rungs}</ul></div>"
            f"<div><h3>seeded by (outline)</h3><ul>{seeds}</ul></div>"
            f"<div><h3>jump path</h3><ul>{paths}</ul></div>"
            "<div><h3>other marks</h3><ul>"
            "<li><i class=\"ring crumbring\"></i>breadcrumb (beyond)</li>"
            "<li><i class=\"ring redring\"></i>left out as redundant</li>"
            "<li>disc size: tokens; nearer the goal: higher score</li></ul></div>"
            "</div>\n<p class=\"muted\">Hover a mark for its text and source.</p>\n")


def _table(caption: str, head: Iterable[str], rows: list[str], empty: str) -> str:
    if not rows:
        return f"<section><h2>{_e(caption)}</h2><p class=\"muted\">{_e(empty)}</p></section>\n"
    cols = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (f"<section><h2>{_e(caption)}</h2><table><thead><tr>{cols}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>\n")


def _fact_table(facts: Sequence[Any]) -> str:
    rows = []
    for i, f in enumerate(facts, 1):
        dirty = (f"<div class=\"dirty\">depends on dirty beliefs: {_e(', '.join(f.dirty_beliefs))}</div>"
                 if getattr(f, "dirty_beliefs", ()) else "")
        rows.append(
            f"<tr id=\"fact-{i}\"><td class=\"n\">{i}</td>"
            f"<td><span class=\"rung\" style=\"background:{RUNG_FILL.get(f.level.upper(), '#999')}\">"
            f"{_e(f.level.upper())}</span></td><td class=\"n\">{_num(f.score)}</td>"
            f"<td>{_e(f.segment)}</td><td class=\"n\">{f.tokens}</td>"
            f"<td><span class=\"seed\" style=\"border-color:{_stroke(f.seeded_by)}\">"
            f"{_e(f.seeded_by)}</span></td><td class=\"n\">{f.hops}</td>"
            f"<td><code>{_e(f.handle)}</code><div class=\"src\">{_e(f.source)}</div>"
            f"<div class=\"muted\">{_e(f.time)}</div></td>"
            f"<td><div class=\"text\">{_e(f.text)}</div>{dirty}</td></tr>")
    return _table("facts in the frame", ["#", "rung", "score", "segment", "tokens", "seeded_by",
                                         "hops", "handle · source · written", "text"],
                  rows, "no fact fits this frame")


def _crumb_table(crumbs: list[dict[str, Any]]) -> str:
    rows = [f"<tr><td><code>{_e(c.get('handle', ''))}</code><div class=\"src\">"
            f"{_e(c.get('source', ''))}</div></td><td>{_e(c.get('segment', ''))}</td>"
            f"<td>{_e(c.get('level', ''))}</td><td class=\"n\">{int(c.get('tokens', 0))}</td>"
            f"<td><div class=\"text\">{_e(c.get('text', ''))}</div></td></tr>" for c in crumbs]
    return _table("beyond the frame (breadcrumbs)", ["handle · source", "segment", "rung",
                                                     "tokens", "skeleton"], rows,
                  "nothing lies just past this frame's edge")


def _suppressed_table(rows_in: list[dict[str, Any]], facts: Sequence[Any]) -> str:
    number = {f.handle: i for i, f in enumerate(facts, 1)}
    rows = [f"<tr><td><code>{_e(r.get('handle', ''))}</code></td><td>{_e(r.get('segment', ''))}</td>"
            f"<td><code>{_e(r.get('like', ''))}</code>"
            f"{' (#' + str(number[r.get('like')]) + ')' if r.get('like') in number else ''}</td>"
            f"<td class=\"n\">{_num(r.get('similarity', 0))}</td>"
            f"<td>{_e(r.get('suppressed', ''))}</td></tr>" for r in rows_in]
    return _table("left out as redundant", ["handle", "segment", "repeats", "similarity", "why"],
                  rows, "no candidate repeated a fact already taken")


def _notes(receipt: dict[str, Any]) -> str:
    notes = receipt.get("notes") or []
    tokens = receipt.get("tokens", {})
    items = "".join(f"<li>{_e(n)}</li>" for n in notes)
    estimator = (f"<p class=\"muted\">Tokens are estimates: {_e(tokens.get('estimator', ''))}.</p>"
                 if tokens.get("estimated") else "")
    return (f"<section><h2>notes</h2><ul>{items}</ul></section>\n" if items else "") + \
        f"<footer>{estimator}</footer>\n"


_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 20px 28px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI",
       Roboto, "Helvetica Neue", Arial, sans-serif; color: #1b2430; background: #f6f7f9; }
header { margin-bottom: 12px; }
.kicker { text-transform: uppercase; letter-spacing: .08em; font-size: 11px; color: #6b7785; }
h1 { font-size: 21px; margin: 2px 0 10px; font-weight: 650; overflow-wrap: anywhere; }
h2 { font-size: 14px; margin: 18px 0 8px; text-transform: uppercase; letter-spacing: .05em;
     color: #44515f; }
h3 { font-size: 12px; margin: 8px 0 4px; color: #44515f; font-weight: 600; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; }
.chip { background: #fff; border: 1px solid #dde2e8; border-radius: 999px; padding: 2px 10px;
        font-size: 12px; overflow-wrap: anywhere; }
.chip b { color: #6b7785; font-weight: 600; margin-right: 3px; }
.main { display: grid; grid-template-columns: minmax(480px, 760px) minmax(240px, 1fr); gap: 20px;
        align-items: start; }
svg.fovea { width: 100%; height: auto; background: #fff; border: 1px solid #dde2e8;
            border-radius: 10px; }
aside { background: #fff; border: 1px solid #dde2e8; border-radius: 10px; padding: 4px 16px 12px; }
.edge { fill: none; stroke: #9aa7b6; stroke-width: 1.5; }
.band { fill: none; stroke: #e3e8ee; stroke-width: 1; }
.band0 { fill: #eef4fb; } .band1 { fill: none; } .band2 { fill: none; }
circle.band0 { fill-opacity: .6; }
.bandlabel { font-size: 11px; fill: #8592a1; text-anchor: middle; letter-spacing: .06em;
             text-transform: uppercase; }
.sector { stroke: #e3e8ee; stroke-width: 1; }
.seglabel { font-size: 12px; fill: #1b2430; font-weight: 650; }
.jump { stroke: #7fa3cb; stroke-width: 1.4; fill: none; }
.goal circle { fill: #1b2430; }
.goal text { fill: #fff; font-size: 13px; text-anchor: middle; font-weight: 650; }
.goal text.small { font-size: 9.5px; font-weight: 400; fill: #cfd8e3; }
.fact circle { stroke-width: 2.6; }
.fact:hover circle { stroke-width: 4.5; filter: drop-shadow(0 1px 3px rgba(0,0,0,.35)); }
.num { font-size: 9.5px; text-anchor: middle; font-weight: 650; pointer-events: none; }
.crumb circle { fill: #f3f5f8; stroke: #6b7785; stroke-width: 1.5; stroke-dasharray: 2.5 2; }
.crumb:hover circle { stroke: #1b2430; stroke-width: 2.2; }
.redundant circle { fill: #fff; stroke: #8a939e; stroke-width: 1.6; }
.redundant line { stroke: #8a939e; stroke-dasharray: 1.5 2; }
.empty { text-anchor: middle; fill: #6b7785; font-size: 13px; }
.budget { margin: 8px 0 12px; }
.bname { font-weight: 600; overflow-wrap: anywhere; }
.bar { height: 10px; background: #e6ebf1; border-radius: 5px; overflow: hidden; margin: 4px 0; }
.spent { height: 100%; background: linear-gradient(90deg, #1d4f91, #3d7cc9); }
.bnums { font-size: 12px; color: #44515f; }
.legend ul { list-style: none; padding: 0; margin: 0; }
.legend li { display: flex; align-items: center; gap: 6px; font-size: 12px; margin: 2px 0; }
.dot { display: inline-block; width: 12px; height: 12px; border-radius: 50%; }
.ring { display: inline-block; width: 12px; height: 12px; border-radius: 50%; border: 2.5px solid;
        background: #fff; }
.crumbring { border: 1.3px dashed #8592a1; } .redring { border: 1.4px solid #a0a7b0; }
.muted { color: #6b7785; font-size: 12px; }
section { margin-top: 8px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #dde2e8; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid #eef1f4;
         font-size: 12.5px; }
th { background: #f0f3f6; font-weight: 600; color: #44515f; position: sticky; top: 0; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:target, tr:hover { background: #f5f9fe; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.src { font-size: 11px; color: #6b7785; overflow-wrap: anywhere; max-width: 340px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 7.5em; overflow: auto; }
tr:hover .text { max-height: 40em; }
.rung { color: #fff; border-radius: 4px; padding: 0 5px; font-size: 11px; font-weight: 650;
        text-shadow: 0 0 2px rgba(0,0,0,.4); }
.seed { border-left: 4px solid; padding-left: 5px; white-space: nowrap; }
.dirty { color: #c23030; font-size: 12px; margin-top: 3px; }
footer { margin-top: 14px; }
"""
