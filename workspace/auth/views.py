"""Local sign-in and sign-out pages, and a member's personal access tokens. SSO and
LDAP add their own forms to the sign-in page from their packages
(``identity/_signin_*.html``)."""

from __future__ import annotations

import uuid

from flask import (
    Blueprint,
    Flask,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from workspace.auth import api_tokens, enforced_sso, invites, linking, signin_limits
from workspace.auth import models as _models  # noqa: F401  (maps the auth tables)
from workspace.auth.guards import page, safe_next
from workspace.auth.passwords import MIN_LENGTH, check_password
from workspace.auth.schemas import (
    InviteAccept,
    LinkConfirm,
    NextQuery,
    PasswordSignIn,
    TokenCreate,
)
from workspace.auth.sessions import (
    current_account,
    current_session,
    end_session,
    sign_out_redirect,
)
from workspace.auth.signin import LINK_COOKIE, SignInRefused, finish, refuse
from workspace.core.accounts import canonical_email, find_account
from workspace.core.orgs import find_org, orgs_for_account
from workspace.errors import NotFoundError, ServiceError
from workspace.extensions import limiter
from workspace.inputs import field_errors, parse_form, parse_query
from workspace.security import shown_once
from workspace.security.permissions import Access
from workspace.transaction import transactional

bp = Blueprint("auth", __name__)


_TOO_MANY = "Too many failed sign-in attempts. Wait a few minutes, then try again."


def _signin_name_key() -> str:
    """Failed password sign-ins are counted per (email, address): the email in its
    canonical form, so ``Owner@acme.test.`` and its full-width spelling share a budget."""
    raw = parse_form(PasswordSignIn).email
    try:
        name = canonical_email(raw)
    except ServiceError:
        name = raw
    return signin_limits.name_and_address_key("password", name)


@bp.route("/signin", methods=["GET", "POST"])
@limiter.limit(
    signin_limits.FAILED_PER_ADDRESS,
    methods=["POST"],
    deduct_when=signin_limits.failed,
    error_message=_TOO_MANY,
)
@limiter.limit(
    signin_limits.FAILED_PER_NAME_AND_ADDRESS,
    methods=["POST"],
    key_func=_signin_name_key,
    deduct_when=signin_limits.failed,
    error_message=_TOO_MANY,
)
@transactional
def signin():
    """Email and password sign-in, to every org of the account at once."""
    if request.method == "GET":
        next_url = safe_next(parse_query(NextQuery).next)
        if current_account() is not None:
            return redirect(next_url)
        return render_template("auth/signin.html", next=next_url, email="")
    form = parse_form(PasswordSignIn)
    next_url = safe_next(form.next)
    account = find_account(form.email) if form.email else None
    # check_password runs even for unknown emails so timing does not reveal accounts.
    if not check_password(account, form.password) or account.is_agent:
        refused = SignInRefused(
            "That email and password do not match an account.", reason="bad_password", status=401
        )
        return refuse(
            refused,
            lambda exc: render_template(
                "auth/signin.html", next=next_url, email=form.email, error=exc.message
            ),
        )
    try:
        break_glass = enforced_sso.check_password_sign_in(account)
    except SignInRefused as exc:
        return refuse(
            exc,
            lambda exc: render_template(
                "auth/signin.html",
                next=next_url,
                email=form.email,
                error=exc.message,
                sso_url=exc.sso_url,
            ),
        )
    details = {}
    if break_glass is not None:
        enforced_sso.record_break_glass(break_glass, account)
        details["break_glass"] = True
    orgs = orgs_for_account(account.id)
    return redirect(finish(account, orgs, method="password", next_path=next_url, **details))


@bp.post("/signout")
@transactional
def signout():
    ended = end_session()
    flash("You are signed out.", "info")
    # An SSO session may end at the IdP too (docs/sso.md#sign-out).
    return redirect(sign_out_redirect(ended) or url_for("auth.signin"))


def _tokens_page(
    access: Access,
    *,
    new_token: str | None = None,
    errors: dict[str, str] | None = None,
    form=None,
    status: int = 200,
):
    return render_template(
        "auth/tokens.html",
        nav_active="tokens",
        new_token=new_token,
        errors=errors or {},
        form=form or {},
        token_list=api_tokens.list_tokens(access.account.id, access.org.id),
    ), status


def _token_refused(access: Access, error: ServiceError):
    # The name as typed comes back in its box beside the message.
    return _tokens_page(access, errors=field_errors(error), form=request.form, status=error.status)


@bp.get("/o/<org>/tokens")
@page(action="org.read")
def tokens(access: Access):
    """Personal access tokens for the JSON API; a new one is shown once."""
    shown = shown_once.take("api_token")
    return _tokens_page(access, new_token=shown and shown.value)


@bp.post("/o/<org>/tokens", endpoint="create_token")
@page(action="org.read", form=TokenCreate, invalid=_token_refused)
def create_token(access: Access, form: TokenCreate):
    _, raw = api_tokens.create_token(access.account, access.org, form.name)
    # Shown by the page this redirects to, so a reload there makes no second token.
    shown_once.keep("api_token", raw)
    return redirect(url_for("auth.tokens", org=access.org.slug, _anchor="new-token-box"), 303)


@bp.post("/o/<org>/tokens/<uuid:token_id>/revoke")
@page(action="org.read")
def revoke_token(org: str, token_id: uuid.UUID, access: Access):
    if not api_tokens.revoke_token(access.account.id, access.org.id, token_id):
        raise NotFoundError("No such token.")
    flash("Token revoked. Anything using it stops working now.", "success")
    return redirect(url_for("auth.tokens", org=org))


# -- account linking (docs/security.md#identity-trust-and-account-linking) --------------

_LINK_PATH = "/signin/link"


def _link_page(pending, *, error: str | None = None, status: int = 200):
    if pending is None:
        return render_template("auth/link_account.html", pending=None, error=error), (
            status if status != 200 else 400
        )
    org = find_org(pending.org_id)
    return render_template(
        "auth/link_account.html",
        pending=pending,
        org=org,
        source=linking.source_name(pending.source),
        account=pending.account,
        reauthenticated=linking.reauthenticated(pending, current_session()),
        error=error,
    ), status


@bp.route(_LINK_PATH, methods=["GET", "POST"])
@limiter.limit("10 per minute; 100 per hour", methods=["POST"])
@transactional
def link_account():
    """Link an existing account to an org's SSO or directory: the holder proves the
    account with its own credential (its password, or a sign-in with their usual
    method after this link was requested: an older open session is one click, which
    a hostile IdP could lure them into), sees which org and source, and confirms."""
    pending = linking.pending_for(request.cookies.get(LINK_COOKIE))
    if request.method == "GET" or pending is None:
        return _link_page(pending)
    form = parse_form(LinkConfirm)
    if form.action == "cancel":
        linking.cancel(pending)
        response = redirect(url_for("auth.signin"))
    else:
        try:
            linking.check_proof(pending, current_session(), form.password)
            org = linking.confirm(pending)
        except SignInRefused as exc:
            # A wrong proof shows the form again; a refused membership, no form.
            shown = pending if exc.reason == "bad_password" else None
            return refuse(exc, lambda exc: _link_page(shown, error=exc.message))
        target = finish(
            pending.account, [org], method=pending.source, next_path=pending.next_path, linked=True
        )
        response = redirect(target)
    response.delete_cookie(LINK_COOKIE, path=_LINK_PATH)
    return response


# -- invitations (docs/admin.md#invitations) ----------------------------------------------


def _invite_page(
    link, token: str, *, error: str | None = None, sso_url: str | None = None, status: int = 200
):
    if sso_url is not None:
        # Enforced SSO: the link is not for this person any more; say where to go.
        response = render_template("auth/invite_unusable.html", message=error, sso_url=sso_url)
    elif link is None:
        response = render_template("auth/invite_unusable.html", message=invites.UNUSABLE)
        status = 410
    else:
        org = find_org(link.org_id)
        signed_in = current_account()
        response = render_template(
            "auth/invite.html",
            org=org,
            account=link.account,
            join=link.join,
            signed_in_as_holder=signed_in is not None and signed_in.id == link.account.id,
            token=token,
            expires_at=link.expires_at,
            min_length=MIN_LENGTH,
            error=error,
        )
    # The token is in the URL: no Referer carries it to another site.
    return response, status, {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@bp.route("/invite/<token>", methods=["GET", "POST"])
@limiter.limit(
    "20 per minute; 100 per hour",
    deduct_when=signin_limits.failed,
    error_message="Too many attempts with invitation links. Wait a few minutes, then try again.",
)
@transactional
def invite(token: str):
    """An invitation's one-time link: "Join <org> as <email>"; signing in (and
    choosing a password, when the account has none) happens on POST, once. A join
    link is confirmed by the account's holder, signed in to it. Unknown, used and
    expired links all answer the same 410 page."""
    if request.method == "GET":
        usable = invites.usable_link(token)
        refused = invites.enforced_refusal(usable)
        if refused is not None:
            return _invite_page(
                usable, token, error=refused.message, sso_url=refused.sso_url, status=403
            )
        return _invite_page(usable, token)
    try:
        password = parse_form(InviteAccept).password
        org, account = invites.use_link(token, password, signed_in=current_account())
    except SignInRefused as exc:
        # A link that cannot be used is no longer usable here either: the 410 page.
        return refuse(
            exc,
            lambda exc: _invite_page(
                invites.usable_link(token), token, error=exc.message, sso_url=exc.sso_url
            ),
        )
    if account is not None:
        finish(account, [org], method="invite", next_path=None)
    flash(f"Welcome to {org.name}.", "success")
    return redirect(url_for("core_pages.org_home", org=org.slug))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
