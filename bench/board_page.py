"""Weight and readiness of a project's board page in headless Chromium (not a test).

Targets (issue 29): at 2,000 tasks the board page is under 150 KB and ready under
500 ms; at 20,000 tasks ready under 800 ms. Before the light board the owner's board
at 2,000 tasks was 566 KB with 321 forms and 2,563 options and took 2.2 s to be ready.

Seeds one org with two projects, 2,000 and 20,000 tasks (bulk rows of
workspace/seed/bulk.py: the demo's mix of states, priorities, assignees among 12
people, due dates, a history per task), serves the app with gunicorn -w 2 on a free
loopback port (bench/common.py), signs the owner in through the sign-in form of
headless Chromium (Playwright) and opens each board: 1 cold visit, then N warm ones
(default 7). Per board it prints the page's bytes (the HTML as sent, uncompressed),
its forms, options and cards, and, in ms since navigation start (median of the warm
visits): the HTML's arrival, DOMContentLoaded, and **ready**: when board.js has made
every card draggable and focusable (its performance mark "board-ready").

Two baselines measured in the same run and the same browser, so the ratios hold
whatever the machine's load:

- *static*: the same board HTML with every script removed, served from memory (no
  server, no JS): what the browser needs just to parse and lay out those cards;
  ``ready / static`` is what the server and board.js add on top;
- *list*: the project's list page (50 rows), the app's other view of the same tasks.

    .venv/bin/python bench/board_page.py                      # SQLite and PostgreSQL
    .venv/bin/python bench/board_page.py --backends sqlite --runs 5
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
from datetime import UTC, date, datetime

from common import (
    flask,
    gunicorn,
    load1,
    machine,
    scratch_database,
    work_dir,
)

SIZES = (2_000, 20_000)
TARGET_KB = 150  # at 2,000 tasks
TARGET_MS = {2_000: 500, 20_000: 800}
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
OWNER = "owner@board-bench.test"
PASSWORD = "bench board password"
PEOPLE = 12

#: Per visit, in ms since navigation start; ``mark`` is board.js's "board-ready" (None
#: on a page without board.js: the baselines).
TIMINGS = """
() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const mark = performance.getEntriesByName("board-ready")[0];
  return {html: nav.responseEnd, dcl: nav.domContentLoadedEventEnd,
          load: nav.loadEventEnd, mark: mark ? mark.startTime : null,
          forms: document.querySelectorAll("form").length,
          options: document.querySelectorAll("option").length,
          cards: document.querySelectorAll(".board-card").length,
          focusable: document.querySelectorAll(".board-card[tabindex]").length};
}
"""


def seed(url: str, instance: str) -> dict[int, str]:
    """The bench org, its owner (with a password) and 12 people, and a project per size
    filled with bulk tasks; the board path of each project by size."""
    os.environ["WORKSPACE_INSTANCE"] = instance
    from sqlalchemy import insert, text

    from workspace import create_app
    from workspace.auth.passwords import set_password
    from workspace.core import accounts, orgs, projects
    from workspace.core.models import Task, TaskActivity
    from workspace.extensions import db
    from workspace.seed.bulk import generate_tasks, project_shape, write_rows

    def write(task_rows: list[dict], activity_rows: list[dict]) -> None:
        """SQLite: the seed's executemany. PostgreSQL: multi-row INSERTs of 1,000 rows
        with the triggers off for this transaction (the rollups' and the search
        index's per-row work took over ten minutes for 22,000 tasks on a busy machine).
        The board reads the tasks table only; the scratch database is dropped after."""
        if db.engine.dialect.name != "postgresql":
            write_rows(task_rows, activity_rows)
            return
        db.session.execute(text("SET LOCAL session_replication_role = replica"))
        for table, rows in ((Task.__table__, task_rows), (TaskActivity.__table__, activity_rows)):
            for i in range(0, len(rows), 1000):
                db.session.execute(insert(table).values(rows[i : i + 1000]))

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    rng = random.Random(29)
    paths = {}
    with app.app_context():
        owner = accounts.ensure_account(OWNER, "Bench Owner", email_verified=True)
        set_password(owner, PASSWORD)
        org = orgs.create_org("Board Bench", owner)
        people = [owner.id]
        for i in range(PEOPLE - 1):
            person = accounts.ensure_account(
                f"person{i}@board-bench.test", f"Person {i:02d}", email_verified=True
            )
            accounts.add_member(org, person)
            people.append(person.id)
        now = datetime.now(UTC)
        for size in SIZES:
            project = projects.create_project(
                org.id, owner.id, f"Board {size}", identifier=f"B{size // 1000}K"
            )
            shape = project_shape(project, rng, 0, 0, date.today(), actor_id=owner.id)
            task_rows, activity_rows = generate_tasks(rng, shape, size, people, now)
            write(task_rows, activity_rows)
            project.next_sequence = shape.next_sequence
            paths[size] = f"/o/{org.slug}/projects/{project.id}"
        db.session.commit()
        db.engine.dispose()
    return paths


def strip_scripts(html: str) -> str:
    return re.sub(r"<script\b[^>]*>.*?</script>", "", html, flags=re.S | re.I)


def median(samples: list[dict], name: str) -> float:
    return statistics.median(s[name] for s in samples)


def measure(url: str, instance: str, runs: int) -> list[str]:
    from playwright.sync_api import expect, sync_playwright

    paths = seed(url, instance)
    lines = []
    with gunicorn(url, instance) as port, sync_playwright() as pw:
        base = f"http://127.0.0.1:{port}"
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"],
        )  # fmt: skip
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        page.set_default_timeout(120_000)  # a busy machine: slow, not broken
        page.goto(f"{base}/signin")
        page.get_by_label("Email", exact=True).fill(OWNER)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_role("button", name="Sign in", exact=True).click()
        expect(page).not_to_have_url(re.compile(r"/signin"))

        def visit(path: str, wait_ready: bool) -> dict:
            load = load1()
            response = page.goto(base + path)
            assert response is not None and response.status == 200, path
            if wait_ready:
                page.wait_for_function(
                    "() => performance.getEntriesByName('board-ready').length", timeout=60_000
                )
            else:
                page.wait_for_load_state("load")
            return {"load1": load, "bytes": len(response.body()), **page.evaluate(TIMINGS)}

        for size, path in paths.items():
            board_path = f"{path}?view=board"
            visits = [visit(board_path, True) for _ in range(runs + 1)]
            cold, warm = visits[0], visits[1:]
            # The static baseline: the same HTML, no scripts, from memory.
            static_html = strip_scripts(page.content())
            static_path = f"{path}/__static_board"

            def serve(route, body=static_html):
                route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body)

            page.route(base + static_path, lambda route: serve(route))
            static = [visit(static_path, False) for _ in range(runs)]
            listing = [visit(path, False) for _ in range(runs)]
            kb = cold["bytes"] / 1024
            for v in visits:
                # Ready: board.js has initialised and the document is loaded, whichever
                # comes last (board.js is deferred, so it usually runs first).
                v["ready"] = max(v["mark"], v["dcl"])
            ready = median(warm, "ready")
            static_dcl, list_dcl = median(static, "dcl"), median(listing, "dcl")
            target = TARGET_MS[size]
            verdicts = [f"ready {'ok' if ready < target else 'OVER'} (< {target} ms)"]
            if size == 2_000:
                verdicts.append(f"bytes {'ok' if kb < TARGET_KB else 'OVER'} (< {TARGET_KB} KB)")
            load = statistics.median(s["load1"] for s in warm)
            lines += [
                f"board at {size:,} tasks (load {load:.1f}): {kb:.0f} KB, "
                f"{cold['forms']} forms, {cold['options']} options, {cold['cards']} cards "
                f"({cold['focusable']} focusable); " + ", ".join(verdicts),
                f"  ms since navigation start, median of {len(warm)} warm: HTML "
                f"{median(warm, 'html'):.0f}, board.js initialised {median(warm, 'mark'):.0f}, "
                f"DOMContentLoaded {median(warm, 'dcl'):.0f}, ready {ready:.0f} "
                f"(range {min(s['ready'] for s in warm):.0f}-{max(s['ready'] for s in warm):.0f});"
                f" cold: ready {cold['ready']:.0f}",
                f"  baselines: static copy (same cards, no JS, from memory) DOMContentLoaded "
                f"{static_dcl:.0f} ms, ready/static {ready / static_dcl:.1f}x; list page "
                f"({listing[0]['bytes'] / 1024:.0f} KB) DOMContentLoaded {list_dcl:.0f} ms, "
                f"ready/list {ready / list_dcl:.1f}x",
            ]
            page.unroute(base + static_path)
        browser.close()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--runs", type=int, default=7, help="Warm visits after the cold one.")
    args = parser.parse_args()
    report = [f"bench/board_page.py: {machine()}"]
    print(report[0], flush=True)
    with work_dir(None, "bench-board-") as work:
        for backend in args.backends.split(","):
            print(f"{backend}:", flush=True)
            instance = work / f"instance-{backend}"
            instance.mkdir(exist_ok=True)
            with scratch_database(backend, work, args.pg_url, False, False) as (url, _):
                env = {**os.environ, "DATABASE_URL": url, "WORKSPACE_INSTANCE": str(instance)}
                flask(["db", "upgrade", "heads"], env)
                lines = measure(url, str(instance), args.runs)
            for line in lines:
                print("  " + line, flush=True)
            report += ["", f"{backend}:", *lines]
    print("\n" + "\n".join(report))


if __name__ == "__main__":
    main()
