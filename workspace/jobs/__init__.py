"""Work that outlives a request (docs/jobs.md): a durable record of each job in the
database, Dramatiq on Redis or RabbitMQ to carry it to workers on any machine, and an
embedded default for ``make run`` that needs no other service."""

from __future__ import annotations

import threading

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.jobs import broker, builtin, cli, service  # noqa: F401  (builtin registers)

    app.config.setdefault("JOBS_BROKER_URL", "")
    # The embedded default starts its worker with the first request the server
    # answers (not in CLI commands, which also make the app).
    app.config.setdefault("JOBS_EMBEDDED_WORKER", True)
    service.watch_commits()
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
                worker.start()
                started.append(worker)
