"""Declaring a JSON API operation once: its input models validate the request and
document it in OpenAPI; its response model shapes the output.

    @bp.post("/orgs/<uuid:org_id>/projects")
    @operation("Create a project", tag="projects", body=ProjectCreate,
               response=ProjectOut, status=201)
    def create_project(org_id, body): ...

The view receives the parsed ``body`` and ``query`` models as keyword arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Response, json, request
from pydantic import BaseModel, ConfigDict, ValidationError

from workspace.api.problems import ApiError


class InputModel(BaseModel):
    """Request bodies and query strings: unknown fields are an error, not a shrug."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class QueryModel(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class OutputModel(BaseModel):
    model_config = ConfigDict(from_attributes=True)


@dataclass
class Operation:
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: Any = None
    status: int = 200
    auth: bool = True
    media_type: str = "application/json"
    description: str = ""
    errors: tuple[int, ...] = field(default=(400, 401, 403, 404))


def validation_errors(exc: ValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(part) for part in err["loc"]) or "body"
        out.append({"field": loc, "message": err["msg"]})
    return out


def parse_body(model: type[BaseModel]) -> BaseModel:
    if not request.mimetype or not request.is_json:
        raise ApiError(415, "Send the request body as JSON with 'Content-Type: application/json'.")
    data = request.get_json(silent=True)
    if data is None:
        raise ApiError(400, "The request body is not valid JSON.")
    if not isinstance(data, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(
            400, "Some fields are missing or invalid.", errors=validation_errors(exc)
        ) from exc


def parse_query(model: type[BaseModel]) -> BaseModel:
    data: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        values = request.args.getlist(key)
        if not values:
            continue
        annotation = str(info.annotation)
        data[key] = values if annotation.startswith(("list", "typing.List")) else values[-1]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(
            400, "Some query parameters are invalid.", errors=validation_errors(exc)
        ) from exc


def to_json(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, list):
        return [to_json(item) for item in result]
    return result


def operation(
    summary: str,
    *,
    tag: str,
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    response: Any = None,
    status: int = 200,
    auth: bool = True,
    media_type: str = "application/json",
    errors: tuple[int, ...] = (400, 401, 403, 404),
) -> Callable:
    spec = Operation(
        summary=summary,
        tag=tag,
        body=body,
        query=query,
        response=response,
        status=status,
        auth=auth,
        media_type=media_type,
        errors=errors,
    )

    def decorate(view: Callable) -> Callable:
        spec.description = (view.__doc__ or "").strip()

        @functools.wraps(view)
        def wrapper(**kwargs: Any) -> Response:
            # Who is asking comes before what they sent: a stranger learns nothing
            # from validation messages, and another org's URL is a plain 404.
            if auth and "org_id" in kwargs:
                from workspace.api.auth import api_access

                api_access(kwargs["org_id"])
            elif auth:
                from workspace.api.auth import api_account

                api_account()
            if body is not None:
                kwargs["body"] = parse_body(body)
            if query is not None:
                kwargs["query"] = parse_query(query)
            result = view(**kwargs)
            if isinstance(result, Response):
                return result
            if result is None and status == 204:
                return Response(status=204)
            return Response(json.dumps(to_json(result)), status=status, mimetype="application/json")

        wrapper.operation = spec  # type: ignore[attr-defined]
        return wrapper

    return decorate
