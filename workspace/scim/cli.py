"""``flask scim token ORG``: a new SCIM token from the command line (for scripts
and the conformance run); printed once, like on the settings page."""

from __future__ import annotations

import click

from workspace.core.orgs import find_org
from workspace.scim.tokens import generate_token
from workspace.transaction import transactional


@click.group("scim")
def scim_group() -> None:
    """SCIM provisioning."""


@transactional
def _new_token(org_ref: str) -> str:
    """One unit of work, committed like a request when it returns."""
    org = find_org(org_ref)
    if org is None:
        raise click.ClickException(f"No organization {org_ref!r}.")
    _, raw = generate_token(org.id, None)
    return raw


@scim_group.command("token")
@click.argument("org_ref")
def token_command(org_ref: str) -> None:
    """Print a new SCIM token for ORG_REF (slug or id); the old one stops working."""
    click.echo(_new_token(org_ref))
