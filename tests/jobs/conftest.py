"""A worker for the jobs tests: the embedded default's (in-process broker, worker
threads beside the app). It is started for each test that asks for it and stopped
before the tables are cleaned: its heartbeat writes would fight PostgreSQL's TRUNCATE."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from flask import Flask

from workspace.extensions import db
from workspace.jobs import service
from workspace.jobs.models import Job
from workspace.jobs.worker import Worker


@pytest.fixture
def embedded_worker(app: Flask) -> Iterator[Worker]:
    worker = Worker(app, threads=2, scheduler=False)
    worker.start()
    yield worker
    worker.stop()


def wait_for(app: Flask, job_id: uuid.UUID, states=("done", "dead"), timeout=20.0) -> Job:
    """The job once it reaches one of ``states`` (fails the test after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        with app.app_context():
            job = service.get_job(job_id)
            if job.state in states:
                db.session.expunge(job)
                return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} still {job.state} after {timeout}s")
        time.sleep(0.05)
