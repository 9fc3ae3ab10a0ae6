"""Work that outlives a request (docs/jobs.md): a durable record of each job in the
database, Dramatiq on Redis or RabbitMQ to carry it to workers on any machine, and an
embedded default for ``make run`` that needs no other service.

Settings, from the environment (an app's own config wins):

- ``JOBS_BROKER_URL``: ``redis://…`` or ``amqp://…``; empty, the embedded default.
- ``JOBS_NAMESPACE``: the prefix of this instance's keys in Redis (``workspace-jobs``).
- ``JOBS_REDELIVER_AFTER_MS``: a message whose worker stopped heartbeating in Redis goes
  back on its queue after this long (15000).
- ``JOBS_MAINTENANCE_CHANCE``: per million Redis commands, how many also look for dead
  workers' messages (10000).
- ``JOBS_SWEEP_SECONDS``: the period of the ``jobs.sweep`` schedule (60).
- ``JOBS_RESEND_AFTER_SECONDS``: the sweep (and a starting worker) sends again a job
  queued longer than this, whose message may have been lost (30).
"""

from __future__ import annotations

import logging
import threading

from flask import Flask

from workspace.config import settings_from_environment

log = logging.getLogger(__name__)

#: Every setting read from the environment, with its default (and so its type).
SETTINGS: dict[str, str | int | float] = {
    "JOBS_BROKER_URL": "",
    "JOBS_NAMESPACE": "workspace-jobs",
    "JOBS_REDELIVER_AFTER_MS": 15_000,
    "JOBS_MAINTENANCE_CHANCE": 10_000,
    "JOBS_SWEEP_SECONDS": 60.0,
    "JOBS_RESEND_AFTER_SECONDS": 30.0,
}


def init_app(app: Flask) -> None:
    from workspace.jobs import broker, builtin, cli, service  # noqa: F401  (builtin registers)

    settings_from_environment(app.config, SETTINGS)
    # The embedded default starts its worker with the first request the server
    # answers (not in CLI commands, which also make the app); a test app starts one
    # only when it asks (tests/conftest.py's embedded_worker).
    app.config.setdefault("JOBS_EMBEDDED_WORKER", not app.testing)
    broker.attach(app)
    app.cli.add_command(cli.jobs_group)
    if broker.embedded(app) and app.config["JOBS_EMBEDDED_WORKER"]:
        _start_embedded_on_first_request(app)


def _start_embedded_on_first_request(app: Flask) -> None:
    from workspace.jobs.worker import Worker

    lock = threading.Lock()
    started: list[Worker] = []

    @app.before_request
    def _embedded_worker() -> None:
        if started:
            return
        with lock:
            if not started:
                worker = Worker(app, threads=2)
                try:
                    worker.start()
                except Exception:  # the request goes on; the next one tries again
                    log.exception("the embedded job worker did not start")
                    return
                started.append(worker)
