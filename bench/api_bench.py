"""What the analytics-over-time benches share (bench/analytics_time.py, flow.py,
forecast.py): the app in-process with an API token for the loaded data's biggest org,
the hour-grouping their independent baselines use, and the run over each database."""

from __future__ import annotations

import argparse
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from best_sql import Context
from common import biggest_org, data_arguments, database_version, datasets, header


@dataclass
class ApiBench:
    app: Any
    client: Any
    org_id: uuid.UUID
    rows: int
    tz: ZoneInfo
    ctx: Context
    version: str
    headers: dict[str, str]

    def get(self, path: str, query: dict[str, Any]) -> dict[str, Any]:
        """``GET /api/v1/orgs/<org>/analytics/<path>``; anything but a 200 stops the run."""
        resp = self.client.get(
            f"/api/v1/orgs/{self.org_id}/analytics/{path}", query_string=query, headers=self.headers
        )
        assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
        return resp.get_json()

    def close(self) -> None:
        from workspace.extensions import db

        with self.app.app_context():
            db.engine.dispose()


def open_api(url: str, instance: str, label: str) -> ApiBench:
    """The app on ``url`` (rate limits off) with a fresh API token of the biggest org's
    owner, named ``bench <label> …``."""
    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app
    from workspace.auth.api_tokens import create_token
    from workspace.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
    with app.app_context():
        org, rows, owner, first_project = biggest_org()
        _, token = create_token(owner, org, f"bench {label} {uuid.uuid4().hex[:6]}")
        db.session.commit()
        tz = ZoneInfo(org.timezone or "UTC")
        ctx = Context(dialect=db.engine.dialect.name, org_id=org.id, tz=tz,
                      first_project=first_project)  # fmt: skip
        with db.engine.connect() as conn:
            version = database_version(conn)
        return ApiBench(app, app.test_client(), org.id, rows, tz, ctx, version,
                        {"Authorization": f"Bearer {token}"})  # fmt: skip


def utc_hour(ctx: Context, column: str) -> str:
    """SQL for ``column``'s UTC hour, the grain the baselines group by."""
    return {"sqlite": f"substr({column}, 1, 13)", "postgresql": f"date_trunc('hour', {column})"}[
        ctx.dialect
    ]


def as_utc(hour: Any) -> datetime:
    """A :func:`utc_hour` value as an aware datetime (SQLite gives text)."""
    if isinstance(hour, str):
        return datetime.strptime(hour, "%Y-%m-%d %H").replace(tzinfo=UTC)
    return hour.replace(tzinfo=UTC)


def run(script: str, prefix: str, measure: Callable[[str, str, int], list[str]]) -> None:
    """A bench's ``main``: the data options and ``--runs``, then ``measure`` per database."""
    import __main__

    parser = argparse.ArgumentParser(description=(__main__.__doc__ or script).split("\n")[0])
    data_arguments(parser)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    report = [header(script, args)]
    print(report[0], flush=True)
    for backend, url, instance, _loaded in datasets(args, prefix):
        lines = measure(url, instance, args.runs)
        report += ["", f"{backend}: {lines[0]}", *lines[1:]]
    print("\n" + "\n".join(report))
