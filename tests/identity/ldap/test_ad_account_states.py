"""Active Directory account states are reasons, not wrong passwords
(docs/ldap.md#account-states).

The session slapd holds AD-style entries whose state attributes refuse them (dee
disabled, max must change, lou locked, pat password expired, eve expired); slapd
itself still accepts their passwords, as a directory that only stores the state would.
AD's own bind diagnostic (``data 533``...) cannot come from slapd, so those tests put
AD's real message strings into the bind result of a real connection.
"""

from __future__ import annotations

import pytest

from tests.identity.ldap.conftest import (
    AD_FILTER,
    NEVER,
    PASSWORDS,
    PAST_FILETIME,
    RECENT_FILETIME,
    account_and_memberships,
    body,
    configure,
    failures,
    post_json,
    put,
    run_test,
    verify_domain,
)
from workspace.identity.ldap.account_states import MESSAGES, ad_reason, entry_state
from workspace.identity.ldap.signin import BAD_CREDENTIALS


def ad_error(code: str) -> str:
    """AD's diagnosticMessage for a refused simple bind, as Windows Server sends it."""
    return (
        f"80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, "
        f"data {code}, v4563\x00"
    )


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (ad_error("525"), "unknown_user"),
        (ad_error("52e"), "invalid_credentials"),
        (ad_error("530"), "logon_hours"),
        (ad_error("531"), "workstation_not_permitted"),
        (ad_error("532"), "password_expired"),
        (ad_error("533"), "account_disabled"),
        (ad_error("701"), "account_expired"),
        (ad_error("773"), "password_must_change"),
        (ad_error("775"), "account_locked"),
        # Windows Server 2008 and Samba word it the same, with other DSIDs and versions.
        (
            "80090308: LdapErr: DSID-0C0903A9, comment: AcceptSecurityContext error, "
            "data 52e, v1db1",
            "invalid_credentials",
        ),
        (
            "80090308: LdapErr: DSID-0C09042A, comment: AcceptSecurityContext error, "
            "data 52E, v3839",
            "invalid_credentials",
        ),
        ("", None),
        ("Invalid credentials", None),  # OpenLDAP
        (ad_error("0"), None),
    ],
)
def test_ad_bind_diagnostics_are_read(message, reason):
    assert ad_reason(message) == reason


def state(now: int = RECENT_FILETIME + 10**9, **attributes: object) -> str | None:
    values = {name: str(value) for name, value in attributes.items()}
    return entry_state(values.get, now)


def test_entry_state_from_ad_attributes():
    assert state(userAccountControl=512, pwdLastSet=RECENT_FILETIME) is None
    assert state() is None  # no AD attributes at all: plain OpenLDAP
    assert state(userAccountControl=514) == "account_disabled"
    assert state(userAccountControl=512, accountExpires=PAST_FILETIME) == "account_expired"
    for never in (0, NEVER):
        assert state(userAccountControl=512, accountExpires=never) is None
    assert state(accountExpires=RECENT_FILETIME + 10**12) is None  # expires later
    assert state(lockoutTime=RECENT_FILETIME) == "account_locked"
    assert state(lockoutTime=0) is None
    assert state(userAccountControl=512 | 0x10) == "account_locked"
    assert state(userAccountControl=512 | 0x800000) == "password_expired"
    assert state(pwdLastSet=0) == "password_must_change"
    # A disabled account that also must change its password is, first, disabled.
    assert state(userAccountControl=514, pwdLastSet=0) == "account_disabled"
    assert state(userAccountControl="not a number") is None


def test_ads_computed_flags_say_whether_a_lockout_is_still_in_force():
    # lockoutTime stays set after the lockout window until the next good sign-in.
    computed = "msDS-User-Account-Control-Computed"
    assert state(lockoutTime=RECENT_FILETIME, **{computed: 0}) is None
    assert state(lockoutTime=RECENT_FILETIME, **{computed: 0x10}) == "account_locked"
    assert state(**{computed: 0x800000}) == "password_expired"


# -- sign-in against the real directory ----------------------------------------------


@pytest.fixture
def ad_acme(app, acme, directory):
    verify_domain(app, acme.org_id, "acme.test")
    configure(app, acme.org_id, directory, search_filter=AD_FILTER)
    return acme


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("dee", "account_disabled"),
        ("max", "password_must_change"),
        ("lou", "account_locked"),
        ("pat", "password_expired"),
        ("eve", "account_expired"),
    ],
)
def test_the_right_password_on_a_refused_account_names_the_state(
    client, app, ad_acme, username, reason
):
    resp = post_json(client, "acme", username, PASSWORDS[username])
    assert resp.status_code == 403
    assert resp.get_json()["detail"] == MESSAGES[reason]
    assert client.get("/o/acme/").status_code == 302  # not signed in
    assert account_and_memberships(app, f"{username}@acme.test") == (None, [])
    [event] = failures(app, ad_acme.org_id)
    assert (event["reason"], event["password_accepted"]) == (reason, True)


@pytest.mark.parametrize("username", ["dee", "max", "lou", "pat", "eve"])
def test_a_wrong_password_reveals_nothing_but_admins_see_the_state(client, app, ad_acme, username):
    resp = post_json(client, "acme", username, "a-guess")
    assert resp.status_code == 401
    assert resp.get_json()["detail"] == BAD_CREDENTIALS
    [event] = failures(app, ad_acme.org_id)
    assert event["reason"] != "invalid_credentials"
    assert event["password_accepted"] is False


def test_an_account_in_good_standing_signs_in(client, app, ad_acme):
    resp = post_json(client, "acme", "alan", PASSWORDS["alan"])
    assert resp.status_code == 200
    assert failures(app, ad_acme.org_id) == []


def test_the_browser_shows_the_state_and_keeps_the_username(client, ad_acme):
    resp = client.post(
        "/auth/ldap/login", data={"org": "acme", "username": "dee", "password": PASSWORDS["dee"]}
    )
    assert resp.status_code == 403
    page = resp.get_data(as_text=True)
    assert "Your directory account is disabled." in page
    assert 'value="dee"' in page and PASSWORDS["dee"] not in page


# -- AD's own bind diagnostics ---------------------------------------------------------


@pytest.fixture
def ad_says(monkeypatch):
    """Make the directory refuse the person's bind as AD would, with ``data <code>``:
    the real connection is kept; only the bind's answer is AD's."""
    import ldap3

    answer = {}
    real_rebind = ldap3.Connection.rebind

    def rebind(self, user=None, password=None, *args, **kwargs):
        ok = real_rebind(self, user, password, *args, **kwargs)
        if "code" in answer:
            self.result = {
                **self.result,
                "result": 49,
                "description": "invalidCredentials",
                "message": ad_error(answer["code"]),
            }
            return False
        return ok

    monkeypatch.setattr(ldap3.Connection, "rebind", rebind)
    return answer


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("533", "account_disabled"),
        ("701", "account_expired"),
        ("532", "password_expired"),
        ("773", "password_must_change"),
        ("775", "account_locked"),
        ("530", "logon_hours"),
        ("531", "workstation_not_permitted"),
    ],
)
def test_ad_telling_the_state_is_shown(client, app, ad_acme, ad_says, code, reason):
    ad_says["code"] = code
    resp = post_json(client, "acme", "alan", PASSWORDS["alan"])
    assert resp.status_code == 403
    assert resp.get_json()["detail"] == MESSAGES[reason]
    [event] = failures(app, ad_acme.org_id)
    assert (event["reason"], event["ad_data"]) == (reason, True)


@pytest.mark.parametrize("code", ["52e", "525"])
def test_ads_wrong_password_codes_stay_wrong_passwords(client, app, ad_acme, ad_says, code):
    ad_says["code"] = code
    resp = post_json(client, "acme", "alan", "a-guess")
    assert resp.status_code == 401
    assert resp.get_json()["detail"] == BAD_CREDENTIALS
    assert [f["reason"] for f in failures(app, ad_acme.org_id)] == ["invalid_credentials"]


def test_a_disabled_service_account_is_named_in_the_connection_test(
    client, acme, directory, monkeypatch
):
    import ldap3

    real_bind = ldap3.Connection.bind

    def bind(self, *args, **kwargs):
        real_bind(self, *args, **kwargs)
        self.result = {**self.result, "result": 49, "message": ad_error("533")}
        return False

    put(client, acme, body(directory))
    monkeypatch.setattr(ldap3.Connection, "bind", bind)
    result = run_test(client, acme)
    assert result["ok"] is False
    assert "refused the service account: the account is disabled" in result["message"]
    assert "check the bind DN" not in result["message"]
