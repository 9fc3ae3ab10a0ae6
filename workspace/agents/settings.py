"""The org's model settings: save (key sealed, blank keeps), read, test."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from workspace.agents import client
from workspace.agents.models import AiSettings, settings_for
from workspace.core.events import record_event
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.crypto import SecretUnreadable, seal, unseal


@dataclass
class TestResult:
    ok: bool
    message: str


_BASE_URL_HELP = (
    "Give the provider's base URL starting with https://, e.g. https://api.openai.com/v1."
)


def _check_base_url(base_url: str) -> str:
    base_url = base_url.strip().rstrip("/")
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError:
        raise ServiceError(_BASE_URL_HELP, field="base_url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceError(_BASE_URL_HELP, field="base_url")
    if parts.query or parts.fragment or parts.username:
        raise ServiceError(
            "The base URL takes no query, fragment or credentials; put the key in API key.",
            field="base_url",
        )
    return base_url


def save_settings(
    org_id: uuid.UUID,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    actor_id: uuid.UUID | None,
) -> AiSettings:
    """Create or replace the settings. A blank ``api_key`` keeps the stored one; the
    first save needs one. The caller commits."""
    base_url = _check_base_url(base_url)
    model = model.strip()
    if not model:
        raise ServiceError("Name the model to use, e.g. gpt-4o-mini.", field="model")
    row = settings_for(org_id)
    api_key = (api_key or "").strip() or None
    if row is None:
        if api_key is None:
            raise ServiceError("Give the provider's API key.", field="api_key")
        row = AiSettings(id=uuid.uuid4(), org_id=org_id, base_url=base_url, model=model)
        db.session.add(row)
    if api_key is None and urlsplit(row.base_url).netloc != urlsplit(base_url).netloc:
        # The stored key was given for the old host; sending it to a new one is the
        # admin's choice to make with the key in hand, not a side effect of an edit.
        raise ServiceError("The provider's host changed: enter its API key again.", field="api_key")
    row.base_url, row.model = base_url, model
    if api_key is not None:
        row.api_key_sealed = seal(api_key, row.id)
    record_event(
        org_id,
        "ai.settings_saved",
        actor_id=actor_id,
        subject=model,
        base_url=base_url,
        key_changed=api_key is not None,
    )
    db.session.flush()
    return row


def test_settings(org_id: uuid.UUID) -> TestResult:
    """One tiny call with the saved settings. It costs no credits and is not an AI run
    (it asks for at most a few tokens)."""
    row = settings_for(org_id)
    if row is None or not row.has_api_key:
        return TestResult(False, "No model is configured yet; save the settings first.")
    try:
        key = unseal(row.api_key_sealed or "", row.id)
    except SecretUnreadable:
        return TestResult(False, "The stored API key cannot be read; enter it again and save.")
    try:
        answer = client.chat(
            row.base_url,
            key,
            row.model,
            [{"role": "user", "content": "Reply with the single word OK."}],
            max_tokens=5,
        )
    except client.ModelError as exc:
        return TestResult(False, exc.message)
    return TestResult(True, f"The model {row.model} answered in {answer.latency_ms} ms.")
