"""What a job kind runs: capabilities register their handlers here, and the worker
looks them up by name (the message carries only the job's id).

    @handler("dashboard.pdf", queue="exports", max_attempts=3)
    def export_pdf(job: Job, progress: Progress) -> None: ...

A handler reads its input from ``job.args``, reports with ``progress(done, total,
text)`` (before it writes anything: progress goes on a connection of its own, which
on SQLite would wait for the job's own write lock), writes its result
(``job.result``, a JobFile) and flushes; the runner commits
that together with the job's ``done`` state, so a worker killed at any moment leaves
either nothing or everything, and the attempt that follows cannot do it twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workspace.jobs.models import Job

#: ``progress(done, total, text)``: what the job has done so far, for the progress bar.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Handler:
    kind: str
    run: Callable[[Job, Progress], None]
    queue: str
    max_attempts: int
    #: First retry after this many milliseconds, doubling up to ``max_backoff``.
    min_backoff: int
    max_backoff: int
    #: An attempt that runs longer is stopped and counts as failed.
    time_limit_ms: int


#: Every registered handler by kind.
HANDLERS: dict[str, Handler] = {}

#: The queues a worker takes by default: every queue a handler names.
DEFAULT_QUEUE = "default"


def handler(
    kind: str,
    *,
    queue: str = DEFAULT_QUEUE,
    max_attempts: int = 3,
    min_backoff: int = 1000,
    max_backoff: int = 60_000,
    time_limit_ms: int = 10 * 60_000,
) -> Callable[[Callable[[Job, Progress], None]], Callable[[Job, Progress], None]]:
    """Register ``run`` as the handler of ``kind`` jobs."""

    def register(run: Callable[[Job, Progress], None]) -> Callable[[Job, Progress], None]:
        if kind in HANDLERS and HANDLERS[kind].run is not run:
            raise RuntimeError(f"two handlers for job kind {kind!r}")
        HANDLERS[kind] = Handler(
            kind, run, queue, max_attempts, min_backoff, max_backoff, time_limit_ms
        )
        return run

    return register


def queues() -> list[str]:
    return sorted({h.queue for h in HANDLERS.values()} | {DEFAULT_QUEUE})
