"""Outbound webhooks (issue 30, docs/delivery.md#webhooks): org admins' endpoints get
the org's audit events and task changes, signed per Standard Webhooks, at least once.
The JSON API and pages live in ``workspace.admin.webhooks`` (above this layer)."""

from flask import Flask


def init_app(app: Flask) -> None:
    """The models, the outbox listener and the job handlers."""
    from workspace.delivery.webhooks import models, outbox, sending  # noqa: F401  (registers)

    outbox.install()
