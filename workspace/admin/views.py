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

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)

from workspace.admin import audit, members
from workspace.admin.schemas import InvitationCreate, MemberListQuery, OrgSettings, RoleChange
from workspace.auth import invites
from workspace.auth.guards import page
from workspace.core import events, orgs
from workspace.core.models import OrgRole
from workspace.core.schemas import AuditLogFilter
from workspace.errors import ServiceError
from workspace.inputs import FORM, field_errors, parse_form
from workspace.security.permissions import Access
from workspace.transaction import discard_pending

bp = Blueprint("admin_pages", __name__)

PAGE_SIZE = 50


def _general_page(access: Access, errors: dict[str, str] | None = None, form=None):
    return render_template(
        "settings/general.html",
        nav_active="settings",
        settings_active="admin_pages.settings",
        zones=orgs.time_zones(),
        form=form or {"name": access.org.name, "timezone": access.org.timezone},
        errors=errors or {},
    )


@bp.route("/o/<org>/settings", methods=["GET", "POST"])
@page(action="org.manage_settings")
def settings(org: str, access: Access):
    """Settings > General: rename the org and set its time zone; the slug stays."""
    if request.method == "GET":
        return _general_page(access)
    try:
        form = parse_form(OrgSettings)
        orgs.update_org(access.org, access.account.id, **form.model_dump())
    except ServiceError as exc:
        return _general_page(access, field_errors(exc), request.form), exc.status
    flash("Settings saved.", "success")
    return redirect(url_for("admin_pages.settings", org=org))


# -- members ---------------------------------------------------------------------------


def _members_page(
    access: Access,
    *,
    errors: dict[str, str] | None = None,
    row_errors: dict | None = None,
    invitation: invites.Invitation | None = None,
    invite_form=None,
    reactivate=None,
):
    try:
        query = parse_form(MemberListQuery, request.args)
    except ServiceError:
        query = MemberListQuery()
    listing, has_next = members.list_page(access.org.id, search=query.q or None, page=query.page)
    link = None
    if invitation is not None and invitation.token:
        link = _invite_url(invitation.token)
    roles = [r for r in OrgRole if r != OrgRole.OWNER or access.role == OrgRole.OWNER]
    return render_template(
        "settings/members.html",
        nav_active="settings",
        settings_active="admin_pages.settings_members",
        listing=listing,
        query=query,
        has_next=has_next,
        roles=roles,
        errors=errors or {},
        row_errors=row_errors or {},
        invitation=invitation,
        invite_link=link,
        invite_form=invite_form or {},
        reactivate=reactivate,
    )


def _invite_url(token: str) -> str:
    base = current_app.config.get("BASE_URL") or request.host_url
    return base.rstrip("/") + url_for("auth.invite", token=token)


def _back_to_members(org: str):
    """Back to the list the admin was on (its search and page travel in the form)."""
    args = {k: v for k in ("q", "page") if (v := request.form.get(k))}
    return redirect(url_for("admin_pages.settings_members", org=org, **args))


@bp.get("/o/<org>/settings/members")
@page(action="org.manage_members")
def settings_members(org: str, access: Access):
    """Settings > Members: search, pages of 50, roles, deactivation and invitations."""
    return _members_page(access)


@bp.post("/o/<org>/settings/members/invite", endpoint="invite_member")
@page(action="org.manage_members")
def invite_member(org: str, access: Access):
    """Invite by email; the one-time link is rendered on this answer only."""
    try:
        form = parse_form(InvitationCreate)
        invitation = invites.invite(
            access.org, access.member, form.email, name=form.name, role=form.role
        )
    except invites.DeactivatedMember as exc:
        return _members_page(
            access, errors=field_errors(exc), invite_form=request.form, reactivate=exc.member
        ), exc.status
    except ServiceError as exc:
        return _members_page(access, errors=field_errors(exc), invite_form=request.form), exc.status
    return _members_page(access, invitation=invitation)


def _row_refused(access: Access, member_id: uuid.UUID, exc: ServiceError):
    discard_pending("a refused member change renders the list again, unchanged")
    message = exc.message
    return _members_page(
        access, errors={FORM: message}, row_errors={member_id: message}
    ), exc.status


@bp.post("/o/<org>/settings/members/<uuid:member_id>/role", endpoint="member_role")
@page(action="org.manage_members")
def member_role(org: str, member_id: uuid.UUID, access: Access):
    try:
        form = parse_form(RoleChange)
        member = members.change_role(access, member_id, form.role)
    except ServiceError as exc:
        return _row_refused(access, member_id, exc)
    flash(f"{member.account.name} is now {member.role}.", "success")
    return _back_to_members(org)


@bp.post("/o/<org>/settings/members/<uuid:member_id>/deactivate", endpoint="member_deactivate")
@page(action="org.manage_members")
def member_deactivate(org: str, member_id: uuid.UUID, access: Access):
    try:
        member = members.set_active(access, member_id, False)
    except ServiceError as exc:
        return _row_refused(access, member_id, exc)
    flash(
        f"{member.account.name} is deactivated: their API tokens for this organization "
        "are revoked and they can no longer open it.",
        "success",
    )
    return _back_to_members(org)


@bp.post("/o/<org>/settings/members/<uuid:member_id>/reactivate", endpoint="member_reactivate")
@page(action="org.manage_members")
def member_reactivate(org: str, member_id: uuid.UUID, access: Access):
    try:
        member = members.set_active(access, member_id, True)
    except ServiceError as exc:
        return _row_refused(access, member_id, exc)
    flash(f"{member.account.name} is active again, as a member.", "success")
    return _back_to_members(org)


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
