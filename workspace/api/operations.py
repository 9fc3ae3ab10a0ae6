"""Declaring a JSON API operation once: its input models validate the request and
document it in OpenAPI; its response model shapes the output.

    @bp.post("/orgs/<uuid:org_id>/projects")
    @operation("Create a project", tag="projects", action="project.create",
               body=ProjectCreate, response=ProjectOut, status=201)
    def create_project(org_id, access, body): ...

Every request runs the same steps: authenticate, load the org and check the declared
``action`` (:func:`workspace.security.permissions.authorize_route`), parse the input,
call the view, then commit once (or roll back on any failure). The view receives the
caller's ``access`` (when it names that parameter) and the parsed ``body`` and
``query`` models as keyword arguments.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Response, g, json, request
from pydantic import BaseModel

from workspace import replica
from workspace.api.auth import api_access, api_account
from workspace.api.problems import ApiError
from workspace.errors import InputError, ServiceError
from workspace.inputs import parse_body, parse_query
from workspace.routes import call_with
from workspace.security.permissions import ACTIONS, authorize_route
from workspace.transaction import transactional


@dataclass
class Operation:
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    #: The body may be left out entirely; the view then gets the model's defaults.
    body_optional: bool = False
    query: type[BaseModel] | None = None
    response: Any = None
    status: int = 200
    auth: bool = True
    action: str | None = None
    media_type: str = "application/json"
    description: str = ""
    errors: tuple[int, ...] = field(default=(400, 401, 403, 404))


def to_json(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, list):
        return [to_json(item) for item in result]
    return result


def meaning_refused(exc: ServiceError) -> ApiError:
    """A service's refusal of a request its input model took: 422, so that a 400 always
    means the request breaks the input model, which is the OpenAPI document. The
    service may refuse what the document cannot say (PQL that does not parse, another
    project's state, a domain IDNA refuses, a first save without its key); HTML pages
    answer the same refusal with 400 as before."""
    problem = exc.to_problem()
    return ApiError(422, problem["detail"], errors=problem["errors"])


def refuse_unknown_parameters(model: type[BaseModel]) -> None:
    """A query parameter the operation's model does not know is a 400 naming it, as an
    unknown field of a body is: a misspelt ``?pql=`` on the custom chart (whose filter
    is ``?filter=``) answered the whole org. Pages keep lenient query strings, shared
    by their controls."""
    known = set(model.model_fields) | {f.alias for f in model.model_fields.values() if f.alias}
    unknown = sorted(set(request.args) - known)
    if unknown:
        takes = ", ".join(sorted(known)) or "none"
        raise InputError(
            "Some query parameters are invalid.",
            [
                {"field": name, "message": f"Unknown query parameter; this one takes {takes}."}
                for name in unknown
            ],
        )


def operation(
    summary: str,
    *,
    tag: str,
    body: type[BaseModel] | None = None,
    body_optional: bool = False,
    query: type[BaseModel] | None = None,
    response: Any = None,
    status: int = 200,
    auth: bool = True,
    action: str | None = None,
    media_type: str = "application/json",
    errors: tuple[int, ...] = (400, 401, 403, 404),
) -> Callable:
    """Declare a JSON API operation. Org routes (``<org_id>`` in the URL) must name
    their permission ``action``; the route walk in the tests fails otherwise."""
    spec = Operation(
        summary=summary,
        tag=tag,
        body=body,
        body_optional=body_optional,
        query=query,
        response=response,
        status=status,
        auth=auth,
        action=action,
        media_type=media_type,
        errors=errors,
    )

    def decorate(view: Callable) -> Callable:
        spec.description = (view.__doc__ or "").strip()
        wants_access = "access" in inspect.signature(view).parameters

        @functools.wraps(view)
        @transactional
        def wrapper(**kwargs: Any) -> Response:
            # Who is asking comes before what they sent: a stranger learns nothing
            # from validation messages, and another org's URL is a plain 404.
            if auth and "org_id" in kwargs:
                if action is None:
                    raise RuntimeError(f"{view.__name__}: an org route must declare an action")
                access = authorize_route(api_access(kwargs["org_id"]), action, kwargs)
                g.access = access
                if wants_access:
                    kwargs["access"] = access
                # The project and task the URL names, loaded once by the gate.
                kwargs.update(project=access.project, task=access.task)
                if ACTIONS[action].replica and request.method in ("GET", "HEAD"):
                    replica.read_from_replica()
            elif auth:
                api_account()
            if body is not None:
                empty = body_optional and not request.get_data(cache=True)
                kwargs["body"] = body() if empty else parse_body(body)
            if query is not None:
                refuse_unknown_parameters(query)
                kwargs["query"] = parse_query(query)
            try:
                result = replica.reads_again_on_primary(lambda: call_with(view, kwargs))
            except InputError:
                raise
            except ServiceError as exc:
                if exc.status == 400:
                    raise meaning_refused(exc) from exc
                raise
            if isinstance(result, Response):
                return result
            if result is None and status == 204:
                return Response(status=204)
            return Response(json.dumps(to_json(result)), status=status, mimetype="application/json")

        wrapper.operation = spec  # type: ignore[attr-defined]
        wrapper.permission_action = action  # type: ignore[attr-defined]
        return wrapper

    return decorate
