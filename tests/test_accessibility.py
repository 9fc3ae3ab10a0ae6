"""Pages that respect people, checked in a real browser.

- axe-core runs on every page the navigation reaches (the org's side nav and the
  settings nav, read from the page itself, so a new page joins the walk), plus a
  project's board, settings, members, a task's page, a dashboard and the analytics
  tabs, at 1440 px and at 390 px, signed in as the owner and as a plain member (who
  sees no Settings): no serious or critical violation passes.
- At 390 px no page scrolls sideways, and no table needs sideways scrolling to read
  its first two columns (it stacks into labelled rows, or its first columns fit).
- A keyboard user sees where the focus is on text inputs, selects, buttons and links.
- At phone width (390 x 844) the side nav folds into a Menu button.

axe-core is vendored for the tests only (tests/browser_assets/axe.min.js), never shipped
to users; see docs/core.md, "Accessibility". It is injected with ``page.evaluate`` of its
source: that goes through the DevTools protocol, which the pages' strict CSP does not
block (``page.add_script_tag`` writes an inline <script>, which the CSP refuses).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import AXE, axe_problems
from tests.factories import (
    add_person,
    browser_sign_in,
    create_project,
    login,
    make_org,
    new_task,
)

pytestmark = [pytest.mark.browser, pytest.mark.markup_only]


#: Pages the side nav does not link to but a person reaches in one click from it.
DETAIL_PAGES = ["/projects/{project}", "/projects/{project}?view=board",
                "/projects/{project}/settings", "/projects/{project}/members", "/tasks/WEB-1",
                "/projects/{project}/deleted-tasks", "/dashboards/{board}"]  # fmt: skip
ANALYTICS_TABS = ["flow", "flow-time", "workload", "scatter", "forecast", "pivot", "custom"]
WIDTHS = (1280, 390)
PHONE = 390


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
    cycle = client.post(
        org.url(f"/projects/{project['id']}/cycles"), json={"name": "Sprint 1"}, headers=org.headers
    )
    assert cycle.status_code == 201, cycle.get_json()
    # In a cycle, so the scatter tab draws its table (and the walk checks it).
    task = new_task(client, org, project, title="First task", cycle_id=cycle.get_json()["id"])
    assert task["sequence"] == 1
    # Deleted, so the Deleted tasks page lists one with its Restore button.
    gone = new_task(client, org, project, title="Filed twice")
    assert client.delete(org.url(f"/tasks/{gone['id']}"), headers=h).status_code == 204
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


# Tables whose first two columns end past the viewport's right edge (a phone reads
# them only by scrolling sideways); a stacked table's cells are full-width blocks.
WIDE_TABLES = """() => Array.from(document.querySelectorAll('main table'))
  .filter(t => t.getClientRects().length)
  .filter(t => {
    const row = t.querySelector('tbody tr') || t.querySelector('tr');
    const cells = row ? Array.from(row.cells).slice(0, 2) : [];
    return cells.some(c => c.getBoundingClientRect().right > window.innerWidth + 1);
  })
  .map(t => t.className || t.getAttribute('aria-label') || 'table')"""

# Tables scrolled sideways inside their card at this width, other than in a named,
# focusable region that says it scrolls (analytics' wide tables): a reader would miss
# the columns past the card's edge.
CLIPPED_TABLES = """() => Array.from(document.querySelectorAll('main table'))
  .filter(t => t.getClientRects().length)
  .filter(t => {
    const wrap = t.closest('.table-wrap');
    return wrap && !wrap.matches('[role=region]') && wrap.scrollWidth > wrap.clientWidth + 1;
  })
  .map(t => t.id || t.className || 'table')"""

NAV_LINKS = """sel => Array.from(document.querySelectorAll(sel)).map(a => a.getAttribute('href'))"""


def _nav_pages(page, base: str, slug: str, owner: bool) -> list[str]:
    """The paths the org's navigation links to (and the settings nav's, for the
    owner), in order, without repeats."""
    prefix = f"/o/{slug}"
    page.goto(f"{base}{prefix}/")
    hrefs = page.evaluate(NAV_LINKS, 'nav[aria-label="Organization"] a[href]')
    if owner:
        page.goto(f"{base}{prefix}/settings")
        hrefs += page.evaluate(NAV_LINKS, 'nav[aria-label="Settings"] a[href]')
    paths = [h[len(prefix) :] or "/" for h in hrefs if h.startswith(prefix)]
    return list(dict.fromkeys(paths))


def test_no_serious_accessibility_violation_on_any_nav_page_at_both_widths(browser, site):
    """One browser context per width, the owner then the member signed in to it."""
    server, org, fill = site
    problems: list[str] = []
    walked = 0
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_init_script(path=str(AXE))
        page = context.new_page()
        try:
            for role, email in (("owner", org.owner_email), ("member", "member@acme.test")):
                browser_sign_in(page, server.url, email, org.password)
                owner = role == "owner"
                settings_link = page.locator(
                    'nav[aria-label="Organization"] a', has_text="Settings"
                )
                expect(settings_link).to_have_count(1 if owner else 0)
                paths = _nav_pages(page, server.url, org.slug, owner)
                paths += [p.format(**fill) for p in DETAIL_PAGES]
                if owner:  # a member sees the same tabs: walked once, for time
                    paths += [f"/analytics/{tab}" for tab in ANALYTICS_TABS]
                for path in paths:
                    where = f"{width}px {role} {path}"
                    page.goto(f"{server.url}/o/{org.slug}{path}")
                    expect(page.locator("main h1").first).to_be_visible()
                    walked += 1
                    problems += [f"{where}: {p}" for p in axe_problems(page, injected=True)]
                    problems += [
                        f"{where}: no visible label: {n}" for n in page.evaluate(UNLABELLED)
                    ]
                    scroll = page.locator("html").evaluate("el => el.scrollWidth")
                    if scroll > width:
                        problems.append(f"{where}: the page scrolls sideways ({scroll} px)")
                    problems += [
                        f"{where}: table {t} is cut at its card's edge"
                        for t in page.evaluate(CLIPPED_TABLES)
                    ]
                    if width == PHONE:
                        problems += [
                            f"{where}: table {t} needs sideways scrolling for its first columns"
                            for t in page.evaluate(WIDE_TABLES)
                        ]
                page.context.clear_cookies()
        finally:
            context.close()
    assert walked > 60  # both roles, both widths, every nav page: the walk really ran
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
        page.locator("main select:visible").first,  # the filter folds its own
    ):
        control.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        expect(control).to_be_focused()
        assert control.evaluate(outline) == ["solid", "2px"]


def test_at_phone_width_the_nav_folds_into_a_menu(browser, site):
    server, org, _ = site
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

        # The scatter's table is wider than a phone: its region takes the focus and
        # the arrow keys scroll it.
        page.goto(f"{server.url}/o/{org.slug}/analytics/scatter")
        region = page.get_by_role("region", name="Scope and completion per cycle, as a table")
        expect(region).to_contain_text("Sprint 1")
        assert region.evaluate("el => el.scrollWidth > el.clientWidth")
        region.focus()
        expect(region).to_be_focused()
        for _ in range(4):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.activeElement.scrollLeft > 0", timeout=5000)
    finally:
        context.close()
