"""The SCIM 2.0 endpoints (RFC 7644 §3) under /scim/v2/orgs/<org id>/.

Thin views: authenticate the org's bearer token, parse the request into
scim2-models documents, call one service function, answer
``application/scim+json``. Every request is scoped to the org in the URL and is one
transaction (:func:`~workspace.transaction.transactional`): a SCIM error rolls it back.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, g, request
from pydantic import ValidationError
from scim2_models import (
    Context,
    Error,
    InvalidSyntaxException,
    ListResponse,
    Meta,
    NotFoundException,
    ResponseParameters,
    SCIMException,
    ScimPolicy,
    SearchRequest,
)

from workspace.api.blueprints import api_blueprint
from workspace.auth import signin_limits
from workspace.core.events import record_event
from workspace.core.orgs import find_org
from workspace.scim import errors, patch, tokens, users
from workspace.scim.errors import MAX_BODY, MEDIA_TYPE
from workspace.scim.resources import (
    MAX_RESULTS,
    InputUser,
    PublishedUser,
    discovery_schemas,
    dump,
    group_resource_type,
    service_provider_config,
    user_resource_type,
)
from workspace.security.request_guard import InputRefused, load_json, reads_own_body
from workspace.transaction import commit_early, transactional

# SCIM carries its own bearer authentication and no ambient credential: no CSRF.
bp = api_blueprint("scim", __name__, "/scim/v2/orgs/<uuid:org_id>")
errors.install(bp)
reads_own_body(bp)  # size-capped stream read below, errors in SCIM's own shape

DEFAULT_COUNT = 100
_JSON_TYPES = ("application/json", "application/scim+json")
#: Requests are read strictly: an attribute no schema declares is a 400.
_STRICT = ScimPolicy(unknown=ScimPolicy.Unknown.forbid)


# -- plumbing ------------------------------------------------------------------------


@bp.before_request
def authenticate() -> Response | None:
    """RFC 7644 §2: a bearer token on every request: the org's SCIM token or a live
    access token of its OAuth client (docs/scim.md#client-credentials). The token is
    looked up by the org in the URL, so another org's token (or an unknown org) is a
    plain 401, as is an expired or revoked access token."""
    header = request.headers.get("Authorization", "")
    scheme, _, raw = header.partition(" ")
    org_id = (request.view_args or {}).get("org_id")
    caller = None
    if scheme.lower() == "bearer" and isinstance(org_id, uuid.UUID):
        caller = tokens.authenticate_any(org_id, raw.strip())
    if caller is not None and tokens.minter_lost_rights(org_id, caller):
        tokens.revoke_minted_by(org_id, caller.minted_by, "minter_lost_role", actor_id=None)
        commit_early("a token that outlived its creator's role stays revoked")
        return errors.error_response(
            401,
            "This token was revoked: the member who created it is no longer an owner or "
            "admin of this organization. An admin generates a new one in Settings > SCIM.",
        )
    if caller is None and header:
        # Only a wrong token meets the throttle: the right one is never refused for
        # failures another client behind the same address sent.
        if signin_limits.bearer_blocked("scim"):
            return errors.error_response(
                429, "Too many requests with a wrong SCIM token from this address. Wait a minute."
            )
        _refused_token(org_id)
    if caller is None:
        detail = (
            "The bearer token is not this organization's SCIM token or a live access "
            "token of its OAuth client (access tokens expire after an hour: get a new one)."
            if header
            else "Send the organization's SCIM token as 'Authorization: Bearer scim_...'."
        )
        return errors.error_response(401, detail)
    g.scim_caller = caller
    g.scim_org = find_org(org_id)
    return None


def _refused_token(org_id: uuid.UUID | None) -> None:
    """A wrong SCIM token: counted against the caller's address (at most
    ``BEARER_FAILURES_PER_ADDRESS`` are answered, so the audit log cannot be flooded
    from one address) and recorded in the org the URL names, if there is one."""
    signin_limits.count_bearer_failure("scim", str(org_id))
    org = find_org(org_id) if isinstance(org_id, uuid.UUID) else None
    if org is None:
        return
    record_event(org.id, "scim.auth_failed", ip=signin_limits.client_address())
    commit_early("a refused SCIM request's audit row must outlive the refused request")


def _json(data: Any, status: int = 200, location: str | None = None) -> Response:
    response = Response(json.dumps(data), status=status, mimetype=MEDIA_TYPE)
    if location:
        response.headers["Location"] = location
    return response


def _body() -> Any:
    """The request's JSON, refusing oversized, non-JSON and malformed bodies."""
    if (request.content_length or 0) > MAX_BODY:
        raise errors.TooLarge()
    if request.mimetype and request.mimetype not in _JSON_TYPES:
        raise SCIMException.from_error(
            Error(status=415, detail="Send the body as application/scim+json or application/json.")
        )
    # Kept for the request: a write that loses a race runs again whole
    # (transaction.transactional), and the stream is read once.
    if "scim_body" not in g:
        g.scim_body = request.stream.read(MAX_BODY + 1)
    raw = g.scim_body
    if len(raw) > MAX_BODY:
        raise errors.TooLarge()
    try:
        return load_json(raw)
    except InputRefused as exc:
        raise InvalidSyntaxException(detail=str(exc)) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidSyntaxException(detail="The request body is not valid JSON.") from exc


def _object(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, dict):
        raise InvalidSyntaxException(detail="The request body must be a JSON object.")
    return payload


def _base_url(org_id: uuid.UUID) -> str:
    return f"{current_app.config['BASE_URL']}/scim/v2/orgs/{org_id}"


def _resource(user: users.ScimMember) -> PublishedUser:
    member, identity = user.member, user.identity
    payload = user.published()
    created = identity.created_at if identity else member.created_at
    modified = max(filter(None, [created, identity and identity.updated_at, member.deactivated_at]))
    payload["id"] = str(member.id)
    resource = PublishedUser.model_validate(payload)
    resource.meta = Meta(
        resource_type="User",
        created=created,
        last_modified=modified,
        location=f"{_base_url(member.org_id)}/Users/{member.id}",
    )
    return resource


def _search(source: dict[str, Any]) -> SearchRequest:
    return SearchRequest[PublishedUser].model_validate(source)


def _query_search() -> SearchRequest:
    names = ("filter", "startIndex", "count", "attributes", "excludedAttributes")
    return _search({k: request.args[k] for k in names if k in request.args})


def list_page(
    search: SearchRequest,
    org_id: uuid.UUID,
    lister: Callable[[uuid.UUID, Any, int, int], tuple[int, list[Any]]],
    resource_of: Callable[[Any], Any],
    model: type,
) -> Response:
    """RFC 7644 §3.4.2: a ListResponse of ``model`` (Users or Groups), 1-based paging,
    ``count=0`` for totals only."""
    start = search.start_index or 1
    count = DEFAULT_COUNT if search.count is None else min(search.count, MAX_RESULTS)
    total, page = lister(org_id, search.filter, start, count)
    listing = ListResponse[model](
        total_results=total,
        start_index=start,
        items_per_page=len(page),
        resources=[resource_of(item) for item in page],
    )
    return _json(dump(listing, response_parameters=search))


def _list(search: SearchRequest, org_id: uuid.UUID) -> Response:
    return list_page(search, org_id, users.list_users, _resource, PublishedUser)


def _one(user: users.ScimMember, status: int = 200) -> Response:
    """One resource, honouring ``attributes``/``excludedAttributes`` (RFC 7644 §3.9)."""
    resource = _resource(user)
    names = ("attributes", "excludedAttributes")
    params = ResponseParameters[PublishedUser].model_validate(
        {k: request.args[k] for k in names if k in request.args}
    )
    return _json(
        dump(resource, response_parameters=params),
        status,
        location=resource.meta.location if status == 201 else None,
    )


# -- discovery (RFC 7644 §4) -----------------------------------------------------------


@bp.get("/ServiceProviderConfig")
@transactional
def service_provider_config_view(org_id: uuid.UUID) -> Response:
    config = service_provider_config()
    config.meta = Meta(
        resource_type="ServiceProviderConfig", location=f"{_base_url(org_id)}/ServiceProviderConfig"
    )
    return _json(dump(config))


def _discovery_list(items: list[Any]) -> Response:
    listing = ListResponse[type(items[0])](
        total_results=len(items), start_index=1, items_per_page=len(items), resources=items
    )
    return _json(dump(listing))


@bp.get("/ResourceTypes")
@transactional
def resource_types(org_id: uuid.UUID) -> Response:
    return _discovery_list(
        [_with_meta(make(), org_id, "ResourceTypes", name) for name, make in _TYPES.items()]
    )


#: The /Groups routes live in group_routes.py, on this blueprint.
_TYPES = {"User": user_resource_type, "Group": group_resource_type}


@bp.get("/ResourceTypes/<name>")
@transactional
def resource_type(org_id: uuid.UUID, name: str) -> Response:
    if name not in _TYPES:
        raise NotFoundException(detail=f"No resource type {name!r}; this service has User, Group.")
    return _json(dump(_with_meta(_TYPES[name](), org_id, "ResourceTypes", name)))


@bp.get("/Schemas")
@transactional
def schemas(org_id: uuid.UUID) -> Response:
    return _discovery_list([_with_meta(s, org_id, "Schemas", s.id) for s in discovery_schemas()])


@bp.get("/Schemas/<schema_id>")
@transactional
def schema(org_id: uuid.UUID, schema_id: str) -> Response:
    for item in discovery_schemas():
        if item.id == schema_id:
            return _json(dump(_with_meta(item, org_id, "Schemas", item.id)))
    raise NotFoundException(detail=f"No schema {schema_id!r}.")


def _with_meta(item: Any, org_id: uuid.UUID, endpoint: str, item_id: str) -> Any:
    item.meta = Meta(
        resource_type=type(item).__name__, location=f"{_base_url(org_id)}/{endpoint}/{item_id}"
    )
    return item


# -- Users (RFC 7644 §3.3-3.6) ----------------------------------------------------------


@bp.get("/Users")
@transactional
def list_users(org_id: uuid.UUID) -> Response:
    return _list(_query_search(), org_id)


@bp.post("/Users/.search")
@transactional
def search_users(org_id: uuid.UUID) -> Response:
    """RFC 7644 §3.4.3 (the root /.search over Users and Groups is in group_routes)."""
    return _list(_search(_object(_body())), org_id)


@bp.post("/Users")
@transactional
def create_user(org_id: uuid.UUID) -> Response:
    document = _validate(Context.RESOURCE_CREATION_REQUEST)
    user = users.create_user(g.scim_org, document, g.scim_caller)
    return _one(user, status=201)


@bp.get("/Users/<user_id>")
@transactional
def read_user(org_id: uuid.UUID, user_id: str) -> Response:
    return _one(users.get_user(org_id, user_id))


@bp.put("/Users/<user_id>")
@transactional
def replace_user(org_id: uuid.UUID, user_id: str) -> Response:
    user = users.get_user(org_id, user_id)
    document = _validate(Context.RESOURCE_REPLACEMENT_REQUEST)
    return _one(users.replace_user(user, document, g.scim_caller))


@bp.patch("/Users/<user_id>")
@transactional
def patch_user(org_id: uuid.UUID, user_id: str) -> Response:
    user = users.get_user(org_id, user_id)
    operations = patch.parse(_body())
    patched = patch.apply(operations, users.scim_document(user))
    return _one(users.patch_user(user, patched, g.scim_caller, patch.names_set(operations)))


@bp.delete("/Users/<user_id>")
@transactional
def delete_user(org_id: uuid.UUID, user_id: str) -> Response:
    user = users.get_user(org_id, user_id)
    users.delete_user(user, g.scim_caller)
    return Response(status=204)


def _validate(ctx: Context) -> InputUser:
    payload = _object(_body())
    try:
        return InputUser.model_validate(payload, scim_ctx=ctx, scim_policy=_STRICT)
    except ValidationError as exc:
        raise errors.validation_error(exc) from exc
