"""The scheduled directory sync as a job (docs/ldap.md#scheduled-sync): each org with
an LDAP connection gets an ``ldap.directory_sync`` job every ``sync_every_minutes``,
claimed through the jobs' schedule rows so one scheduler of many starts each period.
An admin may preview a run (``dry_run``: the plan, nothing written) or start one now.

A run applies :func:`directory_sync.plan_sync`'s plan: deactivation through the one
action the admin and SCIM use (``auth.membership.deactivate_member``: tokens and
sessions end; the last owner stays), groups through ``groups.apply_groups``. It writes
one ``ldap.directory_sync`` audit entry with the counts and the connection's "last
sync" line. A plan that could not read the directory applies nothing and says so.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from workspace.auth.membership import deactivate_member
from workspace.core.events import record_event
from workspace.core.models import Account, OrgMember, Project
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.identity.ldap.directory_sync import Plan, plan_sync
from workspace.identity.ldap.groups import apply_groups
from workspace.identity.ldap.models import DEFAULT_SYNC_MINUTES, LdapConnection, connection_for
from workspace.jobs import schedule
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler
from workspace.jobs.service import count_unfinished, enqueue
from workspace.security.permissions import authorize_route, org_access
from workspace.types import utcnow

KIND = "ldap.directory_sync"
#: The periods an admin may choose: every 5 minutes to once a week (0: off).
MIN_MINUTES, MAX_MINUTES = 5, 7 * 24 * 60
LAST_OWNER = "is the org's last active owner, so they stay (make another owner first)"


def schedules() -> list[schedule.Schedule]:
    """One schedule per org whose directory sync is on, at the period its admin set;
    the schedule rows (``ldap.sync:<org id>``, period start) let one scheduler win."""
    rows = db.session.execute(
        select(LdapConnection.org_id, LdapConnection.sync_every_minutes).where(
            LdapConnection.sync_every_minutes > 0
        )
    )
    return [
        schedule.Schedule(
            f"ldap.sync:{org_id}", timedelta(minutes=minutes), KIND, {}, org_id=org_id
        )
        for org_id, minutes in rows
    ]


schedule.provide(schedules)


def save_schedule(row: LdapConnection, minutes: int | None, *, actor_id: uuid.UUID | None) -> None:
    """Set the period (0: off; None, the settings page's box left blank: keep the
    stored one, a new connection's being hourly); records ``ldap.sync_schedule_saved``
    when it changes."""
    if minutes is None:
        # Never the default over a stored period: a cleared box would otherwise turn
        # on an hourly sync that deactivates people where it was off.
        minutes = row.sync_every_minutes
        if minutes is None:
            minutes = DEFAULT_SYNC_MINUTES
    if not 0 <= minutes <= MAX_MINUTES:
        raise ServiceError(
            f"Enter the sync period in minutes, from 5 to {MAX_MINUTES} (a week), or 0 for off.",
            field="sync_every_minutes",
        )
    if 0 < minutes < MIN_MINUTES:
        raise ServiceError(
            f"Sync at most every {MIN_MINUTES} minutes, or 0 for off: each run reads "
            "every linked member from the directory.",
            field="sync_every_minutes",
        )
    if row.sync_every_minutes != minutes:
        row.sync_every_minutes = minutes
        record_event(
            row.org_id, "ldap.sync_schedule_saved", actor_id=actor_id, every_minutes=minutes
        )


def next_run(row: LdapConnection) -> datetime | None:
    """When the next scheduled run starts, or None when the schedule is off."""
    if row.sync_every_minutes <= 0:
        return None
    period = timedelta(minutes=row.sync_every_minutes)
    current = schedule.Schedule("", period, KIND).period_start(utcnow())
    return current + period


def start(org_id: uuid.UUID, account_id: uuid.UUID, *, dry_run: bool) -> Job:
    """An admin's preview (``dry_run``) or "Run sync now". Refused while a run for
    this org is queued or running, so two runs never apply at once. Does not commit."""
    if connection_for(org_id) is None:
        raise NotFoundError("This organization has no LDAP connection yet.")
    if count_unfinished(KIND, org_id=org_id):
        raise ConflictError(
            "A directory sync is already queued or running for this organization; "
            "wait for it to finish, then try again."
        )
    return enqueue(KIND, org_id=org_id, account_id=account_id, args={"dry_run": dry_run})


@handler(KIND, max_attempts=2, time_limit_ms=15 * 60_000)
def run(job: Job, progress: Progress) -> None:
    """Plan, then (unless ``dry_run``) apply; ``job.result`` is the report. An admin's
    run is checked again here: someone no longer allowed gets a dead job."""
    if job.account_id is not None:
        account = db.session.get(Account, job.account_id)
        authorize_route(org_access(job.org_id, account), "org.manage_settings", {})
    row = connection_for(job.org_id)
    if row is None:
        job.result = {"ok": False, "message": "The LDAP connection was removed."}
        return
    dry_run = bool(job.args.get("dry_run"))
    plan = plan_sync(row, progress)
    if not dry_run:
        apply(row, plan, job)
    job.result = report(plan, dry_run=dry_run)


def apply(row: LdapConnection, plan: Plan, job: Job) -> None:
    """Make the plan true (nothing when it failed), then record the run once."""
    if plan.ok:
        for change in list(plan.deactivations):  # the last owner drops out
            member = db.session.get(OrgMember, change.member_id)
            if member is None or not member.active:
                continue
            if not deactivate_member(member, via="ldap"):
                plan.deactivations.remove(change)
                plan.errors.append({"email": change.email, "message": LAST_OWNER})
        for member, found in plan.groups:
            account = member.account
            apply_groups(row.org_id, account.id, account.email, found, row)
    counts = plan.counts()
    row.last_sync_at = utcnow()
    row.last_sync = {
        "ok": plan.ok,
        "message": plan.message,
        "counts": counts,
        "job_id": str(job.id),
        "by": "admin" if job.account_id else "schedule",
    }
    outcome = {"reason": plan.reason, "message": plan.message} if not plan.ok else {}
    record_event(
        row.org_id,
        "ldap.directory_sync",  # a literal: the audit log's kinds are read from the code
        actor_id=job.account_id,
        ok=plan.ok,
        source="ldap",
        job_id=str(job.id),
        **counts,
        **outcome,
    )
    db.session.flush()


def report(plan: Plan, *, dry_run: bool) -> dict[str, Any]:
    """The job's result: what was (or, for a dry run, would be) done, person by person."""
    ids = {c.project_id for c in plan.role_changes}
    rows = db.session.execute(select(Project.id, Project.name).where(Project.id.in_(ids)))
    names = {project_id: name for project_id, name in rows}
    return {
        "ok": plan.ok,
        "dry_run": dry_run,
        "reason": plan.reason,
        "message": plan.message,
        "counts": plan.counts(),
        "deactivations": [
            {"email": d.email, "reason": d.reason, "why": d.why} for d in plan.deactivations
        ],
        "role_changes": [
            {
                "email": c.email,
                "kind": c.kind,
                "project_id": str(c.project_id),
                "project": names.get(c.project_id, str(c.project_id)),
                "role": c.role,
                "from_role": c.from_role,
            }
            for c in plan.role_changes
        ],
        "org_role_changes": [asdict(c) for c in plan.org_role_changes],
        "errors": plan.errors,
    }
