"""Time series benchmark (docs/analytics.md#time): completed per week over a year,
created per day over 90 days and completed per week by project, whole biggest org,
through the API, against an independent SQL baseline.

The baseline has another shape on purpose: one GROUP BY of the UTC hour in SQL, folded
into the org's local buckets in Python (exact for zones a whole number of hours off
UTC, which the bench data's orgs are; the product cuts at each local midnight). The
answers are compared before timing; a mismatch is printed as a miss.

    .venv/bin/python bench/analytics_time.py --tasks 200000
    .venv/bin/python bench/analytics_time.py --keep /tmp/bench --reuse   # bench/analytics.py's data
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from api_bench import as_utc, open_api, run, utc_hour
from best_sql import Context
from common import load1, median_ms
from sqlalchemy import text

TARGET_MS = 50
FIGURES = {
    "completed per week, a year": {
        "dimension": "completed",
        "interval": "week",
        "metric": "done",
        "weeks": 52,
    },
    "created per day, 90 days": {"dimension": "created", "interval": "day", "days": 90},
    "completed per week by project, a year": {
        "dimension": "completed",
        "interval": "week",
        "metric": "done",
        "weeks": 52,
        "split": "project",
    },
}


def _baseline(ctx: Context, conn, tz: ZoneInfo, figure: dict, first: date, last: date):
    """``{bucket start: count}`` by the hour-grouped statement, folded in Python."""
    from workspace.analytics.time_series import bucket_start

    column = "t.created_at" if figure["dimension"] == "created" else "t.completed_at"
    extra = " AND t.state_category = 'completed'" if figure["dimension"] == "completed" else ""
    lo = datetime.combine(first, datetime.min.time(), tz).astimezone(UTC)
    hi = datetime.combine(last + timedelta(days=1), datetime.min.time(), tz).astimezone(UTC)
    by = ", t.project_id" if figure.get("split") else ", NULL"
    sql = (
        f"SELECT {utc_hour(ctx, column)} AS h{by} AS p, count(*) FROM tasks t "
        f"WHERE {ctx.counted}{extra} AND {column} >= :lo AND {column} < :hi GROUP BY h, p"
    )
    params = ctx.params(lo=lo, hi=hi)
    counts: Counter[tuple[str, str]] = Counter()
    for h, project, n in conn.execute(text(sql), params):
        day = bucket_start(as_utc(h).astimezone(tz).date(), figure["interval"]).isoformat()
        counts[day, str(uuid.UUID(str(project))) if project else ""] += n
    return counts


def _answer(body: dict) -> Counter[tuple[str, str]]:
    """The API's figures as the baseline folds them: (bucket, project id) -> count."""
    if not body.get("series"):
        return Counter({(p["key"], ""): p["value"] for p in body["points"] if p["value"]})
    keys = [p["key"] for p in body["points"]]
    return Counter(
        {
            (keys[i], line["id"]): n
            for line in body["series"]
            for i, n in enumerate(line["values"])
            if n
        }
    )


def measure(url: str, instance: str, runs: int) -> list[str]:
    from workspace.extensions import db

    bench = open_api(url, instance, "time")
    app, tz, ctx, version, rows = bench.app, bench.tz, bench.ctx, bench.version, bench.rows
    lines = [
        f"{version}; biggest org {rows:,} tasks; median of {runs} warm runs, ms",
        "| figure | load | API | baseline SQL | API/baseline | points | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    today = datetime.now(UTC).astimezone(tz).date()
    for name, figure in FIGURES.items():
        if "weeks" in figure:
            monday = today - timedelta(days=today.weekday())
            first = monday - timedelta(weeks=figure["weeks"] - 1)
        else:
            first = today - timedelta(days=figure["days"] - 1)
        query = {
            "metric": figure.get("metric", "count"),
            "dimension": figure["dimension"],
            "interval": figure["interval"],
            "from": first.isoformat(),
            "to": today.isoformat(),
            **({"split": figure["split"]} if "split" in figure else {}),
        }

        def api(query=query):
            return bench.get("custom", query)

        load = load1()
        body = api()
        answer = {p["key"]: p["value"] for p in body["points"]}
        problems = []
        with app.app_context(), db.engine.connect() as conn:

            def base(figure=figure, first=first, conn=conn):
                result = _baseline(ctx, conn, tz, figure, first, today)
                conn.rollback()
                return result

            expected = base()
            if _answer(body) != expected:
                problems.append("baseline differs")
            base_ms = median_ms(base, runs)
        api_ms = median_ms(api, runs)
        if api_ms > TARGET_MS:
            problems.append(f"API > {TARGET_MS} ms")
        lines.append(
            f"| {name} | {load:.1f} | {api_ms:.0f} | {base_ms:.0f} | {api_ms / base_ms:.2f}x "
            f"| {len(answer)} ({sum(answer.values()):,} tasks) | {'; '.join(problems) or 'ok'} |"
        )
        print("  " + lines[-1], flush=True)
    bench.close()
    return lines


def main() -> None:
    run("analytics_time.py", "bench-time-", measure)


if __name__ == "__main__":
    main()
