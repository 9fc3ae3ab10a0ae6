"""Enforced SSO at sign-in (docs/sso.md#enforced-sso): a member whose address is on a
domain where their org requires SSO signs in only through that org's SSO (or LDAP,
when that is the org's source). Password sign-in and invitation links refuse them
through the one pipeline (:func:`workspace.auth.signin.refuse`, reason
``sso_enforced``, recorded as ``auth.sso_enforced.refused``), except the org's named
break-glass owners, whose password sign-ins are each recorded as ``auth.break_glass``.

Who is covered: accounts with a membership (active or not) of the org that verified
their address's domain (:func:`workspace.core.domain_ownership.owner_of`), while that
org enforces SSO on the domain. Settings live in :mod:`workspace.identity.enforced_sso`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from flask import url_for
from sqlalchemy import select

from workspace.auth.signin import SignInRefused
from workspace.core.domain_ownership import owner_of
from workspace.core.events import record_event
from workspace.core.models import Account, Org, OrgMember
from workspace.core.models.enforced_sso import (
    BreakGlassOwner,
    SsoEnforcement,
    break_glass_of,
    enforcement_for_domain,
)
from workspace.extensions import db
from workspace.types import utcnow

#: The org's sources an enforcement can send people to.
SOURCES = ("sso", "ldap")


def enforced_domains(org_id: uuid.UUID, source: str) -> list[str]:
    """The org's domains where sign-in is required through ``source`` (sso or ldap):
    what removing or disabling that source locks out, said in its confirmation."""
    rows = db.session.scalars(
        select(SsoEnforcement).where(
            SsoEnforcement.org_id == org_id, SsoEnforcement.source == source
        )
    )
    return sorted(e.domain.domain for e in rows)


@dataclass(frozen=True)
class Enforced:
    enforcement: SsoEnforcement
    org: Org

    @property
    def domain(self) -> str:
        return self.enforcement.domain.domain


def enforced_for(account: Account) -> Enforced | None:
    """The enforcement that covers this account, if any."""
    owner = owner_of(account.email)
    if owner is None:
        return None
    enforcement = enforcement_for_domain(owner.org_id, owner.domain)
    if enforcement is None:
        return None
    member = db.session.scalar(
        select(OrgMember.id).where(
            OrgMember.org_id == owner.org_id, OrgMember.account_id == account.id
        )
    )
    if member is None:
        return None
    return Enforced(enforcement, db.session.get(Org, owner.org_id))


def sign_in_url(enforced: Enforced, email: str) -> str:
    """Where the refused person goes: the org's SSO start for their address, or the
    sign-in page's directory form for the org."""
    if enforced.enforcement.source == "ldap":
        return url_for("auth.signin", org=enforced.org.slug, _anchor="ldap-signin")
    return url_for("sso_auth.start", email=email)


def refusal(enforced: Enforced, account: Account, *, attempted: str) -> SignInRefused:
    """The refusal for a sign-in ``attempted`` (password, invite) that enforcement rules out."""
    way = "your directory account" if enforced.enforcement.source == "ldap" else "SSO"
    return SignInRefused(
        f"{enforced.org.name} requires single sign-on for {enforced.domain} addresses. "
        f"Sign in with {way} instead.",
        reason="sso_enforced",
        status=403,
        org_id=enforced.org.id,
        method="enforced",
        subject=account.email,
        audit={"attempted": attempted, "source": enforced.enforcement.source},
        sso_url=sign_in_url(enforced, account.email),
    )


def check_password_sign_in(account: Account) -> BreakGlassOwner | None:
    """Raise the refusal when enforcement covers the account, unless they are an
    effective break-glass owner of the enforcing org: then their row is returned and
    :func:`record_break_glass` must be called once the sign-in succeeds."""
    enforced = enforced_for(account)
    if enforced is None:
        return None
    row = break_glass_of(enforced.org.id, account.id)
    if row is not None and row.effective:
        return row
    raise refusal(enforced, account, attempted="password")


def record_break_glass(row: BreakGlassOwner, account: Account) -> None:
    """Audit one break-glass password sign-in and show it as the last use."""
    row.last_used_at = utcnow()
    record_event(row.org_id, "auth.break_glass", actor_id=account.id, subject=account.email)
    db.session.flush()
