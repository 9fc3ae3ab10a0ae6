"""What bench/jobs.py drives: a slow fake model, a ``flask jobs worker`` process, HTTP
clients (the load, the probes, click-to-file) and the Redis round-trip baseline."""

from __future__ import annotations

import http.client
import json
import math
import multiprocessing
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from common import ROOT

ANSWER = {
    "metric": "open",
    "dimension": "assignee",
    "title": "Open by assignee",
    "kind": None,
    "priority": None,
}


def pct(samples: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``samples``; nan when there are none."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def p50_p95(samples: list[float]) -> str:
    return f"p50 {pct(samples, 0.5):7.1f} ms  p95 {pct(samples, 0.95):7.1f} ms  (n={len(samples)})"


@contextmanager
def slow_model(delay: float) -> Iterator[str]:
    """An OpenAI-compatible ``/v1/chat/completions`` on loopback that answers a chart
    after ``delay`` seconds; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            time.sleep(delay)
            body = json.dumps(
                {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion",
                    "model": "bench-slow",
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": json.dumps(ANSWER)},
                        }
                    ],
                    "usage": {"prompt_tokens": 900, "completion_tokens": 60, "total_tokens": 960},
                }
            ).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def job_worker(env: dict[str, str], log: Path, threads: int = 4) -> Iterator[None]:
    """``flask --app workspace jobs worker --threads N`` (as tests/jobs/processes.py
    starts one), stopped with SIGTERM (then SIGKILL) whatever happens."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flask",
                "--app",
                "workspace",
                "jobs",
                "worker",
                "--threads",
                str(threads),
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


class Client:
    """One keep-alive-if-possible HTTP connection to the server under test."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=180)

    def call(self, method: str, path: str, body: dict | None = None):
        """(status, headers, body bytes, milliseconds)."""
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            content = resp.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            raise
        return resp.status, resp, content, (time.perf_counter() - started) * 1000

    def job(self, method: str, path: str, body: dict | None, poll: float):
        """Start a job (202 + Location), poll it every ``poll`` s until finished; then
        its file, if it made one. (final status, JSON of the job or None)."""
        status, resp, content, _ = self.call(method, path, body)
        if status != 202:
            return status, None
        location = resp.getheader("Location")
        while True:
            time.sleep(poll)
            status, _, content, _ = self.call("GET", location)
            job = json.loads(content)
            if job["state"] in ("done", "dead"):
                break
        if job["state"] == "done" and job.get("file_url"):
            status, _, content, _ = self.call("GET", job["file_url"])
            if not content.startswith(b"%PDF"):
                return 599, job
            return status, job
        return (200 if job["state"] == "done" else 590), job


@dataclass
class Load:
    """What one load run saw."""

    healthz: list[float] = field(default_factory=list)
    page: list[float] = field(default_factory=list)
    asks: list[float] = field(default_factory=list)
    pdfs: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    load: list[float] = field(default_factory=list)  # the 1-minute load after each run

    def add(self, other: Load) -> None:
        for name in ("healthz", "page", "asks", "pdfs", "load"):
            getattr(self, name).extend(getattr(other, name))
        self.errors.update(other.errors)


def run_load(
    port: int, ctx, seconds: float, asks: int, pdfs: int, ask_jobs: bool, warm: float = 4.0
) -> Load:
    """``asks`` clients asking again and again (``ask_jobs``: through the ask job API,
    else the synchronous one) spread over the bench orgs, ``pdfs`` clients exporting the
    40-widget dashboard again and again; after ``warm`` seconds, ``seconds`` of one
    client on ``/healthz`` and one on the project's task list, 50 ms apart."""
    out, lock, stop = Load(), threading.Lock(), threading.Event()

    def note(kind: str, status: int) -> None:
        with lock:
            out.errors[f"{kind} {status}"] += 1

    def asker(i: int) -> None:
        org_id, token = ctx.orgs[i % len(ctx.orgs)]
        client = Client(port, token)
        base = f"/api/v1/orgs/{org_id}/analytics/ask"
        while not stop.is_set():
            started = time.perf_counter()
            try:
                if ask_jobs:
                    status, _ = client.job("POST", base + "/jobs", {"text": "open by person"}, 0.2)
                else:
                    status = client.call("POST", base, {"text": "open by person"})[0]
            except (OSError, http.client.HTTPException) as exc:
                status = type(exc).__name__
            if status == 200:
                with lock:
                    out.asks.append((time.perf_counter() - started) * 1000)
            else:
                note("ask", status)
                time.sleep(0.3)

    def exporter() -> None:
        client = Client(port, ctx.token)
        path = f"/api/v1/orgs/{ctx.org_id}/dashboards/{ctx.forty}/exports"
        while not stop.is_set():
            started = time.perf_counter()
            try:
                status, _ = client.job("POST", path, None, 0.2)
            except (OSError, http.client.HTTPException) as exc:
                status = type(exc).__name__
            if status == 200:
                with lock:
                    out.pdfs.append((time.perf_counter() - started) * 1000)
            else:
                note("pdf", status)
                time.sleep(0.5)

    def prober(path: str, samples: list[float], token: str | None, until: float) -> None:
        client = Client(port, token)
        while time.monotonic() < until:
            try:
                status, _, _, ms = client.call("GET", path)
            except (OSError, http.client.HTTPException) as exc:
                status, ms = type(exc).__name__, 0.0
            if status == 200:
                samples.append(ms)
            else:
                note(path.split("/")[-1], status)
            time.sleep(0.05)

    load = [threading.Thread(target=asker, args=(i,), daemon=True) for i in range(asks)]
    load += [threading.Thread(target=exporter, daemon=True) for _ in range(pdfs)]
    for t in load:
        t.start()
    time.sleep(warm)
    until = time.monotonic() + seconds
    page = f"/api/v1/orgs/{ctx.org_id}/projects/{ctx.project}/tasks?limit=50"
    probes = [
        threading.Thread(target=prober, args=("/healthz", out.healthz, None, until)),
        threading.Thread(target=prober, args=(page, out.page, ctx.token, until)),
    ]
    for t in probes:
        t.start()
    for t in probes:
        t.join()
    out.load.append(os.getloadavg()[0])
    stop.set()
    for t in load:  # each finishes what it started, so the next run starts idle
        t.join(timeout=120)
    return out


def click_to_file(port: int, ctx, runs: int, poll: float) -> tuple[list[float], ...]:
    """POST the 12-widget dashboard's export, poll its job every ``poll`` s, GET the
    file, after one unmeasured run (the worker's Chromium starts): milliseconds per
    run, and of those the job's wait (started - created) and run (finished - started)."""
    client = Client(port, ctx.token)
    path = f"/api/v1/orgs/{ctx.org_id}/dashboards/{ctx.twelve}/exports"
    total, wait, run = [], [], []
    for i in range(runs + 1):
        started = time.perf_counter()
        status, job = client.job("POST", path, None, poll)
        if status != 200:
            raise RuntimeError(f"12-widget export: {status} {job}")
        if i:
            total.append((time.perf_counter() - started) * 1000)
            times = {
                k: datetime.fromisoformat(job[k])
                for k in ("created_at", "started_at", "finished_at")
            }
            wait.append((times["started_at"] - times["created_at"]).total_seconds() * 1000)
            run.append((times["finished_at"] - times["started_at"]).total_seconds() * 1000)
    return total, wait, run


def _echo(url: str, inbox: str, outbox: str) -> None:
    import redis

    r = redis.Redis.from_url(url)
    while True:
        _, value = r.brpop([inbox])
        if value == b"stop":
            return
        r.lpush(outbox, json.dumps([float(value), time.time()]))


def redis_round_trip(url: str, prefix: str, runs: int, gap: float) -> list[float]:
    """LPUSH of the send time by this process, BRPOP by another process which notes
    its receive time: receive - send in milliseconds, one at a time, ``runs`` times,
    up to ``gap`` s apart (as the probes)."""
    import redis

    inbox, outbox = f"{prefix}:bench-in", f"{prefix}:bench-out"
    r = redis.Redis.from_url(url)
    child = multiprocessing.get_context("spawn").Process(target=_echo, args=(url, inbox, outbox))
    child.start()
    try:
        samples = []
        for i in range(runs + 5):
            r.lpush(inbox, repr(time.time()))
            _, reply = r.brpop([outbox], timeout=10)
            sent, received = json.loads(reply)
            if i >= 5:
                samples.append((received - sent) * 1000)
            time.sleep(random.uniform(0.005, max(gap, 0.005)))
        return samples
    finally:
        r.lpush(inbox, "stop")
        child.join(10)
        if child.is_alive():
            child.kill()
        r.delete(inbox, outbox)
        r.close()


def probe_latency(app, runs: int, gap: float) -> list[float]:
    """``runs`` system.probe jobs enqueued one at a time on the app's broker, each
    once the last is done and a random 5 ms to ``gap`` s later: started_at -
    created_at from the jobs table, in ms."""
    from workspace.extensions import db
    from workspace.jobs import service as jobs
    from workspace.jobs.models import Job

    samples = []
    with app.app_context():
        for i in range(runs + 5):
            job_id = jobs.enqueue("system.probe", args={"steps": 1, "seconds": 0}).id
            db.session.commit()
            deadline = time.monotonic() + 30
            while True:
                row = db.session.get(Job, job_id)
                state, created, started = row.state, row.created_at, row.started_at
                db.session.rollback()
                if state in ("done", "dead"):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"probe job {job_id} still {state} after 30 s")
                time.sleep(0.002)
            if i >= 5:
                samples.append((started - created).total_seconds() * 1000)
            time.sleep(random.uniform(0.005, max(gap, 0.005)))
        db.engine.dispose()
    return samples


def clean_redis(url: str, namespace: str) -> int:
    import redis

    r = redis.Redis.from_url(url)
    keys = list(r.scan_iter(f"{namespace}*"))
    if keys:
        r.delete(*keys)
    r.close()
    return len(keys)
