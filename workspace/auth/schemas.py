"""Input shapes of the auth pages, validated like every API body (``parse_form``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from workspace.core.schemas import InputModel
from workspace.inputs import QueryModel


class TokenCreate(InputModel):
    """A new personal access token; a blank name takes the default."""

    name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] = "API token"


#: A text taken as typed: a password's spaces are part of it, and a ``next`` path is
#: judged by ``safe_next`` as it was sent.
AsTyped = Annotated[str, StringConstraints(strip_whitespace=False)]


class NextQuery(QueryModel):
    """Where to go after signing in."""

    next: AsTyped | None = None


class PasswordSignIn(InputModel):
    """The email and password form; the email is trimmed, the password is not."""

    email: str = ""
    password: AsTyped = ""
    next: AsTyped | None = None


class LinkConfirm(InputModel):
    """The account-link page: ``cancel``, or confirm with a password when the browser
    has not signed in again since the link was requested."""

    action: str = "confirm"
    password: AsTyped = ""


class InviteAccept(InputModel):
    """An invitation link's form: a password to choose, when the account has none."""

    password: AsTyped | None = None
