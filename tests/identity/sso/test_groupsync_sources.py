"""Group sync from several sources at once (docs/sso.md#group-sync): roles follow the
union of a person's SSO, directory and SCIM groups, so an OIDC sign-in whose groups
claim lacks a SCIM group keeps the role that group grants, and the other way round."""

from __future__ import annotations

from tests.factories import create_project
from tests.scim.conftest import GROUP, Scim, map_group, new_scim_token, synced


def _sign_in(app, sso, email, groups):
    resp = sso.sign_in(app.test_client(), email.split("@")[0] + "-sub", email=email, groups=groups)
    assert resp.status_code == 302, resp.get_data(as_text=True)


def test_oidc_claim_and_scim_groups_are_one_union(app, client, sso):
    scim = Scim(client, sso.org, new_scim_token(app, sso.org.org_id, ()))
    project = create_project(client, sso.org, "Union", "UNI")["id"]
    map_group(client, sso.org, "sso-devs", project, "member")
    map_group(client, sso.org, "Leads", project, "admin")
    resp = client.put(
        sso.org.url("/sso"),
        headers=sso.org.headers,
        json={
            "email_domain": "acme.test",
            "issuer_url": sso.provider.url,
            "client_id": "workspace-acme",
            "enabled": True,
            "remove_stale_synced_memberships": True,
        },
    )
    assert resp.status_code == 200, resp.get_json()

    alice = scim.create("alice@acme.test")
    resp = scim.post(
        "/Groups", {"schemas": [GROUP], "displayName": "Leads", "members": [{"value": alice["id"]}]}
    )
    assert resp.status_code == 201, resp.get_data(as_text=True)
    leads = resp.get_json()["id"]
    assert synced(app, "alice@acme.test") == {project: ("admin", "synced", "SCIM group Leads")}

    # The IdP's claim knows nothing of the SCIM group: the SCIM role stays.
    _sign_in(app, sso, "alice@acme.test", ["sso-devs"])
    assert synced(app, "alice@acme.test") == {project: ("admin", "synced", "SCIM group Leads")}

    # Leaving the SCIM group demotes to what the SSO group grants, at once.
    resp = scim.patch(
        f"/Groups/{leads}", [{"op": "remove", "path": f'members[value eq "{alice["id"]}"]'}]
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert synced(app, "alice@acme.test") == {project: ("member", "synced", "SSO group sso-devs")}

    # Back in the SCIM group, then a sign-in in no SSO group: SCIM still grants admin.
    scim.patch(
        f"/Groups/{leads}", [{"op": "add", "path": "members", "value": [{"value": alice["id"]}]}]
    )
    _sign_in(app, sso, "alice@acme.test", [])
    assert synced(app, "alice@acme.test") == {project: ("admin", "synced", "SCIM group Leads")}

    # Neither source grants anything now: stale removal takes the membership.
    scim.delete(f"/Groups/{leads}")
    assert synced(app, "alice@acme.test") == {}
