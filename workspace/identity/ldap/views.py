"""The LDAP settings page (owner/admin): the form (group-sync settings included), the
test button and its result. The directory preview is on the Group sync page
(``workspace.identity.group_sync_pages``).

Forms post back to the same address and work without JavaScript; with HTMX the test
button swaps in just its result (the page's ``test_result`` block).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for

from workspace.auth.enforced_sso import enforced_domains
from workspace.auth.guards import page, render
from workspace.core.models.domains import verified_domain_names
from workspace.errors import ServiceError
from workspace.extensions import htmx
from workspace.identity.ldap import groups, service, sync_job
from workspace.identity.ldap.models import (
    DEFAULT_EMAIL_ATTRIBUTE,
    DEFAULT_FAMILY_NAME_ATTRIBUTE,
    DEFAULT_GIVEN_NAME_ATTRIBUTE,
    DEFAULT_SYNC_MINUTES,
    connection_for,
)
from workspace.identity.ldap.schemas import DirectorySyncIn, LdapConnectionIn, LdapSettingsForm
from workspace.inputs import field_errors
from workspace.security.permissions import Access

bp = Blueprint("ldap_pages", __name__)

_ACTION = "org.manage_settings"
_URL = "/o/<org>/settings/ldap"
_CHECKBOXES = ("use_tls", "sync_groups_on_login", "remove_stale_synced_memberships")
#: The form before anything is saved: what most directories use.
_NEW = {
    "search_filter": "(&(objectClass=user)(sAMAccountName={username}))",
    "email_attribute": DEFAULT_EMAIL_ATTRIBUTE,
    "given_name_attribute": DEFAULT_GIVEN_NAME_ATTRIBUTE,
    "family_name_attribute": DEFAULT_FAMILY_NAME_ATTRIBUTE,
    "use_tls": True,
    "sync_every_minutes": DEFAULT_SYNC_MINUTES,
}


def _back(org: str):
    return redirect(url_for("ldap_pages.settings", org=org))


def _page(
    org: str,
    access: Access,
    form: Any = None,
    *,
    errors: dict[str, str] | None = None,
    result: service.TestResult | None = None,
    status: int = 200,
    block: str | None = None,
):
    """The page, or for HTMX the route's block (the test result) or ``block``.
    ``form`` is what the admin typed (the password is never shown); absent, the saved
    connection."""
    connection = connection_for(access.org.id)
    return render(
        "identity/ldap.html",
        block=block,
        nav_active="settings",
        settings_active="ldap_pages.settings",
        org_slug=org,
        connection=connection,
        verified_domains=sorted(verified_domain_names(access.org.id)),
        form=form if form is not None else connection or _NEW,
        errors=errors or {},
        result=result,
        next_sync=sync_job.next_run(connection) if connection else None,
        enforced_domains=enforced_domains(access.org.id, "ldap") if connection else [],
        status=status,
    )


@bp.get(_URL, endpoint="settings")
@page(action=_ACTION)
def settings(org: str, access: Access):
    """Show the directory settings."""
    return _page(org, access)


def _not_saved(org: str, access: Access, error: ServiceError):
    return _page(org, access, request.form, errors=field_errors(error), status=400)


@bp.post(_URL, endpoint="save")
@page(action=_ACTION, form=LdapSettingsForm, checkboxes=_CHECKBOXES, invalid=_not_saved)
def save(org: str, access: Access, form: LdapSettingsForm):
    """Save the directory settings (a blank password keeps the old)."""
    group_settings = groups.check_group_settings(form.group_settings())
    row = service.save_connection(access.org.id, form.to_input(), actor_id=access.account.id)
    groups.save_group_settings(row, group_settings, actor_id=access.account.id)
    sync_job.save_schedule(row, form.sync_every_minutes, actor_id=access.account.id)
    flash("LDAP settings saved. Run the connection test to check them.", "success")
    return _back(org)


def _not_tested(org: str, access: Access, error: ServiceError):
    errors = field_errors(error)
    result = service.TestResult(
        False, "Fix the fields marked above, then test again.", reason="invalid_input"
    )
    if not htmx:
        return _page(org, access, request.form, errors=errors, result=result, status=400)
    # Each message beside its field, as Save shows them, not run together under the
    # buttons: the settings card replaces the one on the page (HTMX swaps only 2xx
    # answers, and the route's block is just the result).
    html, _ = _page(org, access, request.form, errors=errors, result=result,
                    block="ldap_settings")  # fmt: skip
    return html, 200, {"HX-Retarget": "#ldap-settings", "HX-Reswap": "outerHTML"}


@bp.post(_URL + "/test", endpoint="test")
@page(
    action=_ACTION,
    form=LdapConnectionIn,
    checkboxes=_CHECKBOXES,
    invalid=_not_tested,
    block="test_result",
)
def test(org: str, access: Access, form: LdapConnectionIn):
    """Test the settings in the form (unsaved edits included) against the directory.
    Writes nothing."""
    result = service.test_connection(access.org.id, form.to_input())
    return _page(org, access, request.form, result=result)


def _not_deleted(org: str, error: ServiceError):
    flash(error.message, "error")
    return _back(org)


@bp.post(_URL + "/delete", endpoint="delete")
@page(action=_ACTION, invalid=_not_deleted)
def delete(org: str, access: Access):
    """Remove the connection: directory sign-in stops for this org."""
    service.delete_connection(access.org.id, actor_id=access.account.id)
    flash("LDAP connection removed. Directory sign-in is off.", "success")
    return _back(org)


@bp.post(_URL + "/sync", endpoint="sync")
@page(action=_ACTION, form=DirectorySyncIn, invalid=_not_deleted)
def sync(org: str, access: Access, form: DirectorySyncIn):
    """Preview sync (``dry_run``: lists the changes, makes none) or Run sync now (the
    page asks to confirm first): a job whose page shows its progress, then the report."""
    job = sync_job.start(access.org.id, access.account.id, dry_run=form.dry_run)
    return redirect(url_for("job_status_pages.job", org=org, job_id=job.id))
