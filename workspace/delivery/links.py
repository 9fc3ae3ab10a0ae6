"""Links in what we send (mail, alerts): absolute, at ``BASE_URL``, and buildable
with ``url_for`` outside a request (a worker has none)."""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit

from flask import current_app, has_request_context


def base_url() -> str:
    return current_app.config["BASE_URL"].rstrip("/")


def absolute(href: str | None) -> str | None:
    """``href`` (a path) at ``BASE_URL``; None stays None."""
    return f"{base_url()}{href}" if href else None


def link_context() -> contextlib.AbstractContextManager:
    """A request context at BASE_URL's origin when there is none, so ``url_for``
    gives the pages' own paths (a path prefix of BASE_URL is added by
    :func:`absolute`)."""
    if has_request_context():
        return contextlib.nullcontext()
    parts = urlsplit(base_url())
    return current_app.test_request_context("/", base_url=f"{parts.scheme}://{parts.netloc}")
