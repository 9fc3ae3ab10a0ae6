"""JSON shapes of dashboards and widgets (docs/api.md#record-shapes), and the one
validator of what is sent to them: the JSON API's bodies, the pages' forms, and the
seed's and the agents' widget settings all go through these models
(docs/architecture.md, "Input models: default or refuse")."""

from __future__ import annotations

import math
import uuid
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    field_validator,
)
from pydantic_core import PydanticCustomError

from workspace.analytics.dashboards.models import SPANS
from workspace.analytics.dashboards.ranges import Day, Preset, ViewDay, ViewPreset
from workspace.analytics.dashboards.service import MAX_TITLE
from workspace.analytics.vocabulary import (
    CHART_TYPES,
    DIMENSIONS,
    INTERVALS,
    METRICS,
    TIME_DIMENSIONS,
)
from workspace.inputs import InputModel, OutputModel, QueryModel, absent

#: Top N per widget (docs/dashboards.md#widgets): blank is the default the charts use.
TOP_N_MIN, TOP_N_MAX, TOP_N_DEFAULT = 1, 50, 10

Name = Annotated[str, Field(min_length=1, max_length=200)]
PQL = Annotated[str | None, Field(max_length=2000)]


def _whole_number(value: Any) -> Any:
    """A JSON whole number, ``2`` or ``2.0`` (JSON Schema's integer), and not what
    merely converts to one (``true``, ``"2"``)."""
    if isinstance(value, bool | str):
        raise ValueError("Send a whole number, 0 for the first place.")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Position = Annotated[int, Field(ge=0), BeforeValidator(_whole_number)]


def _setting(kind: Any, pick: Any, says: str, recognized: tuple[Any, ...] = ()) -> Any:
    """A widget setting whose unrecognized value is its default
    (docs/dashboards.md#widgets): ``pick`` turns any JSON value into one of ``kind``
    itself, so a JSON body's text meets no strict check of pydantic's (the note on
    :class:`InputModel`). The document takes any JSON value, as the API does, and
    names what it recognizes in ``examples``: an ``enum`` would call ``"radar"`` invalid
    while the API takes it as ``bar``."""
    schema = {"description": says, **({"examples": list(recognized)} if recognized else {})}
    return Annotated[kind, BeforeValidator(pick), WithJsonSchema(schema)]


def _choice(choices: tuple[str, ...]) -> Any:
    """One of ``choices`` (any case, spaces around), else the first."""

    def pick(value: Any) -> str:
        value = value.strip().lower() if isinstance(value, str) else value
        return value if value in choices else choices[0]

    says = f"{', '.join(choices[:-1])} or {choices[-1]}; any other value is {choices[0]}."
    return _setting(Literal[choices], pick, says, choices)


def _span(value: Any) -> int | float:
    """1 or 2; any other value is 1, but a number that is not finite (1e400 read as
    infinity, Infinity, NaN, also written as text) stays as it is, for the service to
    refuse (:func:`widgets.widget_values`): it is no span at all, and ``int()`` of it
    would raise (docs/security.md#limits). The document takes any JSON value here, so
    that is a refusal on the request's meaning, a 422 on the API, and not the model's
    400."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, float) and not math.isfinite(number):
        return number
    try:
        span = int(value)
    except (TypeError, ValueError):
        return SPANS[0]
    return span if span in SPANS else SPANS[0]


def _project(value: Any) -> uuid.UUID | None:
    """An id, else None (org-wide); whether it names a project of this org is the
    service's check, which needs the database (:func:`service.project_in_org`)."""
    if not value:
        return None
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def _split(value: Any) -> str | None:
    """One of the five dimensions, else none (the series is not split)."""
    value = value.strip().lower() if isinstance(value, str) else value
    return value if value in DIMENSIONS else None


ChartType = _choice(CHART_TYPES)
Metric = _choice(METRICS)
Dimension = _choice((*DIMENSIONS, *TIME_DIMENSIONS))
#: Week first: the custom chart's default interval.
Interval = _choice(("week", *(i for i in INTERVALS if i != "week")))
Split = _setting(
    str | None,
    _split,
    "status, priority, kind, assignee or project; any other value: none.",
    DIMENSIONS,
)
Span = _setting(
    Literal[SPANS] | float,  # type: ignore[valid-type]
    _span,
    "1 or 2 columns; any other value is 1, but a number that is not finite is refused.",
    SPANS,
)
ProjectId = _setting(
    uuid.UUID | None, _project, "The id of a project of this org; any other value is org-wide."
)
Title = Annotated[str | None, Field(max_length=MAX_TITLE)]


class WidgetOut(OutputModel):
    id: uuid.UUID
    title: str
    chart_type: str
    metric: str
    dimension: str
    project_id: uuid.UUID | None
    filter: str | None
    span: int
    #: Show the largest N categories, the rest as "Other"; null: the default (10).
    top_n: int | None
    position: int
    #: A time dimension's bucket, own date range (null: the dashboard's) and split.
    interval: str
    range_preset: str | None = Field(serialization_alias="range")
    range_from: date | None = Field(serialization_alias="from")
    range_to: date | None = Field(serialization_alias="to")
    split: str | None

    model_config = ConfigDict(from_attributes=True, serialize_by_alias=True)


class DashboardOut(OutputModel):
    id: uuid.UUID
    name: str
    owner_id: uuid.UUID
    visibility: Literal["private", "workspace"]
    pql_filter: str | None
    #: The date range of every time-dimension widget without its own (all null: none).
    range_preset: str | None = Field(serialization_alias="range")
    range_from: date | None = Field(serialization_alias="from")
    range_to: date | None = Field(serialization_alias="to")
    widgets: list[WidgetOut]

    model_config = ConfigDict(from_attributes=True, serialize_by_alias=True)


class _Ranged(InputModel):
    """A date range: a preset, or custom days (``from`` and/or ``to``), not both."""

    model_config = ConfigDict(
        extra="forbid", str_strip_whitespace=True, validate_by_name=True, validate_by_alias=True
    )

    range_preset: Preset = Field(None, alias="range")
    range_from: Day = Field(None, alias="from")
    range_to: Day = Field(None, alias="to")


class DashboardCreate(_Ranged):
    """Also the page's settings form, which always sends every field."""

    name: Name
    pql_filter: PQL = None


class DashboardPatch(_Ranged):
    """Only the properties sent change; ``pql_filter`` null or "" clears it. Sending
    any of ``range``, ``from``, ``to`` sets the whole range (the others cleared)."""

    name: Name = absent()  # never empty: a name, or left out
    pql_filter: PQL = None


class WidgetIn(_Ranged):
    """Every property optional: a missing or unrecognized value is the default
    (chart_type bar, metric count, dimension status, span 1, org-wide, interval week,
    no split, and a blank title "Tasks by status" after the metric and dimension).
    Refused: a span that is no finite number, a top_n out of range, a title too long,
    a PQL error in ``filter`` (compiled by the service, which also makes another org's
    project org-wide), and a date range that cannot be (an unknown preset or a
    malformed day: 400; ``from`` after ``to``, a preset with days, a range or split on
    a dimension of the five, more than 366 buckets: 422)."""

    title: Title = None
    chart_type: ChartType = CHART_TYPES[0]
    metric: Metric = METRICS[0]
    dimension: Dimension = DIMENSIONS[0]
    project_id: ProjectId = None
    filter: PQL = None
    span: Span = SPANS[0]
    #: 1..50, or null for the default (10); anything else is refused (400). A form's
    #: blank field is null.
    top_n: Annotated[int, Field(ge=TOP_N_MIN, le=TOP_N_MAX)] | None = None
    interval: Interval = "week"
    split: Split = None

    @field_validator("top_n", mode="wrap")
    @classmethod
    def _top_n_says_the_range(cls, value: Any, handler: Any) -> int | None:
        try:
            return handler(value)
        except ValidationError:
            raise PydanticCustomError(
                "top_n",
                f"Show between {TOP_N_MIN} and {TOP_N_MAX} categories, "
                f"or leave it blank for {TOP_N_DEFAULT}.",
            ) from None


class WidgetPatch(WidgetIn):
    """:class:`WidgetIn`, plus where the widget goes (PATCH only: new widgets are
    always appended). ``position`` 0 is first; the others shift to keep positions a
    dense 0..n-1, and a number past the last position puts the widget last. A negative
    number, a fraction, text or null is refused (400 on ``position``)."""

    position: Position = absent()


class WidgetForm(WidgetIn):
    """The widget page's form (and its preview's query string): :class:`WidgetIn` and
    the button pressed; anything but "preview" saves."""

    action: _choice(("save", "preview")) = "save"  # type: ignore[valid-type]


class WidgetOrder(InputModel):
    widget_ids: list[uuid.UUID]


def _ids(values: Any) -> list[uuid.UUID]:
    """The values that are ids, in their order; the rest are dropped (a grid form
    posts every card's id, and a card that is not one is no reason to refuse a drop)."""
    found = []
    for value in values if isinstance(values, list) else [values]:
        try:
            found.append(value if isinstance(value, uuid.UUID) else uuid.UUID(str(value)))
        except ValueError:
            continue
    return found


class OrderForm(QueryModel):
    """The grid form after a drop: hidden inputs ``widget``, the cards in their new
    order (the JSON API's is :class:`WidgetOrder`)."""

    widget: Annotated[list[uuid.UUID], BeforeValidator(_ids)] = []


class DashboardSearch(QueryModel):
    #: Part of a dashboard's name, any case.
    q: Annotated[str | None, Field(max_length=200)] = None


class ViewFilterQuery(QueryModel):
    #: Ephemeral PQL for this view only; never saved.
    filter: str | None = None


class ViewQuery(ViewFilterQuery):
    #: This view's date range instead of the dashboard's (docs/dashboards.md#time):
    #: a preset, "custom" with from/to, or "none"; absent or blank: the dashboard's.
    range: ViewPreset = None
    from_: ViewDay = Field(None, alias="from", description="First day (org time zone).")
    to: ViewDay = Field(None, description="Last day, included (org time zone).")


class ViewForm(QueryModel):
    """A grid form's hidden ``view_filter``: the view an owner's action returns to;
    the PDF button's form also sends the view's date range (``range``, ``from``, ``to``)."""

    view_filter: str | None = None
    range: ViewPreset = None
    from_: ViewDay = Field(None, alias="from")
    to: ViewDay = None


class MoveForm(QueryModel):
    """A card's "Move earlier" / "Move later"; anything but "earlier" is later."""

    direction: _choice(("later", "earlier")) = "later"  # type: ignore[valid-type]


class PointOut(OutputModel):
    key: str
    value: int


class TimePointOut(PointOut):
    """A bucket: ``key`` its first day, ``start``/``end`` the days it counts."""

    start: date
    end: date


class SeriesOut(OutputModel):
    key: str
    id: str | None = None
    values: list[int]


class TimeOut(OutputModel):
    """A time-dimension widget's series (null for the five dimensions)."""

    interval: str
    first_day: date
    last_day: date
    #: Whose range it shows: widget, view, dashboard, or default (the interval's).
    range_source: str
    split: str | None = None
    series: list[SeriesOut] | None = None


class WidgetComputed(OutputModel):
    widget_id: uuid.UUID
    title: str
    chart_type: str
    metric: str
    dimension: str
    points: list[TimePointOut | PointOut]
    error: str | None
    time: TimeOut | None = None


class ComputeOut(OutputModel):
    dashboard_id: uuid.UUID
    filter: str | None
    widgets: list[WidgetComputed]
