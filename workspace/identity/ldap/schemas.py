"""JSON shapes of the LDAP connection (docs/api.md#record-shapes)."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from workspace.identity.ldap.service import ConnectionInput
from workspace.inputs import InputModel, OutputModel

Short = Annotated[str, StringConstraints(max_length=500)]
AttributeName = Annotated[str, StringConstraints(max_length=100)]
#: Kept exactly as typed: a password may begin or end with a space.
Password = Annotated[str, StringConstraints(strip_whitespace=False, max_length=500)]
Pem = Annotated[str, StringConstraints(max_length=100_000)]


class LdapConnectionIn(InputModel):
    """Replaces the connection; ``bind_password`` is write-only and blank keeps it."""

    # Blank or absent: the service says what to enter (the form shows it on the field).
    server_uri: Short = ""
    bind_dn: Short = ""
    bind_password: Password | None = None
    search_base: Short = ""
    search_filter: Annotated[str, StringConstraints(max_length=1000)] = ""
    email_attribute: AttributeName = "mail"
    given_name_attribute: AttributeName = "givenName"
    family_name_attribute: AttributeName = "sn"
    use_tls: bool = True
    #: PEM CA bundle for the directory's certificate; absent: the system trust store.
    ca_cert: Pem | None = None

    def to_input(self) -> ConnectionInput:
        return ConnectionInput(**self.model_dump())


class LdapConnectionOut(OutputModel):
    server_uri: str
    bind_dn: str
    search_base: str
    search_filter: str
    email_attribute: str
    given_name_attribute: str
    family_name_attribute: str
    use_tls: bool
    ca_cert: str | None
    has_bind_password: bool


class LdapTestOut(OutputModel):
    ok: bool
    message: str
    sample_count: int
