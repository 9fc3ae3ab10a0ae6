"""The demo's SCIM OAuth client (docs/scim.md#client-credentials): the identity admin
sets one up for Entra ID (a first one, made for the wrong tenant, deleted), adds a
secret, and rotates it months later (a second added, the first revoked); the IdP
gets access tokens with each, and renames a person's userName once
(docs/scim.md#renames)."""

from __future__ import annotations

from datetime import timedelta

from scim2_models import Context
from sqlalchemy import select

from workspace.core.models import Event
from workspace.extensions import db
from workspace.scim import oauth
from workspace.scim import users as scim_users
from workspace.scim.models import ScimAccessToken, ScimOAuthClient, ScimOAuthSecret
from workspace.scim.resources import InputUser
from workspace.scim.tokens import Caller
from workspace.security import tokens
from workspace.seed.demo import Demo
from workspace.seed.people import DEMO_DOMAIN

#: The SCIM person whose UPN changes, and the new one.
RENAMED, NEW_USER_NAME = "Yuki Sato", f"y.sato@{DEMO_DOMAIN}"
SECRET_DAYS = 180


def _add_secret(demo: Demo, admin) -> ScimOAuthSecret:
    """A secret through the service, its expiry counted from the story's day."""
    info, _ = oauth.add_secret(demo.org.id, admin, oauth.SecretIn(expires_in_days=SECRET_DAYS))
    secret = db.session.get(ScimOAuthSecret, info.id)
    secret.expires_at = demo.stamp.when + timedelta(days=SECRET_DAYS)
    for row in demo.stamp.rows:  # and the audit entry says so too
        if isinstance(row, Event) and row.kind == "scim.oauth_secret.added":
            row.data = {**row.data, "expires_at": secret.expires_at.isoformat()}
    return secret


def _token(demo: Demo, client: ScimOAuthClient, secret: ScimOAuthSecret) -> None:
    """What the token endpoint does once Authlib checked the client's secret (the
    raw token goes nowhere: the seed is not the IdP), back-dated to the story's day."""
    raw = tokens.generate(oauth.TOKEN_PREFIX)
    lifetime = oauth.ACCESS_TOKEN_LIFETIME
    oauth.issue_token(client, secret, raw, int(lifetime.total_seconds()))
    when = demo.stamp.when
    client.last_used_at = secret.last_used_at = when
    token = db.session.scalar(
        select(ScimAccessToken).where(ScimAccessToken.token_hash == tokens.digest(raw))
    )
    token.expires_at = when + lifetime  # long expired, as it would be by now


def client(demo: Demo) -> None:
    admin = demo.people["Marcus Chen"].id
    with demo.at(78):
        oauth.create_client(demo.org.id, admin)
    with demo.at(78, -1):
        oauth.delete_client(demo.org.id, admin)
    with demo.at(77):
        client_id = oauth.create_client(demo.org.id, admin).client_id
        row = oauth.find_client(demo.org.id, client_id)
        first = _add_secret(demo, admin)
    for days in (77, 52):
        with demo.at(days, -0.2):
            _token(demo, row, first)
    with demo.at(30):
        second = _add_secret(demo, admin)
    with demo.at(30, -0.5):
        _token(demo, row, second)  # Entra now uses the new secret
    with demo.at(29):
        oauth.revoke_secret(demo.org.id, first.id, admin)
        first.revoked_at = demo.stamp.when
    with demo.at(11, 0.2):
        _token(demo, row, second)
    caller = Caller(prefix=client_id, minted_by=admin, kind="SCIM OAuth client")
    with demo.at(11):
        user = scim_users.get_user(demo.org.id, str(demo.members[RENAMED].id))
        payload = user.attributes.as_payload()
        payload["userName"] = NEW_USER_NAME
        payload["emails"] = [{"value": NEW_USER_NAME, "type": "work", "primary": True}]
        document = InputUser.model_validate(payload, scim_ctx=Context.RESOURCE_REPLACEMENT_REQUEST)
        scim_users.replace_user(user, document, caller)
