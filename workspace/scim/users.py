"""SCIM Users as org memberships (docs/scim.md): provision, read, replace, patch,
deactivate. The SCIM id is the OrgMember id. Functions take plain arguments and
scim2-models documents; they raise scim2-models exceptions, which the blueprint
renders as SCIM errors (RFC 7644 §3.12)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from flask import current_app
from scim2_models import (
    ConflictException,
    ForbiddenException,
    MutabilityException,
    NotFoundException,
    ScimFilter,
    UniquenessException,
)
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.exc import IntegrityError

from workspace.auth import linking, membership
from workspace.auth.models import IdentitySource
from workspace.core import accounts
from workspace.core.domain_ownership import other_orgs_domain_message, owned_elsewhere
from workspace.core.events import record_event
from workspace.core.models import Account, AccountKind, Org, OrgMember, OrgRole
from workspace.extensions import db
from workspace.scim import filter as scim_filter
from workspace.scim import groups as scim_groups
from workspace.scim import renames
from workspace.scim.documents import Attributes, attributes_of, email_of
from workspace.scim.models import ScimIdentity
from workspace.scim.resources import InputUser, ScimUser
from workspace.scim.tokens import Caller, revoke_minted_by
from workspace.transaction import discard_pending
from workspace.types import utcnow

#: Marks, in the stored attributes, the identities whose account SCIM created.
_OWNS = "namesAccount"

LAST_OWNER = (
    "This user is the organization's last owner and stays active. Make another "
    "member an owner in the workspace first."
)


@dataclass
class ScimMember:
    """A member as SCIM sees it: the membership, and what SCIM stored about it."""

    member: OrgMember
    identity: ScimIdentity | None

    @property
    def attributes(self) -> Attributes:
        if self.identity is not None:
            return Attributes.from_identity(self.identity, self.member.active)
        return Attributes.derived(self.member.account, self.member.active)

    def published(self) -> dict:
        """The document GET answers: the attributes, with both name parts filled in."""
        return self.attributes.published(self.member.account)

    @property
    def names_account(self) -> bool:
        """Whether this org's SCIM created the account, and so keeps naming it
        (docs/scim.md#names); an account it found existing keeps its own names."""
        return bool(self.identity is not None and (self.identity.attributes or {}).get(_OWNS))


def _base_query():
    return (
        select(OrgMember, ScimIdentity)
        .join(Account, Account.id == OrgMember.account_id)
        .outerjoin(ScimIdentity, ScimIdentity.member_id == OrgMember.id)
        # Agents act through their own tool interface; an IdP does not manage them.
        .where(Account.kind == AccountKind.PERSON, ScimIdentity.deleted_at.is_(None))
    )


def list_users(
    org_id: uuid.UUID, scim_filter_: ScimFilter | None, start_index: int, count: int
) -> tuple[int, list[ScimMember]]:
    """One page of the org's users, oldest membership first (a stable order for
    RFC 7644 §3.4.2.4 paging), and the total that match."""
    where: list[ColumnElement[bool]] = [OrgMember.org_id == org_id]
    if scim_filter_ is not None:
        where.append(scim_filter.to_sql(scim_filter_.ast))
    query = _base_query().where(*where)
    total = db.session.scalar(select(func.count()).select_from(query.subquery())) or 0
    if count == 0 or start_index > total:
        return total, []  # also keeps an absurd startIndex out of SQL
    rows = db.session.execute(
        query.order_by(OrgMember.created_at, OrgMember.id).offset(start_index - 1).limit(count)
    ).all()
    return total, [ScimMember(m, i) for m, i in rows]


def get_user(org_id: uuid.UUID, user_id: str) -> ScimMember:
    """The user with this SCIM id; 404 for anything else, whatever its shape."""
    try:
        member_id = uuid.UUID(user_id)
    except ValueError:
        member_id = None
    row = None
    if member_id is not None:
        row = db.session.execute(
            _base_query().where(OrgMember.org_id == org_id, OrgMember.id == member_id)
        ).first()
    if row is None:
        raise NotFoundException(detail=f"No user with id {user_id!r} in this organization.")
    return ScimMember(row[0], row[1])


# -- writes --------------------------------------------------------------------------


def create_user(org: Org, document: InputUser, caller: Caller) -> ScimMember:
    """POST /Users (docs/scim.md#what-provisioning-does). The unique constraints on accounts,
    memberships and live userNames decide between concurrent creations: the
    loser's transaction fails and it answers 409."""
    attrs = attributes_of(document)
    for _attempt in range(2):
        try:
            return _create(org, attrs, caller)
        except IntegrityError:
            # The first failure may only mean another request created the account
            # a moment ago; look again, in a fresh transaction that sees it.
            discard_pending("a concurrent creation won the race; look again")
    raise UniquenessException(detail=f"The userName {attrs.user_name!r} is already taken.")


def _taken(attrs: Attributes) -> UniquenessException:
    return UniquenessException(
        detail=f"The userName {attrs.user_name!r} is already taken in this organization. "
        f'Look it up with filter=userName eq "{attrs.user_name}".'
    )


def _create(org: Org, attrs: Attributes, caller: Caller) -> ScimMember:
    email = email_of(attrs)
    # Whatever this org's own setting, another org's verified domain is never ours.
    other_orgs = owned_elsewhere(org.id, email)
    if other_orgs is not None:
        raise ForbiddenException(detail=other_orgs_domain_message(email, other_orgs))
    trust_domains = current_app.config.get("SCIM_REQUIRE_VERIFIED_DOMAIN", True)
    if trust_domains and not linking.domain_is_verified(org.id, email):
        domain = email.rsplit("@", 1)[-1]
        raise ForbiddenException(
            detail=f"{domain} is not a domain this organization has verified, so its SCIM "
            f"token cannot provision {email}. Verify {domain} in Settings → Domains first "
            "(docs/security.md#identity-trust-and-account-linking)."
        )
    live = db.session.scalar(
        select(ScimIdentity.id).where(
            ScimIdentity.org_id == org.id,
            ScimIdentity.deleted_at.is_(None),
            ScimIdentity.user_name_key == scim_filter.user_name_key(attrs.user_name),
        )
    )
    if live is not None:
        raise _taken(attrs)
    account = accounts.find_account(email)
    created = account is None
    if account is None:
        given, family = attrs.name_parts()
        account = accounts.ensure_account(
            email,
            attrs.account_name(),
            given_name=given,
            family_name=family,
            email_verified=True,
        )
    member = db.session.scalar(
        select(OrgMember).where(OrgMember.org_id == org.id, OrgMember.account_id == account.id)
    )
    if member is None and not created:
        _check_linkable(org, account)
    linking.link(account, org.id, IdentitySource.SCIM)
    identity = None
    if member is not None:
        identity = db.session.scalar(
            select(ScimIdentity).where(ScimIdentity.member_id == member.id)
        )
        if identity is None or identity.deleted_at is None:
            if email != scim_filter.user_name_key(attrs.user_name):
                raise UniquenessException(
                    detail=f"The email {email!r} already belongs to a member of this "
                    "organization; look them up by that email and update them instead."
                )
            raise _taken(attrs)
        # Provisioning again a user the IdP deleted: the same membership comes back.
        identity.deleted_at = None
    else:
        member = accounts.add_member(org, account, OrgRole.MEMBER, via="scim")
    scim_member = ScimMember(member, identity)
    _store(scim_member, attrs, names_account=created)
    record_event(
        org.id,
        "scim.user.provisioned",
        subject=account.email,
        scim_id=str(member.id),
        user_name=attrs.user_name,
        external_id=attrs.external_id,
        by=caller.by,
    )
    # An IdP may create a user already inactive; that is a provisioning followed
    # by a deactivation, and a deleted user comes back only if asked to be active.
    _set_active(scim_member, attrs.active is not False, caller)
    # Flushed here, inside create_user's retry, so a concurrent creation's unique
    # violation surfaces as a 409 rather than at the request's commit.
    db.session.flush()
    return scim_member


def _check_linkable(org: Org, account: Account) -> None:
    """An existing account joins the org through SCIM only if it is linked to the
    org's SCIM or is a bare account; anyone else has a life of their own (a password,
    another org, an owner role) and must link it themselves by signing in through the
    org's single sign-on (docs/security.md#identity-trust-and-account-linking)."""
    if linking.is_linked(account.id, org.id, IdentitySource.SCIM):
        return
    if linking.held_elsewhere(account, org.id) is not None:
        raise ConflictException(
            detail=f"{account.email} already has an account that this organization's "
            "identity provider did not create, so SCIM cannot add it. The person must "
            "link it by signing in through this organization's single sign-on (and "
            "confirming with their existing sign-in); SCIM then manages the membership."
        )


def replace_user(user: ScimMember, document: InputUser, caller: Caller) -> ScimMember:
    """PUT /Users/{id} (RFC 7644 §3.5.1): the document replaces what SCIM stored;
    ``active`` absent means true (docs/scim.md)."""
    attrs = attributes_of(document)
    if attrs.active is None:
        attrs.active = True
    return _write(user, attrs, caller)


def patch_user(
    user: ScimMember,
    patched: InputUser,
    caller: Caller,
    names_set: set[str] | frozenset[str] = frozenset(),
) -> ScimMember:
    """PATCH /Users/{id}: ``patched`` is the current document with the operations
    applied (see :mod:`workspace.scim.patch`). Only an explicit ``active`` changes
    the state: removing the attribute or nulling it leaves the member as they are
    (docs/scim.md: reactivation on ``active`` true, and only PUT reads absent as true).
    A changed given or family name carries ``name.formatted`` and ``displayName``
    with it, except those in ``names_set`` (which the request set itself)."""
    attrs = attributes_of(patched)
    if attrs.active is None:
        attrs.active = user.member.active
    attrs.follow_name_parts(user.attributes, set(names_set), user.member.account)
    return _write(user, attrs, caller)


def _write(user: ScimMember, attrs: Attributes, caller: Caller) -> ScimMember:
    current = user.attributes
    if scim_filter.user_name_key(attrs.user_name) != scim_filter.user_name_key(current.user_name):
        renames.rename(user.member, current.user_name, attrs, caller)
    else:
        attrs.user_name = current.user_name
    _set_active(user, bool(attrs.active), caller)
    _store(user, attrs)
    return user


def delete_user(user: ScimMember, caller: Caller) -> None:
    """DELETE /Users/{id}: deactivation as with ``active`` false, and the resource
    is gone for SCIM from now on (RFC 7644 §3.6 asks for 404 afterwards)."""
    _set_active(user, False, caller)
    if user.identity is None:
        _store(user, user.attributes)
    assert user.identity is not None
    user.identity.deleted_at = utcnow()
    db.session.flush()
    scim_groups.person_changed(user.member, deleted=True)


def _store(user: ScimMember, attrs: Attributes, *, names_account: bool = False) -> None:
    """Keep what the IdP wrote; an account this org's SCIM created takes its names."""
    names_account = names_account or user.names_account
    identity = user.identity
    if identity is None:
        identity = ScimIdentity(org_id=user.member.org_id, member_id=user.member.id)
        db.session.add(identity)
        user.identity = identity
    identity.user_name = attrs.user_name
    identity.user_name_key = scim_filter.user_name_key(attrs.user_name)
    identity.external_id = attrs.external_id
    # The account's email is kept so a user whose emails were all removed still
    # shows one (emails is required in our schema).
    identity.attributes = {
        **attrs.stored(),
        "accountEmail": user.member.account.email,
        **({_OWNS: True} if names_account else {}),
    }
    if names_account:
        accounts.rename_account(user.member.account, attrs.account_name(), *attrs.name_parts())
    identity.email_keys = (
        " "
        + " ".join(scim_filter.email_key(e.get("type"), e["value"]) for e in attrs.emails or [])
        + " "
    )
    identity.updated_at = utcnow()
    db.session.flush()


#: Why SCIM leaves an owner's membership alone (docs/security.md#scim-and-owners).
OWNER_NEEDS_OWNER = (
    "This user is an owner of the organization. Only a SCIM token generated by an "
    "owner can deactivate or reactivate an owner; ask an owner to change it in the "
    "workspace or to generate the token."
)
NOT_YOURSELF = (
    "This SCIM token was generated by this user, and nobody brings their own "
    "membership back through SCIM. Ask another admin to reactivate them in the workspace."
)


def _set_active(user: ScimMember, active: bool, caller: Caller) -> None:
    """The transitions of docs/scim.md. Deactivation keeps the account and what it wrote,
    never touches the last owner, and cuts the member's API tokens for this org
    at once (sessions lose the org through the membership check). Reactivation
    restores the role the member had. An owner is deactivated or reactivated only
    under an owner's token. The token's minter is never reactivated by it; the IdP
    may deactivate them (offboarding), which revokes the token as any deactivation
    of its minter does."""
    member = user.member
    if active == member.active:
        return
    minter = caller.minted_by == member.account_id
    if active and minter:
        raise ForbiddenException(detail=NOT_YOURSELF)
    if member.role == OrgRole.OWNER and not caller.minted_by_owner(member.org_id):
        raise ForbiddenException(detail=OWNER_NEEDS_OWNER)
    if active:
        membership.reactivate_member(member, via="scim")
    elif not membership.deactivate_member(member, via="scim"):
        raise MutabilityException(detail=LAST_OWNER)
    record_event(
        member.org_id,
        "scim.user.reactivated" if active else "scim.user.deactivated",
        subject=member.account.email,
        scim_id=str(member.id),
        by=caller.by,
    )
    if minter:  # deactivated: the minter is never reactivated (refused above)
        revoke_minted_by(member.org_id, member.account_id, "minter_deactivated", actor_id=None)
    # SCIM groups grant roles only to active members (docs/scim.md#groups).
    scim_groups.person_changed(member)


def scim_document(user: ScimMember) -> ScimUser:
    """The current state as an input document, which PATCH operations apply to."""
    return InputUser.model_validate(user.attributes.as_payload())
