"""Who commits: the request, once.

Service functions add and flush; they never commit. The request wrappers
(:func:`workspace.api.operations.operation`, :func:`workspace.auth.guards.page` and
:func:`transactional` for the few routes outside an org) commit once when the view
returns a success and roll back when it raises or answers an error. A half-finished
request therefore keeps nothing.

The rare write that must outlive a failing request (an audit row recording a refusal,
a one-time SSO state consumed before the IdP is called, a token's "last used" touch on
a read) goes through :func:`commit_early`, which names why. Work outside a request (a
job, a worker's heartbeat, a schedule's claim, a command) runs in :func:`unit_of_work`.

When PostgreSQL aborts the transaction as the loser of a deadlock or a serialization
conflict (two bulk edits that cross the same rollup rows in opposite order, say), the
wrapper rolls back and runs the view again, a few times with a short random pause: the
request then either succeeds whole or answers 503 with nothing saved. A request that
has already committed early is not run again (its early commit would be repeated).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response
from sqlalchemy import ColumnElement, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import InstrumentedAttribute

from workspace.errors import BusyError
from workspace.extensions import db

log = logging.getLogger(__name__)

#: Marks a view whose transaction the request wrapper owns (the route walk checks it).
TRANSACTIONAL_ATTR = "owns_transaction"
_COMMITTED_EARLY = "committed_early"
#: PostgreSQL's deadlock_detected and serialization_failure: the transaction lost a
#: race and may simply be run again.
RETRYABLE_SQLSTATES = {"40P01", "40001"}
ATTEMPTS = 3


def commit_early(why: str) -> None:
    """Commit what is pending now, before the request's own end.

    ``why`` is required so every early commit says, at the call site, what must survive
    a rollback that may follow.
    """
    if not why:
        raise ValueError("commit_early needs a reason")
    db.session.commit()
    db.session.info[_COMMITTED_EARLY] = True


def lock_row(where: ColumnElement[bool], *rewrite: InstrumentedAttribute[Any]) -> None:
    """Hold the row ``where`` picks until the transaction ends, so a second writer
    waits here and then reads what the first committed (docs/security.md#concurrency).

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE`` of the first of ``rewrite`` alone,
    which writes nothing (a relationship joined into the lock would, after a wait, be
    rechecked against the row read before it and come back empty). It is the lock an
    UPDATE of the row takes: a plain ``FOR UPDATE`` would also block another
    transaction inserting a row that points at this one (its foreign-key check), and
    deadlock two SCIM group PATCHes adding one person. SQLite has no row
    locks: a no-op write of the ``rewrite`` columns (each set to itself, so a column's
    ``onupdate`` does not fire) takes its database write lock, which a second writer
    waits for (``busy_timeout``)."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(select(rewrite[0]).where(where).with_for_update(key_share=True))
        return
    db.session.execute(
        update(rewrite[0].class_)
        .where(where)
        .values({column.key: column for column in rewrite})
        .execution_options(synchronize_session=False)
    )


def run_deferred_triggers() -> None:
    """Run now the triggers this transaction queued for its COMMIT, and every later one
    at once. PostgreSQL runs most rollup triggers at COMMIT (migration 0036, so writers
    hold the shared rows only that long); a read of the rollups inside the writing
    transaction, or a delete whose cascade takes the rows they would write to, needs
    them run first. On the primary's connection (where they wait), and past the ORM,
    which would count the statement as a write."""
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.connection().exec_driver_sql("SET CONSTRAINTS ALL IMMEDIATE")


@contextlib.contextmanager
def unit_of_work() -> Iterator[None]:
    """Work outside a request as one unit, as the request wrappers run a request: commit
    when the block ends, roll back when it raises. A job's attempt, a worker's
    heartbeat, a scheduler's claim and a CLI command each run in one."""
    try:
        yield
    except BaseException:
        db.session.rollback()
        raise
    db.session.commit()


def discard_pending(why: str) -> None:
    """Throw away what the request has written so far, before it records why it refused
    (then :func:`commit_early` keeps that record alone)."""
    if not why:
        raise ValueError("discard_pending needs a reason")
    db.session.rollback()


def finish(response: Any) -> Any:
    """Commit when ``response`` reports success, roll back when it reports an error."""
    status = response.status_code if isinstance(response, Response) else 200
    if isinstance(response, tuple) and len(response) > 1 and isinstance(response[1], int):
        status = response[1]
    if status >= 400:
        db.session.rollback()
    else:
        db.session.commit()
    return response


def retryable(error: BaseException) -> bool:
    """Whether ``error`` is the database aborting a transaction that lost a race."""
    orig = getattr(error, "orig", None)
    return isinstance(error, DBAPIError) and getattr(orig, "sqlstate", None) in RETRYABLE_SQLSTATES


def transactional(view: Callable) -> Callable:
    """Run ``view`` as one unit of work: commit on success, roll back on any failure;
    run it again when the database aborted it as the loser of a deadlock."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        db.session.info.pop(_COMMITTED_EARLY, None)
        attempt = 1
        while True:
            try:
                return finish(view(*args, **kwargs))
            except BaseException as error:
                db.session.rollback()
                if not retryable(error) or db.session.info.get(_COMMITTED_EARLY):
                    raise
                if attempt == ATTEMPTS:
                    raise BusyError(
                        "Other changes to the same tasks kept conflicting with this one; "
                        "nothing was saved. Try again."
                    ) from error
                sqlstate = error.orig.sqlstate  # type: ignore[union-attr]
                log.warning("%s lost a race (%s), attempt %d", view.__name__, sqlstate, attempt)
                time.sleep(random.uniform(0.02, 0.1) * attempt)
                attempt += 1

    setattr(wrapper, TRANSACTIONAL_ATTR, True)
    return wrapper
