"""Between SCIM documents and what we store: the few User attributes we keep
(RFC 7643 §4.1), checked for sizes the database and the UI can hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from scim2_models import Context, InvalidValueException

from workspace.core import accounts
from workspace.core.models import Account
from workspace.core.names import clean, complete, join_name
from workspace.scim.models import ScimIdentity
from workspace.scim.resources import USER_SCHEMA, InputUser

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_MAX = {
    "userName": 320,
    "externalId": 255,
    "displayName": 200,
    "name": 200,
    "email": 320,
    "type": 32,
}
#: With the sizes above, ten emails fit the stored filter keys (4,000 characters).
_MAX_EMAILS = 10


def is_email(value: str | None) -> bool:
    return bool(value) and len(value) <= _MAX["email"] and bool(_EMAIL.match(value.strip()))


def _too_long(attribute: str, limit_of: str | None = None) -> InvalidValueException:
    limit = _MAX[limit_of or attribute]
    return InvalidValueException(detail=f"{attribute} is longer than {limit} characters.")


@dataclass
class Attributes:
    """The SCIM attributes of one user, in their JSON (camelCase) form."""

    user_name: str
    external_id: str | None = None
    name: dict[str, Any] | None = None
    display_name: str | None = None
    emails: list[dict[str, Any]] | None = None
    active: bool | None = None
    derived_emails: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_identity(cls, identity: ScimIdentity, active: bool) -> Attributes:
        stored = identity.attributes or {}
        account_email = stored.get("accountEmail")
        return cls(
            user_name=identity.user_name,
            external_id=identity.external_id,
            name=stored.get("name"),
            display_name=stored.get("displayName"),
            emails=stored.get("emails"),
            active=active,
            derived_emails=[_work_email(account_email)] if account_email else [],
        )

    @classmethod
    def derived(cls, account: Account, active: bool) -> Attributes:
        """A member SCIM never wrote (the founding owner, an SSO sign-up). The name
        parts are the ones a source supplied; the rest are filled in on output."""
        name = {"givenName": account.given_name, "familyName": account.family_name}
        return cls(
            user_name=account.email,
            name={**{k: v for k, v in name.items() if v}, "formatted": account.name},
            display_name=account.name,
            emails=[_work_email(account.email)],
            active=active,
        )

    def stored(self) -> dict[str, Any]:
        return {"name": self.name, "displayName": self.display_name, "emails": self.emails}

    def name_parts(self) -> tuple[str | None, str | None]:
        name = self.name or {}
        return clean(name.get("givenName")), clean(name.get("familyName"))

    def account_name(self) -> str | None:
        name = self.name or {}
        given = " ".join(p for p in (name.get("givenName"), name.get("familyName")) if p)
        # Each part fits on its own; joined they may not fit the account's name.
        return (self.display_name or name.get("formatted") or given or "")[: _MAX["name"]] or None

    def follow_name_parts(
        self, before: Attributes, set_by_request: set[str], account: Account
    ) -> None:
        """After a PATCH changed givenName or familyName, ``name.formatted`` and
        ``displayName`` follow as the two joined, unless the same request set them
        (docs/scim.md#names). A part the document never had is first filled in as
        GET showed it, so "Acme Owner" with a new givenName "Boss" reads "Boss
        Owner". A displayName the IdP never sent stays absent."""
        given, family = self.name_parts()
        old_given, old_family = before.name_parts()
        if (given, family) == (old_given, old_family) or not (given or family):
            return
        old = before.name or {}
        full = clean(old.get("formatted")) or clean(before.display_name) or account.name
        shown = complete(old_given, old_family, full) or (None, None)
        name = self.name = dict(self.name or {})
        if given is None and old_given is None:
            given = name["givenName"] = shown[0]
        if family is None and old_family is None:
            family = name["familyName"] = shown[1]
        if "formatted" not in set_by_request:
            name["formatted"] = join_name(given, family)
        if "displayName" not in set_by_request and self.display_name is not None:
            self.display_name = name.get("formatted") or join_name(given, family)

    def published(self, account: Account) -> dict[str, Any]:
        """:meth:`as_payload` with ``name.givenName`` and ``name.familyName`` filled
        in, non-empty, wherever there is a name (Okta's conformance test asks it of
        every listed user): the document's own parts, the missing ones split from its
        full name (formatted, else displayName, else the account's). A document whose
        IdP sent no ``name`` or removed it keeps none (docs/scim.md#names)."""
        payload = self.as_payload()
        name = {k: v for k, v in (self.name or {}).items() if v}
        if not name:
            return payload
        given, family = self.name_parts()
        full = clean(name.get("formatted")) or clean(self.display_name) or account.name
        parts = complete(given, family, full) or accounts.name_parts(account)
        name["givenName"], name["familyName"] = parts
        payload["name"] = name
        return payload

    def as_payload(self) -> dict[str, Any]:
        """The document as JSON: what GET answers and what PATCH applies to. A user
        whose emails were all removed still shows the account's email, since
        emails is required here."""
        payload: dict[str, Any] = {
            "schemas": [USER_SCHEMA],
            "userName": self.user_name,
            "active": bool(self.active),
        }
        if self.external_id is not None:
            payload["externalId"] = self.external_id
        if self.name:
            payload["name"] = self.name
        if self.display_name is not None:
            payload["displayName"] = self.display_name
        emails = self.emails or self.derived_emails
        if emails:
            payload["emails"] = emails
        return payload


def _work_email(value: str) -> dict[str, Any]:
    return {"value": value, "type": "work", "primary": True}


def attributes_of(document: InputUser) -> Attributes:
    """Keep what we store from a validated document; standard attributes we do not
    keep (locale, password, title, the enterprise extension...) are dropped."""
    data = document.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)
    user_name = (document.user_name or "").strip()
    if not user_name:
        raise InvalidValueException(detail="userName is required.")
    if len(user_name) > _MAX["userName"]:
        raise _too_long("userName")
    external_id = data.get("externalId")
    if external_id is not None and len(external_id) > _MAX["externalId"]:
        raise _too_long("externalId")
    name = data.get("name") or None
    for part, value in (name or {}).items():
        if len(value) > _MAX["name"]:
            raise _too_long(f"name.{part}", "name")
    display_name = data.get("displayName")
    if display_name is not None and len(display_name) > _MAX["displayName"]:
        raise _too_long("displayName")
    emails = data.get("emails") or None
    if emails is not None:
        if len(emails) > _MAX_EMAILS:
            raise InvalidValueException(detail=f"At most {_MAX_EMAILS} emails per user.")
        for entry in emails:
            if len(entry.get("type") or "") > _MAX["type"]:
                raise _too_long("emails.type", "type")
            if not is_email(entry.get("value")):
                raise InvalidValueException(
                    detail=f"emails.value {entry.get('value')!r} is not an email address."
                )
            entry["value"] = entry["value"].strip()
    return Attributes(
        user_name=user_name,
        external_id=external_id,
        name=name,
        display_name=display_name,
        emails=emails,
        active=document.active,
    )


def email_of(attrs: Attributes) -> str:
    """docs/scim.md: the email is userName when it is one, else the first emails entry."""
    if is_email(attrs.user_name):
        return attrs.user_name.strip().lower()
    for entry in attrs.emails or []:
        return entry["value"].lower()
    raise InvalidValueException(
        detail="userName is not an email address and emails is empty: send the user's "
        "email in userName or as the first emails entry."
    )
