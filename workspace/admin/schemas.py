"""Input and output shapes of Settings > Members and General, shared by the pages
(``parse_form``) and the admin JSON API (``parse_body``)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator

from workspace.core.accounts import MAX_EMAIL
from workspace.core.models import OrgRole
from workspace.core.models.accounts import NAME_SIZE
from workspace.core.orgs import MAX_NAME, WEEKDAYS
from workspace.core.schemas import AccountOut
from workspace.inputs import InputModel, OutputModel, QueryModel, absent

Email = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_EMAIL)]


#: A member's status on Settings > Members: ``pending`` is an invited person who has
#: not signed in since (docs/admin.md#status).
MemberStatus = Literal["active", "pending", "revoked", "deactivated"]
#: How a membership began (``OrgMember.joined_via``).
JoinedVia = Literal["password", "sso", "ldap", "scim", "agent", "invite", "manual"]


class MemberListQuery(QueryModel):
    """Settings > Members: a search over name and email, filters by role, status and
    how people joined, and the page (50 a page)."""

    q: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    #: Named apart from ``role``, which a row's role change posts with the list's filters.
    has_role: OrgRole | None = None
    status: MemberStatus | None = None
    joined: JoinedVia | None = None
    page: int = Field(default=1, ge=1, le=100_000)

    @field_validator("has_role", "status", "joined", mode="before")
    @classmethod
    def _blank_is_any(cls, value: object) -> object:
        """The filter's "Any" option sends an empty value."""
        return None if value == "" else value

    def filters(self) -> dict[str, str]:
        """The filters and search as URL arguments, to keep them across actions and pages."""
        values = {
            "q": self.q,
            "has_role": self.has_role,
            "status": self.status,
            "joined": self.joined,
        }
        return {k: str(v) for k, v in values.items() if v}


class MemberPatch(InputModel):
    """Change a member's org role, or deactivate (false) or reactivate (true) them."""

    # The document says what ``_one_role`` refuses.
    model_config = ConfigDict(json_schema_extra={"not": {"required": ["role", "role_from_groups"]}})

    role: OrgRole = absent()
    #: ``true``: let group sync set the role again after a person set it by hand: admin
    #: when one of the member's groups is mapped to the org, else member
    #: (docs/sso.md#org-role-from-groups). ``false`` changes nothing.
    role_from_groups: bool = absent()
    active: bool = absent()

    @model_validator(mode="after")
    def _one_role(self) -> MemberPatch:
        if self.role is not None and self.role_from_groups:
            raise ValueError("send either role or role_from_groups, not both")
        return self


class RoleChange(MemberListQuery):
    """A member's new role, from their row; the list's search and page travel along so
    the admin goes back to the list they were on."""

    role: OrgRole


class InvitationCreate(InputModel):
    """Invite a person by email with an org role (owner only by an owner)."""

    email: Email
    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=NAME_SIZE)] = ""
    role: OrgRole = OrgRole.MEMBER


class OrgSettings(InputModel):
    """Settings > General: the org's name and IANA time zone (the slug never changes)."""

    name: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME)
    ]
    timezone: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
    #: The day weeks start on in analytics' time series (docs/analytics.md#time).
    week_start: Literal[WEEKDAYS] = "monday"  # type: ignore[valid-type]


class AdminMemberOut(OutputModel):
    id: uuid.UUID
    account: AccountOut
    role: str
    #: Who set the role: null, the role they joined with; ``manual``, a person;
    #: ``synced``, a group mapped to the org (``role_synced_from`` names it).
    role_source: Literal["manual", "synced"] | None = None
    role_synced_from: str | None = None
    active: bool
    joined_via: str
    created_at: datetime
    deactivated_at: datetime | None = None


class InvitationOut(OutputModel):
    #: Null for a join link: the account exists but never proved the address, so it
    #: becomes a member only when its holder opens the link signed in to it.
    member: AdminMemberOut | None
    #: The one-time sign-in link, in this answer only; null when the person already
    #: has their own way to sign in.
    sign_in_url: str | None
    expires_at: datetime | None
    message: str
