"""A fake model provider on loopback that behaves like each provider family.

One real HTTP server (werkzeug, in a thread) with one route per family, each answering
the way the real one does, down to its 400 bodies (docs/ai.md#providers):

- ``/reasoning/v1``: an OpenAI reasoning model (o-series, gpt-5). ``max_tokens`` and a
  ``temperature`` other than 1 are refused with OpenAI's own error bodies.
- ``/json-object/v1``: an OpenAI-compatible server that takes ``response_format``
  ``json_object`` but refuses ``json_schema`` (DeepSeek's error body).
- ``/fenced/v1``: a server that ignores ``response_format`` and wraps its JSON in a
  Markdown code fence after a sentence.
- ``/openai/deployments/{deployment}/chat/completions?api-version=...``: Azure OpenAI.
  The key must come in ``api-key``; a request with ``Authorization`` is refused (as
  Azure refuses a key sent as a bearer token), and so is one without ``api-version``.

Every request is recorded (path, query, headers, JSON) so tests check what was sent.
The chart each family answers with is ``ProviderServer.answer``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from werkzeug.routing import Map, Rule
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response

KEY = "sk-provider-test-key-5678"
#: What the fake model charts unless a test says otherwise; the built-in interpreter
#: reads "how much is done per project" the same way, so tests ask with other words.
ANSWER = {
    "metric": "done",
    "dimension": "project",
    "title": "Completed work per project",
    "kind": None,
    "priority": None,
}

MAX_TOKENS_REFUSED = {
    "error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
}
TEMPERATURE_REFUSED = {
    "error": {
        "message": "Unsupported value: 'temperature' does not support 0 with this model. "
        "Only the default (1) value is supported.",
        "type": "invalid_request_error",
        "param": "temperature",
        "code": "unsupported_value",
    }
}
JSON_SCHEMA_REFUSED = {
    "error": {
        "message": "This response_format type is unavailable now",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request_error",
    }
}
AZURE_DENIED = {
    "error": {
        "code": "401",
        "message": "Access denied due to invalid subscription key or wrong API endpoint. "
        "Make sure to provide a valid key for an active subscription and use a correct "
        "regional API endpoint for your resource.",
    }
}
AZURE_NOT_FOUND = {"error": {"code": "404", "message": "Resource not found"}}
BAD_BEARER = {
    "error": {
        "message": "Incorrect API key provided: sk-wron*****. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }
}


@dataclass
class ProviderServer:
    answer: dict[str, Any] = field(default_factory=lambda: dict(ANSWER))
    requests: list[dict[str, Any]] = field(default_factory=list)
    server: BaseWSGIServer | None = None

    def url(self, path: str) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_port}{path}"

    def reset(self) -> None:
        self.answer = dict(ANSWER)
        self.requests.clear()

    # -- the families ---------------------------------------------------------------------

    def reasoning(self, body: dict[str, Any], request: Request) -> Response:
        if (refused := _bearer_refused(request)) is not None:
            return refused
        if "max_tokens" in body:
            return _json(400, MAX_TOKENS_REFUSED)
        if body.get("temperature", 1) != 1:
            return _json(400, TEMPERATURE_REFUSED)
        # Its thinking counts in the completion budget: 300 tokens would not be enough.
        budget = body.get("max_completion_tokens") or 0
        if budget < 1000:
            return _completion("", "length", completion_tokens=budget)
        return _completion(json.dumps(self.answer), reasoning_tokens=512)

    def json_object(self, body: dict[str, Any], request: Request) -> Response:
        if (refused := _bearer_refused(request)) is not None:
            return refused
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return _json(400, JSON_SCHEMA_REFUSED)
        return _completion("\n  " + json.dumps(self.answer, indent=2) + "\n")

    def fenced(self, body: dict[str, Any], request: Request) -> Response:
        if (refused := _bearer_refused(request)) is not None:
            return refused
        text = "Here is the chart spec:\n```json\n" + json.dumps(self.answer, indent=2) + "\n```"
        return _completion(text)

    def azure(self, body: dict[str, Any], request: Request, deployment: str) -> Response:
        if not request.args.get("api-version"):
            return _json(404, AZURE_NOT_FOUND)
        if "Authorization" in request.headers or request.headers.get("api-key") != KEY:
            return _json(401, AZURE_DENIED)
        return _completion(json.dumps(self.answer), model=f"{deployment}-2024-08-06")

    # -- plumbing ------------------------------------------------------------------------

    def wsgi(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        try:
            endpoint, args = _ROUTES.bind_to_environ(environ).match()
        except Exception:
            response = _json(404, {"error": {"message": "no such route"}})
        else:
            body = request.get_json(silent=True) or {}
            self.requests.append(
                {
                    "family": endpoint,
                    "path": request.path,
                    "args": dict(request.args),
                    "headers": dict(request.headers),
                    "json": body,
                }
            )
            response = getattr(self, endpoint)(body, request, **args)
        return response(environ, start_response)


_ROUTES = Map(
    [
        Rule("/reasoning/v1/chat/completions", endpoint="reasoning", methods=["POST"]),
        Rule("/json-object/v1/chat/completions", endpoint="json_object", methods=["POST"]),
        Rule("/fenced/v1/chat/completions", endpoint="fenced", methods=["POST"]),
        Rule(
            "/openai/deployments/<deployment>/chat/completions",
            endpoint="azure",
            methods=["POST"],
        ),
    ]
)


def _json(status: int, data: dict[str, Any]) -> Response:
    return Response(json.dumps(data), status=status, mimetype="application/json")


def _bearer_refused(request: Request) -> Response | None:
    if request.headers.get("Authorization") != f"Bearer {KEY}":
        return _json(401, BAD_BEARER)
    return None


def _completion(
    content: str,
    finish: str = "stop",
    *,
    completion_tokens: int = 120,
    reasoning_tokens: int = 0,
    model: str = "fake",
) -> Response:
    return _json(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": 800,
                "completion_tokens": completion_tokens + reasoning_tokens,
                "total_tokens": 800 + completion_tokens + reasoning_tokens,
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
            },
        },
    )


def start() -> ProviderServer:
    """Serve on a free loopback port in a daemon thread; ``stop`` ends it."""
    provider = ProviderServer()
    provider.server = make_server("127.0.0.1", 0, provider.wsgi, threaded=True)
    threading.Thread(target=provider.server.serve_forever, daemon=True).start()
    return provider


def stop(provider: ProviderServer) -> None:
    if provider.server is not None:
        provider.server.shutdown()
