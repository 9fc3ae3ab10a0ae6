"""A worker: Dramatiq's worker threads on the job queues, a heartbeat that says this
process is alive, and a scheduler that starts periodic work. ``flask jobs worker`` runs
one as its own process (on any machine that reaches the database and the broker);
the embedded default runs one inside the web process (docs/jobs.md#topology)."""

from __future__ import annotations

import logging
import socket
import threading
import time

import dramatiq
from flask import Flask
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from workspace.extensions import db
from workspace.jobs import broker, registry, schedule, service
from workspace.jobs.models import WorkerBeat
from workspace.jobs.runner import WORKER_ID
from workspace.transaction import unit_of_work
from workspace.types import utcnow

log = logging.getLogger(__name__)

#: How often a worker says it is alive (well inside service.WORKER_STALE).
BEAT_SECONDS = 2.0
#: How often the scheduler looks for a period to start.
TICK_SECONDS = 1.0


class Worker:
    """Consumers, heartbeat and scheduler of one process; ``start`` and ``stop``."""

    def __init__(
        self,
        app: Flask,
        *,
        queues: list[str] | None = None,
        threads: int = 4,
        scheduler: bool = True,
    ) -> None:
        self.app = app
        self.queues = queues or registry.queues()
        self.threads = threads
        self.scheduler = scheduler
        self._stop = threading.Event()
        self._loops: list[threading.Thread] = []
        self._dramatiq: dramatiq.Worker | None = None

    def start(self) -> None:
        with self.app.app_context():
            self.beat()  # alive before the first job is claimed
            recover(self.app)
        carrier = broker.configure(self.app)
        broker.boot(carrier)
        self._dramatiq = dramatiq.Worker(
            carrier,
            queues=set(self.queues),
            worker_threads=self.threads,
            # An idle consumer polls Redis with a backoff capped here: a job arriving
            # at an idle worker waits at most about this long (bench/jobs.py).
            worker_timeout=40,
        )
        self._dramatiq.start()
        self._loop("heartbeat", BEAT_SECONDS, self.beat)
        if self.scheduler:
            self._loop("scheduler", TICK_SECONDS, self.tick)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._dramatiq is not None:
            self._dramatiq.stop(timeout=int(timeout * 1000))
        for loop in self._loops:
            loop.join(timeout)

    def beat(self) -> None:
        """This process's heartbeat row: updated, or made by whichever of its workers
        (a process may run two, as tests do) gets there first."""
        now = utcnow()
        seen = update(WorkerBeat).where(WorkerBeat.id == WORKER_ID).values(seen_at=now)
        try:
            with unit_of_work():
                if not db.session.execute(seen).rowcount:
                    db.session.add(
                        WorkerBeat(
                            id=WORKER_ID,
                            host=socket.gethostname(),
                            pid=int(WORKER_ID.split(":")[1]),
                            queues=",".join(self.queues),
                            started_at=now,
                            seen_at=now,
                        )
                    )
        except IntegrityError:  # the process's other worker made it meanwhile
            with unit_of_work():
                db.session.execute(seen)

    def tick(self) -> None:
        schedule.fire_due(utcnow(), WORKER_ID)

    def _loop(self, name: str, every: float, step) -> None:
        def loop() -> None:
            while not self._stop.wait(every):
                with self.app.app_context():
                    try:
                        step()
                    except Exception:  # a database blip must not end the loop
                        log.exception("job %s step failed; trying again", name)

        thread = threading.Thread(target=loop, name=f"jobs-{name}", daemon=True)
        thread.start()
        self._loops.append(thread)


def recover(app: Flask) -> int:
    """Send again what may have been lost: jobs queued for a while, and jobs running on
    workers that stopped (a restarted embedded default loses its in-memory queue)."""
    with unit_of_work():
        lost = service.unsent(older_than=service.resend_after(app.config))
        service.resend(lost)
    return len(lost)


def run_forever(worker: Worker) -> None:
    """Run until SIGTERM or SIGINT; finish the jobs in hand, then stop."""
    import signal

    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    worker.start()
    log.info("worker %s on queues %s", WORKER_ID, ",".join(worker.queues))
    while not stopping.wait(0.5):
        time.sleep(0)
    worker.stop()
