"""Sign-out that reaches the IdP (docs/sso.md#sign-out).

RP-initiated logout runs against the real oidc-provider-mock process, which
advertises ``end_session_endpoint``. That provider cannot send back-channel logout
tokens, so those are signed here with a key that a real JWKS HTTP server on loopback
publishes (the DoH test server's document paths), and the connection's issuer is
pointed at that server."""

from __future__ import annotations

import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from sqlalchemy import select

from tests.conftest import login
from workspace.auth.models import AuthSession
from workspace.core.models import Event
from workspace.extensions import db
from workspace.identity.sso.logout import BACKCHANNEL_EVENT


def _sessions(app, email=None):
    with app.app_context():
        rows = db.session.scalars(select(AuthSession)).all()
        db.session.expunge_all()
        return [r for r in rows if email is None or r.account.email == email]


def test_signing_out_of_an_sso_session_ends_it_at_the_provider(app, client, sso):
    resp = sso.sign_in(client, "ann-sub", email="ann@acme.test", email_verified=True)
    assert resp.status_code == 302
    [row] = _sessions(app, "ann@acme.test")
    assert row.sso_org_id == sso.org.org_id and row.idp_sub == "ann-sub"
    assert row.idp_id_token_sealed and "eyJ" not in row.idp_id_token_sealed

    out = client.post("/signout")
    assert out.status_code == 302
    target = urlsplit(out.headers["Location"])
    assert (
        f"{target.scheme}://{target.netloc}{target.path}"
        == sso.provider.url + "/oauth2/end_session"
    )
    params = parse_qs(target.query)
    hint = jwt.decode(
        params["id_token_hint"][0],
        KeySet.import_key_set(requests.get(sso.provider.url + "/jwks", timeout=5).json()),
    )
    assert hint.claims["sub"] == "ann-sub"
    back = params["post_logout_redirect_uri"][0]
    assert back.endswith("/signin") and params["client_id"] == ["workspace-acme"]
    # The provider's own end-session form, confirmed, sends the browser back to us.
    form = requests.get(out.headers["Location"], timeout=5)
    assert form.status_code == 200
    done = requests.post(
        sso.provider.url + "/oauth2/end_session/confirm",
        data={"redirect_uri": back},
        allow_redirects=False,
        timeout=5,
    )
    assert done.status_code == 302 and done.headers["Location"] == back
    assert client.get("/o/acme/").status_code == 302  # signed out here too


def test_rp_logout_can_be_switched_off_and_password_sessions_sign_out_locally(
    app, client, sso, acme
):
    put = client.put(
        acme.url("/sso"),
        headers=acme.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace-acme",
            "enabled": True,
            "idp_logout": False,
        },
    )
    assert put.status_code == 200 and put.get_json()["idp_logout"] is False
    assert put.get_json()["backchannel_logout_uri"].endswith(
        f"/auth/sso/backchannel-logout/{acme.org_id}"
    )
    sso.sign_in(client, "bo-sub", email="bo@acme.test", email_verified=True)
    out = client.post("/signout")
    assert urlsplit(out.headers["Location"]).path == "/signin"
    login(client, acme.owner_email)
    out = client.post("/signout")
    assert urlsplit(out.headers["Location"]).path == "/signin"


# -- back-channel logout ------------------------------------------------------------------


class LogoutIdp:
    """A loopback issuer whose discovery and JWKS the DoH server serves; it signs
    logout tokens with its own RSA key."""

    def __init__(self, url: str, doh):
        self.url = url
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k1", "use": "sig", "alg": "RS256"})
        doh.documents["/.well-known/openid-configuration"] = {
            "issuer": url,
            "authorization_endpoint": url + "/authorize",
            "token_endpoint": url + "/token",
            "userinfo_endpoint": url + "/userinfo",
            "jwks_uri": url + "/jwks",
            "id_token_signing_alg_values_supported": ["RS256"],
            "backchannel_logout_supported": True,
            "backchannel_logout_session_supported": True,
        }
        doh.documents["/jwks"] = KeySet([self.key]).as_dict(private=False)

    def token(self, key=None, **overrides) -> str:
        claims = {
            "iss": self.url,
            "aud": "workspace-acme",
            "iat": int(time.time()),
            "jti": uuid.uuid4().hex,
            "sub": "cy-sub",
            "events": {BACKCHANNEL_EVENT: {}},
        } | overrides
        claims = {k: v for k, v in claims.items() if v is not None}
        return jwt.encode(
            {"alg": "RS256", "kid": "k1", "typ": "logout+jwt"}, claims, key or self.key
        )


@pytest.fixture
def idp(app, client, sso, doh, doh_server):
    """Cy signed in through the real provider twice (two browsers); then the
    connection's issuer moves to the loopback issuer that signs logout tokens."""
    browsers = [app.test_client(), app.test_client()]
    for browser in browsers:
        assert (
            sso.sign_in(browser, "cy-sub", email="cy@acme.test", email_verified=True).status_code
            == 302
        )
    url, _ = doh_server
    issuer = LogoutIdp(url, doh)
    resp = client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": url,
            "client_id": "workspace-acme",
            "enabled": True,
        },
    )
    assert resp.status_code == 200 and resp.get_json()["discovery"]["ok"], resp.get_json()
    issuer.browsers = browsers
    return issuer


def _post(client, org_id, token):
    data = {} if token is None else {"logout_token": token}
    return client.post(f"/auth/sso/backchannel-logout/{org_id}", data=data)


def test_backchannel_logout_ends_the_subjects_sessions(app, client, idp, acme):
    other = app.test_client()
    login(other, acme.owner_email)
    resp = _post(client, acme.org_id, idp.token())
    assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
    for browser in idp.browsers:
        assert browser.get("/o/acme/").status_code == 302
    assert other.get("/o/acme/").status_code == 200  # another person's session stays
    with app.app_context():
        event = db.session.scalar(select(Event).where(Event.kind == "auth.sso.backchannel_logout"))
        assert event.data["sessions"] == 2


def test_backchannel_logout_by_sid_ends_only_that_session(app, client, idp, acme):
    first, second = _sessions(app, "cy@acme.test")
    with app.app_context():
        db.session.get(AuthSession, first.id).idp_sid = "sid-1"
        db.session.get(AuthSession, second.id).idp_sid = "sid-2"
        db.session.commit()
    assert _post(client, acme.org_id, idp.token(sub=None, sid="sid-1")).status_code == 200
    ended = {r.id: r.revoked_at is not None for r in _sessions(app, "cy@acme.test")}
    assert ended == {first.id: True, second.id: False}


@pytest.mark.parametrize(
    ("overrides", "says"),
    [
        ({"aud": "someone-else"}, "aud"),
        ({"iss": "http://127.0.0.1:1"}, "iss"),
        ({"events": None}, "back-channel logout event"),
        ({"events": {"other": {}}}, "back-channel logout event"),
        ({"nonce": "n"}, "nonce"),
        ({"sub": None}, "neither a sub nor a sid"),
        ({"jti": None}, "jti"),
        ({"iat": None}, "iat"),
        ({"iat": int(time.time()) - 3600}, "too old"),
    ],
)
def test_refused_logout_tokens_are_400_with_a_reason(app, client, idp, acme, overrides, says):
    resp = _post(client, acme.org_id, idp.token(**overrides))
    assert resp.status_code == 400
    assert says in resp.get_json()["error_description"], resp.get_json()
    assert all(b.get("/o/acme/").status_code == 200 for b in idp.browsers)


def test_forged_replayed_and_missing_tokens_are_refused(app, client, idp, acme):
    forged = idp.token(key=RSAKey.generate_key(2048, parameters={"kid": "k1"}))
    assert "signed" in _post(client, acme.org_id, forged).get_json()["error_description"]
    assert _post(client, acme.org_id, None).status_code == 400
    assert _post(client, acme.org_id, "not-a-jwt").status_code == 400
    too_long = _post(client, acme.org_id, "x" * 20_000)
    assert too_long.status_code == 400 and too_long.get_json()["error_description"]
    assert _post(client, uuid.uuid4(), idp.token()).status_code == 400  # no such connection
    token = idp.token()
    assert _post(client, acme.org_id, token).status_code == 200
    replay = _post(client, acme.org_id, token)
    assert replay.status_code == 400 and "replayed" in replay.get_json()["error_description"]
