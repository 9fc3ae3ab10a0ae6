"""What the operator did: a probe from the System page, which a worker took and ran
once (docs/jobs.md#health-and-the-system-page). The seed runs no worker, so it writes
what the worker would have: the finished job and its one event."""

from __future__ import annotations

from workspace.core.events import record_event
from workspace.extensions import db
from workspace.jobs.models import Job, JobState
from workspace.seed.demo import Demo


def probe(demo: Demo) -> None:
    when = demo.ago(1, 3)
    with demo.at(1, 3):
        job = Job(
            kind="system.probe",
            queue="default",
            org_id=demo.org.id,
            account_id=demo.owner.id,
            args={"steps": 1},
            state=JobState.DONE,
            attempts=1,
            max_attempts=3,
            progress_done=1,
            progress_total=1,
            progress_text="Step 1 of 1",
            result={"steps": 1},
            started_at=when,
            finished_at=when,
        )
        db.session.add(job)
        db.session.flush()
        record_event(demo.org.id, "system.probe", actor_id=demo.owner.id, subject=str(job.id))
