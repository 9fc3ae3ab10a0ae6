"""The alerts' job (docs/jobs.md): ``alerts.check`` runs every ``ALERTS_CHECK_SECONDS``
(300 by default) and checks the alerts whose own interval is up."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from workspace.analytics.alerts import check
from workspace.jobs import schedule
from workspace.jobs.models import Job
from workspace.jobs.registry import Progress, handler
from workspace.types import utcnow

KIND = "alerts.check"


def _period(config: Mapping[str, Any]) -> timedelta:
    return timedelta(seconds=int(config.get("ALERTS_CHECK_SECONDS", 300)))


schedule.every(_period, KIND, KIND)


# One attempt: the next run, minutes later, is the retry. A run that fails midway
# keeps what it did for the alerts before (each is checked in a savepoint).
@handler(KIND, max_attempts=1, time_limit_ms=4 * 60_000)
def run(job: Job, progress: Progress) -> None:
    job.result = check.run_due(utcnow())
