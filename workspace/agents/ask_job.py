"""Ask-a-chart as a job (docs/jobs.md#ask-a-chart): the model call runs on a worker,
not in the web process that took the question.

``start`` is what the Ask box and ``POST …/analytics/ask/jobs`` call: the words are
checked, the ask is counted against the rates, and it takes one of the org's places in
flight (``ask_limits.claim_slot``) before its job is queued. The handler reads the
asker's access again (one removed meanwhile gets nothing and spends nothing), then runs
the same :func:`workspace.agents.ask.answer` the synchronous ask runs: the AI run, its
credits and the chart, committed with the job's ``done``; the chart is the job's
``result["answer"]``, in the shape ``POST …/analytics/ask`` answers.

``ask_now`` is that synchronous ``POST …/analytics/ask`` for a client that waits: with
a model configured, the same job, run in this process on the embedded default, else
waited for; with none, the built-in interpreter answers at once (nothing to wait for).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from flask import current_app

from workspace.agents import ask
from workspace.agents.ask_limits import ASK_JOB, check_rate, claim_slot
from workspace.agents.schemas import AskOut
from workspace.analytics.scope import make_scope
from workspace.core.models import Account
from workspace.delivery.links import link_context
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import db
from workspace.jobs import service as jobs
from workspace.jobs import waiting
from workspace.jobs.models import Job, JobState
from workspace.jobs.registry import Progress, handler
from workspace.security.permissions import Access, authorize_route, org_access
from workspace.transaction import commit_early

log = logging.getLogger(__name__)

#: Beyond the model's own deadline, how long a waiting caller gives the queue.
WAIT_MARGIN_SECONDS = 10


def start(
    access: Access,
    text: str,
    project_id: uuid.UUID | None = None,
    dashboard_id: uuid.UUID | None = None,
) -> Job:
    """Queue ``access``'s ask; refused like the synchronous ask (a bad ``text`` or
    project, 429 past a rate or past the org's asks in flight). ``dashboard_id``: the
    dashboard page it was asked on, offered first for saving the answer."""
    make_scope(access.org, project_id)  # another org's project: 404 now, not later
    text = ask.checked_text(text)
    check_rate(access.org.id, access.account.id)
    claim_slot(access.org.id)
    return jobs.enqueue(
        ASK_JOB,
        org_id=access.org.id,
        account_id=access.account.id,
        args={
            "text": text,
            "project_id": str(project_id) if project_id else None,
            "dashboard_id": str(dashboard_id) if dashboard_id else None,
            "model": ask.model_for(access.org.id),
        },
    )


def wait_seconds() -> float:
    """How long ``ask_now`` waits: the whole model call's deadline and a margin."""
    config = current_app.config
    deadline = max(config.get("OUTBOUND_DEADLINE") or 15, config.get("OUTBOUND_TIMEOUT") or 10)
    return float(deadline) + WAIT_MARGIN_SECONDS


def ask_now(access: Access, text: str, project_id: uuid.UUID | None = None) -> dict[str, Any]:
    """The answer, for a caller that waits (``POST …/analytics/ask``)."""
    if ask.model_for(access.org.id) is None:
        return ask.ask_chart(make_scope(access.org, project_id), access.account, text)
    job = start(access, text, project_id)
    commit_early("the ask's job must be visible to the worker that answers it")
    job = _run_to_end(job)
    if job.job_state is not JobState.DONE:
        raise failure(job)
    return job.result["answer"]


def _run_to_end(job: Job) -> Job:
    return waiting.run_to_end(
        job.id,
        wait_seconds=wait_seconds(),
        still_running="The model is still answering; ask again in a moment.",
    )


def failure(job: Job) -> ServiceError:
    """A finished job's refusal as the error the API answers (503 for a failure)."""
    return waiting.refusal(job, "The chart could not be made.")


def load(access: Access, job_id: uuid.UUID) -> Job:
    """An ask job of this org that this member started; anyone else's is a 404."""
    job = jobs.get_job(job_id, access.org.id)
    if job.kind != ASK_JOB or job.account_id != access.account.id:
        raise NotFoundError("No such job.")
    return job


def _uuid(value: str | None) -> uuid.UUID | None:
    return uuid.UUID(value) if value else None


def page_context(job: Job) -> dict[str, Any]:
    """What the Ask box needs besides the answer: the project and dashboard asked from."""
    return {
        "answer_project_id": _uuid(job.args.get("project_id")),
        "selected_dashboard_id": _uuid(job.args.get("dashboard_id")),
    }


@handler(ASK_JOB, queue="ai", max_attempts=2, time_limit_ms=2 * 60_000)
def answer(job: Job, progress: Progress) -> None:
    """Ask the model and chart the answer, as the asker may now: one who left the org
    or lost the project since asking gets a 404 and no run, and spends no credit."""
    account = db.session.get(Account, job.account_id) if job.account_id else None
    access = authorize_route(org_access(job.org_id, account), "ai.ask", {})
    scope = make_scope(access.org, _uuid(job.args.get("project_id")))
    model = job.args.get("model")
    progress(0, 1, f"Asking {model}…" if model else "Charting…")
    # A chart's points link to their task lists (url_for), and a worker serves no
    # request: the links are built as BASE_URL's pages.
    with link_context():
        result = ask.answer(scope, access.account, job.args["text"], run_id=job.id)
    job.result = {"answer": AskOut.model_validate(result).model_dump(mode="json")}
