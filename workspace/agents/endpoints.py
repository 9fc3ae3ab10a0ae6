"""Where a chat completion goes (docs/ai.md#providers): the base URL as stored, and
Azure OpenAI's shape (its deployment URL, an ``api-version``, the key in ``api-key``).
:class:`Target` is what :func:`workspace.agents.client.chat` sends to."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

#: Azure OpenAI (docs/ai.md#azure-openai): its hosts, and the deployment path that marks
#: an Azure-shaped URL on any host (a gateway, or the test server on loopback).
AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com")
_AZURE_DEPLOYMENT = re.compile(r"/openai/deployments/[^/]+$")
#: Offered in the form's help; a GA version that supports structured output.
AZURE_DEFAULT_API_VERSION = "2024-10-21"
_API_VERSION = re.compile(r"^[A-Za-z0-9.\-]{1,40}$")


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
