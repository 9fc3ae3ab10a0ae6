"""The message broker under the jobs (Dramatiq, docs/jobs.md#choosing-the-queue-library):
Redis or RabbitMQ in production, named by ``JOBS_BROKER_URL``; with none, the embedded
default, an in-process broker whose worker threads run beside the server (``make run``).

Every handler kind is one Dramatiq actor on its handler's queue, with its retries and
backoff; a message carries only the job's id, and the actor hands it to
:func:`workspace.jobs.runner.run`.
"""

from __future__ import annotations

from typing import Any

import dramatiq
from dramatiq.brokers.stub import StubBroker
from flask import Flask

from workspace.jobs.registry import HANDLERS, Handler

#: The live broker, its actors by kind and the app the actors run jobs in.
_live: dict[str, Any] = {"broker": None, "actors": {}, "app": None, "url": None}


def broker_url(app: Flask) -> str:
    return (app.config.get("JOBS_BROKER_URL") or "").strip()


def embedded(app: Flask) -> bool:
    return not broker_url(app)


def _make_broker(app: Flask) -> dramatiq.Broker:
    url = broker_url(app)
    if not url:
        return StubBroker()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from dramatiq.brokers.redis import RedisBroker

        return RedisBroker(
            url=url,
            namespace=app.config.get("JOBS_NAMESPACE", "workspace-jobs"),
            # A message a dead worker held goes back on its queue after this long
            # without its heartbeat (at-least-once delivery, docs/jobs.md#faults).
            heartbeat_timeout=int(app.config.get("JOBS_REDELIVER_AFTER_MS", 15_000)),
            # Redis's own sweep of dead workers' messages runs this often per million
            # commands; the default (1 in 10,000) is too rare for a quiet queue.
            maintenance_chance=int(app.config.get("JOBS_MAINTENANCE_CHANCE", 10_000)),
        )
    if url.startswith(("amqp://", "amqps://")):
        from dramatiq.brokers.rabbitmq import RabbitmqBroker

        return RabbitmqBroker(url=url, confirm_delivery=True)
    raise ValueError("JOBS_BROKER_URL must be redis://, rediss://, amqp:// or amqps://")


def configure(app: Flask) -> dramatiq.Broker:
    """The broker for ``app`` with an actor per registered handler (again when the
    handlers or the URL changed, as they do between test apps)."""
    url = broker_url(app)
    if _live["broker"] is None or _live["url"] != url or set(_live["actors"]) != set(HANDLERS):
        broker = _make_broker(app)
        dramatiq.set_broker(broker)
        _live.update(broker=broker, url=url, actors={})
        for handler in HANDLERS.values():
            _live["actors"][handler.kind] = _declare(broker, handler)
    _live["app"] = app
    return _live["broker"]


def _declare(broker: dramatiq.Broker, handler: Handler) -> dramatiq.Actor:
    def run_job(job_id: str) -> None:
        from workspace.jobs.runner import run

        run(_live["app"], job_id)

    return dramatiq.actor(
        run_job,
        broker=broker,
        actor_name=handler.kind,
        queue_name=handler.queue,
        # Dramatiq counts retries after the first attempt.
        max_retries=handler.max_attempts - 1,
        min_backoff=handler.min_backoff,
        max_backoff=handler.max_backoff,
        # The runner keeps each job's own record; the broker keeps no results.
        time_limit=int(handler.time_limit_ms),
    )


def send(kind: str, job_id: str, *, delay_ms: int | None = None) -> None:
    """Put the job's message on its queue (after the job's row is committed), to be
    delivered at once or after ``delay_ms``."""
    configure(_live["app"])  # handlers registered since the app started get actors
    _live["actors"][kind].send_with_options(args=(job_id,), delay=delay_ms)


def boot(broker: dramatiq.Broker) -> None:
    """Tell the broker's middleware a worker process started, as Dramatiq's own CLI does
    (we run its Worker ourselves): TimeLimit starts the thread that stops an attempt
    past its handler's ``time_limit_ms`` only then. Once per broker."""
    if not getattr(broker, "_workspace_booted", False):
        broker._workspace_booted = True  # type: ignore[attr-defined]
        broker.emit_after("process_boot")


def attach(app: Flask) -> None:
    """The app whose context jobs run in; the broker is made on first use, once every
    capability has registered its handlers."""
    _live["app"] = app
