""" "The tasks that count": the one place every rollup starts from.

A task counts when it is live: not in triage, not archived, not a draft, not
deleted, in the org (and the project, when one is given). The conditions are written
so SQLAlchemy renders them exactly as the partial index ``ix_tasks_counted`` states
its predicate (``COUNTED_TASKS_PREDICATE``); otherwise neither SQLite nor PostgreSQL
can prove the index applies (docs/analytics.md#how-it-stays-fast).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import ColumnElement, and_, false, literal_column

from workspace.core.models import Org, Project, Task
from workspace.core.models.projects import CLOSED_CATEGORIES
from workspace.core.projects import get_project
from workspace.errors import NotFoundError


def counted_predicate() -> ColumnElement[bool]:
    """The partial index's predicate, rendered literally (no bound parameters, which a
    planner cannot match against an index predicate)."""
    return and_(
        Task.state_category != literal_column("'triage'"),
        Task.is_draft == false(),
        Task.archived_at.is_(None),
        Task.deleted_at.is_(None),
    )


def counted_tasks(
    org_id: uuid.UUID, project_id: uuid.UUID | None = None
) -> list[ColumnElement[bool]]:
    """WHERE conditions selecting the tasks that count in an org (and project)."""
    conditions = [Task.org_id == org_id, counted_predicate()]
    if project_id is not None:
        conditions.append(Task.project_id == project_id)
    return conditions


@dataclass(frozen=True)
class Scope:
    """Who is asking about what: the org, the optional project, and the clock."""

    org: Org
    project: Project | None
    #: The moment "now" for this computation (UTC); tests pin it.
    now: datetime

    @property
    def org_id(self) -> uuid.UUID:
        return self.org.id

    @property
    def project_id(self) -> uuid.UUID | None:
        return self.project.id if self.project else None

    @property
    def tz(self) -> ZoneInfo:
        return org_zone(self.org)

    @property
    def today(self) -> date:
        """Today in the org's time zone: what "overdue" compares due dates with."""
        return self.now.astimezone(self.tz).date()

    def where(self) -> list[ColumnElement[bool]]:
        return counted_tasks(self.org.id, self.project_id)

    def day_start(self, day: date) -> datetime:
        """Midnight of ``day`` in the org's zone, as an aware UTC datetime."""
        return datetime.combine(day, time(), self.tz).astimezone(UTC)


def overdue_condition(scope: Scope) -> ColumnElement[bool]:
    """Due before today (org time zone) and neither completed nor cancelled."""
    return and_(
        Task.due_date.is_not(None),
        Task.due_date < scope.today,
        Task.state_category.not_in([c.value for c in CLOSED_CATEGORIES]),
    )


def org_zone(org: Org) -> ZoneInfo:
    try:
        return ZoneInfo(org.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def make_scope(org: Org, project_id: uuid.UUID | None = None, now: datetime | None = None) -> Scope:
    """The scope for a request; a project of another org is a 404."""
    project = None
    if project_id is not None:
        try:
            project = get_project(org.id, project_id)
        except NotFoundError as exc:
            raise NotFoundError(
                "No such project in this organization.", field="project_id"
            ) from exc
    return Scope(org=org, project=project, now=now or datetime.now(UTC))
