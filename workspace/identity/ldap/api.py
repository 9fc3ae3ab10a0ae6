"""The LDAP connection's JSON API (docs/api.md): read, save, delete, test.

Owner or admin only. The bind password is accepted on write and never returned.
"""

from __future__ import annotations

import uuid

from flask import request

from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.identity.ldap import service
from workspace.identity.ldap.schemas import LdapConnectionIn, LdapConnectionOut, LdapTestOut
from workspace.inputs import parse_body
from workspace.security.permissions import Access

bp = api_blueprint("ldap_api", __name__, "/api/v1/orgs/<uuid:org_id>")

_ACTION = "org.manage_settings"


@bp.get("/ldap")
@operation("Read the LDAP connection", tag="ldap", action=_ACTION, response=LdapConnectionOut)
def read_connection(org_id: uuid.UUID, access: Access):
    """The org's directory settings; ``has_bind_password`` instead of the password."""
    return LdapConnectionOut.model_validate(service.get_connection(access.org.id))


@bp.put("/ldap")
@operation(
    "Save the LDAP connection",
    tag="ldap",
    action=_ACTION,
    body=LdapConnectionIn,
    response=LdapConnectionOut,
)
def save_connection(org_id: uuid.UUID, access: Access, body: LdapConnectionIn):
    """Creates or replaces the connection. Omit ``bind_password`` (or send it blank)
    to keep the stored one."""
    row = service.save_connection(access.org.id, body.to_input(), actor_id=access.account.id)
    return LdapConnectionOut.model_validate(row)


@bp.delete("/ldap")
@operation("Delete the LDAP connection", tag="ldap", action=_ACTION, status=204)
def delete_connection(org_id: uuid.UUID, access: Access):
    """Directory sign-in stops at once; accounts and memberships stay."""
    service.delete_connection(access.org.id, actor_id=access.account.id)


@bp.post("/ldap/test")
@operation("Test the LDAP connection", tag="ldap", action=_ACTION, response=LdapTestOut)
def test_connection(org_id: uuid.UUID, access: Access):
    """Service bind plus a sample search of up to five entries. With no body it tests
    the saved settings; a body shaped like the PUT tests those settings unsaved (a
    blank password uses the stored one). A failure is ``ok: false`` with a message."""
    edits = parse_body(LdapConnectionIn).to_input() if request.get_data() else None
    result = service.test_connection(access.org.id, edits)
    return LdapTestOut(ok=result.ok, message=result.message, sample_count=result.sample_count)
