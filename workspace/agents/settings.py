"""The org's model settings: save (key sealed, blank keeps), read, test, remove.

Base URLs are normalized before they are stored (docs/ai.md#base-url), Azure OpenAI
deployment URLs keep their ``api-version``, and what a provider was learnt to refuse
(``quirks``) is forgotten when the model or the base URL changes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from workspace.agents import client, endpoints
from workspace.agents.models import AiSettings, settings_for
from workspace.agents.quirks import Quirks
from workspace.core.events import record_event
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.security.crypto import SecretUnreadable, seal, unseal

#: The test call's whole prompt; "JSON" in it, since json_object mode requires the word.
TEST_PROMPT = 'Reply with the JSON object {"ok": true}.'
TEST_SCHEMA = {
    "name": "test",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    },
}


@dataclass
class TestResult:
    ok: bool
    message: str


@dataclass
class Endpoint:
    """A checked base URL and the api-version that goes with it (None unless Azure)."""

    base_url: str
    api_version: str | None


_BASE_URL_HELP = (
    "Give the provider's base URL starting with https://, e.g. https://api.openai.com/v1 "
    "(or http:// for a model server on your own network)."
)


def check_endpoint(base_url: str, api_version: str | None = None) -> Endpoint:
    """The base URL as it is stored, or a ServiceError saying what to fix."""
    try:
        base_url, pasted_version = endpoints.normalize_base_url(base_url)
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except endpoints.ExtraQuery:
        raise ServiceError(
            "The base URL takes no query (other than Azure's api-version) or fragment; "
            "put the key in API key.",
            field="base_url",
        ) from None
    except ValueError:
        raise ServiceError(_BASE_URL_HELP, field="base_url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceError(_BASE_URL_HELP, field="base_url")
    if parts.username or parts.password:
        raise ServiceError(
            "The base URL takes no credentials; put the key in API key.", field="base_url"
        )
    if not endpoints.is_azure(base_url):
        return Endpoint(base_url, None)  # an api-version means nothing elsewhere
    if not endpoints.is_azure_deployment(base_url) and not parts.path.startswith("/openai/v1"):
        raise ServiceError(
            "For Azure OpenAI give the deployment URL, "
            "https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT.",
            field="base_url",
        )
    version = (api_version or "").strip() or pasted_version
    if endpoints.is_azure_deployment(base_url) and not version:
        raise ServiceError(
            f"Azure OpenAI needs an api-version, e.g. {endpoints.AZURE_DEFAULT_API_VERSION}.",
            field="api_version",
        )
    if version and not endpoints.valid_api_version(version):
        raise ServiceError(
            f"An api-version looks like {endpoints.AZURE_DEFAULT_API_VERSION}.", field="api_version"
        )
    return Endpoint(base_url, version)


def _check_model(model: str) -> str:
    model = model.strip()
    if not model:
        raise ServiceError("Name the model to use, e.g. gpt-4o-mini.", field="model")
    return model


def _same_host(a: str, b: str) -> bool:
    return urlsplit(a).netloc == urlsplit(b).netloc


def save_settings(
    org_id: uuid.UUID,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    actor_id: uuid.UUID | None,
    api_version: str | None = None,
) -> AiSettings:
    """Create or replace the settings. A blank ``api_key`` keeps the stored one; the
    first save needs one. The caller commits."""
    endpoint = check_endpoint(base_url, api_version)
    model = _check_model(model)
    row = settings_for(org_id)
    api_key = (api_key or "").strip() or None
    if row is None:
        if api_key is None:
            raise ServiceError("Give the provider's API key.", field="api_key")
        row = AiSettings(id=uuid.uuid4(), org_id=org_id, base_url=endpoint.base_url, model=model)
        db.session.add(row)
    if api_key is None and not _same_host(row.base_url, endpoint.base_url):
        # The stored key was given for the old host; sending it to a new one is the
        # admin's choice to make with the key in hand, not a side effect of an edit.
        raise ServiceError("The provider's host changed: enter its API key again.", field="api_key")
    if row.base_url != endpoint.base_url or row.model != model:
        row.quirks = None  # learnt from another endpoint or model: learn again
    row.base_url, row.model, row.api_version = endpoint.base_url, model, endpoint.api_version
    if api_key is not None:
        row.api_key_sealed = seal(api_key, row.id)
    record_event(
        org_id,
        "ai.settings_saved",
        actor_id=actor_id,
        subject=model,
        base_url=endpoint.base_url,
        key_changed=api_key is not None,
    )
    db.session.flush()
    return row


def remove_settings(org_id: uuid.UUID, *, actor_id: uuid.UUID | None) -> bool:
    """Forget the model (and its key): asks go back to the offline interpreter. The
    runs stay. False when there was nothing to remove."""
    row = settings_for(org_id)
    if row is None:
        return False
    record_event(
        org_id, "ai.settings_removed", actor_id=actor_id, subject=row.model, base_url=row.base_url
    )
    db.session.delete(row)
    db.session.flush()
    return True


def _target(
    row: AiSettings | None,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    api_version: str | None,
) -> endpoints.Target:
    """The endpoint to test: what was typed, the saved value for what was left blank.
    The stored key goes only to the host it was given for."""
    base_url = (base_url or "").strip() or (row.base_url if row else "")
    model = (model or "").strip() or (row.model if row else "")
    if not base_url or not model:
        raise ServiceError(
            "Fill in the base URL and the model to test.",
            field="model" if base_url else "base_url",
        )
    endpoint = check_endpoint(base_url, api_version or (row.api_version if row else None))
    model = _check_model(model)
    key = (api_key or "").strip()
    if not key:
        if row is None or not row.has_api_key:
            raise ServiceError("Give the provider's API key.", field="api_key")
        if not _same_host(row.base_url, endpoint.base_url):
            raise ServiceError(
                "The provider's host changed: enter its API key to test it.", field="api_key"
            )
        try:
            key = unseal(row.api_key_sealed or "", row.id)
        except SecretUnreadable:
            raise ServiceError(
                "The stored API key cannot be read; enter it again.", field="api_key"
            ) from None
    return endpoints.Target(endpoint.base_url, key, model, endpoint.api_version)


def test_settings(
    org_id: uuid.UUID,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    api_version: str | None = None,
) -> TestResult:
    """One tiny call in the shape an ask sends, with the values given (blank ones from
    the saved settings), saving nothing; a ServiceError names a value that cannot be
    tested. It costs no credits and is not an AI run. What
    it learns about the saved endpoint and model is kept for the asks."""
    row = settings_for(org_id)
    if row is None and not (base_url or model or api_key):
        return TestResult(
            False, "No model is configured yet; save the settings first, or test typed ones."
        )
    # Values that cannot be tested (a bad URL, no key for a new host) are a 400 by field.
    target = _target(row, base_url, model, api_key, api_version)
    saved = row is not None and row.base_url == target.base_url
    quirks = Quirks.load(row.quirks, target.model) if saved else Quirks()
    try:
        answer = client.chat(
            target,
            [{"role": "user", "content": TEST_PROMPT}],
            quirks=quirks,
            schema=TEST_SCHEMA,
            max_tokens=5,
        )
    except client.ModelError as exc:
        _keep(row, target, exc.quirks, exc.learnt)
        return TestResult(False, exc.message)
    _keep(row, target, answer.quirks, answer.learnt)
    message = f"The model {target.model} answered in {answer.latency_ms} ms."
    if answer.quirks.describe():
        message += " This endpoint " + "; ".join(answer.quirks.describe()) + "."
    return TestResult(True, message)


def _keep(
    row: AiSettings | None, target: endpoints.Target, quirks: Quirks, learnt: list[str]
) -> None:
    if learnt and row is not None and (row.base_url, row.model) == (target.base_url, target.model):
        row.quirks = quirks.store(row.quirks, row.model)
        db.session.flush()
