"""Directory sign-in against the session's real slapd (docs/ldap.md#signing-in)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from tests.factories import app_beside, rate_limited_app
from tests.identity.ldap.conftest import (
    AD_FILTER,
    PASSWORDS,
    SERVICE_PASSWORD,
    account_and_memberships,
    configure,
    failures,
    free_port,
    post_json,
    verify_domain,
)
from workspace.extensions import db


def test_json_login_success_starts_a_session(client, app, ldap_acme):
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json() == {"ok": True, "redirect": "/o/acme/"}
    assert client.get("/o/acme/").status_code == 200
    assert failures(app, ldap_acme.org_id) == []


def test_browser_form_login_redirects_to_the_org(client, app, ldap_acme):
    resp = client.post(
        "/auth/ldap/login",
        data={
            "org": "acme",
            "username": "ada",
            "password": PASSWORDS["ada"],
            "next": "/o/acme/projects",
        },
    )
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/o/acme/projects"
    assert client.get("/o/acme/projects").status_code == 200


def test_org_may_be_given_by_id(client, ldap_acme):
    resp = post_json(client, str(ldap_acme.org_id), "ada", PASSWORDS["ada"])
    assert resp.status_code == 200


def test_jit_first_login_creates_account_and_membership_second_reuses(client, app, ldap_acme):
    assert account_and_memberships(app, "ada.lovelace@acme.test") == (None, [])
    assert post_json(client, "acme", "ada", PASSWORDS["ada"]).status_code == 200
    account, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert account["name"] == "Ada Lovelace" and account["verified"] is True
    assert members == [(ldap_acme.org_id, "member", True)]

    client.post("/signout")
    other = app.test_client()
    assert post_json(other, "acme", "ada", PASSWORDS["ada"]).status_code == 200
    again, members_again = account_and_memberships(app, "ada.lovelace@acme.test")
    assert again["id"] == account["id"]
    assert members_again == members
    from workspace.core.models import Event

    with app.app_context():
        logins = db.session.scalars(
            select(Event).where(Event.org_id == ldap_acme.org_id, Event.kind == "auth.login")
        ).all()
        assert [(e.data["method"], e.data["account_created"]) for e in logins] == [
            ("ldap", True),
            ("ldap", False),
        ]


def test_existing_member_keeps_their_role(client, app, acme, directory):
    from tests.conftest import PASSWORD, add_person

    add_person(app, acme.org_id, "ada.lovelace@acme.test", role="admin")
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory)
    # She has a password, so the directory signs her in once she has linked it.
    resp = form_login(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 302 and resp.location == "/signin/link"
    assert client.post("/signin/link", data={"password": PASSWORD}).status_code == 302
    _, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert members == [(acme.org_id, "admin", True)]
    client.post("/signout")
    assert post_json(client, "acme", "ada", PASSWORDS["ada"]).status_code == 200
    _, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert members == [(acme.org_id, "admin", True)]


def form_login(client, org, username, password):
    return client.post(
        "/auth/ldap/login", data={"org": org, "username": username, "password": password}
    )


def test_directory_entry_with_an_owners_email_does_not_sign_in_as_the_owner(client, app, ldap_acme):
    """Acme's directory holds an entry whose mail is the email of Initech's owner. The
    directory's password does not sign anyone in as that owner: the sign-in waits for
    the owner's own password, and only then links the account to Acme's directory."""
    from tests.conftest import PASSWORD, make_org

    initech = make_org(app, "Initech", "ada.lovelace@acme.test")
    resp = form_login(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 302 and resp.location == "/signin/link"
    assert client.get("/o/initech/").status_code == 302  # not signed in as the owner
    assert client.get("/o/acme/").status_code == 302
    _, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert members == [(initech.org_id, "owner", True)]  # not made a member of Acme

    page = client.get("/signin/link")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Link your account to Acme" in text and "directory (LDAP)" in text
    # The directory's password is not the account's.
    assert client.post("/signin/link", data={"password": PASSWORDS["ada"]}).status_code == 401
    assert client.get("/o/initech/").status_code == 302
    # A JSON client is told to link in a browser, and is not signed in either.
    json_resp = post_json(app.test_client(), "acme", "ada", PASSWORDS["ada"])
    assert json_resp.status_code == 409
    assert json_resp.get_json()["link_url"] == "/signin/link"

    resp = client.post("/signin/link", data={"password": PASSWORD})
    assert resp.status_code == 302 and resp.location == "/o/acme/"
    assert client.get("/o/acme/").status_code == 200
    _, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert sorted(members) == sorted(
        [(initech.org_id, "owner", True), (ldap_acme.org_id, "member", True)]
    )
    from workspace.core.models import Event

    with app.app_context():
        kinds = db.session.scalars(
            select(Event.kind).where(
                Event.org_id == ldap_acme.org_id, Event.kind.like("auth.link.%")
            )
        ).all()
        assert sorted(kinds) == [
            "auth.link.confirmed",
            "auth.link.requested",
            "auth.link.requested",
        ]
    # Linked now: the directory signs her in directly from here on.
    other = app.test_client()
    assert post_json(other, "acme", "ada", PASSWORDS["ada"]).status_code == 200


def test_wrong_password_is_refused(client, app, ldap_acme):
    resp = post_json(client, "acme", "ada", "not-her-password")
    assert resp.status_code == 401
    assert resp.mimetype == "application/problem+json"
    assert resp.get_json()["detail"] == "The directory did not accept that username and password."
    assert client.get("/o/acme/").status_code == 302  # still signed out
    assert [f["reason"] for f in failures(app, ldap_acme.org_id)] == ["invalid_credentials"]


def test_unknown_user_gets_the_same_answer_as_a_wrong_password(client, app, ldap_acme):
    resp = post_json(client, "acme", "nobody", "whatever")
    assert resp.status_code == 401
    assert resp.get_json()["detail"] == "The directory did not accept that username and password."
    assert [f["reason"] for f in failures(app, ldap_acme.org_id)] == ["unknown_user"]
    assert account_and_memberships(app, "nobody@acme.test") == (None, [])


def test_empty_password_is_refused_before_any_bind(client, app, acme, directory):
    # The directory is down: had a bind been tried, the answer would be "unreachable".
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, server_uri=f"ldap://127.0.0.1:{free_port()}")
    resp = post_json(client, "acme", "ada", "")
    assert resp.status_code == 400
    assert resp.get_json()["detail"] == "Enter your password."
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["empty_password"]


@pytest.mark.parametrize("username", ["*", ")(uid=*", "admin)(|(a=*", "ada\x00", "\x00", "ad*"])
def test_filter_injection_never_matches_anyone(client, app, ldap_acme, username):
    # With a real password in hand: had the filter matched ada or admin, this would
    # sign in (or at least reach the password check).
    for password in (PASSWORDS["ada"], "admin-Pa55word"):
        resp = post_json(client, "acme", username, password)
        assert resp.status_code == 401, resp.get_data(as_text=True)
    assert {f["reason"] for f in failures(app, ldap_acme.org_id)} == {"unknown_user"}
    assert client.get("/o/acme/").status_code == 302


def test_null_byte_username_is_recorded_printably(app, client, ldap_acme):
    post_json(client, "acme", "ada\x00", PASSWORDS["ada"])
    assert failures(app, ldap_acme.org_id)[0]["subject"] == "ada\N{REPLACEMENT CHARACTER}"


def test_two_matching_entries_fail(client, app, ldap_acme):
    resp = post_json(client, "acme", "twin", PASSWORDS["twin"])
    assert resp.status_code == 401
    assert "More than one directory entry" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, ldap_acme.org_id)] == ["ambiguous_user"]
    assert account_and_memberships(app, "twin1@acme.test") == (None, [])


def test_wrong_service_bind_password_rejects_the_login(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, bind_password="wrong-service-password")
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 502
    assert "Ask your admin" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["service_bind_failed"]


def test_server_down_rejects_the_login(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, server_uri=f"ldap://127.0.0.1:{free_port()}")
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 503
    assert "cannot be reached" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["unreachable"]


def test_starttls_needs_a_trusted_certificate(client, app, acme, directory):
    # Without the test CA the system trust store rejects slapd's certificate.
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, ca_cert=None)
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 502
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["tls_untrusted"]


def test_without_tls_the_test_directory_refuses_the_bind(client, app, acme, directory):
    # The test slapd demands TLS for simple binds, so every passing login above went
    # through StartTLS with the test CA; without it the refusal is named as such.
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, use_tls=False, ca_cert=None)
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 502
    assert "Ask your admin" in resp.get_json()["detail"]
    assert [f["reason"] for f in failures(app, acme.org_id)] == ["tls_required"]


def test_email_on_an_unverified_domain_is_refused_naming_the_domain(client, app, ldap_acme):
    resp = post_json(client, "acme", "outsider", PASSWORDS["outsider"])
    assert resp.status_code == 403
    assert "elsewhere.test" in resp.get_json()["detail"]
    assert "verify" in resp.get_json()["detail"]
    assert account_and_memberships(app, "outsider@elsewhere.test") == (None, [])
    assert [f["reason"] for f in failures(app, ldap_acme.org_id)] == ["domain_not_verified"]


def test_a_pending_domain_is_not_enough(client, app, acme, directory):
    from workspace.core.models.domains import VerifiedDomain

    with app.app_context():
        db.session.add(
            VerifiedDomain(
                org_id=acme.org_id,
                domain="acme.test",
                state="pending",
                verification_token="tok-pending",
            )
        )
        db.session.commit()
    configure(app, acme.org_id, directory)
    resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 403
    assert "acme.test" in resp.get_json()["detail"]


def test_entry_without_email_is_refused(client, app, ldap_acme):
    resp = post_json(client, "acme", "noemail", PASSWORDS["noemail"])
    assert resp.status_code == 403
    assert "no email address" in resp.get_json()["detail"]


def test_active_directory_style_entry(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, search_filter=AD_FILTER)
    assert post_json(client, "acme", "ALAN", PASSWORDS["alan"]).status_code == 200
    account, members = account_and_memberships(app, "alan.turing@acme.test")
    assert account["name"] == "Alan Turing"
    assert members == [(acme.org_id, "member", True)]
    # OpenLDAP people are not found by the AD filter.
    assert post_json(app.test_client(), "acme", "ada", PASSWORDS["ada"]).status_code == 401


def test_active_directory_user_principal_name_as_email(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(
        app,
        acme.org_id,
        directory,
        email_attribute="userPrincipalName",
        search_filter="(&(objectClass=user)(userPrincipalName={username}))",
    )
    assert post_json(client, "acme", "alan@acme.test", PASSWORDS["alan"]).status_code == 200
    account, _ = account_and_memberships(app, "alan@acme.test")
    assert account is not None


def test_directory_of_one_org_cannot_sign_in_to_another(client, app, ldap_acme, globex):
    resp = post_json(client, "globex", "ada", PASSWORDS["ada"])
    assert resp.status_code == 404
    assert "does not offer directory sign-in" in resp.get_json()["detail"]


def test_unknown_org(client, ldap_acme):
    resp = post_json(client, "no-such-org", "ada", PASSWORDS["ada"])
    assert resp.status_code == 404
    assert resp.mimetype == "application/problem+json"


def test_org_names_that_cannot_be_orgs_are_unknown_not_errors(client, ldap_acme):
    for ref in ("ac\x00me", "x" * 300, "ac\tme"):
        resp = post_json(client, ref, "ada", PASSWORDS["ada"])
        assert resp.status_code == 404, repr(ref)
    # In an address, a NUL is refused up front with a readable page (request guard).
    page = client.get("/signin?org=ac%00me")
    assert page.status_code == 400 and "NUL character" in page.get_data(as_text=True)


def test_bad_json_is_a_400_not_a_500(client, ldap_acme):
    assert client.post("/auth/ldap/login", json=["ada"]).status_code == 400
    resp = client.post("/auth/ldap/login", json={"org": "acme", "username": 5, "password": None})
    assert resp.status_code == 400


def test_browser_failure_shows_the_sign_in_page_with_the_message(client, app, ldap_acme):
    resp = client.post(
        "/auth/ldap/login", data={"org": "acme", "username": "ada", "password": "nope"}
    )
    assert resp.status_code == 401
    page = resp.get_data(as_text=True)
    assert "The directory did not accept that username and password." in page
    assert 'value="ada"' in page  # the username is kept, the password is not
    assert "nope" not in page


def test_sign_in_page_offers_directory_sign_in_for_an_org_with_ldap(client, ldap_acme, globex):
    # Step one: the plain sign-in page asks only for the org, with no second password box.
    plain = client.get("/signin").get_data(as_text=True)
    assert 'id="ldap-org"' in plain and 'id="ldap-password"' not in plain
    # Step two: an org with LDAP gets its username and password form.
    page = client.get("/signin?org=acme").get_data(as_text=True)
    assert "Sign in to Acme with your directory account" in page
    assert 'action="/auth/ldap/login"' in page and 'id="ldap-password"' in page
    # An org without LDAP is told so, with what was typed kept.
    other = client.get("/signin?org=globex").get_data(as_text=True)
    assert "No organization called “globex” offers directory sign-in." in other
    assert 'value="globex"' in other and 'id="ldap-password"' not in other


def test_unknown_org_in_the_browser_form_is_explained(client, ldap_acme):
    resp = client.post("/auth/ldap/login", data={"org": "nope", "username": "a", "password": "b"})
    assert resp.status_code == 404
    page = resp.get_data(as_text=True)
    assert "There is no organization called “nope”." in page
    assert 'value="nope"' in page


def test_failed_logins_are_rate_limited(app, ldap_acme):
    from workspace.extensions import limiter

    limited = rate_limited_app(app)
    try:
        client = limited.test_client()
        # A correct sign-in is not counted against anyone.
        assert post_json(client, "acme", "ada", PASSWORDS["ada"]).status_code == 200
        codes = [post_json(client, "acme", "ada", f"guess-{i}").status_code for i in range(11)]
        assert codes == [401] * 10 + [429]
        resp = post_json(client, "acme", "ada", PASSWORDS["ada"])
        assert resp.status_code == 429
        assert resp.mimetype == "application/problem+json"
        page = client.post(
            "/auth/ldap/login", data={"org": "acme", "username": "ada", "password": "x"}
        )
        assert page.status_code == 429
        assert "Too many failed sign-in attempts" in page.get_data(as_text=True)
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited.app_context():
            db.engine.dispose()
    recorded = [f["reason"] for f in failures(app, ldap_acme.org_id)]
    assert len(recorded) == 13 and recorded.count("rate_limited") == 3


def test_browser_form_needs_the_csrf_token_json_does_not(app, ldap_acme):
    strict = app_beside(app, WTF_CSRF_ENABLED=True, RATELIMIT_ENABLED=False)
    try:
        client = strict.test_client()
        form = {"org": "acme", "username": "ada", "password": PASSWORDS["ada"]}
        forged = client.post("/auth/ldap/login", data=form)
        assert forged.status_code == 400
        assert client.get("/o/acme/").status_code == 302  # not signed in
        page = client.get("/signin?org=acme").get_data(as_text=True)
        token = page.split('name="csrf_token" value="')[1].split('"')[0]
        assert (
            client.post("/auth/ldap/login", data={**form, "csrf_token": token}).status_code == 302
        )
        assert strict.test_client().post("/auth/ldap/login", json=form).status_code == 200
    finally:
        with strict.app_context():
            db.engine.dispose()


def test_failure_events_never_hold_the_password(client, app, ldap_acme):
    post_json(client, "acme", "ada", "Secret-Guess-123")
    post_json(client, "acme", "twin", PASSWORDS["twin"])
    from workspace.core.models import Event

    with app.app_context():
        dumped = repr([(e.kind, e.subject, e.data) for e in db.session.scalars(select(Event))])
        count = db.session.scalar(
            select(func.count()).select_from(Event).where(Event.kind == "ldap.login_failed")
        )
    assert count == 2
    for secret in ("Secret-Guess-123", PASSWORDS["twin"], SERVICE_PASSWORD):
        assert secret not in dumped


def test_an_agent_is_refused_at_the_end_of_a_real_directory_sign_in(client, app, ldap_acme):
    """Ada's directory entry, but her address belongs to an agent account: the bind
    succeeds and the shared sign-in ending still refuses, issuing no session."""
    import uuid

    from workspace.core.models import Account

    agent = client.post(
        ldap_acme.url("/agents"), json={"name": "Robot"}, headers=ldap_acme.headers
    ).get_json()
    with app.app_context():
        db.session.get(Account, uuid.UUID(agent["id"])).email = "ada.lovelace@acme.test"
        db.session.commit()
    browser = app.test_client()
    resp = post_json(browser, "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 403 and "Agents do not sign in" in resp.get_json()["detail"]
    assert browser.get("/o/acme/").status_code == 302
    account, members = account_and_memberships(app, "ada.lovelace@acme.test")
    assert str(account["id"]) == agent["id"] and len(members) == 1  # the agent's own


@pytest.mark.parametrize(
    ("email", "compared_as"),
    [
        ("ada@straße.de", "xn--strae-oqa.de"),  # UTS #46 keeps ß; IDNA 2003 made strasse.de
        ("ada@Acme.TEST.", "acme.test"),
        ("ada@bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_directory_email_domains_compare_like_verified_domains(email, compared_as):
    """The same normalization as Settings → Domains, so a verified straße.de admits its
    people and a verified strasse.de (another registrable name) does not."""
    from workspace.core.emails import normalize_domain
    from workspace.identity.ldap.signin import _domain

    assert _domain(email) == compared_as == normalize_domain(email.split("@")[1])


def test_a_rate_limited_sign_in_answers_429_whatever_the_body(app, ldap_acme):
    """Once an address is limited, the 429 comes before any body is read: JSON nested
    past the parser's limit, a body over MAX_CONTENT_LENGTH, or garbage are all 429,
    never a 500 (docs/security.md#concurrency)."""
    from workspace.extensions import limiter

    limited = rate_limited_app(app)
    try:
        client = limited.test_client()
        codes = [post_json(client, "acme", "ada", f"guess-{i}").status_code for i in range(11)]
        assert codes == [401] * 10 + [429]
        # One name's budget is spent; the address's looser one (30 a minute) runs out too.
        for i in range(20):
            assert post_json(client, "acme", f"someone-{i}", "guess").status_code == 401
        deep = '{"org": "acme", "username": ' + "[" * 5000 + "]" * 5000 + "}"
        bodies = [
            (deep, "application/json"),
            (
                b'{"org": "acme", "username": "' + b"a" * (1024 * 1024 + 10) + b'"}',
                "application/json",
            ),
            (
                b"org=acme&username=" + b"a" * (1024 * 1024 + 10),
                "application/x-www-form-urlencoded",
            ),
            (b"\xff\xfe not json", "application/json"),
        ]
        for body, content_type in bodies:
            resp = client.post("/auth/ldap/login", data=body, content_type=content_type)
            assert resp.status_code == 429, (content_type, len(body), resp.status_code)
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited.app_context():
            db.engine.dispose()


def test_a_name_over_its_limit_is_429_whatever_follows_it(app, ldap_acme):
    """Ada's budget at this address is spent, the address's own is not. A body naming
    her is 429 even when the rest of it cannot be parsed (nested past the parser's
    limit, over 1 MiB): the limiter reads the org and username from the body's start.
    The same bodies naming someone else are still the plain 400."""
    from workspace.extensions import limiter

    limited = rate_limited_app(app)
    try:
        client = limited.test_client()
        codes = [post_json(client, "acme", "ada", f"guess-{i}").status_code for i in range(11)]
        assert codes == [401] * 10 + [429]
        deep = "[" * 5000 + "]" * 5000
        huge = "a" * (1024 * 1024 + 10)

        def bodies(name):
            """(body, content type): the name first then a deep value, a deep value then
            the name, the name then a value over 1 MiB, and a form over 1 MiB."""
            member = f'"org": "acme", "username": "{name}"'
            form = "application/x-www-form-urlencoded"
            return [
                ("{" + member + ', "x": ' + deep + "}", "application/json"),
                ('{"x": ' + deep + ", " + member + "}", "application/json"),
                ("{" + member + f', "password": "p", "x": "{huge}"}}', "application/json"),
                (f"org=acme&username={name}&password=p&x={huge}", form),
            ]

        def post(body, content_type):
            return client.post("/auth/ldap/login", data=body, content_type=content_type)

        # A JSON escape and another case are the same name.
        for body, kind in bodies("ada") + bodies("\\u0041DA")[:3]:
            resp = post(body, kind)
            assert resp.status_code == 429, (kind, len(body), resp.status_code)
        for body, kind in bodies("grace"):
            assert post(body, kind).status_code == 400, (kind, len(body))
        # Each 429 is in the audit log under the name the body gave.
        refused = [f["subject"] for f in failures(app, ldap_acme.org_id)]
        assert refused[10:] == ["ada"] * 5 + ["ADA"] * 3
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited.app_context():
            db.engine.dispose()


# -- issue 13: limits that cannot lock people out (docs/security.md#sign-in-limits) ------


def _limited_app(app, **extra):

    return rate_limited_app(app, **extra)


def _from(address):
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_failures_elsewhere_do_not_lock_a_person_out(app, ldap_acme):
    """Failures for ada spread over many addresses never stop ada signing in from
    her own; a full-width spelling of her name shares her budget at one address."""
    from workspace.extensions import limiter

    limited = _limited_app(app)
    try:
        client = limited.test_client()

        def attempt(username, password, address):
            return client.post(
                "/auth/ldap/login",
                json={"org": "acme", "username": username, "password": password},
                **_from(address),
            ).status_code

        # Thirty failures for ada from three addresses (more than any per-name budget).
        for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
            assert [attempt("ada", "guess", address) for _ in range(10)] == [401] * 10
        assert attempt("ada", PASSWORDS["ada"], "10.0.0.9") == 200
        # At one address, full-width ada and ADA are ada: her budget there is spent ...
        assert [attempt("\uff41\uff44\uff41", "guess", "10.0.0.4") for _ in range(5)] == [401] * 5
        assert [attempt("ADA", "guess", "10.0.0.4") for _ in range(5)] == [401] * 5
        assert attempt("ada", PASSWORDS["ada"], "10.0.0.4") == 429
        # ... and another person at that address is not limited by it.
        assert attempt("someone-else", "guess", "10.0.0.4") == 401
        # Successes do not count: twelve in a row, and a failure is still a 401.
        assert [attempt("ada", PASSWORDS["ada"], "10.0.0.5") for _ in range(12)] == [200] * 12
        assert attempt("ada", "guess", "10.0.0.5") == 401
    finally:
        limiter.reset()
        limiter.enabled = False
        with limited.app_context():
            db.engine.dispose()


def test_a_deactivated_member_stays_deactivated_when_the_directory_still_knows_them(
    client, app, ldap_acme
):
    """Deprovisioning sticks: the owner deactivates Ada; her next directory sign-in is
    refused with a message that says her access was removed, and the membership stays
    inactive (docs/security.md#deprovisioning-sticks)."""
    assert post_json(app.test_client(), "acme", "ada", PASSWORDS["ada"]).status_code == 200
    members = client.get(ldap_acme.url("/members"), headers=ldap_acme.headers).get_json()
    (mid,) = [m["id"] for m in members if m["account"]["email"] == "ada.lovelace@acme.test"]
    resp = client.patch(
        ldap_acme.url(f"/members/{mid}"), json={"active": False}, headers=ldap_acme.headers
    )
    assert resp.status_code == 200

    resp = post_json(app.test_client(), "acme", "ada", PASSWORDS["ada"])
    assert resp.status_code == 403
    assert "access to Acme was removed" in resp.get_json()["detail"]
    assert account_and_memberships(app, "ada.lovelace@acme.test")[1] == [
        (ldap_acme.org_id, "member", False)
    ]
    assert failures(app, ldap_acme.org_id)[-1]["reason"] == "deactivated"
