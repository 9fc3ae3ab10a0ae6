"""The SCIM settings page: the org's SCIM base URL, the token's status, generate and
revoke. A new token is rendered in the response to the POST that made it and
nowhere else. HTMX swaps the token panel; without JavaScript the forms post and
the whole page comes back."""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, url_for

from workspace.auth.guards import login_required, page_access
from workspace.extensions import htmx
from workspace.scim import tokens

bp = Blueprint("scim_pages", __name__)

_PAGE = {"nav_active": "settings", "settings_active": "scim_pages.settings"}


def _render(access, new_token: str | None = None, status: int = 200):
    context = {
        "info": tokens.token_info(access.org.id),
        "new_token": new_token,
        "base_url": f"{current_app.config['BASE_URL']}/scim/v2/orgs/{access.org.id}",
    }
    if htmx:
        return render_template("scim/_token_panel.html", **context), status
    return render_template("scim/settings.html", **_PAGE, **context), status


@bp.get("/o/<org>/settings/scim", endpoint="settings")
@login_required
def settings_page(org: str):
    """Where an admin finds what to paste into the IdP's provisioning settings."""
    return _render(page_access(org, "org.manage_settings"))


@bp.post("/o/<org>/settings/scim/token")
@login_required
def generate_token(org: str):
    """A new token, shown in this response only; the old one stops working."""
    access = page_access(org, "org.manage_settings")
    _, raw = tokens.generate_token(access.org.id, access.account.id)
    return _render(access, new_token=raw)


@bp.post("/o/<org>/settings/scim/token/revoke")
@login_required
def revoke_token(org: str):
    """Cut the IdP off now."""
    access = page_access(org, "org.manage_settings")
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
