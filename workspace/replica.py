"""Reads that may go to a PostgreSQL hot standby (docs/scaling.md#read-replicas).

With ``DATABASE_REPLICA_URL`` set, a GET whose permission action says ``replica``
(analytics, dashboards, exports, drill-down lists) reads from the standby once the
request is authorized; who may do what is always read on the primary, and every write
goes there. The session chooses per statement (:class:`RoutingSession`): a plain SELECT
on the replica, anything else, and any flush, on the primary.

Read-your-writes: after a request that wrote, the primary's WAL position is kept per
account (and as the instance's latest, with its time) in ``REPLICA_STATE_URL`` (Redis,
shared by every app node; the process's memory with none). A replica read first asks
the standby how far it has replayed. Behind the caller's own last write, it waits up
to ``REPLICA_WAIT_SECONDS`` for the standby to catch up, else reads the primary.
Behind a write any node acknowledged more than ``REPLICA_MAX_LAG_SECONDS`` ago, it is
lagging past the bound: the primary. A standby that cannot be reached within
``REPLICA_TIMEOUT_SECONDS``, or that fails the request's query (a link cut mid-read, a
query cancelled by replay), sends the request to the primary and runs it again there:
a GET is safe to run twice; the process then leaves the replica alone for
``REPLICA_RETRY_SECONDS``, so a cut link costs one request its timeout, not every
request. None of this is ever a 5xx.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g
from flask_sqlalchemy.session import Session
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Select
from sqlalchemy.sql.elements import TextClause

from workspace.config import settings_from_environment

log = logging.getLogger(__name__)

SETTINGS: dict[str, str | float] = {
    "DATABASE_REPLICA_URL": "",
    "REPLICA_STATE_URL": "",
    "REPLICA_WAIT_SECONDS": 0.5,
    "REPLICA_MAX_LAG_SECONDS": 5.0,
    "REPLICA_TIMEOUT_SECONDS": 2.0,
    "REPLICA_RETRY_SECONDS": 10.0,
}
#: ``session.info`` keys: the replica engine reads go to; whether the request wrote.
_READS = "replica_reads"
_WROTE = "replica_wrote"
#: How long the position of an account's last write is kept: longer than any lag that
#: would still send its reads to the replica.
_KEEP_SECONDS = 300


class RoutingSession(Session):
    """Flask-SQLAlchemy's session, sending plain reads to the replica while
    :func:`read_from_replica` has switched it on for the request."""

    def get_bind(self, mapper: Any = None, clause: Any = None, bind: Any = None, **kw: Any):
        replica = self.info.get(_READS)
        if replica is not None and bind is None and not self._flushing and _only_reads(clause):
            return replica
        return super().get_bind(mapper=mapper, clause=clause, bind=bind, **kw)


def _only_reads(clause: Any) -> bool:
    if isinstance(clause, Select):
        return clause._for_update_arg is None
    if isinstance(clause, TextClause):
        # SET LOCAL: the analytics' planner settings (analytics/scope.py), for the
        # reads that follow on the same connection.
        return clause.text.lstrip().lower().startswith(("select", "set local"))
    return False


#: Rows a read itself touches (a session's last-seen time, a token's last use): not a
#: write the person would look for, so they send no later read to the primary.
BOOKKEEPING = frozenset({"auth_sessions", "api_tokens"})


@event.listens_for(RoutingSession, "after_flush")
def _flushed(session: Session, _context: Any) -> None:
    # After a flush the session still lists what it flushed.
    changed = (*session.new, *session.dirty, *session.deleted)
    if any(getattr(row, "__tablename__", None) not in BOOKKEEPING for row in changed):
        session.info[_WROTE] = True


def wrote(session: Session) -> bool:
    """Whether the session wrote in this request (or unit of work), as the listeners
    above saw it."""
    return bool(session.info.get(_WROTE))


@event.listens_for(RoutingSession, "do_orm_execute")
def _executed(state: Any) -> None:
    """Bulk statements (``update(Task)…``, text DML) write without a flush."""
    if state.is_select or _only_reads(state.statement):
        return
    tables = {getattr(t, "name", None) for t in getattr(state.statement, "_from_objects", ())}
    table = getattr(state.statement, "table", None)
    if table is not None:
        tables.add(getattr(table, "name", None))
    if not tables or tables - BOOKKEEPING:
        state.session.info[_WROTE] = True


# -- where the positions are kept -------------------------------------------------


class _MemoryPositions:
    """One process's memory: right for one app node, and for tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, tuple[int, float]] = {}

    def remember(self, account: str | None, lsn: int, at: float) -> None:
        with self._lock:
            if account:
                self._values[account] = (lsn, at)
            if lsn > self._values.get("", (0, 0.0))[0]:
                self._values[""] = (lsn, at)

    def read(self, account: str | None) -> tuple[int | None, tuple[int, float] | None]:
        with self._lock:
            own = self._values.get(account or "\0")
            return (own[0] if own else None), self._values.get("")


class _RedisPositions:
    """Shared by every app node. ``latest`` keeps the highest position seen (a script
    compares, so two nodes writing at once cannot move it backwards)."""

    _MAX = "local c = redis.call('GET', KEYS[1]) if (not c) or tonumber(string.match(c, '^%d+')) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[2]) end"  # noqa: E501

    def __init__(self, url: str, timeout: float) -> None:
        import redis

        self._client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self._prefix = "workspace-replica:"
        self._raise_latest = self._client.register_script(self._MAX)

    def remember(self, account: str | None, lsn: int, at: float) -> None:
        pipe = self._client.pipeline(transaction=False)
        if account:
            pipe.set(self._prefix + account, lsn, ex=_KEEP_SECONDS)
        self._raise_latest(keys=[self._prefix + "latest"], args=[lsn, f"{lsn} {at}"], client=pipe)
        pipe.execute()

    def read(self, account: str | None) -> tuple[int | None, tuple[int, float] | None]:
        own, latest = self._client.mget(self._prefix + (account or "-"), self._prefix + "latest")
        last = None
        if latest:
            lsn, at = latest.split()
            last = (int(lsn), float(at))
        return (int(own) if own else None), last


@dataclass
class _Replica:
    engine: Engine
    positions: _MemoryPositions | _RedisPositions
    #: After a failure, this process reads the primary until then (``time.monotonic``),
    #: so a cut link costs one request its timeout, not every request.
    resting_until: float = 0.0

    def failed(self) -> None:
        self.resting_until = time.monotonic() + float(current_app.config["REPLICA_RETRY_SECONDS"])


def init_app(app: Flask) -> None:
    settings_from_environment(app.config, SETTINGS)
    url = app.config["DATABASE_REPLICA_URL"]
    if not url:
        return
    if not url.startswith(("postgres://", "postgresql")) or not str(
        app.config["SQLALCHEMY_DATABASE_URI"]
    ).startswith("postgresql"):
        raise RuntimeError("DATABASE_REPLICA_URL needs PostgreSQL for both it and DATABASE_URL")
    timeout = float(app.config["REPLICA_TIMEOUT_SECONDS"])
    engine = create_engine(
        "postgresql+psycopg://" + url.split("://", 1)[1],
        pool_pre_ping=True,
        # A cut link must fail in seconds, not after TCP's retransmissions (minutes).
        connect_args={
            "connect_timeout": max(1, round(timeout)),
            "tcp_user_timeout": int(timeout * 1000),
            "application_name": "workspace-replica-reads",
        },
    )
    state_url = app.config["REPLICA_STATE_URL"] or _redis_or_none(app)
    positions = _RedisPositions(state_url, timeout) if state_url else _MemoryPositions()
    app.extensions["replica"] = _Replica(engine, positions)
    app.after_request(_remember_writes)


def _redis_or_none(app: Flask) -> str:
    for name in ("RATELIMIT_STORAGE_URI", "JOBS_BROKER_URL"):
        value = str(app.config.get(name) or "")
        if value.startswith(("redis://", "rediss://")):
            return value
    return ""


def _replica() -> _Replica | None:
    return current_app.extensions.get("replica")


def _account_id() -> str | None:
    access = g.get("access")
    account = getattr(access, "account", None)
    return str(account.id) if account is not None else None


def _remember_writes(response: Any) -> Any:
    """After a request that wrote (and committed: the wrappers commit before this
    runs), keep the primary's WAL position for the caller and as the latest."""
    from workspace.extensions import db

    if not db.session.info.pop(_WROTE, False) or response.status_code >= 400:
        return response
    replica = _replica()
    try:
        with db.engine.connect() as primary:
            lsn = primary.execute(text("SELECT pg_current_wal_lsn()::text")).scalar_one()
        replica.positions.remember(_account_id(), lsn_number(lsn), time.time())
    except Exception:  # the write is done; the next read of it may just hit the primary
        log.warning("could not keep the WAL position of a write", exc_info=True)
    return response


def lsn_number(lsn: str) -> int:
    """``16/B374D848`` → a number that orders like the position."""
    high, low = lsn.split("/")
    return (int(high, 16) << 32) | int(low, 16)


# -- choosing, per request --------------------------------------------------------


def read_from_replica() -> bool:
    """Switch this request's plain reads to the replica when it has replayed far
    enough; whether it did. Never raises: any doubt reads the primary."""
    from workspace.extensions import db

    replica = _replica()
    if replica is None or time.monotonic() < replica.resting_until:
        return False
    wait = float(current_app.config["REPLICA_WAIT_SECONDS"])
    max_lag = float(current_app.config["REPLICA_MAX_LAG_SECONDS"])
    try:
        own, latest = replica.positions.read(_account_id())
        # Autocommit: each probe is its own snapshot of how far replay has got.
        with replica.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as probe:
            end = time.monotonic() + wait
            while True:
                replayed = probe.execute(text("SELECT pg_last_wal_replay_lsn()::text")).scalar()
                if replayed is None:
                    return False  # not a standby (promoted, or misconfigured)
                position = lsn_number(replayed)
                if latest and position < latest[0] and time.time() - latest[1] > max_lag:
                    return False
                if own is None or position >= own:
                    break
                if time.monotonic() >= end:
                    return False
                time.sleep(0.01)
    except Exception as error:  # unreachable, timed out, Redis down: the primary
        log.warning("replica reads off for a while: %s", type(error).__name__)
        replica.failed()
        return False
    db.session.info[_READS] = replica.engine
    g.replica_reads = True
    return True


def reads_again_on_primary(run: Callable[[], Any]) -> Any:
    """Run ``run`` (a view); when it fails on the replica's connection, run it again
    with every read on the primary."""
    from workspace.extensions import db
    from workspace.transaction import discard_pending

    try:
        return run()
    except DBAPIError as error:
        if db.session.info.get(_READS) is None:
            raise
        log.warning("a replica read failed (%s); reading the primary", type(error.orig).__name__)
        _replica().failed()
        discard_pending("a replica read failed: the view runs again, reading the primary")
        db.session.info.pop(_READS, None)
        g.replica_reads = False
        return run()


def stop_reading_replica() -> None:
    from workspace.extensions import db

    db.session.info.pop(_READS, None)


def lag() -> dict[str, Any] | None:
    """How far the replica is behind the primary, for ``/readyz`` and the System page;
    None when no replica is configured."""
    from workspace.extensions import db

    replica = _replica()
    if replica is None:
        return None
    start = time.monotonic()
    try:
        primary = db.session.execute(text("SELECT pg_current_wal_lsn()::text")).scalar_one()
        with replica.engine.connect() as standby:
            replayed, seconds = standby.execute(
                text(
                    "SELECT pg_last_wal_replay_lsn()::text, CASE WHEN pg_last_wal_receive_lsn()"
                    " = pg_last_wal_replay_lsn() THEN 0 ELSE EXTRACT(EPOCH FROM now()"
                    " - pg_last_xact_replay_timestamp()) END"
                )
            ).one()
    except Exception as error:
        return {
            "ok": False,
            "ms": round((time.monotonic() - start) * 1000, 1),
            "reason": f"unreachable ({type(error).__name__}); reads go to the primary",
        }
    if replayed is None:
        return {"ok": False, "ms": 0.0, "reason": "not a standby; reads go to the primary"}
    return {
        "ok": True,
        "ms": round((time.monotonic() - start) * 1000, 1),
        "lag_bytes": max(0, lsn_number(primary) - lsn_number(replayed)),
        "lag_seconds": round(float(seconds or 0), 3),
    }
