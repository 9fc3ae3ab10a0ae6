"""The classes of disagreement schemathesis found between the OpenAPI document and the
API, each checked deterministically over the whole document (the fuzzer may or may not
draw the one value that shows them; docs/security.md "API contract")."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import World
from tests.api.contract import body_schema, operations, types, url, validator
from tests.factories import login


def _doc(client) -> dict:
    return client.get("/api/v1/openapi.json").get_json()


def _refs(node: Any):
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _fields(resp) -> set[str]:
    problem = resp.get_json() if resp.status_code in (400, 422) else None
    return {e["field"] for e in (problem or {}).get("errors") or []}


def test_every_reference_resolves(client):
    """A query parameter's enum used to point at ``#/$defs/...``, which is no part of
    an OpenAPI document: every reference names one of its components."""
    doc = _doc(client)
    refs = set(_refs(doc))
    assert refs, "the document uses components"
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.rsplit("/", 1)[1] in doc["components"]["schemas"], ref


def test_no_text_a_request_carries_may_hold_nul(client, world: World):
    """The request guard refuses a NUL anywhere (PostgreSQL cannot store one), so the
    document refuses it too: in every text of a body or a query, and in the keys and
    strings of a value a model takes as any JSON (a widget's settings)."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    checked, offenders = 0, []
    for path, method, op in operations(doc):
        body = body_schema(doc, op) or {}
        for name, prop in body.get("properties", {}).items():
            if "string" in types(prop):
                wrong: Any = "a\x00b"
            elif "JsonValue" in str(prop):
                wrong = {"a\x00b": ["c"]}
            else:
                continue
            checked += 1
            if validator(doc, prop).is_valid(wrong):
                offenders.append(f"document: {method.upper()} {path} {name}")
            resp = client.open(
                url(path, ids), method=method.upper(), json={name: wrong}, headers=org.headers
            )
            if resp.status_code != 400 or name not in _fields(resp):
                offenders.append(f"API: {method.upper()} {path} {name} {resp.status_code}")
        for param in op.get("parameters", []):
            if param["in"] != "query" or "string" not in types(param["schema"]):
                continue
            checked += 1
            if validator(doc, param["schema"]).is_valid("a\x00b"):
                offenders.append(f"document: {method.upper()} {path} ?{param['name']}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 100


#: What pydantic alone would take: text for an integer, a number (or its digits as
#: text, read as seconds since 1970) for a date.
_WRONG_TYPE = {"integer": ["5"], "date": [0, "0"], "date-time": [0, "0"]}


def _kind(prop: dict) -> str | None:
    for option in prop.get("anyOf", [prop]):
        if option.get("type") == "integer":
            return "integer"
        if option.get("format") in ("date", "date-time"):
            return option["format"]
    return None


def test_a_json_body_is_read_with_json_types(client, world: World):
    """``{"due_date": 0}`` and ``{"start_date": "0"}`` used to be taken as 1970-01-01
    and ``{"top_n": "5"}`` as 5: a JSON body is read with the document's types and
    formats, so a number is no date and text no integer (HTML forms still send text,
    which their model converts); a query's date is a date too."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    checked, offenders = 0, []
    for path, method, op in operations(doc):
        body = body_schema(doc, op) or {}
        for name, prop in body.get("properties", {}).items():
            kind = _kind(prop)
            for wrong in _WRONG_TYPE.get(kind or "", []):
                assert not validator(doc, prop).is_valid(wrong), (path, name, prop)
                resp = client.open(
                    url(path, ids), method=method.upper(), json={name: wrong}, headers=org.headers
                )
                checked += 1
                if resp.status_code != 400 or name not in _fields(resp):
                    offenders.append(f"{method.upper()} {path} {name}={wrong!r}: {resp}")
        for param in op.get("parameters", []):
            if param["in"] != "query" or _kind(param["schema"]) not in ("date", "date-time"):
                continue
            resp = client.open(
                url(path, ids),
                method=method.upper(),
                query_string={param["name"]: "0"},
                headers=org.headers,
            )
            checked += 1
            if resp.status_code != 400 or param["name"] not in _fields(resp):
                offenders.append(f"{method.upper()} {path} ?{param['name']}: {resp.status_code}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 15  # due_date, start_date, end_date, position, top_n, since, ...


def test_a_whole_number_written_with_a_point_is_an_integer(client, world: World):
    """JSON Schema counts ``46.0`` as an integer, and so does the API."""
    org, ids = world.org, world.ids
    resp = client.post(
        org.url(f"/dashboards/{ids['dashboard_id']}/widgets"),
        json={"title": "Top", "top_n": 46.0},
        headers=org.headers,
    )
    assert resp.status_code == 201, resp.get_json()
    assert resp.get_json()["top_n"] == 46


def test_a_refusal_by_the_service_is_422_and_by_the_model_400(client, world: World):
    """400 says the request breaks the document (the input model refused it); a
    request the document calls valid that the service refuses on its meaning is 422.
    HTML pages answer the same refusals with 400 as before."""
    org, ids = world.org, world.ids
    tasks = org.url(f"/projects/{ids['project_id']}/tasks")
    resp = client.get(tasks, query_string={"pql": "priority ="}, headers=org.headers)
    assert resp.status_code == 422 and "pql" in _fields(resp), resp.get_json()
    other = client.post(
        org.url("/projects"), json={"name": "Other", "identifier": "OTH"}, headers=org.headers
    ).get_json()
    states = client.get(org.url(f"/projects/{other['id']}/states"), headers=org.headers)
    foreign_state = states.get_json()[0]["id"]
    resp = client.post(tasks, json={"title": "T", "state_id": foreign_state}, headers=org.headers)
    assert resp.status_code == 422 and "state_id" in _fields(resp), resp.get_json()
    resp = client.post(org.url("/domains"), json={"domain": "no dots"}, headers=org.headers)
    assert resp.status_code == 422 and "domain" in _fields(resp), resp.get_json()
    resp = client.post(tasks, json={"title": "T" * 501}, headers=org.headers)
    assert resp.status_code == 400 and "title" in _fields(resp), resp.get_json()
    login(client, org.owner_email)
    page = client.post(f"/o/{org.slug}/settings/domains", data={"domain": "no dots"})
    assert page.status_code == 400


def test_a_field_the_api_needs_is_required_in_the_document(client, world: World):
    """``POST /domains`` and ``PUT /sso`` used to take ``{}`` in the document while the
    service refused it (it words what to enter): where ``{}`` is refused naming a field,
    the document refuses ``{}`` too."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    checked, offenders = 0, []
    for path, method, op in operations(doc):
        body = body_schema(doc, op)
        if body is None:
            continue
        resp = client.open(url(path, ids), method=method.upper(), json={}, headers=org.headers)
        if not _fields(resp):
            continue
        checked += 1
        if validator(doc, body).is_valid({}):
            offenders.append(f"{method.upper()} {path}: {resp.status_code} {_fields(resp)}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 15


def test_a_widget_top_n_is_the_range_the_document_says(client, world: World):
    """``top_n`` was typed "any" while the service refused ``0``: the document now says
    an integer from 1 to 50, or null, and the API takes exactly that."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    prop = doc["components"]["schemas"]["WidgetIn"]["properties"]["top_n"]
    widgets = org.url(f"/dashboards/{ids['dashboard_id']}/widgets")
    for value in (1, 50, None, 0, 51, 2.5, "5"):
        valid = validator(doc, prop).is_valid(value)
        resp = client.post(widgets, json={"title": "T", "top_n": value}, headers=org.headers)
        assert valid == (resp.status_code == 201), (value, valid, resp.get_json())
        assert valid == (value in (1, 50, None)), (value, prop)


def test_a_body_that_is_no_json_object_is_400_where_a_view_reads_it_itself(client, world):
    """``POST /ldap/test`` reads its optional body in the view: malformed JSON there is
    the request's fault (400), not a refusal on its meaning (422)."""
    org = world.org
    headers = {**org.headers, "Content-Type": "application/json"}
    for body in ("{not json", "[1, 2]"):
        resp = client.post(org.url("/ldap/test"), data=body, headers=headers)
        assert resp.status_code == 400 and "body" in _fields(resp), resp.get_json()


def test_a_text_is_as_long_as_it_was_sent(client, world: World):
    """The models strip whitespace before they count characters, so 100 characters and
    a leading space used to pass a 100-character limit the document says the text
    breaks: the length is counted as sent, in bodies and query strings."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    checked, offenders = 0, []
    for path, method, op in operations(doc):
        body = body_schema(doc, op) or {}
        for name, prop in body.get("properties", {}).items():
            limit = next((o.get("maxLength") for o in prop.get("anyOf", [prop])), None)
            if limit is None:
                continue
            padded = " " + "x" * limit
            resp = client.open(
                url(path, ids), method=method.upper(), json={name: padded}, headers=org.headers
            )
            checked += 1
            if resp.status_code != 400 or name not in _fields(resp):
                offenders.append(f"{method.upper()} {path} {name}: {resp.status_code}")
        for param in op.get("parameters", []):
            schema = param["schema"]
            limit = next((o.get("maxLength") for o in schema.get("anyOf", [schema])), None)
            if param["in"] != "query" or limit is None:
                continue
            resp = client.open(
                url(path, ids),
                method=method.upper(),
                query_string={param["name"]: " " + "x" * limit},
                headers=org.headers,
            )
            checked += 1
            if resp.status_code != 400 or param["name"] not in _fields(resp):
                offenders.append(f"{method.upper()} {path} ?{param['name']}: {resp.status_code}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 50


def _uuid_option(schema: dict) -> dict | None:
    for option in schema.get("anyOf", [schema]):
        if option.get("format") == "uuid" or option.get("items", {}).get("format") == "uuid":
            return option
    return None


def test_an_id_is_spelt_as_the_document_says(client, world: World):
    """Python reads an id as 32 bare hex digits, in braces or after ``urn:uuid:``;
    the document's ``"format": "uuid"`` does not, and neither does the API."""
    org, ids = world.org, world.ids
    doc = _doc(client)
    bare = "0" * 32
    checked, offenders = 0, []
    for path, method, op in operations(doc):
        body = body_schema(doc, op) or {}
        for name, prop in body.get("properties", {}).items():
            option = _uuid_option(prop)
            if option is None:
                continue
            many = option.get("type") == "array"
            resp = client.open(
                url(path, ids),
                method=method.upper(),
                json={name: [bare] if many else bare},
                headers=org.headers,
            )
            checked += 1
            field = f"{name}.0" if many else name
            if resp.status_code != 400 or field not in _fields(resp):
                offenders.append(f"{method.upper()} {path} {name}: {resp.status_code}")
        for param in op.get("parameters", []):
            if param["in"] != "query" or _uuid_option(param["schema"]) is None:
                continue
            resp = client.open(
                url(path, ids),
                method=method.upper(),
                query_string={param["name"]: bare},
                headers=org.headers,
            )
            checked += 1
            if resp.status_code != 400 or param["name"] not in _fields(resp):
                offenders.append(f"{method.upper()} {path} ?{param['name']}: {resp.status_code}")
    assert not offenders, "\n".join(offenders)
    assert checked >= 20


def test_a_pattern_holds_for_the_text_as_sent(client, world: World):
    """A state's colour is ``#`` and six hex digits; with a space before it the model
    used to strip it and take it."""
    org, ids = world.org, world.ids
    states = org.url(f"/projects/{ids['project_id']}/states")
    body = {"name": "Review", "category": "started", "color": " #aabbcc"}
    resp = client.post(states, json=body, headers=org.headers)
    assert resp.status_code == 400 and "color" in _fields(resp), resp.get_json()
