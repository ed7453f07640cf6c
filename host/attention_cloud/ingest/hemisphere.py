"""Which side of the equator a time zone lies on: a season named in a turn ("last summer") is
December to February south of it, June to August north of it.

A zone's name says where it is: the zone database's ``zone.tab`` gives each canonical zone
(``Australia/Sydney``, ``America/Sao_Paulo``) the latitude of its principal city, read from the
``tzdata`` package or the system's zone folders, nothing downloaded. A few abbreviations name
southern zones (``AEST``, ``NZDT``); an offset alone (``+10:00``) does not say (Sydney and
Vladivostok share it), nor does UTC.
"""

from __future__ import annotations

import os
import re
import zoneinfo
from functools import lru_cache
from importlib import resources

# abbreviations of zones south of the equator (Australia, New Zealand, South Africa, Brazil,
# Argentina): the others a time may be written in are northern ones or UTC
_SOUTHERN_ABBREVIATIONS = frozenset({"AEST", "AEDT", "ACST", "ACDT", "AWST", "NZST", "NZDT",
                                     "SAST", "BRT", "BRST", "ART"})
_NORTHERN_ABBREVIATIONS = frozenset({"BST", "CET", "CEST", "EET", "EEST", "EST", "EDT", "CST",
                                     "CDT", "MST", "MDT", "PST", "PDT", "JST", "IST", "KST",
                                     "WET", "WEST", "MSK", "HKT", "SGT"})
# names kept for old zones (links), not in zone.tab, by the region they start with
_SOUTHERN_REGIONS = ("Australia/", "Antarctica/", "Brazil/", "Chile/", "NZ")
_LATITUDE = re.compile(r"[+-]\d{4,6}")


@lru_cache(maxsize=1)
def _latitudes() -> dict[str, float]:
    """Each canonical zone's latitude in degrees (negative south), from ``zone.tab``."""
    text = _zone_table()
    found: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) < 3:
            continue
        latitude = _LATITUDE.match(fields[1])
        if latitude:
            digits = latitude.group(0)
            found[fields[2]] = int(digits[:3]) + int(digits[3:5]) / 60
    return found


def _zone_table() -> str:
    try:
        return resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text("utf-8")
    except (ModuleNotFoundError, OSError):
        pass
    for folder in zoneinfo.TZPATH:
        try:
            with open(os.path.join(folder, "zone.tab"), encoding="utf-8") as table:
                return table.read()
        except OSError:
            continue
    return ""


def is_southern(zone: str) -> bool | None:
    """True for a zone south of the equator, False for one north of it, None when ``zone``
    (an IANA name such as ``Australia/Sydney``, or an abbreviation such as ``AEST``) does not
    say: an unknown name, an offset, UTC."""
    if not zone:
        return None
    if zone in _SOUTHERN_ABBREVIATIONS:
        return True
    if zone in _NORTHERN_ABBREVIATIONS:
        return False
    latitude = _latitudes().get(zone)
    if latitude is not None:
        return latitude < 0
    if "/" in zone or zone.startswith("NZ"):
        return True if zone.startswith(_SOUTHERN_REGIONS) else None
    return None
