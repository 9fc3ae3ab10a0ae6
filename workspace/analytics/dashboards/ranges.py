"""Date ranges of time-dimension widgets (docs/dashboards.md#time): a widget's own,
the dashboard's saved one, and a view's override from the query string; which one a
widget shows, and the checks a range must pass before it is saved.

The days themselves are :mod:`workspace.analytics.time_series`'s (its public
``date_range`` and ``buckets``), so a widget's range means what the custom chart's
``range``/``from``/``to`` mean.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any

from pydantic import BeforeValidator, WithJsonSchema

from workspace.analytics import time_series
from workspace.analytics.flow_time import check_days
from workspace.analytics.scope import Scope
from workspace.analytics.vocabulary import RANGE_PRESETS
from workspace.errors import ServiceError

#: How a preset reads on a card and in the page's control.
PRESET_WORDS = {
    "last_7_days": "Last 7 days",
    "last_30_days": "Last 30 days",
    "last_90_days": "Last 90 days",
    "this_quarter": "This quarter",
    "last_quarter": "Last quarter",
}
FIELDS = ("range_preset", "range_from", "range_to")


# -- how the API and the forms send a range (schemas.py's fields) ----------------------


def _day(value: Any) -> date | None:
    """A day as ISO text (``2026-11-27``), or blank/null for none. Read here rather than
    by pydantic: a strict JSON body takes no text for a ``date`` once a validator runs
    first, and a form's blank date field is no day."""
    if value is None or isinstance(value, date):
        return value
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError("Send a day as YYYY-MM-DD, or null for none.")


def _preset(value: Any) -> str | None:
    """A preset name, or "custom" (the days ``from``/``to`` say it) or "none" (no
    range, whatever days are sent); blank or null: none given. Any other name is
    refused (400 on ``range``): a range that silently became another would show other
    numbers than asked (docs/dashboards.md#time). :func:`check` reads the two words."""
    value = value.strip().lower() if isinstance(value, str) else value
    if value in (None, ""):
        return None
    if value in (*RANGE_PRESETS, "custom", "none"):
        return value
    raise ValueError(f"Choose a range of {', '.join(RANGE_PRESETS)}, custom or none.")


Day = Annotated[
    date | None,
    BeforeValidator(_day),
    WithJsonSchema({"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}),
]
Preset = Annotated[
    str | None,
    BeforeValidator(_preset),
    WithJsonSchema(
        {
            "description": "A preset range; custom: the days in from/to; none: no range.",
            "anyOf": [{"enum": [*RANGE_PRESETS, "custom", "none"]}, {"type": "null"}],
        }
    ),
]


_SPELT_DAY = r"^(\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]))?$"


def _view_day(value: Any) -> date | str | None:
    """A view's day: blank is none (the page's control sends its fields blank); a day
    spelt as the document says but not on the calendar (2026-02-30, 0000-01-01) stays
    text for :func:`view_range` to refuse (422, a refusal on meaning, as the custom
    chart's days); anything else is the model's 400."""
    try:
        return _day(value)
    except ValueError:
        if isinstance(value, str) and re.fullmatch(_SPELT_DAY, value.strip()):
            return value.strip()
        raise


#: A view's day in the query string.
ViewDay = Annotated[
    date | str | None,
    BeforeValidator(_view_day),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": _SPELT_DAY}, {"type": "null"}]}),
]
#: A view's range: the same words.
ViewPreset = Preset
#: The three fields of a date range as the API and forms name them.
RANGE_NAMES = {"range_preset": "range", "range_from": "from", "range_to": "to"}


@dataclass(frozen=True)
class DateRange:
    """A preset, or custom first/last days (either may be open), or nothing."""

    preset: str | None = None
    first: date | None = None
    last: date | None = None

    @classmethod
    def of(cls, holder: Any) -> DateRange:
        """The range saved on a widget or a dashboard (or a spec carrying one)."""
        return cls(holder.range_preset, holder.range_from, holder.range_to)

    @property
    def empty(self) -> bool:
        return self.preset is None and self.first is None and self.last is None

    def days(self, today: date, interval: str, week_start: int = 0) -> tuple[date, date]:
        """The first and last day the series covers (the interval's default when
        empty), weeks starting on weekday ``week_start`` (``time_series.week_start_day``)."""
        return time_series.date_range(
            today, interval, self.first, self.last, self.preset, week_start
        )

    def query(self) -> dict[str, str]:
        """As a view's query string (``range``, ``from``, ``to``); empty: ``range=none``."""
        if self.preset:
            return {"range": self.preset}
        if self.empty:
            return {"range": "none"}
        out = {"range": "custom"}
        if self.first:
            out["from"] = self.first.isoformat()
        if self.last:
            out["to"] = self.last.isoformat()
        return out


def check(preset: str | None, first: date | None, last: date | None) -> DateRange:
    """The range to save, or a refusal naming the field (a 422 on the API): a preset
    and days together, a day outside what the series can count, ``from`` after ``to``.
    "none" is no range (the days dropped), "custom" the days alone."""
    if preset == "none":
        return DateRange()
    if preset == "custom":
        if not (first or last):
            # Saved as no range without a word, the chart then showed all time.
            raise ServiceError("Custom days need a From day, a To day or both.", field="from")
        preset = None
    if preset and (first or last):
        raise ServiceError(
            "Choose a preset range or custom days (from/to), not both.", field="range"
        )
    check_days(**{"from": first, "to": last})
    if first and last and first > last:
        raise ServiceError("From must be on or before To.", field="from")
    return DateRange(preset, first, last)


def check_buckets(scope: Scope, interval: str, chosen: DateRange) -> None:
    """Refuse a saved range with more buckets than a series may have (field
    ``interval``), counted as the series will count them (the org's week start)."""
    week_start = time_series.week_start_day(scope.org)
    first, last = chosen.days(scope.today, interval, week_start)
    time_series.buckets(first, last, interval, week_start)


def view_range(query: Any) -> DateRange | None:
    """A view's override from its :class:`ViewQuery`: None when it names none (the
    dashboard's range applies); ``range=none`` (or custom without days): no range."""
    if query.range is None and query.from_ is None and query.to is None:
        return None
    for name, day in (("from", query.from_), ("to", query.to)):
        if isinstance(day, str):
            raise ServiceError(f"'{name}' is no day on the calendar: {day}.", field=name)
    if query.range in (None, "custom", "none"):
        return check(query.range, query.from_, query.to)
    # A preset chosen on the page's control while days stay in its date fields.
    return check(query.range, None, None)


def from_query(saved: dict[str, str]) -> DateRange:
    """:meth:`DateRange.query` read back (a PDF job keeps its view's range so)."""
    if saved.get("range") not in (None, "custom", "none"):
        return DateRange(saved["range"])
    days = [date.fromisoformat(saved[k]) if saved.get(k) else None for k in ("from", "to")]
    return DateRange(None, *days)


def effective(
    own: DateRange, dashboard: DateRange, view: DateRange | None
) -> tuple[DateRange, str]:
    """The range a widget shows and whose it is. A widget's own range wins (Grafana's
    panel time override); else this view's override; else the dashboard's; else none,
    the interval's default of the custom chart."""
    if not own.empty:
        return own, "widget"
    if view is not None:
        return view, "view" if not view.empty else "default"
    if not dashboard.empty:
        return dashboard, "dashboard"
    return DateRange(), "default"


def words(chosen: DateRange, first: date, last: date) -> str:
    """ "Last 30 days" or "1 Sep to 27 Nov 2026": what a card says it shows."""
    if chosen.preset:
        return PRESET_WORDS[chosen.preset]
    same_year = first.year == last.year
    start = f"{first.day} {first:%b}" + ("" if same_year else f" {first.year}")
    return f"{start} to {last.day} {last:%b} {last.year}"
