from tests.analytics.dashboards.conftest import world  # noqa: F401  (the shared fixture)
