"""One way to write a calendar day wherever a due date shows: "27 Nov 2026", and one
way to write a moment: "27 Nov 2026, 14:05 CET" in the org's time zone
(docs/tasks.md#dates).

The org has a time zone but no locale setting, so there is no locale to format by;
"27 Nov 2026" (day, English month abbreviation, full year) reads the same to people
used to day-first and to month-first dates, where "11/27/2026" or "27/11/2026" would
be misread by one of them. The ``day`` Jinja filter (registered by ``workspace/web.py``
for every page) is this function, so the board, the lists, My work, the home page,
search and the task page cannot drift apart.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo

from workspace.errors import ServiceError

#: Fixed English abbreviations: ``%b`` would follow the server process's locale.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def day(value: date | None, empty: str = "", *, weekday: bool = False) -> str:
    """``value`` as "27 Nov 2026" (no leading zero: "1 Mar 2026"), with ``weekday``
    "Fri 27 Nov 2026"; ``empty`` for no date."""
    if value is None:
        return empty
    named = f"{WEEKDAYS[value.weekday()]} " if weekday else ""
    return f"{named}{value.day} {MONTHS[value.month - 1]} {value.year}"


def iso_day(value: str | None, empty: str = "none") -> str:
    """A day stored as ISO text (the history's old and new values) written the same
    way; text that is not a date is shown as it is."""
    if not value:
        return empty
    try:
        return day(date.fromisoformat(value))
    except ValueError:
        return value


def zone_label(local: datetime) -> str:
    """The zone's abbreviation (CET, EST, UTC); a zone without one (São Paulo's "-03")
    as an offset from UTC, "UTC-03"."""
    name = local.tzname() or "UTC"
    return f"UTC{name}" if name[:1] in "+-" else name


def moment(
    at: datetime,
    zone: tzinfo | None = None,
    *,
    seconds: bool = False,
    clock: bool = False,
    date: bool = False,
    weekday: bool = False,
) -> str:
    """An instant in ``zone`` (UTC when None) as "27 Nov 2026, 14:05 CET"; only the
    time, "14:05 CET", with ``clock`` (beside a date already shown), only the day with
    ``date``; to the second with ``seconds``; with ``weekday`` after the day's name,
    "Fri 27 Nov 2026, 14:05 CET" (a schedule's next run)."""
    local = at.astimezone(zone or UTC)
    if date:
        return day(local.date())
    text = f"{local:%H:%M:%S}" if seconds else f"{local:%H:%M}"
    text = f"{text} {zone_label(local)}"
    if clock:
        return text
    return f"{day(local.date(), weekday=weekday)}, {text}"


#: The days a due date or a cycle may name. A wider one is a typing slip, not a plan:
#: a browser's date field holds "0002-01-20" after the first digit of a year, and a due
#: date 700,000 days overdue only misleads every list that shows it.
FIRST_PLAN_DAY = date(1900, 1, 1)
LAST_PLAN_DAY = date(2999, 12, 31)


def check_plan_day(value: date | None, field: str) -> None:
    """Refuse a due or cycle date outside the plan's calendar, naming ``field``."""
    if value is not None and not FIRST_PLAN_DAY <= value <= LAST_PLAN_DAY:
        raise ServiceError(
            f"Enter a date from {day(FIRST_PLAN_DAY)} to {day(LAST_PLAN_DAY)}.", field=field
        )
