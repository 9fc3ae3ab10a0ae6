"""The SCIM documents this service reads and writes (RFC 7643), built on scim2-models.

Two views of a User: :data:`InputUser` is what an IdP may send (the whole core User
schema plus the enterprise extension, so Okta's ``locale``/``password`` and Entra's
``department`` validate and are then dropped), :class:`PublishedUser` is what we
store, return and describe on /Schemas.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import field_validator
from scim2_models import (
    URN,
    AuthenticationScheme,
    Bulk,
    ChangePassword,
    Context,
    EnterpriseUser,
    ETag,
    Filter,
    Group,
    Mutability,
    Name,
    Patch,
    Required,
    Resource,
    ResourceType,
    Returned,
    Schema,
    ServiceProviderConfig,
    Sort,
    Uniqueness,
    User,
)
from scim2_models import Email as _Email

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
#: Largest page a list answers (RFC 7644 §3.4.2.4 lets the provider cap ``count``).
MAX_RESULTS = 200


class Email(_Email):
    """RFC 7643 §4.1.2 emails, with the value checked by us rather than by
    email-validator: IdP test tenants use ``.test`` and ``.local`` domains, which
    it refuses as special-use names."""

    value: str | None = None


class ScimUser(User):
    emails: list[Email] | None = None
    Emails: ClassVar[type[Email]] = Email

    @field_validator("active", mode="before")
    @classmethod
    def _boolean_active(cls, value: Any) -> Any:
        """A JSON boolean, or Entra ID's ``"True"``/``"False"`` strings; pydantic's
        lax parsing would also read ``"yes"``, ``0`` or ``"off"``, which no IdP
        sends and which more likely mean a mapping mistake than a decision."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise ValueError("active must be true or false")


#: Request payloads: POST, PUT and the document PATCH operations apply to.
InputUser = ScimUser[EnterpriseUser]


class PublishedEmail(_Email):
    value: Annotated[str | None, Required.true] = None


class PublishedUser(Resource):
    """The User attributes this service keeps (RFC 7643 §4.1).

    ``userName`` names the account's email. It may change only as docs/scim.md#renames
    says (an account this org's SCIM alone manages, to an address on a verified
    domain). ``emails`` and ``active`` are always present.
    """

    __schema__ = URN(USER_SCHEMA)

    user_name: Annotated[str | None, Uniqueness.server, Required.true, Mutability.read_write] = None
    """Unique identifier for the User: their email address, or the IdP's login
    name when emails carries the address. Renamed under docs/scim.md#renames."""

    name: Name | None = None
    """The components of the user's real name."""

    display_name: str | None = None
    """The name of the User, suitable for display to end-users."""

    emails: Annotated[list[PublishedEmail] | None, Required.true] = None
    """Email addresses for the user. When userName is not an email address, the
    first one is the account's email."""

    active: Annotated[bool | None, Required.true, Returned.always] = None
    """Whether the user is a member of the organization."""


def user_schema() -> Schema:
    schema = PublishedUser.to_schema()
    schema.name = "User"
    schema.description = "User Account"
    return schema


def discovery_schemas() -> list[Schema]:
    """What /Schemas lists (RFC 7644 §4): the User and Group schemas and the three schemas
    that describe the discovery resources themselves."""
    return [
        user_schema(),
        group_schema(),
        ServiceProviderConfig.to_schema(),
        ResourceType.to_schema(),
        Schema.to_schema(),
    ]


def group_schema() -> Schema:
    """RFC 7643 §4.2 as scim2-models describes it (docs/scim.md#groups)."""
    return Group.to_schema()


def group_resource_type() -> ResourceType:
    return ResourceType(
        id="Group",
        name="Group",
        endpoint="/Groups",
        description="Group: its displayName feeds group sync",
        schema_=GROUP_SCHEMA,
    )


def user_resource_type() -> ResourceType:
    return ResourceType(
        id="User",
        name="User",
        endpoint="/Users",
        description="User Account",
        schema_=USER_SCHEMA,
    )


def service_provider_config() -> ServiceProviderConfig:
    """RFC 7643 §5: PATCH and filters yes; bulk, sorting, ETags, passwords no."""
    return ServiceProviderConfig(
        documentation_uri=None,
        patch=Patch(supported=True),
        bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
        filter=Filter(supported=True, max_results=MAX_RESULTS),
        change_password=ChangePassword(supported=False),
        sort=Sort(supported=False),
        etag=ETag(supported=False),
        authentication_schemes=[
            AuthenticationScheme(
                type=AuthenticationScheme.Type.oauthbearertoken,
                name="Bearer token",
                description="The organization's SCIM token (scim_...), or an access "
                "token from its OAuth client (client credentials at oauth/token under "
                "this base URL), both set up on the SCIM settings page.",
                primary=True,
            )
        ],
    )


def dump(obj: Any, ctx: Context = Context.RESOURCE_QUERY_RESPONSE, **kwargs: Any) -> dict:
    return obj.model_dump(scim_ctx=ctx, **kwargs)
