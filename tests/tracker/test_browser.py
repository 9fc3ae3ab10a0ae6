"""A person in a real browser: sign in as the demo owner, add a task, move it along,
and see the change without a full page reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.factories import browser_sign_in
from workspace.core.models import Task, TaskActivity
from workspace.extensions import db

pytestmark = pytest.mark.browser

DEMO_PASSWORD = "demo-password-browser"


@pytest.fixture
def demo(live_server):
    result = live_server.app.test_cli_runner().invoke(
        args=["demo", "--tasks", "90", "--password", DEMO_PASSWORD]
    )
    assert result.exit_code == 0, result.output
    return live_server


def test_owner_creates_a_task_and_changes_its_state_in_place(page, demo):
    browser_sign_in(page, demo.url, "owner@acme.test", DEMO_PASSWORD)
    expect(page).to_have_url(re.compile(r"/o/acme/$"))
    page.get_by_role("link", name="Projects").first.click()
    page.get_by_role("link", name="Web App").click()
    expect(page.get_by_role("heading", name=re.compile("Web App"))).to_be_visible()
    # Watched from here on: a click made while an earlier page still loaded its deferred
    # scripts aborts them (net::ERR_ABORTED), which is the browser's navigation, not ours.
    page.wait_for_load_state("load")
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))

    # A marker on window survives only if the page is never fully reloaded.
    page.evaluate("window.__stillHere = true")
    page.locator("#task-form-box > summary").click()  # the create form is folded
    page.get_by_label("Task title").fill("Write the browser test")
    page.get_by_role("button", name="Add task").click()
    row = page.locator("#task-rows tr", has_text="Write the browser test")
    expect(row).to_have_count(1)
    key = row.get_attribute("data-task-key")
    assert key.startswith("WEB-")
    expect(page.get_by_label("Task title")).to_have_value("")

    row.get_by_label(f"State of {key}").select_option(label="In Progress")
    expect(row.get_by_label(f"State of {key}")).to_have_class(re.compile("cat-started"))
    assert page.evaluate("window.__stillHere") is True
    assert failed == []

    page.reload()
    row = page.locator("#task-rows tr", has_text="Write the browser test")
    expect(row.get_by_label(f"State of {key}")).to_have_class(re.compile("cat-started"))

    with demo.app.app_context():
        task = db.session.scalar(select(Task).where(Task.title == "Write the browser test"))
        assert task.state_category == "started"
        moves = db.session.scalars(
            select(TaskActivity).where(
                TaskActivity.task_id == task.id, TaskActivity.field == "state"
            )
        ).all()
        assert [(m.old_category, m.new_category) for m in moves] == [("backlog", "started")]


def test_every_list_column_fits_the_card_at_1280(page, demo):
    """At 1280 px the created date, the last column, was cut off behind a sideways
    scroll of the card; the title gives up room instead."""
    page.set_viewport_size({"width": 1280, "height": 900})
    browser_sign_in(page, demo.url, "owner@acme.test", DEMO_PASSWORD)
    page.get_by_role("link", name="Projects").first.click()
    page.get_by_role("link", name="Web App").click()
    wrap = page.locator(".table-wrap:has(#task-table)")
    expect(wrap).to_be_visible()
    widths = "w => [w.scrollWidth, w.clientWidth, w.querySelector('thead tr').innerText]"
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth + 1"), wrap.evaluate(widths)
    created = page.locator("#task-table thead th.col-created")
    expect(created).to_be_in_viewport(ratio=1)
