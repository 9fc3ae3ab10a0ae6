"""JSON shapes of dashboards and widgets (docs/api.md#record-shapes)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from workspace.analytics.dashboards.service import TOP_N_DEFAULT, TOP_N_MAX, TOP_N_MIN
from workspace.inputs import InputModel, OutputModel, QueryModel, absent

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


class DashboardOut(OutputModel):
    id: uuid.UUID
    name: str
    owner_id: uuid.UUID
    visibility: Literal["private", "workspace"]
    pql_filter: str | None
    widgets: list[WidgetOut]


class DashboardCreate(InputModel):
    name: Name
    pql_filter: PQL = None


class DashboardPatch(InputModel):
    """Only the properties sent change; ``pql_filter`` null or "" clears it."""

    name: Name = absent()  # never empty: a name, or left out
    pql_filter: PQL = None


class WidgetIn(InputModel):
    """Every property optional: a missing or unrecognized value falls back to the
    default (chart_type bar, metric count, dimension status, span 1, org-wide);
    only a PQL error in ``filter`` is refused."""

    title: Annotated[str | None, Field(max_length=200)] = None
    chart_type: Any = None
    metric: Any = None
    dimension: Any = None
    project_id: Any = None
    filter: PQL = None
    span: Any = None
    #: 1..50, or null for the default (10); anything else is refused (400). A form's
    #: blank field is null.
    top_n: Annotated[int, Field(ge=TOP_N_MIN, le=TOP_N_MAX)] | None = None

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


class WidgetOrder(InputModel):
    widget_ids: list[uuid.UUID]


class DashboardSearch(QueryModel):
    #: Part of a dashboard's name, any case.
    q: Annotated[str | None, Field(max_length=200)] = None


class ViewQuery(QueryModel):
    #: Ephemeral PQL for this view only; never saved.
    filter: str | None = None


class PointOut(OutputModel):
    key: str
    value: int


class WidgetComputed(OutputModel):
    widget_id: uuid.UUID
    title: str
    chart_type: str
    metric: str
    dimension: str
    points: list[PointOut]
    error: str | None


class ComputeOut(OutputModel):
    dashboard_id: uuid.UUID
    filter: str | None
    widgets: list[WidgetComputed]
