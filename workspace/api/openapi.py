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


def _strings_have_content(schema: Any) -> Any:
    """Input models strip whitespace before they check a length, so a required text
    (``minLength`` 1 or more) must hold something besides whitespace: say so with a
    pattern, or the document would call ``" "`` valid while the model refuses it."""
    if isinstance(schema, dict):
        if (
            schema.get("type") == "string"
            and schema.get("minLength", 0) >= 1
            and "pattern" not in schema
            and "format" not in schema
        ):
            schema["pattern"] = r"\S"
        for value in schema.values():
            _strings_have_content(value)
    elif isinstance(schema, list):
        for item in schema:
            _strings_have_content(item)
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

    def ref(self, model: type[BaseModel], mode: str) -> dict[str, str]:
        schema = model.model_json_schema(ref_template=_REF, mode=mode)
        if mode == "validation":
            _strings_have_content(schema)
        self.schemas.update(schema.pop("$defs", {}))
        self.schemas[model.__name__] = schema
        return {"$ref": _REF.format(model=model.__name__)}

    def schema_for(self, annotation: Any, mode: str) -> dict[str, Any]:
        origin = typing.get_origin(annotation)
        if origin is list:
            (item,) = typing.get_args(annotation)
            return {"type": "array", "items": self.schema_for(item, mode)}
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.ref(annotation, mode)
        return {"type": "object"}


def _query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    schema = _strings_have_content(model.model_json_schema(mode="validation"))
    required = set(schema.get("required", []))
    params = []
    for name, prop in schema.get("properties", {}).items():
        prop = {k: v for k, v in prop.items() if k != "title"}
        params.append({"name": name, "in": "query", "required": name in required, "schema": prop})
    return params


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
            parameters += _query_parameters(spec.query)
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
                "content": {"application/json": {"schema": {"type": "object"}}},
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
