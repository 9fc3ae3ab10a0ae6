"""The org admin's JSON API: members' roles, deactivation and invitations
(docs/admin.md). The same services and rules as Settings > Members."""

from __future__ import annotations

import uuid

from flask import current_app, url_for

from workspace.admin import members
from workspace.admin.schemas import AdminMemberOut, InvitationCreate, InvitationOut, MemberPatch
from workspace.api import operation
from workspace.api.blueprints import api_blueprint
from workspace.auth import invites
from workspace.security.permissions import Access

bp = api_blueprint("admin_api", __name__, "/api/v1/orgs/<uuid:org_id>")


@bp.patch("/members/<uuid:member_id>")
@operation(
    "Change a member's role, or deactivate or reactivate them",
    tag="members",
    action="org.manage_members",
    body=MemberPatch,
    response=AdminMemberOut,
    errors=(400, 401, 403, 404, 409),
)
def update_member(org_id: uuid.UUID, member_id: uuid.UUID, access: Access, body: MemberPatch):
    """Only an owner makes, changes or deactivates an owner; the last active owner is
    never demoted or deactivated (409); nobody deactivates themselves (409); a member
    managed by SCIM is activated only by the identity provider (409), and agents are
    removed in Settings > Agents (409). Deactivation revokes the member's API tokens
    for this org. Reactivation restores the member role. ``role_from_groups: true``
    lets group sync set a role a person set by hand (409 for an owner or an agent)."""
    member = members.update_member(
        access,
        member_id,
        role=body.role,
        active=body.active,
        role_from_groups=bool(body.role_from_groups),
    )
    return AdminMemberOut.model_validate(member)


@bp.post("/invitations")
@operation(
    "Invite a person by email",
    tag="members",
    action="org.manage_members",
    body=InvitationCreate,
    response=InvitationOut,
    status=201,
    errors=(400, 401, 403, 404, 409),
)
def create_invitation(org_id: uuid.UUID, access: Access, body: InvitationCreate):
    """Creates the account (when new) and the membership with ``role`` (owner only by
    an owner). ``sign_in_url`` is a one-time link, valid for 72 hours and returned in
    this answer only; send it to the person. It is null when the address already has
    its own way to sign in (a password, another organization): they sign in as usual.
    An address on a domain another organization verified is refused (403) unless its
    account proved it; an account on this organization's verified domain that never
    proved its address gets a join link instead of a membership (``member`` null).
    An active member is a 409; a deactivated one is a 409 that says to reactivate."""
    invitation = invites.invite(
        access.org, access.member, body.email, name=body.name, role=body.role
    )
    url = None
    if invitation.token:
        base = current_app.config.get("BASE_URL", "").rstrip("/")
        url = base + url_for("auth.invite", token=invitation.token)
    if invitation.joins_on_proof:
        message = (
            "This address has an account that never proved it holds the address, so it "
            "is not a member yet. Send this one-time link to the address: the person "
            "joins, as a member, by opening it while signed in to that account."
        )
    elif url:
        message = "Send this one-time link to the person; it is shown only once."
    else:
        message = (
            "This address already has its own way to sign in; "
            "they sign in as usual and find the organization there."
        )
    member = invitation.member
    return InvitationOut(
        member=AdminMemberOut.model_validate(member) if member is not None else None,
        sign_in_url=url,
        expires_at=invitation.expires_at,
        message=message,
    )
