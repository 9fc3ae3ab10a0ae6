"""Mail on the System pages (docs/delivery.md#mail): the SMTP settings, the test mail
and the outbox, for the instance's operators. A subpackage over ``system.views``
(its operators-only gate), so it registers itself from the app factory's
``CAPABILITIES`` and ``system`` never imports it."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    from workspace.system.mail import views

    app.register_blueprint(views.bp)
