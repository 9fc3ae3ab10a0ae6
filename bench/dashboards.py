"""Dashboard compute and PDF benchmark (not a test): a 12-widget dashboard against one
widget, and the same twelve rendered as a PDF (cold and warm) against the HTML export.

Loads N tasks (default 1,000,000) with ``flask bench-data`` into a fresh SQLite file
and/or a fresh PostgreSQL database, saves two dashboards in the biggest org (~60% of
the rows): one widget, and twelve widgets over all five dimensions, the three metrics,
a project scope and PQL filters. It prints, per backend, the median compute time and
the number of SQL statements of one compute (counted with a SQLAlchemy
``before_cursor_execute`` listener), and the same twelve widgets computed one by one
through ``rollups.custom_chart`` (the analytics custom chart, no sharing) for scale.
Then the PDF of the twelve widgets (needs Chromium): cold (the chart renderer's
Chromium starts), warm (median), the chart drawing alone, the printable HTML export
of the same figures as the baseline, and compute + PDF end to end, with the ratios.

    .venv/bin/python bench/dashboards.py                   # 1M tasks, both databases
    .venv/bin/python bench/dashboards.py --tasks 50000     # a quick check
    .venv/bin/python bench/dashboards.py --keep /tmp/bench            # keep the data
    .venv/bin/python bench/dashboards.py --keep /tmp/bench --reuse    # measure again

``--keep DIR`` lays the data out as bench/analytics.py and bench/paint.py do, so any
of them can ``--reuse`` what another loaded.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from common import biggest_org, data_arguments, datasets, header, save_twelve
from sqlalchemy import create_engine, event, text


class StatementCounter:
    def __init__(self, engine) -> None:
        self.engine, self.count = engine, 0

    def _on(self, *_args) -> None:
        self.count += 1

    def __enter__(self) -> StatementCounter:
        event.listen(self.engine, "before_cursor_execute", self._on)
        return self

    def __exit__(self, *_exc) -> None:
        event.remove(self.engine, "before_cursor_execute", self._on)


def measure(engine, fn: Callable[[], object], repeat: int) -> tuple[float, int]:
    """Median milliseconds over ``repeat`` warm runs, and statements of one run."""
    fn()  # warm caches and the compiled-statement cache
    times = []
    with StatementCounter(engine) as counter:
        for _ in range(repeat):
            started = time.perf_counter()
            fn()
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), counter.count // repeat


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def computed(dashboard, org, owner_id, view_filter: str | None = None) -> list:
    """Every widget of ``dashboard``, as one request of the page computes them."""
    from workspace.analytics.dashboards.query import DashboardQuery, specs

    query = DashboardQuery(org, owner_id, dashboard.pql_filter, view_filter)
    return query.compute(specs(dashboard))


def pdf_render(app, dashboard, org, owner_id, compute_ms: float, repeat: int) -> None:
    """The twelve widgets as a PDF: cold (Chromium starts), then warm (the renderer
    kept between requests), rendering only, from figures computed once; against the
    printable HTML export of the same figures and the SQL compute, in the same run."""
    from workspace.analytics.dashboards import export, pdf_charts
    from workspace.analytics.dashboards.present import present

    if not pdf_charts.pdf_available():
        print("  PDF: skipped (no Chromium: install chromium or set BROWSER_PATH)")
        return
    with app.test_request_context():
        views = [present(r) for r in computed(dashboard, org, owner_id)]
        charts = sum(1 for v in views if v.figure is not None)
        pdf_charts.renderer.stop()
        cold = timed(lambda: export.render_pdf(dashboard, views, None))
        warm = statistics.median(
            timed(lambda: export.render_pdf(dashboard, views, None)) for _ in range(repeat)
        )
        figures = [(v.figure, *export.chart_size(v)) for v in views if v.figure is not None]
        drawing = statistics.median(
            timed(lambda: export.chart_svgs(figures)) for _ in range(repeat)
        )
        export.render_html(dashboard, views, None)  # warm the inlined scripts
        html = statistics.median(
            timed(lambda: export.render_html(dashboard, views, None)) for _ in range(repeat)
        )
        end_to_end = statistics.median(
            timed(
                lambda: export.render_pdf(
                    dashboard,
                    [present(r) for r in computed(dashboard, org, owner_id)],
                    None,
                )
            )
            for _ in range(repeat)
        )
    print(f"  12-widget PDF ({charts} charts), cold  {cold:9.1f} ms  (Chromium starts)")
    print(f"  12-widget PDF, warm              {warm:9.1f} ms  (median of {repeat})")
    print(f"    of which {charts} charts drawn        {drawing:9.1f} ms  (one batch)")
    print(f"  12-widget HTML export (baseline) {html:9.1f} ms")
    print(f"  12-widget compute + PDF, warm    {end_to_end:9.1f} ms")
    print(
        f"  PDF warm / HTML export = {warm / html:.1f}x, PDF warm / SQL compute = "
        f"{warm / compute_ms:.2f}x, cold / warm = {cold / warm:.1f}x",
        flush=True,
    )


def run(url: str, instance: str, repeat: int) -> None:
    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app
    from workspace.analytics import rollups
    from workspace.analytics.dashboards import service, widgets
    from workspace.analytics.pql import compile_pql
    from workspace.analytics.scope import make_scope
    from workspace.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        org, rows, owner, first_project = biggest_org()
        owner_id = owner.id
        one = service.create_dashboard(org, owner_id, "bench one")
        widgets.add_widget(one, org, owner_id, {"title": "Status"})
        twelve = save_twelve(org, owner_id, first_project)
        db.session.commit()
        print(f"  org {org.slug}: {rows} task rows", flush=True)

        def naive() -> None:
            for w in twelve.widgets:
                scope = make_scope(org, w.project_id)
                conds = [compile_pql(w.filter, org.id, owner_id, scope=scope)] if w.filter else []
                rollups.custom_chart(scope, w.metric, w.dimension, conds)

        results = {
            "1 widget": measure(db.engine, lambda: computed(one, org, owner_id), repeat),
            "12 widgets (shared)": measure(
                db.engine, lambda: computed(twelve, org, owner_id), repeat
            ),
            "12 widgets + view filter": measure(
                db.engine,
                lambda: computed(twelve, org, owner_id, "priority != none"),
                repeat,
            ),
            "12 custom charts, one by one": measure(db.engine, naive, repeat),
        }
        for label, (ms, statements) in results.items():
            print(f"  {label:<30} {ms:9.1f} ms  {statements:3d} SQL statements", flush=True)
        pdf_render(app, twelve, org, owner_id, results["12 widgets (shared)"][0], repeat)
        service.delete_dashboard(one, owner_id)
        service.delete_dashboard(twelve, owner_id)
        db.session.commit()
        db.engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    data_arguments(parser)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(header("dashboards.py", args), flush=True)
    for backend, url, instance, loaded in datasets(args, "bench-dashboards-"):
        if loaded and backend == "postgresql":
            # A live database is vacuumed: without the visibility map (of the
            # rollups too) PostgreSQL cannot use index-only scans.
            vacuum = create_engine(url, isolation_level="AUTOCOMMIT")
            with vacuum.connect() as conn:
                conn.execute(text("VACUUM ANALYZE"))
            vacuum.dispose()
        run(url, instance, args.repeat)


if __name__ == "__main__":
    main()
