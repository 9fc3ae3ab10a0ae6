"""The demo's enforced-SSO story (docs/sso.md#enforced-sso): the owner names herself
and a second owner break-glass, previews and requires SSO on ``acme.test``, turns it
off for a day and on again, signs in through break-glass during an IdP outage, a
member's password attempt is refused, the second owner steps back (unnamed first),
and enforcement ends before the demo's SSO is switched off, so the people the README
and docs/demo.md name still sign in with the demo password."""

from __future__ import annotations

from datetime import timedelta

from workspace.auth import enforced_sso as signin_sso
from workspace.auth.models import AuthSession
from workspace.core.accounts import change_role
from workspace.core.events import record_event
from workspace.core.models import OrgRole
from workspace.extensions import db
from workspace.identity.enforced_sso import service as enforced
from workspace.security import tokens
from workspace.security.permissions import Access, org_access
from workspace.seed.demo import Demo
from workspace.seed.people import DEMO_DOMAIN

#: The owner who helps roll enforcement out and steps back to admin later.
SECOND_OWNER = "Priya Raman"
#: A member with a password who tries it while SSO is required.
REFUSED = "Mei Lin"


def _domain_id(demo: Demo):
    return next(
        s.domain.id for s in enforced.overview(demo.org.id) if s.domain.domain == DEMO_DOMAIN
    )


def _enforce(access: Access, domain_id) -> None:
    shown = enforced.preview(access.org.id, domain_id, "sso")  # what the page shows first
    enforced.enforce(access, domain_id, shown.source, confirm=True)


def enforcement(demo: Demo) -> None:
    """While the SSO connection is on (days 91 to 1 of the story): runs after the SSO
    people joined, before :func:`~.identity.reorganisation` switches SSO off."""
    access = org_access(demo.org.id, demo.owner)
    second = demo.members[SECOND_OWNER]
    domain_id = _domain_id(demo)
    with demo.at(84, actor_id=demo.owner.id):
        change_role(second, OrgRole.OWNER, actor=access.member)
        enforced.set_break_glass(access, access.member.id, keep=True)
        enforced.set_break_glass(access, second.id, keep=True)
    with demo.at(82):
        _enforce(access, domain_id)
    # The IdP's signing keys were rotated badly: passwords back for a day.
    with demo.at(70):
        enforced.stop(access, domain_id)
    with demo.at(69):
        _enforce(access, domain_id)
    with demo.at(26, 9):
        _break_glass_sign_in(demo)
    with demo.at(19, 4):
        # Written out: the refusal is the answer to a sign-in request (its SSO link
        # is built from the request, and it commits before refusing); the seed checks
        # that enforcement covers the person and records what the refusal records.
        account = demo.people[REFUSED]
        assert signin_sso.enforced_for(account) is not None
        record_event(
            demo.org.id,
            "auth.sso_enforced.refused",
            subject=account.email,
            reason="sso_enforced",
            attempted="password",
            source="sso",
        )
    with demo.at(16, actor_id=demo.owner.id):
        enforced.set_break_glass(access, second.id, keep=False)
        change_role(second, OrgRole.ADMIN, actor=access.member)
    # Ended before the recent password sign-ins (people.sign_ins) and SSO going off.
    with demo.at(9):
        enforced.stop(access, domain_id)


def _break_glass_sign_in(demo: Demo) -> None:
    """The owner's password sign-in while the IdP was down. The check and its audit
    are the sign-in's own (:func:`check_password_sign_in`, :func:`record_break_glass`);
    the session is written as :meth:`Demo.login` writes it (starting one needs a
    request), its raw key thrown away."""
    owner = demo.owner
    row = signin_sso.check_password_sign_in(owner)
    assert row is not None
    signin_sso.record_break_glass(row, owner)
    when = demo.stamp.when
    row.last_used_at = when
    db.session.add(
        AuthSession(
            account_id=owner.id,
            token_hash=tokens.digest(tokens.generate("")),
            method="password",
            user_agent="Demo seed",
            expires_at=when + timedelta(days=14),
        )
    )
    record_event(
        demo.org.id,
        "auth.login",
        actor_id=owner.id,
        subject=owner.email,
        method="password",
        break_glass=True,
    )
