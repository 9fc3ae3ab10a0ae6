"""The MCP server as a real MCP client sees it: the official ``mcp`` SDK (PyPI) over
its streamable HTTP transport, against the live server on a loopback socket.

The SDK's default ``mode="auto"`` first probes ``server/discover`` at its newest
(2026) revision, then falls back to the ``initialize`` handshake, offering
2025-11-25: the server must take that version rather than counter-offer an older one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.factories import bearer, create_agent, create_project, new_task, project_states

MCP = "/api/v1/agent/mcp"
T = TypeVar("T")

#: Every tool the server offers, as a user of the tool interface knows them.
TOOL_NAMES = {
    "list_projects",
    "list_tasks",
    "get_task",
    "create_task",
    "set_task_state",
    "assign_task_to_me",
    "comment_on_task",
    "analytics_overview",
    "analytics_workload",
    "analytics_custom_chart",
}


def with_client(
    url: str, token: str, body: Callable[[Client], Awaitable[T]], mode: str = "auto"
) -> T:
    """Run ``body`` in one SDK session with the agent's bearer token."""

    async def main() -> T:
        timeout = httpx2.Timeout(15)
        async with httpx2.AsyncClient(headers=bearer(token), timeout=timeout) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode, read_timeout_seconds=15) as client:
                return await body(client)

    # Its own thread and event loop: Playwright's sync API may already be running a
    # loop in this worker's main thread, where asyncio.run refuses to start another.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main()).result()


async def call(client: Client, name: str, **arguments: Any) -> Any:
    """A tool's structured result; the call must have succeeded."""
    result = await client.call_tool(name, arguments)
    assert result.is_error is False, (name, result.content)
    assert result.structured_content is not None
    text = result.content[0]
    assert text.type == "text" and text.text  # the same data for clients without structure
    return result.structured_content


def test_sdk_negotiates_2025_11_25_and_uses_every_tool(client, live_server, acme):
    project = create_project(client, acme)
    states = project_states(client, acme, project["id"])
    agent = create_agent(client, acme, name="MCP Bot", project_ids=[project["id"]])
    theirs = new_task(client, acme, project, title="Person's task")

    async def session(mcp: Client) -> dict[str, Any]:
        assert mcp.protocol_version == "2025-11-25"
        assert mcp.server_info is not None and mcp.server_info.name == "workspace-agent-tools"
        assert mcp.server_info.description  # new in 2025-11-25
        assert mcp.server_capabilities.tools is not None
        assert "list_projects" in (mcp.instructions or "")

        listed = (await mcp.list_tools()).tools
        assert {t.name for t in listed} == TOOL_NAMES
        for tool in listed:
            assert tool.title and tool.description and tool.input_schema["type"] == "object"
        called: set[str] = set()

        async def use(name: str, **arguments: Any) -> Any:
            called.add(name)
            return await call(mcp, name, **arguments)

        projects = (await use("list_projects"))["items"]
        assert [p["identifier"] for p in projects] == ["WEB"]
        assert {s["name"] for s in projects[0]["states"]} == set(states)

        made = await use(
            "create_task",
            project_id=project["id"],
            title="Filed over MCP",
            priority="high",
            kind="bug",
            assign_to_me=True,
        )
        assert made["title"] == "Filed over MCP" and made["assignee_id"] == agent["id"]
        assert made["priority"] == "high" and made["kind"] == "bug"

        mine = await use("list_tasks", project_id=project["id"], assigned_to_me=True)
        assert mine["total"] == 1 and mine["tasks"][0]["id"] == made["id"]
        everything = await use("list_tasks", project_id=project["id"])
        assert {t["title"] for t in everything["tasks"]} == {"Filed over MCP", "Person's task"}

        done = await use("set_task_state", task_id=made["id"], state="done")
        assert done["state_id"] == states["Done"]["id"]

        taken = await use("assign_task_to_me", task_id=theirs["id"])
        assert taken["assignee_id"] == agent["id"]

        note = await use("comment_on_task", task_id=theirs["id"], body="Looking at it.")
        assert note["body"] == "Looking at it." and note["author_id"] == agent["id"]

        read = await use("get_task", task_id=theirs["id"])
        assert read["task"]["assignee_id"] == agent["id"]
        assert [c["body"] for c in read["comments"]] == ["Looking at it."]
        assert any(a["actor_id"] == agent["id"] for a in read["activity"])

        overview = await use("analytics_overview", project_id=project["id"])
        assert overview["total"] == 2 and overview["completed"] == 1

        workload = (await use("analytics_workload", project_id=project["id"]))["items"]
        row = next(r for r in workload if r["assignee_id"] == agent["id"])
        assert row["open"] == 1

        chart = await use(
            "analytics_custom_chart",
            project_id=project["id"],
            metric="count",
            dimension="priority",
        )
        points = {p["key"]: p["value"] for p in chart["points"]}
        assert points == {"high": 1, "none": 1}

        assert called == TOOL_NAMES

        # Bad arguments: the model reads why, as a tool result (revision 2025-11-25
        # reports input validation as a tool execution error), not a crash.
        bad = await mcp.call_tool("create_task", {"project_id": project["id"], "title": ""})
        assert bad.is_error is True and "title" in bad.content[0].text
        # An unknown tool is a protocol error the SDK raises.
        with pytest.raises(MCPError) as refused:
            await mcp.call_tool("drop_database", {})
        assert refused.value.error.code == -32602 and "drop_database" in refused.value.error.message
        # The session is still usable after both.
        return await call(mcp, "get_task", task_id=made["id"])

    again = with_client(live_server.url + MCP, agent["token"], session)
    assert again["task"]["state_id"] == states["Done"]["id"]

    # What the agent did is what people see, attributed to the agent.
    base = live_server.url
    comments = requests.get(
        base + acme.url(f"/tasks/{theirs['id']}/comments"), headers=acme.headers, timeout=10
    ).json()
    items = comments["items"] if isinstance(comments, dict) else comments
    assert [(c["body"], c["author_id"]) for c in items] == [("Looking at it.", agent["id"])]
    history = requests.get(
        base + acme.url(f"/tasks/{again['task']['id']}/activity"), headers=acme.headers, timeout=10
    ).json()
    assert {a["actor_id"] for a in history} == {agent["id"]}


def test_sdk_legacy_handshake_also_gets_2025_11_25(client, live_server, acme):
    """``mode="legacy"`` skips the discover probe: the plain handshake, as older
    SDK releases and most other clients do it."""
    agent = create_agent(client, acme)

    async def session(mcp: Client) -> tuple[str, list[str]]:
        tools = await mcp.list_tools()
        return mcp.protocol_version, [t.name for t in tools.tools]

    version, names = with_client(live_server.url + MCP, agent["token"], session, mode="legacy")
    assert version == "2025-11-25" and set(names) == TOOL_NAMES


def test_sdk_without_a_valid_token_is_told_to_send_one(live_server):
    async def session(mcp: Client) -> None:  # pragma: no cover - never reached
        raise AssertionError("connected without a token")

    with pytest.raises(BaseException) as failed:
        with_client(live_server.url + MCP, "not-a-token", session, mode="legacy")
    # anyio's task groups wrap what the handshake raised.
    errors = [failed.value]
    while isinstance(errors[0], BaseExceptionGroup):
        errors = list(errors[0].exceptions)
    assert isinstance(errors[0], MCPError) and "bearer token" in errors[0].error.message
