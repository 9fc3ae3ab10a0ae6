"""The task list and board in a real browser: drag a card, move one by keyboard,
search + PQL + sort the list, and the inline state select that waits for Enter."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.factories import PASSWORD, browser_sign_in, make_org, new_task, setup_project
from workspace.core.models import Task, TaskActivity
from workspace.extensions import db

pytestmark = pytest.mark.browser


@pytest.fixture
def board(live_server):
    """An org with a project of four tasks, and the owner signed in."""
    org = make_org(live_server.app, "Acme", "owner@acme.test")
    client = live_server.app.test_client()
    project, states = setup_project(client, org)
    by_cat = {s["category"]: s for s in sorted(states.values(), key=lambda s: -s["position"])}
    titles = [
        ("Alpha login bug", "high", "backlog"),
        ("Beta signup", "urgent", "backlog"),
        ("Gamma login page", "low", "backlog"),
        ("Delta billing", "high", "started"),
    ]
    tasks = {
        title: new_task(client, org, project, title=title, priority=prio,
                        state_id=by_cat[cat]["id"])
        for title, prio, cat in titles
    }  # fmt: skip
    return org, project, by_cat, tasks


def _state_moves(app, task_id: str) -> list[TaskActivity]:
    with app.app_context():
        return list(
            db.session.scalars(
                select(TaskActivity).where(
                    TaskActivity.task_id == uuid.UUID(task_id), TaskActivity.field == "state"
                )
            )
        )


def _category(app, task_id: str) -> str:
    with app.app_context():
        return db.session.get(Task, uuid.UUID(task_id)).state_category


def _column(page, name: str):
    return page.locator(f'section.board-col[data-column="{name}"]')


def _open(page, live_server, org, project, query: str = "") -> None:
    browser_sign_in(page, live_server.url, org.owner_email, PASSWORD)
    page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}{query}")


def test_dragging_a_card_to_another_column_changes_its_state(page, live_server, board):
    org, project, by_cat, tasks = board
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    _open(page, live_server, org, project, "?view=board")
    done = by_cat["unstarted"]["name"]  # the next column, in view
    backlog = by_cat["backlog"]["name"]
    expect(_column(page, backlog).locator("[data-count]")).to_have_text("3")
    card = _column(page, backlog).locator(".board-card", has_text="Beta signup")
    target = _column(page, done).locator(".board-cards")
    card.locator(".board-title").drag_to(target, target_position={"x": 40, "y": 20})
    expect(_column(page, done).locator("[data-count]")).to_have_text("1")
    expect(_column(page, backlog).locator("[data-count]")).to_have_text("2")
    page.reload()
    expect(_column(page, done).locator(".board-card", has_text="Beta signup")).to_have_count(1)
    expect(_column(page, backlog).locator(".board-card", has_text="Beta signup")).to_have_count(0)
    task_id = tasks["Beta signup"]["id"]
    assert _category(live_server.app, task_id) == "unstarted"
    moves = _state_moves(live_server.app, task_id)
    assert [(m.old_category, m.new_category) for m in moves] == [("backlog", "unstarted")]
    assert moves[0].actor_id == org.owner_id
    assert failed == []


def test_moving_a_card_by_keyboard(page, live_server, board):
    org, project, by_cat, tasks = board
    _open(page, live_server, org, project, "?view=board")
    started = by_cat["started"]["name"]
    task_id = tasks["Alpha login bug"]["id"]
    mover = page.get_by_label("Move WEB-1 to…")
    mover.focus()
    mover.select_option(label=started)
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Move").first).to_be_visible()
    page.keyboard.press("Enter")
    expect(_column(page, started).locator(".board-card", has_text="Alpha login bug")).to_have_count(
        1
    )
    expect(_column(page, started).locator("[data-count]")).to_have_text("2")
    expect(page.get_by_label("Move WEB-1 to…")).to_be_focused()
    assert _category(live_server.app, task_id) == "started"
    assert len(_state_moves(live_server.app, task_id)) == 1


def test_search_pql_and_sort_on_the_list(page, live_server, board):
    org, project, _, _ = board
    _open(page, live_server, org, project)
    rows = page.locator("#task-rows tr[data-task-key]")
    expect(rows).to_have_count(4)
    page.get_by_label("Search titles").fill("LOGIN")
    page.get_by_label("PQL filter").fill("priority IN (high, low)")
    page.get_by_label("Sort by").select_option(label="Priority")
    page.get_by_label("Order").select_option(label="Ascending")
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Alpha login bug")  # high before low
    expect(rows.nth(1)).to_contain_text("Gamma login page")
    expect(page).to_have_url(re.compile(r"q=LOGIN.*sort=priority.*dir=asc"))
    # A column header flips the order.
    page.get_by_role("link", name=re.compile("^Priority")).click()
    expect(rows.nth(0)).to_contain_text("Gamma login page")
    # A bad filter says where, next to the box, and the list stays empty.
    page.get_by_label("PQL filter").fill("priority = asap")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator("#task-pql-error")).to_contain_text(
        "PQL error at line 1, column 12: priority has no value 'asap'"
    )
    expect(rows).to_have_count(0)
    page.get_by_role("link", name="Clear the filter").first.click()
    expect(rows).to_have_count(4)


def test_arrowing_through_the_state_select_writes_nothing_until_enter(page, live_server, board):
    org, project, _, tasks = board
    task_id = tasks["Alpha login bug"]["id"]
    _open(page, live_server, org, project)
    select_box = page.get_by_label("State of WEB-1")
    before = select_box.input_value()
    select_box.focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    assert select_box.input_value() != before  # the arrows did move through the states
    page.wait_for_timeout(500)
    assert _state_moves(live_server.app, task_id) == []
    page.keyboard.press("Enter")
    row = page.locator("#task-rows tr", has_text="Alpha login bug")
    expect(row.get_by_label("State of WEB-1")).not_to_have_class(re.compile("cat-backlog"))
    expect(page.get_by_label("State of WEB-1")).to_be_focused()
    moves = _state_moves(live_server.app, task_id)
    assert len(moves) == 1 and moves[0].old_category == "backlog"
    # A mouse choice still commits at once.
    page.get_by_label("State of WEB-2").select_option(label="In Progress")
    expect(
        page.locator("#task-rows tr", has_text="Beta signup").get_by_label("State of WEB-2")
    ).not_to_have_class(re.compile("cat-backlog"))
    assert len(_state_moves(live_server.app, tasks["Beta signup"]["id"])) == 1


def test_bulk_bar_appears_on_selection_and_edits_each_task(page, live_server, board):
    org, project, _, tasks = board
    _open(page, live_server, org, project)
    bar = page.locator("#bulk-form")
    expect(bar).to_be_hidden()
    page.get_by_label("Select WEB-1").check()
    page.get_by_label("Select WEB-3").check()
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("2 tasks selected")
    bar.get_by_label("Priority").select_option(label="Urgent")
    bar.get_by_role("button", name="Apply to selected").click()
    expect(page.locator(".flash-success")).to_contain_text("Updated 2 tasks.")
    with live_server.app.app_context():
        for title in ("Alpha login bug", "Gamma login page"):
            assert db.session.get(Task, uuid.UUID(tasks[title]["id"])).priority == "urgent"
    page.get_by_label("Select all tasks on this page").check()
    expect(bar).to_contain_text("4 tasks selected")
