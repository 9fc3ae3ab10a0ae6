"""Settings > Members as people scan it (issue 29): filters by role, status and how
people joined with their counts, pending invitations, resend (a new link, the old one
retired) and revoke (the link dies, the membership ends), join links, and who may."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from tests.factories import add_person, bearer, create_agent, login, make_org, member_id
from workspace.extensions import db

UNUSABLE = "This link cannot be used."


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in html else ""
    return re.findall(r"<tr id=\"member-.*?</tr>", body, re.S)


def _emails(html: str) -> set[str]:
    return {re.search(r'class="member-email">([^<]+)<', r).group(1) for r in _rows(html)}


def _members(client, slug, **params):
    resp = client.get(f"/o/{slug}/settings/members", query_string=params)
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


def _invite(client, org, email):
    resp = client.post(org.url("/invitations"), json={"email": email}, headers=org.headers)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["sign_in_url"]


def _path(url: str) -> str:
    return urlsplit(url).path


def _link_on(html: str) -> str:
    return _path(re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', html).group(1))


def _kinds(app, org_id, kind):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(select(Event).where(Event.org_id == org_id, Event.kind == kind))
        return [(e.subject, dict(e.data or {})) for e in rows]


@pytest.fixture
def people(app, client, acme):
    """Ann (signed in once), Bob (admin), a SCIM-provisioned person, a deactivated
    one, a bot, and Nina invited who never came: each filter has something to find."""
    from workspace.core.accounts import add_member, ensure_account
    from workspace.core.models import Org

    add_person(app, acme.org_id, "ann@acme.test")
    add_person(app, acme.org_id, "bob@acme.test", "admin")
    gone = add_person(app, acme.org_id, "gone@acme.test")
    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        add_member(org, ensure_account("sam@acme.test", "Sam Scim"), via="scim")
        db.session.commit()
    create_agent(client, acme, "Triage Bot")
    login(client, "ann@acme.test")
    client.post("/signout")
    nina_link = _invite(client, acme, "nina@acme.test")
    gone_id = member_id(app, acme.org_id, gone.owner_email)
    patched = client.patch(
        acme.url(f"/members/{gone_id}"), json={"active": False}, headers=acme.headers
    )
    assert patched.status_code == 200
    login(client, acme.owner_email)
    return nina_link


def test_filters_narrow_the_list_and_count_what_each_would_show(client, acme, people):
    everyone = _members(client, acme.slug)
    assert len(_rows(everyone)) == 7
    # The counts beside each option: what choosing it shows.
    assert '<option value="pending">Pending invitation (1)</option>' in everyone
    assert '<option value="deactivated">Deactivated (1)</option>' in everyone
    assert '<option value="active">Active (5)</option>' in everyone
    assert '<option value="admin">Admin (1)</option>' in everyone
    assert '<option value="scim">Provisioned by SCIM (1)</option>' in everyone
    assert "1 pending invitation</a>" in everyone

    assert _emails(_members(client, acme.slug, status="pending")) == {"nina@acme.test"}
    assert _emails(_members(client, acme.slug, status="deactivated")) == {"gone@acme.test"}
    assert _emails(_members(client, acme.slug, has_role="admin")) == {"bob@acme.test"}
    assert _emails(_members(client, acme.slug, joined="scim")) == {"sam@acme.test"}
    assert _emails(_members(client, acme.slug, joined="invite")) == {"nina@acme.test"}
    owners = _emails(_members(client, acme.slug, has_role="owner"))
    assert owners == {acme.owner_email}
    # Filters combine with each other and the search, and the counts follow.
    html = _members(client, acme.slug, has_role="member", status="active")
    assert "nina@acme.test" not in _emails(html) and "ann@acme.test" in _emails(html)
    assert '<option value="pending">Pending invitation (1)</option>' in html
    assert _emails(_members(client, acme.slug, q="sam", joined="scim")) == {"sam@acme.test"}
    none = _members(client, acme.slug, q="ann", status="pending")
    assert _rows(none) == [] and "No one matches" in none
    # A row's action takes the admin back to the list they filtered.
    ann = re.search(r'id="member-([0-9a-f-]+)"', _members(client, acme.slug, q="ann")).group(1)
    back = client.post(
        f"/o/{acme.slug}/settings/members/{ann}/role",
        data={"role": "admin", "has_role": "member", "status": "active"},
    )
    assert back.status_code == 302
    assert (
        "has_role=member" in back.headers["Location"]
        and "status=active" in back.headers["Location"]
    )
    # A value the filter cannot read shows everyone, never an error.
    assert len(_rows(_members(client, acme.slug, status="asleep", has_role="king"))) == 7


def test_resend_makes_a_new_link_and_retires_the_old_one(app, client, acme, people):
    old = _path(people)
    nina = member_id(app, acme.org_id, "nina@acme.test")
    row = next(r for r in _rows(_members(client, acme.slug)) if "nina@acme.test" in r)
    assert "Resend invitation" in row and "Revoke invitation" in row and "Deactivate" not in row
    resp = client.post(f"/o/{acme.slug}/settings/members/{nina}/resend", data={"status": "pending"})
    # Back to the list the admin was on, at the new link: a reload there resends nothing.
    assert resp.status_code == 302
    assert resp.location.endswith("?status=pending#invite-result")
    html = client.get(resp.location).get_data(as_text=True)
    assert "New invitation for nina@acme.test" in html and "shown only once" in html
    assert "New invitation for" not in _members(client, acme.slug, status="pending")
    new = _link_on(html)
    assert new != old
    guest = app.test_client()
    assert guest.get(old).status_code == 410 and UNUSABLE in guest.get(old).get_data(as_text=True)
    assert guest.get(new).status_code == 200
    joined = guest.post(new, data={"password": "a-fine-long-password"})
    assert joined.status_code == 302 and joined.headers["Location"].endswith("/o/acme/")
    # Nina is no longer pending, so there is nothing to resend.
    assert "nina@acme.test" not in _emails(_members(client, acme.slug, status="pending"))
    again = client.post(f"/o/{acme.slug}/settings/members/{nina}/resend")
    assert again.status_code == 409 and "already signed in" in again.get_data(as_text=True)
    ((subject, data),) = _kinds(app, acme.org_id, "member.invite_resent")
    assert subject == "nina@acme.test" and data["link"] is True and data["retired_links"] == 1


def test_resend_to_someone_with_their_own_sign_in_makes_no_link(app, client, acme):
    other = make_org(app, "Initech", "boss@initech.test")
    assert _invite(client, acme, other.owner_email) is None
    login(client, acme.owner_email)
    boss = member_id(app, acme.org_id, other.owner_email)
    assert other.owner_email in _emails(_members(client, acme.slug, status="pending"))
    resent = client.post(f"/o/{acme.slug}/settings/members/{boss}/resend", follow_redirects=True)
    html = resent.get_data(as_text=True)
    assert "no link was made" in html and 'id="invite-link"' not in html


def test_revoke_kills_the_link_and_ends_the_membership(app, client, acme, people):
    nina = member_id(app, acme.org_id, "nina@acme.test")
    html = _members(client, acme.slug)
    assert re.search(r'data-confirm="Revoke the invitation to nina@acme.test\?', html)
    resp = client.post(f"/o/{acme.slug}/settings/members/{nina}/revoke", data={"status": "pending"})
    assert resp.status_code == 302 and "status=pending" in resp.headers["Location"]
    assert client.get(_path(people)).status_code == 410
    assert app.test_client().post(_path(people), data={}).status_code == 410
    # Listed as a revoked invitation, not as a person who worked here and left.
    assert "nina@acme.test" in _emails(_members(client, acme.slug, status="revoked"))
    assert "nina@acme.test" not in _emails(_members(client, acme.slug, status="deactivated"))
    (row,) = [r for r in _rows(_members(client, acme.slug)) if "nina@acme.test" in r]
    assert "invitation revoked" in row and ">deactivated<" not in row
    ((subject, _),) = _kinds(app, acme.org_id, "member.invite_revoked")
    assert subject == "nina@acme.test"
    # Reactivating does not bring the old link back; a resend makes a new one.
    client.post(f"/o/{acme.slug}/settings/members/{nina}/reactivate")
    assert client.get(_path(people)).status_code == 410
    resent = client.post(f"/o/{acme.slug}/settings/members/{nina}/resend", follow_redirects=True)
    assert app.test_client().get(_link_on(resent.get_data(as_text=True))).status_code == 200
    # Someone who has signed in has no invitation to revoke.
    ann = member_id(app, acme.org_id, "ann@acme.test")
    refused = client.post(f"/o/{acme.slug}/settings/members/{ann}/revoke")
    assert refused.status_code == 409 and "Deactivate them instead" in refused.get_data(
        as_text=True
    )


def test_join_links_are_listed_as_pending_and_can_be_revoked(app, client, acme):
    from tests.factories import verify_domains

    verify_domains(app, acme.org_id, "acme.test")
    other = make_org(app, "Initech", "jo@acme.test")  # has a password, never proved the address
    with app.app_context():
        from workspace.core.models import Account

        db.session.scalar(
            select(Account).where(Account.email == "jo@acme.test")
        ).email_verified = False
        db.session.commit()
    url = _invite(client, acme, other.owner_email)
    assert url is not None
    login(client, acme.owner_email)
    html = _members(client, acme.slug)
    assert "Join links waiting" in html and "jo@acme.test" in html
    link_id = re.search(r"/join-links/([0-9a-f-]+)/revoke", html).group(1)
    resp = client.post(f"/o/{acme.slug}/settings/members/join-links/{link_id}/revoke")
    assert resp.status_code == 302
    assert "Join links waiting" not in _members(client, acme.slug)
    assert app.test_client().get(_path(url)).status_code == 410
    # Gone already: a 404, not a second revocation.
    again = client.post(f"/o/{acme.slug}/settings/members/join-links/{link_id}/revoke")
    assert again.status_code == 404


ROUTES = ("resend", "revoke")


def test_who_may_resend_and_revoke(app, client, acme, globex, people):
    """A member is refused (403), another org's owner finds nothing (404), the
    anonymous go to sign-in, an admin manages invitations but not an owner's, and
    agents (API tokens only) never reach a page."""
    nina = member_id(app, acme.org_id, "nina@acme.test")
    anon = app.test_client()
    for route in ROUTES:
        resp = anon.post(f"/o/{acme.slug}/settings/members/{nina}/{route}")
        assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
    login(client, "ann@acme.test")
    for route in ROUTES:
        assert client.post(f"/o/{acme.slug}/settings/members/{nina}/{route}").status_code == 403
    login(client, globex.owner_email)
    for route in ROUTES:
        assert client.post(f"/o/{acme.slug}/settings/members/{nina}/{route}").status_code == 404
        # Globex's owner on their own org with Acme's member: no such member there.
        assert client.post(f"/o/{globex.slug}/settings/members/{nina}/{route}").status_code == 404
    # An agent's token works on the API only; the page gate answers it with sign-in.
    bot = create_agent(client, acme, "Helper")
    resp = anon.post(f"/o/{acme.slug}/settings/members/{nina}/resend", headers=bearer(bot["token"]))
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]

    # An admin resends to a member, but an invitation to an owner is an owner's.
    login(client, acme.owner_email)
    owner_link = client.post(
        acme.url("/invitations"),
        json={"email": "boss@acme.test", "role": "owner"},
        headers=acme.headers,
    )
    assert owner_link.status_code == 201
    boss = member_id(app, acme.org_id, "boss@acme.test")
    login(client, "bob@acme.test")
    assert client.post(f"/o/{acme.slug}/settings/members/{nina}/resend").status_code == 302
    refused = client.post(f"/o/{acme.slug}/settings/members/{boss}/revoke")
    assert refused.status_code == 403 and "Only an owner" in refused.get_data(as_text=True)
    login(client, acme.owner_email)
    assert client.post(f"/o/{acme.slug}/settings/members/{boss}/revoke").status_code == 302
