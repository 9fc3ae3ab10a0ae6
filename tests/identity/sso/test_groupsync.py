"""Group mappings and reconcile (docs/sso.md#group-sync), through real SSO sign-ins where the
claim matters and through the dry-run preview."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from tests.factories import create_project, login
from workspace.core.models import Event, ProjectMember
from workspace.extensions import db
from workspace.identity.groupsync.service import groups_from_claims


def _project(client, org, identifier):
    return create_project(client, org, f"Project {identifier}", identifier)["id"]


def _map(client, org, group, project_id, role):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project_id, "role": role},
    )
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def _roles(app, email):
    with app.app_context():
        from workspace.core.accounts import find_account

        account = find_account(email)
        return {
            str(pm.project_id): (pm.role, pm.source)
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == account.id)
            )
        }


def _groups(app, email):
    """Project -> the IdP group a membership names (``synced_group``)."""
    with app.app_context():
        from workspace.core.accounts import find_account

        account = find_account(email)
        return {
            str(pm.project_id): pm.synced_group
            for pm in db.session.scalars(
                select(ProjectMember).where(ProjectMember.account_id == account.id)
            )
        }


def _set_connection(client, sso, **changes):
    body = {
        "email_domain": "acme.test",
        "issuer_url": sso.provider.url,
        "client_id": "workspace-acme",
        "enabled": True,
    } | changes
    resp = client.put(sso.org.url("/sso"), headers=sso.org.headers, json=body)
    assert resp.status_code == 200, resp.get_json()


def _sign_in(app, sso, email, groups, claim="groups"):
    sub = email.split("@")[0] + "-sub"
    resp = sso.sign_in(app.test_client(), sub, email=email, **{claim: groups})
    assert resp.status_code == 302, resp.get_data(as_text=True)


def test_highest_rank_wins_and_ties(app, client, sso):
    a, b = _project(client, sso.org, "AAA"), _project(client, sso.org, "BBB")
    _map(client, sso.org, "devs", a, "member")
    _map(client, sso.org, "leads", a, "admin")
    _map(client, sso.org, "readers", a, "viewer")
    _map(client, sso.org, "devs", b, "commenter")
    _map(client, sso.org, "qa", b, "commenter")  # a tie: same rank from two groups
    _sign_in(app, sso, "ann@acme.test", ["readers", "devs", "leads", "qa"])
    assert _roles(app, "ann@acme.test") == {a: ("admin", "synced"), b: ("commenter", "synced")}
    # The highest-ranked mapping's group; on a tie, the group that sorts first.
    assert _groups(app, "ann@acme.test") == {a: "leads", b: "devs"}


def test_synced_role_changes_stale_kept_when_setting_off(app, client, sso):
    a, b = _project(client, sso.org, "AAA"), _project(client, sso.org, "BBB")
    _map(client, sso.org, "devs", a, "member")
    _map(client, sso.org, "ops", b, "viewer")
    _sign_in(app, sso, "ben@acme.test", ["devs", "ops"])
    _map(client, sso.org, "leads", a, "admin")
    _sign_in(app, sso, "ben@acme.test", ["devs", "leads"])  # promoted; left ops
    assert _roles(app, "ben@acme.test") == {a: ("admin", "synced"), b: ("viewer", "synced")}
    # Promoted by another group: the membership now names it; the kept one is unchanged.
    assert _groups(app, "ben@acme.test") == {a: "leads", b: "ops"}
    events = client.get(sso.org.url("/events?kind=sso.sync"), headers=sso.org.headers).get_json()
    changed = [e for e in events if e["kind"] == "sso.sync.changed"]
    assert changed and changed[0]["data"]["from_role"] == "member"
    assert changed[0]["data"]["role"] == "admin"


def test_stale_synced_removed_when_setting_on(app, client, sso):
    a, b = _project(client, sso.org, "AAA"), _project(client, sso.org, "BBB")
    _map(client, sso.org, "devs", a, "member")
    _map(client, sso.org, "ops", b, "viewer")
    _set_connection(client, sso, remove_stale_synced_memberships=True)
    _sign_in(app, sso, "cy@acme.test", ["devs", "ops"])
    _sign_in(app, sso, "cy@acme.test", ["devs"])
    assert _roles(app, "cy@acme.test") == {a: ("member", "synced")}
    kinds = [
        e["kind"] for e in client.get(sso.org.url("/events"), headers=sso.org.headers).get_json()
    ]
    assert "sso.sync.removed" in kinds


def test_manual_memberships_never_touched(app, client, sso):
    a, b = _project(client, sso.org, "AAA"), _project(client, sso.org, "BBB")
    _map(client, sso.org, "devs", a, "admin")
    _set_connection(client, sso, remove_stale_synced_memberships=True)
    _sign_in(app, sso, "dee@acme.test", [])
    members = client.get(sso.org.url("/members"), headers=sso.org.headers).get_json()
    dee = next(m for m in members if m["account"]["email"] == "dee@acme.test")
    for project_id, role in ((a, "viewer"), (b, "member")):
        resp = client.post(
            sso.org.url(f"/projects/{project_id}/members"),
            headers=sso.org.headers,
            json={"account_id": dee["account"]["id"], "role": role},
        )
        assert resp.status_code == 201, resp.get_json()
    _sign_in(app, sso, "dee@acme.test", ["devs"])  # wants admin on A; B has no group
    assert _roles(app, "dee@acme.test") == {a: ("viewer", "manual"), b: ("member", "manual")}
    assert _groups(app, "dee@acme.test") == {a: None, b: None}


def test_idempotent_on_second_login(app, client, sso):
    a = _project(client, sso.org, "AAA")
    _map(client, sso.org, "devs", a, "member")
    _sign_in(app, sso, "eli@acme.test", ["devs"])
    first = client.get(sso.org.url("/events?kind=sso.sync"), headers=sso.org.headers).get_json()
    _sign_in(app, sso, "eli@acme.test", ["devs"])
    second = client.get(sso.org.url("/events?kind=sso.sync"), headers=sso.org.headers).get_json()
    assert len(first) == len(second) == 1
    assert _roles(app, "eli@acme.test") == {a: ("member", "synced")}
    assert _groups(app, "eli@acme.test") == {a: "devs"}
    logins = client.get(sso.org.url("/events?kind=auth.login"), headers=sso.org.headers)
    assert len(logins.get_json()) == 2


def test_configurable_claim_and_single_string(app, client, sso):
    a = _project(client, sso.org, "AAA")
    _map(client, sso.org, "Engineering", a, "commenter")
    _set_connection(client, sso, groups_claim="roles")
    _sign_in(app, sso, "fay@acme.test", "Engineering", claim="roles")
    assert _roles(app, "fay@acme.test") == {a: ("commenter", "synced")}


def test_sync_off_adds_nothing(app, client, sso):
    a = _project(client, sso.org, "AAA")
    _map(client, sso.org, "devs", a, "member")
    _set_connection(client, sso, sync_groups_on_login=False)
    _sign_in(app, sso, "gus@acme.test", ["devs"])
    assert _roles(app, "gus@acme.test") == {}


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        ({"groups": ["a", " b ", "", 3]}, ["a", "b"]),
        ({"groups": "solo"}, ["solo"]),
        ({"groups": None}, []),
        ({"groups": {"a": 1}}, []),
        ({}, []),
    ],
)
def test_groups_claim_shapes(claims, expected):
    assert groups_from_claims(claims, "groups") == expected


def test_preview_writes_nothing(app, client, sso):
    a, b = _project(client, sso.org, "AAA"), _project(client, sso.org, "BBB")
    _map(client, sso.org, "devs", a, "member")
    _map(client, sso.org, "ops", b, "viewer")
    resp = client.post(
        sso.org.url("/sso/sync-preview"),
        headers=sso.org.headers,
        json={"email": "new@acme.test", "groups": ["devs", "ops"]},
    )
    assert resp.status_code == 200, resp.get_json()
    out = resp.get_json()
    assert sorted((c["project_id"], c["role"]) for c in out["adds"]) == sorted(
        [(a, "member"), (b, "viewer")]
    )
    assert out["changes"] == [] and out["removes"] == []
    # An existing member: a change and (stale removal on) a remove.
    _sign_in(app, sso, "hal@acme.test", ["devs", "ops"])
    _set_connection(client, sso, remove_stale_synced_memberships=True)
    _map(client, sso.org, "leads", a, "admin")
    members = client.get(sso.org.url("/members"), headers=sso.org.headers).get_json()
    hal = next(m for m in members if m["account"]["email"] == "hal@acme.test")
    before = client.get(sso.org.url("/events"), headers=sso.org.headers).get_json()
    out = client.post(
        sso.org.url("/sso/sync-preview"),
        headers=sso.org.headers,
        json={"member_id": hal["id"], "groups": ["leads"]},
    ).get_json()
    assert out["adds"] == []
    assert out["changes"] == [{"project_id": a, "role": "admin", "from_role": "member"}]
    assert out["removes"] == [{"project_id": b, "role": "viewer", "from_role": None}]
    assert _roles(app, "hal@acme.test") == {a: ("member", "synced"), b: ("viewer", "synced")}
    after = client.get(sso.org.url("/events"), headers=sso.org.headers).get_json()
    assert len(after) == len(before)


def test_preview_input_errors(client, sso):
    url, headers = sso.org.url("/sso/sync-preview"), sso.org.headers
    # Neither an email nor a member: the document refuses it, the service words it.
    assert client.post(url, headers=headers, json={"groups": []}).status_code == 422
    both = {
        "email": "a@acme.test",
        "member_id": "00000000-0000-0000-0000-000000000000",
        "groups": [],
    }
    assert client.post(url, headers=headers, json=both).status_code == 400
    unknown = {"member_id": "00000000-0000-0000-0000-000000000000", "groups": []}
    assert client.post(url, headers=headers, json=unknown).status_code == 404


def test_mappings_api(app, client, sso, globex):
    a = _project(client, sso.org, "AAA")
    m = _map(client, sso.org, "devs", a, "member")
    assert m["idp_group"] == "devs" and m["role"] == "member"
    listed = client.get(sso.org.url("/sso/group-mappings"), headers=sso.org.headers).get_json()
    assert [x["id"] for x in listed] == [m["id"]]
    dup = client.post(
        sso.org.url("/sso/group-mappings"),
        headers=sso.org.headers,
        json={"idp_group": "devs", "project_id": a, "role": "admin"},
    )
    assert dup.status_code == 409
    bad_role = client.post(
        sso.org.url("/sso/group-mappings"),
        headers=sso.org.headers,
        json={"idp_group": "x", "project_id": a, "role": "owner"},
    )
    assert bad_role.status_code == 422  # owner is never a mapping's role
    theirs = _project(client, globex, "GLX")
    foreign = client.post(
        sso.org.url("/sso/group-mappings"),
        headers=sso.org.headers,
        json={"idp_group": "x", "project_id": theirs, "role": "viewer"},
    )
    assert foreign.status_code == 422
    assert foreign.get_json()["errors"][0]["field"] == "project_id"
    # No project named: say to choose one, not that "no such project" exists.
    unnamed = client.post(sso.org.url("/sso/group-mappings"), headers=sso.org.headers,
                          json={"idp_group": "x", "role": "viewer"})  # fmt: skip
    assert unnamed.status_code == 422
    assert unnamed.get_json()["errors"][0]["message"].startswith("Choose the project")
    assert (
        client.delete(
            globex.url(f"/sso/group-mappings/{m['id']}"), headers=globex.headers
        ).status_code
        == 404
    )
    assert (
        client.delete(
            sso.org.url(f"/sso/group-mappings/{m['id']}"), headers=sso.org.headers
        ).status_code
        == 204
    )
    assert client.get(sso.org.url("/sso/group-mappings"), headers=sso.org.headers).get_json() == []


def test_group_sync_page_add_remove_and_preview(app, client, sso):
    a = _project(client, sso.org, "AAA")
    login(client, sso.org.owner_email)
    page = f"/o/{sso.org.slug}/settings/group-sync"
    html = client.get(page).get_data(as_text=True)
    assert "Project AAA" in html and "No mappings yet" in html
    resp = client.post(page, data={"idp_group": "devs", "project_id": a, "role": "admin"})
    assert resp.status_code == 302
    html = client.get(page).get_data(as_text=True)
    assert "devs" in html and "admin" in html
    bad = client.post(page, data={"idp_group": "", "project_id": a, "role": "admin"})
    assert bad.status_code == 400 and "IdP group name" in bad.get_data(as_text=True)
    partial = client.post(
        page + "/preview",
        headers={"HX-Request": "true"},
        data={"email": "zed@acme.test", "groups": "devs\nnothing, else"},
    )
    text = partial.get_data(as_text=True)
    assert "<html" not in text and "Project AAA" in text and "add" in text and "admin" in text
    none = client.post(page + "/preview", data={"email": "zed@acme.test", "groups": "x"})
    assert "No changes" in none.get_data(as_text=True)
    # A group name with commas (an AD DN) is one group, not three.
    dn = "CN=Eng,OU=Groups,DC=acme,DC=test"
    client.post(page, data={"idp_group": dn, "project_id": a, "role": "viewer"})
    whole = client.post(page + "/preview", data={"email": "zed@acme.test", "groups": dn})
    assert "Project AAA" in whole.get_data(as_text=True)
    split = client.post(page + "/preview", data={"email": "zed@acme.test", "groups": "CN=Eng"})
    assert "No changes" in split.get_data(as_text=True)
    for mapping in client.get(
        sso.org.url("/sso/group-mappings"), headers=sso.org.headers
    ).get_json():
        resp = client.post(f"{page}/{mapping['id']}/remove", headers={"HX-Request": "true"})
        assert resp.status_code == 200 and resp.get_data(as_text=True) == ""
    assert client.get(sso.org.url("/sso/group-mappings"), headers=sso.org.headers).get_json() == []


# -- an absent groups claim is not an empty one (docs/sso.md#group-sync) ---------------


def _skips(app, org_id) -> list[dict]:
    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == "sso.sync.skipped")
        )
        return [{"subject": e.subject, **e.data} for e in rows]


def test_a_sign_in_without_the_groups_claim_removes_no_synced_membership(app, client, sso):
    _set_connection(client, sso, remove_stale_synced_memberships=True)
    web = _project(client, sso.org, "WEB")
    _map(client, sso.org, "devs", web, "member")
    first = sso.sign_in(app.test_client(), "kim-sub", email="kim@acme.test", groups=["devs"])
    assert first.status_code == 302
    assert _roles(app, "kim@acme.test") == {web: ("member", "synced")}

    # The provider now sends no groups claim at all (its groups scope was not asked for).
    sso.provider.set_user("kim-sub", email="kim@acme.test")
    again = sso.sign_in(app.test_client(), "kim-sub")
    assert again.status_code == 302
    assert _roles(app, "kim@acme.test") == {web: ("member", "synced")}
    (skip,) = _skips(app, sso.org.org_id)
    assert skip["subject"] == "kim@acme.test" and skip["reason"] == "no_groups_claim"
    assert "sent no 'groups' claim" in skip["message"]

    # A claim that is there and empty still means "in no group".
    sso.provider.set_user("kim-sub", email="kim@acme.test", groups=[])
    assert sso.sign_in(app.test_client(), "kim-sub").status_code == 302
    assert _roles(app, "kim@acme.test") == {}


def test_the_preview_shows_what_an_absent_claim_does(app, client, sso):
    web = _project(client, sso.org, "WEB")
    _map(client, sso.org, "devs", web, "member")
    sso.sign_in(app.test_client(), "kim-sub", email="kim@acme.test", groups=["devs"])
    resp = client.post(
        sso.org.url("/sso/sync-preview"),
        json={"email": "kim@acme.test", "groups": None},
        headers=sso.org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert (body["adds"], body["changes"], body["removes"]) == ([], [], [])
    assert "roles are left as they are" in body["skipped"]
    # With the claim present and empty the same person would lose the project.
    resp = client.post(
        sso.org.url("/sso/sync-preview"),
        json={"email": "kim@acme.test", "groups": []},
        headers=sso.org.headers,
    )
    assert resp.get_json()["skipped"] is None

    # The page's preview has the same choice.
    login(client, sso.org.owner_email)
    page = client.post(
        f"/o/{sso.org.slug}/settings/group-sync/preview",
        data={"email": "kim@acme.test", "groups": "", "no_claim": "1"},
    )
    assert page.status_code == 200
    assert "roles are left as they are" in page.get_data(as_text=True)


def test_extra_scopes_are_requested_and_checked(app, client, sso):
    _set_connection(client, sso, extra_scopes="groups  offline_access groups openid")
    conn = client.get(sso.org.url("/sso"), headers=sso.org.headers).get_json()
    assert conn["extra_scopes"] == "groups offline_access"
    url = sso.start(app.test_client())
    assert parse_qs(urlsplit(url).query)["scope"] == ["openid email profile groups offline_access"]

    resp = client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace-acme",
            "enabled": True,
            "extra_scopes": 'groups "x"',
        },
    )
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["field"] == "extra_scopes"


def test_the_page_says_who_holds_each_mapped_group_and_flags_a_case_slip(app, client, sso):
    """A mapping typed "engineering" maps no one who signs in with "Engineering"
    (matching is exact): beside each mapping the page counts the members who hold its
    group now, and for one no one holds names the held group it differs from only in
    letter case."""
    a = _project(client, sso.org, "AAA")
    _set_connection(client, sso)
    _map(client, sso.org, "Engineering", a, "member")
    _map(client, sso.org, "engineering", a, "viewer")
    _map(client, sso.org, "design", a, "viewer")
    _sign_in(app, sso, "ann@acme.test", ["Engineering"])
    _sign_in(app, sso, "bo@acme.test", ["Engineering", "ops"])
    # The directory matches mappings ignoring case, and records the mapping it matched:
    # an "ALL-STAFF" mapping reaches someone holding "all-staff" there, so no hint.
    _map(client, sso.org, "ALL-STAFF", a, "viewer")
    with app.app_context():
        from workspace.core.accounts import find_account
        from workspace.identity.groupsync import held

        held.replace_groups(sso.org.org_id, find_account("ann@acme.test").id, "ldap", ["all-staff"])
        db.session.commit()
    login(client, sso.org.owner_email)
    html = client.get(f"/o/{sso.org.slug}/settings/group-sync").get_data(as_text=True)

    def held_by(group):
        row = re.search(
            rf'<td class="mono">{group}</td>.*?<td data-label="Held by" data-held-by>(.*?)</td>',
            html,
            re.S,
        )
        return " ".join(re.sub(r"<[^>]+>", " ", row.group(1)).split())

    assert held_by("Engineering") == "2 members"
    assert held_by("engineering") == (
        "no one yet Members hold Engineering : names match exactly, letter case too."
    )
    assert held_by("design") == "no one yet"
    assert held_by("ALL-STAFF") == "no one yet"
