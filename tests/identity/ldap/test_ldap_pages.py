"""The LDAP settings page, as an org owner, admin or member sees it."""

from __future__ import annotations

import re

from sqlalchemy import select

from tests.conftest import add_person, login
from tests.identity.ldap.conftest import (
    OPENLDAP_FILTER,
    SERVICE_DN,
    SERVICE_PASSWORD,
    SUFFIX,
    configure,
)
from workspace.extensions import db

URL = "/o/acme/settings/ldap"


def form(directory, **overrides):
    values = {
        "server_uri": directory.uri,
        "bind_dn": SERVICE_DN,
        "bind_password": SERVICE_PASSWORD,
        "search_base": SUFFIX,
        "search_filter": OPENLDAP_FILTER,
        "email_attribute": "mail",
        "given_name_attribute": "givenName",
        "family_name_attribute": "sn",
        "use_tls": "1",
        "ca_cert": directory.ca_pem,
    }
    values.update(overrides)
    return {k: v for k, v in values.items() if v is not None}


def saved(app):
    from workspace.identity.ldap.models import LdapConnection

    with app.app_context():
        return db.session.scalar(select(LdapConnection))


def test_empty_page_offers_the_form_with_defaults(client, acme):
    login(client, acme.owner_email)
    resp = client.get(URL)
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert "LDAP / Active Directory" in page and "not set up" in page
    assert 'value="givenName"' in page and 'value="sn"' in page and 'value="mail"' in page
    assert "(&amp;(objectClass=user)(sAMAccountName={username}))" in page
    assert "Remove LDAP connection" not in page


def test_a_cleared_sync_box_keeps_the_sync_off(client, app, acme, directory):
    """The API's default (hourly) taken from a blank box turned on a sync that
    deactivates people where the admin had it off; blank now keeps what is stored."""
    login(client, acme.owner_email)
    assert client.post(URL, data=form(directory, sync_every_minutes="0")).status_code == 302
    assert saved(app).sync_every_minutes == 0
    assert client.post(URL, data=form(directory, sync_every_minutes="")).status_code == 302
    assert saved(app).sync_every_minutes == 0
    assert client.post(URL, data=form(directory, sync_every_minutes="120")).status_code == 302
    assert saved(app).sync_every_minutes == 120


def test_save_then_edit_with_blank_password_keeps_it(client, app, acme, directory):
    login(client, acme.owner_email)
    resp = client.post(URL, data=form(directory))
    assert resp.status_code == 302 and resp.headers["Location"] == URL
    page = client.get(URL).get_data(as_text=True)
    assert "LDAP settings saved" in page and "configured" in page
    assert "Leave blank to keep the current one" in page
    sealed = saved(app).bind_password_sealed
    resp = client.post(
        URL,
        data=form(
            directory, bind_password="", use_tls=None, server_uri="ldap://127.0.0.1:1", ca_cert=""
        ),
    )
    assert resp.status_code == 302
    row = saved(app)
    assert row.bind_password_sealed == sealed
    assert (row.use_tls, row.server_uri, row.ca_cert) == (False, "ldap://127.0.0.1:1", None)


def test_page_says_which_domains_directory_sign_in_accepts(client, app, acme, directory):
    from tests.identity.ldap.conftest import verify_domain

    login(client, acme.owner_email)
    assert "No verified domain yet" in client.get(URL).get_data(as_text=True)
    verify_domain(app, acme.org_id, "acme.test")
    page = client.get(URL).get_data(as_text=True)
    assert "No verified domain yet" not in page
    assert "<strong>acme.test</strong>" in page


def test_invalid_input_is_shown_beside_the_field(client, app, acme, directory):
    login(client, acme.owner_email)
    resp = client.post(URL, data=form(directory, search_filter="(uid=ada)"))
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    assert 'id="f-search_filter-error"' in page
    assert "must contain {username}" in page
    assert 'value="(uid=ada)"' in page  # what they typed is kept
    assert saved(app) is None


def test_every_field_at_fault_is_named_from_one_submit(client, app, acme, directory):
    login(client, acme.owner_email)
    wrong = form(
        directory, server_uri="http://dc1", search_base="", search_filter="(uid=ada)",
        email_attribute="mail)(x", bind_password="",
    )  # fmt: skip
    resp = client.post(URL, data=wrong)
    assert resp.status_code == 400
    page = resp.get_data(as_text=True)
    for field in ("server_uri", "search_base", "search_filter", "email_attribute"):
        assert f'id="f-{field}-error"' in page, field
    assert saved(app) is None


def test_test_button_without_javascript_renders_the_page_with_the_result(client, acme, directory):
    login(client, acme.owner_email)
    resp = client.post(URL + "/test", data=form(directory))
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert "Connected as the service account" in page
    assert "<h1>LDAP / Active Directory</h1>" in page


def test_test_button_with_htmx_gets_just_the_result(client, app, acme, directory):
    configure(app, acme.org_id, directory)
    login(client, acme.owner_email)
    resp = client.post(
        URL + "/test",
        data=form(directory, bind_password="", search_base=f"ou=nowhere,{SUFFIX}"),
        headers={"HX-Request": "true"},
    )
    assert resp.status_code == 200
    fragment = resp.get_data(as_text=True)
    assert "<html" not in fragment
    assert "Connection test failed" in fragment and "does not exist" in fragment
    # Testing never saves.
    assert saved(app).search_base == SUFFIX


def test_test_with_bad_input_explains_it(client, acme, directory):
    login(client, acme.owner_email)
    resp = client.post(
        URL + "/test", data=form(directory, server_uri="http://x"), headers={"HX-Request": "true"}
    )
    html = resp.get_data(as_text=True)
    # The message stands beside its field, as on Save (the whole settings card is
    # swapped), not run together with the others under the buttons.
    assert resp.headers["HX-Retarget"] == "#ldap-settings"
    assert html.lstrip().startswith('<section class="card" id="ldap-settings">')
    error = re.search(r'id="f-server_uri-error"[^>]*>([^<]*)<', html)
    assert error and "ldap://host" in error.group(1)
    assert "Fix the fields marked above, then test again." in html
    assert 'value="http://x"' in html  # what was typed stays


def test_remove(client, app, acme, directory):
    configure(app, acme.org_id, directory)
    login(client, acme.owner_email)
    assert "Remove LDAP connection" in client.get(URL).get_data(as_text=True)
    resp = client.post(URL + "/delete")
    assert resp.status_code == 302
    assert saved(app) is None
    assert "Directory sign-in is off" in client.get(URL).get_data(as_text=True)


def test_admins_manage_members_do_not(client, app, acme, directory):
    add_person(app, acme.org_id, "admin@acme.test", role="admin")
    add_person(app, acme.org_id, "member@acme.test")
    login(client, "member@acme.test")
    assert client.get(URL).status_code == 403
    assert client.post(URL, data=form(directory)).status_code == 403
    assert client.post(URL + "/test", data=form(directory)).status_code == 403
    assert client.post(URL + "/delete").status_code == 403
    assert saved(app) is None
    other = app.test_client()
    login(other, "admin@acme.test")
    assert other.get(URL).status_code == 200


def test_signed_out_is_sent_to_sign_in_and_strangers_get_404(client, app, acme, globex):
    assert client.get(URL).status_code == 302
    login(client, globex.owner_email)
    assert client.get(URL).status_code == 404


def test_a_connection_saved_without_tls_says_passwords_travel_in_clear(client, acme, directory):
    """An admin who turned TLS off for a lab and forgot had no sign of it on the page
    afterwards; the warning stays until TLS is on again."""
    login(client, acme.owner_email)
    assert client.post(URL, data=form(directory)).status_code == 302
    assert 'id="ldap-cleartext"' not in client.get(URL).get_data(as_text=True)
    cleartext = form(directory, use_tls=None, server_uri=directory.uri.replace("ldaps", "ldap"))
    assert client.post(URL, data=cleartext).status_code == 302
    page = client.get(URL).get_data(as_text=True)
    assert 'id="ldap-cleartext"' in page and "in clear text" in page
    assert client.post(URL, data=form(directory)).status_code == 302
    assert 'id="ldap-cleartext"' not in client.get(URL).get_data(as_text=True)
