"""The jobs every instance runs: the sweep that keeps the queue honest, and the probe an
operator (or a test) starts to see a worker take a job end to end."""

from __future__ import annotations

import time
from datetime import timedelta

from flask import current_app

from workspace.core.events import record_event
from workspace.jobs import schedule, service
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler

#: Finished jobs and their rows are kept this long for the System page, then purged.
KEEP_FINISHED = timedelta(days=7)


@handler("jobs.sweep", max_attempts=1)
def sweep(job: Job, progress: Progress) -> None:
    """Send lost messages again, drop expired files, forget long-gone workers and old
    finished jobs."""
    lost = service.unsent(older_than=service.resend_after(current_app.config))
    service.resend(lost)
    job.result = {
        "resent": len(lost),
        "files_expired": service.expire_files(),
        "workers_forgotten": service.forget_workers(timedelta(days=1)),
        "jobs_purged": service.purge(older_than=KEEP_FINISHED),
    }


schedule.every(
    lambda config: timedelta(seconds=float(config.get("JOBS_SWEEP_SECONDS", 60))),
    "jobs.sweep",
    "jobs.sweep",
)


@handler("system.probe", max_attempts=3, min_backoff=200, max_backoff=2000)
def probe(job: Job, progress: Progress) -> None:
    """Take a few steps (``steps``, ``seconds`` each), then record ``system.probe`` in
    the org's events once: the effect a fault test counts. ``fail: true`` fails every
    attempt, to show a job going dead with its error."""
    steps = int(job.args.get("steps", 1))
    for step in range(steps):
        progress(step, steps, f"Step {step + 1} of {steps}")
        time.sleep(float(job.args.get("seconds", 0)))
    if job.args.get("fail"):
        raise RuntimeError("The probe was asked to fail.")
    if job.org_id is not None:
        record_event(job.org_id, "system.probe", actor_id=job.account_id, subject=str(job.id))
    job.result = {"steps": steps}
