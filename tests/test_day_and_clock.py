"""A fact's day line and heading clock (hydration._day_and_clock) are what the stored time
says: the day with its weekday and the hour and minute, for every valid time the journal
writes, and the stored text as the clock for one that is not a time."""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from attention_cloud.hydration import _day_and_clock, _when

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def reference(text: str) -> tuple[str, str]:
    """The day and clock as strptime reads them and ISO 8601 writes them (the year in four
    digits: strftime's %Y writes the year 906 as "906")."""
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return "", text
    return (f"{WEEKDAYS[moment.weekday()]} {moment.year:04d}-{moment:%m-%d}",
            f"{moment:%H:%M}")


def test_every_valid_time_reads_as_its_day_and_clock():
    rng = random.Random(7)
    start = datetime(1, 1, 1)
    span = (datetime(9999, 12, 31, 23, 59, 59) - start).total_seconds()
    times = [start + timedelta(seconds=rng.randrange(int(span))) for _ in range(3000)]
    times += [datetime(999, 12, 31, 23, 59, 59), datetime(1000, 1, 1), datetime(2024, 2, 29, 12)]
    for moment in times:
        text = moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment.year >= 1000 else \
            f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"
        assert _day_and_clock(text) == reference(text), text


def test_a_text_that_is_no_time_is_the_clock_alone():
    assert _day_and_clock("2026-01-11T20:11:05Z") == ("Sun 2026-01-11", "20:11")
    assert _when("2026-01-11T20:11:05Z") == " Sun 2026-01-11 20:11"
    for text in ("2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-11T24:00:00Z",
                 "yesterday", "2026-01-11 20:11"):
        assert _day_and_clock(text) == ("", text)
    assert _day_and_clock("") == ("", "")
