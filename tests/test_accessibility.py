"""Pages that respect people, checked in a real browser.

- axe-core runs on every page reachable from the navigation (and a project's board,
  settings, members and a task's page), signed in as the owner and
  as a plain member (who sees no Settings), and no serious or critical violation passes.
- A keyboard user sees where the focus is on text inputs, selects, buttons and links.
- At phone width (390 x 844) the side nav folds into a Menu button and no page scrolls
  sideways.

axe-core is vendored for the tests only (tests/browser_assets/axe.min.js), never shipped
to users; see docs/core.md, "Accessibility". It is injected with ``page.evaluate`` of its
source: that goes through the DevTools protocol, which the pages' strict CSP does not
block (``page.add_script_tag`` writes an inline <script>, which the CSP refuses).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.factories import (
    add_person,
    browser_sign_in,
    create_project,
    login,
    make_org,
    new_task,
)

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "browser_assets" / "axe.min.js"
BLOCKING = {"serious", "critical"}

MAIN_PAGES = ["/", "/projects", "/projects/{project}", "/projects/{project}?view=board",
              "/projects/{project}/settings", "/projects/{project}/members", "/tasks/WEB-1",
              "/analytics", "/dashboards", "/dashboards/{board}", "/tokens",
              "/sessions"]  # fmt: skip
SETTINGS_PAGES = [
    "/settings",
    "/settings/members",
    "/settings/sessions",
    "/settings/domains",
    "/settings/sso",
    "/settings/enforced-sso",
    "/settings/group-sync",
    "/settings/scim",
    "/settings/ldap",
    "/settings/ai",
    "/settings/agents",
    "/settings/events",
]


@pytest.fixture
def site(live_server):
    """Acme with an owner, a plain member, a project with a task, and a dashboard."""
    app = live_server.app
    org = make_org(app, "Acme", "owner@acme.test")
    add_person(app, org.org_id, "member@acme.test")
    client = app.test_client()
    login(client, org.owner_email)
    project = create_project(client, org)
    h = org.headers
    assert new_task(client, org, project, title="First task")["sequence"] == 1
    board = client.post(org.url("/dashboards"), json={"name": "Board"}, headers=h)
    assert board.status_code == 201, board.get_json()
    board_id = board.get_json()["id"]
    client.post(org.url(f"/dashboards/{board_id}/publish"), headers=h)
    widget = client.post(
        org.url(f"/dashboards/{board_id}/widgets"), json={"title": "By state"}, headers=h
    )
    assert widget.status_code == 201, widget.get_json()
    fill = {"project": project["id"], "board": board_id}
    return live_server, org, fill


# Fields on the page (a table cell's control is named by its column) with no visible label.
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'main input:not([type=hidden]), main select, main textarea'))
  .filter(el => el.getClientRects().length && !el.closest('td'))
  .filter(el => !Array.from(el.labels || []).some(
    l => l.getClientRects().length && l.textContent.trim() && getComputedStyle(l).clip === 'auto'))
  .map(el => el.name || el.id)"""


def axe_problems(page) -> list[str]:
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['impact']} {v['id']}: {v['help']} -> "
        + "; ".join(
            n["target"][0] if isinstance(n["target"][0], str) else str(n["target"])
            for n in v["nodes"][:4]
        )
        for v in result["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("role", ["owner", "member"])
def test_no_serious_accessibility_violation_on_any_nav_page(page, site, role):
    server, org, fill = site
    email = "owner@acme.test" if role == "owner" else "member@acme.test"
    browser_sign_in(page, server.url, email, org.password)
    settings_link = page.get_by_role("navigation", name="Organization").get_by_role(
        "link", name="Settings"
    )
    expect(settings_link).to_have_count(1 if role == "owner" else 0)
    paths = MAIN_PAGES + (SETTINGS_PAGES if role == "owner" else [])
    problems = {}
    for path in paths:
        page.goto(f"{server.url}/o/{org.slug}" + path.format(**fill))
        expect(page.locator("main h1").first).to_be_visible()
        problems.update({f"{path}: {p}": True for p in axe_problems(page)})
        problems.update({f"{path}: no visible label: {n}": True for n in page.evaluate(UNLABELLED)})
    assert not problems, "\n".join(problems)


def test_keyboard_focus_is_visible_on_every_kind_of_control(page, site):
    server, org, fill = site
    browser_sign_in(page, server.url, org.owner_email, org.password)
    page.goto(f"{server.url}/o/{org.slug}/tokens")
    name = page.get_by_label("Name", exact=True)
    name.focus()
    # Tab from the field before it so the browser applies :focus-visible as for a keyboard.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    expect(name).to_be_focused()
    outline = "el => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }"
    assert name.evaluate(outline) == ["solid", "2px"]
    page.keyboard.press("Tab")
    create = page.get_by_role("button", name="Create token")
    expect(create).to_be_focused()
    assert create.evaluate(outline) == ["solid", "2px"]
    page.goto(f"{server.url}/o/{org.slug}/projects/{fill['project']}")
    for control in (
        page.get_by_role("link", name="Projects").first,
        page.locator("main select").first,
    ):
        control.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        expect(control).to_be_focused()
        assert control.evaluate(outline) == ["solid", "2px"]


def test_at_phone_width_the_nav_folds_into_a_menu_and_nothing_overflows(browser, site):
    server, org, fill = site
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        browser_sign_in(page, server.url, org.owner_email, org.password)
        menu = page.get_by_role("button", name="Menu")
        nav = page.get_by_role("navigation", name="Organization")
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(nav).to_be_hidden()
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
        expect(nav.get_by_role("link", name="Analytics")).to_be_visible()
        page.keyboard.press("Escape")
        expect(nav).to_be_hidden()
        expect(menu).to_be_focused()
        menu.click()
        nav.get_by_role("link", name="Projects").click()
        expect(page).to_have_url(re.compile(r"/projects$"))
        expect(nav).to_be_hidden()

        wide = {}
        for path in MAIN_PAGES + SETTINGS_PAGES:
            page.goto(f"{server.url}/o/{org.slug}" + path.format(**fill))
            expect(page.locator("main h1").first).to_be_visible()
            width = page.locator("html").evaluate("el => el.scrollWidth")
            if width > 390:
                wide[path] = width
        assert wide == {}
    finally:
        context.close()
