"""The LDAP settings page (owner/admin): the form (group-sync settings included), the
test button and its result; and the directory preview on the Group sync page.

Forms post back to the same address and work without JavaScript; with HTMX the test
button swaps in just its result (``identity/ldap_test_result.html``), the directory
preview just its table (``identity/_sync_preview.html``).
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for

from workspace.auth.guards import page
from workspace.core import projects
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
from workspace.identity.ldap.schemas import DirectorySyncPreviewIn, LdapConnectionIn
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


@bp.app_template_global("ldap_group_sync")
def ldap_group_sync(org_id) -> LdapConnection | None:
    """The org's LDAP connection, for the Group sync page's directory preview (that page
    belongs to SSO, which may not import LDAP)."""
    return connection_for(org_id)


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


@bp.post("/o/<org>/settings/group-sync/directory-preview", endpoint="group_sync_preview")
@page(action=_ACTION)
def group_sync_preview(org: str, access: Access):
    """Dry run for a directory username: the groups found, the mappings they match and
    what a sign-in would change. Writes nothing."""
    username = request.form.get("username", "").strip()
    result, error, status = None, None, 200
    try:
        form = parse_form(DirectorySyncPreviewIn)
        result = groups.preview(access.org.id, form.username)
    except ServiceError as exc:
        error, status = " ".join(field_errors(exc).values()), exc.status
    project_list = projects.list_projects(access.org.id)
    context = {
        "preview_part": "directory",
        "directory_preview": result,
        "directory_error": error,
        "preview_username": username,
        "project_names": {p.id: p.name for p in project_list},
    }
    if htmx:
        # HTMX swaps only 2xx answers; the fragment carries the error itself.
        return render_template("identity/_sync_preview.html", **context)
    # Without JavaScript: the whole Group sync page, the result under the form.
    return render_template(
        "identity/group_sync.html",
        nav_active="settings",
        settings_active="sso_pages.group_sync",
        mappings=groups.list_mappings(access.org.id),
        project_list=project_list,
        conn=None,
        errors={},
        form={},
        **context,
    ), status
