"""Sessions an org controls (docs/security.md#sessions): the policy, its bounds,
idle and maximum lifetimes, a member's own sessions and an admin's sign-out."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from tests.conftest import add_person, login
from workspace.auth.models import AuthSession
from workspace.core.models import Event
from workspace.extensions import db


def _age(app, account_id, *, seen=None, created=None):
    """Move an account's sessions back in time (what waiting would do)."""
    with app.app_context():
        for row in db.session.scalars(
            select(AuthSession).where(AuthSession.account_id == account_id)
        ):
            if seen:
                row.last_seen_at = row.last_seen_at - seen
            if created:
                row.created_at = row.created_at - created
        db.session.commit()


def test_policy_defaults_bounds_and_api(client, acme):
    got = client.get(acme.url("/session-policy"), headers=acme.headers).get_json()
    assert got == {
        "max_lifetime_hours": None,
        "idle_timeout_minutes": None,
        "default_max_lifetime_hours": 336,
    }
    for body, field in (
        ({"max_lifetime_hours": 0}, "max_lifetime_hours"),
        ({"max_lifetime_hours": 337}, "max_lifetime_hours"),
        ({"idle_timeout_minutes": 4}, "idle_timeout_minutes"),
    ):
        resp = client.put(acme.url("/session-policy"), headers=acme.headers, json=body)
        assert resp.status_code == 422, body
        assert field in str(resp.get_json()["errors"]), resp.get_json()
    bad = client.put(
        acme.url("/session-policy"), headers=acme.headers, json={"idle_timeout_minutes": "x"}
    )
    assert bad.status_code == 400
    ok = client.put(
        acme.url("/session-policy"),
        headers=acme.headers,
        json={"max_lifetime_hours": 8, "idle_timeout_minutes": 30},
    )
    assert ok.status_code == 200 and ok.get_json()["max_lifetime_hours"] == 8


def test_a_member_cannot_set_the_policy(client, app, acme):
    bob = add_person(app, acme.org_id, "bob@acme.test")
    resp = client.put(
        acme.url("/session-policy"), headers=bob.headers, json={"max_lifetime_hours": 1}
    )
    assert resp.status_code == 403


def test_idle_session_gets_the_sign_in_page_with_next(app, acme):
    browser = app.test_client()
    login(browser, acme.owner_email)
    assert browser.get("/o/acme/projects").status_code == 200
    admin = app.test_client()
    admin.put(acme.url("/session-policy"), headers=acme.headers, json={"idle_timeout_minutes": 10})
    _age(app, acme.owner_id, seen=timedelta(minutes=9))
    assert browser.get("/o/acme/projects").status_code == 200  # 9 minutes idle: still in
    _age(app, acme.owner_id, seen=timedelta(minutes=11))
    resp = browser.get("/o/acme/projects")
    assert resp.status_code == 302
    assert resp.headers["Location"].endswith("/signin?next=/o/acme/projects")


def test_max_lifetime_applies_to_open_sessions_when_the_policy_changes(app, acme):
    browser = app.test_client()
    login(browser, acme.owner_email)
    _age(app, acme.owner_id, created=timedelta(hours=3))
    assert browser.get("/o/acme/").status_code == 200
    app.test_client().put(
        acme.url("/session-policy"), headers=acme.headers, json={"max_lifetime_hours": 2}
    )
    resp = browser.get("/o/acme/")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]
    login(browser, acme.owner_email)  # a new sign-in starts a new lifetime
    assert browser.get("/o/acme/").status_code == 200


def test_the_strictest_org_applies_to_a_session_spanning_orgs(app, acme, globex):
    """A member of both orgs: globex's idle limit ends the session on acme's pages too."""
    from workspace.core.accounts import add_member
    from workspace.core.models import Account, Org

    with app.app_context():
        add_member(
            db.session.get(Org, globex.org_id), db.session.get(Account, acme.owner_id), "member"
        )
        db.session.commit()
    browser = app.test_client()
    login(browser, acme.owner_email)
    app.test_client().put(
        globex.url("/session-policy"), headers=globex.headers, json={"idle_timeout_minutes": 5}
    )
    _age(app, acme.owner_id, seen=timedelta(minutes=6))
    resp = browser.get("/o/acme/")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]


FIREFOX_ON_WINDOWS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:139.0) Gecko/20100101 Firefox/139.0"
)


def test_member_lists_and_ends_their_sessions(app, acme):
    phone, laptop = app.test_client(), app.test_client()
    phone.environ_base["HTTP_USER_AGENT"] = FIREFOX_ON_WINDOWS
    login(phone, acme.owner_email)
    login(laptop, acme.owner_email)
    listed = laptop.get(acme.url("/sessions")).get_json()
    assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
    # The device reads as a person would name it, not as the raw user agent.
    assert "Firefox 139 on Windows" in [s["device"] for s in listed]
    page = laptop.get("/o/acme/sessions")
    assert (
        page.status_code == 200
        and b"this browser" in page.data
        and b"Sign out everywhere else" in page.data
        and b">Firefox 139 on Windows</span>" in page.data
    )
    other = next(s for s in listed if not s["current"])
    assert laptop.post(f"/o/acme/sessions/{other['id']}/end").status_code == 302
    assert phone.get("/o/acme/").status_code == 302
    assert laptop.get("/o/acme/").status_code == 200
    login(phone, acme.owner_email)
    assert laptop.post("/o/acme/sessions/end-others").status_code == 302
    assert phone.get("/o/acme/").status_code == 302
    assert laptop.get("/o/acme/").status_code == 200
    # Someone else's session is not yours to end.
    bob = add_person(app, acme.org_id, "bob@acme.test")
    resp = app.test_client().delete(acme.url(f"/sessions/{listed[0]['id']}"), headers=bob.headers)
    assert resp.status_code == 404


def test_admin_signs_a_member_out_everywhere_audited(client, app, acme):
    bob = add_person(app, acme.org_id, "bob@acme.test")
    bobs = app.test_client()
    login(bobs, bob.owner_email)
    assert bobs.get("/o/acme/").status_code == 200
    with app.app_context():
        from workspace.core.models import OrgMember

        member_id = db.session.scalar(
            select(OrgMember.id).where(OrgMember.account_id == bob.owner_id)
        )
    resp = client.post(acme.url(f"/members/{member_id}/sign-out"), headers=acme.headers)
    assert resp.status_code == 200 and resp.get_json() == {"sessions_ended": 1}
    assert bobs.get("/o/acme/").status_code == 302
    # Bob, a member, cannot sign the owner out.
    with app.app_context():
        owner_member = db.session.scalar(
            select(OrgMember.id).where(OrgMember.account_id == acme.owner_id)
        )
        kinds = db.session.scalars(select(Event.kind).where(Event.org_id == acme.org_id)).all()
    assert "member.signed_out" in kinds
    refused = client.post(acme.url(f"/members/{owner_member}/sign-out"), headers=bob.headers)
    assert refused.status_code == 403
    # The members page offers it, behind a confirmation.
    admin = app.test_client()
    login(admin, acme.owner_email)
    page = admin.get("/o/acme/settings/members").get_data(as_text=True)
    assert "Sign out everywhere" in page and 'data-confirm="Sign Bob out everywhere?' in page
    assert admin.post(f"/o/acme/settings/members/{member_id}/sign-out").status_code == 302


def test_policy_page_saves_and_refuses_bad_values(app, acme):
    admin = app.test_client()
    login(admin, acme.owner_email)
    page = admin.get("/o/acme/settings/sessions").get_data(as_text=True)
    assert 'for="f-max_lifetime_hours"' in page and 'for="f-idle_timeout_minutes"' in page
    bad = admin.post(
        "/o/acme/settings/sessions", data={"max_lifetime_hours": "", "idle_timeout_minutes": "1"}
    )
    assert bad.status_code == 400
    assert "from 5 to" in bad.get_data(as_text=True)
    ok = admin.post(
        "/o/acme/settings/sessions", data={"max_lifetime_hours": "12", "idle_timeout_minutes": ""}
    )
    assert ok.status_code == 302
    got = admin.get(acme.url("/session-policy"), headers=acme.headers).get_json()
    assert got["max_lifetime_hours"] == 12 and got["idle_timeout_minutes"] is None


def test_the_policy_check_adds_no_query_to_a_page(app, acme):
    """The effective policy lives on the session row and the org row the page loads
    anyway: a page costs the same number of queries with a policy as without."""
    from sqlalchemy import event

    browser = app.test_client()
    login(browser, acme.owner_email)
    browser.get("/o/acme/projects")

    def count() -> int:
        statements: list[str] = []

        def record(conn, cursor, statement, *args):
            statements.append(statement)

        with app.app_context():
            engine = db.engine
        event.listen(engine, "before_cursor_execute", record)
        try:
            assert browser.get("/o/acme/projects").status_code == 200
        finally:
            event.remove(engine, "before_cursor_execute", record)
        return len(statements)

    without = count()
    assert without > 0
    app.test_client().put(
        acme.url("/session-policy"),
        headers=acme.headers,
        json={"max_lifetime_hours": 8, "idle_timeout_minutes": 30},
    )
    assert count() == without
