"""Schemathesis over the whole OpenAPI document, every operation, every check.

Not only "no 5xx": what the document promises and what the implementation does must
agree — a request the document calls valid is not refused as malformed (400), one it
calls invalid is not taken, fields declared nullable take null, every status code the
API can answer is declared, a method the document does not list answers 405 with an
``Allow`` header, an operation that declares bearer auth refuses a request without
one, and what a POST creates can be read, changed and deleted, and is gone after.

Schemathesis's own engine runs it (examples, coverage, fuzzing, then the stateful
phase), over a live server, with every check it has (``load_all_checks``). The ids in
URLs point at real objects of one org, so cases reach validation and the services,
not just the 404 of an unknown id; a DELETE gets objects of its own, and so does the
PDF export (tests/api/conftest.py). The stateful phase pins only the org: its ids come
from what its own POSTs created. Bounded and seeded so CI is quick and reproducible
(docs/security.md "API contract"); ``API_CONTRACT_EXAMPLES`` and ``API_CONTRACT_SEED``
explore further locally, ``API_CONTRACT_REPORT=<file>`` keeps what a run found.
"""

from __future__ import annotations

import os

from tests.api.conftest import World
from tests.api.contract import (
    METHODS,
    body_schema,
    operations,
    run_engine,
    types,
    url,
    validator,
)

#: Examples per operation and phase; the coverage phase adds its own cases.
EXAMPLES = int(os.environ.get("API_CONTRACT_EXAMPLES", "10"))
SEED = int(os.environ.get("API_CONTRACT_SEED", "13"))


def test_api_does_what_its_document_says(live_server, world: World):
    acme, ids = world.org, world.ids
    unit = run_engine(
        live_server.url,
        acme.headers,
        ids,
        examples=EXAMPLES,
        seed=SEED,
        phases=("examples", "coverage", "fuzzing"),
        pinned=world.own,
    )
    stateful = run_engine(
        live_server.url,
        acme.headers,
        {"org_id": ids["org_id"]},
        examples=EXAMPLES,
        seed=SEED,
        phases=("stateful",),
    )
    report = f"unit phases: {unit.report()}\n\nstateful phase: {stateful.report()}"
    if os.environ.get("API_CONTRACT_REPORT"):  # an exploratory run's findings, in full
        with open(os.environ["API_CONTRACT_REPORT"], "a") as out:
            out.write(f"== seed {SEED}, {EXAMPLES} examples\n{report}\n\n")
    assert unit.phases.get("COVERAGE", 0) >= 80, unit.phases
    assert stateful.phases.get("STATEFUL_TESTING", 0) >= 1, stateful.phases
    assert not unit.findings, unit.report()
    assert not stateful.findings, stateful.report()


# The classes of disagreement the fuzzer found, checked deterministically over the
# whole document (the fuzzer may or may not draw the one value that shows them).


def _refuses(client, org, path, method, ids, name) -> bool:
    resp = client.open(url(path, ids), method=method.upper(), json={}, headers=org.headers)
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
            resp = client.open(url(path, ids), method=method.upper(), headers=org.headers)
            assert resp.status_code == 405, (method, path, resp.status_code)
            assert resp.mimetype == "application/problem+json"
            allow = {m.strip().lower() for m in resp.headers.get("Allow", "").split(",")}
            assert documented <= allow <= documented | {"head", "options"}, (path, allow)


def test_a_boolean_field_takes_only_true_or_false(client, contract_org):
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    checked = 0
    for path, method, op in operations(doc):
        body = body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "boolean" not in types(prop):
                continue
            for wrong in (0, 1, "yes", "true"):
                resp = client.open(
                    url(path, ids), method=method.upper(), json={name: wrong}, headers=org.headers
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
    for path, method, op in operations(doc):
        body = body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "null" not in types(prop):
                continue
            resp = client.open(
                url(path, ids), method=method.upper(), json={name: None}, headers=org.headers
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


def test_text_the_api_refuses_as_blank_is_invalid_in_the_document(client, contract_org):
    """The input models strip whitespace before they count characters, and a service
    may refuse a blank name in its own words (the form shows them by the field): where
    the API refuses ``""`` or ``"  "`` for a text, as the model (400) or the service
    (422), the document refuses it too."""
    org, ids = contract_org
    doc = client.get("/api/v1/openapi.json").get_json()
    checked, offenders = set(), []
    for path, method, op in operations(doc):
        body = body_schema(doc, op)
        for name, prop in (body or {}).get("properties", {}).items():
            if "string" not in types(prop) or "$ref" in str(prop):
                continue
            for blank in ("", "  "):
                resp = client.open(
                    url(path, ids), method=method.upper(), json={name: blank}, headers=org.headers
                )
                problem = resp.get_json() if resp.status_code in (400, 422) else {}
                if name not in {e["field"] for e in problem.get("errors") or []}:
                    continue
                checked.add((method, path, name))
                if validator(doc, prop).is_valid(blank):
                    offenders.append(f"{method.upper()} {path} {name}={blank!r}: {prop}")
    assert not offenders, "\n".join(offenders)
    assert len(checked) >= 20


def test_every_authenticated_operation_declares_429(client):
    """An address that sent too many wrong tokens gets 429 for the next wrong one."""
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, method, op in operations(doc):
        if op.get("security") == []:
            continue
        assert {"401", "429"} <= set(op["responses"]), (method, path)
