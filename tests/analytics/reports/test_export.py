"""GET /analytics/export.csv: long format, scalars first, project scope, streamed."""

from __future__ import annotations

import csv
import io

from tests.factories import get_json


def read_csv(resp):
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(resp.get_data(as_text=True))))


def test_export_matches_overview_in_long_format(client, dataset):
    resp = client.get(dataset.url("/analytics/export.csv"), headers=dataset.org.headers)
    assert resp.is_streamed
    assert "attachment" in resp.headers["Content-Disposition"]
    rows = read_csv(resp)
    overview = get_json(client, dataset.org, "/analytics/overview")
    assert rows[0] == ["metric", "dimension", "value"]
    assert rows[1:5] == [
        ["total", "", str(overview["total"])],
        ["completed", "", str(overview["completed"])],
        ["completion_rate", "", str(overview["completion_rate"])],
        ["overdue", "", str(overview["overdue"])],
    ]
    buckets = rows[5:]
    # Buckets in workflow order (the JSON object's keys come out sorted).
    order = {
        "category": ["backlog", "unstarted", "started", "completed", "cancelled"],
        "priority": ["urgent", "high", "medium", "low", "none"],
        "kind": ["task", "bug", "feature", "epic"],
    }
    expected = [[m, k, str(overview[f"by_{m}"][k])] for m, keys in order.items() for k in keys]
    assert buckets == expected


def test_export_honors_project_scope(client, dataset):
    project = str(dataset.project_ids[0])
    rows = read_csv(
        client.get(
            dataset.url("/analytics/export.csv"),
            query_string={"project_id": project},
            headers=dataset.org.headers,
        )
    )
    assert rows[1] == [
        "total",
        "",
        str(get_json(client, dataset.org, "/analytics/overview", project_id=project)["total"]),
    ]
    whole = read_csv(client.get(dataset.url("/analytics/export.csv"), headers=dataset.org.headers))
    assert int(rows[1][2]) < int(whole[1][2])
