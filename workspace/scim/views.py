"""The SCIM settings page: the org's SCIM base URL, the token's status, generate and
revoke; the OAuth client (docs/scim.md#client-credentials): create it, add and revoke
secrets, the token endpoint URL. A new token or secret is rendered in the response to
the POST that made it and nowhere else. HTMX swaps the token or OAuth panel; without
JavaScript the forms post and the whole page comes back."""

from __future__ import annotations

import uuid

from flask import Blueprint, current_app, flash, redirect, url_for

from workspace.auth.guards import page, render
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.inputs import first_error
from workspace.scim import oauth, tokens
from workspace.security import shown_once
from workspace.security.permissions import Access

bp = Blueprint("scim_pages", __name__)

_ACTION = "org.manage_settings"
_PAGE = {"nav_active": "settings", "settings_active": "scim_pages.settings"}


def _render(
    access: Access,
    new_token: str | None = None,
    new_secret: str | None = None,
    oauth_error: str | None = None,
    status: int = 200,
):
    """The page, or for HTMX its token or OAuth panel (the route's declared block)."""
    base_url = f"{current_app.config['BASE_URL']}/scim/v2/orgs/{access.org.id}"
    return render(
        "scim/settings.html",
        status=status,
        **_PAGE,
        info=tokens.token_info(access.org.id),
        new_token=new_token,
        base_url=base_url,
        token_url=f"{base_url}/oauth/token",
        client=oauth.client_info(access.org.id),
        new_secret=new_secret,
        oauth_error=oauth_error,
        max_secret_days=oauth.MAX_SECRET_DAYS,
    )


@bp.get("/o/<org>/settings/scim", endpoint="settings")
@page(action=_ACTION)
def settings_page(org: str, access: Access):
    """Where an admin finds what to paste into the IdP's provisioning settings."""
    token, secret = shown_once.take("scim_token"), shown_once.take("scim_secret")
    return _render(access, new_token=token and token.value, new_secret=secret and secret.value)


#: A value shown once: its name in the page's context, and the box that shows it.
_SHOWN = {
    "scim_token": ("new_token", "scim-new-token-box"),
    "scim_secret": ("new_secret", "scim-new-secret-box"),
}


def _show_once(access: Access, kind: str, raw: str):
    """HTMX swaps the panel in place; a plain post is redirected to the page, which
    shows the value, so a reload there does not replace it with another."""
    name, box = _SHOWN[kind]
    if htmx:
        return _render(access, **{name: raw})
    shown_once.keep(kind, raw)
    return redirect(url_for("scim_pages.settings", org=access.org.slug, _anchor=box), 303)


@bp.post("/o/<org>/settings/scim/token")
@page(action=_ACTION, block="token_panel")
def generate_token(org: str, access: Access):
    """A new token, shown in this response only; the old one stops working."""
    _, raw = tokens.generate_token(access.org.id, access.account.id)
    return _show_once(access, "scim_token", raw)


@bp.post("/o/<org>/settings/scim/token/revoke")
@page(action=_ACTION, block="token_panel")
def revoke_token(org: str, access: Access):
    """Cut the IdP off now."""
    revoked = tokens.revoke_token(access.org.id, access.account.id)
    if htmx:
        return _render(access)
    flash(
        "SCIM token revoked: the identity provider can no longer provision users."
        if revoked
        else "There was no SCIM token to revoke.",
        "success",
    )
    return redirect(url_for("scim_pages.settings", org=org))


# -- OAuth client (docs/scim.md#client-credentials) -----------------------------------


def _oauth_refused(access: Access, error: ServiceError, **_: object):
    """The OAuth panel again, with what to fix: a field's own words ("Enter 730 or
    less."), not the form's "Some fields need your attention" with no field shown."""
    return _render(access, oauth_error=first_error(error), status=error.status)


@bp.post("/o/<org>/settings/scim/oauth")
@page(action=_ACTION, block="oauth_panel", invalid=_oauth_refused)
def create_client(org: str, access: Access):
    """The org's client id; secrets are added next."""
    oauth.create_client(access.org.id, access.account.id)
    return _render(access)


@bp.post("/o/<org>/settings/scim/oauth/secrets")
@page(action=_ACTION, form=oauth.SecretIn, block="oauth_panel", invalid=_oauth_refused)
def add_secret(org: str, access: Access, form: oauth.SecretIn):
    """A new secret, shown in this response only."""
    _, raw = oauth.add_secret(access.org.id, access.account.id, form)
    return _show_once(access, "scim_secret", raw)


@bp.post("/o/<org>/settings/scim/oauth/secrets/<uuid:secret_id>/revoke")
@page(action=_ACTION, block="oauth_panel", invalid=_oauth_refused)
def revoke_secret(org: str, secret_id: uuid.UUID, access: Access):
    """The secret and the access tokens it got stop working now."""
    oauth.revoke_secret(access.org.id, secret_id, access.account.id)
    return _render(access)


@bp.post("/o/<org>/settings/scim/oauth/delete")
@page(action=_ACTION, block="oauth_panel", invalid=_oauth_refused)
def delete_client(org: str, access: Access):
    """Remove the client, its secrets and its tokens."""
    oauth.delete_client(access.org.id, access.account.id)
    return _render(access)
