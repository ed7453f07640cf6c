"""Month and weekday names, and the little words between a date and its clock, in the languages
exports write full dates in: Google Takeout writes a Google Chat message's ``created_date`` in
the account's language (``Montag, 8. Mai 2023 um 13:56:03 UTC``, ``lunes, 8 de mayo de 2023,
13:56:03 UTC``), as do other exports that print dates for people.

:data:`LOCALISED` is a dateutil ``parserinfo`` knowing English and German, French, Spanish,
Portuguese, Italian, Dutch, Swedish, Danish, Norwegian, Polish and Russian (months in the form a
date writes them: Polish and Russian decline them). :mod:`.timefmt` tries it only on a text the
English reading refused, so no English reading changes. Full names only: an abbreviation is
ambiguous across languages (``mar`` is March and Tuesday).
"""

from __future__ import annotations

import re

from dateutil import parser as _dateparser

# One row a month, January first: the names a full date writes it with, English excepted
# (dateutil knows those).
_MONTHS = (
    ("januar", "janvier", "enero", "janeiro", "gennaio", "januari", "stycznia", "января"),
    ("februar", "février", "febrero", "fevereiro", "febbraio", "februari", "lutego", "февраля"),
    ("märz", "mars", "marzo", "março", "maart", "marts", "marca", "марта"),
    ("avril", "abril", "aprile", "kwietnia", "апреля"),
    ("mai", "mayo", "maio", "maggio", "mei", "maj", "maja", "мая"),
    ("juni", "juin", "junio", "junho", "giugno", "czerwca", "июня"),
    ("juli", "juillet", "julio", "julho", "luglio", "lipca", "июля"),
    ("août", "agosto", "augustus", "augusti", "sierpnia", "августа"),
    ("septembre", "septiembre", "setiembre", "setembro", "settembre", "września", "сентября"),
    ("oktober", "octobre", "octubre", "outubro", "ottobre", "października", "октября"),
    ("novembre", "noviembre", "novembro", "listopada", "ноября"),
    ("dezember", "décembre", "diciembre", "dezembro", "dicembre", "desember", "grudnia",
     "декабря"),
)
# One row a weekday, Monday first. Portuguese writes "segunda-feira": dateutil splits it at the
# hyphen, so "feira" is a word to skip.
_WEEKDAYS = (
    ("montag", "lundi", "lunes", "segunda", "lunedì", "maandag", "måndag", "mandag",
     "poniedziałek", "понедельник"),
    ("dienstag", "mardi", "martes", "terça", "martedì", "dinsdag", "tisdag", "tirsdag",
     "wtorek", "вторник"),
    ("mittwoch", "mercredi", "miércoles", "quarta", "mercoledì", "woensdag", "onsdag",
     "środa", "среда"),
    ("donnerstag", "jeudi", "jueves", "quinta", "giovedì", "donderdag", "torsdag", "czwartek",
     "четверг"),
    ("freitag", "vendredi", "viernes", "sexta", "venerdì", "vrijdag", "fredag", "piątek",
     "пятница"),
    ("samstag", "sonnabend", "samedi", "sábado", "sabato", "zaterdag", "lördag", "lørdag",
     "sobota", "суббота"),
    ("sonntag", "dimanche", "domingo", "domenica", "zondag", "söndag", "søndag", "niedziela",
     "воскресенье"),
)
# The words between a date's parts: "um" (de), "à" (fr), "de", "a las" (es), "às" (pt),
# "alle ore" (it), "om" (nl), "kl" (sv, da, no), "o" (pl), "в", "г" (ru: "2023 г. в 13:56").
_JOINERS = ("feira", "um", "à", "de", "del", "a", "las", "às", "alle", "ore", "om", "kl",
            "klokken", "o", "в", "г")


class _LocalisedNames(_dateparser.parserinfo):
    MONTHS = [english + names for english, names in zip(_dateparser.parserinfo.MONTHS, _MONTHS)]
    WEEKDAYS = [english + names
                for english, names in zip(_dateparser.parserinfo.WEEKDAYS, _WEEKDAYS)]
    JUMP = _dateparser.parserinfo.JUMP + list(_JOINERS)


LOCALISED = _LocalisedNames()

_MONTH_WORD = re.compile(r"(?<!\w)(?:" + "|".join(
    sorted((name for names in _MONTHS for name in names), key=len, reverse=True)) + r")(?!\w)",
    re.IGNORECASE)


def names_a_localised_month(text: str) -> bool:
    """True when ``text`` writes a month's name in one of the languages above: only then is
    a text English refused worth a second reading."""
    return _MONTH_WORD.search(text) is not None
