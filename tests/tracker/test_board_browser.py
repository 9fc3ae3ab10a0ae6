"""The task list and board in a real browser: drag a card, move, assign and reprioritise
one through the board's one menu by keyboard and mouse, a refused write, what a viewer
sees, overdue cards, axe on the board at 1440 and 390 px; search + PQL + sort the list,
and the inline state select that waits for Enter."""

from __future__ import annotations

import re
import uuid
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from tests.axe import axe_problems
from tests.factories import (
    PASSWORD,
    add_person,
    browser_sign_in,
    login,
    make_org,
    new_task,
    setup_project,
)
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


def _ready(page) -> None:
    """board.js has given every card its menu and drag handle."""
    expect(page.locator("#board[data-board-ready]")).to_have_count(1)


#: A card's assignee: the second part of its meta line (templates/tracker/_board_card.html).
ASSIGNEE = ":scope > p > span:nth-child(2)"


def _card(page, key: str):
    return page.locator(
        ".board-card", has=page.locator(":scope > a", has_text=re.compile(f"^{key}$"))
    )


def test_dragging_a_card_to_another_column_changes_its_state(page, live_server, board):
    org, project, by_cat, tasks = board
    failed = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    _open(page, live_server, org, project, "?view=board")
    _ready(page)
    done = by_cat["unstarted"]["name"]  # the next column, in view
    backlog = by_cat["backlog"]["name"]
    expect(_column(page, backlog).locator("[data-count]")).to_have_text("3")
    card = _column(page, backlog).locator(".board-card", has_text="Beta signup")
    target = _column(page, done).locator(".board-cards")
    card.locator(":scope > p").first.drag_to(target, target_position={"x": 40, "y": 20})
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


def test_moving_assigning_and_prioritising_by_keyboard_through_the_one_menu(
    page, live_server, board
):
    org, project, by_cat, tasks = board
    _open(page, live_server, org, project, "?view=board")
    _ready(page)
    # One menu for the whole board, no form on any card.
    assert page.locator("#board form").count() == 1
    columns = page.locator("section.board-col").count()
    assert page.locator("#board option").count() == columns + 2 + 5  # states, people, priorities
    started = by_cat["started"]["name"]
    card = _card(page, "WEB-1")
    card.focus()
    page.keyboard.press("Escape")  # nothing open: nothing happens
    page.keyboard.press("Enter")
    menu = page.get_by_role("dialog", name=re.compile("WEB-1 Alpha login bug"))
    expect(menu).to_be_visible()
    move_to = menu.get_by_label("Move to")
    expect(move_to).to_be_focused()
    # Escape closes it and gives the focus back to the card; nothing was written.
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(card).to_be_focused()
    page.keyboard.press("Enter")
    expect(move_to).to_be_focused()
    move_to.select_option(label=started)
    page.keyboard.press("Tab")
    expect(menu.get_by_label("Assignee")).to_be_focused()
    menu.get_by_label("Assignee").select_option(label="Acme Owner")
    page.keyboard.press("Tab")
    expect(menu.get_by_label("Priority")).to_be_focused()
    page.keyboard.press("ArrowUp")  # high -> urgent
    page.keyboard.press("Tab")
    expect(menu.get_by_role("button", name="Apply")).to_be_focused()
    page.keyboard.press("Enter")
    expect(menu).to_be_hidden()
    moved = _column(page, started).locator(".board-card", has_text="Alpha login bug")
    expect(moved).to_have_count(1)
    expect(moved).to_contain_text("urgent")
    expect(moved.locator(ASSIGNEE)).to_have_text("Acme Owner")
    expect(_column(page, started).locator("[data-count]")).to_have_text("2")
    expect(_column(page, by_cat["backlog"]["name"]).locator("[data-count]")).to_have_text("2")
    expect(_card(page, "WEB-1")).to_be_focused()
    # One Tab stop a card: from a card, Tab goes to the next card, not to its key link.
    backlog = _column(page, by_cat["backlog"]["name"]).locator(".board-card")
    backlog.first.focus()
    page.keyboard.press("Tab")
    expect(backlog.nth(1)).to_be_focused()
    with live_server.app.app_context():
        task = db.session.get(Task, uuid.UUID(tasks["Alpha login bug"]["id"]))
        assert (task.state_category, task.priority, task.assignee_id) == (
            "started",
            "urgent",
            org.owner_id,
        )
    assert len(_state_moves(live_server.app, tasks["Alpha login bug"]["id"])) == 1


def test_the_menu_opened_again_before_its_close_event_still_applies(page, live_server, board):
    """A slow machine: Escape closes the menu and Enter opens it again before the queued
    close event runs. That late event once forgot the open card, and Apply did nothing."""
    org, project, _by_cat, tasks = board
    _open(page, live_server, org, project, "?view=board")
    _ready(page)
    card = _card(page, "WEB-1")
    card.focus()
    page.keyboard.press("Enter")
    menu = page.get_by_role("dialog", name=re.compile("WEB-1 Alpha login bug"))
    expect(menu).to_be_visible()
    # Close and open again in one task, so the close event is dispatched after the open.
    card.evaluate(
        """card => {
            document.getElementById("board-menu").close();
            card.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
        }"""
    )
    expect(menu).to_be_visible()
    menu.get_by_label("Priority").select_option("low")
    menu.get_by_role("button", name="Apply").click()
    expect(menu).to_be_hidden()
    expect(_card(page, "WEB-1")).to_contain_text("low")
    with live_server.app.app_context():
        task = db.session.get(Task, uuid.UUID(tasks["Alpha login bug"]["id"]))
        assert task.priority == "low"


def test_assigning_and_prioritising_with_the_mouse_keeps_the_card_in_place(
    page, live_server, board
):
    org, project, by_cat, tasks = board
    _open(page, live_server, org, project, "?view=board")
    _ready(page)
    backlog = _column(page, by_cat["backlog"]["name"])
    page.get_by_role("button", name="Actions for WEB-3").click()
    menu = page.get_by_role("dialog")
    menu.get_by_label("Priority").select_option(label="Urgent")
    menu.get_by_label("Assignee").select_option(label="Acme Owner")
    menu.get_by_role("button", name="Apply").click()
    expect(menu).to_be_hidden()
    card = backlog.locator(".board-card", has_text="Gamma login page")
    expect(card.locator(".badge").first).to_have_text("urgent")
    expect(card.locator(ASSIGNEE)).to_have_text("Acme Owner")
    expect(backlog.locator("[data-count]")).to_have_text("3")
    # Unassign again: the card says so, and a reload shows what was saved.
    page.get_by_role("button", name="Actions for WEB-3").click()
    menu.get_by_label("Assignee").select_option(label="Unassigned")
    menu.get_by_role("button", name="Apply").click()
    expect(card.locator(ASSIGNEE)).to_have_text("Unassigned")
    page.reload()
    expect(card.locator(".badge").first).to_have_text("urgent")
    expect(card.locator(ASSIGNEE)).to_have_text("Unassigned")
    with live_server.app.app_context():
        task = db.session.get(Task, uuid.UUID(tasks["Gamma login page"]["id"]))
        assert (task.priority, task.assignee_id, task.state_category) == (
            "urgent",
            None,
            "backlog",
        )


def _join(live_server, org, project, email: str, role: str):
    person = add_person(live_server.app, org.org_id, email)
    client = live_server.app.test_client()
    resp = client.post(
        org.url(f"/projects/{project['id']}/members"),
        json={"account_id": str(person.owner_id), "role": role},
        headers=org.headers,
    )
    assert resp.status_code in (200, 201), resp.get_json()
    return person


def test_a_refused_write_keeps_the_menu_open_and_says_why(page, live_server, board):
    org, project, by_cat, tasks = board
    person = _join(live_server, org, project, "member@acme.test", "member")
    browser_sign_in(page, live_server.url, person.owner_email, PASSWORD)
    page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}?view=board")
    _ready(page)
    # The person is made a viewer while the board is open.
    _join(live_server, org, project, "member@acme.test", "viewer")
    started = by_cat["started"]["name"]
    _card(page, "WEB-2").focus()
    page.keyboard.press("Enter")
    menu = page.get_by_role("dialog")
    menu.get_by_label("Move to").select_option(label=started)
    menu.get_by_label("Priority").select_option(label="Low")
    menu.get_by_role("button", name="Apply").click()
    expect(menu.get_by_role("alert")).to_contain_text(re.compile(r"\w"))
    expect(menu).to_be_visible()
    expect(menu.get_by_label("Move to")).to_have_value(by_cat["started"]["id"])
    expect(menu.get_by_label("Priority")).to_have_value("low")
    expect(_card(page, "WEB-2").locator(".badge").first).to_have_text("urgent")
    # A refused drag puts the card back and says why above the board.
    page.keyboard.press("Escape")
    backlog = _column(page, by_cat["backlog"]["name"])
    card = backlog.locator(".board-card", has_text="Beta signup")
    target = _column(page, started).locator(".board-cards")
    card.locator(":scope > p").first.drag_to(target, target_position={"x": 40, "y": 60})
    expect(page.locator("[data-board-error]")).to_contain_text("WEB-2 was not moved")
    expect(backlog.locator(".board-card", has_text="Beta signup")).to_have_count(1)
    expect(_column(page, started).locator("[data-count]")).to_have_text("1")
    assert _category(live_server.app, tasks["Beta signup"]["id"]) == "backlog"
    assert _state_moves(live_server.app, tasks["Beta signup"]["id"]) == []


def test_a_viewer_sees_the_cards_without_a_menu(page, live_server, board):
    org, project, _, _ = board
    person = _join(live_server, org, project, "viewer@acme.test", "viewer")
    browser_sign_in(page, live_server.url, person.owner_email, PASSWORD)
    page.goto(f"{live_server.url}/o/{org.slug}/projects/{project['id']}?view=board")
    expect(page.locator(".board-card")).to_have_count(4)
    expect(page.locator("#board-menu")).to_have_count(0)
    expect(page.locator("[data-menu-open]")).to_have_count(0)
    expect(page.locator("#board form, #board select")).to_have_count(0)
    # What is missing is said, with who can change it (the task page says it too).
    expect(page.locator(".read-only-note")).to_contain_text("needs the member role")
    # Nothing to open on a card: its key link is its one Tab stop.
    expect(page.locator(".board-card[tabindex]")).to_have_count(0)
    page.get_by_role("link", name="WEB-1", exact=True).focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.board-card > a')")
    # The key still opens the task.
    page.get_by_role("link", name="WEB-1", exact=True).click()
    expect(page).to_have_url(re.compile(r"/tasks/WEB-1$"))


def test_overdue_cards_say_so_in_red_words(page, live_server, board):
    org, project, by_cat, _ = board
    client = live_server.app.test_client()
    login(client, org.owner_email)
    late = (date.today() - timedelta(days=3)).isoformat()
    soon = (date.today() + timedelta(days=400)).isoformat()
    new_task(client, org, project, title="Late one", due_date=late)
    new_task(client, org, project, title="Later one", due_date=soon)
    new_task(client, org, project, title="Late but done", due_date=late,
             state_id=by_cat["completed"]["id"])  # fmt: skip
    _open(page, live_server, org, project, "?view=board")
    due = page.locator(".board-card", has_text="Late one").locator(".due")
    expect(due).to_have_text(re.compile(r"^Overdue · "))
    assert due.evaluate("el => getComputedStyle(el).color") == "rgb(197, 48, 48)"
    later = page.locator(".board-card", has_text="Later one").locator(".due")
    expect(later).to_have_text(re.compile(r"^Due \d{1,2} \w{3} \d{4}$"))  # "27 Nov 2026"
    done = page.locator(".board-card", has_text="Late but done").locator(".due")
    expect(done).to_have_text(re.compile(r"^Due "))


@pytest.mark.parametrize("width", [1440, 390])
def test_the_board_passes_axe_at_desktop_and_phone_width(browser, live_server, board, width):
    org, project, _, _ = board
    client = live_server.app.test_client()
    login(client, org.owner_email)
    new_task(client, org, project, title="Late one", due_date="2020-01-02")
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        _open(page, live_server, org, project, "?view=board")
        _ready(page)
        assert axe_problems(page) == []
        _card(page, "WEB-1").focus()
        page.keyboard.press("Enter")
        expect(page.get_by_role("dialog")).to_be_visible()
        assert axe_problems(page) == []
        assert page.locator("html").evaluate("el => el.scrollWidth") <= width
    finally:
        context.close()


def test_search_pql_and_sort_on_the_list(page, live_server, board):
    org, project, _, _ = board
    _open(page, live_server, org, project)
    rows = page.locator("#task-rows tr[data-task-key]")
    expect(rows).to_have_count(4)
    page.locator("#task-filter-box > summary").click()  # folded until a filter is on
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


@pytest.mark.parametrize("width", [1280, 390])
def test_a_new_task_is_counted_and_the_list_fits_the_screen(browser, live_server, board, width):
    """The count above the list follows a task added from the New task form (it stayed
    at the old figure until a reload), and the list needs no sideways scroll: ten
    columns beside the side nav at 1280 px, a row wrapped under its title at 390 px."""
    org, project, _, _ = board
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        _open(page, live_server, org, project)
        count = page.locator("#task-count")
        expect(count).to_have_text("4 tasks")
        page.locator("#task-form-box > summary").click()
        # A title without a space (a pasted URL, a log line) wraps in its cell.
        page.get_by_label("Task title").fill("Epsilon_export_" + "x" * 400)
        page.get_by_role("button", name="Add task").click()
        expect(page.locator("#task-rows tr[data-task-key]")).to_have_count(5)
        key = page.locator("#task-rows tr[data-task-key]").first.get_attribute("data-task-key")
        expect(count).to_have_text(f"5 tasks · {key} added")
        card = page.locator(".table-wrap", has=page.locator("#task-table"))
        fits = page.evaluate(
            "el => [el.scrollWidth <= el.clientWidth + 1,"
            " document.documentElement.scrollWidth <= innerWidth]",
            card.element_handle(),
        )
        assert fits == [True, True], fits
    finally:
        context.close()


def test_a_refused_new_task_says_why_beside_the_form_and_keeps_the_title(page, live_server, board):
    """A title the service refuses comes back in the form, open, with the message and
    the focus on the title; it was a toast at the top of the page."""
    org, project, _, _ = board
    _open(page, live_server, org, project)
    page.locator("#task-form-box > summary").click()
    title = page.get_by_label("Task title")
    title.fill("   ")
    page.locator("#new-task-priority").select_option("high")
    page.get_by_role("button", name="Add task").click()
    expect(page.locator("#task-form-error")).to_have_text("Title: This field is required.")
    expect(page.locator("#new-task-priority")).to_have_value("high")  # kept with it
    title = page.get_by_label("Task title")
    expect(title).to_have_attribute("aria-invalid", "true")
    expect(title).to_be_focused()
    expect(page.locator("#task-rows tr[data-task-key]")).to_have_count(4)
    # Corrected, the same form adds the task.
    title.fill("Epsilon export")
    page.get_by_role("button", name="Add task").click()
    expect(page.locator("#task-rows tr[data-task-key]")).to_have_count(5)
    expect(page.locator("#task-form-error")).to_have_count(0)
