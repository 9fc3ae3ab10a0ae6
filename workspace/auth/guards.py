"""Page guards: sign-in required, then the org loaded through the permission layer."""

from __future__ import annotations

import functools
from collections.abc import Callable
from urllib.parse import urlsplit

from flask import g, redirect, request, url_for

from workspace.auth.sessions import current_account
from workspace.security.permissions import Access, org_access, require


def safe_next(target: str | None, default: str = "/") -> str:
    """Only same-origin relative paths; anything else goes to ``default``."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target:
        return default
    return target


def login_required(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        if current_account() is None:
            return redirect(url_for("auth.signin", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return wrapper


def page_access(org_ref: str, action: str = "org.read") -> Access:
    """The signed-in member's access to the org in the URL, kept for the templates."""
    access = org_access(org_ref, current_account())
    g.access = access
    require(access, action)
    return access
