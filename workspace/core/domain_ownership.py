"""Whose address is it: the one rule for a verified domain's addresses
(docs/security.md#verified-domains-own-their-addresses).

The org that verified an address's domain owns that address. Another org's
invitations and SCIM token may not take it (:func:`owned_elsewhere`), and the owning
org's enforced SSO decides how it signs in (:func:`owner_of`, read by
:mod:`workspace.auth.enforced_sso`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from workspace.core.emails import email_domain
from workspace.core.models.domains import verifying_org
from workspace.errors import ServiceError

#: What a refusal says, for people and SCIM clients alike.
OTHER_ORGS_DOMAIN = (
    "{email} is on {domain}, a domain another organization has verified: people with "
    "those addresses get their accounts there."
)


@dataclass(frozen=True)
class DomainOwner:
    org_id: uuid.UUID
    #: The address's domain, normalized.
    domain: str


def owner_of(email: str) -> DomainOwner | None:
    """The org that verified the address's domain, if any (at most one)."""
    try:
        domain = email_domain(email)
    except ServiceError:  # not an address with a domain: nobody owns it
        return None
    org_id = verifying_org(domain)
    return DomainOwner(org_id, domain) if org_id is not None else None


def owned_elsewhere(org_id: uuid.UUID, email: str) -> str | None:
    """The address's domain when an org other than ``org_id`` verified it, else None:
    the check invitations and SCIM provisioning make before taking an address."""
    owner = owner_of(email)
    if owner is None or owner.org_id == org_id:
        return None
    return owner.domain


def other_orgs_domain_message(email: str, domain: str) -> str:
    return OTHER_ORGS_DOMAIN.format(email=email, domain=domain)
