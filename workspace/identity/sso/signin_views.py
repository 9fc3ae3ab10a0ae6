"""Public SSO sign-in routes (docs/api.md): ``/auth/sso/start`` and ``/auth/sso/callback``.

Start answers JSON ``{authorization_url}`` to API clients and a 302 to it for a
browser that asks for HTML. Both set or read the browser-binding cookie that ties the
state to this browser.
"""

from __future__ import annotations

import uuid

from flask import (
    Blueprint,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
)

from workspace.api.problems import service_problem
from workspace.auth.guards import safe_next
from workspace.auth.sessions import current_session
from workspace.auth.signin import SignInRefused, finish, refuse
from workspace.errors import ServiceError
from workspace.extensions import csrf, limiter
from workspace.identity.sso import logout, signin, state
from workspace.identity.sso.signin_schemas import (
    BackchannelLogoutForm,
    SsoCallbackQuery,
    SsoStartQuery,
)
from workspace.inputs import parse_form, parse_query
from workspace.transaction import discard_pending, transactional

bp = Blueprint("sso_auth", __name__, url_prefix="/auth/sso")

_RATE = "20 per minute; 200 per hour"


def _wants_html() -> bool:
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html"


def _rejected_page(exc: SignInRefused) -> str:
    return render_template("identity/sso_rejected.html", message=exc.message, status=exc.status)


@bp.get("/start")
@limiter.limit(_RATE)
@transactional
def start():
    """Find the org's enabled SSO for the email or domain and send the browser there."""
    html = _wants_html()
    query = parse_query(SsoStartQuery)
    binding = request.cookies.get(state.BINDING_COOKIE) or state.new_binding()
    next_path = safe_next(query.next, default="") or None
    try:
        url = signin.start(query.domain or query.email, binding=binding, next_path=next_path)
    except SignInRefused as exc:
        return refuse(exc, _rejected_page if html else service_problem)
    response = redirect(url, code=302) if html else jsonify({"authorization_url": url})
    response.set_cookie(
        state.BINDING_COOKIE,
        binding,
        max_age=int(state.LIFETIME.total_seconds()),
        path=bp.url_prefix,
        httponly=True,
        samesite="Lax",
        secure=current_app.config.get("SESSION_COOKIE_SECURE", False),
    )
    return response


@bp.get("/callback")
@limiter.limit(_RATE)
@transactional
def callback():
    """Where the IdP sends the browser back: finish the sign-in or say why not."""
    query = parse_query(SsoCallbackQuery)
    try:
        result = signin.callback(
            state_value=query.state,
            binding=request.cookies.get(state.BINDING_COOKIE),
            code=query.code,
            error=query.error,
        )
    except SignInRefused as exc:
        return refuse(exc, _rejected_page)
    sync = result.sync
    target = finish(
        result.account,
        [result.org],
        method="sso",
        next_path=result.next_path,
        account_created=result.created,
        synced_adds=len(sync.adds) if sync else 0,
        synced_changes=len(sync.changes) if sync else 0,
        synced_removes=len(sync.removes) if sync else 0,
    )
    logout.remember(current_session(), result.org.id, result.idp)
    response = redirect(target)
    response.delete_cookie(state.BINDING_COOKIE, path=bp.url_prefix)
    return response


@bp.post("/backchannel-logout/<uuid:org_id>")
@csrf.exempt
@limiter.limit("60 per minute")
@transactional
def backchannel_logout(org_id: uuid.UUID):
    """OIDC Back-Channel Logout 1.0 §2.5: the provider POSTs a ``logout_token``; the
    sessions it names end. 200 when accepted, 400 with the reason when refused
    (§2.8); never cached."""
    no_store = {"Cache-Control": "no-store"}
    try:
        form = parse_form(BackchannelLogoutForm)
        logout.backchannel_logout(org_id, form.logout_token)
    except (logout.LogoutRefused, ServiceError) as exc:
        discard_pending("a refused logout token changes nothing")
        reason = exc.message if isinstance(exc, ServiceError) else str(exc)
        body = {"error": "invalid_request", "error_description": reason}
        return jsonify(body), 400, no_store
    return "", 200, no_store
