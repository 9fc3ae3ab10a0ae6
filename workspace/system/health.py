"""Whether this process can do its work, for an orchestrator
(docs/jobs.md#health-and-the-system-page).

``/readyz`` asks four things, each answered with ``ok``, how long it took and, when it
failed, why (never a URL with its password):

- database: ``SELECT 1`` under a short statement timeout;
- broker: Redis answers PING, or a RabbitMQ connection opens; the embedded default
  lives in this process and is always reachable;
- workers: a live heartbeat (younger than ``jobs.service.WORKER_STALE``). With a real
  broker any worker on any machine counts. With the embedded default only this
  process's own in-process worker can take its jobs, so only its heartbeat counts;
  it starts with the first request the server answers, and ``/readyz`` is such a
  request, so the first readiness probe starts it and then finds it beating;
- migrations: the database's alembic revision is the migration scripts' head.

With a read replica configured, ``replica`` says how far it lags (bytes and seconds of
WAL not yet replayed), or that it cannot be reached; it never makes the node unready,
since reads then go to the primary.

The checks run on threads of their own, and whatever has not answered by
``READYZ_DEADLINE`` seconds fails as "no answer", so a black-holed host cannot hold
the probe longer than that.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any
from urllib.parse import urlsplit

from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask, current_app
from sqlalchemy import func, select, text
from sqlalchemy.engine import Connection

from workspace import replica
from workspace.extensions import db
from workspace.jobs import broker as jobs_broker
from workspace.jobs.models import WorkerBeat
from workspace.jobs.runner import WORKER_ID
from workspace.jobs.service import WORKER_STALE
from workspace.types import utcnow

#: The order of the checks in the answer.
CHECKS = ("database", "broker", "workers", "migrations")
#: Defaults of the settings (config.TUNABLES): the whole answer and the broker's part
#: of it, in seconds; PostgreSQL's statement timeout for the checks' queries, in ms.
DEADLINE, BROKER_TIMEOUT, STATEMENT_TIMEOUT_MS = 2.5, 2.0, 1000

Check = dict[str, Any]


def readiness(app: Flask) -> tuple[bool, dict[str, Check]]:
    """Every check's answer, and whether all passed."""
    deadline = float(app.config.get("READYZ_DEADLINE", DEADLINE))
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="readyz")
    try:
        stored = pool.submit(_in_app(app, database_checks))
        reachable = pool.submit(_in_app(app, broker_check))
        lagging = pool.submit(_in_app(app, replica.lag))
        checks: dict[str, Check] = {}
        end = time.monotonic() + deadline
        try:
            checks.update(stored.result(timeout=max(0.0, end - time.monotonic())))
        except FutureTimeout:
            late = _fail(f"no answer within {deadline:g} s", deadline * 1000)
            checks.update({name: dict(late) for name in ("database", "workers", "migrations")})
        try:
            checks["broker"] = reachable.result(timeout=max(0.0, end - time.monotonic()))
        except FutureTimeout:
            checks["broker"] = _fail(f"no answer within {deadline:g} s", deadline * 1000)
        try:
            behind = lagging.result(timeout=max(0.0, end - time.monotonic()))
        except FutureTimeout:
            behind = _fail(f"no answer within {deadline:g} s; reads go to the primary", 0)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    ordered = {name: checks[name] for name in CHECKS}
    ready = all(check["ok"] for check in ordered.values())
    if behind is not None:
        # Shown, not required: without the replica every read goes to the primary,
        # so the node still serves (docs/scaling.md#read-replicas).
        ordered["replica"] = behind
    return ready, ordered


def _in_app(app: Flask, check: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        with app.app_context():
            return check()

    return run


def _fail(reason: str, ms: float, **more: Any) -> Check:
    return {"ok": False, "ms": round(ms, 1), "reason": reason, **more}


def _since(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 1)


# -- database, workers, migrations: one connection ------------------------------------


def database_checks() -> dict[str, Check]:
    start = time.monotonic()
    url = db.engine.url
    try:
        with db.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                timeout = int(
                    current_app.config.get("READYZ_STATEMENT_TIMEOUT_MS", STATEMENT_TIMEOUT_MS)
                )
                conn.execute(text(f"SET LOCAL statement_timeout = {timeout}"))
            conn.execute(text("SELECT 1"))
            answers = {"database": {"ok": True, "ms": _since(start)}}
            answers["workers"] = _timed(workers_check, conn)
            answers["migrations"] = _timed(migrations_check, conn)
            return answers
    except Exception as exc:  # unreachable, refused, timed out: all say "not ready"
        reason = safe_reason(exc, url.password)
        unreached = _fail("the database did not answer", 0)
        return {
            "database": _fail(reason, _since(start)),
            "workers": dict(unreached, live=0),
            "migrations": dict(unreached, current=None, head=None),
        }


def _timed(check: Callable[[Connection], Check], conn: Connection) -> Check:
    start = time.monotonic()
    try:
        answer = check(conn)
    except Exception as exc:
        answer = _fail(safe_reason(exc, db.engine.url.password), 0)
    answer["ms"] = _since(start)
    return answer


def workers_check(conn: Connection) -> Check:
    alive = WorkerBeat.seen_at >= utcnow() - WORKER_STALE
    if jobs_broker.embedded(current_app):
        # Only this process's own worker reads the in-process broker.
        query = select(func.count()).where(alive, WorkerBeat.id == WORKER_ID)
    else:
        query = select(func.count()).where(alive)
    live = int(conn.scalar(query.select_from(WorkerBeat)) or 0)
    if live:
        return {"ok": True, "live": live}
    stale = int(WORKER_STALE.total_seconds())
    if jobs_broker.embedded(current_app):
        why = (
            "the in-process worker of the embedded default has not started "
            f"(JOBS_EMBEDDED_WORKER is off) or has not beaten for {stale} s"
        )
    else:
        why = f"no worker has sent a heartbeat in the last {stale} s (start `flask jobs worker`)"
    return {"ok": False, "live": 0, "reason": why}


def migrations_check(conn: Connection) -> Check:
    current = sorted(MigrationContext.configure(conn).get_current_heads())
    heads = script_heads(current_app.extensions["migrate"].directory)
    answer: Check = {"ok": at_head(current, heads), "current": _one(current), "head": _one(heads)}
    if not answer["ok"]:
        answer["reason"] = (
            "the database has no migrations (run `flask db upgrade`)"
            if not current
            else "the database is not at the migrations' head (run `flask db upgrade`)"
        )
    return answer


def at_head(current: Iterable[str], heads: Iterable[str]) -> bool:
    """Whether the database's revisions are exactly the scripts' heads: behind, ahead
    (a newer release's revision), unmigrated and no scripts at all are not."""
    current, heads = set(current), set(heads)
    return bool(heads) and current == heads


@functools.lru_cache(maxsize=4)
def script_heads(directory: str) -> tuple[str, ...]:
    """The migration scripts' heads (read once: they change only with a new release)."""
    return tuple(sorted(ScriptDirectory(directory).get_heads()))


def _one(revisions: Iterable[str]) -> str | None:
    revisions = list(revisions)
    return ",".join(revisions) if revisions else None


# -- broker ---------------------------------------------------------------------------


def broker_check() -> Check:
    url = jobs_broker.broker_url(current_app)
    if not url:
        return {"ok": True, "ms": 0.0, "kind": "embedded"}
    parts = urlsplit(url)
    kind = "rabbitmq" if parts.scheme.startswith("amqp") else "redis"
    deadline = float(current_app.config.get("READYZ_BROKER_TIMEOUT", BROKER_TIMEOUT))
    start = time.monotonic()
    try:
        if kind == "redis":
            _ping_redis(url, deadline)
        else:
            _open_rabbitmq(url, deadline)
    except Exception as exc:
        return _fail(safe_reason(exc, parts.password), _since(start), kind=kind)
    return {"ok": True, "ms": _since(start), "kind": kind}


def redis_client(url: str, timeout: float):
    import redis

    return redis.Redis.from_url(
        url, socket_connect_timeout=timeout, socket_timeout=timeout, retry_on_timeout=False
    )


def _ping_redis(url: str, timeout: float) -> None:
    client = redis_client(url, timeout)
    try:
        client.ping()
    finally:
        client.close()


def _open_rabbitmq(url: str, timeout: float) -> None:
    import pika

    params = pika.URLParameters(url)
    params.connection_attempts = 1
    params.retry_delay = 0
    params.socket_timeout = timeout
    params.stack_timeout = timeout
    params.blocked_connection_timeout = timeout
    pika.BlockingConnection(params).close()


def safe_reason(exc: BaseException, *secrets: str | None) -> str:
    """``exc`` in one line for a health answer: its kind and first line, with any
    password blanked out (a driver may repeat what it was given)."""
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    message = f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__
    for secret in secrets:
        if secret:
            message = message.replace(secret, "***")
    return message[:300]
