"""Schemathesis walks the OpenAPI document and fuzzes every operation in-process.

Whatever it sends, the API must never answer 5xx, and what it answers must match
the document (status codes, content types, response schemas).
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import checks

from tests.factories import create_project

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


@pytest.fixture
def fuzz_org(client, acme):
    project = create_project(client, acme)
    task = client.post(
        acme.url(f"/projects/{project['id']}/tasks"), json={"title": "T"}, headers=acme.headers
    ).get_json()
    return acme, {"project_id": project["id"], "task_id": task["id"]}


def test_api_never_fails_on_generated_input(app, fuzz_org):
    org, ids = fuzz_org
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 25

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck)
        )
        def fuzz(case):
            # Point cases at real objects so fuzzing reaches validation, not just 404.
            if "org_id" in (case.path_parameters or {}):
                case.path_parameters["org_id"] = str(org.org_id)
            for name, value in ids.items():
                if name in (case.path_parameters or {}):
                    case.path_parameters[name] = value
            case.call_and_validate(headers=org.headers, checks=CHECKS)

        fuzz()


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
