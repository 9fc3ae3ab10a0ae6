"""The tracker's HTML pages: org home, projects, a project's tasks, settings.

Full pages include the partials that HTMX requests get alone (contact-app style);
forms keep action and method so they work without JavaScript. Every form goes
through the JSON API's input model (``parse_form``); a refused form re-renders with
a 4xx status, so the request's transaction rolls back.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import (
    Blueprint,
    Response,
    flash,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)

from workspace.auth.guards import page
from workspace.auth.sessions import current_account
from workspace.core import accounts, events, orgs, projects, tasks
from workspace.core.models import Priority, StateCategory, TaskKind
from workspace.core.schemas import AuditLogFilter, OrgCreate, ProjectCreate, TaskCreate, TaskPatch
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form
from workspace.security.permissions import Access, can
from workspace.tracker import audit
from workspace.tracker.home import task_counts

bp = Blueprint("core_pages", __name__)

PAGE_SIZE = 50


@bp.route("/orgs/new", methods=["GET", "POST"])
@page()
def new_org():
    """Create an organization; the creator becomes its owner."""
    if request.method == "GET":
        return render_template("tracker/new_org.html", errors={}, name="", slug="")
    try:
        form = parse_form(OrgCreate)
        org = orgs.create_org(form.name, current_account(), form.slug)
    except ServiceError as exc:
        return render_template(
            "tracker/new_org.html",
            errors=field_errors(exc),
            name=request.form.get("name", ""),
            slug=request.form.get("slug", ""),
        ), exc.status
    flash(f"{org.name} is ready.", "success")
    return redirect(url_for("core_pages.org_home", org=org.slug))


@bp.get("/o/<org>/")
@page(action="org.read")
def org_home(org: str, access: Access):
    mine, _ = tasks.list_tasks(
        access.org.id, tasks.TaskFilter(assignee_id=access.account.id, open_only=True), limit=10
    )
    return render_template(
        "tracker/org_home.html",
        nav_active="home",
        counts=task_counts(access.org.id),
        project_list=projects.list_projects(access.org.id),
        my_tasks=mine,
        members=accounts.list_members(access.org.id),
    )


def _projects_page(access: Access, errors: dict[str, str] | None = None, status: int = 200):
    return render_template(
        "tracker/projects.html",
        nav_active="projects",
        errors=errors or {},
        form=request.form if errors else {},
        project_list=projects.list_projects(access.org.id),
    ), status


@bp.get("/o/<org>/projects", endpoint="projects")
@page(action="project.read")
def projects_page(org: str, access: Access):
    return _projects_page(access)


@bp.post("/o/<org>/projects")
@page(action="project.create")
def create_project(org: str, access: Access):
    try:
        form = parse_form(ProjectCreate)
        project = projects.create_project(access.org.id, access.account.id, **form.model_dump())
    except ServiceError as exc:
        return _projects_page(access, field_errors(exc), exc.status)
    return redirect(url_for("core_pages.project", org=org, project_id=project.id))


def _task_page_context(access: Access, project) -> dict:
    return {
        "project": project,
        "states": projects.list_states(project.id),
        "members": {m.account_id: m.account for m in accounts.list_members(access.org.id)},
        "priorities": list(Priority),
        "kinds": list(TaskKind),
        "can_write": can(access, "task.write", project.id),
    }


def _page_args() -> tuple[int, str | None]:
    """Paging and the category tab; a hand-edited value falls back to the default."""
    try:
        offset = min(max(0, int(request.args.get("offset", 0))), tasks.MAX_OFFSET)
    except ValueError:
        offset = 0
    category = request.args.get("category") or None
    if category not in (None, *StateCategory.__members__.values()):
        category = None
    return offset, category


def _project_page(access: Access, proj, *, errors: dict[str, str] | None = None, status=200):
    offset, category = _page_args()
    rows, total = tasks.list_tasks(
        access.org.id,
        tasks.TaskFilter(project_id=proj.id, state_category=category),
        limit=PAGE_SIZE,
        offset=offset,
    )
    context = _task_page_context(access, proj) | {
        "tasks": rows,
        "total": total,
        "offset": offset,
        "next_offset": offset + PAGE_SIZE,
        "category": category,
        "nav_active": "projects",
        "errors": errors or {},
    }
    if htmx and offset:
        return render_template("tracker/_task_rows.html", **context), status
    return render_template("tracker/project.html", **context), status


@bp.get("/o/<org>/projects/<uuid:project_id>")
@page(action="project.read")
def project(org: str, project_id: uuid.UUID, access: Access):
    """A project's tasks, newest first, 50 at a time."""
    return _project_page(access, projects.get_project(access.org.id, project_id))


@bp.post("/o/<org>/projects/<uuid:project_id>/tasks")
@page(action="task.write")
def create_task(org: str, project_id: uuid.UUID, access: Access):
    proj = projects.get_project(access.org.id, project_id)
    try:
        form = parse_form(TaskCreate)
        task = tasks.create_task(proj, access.account.id, **form.model_dump())
    except ServiceError as exc:
        if htmx:
            # The page's error flash shows a plain-text body as it is.
            message = " ".join(field_errors(exc).values())
            return Response(message, status=422, mimetype="text/plain")
        return _project_page(access, proj, errors=field_errors(exc), status=422)
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, proj)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=proj.id))


@bp.post("/o/<org>/tasks/<uuid:task_id>/state")
@page(action="task.write")
def change_state(org: str, task_id: uuid.UUID, access: Access):
    """Move a task to another state; answers the updated row to HTMX."""
    task = tasks.get_task(access.org.id, task_id)
    form = parse_form(TaskPatch)
    if form.state_id is None:
        raise ServiceError("Choose a state.", field="state_id")
    tasks.update_task(task, access.account.id, {"state_id": form.state_id})
    if htmx:
        return render_template(
            "tracker/_task_row.html", task=task, **_task_page_context(access, task.project)
        )
    return redirect(url_for("core_pages.project", org=org, project_id=task.project_id))


@bp.get("/o/<org>/settings")
@page(action="org.manage_settings")
def settings(org: str):
    return render_template(
        "settings/general.html", nav_active="settings", settings_active="core_pages.settings"
    )


@bp.get("/o/<org>/settings/members")
@page(action="org.manage_members")
def settings_members(org: str, access: Access):
    return render_template(
        "settings/members.html",
        nav_active="settings",
        settings_active="core_pages.settings_members",
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
        settings_active="core_pages.events",
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
