"""The demo's scheduled directory sync (docs/ldap.md#scheduled-sync): the identity
admin moves it from hourly (the default) to every six hours and runs it once by
hand, the schedule runs it later, and it is switched off at the end, as the SSO
connection is, since the demo's directory cannot be reached."""

from __future__ import annotations

from datetime import timedelta

from workspace.extensions import db
from workspace.identity.ldap import sync_job
from workspace.identity.ldap.directory_sync import Plan, linked_members
from workspace.identity.ldap.models import connection_for
from workspace.jobs.models import Job, JobState
from workspace.seed.demo import Demo


def _run(demo: Demo, account_id) -> None:
    """One run through :func:`sync_job.apply` and :func:`sync_job.report`, the job's
    own steps. Written out: reading the directory (``plan_sync``) needs a live LDAP
    server, so the plan is the one a directory that agrees with the org would give
    (every linked member checked, nothing to change), and the seed writes the
    finished job a worker would have left."""
    row = connection_for(demo.org.id)
    when = demo.stamp.when
    job = Job(
        kind=sync_job.KIND,
        queue="default",
        org_id=demo.org.id,
        account_id=account_id,
        args={"dry_run": False},
        state=JobState.DONE,
        attempts=1,
        max_attempts=2,
        started_at=when,
        finished_at=when + timedelta(seconds=4),
    )
    db.session.add(job)
    db.session.flush()
    plan = Plan(checked=len(linked_members(demo.org.id)))
    sync_job.apply(row, plan, job)
    job.result = sync_job.report(plan, dry_run=False)
    row.last_sync_at = job.finished_at


def schedule(demo: Demo) -> None:
    admin = demo.people["Marcus Chen"].id
    row = connection_for(demo.org.id)
    with demo.at(22):
        sync_job.save_schedule(row, 6 * 60, actor_id=admin)
    with demo.at(22, -0.1):
        _run(demo, admin)  # "Run sync now"
    with demo.at(4, 3):
        _run(demo, None)  # the schedule's run: no one asked
    with demo.at(1, -1):
        sync_job.save_schedule(row, 0, actor_id=admin)
