"""The LDAP settings page (owner/admin): the form, the test button and its result.

Forms post back to the same address and work without JavaScript; with HTMX the test
button swaps in just its result (``identity/ldap_test_result.html``).
"""

from __future__ import annotations

from flask import Blueprint, flash, g, redirect, render_template, request, url_for

from workspace.auth.guards import login_required, page_access
from workspace.errors import ServiceError
from workspace.extensions import db, htmx
from workspace.identity.domains.models import verified_domain_names
from workspace.identity.ldap import service
from workspace.identity.ldap.models import (
    DEFAULT_EMAIL_ATTRIBUTE,
    DEFAULT_FAMILY_NAME_ATTRIBUTE,
    DEFAULT_GIVEN_NAME_ATTRIBUTE,
    LdapConnection,
    connection_for,
)

bp = Blueprint("ldap_pages", __name__)

_TEXT_FIELDS = (
    "server_uri",
    "bind_dn",
    "search_base",
    "search_filter",
    "email_attribute",
    "given_name_attribute",
    "family_name_attribute",
    "ca_cert",
)


def _form_from_row(row: LdapConnection | None) -> dict[str, str | bool]:
    if row is None:
        return {
            "server_uri": "",
            "bind_dn": "",
            "search_base": "",
            "search_filter": "(&(objectClass=user)(sAMAccountName={username}))",
            "email_attribute": DEFAULT_EMAIL_ATTRIBUTE,
            "given_name_attribute": DEFAULT_GIVEN_NAME_ATTRIBUTE,
            "family_name_attribute": DEFAULT_FAMILY_NAME_ATTRIBUTE,
            "use_tls": True,
            "ca_cert": "",
        }
    form: dict[str, str | bool] = {name: getattr(row, name) or "" for name in _TEXT_FIELDS}
    form["use_tls"] = row.use_tls
    return form


def _form_from_request() -> dict[str, str | bool]:
    form: dict[str, str | bool] = {
        name: request.form.get(name, "")[:100_000] for name in _TEXT_FIELDS
    }
    form["use_tls"] = request.form.get("use_tls") in ("1", "on", "true")
    return form


def _input(form: dict[str, str | bool]) -> service.ConnectionInput:
    return service.ConnectionInput(
        **{name: str(form[name]) for name in _TEXT_FIELDS},
        use_tls=bool(form["use_tls"]),
        # Never echoed back into the page: only read from the request.
        bind_password=request.form.get("bind_password") or None,
    )


def _render(
    org: str, row: LdapConnection | None, form, *, errors=None, result=None, status: int = 200
):
    return render_template(
        "identity/ldap.html",
        nav_active="settings",
        settings_active="ldap_pages.settings",
        org_slug=org,
        connection=row,
        verified_domains=sorted(verified_domain_names(g.access.org.id)),
        form=form,
        errors=errors or {},
        result=result,
    ), status


@bp.route("/o/<org>/settings/ldap", methods=["GET", "POST"], endpoint="settings")
@login_required
def settings(org: str):
    """Show the directory settings; POST saves them (blank password keeps the old)."""
    access = page_access(org, "org.manage_settings")
    row = connection_for(access.org.id)
    if request.method == "GET":
        return _render(org, row, _form_from_row(row))
    form = _form_from_request()
    try:
        service.save_connection(access.org.id, _input(form), actor_id=access.account.id)
        db.session.commit()
    except ServiceError as exc:
        db.session.rollback()
        return _render(
            org,
            connection_for(access.org.id),
            form,
            errors={exc.field or "form": exc.message},
            status=400,
        )
    flash("LDAP settings saved. Run the connection test to check them.", "success")
    return redirect(url_for("ldap_pages.settings", org=org))


@bp.post("/o/<org>/settings/ldap/test", endpoint="test")
@login_required
def test(org: str):
    """Test the settings in the form (unsaved edits included) against the directory."""
    access = page_access(org, "org.manage_settings")
    row = connection_for(access.org.id)
    form = _form_from_request()
    errors = {}
    try:
        result = service.test_connection(access.org.id, _input(form))
    except ServiceError as exc:
        errors = {exc.field or "form": exc.message}
        result = service.TestResult(False, exc.message, reason="invalid_input")
    if htmx:
        return render_template("identity/ldap_test_result.html", result=result)
    return _render(org, row, form, errors=errors, result=result)


@bp.post("/o/<org>/settings/ldap/delete", endpoint="delete")
@login_required
def delete(org: str):
    """Remove the connection: directory sign-in stops for this org."""
    access = page_access(org, "org.manage_settings")
    try:
        service.delete_connection(access.org.id, actor_id=access.account.id)
        db.session.commit()
        flash("LDAP connection removed. Directory sign-in is off.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for("ldap_pages.settings", org=org))
