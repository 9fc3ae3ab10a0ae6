"""The page gate: sign-in required, the org loaded and the declared action checked,
one transaction per request.

    @bp.post("/o/<org>/projects/<uuid:project_id>/settings")
    @page(action="project.edit")
    def project_settings(org, project_id, access): ...

The JSON API's twin is :func:`workspace.api.operations.operation`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import g, redirect, request, url_for

from workspace.auth.sessions import current_account
from workspace.security.permissions import authorize_route, org_access
from workspace.transaction import transactional

#: The URL argument that names the org on every HTML org route.
ORG_ARG = "org"


def safe_next(target: str | None, default: str = "/") -> str:
    """Only same-origin relative paths; anything else goes to ``default``."""
    if not target:
        return default
    if not target.isprintable():
        # CR/LF and other controls never belong in a path, and in a Location header
        # they would fail the response (a 500) or split it.
        return default
    try:
        parts = urlsplit(target)
    except ValueError:  # "//[" and the like: not a URL at all
        return default
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target:
        return default
    return target


def signin_redirect():
    """Send an anonymous visitor to sign in, and back here afterwards."""
    return redirect(url_for("auth.signin", next=request.full_path.rstrip("?")))


def page(action: str | None = None) -> Callable:
    """Declare an HTML route: signed in, and for ``/o/<org>/`` routes the ``action``
    this page performs (anonymous → sign-in, not a member → 404, not allowed → 403).
    The view receives ``access`` when it names that parameter."""

    def decorate(view: Callable) -> Callable:
        wants_access = "access" in inspect.signature(view).parameters

        @functools.wraps(view)
        @transactional
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            account = current_account()
            if account is None:
                return signin_redirect()
            if ORG_ARG in kwargs:
                if action is None:
                    raise RuntimeError(f"{view.__name__}: an org page must declare an action")
                access = org_access(kwargs[ORG_ARG], account)
                g.access = access  # the nav and error page show the org even on a 403
                access = authorize_route(access, action, kwargs)
                g.access = access
                if wants_access:
                    kwargs["access"] = access
            return view(*args, **kwargs)

        wrapper.permission_action = action  # type: ignore[attr-defined]
        return wrapper

    return decorate
