"""One way to write a calendar day wherever a due date shows: "27 Nov 2026"
(docs/tasks.md#dates).

The org has a time zone but no locale setting, so there is no locale to format by;
"27 Nov 2026" (day, English month abbreviation, full year) reads the same to people
used to day-first and to month-first dates, where "11/27/2026" or "27/11/2026" would
be misread by one of them. The ``day`` Jinja filter (registered by ``workspace/web.py``
for every page) is this function, so the board, the lists, My work, the home page,
search and the task page cannot drift apart.
"""

from __future__ import annotations

from datetime import date

#: Fixed English abbreviations: ``%b`` would follow the server process's locale.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day(value: date | None, empty: str = "") -> str:
    """``value`` as "27 Nov 2026" (no leading zero: "1 Mar 2026"); ``empty`` for no
    date."""
    if value is None:
        return empty
    return f"{value.day} {MONTHS[value.month - 1]} {value.year}"


def iso_day(value: str | None, empty: str = "none") -> str:
    """A day stored as ISO text (the history's old and new values) written the same
    way; text that is not a date is shown as it is."""
    if not value:
        return empty
    try:
        return day(date.fromisoformat(value))
    except ValueError:
        return value
