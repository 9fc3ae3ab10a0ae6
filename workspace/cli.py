"""Command-line entry points: ``flask --app app demo|orgs|tokens|bench-data``."""

from __future__ import annotations

import secrets
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext
from sqlalchemy import select

from workspace import benchdata, seed
from workspace.auth.api_tokens import create_token
from workspace.auth.passwords import set_password
from workspace.core.accounts import ensure_account, find_account
from workspace.core.models import Org
from workspace.core.orgs import active_membership, create_org, find_org
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.progress import Progress
from workspace.transaction import unit_of_work


def init_app(app: Flask) -> None:
    app.cli.add_command(demo_command)
    app.cli.add_command(orgs_group)
    app.cli.add_command(tokens_group)
    app.cli.add_command(benchdata.bench_data_command)


@click.command("demo")
@with_appcontext
@click.option("--tasks", "task_count", default=2000, show_default=True, type=click.IntRange(0))
@click.option("--password", default=None, help="Owner password (random when omitted).")
@click.option(
    "--if-empty",
    is_flag=True,
    help="Seed only when the database has no org; otherwise print where to sign in.",
)
def demo_command(task_count: int, password: str | None, if_empty: bool) -> None:
    """Seed the demo org "Acme" on an empty database."""

    base = current_app.config["BASE_URL"]
    # The demo password is kept beside the database so `make run` can repeat it;
    # it is a local convenience for the seeded demo only.
    saved = Path(current_app.instance_path) / "demo_password"
    if if_empty and db.session.scalar(select(Org.id).limit(1)):
        org = db.session.scalar(select(Org).where(Org.slug == "acme"))
        if org is not None:
            hint = saved.read_text().strip() if saved.exists() else "the one printed at seeding"
            click.echo(
                f"Demo org Acme (id {org.id}): sign in at {base}/signin as "
                f"owner@acme.test with password {hint}"
            )
        else:
            click.echo(f"Sign in at {base}/signin")
        return
    # The tasks as they are written (stderr): a bar on a terminal, lines in logs.
    with Progress("demo", task_count, "tasks") as tasks, unit_of_work():
        try:
            result = seed.seed_demo(
                task_count=task_count, password=password, on_tasks=tasks.advance
            )
        except ValueError as exc:  # a password the policy refuses
            raise click.ClickException(str(exc)) from exc
        if result is None:
            raise click.ClickException("The demo org 'acme' exists already; nothing seeded.")
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(result.password)
    saved.chmod(0o600)
    click.echo(f"Demo org Acme seeded: org id {result.org_id}")
    click.echo(f"Sign in at {base}/signin as {result.owner_email} with password {result.password}")


@click.group("orgs", cls=AppGroup)
def orgs_group() -> None:
    """Manage organizations."""


@orgs_group.command("create")
@click.argument("name")
@click.option("--owner", "owner_email", required=True, help="Email of the first owner.")
@click.option("--slug", default=None)
@click.option("--password", default=None, help="Password for a new owner account.")
def create_org_command(name: str, owner_email: str, slug: str | None, password: str | None) -> None:
    """Create an org and its owner (the account is created when absent)."""

    new_password = None
    try:
        with unit_of_work():
            account = ensure_account(owner_email)
            if account.password_hash is None:
                new_password = password or secrets.token_urlsafe(12)
                set_password(account, new_password)
            org = create_org(name, account, slug)
    except ServiceError as exc:
        raise click.ClickException(exc.message) from exc
    except ValueError as exc:  # a password the policy refuses
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Created org {org.name} ({org.slug}), id {org.id}")
    if new_password:
        click.echo(f"Owner {account.email} signs in with password {new_password}")


@click.group("tokens", cls=AppGroup)
def tokens_group() -> None:
    """Manage personal access tokens."""


@tokens_group.command("create")
@click.argument("email")
@click.option("--org", "org_ref", required=True, help="Org slug or id.")
@click.option("--name", default="CLI token")
def create_token_command(email: str, org_ref: str, name: str) -> None:
    """Print a new API token for a member of an org (shown once)."""

    org = find_org(org_ref)
    account = find_account(email)
    if org is None or account is None or active_membership(org.id, account.id) is None:
        raise click.ClickException(f"{email} is not an active member of {org_ref}.")
    with unit_of_work():  # a command is one unit of work, like a request
        _, raw = create_token(account, org, name)
    click.echo(raw)
