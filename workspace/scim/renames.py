"""userName renames (docs/scim.md#renames): Entra ID sends ``replace userName`` when a
person's UPN changes. A rename is accepted only for an account that belongs to this
org's SCIM alone and only to an address provisioning could take: never another org's
verified domain, and one of this org's (:func:`workspace.auth.linking.domain_is_verified`)
unless the operator lifted that rule; otherwise a SCIM 400
(``invalidValue``) or 409 (``uniqueness``) that says why."""

from __future__ import annotations

from flask import current_app
from scim2_models import InvalidValueException, UniquenessException
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from workspace.auth import linking
from workspace.auth.models import IdentitySource
from workspace.core import accounts
from workspace.core.domain_ownership import other_orgs_domain_message, owned_elsewhere
from workspace.core.events import record_event
from workspace.core.models import OrgMember
from workspace.extensions import db
from workspace.scim import filter as scim_filter
from workspace.scim.documents import Attributes, email_of
from workspace.scim.models import ScimIdentity
from workspace.scim.tokens import Caller
from workspace.transaction import discard_pending

#: Why a rename is refused, by :func:`linking.held_elsewhere`'s reason.
_NOT_OURS = {
    "password": "signs in with a password of its own",
    "other_source": "is shared with another organization's sign-in or provisioning",
    "other_org": "is a member of another organization",
    "owner": "belongs to an owner",
    "agent": "is an agent",
}


def rename(member: OrgMember, old_user_name: str, attrs: Attributes, caller: Caller) -> None:
    """A new userName (Entra renames when a UPN changes; docs/scim.md#renames). Only
    an account that belongs to this org's SCIM alone, moving to an address on one of
    this org's verified domains: the account's email follows, and with it sign-in."""
    account = member.account
    why = linking.held_elsewhere(account, member.org_id)
    if why is None and not linking.is_linked(account.id, member.org_id, IdentitySource.SCIM):
        why = "was not created by this organization's SCIM provisioning"
    elif why is not None:
        why = _NOT_OURS.get(why, why)
    if why is not None:
        raise InvalidValueException(
            detail=f"userName cannot change to {attrs.user_name!r}: the account {why}, so "
            "this organization's identity provider cannot rename it. Provision the new "
            "name as a new user, or have the person change their address themselves."
        )
    email = email_of(attrs)
    # The rules provisioning applies to a new address apply to a renamed one.
    other_orgs = owned_elsewhere(member.org_id, email)
    if other_orgs is not None:
        raise InvalidValueException(detail=other_orgs_domain_message(email, other_orgs))
    trust_domains = current_app.config.get("SCIM_REQUIRE_VERIFIED_DOMAIN", True)
    if trust_domains and not linking.domain_is_verified(member.org_id, email):
        raise InvalidValueException(
            detail=f"userName cannot change to {attrs.user_name!r}: {email} is not on a domain "
            "this organization has verified. Verify its domain in Settings → Domains first."
        )
    live = db.session.scalar(
        select(ScimIdentity.id).where(
            ScimIdentity.org_id == member.org_id,
            ScimIdentity.deleted_at.is_(None),
            ScimIdentity.user_name_key == scim_filter.user_name_key(attrs.user_name),
            ScimIdentity.member_id != member.id,
        )
    )
    holder = accounts.find_account(email)
    if live is not None or (holder is not None and holder.id != account.id):
        raise UniquenessException(
            detail=f"userName cannot change to {attrs.user_name!r}: {email} is already "
            "another person's address."
        )
    old_email = account.email
    account.email = accounts.canonical_email(email)
    try:
        db.session.flush()
    except IntegrityError:  # a concurrent request took the address a moment ago
        discard_pending("the rename lost a race for the address")
        raise UniquenessException(detail=f"{email} is already another person's address.") from None
    record_event(
        member.org_id,
        "scim.user.renamed",
        subject=email,
        scim_id=str(member.id),
        old_user_name=old_user_name,
        user_name=attrs.user_name,
        old_email=old_email,
        by=caller.by,
    )
