"""Webhooks on the org's settings (docs/delivery.md#webhooks): the JSON API and the
pages over ``workspace.delivery.webhooks``. A subpackage registered from the app
factory's ``CAPABILITIES``, so ``admin`` itself never imports it."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.admin.webhooks import api, views
    from workspace.delivery import webhooks

    webhooks.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
