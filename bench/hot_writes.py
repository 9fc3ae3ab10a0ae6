"""Hot writes (issue 31): many writers moving tasks between states in ONE project at
once, through the API on PostgreSQL, with the rollup triggers and without them (the
baseline: the same writes with every trigger on tasks and task_activity dropped).

    python bench/hot_writes.py [--writers 8 32] [--seconds 15] [--pairs 3] [--split-cores]

Each writer owns its own tasks and moves each round the workflow (todo → in progress →
done → todo ...) with ``PATCH /tasks/<id>``, as agents working a queue do. Printed per
writer count: tasks/s and p50/p99 of each mode, the ratio, every non-2xx answer, and
where a write's time goes (statements per PATCH, CPU of the app and of PostgreSQL per
write). After the runs with triggers the rollups are checked exact
(``consistency.verify``); after the baseline they are rebuilt.

Before each round the scratch database is vacuumed and analyzed, as autovacuum keeps a
production database. This machine's PostgreSQL runs with ``autovacuum = off`` (its CI
configuration), and on tables never analyzed the planner took a partial index of the
counted tasks for the triggers' probe of one task by id, scanning every counted task of
the org on each write (``--stale-stats`` keeps that behaviour, to see it).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import threading
import time
import uuid
from pathlib import Path

from common import flask, gunicorn, load1, machine, scratch_database, triggers_off, work_dir

TASKS_PER_WRITER = 6
WARM_UP_SECONDS = 3.0


#: How long after a round its function times are all in pg_stat_user_functions: a busy
#: backend reports them at most once a second, an idle one (the app's pooled
#: connections after the round) within PostgreSQL's PGSTAT_IDLE_INTERVAL of 10 s.
STATS_FLUSH_SECONDS = 11


def _pids(match) -> list[int]:
    """Every process whose command line ``match`` accepts."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # it ended meanwhile
            continue
        if match(command):
            found.append(int(pid))
    return found


def _cpu_by_pid(match) -> dict[int, float]:
    """User + system CPU seconds of every process whose command line ``match`` accepts."""
    found: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for pid in _pids(match):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            found[pid] = (int(fields[11]) + int(fields[12])) / tick
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return found


def _cpu_since(before: dict[int, float], match) -> float:
    """CPU spent since ``before`` by the processes alive now (a process that started
    meanwhile counts whole; one that ended is missed, so this is a floor)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in _cpu_by_pid(match).items())


def _setup(url: str, writers: int):
    """An org, one project, each writer's tasks, and the state ids to cycle through."""
    from sqlalchemy import select

    from workspace import create_app
    from workspace.auth.api_tokens import create_token
    from workspace.core.accounts import ensure_account
    from workspace.core.models import State
    from workspace.core.orgs import create_org
    from workspace.core.projects import create_project
    from workspace.core.tasks import create_task
    from workspace.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "JOBS_EMBEDDED_WORKER": False})
    with app.app_context():
        owner = ensure_account(f"hot-{uuid.uuid4().hex[:6]}@bench.test", "Hot", email_verified=True)
        org = create_org(f"Hot {uuid.uuid4().hex[:6]}", owner)
        project = create_project(org.id, owner.id, name="Hot", identifier="HOT")
        states = {
            s.category: s.id
            for s in db.session.scalars(select(State).where(State.project_id == project.id))
        }
        cycle = [states["unstarted"], states["started"], states["completed"]]
        tasks = [
            [
                str(create_task(project, owner.id, title=f"w{w} t{t}").id)
                for t in range(TASKS_PER_WRITER)
            ]
            for w in range(max(writers))
        ]
        _, token = create_token(owner, org, "hot writes")
        db.session.commit()
        org_id = org.id
    return app, str(org_id), token, [str(s) for s in cycle], tasks


class _LockWaits:
    """Samples, every 50 ms, what the database's busy backends are doing: how many wait
    for a lock (the writers that serialize on shared rollup rows show up here), and per
    wait event (``IO:WALSync``, ``LWLock:WALWrite``, ``Client:ClientRead`` inside a
    transaction, ``CPU`` when running) how many on average: where a write's time goes
    inside PostgreSQL."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine, make_url

        self.url = make_url(url)
        self._engine = create_engine(self.url, isolation_level="AUTOCOMMIT")
        self._stop = threading.Event()
        self.samples: list[int] = []
        #: What the waiting backends were running (its first words) -> how often seen.
        self.waiting_in: dict[str, int] = {}
        #: "type:event" (or "CPU") -> backends seen in it, over all samples.
        self.states: dict[str, int] = {}

    def __enter__(self) -> _LockWaits:
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._engine.dispose()

    def _sample(self) -> None:
        from sqlalchemy import text

        query = text(
            "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), "
            "left(regexp_replace(query, '\\s+', ' ', 'g'), 40) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid != pg_backend_pid() "
            "AND state IN ('active', 'idle in transaction')"
        )
        with self._engine.connect() as conn:
            while not self._stop.wait(0.05):
                busy = conn.execute(query).all()
                waiting = [q for state, q in busy if state.startswith("Lock:")]
                self.samples.append(len(waiting))
                for statement in waiting:
                    self.waiting_in[statement] = self.waiting_in.get(statement, 0) + 1
                for state, _ in busy:
                    self.states[state] = self.states.get(state, 0) + 1

    @property
    def mean(self) -> float:
        return statistics.fmean(self.samples) if self.samples else 0.0

    def busy(self, most: int = 5) -> list[tuple[str, float]]:
        """The commonest states, each with the mean number of backends in it."""
        n = max(len(self.samples), 1)
        top = sorted(self.states.items(), key=lambda kv: -kv[1])[:most]
        return [(state, seen / n) for state, seen in top]


@contextlib.contextmanager
def _split_cores(split: bool):
    """With ``split``, PostgreSQL (the postmaster, so every backend it forks, and its
    running processes) on the first core and this process with what it starts (gunicorn,
    the client) on the others: a database on cores of its own, as docs/deploy.md lays
    the hosts out, on one machine. Every process's cores are given back after."""
    if not split:
        yield "shared cores"
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit("--split-cores needs two cores")
    is_postgres = lambda c: c.startswith(("postgres", "/usr/lib/postgresql/"))  # noqa: E731

    def pin(pids: list[int], to: set[int]) -> None:
        for pid in pids:
            with contextlib.suppress(OSError):  # it ended meanwhile
                os.sched_setaffinity(pid, to)

    try:
        pin(_pids(is_postgres), {cores[0]})
        os.sched_setaffinity(0, set(cores[1:]))
        yield f"PostgreSQL on core {cores[0]}, app and client on {cores[1:]}"
    finally:
        os.sched_setaffinity(0, set(cores))
        pin(_pids(is_postgres), set(cores))


def _outside_a_transaction(url: str, sql: str) -> list:
    """``sql`` on a connection of its own in autocommit (VACUUM and ALTER DATABASE need
    one), its rows if any."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            result = conn.execute(text(sql))
            return result.all() if result.returns_rows else []
    finally:
        engine.dispose()


def _track_functions(url: str) -> None:
    """The scratch database's backends count the time of each PL/pgSQL function."""
    from sqlalchemy import make_url

    name = make_url(url).database
    _outside_a_transaction(url, f"ALTER DATABASE \"{name}\" SET track_functions = 'pl'")


def _vacuum_analyze(url: str) -> None:
    """What autovacuum would have done by now on a production database."""
    _outside_a_transaction(url, "VACUUM ANALYZE")


def _wal(url: str) -> tuple[int, int, int]:
    """WAL records, full-page images and bytes written so far, instance-wide (the bench
    is the only writer of this machine's PostgreSQL while it runs)."""
    sql = "SELECT wal_records, wal_fpi, wal_bytes FROM pg_stat_wal"
    ((records, fpi, size),) = _outside_a_transaction(url, sql)
    return int(records), int(fpi), int(size)


def _function_times(url: str) -> dict[str, tuple[int, float]]:
    """PL/pgSQL function (the triggers') -> calls and milliseconds of its own time so
    far (``track_functions = 'pl'``, set on the scratch database)."""
    sql = "SELECT funcname, calls, self_time FROM pg_stat_user_functions"
    return {name: (int(calls), float(ms)) for name, calls, ms in _outside_a_transaction(url, sql)}


@contextlib.contextmanager
def scratch_org(pg: str, revision: str, prefix: str, writers: list[int]):
    """A scratch database migrated to ``revision``, counting its functions' time, with
    :func:`_setup`'s org: yields its URL and the setup's app, org, token, states and
    tasks. Dropped after."""
    with (
        work_dir(None, prefix) as work,
        scratch_database("postgresql", work, pg, False, False) as (
            url,
            _,
        ),
    ):
        instance = str(work / "instance")
        env = {**os.environ, "DATABASE_URL": url, "WORKSPACE_INSTANCE": instance}
        flask(["db", "upgrade", revision], env)
        _track_functions(url)
        os.environ["WORKSPACE_INSTANCE"] = instance
        yield (url, *_setup(url, writers))


def _run(url: str, port: int, org_id: str, token: str, cycle, tasks, writers: int, seconds: float):
    samples: list[float] = []
    errors: dict[int, int] = {}
    lock = threading.Lock()
    until = time.monotonic() + seconds

    def writer(mine: list[str]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        step = 0
        while time.monotonic() < until:
            task = mine[step % len(mine)]
            state = cycle[(step // len(mine) + 1) % len(cycle)]
            body = json.dumps({"state_id": state})
            started = time.perf_counter()
            conn.request("PATCH", f"/api/v1/orgs/{org_id}/tasks/{task}", body, headers)
            resp = conn.getresponse()
            resp.read()
            took = (time.perf_counter() - started) * 1000
            with lock:
                if resp.status == 200:
                    samples.append(took)
                else:
                    errors[resp.status] = errors.get(resp.status, 0) + 1
            step += 1
        conn.close()

    threads = [threading.Thread(target=writer, args=(tasks[w],)) for w in range(writers)]
    database = url.rsplit("/", 1)[1]
    is_app = lambda c: "gunicorn" in c  # noqa: E731
    is_pg = lambda c: c.startswith("postgres:") and f" {database} " in c  # noqa: E731
    app_cpu, pg_cpu = _cpu_by_pid(is_app), _cpu_by_pid(is_pg)
    # The client shares the cores: its CPU (this process, the lock sampler included)
    # is part of what a round can afford.
    client_cpu = sum(os.times()[:2])
    functions = _function_times(url)
    wal = _wal(url)
    with _LockWaits(url) as waits:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    time.sleep(STATS_FLUSH_SECONDS)
    functions = {
        name: (calls - functions.get(name, (0, 0.0))[0], ms - functions.get(name, (0, 0.0))[1])
        for name, (calls, ms) in _function_times(url).items()
    }
    wal = [after - before for after, before in zip(_wal(url), wal, strict=True)]
    app_cpu, pg_cpu = _cpu_since(app_cpu, is_app), _cpu_since(pg_cpu, is_pg)
    client_cpu = sum(os.times()[:2]) - client_cpu
    done = len(samples)
    return {
        "rate": done / seconds,
        "seconds": seconds,
        "p50": statistics.median(samples) if samples else float("nan"),
        "p99": statistics.quantiles(samples, n=100, method="inclusive")[-1]
        if done > 1
        else float("nan"),
        "errors": errors,
        "app_ms": app_cpu * 1000 / max(done, 1),
        "pg_ms": pg_cpu * 1000 / max(done, 1),
        "client_ms": client_cpu * 1000 / max(done, 1),
        "lock_waits": waits.mean,
        "waiting_in": waits.waiting_in,
        "busy": waits.busy(),
        "functions": functions,
        "wal": [n / max(done, 1) for n in wal],
    }


def _statements_per_patch(app, org_id: str, token: str, cycle, task: str) -> int:
    from sqlalchemy import event

    from workspace.extensions import db

    seen: list[str] = []
    with app.app_context():
        engine = db.engine
    listener = lambda *args: seen.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        client = app.test_client()
        resp = client.patch(f"/api/v1/orgs/{org_id}/tasks/{task}", json={"state_id": cycle[1]},
                            headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        assert resp.status_code == 200, resp.get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    if os.environ.get("HOT_WRITES_STATEMENTS"):
        for statement in seen:
            print("   ", " ".join(statement.split())[:110])
    return len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument(
        "--pairs", type=int, default=3, help="alternating rounds with and without, per count"
    )
    parser.add_argument(
        "--revision", default="head", help="migrate the scratch database only this far (A/B)"
    )
    parser.add_argument(
        "--split-cores",
        action="store_true",
        help="PostgreSQL on a core of its own, the app and client on the rest (as root)",
    )
    parser.add_argument(
        "--stale-stats",
        action="store_true",
        help="no VACUUM ANALYZE before each round (this machine's autovacuum is off)",
    )
    parser.add_argument("--pg", default=os.environ.get("TEST_DATABASE_URL",
                        "postgresql://postgres@127.0.0.1:5432/test"))  # fmt: skip
    args = parser.parse_args()
    print(f"bench/hot_writes.py --writers {' '.join(map(str, args.writers))}: {machine()}")
    with scratch_org(args.pg, args.revision, "hot-writes-", args.writers) as (
        url,
        app,
        org_id,
        token,
        cycle,
        tasks,
    ):
        with app.app_context():
            print(f"statements per PATCH (state change): "
                  f"{_statements_per_patch(app, org_id, token, cycle, tasks[0][0])}")  # fmt: skip
        extra = ("-k", "gthread", "--threads", "8")
        with (
            _split_cores(args.split_cores) as cores,
            gunicorn(url, os.environ["WORKSPACE_INSTANCE"], *extra, workers=args.workers) as port,
        ):
            print(f"cores: {cores}")
            for writers in args.writers:
                # A short round first, not counted: each gunicorn worker opens its
                # connections and each backend compiles the trigger functions it runs
                # (34 ms each, once per backend), which fell on the first counted round.
                _run(url, port, org_id, token, cycle, tasks, writers, WARM_UP_SECONDS)
                rounds: dict[str, list[dict]] = {}
                for mode in ("rollups", "baseline") * args.pairs:
                    run = (url, port, org_id, token, cycle, tasks, writers, args.seconds)
                    if not args.stale_stats:
                        _vacuum_analyze(url)
                    with app.app_context():
                        if mode == "baseline":
                            with triggers_off(None):
                                result = _run(*run)
                            result["exact"] = _verify(org_id, repair=True)  # rebuilt
                        else:
                            result = _run(*run)
                            result["exact"] = _verify(org_id, repair=False)
                    rounds.setdefault(mode, []).append(result)
                _report(writers, rounds)


def _report(writers: int, rounds: dict) -> None:
    def median(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in rounds[mode])

    # Each round with rollups is set against the baseline round run right after it,
    # so the two share the machine's load of the moment; the median of those pairs is
    # the figure, and the spread says how far one pair can be trusted.
    pairs = list(zip(rounds["rollups"], rounds["baseline"], strict=True))
    rates = sorted(w["rate"] / b["rate"] for w, b in pairs)
    tails = sorted(w["p99"] / b["p99"] for w, b in pairs)
    print(
        f"{writers} writers (load {load1():.1f}, {len(pairs)} pairs of rounds, medians): "
        f"with rollups {median('rollups', 'rate'):.0f} tasks/s, "
        f"p50 {median('rollups', 'p50'):.0f} ms, p99 {median('rollups', 'p99'):.0f} ms; "
        f"without {median('baseline', 'rate'):.0f} tasks/s, "
        f"p50 {median('baseline', 'p50'):.0f} ms, p99 {median('baseline', 'p99'):.0f} ms"
    )
    print(
        f"  throughput ratio {statistics.median(rates):.2f} "
        f"(pairs {', '.join(f'{r:.2f}' for r in rates)}), "
        f"p99 ratio {statistics.median(tails):.2f} "
        f"(pairs {', '.join(f'{r:.2f}' for r in tails)})"
    )
    # On shared cores the writes are bound by CPU once they no longer wait on locks:
    # the ratio the CPU per write alone allows, to read the throughput ratio against.
    parts = ("app_ms", "pg_ms", "client_ms")
    cpu = {m: sum(rounds[m][-1][p] for p in parts) for m in ("rollups", "baseline")}
    print(f"  CPU per write (app + PostgreSQL + client) {cpu['rollups']:.1f} vs "
          f"{cpu['baseline']:.1f} ms: "
          f"a CPU-bound ratio of {cpu['baseline'] / cpu['rollups']:.2f}")  # fmt: skip
    for mode in ("rollups", "baseline"):
        errors: dict[int, int] = {}
        for r in rounds[mode]:
            for code, n in r["errors"].items():
                errors[code] = errors.get(code, 0) + n
        cpu = rounds[mode][-1]
        failed = ", ".join(f"{n} x HTTP {c}" for c, n in sorted(errors.items()))
        exact = "" if mode == "baseline" else (
            "; rollups exact after each run" if all(r["exact"] for r in rounds[mode])
            else "; ROLLUPS WRONG after a run")  # fmt: skip
        print(
            f"  {mode}: CPU per write app {cpu['app_ms']:.1f} ms, "
            f"PostgreSQL {cpu['pg_ms']:.1f} ms, client {cpu['client_ms']:.1f} ms; "
            "backends waiting on a lock "
            f"{cpu['lock_waits']:.1f} on average; {failed or 'no failed writes'}{exact}"
        )
        done = cpu["rate"] * cpu["seconds"]
        spent = sorted(cpu["functions"].items(), key=lambda kv: -kv[1][1])
        if spent and done:
            total = sum(ms for _, ms in cpu["functions"].values()) / done
            top = "; ".join(f"{name} {ms / done:.2f}" for name, (_, ms) in spent[:6])
            print(f"    trigger functions {total:.2f} ms a write, of which: {top}")
        records, images, size = cpu["wal"]
        print(f"    WAL per write: {records:.1f} records, {images:.2f} full-page images, "
              f"{size / 1024:.1f} KiB")  # fmt: skip
        busy = "; ".join(f"{state} {n:.2f}" for state, n in cpu["busy"])
        print(f"    backends busy, mean per state: {busy or 'none seen'}")
        waited = sorted(cpu["waiting_in"].items(), key=lambda kv: -kv[1])[:3]
        if waited:
            total = sum(cpu["waiting_in"].values())
            print("    waiting in: " + "; ".join(f"{q!r} {n / total:.0%}" for q, n in waited))


def _verify(org_id: str, repair: bool) -> bool:
    """Whether the org's rollups matched its tasks (and, with ``repair``, now do)."""
    from workspace.analytics import consistency
    from workspace.extensions import db

    check = consistency.verify(uuid.UUID(org_id), repair=repair)
    db.session.commit()
    return check.ok


if __name__ == "__main__":
    main()
