"""An OpenAI-compatible chat-completions call over HTTP, through the outbound guard.

Only the slice of the API the service needs: one POST to ``{base_url}/chat/completions``
asking, when the caller wants structured output, for ``response_format`` of type
``json_schema``. Providers differ in what they accept (docs/ai.md#providers): reasoning
models refuse ``max_tokens`` and a non-default ``temperature``, many compatible servers
take ``json_object`` but not ``json_schema``, Azure OpenAI wants its deployment URL, an
``api-version`` and the key in ``api-key``. What a provider refuses with a 400 is
learnt (:class:`Quirks`) and the request is sent again at once in the shape it accepts,
at most :data:`MAX_ATTEMPTS` times, all within one ``OUTBOUND_DEADLINE``.

Every failure becomes a :class:`ModelError` whose ``kind`` says what went wrong and
whose message is safe to show (the key is never in it, nor in a stored body).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import current_app

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
_REFUSED = re.compile(
    r"unsupported|not supported|does not support|unavailable|not available|not allowed"
    r"|unrecognized|unknown|not permitted|extra (inputs|fields)|only the default",
    re.I,
)
_KEYLIKE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-*.]{4,}")

#: Azure OpenAI (docs/ai.md#azure-openai): its hosts, and the deployment path that marks
#: an Azure-shaped URL on any host (a gateway, or the test server on loopback).
AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com")
_AZURE_DEPLOYMENT = re.compile(r"/openai/deployments/[^/]+$")
#: Offered in the form's help; a GA version that supports structured output.
AZURE_DEFAULT_API_VERSION = "2024-10-21"
_API_VERSION = re.compile(r"^[A-Za-z0-9.\-]{1,40}$")


# -- where to send it -----------------------------------------------------------------------


class ExtraQuery(ValueError):
    """A base URL with a query other than ``api-version``, or a fragment."""


def normalize_base_url(url: str) -> tuple[str, str | None]:
    """The base URL as stored, and the ``api-version`` its query carried (Azure URLs are
    often pasted whole). A trailing ``/``, a trailing ``/chat/completions`` and a doubled
    ``/v1`` are removed. Raises :class:`ExtraQuery` for any other query or a fragment,
    ValueError for a URL that does not parse."""
    parts = urlsplit(url.strip())
    version = None
    if parts.query:
        pairs = [p.partition("=") for p in parts.query.split("&") if p]
        if any(name != "api-version" for name, _, _ in pairs):
            raise ExtraQuery("query")
        version = pairs[-1][2] or None
    if parts.fragment:
        raise ExtraQuery("fragment")
    path = parts.path.rstrip("/")
    while path.endswith("/chat/completions"):
        path = path.removesuffix("/chat/completions").rstrip("/")
    path = re.sub(r"(?:/v1){2,}(?=/|$)", "/v1", path)
    return parts._replace(path=path, query="", fragment="").geturl(), version


def is_azure(base_url: str) -> bool:
    """An Azure OpenAI endpoint: an Azure host, or the deployment path on any host."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    return host.endswith(AZURE_HOSTS) or bool(_AZURE_DEPLOYMENT.search(parts.path))


def is_azure_deployment(base_url: str) -> bool:
    return bool(_AZURE_DEPLOYMENT.search(urlsplit(base_url).path))


def valid_api_version(value: str) -> bool:
    return bool(_API_VERSION.match(value))


@dataclass(frozen=True)
class Target:
    """One provider endpoint and the key for it."""

    base_url: str
    api_key: str
    model: str
    api_version: str | None = None

    def url(self) -> str:
        url = self.base_url + "/chat/completions"
        if self.api_version and is_azure_deployment(self.base_url):
            url += "?" + urlencode({"api-version": self.api_version})
        return url

    def headers(self) -> dict[str, str]:
        if is_azure(self.base_url):
            # Azure reads the key from api-key; a bearer token there means Entra ID.
            return {"api-key": self.api_key, "Accept": "application/json"}
        return {"Authorization": f"Bearer {self.api_key}", "Accept": "application/json"}


# -- what the provider accepts ----------------------------------------------------------------


@dataclass(frozen=True)
class Quirks:
    """What one model was learnt to need; the defaults are OpenAI's classic shape."""

    max_completion_tokens: bool = False
    temperature: bool = True
    #: json_schema, json_object or none (the prompt alone asks for JSON).
    response_format: str = "json_schema"

    @classmethod
    def load(cls, stored: str | None, model: str) -> Quirks:
        try:
            data = json.loads(stored or "{}").get(model) or {}
            return cls(
                max_completion_tokens=data.get("max_completion_tokens") is True,
                temperature=data.get("temperature") is not False,
                response_format=data.get("response_format", "json_schema")
                if data.get("response_format") in ("json_object", "none")
                else "json_schema",
            )
        except (ValueError, AttributeError):
            return cls()

    def store(self, stored: str | None, model: str) -> str | None:
        """``stored`` with this model's entry replaced (other models' kept)."""
        try:
            data = json.loads(stored or "{}")
            data = data if isinstance(data, dict) else {}
        except ValueError:
            data = {}
        entry: dict[str, Any] = {}
        if self.max_completion_tokens:
            entry["max_completion_tokens"] = True
        if not self.temperature:
            entry["temperature"] = False
        if self.response_format != "json_schema":
            entry["response_format"] = self.response_format
        if entry:
            data[model] = entry
        else:
            data.pop(model, None)
        return json.dumps(data, sort_keys=True) if data else None

    def describe(self) -> list[str]:
        said = []
        if self.max_completion_tokens:
            said.append("sends max_completion_tokens instead of max_tokens")
        if not self.temperature:
            said.append("leaves temperature at the model's default")
        if self.response_format == "json_object":
            said.append("asks for a JSON object (json_schema refused)")
        elif self.response_format == "none":
            said.append("asks for JSON in the prompt only (response_format refused)")
        return said


def _refusal(body: str) -> tuple[str, str, str]:
    """(param, message, code) of a provider's 400, from OpenAI's ``{"error": {...}}`` or
    a FastAPI server's ``{"detail": [{"loc": [...], "msg": ...}]}``."""
    try:
        data = json.loads(body)
    except ValueError:
        return "", body, ""
    if not isinstance(data, dict):
        return "", body, ""
    error = data.get("error")
    if isinstance(error, dict):
        return (
            str(error.get("param") or ""),
            str(error.get("message") or ""),
            str(error.get("code") or ""),
        )
    detail = data.get("detail")
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        loc = detail[0].get("loc") or []
        return str(loc[-1] if loc else ""), str(detail[0].get("msg") or ""), ""
    return "", str(error or detail or body), ""


def learn(quirks: Quirks, body: str, payload: dict[str, Any]) -> tuple[Quirks, str] | None:
    """The shape to send instead, when the refusal names a parameter we sent and can
    change; None when it does not (the error then stands)."""
    param, message, code = _refusal(body)
    if code not in ("unsupported_parameter", "unsupported_value") and not _REFUSED.search(message):
        return None
    said = f"{param} {message}".lower()

    def blamed(name: str) -> bool:
        return param == name or bool(re.search(rf"\b{name}\b", said))

    if "max_tokens" in payload and blamed("max_tokens"):
        return replace(quirks, max_completion_tokens=True), "max_completion_tokens"
    if "max_completion_tokens" in payload and blamed("max_completion_tokens"):
        return replace(quirks, max_completion_tokens=False), "max_tokens"
    if "temperature" in payload and blamed("temperature"):
        return replace(quirks, temperature=False), "default temperature"
    if "response_format" in payload and any(
        blamed(n) for n in ("response_format", "json_schema", "json_object")
    ):
        step = "json_object" if quirks.response_format == "json_schema" else "none"
        return replace(quirks, response_format=step), f"response_format {step}"
    return None


# -- the call -----------------------------------------------------------------------------------


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
