"""Signing in and out, sessions that can be revoked, tokens that can be revoked."""

from __future__ import annotations

from tests.conftest import PASSWORD, add_person, login


def test_sign_in_reaches_the_org_and_sign_out_ends_it(client, acme):
    assert client.get("/o/acme/").status_code == 302  # to the sign-in page
    resp = client.post("/signin", data={"email": "OWNER@acme.test", "password": PASSWORD})
    assert resp.status_code == 302
    page = client.get("/o/acme/")
    assert page.status_code == 200 and b"Acme" in page.data
    client.post("/signout")
    resp = client.get("/o/acme/")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]


def test_wrong_password_and_unknown_email_look_the_same(client, acme):
    wrong = client.post("/signin", data={"email": "owner@acme.test", "password": "nope"})
    unknown = client.post("/signin", data={"email": "ghost@acme.test", "password": "nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert b"do not match" in wrong.data and b"do not match" in unknown.data
    assert client.get("/o/acme/").status_code == 302


def test_session_cookie_is_httponly_and_carries_no_account_data(client, acme):
    resp = client.post("/signin", data={"email": "owner@acme.test", "password": PASSWORD})
    cookie = resp.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "owner" not in cookie


def test_revoked_session_stops_working(client, app, acme):
    login(client, acme.owner_email)
    assert client.get("/o/acme/").status_code == 200
    with app.app_context():
        from workspace.auth.sessions import revoke_sessions
        from workspace.extensions import db

        assert revoke_sessions(acme.owner_id) == 1
        db.session.commit()
    resp = client.get("/o/acme/")
    assert resp.status_code == 302 and "/signin" in resp.headers["Location"]


def test_logout_revokes_server_side_even_if_cookie_is_replayed(app, acme):
    first = app.test_client()
    login(first, acme.owner_email)
    stolen = first.get_cookie("ws_session").value
    first.post("/signout")
    replay = app.test_client()
    replay.set_cookie("ws_session", stolen)
    assert replay.get("/o/acme/").status_code == 302


def test_revoked_token_stops_working(client, app, acme):
    assert client.get(acme.url(), headers=acme.headers).status_code == 200
    with app.app_context():
        from workspace.auth.api_tokens import list_tokens, revoke_token
        from workspace.extensions import db

        (token,) = list_tokens(acme.owner_id, acme.org_id)
        assert revoke_token(acme.owner_id, acme.org_id, token.id)
        db.session.commit()
    resp = client.get(acme.url(), headers=acme.headers)
    assert resp.status_code == 401


def test_token_created_and_revoked_in_the_ui(client, acme):
    login(client, acme.owner_email)
    made = client.post("/o/acme/tokens", data={"name": "exporter"})
    # To the list, which shows it: a reload there is a GET, not a second token.
    assert made.status_code == 303 and made.location.endswith("/o/acme/tokens#new-token-box")
    page = client.get(made.location)
    raw = page.data.decode().split('id="new-token">')[1].split("<")[0]
    assert raw.startswith("ws_")
    headers = {"Authorization": f"Bearer {raw}"}
    assert client.get(acme.url(), headers=headers).status_code == 200
    again = client.get("/o/acme/tokens").data.decode()
    assert raw not in again, "a token is shown once"
    token_id = again.split("/tokens/")[1].split("/revoke")[0]
    client.post(f"/o/acme/tokens/{token_id}/revoke")
    assert client.get(acme.url(), headers=headers).status_code == 401


def test_a_refused_token_name_comes_back_in_its_box(client, acme):
    login(client, acme.owner_email)
    typed = "exporter " + "x" * 120
    page = client.post("/o/acme/tokens", data={"name": typed})
    html = page.get_data(as_text=True)
    assert page.status_code == 400
    assert "Enter at most 100 characters (this has 129)." in html
    assert f'value="{typed}"' in html  # not an empty box to type it all again


def test_deactivated_member_loses_session_and_token_access(client, app, acme):
    mia = add_person(app, acme.org_id, "mia@acme.test")
    login(client, mia.owner_email)
    assert client.get("/o/acme/").status_code == 200
    with app.app_context():
        from workspace.core.accounts import end_membership
        from workspace.core.orgs import active_membership as membership
        from workspace.extensions import db

        assert end_membership(membership(acme.org_id, mia.owner_id))
        db.session.commit()
    assert client.get("/o/acme/").status_code == 404
    assert client.get(mia.url(), headers=mia.headers).status_code == 404


def test_last_owner_cannot_be_deactivated(app, acme):
    with app.app_context():
        from workspace.core.accounts import end_membership
        from workspace.core.orgs import active_membership as membership

        assert end_membership(membership(acme.org_id, acme.owner_id)) is False
        assert membership(acme.org_id, acme.owner_id).active


def test_next_parameter_only_accepts_local_paths(client, acme):
    for evil in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        resp = client.post(
            "/signin", data={"email": acme.owner_email, "password": PASSWORD, "next": evil}
        )
        assert resp.headers["Location"] == "/", evil
        client.post("/signout")
    resp = client.post(
        "/signin",
        data={"email": acme.owner_email, "password": PASSWORD, "next": "/o/acme/projects"},
    )
    assert resp.headers["Location"] == "/o/acme/projects"


def test_other_orgs_pages_are_404(client, acme, globex):
    login(client, acme.owner_email)
    assert client.get("/o/globex/").status_code == 404
    assert client.get("/o/globex/projects").status_code == 404
    assert client.get("/o/nonexistent/").status_code == 404


def test_member_cannot_open_settings(client, app, acme):
    mia = add_person(app, acme.org_id, "mia@acme.test")
    login(client, mia.owner_email)
    assert client.get("/o/acme/settings").status_code == 403
    assert client.get("/o/acme/settings/events").status_code == 403
    assert client.get("/o/acme/tokens").status_code == 200


def test_csrf_is_enforced_on_forms(app_session, acme):
    app_session.config["WTF_CSRF_ENABLED"] = True
    try:
        client = app_session.test_client()
        resp = client.post("/signin", data={"email": acme.owner_email, "password": PASSWORD})
        assert resp.status_code == 400 and b"expired" in resp.data
    finally:
        app_session.config["WTF_CSRF_ENABLED"] = False


def test_csrf_is_enforced_on_htmx_requests_through_hx_headers(app_session, acme):
    """The layout hands HTMX the token in ``hx-headers``; an HTMX state change with
    that header passes, the same request without it is refused."""
    import re

    from sqlalchemy import select

    from workspace.core.models import State
    from workspace.core.projects import create_project
    from workspace.core.tasks import create_task
    from workspace.extensions import db

    with app_session.app_context():
        project = create_project(acme.org_id, acme.owner_id, "Web", "WEB")
        db.session.flush()
        task = create_task(project, acme.owner_id, title="Ship it")
        done_id = db.session.scalar(
            select(State.id).where(State.project_id == project.id, State.name == "Done")
        )
        db.session.commit()
        task_id = task.id
    app_session.config["WTF_CSRF_ENABLED"] = True
    try:
        client = app_session.test_client()
        signin = client.get("/signin").get_data(as_text=True)
        form_token = re.search(r'name="csrf_token" value="([^"]+)"', signin).group(1)
        resp = client.post(
            "/signin",
            data={"email": acme.owner_email, "password": PASSWORD, "csrf_token": form_token},
        )
        assert resp.status_code == 302
        page = client.get(f"/o/{acme.slug}/projects/{project.id}").get_data(as_text=True)
        header_token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', page).group(1)
        url = f"/o/{acme.slug}/tasks/{task_id}/state"
        refused = client.post(url, data={"state_id": str(done_id)}, headers={"HX-Request": "true"})
        assert refused.status_code == 400
        passed = client.post(
            url,
            data={"state_id": str(done_id)},
            headers={"HX-Request": "true", "X-CSRFToken": header_token},
        )
        assert passed.status_code == 200 and "Done" in passed.get_data(as_text=True)
    finally:
        app_session.config["WTF_CSRF_ENABLED"] = False


def test_an_unexpected_database_failure_still_renders_the_error_page(client, acme, monkeypatch):
    """Failure injection: a statement fails mid-request. On PostgreSQL that aborts
    the transaction, and the error page (which queries for the org switcher) must
    still render rather than fail a second time."""
    from sqlalchemy import text

    from workspace.core import projects
    from workspace.extensions import db

    def broken(*_args, **_kwargs):
        db.session.execute(text("SELECT * FROM no_such_table"))

    monkeypatch.setattr(projects, "list_projects", broken)
    login(client, acme.owner_email)
    resp = client.get(f"/o/{acme.slug}/projects")
    assert resp.status_code == 500
    html = resp.get_data(as_text=True)
    assert "Something went wrong" in html and "no_such_table" not in html
    assert "Acme" in html  # the org switcher queried after the failure


def test_password_hashes_of_any_cost_verify(app):
    """Tests hash cheaply (PASSWORD_HASH_METHOD); each hash names its own cost, so
    production-cost hashes and cheap ones both verify."""
    from werkzeug.security import generate_password_hash

    from workspace.auth.passwords import DEFAULT_METHOD, check_password, set_password
    from workspace.core.models import Account

    with app.app_context():
        cheap = Account(email="a@example.test", name="A")
        set_password(cheap, PASSWORD)
        assert cheap.password_hash.startswith(app.config["PASSWORD_HASH_METHOD"] + "$")
        strong = Account(email="b@example.test", name="B")
        strong.password_hash = generate_password_hash(PASSWORD, method=DEFAULT_METHOD)
        assert DEFAULT_METHOD == "scrypt:32768:8:1"  # production cost unchanged
        for account in (cheap, strong):
            assert check_password(account, PASSWORD)
            assert not check_password(account, PASSWORD + "x")
