"""The OpenAPI 3.1 document, built from the operations the blueprints declared."""

from __future__ import annotations

import re
import typing
from typing import Any

from flask import Flask
from pydantic import BaseModel

from workspace.api.problems import PROBLEM_TYPE

_REF = "#/components/schemas/{model}"
_CONVERTER = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_PARAM_SCHEMAS = {
    "uuid": {"type": "string", "format": "uuid"},
    "int": {"type": "integer"},
    None: {"type": "string"},
    "string": {"type": "string"},
}


#: What ``str.strip`` removes, spelled so every regex dialect reads it alike (Python's,
#: ECMA-262's and Rust's ``\\s`` differ on ``\\x1c``-``\\x1f``).
_SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: Any text without NUL, which the request guard refuses (PostgreSQL cannot store it).
NO_NUL = r"^[^\x00]*$"
#: Text without NUL holding something besides whitespace (the models strip first).
HAS_CONTENT = rf"^[^\x00]*[^\x00{_SPACE}][^\x00]*$"
#: Any JSON value a request may carry where a model takes anything: no NUL in any
#: string or key, at any depth.
JSON_VALUE = "JsonValue"
_JSON_VALUE_SCHEMA = {
    "description": "Any JSON value; no string or key in it holds a NUL character.",
    "anyOf": [
        {"type": ["null", "boolean", "number"]},
        {"type": "string", "pattern": NO_NUL},
        {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
        {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": {"$ref": "#/components/schemas/JsonValue"},
        },
    ],
}
_SCHEMA_KEYWORDS = {"type", "anyOf", "oneOf", "allOf", "not", "$ref", "enum", "const"}


def _string_rules(schema: dict[str, Any]) -> None:
    """No NUL in any text (the request guard refuses it, as PostgreSQL cannot store
    it), and a required text (``minLength`` 1 or more) must hold something besides
    whitespace: the input models strip it before they check a length, so the document
    would otherwise call ``" "`` valid while the model refuses it."""
    if "format" in schema or "enum" in schema or "const" in schema:
        return
    if "pattern" not in schema:
        schema["pattern"] = HAS_CONTENT if schema.get("minLength", 0) >= 1 else NO_NUL
    elif schema["pattern"] not in (NO_NUL, HAS_CONTENT):
        schema.setdefault("allOf", []).append({"pattern": NO_NUL})


def request_schema(schema: Any) -> Any:
    """A request schema as the API checks it: :func:`_string_rules` on every string,
    and :data:`JSON_VALUE` where the model takes any value (a widget's settings)."""
    if not isinstance(schema, dict):
        return schema
    if not _SCHEMA_KEYWORDS & schema.keys() and "properties" not in schema:
        schema["$ref"] = "#/components/schemas/" + JSON_VALUE
        return schema
    if schema.get("type") == "string":
        _string_rules(schema)
    for key in ("properties", "$defs"):
        for sub in schema.get(key, {}).values():
            request_schema(sub)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key, []):
            request_schema(sub)
    for key in ("items", "additionalProperties"):
        request_schema(schema.get(key))
    return schema


class _Components:
    def __init__(self) -> None:
        self.schemas: dict[str, Any] = {
            "Problem": {
                "type": "object",
                "required": ["type", "title", "status", "detail"],
                "properties": {
                    "type": {"type": "string"},
                    "title": {"type": "string"},
                    "status": {"type": "integer"},
                    "detail": {"type": "string"},
                    "errors": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "field": {"type": "string"},
                                "message": {"type": "string"},
                            },
                        },
                    },
                },
            }
        }

    def _schema(self, model: type[BaseModel], mode: str) -> dict[str, Any]:
        schema = model.model_json_schema(ref_template=_REF, mode=mode)
        if mode == "validation":
            request_schema(schema)
            if JSON_VALUE in str(schema):
                self.schemas[JSON_VALUE] = _JSON_VALUE_SCHEMA
        self.schemas.update(schema.pop("$defs", {}))
        return schema

    def ref(self, model: type[BaseModel], mode: str) -> dict[str, str]:
        self.schemas[model.__name__] = self._schema(model, mode)
        return {"$ref": _REF.format(model=model.__name__)}

    def query_parameters(self, model: type[BaseModel]) -> list[dict[str, Any]]:
        """One parameter per field; an enum's schema is a component, like a body's."""
        schema = self._schema(model, "validation")
        required = set(schema.get("required", []))
        return [
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "schema": {k: v for k, v in prop.items() if k != "title"},
            }
            for name, prop in schema.get("properties", {}).items()
        ]

    def any_json_object(self) -> dict[str, Any]:
        """The body of a view that reads its own JSON (an agent tool's arguments)."""
        self.schemas[JSON_VALUE] = _JSON_VALUE_SCHEMA
        return {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": {"$ref": _REF.format(model=JSON_VALUE)},
        }

    def schema_for(self, annotation: Any, mode: str) -> dict[str, Any]:
        origin = typing.get_origin(annotation)
        if origin is list:
            (item,) = typing.get_args(annotation)
            return {"type": "array", "items": self.schema_for(item, mode)}
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.ref(annotation, mode)
        return {"type": "object"}


def build_openapi(app: Flask) -> dict[str, Any]:
    components = _Components()
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        view = app.view_functions.get(rule.endpoint)
        spec = getattr(view, "operation", None)
        if spec is None:
            continue
        path = _CONVERTER.sub(lambda m: "{" + m.group(2) + "}", rule.rule)
        parameters = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": _PARAM_SCHEMAS.get(conv, {"type": "string"}),
            }
            for conv, name in _CONVERTER.findall(rule.rule)
        ]
        if spec.query is not None:
            parameters += components.query_parameters(spec.query)
        responses: dict[str, Any] = {}
        if spec.status == 204:
            responses["204"] = {"description": "Done; no content."}
        elif spec.media_type != "application/json":
            responses[str(spec.status)] = {
                "description": spec.summary,
                "content": {spec.media_type: {"schema": {"type": "string"}}},
            }
        else:
            content = {}
            if spec.response is not None:
                content = {
                    "application/json": {
                        "schema": components.schema_for(spec.response, "serialization")
                    }
                }
            responses[str(spec.status)] = {"description": spec.summary, "content": content}
        # Every bearer-authenticated operation may answer 429: a wrong token from an
        # address that sent too many of them.
        codes = set(spec.errors) | ({401, 429} if spec.auth else set())
        # A view that reads its own JSON body (an agent tool's arguments) says so by
        # declaring 415: the document then shows an optional JSON object body.
        reads_own_body = spec.body is None and 415 in spec.errors
        if spec.body is not None or reads_own_body:
            codes |= {400, 413, 415}
        if spec.query is not None:
            codes.add(400)
        # A request the document calls valid may still be refused on its meaning (PQL
        # that does not parse, another project's state): 422, where 400 says the
        # request breaks this document (workspace.api.operations.meaning_refused).
        if 400 in codes:
            codes.add(422)
        for code in sorted(codes):
            responses[str(code)] = {
                "description": "Problem",
                "content": {PROBLEM_TYPE: {"schema": {"$ref": _REF.format(model="Problem")}}},
            }
        op: dict[str, Any] = {
            "operationId": rule.endpoint.replace(".", "_"),
            "summary": spec.summary,
            "tags": [spec.tag],
            "parameters": parameters,
            "responses": responses,
        }
        if spec.description:
            op["description"] = spec.description
        if spec.body is not None:
            op["requestBody"] = {
                "required": not spec.body_optional,
                "content": {
                    "application/json": {"schema": components.ref(spec.body, "validation")}
                },
            }
        elif reads_own_body:
            op["requestBody"] = {
                "required": False,
                "content": {"application/json": {"schema": components.any_json_object()}},
            }
        if not spec.auth:
            op["security"] = []
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            paths.setdefault(path, {})[method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Workspace API",
            "version": "1",
            "description": "Projects, tasks, identity settings and analytics of an organization.",
        },
        "servers": [{"url": app.config["API_URL"]}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": components.schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "ws_ token"}
            },
        },
    }
