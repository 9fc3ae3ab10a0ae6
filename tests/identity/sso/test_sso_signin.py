"""SSO sign-in end to end against a real OIDC provider process, and every way it
must refuse (docs/sso.md#why-a-sign-in-is-refused)."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from sqlalchemy import func, select

from tests.factories import create_project, login
from tests.identity.conftest import _local
from workspace.core.models import Account, OrgMember, ProjectMember
from workspace.extensions import db
from workspace.identity.sso import oidc, signin, state
from workspace.types import utcnow


def _count(app, model, **where) -> int:
    with app.app_context():
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return db.session.scalar(query)


def _account(app, email):
    with app.app_context():
        return db.session.scalar(select(Account).where(Account.email == email))


def _project(client, org, name, identifier):
    return create_project(client, org, name, identifier)["id"]


def _map(client, org, group, project_id, role):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project_id, "role": role},
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def test_happy_path(app, client, sso):
    web = _project(client, sso.org, "Website", "WEB")
    ops = _project(client, sso.org, "Operations", "OPS")
    _map(client, sso.org, "engineering", web, "member")
    _map(client, sso.org, "leads", web, "admin")
    _map(client, sso.org, "support", ops, "viewer")
    browser = app.test_client()
    resp = sso.sign_in(
        browser,
        "alice-sub",
        email="alice@acme.test",
        email_verified=True,
        name="Alice Liddell",
        groups=["engineering", "leads", "support"],
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    assert resp.location.endswith(f"/o/{sso.org.slug}/")
    page = browser.get(f"/o/{sso.org.slug}/")
    assert page.status_code == 200
    assert "Alice Liddell" in page.get_data(as_text=True)
    alice = _account(app, "alice@acme.test")
    assert alice.email_verified and alice.name == "Alice Liddell"
    with app.app_context():
        member = db.session.scalar(select(OrgMember).where(OrgMember.account_id == alice.id))
        assert member.role == "member" and member.active
        roles = {
            str(pm.project_id): (pm.role, pm.source)
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == alice.id)
            )
        }
    assert roles == {web: ("admin", "synced"), ops: ("viewer", "synced")}
    events = client.get(sso.org.url("/events"), headers=sso.org.headers).get_json()
    kinds = [e["kind"] for e in events]
    assert "auth.login" in kinds
    assert kinds.count("sso.sync.added") == 2
    login_event = next(e for e in events if e["kind"] == "auth.login")
    assert login_event["data"]["method"] == "sso"


def test_start_for_browser_redirects_and_sign_in_form(app, client, sso):
    html = client.get("/signin").get_data(as_text=True)
    assert "Sign in with SSO" in html and 'action="/auth/sso/start"' in html
    resp = client.get(
        "/auth/sso/start?domain=bob@ACME.test",
        headers={"Accept": "text/html,application/xhtml+xml"},
    )
    assert resp.status_code == 302
    assert resp.location.startswith(sso.provider.url + "/oauth2/authorize?")
    query = parse_qs(urlsplit(resp.location).query)
    assert query["scope"] == ["openid email profile"]
    assert query["code_challenge_method"] == ["S256"]
    assert query["nonce"][0] and query["state"][0]
    assert query["redirect_uri"] == ["http://localhost/auth/sso/callback"]
    cookie = resp.headers["Set-Cookie"]
    assert state.BINDING_COOKIE in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_pkce_verifier_sent_matches_challenge(app, client, sso, monkeypatch):
    sent = []
    real_fetch = oidc.fetch

    def spy(method, url, **kwargs):
        sent.append((method, url, kwargs))
        return real_fetch(method, url, **kwargs)

    monkeypatch.setattr(oidc, "fetch", spy)
    sso.provider.set_user("pk-sub", email="pk@acme.test")
    auth_url = sso.start(client)
    challenge = parse_qs(urlsplit(auth_url).query)["code_challenge"][0]
    back = sso.provider.authorize(auth_url, "pk-sub")
    assert client.get(_local(back)).status_code == 302
    token_calls = [kw for m, url, kw in sent if m == "POST" and url.endswith("/oauth2/token")]
    assert len(token_calls) == 1
    verifier = token_calls[0]["data"]["code_verifier"]
    digest = hashlib.sha256(verifier.encode()).digest()
    assert base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == challenge
    assert 43 <= len(verifier) <= 128
    assert verifier not in auth_url  # the verifier never travels through the browser


def test_existing_account_reused_and_returning_member_not_duplicated(app, client, sso):
    with app.app_context():
        from workspace.core.accounts import ensure_account

        ensure_account("carol@acme.test", "Carol From Before")
        db.session.commit()
    for _ in range(2):
        browser = app.test_client()
        assert (
            sso.sign_in(browser, "carol-sub", email="carol@acme.test", name="Carol IdP").status_code
            == 302
        )
    carol = _account(app, "carol@acme.test")
    assert _count(app, Account, email="carol@acme.test") == 1
    assert carol.name == "Carol From Before"  # reused as is
    assert carol.email_verified
    assert _count(app, OrgMember, account_id=carol.id) == 1


def _rejected(resp, says: str, status: int) -> None:
    html = resp.get_data(as_text=True)
    assert resp.status_code == status, html[:400]
    assert says in html
    assert "Back to sign in" in html


def _nobody_new(app, org, before: int, email: str) -> None:
    assert _account(app, email) is None
    assert _count(app, OrgMember, org_id=org.org_id) == before


def test_no_enabled_sso(app, client, sso):
    resp = client.get(
        "/auth/sso/start?domain=nowhere.example", headers={"Accept": "application/json"}
    )
    assert resp.status_code == 404
    assert (
        "No enabled single sign-on is configured for nowhere.example" in resp.get_json()["detail"]
    )
    html = client.get("/auth/sso/start?domain=nowhere.example", headers={"Accept": "text/html"})
    _rejected(html, "No enabled single sign-on", 404)
    client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace-acme",
            "enabled": False,
        },
    )
    resp = client.get("/auth/sso/start?domain=acme.test", headers={"Accept": "application/json"})
    assert resp.status_code == 404


def _auth_and_back(sso, client, sub="dan-sub", **claims):
    sso.provider.set_user(sub, **(claims or {"email": "dan@acme.test"}))
    back = sso.provider.authorize(sso.start(client), sub)
    return _local(back)


def test_tampered_state(app, client, sso):
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    back = _auth_and_back(sso, client)
    query = parse_qs(urlsplit(back).query)
    forged = query["state"][0][:-3] + ("AAA" if not query["state"][0].endswith("AAA") else "BBB")
    resp = client.get(
        "/auth/sso/callback", query_string={"code": query["code"][0], "state": forged}
    )
    _rejected(resp, "invalid or was tampered with", 400)
    resp = client.get("/auth/sso/callback", query_string={"code": query["code"][0]})
    _rejected(resp, "has no state", 400)
    _nobody_new(app, sso.org, before, "dan@acme.test")


def test_expired_state_with_frozen_clock(app, client, sso, monkeypatch):
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    back = _auth_and_back(sso, client)
    later = utcnow() + timedelta(minutes=10, seconds=5)
    monkeypatch.setattr(state, "now", lambda: later)
    _rejected(client.get(back), "longer than ten minutes", 400)
    _nobody_new(app, sso.org, before, "dan@acme.test")


def test_state_still_good_just_under_ten_minutes(app, client, sso, monkeypatch):
    back = _auth_and_back(sso, client)
    later = utcnow() + timedelta(minutes=9, seconds=50)
    monkeypatch.setattr(state, "now", lambda: later)
    assert client.get(back).status_code == 302


def test_replayed_state(app, client, sso):
    back = _auth_and_back(sso, client)
    assert client.get(back).status_code == 302
    members = _count(app, OrgMember, org_id=sso.org.org_id)
    _rejected(client.get(back), "already used", 400)
    assert _count(app, OrgMember, org_id=sso.org.org_id) == members


def test_state_bound_to_the_browser(app, client, sso):
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    back = _auth_and_back(sso, client)
    _rejected(app.test_client().get(back), "started in another browser", 400)
    _nobody_new(app, sso.org, before, "dan@acme.test")


def test_nonce_mismatch(app, client, sso):
    """A code obtained for one attempt, brought back with another attempt's state
    (code injection): the id_token's nonce belongs to the first attempt."""
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    sso.provider.set_user("eve-sub", email="eve@acme.test")
    first = sso.start(client)
    second = sso.start(client)
    code = parse_qs(urlsplit(sso.provider.authorize(first, "eve-sub")).query)["code"][0]
    other_state = parse_qs(urlsplit(second).query)["state"][0]
    resp = client.get("/auth/sso/callback", query_string={"code": code, "state": other_state})
    _rejected(resp, "nonce does not match", 403)
    _nobody_new(app, sso.org, before, "eve@acme.test")


def test_id_token_signed_by_wrong_key(app, client, sso, monkeypatch):
    """Failure injection: the token response carries an id_token with the right
    claims (and key id, when the provider sets one), signed by a key the provider
    never published."""
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    real_exchange = oidc.exchange_code
    rogue = RSAKey.generate_key(2048)

    def forged_exchange(*args, **kwargs):
        tokens = real_exchange(*args, **kwargs)
        header_b64, claims_b64, _ = tokens["id_token"].split(".")
        header, claims = (
            json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
            for part in (header_b64, claims_b64)
        )
        assert claims["email"] == "mallory@acme.test"  # the real token, only re-signed
        forged_header = {"alg": "RS256"} | ({"kid": header["kid"]} if header.get("kid") else {})
        tokens["id_token"] = jwt.encode(forged_header, claims, rogue)
        return tokens

    monkeypatch.setattr(oidc, "exchange_code", forged_exchange)
    back = _auth_and_back(sso, client, "mallory-sub", email="mallory@acme.test")
    _rejected(client.get(back), "signature does not match", 403)
    _nobody_new(app, sso.org, before, "mallory@acme.test")


@pytest.mark.parametrize(
    ("claims", "says"),
    [
        ({"name": "No Mail"}, "sent no email address"),
        ({"email": "bob@other.example"}, "accepts only acme.test addresses"),
        ({"email": "bob@sub.acme.test"}, "accepts only acme.test addresses"),
        ({"email": "bob@acme.test", "email_verified": False}, "is not verified"),
        ({"email": "bob\u0000@acme.test"}, "control characters"),
    ],
)
def test_profile_rejections(app, client, sso, claims, says):
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    accounts = _count(app, Account)
    sub = f"sub-{uuid.uuid4().hex[:8]}"
    back = _auth_and_back(sso, client, sub, **claims)
    _rejected(client.get(back), says, 403)
    assert _count(app, Account) == accounts
    assert _count(app, OrgMember, org_id=sso.org.org_id) == before
    kinds = [
        e["kind"] for e in client.get(sso.org.url("/events"), headers=sso.org.headers).get_json()
    ]
    assert "auth.sso.rejected" in kinds and "auth.login" not in kinds


def test_idp_error_and_unverified_domain(app, client, sso, doh):
    back = _auth_and_back(sso, client)
    st = parse_qs(urlsplit(back).query)["state"][0]
    resp = client.get("/auth/sso/callback", query_string={"error": "access_denied", "state": st})
    _rejected(resp, "did not sign you in (access_denied)", 403)
    # The org removes its verified domain: SSO for it stops at once.
    domain = client.get(sso.org.url("/domains"), headers=sso.org.headers).get_json()[0]
    back = _auth_and_back(sso, client)
    client.delete(sso.org.url(f"/domains/{domain['id']}"), headers=sso.org.headers)
    _rejected(client.get(back), "no longer enabled", 403)
    resp = client.get("/auth/sso/start?domain=acme.test", headers={"Accept": "application/json"})
    assert resp.status_code == 404


def test_next_path_is_kept_only_when_same_origin(app, client, sso):
    sso.provider.set_user("nx-sub", email="nx@acme.test")
    url = sso.start(client, next=f"/o/{sso.org.slug}/projects")
    resp = client.get(_local(sso.provider.authorize(url, "nx-sub")))
    assert resp.location.endswith(f"/o/{sso.org.slug}/projects")
    url = sso.start(client, next="https://evil.example/")
    resp = client.get(_local(sso.provider.authorize(url, "nx-sub")))
    assert "evil" not in resp.location


def test_secret_never_leaves_the_server(app, client, sso, caplog):
    import logging

    from tests.identity.conftest import CLIENT_SECRET

    caplog.set_level(logging.DEBUG)
    bodies = []
    bodies.append(client.get(sso.org.url("/sso"), headers=sso.org.headers).get_data(as_text=True))
    bodies.append(
        client.put(
            sso.org.url("/sso"),
            headers=sso.org.headers,
            json={
                "email_domain": "acme.test",
                "issuer_url": sso.provider.url,
                "client_id": "workspace-acme",
                "client_secret": "",
                "enabled": True,
            },
        ).get_data(as_text=True)
    )
    assert sso.sign_in(app.test_client(), "sec-sub", email="sec@acme.test").status_code == 302
    bodies.append(
        client.get(sso.org.url("/events"), headers=sso.org.headers).get_data(as_text=True)
    )
    login(client, sso.org.owner_email)
    bodies.append(client.get(f"/o/{sso.org.slug}/settings/sso").get_data(as_text=True))
    bodies.append(
        client.post(
            f"/o/{sso.org.slug}/settings/sso",
            data={
                "email_domain": "acme.test",
                "issuer_url": sso.provider.url,
                "client_id": "workspace-acme",
                "client_secret": "",
                "enabled": "1",
            },
        ).get_data(as_text=True)
    )
    bodies.append(client.get("/api/v1/openapi.json").get_data(as_text=True))
    for body in bodies:
        assert CLIENT_SECRET not in body
    assert '"has_client_secret": true' in bodies[0] or '"has_client_secret":true' in bodies[0]
    for record in caplog.records:
        assert CLIENT_SECRET not in record.getMessage()
        assert CLIENT_SECRET not in str(record.__dict__)
    # Blank kept the old secret: the sign-in above worked with it.
    with app.app_context():
        from workspace.identity.sso.connection import client_secret, get_connection

        conn = get_connection(sso.org.org_id)
        assert CLIENT_SECRET not in conn.client_secret_sealed
        assert client_secret(conn) == CLIENT_SECRET


def test_sign_in_is_not_a_500_when_provider_is_unreachable(app, client, sso, monkeypatch):
    with app.app_context():
        from workspace.identity.sso.connection import get_connection

        conn = get_connection(sso.org.org_id)
        conn.issuer_url = "http://127.0.0.1:9"  # discard port: nothing listens
        db.session.commit()
    resp = client.get("/auth/sso/start?domain=acme.test", headers={"Accept": "application/json"})
    assert resp.status_code == 502
    assert "could not be reached" in resp.get_json()["detail"]


def test_signin_module_never_reads_request():
    import inspect

    assert "request" not in inspect.getsource(signin).replace("requests", "")


def test_denied_at_the_provider(app, client, sso):
    import requests

    before = _count(app, OrgMember, org_id=sso.org.org_id)
    resp = requests.post(
        sso.start(client), data={"action": "deny"}, allow_redirects=False, timeout=5
    )
    assert resp.status_code == 302
    _rejected(client.get(_local(resp.headers["Location"])), "did not sign you in", 403)
    assert _count(app, OrgMember, org_id=sso.org.org_id) == before


def test_userinfo_for_another_subject_is_refused(app, client, sso, monkeypatch):
    """Failure injection: userinfo answers for someone else (OIDC Core §5.3.2)."""
    real = oidc.fetch_userinfo

    def other_user(meta, token):
        return real(meta, token) | {"sub": "someone-else", "email": "boss@acme.test"}

    monkeypatch.setattr(oidc, "fetch_userinfo", other_user)
    back = _auth_and_back(sso, client, "ivy-sub", email="ivy@acme.test")
    _rejected(client.get(back), "belongs to another user", 403)
    assert _account(app, "boss@acme.test") is None and _account(app, "ivy@acme.test") is None


def test_email_verified_as_string_false(app, client, sso):
    back = _auth_and_back(sso, client, "jo-sub", email="jo@acme.test", email_verified="false")
    _rejected(client.get(back), "is not verified", 403)


def test_start_without_accept_header_answers_json(client, sso):
    resp = client.get("/auth/sso/start?domain=acme.test")
    assert resp.status_code == 200
    assert resp.get_json()["authorization_url"].startswith(sso.provider.url)
    missing = client.get("/auth/sso/start")
    assert missing.status_code == 400
    assert "Enter a domain" in missing.get_json()["detail"]


def test_an_agent_is_refused_at_the_end_of_a_real_sso_sign_in(app, client, sso):
    """An agent whose address lands on the org's SSO domain still cannot sign in
    through the IdP: the shared sign-in ending refuses agents, and nothing changes."""
    agent = client.post(
        sso.org.url("/agents"), json={"name": "Robot"}, headers=sso.org.headers
    ).get_json()
    with app.app_context():
        db.session.get(Account, uuid.UUID(agent["id"])).email = "robot@acme.test"
        db.session.commit()
    before = _count(app, OrgMember, org_id=sso.org.org_id)
    browser = app.test_client()
    resp = sso.sign_in(browser, "robot-sub", email="robot@acme.test", email_verified=True)
    _rejected(resp, "Agents do not sign in", 403)
    assert _count(app, OrgMember, org_id=sso.org.org_id) == before
    assert browser.get(f"/o/{sso.org.slug}/").status_code == 302  # no session


def test_client_credentials_are_form_encoded_in_basic_auth(app, client, sso, monkeypatch):
    """RFC 6749 §2.3.1: a secret with ':' '%' or non-ASCII is urlencoded first."""
    from urllib.parse import quote

    secret = "p:a%ss wörd/+"
    resp = client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace acme",
            "client_secret": secret,
            "enabled": True,
        },
    )
    assert resp.status_code == 200, resp.get_json()
    sent = []
    real_fetch = oidc.fetch

    def spy(method, url, **kwargs):
        sent.append(kwargs)
        return real_fetch(method, url, **kwargs)

    monkeypatch.setattr(oidc, "fetch", spy)
    sso.sign_in(app.test_client(), "enc-sub", email="enc@acme.test")
    auth = next(kw["auth"] for kw in sent if "auth" in kw)
    assert (auth.username, auth.password) == (
        quote("workspace acme", safe=""),
        quote(secret, safe=""),
    )
    assert auth.password == "p%3Aa%25ss%20w%C3%B6rd%2F%2B"


def test_control_characters_from_the_idp_never_reach_the_database(app, client, sso):
    """A name or group with a NUL (PostgreSQL text holds none) is cleaned or ignored,
    and the sign-in goes through."""
    web = _project(client, sso.org, "Website", "WEB")
    _map(client, sso.org, "eng", web, "member")
    resp = sso.sign_in(
        app.test_client(),
        "nul-sub",
        email="nul@acme.test",
        name="Nu\u0000ll Person",
        groups=["eng", "e\u0000ng"],
    )
    assert resp.status_code == 302, resp.get_data(as_text=True)
    person = _account(app, "nul@acme.test")
    assert person.name == "Null Person"
    with app.app_context():
        roles = [
            pm.role
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == person.id)
            )
        ]
    assert roles == ["member"]


# -- issue 13: what the provider says, made canonical (docs/security.md#canonical-emails)


@pytest.mark.parametrize("value", [0, 1, "no", "yes", "False", "", None, [], {"v": True}])
def test_email_verified_is_only_true_when_the_provider_says_true(app, client, sso, value):
    sub = f"ev-{uuid.uuid4().hex[:8]}"
    back = _auth_and_back(sso, client, sub, email="eve@acme.test", email_verified=value)
    _rejected(client.get(back), "is not verified", 403)
    assert _account(app, "eve@acme.test") is None


@pytest.mark.parametrize("value", [True, "true", "TRUE", " true "])
def test_email_verified_true_boolean_or_string_signs_in(app, sso, value):
    browser = app.test_client()
    sub = f"ok-{uuid.uuid4().hex[:8]}"
    resp = sso.sign_in(browser, sub, email="tru@acme.test", email_verified=value)
    assert resp.status_code == 302, resp.get_data(as_text=True)[:400]
    assert _account(app, "tru@acme.test").email_verified


@pytest.mark.parametrize(
    "spelling",
    [
        "dot@acme.test.",
        "dot@\uff21\uff23\uff2d\uff25.test",
        "\uff24\uff2f\uff34@acme.test",
        "Dot@Acme.Test.",
    ],
)
def test_every_spelling_of_an_address_is_one_account(app, sso, spelling):
    first = app.test_client()
    assert sso.sign_in(first, "dot-sub", email="dot@acme.test").status_code == 302
    again = app.test_client()
    resp = sso.sign_in(again, f"alt-{uuid.uuid4().hex[:8]}", email=spelling)
    assert resp.status_code == 302, resp.get_data(as_text=True)[:400]
    with app.app_context():
        emails = sorted(
            db.session.scalars(select(Account.email).where(Account.email.like("%dot%")))
        )
    assert emails == ["dot@acme.test"]


def test_an_address_with_two_at_signs_is_refused(app, client, sso):
    back = _auth_and_back(sso, client, "two-at", email="a@evil.example@acme.test")
    _rejected(client.get(back), "exactly one @", 403)
    with app.app_context():
        assert db.session.scalar(select(Account).where(Account.email.like("%evil%"))) is None


def test_given_and_family_name_claims_name_the_new_account(app, client, sso):
    """docs/scim.md#names: the parts are stored as the IdP sent them and SCIM lists
    them; a later sign-in does not rename the account."""
    from tests.scim.conftest import new_scim_token

    claims = {"email": "mj@acme.test", "given_name": "Mary Jane", "family_name": "Watson"}
    assert sso.sign_in(app.test_client(), "mj-sub", **claims).status_code == 302
    mj = _account(app, "mj@acme.test")
    assert (mj.name, mj.given_name, mj.family_name) == ("Mary Jane Watson", "Mary Jane", "Watson")
    claims = {"email": "mj@acme.test", "given_name": "Mary", "family_name": "Parker"}
    assert sso.sign_in(app.test_client(), "mj-sub", **claims).status_code == 302
    mj = _account(app, "mj@acme.test")
    assert (mj.name, mj.given_name, mj.family_name) == ("Mary Jane Watson", "Mary Jane", "Watson")

    # A provider that sends only `name`: the parts are split from it when listed.
    claims = {"email": "jd@acme.test", "name": "Jan van der Berg"}
    assert sso.sign_in(app.test_client(), "jd-sub", **claims).status_code == 302
    assert _account(app, "jd@acme.test").given_name is None
    token = new_scim_token(app, sso.org.org_id, ())  # acme.test is verified already
    listed = client.get(
        f"/scim/v2/orgs/{sso.org.org_id}/Users", headers={"Authorization": f"Bearer {token}"}
    ).get_json()["Resources"]
    names = {r["userName"]: (r["name"]["givenName"], r["name"]["familyName"]) for r in listed}
    assert names["mj@acme.test"] == ("Mary Jane", "Watson")
    assert names["jd@acme.test"] == ("Jan", "van der Berg")
    assert all(given and family for given, family in names.values())
