"""Shared by the System tests: an operator, a worker of the embedded default, and jobs
in the states the page shows."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from flask import Flask

from workspace.extensions import db
from workspace.jobs.models import Job, JobState
from workspace.jobs.worker import Worker
from workspace.types import utcnow


@pytest.fixture
def operator(app, acme, monkeypatch):
    """Acme's owner is the instance's operator."""
    monkeypatch.setitem(app.config, "SYSTEM_OPERATORS", (acme.owner_email,))
    return acme


@pytest.fixture
def worker(app: Flask) -> Iterator[Worker]:
    """The in-process worker of the embedded default, stopped before the tables are
    cleaned (its heartbeat would fight PostgreSQL's TRUNCATE)."""
    running = Worker(app, threads=2, scheduler=False)
    running.start()
    yield running
    running.stop()


def add_job(app: Flask, org_id=None, **values) -> uuid.UUID:
    """A job row as a worker would have left it (dead, unless ``state`` says)."""
    now = utcnow()
    values = {
        "kind": "system.probe",
        "state": JobState.DEAD,
        "attempts": 3,
        "max_attempts": 3,
        "last_error": "RuntimeError: The probe was asked to fail.",
        "started_at": now - timedelta(seconds=5),
        "finished_at": now,
        **values,
    }
    with app.app_context():
        job = Job(org_id=org_id, args={}, **values)
        db.session.add(job)
        db.session.commit()
        return job.id


def job_state(app: Flask, job_id: uuid.UUID) -> str | None:
    with app.app_context():
        job = db.session.get(Job, job_id)
        return job.state if job else None


def wait_for_state(app: Flask, job_id: uuid.UUID, state: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while job_state(app, job_id) != state:
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} is {job_state(app, job_id)}, not {state}")
        time.sleep(0.05)
