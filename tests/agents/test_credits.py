"""AI credit arithmetic: the monthly pool, month boundaries in UTC, seat changes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.agents.conftest import configure_model, make_project
from tests.conftest import add_person
from workspace.agents import ask, credits
from workspace.agents.models import AiRun
from workspace.analytics.scope import make_scope
from workspace.core.accounts import add_member, end_membership
from workspace.core.models import Account, AccountKind, Org, OrgMember
from workspace.extensions import db


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def spend(org_id, when: datetime, amount: int) -> None:
    db.session.add(
        AiRun(
            org_id=org_id,
            prompt="p",
            outcome="ok",
            metric="count",
            dimension="status",
            title="t",
            credits_charged=amount,
            created_at=when,
        )
    )
    db.session.commit()


@pytest.mark.parametrize(
    ("tokens", "charged"), [(0, 1), (1, 2), (999, 2), (1000, 2), (1001, 3), (25_000, 26)]
)
def test_cost_rule(tokens, charged):
    assert credits.cost(tokens) == charged


def test_month_bounds_are_calendar_months_in_utc():
    assert credits.month_bounds(at(2026, 11, 22, 4)) == (at(2026, 11, 1), at(2026, 12, 1))
    assert credits.month_bounds(at(2026, 12, 31, 23, 59)) == (at(2026, 12, 1), at(2027, 1, 1))
    # 00:30 on Dec 1 in Berlin is still November in UTC.
    from zoneinfo import ZoneInfo

    berlin = datetime(2026, 12, 1, 0, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    assert credits.month_bounds(berlin)[0] == at(2026, 11, 1)


def test_usage_across_a_month_boundary(app, acme):
    with app.app_context():
        spend(acme.org_id, at(2026, 11, 1, 0, 0), 7)
        spend(acme.org_id, at(2026, 11, 30, 23, 59, 59), 10)
        spend(acme.org_id, at(2026, 12, 1, 0, 0, 0), 3)
        spend(acme.org_id, at(2026, 10, 31, 23, 59, 59), 400)
        assert credits.usage(acme.org_id, at(2026, 11, 30, 12)) == {
            "used": 17,
            "limit": 500,
            "remaining": 483,
            "percent": 3.4,
        }
        assert credits.usage(acme.org_id, at(2026, 12, 15))["used"] == 3
        assert credits.usage(acme.org_id, at(2026, 10, 2))["used"] == 400
        assert credits.usage(acme.org_id, at(2027, 1, 1))["used"] == 0


def test_limit_follows_billable_seats(app, acme, globex):
    bob = add_person(app, acme.org_id, "bob@acme.test")
    with app.app_context():
        now = at(2026, 11, 22)
        assert credits.usage(acme.org_id, now)["limit"] == 1000  # owner + Bob
        org = db.session.get(Org, acme.org_id)
        agent = Account(email="a@agents.invalid", name="Bot", kind=AccountKind.AGENT)
        db.session.add(agent)
        db.session.flush()
        add_member(org, agent)
        db.session.commit()
        assert credits.usage(acme.org_id, now)["limit"] == 1000  # agents are not seats
        spend(acme.org_id, now, 900)
        assert credits.usage(acme.org_id, now)["remaining"] == 100
        member = db.session.scalar(
            db.select(OrgMember).where(
                OrgMember.org_id == acme.org_id, OrgMember.account_id == bob.owner_id
            )
        )
        end_membership(member)
        db.session.commit()
        # Bob left: the pool shrinks at once and is now used up.
        assert credits.usage(acme.org_id, now) == {
            "used": 900,
            "limit": 500,
            "remaining": 0,
            "percent": 100.0,
        }
        assert credits.exhausted(acme.org_id, now)
        # Another org's pool is its own.
        assert credits.usage(globex.org_id, now) == {
            "used": 0,
            "limit": 500,
            "remaining": 500,
            "percent": 0.0,
        }


def test_model_calls_resume_when_the_month_turns(client, app, acme, fake_model):
    make_project(client, acme)
    configure_model(client, acme, fake_model)
    with app.app_context():
        spend(acme.org_id, at(2026, 11, 10), 500)
        org = db.session.get(Org, acme.org_id)
        owner = db.session.get(Account, acme.owner_id)
        scope = make_scope(org)
        late_november = ask.ask_chart(scope, owner, "open bugs by assignee", now=at(2026, 11, 30))
        assert late_november["outcome"] == "credits_exhausted"
        assert fake_model.requests == []
        december = ask.ask_chart(scope, owner, "open bugs by assignee", now=at(2026, 12, 1))
        db.session.commit()
        assert december["outcome"] == "ok" and len(fake_model.requests) == 1
        assert credits.usage(acme.org_id, at(2026, 12, 1))["used"] == 3
        assert credits.usage(acme.org_id, at(2026, 11, 30))["used"] == 500
