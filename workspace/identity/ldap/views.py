"""The LDAP settings page (owner/admin): the form (group-sync settings included), the
test button and its result. The directory preview is on the Group sync page
(``workspace.identity.group_sync_pages``).

Forms post back to the same address and work without JavaScript; with HTMX the test
button swaps in just its result (``identity/ldap_test_result.html``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.core.models.domains import verified_domain_names
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.ldap import groups, service
from workspace.identity.ldap.models import (
    DEFAULT_EMAIL_ATTRIBUTE,
    DEFAULT_FAMILY_NAME_ATTRIBUTE,
    DEFAULT_GIVEN_NAME_ATTRIBUTE,
    LdapConnection,
    connection_for,
)
from workspace.identity.ldap.schemas import LdapConnectionIn
from workspace.inputs import field_errors, parse_form, with_checkboxes
from workspace.security.permissions import Access

bp = Blueprint("ldap_pages", __name__)

_ACTION = "org.manage_settings"
_TEXT_FIELDS = (
    "server_uri",
    "bind_dn",
    "search_base",
    "search_filter",
    "email_attribute",
    "given_name_attribute",
    "family_name_attribute",
    "ca_cert",
    "group_search_base",
    "group_membership",
)
_CHECKBOXES = ("use_tls", "sync_groups_on_login", "remove_stale_synced_memberships")


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
            "sync_groups_on_login": False,
            "remove_stale_synced_memberships": False,
            "group_search_base": "",
            "group_membership": "auto",
        }
    form: dict[str, str | bool] = {name: getattr(row, name) or "" for name in _TEXT_FIELDS}
    for name in _CHECKBOXES:
        form[name] = getattr(row, name)
    return form


def _form_as_typed() -> dict[str, str | bool]:
    """What the admin typed, to show again beside the messages (never the password)."""
    form: dict[str, str | bool] = {name: request.form.get(name, "") for name in _TEXT_FIELDS}
    for name in _CHECKBOXES:
        form[name] = request.form.get(name) in ("1", "on", "true")
    return form


def _posted() -> LdapConnectionIn:
    """The posted form through the API's input model (raises InputError)."""
    return parse_form(LdapConnectionIn, with_checkboxes(request.form, *_CHECKBOXES))


def _posted_input() -> service.ConnectionInput:
    return _posted().to_input()


def _render(
    org: str,
    access: Access,
    form: dict[str, str | bool],
    *,
    errors: dict[str, str] | None = None,
    result: service.TestResult | None = None,
    status: int = 200,
):
    return render_template(
        "identity/ldap.html",
        nav_active="settings",
        settings_active="ldap_pages.settings",
        org_slug=org,
        connection=connection_for(access.org.id),
        verified_domains=sorted(verified_domain_names(access.org.id)),
        form=form,
        errors=errors or {},
        result=result,
    ), status


@bp.route("/o/<org>/settings/ldap", methods=["GET", "POST"], endpoint="settings")
@page(action=_ACTION)
def settings(org: str, access: Access):
    """Show the directory settings; POST saves them (blank password keeps the old)."""
    if request.method == "GET":
        return _render(org, access, _form_from_row(connection_for(access.org.id)))
    try:
        posted = _posted()
        group_settings = groups.check_group_settings(posted.group_settings())
        row = service.save_connection(access.org.id, posted.to_input(), actor_id=access.account.id)
        groups.save_group_settings(row, group_settings, actor_id=access.account.id)
    except ServiceError as exc:
        return _render(org, access, _form_as_typed(), errors=field_errors(exc), status=400)
    flash("LDAP settings saved. Run the connection test to check them.", "success")
    return redirect(url_for("ldap_pages.settings", org=org))


@bp.post("/o/<org>/settings/ldap/test", endpoint="test")
@page(action=_ACTION)
def test(org: str, access: Access):
    """Test the settings in the form (unsaved edits included) against the directory.
    Writes nothing."""
    errors: dict[str, str] = {}
    try:
        result = service.test_connection(access.org.id, _posted_input())
    except ServiceError as exc:
        errors = field_errors(exc)
        result = service.TestResult(False, " ".join(errors.values()), reason="invalid_input")
    if htmx:
        # HTMX swaps only 2xx answers; the result says what to fix.
        return render_template("identity/ldap_test_result.html", result=result)
    return _render(
        org, access, _form_as_typed(), errors=errors, result=result, status=400 if errors else 200
    )


@bp.post("/o/<org>/settings/ldap/delete", endpoint="delete")
@page(action=_ACTION)
def delete(org: str, access: Access):
    """Remove the connection: directory sign-in stops for this org."""
    try:
        service.delete_connection(access.org.id, actor_id=access.account.id)
        flash("LDAP connection removed. Directory sign-in is off.", "success")
    except ServiceError as exc:
        flash(exc.message, "error")
    return redirect(url_for("ldap_pages.settings", org=org))
