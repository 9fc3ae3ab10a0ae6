"""A project admin in a real browser: rename a state, recategorize it through the
confirmation that says how many tasks move, and add a project member."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.factories import add_person, browser_sign_in, make_org, new_task, setup_project
from workspace.core.models import Task
from workspace.extensions import db

pytestmark = pytest.mark.browser

#: Set to a directory to keep screenshots of the pages at 1280 and 390 px.
SHOTS = os.environ.get("PROJECT_SETTINGS_SHOTS")


AXE = Path(__file__).resolve().parent.parent / "browser_assets" / "axe.min.js"
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'main input:not([type=hidden]), main select, main textarea'))
  .filter(el => el.getClientRects().length)
  .filter(el => !Array.from(el.labels || []).some(
    l => l.getClientRects().length && l.textContent.trim()))
  .map(el => el.name || el.id)"""


def _serious_problems(page) -> list[str]:
    """axe-core's serious and critical findings, and fields without a visible label."""
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    found = [
        f"{v['impact']} {v['id']}: {v['help']}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    return found + [f"no visible label: {n}" for n in page.evaluate(UNLABELLED)]


def _shot(page, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def test_admin_renames_and_recategorizes_a_state_and_adds_a_member(page, live_server):
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    add_person(live_server.app, org.org_id, "mia@acme.test")
    client = live_server.app.test_client()
    project, states = setup_project(client, org)
    review = states["In Review"]["id"]
    for i in range(4):
        new_task(client, org, project, title=f"Review {i}", state_id=review)
    new_task(client, org, project, title="Elsewhere", state_id=states["Todo"]["id"])

    browser_sign_in(page, live_server.url, org.owner_email, org.password)
    page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}/settings")
    expect(page.get_by_role("heading", name="Project settings")).to_be_visible()
    assert _serious_problems(page) == []
    _shot(page, "settings-1280")

    row = page.locator(f"#state-{review}")
    row.get_by_label("Name", exact=True).fill("QA")
    row.get_by_role("button", name="Rename In Review").click()
    expect(page.get_by_text("State 'QA' saved.")).to_be_visible()

    row = page.locator(f"#state-{review}")
    expect(row.get_by_text("4 tasks", exact=True)).to_be_visible()
    row.get_by_label("Category", exact=True).select_option(label="Completed")
    row.get_by_role("button", name="Change category of QA").click()
    expect(page.locator("#confirm-message")).to_have_text(
        "4 tasks in 'QA' will move from Started to Completed (they will count as done from now)."
    )
    assert _serious_problems(page) == []
    _shot(page, "confirm-1280")
    with live_server.app.app_context():  # nothing moved before the person confirms
        categories = set(
            db.session.scalars(
                select(Task.state_category).where(Task.state_id == uuid.UUID(review))
            )
        )
        assert categories == {"started"}
    page.get_by_role("button", name="Move to Completed").click()
    expect(page.get_by_text("'QA' is now Completed; 4 tasks moved with it.")).to_be_visible()
    expect(page.locator(f"#state-{review}").locator(".badge.cat-completed")).to_have_text(
        "Completed"
    )
    with live_server.app.app_context():
        rows = db.session.execute(select(Task.title, Task.state_category, Task.completed_at)).all()
        moved = {t for t, c, done in rows if c == "completed" and done is not None}
        assert moved == {f"Review {i}" for i in range(4)}

    # A cycle that ends before it starts: the message sits beside the field.
    cycles = page.locator("#cycles")
    cycles.get_by_label("Name", exact=True).fill("Sprint 1")
    cycles.get_by_label("Starts").fill("2026-03-10")
    cycles.get_by_label("Ends").fill("2026-03-01")
    cycles.get_by_role("button", name="Add cycle").click()
    expect(page.locator("#new-cycle-end_date-error")).to_contain_text("cannot end")
    expect(page.locator("#new-cycle-name")).to_have_value("Sprint 1")
    _shot(page, "cycle-error-1280")
    # Added, the page comes back at the add form with the focus in its name, to add
    # the next; a state moved comes back at its row with the focus on Up or Down.
    page.locator("#new-cycle-end_date").fill("2026-03-20")
    page.locator("#cycles").get_by_role("button", name="Add cycle").click()
    expect(page.get_by_text("Cycle 'Sprint 1' added.")).to_be_visible()
    expect(page.locator("#new-cycle-name")).to_be_focused()
    page.locator(f"#state-{review}").get_by_role("button", name="Down (QA)").click()
    expect(page.get_by_text("State 'QA' moved")).to_be_visible()
    expect(page.locator(f"#state-{review}").get_by_role("button", name="Up (QA)")).to_be_focused()

    page.get_by_role("link", name="Members").last.click()
    expect(page.get_by_role("heading", name="Project members")).to_be_visible()
    page.get_by_label("Find a person in Acme").fill("mia")
    page.get_by_role("button", name="Search", exact=True).click()
    page.get_by_label(re.compile("^Person")).select_option(label="Mia · mia@acme.test")
    page.get_by_label("Role", exact=True).first.select_option(label="Commenter")
    page.get_by_role("button", name="Add member").click()
    expect(page.get_by_text("mia@acme.test is now commenter.")).to_be_visible()
    mia_row = page.locator(".ps-member", has_text="mia@acme.test")
    expect(mia_row.locator(".ps-role")).to_have_text("Commenter")
    expect(mia_row.locator(".ps-source")).to_have_text("Manual")
    assert _serious_problems(page) == []
    _shot(page, "members-1280")

    if SHOTS:
        page.set_viewport_size({"width": 390, "height": 844})
        _shot(page, "members-390")
        page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}/settings")
        _shot(page, "settings-390")
        # Nothing sticks out sideways at phone width.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
