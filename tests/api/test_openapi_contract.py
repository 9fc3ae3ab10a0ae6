"""Schemathesis over the whole OpenAPI document, every operation, every check.

Not only "no 5xx": what the document promises and what the implementation does must
agree — fields declared nullable take null, booleans are JSON booleans (``0`` is not
one), every status code the API can answer is declared, a method the document does not
list answers 405 with an ``Allow`` header, and an operation that declares bearer auth
refuses a request without one (schemathesis sends a real owner token and strips it).

Positive and negative data, the examples, coverage and fuzzing phases, all default
checks. The ids in URLs point at real objects of one org so cases reach validation and
the services, not just the 404 of an unknown id. Bounded to a few examples per
operation so the run stays short; it runs on each configured backend (see
docs/security.md "API contract").
"""

from __future__ import annotations

import re

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, settings
from schemathesis.checks import load_all_checks
from schemathesis.pytest.lazy import get_all_tests

from tests.api.contract import INPUT_MODEL_REFUSALS, call_and_validate, load_schema
from tests.conftest import OrgFixture
from tests.factories import create_project

SETTINGS = settings(
    max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture
def contract_org(client, acme: OrgFixture) -> tuple[OrgFixture, dict[str, str]]:
    project = create_project(client, acme)
    task = client.post(
        acme.url(f"/projects/{project['id']}/tasks"), json={"title": "T"}, headers=acme.headers
    ).get_json()
    dashboard = client.post(
        acme.url("/dashboards"), json={"name": "D"}, headers=acme.headers
    ).get_json()
    widget = client.post(
        acme.url(f"/dashboards/{dashboard['id']}/widgets"),
        json={"title": "W", "chart_type": "pie"},
        headers=acme.headers,
    ).get_json()
    ids = {
        "org_id": str(acme.org_id),
        "project_id": project["id"],
        "task_id": task["id"],
        "dashboard_id": dashboard["id"],
    }
    if "id" in widget:
        ids["widget_id"] = widget["id"]
    return acme, ids


def test_api_does_what_its_document_says(app, contract_org):
    org, ids = contract_org
    schema = load_schema(app, org.headers, ids)
    load_all_checks()

    def call(case):
        call_and_validate(case, org.headers)

    failures = []
    operations = 0
    # The same per-operation Hypothesis tests (examples, coverage and fuzzing phases) the
    # schemathesis pytest plugin builds; its lazy-fixture wrapper does not run on pytest 9.
    for result in get_all_tests(schema=schema, test_func=call, settings=SETTINGS, given_kwargs={}):
        operation, run = result.ok()
        operations += 1
        try:
            run()
        except (AssertionError, BaseExceptionGroup) as exc:  # collect every operation's
            failures.append(f"{operation.label}: {exc}")
    assert operations >= 70
    assert not failures, "\n\n".join(failures)


# The classes of disagreement the fuzzer found, checked deterministically over the
# whole document (the fuzzer may or may not draw the one value that shows them).

METHODS = {"get", "put", "post", "delete", "patch"}


def _operations(doc):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            yield path, method, op


def _url(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    # An id with no object behind it still routes: 405 comes before any lookup.
    return re.sub(r"{\w+_id}", "00000000-0000-4000-8000-000000000000", path)


def _body_schema(doc, op):
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = schema.get("schema", {}).get("$ref")
    return doc["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else None


def _types(prop) -> set[str]:
    options = prop.get("anyOf", [prop])
    return {option.get("type") for option in options}


def _refuses(client, org, path, method, ids, name) -> bool:
    resp = client.open(_url(path, ids), method=method.upper(), json={}, headers=org.headers)
    errors = resp.get_json().get("errors", []) if resp.status_code == 400 else []
    return name in {e["field"] for e in errors}


def test_a_method_the_document_does_not_list_is_405_with_allow(client, contract_org):
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, item in doc["paths"].items():
        if "{name}" in path:
            continue
        documented = set(item)
        for method in sorted(METHODS - documented):
            resp = client.open(_url(path, ids), method=method.upper(), headers=org.headers)
            assert resp.status_code == 405, (method, path, resp.status_code)
            assert resp.mimetype == "application/problem+json"
            allow = {m.strip().lower() for m in resp.headers.get("Allow", "").split(",")}
            assert documented <= allow <= documented | {"head", "options"}, (path, allow)


def test_a_boolean_field_takes_only_true_or_false(client, contract_org):
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    checked = 0
    for path, method, op in _operations(doc):
        body = _body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "boolean" not in _types(prop):
                continue
            for wrong in (0, 1, "yes", "true"):
                resp = client.open(
                    _url(path, ids), method=method.upper(), json={name: wrong}, headers=org.headers
                )
                assert resp.status_code == 400, (method, path, name, wrong, resp.get_json())
                fields = {e["field"] for e in resp.get_json().get("errors", [])}
                assert name in fields, (method, path, name, wrong, resp.get_json())
                checked += 1
    assert checked >= 4 * 5  # archived, enabled, sync_groups_on_login, use_tls, ...


def test_a_field_declared_nullable_takes_null(client, contract_org):
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    checked = 0
    offenders = []
    for path, method, op in _operations(doc):
        body = _body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "null" not in _types(prop):
                continue
            resp = client.open(
                _url(path, ids), method=method.upper(), json={name: None}, headers=org.headers
            )
            checked += 1
            if resp.status_code >= 500:
                offenders.append(f"{method.upper()} {path} {name}: {resp.status_code}")
                continue
            if resp.status_code != 400:
                continue
            problem = resp.get_json()
            refused = {e["field"] for e in problem.get("errors", [])}
            # Other required fields may be missing; this one must not be the culprit,
            # unless leaving it out is refused the same way (null reads as absent).
            if name in refused and not _refuses(client, org, path, method, ids, name):
                offenders.append(f"{method.upper()} {path} {name}: {problem['detail']}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 10


def test_text_the_model_refuses_as_blank_is_invalid_in_the_document(client, contract_org):
    """The input models strip whitespace before they count characters: where that makes
    ``"  "`` too short, the document's schema refuses it too."""
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    checked, offenders = 0, []
    for path, method, op in _operations(doc):
        body = _body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "string" not in _types(prop) or "$ref" in str(prop):
                continue
            resp = client.open(
                _url(path, ids), method=method.upper(), json={name: "  "}, headers=org.headers
            )
            problem = resp.get_json() if resp.status_code == 400 else {}
            if problem.get("detail") not in INPUT_MODEL_REFUSALS:
                continue
            if name not in {e["field"] for e in problem.get("errors", [])}:
                continue
            checked += 1
            if jsonschema_rs.validator_for(prop, validate_formats=True).is_valid("  "):
                offenders.append(f"{method.upper()} {path} {name}: {prop}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 10


def test_every_authenticated_operation_declares_429(client):
    """An address that sent too many wrong tokens gets 429 for the next wrong one."""
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, method, op in _operations(doc):
        if op.get("security") == []:
            continue
        assert {"401", "429"} <= set(op["responses"]), (method, path)
