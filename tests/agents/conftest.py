"""A fake OpenAI-compatible model on loopback, started once per test session.

It answers ``POST /v1/chat/completions`` with whatever the test scripts: a content
string (good or unusable), a tool call, an HTTP error, or a reply slower than the
client's timeout. It records every request so tests can check what was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.factories import OrgFixture, create_project, new_task

GOOD = {
    "metric": "open",
    "dimension": "assignee",
    "title": "Open bugs by assignee",
    "kind": "bug",
    "priority": None,
}
API_KEY = "sk-test-not-a-real-key-1234"


@dataclass
class Behaviour:
    content: str | None = json.dumps(GOOD)
    tool_arguments: str | None = None
    status: int = 200
    raw_body: str | None = None
    delay: float = 0.0
    usage: dict[str, int] = field(
        default_factory=lambda: {"prompt_tokens": 900, "completion_tokens": 150}
    )


class FakeModel:
    def __init__(self) -> None:
        self.behaviour = Behaviour()
        self.requests: list[dict[str, Any]] = []
        self.server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/v1"

    def reset(self) -> None:
        self.behaviour = Behaviour()
        self.requests.clear()

    def answer(self) -> tuple[int, str]:
        b = self.behaviour
        if b.raw_body is not None:
            return b.status, b.raw_body
        if b.status >= 400:
            return b.status, json.dumps(
                {"error": {"message": "The model is overloaded", "type": "server_error"}}
            )
        message: dict[str, Any] = {"role": "assistant", "content": b.content}
        if b.tool_arguments is not None:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "chart_spec", "arguments": b.tool_arguments},
                    }
                ],
            }
        usage = {**b.usage, "total_tokens": sum(b.usage.values())}
        return 200, json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": "fake-chart",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": usage,
            }
        )


def _handler(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            model.requests.append({"path": self.path, "headers": dict(self.headers), "json": body})
            if self.path != "/v1/chat/completions":
                status, text = 404, json.dumps({"error": {"message": "no such route"}})
            else:
                if model.behaviour.delay:
                    time.sleep(model.behaviour.delay)
                status, text = model.answer()
            try:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (timeout test)

    return Handler


@pytest.fixture(scope="session")
def fake_model_server() -> Iterator[FakeModel]:
    model = FakeModel()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    server.daemon_threads = True
    model.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield model
    server.shutdown()


@pytest.fixture
def fake_model(fake_model_server: FakeModel, app, monkeypatch) -> FakeModel:
    """The fake model, reset, with the outbound guard letting the app reach it."""
    fake_model_server.reset()
    monkeypatch.setitem(app.config, "OUTBOUND_ALLOW_PRIVATE", ["127.0.0.1"])
    return fake_model_server


def configure_model(client, org: OrgFixture, model: FakeModel, key: str = API_KEY) -> dict:
    resp = client.put(
        org.url("/ai-settings"),
        json={"base_url": model.base_url, "model": "fake-chart", "api_key": key},
        headers=org.headers,
    )
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def make_project(client, org: OrgFixture, name: str = "Web App", ident: str = "WEB") -> dict:
    return create_project(client, org, name, ident)


def states_by_name(client, org: OrgFixture, project_id: str) -> dict[str, str]:
    resp = client.get(org.url(f"/projects/{project_id}/states"), headers=org.headers)
    return {s["name"]: s["id"] for s in resp.get_json()}


def make_task(client, org: OrgFixture, project_id: str, **fields: Any) -> dict:
    return new_task(client, org, {"id": project_id}, **{"title": "Task", **fields})


def ask_on_page(client, slug: str, text: str, timeout: float = 20.0, **form: str) -> str:
    """Ask in the Ask box with HTMX when a model is configured: the pending state (202),
    then its poll until the answer replaces it (a worker must be running)."""
    resp = client.post(
        f"/o/{slug}/analytics/ask", data={"text": text, **form}, headers={"HX-Request": "true"}
    )
    html = resp.get_data(as_text=True)
    assert resp.status_code == 202, html
    poll = re.search(r'hx-get="([^"]+)"', html).group(1)
    deadline = time.monotonic() + timeout
    while "ask-pending" in html:
        assert time.monotonic() < deadline, html
        time.sleep(0.05)
        html = client.get(poll, headers={"HX-Request": "true"}).get_data(as_text=True)
    return html
