"""Org administration pages: general settings, members and their invitations, and
the audit log (Settings > General, Members, Audit log)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    redirect,
    request,
    stream_with_context,
    url_for,
)

from workspace.admin import audit, invitations, invite_result, members
from workspace.admin.schemas import InvitationCreate, MemberListQuery, OrgSettings, RoleChange
from workspace.auth import invites
from workspace.auth.guards import page, render
from workspace.core import accounts, events, orgs
from workspace.core.models import OrgRole
from workspace.core.models.enforced_sso import break_glass_owners
from workspace.core.names import with_article
from workspace.core.schemas import AuditLogFilter
from workspace.errors import ServiceError
from workspace.inputs import FORM, field_errors
from workspace.security.permissions import Access

bp = Blueprint("admin_pages", __name__)

PAGE_SIZE = 50

SETTINGS = "/o/<org>/settings"
MEMBERS = SETTINGS + "/members"
_MANAGE = "org.manage_members"


def _general_page(access: Access, form=None, errors: dict[str, str] | None = None, status=200):
    return render(
        "settings/general.html",
        status=status,
        nav_active="settings",
        settings_active="admin_pages.settings",
        zones=orgs.time_zones(),
        form=form
        or {
            "name": access.org.name,
            "timezone": access.org.timezone,
            "week_start": access.org.week_start,
        },
        weekdays=orgs.WEEKDAYS,
        errors=errors or {},
    )


def _settings_refused(access: Access, error: ServiceError):
    return _general_page(access, request.form, field_errors(error), error.status)


@bp.get(SETTINGS)
@page(action="org.manage_settings")
def settings(access: Access):
    """Settings > General: rename the org and set its time zone; the slug stays."""
    return _general_page(access)


@bp.post(SETTINGS, endpoint="save_settings")
@page(action="org.manage_settings", form=OrgSettings, invalid=_settings_refused)
def save_settings(org: str, access: Access, form: OrgSettings):
    orgs.update_org(access.org, access.account.id, **form.model_dump())
    flash("Settings saved.", "success")
    return redirect(url_for("admin_pages.settings", org=org))


# -- members ---------------------------------------------------------------------------


def _members_page(
    access: Access,
    query: MemberListQuery | None = None,
    *,
    errors: dict[str, str] | None = None,
    row_errors: dict | None = None,
    invite_form=None,
    reactivate=None,
    status: int = 200,
):
    """The list (``query``: its search and page; the first page of everyone without),
    the invitation form, and what the last action refused or made."""
    query = query or MemberListQuery()
    listing, has_next = members.list_page(access.org.id, query)
    invitation, link = invite_result.take(), None
    if invitation is not None and invitation.token:
        link = _invite_url(invitation.token)
    roles = [r for r in OrgRole if r != OrgRole.OWNER or access.role == OrgRole.OWNER]
    return render(
        "settings/members.html",
        status=status,
        nav_active="settings",
        settings_active="admin_pages.settings_members",
        listing=listing,
        query=query,
        list_args=query.filters(),
        facets=members.facets(access.org.id, query),
        joined_labels=accounts.JOINED_VIA_LABELS,
        join_links=invitations.join_links(access.org.id),
        has_next=has_next,
        roles=roles,
        errors=errors or {},
        row_errors=row_errors or {},
        invitation=invitation,
        invite_link=link,
        invite_form=invite_form or {},
        reactivate=reactivate,
        break_glass={b.member_id: b for b in break_glass_owners(access.org.id)},
        role_offers=members.role_from_groups_offers(access.org.id, listing),
    )


def _invite_url(token: str) -> str:
    base = current_app.config.get("BASE_URL") or request.host_url
    return base.rstrip("/") + url_for("auth.invite", token=token)


def _back_to_members(
    org: str, query: MemberListQuery, member_id: uuid.UUID | None = None, anchor: str = ""
):
    """Back to the list the admin was on (its search, filters and page travel in the
    form), at the row acted on: its Actions button gets the focus (app.js), instead of
    the top of a long list and the focus on the page."""
    page_no = query.page if query.page > 1 else None
    anchor = f"member-{member_id}" if member_id else anchor or None
    return redirect(
        url_for(
            "admin_pages.settings_members", org=org, page=page_no, _anchor=anchor,
            **query.filters(),
        )
    )  # fmt: skip


def _first_page(access: Access):
    """A search or page number the list cannot read shows the first page of everyone."""
    return _members_page(access)


@bp.get(MEMBERS)
@page(action=_MANAGE, form=MemberListQuery, invalid=_first_page)
def settings_members(access: Access, form: MemberListQuery):
    """Settings > Members: search, pages of 50, roles, deactivation and invitations."""
    return _members_page(access, form)


def _invite_refused(access: Access, error: ServiceError):
    return _members_page(
        access,
        errors=field_errors(error),
        invite_form=request.form,
        reactivate=error.member if isinstance(error, invites.DeactivatedMember) else None,
        status=error.status,
    )


@bp.post(MEMBERS + "/invite", endpoint="invite_member")
@page(action=_MANAGE, form=InvitationCreate, invalid=_invite_refused)
def invite_member(access: Access, form: InvitationCreate):
    """Invite by email; the one-time link is rendered on this answer only."""
    invitation = invites.invite(
        access.org, access.member, form.email, name=form.name, role=form.role
    )
    # Shown by the list this redirects to: a reload there does not invite again.
    invite_result.keep(invitation)
    return _back_to_members(access.org.slug, MemberListQuery(), anchor="invite-result")


def _row_refused(access: Access, member_id: uuid.UUID, error: ServiceError):
    """The list again, the refusal above it and beside the member's row."""
    message = error.message
    return _members_page(
        access, errors={FORM: message}, row_errors={member_id: message}, status=error.status
    )


@bp.post(MEMBERS + "/<uuid:member_id>/role", endpoint="member_role")
@page(action=_MANAGE, form=RoleChange, invalid=_row_refused)
def member_role(org: str, member_id: uuid.UUID, access: Access, form: RoleChange):
    member = members.change_role(access, member_id, form.role)
    flash(f"{member.account.name} is now {with_article(member.role)}.", "success")
    return _back_to_members(org, form, member_id)


@bp.post(MEMBERS + "/<uuid:member_id>/role-from-groups", endpoint="member_role_from_groups")
@page(action=_MANAGE, form=MemberListQuery, invalid=_row_refused)
def member_role_from_groups(org: str, member_id: uuid.UUID, access: Access, form: MemberListQuery):
    member = members.hand_role_to_groups(access, member_id)
    via = f" (via {member.role_synced_from})" if member.role_synced_from else ""
    flash(
        f"{member.account.name}'s role follows group sync again: {member.role}{via}.",
        "success",
    )
    return _back_to_members(org, form, member_id)


@bp.post(MEMBERS + "/<uuid:member_id>/deactivate", endpoint="member_deactivate")
@page(action=_MANAGE, form=MemberListQuery, invalid=_row_refused)
def member_deactivate(org: str, member_id: uuid.UUID, access: Access, form: MemberListQuery):
    member = members.set_active(access, member_id, False)
    flash(
        f"{member.account.name} is deactivated: their API tokens for this organization "
        "are revoked and they can no longer open it.",
        "success",
    )
    return _back_to_members(org, form, member_id)


@bp.post(MEMBERS + "/<uuid:member_id>/reactivate", endpoint="member_reactivate")
@page(action=_MANAGE, form=MemberListQuery, invalid=_row_refused)
def member_reactivate(org: str, member_id: uuid.UUID, access: Access, form: MemberListQuery):
    member = members.set_active(access, member_id, True)
    # The role they had comes back with them (an admin stays an admin).
    flash(f"{member.account.name} is active again, as {with_article(member.role)}.", "success")
    return _back_to_members(org, form, member_id)


@bp.post(MEMBERS + "/<uuid:member_id>/resend", endpoint="invite_resend")
@page(action=_MANAGE, form=MemberListQuery, invalid=_row_refused)
def invite_resend(access: Access, member_id: uuid.UUID, form: MemberListQuery):
    """A new one-time link for a pending invitation, shown once on the list."""
    invite_result.keep(invitations.resend(access, member_id), resent=True)
    return _back_to_members(access.org.slug, form, anchor="invite-result")


@bp.post(MEMBERS + "/<uuid:member_id>/revoke", endpoint="invite_revoke")
@page(action=_MANAGE, form=MemberListQuery, invalid=_row_refused)
def invite_revoke(org: str, access: Access, member_id: uuid.UUID, form: MemberListQuery):
    member = invitations.revoke(access, member_id)
    flash(
        f"The invitation to {member.account.email} is revoked: its link no longer works "
        "and they are not a member.",
        "success",
    )
    return _back_to_members(org, form)


@bp.post(MEMBERS + "/join-links/<uuid:link_id>/revoke", endpoint="join_link_revoke")
@page(action=_MANAGE)
def join_link_revoke(org: str, access: Access, link_id: uuid.UUID):
    email = invitations.revoke_join_link(access, link_id)
    flash(f"The join link for {email} is revoked: it no longer works.", "success")
    return redirect(url_for("admin_pages.settings_members", org=org))


# -- audit log -------------------------------------------------------------------------


def _events_page(access: Access, form: AuditLogFilter, errors=None, status: int = 200):
    tz = access.org.zone
    rows = events.list_events(
        access.org.id, **_event_filters(form, tz), limit=PAGE_SIZE + 1, offset=form.offset
    )
    args = {k: v for k, v in request.args.items() if k != "offset" and v}
    return render(
        "settings/events.html",
        status=status,
        nav_active="settings",
        settings_active="admin_pages.events",
        rows=audit.describe(access.org.id, rows[:PAGE_SIZE]),
        form=form,
        args=args,
        errors=errors or {},
        tz=tz,
        kinds=[(k, audit.kind_group(k)) for k in events.kind_prefixes(access.org.id)],
        actors=events.actors(access.org.id),
        older=form.offset + PAGE_SIZE if len(rows) > PAGE_SIZE else None,
        newer=max(form.offset - PAGE_SIZE, 0) if form.offset else None,
    )


def _unfiltered(access: Access, error: ServiceError):
    """Filters it cannot read: every event, with the message by each field."""
    return _events_page(access, AuditLogFilter(), field_errors(error), error.status)


@bp.get(SETTINGS + "/events", endpoint="events")
@page(action="org.manage_settings", form=AuditLogFilter, invalid=_unfiltered)
def events_page(form: AuditLogFilter, access: Access):
    """Settings > Audit log: filters by kind, actor and dates (org time zone), 50 a page."""
    return _events_page(access, form)


def _csv_refused(error: ServiceError):
    lines = "; ".join(f"{k}: {v}" for k, v in field_errors(error).items())
    return Response(lines + "\n", status=400, mimetype="text/plain")


@bp.get(SETTINGS + "/events.csv", endpoint="events_csv")
@page(action="org.manage_settings", form=AuditLogFilter, invalid=_csv_refused)
def events_csv(form: AuditLogFilter, access: Access):
    """The filtered audit log as CSV, streamed, at most ``EXPORT_CAP`` rows."""
    org_id, filters = access.org.id, _event_filters(form, access.org.zone)

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
