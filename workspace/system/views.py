"""The System page (``/system``): the instance's job queue for its operators
(docs/jobs.md#health-and-the-system-page). Anonymous visitors go to sign in like on
any page; a signed-in person who is not an operator gets a 404."""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from flask import Blueprint, flash, redirect, render_template, url_for

from workspace.auth.guards import page, render
from workspace.auth.sessions import current_account
from workspace.errors import NotFoundError, ServiceError
from workspace.system import operators, service
from workspace.system.schemas import DiscardForm

bp = Blueprint("system", __name__, url_prefix="/system")

#: How often the page's live part asks for itself again (HTMX), in seconds.
POLL_SECONDS = 3


def operators_only(view: Callable) -> Callable:
    """Around a ``@page``: a signed-in non-operator gets a 404 before anything else
    (the anonymous are left to the page's sign-in redirect)."""

    @functools.wraps(view)
    def wrapper(**url_args: Any) -> Any:
        account = current_account()
        if account is not None:
            operators.require_operator(account)
        return view(**url_args)

    return wrapper


def _back(error: ServiceError):
    """A refused retry or discard: the page again, saying why (an unknown job stays a 404)."""
    if isinstance(error, NotFoundError):
        raise error
    flash(error.message, "error")
    return redirect(url_for("system.index"), code=303)


@bp.get("")
@operators_only
@page(block="live")
def index():
    """Queues, running and failed jobs, workers; the live part polls itself."""
    return render("system/index.html", o=service.overview(), poll_seconds=POLL_SECONDS)


@bp.post("/probe")
@operators_only
@page()
def probe():
    """Start a probe job, to watch a worker take it end to end."""
    job = service.run_probe(current_account())
    flash(f"Probe {str(job.id)[:8]} queued; follow it under Probes.", "success")
    return redirect(url_for("system.index", _anchor="probes"), code=303)


@bp.post("/jobs/<uuid:job_id>/retry")
@operators_only
@page(invalid=_back)
def retry(job_id: uuid.UUID):
    """Run a dead job again, its attempts counted afresh."""
    job = service.retry(job_id, current_account())
    flash(f"{job.kind} job {str(job.id)[:8]} queued again.", "success")
    return redirect(url_for("system.index", _anchor="failed"), code=303)


@bp.get("/jobs/<uuid:job_id>/discard")
@operators_only
@page(invalid=_back)
def confirm_discard(job_id: uuid.UUID):
    """What discarding would delete, before anything is."""
    row = service.dead_job(job_id)
    return render_template("system/confirm_discard.html", row=row)


@bp.post("/jobs/<uuid:job_id>/discard")
@operators_only
@page(form=DiscardForm, checkboxes=("confirm",), invalid=_back)
def discard(job_id: uuid.UUID, form: DiscardForm):
    """Delete a dead job once confirmed; without ``confirm`` the confirmation first."""
    if not form.confirm:
        return redirect(url_for("system.confirm_discard", job_id=job_id), code=303)
    job = service.discard(job_id, current_account())
    flash(f"{job.kind} job {str(job.id)[:8]} discarded.", "success")
    return redirect(url_for("system.index", _anchor="failed"), code=303)


def ago(then: datetime | None, now: datetime) -> str:
    """``then`` as "4 s ago", "3 min ago", "2 h ago", "5 d ago"."""
    if then is None:
        return "—"
    seconds = max(0, int((now - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"
