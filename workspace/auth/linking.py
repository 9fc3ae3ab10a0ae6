"""Which org identity sources may sign in or provision an existing account
(docs/security.md#identity-trust-and-account-linking).

An org admin controls that org's SSO, directory and SCIM client. They are trusted to
create accounts for the emails on the org's verified domains, and to sign in the
accounts they created. An account that already exists with a life of its own (a
password, a link to another org's source, the owner role anywhere, a membership in
another org) is linked to a new source only after its holder proves control of the
account once and confirms; SCIM, which has nobody to ask, is refused instead.
"""

from __future__ import annotations

import uuid

from sqlalchemy import exists, select

from workspace.auth.models import (
    AccountIdentityLink,
    AuthSession,
    IdentitySource,
    PendingIdentityLink,
)
from workspace.auth.passwords import check_password
from workspace.auth.signin import PENDING_LIFETIME, SignInRefused
from workspace.core.accounts import MembershipEnded, add_member
from workspace.core.emails import email_domain
from workspace.core.events import record_event
from workspace.core.models import Account, Org, OrgMember, OrgRole
from workspace.core.models.domains import verified_domain_names
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security import tokens
from workspace.transaction import commit_early, discard_pending
from workspace.types import utcnow

SOURCE_NAMES = {
    IdentitySource.SSO: "single sign-on",
    IdentitySource.LDAP: "directory (LDAP)",
    IdentitySource.SCIM: "SCIM provisioning",
}


def source_name(source: str) -> str:
    return SOURCE_NAMES.get(IdentitySource(source), source)


def is_linked(account_id: uuid.UUID, org_id: uuid.UUID, source: str) -> bool:
    return bool(
        db.session.scalar(
            select(
                exists().where(
                    AccountIdentityLink.account_id == account_id,
                    AccountIdentityLink.org_id == org_id,
                    AccountIdentityLink.source == source,
                )
            )
        )
    )


def link(account: Account, org_id: uuid.UUID, source: str) -> None:
    """Record that the org's source may sign in or provision this account (idempotent)."""
    if not is_linked(account.id, org_id, source):
        db.session.add(AccountIdentityLink(account_id=account.id, org_id=org_id, source=source))
        db.session.flush()


def held_elsewhere(account: Account, org_id: uuid.UUID) -> str | None:
    """Why this account is not the org's to take over, or None for a bare account
    (no other way in, no other org, never an owner)."""
    if account.is_agent:
        return "agent"
    if account.password_hash:
        return "password"
    if db.session.scalar(
        select(
            exists().where(
                AccountIdentityLink.account_id == account.id,
                AccountIdentityLink.org_id != org_id,
            )
        )
    ):
        return "other_source"
    if db.session.scalar(
        select(exists().where(OrgMember.account_id == account.id, OrgMember.role == OrgRole.OWNER))
    ):
        return "owner"
    if db.session.scalar(
        select(exists().where(OrgMember.account_id == account.id, OrgMember.org_id != org_id))
    ):
        return "other_org"
    return None


def domain_is_verified(org_id: uuid.UUID, email: str) -> bool:
    """An org's sources are trusted only for emails on the domains it verified."""
    try:
        return email_domain(email) in verified_domain_names(org_id)
    except ServiceError:  # not a domain at all: it matches no verified domain
        return False


# -- pending links --------------------------------------------------------------------


def request_link(account: Account, org: Org, source: str, next_path: str | None) -> SignInRefused:
    """Store a pending link for this sign-in, committed on its own (the refused
    sign-in's other writes are dropped), and the refusal (``link_required``, 409) that
    carries its token to the browser."""
    discard_pending("a sign-in that waits for a link confirmation writes nothing else")
    raw = tokens.generate("")
    db.session.add(
        PendingIdentityLink(
            token_hash=tokens.digest(raw),
            account_id=account.id,
            org_id=org.id,
            source=source,
            next_path=(next_path or None) if next_path and len(next_path) <= 500 else None,
            expires_at=utcnow() + PENDING_LIFETIME,
        )
    )
    record_event(org.id, "auth.link.requested", subject=account.email, source=source)
    commit_early("a pending account link must outlive the sign-in it interrupts")
    return SignInRefused(
        f"An account with this email already exists. To let {org.name}'s "
        f"{source_name(source)} sign you in, confirm the link once by "
        "signing in to your account in a browser.",
        reason="link_required",
        status=409,
        org_id=org.id,
        raw=raw,
    )


def pending_for(raw: str | None) -> PendingIdentityLink | None:
    """The live pending link for the browser's token: unused and not expired."""
    if not raw:
        return None
    row = db.session.scalar(
        select(PendingIdentityLink).where(PendingIdentityLink.token_hash == tokens.digest(raw))
    )
    if row is None or row.used_at is not None or row.expires_at <= utcnow():
        return None
    return row


def reauthenticated(pending: PendingIdentityLink, session: AuthSession | None) -> bool:
    """Whether this browser signed in to the pending link's account *after* the link
    was requested: a fresh proof of the account's own credential. A session that was
    already open does not count, so a sign-in through a hostile org's IdP cannot be
    turned into a link by one click of a person who happened to be signed in."""
    return (
        session is not None
        and session.account_id == pending.account_id
        and session.created_at >= pending.created_at
    )


def check_proof(pending: PendingIdentityLink, session: AuthSession | None, password: str) -> None:
    """The holder proves the account with its own credential: its password, or a
    sign-in after the link was requested (:func:`reauthenticated`)."""
    if not reauthenticated(pending, session) and not check_password(pending.account, password):
        raise SignInRefused(
            "That password is not this account's. Enter the password you sign in "
            "with, or sign in again with your usual method and come back here.",
            reason="bad_password",
            status=401,
        )


def confirm(pending: PendingIdentityLink) -> Org:
    """The holder proved control of the account and confirmed: link it, make it a
    member, and record both in the org. The caller completes the sign-in. A
    membership the org deactivated is refused (``deactivated``)."""
    org = db.session.get(Org, pending.org_id)
    account = pending.account
    pending.used_at = utcnow()
    link(account, org.id, pending.source)
    try:
        add_member(org, account, OrgRole.MEMBER, via=pending.source)
    except MembershipEnded as exc:
        raise SignInRefused(exc.message, reason="deactivated", status=exc.status) from exc
    record_event(
        org.id,
        "auth.link.confirmed",
        actor_id=account.id,
        subject=account.email,
        source=pending.source,
    )
    db.session.flush()
    return org


def cancel(pending: PendingIdentityLink) -> None:
    pending.used_at = utcnow()
    record_event(
        pending.org_id,
        "auth.link.declined",
        subject=pending.account.email,
        source=pending.source,
    )
    db.session.flush()
