"""Scheduled directory sync (docs/ldap.md#scheduled-sync) against the session's real
slapd, run to the end by the real job runner (the embedded worker): an entry deleted,
an AD account disabled, a group changed, a directory that cannot be reached or refuses
the service account, the dry run, and the schedule's one run per period.

The people live under their own ``ou=sync`` (Active Directory-style ``user`` entries
with ``userAccountControl``) and are made afresh for each test, which changes them."""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from tests.identity.ldap.conftest import AD_FILTER, NORMAL, SUFFIX, body, free_port
from tests.jobs.conftest import wait_for
from workspace.extensions import db

PEOPLE = f"ou=sync,{SUFFIX}"
GROUPS = f"ou=syncgroups,{SUFFIX}"
#: sAMAccountName -> common name; each signs in with "<sam>-Pa55word".
PEOPLE_CN = {"syncsam": "Sam Stay", "syncgil": "Gil Gone", "syncdora": "Dora Dis"}
DISABLED = NORMAL | 0x2


def _dn(sam: str) -> str:
    return f"cn={PEOPLE_CN[sam]},{PEOPLE}"


def _person(sam: str) -> str:
    given, family = PEOPLE_CN[sam].split()
    return (
        f"dn: {_dn(sam)}\nobjectClass: user\ncn: {PEOPLE_CN[sam]}\nsAMAccountName: {sam}\n"
        f"mail: {sam}@acme.test\ngivenName: {given}\nsn: {family}\n"
        f"userAccountControl: {NORMAL}\npwdLastSet: 133500000000000000\nlockoutTime: 0\n"
        f"accountExpires: 0\nuserPassword: {sam}-Pa55word\n"
    )


def _group(cn: str, *members: str) -> str:
    lines = [f"dn: cn={cn},{GROUPS}", "objectClass: groupOfNames", f"cn: {cn}"]
    # groupOfNames needs a member; the group's own DN stands in for "nobody".
    return "\n".join(lines + [f"member: {m}" for m in members or [f"cn={cn},{GROUPS}"]]) + "\n"


@pytest.fixture
def people(directory):
    directory.server.ldapadd(
        "\n".join(
            [
                f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: sync\n",
                f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: syncgroups\n",
                *[_person(sam) for sam in PEOPLE_CN],
                _group("sync-eng", _dn("syncsam"), _dn("syncgil")),
                _group("sync-leads"),
            ]
        )
    )
    yield directory
    directory.server.ldapdelete(PEOPLE, recursive=True)
    directory.server.ldapdelete(GROUPS, recursive=True)


@pytest.fixture
def synced(app, client, ldap_acme, people, embedded_worker):
    """Acme reading ou=sync as Active Directory users, group sync on (stale removal
    too), and the three people signed in once (linked and members)."""
    _set(
        app,
        ldap_acme.org_id,
        search_base=PEOPLE,
        search_filter=AD_FILTER,
        sync_groups_on_login=True,
        remove_stale_synced_memberships=True,
        group_search_base=GROUPS,
        group_membership="groupofnames",
    )
    for sam in PEOPLE_CN:
        _sign_in(app, sam)
    return ldap_acme


def _set(app, org_id, **values):
    from workspace.identity.ldap.models import connection_for

    with app.app_context():
        row = connection_for(org_id)
        for name, value in values.items():
            setattr(row, name, value)
        db.session.commit()


def _sign_in(app, sam):
    client = app.test_client()
    resp = client.post(
        "/auth/ldap/login", json={"org": "acme", "username": sam, "password": f"{sam}-Pa55word"}
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return client


def _sync(app, client, org, *, dry_run=False):
    resp = client.post(org.url("/ldap/sync"), json={"dry_run": dry_run}, headers=org.headers)
    assert resp.status_code == 202, resp.get_data(as_text=True)
    assert resp.headers["Location"].endswith(resp.get_json()["id"])
    job = wait_for(app, uuid.UUID(resp.get_json()["id"]))
    assert job.state == "done", job.last_error
    return job.result


def _active(app, org_id) -> dict[str, bool]:
    from workspace.core.models import Account, OrgMember

    with app.app_context():
        rows = db.session.execute(
            select(Account.email, OrgMember.active)
            .join(OrgMember, OrgMember.account_id == Account.id)
            .where(OrgMember.org_id == org_id)
        )
        return {email: active for email, active in rows}


def _events(app, org_id, kind):
    from workspace.core.models import Event

    with app.app_context():
        rows = db.session.scalars(
            select(Event).where(Event.org_id == org_id, Event.kind == kind).order_by(Event.id)
        )
        return [(e.subject, e.data) for e in rows]


def _roles(app, email) -> dict[str, str]:
    from workspace.core.accounts import find_account
    from workspace.core.models import ProjectMember

    with app.app_context():
        account = find_account(email)
        rows = db.session.scalars(
            select(ProjectMember).where(ProjectMember.account_id == account.id)
        )
        return {str(pm.project_id): pm.role for pm in rows}


def _map(client, org, group, project_id, role):
    resp = client.post(
        org.url("/sso/group-mappings"),
        headers=org.headers,
        json={"idp_group": group, "project_id": project_id, "role": role},
    )
    assert resp.status_code == 201, resp.get_json()


def _last_sync(app, org_id):
    from workspace.identity.ldap.models import connection_for

    with app.app_context():
        row = connection_for(org_id)
        return row.last_sync_at, row.last_sync


def test_a_deleted_entry_deactivates_the_member_and_ends_their_session(
    app, client, directory, synced
):
    gil = _sign_in(app, "syncgil")
    assert gil.get("/o/acme/").status_code == 200
    _delete(directory, _dn("syncgil"))
    result = _sync(app, client, synced)

    assert result["ok"] is True
    assert result["deactivations"] == [
        {
            "email": "syncgil@acme.test",
            "reason": "gone",
            "why": "no entry with this email matches the search filter under the search base",
        }
    ]
    assert _active(app, synced.org_id) == {
        "owner@acme.test": True,
        "syncsam@acme.test": True,
        "syncgil@acme.test": False,
        "syncdora@acme.test": True,
    }
    # the same deactivation as the admin's and SCIM's: recorded, and the session ends
    [(subject, data)] = _events(app, synced.org_id, "member.deactivated")
    assert subject == "syncgil@acme.test" and data["via"] == "ldap"
    assert gil.get("/o/acme/").status_code in (302, 303, 404)
    # one audit entry for the run, with its counts
    [(_, run)] = _events(app, synced.org_id, "ldap.directory_sync")
    assert run["ok"] is True
    assert {k: run[k] for k in ("checked", "deactivated", "errors")} == {
        "checked": 3,
        "deactivated": 1,
        "errors": 0,
    }
    when, last = _last_sync(app, synced.org_id)
    assert when is not None and last["ok"] is True and last["counts"]["deactivated"] == 1


def _delete(directory, dn):
    directory.server.ldapdelete(dn)


def _modify(directory, ldif):
    directory.server.ldapmodify(ldif)


def test_a_disabled_ad_account_is_deactivated_a_locked_one_is_not(app, client, directory, synced):
    _modify(
        directory,
        f"dn: {_dn('syncdora')}\nchangetype: modify\nreplace: userAccountControl\n"
        f"userAccountControl: {DISABLED}\n",
    )
    _modify(
        directory,
        f"dn: {_dn('syncsam')}\nchangetype: modify\nreplace: lockoutTime\n"
        "lockoutTime: 133500000000000000\n",
    )
    result = _sync(app, client, synced)
    assert [(d["email"], d["reason"]) for d in result["deactivations"]] == [
        ("syncdora@acme.test", "account_disabled")
    ]
    active = _active(app, synced.org_id)
    assert active["syncdora@acme.test"] is False
    assert active["syncsam@acme.test"] is True  # locked out passes on its own


def test_a_group_change_makes_the_project_role_follow(app, client, directory, synced):
    from tests.factories import create_project

    project = create_project(client, synced, "Sync App", "SYN")["id"]
    _map(client, synced, "sync-eng", project, "member")
    _map(client, synced, "sync-leads", project, "admin")
    _sign_in(app, "syncsam")  # sign-in sync gives the role the groups grant now
    assert _roles(app, "syncsam@acme.test") == {project: "member"}

    _modify(
        directory,
        f"dn: cn=sync-leads,{GROUPS}\nchangetype: modify\nadd: member\nmember: {_dn('syncsam')}\n",
    )
    result = _sync(app, client, synced)
    assert _roles(app, "syncsam@acme.test") == {project: "admin"}
    changed = [c for c in result["role_changes"] if c["email"] == "syncsam@acme.test"]
    assert changed == [
        {
            "email": "syncsam@acme.test",
            "kind": "changed",
            "project_id": project,
            "project": "Sync App",
            "role": "admin",
            "from_role": "member",
        }
    ]
    # out of both groups: the synced membership goes (stale removal is on)
    _modify(
        directory,
        f"dn: cn=sync-leads,{GROUPS}\nchangetype: modify\ndelete: member\n"
        f"member: {_dn('syncsam')}\n",
    )
    _modify(
        directory,
        f"dn: cn=sync-eng,{GROUPS}\nchangetype: modify\ndelete: member\nmember: {_dn('syncsam')}\n",
    )
    result = _sync(app, client, synced)
    assert _roles(app, "syncsam@acme.test") == {}
    assert result["counts"]["roles_removed"] >= 1


def _org_role(app, org_id, email) -> str:
    from workspace.core.accounts import find_account
    from workspace.core.orgs import active_membership

    with app.app_context():
        return active_membership(org_id, find_account(email).id).role


def test_a_group_change_makes_the_org_role_follow_between_sign_ins(app, client, directory, synced):
    """docs/sso.md#org-role-from-groups through the scheduled sync, no sign-in: added to
    the group the org's admin role is mapped from, the next run makes the person an
    admin; taken out of it, the next run takes it back. A preview shows the grant first
    and changes nothing."""
    from tests.factories import login

    resp = client.post(
        synced.url("/sso/group-mappings"),
        headers=synced.headers,
        json={"idp_group": "sync-leads", "target": "org", "role": "admin"},
    )
    assert resp.status_code == 201, resp.get_json()
    # Signed in before the group changes; the org's settings are an admin's.
    browser = _sign_in(app, "syncgil")
    assert browser.get("/o/acme/settings/members").status_code == 403
    _modify(
        directory,
        f"dn: cn=sync-leads,{GROUPS}\nchangetype: modify\nadd: member\nmember: {_dn('syncgil')}\n",
    )
    # Preview sync on the page: the job lists the grant, and nothing has changed yet.
    owner = app.test_client()
    login(owner, "owner@acme.test")
    resp = owner.post("/o/acme/settings/ldap/sync", data={"dry_run": "true"})
    planned = wait_for(app, uuid.UUID(resp.headers["Location"].rsplit("/", 1)[1])).result
    assert planned["org_role_changes"] == [
        {
            "email": "syncgil@acme.test",
            "kind": "granted",
            "role": "admin",
            "from_role": "member",
            "group": "Directory group sync-leads",
        }
    ]
    assert planned["counts"]["org_roles_granted"] == 1
    html = owner.get(resp.headers["Location"]).get_data(as_text=True)
    assert "org admins 1 made" in html and "Run sync now" in html
    assert "would become an admin of the organization (Directory group sync-leads)" in html
    assert _org_role(app, synced.org_id, "syncgil@acme.test") == "member"
    assert _events(app, synced.org_id, "ldap.sync.org_role_granted") == []

    _sync(app, client, synced)
    assert _org_role(app, synced.org_id, "syncgil@acme.test") == "admin"
    assert browser.get("/o/acme/settings/members").status_code == 200
    last = owner.get("/o/acme/settings/ldap").get_data(as_text=True)
    assert "org admins 1 made / 0 back to member" in last

    _modify(
        directory,
        f"dn: cn=sync-leads,{GROUPS}\nchangetype: modify\ndelete: member\n"
        f"member: {_dn('syncgil')}\n",
    )
    result = _sync(app, client, synced)
    assert [c["kind"] for c in result["org_role_changes"]] == ["revoked"]
    assert _org_role(app, synced.org_id, "syncgil@acme.test") == "member"
    assert browser.get("/o/acme/settings/members").status_code == 403
    granted = _events(app, synced.org_id, "ldap.sync.org_role_granted")
    revoked = _events(app, synced.org_id, "ldap.sync.org_role_revoked")
    assert [len(granted), len(revoked)] == [1, 1]
    assert _org_role(app, synced.org_id, "syncsam@acme.test") == "member"  # not in the group


@pytest.mark.parametrize("fault", ["wrong_port", "bind_refused"])
def test_a_directory_that_fails_changes_nothing_and_says_so(app, client, directory, synced, fault):
    from workspace.identity.ldap.models import connection_for
    from workspace.security.crypto import seal

    _delete(directory, _dn("syncgil"))  # would be deactivated, were the directory readable
    with app.app_context():
        row = connection_for(synced.org_id)
        if fault == "wrong_port":
            row.server_uri = f"ldap://localhost:{free_port()}"
        else:
            row.bind_password_sealed = seal("not-the-password", row.id)
        db.session.commit()

    result = _sync(app, client, synced)

    assert result["ok"] is False and result["deactivations"] == []
    expected = "could not be reached" if fault == "wrong_port" else "refused the service account"
    assert expected in result["message"]
    assert all(_active(app, synced.org_id).values())
    assert _events(app, synced.org_id, "member.deactivated") == []
    [(_, run)] = _events(app, synced.org_id, "ldap.directory_sync")
    assert run["ok"] is False and run["deactivated"] == 0 and expected in run["message"]
    _, last = _last_sync(app, synced.org_id)
    assert last["ok"] is False
    from tests.factories import login

    login(client, "owner@acme.test")
    html = client.get("/o/acme/settings/ldap").get_data(as_text=True)
    assert "failed, nothing changed" in html and expected in html


def test_the_dry_run_lists_exactly_the_changes_and_makes_none(app, client, directory, synced):
    from tests.factories import create_project, login

    project = create_project(client, synced, "Dry App", "DRY")["id"]
    _map(client, synced, "sync-leads", project, "admin")
    _delete(directory, _dn("syncgil"))
    _modify(
        directory,
        f"dn: {_dn('syncdora')}\nchangetype: modify\nreplace: userAccountControl\n"
        f"userAccountControl: {DISABLED}\n",
    )
    _modify(
        directory,
        f"dn: cn=sync-leads,{GROUPS}\nchangetype: modify\nadd: member\nmember: {_dn('syncsam')}\n",
    )

    result = _sync(app, client, synced, dry_run=True)

    assert result["dry_run"] is True and result["ok"] is True
    assert sorted((d["email"], d["reason"]) for d in result["deactivations"]) == [
        ("syncdora@acme.test", "account_disabled"),
        ("syncgil@acme.test", "gone"),
    ]
    assert result["role_changes"] == [
        {
            "email": "syncsam@acme.test",
            "kind": "added",
            "project_id": project,
            "project": "Dry App",
            "role": "admin",
            "from_role": None,
        }
    ]
    assert result["counts"] == {
        "checked": 3,
        "deactivated": 2,
        "roles_added": 1,
        "roles_changed": 0,
        "roles_removed": 0,
        "org_roles_granted": 0,
        "org_roles_revoked": 0,
        "errors": 0,
    }
    assert result["org_role_changes"] == []
    # nothing changed: memberships, roles, the audit log, the "last sync" line
    assert all(_active(app, synced.org_id).values())
    assert _roles(app, "syncsam@acme.test") == {}
    assert _events(app, synced.org_id, "ldap.directory_sync") == []
    assert _last_sync(app, synced.org_id) == (None, None)

    # the page: Preview sync leads to the job, which lists the changes and offers the run
    login(client, "owner@acme.test")
    resp = client.post("/o/acme/settings/ldap/sync", data={"dry_run": "true"})
    assert resp.status_code in (302, 303)
    job_id = uuid.UUID(resp.headers["Location"].rsplit("/", 1)[1])
    wait_for(app, job_id)
    html = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Would be deactivated" in html and "syncgil@acme.test" in html
    assert "add admin in Dry App" in html
    assert "data-confirm" in html and "Run sync now" in html


def test_run_sync_now_is_refused_while_one_is_in_flight(app, client, ldap_acme):
    # no worker in this test: the first job stays queued
    first = client.post(ldap_acme.url("/ldap/sync"), json={}, headers=ldap_acme.headers)
    assert first.status_code == 202 and first.get_json()["kind"] == "ldap.directory_sync"
    again = client.post(
        ldap_acme.url("/ldap/sync"), json={"dry_run": True}, headers=ldap_acme.headers
    )
    assert again.status_code == 409
    assert "already queued or running" in again.get_json()["detail"]


def test_last_owner_linked_to_the_directory_stays(app, client, synced):
    from workspace.auth.models import AccountIdentityLink

    with app.app_context():  # the owner's email has no entry: "gone", but last owner
        db.session.add(AccountIdentityLink(account_id=synced.owner_id, org_id=synced.org_id,
                                           source="ldap"))  # fmt: skip
        db.session.commit()
    result = _sync(app, client, synced)
    assert _active(app, synced.org_id)["owner@acme.test"] is True
    assert [e["email"] for e in result["errors"]] == ["owner@acme.test"]
    assert "last active owner" in result["errors"][0]["message"]


def test_the_schedule_starts_one_run_per_period_per_org(app, client, ldap_acme, people):
    from workspace.identity.ldap import sync_job
    from workspace.jobs import schedule
    from workspace.jobs.models import Job, ScheduleRun

    name = f"ldap.sync:{ldap_acme.org_id}"
    now = datetime(2026, 11, 27, 10, 5, tzinfo=UTC)

    def runs():
        with app.app_context():
            rows = db.session.scalars(select(ScheduleRun).where(ScheduleRun.schedule == name))
            jobs = [db.session.get(Job, r.job_id) for r in rows]
            return [(j.kind, j.org_id, j.account_id) for j in jobs]

    with app.app_context():
        assert name in schedule.fire_due(now, "scheduler-a")
        assert name not in schedule.fire_due(now + timedelta(minutes=30), "scheduler-b")
    assert runs() == [(sync_job.KIND, ldap_acme.org_id, None)]
    with app.app_context():
        assert name in schedule.fire_due(now + timedelta(minutes=60), "scheduler-b")
    assert len(runs()) == 2

    # the admin sets the period: every 15 minutes, then off
    _set(app, ldap_acme.org_id, sync_every_minutes=15)
    with app.app_context():
        assert name in schedule.fire_due(now + timedelta(minutes=75), "scheduler-a")
        assert name not in schedule.fire_due(now + timedelta(minutes=84), "scheduler-a")
    # four schedulers (threads, one database) at the same moment: one run
    later, won = now + timedelta(minutes=120), []
    barrier = threading.Barrier(4)

    failed: list[BaseException] = []

    def claim(who):
        barrier.wait(10)
        with app.app_context():
            try:  # a lost claim on the sweep must not stop this one's other schedules
                won.extend(n for n in schedule.fire_due(later, who) if n == name)
            except Exception as exc:
                failed.append(exc)

    threads = [threading.Thread(target=claim, args=(f"node-{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert failed == [] and won == [name] and len(runs()) == 4
    _set(app, ldap_acme.org_id, sync_every_minutes=0)
    with app.app_context():
        assert name not in schedule.fire_due(now + timedelta(minutes=300), "scheduler-a")
    assert len(runs()) == 4


def test_a_scheduled_run_goes_through_the_worker_and_shows_on_the_page(
    app, client, directory, synced, embedded_worker
):
    from tests.factories import login
    from workspace.jobs import schedule
    from workspace.jobs.models import ScheduleRun

    _delete(directory, _dn("syncgil"))
    with app.app_context():
        schedule.fire_due(datetime.now(UTC), "test-scheduler")
        run = db.session.get(
            ScheduleRun,
            (f"ldap.sync:{synced.org_id}", schedule.Schedule(
                "", timedelta(minutes=60), "").period_start(datetime.now(UTC))),
        )  # fmt: skip
        job_id = run.job_id
    job = wait_for(app, job_id)
    assert job.state == "done" and job.result["counts"]["deactivated"] == 1
    assert _active(app, synced.org_id)["syncgil@acme.test"] is False
    login(client, "owner@acme.test")
    html = client.get("/o/acme/settings/ldap").get_data(as_text=True)
    assert "Last sync:" in html and "1 deactivated" in html and "(scheduled)" in html
    assert "Next run:" in html


def test_the_period_is_set_on_the_page_and_checked(app, client, directory, ldap_acme):
    from tests.factories import login
    from workspace.identity.ldap.models import connection_for

    login(client, "owner@acme.test")
    resp = client.put(
        ldap_acme.url("/ldap"),
        json={**body(directory), "sync_every_minutes": 3},
        headers=ldap_acme.headers,
    )
    assert resp.status_code in (400, 422)
    assert "at most every 5 minutes" in resp.get_data(as_text=True)
    resp = client.put(
        ldap_acme.url("/ldap"),
        json={**body(directory), "sync_every_minutes": 0},
        headers=ldap_acme.headers,
    )
    assert resp.status_code == 200 and resp.get_json()["sync_every_minutes"] == 0
    assert resp.get_json()["next_sync_at"] is None
    with app.app_context():
        assert connection_for(ldap_acme.org_id).sync_every_minutes == 0
    assert _events(app, ldap_acme.org_id, "ldap.sync_schedule_saved")[-1][1] == {"every_minutes": 0}
    html = client.get("/o/acme/settings/ldap").get_data(as_text=True)
    assert 'name="sync_every_minutes"' in html and "off (set a period above)" in html
    assert "Last sync:" in html and "never." in html
    # Preview sync goes straight to its job; Run sync now asks first
    run_now = html.split("Preview sync", 1)[1]
    assert 'data-confirm="Run the directory sync now?' in run_now.split("Run sync now")[0]


def test_only_an_owner_or_admin_starts_a_sync(app, client, ldap_acme):
    from tests.factories import add_person, login

    member = add_person(app, ldap_acme.org_id, "plain@acme.test")
    resp = client.post(ldap_acme.url("/ldap/sync"), json={}, headers=member.headers)
    assert resp.status_code == 403
    login(client, "plain@acme.test")
    assert client.post("/o/acme/settings/ldap/sync", data={"dry_run": "true"}).status_code in (
        403,
        404,
    )
    from workspace.jobs.models import Job

    with app.app_context():
        assert db.session.scalars(select(Job)).all() == []
