"""Org administration pages: general settings, members and their invitations, and
the audit log (Settings > General, Members, Audit log)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Blueprint, Response, render_template, request, stream_with_context

from workspace.admin import audit
from workspace.auth.guards import page
from workspace.core import accounts, events
from workspace.core.schemas import AuditLogFilter
from workspace.errors import ServiceError
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access

bp = Blueprint("admin_pages", __name__)

PAGE_SIZE = 50


@bp.get("/o/<org>/settings")
@page(action="org.manage_settings")
def settings(org: str):
    return render_template(
        "settings/general.html", nav_active="settings", settings_active="admin_pages.settings"
    )


@bp.get("/o/<org>/settings/members")
@page(action="org.manage_members")
def settings_members(org: str, access: Access):
    return render_template(
        "settings/members.html",
        nav_active="settings",
        settings_active="admin_pages.settings_members",
        members=accounts.list_members(access.org.id, include_inactive=True),
    )


@bp.get("/o/<org>/settings/events", endpoint="events")
@page(action="org.manage_settings")
def events_page(org: str, access: Access):
    """Settings > Audit log: filters by kind, actor and dates (org time zone), 50 a page."""
    errors: dict[str, str] = {}
    try:
        form = parse_form(AuditLogFilter, request.args)  # blank filters count as none
    except ServiceError as exc:
        errors, form = field_errors(exc), AuditLogFilter()
    tz = _org_zone(access)
    rows = events.list_events(
        access.org.id, **_event_filters(form, tz), limit=PAGE_SIZE + 1, offset=form.offset
    )
    args = {k: v for k, v in request.args.items() if k != "offset" and v}
    return render_template(
        "settings/events.html",
        nav_active="settings",
        settings_active="admin_pages.events",
        rows=audit.describe(access.org.id, rows[:PAGE_SIZE]),
        form=form,
        args=args,
        errors=errors,
        tz=tz,
        kinds=events.kind_prefixes(access.org.id),
        actors=events.actors(access.org.id),
        older=form.offset + PAGE_SIZE if len(rows) > PAGE_SIZE else None,
        newer=max(form.offset - PAGE_SIZE, 0) if form.offset else None,
    ), (400 if errors else 200)


@bp.get("/o/<org>/settings/events.csv", endpoint="events_csv")
@page(action="org.manage_settings")
def events_csv(org: str, access: Access):
    """The filtered audit log as CSV, streamed, at most ``EXPORT_CAP`` rows."""
    try:
        form = parse_form(AuditLogFilter, request.args)
    except ServiceError as exc:
        return Response(
            "; ".join(f"{k}: {v}" for k, v in field_errors(exc).items()) + "\n",
            status=400,
            mimetype="text/plain",
        )
    org_id, filters = access.org.id, _event_filters(form, _org_zone(access))

    def generate() -> Iterator[str]:
        yield _csv_line(["time_utc", "event", "actor", "subject", "details"])
        count = 0
        batch: list = []
        for event in events.iter_events(org_id, cap=events.EXPORT_CAP, **filters):
            batch.append(event)
            count += 1
            if len(batch) == 500:
                yield from _csv_rows(org_id, batch)
                batch = []
        yield from _csv_rows(org_id, batch)
        if count >= events.EXPORT_CAP:
            note = f"Export stopped at {events.EXPORT_CAP} rows; narrow the dates for the rest."
            yield _csv_line(["", "", "", note, ""])

    name = f"audit-log-{access.org.slug}.csv"
    return Response(
        stream_with_context(generate()),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _org_zone(access: Access) -> ZoneInfo:
    try:
        return ZoneInfo(access.org.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _event_filters(form: AuditLogFilter, tz: ZoneInfo) -> dict:
    """The form's filters for the events service: whole days in the org's zone."""

    def start(day: date) -> datetime:
        return datetime.combine(day, time(), tz).astimezone(UTC)

    return {
        "kind_prefix": form.kind,
        "actor_id": form.actor,
        "since": start(form.date_from) if form.date_from else None,
        "until": start(form.date_to + timedelta(days=1)) if form.date_to else None,
    }


def _csv_rows(org_id: uuid.UUID, batch: list) -> Iterator[str]:
    for row in audit.describe(org_id, batch):
        subject = row.subject.text if row.subject else ""
        if row.where:
            subject = f"{subject} in {row.where.text}" if subject else row.where.text
        yield _csv_line(
            [
                row.event.created_at.astimezone(UTC).isoformat(),
                row.event.kind,
                row.actor.label,
                subject,
                json.dumps(row.event.data or {}, sort_keys=True, default=str),
            ]
        )


def _csv_line(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out).writerow([_csv_safe(c) for c in cells])
    return out.getvalue()


def _csv_safe(cell: str) -> str:
    """A spreadsheet must not run a cell as a formula (CSV injection)."""
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell
