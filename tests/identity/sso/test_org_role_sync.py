"""The org's admin role from the OIDC groups claim (docs/sso.md#org-role-from-groups):
granted at sign-in through the real OIDC provider, kept or taken back by the
connection's stale-removal setting, shown in the dry-run preview and on the Group
sync page; never owner."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories import login
from workspace.core.accounts import find_account
from workspace.core.models import OrgMember
from workspace.extensions import db


def _map_org(client, org, group, role="admin"):
    return client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "target": "org", "role": role},
    )


def _sign_in(app, sso, email, groups):
    resp = sso.sign_in(app.test_client(), email.split("@")[0] + "-sub", email=email, groups=groups)
    assert resp.status_code == 302, resp.get_data(as_text=True)


def _member(app, org_id, email):
    with app.app_context():
        account = find_account(email)
        m = db.session.scalar(
            select(OrgMember).where(OrgMember.org_id == org_id, OrgMember.account_id == account.id)
        )
        return m.role, m.role_source, m.role_synced_from


def _set_stale(client, sso, on: bool):
    body = {
        "email_domain": "acme.test",
        "issuer_url": sso.provider.url,
        "client_id": "workspace-acme",
        "enabled": True,
        "remove_stale_synced_memberships": on,
    }
    resp = client.put(sso.org.url("/sso"), headers=sso.org.headers, json=body)
    assert resp.status_code == 200, resp.get_json()


def _kinds(client, org):
    return [e["kind"] for e in client.get(org.url("/events"), headers=org.headers).get_json()]


def test_groups_claim_makes_admin_at_sign_in(app, client, sso):
    assert _map_org(client, sso.org, "wsadmins").status_code == 201
    _sign_in(app, sso, "ann@acme.test", ["wsadmins", "devs"])
    assert _member(app, sso.org.org_id, "ann@acme.test") == (
        "admin",
        "synced",
        "SSO group wsadmins",
    )
    assert "sso.sync.org_role_granted" in _kinds(client, sso.org)
    # stale removal off (the default): a sign-in without the group keeps the role
    _sign_in(app, sso, "ann@acme.test", ["devs"])
    assert _member(app, sso.org.org_id, "ann@acme.test")[0] == "admin"
    # on: the next sign-in without the group takes back what it granted
    _set_stale(client, sso, True)
    _sign_in(app, sso, "ann@acme.test", ["devs"])
    assert _member(app, sso.org.org_id, "ann@acme.test") == ("member", None, None)
    assert "sso.sync.org_role_revoked" in _kinds(client, sso.org)


def test_owner_is_never_a_mappings_role(client, sso):
    resp = _map_org(client, sso.org, "owners", role="owner")
    assert resp.status_code == 422
    assert "never owners" in resp.get_json()["detail"]
    other = _map_org(client, sso.org, "owners", role="member")
    assert other.status_code == 422 and "grants the role admin" in other.get_json()["detail"]
    assert _map_org(client, sso.org, "owners").status_code == 201
    dup = _map_org(client, sso.org, "owners")
    assert dup.status_code == 409 and "already makes people admins" in dup.get_json()["detail"]


def test_owner_signing_in_with_the_group_stays_owner(app, client, sso):
    _map_org(client, sso.org, "wsadmins")
    _set_stale(client, sso, True)
    _sign_in(app, sso, sso.org.owner_email, ["wsadmins"])
    _sign_in(app, sso, sso.org.owner_email, [])
    assert _member(app, sso.org.org_id, sso.org.owner_email)[0] == "owner"
    assert not [k for k in _kinds(client, sso.org) if "org_role" in k]


def test_preview_lists_the_org_role_change(app, client, sso):
    _map_org(client, sso.org, "wsadmins")
    _sign_in(app, sso, "bea@acme.test", [])
    out = client.post(
        sso.org.url("/sso/sync-preview"),
        headers=sso.org.headers,
        json={"email": "bea@acme.test", "groups": ["wsadmins"]},
    ).get_json()
    assert out["org_role"] == {
        "role": "admin",
        "from_role": "member",
        "group": "SSO group wsadmins",
    }
    assert _member(app, sso.org.org_id, "bea@acme.test")[0] == "member"  # wrote nothing
    login(client, sso.org.owner_email)
    page = f"/o/{sso.org.slug}/settings/group-sync"
    html = client.post(
        page + "/preview",
        headers={"HX-Request": "true"},
        data={"email": "bea@acme.test", "groups": "wsadmins"},
    ).get_data(as_text=True)
    assert "Would become an admin of the organization (SSO group wsadmins)" in html


def test_group_sync_page_adds_an_org_admin_mapping(app, client, sso):
    login(client, sso.org.owner_email)
    page = f"/o/{sso.org.slug}/settings/group-sync"
    html = client.get(page).get_data(as_text=True)
    assert '<label for="f-project_id">Grants</label>' in html
    assert '<option value="org"' in html and "Org admin" in html
    resp = client.post(page, data={"idp_group": "wsadmins", "project_id": "org", "role": "admin"})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    html = client.get(page).get_data(as_text=True)
    assert "wsadmins" in html and "The organization" in html
    bad = client.post(page, data={"idp_group": "ops", "project_id": "org", "role": "viewer"})
    assert bad.status_code == 400  # the page answers 400 with the message by the field
    assert "grants the role admin" in bad.get_data(as_text=True)
    listed = client.get(sso.org.url("/sso/group-mappings"), headers=sso.org.headers).get_json()
    assert [(m["idp_group"], m["target"], m["project_id"]) for m in listed] == [
        ("wsadmins", "org", None)
    ]


def _member_id(app, org_id, email):
    with app.app_context():
        account = find_account(email)
        return str(
            db.session.scalar(
                select(OrgMember.id).where(
                    OrgMember.org_id == org_id, OrgMember.account_id == account.id
                )
            )
        )


def test_a_role_set_by_hand_is_handed_back_to_group_sync(app, client, sso):
    """docs/sso.md#org-role-from-groups: a person's change takes the role over until an
    admin hands it back; then the role is what the person's groups grant, and follows
    them again."""
    org = sso.org
    _map_org(client, org, "wsadmins")
    _sign_in(app, sso, "ann@acme.test", ["wsadmins"])
    ann = org.url(f"/members/{_member_id(app, org.org_id, 'ann@acme.test')}")
    resp = client.patch(ann, headers=org.headers, json={"role": "member"})
    assert resp.status_code == 200
    assert (resp.get_json()["role"], resp.get_json()["role_source"]) == ("member", "manual")
    _sign_in(app, sso, "ann@acme.test", ["wsadmins"])
    assert _member(app, org.org_id, "ann@acme.test") == ("member", "manual", None)

    # The members page says so and offers the hand-back, with what it will do.
    browser = app.test_client()
    login(browser, org.owner_email)
    html = browser.get(f"/o/{org.slug}/settings/members").get_data(as_text=True)
    assert "set by hand; group sync leaves it" in html
    assert "Their groups make them admin, via SSO group wsadmins now" in html

    resp = client.patch(ann, headers=org.headers, json={"role_from_groups": True})
    assert resp.status_code == 200, resp.get_json()
    out = resp.get_json()
    assert (out["role"], out["role_source"], out["role_synced_from"]) == (
        "admin",
        "synced",
        "SSO group wsadmins",
    )
    assert "groupsync.org_role_handed_back" in _kinds(client, org)
    # It follows the groups again: without the group, stale removal takes it back.
    _set_stale(client, sso, True)
    _sign_in(app, sso, "ann@acme.test", [])
    assert _member(app, org.org_id, "ann@acme.test") == ("member", None, None)


def test_the_members_page_reads_every_offer_in_the_same_few_statements(app, client, sso):
    """Each row set by hand offers what a hand-back would do; the page reads the groups
    of all of them at once, so the statements do not grow with the rows."""
    from sqlalchemy import event

    from workspace.admin.members import list_page, role_from_groups_offers
    from workspace.admin.schemas import MemberListQuery

    org = sso.org
    _map_org(client, org, "wsadmins")
    people = {"ann@acme.test": ["wsadmins"], "bea@acme.test": ["devs"],
              "cid@acme.test": ["wsadmins", "devs"], "dee@acme.test": []}  # fmt: skip
    for email, groups in people.items():
        _sign_in(app, sso, email, groups)
        member = org.url(f"/members/{_member_id(app, org.org_id, email)}")
        role = "member" if "wsadmins" in groups else "admin"
        assert client.patch(member, headers=org.headers, json={"role": role}).status_code == 200
    with app.app_context():
        rows, _ = list_page(org.org_id, MemberListQuery())
        statements = []
        count = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(db.engine, "before_cursor_execute", count)
        try:
            offers = role_from_groups_offers(org.org_id, rows)
        finally:
            event.remove(db.engine, "before_cursor_execute", count)
        by_email = {r.member.account.email: offers.get(r.member.id) for r in rows}
    assert {e: by_email[e] for e in people} == {
        "ann@acme.test": "admin, via SSO group wsadmins",
        "bea@acme.test": "member",
        "cid@acme.test": "admin, via SSO group wsadmins",
        "dee@acme.test": "member",
    }
    assert by_email[org.owner_email] is None  # the owner is never handed back
    assert len(statements) <= 3, statements


def test_an_admin_made_by_hand_without_a_mapped_group_goes_back_to_member(app, client, sso):
    org = sso.org
    _map_org(client, org, "wsadmins")
    _sign_in(app, sso, "bea@acme.test", ["devs"])
    bea = _member_id(app, org.org_id, "bea@acme.test")
    client.patch(org.url(f"/members/{bea}"), headers=org.headers, json={"role": "admin"})
    browser = app.test_client()
    login(browser, org.owner_email)
    page = f"/o/{org.slug}/settings/members"
    assert "Their groups make them member now" in browser.get(page).get_data(as_text=True)
    resp = browser.post(f"{page}/{bea}/role-from-groups", data={}, follow_redirects=True)
    assert resp.status_code == 200
    assert "role follows group sync again: member" in resp.get_data(as_text=True)
    assert _member(app, org.org_id, "bea@acme.test") == ("member", None, None)


def test_handing_back_is_refused_where_group_sync_never_decides(app, client, sso):
    org = sso.org
    owner = org.url(f"/members/{_member_id(app, org.org_id, org.owner_email)}")
    resp = client.patch(owner, headers=org.headers, json={"role_from_groups": True})
    assert resp.status_code == 409
    assert "never sets an owner's role" in resp.get_json()["detail"]
    both = client.patch(
        owner, headers=org.headers, json={"role": "admin", "role_from_groups": True}
    )
    assert both.status_code == 400
    # The validator's own words, without pydantic's "Value error, " before them.
    assert [e["message"] for e in both.get_json()["errors"]] == [
        "send either role or role_from_groups, not both"
    ]
    false = client.patch(owner, headers=org.headers, json={"role_from_groups": False})
    assert false.status_code == 200  # changes nothing
    assert _member(app, org.org_id, org.owner_email)[0] == "owner"


def test_a_preview_for_half_an_address_is_refused_on_the_field(client, sso):
    for typed in ("x@", "@acme.test", "ann@-bad-"):
        resp = client.post(
            sso.org.url("/sso/sync-preview"),
            headers=sso.org.headers,
            json={"email": typed, "groups": ["wsadmins"]},
        )
        assert resp.status_code == 422, (typed, resp.get_json())
        (error,) = resp.get_json()["errors"]
        assert error["field"] == "email" and "whole email address" in error["message"]
