"""The SCIM settings page: the org's SCIM base URL, the token's status, generate and
revoke. A new token is rendered in the response to the POST that made it and
nowhere else. HTMX swaps the token panel; without JavaScript the forms post and
the whole page comes back."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, url_for

from workspace.auth.guards import page, render
from workspace.extensions import htmx
from workspace.scim import tokens
from workspace.security.permissions import Access

bp = Blueprint("scim_pages", __name__)

_ACTION = "org.manage_settings"
_PAGE = {"nav_active": "settings", "settings_active": "scim_pages.settings"}


def _render(access: Access, new_token: str | None = None):
    """The page, or for HTMX its token panel (the route's declared block)."""
    return render(
        "scim/settings.html",
        **_PAGE,
        info=tokens.token_info(access.org.id),
        new_token=new_token,
        base_url=f"{current_app.config['BASE_URL']}/scim/v2/orgs/{access.org.id}",
    )


@bp.get("/o/<org>/settings/scim", endpoint="settings")
@page(action=_ACTION)
def settings_page(org: str, access: Access):
    """Where an admin finds what to paste into the IdP's provisioning settings."""
    return _render(access)


@bp.post("/o/<org>/settings/scim/token")
@page(action=_ACTION, block="token_panel")
def generate_token(org: str, access: Access):
    """A new token, shown in this response only; the old one stops working."""
    _, raw = tokens.generate_token(access.org.id, access.account.id)
    return _render(access, new_token=raw)


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
