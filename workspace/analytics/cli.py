"""``flask analytics verify [--org ORG] [--repair]``: compare the maintained rollup with
a scan of the tasks, and rewrite what differs (docs/analytics.md#maintained-rollups)."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from workspace.analytics import consistency
from workspace.core.orgs import find_org
from workspace.progress import Progress
from workspace.transaction import transactional


@click.group("analytics", cls=AppGroup)
def analytics_group() -> None:
    """Analytics maintenance."""


@transactional
def _verify(org_ref: str | None, repair: bool) -> consistency.Verification:
    org_id = None
    if org_ref:
        org = find_org(org_ref)
        if org is None:
            raise click.ClickException(f"No organization {org_ref!r}.")
        org_id = org.id
    # Each rollup as it is compared (stderr): a bar on a terminal, lines in logs.
    label = "analytics verify" + (" --repair" if repair else "")
    with Progress(label, len(consistency.ROLLUPS), "rollups") as rollups:
        return consistency.verify(org_id, repair=repair, on_rollup=rollups.advance)


@analytics_group.command("verify")
@click.option("--org", "org_ref", default=None, help="One org (slug or id); default all.")
@click.option("--repair", is_flag=True, help="Rewrite the rollup rows of orgs that differ.")
def verify_command(org_ref: str | None, repair: bool) -> None:
    """Check the maintained task counts against a scan; exit 1 when they differ and
    were not repaired."""
    result = _verify(org_ref, repair)
    click.echo(
        f"{result.buckets} buckets; missing {result.missing}, extra {result.extra}, "
        f"wrong {result.wrong}" + ("; repaired" if result.repaired else "")
    )
    if not result.ok and not result.repaired:
        raise SystemExit(1)
