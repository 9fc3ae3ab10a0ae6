"""Just-in-time provisioning for the sign-in methods an org's IdP or directory vouches
for: find or create the account and make it an org member, before
:func:`workspace.auth.signin.finish` records the login and starts the session.

An org's SSO or directory signs in an existing account only when the account is
linked to that source (docs/security.md#identity-trust-and-account-linking):
accounts the source created are linked at creation, a bare account is linked on
first use, and any other account waits for its holder to confirm the link
(:mod:`workspace.auth.linking`)."""

from __future__ import annotations

from workspace.auth import linking
from workspace.core.accounts import (
    MembershipEnded,
    add_member,
    ended_membership,
    ensure_account,
    find_account,
)
from workspace.core.models import Account, Org, OrgMember, OrgRole
from workspace.errors import ForbiddenError


def provision_member(
    org: Org,
    email: str,
    name: str | None,
    *,
    via: str,
    given_name: str | None = None,
    family_name: str | None = None,
    next_path: str | None = None,
) -> tuple[Account, OrgMember, bool]:
    """Just-in-time account and membership for a person an org's IdP or directory
    vouched for. Returns (account, member, account_was_created). A new account takes
    the display, given and family names the source supplied; an existing one keeps
    its names (docs/scim.md#names).

    Raises :class:`MembershipEnded` when the org deactivated the membership (a
    sign-in never brings it back), and a :class:`workspace.auth.signin.SignInRefused`
    (``link_required``, after committing a pending link) when the email names an
    account the source may not take over unasked."""
    existing = find_account(email)
    if existing is not None and existing.is_agent:
        raise ForbiddenError("Agents do not sign in; they use the agent tool interface.")
    if existing is not None and ended_membership(org, existing):
        raise MembershipEnded(org)
    if (
        existing is not None
        and not linking.is_linked(existing.id, org.id, via)
        and linking.held_elsewhere(existing, org.id) is not None
    ):
        raise linking.request_link(existing, org, via, next_path)
    account = ensure_account(
        email, name, given_name=given_name, family_name=family_name, email_verified=True
    )
    linking.link(account, org.id, via)
    member = add_member(org, account, OrgRole.MEMBER, via=via)
    return account, member, existing is None
