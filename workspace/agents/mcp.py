"""A Model Context Protocol server over the agent tools (MCP revision 2025-11-25;
2025-06-18, 2025-03-26 and 2024-11-05 are negotiated too).

Transport: "Streamable HTTP" (spec: basic/transports#streamable-http). The client
POSTs one JSON-RPC 2.0 message per request (or, under 2025-03-26, a batch: 2025-06-18
removed batching, so under it and later a batch is refused); a request
is answered with ``application/json`` (a client whose ``Accept`` rules JSON out gets
406), a notification or response with ``202 Accepted`` and no body. The server
offers no SSE stream, so GET is ``405`` (allowed by the transport). It keeps no
session state: every request carries the agent's bearer token, so no
``Mcp-Session-Id`` is issued. Every answer, a bodiless 202 included, is
``application/json``, as the SDKs' own servers answer.

Revision 2025-11-25 changes nothing a tools-only, session-less JSON server must do
differently from 2025-06-18: input validation failures were already tool results with
``isError`` (now required, so the model can correct itself), schemas are JSON Schema
2020-12 (pydantic's dialect), tool names keep to ``[A-Za-z0-9_.-]``. Its optional
additions used here: ``title`` on tools and ``description`` on ``serverInfo``.

Methods (spec: basic/lifecycle, server/tools, basic/utilities/ping):
``initialize``, ``notifications/initialized``, ``ping``, ``tools/list``,
``tools/call``. Tool failures are results with ``isError: true`` so the model can
read them; protocol failures are JSON-RPC errors (codes from JSON-RPC 2.0 §5.1).

Limits (docs/security.md#limits): a batch holds at most :data:`MAX_BATCH` messages
(a longer one is refused whole, nothing run), and one POST is answered with at most
:data:`MAX_RESPONSE_BYTES` of results: an answer that does not fit is replaced by an
error, and the batch's later requests are not run but answered with an error each.
"""

from __future__ import annotations

import json
from typing import Any

from workspace.agents.tools import TOOLS, ToolError, run_tool
from workspace.security.permissions import Access

LATEST_VERSION = "2025-11-25"
#: Newest first; a client asking for one of these gets it (basic/lifecycle).
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The versions a JSON array body is a batch in: 2025-03-26 defined batching (and
#: 2024-11-05 took JSON-RPC 2.0 whole); 2025-06-18 removed it. A request without an
#: MCP-Protocol-Version header is taken as 2025-03-26, as the transport says.
BATCH_VERSIONS = ("2025-03-26", "2024-11-05")
ASSUMED_VERSION = "2025-03-26"
SERVER_INFO = {
    "name": "workspace-agent-tools",
    "title": "Workspace agent tools",
    "version": "1",
    "description": "Read and change one Workspace organization's tasks and analytics as an agent.",
}

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: Implementation-defined server error (JSON-RPC 2.0 §5.1): the answer is too large.
RESPONSE_TOO_LARGE = -32000

MAX_BATCH = 20
MAX_RESPONSE_BYTES = 1024 * 1024

INSTRUCTIONS = (
    "Tools over one Workspace organization, acting as this agent. Call list_projects "
    "first to learn project ids and state names. Every change is recorded under the "
    "agent's name in the task's history."
)


class RpcError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def error(id_: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def _initialize(_access: Access, params: dict[str, Any]) -> dict[str, Any]:
    # Version negotiation (basic/lifecycle): echo a version we support, else ours.
    asked = params.get("protocolVersion")
    version = asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION
    return {
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": SERVER_INFO,
        "instructions": INSTRUCTIONS,
    }


def _tools_list(_access: Access, _params: dict[str, Any]) -> dict[str, Any]:
    return {"tools": [tool.describe() for tool in TOOLS.values()]}


def _tools_call(access: Access, params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    if not isinstance(name, str) or name not in TOOLS:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {name!r}. Call tools/list for the names.")
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        # Not a CallToolRequest at all (a protocol error); wrong values inside the
        # object are the tool's business and come back as isError results.
        raise RpcError(INVALID_PARAMS, "arguments must be a JSON object.")
    try:
        result = run_tool(access, name, arguments)
    except ToolError as exc:
        detail = {"status": exc.status, "message": exc.message, "errors": exc.errors or []}
        return {"content": [{"type": "text", "text": json.dumps(detail)}], "isError": True}
    # structuredContent must be an object (server/tools#structured-content).
    structured = result if isinstance(result, dict) else {"items": result}
    return {
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured,
        "isError": False,
    }


def _ping(_access: Access, _params: dict[str, Any]) -> dict[str, Any]:
    return {}


METHODS = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
}


def _size(answer: dict[str, Any]) -> int:
    return len(json.dumps(answer).encode())


def _too_large(id_: Any, limit: int) -> dict[str, Any]:
    return error(
        id_,
        RESPONSE_TOO_LARGE,
        f"The answer to this request does not fit in the {limit} bytes one response may "
        "hold, so it is left out (a call that changes something has still run). Ask for "
        "less, or send it on its own.",
    )


def _request_id(message: Any) -> Any:
    """The id of a message that expects an answer, else None."""
    if isinstance(message, dict) and "method" in message and "id" in message:
        id_ = message["id"]
        if isinstance(id_, (str, int)) and not isinstance(id_, bool):
            return id_
    return None


def handle_post(
    access: Access,
    payload: Any,
    *,
    version: str | None = None,
    max_batch: int = MAX_BATCH,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> tuple[Any, int]:
    """The HTTP answer to one POST body: ``(body or None, status)``.

    One message, or a batch (a JSON array, which revision 2025-03-26 allows; ``version``
    is the request's MCP-Protocol-Version, None when it sent none). A body with nothing
    to answer is 202; a message that is no valid JSON-RPC request, notification or
    response is 400 with an id-less error (basic/transports). A batch under a version
    without batching, or longer than ``max_batch``, is refused whole (400); results
    stop at ``max_bytes``."""
    if isinstance(payload, list):
        if (version or ASSUMED_VERSION) not in BATCH_VERSIONS:
            # 2025-06-18 transport: the body MUST be a single JSON-RPC message.
            return error(
                None,
                INVALID_REQUEST,
                f"MCP {version} has no batches: send one JSON-RPC message per request.",
            ), 400
        if not payload:
            return error(None, INVALID_REQUEST, "An empty batch holds no message."), 400
        if len(payload) > max_batch:
            return error(
                None,
                INVALID_REQUEST,
                f"A batch holds at most {max_batch} messages; this one has {len(payload)}. "
                "Send the rest in further requests.",
            ), 400
        if any(isinstance(m, dict) and m.get("method") == "initialize" for m in payload):
            # 2025-03-26 lifecycle: the initialize request MUST NOT be part of a batch.
            return error(
                None,
                INVALID_REQUEST,
                "initialize must be sent on its own, not in a batch.",
            ), 400
        answers: list[dict[str, Any]] = []
        left = max_bytes - 2  # the array's brackets
        full = False
        for message in payload:
            if full:  # not run: answered with an error when it expects an answer
                id_ = _request_id(message)
                if id_ is not None:
                    answers.append(
                        error(
                            id_,
                            RESPONSE_TOO_LARGE,
                            f"Not run: the batch's answers reached the {max_bytes} bytes one "
                            "response may hold. Send this request again.",
                        )
                    )
                continue
            answer = handle(access, message)
            if answer is None:
                continue
            size = _size(answer) + 1  # and its comma
            if size > left:
                answer, full = _too_large(answer.get("id"), max_bytes), True
            else:
                left -= size
            answers.append(answer)
        return (answers, 200) if answers else (None, 202)
    answer = handle(access, payload)
    if answer is None:
        return None, 202
    refused = "error" in answer and answer["id"] is None
    if not refused and _size(answer) > max_bytes:
        answer = _too_large(answer.get("id"), max_bytes)
    return answer, 400 if refused else 200


def handle(access: Access, message: Any) -> dict[str, Any] | None:
    """The response to one JSON-RPC message, or None for a notification/response."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return error(None, INVALID_REQUEST, "Send one JSON-RPC 2.0 object per request.")
    if "method" not in message:
        return None  # a response to something we asked: we never ask, ignore it
    method, id_ = message.get("method"), message.get("id")
    if "id" not in message:
        return None  # notifications (notifications/initialized, cancelled ...) need no answer
    if not isinstance(method, str) or not isinstance(id_, (str, int)) or isinstance(id_, bool):
        return error(id_ if isinstance(id_, (str, int)) else None, INVALID_REQUEST, "Bad request.")
    params = message.get("params") or {}
    if not isinstance(params, dict):
        return error(id_, INVALID_PARAMS, "params must be an object.")
    handler = METHODS.get(method)
    if handler is None:
        return error(id_, METHOD_NOT_FOUND, f"Method not found: {method}.")
    try:
        return {"jsonrpc": "2.0", "id": id_, "result": handler(access, params)}
    except RpcError as exc:
        return error(id_, exc.code, exc.message)
