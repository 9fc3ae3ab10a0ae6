"""Analytics: the tasks that count, the maintained rollups and the reads over them, the
charts, the drill-down links and ``flask analytics``. The subpackages build on these and
nothing here imports them: ``pql`` (the filter language), ``reports`` (the Analytics
page and its JSON API) and ``dashboards``; the app factory registers each."""

from flask import Flask

from workspace.analytics import cli


def init_app(app: Flask) -> None:
    """Register ``flask analytics`` and the slot fold's schedule (the reports and
    dashboards register themselves)."""
    from workspace.analytics import slot_fold  # noqa: F401  (registers its job)

    app.cli.add_command(cli.analytics_group)
