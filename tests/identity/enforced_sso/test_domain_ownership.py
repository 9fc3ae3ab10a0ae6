"""One rule for a verified domain's addresses
(docs/security.md#verified-domains-own-their-addresses): another org's invitations
and SCIM token cannot take them, whatever that org's own SCIM setting."""

from __future__ import annotations

from tests.factories import verify_domains
from workspace.core.domain_ownership import owned_elsewhere, owner_of
from workspace.extensions import db
from workspace.scim.tokens import generate_token

USER = "urn:ietf:params:scim:schemas:core:2.0:User"


def test_the_rule_names_the_domain_only_for_other_orgs(app, acme, globex):
    verify_domains(app, acme.org_id, "acme.test")
    with app.app_context():
        assert owned_elsewhere(globex.org_id, "Bob@ACME.test") == "acme.test"
        assert owned_elsewhere(acme.org_id, "bob@acme.test") is None
        assert owned_elsewhere(globex.org_id, "bob@unclaimed.test") is None
        assert owner_of("bob@acme.test").org_id == acme.org_id
        assert owner_of("not an address") is None


def test_an_invitation_to_another_orgs_domain_is_refused(app, client, acme, globex):
    verify_domains(app, acme.org_id, "acme.test")
    resp = client.post(
        globex.url("/invitations"), headers=globex.headers, json={"email": "newbie@acme.test"}
    )
    assert resp.status_code == 403
    assert "acme.test, a domain another organization has verified" in resp.get_json()["detail"]
    ours = client.post(
        acme.url("/invitations"), headers=acme.headers, json={"email": "newbie@acme.test"}
    )
    assert ours.status_code == 201


def test_scim_cannot_provision_another_orgs_domain_even_when_trusting_any(
    app, client, acme, globex, monkeypatch
):
    monkeypatch.setitem(app.config, "SCIM_REQUIRE_VERIFIED_DOMAIN", False)
    verify_domains(app, acme.org_id, "acme.test")
    with app.app_context():
        raw = generate_token(globex.org_id, None)[1]
        db.session.commit()
    headers = {"Authorization": f"Bearer {raw}", "Content-Type": "application/scim+json"}

    def create(user_name: str):
        return client.post(
            f"/scim/v2/orgs/{globex.org_id}/Users",
            json={"schemas": [USER], "userName": user_name, "active": True},
            headers=headers,
        )

    resp = create("squatter@acme.test")
    assert resp.status_code == 403, resp.get_data(as_text=True)
    assert "another organization has verified" in resp.get_json()["detail"]
    assert create("someone@unclaimed.test").status_code == 201
