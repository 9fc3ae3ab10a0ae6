"""The LDAP connection's JSON API and its connection test (docs/ldap.md#test-the-connection)."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from tests.conftest import add_person
from tests.identity.ldap.conftest import (
    PASSWORDS,
    SERVICE_PASSWORD,
    SUFFIX,
    body,
    free_port,
    put,
    run_test,
    verify_domain,
)
from workspace.extensions import db

SHAPE = {
    "server_uri",
    "bind_dn",
    "search_base",
    "search_filter",
    "email_attribute",
    "given_name_attribute",
    "family_name_attribute",
    "use_tls",
    "ca_cert",
    "has_bind_password",
    # Directory group sync (docs/ldap.md#group-sync).
    "sync_groups_on_login",
    "remove_stale_synced_memberships",
    "group_search_base",
    "group_membership",
    # Scheduled directory sync (docs/ldap.md#scheduled-sync).
    "sync_every_minutes",
    "last_sync_at",
    "last_sync",
    "next_sync_at",
}


def test_save_read_and_defaults(client, acme, directory):
    assert client.get(acme.url("/ldap"), headers=acme.headers).status_code == 404
    resp = put(client, acme, body(directory))
    assert resp.status_code == 200, resp.get_data(as_text=True)
    saved = resp.get_json()
    assert set(saved) == SHAPE
    assert saved["has_bind_password"] is True
    assert (
        saved["email_attribute"],
        saved["given_name_attribute"],
        saved["family_name_attribute"],
        saved["use_tls"],
    ) == ("mail", "givenName", "sn", True)
    # hourly by default, never run yet
    assert (saved["sync_every_minutes"], saved["last_sync"]) == (60, None)
    assert saved["next_sync_at"] is not None
    assert client.get(acme.url("/ldap"), headers=acme.headers).get_json() == saved


def test_bind_password_is_sealed_at_rest(app, client, acme, directory):
    put(client, acme, body(directory))
    from workspace.identity.ldap.models import LdapConnection
    from workspace.security.crypto import unseal

    with app.app_context():
        row = db.session.scalar(select(LdapConnection))
        assert SERVICE_PASSWORD not in row.bind_password_sealed
        assert unseal(row.bind_password_sealed, row.id) == SERVICE_PASSWORD


def test_blank_password_keeps_the_stored_one(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    put(client, acme, body(directory))
    for blank in ({"bind_password": ""}, {"bind_password": None}):
        payload = body(directory, **blank)
        resp = put(client, acme, payload)
        assert resp.status_code == 200 and resp.get_json()["has_bind_password"] is True
    payload = body(directory)
    del payload["bind_password"]
    assert put(client, acme, payload).status_code == 200
    ok = client.post(
        "/auth/ldap/login", json={"org": "acme", "username": "ada", "password": PASSWORDS["ada"]}
    )
    assert ok.status_code == 200


def test_first_save_needs_a_password(client, acme, directory):
    resp = put(client, acme, body(directory, bind_password=""))
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == "bind_password"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"search_filter": "(uid=ada)"}, "search_filter"),
        ({"search_filter": "(uid={username}"}, "search_filter"),
        ({"search_filter": "uid={username}"}, "search_filter"),
        ({"search_filter": "(&(uid={username})"}, "search_filter"),
        ({"server_uri": "http://dc1.acme.test"}, "server_uri"),
        ({"server_uri": "dc1.acme.test"}, "server_uri"),
        ({"server_uri": "ldap://dc1.acme.test/ou=people"}, "server_uri"),
        ({"server_uri": "ldap://dc1.acme.test:99999"}, "server_uri"),
        ({"server_uri": "ldaps://dc1.acme.test", "use_tls": False}, "use_tls"),
        ({"bind_dn": "  "}, "bind_dn"),
        ({"bind_dn": "cn=svc\x00,dc=acme,dc=test"}, "bind_dn"),
        ({"search_base": "dc=acme,\ndc=test"}, "search_base"),
        ({"search_filter": "(uid={username}\x00)"}, "search_filter"),
        ({"ca_cert": "-----BEGIN CERTIFICATE-----\x00"}, "ca_cert"),
        ({"search_base": ""}, "search_base"),
        ({"search_base": "garbage"}, "search_base"),
        ({"bind_dn": "not a dn"}, "bind_dn"),
        ({"email_attribute": "mail)(x"}, "email_attribute"),
        ({"ca_cert": "not a certificate"}, "ca_cert"),
        ({"ca_cert": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"}, "ca_cert"),
    ],
)
def test_invalid_settings_name_the_field(client, acme, directory, overrides, field):
    resp = put(client, acme, body(directory, **overrides))
    # A NUL is refused before any view reads the body (400); the service refuses the
    # rest, which the document cannot say (422).
    nul = any("\x00" in str(value) for value in overrides.values())
    assert resp.status_code == (400 if nul else 422), resp.get_data(as_text=True)
    problem = resp.get_json()
    assert problem["errors"][0]["field"] == field
    assert problem["detail"]


def test_active_directory_logon_names_are_bind_names(client, acme, directory):
    """AD binds as svc@domain or DOMAIN\\svc as well as by DN; each saves."""
    for name in ("svc@acme.test", "ACME\\svc", "CN=Svc Acct,CN=Users,DC=acme,DC=test"):
        resp = put(client, acme, body(directory, bind_dn=name))
        assert resp.status_code == 200, (name, resp.get_json())
        assert resp.get_json()["bind_dn"] == name


def test_every_field_at_fault_is_in_one_problem(client, acme, directory):
    wrong = {"server_uri": "dc1.acme.test", "bind_dn": " ", "email_attribute": "mail)(x"}
    resp = put(client, acme, body(directory, **wrong))
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert sorted(e["field"] for e in resp.get_json()["errors"]) == sorted(wrong)


def test_unknown_fields_are_refused(client, acme, directory):
    resp = put(client, acme, body(directory, bind_pasword="typo"))
    assert resp.status_code == 400


def test_members_cannot_manage_and_other_orgs_see_nothing(client, app, acme, globex, directory):
    put(client, acme, body(directory))
    member = add_person(app, acme.org_id, "member@acme.test")
    for method, path in (
        ("get", "/ldap"),
        ("put", "/ldap"),
        ("delete", "/ldap"),
        ("post", "/ldap/test"),
    ):
        resp = getattr(client, method)(
            acme.url(path),
            headers=member.headers,
            json=body(directory) if method == "put" else None,
        )
        assert resp.status_code == 403, (method, path)
        resp = getattr(client, method)(
            acme.url(path),
            headers=globex.headers,
            json=body(directory) if method == "put" else None,
        )
        assert resp.status_code == 404, (method, path)
    admin = add_person(app, acme.org_id, "admin@acme.test", role="admin")
    assert client.get(acme.url("/ldap"), headers=admin.headers).status_code == 200


def test_delete_turns_directory_sign_in_off(client, app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    put(client, acme, body(directory))
    assert client.delete(acme.url("/ldap"), headers=acme.headers).status_code == 204
    assert client.get(acme.url("/ldap"), headers=acme.headers).status_code == 404
    assert client.delete(acme.url("/ldap"), headers=acme.headers).status_code == 404
    resp = client.post(
        "/auth/ldap/login", json={"org": "acme", "username": "ada", "password": PASSWORDS["ada"]}
    )
    assert resp.status_code == 404


# -- test connection ----------------------------------------------------------------------


def test_connection_test_of_saved_settings(client, acme, directory):
    assert client.post(acme.url("/ldap/test"), headers=acme.headers).status_code == 404
    put(client, acme, body(directory))
    result = run_test(client, acme)
    # Six inetOrgPerson entries exist; the sample stops at five.
    assert result["ok"] is True and result["sample_count"] == 5
    assert "Connected" in result["message"]


def test_connection_test_counts_ad_entries(client, acme, directory):
    put(client, acme, body(directory))
    # al* matches alan alone among the AD-style people.
    result = run_test(
        client,
        acme,
        body(
            directory,
            bind_password="",
            search_filter="(&(objectClass=user)(sAMAccountName=al{username}))",
        ),
    )
    assert (result["ok"], result["sample_count"]) == (True, 1)
    assert "1 sample entry" in result["message"]


def test_connection_test_server_unreachable(client, acme, directory):
    result = run_test(client, acme, body(directory, server_uri=f"ldap://127.0.0.1:{free_port()}"))
    assert result == {"ok": False, "sample_count": 0, "message": result["message"]}
    assert "could not be reached" in result["message"]


def test_connection_test_tls_failure_untrusted_certificate(client, acme, directory):
    result = run_test(client, acme, body(directory, ca_cert=None))
    assert result["ok"] is False
    assert "TLS connection" in result["message"]
    assert "not trusted" in result["message"]


def test_connection_test_tls_failure_no_tls_on_port(client, acme, directory):
    result = run_test(
        client, acme, body(directory, server_uri=f"ldaps://127.0.0.1:{directory.port}")
    )
    assert result["ok"] is False
    assert "TLS connection" in result["message"]


def test_connection_test_service_bind_failed(client, acme, directory):
    result = run_test(client, acme, body(directory, bind_password="wrong"))
    assert result["ok"] is False
    assert "refused the service account" in result["message"]
    assert "bind DN and bind password" in result["message"]


def test_connection_test_unknown_bind_dn(client, acme, directory):
    result = run_test(client, acme, body(directory, bind_dn=f"cn=ghost,{SUFFIX}"))
    assert result["ok"] is False and "refused the service account" in result["message"]


def test_connection_test_search_base_missing(client, acme, directory):
    result = run_test(client, acme, body(directory, search_base=f"ou=nowhere,{SUFFIX}"))
    assert result["ok"] is False
    assert f"ou=nowhere,{SUFFIX} does not exist" in result["message"]


def test_connection_test_filter_invalid(client, acme, directory):
    result = run_test(client, acme, body(directory, search_filter="(&(uid={username})"))
    assert result["ok"] is False
    assert "not a valid LDAP filter" in result["message"]
    result = run_test(client, acme, body(directory, search_filter="(uid=ada)"))
    assert result["ok"] is False and "{username}" in result["message"]


def test_connection_test_does_not_save(client, acme, directory):
    put(client, acme, body(directory))
    run_test(client, acme, body(directory, search_base=f"ou=nowhere,{SUFFIX}"))
    assert client.get(acme.url("/ldap"), headers=acme.headers).get_json()["search_base"] == SUFFIX


# -- the bind password stays on the server ----------------------------------------------


def test_bind_password_never_appears_in_responses_pages_or_logs(
    client, app, acme, directory, caplog
):

    from ldap3.utils.log import EXTENDED, OFF, set_library_log_detail_level

    caplog.set_level(logging.DEBUG)
    # As an operator debugging the directory would: ldap3 logs every request it sends.
    set_library_log_detail_level(EXTENDED)
    try:
        bodies = exercise_everything(client, app, acme, directory)
    finally:
        set_library_log_detail_level(OFF)
    for resp in bodies:
        text = resp.get_data(as_text=True)
        assert SERVICE_PASSWORD not in text, resp.request.path
        assert "wrong-guess-987" not in text
    assert any(r.name.startswith("ldap3") and "BIND" in r.getMessage() for r in caplog.records)
    for secret in (SERVICE_PASSWORD, PASSWORDS["ada"], "wrong-guess-987"):
        assert secret not in caplog.text


def exercise_everything(client, app, acme, directory):
    from tests.conftest import login

    verify_domain(app, acme.org_id, "acme.test")
    bodies = [
        put(client, acme, body(directory)),
        client.get(acme.url("/ldap"), headers=acme.headers),
        client.post(acme.url("/ldap/test"), headers=acme.headers),
        client.post(
            acme.url("/ldap/test"), json=body(directory, bind_dn="cn=x"), headers=acme.headers
        ),
        client.post(
            acme.url("/ldap/test"), json=body(directory, search_filter="(x"), headers=acme.headers
        ),
        client.get(acme.url("/events"), headers=acme.headers),
        client.get("/api/v1/openapi.json"),
        client.post(
            "/auth/ldap/login",
            json={"org": "acme", "username": "ada", "password": PASSWORDS["ada"]},
        ),
        client.post(
            "/auth/ldap/login",
            data={"org": "acme", "username": "ada", "password": "wrong-guess-987"},
        ),
        client.get("/signin?org=acme"),
    ]
    login(client, acme.owner_email)
    bodies += [
        client.get("/o/acme/settings/ldap"),
        client.post(
            "/o/acme/settings/ldap/test",
            data={**body(directory), "bind_password": "", "use_tls": "1"},
        ),
        client.post(
            "/o/acme/settings/ldap/test",
            data={**body(directory), "bind_password": "", "use_tls": "1"},
            headers={"HX-Request": "true"},
        ),
        client.post(
            "/o/acme/settings/ldap",
            data={**body(directory), "bind_password": "", "search_filter": "(bad"},
        ),
        client.get("/o/acme/settings/events"),
    ]
    return bodies


def test_a_bind_password_that_no_longer_opens_is_reported_not_a_crash(client, app, acme, directory):
    put(client, acme, body(directory))
    from workspace.identity.ldap.models import LdapConnection
    from workspace.security.crypto import seal

    with app.app_context():
        row = db.session.scalar(select(LdapConnection))
        row.bind_password_sealed = seal(SERVICE_PASSWORD, "another-row")  # wrong associated data
        db.session.commit()
    result = run_test(client, acme)
    assert result["ok"] is False
    assert "enter it again" in result["message"]
    verify_domain(app, acme.org_id, "acme.test")
    resp = client.post(
        "/auth/ldap/login", json={"org": "acme", "username": "ada", "password": PASSWORDS["ada"]}
    )
    assert resp.status_code == 502


def test_a_server_that_never_answers_times_out(client, app, acme, directory, monkeypatch):
    import socket
    import threading
    import time

    # Accepts the TCP connection, then says nothing: only the read timeout ends the wait.
    silent = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: accepted.append(silent.accept()), daemon=True).start()
    monkeypatch.setitem(app.config, "LDAP_READ_TIMEOUT", 1)
    try:
        started = time.monotonic()
        uri = f"ldap://127.0.0.1:{silent.getsockname()[1]}"
        result = run_test(client, acme, body(directory, server_uri=uri))
        elapsed = time.monotonic() - started
    finally:
        silent.close()
        for conn, _ in accepted:
            conn.close()
    assert result["ok"] is False and "could not be reached" in result["message"]
    assert elapsed < 5


def test_the_sample_stays_at_five_when_the_server_ignores_the_size_limit(
    client, acme, directory, monkeypatch
):
    """Samba once answered 54 entries to a size limit of 5. Here the request goes out
    without a limit, so slapd really sends every entry; the test still shows five."""
    import ldap3

    real_search = ldap3.Connection.search
    sent: list[int] = []

    def unlimited_search(self, *args, **kwargs):
        kwargs["size_limit"] = 0
        outcome = real_search(self, *args, **kwargs)
        sent.append(sum(1 for item in self.response or [] if item["type"] == "searchResEntry"))
        return outcome

    monkeypatch.setattr(ldap3.Connection, "search", unlimited_search)
    put(client, acme, body(directory))
    result = run_test(
        client,
        acme,
        body(directory, search_filter="(|(uid={username})(sAMAccountName={username}))"),
    )
    assert sent and sent[0] > 5  # the directory did send more than asked for
    assert result["ok"] is True and result["sample_count"] == 5
    assert "found 5 sample entries" in result["message"]
