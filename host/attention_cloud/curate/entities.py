"""Entity extraction: the specific things a text names.

One compiled pattern with a named group per kind scans the analysed window once; at any
position the earlier alternative wins, so the order of the alternatives is the priority
(a date beats a path, an error class beats a CamelCase identifier). Kinds:

- ``url``, ``path`` (absolute, ``~``/``./`` relative, two or more slashes, or a known extension)
- ``date`` (ISO dates, "May 30", "30 May 2023", "May 2023", weekdays), ``time`` ("10:18", "3 pm")
- ``money`` ("$10", "1,200 euros"), ``quantity`` (a number with a unit or a counted noun:
  "200 ms", "3.2 GB", "5 retries", "12 passed")
- ``error`` (``ValueError``, ``ENOENT``), ``code`` (text in backticks), ``call`` (``f()``),
  ``identifier`` (snake_case, CamelCase, camelCase, dotted.names), ``version`` ("v1.2", "3.11.4")
- ``name`` (capitalised names: "Sony A7R IV", "History Museum", or one capitalised word that
  does not open a sentence: "Petra"), ``year`` (a bare 19xx/20xx)

Spelled-out durations ("over a year", "two months ago") and counts ("five tops") are found
by the cue scan instead (:mod:`.cues`), which already reads the lowercased text word by word.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .lexicon import NOT_NAMES, STOPWORDS
from .phrases import trie_pattern

# Word lists become trie patterns (see phrases.py): alternatives of plain words cost the
# regex engine a check each, per attempt, and these are tried at every number or file name.
_EXTENSION_WORDS = """
    py pyi ipynb js mjs cjs jsx ts tsx json jsonl ndjson yaml yml toml ini cfg conf env md rst
    txt csv tsv log pl pro rb rs go java kt scala c h cc cpp hpp cs swift m php sh bash zsh ps1
    bat sql db sqlite html htm css scss xml svg png jpg jpeg gif pdf doc docx xls xlsx ppt pptx
    zip gz tgz tar whl lock mk cmake gradle vue svelte lua r jl ex exs erl hs ml dart proto onnx
    """.split()
_EXTENSIONS = trie_pattern(_EXTENSION_WORDS + [e.upper() for e in _EXTENSION_WORDS])
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_UNIT_WORDS = """
    percent KB MB GB TB KiB MiB GiB TiB B kB bps kbps Mbps Gbps byte bytes ms µs us ns s sec secs
    second seconds min mins minute minutes h hr hrs hour hours day days week weeks month months
    year years m km cm mm mph kph mile miles mi ft feet inch inches g kg kgs lb lbs pound pounds
    oz ml l liter liters litre litres degree degrees px pt em rem dpi fps Hz kHz MHz GHz x k K M
    """.split()
_UNIT = rf"(?:%|°[CF]?|km/h\b|in\b(?=\W*$)|(?:{trie_pattern(_UNIT_WORDS)})\b)"
# A number: digits, thousands groups of exactly three, decimals ("1,200.50"), bounded so
# that a run like "1,1,1,1" is read piece by piece instead of rescanned.
_NUMBER = r"\d++(?:,\d{3}(?!\d))*+(?:\.\d++)?"
_AM_PM = r"(?:[aApP]\.[mM]\.|[aApP][mM]\b)"
# Sentence openers and pronouns ("The", "We", "I'm"): skipped at once, never an entity start.
_COMMON_CAPITALISED = "(?:" + trie_pattern(sorted(w.capitalize() for w in NOT_NAMES if w[0].isalpha())) + ")"
_NAME_WORD = r"[A-Z][\w'’&+-]*+"
_CONNECTOR = r"(?:(?:of|for|the|de|la|le|del|van|von|da|du|di|y|on)\s+){0,2}"
_STOP_ALT = trie_pattern([w for w in STOPWORDS if w.isalpha()])
_ERROR_SUFFIX = "|".join(
    f"(?<={suffix})" for suffix in ("Error", "Exception", "Warning", "Fault", "Failure", "Interrupt")
)

# Group names are "<kind>_<variant>"; the kind is the part before the underscore. Branches are
# split by first character (digit, capital, lowercase, symbol), path-like alternatives wait
# behind a lookahead for "/", "." or "(", and quantifiers are possessive where no backtracking
# is needed: the pattern runs on every item, so it must stay linear and cheap. Durations
# ("over a year") are found with the cue phrases instead (see cues.py).
_ENTITY = re.compile(
    rf"""
    # Entities start at word starts, and not inside a run joined by - @ + . / (a path, a
    # date, a hyphenated word): mid-word positions fail here, fast, and no run is rescanned
    # from each of its pieces, which keeps the scan linear on "a-a-a-a..." or "1,1,1,...".
    (?<![A-Za-z0-9_\-@+./])
    # Every entity holds something besides lowercase letters (a digit, a capital, a symbol), so
    # plain lowercase words, most of any text, are rejected after one scan. "I" is no entity.
    (?=[a-z]*+[^a-z\s,;!?'"”’)\]])(?!I(?![\w]))
    (?:
      (?=[\d-])(?:
          (?P<date_iso>\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}(?:[T\ ]\d{{1,2}}:\d{{2}}(?::\d{{2}})?(?:Z|[+-]\d{{2}}:?\d{{2}})?)?(?!\d))
        | (?P<date_dmy>\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b)
        | (?P<date_dm>\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}}\b)?)
        | (?P<time_hm>\d{{1,2}}:\d{{2}}(?::\d{{2}})?(?:\s?{_AM_PM})?(?!\d))
        | (?P<time_ampm>\d{{1,2}}\s?{_AM_PM})
        | (?P<money_word>{_NUMBER}\s?(?:dollars|bucks|euros|USD|EUR|GBP|cents)\b)
        | (?P<version_num>\d++\.\d++\.\d++(?:[-+.][\w.]+)?\b)
        | (?P<quantity_unit>-?{_NUMBER}(?:-\d++(?:\.\d++)?)?\s?(?:{_UNIT}))
        | (?P<quantity_count>{_NUMBER}\ (?!(?:{_STOP_ALT})\b)[a-z][a-z-]{{2,}}+\b)
        | (?P<year_bare>(?:19|20)\d{{2}}s?\b)
      )
    | (?=[A-Z])(?!{_COMMON_CAPITALISED}(?![\w'’]))(?:
          (?=[JFMASOND])(?P<date_month>{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?|{_MONTH}\s+\d{{4}}\b)
        | (?P<date_weekday>(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b)
        | (?P<error_class>[A-Z][A-Za-z0-9]*+(?:{_ERROR_SUFFIX})\b)
        | (?P<error_errno>E(?:NOENT|ACCES|CONNREFUSED|CONNRESET|PERM|EXIST|TIMEDOUT|ADDRINUSE|PIPE|NOTDIR|ISDIR|NOMEM|AGAIN|INVAL|NOSPC)\b)
        | (?P<error_oom>OOM\b)
        | (?=[\w@+-]*+[/.(])(?:
              (?P<path_deep>[\w.@+-]++(?:/[\w.@+-]++){{2,}}+/?)
            | (?P<path_file>(?:[\w@+-]++/)*+[\w@+-]++(?:\.[\w@+-]++)*?\.(?:{_EXTENSIONS})(?![\w/]|\.\w))
            | (?P<call_upper>[A-Za-z_][\w.]*+\(\))
            | (?P<identifier_dotted>[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++\b)
          )
        | (?P<identifier_upper>[A-Z][a-z0-9]++(?:[A-Z][a-z0-9]*+)++\b)
        | (?P<name_multi>{_NAME_WORD}(?:\s+{_CONNECTOR}{_NAME_WORD})+)
        | (?P<name_single>(?<=[a-z0-9,;:)]\ ){_NAME_WORD})
        | (?P<name_acronym>[A-Z]{{2,}}+[0-9]*+\b)
      )
    | (?=[a-z_])(?:
          (?P<url_web>(?:https?|ftp)://[^\s<>"'`\])]++)
        | (?P<version_v>v\d++(?:\.\d++)*+\b)
        | (?P<error_words>(?:segfault|segmentation\ fault|stack\ overflow|out\ of\ memory|deadlock)\b)
        | (?=[\w@+-]*+[/.(])(?:
              (?P<path_deeplow>[\w.@+-]++(?:/[\w.@+-]++){{2,}}+/?)
            | (?P<path_filelow>(?:[\w@+-]++/)*+[\w@+-]++(?:\.[\w@+-]++)*?\.(?:{_EXTENSIONS})(?![\w/]|\.\w))
            | (?P<call_lower>[A-Za-z_][\w.]*+\(\))
            | (?P<identifier_dottedlow>[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++\b)
          )
        | (?P<identifier_snake>_*+[a-z][a-z0-9]*+(?:_[a-z0-9]++)++_*+\b)
        | (?P<identifier_camel>[a-z]++(?:[A-Z][a-z0-9]*+)++\b)
      )
    | (?P<money_sym>[$€£¥]\s?{_NUMBER}(?:\s?(?:[kKmMbB]\b|million\b|billion\b|thousand\b))?)
    | (?P<path_abs>(?<![/.])(?:~|\.{{1,2}})?/[\w.@+-]++(?:/[\w.@+-]++)*+/?)
    | `(?P<code>[^`\n]{{2,60}})`
    )
    """,
    re.VERBOSE,
)
_ERROR_WORD = re.compile(rf"\b[A-Z][A-Za-z0-9]*+(?:{_ERROR_SUFFIX})\b")
_TRAILING = ".,;:!?'\")]}”’"
_KIND_OF = {group: group.split("_", 1)[0] for group in _ENTITY.groupindex}
_TRIMMED_KINDS = frozenset({"url", "path", "identifier", "quantity", "money", "version"})
_SINGLE_LETTER_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?$")


class Entity(NamedTuple):
    """One entity occurrence: its surface text, kind and offset in the analysed window."""

    text: str
    kind: str
    start: int


#: Kinds that pin a fact down (used to judge whether a first-person sentence states a fact).
SPECIFIC_KINDS = frozenset({"date", "time", "money", "quantity", "duration", "name", "year", "version"})
#: Display priority of kinds in skeletons: what identifies an item best comes first.
KIND_PRIORITY = {
    "error": 0, "path": 1, "url": 2, "name": 3, "money": 4, "date": 5, "quantity": 6,
    "duration": 7, "time": 8, "code": 9, "call": 10, "identifier": 11, "version": 12, "year": 13,
}


def find_entities(text: str) -> list[Entity]:
    """All entity occurrences in ``text``, in order of appearance (duplicates kept)."""
    out: list[Entity] = []
    for match in _ENTITY.finditer(text):
        group = match.lastgroup or "name_single"
        kind = _KIND_OF[group]
        surface = match.group(group)
        start = match.start()
        if group == "name_single":
            # One capitalised word inside a sentence: a name unless it is a common word.
            if surface.lower() in NOT_NAMES:
                continue
        elif kind == "name":
            if _ERROR_WORD.search(surface):
                _split_error_name(surface, start, text, out)
                continue
            surface = _trim_name(" ".join(surface.split()), at_sentence_start=_opens_sentence(text, start))
        elif kind in _TRIMMED_KINDS:
            surface = _normalise(surface.rstrip(_TRAILING), kind)
        elif kind == "code":
            surface = surface.strip()
        elif kind == "date" and ("\n" in surface or "  " in surface):
            surface = " ".join(surface.split())
        if surface:
            out.append(Entity(surface, kind, start))
    return out


def _split_error_name(surface: str, start: int, text: str, out: list[Entity]) -> None:
    """A capitalised run holding an error class ("Fixed ValueError"): keep the error, and the
    rest as a name when a name remains."""
    last = 0
    for match in _ERROR_WORD.finditer(surface):
        name = _trim_name(surface[last : match.start()].strip(), at_sentence_start=_opens_sentence(text, start))
        if name:
            out.append(Entity(name, "name", start + last))
        out.append(Entity(match.group(), "error", start + match.start()))
        last = match.end()
    tail = _trim_name(surface[last:].strip(), at_sentence_start=False)
    if tail:
        out.append(Entity(tail, "name", start + last))


def _normalise(surface: str, kind: str) -> str:
    """Reject trimmed matches that are not entities after all ("e.g", a bare "/")."""
    if kind == "url":
        return surface if len(surface) > 10 else ""
    if kind == "identifier" and _SINGLE_LETTER_DOTTED.match(surface):
        return ""
    if kind == "path" and not surface.strip("/.~"):
        return ""
    return surface


def _trim_name(surface: str, *, at_sentence_start: bool) -> str:
    """Drop leading sentence-openers and pronouns ("The History Museum" -> "History Museum")."""
    words = surface.split()
    while words and words[0].lower() in NOT_NAMES:
        words.pop(0)
    while words and words[-1].lower() in NOT_NAMES:
        words.pop()
    if not words:
        return ""
    if len(words) == 1 and at_sentence_start and len(surface.split()) == 1:
        return ""
    name = " ".join(words)
    if len(name) < 2 or name.lower() in NOT_NAMES:
        return ""
    return name


def _opens_sentence(text: str, start: int) -> bool:
    """True when position ``start`` begins a sentence or a line."""
    i = start - 1
    while i >= 0 and text[i] in " \t\"'“‘(*_#->":
        i -= 1
    return i < 0 or text[i] in ".!?:\n"


def rank_entities(entities: list[Entity], limit: int) -> tuple[str, ...]:
    """Distinct entity texts, most salient first, at most ``limit``.

    Salience: kind priority, then first appearance. Case-insensitive duplicates and entities
    contained in a longer one ("Sony" inside "Sony A7R IV") are dropped.
    """
    first: dict[str, Entity] = {}
    for entity in entities:
        key = entity.text.casefold()
        if key not in first:
            first[key] = entity
    distinct = list(first.values())
    keys = [e.text.casefold() for e in distinct]
    # One C-level count per key finds the few keys that occur inside another; only those
    # need the word-boundary check.
    joined = "\x00".join(keys)
    kept = [
        e for e, key in zip(distinct, keys)
        if joined.count(key) == 1
        or not any(key in other and key != other and _contains_word(other, key) for other in keys)
    ]
    kept.sort(key=lambda e: (KIND_PRIORITY.get(e.kind, 99), e.start))
    return tuple(e.text for e in kept[:limit])


def _contains_word(longer: str, shorter: str) -> bool:
    """True when ``shorter`` occurs in ``longer`` as whole words."""
    at = longer.find(shorter)
    while at >= 0:
        before = longer[at - 1] if at else " "
        after_i = at + len(shorter)
        after = longer[after_i] if after_i < len(longer) else " "
        if not before.isalnum() and not after.isalnum():
            return True
        at = longer.find(shorter, at + 1)
    return False
