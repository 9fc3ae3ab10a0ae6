"""Every destructive action asks first: each form (or submit button) that revokes,
removes, deletes, deactivates or disables carries ``data-confirm``, which static/js/app.js
turns into a confirmation for plain and HTMX forms alike. In a real browser, dismissing
the question keeps the API token and accepting it revokes the token."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.factories import add_person, browser_sign_in, create_project, login, make_org
from workspace.auth.models import ApiToken
from workspace.extensions import db

DESTRUCTIVE = re.compile(r"(revoke|remove|delete|deactivate|disable)", re.I)
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


class _Forms(HTMLParser):
    """Collects (form attrs, [submit button attrs], [button texts]) per form."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._button: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"attrs": attrs, "buttons": []})
        elif tag == "button" and self.forms and attrs.get("type", "submit") == "submit":
            self._button = {"attrs": attrs, "text": ""}
            self.forms[-1]["buttons"].append(self._button)

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag):
        if tag == "button":
            self._button = None


def unconfirmed_destructive(html: str) -> list[str]:
    parser = _Forms()
    parser.feed(html)
    missing = []
    for form in parser.forms:
        action = form["attrs"].get("action", "") + form["attrs"].get("hx-post", "")
        form_confirms = "data-confirm" in form["attrs"]
        for button in form["buttons"]:
            target = button["attrs"].get("formaction") or action
            if not (DESTRUCTIVE.search(target) or DESTRUCTIVE.search(button["text"])):
                continue
            if form_confirms or "data-confirm" in button["attrs"]:
                continue
            missing.append(f"{target} ({button['text'].strip()})")
    return missing


@pytest.fixture
def full_org(app, client):
    """An org with one of each removable thing the pages list."""
    org = make_org(app, "Acme", "owner@acme.test")
    add_person(app, org.org_id, "member@acme.test")
    login(client, org.owner_email)
    project = create_project(client, org)
    h = org.headers
    board = client.post(org.url("/dashboards"), json={"name": "Board"}, headers=h)
    assert board.status_code == 201, board.get_json()
    board_id = board.get_json()["id"]
    widget = client.post(
        org.url(f"/dashboards/{board_id}/widgets"), json={"title": "Chart"}, headers=h
    )
    assert widget.status_code == 201, widget.get_json()
    assert client.post(org.url("/agents"), json={"name": "Bot"}, headers=h).status_code == 201
    assert (
        client.post(org.url("/domains"), json={"domain": "acme.test"}, headers=h).status_code == 201
    )
    assert client.post(org.url("/scim-token"), headers=h).status_code in (200, 201)
    client.post(
        org.url("/sso/group-mappings"),
        json={"idp_group": "eng", "project_id": project["id"], "role": "member"},
        headers=h,
    )  # needs no SSO connection where allowed; the page is walked either way
    return org, board_id


PAGES = [
    "/tokens",
    "/dashboards",
    "/dashboards/{board}",
    "/settings",
    "/settings/members",
    "/settings/domains",
    "/settings/sso",
    "/settings/group-sync",
    "/settings/scim",
    "/settings/ldap",
    "/settings/ai",
    "/settings/agents",
]


def test_every_destructive_form_on_the_pages_asks_first(client, full_org):
    org, board_id = full_org
    seen = 0
    for path in PAGES:
        resp = client.get(f"/o/{org.slug}" + path.format(board=board_id))
        assert resp.status_code == 200, path
        html = resp.get_data(as_text=True)
        assert unconfirmed_destructive(html) == [], path
        seen += len(re.findall(r"data-confirm=", html))
    # The token, dashboard, widget, agent, domain and SCIM token forms were all there.
    assert seen >= 6


def test_every_destructive_form_in_the_templates_asks_first():
    """Forms the walk above cannot render without an identity provider (SSO, LDAP)."""
    missing = {}
    for template in TEMPLATES.rglob("*.html"):
        found = unconfirmed_destructive(template.read_text())
        if found:
            missing[str(template.relative_to(TEMPLATES))] = found
    assert missing == {}


def test_the_walk_catches_a_form_without_confirmation():
    html = '<form method="post" action="/o/a/tokens/1/revoke"><button>Revoke</button></form>'
    assert unconfirmed_destructive(html) == ["/o/a/tokens/1/revoke (Revoke)"]
    html = html.replace("<form ", '<form data-confirm="Sure?" ')
    assert unconfirmed_destructive(html) == []


def _live_tokens(app) -> int:
    with app.app_context():
        return len(db.session.scalars(select(ApiToken).where(ApiToken.revoked_at.is_(None))).all())


def answer(questions: list[str], accept: bool):
    def handle(dialog):
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    return handle


@pytest.mark.browser
def test_revoking_a_token_waits_for_the_person_to_confirm(page, live_server):
    """A plain form (no HTMX): the submit waits for the answer."""
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    browser_sign_in(page, live_server.url, org.owner_email, org.password)
    page.goto(f"{live_server.url}/o/{org.slug}/tokens")
    row = page.get_by_role("row", name=re.compile("tests"))
    expect(row).to_have_count(1)
    questions: list[str] = []
    page.once("dialog", answer(questions, False))
    row.get_by_role("button", name="Revoke").click()
    assert questions == ["Revoke tests? Anything using it stops working."]
    page.reload()
    expect(page.get_by_role("row", name=re.compile("tests"))).to_have_count(1)
    assert _live_tokens(live_server.app) == 1

    page.once("dialog", answer(questions, True))
    page.get_by_role("row", name=re.compile("tests")).get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("row", name=re.compile("tests"))).to_have_count(0)
    assert len(questions) == 2
    assert _live_tokens(live_server.app) == 0


@pytest.mark.browser
def test_removing_a_domain_over_htmx_waits_for_the_person_to_confirm(page, live_server):
    """An HTMX form: the same data-confirm holds the request back (htmx:confirm)."""
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    client = live_server.app.test_client()
    added = client.post(org.url("/domains"), json={"domain": "acme.test"}, headers=org.headers)
    assert added.status_code == 201
    browser_sign_in(page, live_server.url, org.owner_email, org.password)
    page.goto(f"{live_server.url}/o/{org.slug}/settings/domains")
    page.evaluate("window.__stillHere = true")
    row = page.get_by_role("row", name=re.compile("acme.test"))
    expect(row).to_have_count(1)
    questions: list[str] = []
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.method == "POST" else None)

    page.once("dialog", answer(questions, False))
    row.get_by_role("button", name="Remove").click()
    expect(row).to_have_count(1)
    # A domain never verified: no sign-in depends on it, and the question says so.
    assert questions == ["Remove acme.test? It was never verified, so no sign-in depends on it."]
    assert requests == []

    page.once("dialog", answer(questions, True))
    row.get_by_role("button", name="Remove").click()
    expect(page.get_by_role("row", name=re.compile("acme.test"))).to_have_count(0)
    assert len(questions) == 2 and len(requests) == 1
    assert page.evaluate("window.__stillHere") is True  # swapped in place, no reload
