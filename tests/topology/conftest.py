"""The multi-node topology of deploy/topology.py, brought up once for this package's
tests. They need root (network namespaces) and a few minutes, so they run on their
own: `pytest tests/topology --topology` (.ci/topology does, after the suite)."""

from __future__ import annotations

import importlib.util
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]


def pytest_addoption(parser):
    parser.addoption("--topology", action="store_true", help="run the multi-node fault tests")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--topology"):
        return
    chosen = [i for i in items if "tests/topology/" not in i.nodeid]
    if len(chosen) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in chosen])
        items[:] = chosen


def _load_topology():
    spec = importlib.util.spec_from_file_location("topology", ROOT / "deploy" / "topology.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Topology:
    module: object
    base: Path
    url: str
    org_id: str
    headers: dict[str, str]
    project_id: str = ""

    def api(self, path: str) -> str:
        return f"{self.url}/api/v1/orgs/{self.org_id}{path}"

    def sql(self, statement: str, host: str = "db_address") -> str:
        import subprocess

        address = self.module.DB_ADDRESS if host == "db_address" else self.module.HOSTS[host]
        done = subprocess.run(
            ["psql", f"postgresql://postgres@{address}/workspace", "-Atc", statement],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


@pytest.fixture(scope="session")
def topology() -> Iterator[Topology]:
    if os.geteuid() != 0:
        pytest.fail("the topology tests need root (ip netns): run them as root")
    module = _load_topology()
    base = Path("/tmp/ws-topology-tests")
    # Whatever topology a killed run or a bench left on this host goes first: the
    # hosts' names, addresses and bridge are fixed, so two cannot be up at once.
    module.down(base)
    # Jobs whose message was lost (Redis down) are sent again after 5 s, not 30.
    os.environ.update(JOBS_SWEEP_SECONDS="5", JOBS_RESEND_AFTER_SECONDS="5")
    module.up(base, demo=False)
    try:
        url = f"http://{module.HOSTS['lb']}"
        token = _owner_token(module, base)
        headers = {"Authorization": f"Bearer {token[1]}"}
        topo = Topology(module, base, url, token[0], headers)
        made = requests.post(topo.api("/projects"), json={"name": "Load", "identifier": "LOAD"},
                             headers=headers, timeout=10)  # fmt: skip
        assert made.status_code == 201, made.text
        topo.project_id = made.json()["id"]
        yield topo
    finally:
        module.down(base)


def _owner_token(module, base: Path) -> tuple[str, str]:
    """An org and its owner's API token, made in the primary's database."""
    from tests.factories import make_org
    from workspace import create_app

    env = module.app_env(base, "app1")
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": env["DATABASE_URL"].replace("postgresql://", "postgresql+psycopg://"),
        "SECRET_KEY": env["SECRET_KEY"], "ENCRYPTION_KEY": env["ENCRYPTION_KEY"],
        "JOBS_EMBEDDED_WORKER": False, "PASSWORD_HASH_METHOD": "scrypt:1024:8:1",
    })  # fmt: skip
    org = make_org(app, f"Load {uuid.uuid4().hex[:6]}", f"owner-{uuid.uuid4().hex[:6]}@load.test")
    return str(org.org_id), org.token


@dataclass
class Outcome:
    method: str
    status: int  # 0: no answer
    at: float
    title: str = ""
    seconds: float = 0.0


@dataclass
class Load:
    """Mixed requests through the balancer from several threads until stopped: reads
    of the analytics and task creations, each with a title of its own."""

    topo: Topology
    threads: int = 8
    outcomes: list[Outcome] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _workers: list[threading.Thread] = field(default_factory=list)
    started: float = 0.0

    def __enter__(self) -> Load:
        self.started = time.monotonic()
        for n in range(self.threads):
            worker = threading.Thread(target=self._run, args=(n,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=30)

    def _run(self, n: int) -> None:
        session = requests.Session()
        session.headers.update(self.topo.headers)
        i = 0
        while not self._stop.is_set():
            i += 1
            if i % 2:
                self._call(session, "GET", self.topo.api("/analytics/overview"))
            else:
                title = f"load-{n}-{i}-{uuid.uuid4().hex[:6]}"
                url = self.topo.api(f"/projects/{self.topo.project_id}/tasks")
                self._call(session, "POST", url, json={"title": title}, title=title)

    def _call(self, session, method: str, url: str, title: str = "", **kw) -> None:
        started = time.monotonic()
        try:
            status = session.request(method, url, timeout=15, **kw).status_code
        except requests.RequestException:
            status = 0
        now = time.monotonic()
        self.outcomes.append(Outcome(method, status, now, title, now - started))

    def failures(self, method: str | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == 0 or o.status >= 500
                if method is None or o.method == method]  # fmt: skip

    def slowest(self, method: str) -> float:
        return max((o.seconds for o in self.outcomes if o.method == method), default=0.0)

    def created(self) -> list[str]:
        return [o.title for o in self.outcomes if o.method == "POST" and o.status == 201]


@pytest.fixture
def load(topology) -> Callable[..., Load]:
    return lambda **kw: Load(topology, **kw)
