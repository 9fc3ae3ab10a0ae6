"""The /Groups endpoints (RFC 7644 §3, docs/scim.md#groups) on the SCIM blueprint: the
same bearer authentication, error shape and transaction per request as /Users. Thin
views over :mod:`workspace.scim.groups`; scim2-models parses the documents and applies
PATCH."""

from __future__ import annotations

import uuid
from typing import Any

from flask import Response, g, request
from pydantic import ValidationError
from scim2_models import (
    Context,
    Group,
    GroupMember,
    InvalidFilterException,
    InvalidSyntaxException,
    Meta,
    MutabilityException,
    PatchOp,
    ResponseParameters,
    SearchRequest,
)

from workspace.scim import errors, groups, patch, users
from workspace.scim.patch import POLICY
from workspace.scim.resources import MAX_RESULTS, dump
from workspace.scim.routing import (
    _STRICT,
    DEFAULT_COUNT,
    _base_url,
    _body,
    _json,
    _object,
    bp,
    list_page,
)
from workspace.scim.routing import _resource as user_resource
from workspace.transaction import transactional

_PATCH_OP = PatchOp[Group]


def _resource(view: groups.ScimGroupView) -> Group:
    group = view.group
    base = _base_url(group.org_id)
    resource = Group(
        id=str(group.id),
        external_id=group.external_id,
        display_name=group.display_name,
        members=[
            GroupMember(
                value=str(member.id),
                ref=f"{base}/Users/{member.id}",
                type="User",
                display=display or account.name or account.email,
            )
            for member, account, display in view.members
        ],
    )
    resource.meta = Meta(
        resource_type="Group",
        created=group.created_at,
        last_modified=group.updated_at,
        location=f"{base}/Groups/{group.id}",
    )
    return resource


def _params() -> dict[str, Any]:
    names = ("attributes", "excludedAttributes")
    return {k: request.args[k] for k in names if k in request.args}


def _one(view: groups.ScimGroupView, status: int = 200) -> Response:
    """One group, honouring ``attributes``/``excludedAttributes`` (Entra reads groups
    with ``excludedAttributes=members``)."""
    resource = _resource(view)
    params = ResponseParameters[Group].model_validate(_params())
    return _json(
        dump(resource, response_parameters=params),
        status,
        location=resource.meta.location if status == 201 else None,
    )


def _list(search: SearchRequest, org_id: uuid.UUID) -> Response:
    return list_page(search, org_id, groups.list_groups, _resource, Group)


def _validate(ctx: Context) -> Group:
    try:
        return Group.model_validate(_object(_body()), scim_ctx=ctx, scim_policy=_STRICT)
    except ValidationError as exc:
        raise errors.validation_error(exc) from exc


def _without_own_id(payload: Any, group_id: str) -> Any:
    """Okta's rename is a path-less ``replace`` whose value carries the group's own
    ``id``; that is no change, so it is dropped. Another id is a mutability error."""
    if not isinstance(payload, dict):
        raise InvalidSyntaxException(detail="A PATCH body is a PatchOp JSON object.")
    for operation in payload.get("Operations") or []:
        value = operation.get("value") if isinstance(operation, dict) else None
        if not operation.get("path") and isinstance(value, dict) and "id" in value:
            if str(value["id"]) != group_id:
                raise MutabilityException(detail="A group's id cannot change.")
            operation["value"] = {k: v for k, v in value.items() if k != "id"}
    return payload


@bp.get("/Groups")
@transactional
def list_groups(org_id: uuid.UUID) -> Response:
    names = ("filter", "startIndex", "count", "attributes", "excludedAttributes")
    search = SearchRequest[Group].model_validate(
        {k: request.args[k] for k in names if k in request.args}
    )
    return _list(search, org_id)


@bp.post("/Groups/.search")
@transactional
def search_groups(org_id: uuid.UUID) -> Response:
    return _list(SearchRequest[Group].model_validate(_object(_body())), org_id)


@bp.post("/Groups")
@transactional
def create_group(org_id: uuid.UUID) -> Response:
    document = _validate(Context.RESOURCE_CREATION_REQUEST)
    return _one(groups.create_group(org_id, document, g.scim_caller), status=201)


@bp.get("/Groups/<group_id>")
@transactional
def read_group(org_id: uuid.UUID, group_id: str) -> Response:
    return _one(groups.get_group(org_id, group_id))


@bp.put("/Groups/<group_id>")
@transactional
def replace_group(org_id: uuid.UUID, group_id: str) -> Response:
    view = groups.get_group(org_id, group_id, for_update=True)
    document = _validate(Context.RESOURCE_REPLACEMENT_REQUEST)
    return _one(groups.write_group(view, document, g.scim_caller))


@bp.patch("/Groups/<group_id>")
@transactional
def patch_group(org_id: uuid.UUID, group_id: str) -> Response:
    view = groups.get_group(org_id, group_id, for_update=True)
    payload = _without_own_id(_body(), str(view.group.id))
    operations = _PATCH_OP.model_validate(
        payload, scim_ctx=Context.RESOURCE_PATCH_REQUEST, scim_policy=POLICY
    )
    document = patch.apply(operations, groups.document(view))
    return _one(groups.write_group(view, document, g.scim_caller))


@bp.delete("/Groups/<group_id>")
@transactional
def delete_group(org_id: uuid.UUID, group_id: str) -> Response:
    groups.delete_group(groups.get_group(org_id, group_id, for_update=True), g.scim_caller)
    return Response(status=204)


# -- the root search (RFC 7644 §3.4.3): Users, then Groups -------------------------------


def _page_of(kind: str, search: SearchRequest, org_id: uuid.UUID, start: int, count: int):
    """(total, resources) of one resource type; a filter this type cannot answer (a
    userName filter for Groups) matches none of it."""
    try:
        if kind == "User":
            total, rows = users.list_users(org_id, search.filter, start, count)
            return total, [user_resource(u) for u in rows]
        total, views = groups.list_groups(org_id, search.filter, start, count)
        return total, [_resource(v) for v in views]
    except InvalidFilterException:
        return None, []


@bp.post("/.search")
@transactional
def search_everything(org_id: uuid.UUID) -> Response:
    """Every resource type at once: the Users first, then the Groups, paged as one
    list. A filter neither type can answer is a 400."""
    raw = _object(_body())
    search = SearchRequest.model_validate(raw)
    start = search.start_index or 1
    count = DEFAULT_COUNT if search.count is None else min(search.count, MAX_RESULTS)
    user_total, found = _page_of("User", search, org_id, start, count)
    group_total, group_found = _page_of("Group", search, org_id, 1, 0)
    if user_total is None and group_total is None:
        raise InvalidFilterException(detail="Neither Users nor Groups can be filtered that way.")
    if group_total and len(found) < count:
        # The groups' part of the page starts where the users end.
        group_start = max(1, start - (user_total or 0))
        _, group_found = _page_of("Group", search, org_id, group_start, count - len(found))
    resources = [dump(r, response_parameters=search) for r in found + group_found]
    return _json(
        {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
            "totalResults": (user_total or 0) + (group_total or 0),
            "startIndex": start,
            "itemsPerPage": len(resources),
            "Resources": resources,
        }
    )
