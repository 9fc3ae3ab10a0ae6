"""Sign-in limits that stop guessing without locking people out, wrong bearer tokens
throttled and audited, and the client address behind trusted proxies
(docs/security.md#sign-in-limits)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import select

from tests.conftest import PASSWORD
from tests.factories import rate_limited_app
from tests.scim.conftest import new_scim_token
from workspace.extensions import db, limiter

FULL_WIDTH_OWNER = "\uff4f\uff57\uff4e\uff45\uff52"  # full-width "owner"


@pytest.fixture
def limited(app) -> Iterator[Flask]:
    """The session's database behind an app whose limits are on (memory storage)."""
    yield from _limited(app)


@pytest.fixture
def behind_proxy(app) -> Iterator[Flask]:
    yield from _limited(app, TRUSTED_PROXIES=1)


def _limited(app, **extra) -> Iterator[Flask]:
    limited_app = rate_limited_app(app, **extra)
    try:
        yield limited_app
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited_app.app_context():
            db.engine.dispose()


def _signin(client, email, password, address="10.1.0.1", **headers):
    return client.post(
        "/signin",
        data={"email": email, "password": password},
        environ_base={"REMOTE_ADDR": address},
        headers=headers,
    ).status_code


# -- password sign-in ---------------------------------------------------------------------


def test_successful_sign_ins_do_not_use_up_the_budget(limited, acme):
    client = limited.test_client()
    assert [_signin(client, "owner@acme.test", PASSWORD) for _ in range(12)] == [302] * 12
    assert _signin(client, "owner@acme.test", "wrong") == 401


def test_a_full_width_spelling_shares_the_names_budget(limited, acme):
    client = limited.test_client()
    spellings = [
        f"{FULL_WIDTH_OWNER}@acme.test",
        "OWNER@acme.test.",
        "owner@\uff21\uff23\uff2d\uff25.test",
    ]
    codes = [_signin(client, spellings[i % 3], "wrong") for i in range(10)]
    assert codes == [401] * 10
    assert _signin(client, "owner@acme.test", PASSWORD) == 429
    # The address itself is not blocked for other people (its budget is looser).
    assert _signin(client, "someone@acme.test", "wrong") == 401


def test_failures_from_elsewhere_never_lock_the_owner_out(limited, acme):
    client = limited.test_client()
    for address in ("10.2.0.1", "10.2.0.2", "10.2.0.3", "10.2.0.4", "10.2.0.5", "10.2.0.6"):
        codes = [_signin(client, "owner@acme.test", "wrong", address) for _ in range(10)]
        assert codes == [401] * 10
    assert _signin(client, "owner@acme.test", PASSWORD, "10.2.0.9") == 302


def test_one_address_guessing_many_names_is_stopped(limited, acme):
    client = limited.test_client()
    codes = [_signin(client, f"person{i}@acme.test", "wrong", "10.3.0.1") for i in range(31)]
    assert codes == [401] * 30 + [429]
    page = client.post(
        "/signin",
        data={"email": "owner@acme.test", "password": PASSWORD},
        environ_base={"REMOTE_ADDR": "10.3.0.1"},
    )
    assert page.status_code == 429
    assert "Too many failed sign-in attempts" in page.get_data(as_text=True)


# -- trusted proxies ----------------------------------------------------------------------


def test_behind_a_trusted_proxy_the_limit_sees_the_client(behind_proxy, acme):
    """TRUSTED_PROXIES=1: the proxy's X-Forwarded-For names the client, so one client's
    failures do not stop another client behind the same proxy."""
    client = behind_proxy.test_client()
    proxy = "192.0.2.10"

    def attempt(client_ip, password):
        return _signin(client, "owner@acme.test", password, proxy, **{"X-Forwarded-For": client_ip})

    assert [attempt("203.0.113.1", "wrong") for _ in range(10)] == [401] * 10
    assert attempt("203.0.113.1", PASSWORD) == 429
    assert attempt("203.0.113.2", PASSWORD) == 302


def test_without_trusted_proxies_forwarded_for_is_ignored(limited, acme):
    """TRUSTED_PROXIES=0 (the default): a client cannot pick a fresh address for each
    guess by sending its own X-Forwarded-For."""
    client = limited.test_client()
    codes = [
        _signin(client, "owner@acme.test", "wrong", "10.4.0.1", **{"X-Forwarded-For": f"1.2.3.{i}"})
        for i in range(11)
    ]
    assert codes == [401] * 10 + [429]


# -- wrong bearer tokens ------------------------------------------------------------------


def test_wrong_api_tokens_are_throttled_per_address(limited, acme):
    client = limited.test_client()

    def call(token, address="10.5.0.1"):
        return client.get(
            acme.url("/projects"),
            headers={"Authorization": f"Bearer {token}"},
            environ_base={"REMOTE_ADDR": address},
        )

    codes = [call(f"ws_guess{i}").status_code for i in range(21)]
    assert codes == [401] * 20 + [429]
    blocked = call("ws_guess-again")
    assert blocked.status_code == 429 and blocked.mimetype == "application/problem+json"
    assert call(acme.token, "10.5.0.2").status_code == 200


def test_a_revoked_api_token_is_audited_in_its_org(app, client, acme):
    from workspace.auth.api_tokens import revoke_token
    from workspace.auth.models import ApiToken
    from workspace.core.models import Event

    with app.app_context():
        token = db.session.scalar(select(ApiToken).where(ApiToken.org_id == acme.org_id))
        prefix = token.prefix
        revoke_token(acme.owner_id, acme.org_id, token.id)
        db.session.commit()
    assert client.get(acme.url("/projects"), headers=acme.headers).status_code == 401
    with app.app_context():
        events = db.session.scalars(
            select(Event).where(Event.org_id == acme.org_id, Event.kind == "api.token_refused")
        ).all()
        assert [(e.subject, e.data["reason"]) for e in events] == [(prefix, "revoked")]


def test_wrong_scim_tokens_are_throttled_and_audited(app, limited, acme):
    from workspace.core.models import Event

    token = new_scim_token(app, acme.org_id)
    client = limited.test_client()
    url = f"/scim/v2/orgs/{acme.org_id}/Users"

    def call(raw, address="10.6.0.1"):
        return client.get(
            url, headers={"Authorization": f"Bearer {raw}"}, environ_base={"REMOTE_ADDR": address}
        ).status_code

    assert [call(f"scim_guess{i}") for i in range(21)] == [401] * 20 + [429]
    assert call("scim_guess-again") == 429
    assert call(token, "10.6.0.2") == 200
    with app.app_context():
        events = db.session.scalars(
            select(Event).where(Event.org_id == acme.org_id, Event.kind == "scim.auth_failed")
        ).all()
    # One row per refused token, none for the throttled requests: no flooding.
    assert len(events) == 20 and {e.data["ip"] for e in events} == {"10.6.0.1"}


def test_a_valid_token_is_never_refused_for_failures_from_its_address(app, limited, acme):
    """Behind one NAT address, one client sends wrong tokens until the address is
    throttled; everyone else's valid API and SCIM tokens there keep working, because
    only a token that was looked up and not found meets the throttle. The guesser is
    still answered 429, with no audit row (a revoked token neither)."""
    from workspace.auth import api_tokens
    from workspace.core.models import Account, Event, Org

    scim = new_scim_token(app, acme.org_id)
    with app.app_context():
        owner, org = db.session.get(Account, acme.owner_id), db.session.get(Org, acme.org_id)
        revoked, revoked_raw = api_tokens.create_token(owner, org, "old")
        api_tokens.revoke_token(acme.owner_id, acme.org_id, revoked.id)
        db.session.commit()
    client = limited.test_client()
    nat = {"REMOTE_ADDR": "10.7.0.1"}

    def api(raw):
        headers = {"Authorization": f"Bearer {raw}"}
        return client.get(acme.url("/projects"), headers=headers, environ_base=nat).status_code

    def scim_call(raw):
        url = f"/scim/v2/orgs/{acme.org_id}/Users"
        headers = {"Authorization": f"Bearer {raw}"}
        return client.get(url, headers=headers, environ_base=nat).status_code

    assert [api(f"ws_guess{i}") for i in range(21)] == [401] * 20 + [429]
    assert [scim_call(f"scim_guess{i}") for i in range(21)] == [401] * 20 + [429]
    assert [api(acme.token) for _ in range(3)] == [200] * 3
    assert [scim_call(scim) for _ in range(3)] == [200] * 3
    assert (api("ws_guess-more"), api(revoked_raw), scim_call("scim_guess-more")) == (429,) * 3
    with app.app_context():
        kinds = db.session.scalars(
            select(Event.kind).where(
                Event.org_id == acme.org_id,
                Event.kind.in_(("api.token_refused", "scim.auth_failed")),
            )
        ).all()
    assert sorted(kinds) == ["scim.auth_failed"] * 20


def test_wrong_agent_tokens_on_mcp_meet_the_same_throttle(app, limited, acme):
    """The agents' MCP endpoint counts wrong ``ws_`` tokens like the JSON API: the
    address is throttled after 20, a revoked token is audited, and a valid agent
    token from the same address keeps working."""
    from tests.factories import create_agent

    client = limited.test_client()
    agent = create_agent(client, acme)
    nat = {"REMOTE_ADDR": "10.8.0.1"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

    def mcp(raw):
        headers = {"Authorization": f"Bearer {raw}", "Accept": "application/json"}
        return client.post("/api/v1/agent/mcp", json=ping, headers=headers, environ_base=nat)

    codes = [mcp(f"ws_guess{i}").status_code for i in range(21)]
    assert codes == [401] * 20 + [429]
    refused = mcp("ws_guess-more")
    assert refused.status_code == 429 and refused.get_json()["error"]["code"] == -32600
    assert [mcp(agent["token"]).status_code for _ in range(2)] == [200, 200]
    # The JSON API shares the budget: the address is throttled there too.
    wrong = {"Authorization": "Bearer ws_guess-api"}
    assert client.get(acme.url("/projects"), headers=wrong, environ_base=nat).status_code == 429


# -- where to go after signing in ---------------------------------------------------------


@pytest.mark.parametrize(
    "target", ["/o/acme/\r\nSet-Cookie: x=1", "/o/acme/%0d%0a", "/\n", "/\t", "//[", "http://["]
)
def test_next_with_control_characters_goes_home_cleanly(client, acme, target):
    from tests.conftest import login

    assert client.get("/signin", query_string={"next": target}).status_code == 200
    login(client, acme.owner_email)
    resp = client.get("/signin", query_string={"next": target})
    assert resp.status_code == 302
    location = resp.headers["Location"]
    assert "\r" not in location and "\n" not in location
    assert all("x=1" not in cookie for cookie in resp.headers.getlist("Set-Cookie"))
    assert location in ("/", "/o/acme/%0d%0a")
