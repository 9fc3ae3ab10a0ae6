"""Sustained SCIM throughput for one org, as an IdP drives it (issue 27: Entra ID's
floor is 25 requests/s per app).

The app runs under ``gunicorn -w 2`` on loopback with its rate limits ON (the default
configuration, unlike bench_wsgi.py), so a refusal by a SCIM limit would show as 429s.
The client fetches an access token from the org's OAuth token endpoint (client
credentials, as Entra does), then ``--clients`` threads each loop over the mix Entra
sends: create a user, read it, patch it, look it up by filter, for ``--duration``
seconds. Baseline, in the same run and on the same server: ``GET /healthz`` (no
database, no authentication) with the same clients, the server's ceiling.

    python bench/scim_throughput.py [--backends sqlite,postgresql] [--clients 4]
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import statistics
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable

from common import flask, gunicorn, load1, machine, scratch_database, work_dir

FLOOR = 25.0  # requests/s: Entra ID's provisioning floor per app
USER = "urn:ietf:params:scim:schemas:core:2.0:User"
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def _setup(url: str, instance: str) -> tuple[str, str, str]:
    """A fresh org with a verified domain and a SCIM OAuth client: (org id, client id,
    secret)."""
    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app
    from workspace.core.accounts import ensure_account
    from workspace.core.models.domains import DomainState, VerifiedDomain
    from workspace.core.orgs import create_org
    from workspace.extensions import db
    from workspace.scim import oauth
    from workspace.types import utcnow

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        owner = ensure_account("owner@scim-bench.test", "Bench Owner", email_verified=True)
        org = create_org("SCIM bench", owner)
        db.session.add(
            VerifiedDomain(
                org_id=org.id,
                domain="scim-bench.test",
                state=DomainState.VERIFIED,
                verification_token=uuid.uuid4().hex,
                verified_at=utcnow(),
            )
        )
        client = oauth.create_client(org.id, owner.id)
        _, secret = oauth.add_secret(org.id, owner.id, oauth.SecretIn(expires_in_days=1))
        db.session.commit()
        org_id = str(org.id)
        db.engine.dispose()
    return org_id, str(client.client_id), secret


def _token(port: int, org_id: str, client_id: str, secret: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    conn.request(
        "POST",
        f"/scim/v2/orgs/{org_id}/oauth/token",
        body=urllib.parse.urlencode({"grant_type": "client_credentials"}),
        headers={
            "Authorization": f"Basic {basic}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    resp = conn.getresponse()
    body = json.loads(resp.read())
    if resp.status != 200:
        raise RuntimeError(f"token endpoint answered {resp.status}: {body}")
    return body["access_token"]


def _run(port: int, clients: int, duration: float, cycle: Callable) -> tuple[list, Counter]:
    """``clients`` threads calling ``cycle(conn, record)`` until ``duration`` is up."""
    samples: list[float] = []
    errors: Counter = Counter()
    lock = threading.Lock()

    def record(status: int, ok: int, took: float) -> None:
        with lock:
            if status == ok:
                samples.append(took)
            else:
                errors[status] += 1

    def client(until: float) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < until:
            cycle(conn, record)
        conn.close()

    until = time.monotonic() + duration
    threads = [threading.Thread(target=client, args=(until,)) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return samples, errors


def _call(conn, record, method, path, body, headers, ok) -> dict | None:
    started = time.perf_counter()
    conn.request(method, path, body=json.dumps(body) if body else None, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    record(resp.status, ok, (time.perf_counter() - started) * 1000)
    return json.loads(data) if data and resp.status == ok else None


def _scim_cycle(org_id: str, token: str) -> Callable:
    base = f"/scim/v2/orgs/{org_id}"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/scim+json"}

    def cycle(conn, record) -> None:
        name = f"u{uuid.uuid4().hex[:12]}@scim-bench.test"
        user = {"schemas": [USER], "userName": name, "externalId": name, "displayName": name}
        created = _call(conn, record, "POST", f"{base}/Users", user, headers, 201)
        if created is None:
            return
        path = f"{base}/Users/{created['id']}"
        _call(conn, record, "GET", path, None, headers, 200)
        ops = [{"op": "Replace", "path": "displayName", "value": "Renamed"}]
        _call(conn, record, "PATCH", path, {"schemas": [PATCH], "Operations": ops}, headers, 200)
        query = urllib.parse.quote(f'userName eq "{name}"')
        _call(conn, record, "GET", f"{base}/Users?filter={query}", None, headers, 200)

    return cycle


def _health_cycle(conn, record) -> None:
    _call(conn, record, "GET", "/healthz", None, {}, 200)


def _figure(label: str, samples: list, errors: Counter, duration: float) -> tuple[float, str]:
    rate = len(samples) / duration
    p50 = statistics.median(samples) if samples else float("nan")
    p95 = statistics.quantiles(samples, n=20)[-1] if len(samples) > 20 else float("nan")
    refused = ", ".join(f"{n} x HTTP {c}" for c, n in sorted(errors.items())) or "no errors"
    return rate, f"  {label}: {rate:.1f} req/s, p50 {p50:.0f} ms, p95 {p95:.0f} ms, {refused}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--duration", type=float, default=20.0)
    args = parser.parse_args()
    print(f"bench/scim_throughput.py --clients {args.clients}: {machine()}", flush=True)
    with work_dir(None, "scim-bench-") as work:
        for backend in args.backends.split(","):
            instance = work / f"instance-{backend}"
            instance.mkdir(exist_ok=True)
            with scratch_database(backend, work, args.pg_url, False, False) as (url, _):
                env = {**os.environ, "DATABASE_URL": url, "WORKSPACE_INSTANCE": str(instance)}
                flask(["db", "upgrade", "heads"], env)
                org_id, client_id, secret = _setup(url, str(instance))
                with gunicorn(url, str(instance), app="workspace:create_app()") as port:
                    token = _token(port, org_id, client_id, secret)
                    cycle = _scim_cycle(org_id, token)
                    _run(port, 1, 2.0, cycle)  # warm both workers
                    load = load1()
                    scim = _run(port, args.clients, args.duration, cycle)
                    base = _run(port, args.clients, args.duration / 2, _health_cycle)
                rate, line = _figure("SCIM mix (create/get/patch/filter)", *scim, args.duration)
                ceiling, base_line = _figure("baseline GET /healthz", *base, args.duration / 2)
                print(f"{backend} (load {load:.1f}, rate limits on, OAuth access token):")
                print(line)
                print(base_line)
                verdict = "meets" if rate >= FLOOR and not scim[1] else "MISSES"
                print(
                    f"  SCIM / baseline = {rate / ceiling:.2f}; SCIM / Entra's floor "
                    f"{FLOOR:.0f} req/s = {rate / FLOOR:.1f}x ({verdict} the floor)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
