"""``flask jobs``: run a worker, and from a shell what the System page shows and does."""

from __future__ import annotations

import uuid
from datetime import timedelta

import click
from flask import current_app
from flask.cli import with_appcontext

from workspace.errors import ServiceError
from workspace.jobs import service
from workspace.jobs.models import FINISHED, JobState
from workspace.transaction import unit_of_work


@click.group("jobs")
def jobs_group() -> None:
    """Background jobs: workers, queue, retries."""


@jobs_group.command("worker")
@click.option("--queues", default="", help="Comma-separated queues (default: all).")
@click.option("--threads", default=4, show_default=True, type=click.IntRange(1, 64))
@click.option("--no-scheduler", is_flag=True, help="Do not start periodic work here.")
@with_appcontext
def worker_command(queues: str, threads: int, no_scheduler: bool) -> None:
    """Take jobs from the broker until stopped (SIGTERM finishes the jobs in hand)."""
    from workspace.jobs import broker
    from workspace.jobs.worker import Worker, run_forever

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if broker.embedded(app):
        raise click.UsageError(
            "JOBS_BROKER_URL is not set: the embedded default runs its worker inside the "
            "web process. Set it (redis://… or amqp://…) to run workers of their own."
        )
    names = [q.strip() for q in queues.split(",") if q.strip()] or None
    run_forever(Worker(app, queues=names, threads=threads, scheduler=not no_scheduler))


@jobs_group.command("list")
@click.option("--state", type=click.Choice([s.value for s in JobState]), default=None)
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 1000))
@with_appcontext
def list_command(state: str | None, limit: int) -> None:
    """The latest jobs, newest first, and the live workers."""
    for job in service.list_jobs(state=state, limit=limit):
        took = ""
        if job.started_at and job.finished_at:
            took = f" {(job.finished_at - job.started_at).total_seconds():.1f}s"
        error = f"  {job.last_error}" if job.last_error and job.state != JobState.DONE else ""
        click.echo(
            f"{job.id}  {job.kind:<16} {job.state:<8} attempt {job.attempts}/{job.max_attempts}"
            f"{took}{error}"
        )
    workers = service.live_workers()
    click.echo(f"{len(workers)} live worker(s): " + ", ".join(w.id for w in workers))


@jobs_group.command("retry")
@click.argument("job_id", type=click.UUID)
@with_appcontext
def retry_command(job_id: uuid.UUID) -> None:
    """Run a dead job again."""
    try:
        with unit_of_work():
            job = service.retry(service.get_job(job_id))
    except ServiceError as exc:
        raise click.ClickException(exc.message) from exc
    click.echo(f"{job.id} queued again.")


@jobs_group.command("purge")
@click.option("--older-than-days", default=7, show_default=True, type=click.IntRange(0))
@click.option("--dead", "dead_only", is_flag=True, help="Only dead jobs.")
@with_appcontext
def purge_command(older_than_days: int, dead_only: bool) -> None:
    """Forget finished (or only dead) jobs older than the given age."""
    states = (JobState.DEAD,) if dead_only else FINISHED
    with unit_of_work():
        count = service.purge(older_than=timedelta(days=older_than_days), states=states)
    click.echo(f"{count} job(s) purged.")
