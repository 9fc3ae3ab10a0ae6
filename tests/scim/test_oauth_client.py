"""SCIM OAuth 2.0 client credentials (docs/scim.md#client-credentials), driven by a
real OAuth client library (Authlib's requests ``OAuth2Session``) against the app
served on a loopback socket: token, use, expiry, rotation, revocation, refusals, and
no secret in any later response or log line."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
import requests
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from sqlalchemy import update

from tests.factories import rate_limited_app, verify_domains
from tests.scim.conftest import ACME_DOMAINS, ERROR, USER
from workspace.extensions import db, limiter
from workspace.scim import oauth
from workspace.scim.models import ScimAccessToken
from workspace.types import utcnow


def _client(app, org_id: uuid.UUID, *secret_days: int) -> tuple[str, list[str]]:
    """The org's OAuth client id and one raw secret per ``secret_days``."""
    with app.app_context():
        info = oauth.create_client(org_id, None)
        raws = [
            oauth.add_secret(org_id, None, oauth.SecretIn(expires_in_days=days))[1]
            for days in secret_days
        ]
        db.session.commit()  # the service flushes; outside a request the caller commits
    return info.client_id, raws


def _token_url(base: str, org_id: uuid.UUID) -> str:
    return f"{base}/scim/v2/orgs/{org_id}/oauth/token"


def _fetch(base, org_id, client_id, secret, method="client_secret_post") -> dict:
    session = OAuth2Session(client_id, secret, token_endpoint_auth_method=method)
    return session.fetch_token(_token_url(base, org_id), grant_type="client_credentials")


def _users(base, org_id, access_token) -> requests.Response:
    return requests.get(
        f"{base}/scim/v2/orgs/{org_id}/Users",
        headers={"Authorization": f"Bearer {access_token}"},
        timeout=10,
    )


@pytest.fixture
def org(app, acme):
    verify_domains(app, acme.org_id, *ACME_DOMAINS)
    return acme


def test_client_credentials_token_opens_the_scim_endpoints(app, live_server, org, caplog):
    caplog.set_level(logging.DEBUG)
    client_id, [secret] = _client(app, org.org_id, 30)
    base = live_server.url
    for method in ("client_secret_post", "client_secret_basic"):  # Entra sends the first
        token = _fetch(base, org.org_id, client_id, secret, method)
        assert token["token_type"].lower() == "bearer"
        assert token["access_token"].startswith(oauth.TOKEN_PREFIX)
        assert 3500 <= token["expires_in"] <= 3600
        assert "refresh_token" not in token
        resp = _users(base, org.org_id, token["access_token"])
        assert resp.status_code == 200, resp.text
        assert resp.json()["totalResults"] >= 1

    # Writes work and the audit log names the OAuth client as the caller.
    session = OAuth2Session(client_id, secret, token_endpoint_auth_method="client_secret_post")
    session.fetch_token(_token_url(base, org.org_id), grant_type="client_credentials")
    created = session.post(
        f"{base}/scim/v2/orgs/{org.org_id}/Users",
        json={"schemas": [USER], "userName": "oauth.made@acme.test"},
        headers={"Content-Type": "application/scim+json"},
    )
    assert created.status_code == 201, created.text
    from workspace.core.events import list_events

    with app.app_context():
        events = list_events(org.org_id, kind_prefix="scim.")
        provisioned = next(e for e in events if e.kind == "scim.user.provisioned")
        assert provisioned.data["by"] == f"SCIM OAuth client {client_id}"
        assert "scim.oauth_token.issued" in {e.kind for e in events}
        stored = " ".join(str(e.data) + str(e.subject) for e in events)
        info = oauth.client_info(org.org_id)
    # Neither the secret nor any access token is logged, audited or shown again.
    assert secret not in caplog.text and token["access_token"] not in caplog.text
    assert secret not in stored and token["access_token"] not in stored
    assert info.last_used_at is not None and info.secrets[0].last_used_at is not None


def test_wrong_secret_unknown_client_and_other_orgs_client_are_refused(
    app, live_server, org, globex
):
    client_id, [secret] = _client(app, org.org_id, 30)
    other_id, [other_secret] = _client(app, globex.org_id, 30)
    base = live_server.url
    for cid, sec, org_id in (
        (client_id, oauth.SECRET_PREFIX + "wrong", org.org_id),
        (client_id, "", org.org_id),
        ("scimc_nobody", secret, org.org_id),
        (other_id, other_secret, org.org_id),  # globex's client at acme's endpoint
        (client_id, secret, globex.org_id),  # acme's client at globex's endpoint
    ):
        resp = requests.post(
            _token_url(base, org_id),
            data={"grant_type": "client_credentials"},
            auth=(cid, sec),
            timeout=10,
        )
        assert resp.status_code == 401, resp.text
        assert resp.json()["error"] == "invalid_client", (cid, resp.text)
        assert sec not in resp.text or not sec
    with pytest.raises(OAuthError):
        _fetch(base, org.org_id, client_id, oauth.SECRET_PREFIX + "wrong")
    # A grant other than client credentials is refused by Authlib, not by hand.
    resp = requests.post(
        _token_url(base, org.org_id),
        data={"grant_type": "password", "username": "a", "password": "b"},
        auth=(client_id, secret),
        timeout=10,
    )
    assert resp.status_code == 400 and resp.json()["error"] == "unsupported_grant_type"
    from workspace.core.events import list_events

    with app.app_context():
        refused = [e for e in list_events(org.org_id) if e.kind == "scim.oauth_token.refused"]
    assert len(refused) >= 4 and {e.subject for e in refused} >= {client_id, "scimc_nobody"}


def test_expired_access_token_and_expired_secret_are_refused(app, live_server, org):
    client_id, [secret] = _client(app, org.org_id, 30)
    base = live_server.url
    token = _fetch(base, org.org_id, client_id, secret)["access_token"]
    assert _users(base, org.org_id, token).status_code == 200
    with app.app_context():
        db.session.execute(
            update(ScimAccessToken).values(expires_at=utcnow() - timedelta(seconds=1))
        )
        db.session.commit()
    resp = _users(base, org.org_id, token)
    assert resp.status_code == 401
    body = resp.json()
    assert body["schemas"] == [ERROR] and "expire" in body["detail"]

    from workspace.scim.models import ScimOAuthSecret

    with app.app_context():
        db.session.execute(
            update(ScimOAuthSecret).values(expires_at=utcnow() - timedelta(seconds=1))
        )
        db.session.commit()
    with pytest.raises(OAuthError):
        _fetch(base, org.org_id, client_id, secret)


def test_rotation_two_secrets_then_revoke_one(app, live_server, org):
    client_id, [old, new] = _client(app, org.org_id, 30, 365)
    base = live_server.url
    old_token = _fetch(base, org.org_id, client_id, old)["access_token"]
    new_token = _fetch(base, org.org_id, client_id, new, "client_secret_basic")["access_token"]
    assert _users(base, org.org_id, old_token).status_code == 200
    assert _users(base, org.org_id, new_token).status_code == 200

    with app.app_context():
        with pytest.raises(Exception, match="two live secrets"):
            oauth.add_secret(org.org_id, None, oauth.SecretIn(expires_in_days=5))
        db.session.rollback()
        old_id = next(
            s.id for s in oauth.client_info(org.org_id).secrets if old.startswith(s.prefix)
        )
        oauth.revoke_secret(org.org_id, old_id, None)
        db.session.commit()

    # The revoked secret gets no token, and the token it got stops working at once.
    with pytest.raises(OAuthError):
        _fetch(base, org.org_id, client_id, old)
    assert _users(base, org.org_id, old_token).status_code == 401
    assert _users(base, org.org_id, new_token).status_code == 200
    assert _users(base, org.org_id, _fetch(base, org.org_id, client_id, new)["access_token"]).ok
    from tests.scim.conftest import event_kinds

    assert event_kinds(app, org.org_id, "scim.oauth_") == [
        "scim.oauth_client.created",
        "scim.oauth_secret.added",
        "scim.oauth_secret.added",
        "scim.oauth_token.issued",
        "scim.oauth_token.issued",
        "scim.oauth_secret.revoked",
        "scim.oauth_token.refused",
        "scim.oauth_token.issued",
    ]


@pytest.fixture
def limited(app) -> Iterator:
    limited_app = rate_limited_app(app)
    try:
        yield limited_app
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited_app.app_context():
            db.engine.dispose()


def test_failed_token_requests_are_limited_but_the_right_secret_is_not(app, limited, org):
    client_id, [secret] = _client(app, org.org_id, 30)
    client = limited.test_client()
    url = f"/scim/v2/orgs/{org.org_id}/oauth/token"

    def ask(sec, address="10.9.0.1"):
        return client.post(
            url,
            data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": sec},
            environ_base={"REMOTE_ADDR": address},
        )

    for _ in range(10):
        assert ask("scimcs_wrong").status_code == 401
    over = ask("scimcs_wrong")
    assert over.status_code == 429 and over.get_json()["error"] == "slow_down"
    # Successes use up nothing; another address is not affected by this one's failures.
    assert ask(secret, "10.9.0.2").status_code == 200
    for _ in range(15):
        assert ask(secret, "10.9.0.3").status_code == 200
