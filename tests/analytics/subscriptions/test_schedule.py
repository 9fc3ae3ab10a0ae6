"""When a subscription sends (docs/delivery.md#when-it-sends): pure tests of
``schedule.next_send`` across the DST changes of Europe/Berlin (2026-03-29 and
2026-10-25) and America/New_York (2026-03-08 and 2026-11-01): one send per local day,
at the right UTC instant; a missing hour sends when the clocks jump, a repeated one
at its first occurrence; weekly and monthly days, the 31st clamped."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from workspace.analytics.subscriptions.schedule import next_send

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


def _sends(start: datetime, count: int, zone: ZoneInfo, *rule) -> list[datetime]:
    out, at = [], start
    for _ in range(count):
        at = next_send(at, zone, *rule)
        out.append(at)
    return out


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "start", "hour", "expected"),
    [
        # Berlin, spring forward 2026-03-29: 02:00 does not exist; sent at 03:00 CEST.
        (BERLIN, utc(2026, 3, 27, 12), 2,
         [utc(2026, 3, 28, 1), utc(2026, 3, 29, 1), utc(2026, 3, 30, 0), utc(2026, 3, 31, 0)]),
        # Berlin, fall back 2026-10-25: 02:00 happens twice; sent at the first (CEST).
        (BERLIN, utc(2026, 10, 23, 12), 2,
         [utc(2026, 10, 24, 0), utc(2026, 10, 25, 0), utc(2026, 10, 26, 1), utc(2026, 10, 27, 1)]),
        # An hour away from the change keeps its local time: 08:00 each day.
        (BERLIN, utc(2026, 3, 27, 12), 8,
         [utc(2026, 3, 28, 7), utc(2026, 3, 29, 6), utc(2026, 3, 30, 6)]),
        # New York, spring forward 2026-03-08: 02:00 EST does not exist; 03:00 EDT.
        (NEW_YORK, utc(2026, 3, 6, 18), 2,
         [utc(2026, 3, 7, 7), utc(2026, 3, 8, 7), utc(2026, 3, 9, 6)]),
        # New York, fall back 2026-11-01: 01:00 twice; the first (EDT, 05:00 UTC).
        (NEW_YORK, utc(2026, 10, 30, 18), 1,
         [utc(2026, 10, 31, 5), utc(2026, 11, 1, 5), utc(2026, 11, 2, 6)]),
    ],
)  # fmt: skip
def test_daily_sends_once_per_local_day_across_dst(zone, start, hour, expected):
    sends = _sends(start, len(expected), zone, "daily", hour)
    assert sends == expected
    days = [s.astimezone(zone).date() for s in sends]
    assert days == sorted(set(days))  # one per local day, none skipped
    assert all(b - a == timedelta(days=1) for a, b in itertools.pairwise(days))


def test_every_hour_of_a_dst_day_sends_exactly_once():
    """Each hour 0-23 on both Berlin change days: exactly one send that local day."""
    for day in (datetime(2026, 3, 29), datetime(2026, 10, 25)):
        for hour in range(24):
            before = datetime(day.year, day.month, day.day, tzinfo=BERLIN).astimezone(UTC)
            sends = _sends(before - timedelta(hours=3), 3, BERLIN, "daily", hour)
            on_day = [s for s in sends if s.astimezone(BERLIN).date() == day.date()]
            assert len(on_day) == 1, (day, hour, sends)


def test_weekly_and_monthly_days():
    # Weekly on Sunday (6) at 09:00 Berlin, across the spring change.
    assert _sends(utc(2026, 3, 20), 3, BERLIN, "weekly", 9, 6) == [
        utc(2026, 3, 22, 8),
        utc(2026, 3, 29, 7),
        utc(2026, 4, 5, 7),
    ]
    # Monthly on the 31st: the last day of shorter months.
    sends = _sends(utc(2026, 1, 1), 4, BERLIN, "monthly", 10, None, 31)
    assert [s.astimezone(BERLIN).date().isoformat() for s in sends] == [
        "2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30",
    ]  # fmt: skip
    assert sends[2] == utc(2026, 3, 31, 8)  # CEST by then


def test_the_send_time_itself_is_not_sent_again():
    at = utc(2026, 6, 1, 6)  # 08:00 CEST
    assert next_send(at, BERLIN, "daily", 8) == utc(2026, 6, 2, 6)
    assert next_send(at - timedelta(seconds=1), BERLIN, "daily", 8) == at
