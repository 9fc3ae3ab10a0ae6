"""An OpenAI-compatible chat-completions call over HTTP, through the outbound guard.

Only the slice of the API the service needs: one POST to ``{base_url}/chat/completions``
with a bearer key, optionally asking for structured output (``response_format`` of
type ``json_schema``, which OpenAI, vLLM, llama.cpp server, Ollama and LiteLLM accept).
Every failure becomes a :class:`ModelError` whose ``kind`` says what went wrong and
whose message is safe to show an admin (it never holds the key).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from workspace.inputs import fit_external
from workspace.security.outbound import OutboundError, OutboundTimeout, fetch

#: How much of a provider's answer body we keep (stored on the run, shown to an admin).
BODY_LIMIT = 4000
#: How much of a provider's error message an admin reads.
DETAIL_LIMIT = 300


@dataclass
class Completion:
    """The text the model answered (or a tool call's arguments) and its usage."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int


class ModelError(Exception):
    """``kind`` is ``timeout``, ``unreachable`` or ``provider_error``; ``body`` is the
    provider's answer, truncated, when there was one."""

    def __init__(self, kind: str, message: str, body: str | None = None, latency_ms: int = 0):
        super().__init__(message)
        self.kind, self.message, self.body, self.latency_ms = kind, message, body, latency_ms


def endpoint(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


def _is_timeout(exc: OutboundError) -> bool:
    # Connect or read timeout, or the total deadline (OUTBOUND_DEADLINE) for a
    # provider that trickles its answer.
    return isinstance(exc, OutboundTimeout)


def chat(
    base_url: str,
    api_key: str,
    model: str,
    messages: list[dict[str, str]],
    *,
    response_format: dict[str, Any] | None = None,
    max_tokens: int = 300,
) -> Completion:
    """One chat completion. Raises :class:`ModelError` on any failure."""
    payload: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": 0,
        "max_tokens": max_tokens,
    }
    if response_format is not None:
        payload["response_format"] = response_format
    started = time.monotonic()
    try:
        response = fetch(
            "POST",
            endpoint(base_url),
            json=payload,
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
        )
    except OutboundError as exc:
        elapsed = int((time.monotonic() - started) * 1000)
        kind = "timeout" if _is_timeout(exc) else "unreachable"
        raise ModelError(kind, str(exc), latency_ms=elapsed) from exc
    elapsed = int((time.monotonic() - started) * 1000)
    body = fit_external(response.text, BODY_LIMIT)
    if response.status_code >= 400:
        raise ModelError(
            "provider_error",
            f"The model provider answered HTTP {response.status_code}: {_error_detail(body)}",
            body=body,
            latency_ms=elapsed,
        )
    try:
        data = response.json()
        message = data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelError(
            "provider_error",
            "The provider's answer is not a chat completion.",
            body=body,
            latency_ms=elapsed,
        ) from exc
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Completion(
        content=_content(message),
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
        latency_ms=elapsed,
    )


def _content(message: Any) -> str:
    """The answer text; a tool call's arguments when the model answered with one."""
    if not isinstance(message, dict):
        return ""
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls:
        args = (calls[0] or {}).get("function", {}).get("arguments")
        if isinstance(args, str):
            return args
        if isinstance(args, dict):
            return json.dumps(args)
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _error_detail(body: str) -> str:
    """The provider's own error message when it sent the usual ``{"error": {...}}``."""
    try:
        error = json.loads(body).get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return fit_external(error["message"], DETAIL_LIMIT)
        if isinstance(error, str):
            return fit_external(error, DETAIL_LIMIT)
    except (ValueError, AttributeError):
        pass
    return fit_external(body, DETAIL_LIMIT) or "no details"
