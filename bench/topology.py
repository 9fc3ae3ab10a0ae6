"""Several machines (issue 31): the figures of the multi-node topology of
``deploy/topology.py`` (docs/deploy.md), as root:

    sudo .venv/bin/python bench/topology.py [--seconds 20] [--clients 16]

In one run, each phase with the same mixed load through the balancer (clients
alternating an analytics read and a task creation, as the fault tests do):

1. two app nodes against one (app2 killed, the balancer's checks take it out): req/s,
   p50/p99, and the ratio two/one;
2. the replica's lag under that load, sampled every 0.2 s on the primary
   (``pg_stat_replication``: bytes of WAL not yet replayed, and ``replay_lag``);
3. writes only, asynchronous replication, then the topology rebuilt with synchronous
   replication (``synchronous_standby_names = 'db2'``: a commit waits until the
   standby has flushed its WAL): write req/s and
   p50/p99, and the ratio synchronous/asynchronous.

All hosts share this machine's cores, so "two nodes" cannot be twice one: the figures
say what one shared machine allows, with its load printed beside them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import requests
from common import load1, machine

ROOT = Path(__file__).resolve().parent.parent
BASE = Path("/tmp/ws-topology-bench")


def _topology():
    spec = importlib.util.spec_from_file_location("topology", ROOT / "deploy" / "topology.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _org(topo) -> tuple[str, str]:
    """An org, its owner's token and a project, made in the primary's database."""
    from workspace import create_app
    from workspace.auth.api_tokens import create_token
    from workspace.core.accounts import ensure_account
    from workspace.core.orgs import create_org
    from workspace.extensions import db

    env = topo.app_env(BASE, "app1")
    url = env["DATABASE_URL"].replace("postgresql://", "postgresql+psycopg://")
    config = {"SQLALCHEMY_DATABASE_URI": url, "JOBS_EMBEDDED_WORKER": False}
    config.update(SECRET_KEY=env["SECRET_KEY"], ENCRYPTION_KEY=env["ENCRYPTION_KEY"])
    app = create_app(config)
    with app.app_context():
        owner = ensure_account(f"bench-{uuid.uuid4().hex[:6]}@topology.test", "Bench",
                               email_verified=True)  # fmt: skip
        org = create_org(f"Topology {uuid.uuid4().hex[:6]}", owner)
        _, token = create_token(owner, org, "topology bench")
        db.session.commit()
        return str(org.id), token


@dataclass
class Run:
    """Clients calling through the balancer for ``seconds``; what each call answered."""

    base_url: str
    org_id: str
    token: str
    project_id: str
    writes_only: bool = False
    results: list[tuple[str, int, float]] = field(default_factory=list)

    def api(self, path: str) -> str:
        return f"{self.base_url}/api/v1/orgs/{self.org_id}{path}"

    def go(self, clients: int, seconds: float) -> Run:
        stop = threading.Event()
        workers = [threading.Thread(target=self._client, args=(n, stop)) for n in range(clients)]
        for w in workers:
            w.start()
        time.sleep(seconds)
        stop.set()
        for w in workers:
            w.join()
        self.seconds = seconds
        return self

    def _client(self, n: int, stop: threading.Event) -> None:
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {self.token}"
        i = 0
        while not stop.is_set():
            i += 1
            if i % 2 or self.writes_only:
                method, url = "POST", self.api(f"/projects/{self.project_id}/tasks")
                body = {"title": f"bench {n}-{i}"}
            else:
                method, url, body = "GET", self.api("/analytics/overview"), None
            started = time.monotonic()
            try:
                status = session.request(method, url, json=body, timeout=15).status_code
            except requests.RequestException:
                status = 0
            self.results.append((method, status, time.monotonic() - started))

    def line(self, label: str) -> str:
        ok = [s for _, status, s in self.results if 200 <= status < 300]
        q = statistics.quantiles(ok, n=100, method="inclusive") if len(ok) > 1 else [0.0] * 99
        failed = Counter(f"{m} {status or 'no answer'}" for m, status, _ in self.results
                         if not 200 <= status < 300)  # fmt: skip
        return (f"{label:34} {len(ok) / self.seconds:7.1f} req/s  p50 {q[49] * 1000:6.0f} ms  "
                f"p99 {q[98] * 1000:6.0f} ms  failed {dict(failed) or 0}  "
                f"(load {load1():.1f})")  # fmt: skip

    def rate(self) -> float:
        return sum(1 for _, status, _ in self.results if 200 <= status < 300) / self.seconds


class LagSampler:
    """The standby's replay distance from the primary, every 0.2 s, over psql."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.bytes: list[int] = []
        self.lag_ms: list[float] = []
        self._stop = threading.Event()

    def __enter__(self) -> LagSampler:
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        query = (
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), "
            "coalesce(extract(epoch FROM replay_lag) * 1000, 0) FROM pg_stat_replication"
        )
        while not self._stop.wait(0.2):
            done = subprocess.run(
                ["psql", f"postgresql://postgres@{self.address}/workspace", "-Atc", query],
                capture_output=True, text=True, timeout=10,
            )  # fmt: skip
            if done.returncode == 0 and done.stdout.strip():
                distance, lag = done.stdout.strip().splitlines()[0].split("|")
                self.bytes.append(int(float(distance)))
                self.lag_ms.append(float(lag))

    def line(self) -> str:
        if len(self.bytes) < 2:
            return "replica lag: no sample (is the standby streaming?)"
        q = statistics.quantiles(self.lag_ms, n=100, method="inclusive")
        return (f"replica lag under the mixed load: replay_lag p50 {q[49]:.0f} ms, "
                f"p99 {q[98]:.0f} ms, max {max(self.lag_ms):.0f} ms; WAL behind max "
                f"{max(self.bytes) / 1024:.0f} KiB ({len(self.bytes)} samples)")  # fmt: skip


def _project(base_url: str, org_id: str, token: str) -> str:
    made = requests.post(f"{base_url}/api/v1/orgs/{org_id}/projects",
                         json={"name": "Bench", "identifier": "BENCH"},
                         headers={"Authorization": f"Bearer {token}"}, timeout=15)  # fmt: skip
    made.raise_for_status()
    return made.json()["id"]


def _bring_up(topo, synchronous: bool) -> Run:
    if BASE.exists():
        topo.down(BASE)
    topo.up(BASE, synchronous=synchronous, demo=False)
    base_url = f"http://{topo.HOSTS['lb']}"
    org_id, token = _org(topo)
    return Run(base_url, org_id, token, _project(base_url, org_id, token))


def _again(run: Run, writes_only: bool = False) -> Run:
    return Run(run.base_url, run.org_id, run.token, run.project_id, writes_only)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=16)
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("network namespaces need root: run with sudo")
    topo = _topology()
    print(f"# bench/topology.py  {machine()}  {args.clients} clients, {args.seconds:.0f} s phases")
    try:
        first = _bring_up(topo, synchronous=False)
        _again(first).go(args.clients, 3)  # warm both nodes' workers
        with LagSampler(topo.HOSTS["db1"]) as lag:
            two = _again(first).go(args.clients, args.seconds)
        print(two.line("mixed, two app nodes"))
        print(lag.line())
        topo.kill(BASE, "app2")
        time.sleep(4)  # the balancer's checks (0.5 s apart, 2 falls) take app2 out
        one = _again(first).go(args.clients, args.seconds)
        print(one.line("mixed, one app node (app2 killed)"))
        print(f"two nodes / one node: {two.rate() / max(one.rate(), 0.01):.2f}")
        topo.app_up(BASE, "app2")
        topo.wait_for(f"http://{topo.HOSTS['app2']}:8000/healthz")
        time.sleep(4)
        asynchronous = _again(first, writes_only=True).go(args.clients, args.seconds)
        print(asynchronous.line("writes, asynchronous replication"))
        second = _bring_up(topo, synchronous=True)
        _again(second, writes_only=True).go(args.clients, 3)
        synchronous = _again(second, writes_only=True).go(args.clients, args.seconds)
        print(synchronous.line("writes, synchronous replication"))
        print(
            f"synchronous / asynchronous: {synchronous.rate() / max(asynchronous.rate(), 0.01):.2f}"
        )
    finally:
        topo.down(BASE)


if __name__ == "__main__":
    main()
