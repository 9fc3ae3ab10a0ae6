"""The MCP server (streamable HTTP, revision 2025-11-25 and older) over a real socket,
byte by byte; tests/agents/test_mcp_sdk.py drives it with the official SDK."""

from __future__ import annotations

import requests

from tests.agents.conftest import make_project

MCP = "/api/v1/agent/mcp"


def rpc(live_server, token, method, params=None, id_=1, **headers):
    message = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params is not None:
        message["params"] = params
    return requests.post(
        live_server.url + MCP,
        json=message,
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        timeout=10,
    )


def test_mcp_session_over_http(client, live_server, acme):
    project = make_project(client, acme)
    agent = client.post(
        acme.url("/agents"),
        json={"name": "MCP Bot", "project_ids": [project["id"]]},
        headers=acme.headers,
    ).get_json()
    token = agent["token"]

    init = rpc(
        live_server,
        token,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test-client", "version": "0"},
        },
    )
    assert init.status_code == 200 and init.headers["Content-Type"].startswith("application/json")
    result = init.json()
    assert result["id"] == 1 and result["jsonrpc"] == "2.0"
    assert result["result"]["protocolVersion"] == "2025-06-18"
    assert result["result"]["capabilities"]["tools"] == {"listChanged": False}
    assert result["result"]["serverInfo"]["name"]

    note = rpc(live_server, token, "notifications/initialized", id_=None)
    assert note.status_code == 202 and note.content == b""
    assert note.headers["Content-Type"] == "application/json"

    headers = {"MCP-Protocol-Version": "2025-06-18"}
    assert rpc(live_server, token, "ping", id_="p1", **headers).json() == {
        "jsonrpc": "2.0",
        "id": "p1",
        "result": {},
    }
    tools = rpc(live_server, token, "tools/list", id_=2, **headers).json()["result"]["tools"]
    by_name = {t["name"]: t for t in tools}
    assert "create_task" in by_name and "analytics_workload" in by_name
    assert by_name["create_task"]["inputSchema"]["type"] == "object"
    # Hints a client uses to decide whether to ask a person first.
    assert by_name["create_task"]["title"] == "Create task"
    assert by_name["create_task"]["annotations"]["destructiveHint"] is False
    assert by_name["set_task_state"]["annotations"]["destructiveHint"] is True
    assert by_name["list_tasks"]["annotations"]["readOnlyHint"] is True

    call = rpc(
        live_server,
        token,
        "tools/call",
        {
            "name": "create_task",
            "arguments": {"project_id": project["id"], "title": "From MCP", "assign_to_me": True},
        },
        id_=3,
        **headers,
    ).json()["result"]
    assert call["isError"] is False
    task = call["structuredContent"]
    assert task["title"] == "From MCP" and task["assignee_id"] == agent["id"]
    assert call["content"][0]["type"] == "text" and "From MCP" in call["content"][0]["text"]

    # Visible through the people's API, attributed to the agent.
    seen = requests.get(
        live_server.url + acme.url(f"/tasks/{task['id']}/activity"),
        headers=acme.headers,
        timeout=10,
    ).json()
    assert seen[0]["field"] == "created" and seen[0]["actor_id"] == agent["id"]
    workload = rpc(live_server, token, "tools/call", {"name": "analytics_workload"}, id_=4).json()[
        "result"
    ]["structuredContent"]["items"]
    assert workload[0]["assignee_id"] == agent["id"] and workload[0]["open"] == 1

    # A tool failure is a result the model can read, not a protocol error.
    bad = rpc(
        live_server, token, "tools/call", {"name": "create_task", "arguments": {}}, id_=5
    ).json()
    assert bad["result"]["isError"] is True and "title" in bad["result"]["content"][0]["text"]
    unknown = rpc(live_server, token, "tools/call", {"name": "nope"}, id_=6).json()
    assert unknown["error"]["code"] == -32602
    # Arguments that are no object are no tools/call request at all: a protocol error.
    listed = rpc(
        live_server, token, "tools/call", {"name": "list_tasks", "arguments": [1]}, id_=8
    ).json()
    assert listed["error"]["code"] == -32602 and "object" in listed["error"]["message"]
    assert rpc(live_server, token, "resources/list", id_=7).json()["error"]["code"] == -32601


def test_mcp_transport_rules(client, live_server, acme):
    agent = client.post(acme.url("/agents"), json={"name": "Bot"}, headers=acme.headers).get_json()
    url = live_server.url + MCP
    resp = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
    assert resp.status_code == 401 and resp.headers["WWW-Authenticate"].startswith("Bearer")
    resp = rpc(live_server, acme.token, "ping")  # a person's token
    assert resp.status_code == 403
    auth = {"Authorization": f"Bearer {agent['token']}"}
    for method in ("GET", "DELETE"):  # no event stream, no session to end
        resp = requests.request(method, url, headers=auth, timeout=10)
        assert resp.status_code == 405 and resp.headers["Allow"] == "POST"
        assert resp.headers["Content-Type"] == "application/json"
        assert resp.json()["error"]["code"] == -32600 and "POST" in resp.json()["error"]["message"]
    resp = requests.post(url, data="{not json", headers=auth, timeout=10)
    assert resp.status_code == 400 and resp.json()["error"]["code"] == -32700
    resp = rpc(live_server, agent["token"], "ping", Origin="https://evil.example")
    assert resp.status_code == 403
    resp = rpc(live_server, agent["token"], "ping", **{"MCP-Protocol-Version": "1999-01-01"})
    assert resp.status_code == 400 and resp.headers["Content-Type"] == "application/json"
    assert "2025-11-25" in resp.json()["error"]["data"]["supported"]
    # Each revision a client asks for is the one it gets; the header then follows it.
    for version in ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"):
        init = rpc(live_server, agent["token"], "initialize", {"protocolVersion": version})
        assert init.json()["result"]["protocolVersion"] == version
        ping = rpc(live_server, agent["token"], "ping", **{"MCP-Protocol-Version": version})
        assert ping.status_code == 200 and ping.json()["result"] == {}
    # One we do not know (newer, or garbage): we counter-offer our newest.
    for asked in ("2099-01-01", "2026-07-28", None):
        init = rpc(live_server, agent["token"], "initialize", {"protocolVersion": asked})
        assert init.json()["result"]["protocolVersion"] == "2025-11-25"


def test_mcp_accept_batches_and_malformed_messages(client, live_server, acme):
    agent = client.post(acme.url("/agents"), json={"name": "Bot"}, headers=acme.headers).get_json()
    url = live_server.url + MCP
    auth = {"Authorization": f"Bearer {agent['token']}"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

    # We answer in JSON only: a client that cannot read it is told so; one that
    # sends no Accept at all (curl) takes anything.
    only_sse = requests.post(url, json=ping, headers={**auth, "Accept": "text/event-stream"})
    assert only_sse.status_code == 406 and "application/json" in only_sse.json()["error"]["message"]
    bare = requests.post(url, json=ping, headers={**auth, "Accept": ""}, timeout=10)
    assert bare.status_code == 200 and bare.json()["result"] == {}

    # A batch (revision 2025-03-26): requests answered in one array, notifications
    # silently; a batch of notifications only is 202 with no body.
    batch = [
        {"jsonrpc": "2.0", "id": "a", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b", "method": "tools/list"},
    ]
    resp = requests.post(url, json=batch, headers=auth, timeout=10)
    assert resp.status_code == 200
    answers = {a["id"]: a for a in resp.json()}
    assert set(answers) == {"a", "b"} and answers["b"]["result"]["tools"]
    quiet = requests.post(url, json=batch[1:2], headers=auth, timeout=10)
    assert quiet.status_code == 202 and quiet.content == b""
    empty = requests.post(url, json=[], headers=auth, timeout=10)
    assert empty.status_code == 400 and empty.json()["error"]["code"] == -32600

    # Not JSON-RPC 2.0 at all: 400 with an id-less error, not a 200.
    wrong = requests.post(url, json={"jsonrpc": "1.0", "method": "x"}, headers=auth, timeout=10)
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32600
    assert wrong.json()["id"] is None

    # Runaway nesting and NUL characters are refused before any tool runs.
    deep = requests.post(url, data="[" * 100_000, headers=auth, timeout=10)
    assert deep.status_code == 400 and "nested" in deep.json()["error"]["message"]
    call = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "create_task", "arguments": {"title": "a\u0000b"}},
    }
    nul = requests.post(url, json=call, headers=auth, timeout=10)
    assert nul.status_code == 400 and "NUL" in nul.json()["error"]["message"]


def test_a_refused_call_in_a_batch_keeps_the_calls_before_it(client, live_server, acme):
    """The request commits once; each tool call runs in its own savepoint, so a
    refused call undoes only itself."""
    project = make_project(client, acme)
    agent = client.post(
        acme.url("/agents"),
        json={"name": "Bot", "project_ids": [project["id"]]},
        headers=acme.headers,
    ).get_json()
    create = {"project_id": project["id"], "title": "Kept"}
    batch = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "create_task", "arguments": create},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "create_task", "arguments": {**create, "state": "No such state"}},
        },
    ]
    resp = requests.post(
        live_server.url + MCP,
        json=batch,
        headers={"Authorization": f"Bearer {agent['token']}"},
        timeout=10,
    )
    answers = {a["id"]: a["result"] for a in resp.json()}
    assert answers[1]["isError"] is False and answers[2]["isError"] is True
    listed = client.get(acme.url(f"/projects/{project['id']}/tasks"), headers=acme.headers)
    assert [t["title"] for t in listed.get_json()["items"]] == ["Kept"]


def test_batches_are_refused_under_versions_that_removed_them(client, live_server, acme):
    """2025-06-18 removed JSON-RPC batching (the body MUST be one message), and
    2025-11-25 kept it out: a batch under either is refused whole, nothing run. Under
    2025-03-26, where batches were defined, and without the header (taken as 2025-03-26)
    they are answered."""
    project = make_project(client, acme)
    agent = client.post(
        acme.url("/agents"),
        json={"name": "Bot", "project_ids": [project["id"]]},
        headers=acme.headers,
    ).get_json()
    create = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "create_task", "arguments": {"project_id": project["id"], "title": "x"}},
    }
    batch = [create, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    auth = {"Authorization": f"Bearer {agent['token']}"}
    for version in ("2025-06-18", "2025-11-25"):
        resp = requests.post(
            live_server.url + MCP,
            json=batch,
            headers={**auth, "MCP-Protocol-Version": version},
            timeout=10,
        )
        assert resp.status_code == 400 and resp.headers["Content-Type"] == "application/json"
        refused = resp.json()
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert "one JSON-RPC message" in refused["error"]["message"]
    tasks = client.get(acme.url(f"/projects/{project['id']}/tasks"), headers=acme.headers)
    assert tasks.get_json()["items"] == []
    # One message under those versions is answered as ever.
    one = requests.post(
        live_server.url + MCP,
        json=batch[1],
        headers={**auth, "MCP-Protocol-Version": "2025-06-18"},
        timeout=10,
    )
    assert one.status_code == 200 and one.json()["result"] == {}
    for headers in ({"MCP-Protocol-Version": "2025-03-26"}, {}):
        resp = requests.post(
            live_server.url + MCP, json=batch[1:], headers={**auth, **headers}, timeout=10
        )
        assert resp.status_code == 200 and [a["id"] for a in resp.json()] == [2]
    # Even there, initialize goes alone (2025-03-26 lifecycle): the batch is refused whole.
    init = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {}},
    }
    resp = requests.post(
        live_server.url + MCP,
        json=[init, create],
        headers={**auth, "MCP-Protocol-Version": "2025-03-26"},
        timeout=10,
    )
    assert resp.status_code == 400 and resp.json()["error"]["code"] == -32600
    assert "initialize must be sent on its own" in resp.json()["error"]["message"]
    tasks = client.get(acme.url(f"/projects/{project['id']}/tasks"), headers=acme.headers)
    assert tasks.get_json()["items"] == []


def test_origin_must_be_the_configured_one(client, live_server, acme):
    """DNS rebinding: a page on rebind.example whose name now points at this server
    sends Origin and Host both naming rebind.example; comparing the two let it in.
    Only BASE_URL's (and API_URL's) origin counts: scheme, host and port."""
    agent = client.post(acme.url("/agents"), json={"name": "Bot"}, headers=acme.headers).get_json()
    port = live_server.url.rsplit(":", 1)[1]
    rebound = {"Host": f"rebind.example:{port}", "Origin": f"http://rebind.example:{port}"}
    resp = rpc(live_server, agent["token"], "ping", **rebound)
    assert resp.status_code == 403 and resp.json()["error"]["code"] == -32600
    # The server's own address is not its configured origin either.
    assert rpc(live_server, agent["token"], "ping", Origin=live_server.url).status_code == 403
    assert live_server.app.config["BASE_URL"] == "http://localhost"
    for other in ("https://localhost", "http://localhost:8080", "null"):
        assert rpc(live_server, agent["token"], "ping", Origin=other).status_code == 403
    for same in ("http://localhost", "http://LOCALHOST:80"):
        resp = rpc(live_server, agent["token"], "ping", Origin=same)
        assert resp.status_code == 200 and resp.json()["result"] == {}
