"""Who commits: the request, once.

Service functions add and flush; they never commit. The request wrappers
(:func:`workspace.api.operations.operation`, :func:`workspace.auth.guards.page` and
:func:`transactional` for the few routes outside an org) commit once when the view
returns a success and roll back when it raises or answers an error. A half-finished
request therefore keeps nothing.

The rare write that must outlive a failing request (an audit row recording a refusal,
a one-time SSO state consumed before the IdP is called, a token's "last used" touch on
a read) goes through :func:`commit_early`, which names why.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import Response

from workspace.extensions import db

#: Marks a view whose transaction the request wrapper owns (the route walk checks it).
TRANSACTIONAL_ATTR = "owns_transaction"


def commit_early(why: str) -> None:
    """Commit what is pending now, before the request's own end.

    ``why`` is required so every early commit says, at the call site, what must survive
    a rollback that may follow.
    """
    if not why:
        raise ValueError("commit_early needs a reason")
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


def transactional(view: Callable) -> Callable:
    """Run ``view`` as one unit of work: commit on success, roll back on any failure."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            response = view(*args, **kwargs)
        except BaseException:
            db.session.rollback()
            raise
        return finish(response)

    setattr(wrapper, TRANSACTIONAL_ATTR, True)
    return wrapper
