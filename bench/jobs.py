"""Job queue benchmark (issue 26; not a test): pages under PDF and ask load, a warm PDF
from click to file, and enqueue-to-start latency, each against a baseline in the run.

On a scratch PostgreSQL database loaded with ``flask bench-data`` and Redis (a spare
db number, a namespace of its own), gunicorn -w 2 (bench/bench_wsgi.py) and one
``flask jobs worker --threads 4`` process:

1. Under load: 8 clients asking for charts from a slow fake model (answers after
   ``--model-delay`` s) and 4 clients exporting a 40-widget dashboard as PDF, again and
   again; meanwhile ``/healthz`` and a project's task list (JSON, with a token) are
   requested one at a time for ``--seconds``: p50/p95. Baseline: the same load on the
   embedded default (no JOBS_BROKER_URL: exports and asks run in the web processes).
   Asks go through the ``ai.ask`` job API when the app has that handler, else through
   the synchronous ask API (the output says which).
2. A 12-widget PDF, warm: POST …/exports, poll the job, GET the file. Baseline:
   ``export.render_pdf`` of the same dashboard in this process (the render alone).
3. Enqueue-to-start on the idle worker: ``system.probe`` jobs one at a time,
   started_at - created_at. Baseline: LPUSH → BRPOP between two processes.

    .venv/bin/python bench/jobs.py                 # 20,000 tasks, ~8 minutes
    .venv/bin/python bench/jobs.py --seconds 30 --model-delay 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from common import TWELVE, biggest_org, gunicorn, header, load1, prepare, save_twelve
from common import scratch_database as scratch
from jobs_load import (
    Load,
    clean_redis,
    click_to_file,
    job_worker,
    p50_p95,
    pct,
    probe_latency,
    redis_round_trip,
    run_load,
    slow_model,
)

FORTY = 40


@dataclass
class Context:
    org_id: str
    token: str
    project: str
    twelve: str
    forty: str
    orgs: list[tuple[str, str]]  # (org id, token) of every bench org, for the asks


def setup(app, model_url: str) -> Context:
    """Tokens and model settings for the bench orgs, the 12- and 40-widget dashboards."""
    from sqlalchemy import select

    from workspace.agents.settings import save_settings
    from workspace.analytics.dashboards import service, widgets
    from workspace.auth.api_tokens import create_token
    from workspace.core.models import Org
    from workspace.extensions import db

    with app.app_context():
        org, _, owner, first_project = biggest_org()
        orgs = []
        for other in db.session.scalars(select(Org).where(Org.slug.like("bench-%"))):
            _, token = create_token(owner, other, f"jobs bench {uuid.uuid4().hex[:6]}")
            save_settings(
                other.id,
                base_url=model_url,
                model="bench-slow",
                api_key="sk-bench-not-a-key",
                actor_id=owner.id,
            )
            orgs.append((str(other.id), token))
        token = dict(orgs)[str(org.id)]
        twelve = save_twelve(org, owner.id, first_project, "jobs bench twelve")
        forty = service.create_dashboard(org, owner.id, "jobs bench forty")
        for i in range(FORTY):
            title, chart, metric, dimension, scoped, pql = TWELVE[i % len(TWELVE)]
            widgets.add_widget(
                forty,
                org,
                owner.id,
                {
                    "title": f"{title} {i + 1}",
                    "chart_type": chart,
                    "metric": metric,
                    "dimension": dimension,
                    "project_id": first_project if scoped else None,
                    "filter": pql,
                },
            )
        db.session.commit()
        ctx = Context(str(org.id), token, str(first_project), str(twelve.id), str(forty.id), orgs)
        db.engine.dispose()
    return ctx


def render_alone(app, ctx: Context, runs: int) -> list[float]:
    """``export.render_pdf`` of the 12-widget dashboard in this process, figures
    computed once, after one unmeasured render (Chromium starts)."""
    from workspace.analytics.dashboards import export
    from workspace.analytics.dashboards.models import Dashboard
    from workspace.analytics.dashboards.present import present
    from workspace.analytics.dashboards.query import DashboardQuery, specs
    from workspace.core.models import Org
    from workspace.extensions import db

    with app.test_request_context():
        org = db.session.get(Org, uuid.UUID(ctx.org_id))
        dashboard = db.session.get(Dashboard, uuid.UUID(ctx.twelve))
        query = DashboardQuery(org, dashboard.owner_id, dashboard.pql_filter, None)
        views = [present(r) for r in query.compute(specs(dashboard))]
        export.render_pdf(dashboard, views, None)
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            export.render_pdf(dashboard, views, None)
            samples.append((time.perf_counter() - started) * 1000)
        db.engine.dispose()
    return samples


def wait_ready(port: int, need_worker: bool) -> None:
    """Until /readyz says the database and, with a broker, a live worker are there."""
    import http.client
    import json

    deadline = time.monotonic() + 90
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", "/readyz")
            resp = conn.getresponse()
            body = json.loads(resp.read())
            failed = set(body.get("failed", [])) - (set() if need_worker else {"workers"})
            if not failed:
                return
        except (OSError, ValueError):
            failed = {"no answer"}
        finally:
            conn.close()
        if time.monotonic() > deadline:
            raise RuntimeError(f"/readyz still failing: {failed}")
        time.sleep(0.5)


def print_load(label: str, load) -> None:
    print(f"  {label} (load {' '.join(f'{x:.1f}' for x in load.load)})")
    print(f"    /healthz           {p50_p95(load.healthz)}")
    print(f"    project task list  {p50_p95(load.page)}")
    if not (load.asks or load.pdfs or load.errors):
        return
    asks = f"{len(load.asks)} asks answered (median {pct(load.asks, 0.5) / 1000:.1f} s)"
    pdfs = f"{len(load.pdfs)} 40-widget PDFs (median {pct(load.pdfs, 0.5) / 1000:.1f} s)"
    errors = ", ".join(f"{n} x {k}" for k, n in sorted(load.errors.items())) or "no refusals"
    print(f"    meanwhile: {asks}, {pdfs}; {errors}", flush=True)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--tasks", type=int, default=20_000, help="tasks bench-data loads")
    add("--pg-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    add("--redis", default="redis://127.0.0.1:6379", help="Redis, without a db number")
    add("--redis-db", type=int, default=13, help="a spare Redis db number")
    add("--seconds", type=float, default=15.0, help="probing under load, per round")
    add("--rounds", type=int, default=2, help="queue and embedded load runs, alternated")
    add("--model-delay", type=float, default=3.0, help="the fake model's answer time (s)")
    add("--asks", type=int, default=8, help="ask clients under load")
    add("--pdfs", type=int, default=4, help="40-widget PDF clients under load")
    add("--runs", type=int, default=10, help="12-widget PDFs timed")
    add("--poll", type=float, default=0.05, help="job poll period (s) for the PDF timing")
    add("--probes", type=int, default=200, help="probe jobs timed, per series")
    add("--probe-gap", type=float, default=0.5, help="idle: up to this many s between probes")
    args = parser.parse_args()
    args.keep, args.reuse = None, False
    return args


def measure(args, url: str, instance: str, tmp: Path, model_url: str, ns: str) -> dict:
    """Every figure: the queue's and, alternated with it, the embedded default's."""
    from workspace import create_app
    from workspace.jobs.registry import HANDLERS

    redis_url = f"{args.redis.rstrip('/')}/{args.redis_db}"
    queued = {"JOBS_BROKER_URL": redis_url, "JOBS_NAMESPACE": ns}
    app = create_app({
        "SQLALCHEMY_DATABASE_URI": url, "OUTBOUND_ALLOW_PRIVATE": ["127.0.0.1"],
        "DASHBOARD_MAX_WIDGETS": FORTY, "JOBS_EMBEDDED_WORKER": False, **queued,
    })  # fmt: skip
    ask_jobs = "ai.ask" in HANDLERS
    ctx = setup(app, model_url)
    api = "the ai.ask job API (POST …/analytics/ask/jobs, polled every 200 ms)" if ask_jobs \
        else "the synchronous ask API (POST …/analytics/ask): no ai.ask handler yet"  # fmt: skip
    print(f"  PostgreSQL scratch database; Redis {redis_url}, namespace {ns}; asks: {api}")
    got = {"queue": Load(), "embedded": Load()}
    for round_ in range(args.rounds):
        os.environ.update(queued)
        worker_env = {**os.environ, "DATABASE_URL": url}
        with gunicorn(url, instance) as port, job_worker(worker_env, tmp / "worker.log"):
            wait_ready(port, need_worker=True)
            if round_ == 0:
                print(f"  measuring, idle first (load {load1():.1f})", flush=True)
                got["idle"] = run_load(port, ctx, args.seconds / 3, 0, 0, ask_jobs, warm=0)
                got["click"] = click_to_file(port, ctx, args.runs, args.poll)
                got["busy"] = probe_latency(app, args.probes, 0.005)
                got["starts"] = probe_latency(app, args.probes, args.probe_gap)
            load = run_load(port, ctx, args.seconds, args.asks, args.pdfs, ask_jobs)
            got["queue"].add(load)
        for name in queued:
            os.environ.pop(name, None)
        with gunicorn(url, instance) as port:
            wait_ready(port, need_worker=False)
            got["embedded"].add(run_load(port, ctx, args.seconds, args.asks, args.pdfs, ask_jobs))
        print(f"  round {round_ + 1} of {args.rounds} done (load {load1():.1f})", flush=True)
    got["alone"] = render_alone(app, ctx, args.runs)
    got["round_trip"] = redis_round_trip(redis_url, ns, args.probes, args.probe_gap)
    return got


def report(args, got: dict) -> None:
    queue, embedded = got["queue"], got["embedded"]
    print(f"\n1. Under load: {args.asks} asks (the model answers in {args.model_delay:g} s) "
          f"+ {args.pdfs} x 40-widget PDF, probed {args.rounds} x {args.seconds:g} s, one "
          f"request per 50 ms per probe; target p95 < 100 ms")  # fmt: skip
    print_load("no load (reference): gunicorn -w 2 + 1 job worker on Redis", got["idle"])
    print_load("queue: gunicorn -w 2 + 1 job worker (--threads 4) on Redis", queue)
    print_load("baseline: embedded default (no JOBS_BROKER_URL), gunicorn -w 2", embedded)
    for label, q, e in (
        ("/healthz", queue.healthz, embedded.healthz),
        ("project task list", queue.page, embedded.page),
    ):
        print(f"    {label}: p95 embedded / queue = {pct(e, 0.95) / pct(q, 0.95):.2f}x")

    total, wait, run = got["click"]
    alone = got["alone"]
    print(f"\n2. 12-widget PDF, warm, click to file (job polled every "
          f"{args.poll * 1000:g} ms, {args.runs} runs); target < 1.5 s")  # fmt: skip
    print(f"  POST exports → job → GET file  {p50_p95(total)}")
    print(f"    of which queued (wait)       {p50_p95(wait)}")
    print(f"    of which the job ran         {p50_p95(run)}  (compute + render + store)")
    print(f"  baseline export.render_pdf     {p50_p95(alone)}  (in process, render alone)")
    print(f"  click-to-file / render alone = "
          f"{statistics.median(total) / statistics.median(alone):.2f}x (medians)")  # fmt: skip

    rt = got["round_trip"]
    print(f"\n3. Enqueue to start, {args.probes} system.probe jobs one at a time, each "
          f"after the last is done; target p95 < 50 ms")  # fmt: skip
    print(f"  idle (5 ms to {args.probe_gap:g} s apart)    {p50_p95(got['starts'])}")
    print(f"  back to back (5 ms apart)      {p50_p95(got['busy'])}")
    print(f"  baseline Redis LPUSH → BRPOP   {p50_p95(rt)}  (two processes, as idle)")
    for label, xs in (("idle", got["starts"]), ("back to back", got["busy"])):
        print(f"  {label} / round trip = {pct(xs, 0.95) / pct(rt, 0.95):.0f}x (p95), "
              f"{pct(xs, 0.5) / pct(rt, 0.5):.0f}x (p50)")  # fmt: skip
    print(f"\n(load at the end {load1():.1f})")


def main() -> None:
    args = arguments()
    print(header("jobs.py", args), flush=True)
    namespace = f"bench-jobs-{uuid.uuid4().hex[:8]}"
    shared = {
        "OUTBOUND_ALLOW_PRIVATE": "127.0.0.1",
        "DASHBOARD_MAX_WIDGETS": str(FORTY),
        "EXPORT_MAX_IN_FLIGHT_PER_ORG": str(args.pdfs),
        "EXPORT_MAX_IN_FLIGHT_PER_MEMBER": str(args.pdfs),
    }
    saved = dict(os.environ)
    with (
        tempfile.TemporaryDirectory(prefix="bench-jobs-") as tmp,
        scratch("postgresql", Path(tmp), args.pg_url, False, False) as (url, _),
        slow_model(args.model_delay) as model_url,
    ):
        instance = Path(tmp) / "instance"
        instance.mkdir()
        try:
            prepare(url, args.tasks, str(instance))
            os.environ.update({**shared, "WORKSPACE_INSTANCE": str(instance)})
            got = measure(args, url, str(instance), Path(tmp), model_url, namespace)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            removed = clean_redis(f"{args.redis.rstrip('/')}/{args.redis_db}", namespace)
            print(f"  cleaned up: {removed} Redis keys, the processes, the scratch database")
    report(args, got)


if __name__ == "__main__":
    main()
