"""An OpenAI-compatible chat-completions call over HTTP, through the outbound guard.

Only the slice of the API the service needs: one POST to ``{base_url}/chat/completions``
(:class:`~workspace.agents.endpoints.Target` says where, with which key) asking, when
the caller wants structured output, for ``response_format`` of type ``json_schema``.
Providers differ in what they accept (docs/ai.md#providers); what a provider refuses
with a 400 is learnt (:class:`~workspace.agents.quirks.Quirks`) and the request is sent
again at once in the shape it accepts, at most :data:`MAX_ATTEMPTS` times, all within
one ``OUTBOUND_DEADLINE``.

Every failure becomes a :class:`ModelError` whose ``kind`` says what went wrong and
whose message is safe to show (the key is never in it, nor in a stored body).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from workspace.agents.endpoints import Target
from workspace.agents.quirks import Quirks, learn
from workspace.inputs import fit_external
from workspace.security import outbound
from workspace.security.outbound import OutboundError, OutboundTimeout

#: How much of a provider's answer body we keep (stored on the run, shown to an admin).
BODY_LIMIT = 4000
#: How much of a provider's error message an admin reads.
DETAIL_LIMIT = 300
#: One ask sends its request at most this often: the first shape and two learnt ones
#: (an OpenAI reasoning model refuses ``max_tokens``, then ``temperature``).
MAX_ATTEMPTS = 3
#: A retry is only worth starting with at least this much of the deadline left.
MIN_RETRY_SECONDS = 0.5
#: What a provider answers when it refuses a parameter (400, or 422 from FastAPI servers).
_REFUSAL_STATUSES = (400, 422)
_KEYLIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-*.]{4,}")


@dataclass
class Completion:
    """The text the model answered (or a tool call's arguments) and its usage."""

    content: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    finish_reason: str = ""
    quirks: Quirks = field(default_factory=Quirks)
    #: What this call learnt, in order (e.g. ``max_completion_tokens``).
    learnt: list[str] = field(default_factory=list)


class ModelError(Exception):
    """``kind`` is ``timeout``, ``unreachable`` or ``provider_error``; ``body`` is the
    provider's answer, truncated, when there was one; ``detail`` the short reason
    (``HTTP 400: ...``). ``quirks`` and ``learnt`` keep what was learnt on the way."""

    def __init__(
        self,
        kind: str,
        message: str,
        body: str | None = None,
        latency_ms: int = 0,
        *,
        detail: str = "",
        quirks: Quirks | None = None,
        learnt: list[str] | None = None,
    ):
        super().__init__(message)
        self.kind, self.message, self.body, self.latency_ms = kind, message, body, latency_ms
        self.detail = detail or message
        self.quirks = quirks or Quirks()
        self.learnt = learnt or []


def redact(text: str, key: str) -> str:
    """``text`` without the key, or anything shaped like one a provider echoes back."""
    if key:
        text = text.replace(key, "[key]")
    return _KEYLIKE.sub("[key]", text)


def _payload(
    model: str,
    messages: list[dict[str, str]],
    quirks: Quirks,
    schema: dict[str, Any] | None,
    max_tokens: int,
    reasoning_tokens: int,
) -> dict[str, Any]:
    payload: dict[str, Any] = {"model": model, "messages": messages}
    if quirks.temperature:
        payload["temperature"] = 0
    if quirks.max_completion_tokens:
        # Reasoning models count their thinking in this budget, hence the larger one.
        payload["max_completion_tokens"] = reasoning_tokens
    else:
        payload["max_tokens"] = max_tokens
    if schema is not None and quirks.response_format == "json_schema":
        payload["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif schema is not None and quirks.response_format == "json_object":
        payload["response_format"] = {"type": "json_object"}
    return payload


def chat(
    target: Target,
    messages: list[dict[str, str]],
    *,
    quirks: Quirks | None = None,
    schema: dict[str, Any] | None = None,
    max_tokens: int = 300,
    reasoning_tokens: int | None = None,
) -> Completion:
    """One chat completion, in the shape the provider accepts (learning it from its
    400s). ``schema`` is the ``json_schema`` block for structured output. Raises
    :class:`ModelError` on any failure."""
    quirks = quirks or Quirks()
    learnt: list[str] = []
    total = float(current_app.config.get("OUTBOUND_DEADLINE", 15))
    started = time.monotonic()

    def elapsed_ms() -> int:
        return int((time.monotonic() - started) * 1000)

    for attempt in range(1, MAX_ATTEMPTS + 1):
        payload = _payload(
            target.model, messages, quirks, schema, max_tokens, reasoning_tokens or max_tokens
        )
        left = total - (time.monotonic() - started)
        try:
            response = outbound.fetch(
                "POST", target.url(), deadline=left, json=payload, headers=target.headers()
            )
        except OutboundError as exc:
            kind = "timeout" if isinstance(exc, OutboundTimeout) else "unreachable"
            message = redact(str(exc), target.api_key)
            raise ModelError(
                kind, message, latency_ms=elapsed_ms(), quirks=quirks, learnt=learnt
            ) from exc
        body = redact(fit_external(response.text, BODY_LIMIT), target.api_key)
        if response.status_code in _REFUSAL_STATUSES and attempt < MAX_ATTEMPTS:
            change = learn(quirks, body, payload)
            if change is not None and total - (time.monotonic() - started) > MIN_RETRY_SECONDS:
                quirks, what = change
                learnt.append(what)
                continue
        break
    latency = elapsed_ms()
    if response.status_code >= 400:
        detail = f"HTTP {response.status_code}: {_error_detail(body)}"
        raise ModelError(
            "provider_error",
            f"The model provider answered {detail}",
            body=body,
            latency_ms=latency,
            detail=detail,
            quirks=quirks,
            learnt=learnt,
        )
    try:
        data = response.json()
        choice = data["choices"][0]
        message = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelError(
            "provider_error",
            "The provider's answer is not a chat completion.",
            body=body,
            latency_ms=latency,
            detail="the answer is not a chat completion",
            quirks=quirks,
            learnt=learnt,
        ) from exc
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    return Completion(
        content=_content(message),
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
        latency_ms=latency,
        finish_reason=finish if isinstance(finish, str) else "",
        quirks=quirks,
        learnt=learnt,
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
