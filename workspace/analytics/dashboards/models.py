"""A dashboard and its widgets (docs/dashboards.md)."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Date, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class Visibility(StrEnum):
    PRIVATE = "private"
    WORKSPACE = "workspace"


#: Grid cells a widget spans (docs/dashboards.md#widgets); the first is the default. Chart types,
#: metrics and dimensions are in :mod:`workspace.analytics.vocabulary`.
SPANS = (1, 2)


class Dashboard(db.Model):
    """A member's arrangement of widgets; private to them until published."""

    __tablename__ = "dashboards"

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"), index=True)
    #: The account that created it: the only one who may edit it.
    owner_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    visibility: Mapped[str] = mapped_column(String(16), default=Visibility.PRIVATE)
    #: Optional PQL every widget's tasks must also pass; None when unset.
    pql_filter: Mapped[str | None] = mapped_column(Text)
    #: The dashboard-wide date range of its time-dimension widgets (docs/dashboards.md#time):
    #: a preset, or a custom first/last day; all None: none.
    range_preset: Mapped[str | None] = mapped_column(String(16))
    range_from: Mapped[date | None] = mapped_column(Date)
    range_to: Mapped[date | None] = mapped_column(Date)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    widgets: Mapped[list[Widget]] = relationship(
        back_populates="dashboard",
        order_by="Widget.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class Widget(db.Model):
    """One chart on a dashboard: the custom-chart aggregation plus how to draw it."""

    __tablename__ = "dashboard_widgets"

    id: Mapped[uuid.UUID] = uuid_pk()
    dashboard_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("dashboards.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(200))
    chart_type: Mapped[str] = mapped_column(String(16), default="bar")
    metric: Mapped[str] = mapped_column(String(16), default="count")
    dimension: Mapped[str] = mapped_column(String(16), default="status")
    #: Optional project scope; a deleted project leaves the widget org-wide.
    project_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("projects.id", ondelete="SET NULL")
    )
    #: Optional per-widget PQL, checked on save.
    filter: Mapped[str | None] = mapped_column(Text)
    span: Mapped[int] = mapped_column(Integer, default=1)
    #: Show the largest N categories and fold the rest into "Other" (null: the default).
    top_n: Mapped[int | None] = mapped_column(Integer)
    #: A time dimension's bucket, its own date range (wins over the dashboard's) and the
    #: dimension of the five that splits its series (docs/dashboards.md#time).
    interval: Mapped[str] = mapped_column(String(16), default="week", server_default="week")
    range_preset: Mapped[str | None] = mapped_column(String(16))
    range_from: Mapped[date | None] = mapped_column(Date)
    range_to: Mapped[date | None] = mapped_column(Date)
    split: Mapped[str | None] = mapped_column(String(16))
    #: 0..n-1 within the dashboard, kept dense by the service.
    position: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = created_at_column()

    dashboard: Mapped[Dashboard] = relationship(back_populates="widgets")
