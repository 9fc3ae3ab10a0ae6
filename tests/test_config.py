"""Configuration from the environment (workspace/config.py): every limit, period and
timeout the docs name is set where an operator sets everything else, typed, and a value
that cannot be read stops the start with what to fix."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.factories import app_beside
from workspace.config import TUNABLES, load_config

ROOT = Path(__file__).resolve().parents[1]
#: Read by the code but only tests and benches set them: the embedded job worker (a
#: test starts one when it asks), a cheaper password hash, and CSRF off for test clients.
TEST_ONLY = {"JOBS_EMBEDDED_WORKER", "PASSWORD_HASH_METHOD", "WTF_CSRF_ENABLED"}


def test_documented_limits_are_read_from_the_environment(app, monkeypatch):
    from workspace.analytics import slot_fold
    from workspace.delivery.webhooks import sending

    monkeypatch.setenv("ROLLUP_FOLD_SECONDS", "15")
    monkeypatch.setenv("WEBHOOKS_RETRY_DELAYS", "5, 10")
    monkeypatch.setenv("WEBHOOKS_MAX_PER_ORG", "1")
    monkeypatch.setenv("ASK_RATE_PER_ORG", "3 per minute")
    monkeypatch.setenv("LDAP_READ_TIMEOUT", "2.5")
    tuned = app_beside(app)
    assert slot_fold._period(tuned.config) == timedelta(seconds=15)
    with tuned.app_context():
        assert sending._delays() == [5.0, 10.0]
    assert tuned.config["WEBHOOKS_MAX_PER_ORG"] == 1
    assert tuned.config["ASK_RATE_PER_ORG"] == "3 per minute"
    assert tuned.config["LDAP_READ_TIMEOUT"] == 2.5
    # Unset, a setting is left to the default its reader names.
    assert "WEBHOOKS_DEADLINE" not in tuned.config
    assert slot_fold._period(app.config) == timedelta(seconds=60)


@pytest.mark.parametrize(
    ("name", "raw", "says"),
    [
        ("WEBHOOKS_DEADLINE", "soon", "it must be a number"),
        ("WEBHOOKS_MAX_PER_ORG", "2.5", "it must be a whole number"),
        ("WEBHOOKS_RETRY_DELAYS", "30, later", "numbers separated by commas"),
        ("ALERTS_CHECK_SECONDS", "0", "it must be above zero"),
        ("ASK_RATE_PER_ORG", "lots", "a rate such as '60 per minute'"),
    ],
)
def test_a_value_that_cannot_be_read_stops_the_start(tmp_path, monkeypatch, name, raw, says):
    monkeypatch.setenv(name, raw)
    with pytest.raises(ValueError) as refused:
        load_config(str(tmp_path))
    assert name in str(refused.value) and says in str(refused.value)


def test_every_setting_the_code_reads_can_be_set_from_the_environment(tmp_path):
    """A setting read from the app's config only (ROLLUP_FOLD_SECONDS was one, and
    two dozen limits the docs list) is a knob an operator cannot turn."""
    from workspace import jobs, replica

    read: set[str] = set()
    for path in (ROOT / "workspace").rglob("*.py"):
        text = path.read_text()
        read |= set(
            re.findall(r"config(?:\.get\(|\[|\.setdefault\()\s*\"([A-Z][A-Z0-9_]+)\"", text)
        )
        read |= set(re.findall(r"_cap\(\"([A-Z][A-Z0-9_]+)\"", text))
    settable = set(TUNABLES) | set(load_config(str(tmp_path))) | set(jobs.SETTINGS)
    settable |= set(replica.SETTINGS)
    assert read - settable - TEST_ONLY == set()
    assert read >= TEST_ONLY  # the exceptions are still read, or they go from this list


def test_a_packages_own_settings_are_read_the_same_way(app, monkeypatch):
    """The job queue's and the replica's settings (their own defaults, zero allowed)
    go through the same reader: a bad one names itself, as the limits above do."""
    monkeypatch.setenv("REPLICA_WAIT_SECONDS", "0")
    monkeypatch.setenv("JOBS_SWEEP_SECONDS", "90")
    tuned = app_beside(app, JOBS_EMBEDDED_WORKER=False)
    assert tuned.config["REPLICA_WAIT_SECONDS"] == 0.0
    assert tuned.config["JOBS_SWEEP_SECONDS"] == 90.0
    monkeypatch.setenv("JOBS_SWEEP_SECONDS", "soon")
    with pytest.raises(ValueError, match="JOBS_SWEEP_SECONDS='soon' in the environment"):
        app_beside(app, JOBS_EMBEDDED_WORKER=False)
