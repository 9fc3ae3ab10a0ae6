"""When a subscription sends next: daily, weekly or monthly at an hour of the org's
time zone, as an instant in UTC (docs/delivery.md#when-it-sends). A pure function of
its arguments, so the DST rules are tested without a clock.

The wall clock skips an hour in spring and repeats one in autumn; a send is due once
per local day whatever the clock does:

- an hour that does not exist that day (Europe/Berlin 2026-03-29 02:00) sends at the
  instant the clocks jump to (03:00 local, 01:00 UTC): the hour the subscriber chose,
  shifted by the gap, never skipped;
- an hour that happens twice (Europe/Berlin 2026-10-25 02:00) sends at its first
  occurrence (02:00 CEST, 00:00 UTC), never twice.

Both follow from PEP 495's ``fold=0``: a wall time in a gap maps with the offset
before the transition, an ambiguous one to its earlier instant.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

FREQUENCIES = ("daily", "weekly", "monthly")
#: The longest wait between two sends (a monthly one on the 31st: two months at most).
_HORIZON_DAYS = 400


def local_instant(day: date, hour: int, zone: ZoneInfo) -> datetime:
    """``hour`` o'clock on ``day`` in ``zone``, as a UTC instant (the rules above)."""
    return datetime.combine(day, time(hour), tzinfo=zone).astimezone(UTC)


def sends_on(day: date, frequency: str, weekday: int | None, day_of_month: int | None) -> bool:
    """Whether a subscription sends on local ``day``. A monthly day past the month's
    end (the 31st in April) is the month's last day."""
    if frequency == "daily":
        return True
    if frequency == "weekly":
        return day.weekday() == weekday
    last = calendar.monthrange(day.year, day.month)[1]
    return day.day == min(day_of_month or 1, last)


def next_send(
    after: datetime,
    zone: ZoneInfo,
    frequency: str,
    hour: int,
    weekday: int | None = None,
    day_of_month: int | None = None,
) -> datetime:
    """The first send strictly after ``after`` (an aware instant), in UTC."""
    day = after.astimezone(zone).date() - timedelta(days=1)  # the day before: a gap's
    for _ in range(_HORIZON_DAYS):  # shifted hour may fall on the next UTC date
        if sends_on(day, frequency, weekday, day_of_month):
            instant = local_instant(day, hour, zone)
            if instant > after:
                return instant
        day += timedelta(days=1)
    raise ValueError("no send within the horizon")  # unreachable for valid settings
