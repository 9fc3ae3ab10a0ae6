"""Directory group sync (docs/ldap.md#group-sync) against the session's real slapd:
nested groupOfNames, a cycle, posixGroup, the limits, the sign-in outcomes and the
dry-run preview. Active Directory's in-chain search cannot run on slapd (OpenLDAP has
no LDAP_MATCHING_RULE_IN_CHAIN), so its filter is tested as a unit."""

from __future__ import annotations

from pathlib import Path

import pytest
from ldap3.operation.search import parse_filter
from sqlalchemy import select

from tests.factories import add_person, create_project, login
from tests.identity.ldap.conftest import PASSWORDS, SUFFIX
from workspace.extensions import db

GROUPS = f"ou=groups,{SUFFIX}"
DEEP = f"ou=deep,{SUFFIX}"
ADA = f"uid=ada,ou=people,{SUFFIX}"
ALAN = f"cn=Alan Turing,ou=ad,{SUFFIX}"
ADMIN = f"uid=admin,ou=people,{SUFFIX}"
#: Deeper than groups.MAX_DEPTH (10).
DEEP_LEVELS = 12


def _group(cn: str, *members: str, base: str = GROUPS) -> str:
    lines = [f"dn: cn={cn},{base}", "objectClass: groupOfNames", f"cn: {cn.replace(chr(92), '')}"]
    return "\n".join(lines + [f"member: {m}" for m in members]) + "\n"


TREE = "\n".join(
    [
        f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: groups\n",
        f"dn: {DEEP}\nobjectClass: organizationalUnit\nou: deep\n",
        # ada is in platform; platform is in eng; eng is in all-staff.
        _group("platform", ADA),
        _group("eng", f"cn=platform,{GROUPS}"),
        _group("all-staff", f"cn=eng,{GROUPS}", ADMIN),
        # a comma in a name: matched by DN whichever way it is escaped
        _group("Ops\\, Night", ADA),
        _group("sales", ADMIN),
        # a cycle: a contains alan and b, b contains a
        _group("cycle-a", ALAN, f"cn=cycle-b,{GROUPS}"),
        _group("cycle-b", f"cn=cycle-a,{GROUPS}"),
        f"dn: cn=designers,{GROUPS}\nobjectClass: groupOfUniqueNames\ncn: designers\n"
        f"uniqueMember: {ALAN}\n",
        f"dn: cn=devs,{GROUPS}\nobjectClass: posixGroup\ncn: devs\ngidNumber: 5000\n"
        "memberUid: ada\n",
        # admin -> d0 -> d1 -> ... -> d11: deeper than the walk goes
        _group("d0", ADMIN, base=DEEP),
        *[_group(f"d{i}", f"cn=d{i - 1},{DEEP}", base=DEEP) for i in range(1, DEEP_LEVELS)],
    ]
)


@pytest.fixture(scope="module")
def groups_tree(directory):
    """Groups for this module, added as the directory's admin and removed at the end.
    posixGroup needs the nis schema, which the session's slapd does not load."""
    loaded = directory.server.ldapsearch("(cn=*nis)", "cn=schema,cn=config").stdout
    if b"nis,cn=schema" not in loaded:  # once per session: the schema cannot be removed
        directory.server.ldapadd(Path("/etc/ldap/schema/nis.ldif").read_text())
    directory.server.ldapadd(TREE)
    yield directory
    directory.server.ldapdelete(GROUPS, recursive=True)
    directory.server.ldapdelete(DEEP, recursive=True)


@pytest.fixture
def synced_acme(app, ldap_acme, groups_tree):
    """Acme with directory group sync on, groups under ou=groups."""
    _set(app, ldap_acme.org_id, sync_groups_on_login=True, group_search_base=GROUPS)
    return ldap_acme


def _set(app, org_id, **values):
    from workspace.identity.ldap.models import connection_for

    with app.app_context():
        row = connection_for(org_id)
        for name, value in values.items():
            setattr(row, name, value)
        db.session.commit()


def _read(app, org_id, dn, username="ada"):
    """The person's groups as sign-in reads them, over a real service connection."""
    from workspace.identity.ldap import directory, groups
    from workspace.identity.ldap.models import connection_for
    from workspace.identity.ldap.service import settings_for

    with app.app_context():
        row = connection_for(org_id)
        settings = settings_for(row)
        conn = directory.service_connection(settings)
        try:
            person = groups._person_entry(conn, settings, dn)
            return groups.read_groups(conn, settings, row, person, username)
        finally:
            directory.close(conn)


def _cns(found) -> set[str]:
    return {g.cn for g in found.groups}


def _map(client, org, group, project_id, role):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project_id, "role": role},
    )
    assert resp.status_code == 201, resp.get_json()


def _roles(app, email):
    from workspace.core.accounts import find_account
    from workspace.core.models import ProjectMember

    with app.app_context():
        account = find_account(email)
        return {
            str(pm.project_id): (pm.role, str(pm.source), pm.synced_group)
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == account.id)
            )
        }


def _events(app, org_id, prefix):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind.startswith(prefix))
        ).all()
        return [(e.kind, e.subject, e.data) for e in rows]


def _sign_in(client, username="ada"):
    resp = client.post(
        "/auth/ldap/login",
        json={"org": "acme", "username": username, "password": PASSWORDS[username]},
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)


# -- filters and DNs (no directory) ------------------------------------------------------


def test_in_chain_filter_asks_ad_for_nested_groups_with_the_dn_escaped():
    from workspace.identity.ldap.filters import in_chain_filter

    dn = "CN=Smith\\, J (ops)*,OU=People,DC=corp,DC=example"
    built = in_chain_filter(dn)
    assert built == (
        "(&(objectClass=group)(member:1.2.840.113556.1.4.1941:="
        "CN=Smith\\5c, J \\28ops\\29\\2a,OU=People,DC=corp,DC=example))"
    )
    # well-formed: one AND of an equality and an in-chain match, nothing injected
    [root] = parse_filter(built, None, False, False, None, False).elements
    [_group, match] = root.elements
    assert match.assertion["matchingRule"] == "1.2.840.113556.1.4.1941"
    assert match.assertion["attr"] == "member"


def test_member_and_posix_filters_escape_what_they_insert():
    from workspace.identity.ldap.filters import member_filter, posix_filter

    assert member_filter(["cn=a*,dc=x"]) == "(|(member=cn=a\\2a,dc=x)(uniqueMember=cn=a\\2a,dc=x))"
    assert (
        posix_filter("ada)(uid=*") == "(&(objectClass=posixGroup)(memberUid=ada\\29\\28uid=\\2a))"
    )


def test_dn_matching_ignores_case_spacing_and_escape_spelling():
    from workspace.identity.ldap.filters import dn_key
    from workspace.identity.ldap.groups import DirectoryGroup, PersonGroups

    assert dn_key("CN=Eng , OU=Groups,DC=Acme") == dn_key("cn=eng,ou=groups,dc=acme")
    assert dn_key("cn=Ops\\2C Night,dc=x") == dn_key("cn=ops\\, night,dc=x")
    assert dn_key("cn=eng,ou=groups,dc=acme") != dn_key("cn=eng,ou=other,dc=acme")
    assert dn_key("engineering") is None
    found = PersonGroups("groupofnames", [DirectoryGroup("cn=Eng,ou=Groups,dc=acme", "Eng")])
    assert found.matches("CN=ENG, OU=groups, DC=Acme")
    assert found.matches("eng")  # not a DN: the CN, case-insensitively
    assert not found.matches("cn=eng,ou=elsewhere,dc=acme")
    assert not found.matches("engineering")


# -- reading groups from slapd -----------------------------------------------------------


def test_nested_groups_are_followed_and_auto_reads_openldap_as_groupofnames(app, synced_acme):
    found = _read(app, synced_acme.org_id, ADA)
    assert found.error is None
    assert found.mode == "groupofnames"  # slapd's rootDSE announces no AD capability
    assert _cns(found) == {"platform", "eng", "all-staff", "Ops, Night"}


def test_a_cycle_ends_and_each_group_is_read_once(app, synced_acme):
    found = _read(app, synced_acme.org_id, ALAN, "alan")
    assert found.error is None
    # alan's entry is an AD-style user, but the directory says it is not AD
    assert found.mode == "groupofnames"
    assert sorted(g.cn for g in found.groups) == ["cycle-a", "cycle-b", "designers"]


def test_posix_groups_are_read_by_memberuid(app, synced_acme):
    _set(app, synced_acme.org_id, group_membership="posixgroup")
    found = _read(app, synced_acme.org_id, ADA)
    assert (found.error, found.mode, _cns(found)) == (None, "posixgroup", {"devs"})


def test_nesting_deeper_than_the_limit_is_refused_not_cut(app, synced_acme):
    _set(app, synced_acme.org_id, group_search_base=DEEP)
    found = _read(app, synced_acme.org_id, ADMIN, "admin")
    assert found.reason == "nesting_too_deep"
    assert "10 levels" in found.error
    assert found.groups == []


def test_more_groups_than_the_cap_is_refused_not_cut(app, synced_acme, monkeypatch):
    from workspace.identity.ldap import groups

    monkeypatch.setattr(groups, "MAX_GROUPS", 3)  # ada is in four
    found = _read(app, synced_acme.org_id, ADA)
    assert found.reason == "too_many_groups"
    assert found.groups == []


# -- at sign-in (needs the one-line call in ldap/signin.py) -----------------------------


def test_sign_in_syncs_nested_groups_into_project_roles(app, client, synced_acme):
    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    ops = create_project(client, synced_acme, "Ops", "OPS")["id"]
    crm = create_project(client, synced_acme, "CRM", "CRM")["id"]
    _map(client, synced_acme, "ENG", web, "member")  # by CN, two levels up from ada
    _map(client, synced_acme, f"CN=All-Staff,OU=Groups,{SUFFIX.upper()}", web, "viewer")
    _map(client, synced_acme, f"cn=Ops\\2C Night,{GROUPS}", ops, "admin")  # DN, hex escape
    _map(client, synced_acme, "sales", crm, "member")  # ada is not in sales
    _sign_in(client)
    assert _roles(app, "ada.lovelace@acme.test") == {
        web: ("member", "synced", "ENG"),  # the highest role wins
        ops: ("admin", "synced", f"cn=Ops\\2C Night,{GROUPS}"),
    }
    added = _events(app, synced_acme.org_id, "ldap.sync.")
    assert sorted((kind, data["project_id"]) for kind, _s, data in added) == sorted(
        [("ldap.sync.added", web), ("ldap.sync.added", ops)]
    )


def test_stale_synced_memberships_go_when_the_directory_drops_the_group(
    app, client, synced_acme, groups_tree
):
    _set(app, synced_acme.org_id, remove_stale_synced_memberships=True)
    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    _map(client, synced_acme, "temp-team", web, "member")
    groups_tree.server.ldapadd(_group("temp-team", f"cn=platform,{GROUPS}"))
    try:
        _sign_in(client)
        assert _roles(app, "ada.lovelace@acme.test") == {web: ("member", "synced", "temp-team")}
    finally:
        groups_tree.server.ldapdelete(f"cn=temp-team,{GROUPS}")
    _sign_in(client)
    assert _roles(app, "ada.lovelace@acme.test") == {}
    kinds = [kind for kind, _s, _d in _events(app, synced_acme.org_id, "ldap.sync.")]
    assert kinds == ["ldap.sync.added", "ldap.sync.removed"]


def test_unreadable_groups_skip_the_sync_and_the_sign_in_goes_on(app, client, synced_acme):
    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    _map(client, synced_acme, "eng", web, "member")
    _set(app, synced_acme.org_id, group_search_base=f"ou=missing,{SUFFIX}")
    _sign_in(client)
    assert client.get("/o/acme/").status_code == 200
    assert _roles(app, "ada.lovelace@acme.test") == {}
    [(kind, subject, data)] = _events(app, synced_acme.org_id, "ldap.sync.")
    assert (kind, subject, data["reason"]) == (
        "ldap.sync.skipped",
        "ada.lovelace@acme.test",
        "search_base_missing",
    )
    assert "ou=missing" in data["message"]


def test_sync_is_off_until_turned_on(app, client, ldap_acme, groups_tree):
    web = create_project(client, ldap_acme, "Web", "WEB")["id"]
    _map(client, ldap_acme, "eng", web, "member")
    _sign_in(client)
    assert _roles(app, "ada.lovelace@acme.test") == {}
    assert _events(app, ldap_acme.org_id, "ldap.sync.") == []


# -- settings ---------------------------------------------------------------------------


def _put(client, org, directory, **extra):
    from tests.identity.ldap.conftest import SERVICE_DN, SERVICE_PASSWORD

    body = {
        "server_uri": directory.uri,
        "bind_dn": SERVICE_DN,
        "bind_password": SERVICE_PASSWORD,
        "search_base": SUFFIX,
        "search_filter": "(uid={username})",
        "ca_cert": directory.ca_pem,
        **extra,
    }
    return client.put(org.url("/ldap"), headers=org.headers, json=body)


def test_group_sync_settings_are_saved_read_and_checked(app, client, acme, directory):
    resp = _put(
        client,
        acme,
        directory,
        sync_groups_on_login=True,
        remove_stale_synced_memberships=True,
        group_search_base=f"  {GROUPS} ",
        group_membership="posixgroup",
    )
    assert resp.status_code == 200, resp.get_json()
    got = client.get(acme.url("/ldap"), headers=acme.headers).get_json()
    assert {
        k: got[k] for k in ("sync_groups_on_login", "group_search_base", "group_membership")
    } == {
        "sync_groups_on_login": True,
        "group_search_base": GROUPS,
        "group_membership": "posixgroup",
    }
    assert [k for k, _s, _d in _events(app, acme.org_id, "ldap.group_sync_saved")] == [
        "ldap.group_sync_saved"
    ]
    bad = _put(client, acme, directory, group_search_base="not a dn")
    assert bad.status_code == 422
    assert bad.get_json()["errors"][0]["field"] == "group_search_base"
    assert _put(client, acme, directory, group_membership="nested").status_code == 400
    # a field left out takes its default: a full replace, like the rest of the record
    assert _put(client, acme, directory).get_json()["sync_groups_on_login"] is False


def test_settings_page_saves_group_sync(app, client, acme, directory):
    from tests.identity.ldap.conftest import SERVICE_DN, SERVICE_PASSWORD

    login(client, acme.owner_email)
    form = {
        "server_uri": directory.uri,
        "bind_dn": SERVICE_DN,
        "bind_password": SERVICE_PASSWORD,
        "search_base": SUFFIX,
        "search_filter": "(uid={username})",
        "email_attribute": "mail",
        "given_name_attribute": "givenName",
        "family_name_attribute": "sn",
        "use_tls": "1",
        "ca_cert": directory.ca_pem,
        "sync_groups_on_login": "1",
        "group_search_base": GROUPS,
        "group_membership": "groupofnames",
    }
    resp = client.post("/o/acme/settings/ldap", data=form)
    assert resp.status_code == 302, resp.get_data(as_text=True)
    html = client.get("/o/acme/settings/ldap").get_data(as_text=True)
    assert 'name="sync_groups_on_login" value="1" checked' in html
    assert 'name="remove_stale_synced_memberships" value="1">' in html
    assert f'value="{GROUPS}"' in html
    assert '<option value="groupofnames" selected>' in html
    bad = client.post("/o/acme/settings/ldap", data=form | {"group_search_base": "nope"})
    assert bad.status_code == 400
    assert "Enter the group search base as a DN" in bad.get_data(as_text=True)


# -- the dry-run preview -----------------------------------------------------------------


def _preview(client, org, username):
    return client.post(
        org.url("/ldap/sync-preview"), headers=org.headers, json={"username": username}
    )


def test_preview_shows_groups_matches_and_plan_and_writes_nothing(app, client, synced_acme):
    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    crm = create_project(client, synced_acme, "CRM", "CRM")["id"]
    _map(client, synced_acme, "eng", web, "member")
    _map(client, synced_acme, "sales", crm, "member")
    before = _events(app, synced_acme.org_id, "")
    resp = _preview(client, synced_acme, "ada")
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["ok"] is True and body["dn"] == ADA and body["email"] == "Ada.Lovelace@acme.test"
    assert body["group_membership"] == "groupofnames"
    assert {g["cn"] for g in body["groups"]} == {"platform", "eng", "all-staff", "Ops, Night"}
    assert [(m["idp_group"], m["project_id"]) for m in body["matched_mappings"]] == [("eng", web)]
    assert body["adds"] == [{"project_id": web, "role": "member", "from_role": None}]
    assert body["changes"] == [] and body["removes"] == []
    assert _events(app, synced_acme.org_id, "") == before


def test_preview_refusals_say_what_to_fix(app, client, synced_acme, globex):
    missing = _preview(client, synced_acme, "nobody")
    assert missing.status_code == 404 and "nobody" in missing.get_json()["detail"]
    assert _preview(client, synced_acme, " ").status_code == 422
    ambiguous = _preview(client, synced_acme, "twin")
    assert ambiguous.status_code == 422 and "More than one" in ambiguous.get_json()["detail"]
    member = add_person(app, synced_acme.org_id, "member@acme.test")
    assert _preview(client, member, "ada").status_code == 403
    assert _preview(client, globex, "ada").status_code == 404  # no LDAP there
    _set(app, synced_acme.org_id, group_search_base=f"ou=missing,{SUFFIX}")
    unread = _preview(client, synced_acme, "ada").get_json()
    assert unread["ok"] is False and "ou=missing" in unread["message"]
    assert unread["adds"] == [] and unread["groups"] == []


def test_preview_on_the_group_sync_page(app, client, synced_acme):
    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    _map(client, synced_acme, f"cn=eng,{GROUPS}", web, "admin")
    login(client, synced_acme.owner_email)
    page = client.get("/o/acme/settings/group-sync").get_data(as_text=True)
    assert "Preview from the directory" in page
    resp = client.post(
        "/o/acme/settings/group-sync/directory-preview",
        data={"username": "ada"},
        headers={"HX-Request": "true"},
    )
    html = resp.get_data(as_text=True)
    assert resp.status_code == 200, html
    assert f"cn=platform,{GROUPS}" in html and "Mappings matched (1)" in html
    assert "<td>Web</td><td>admin</td>" in html
    # without JavaScript: the whole page, the result under the form
    full = client.post("/o/acme/settings/group-sync/directory-preview", data={"username": "nobody"})
    assert full.status_code == 404
    assert "No directory entry matches" in full.get_data(as_text=True)


@pytest.mark.browser
def test_directory_preview_in_a_browser(page, live_server, client, synced_acme):
    from playwright.sync_api import expect

    from tests.factories import browser_sign_in

    web = create_project(client, synced_acme, "Web", "WEB")["id"]
    _map(client, synced_acme, "all-staff", web, "commenter")
    browser_sign_in(page, live_server.url, synced_acme.owner_email)
    page.goto(f"{live_server.url}/o/acme/settings/group-sync")
    page.get_by_label("Directory username").fill("ada")
    page.get_by_role("button", name="Preview from directory").click()
    result = page.locator("#directory-preview")
    expect(result).to_contain_text("Groups found (4)")
    expect(result).to_contain_text("Mappings matched (1)")
    expect(result.locator("table").last).to_contain_text("commenter")
    assert page.url.endswith("/settings/group-sync")  # swapped in place, no navigation


def test_a_directory_group_makes_an_org_admin_and_takes_it_back(
    app, client, synced_acme, groups_tree
):
    """docs/sso.md#org-role-from-groups: the org's admin role from a nested directory
    group at sign-in, and back to member once the directory drops the group."""
    from workspace.core.accounts import find_account
    from workspace.core.models import OrgMember

    def member_state(_app, org_id, email):
        with app.app_context():
            account = find_account(email)
            row = db.session.scalar(
                select(OrgMember).where(
                    OrgMember.org_id == org_id, OrgMember.account_id == account.id
                )
            )
            return row.active, row.role

    _set(app, synced_acme.org_id, remove_stale_synced_memberships=True)
    resp = client.post(
        synced_acme.url("/sso/group-mappings"),
        headers=synced_acme.headers,
        json={"idp_group": "wsadmins", "target": "org", "role": "admin"},
    )
    assert resp.status_code == 201, resp.get_json()
    groups_tree.server.ldapadd(_group("wsadmins", f"cn=platform,{GROUPS}"))
    try:
        _sign_in(client)
        assert member_state(app, synced_acme.org_id, "ada.lovelace@acme.test") == (True, "admin")
    finally:
        groups_tree.server.ldapdelete(f"cn=wsadmins,{GROUPS}")
    _sign_in(client)
    assert member_state(app, synced_acme.org_id, "ada.lovelace@acme.test") == (True, "member")
    kinds = [kind for kind, _s, _d in _events(app, synced_acme.org_id, "ldap.sync.")]
    assert kinds == ["ldap.sync.org_role_granted", "ldap.sync.org_role_revoked"]
