"""The OpenAPI document lists the tracker's operations with their input schemas.

Fuzzing every operation against the document (every schemathesis check, positive and
negative data) is tests/api/test_openapi_contract.py; the dashboards have their own,
pointed at a real widget, in tests/analytics/dashboards/test_fuzz.py.
"""

from __future__ import annotations


def test_openapi_document_lists_core_operations(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    paths = doc["paths"]
    assert "post" in paths["/api/v1/orgs/{org_id}/projects/{project_id}/tasks"]
    assert "patch" in paths["/api/v1/orgs/{org_id}/tasks/{task_id}"]
    task_create = paths["/api/v1/orgs/{org_id}/projects/{project_id}/tasks"]["post"]
    body_ref = task_create["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = doc["components"]["schemas"][body_ref.rsplit("/", 1)[1]]
    assert "title" in body["required"]
    assert "400" in task_create["responses"] and "401" in task_create["responses"]
