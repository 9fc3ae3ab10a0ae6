"""Waiting on jobs; the ``embedded_worker`` fixture is in tests/conftest.py."""

from __future__ import annotations

import time
import uuid

from flask import Flask

from workspace.extensions import db
from workspace.jobs import service
from workspace.jobs.models import Job


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
