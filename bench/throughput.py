"""Overview throughput: N concurrent clients against gunicorn -w 2 on loopback.

Used by ``bench/analytics.py --clients N`` (or on its own against a loaded database:
``python bench/throughput.py DATABASE_URL INSTANCE``). The clients are threads of this
process on the same machine, so they take CPU from the server, as a load balancer on
the same host would; the figure is a floor.
"""

from __future__ import annotations

import http.client
import os
import statistics
import sys
import threading
import time
import uuid

from common import biggest_org, gunicorn, load1

DURATION = 15.0


def _token(url: str, instance: str) -> tuple[str, str]:
    os.environ["WORKSPACE_INSTANCE"] = instance
    from workspace import create_app
    from workspace.auth.api_tokens import create_token
    from workspace.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        org, _, owner, _ = biggest_org()
        org_id = org.id
        _, token = create_token(owner, org, f"load {uuid.uuid4().hex[:6]}")
        db.session.commit()
        db.engine.dispose()
    return str(org_id), token


def measure(url: str, instance: str, clients: int) -> str:
    org_id, token = _token(url, instance)
    with gunicorn(url, instance) as port:
        path = f"/api/v1/orgs/{org_id}/analytics/overview"
        headers = {"Authorization": f"Bearer {token}"}
        samples: list[float] = []
        errors: dict[int, int] = {}
        lock = threading.Lock()

        def client(until: float) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            while time.monotonic() < until:
                started = time.perf_counter()
                conn.request("GET", path, headers=headers)
                resp = conn.getresponse()
                resp.read()
                took = (time.perf_counter() - started) * 1000
                with lock:
                    if resp.status == 200:
                        samples.append(took)
                    else:
                        errors[resp.status] = errors.get(resp.status, 0) + 1
            conn.close()

        client(time.monotonic() + 3)  # warm both workers' caches
        samples.clear()
        load = load1()
        until = time.monotonic() + DURATION
        threads = [threading.Thread(target=client, args=(until,)) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rate = len(samples) / DURATION
        p50 = statistics.median(samples) if samples else float("nan")
        p95 = statistics.quantiles(samples, n=20)[-1] if len(samples) > 20 else float("nan")
        return (
            f"overview, {clients} concurrent clients, gunicorn -w 2 (load {load:.1f}): "
            f"{rate:.1f} req/s, p50 {p50:.0f} ms, p95 {p95:.0f} ms, "
            + (", ".join(f"{n} x HTTP {code}" for code, n in sorted(errors.items())) or "no errors")
        )


if __name__ == "__main__":
    print(measure(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 8))
