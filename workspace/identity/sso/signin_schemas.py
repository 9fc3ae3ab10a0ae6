"""Query strings of the public SSO sign-in routes (``signin_views``), read with
``parse_query``. Each value is taken as sent, unstripped: the sign-in steps judge it."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from workspace.inputs import QueryModel

AsSent = Annotated[str, StringConstraints(strip_whitespace=False)]


class SsoStartQuery(QueryModel):
    """``/auth/sso/start``: the email or its domain, and where to go afterwards."""

    domain: AsSent | None = None
    email: AsSent | None = None
    next: AsSent | None = None


class SsoCallbackQuery(QueryModel):
    """What the IdP sends back (RFC 6749 §4.1.2): the state, and a code or an error."""

    state: AsSent | None = None
    code: AsSent | None = None
    error: AsSent | None = None


class BackchannelLogoutForm(QueryModel):
    """OIDC Back-Channel Logout 1.0 §2.5: the provider's POST carries one form
    parameter; anything else it adds is ignored."""

    logout_token: AsSent | None = Field(default=None, max_length=16_000)
