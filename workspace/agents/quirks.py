"""What a provider accepts (docs/ai.md#providers), learnt from its 400s: reasoning
models refuse ``max_tokens`` and a non-default ``temperature``, many compatible servers
take ``json_object`` but not ``json_schema``. :func:`learn` reads a refusal and names
the shape to send instead; :class:`Quirks` keeps what was learnt, per model, on the
org's AI settings."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

_REFUSED = re.compile(
    r"unsupported|not supported|does not support|unavailable|not available|not allowed"
    r"|unrecognized|unknown|not permitted|extra (inputs|fields)|only the default",
    re.I,
)


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
