"""``/healthz`` and ``/readyz``: public, never cached, exempt from CSRF and rate limits
(docs/jobs.md#health-and-the-system-page). Not in the OpenAPI document, which covers
the ``/api/`` operations only.

``/healthz`` is answered in front of Flask, from memory: no request hook runs for it,
so it touches neither the database nor the broker (the jobs package starts the
embedded worker, which writes a heartbeat, on the first request Flask answers).
``/readyz`` is a Flask route; a request hook that fails on its way in (the embedded
worker's start, with the database down) still gets the readiness answer, not a 500.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, current_app

from workspace.extensions import csrf, limiter
from workspace.system import health

log = logging.getLogger(__name__)

bp = Blueprint("health", __name__)
csrf.exempt(bp)

LIVENESS_PATH = "/healthz"
_LIVE_BODY = json.dumps({"status": "ok"}).encode()
_HEADERS = [
    ("Content-Type", "application/json"),
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
]


class Liveness:
    """WSGI middleware answering ``GET``/``HEAD /healthz`` with ``{"status": "ok"}``
    before any of the app's hooks, and passing everything else on."""

    def __init__(self, wsgi_app: Callable[..., Iterable[bytes]]) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == LIVENESS_PATH and environ.get("REQUEST_METHOD") in (
            "GET",
            "HEAD",
        ):
            start_response("200 OK", [*_HEADERS, ("Content-Length", str(len(_LIVE_BODY)))])
            return [] if environ["REQUEST_METHOD"] == "HEAD" else [_LIVE_BODY]
        return self.wsgi_app(environ, start_response)


def serve_liveness(app: Flask) -> None:
    app.wsgi_app = Liveness(app.wsgi_app)  # type: ignore[method-assign]


@bp.get("/readyz")
@limiter.exempt
def readyz():
    """200 when the database, the broker, a live worker and the migrations are all
    ready; 503 naming what is not, and why."""
    return _readiness()


@bp.errorhandler(Exception)
def _hook_failed(error: Exception):
    """A request hook failed before the view ran: answer what is not ready."""
    if isinstance(getattr(error, "code", None), int) and hasattr(error, "get_response"):
        return error  # the router's own 404/405
    log.warning("a request hook failed on /readyz: %s", health.safe_reason(error))
    return _readiness()


def _readiness():
    ok, checks = health.readiness(current_app._get_current_object())  # type: ignore[attr-defined]
    body = {
        "status": "ok" if ok else "fail",
        "failed": [name for name in health.CHECKS if not checks[name]["ok"]],
        "checks": checks,
    }
    return body, 200 if ok else 503, {"Cache-Control": "no-store"}
