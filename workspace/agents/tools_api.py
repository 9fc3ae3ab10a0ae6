"""The agent tool interface over HTTP: ``/api/v1/agent/`` (docs/agents.md#the-tool-interface).

``GET /tools`` lists the tools with their JSON schemas, ``POST /tools/<name>`` runs
one with a JSON object of arguments, and ``POST /mcp`` serves the same tools as an
MCP server. Only an agent's token is accepted (the ``agent.use_tools`` action): the
org is the token's org and the actor is the agent. These URLs name no org, so
:func:`agent_access` loads it from the token and applies the action itself.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, json, request

from workspace.agents import mcp
from workspace.agents.tools import TOOLS, ToolError, run_tool
from workspace.api import api_account, operation
from workspace.api.auth import bearer_token, live_token
from workspace.api.blueprints import api_blueprint
from workspace.api.problems import ApiError
from workspace.auth.models import ApiToken
from workspace.core.models import Account
from workspace.core.orgs import active_membership, find_org
from workspace.errors import ForbiddenError, ServiceError
from workspace.inputs import OutputModel
from workspace.security.permissions import ACTIONS, Access, authorize_route
from workspace.security.request_guard import InputRefused, load_json, reads_own_body
from workspace.transaction import transactional

bp = api_blueprint("agent_tools_api", __name__, "/api/v1/agent")

#: What every route here does; its rule admits agents only.
ACTION = "agent.use_tools"


class ToolOut(OutputModel):
    name: str
    title: str
    description: str
    inputSchema: dict[str, Any]  # MCP spells it this way
    annotations: dict[str, Any]


class ToolResult(OutputModel):
    tool: str
    result: Any


def agent_access(account: Account, token: ApiToken | None) -> Access:
    """The calling agent's access to its token's org, checked against
    ``agent.use_tools`` (403 for a person or a browser session; 401 for an agent no
    longer in its org)."""
    if token is None:  # a browser session is a person's
        raise ForbiddenError(ACTIONS[ACTION].message)
    member = active_membership(token.org_id, account.id)
    if member is None:
        if not account.is_agent:
            raise ForbiddenError(ACTIONS[ACTION].message)
        raise ApiError(401, "This agent is no longer a member of its organization.")
    access = Access(account=account, org=find_org(token.org_id), member=member)
    return authorize_route(access, ACTION, {})


def _caller_access() -> Access:
    """The agent behind this request's bearer token (401 without a valid one)."""
    return agent_access(*api_account())


@bp.get("/tools")
@operation(
    "List the agent tools with their JSON schemas",
    tag="agent",
    response=list[ToolOut],
    action=ACTION,
)
def list_tools():
    _caller_access()
    return [ToolOut.model_validate(t.describe()) for t in TOOLS.values()]


@bp.post("/tools/<name>")
@operation(
    "Run an agent tool with a JSON object of arguments",
    tag="agent",
    response=ToolResult,
    errors=(400, 401, 403, 404, 415),
    action=ACTION,
)
def call_tool(name: str):
    """The body is the tool's arguments (see its ``inputSchema``); ``{}`` for none."""
    access = _caller_access()
    if request.get_data() and not request.is_json:
        raise ApiError(415, "Send the arguments as JSON with 'Content-Type: application/json'.")
    arguments = request.get_json(silent=True) if request.get_data() else {}
    if request.get_data() and arguments is None:
        raise ApiError(400, "The request body is not valid JSON.")
    try:
        result = run_tool(access, name, arguments)
    except ToolError as exc:
        raise ApiError(exc.status, exc.message, errors=exc.errors) from exc
    return ToolResult(tool=name, result=result)


# -- MCP (streamable HTTP transport) ----------------------------------------------------


def _rpc(body: Any, status: int = 200, **headers: str) -> Response:
    """A transport answer, always ``application/json`` (a 202 has no body, but a
    client that reads the type must not be told ``text/html``)."""
    text = "" if body is None else json.dumps(body)
    return Response(text, status=status, mimetype="application/json", headers=headers)


def _origin(url: str) -> tuple[str, str, int | None]:
    """Scheme, host and port (the scheme's default when none is written)."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port


def _origin_allowed() -> bool:
    """Transport security: refuse browser requests from other origins (DNS
    rebinding); clients outside a browser send no Origin. The request's own Host is
    no witness: a rebinding page's Origin and Host both name the attacker's domain,
    so only the configured origins count."""
    origin = request.headers.get("Origin")
    if not origin:
        return True
    own = {_origin(current_app.config["BASE_URL"])}
    api_url = current_app.config.get("API_URL")
    if api_url:
        own.add(_origin(api_url))
    return _origin(origin) in own


@bp.route("/mcp", methods=["GET", "POST", "DELETE"])
@reads_own_body  # JSON-RPC errors, not problem+json
@transactional
def mcp_endpoint():
    """One JSON-RPC message per POST; answers in application/json."""
    if not _origin_allowed():
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, "Origin not allowed."), 403)
    raw = bearer_token()
    challenge = {"WWW-Authenticate": 'Bearer realm="agent"'}
    if raw is None:
        message = "Send the agent's token as a bearer token."
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, message), 401, **challenge)
    try:
        token = live_token(raw)  # wrong tokens are counted and throttled as on the API
    except ApiError as exc:
        return _rpc(
            mcp.error(None, mcp.INVALID_REQUEST, exc.detail),
            exc.status,
            **(challenge if exc.status == 401 else {"Retry-After": "60"}),
        )
    try:
        access = agent_access(token.account, token)
    except ApiError as exc:
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, exc.detail), exc.status)
    except ServiceError as exc:
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, exc.message), exc.status)
    if request.method != "POST":
        # No server-initiated stream and no sessions to end (transport allows 405).
        what = "opens no event stream" if request.method == "GET" else "keeps no session"
        message = f"Method not allowed: this server {what}; POST JSON-RPC messages."
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, message), 405, Allow="POST")
    version = request.headers.get("MCP-Protocol-Version")
    if version and version not in mcp.SUPPORTED_VERSIONS:
        # A newer client's probe (the 2026 SDKs' server/discover) lands here and
        # falls back to initialize, where it is offered our newest version.
        refused = mcp.error(
            None,
            mcp.INVALID_REQUEST,
            f"Unsupported MCP-Protocol-Version {version}; this server speaks "
            f"{', '.join(mcp.SUPPORTED_VERSIONS)} (send initialize to negotiate).",
        )
        refused["error"]["data"] = {"supported": list(mcp.SUPPORTED_VERSIONS), "requested": version}
        return _rpc(refused, 400)
    if request.accept_mimetypes and not request.accept_mimetypes["application/json"]:
        # We answer in JSON only (no SSE stream); a client must be able to read it.
        return _rpc(
            mcp.error(None, mcp.INVALID_REQUEST, "Accept application/json: answers are JSON."),
            406,
        )
    try:
        payload = load_json(request.get_data(as_text=True))
    except InputRefused as exc:
        return _rpc(mcp.error(None, mcp.INVALID_REQUEST, str(exc)), 400)
    except ValueError:
        return _rpc(mcp.error(None, mcp.PARSE_ERROR, "Parse error: the body is not JSON."), 400)
    body, status = mcp.handle_post(
        access,
        payload,
        version=version,
        max_batch=int(current_app.config.get("MCP_MAX_BATCH", mcp.MAX_BATCH)),
        max_bytes=int(current_app.config.get("MCP_MAX_RESPONSE_BYTES", mcp.MAX_RESPONSE_BYTES)),
    )
    return _rpc(body, status)
