"""Adding, verifying and removing an org's email domains (docs/domains.md).

A domain can be verified by one org only. The check before writing gives a friendly
409; the partial unique index ``uq_domains_verified_domain`` settles the race when
two orgs verify at the same moment, and its IntegrityError becomes the same 409.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass

from blinker import Namespace
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from workspace.core.emails import normalize_domain
from workspace.core.events import record_event
from workspace.core.models.domains import DomainState, VerifiedDomain, verifying_org
from workspace.errors import ConflictError, NotFoundError, ServiceError
from workspace.extensions import db
from workspace.identity.domains.doh import DnsLookupError, lookup_txt
from workspace.types import utcnow

TXT_PREFIX = "service-verify="
NOT_FOUND_YET = (
    "The TXT record was not found yet. Add a TXT record at @ (the root of {domain}) with "
    "the value {value}, then try again: DNS can take a while to propagate."
)


class DomainLookupFailed(ServiceError):
    """The DNS resolver failed; nothing is known about the record yet."""

    status = 502


@dataclass(frozen=True)
class VerifyResult:
    domain: VerifiedDomain
    verified: bool
    message: str


#: Sent inside the transaction that removes a domain, before it commits, with the
#: org id as sender and ``domain`` and ``actor_id``: what relied on the domain
#: (single sign-on routing) lets go of it in the same commit.
domain_removed = Namespace().signal("domain-removed")


def _taken_elsewhere(org_id: uuid.UUID, name: str) -> bool:
    owner = verifying_org(name)
    return owner is not None and owner != org_id


def _conflict(name: str) -> ConflictError:
    return ConflictError(
        f"{name} is already verified by another organization. It can be "
        "claimed again only after that organization removes it.",
        field="domain",
    )


def list_domains(org_id: uuid.UUID) -> list[VerifiedDomain]:
    return list(
        db.session.scalars(
            select(VerifiedDomain)
            .where(VerifiedDomain.org_id == org_id)
            .order_by(VerifiedDomain.domain)
        )
    )


def get_domain(org_id: uuid.UUID, domain_id: uuid.UUID) -> VerifiedDomain:
    row = db.session.get(VerifiedDomain, domain_id)
    if row is None or row.org_id != org_id:
        raise NotFoundError("No such domain in this organization.")
    return row


def add_domain(org_id: uuid.UUID, raw: str, *, actor_id: uuid.UUID | None) -> VerifiedDomain:
    """A new Pending domain with a fresh token."""
    name = normalize_domain(raw)
    if _taken_elsewhere(org_id, name):
        raise _conflict(name)
    exists = db.session.scalar(
        select(VerifiedDomain).where(VerifiedDomain.org_id == org_id, VerifiedDomain.domain == name)
    )
    if exists is not None:
        raise ConflictError(f"{name} is already in this organization's list.", field="domain")
    row = VerifiedDomain(
        org_id=org_id,
        domain=name,
        state=DomainState.PENDING,
        verification_token=secrets.token_hex(16),
    )
    db.session.add(row)
    try:
        db.session.flush()
        record_event(org_id, "domain.added", actor_id=actor_id, subject=name)
        db.session.flush()
    except IntegrityError as exc:  # the same org added it twice at once
        raise ConflictError(
            f"{name} is already in this organization's list.", field="domain"
        ) from exc
    return row


def verify_domain(
    org_id: uuid.UUID, domain_id: uuid.UUID, *, actor_id: uuid.UUID | None
) -> VerifyResult:
    """Look for ``service-verify=<token>`` in the TXT records of exactly this domain.
    Found: Verified. Absent: stays Pending with a message saying what to do."""
    row = get_domain(org_id, domain_id)
    if row.state == DomainState.VERIFIED:
        return VerifyResult(row, True, f"{row.domain} is verified.")
    if _taken_elsewhere(org_id, row.domain):
        raise _conflict(row.domain)
    name, expected = row.domain, row.txt_value
    try:
        answer = lookup_txt(name)
    except DnsLookupError as exc:
        raise DomainLookupFailed(str(exc)) from exc
    if expected not in answer.records:
        record_event(
            org_id,
            "domain.verify_failed",
            actor_id=actor_id,
            subject=name,
            records_seen=len(answer.records),
            nxdomain=answer.nxdomain,
        )
        message = NOT_FOUND_YET.format(domain=name, value=expected)
        if answer.nxdomain:
            message = f"DNS does not know {name} yet (NXDOMAIN). " + message
        return VerifyResult(row, False, message)
    row.state = DomainState.VERIFIED
    row.verified_at = utcnow()
    try:
        db.session.flush()
        record_event(org_id, "domain.verified", actor_id=actor_id, subject=name)
        db.session.flush()
    except IntegrityError as exc:
        # Another org won the race for this domain between our check and our write.
        raise _conflict(name) from exc
    return VerifyResult(row, True, f"{name} is verified.")


def remove_domain(org_id: uuid.UUID, domain_id: uuid.UUID, *, actor_id: uuid.UUID | None) -> None:
    """Delete the domain; a verified one becomes free for any org to claim."""
    row = get_domain(org_id, domain_id)
    name, was = row.domain, row.state
    db.session.delete(row)
    record_event(org_id, "domain.removed", actor_id=actor_id, subject=name, state=was)
    if was == DomainState.VERIFIED:
        domain_removed.send(org_id, domain=name, actor_id=actor_id)
    db.session.flush()
