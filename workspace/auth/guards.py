"""The page gate: sign-in required, the org loaded and the declared action checked,
one transaction per request.

    @bp.post("/o/<org>/projects/<uuid:project_id>/settings/states")
    @page(action="project.manage_workflow", form=StateCreate, invalid=settings_form("new-state"))
    def add_state(project, form, access):
        state = workflow.create_state(project, form.name, ..., actor_id=access.account.id)
        return done(project, f"State '{state.name}' added.", "states")

The JSON API's twin is :func:`workspace.api.operations.operation`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import g, redirect, render_template, request, url_for
from jinja2_fragments.flask import render_block
from pydantic import BaseModel

from workspace import replica
from workspace.auth.sessions import breaks_org_policy, current_account, current_session, end_session
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import htmx
from workspace.inputs import field_errors, parse_form, with_checkboxes
from workspace.routes import call_with
from workspace.security.permissions import ACTIONS, authorize_route, org_access
from workspace.transaction import discard_pending, transactional

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


def page(
    action: str | None = None,
    *,
    form: type[BaseModel] | None = None,
    invalid: Callable[..., Any] | None = None,
    checkboxes: tuple[str, ...] = (),
    block: str | None = None,
) -> Callable:
    """Declare an HTML route: signed in, and for ``/o/<org>/`` routes the ``action``
    this page performs (anonymous → sign-in, not a member → 404, not allowed → 403).

    The view names what it needs and gets only that: the URL's arguments, ``access``,
    the ``project`` and ``task`` the URL names (loaded once by the gate), and ``form``,
    the request parsed with the input model ``form`` (the query string of a GET, the
    form body otherwise; a blank box counts as not given). When parsing or the view
    raises a :class:`ServiceError`, ``invalid`` answers instead, named the same way
    plus ``error``: it renders the form again with the errors beside their fields and
    the error's 4xx status, after what the request wrote so far is discarded.
    ``checkboxes`` names the form's boxes: a browser sends nothing for an unticked
    one, read here as false.
    ``block`` names the block of the page template an HTMX request is answered with
    (:func:`render`), so a partial needs no file of its own."""

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        @transactional
        def wrapper(**url_args: Any) -> Any:
            account = current_account()
            if account is None:
                return signin_redirect()
            g.page_block = block
            given: dict[str, Any] = dict(url_args)
            if ORG_ARG in url_args:
                if action is None:
                    raise RuntimeError(f"{view.__name__}: an org page must declare an action")
                access = org_access(url_args[ORG_ARG], account)
                if breaks_org_policy(current_session(), access.org):
                    end_session()
                    return signin_redirect()
                g.access = access  # the nav and error page show the org even on a 403
                access = authorize_route(access, action, url_args)
                g.access = access
                given.update(access=access, project=access.project, task=access.task)
                if ACTIONS[action].replica and request.method in ("GET", "HEAD"):
                    replica.read_from_replica()
            try:
                if form is not None:
                    # A GET form's boxes arrive in the query string, blank ones too:
                    # on a page, as in a posted form, blank means not given.
                    sent = request.args if request.method == "GET" else request.form
                    given["form"] = parse_form(form, with_checkboxes(sent, *checkboxes))
                return replica.reads_again_on_primary(lambda: call_with(view, given))
            except ServiceError as exc:
                if invalid is None:
                    raise
                discard_pending("the form is shown again with its errors")
                return call_with(invalid, {**given, "error": exc})

        wrapper.permission_action = action  # type: ignore[attr-defined]
        return wrapper

    return decorate


def render(
    template: str, *, status: int = 200, block: str | None = None, **context: Any
) -> tuple[str, int]:
    """The page ``template``; for an HTMX request to a route that declared a
    ``block`` (or given another ``block``, for an answer that retargets), only that
    block of it, rendered with the same context."""
    block = block or g.get("page_block")
    if block and htmx:
        return render_block(template, block, **context), status
    return render_template(template, **context), status


def form_again(
    render_page: Callable[..., Any], key: str, *, url_ids: bool = False
) -> Callable[..., Any]:
    """The ``invalid`` answer of a page with several forms: ``render_page`` (called
    like a view, plus ``errors``, ``values`` and ``status``) with the error beside the
    form ``key`` names and what was typed kept; ``"state-{state_id}"`` takes the id
    from the URL. With ``url_ids`` a 404 stays the error page: an id in the URL that
    names nothing is not a mistake in the form."""

    def invalid(error: ServiceError, **given: Any) -> Any:
        if url_ids and isinstance(error, NotFoundError):
            raise error
        name = key.format(**given)
        values = {name: request.form} if request.method != "GET" else None
        errors = {name: field_errors(error)}
        return call_with(
            render_page, {**given, "errors": errors, "values": values, "status": error.status}
        )

    return invalid
