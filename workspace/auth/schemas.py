"""Input shapes of the auth pages, validated like every API body (``parse_form``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from workspace.core.schemas import InputModel


class TokenCreate(InputModel):
    """A new personal access token; a blank name takes the default."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = "API token"
