"""Settings > Group sync: the mappings every source feeds (docs/sso.md#group-sync), and
the dry-run previews of an SSO sign-in and of a directory sign-in. It sits above both
sign-in subpackages because it shows both; neither of them reaches the other."""

from flask import Flask

from workspace.identity.group_sync_pages import views


def init_app(app: Flask) -> None:
    app.register_blueprint(views.bp)
