"""Several machines on one Linux host: each a network namespace on a shared bridge
(docs/deploy.md). Run as root from the repository, with its virtualenv:

    sudo .venv/bin/python deploy/topology.py up        # build and start everything
    sudo .venv/bin/python deploy/topology.py status    # what answers, replica lag
    sudo .venv/bin/python deploy/topology.py kill app1 # kill -9 one host's processes
    sudo .venv/bin/python deploy/topology.py link db2 down|up
    sudo .venv/bin/python deploy/topology.py start app1  # after a kill
    sudo .venv/bin/python deploy/topology.py failover  # db1 dies, db2 promoted
    sudo .venv/bin/python deploy/topology.py down      # stop everything, remove it all

Hosts (10.77.0.0/24 on bridge ``wsbr0``; the root namespace is 10.77.0.1, the client):

    lb     10.77.0.10  HAProxy on :80, round robin over the app nodes
    app1   10.77.0.11  gunicorn on :8000 and a job worker
    app2   10.77.0.12  gunicorn on :8000 and a job worker
    db1    10.77.0.21  PostgreSQL primary, holding the service address 10.77.0.20
    db2    10.77.0.22  PostgreSQL hot standby (pg_basebackup, streaming replication)
    cache  10.77.0.31  Redis: job broker, rate limits

Every packet between hosts crosses a veth pair and the bridge, so "link down" on one
host is a real cut. Nothing here is test-only: docs/deploy.md maps each host to a
machine of its own.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = "wsbr0"
NET = "10.77.0"
HOSTS = {
    "lb": f"{NET}.10",
    "app1": f"{NET}.11",
    "app2": f"{NET}.12",
    "db1": f"{NET}.21",
    "db2": f"{NET}.22",
    "cache": f"{NET}.31",
}
APPS = ("app1", "app2")
#: The database's service address: held by the primary, moved to the standby when it
#: is promoted (what keepalived or a cloud's floating IP does on real machines).
DB_ADDRESS = f"{NET}.20"
PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))


def ns(host: str) -> str:
    return f"ws-{host}"


def sh(*cmd: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if check and done.returncode:
        raise SystemExit(f"{' '.join(cmd)}\nexited {done.returncode}: {done.stderr.strip()}")
    return done


def in_ns(host: str, *cmd: str) -> list[str]:
    return ["ip", "netns", "exec", ns(host), *cmd]


# -- the network ------------------------------------------------------------------


def network_up() -> None:
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", f"{NET}.1/24", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    for host, address in HOSTS.items():
        sh("ip", "netns", "add", ns(host))
        sh("ip", "link", "add", f"vb-{host}", "type", "veth", "peer", "name", "eth0",
           "netns", ns(host))  # fmt: skip
        sh("ip", "link", "set", f"vb-{host}", "master", BRIDGE, "up")
        sh(*in_ns(host, "ip", "addr", "add", f"{address}/24", "dev", "eth0"))
        sh(*in_ns(host, "ip", "link", "set", "eth0", "up"))
        sh(*in_ns(host, "ip", "link", "set", "lo", "up"))
        sh(*in_ns(host, "ip", "route", "add", "default", "via", f"{NET}.1"))
    sh(*in_ns("db1", "ip", "addr", "add", f"{DB_ADDRESS}/24", "dev", "eth0"))


def network_down() -> None:
    for host in HOSTS:
        sh("ip", "link", "del", f"vb-{host}", check=False)
        sh("ip", "netns", "del", ns(host), check=False)
    sh("ip", "link", "del", BRIDGE, check=False)


def link(host: str, state: str) -> None:
    """Cut (``down``) or restore (``up``) the host's one link to the others."""
    sh("ip", "link", "set", f"vb-{host}", state)


# -- the database -----------------------------------------------------------------


def as_postgres(host: str, *cmd: str) -> list[str]:
    return in_ns(host, "runuser", "-u", "postgres", "--", *cmd)


def pg_ctl(host: str, data: Path, action: str, log: Path) -> None:
    # Every address of the host: its own, and the service address when it holds it.
    options = f"-c listen_addresses=* -c unix_socket_directories={data.parent}"
    sh(*as_postgres(host, str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(log),
                    "-o", options, "-w", "-t", "60", action))  # fmt: skip


def database_up(base: Path, synchronous: bool) -> None:
    primary = base / "db1" / "data"
    primary.parent.mkdir(parents=True)
    shutil.chown(primary.parent, "postgres", "postgres")
    sh(*as_postgres("db1", str(PG_BIN / "initdb"), "-D", str(primary), "-U", "postgres",
                    "--auth=trust", "--no-sync"))  # fmt: skip
    with open(primary / "pg_hba.conf", "a") as hba:
        hba.write(f"host all all {NET}.0/24 trust\nhost replication all {NET}.0/24 trust\n")
    with open(primary / "postgresql.conf", "a") as conf:
        conf.write("wal_level = replica\nmax_wal_senders = 10\nhot_standby = on\n")
        conf.write("fsync = off\n")  # one disk shared by every host: spare it, not a prod setting
    pg_ctl("db1", primary, "start", primary.parent / "postgres.log")
    sh(str(PG_BIN / "psql"), "-h", HOSTS["db1"], "-U", "postgres", "-c",
       "CREATE DATABASE workspace")  # fmt: skip

    standby = base / "db2" / "data"
    standby.parent.mkdir(parents=True)
    shutil.chown(standby.parent, "postgres", "postgres")
    sh(*as_postgres("db2", str(PG_BIN / "pg_basebackup"), "-h", HOSTS["db1"], "-U", "postgres",
                    "-D", str(standby), "-R", "-X", "stream", "-C", "-S", "db2"))  # fmt: skip
    with open(standby / "postgresql.auto.conf", "a") as conf:
        conf.write("cluster_name = 'db2'\n")  # what synchronous_standby_names names
        conf.write("hot_standby_feedback = on\n")  # rollup scans not cancelled by vacuum
        conf.write(f"primary_conninfo = 'host={HOSTS['db1']} user=postgres application_name=db2'\n")
    pg_ctl("db2", standby, "start", standby.parent / "postgres.log")
    if synchronous:
        # Only now: with it set before the standby exists, the primary's first commit
        # (CREATE DATABASE above) would wait for a standby that is never there.
        for statement in ("ALTER SYSTEM SET synchronous_standby_names = 'db2'",
                          "SELECT pg_reload_conf()"):  # fmt: skip
            sh(str(PG_BIN / "psql"), "-h", HOSTS["db1"], "-U", "postgres", "-c", statement)


def failover(base: Path) -> None:
    """The documented manual failover (docs/deploy.md#failover): fence the old primary
    (here: kill it), promote the standby, move the service address to it. App nodes
    reconnect on their own: their pools test each connection before use."""
    kill(base, "db1")
    sh(*in_ns("db1", "ip", "addr", "del", f"{DB_ADDRESS}/24", "dev", "eth0"), check=False)
    sh(*as_postgres("db2", str(PG_BIN / "pg_ctl"), "-D", str(base / "db2" / "data"),
                    "-w", "promote"))  # fmt: skip
    sh(*in_ns("db2", "ip", "addr", "add", f"{DB_ADDRESS}/24", "dev", "eth0"))
    for host in (*APPS, "lb"):  # what a gratuitous ARP from the new holder does
        sh(*in_ns(host, "ip", "neigh", "flush", "all"), check=False)


# -- cache, app nodes, balancer ---------------------------------------------------


def cache_up(base: Path) -> None:
    log = str(base / "logs" / "cache.log")
    sh(*in_ns("cache", "redis-server", "--bind", HOSTS["cache"], "--port", "6379",
              "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "yes",
              "--pidfile", str(base / "cache.pid"), "--logfile", log))  # fmt: skip


def shared_secrets(base: Path) -> dict[str, str]:
    """The keys every app node shares (a session signed on one is read on the other),
    made once per topology."""
    path = base / "secrets"
    if not path.exists():
        path.write_text(
            f"{secrets.token_urlsafe(48)}\n{base64.b64encode(os.urandom(32)).decode()}\n"
        )
        path.chmod(0o600)
    secret_key, encryption_key = path.read_text().split()
    return {"SECRET_KEY": secret_key, "ENCRYPTION_KEY": encryption_key}


def app_env(base: Path, host: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(shared_secrets(base))
    env.update(
        DATABASE_URL=f"postgresql://postgres@{DB_ADDRESS}/workspace",
        DATABASE_REPLICA_URL=f"postgresql://postgres@{HOSTS['db2']}/workspace",
        JOBS_BROKER_URL=f"redis://{HOSTS['cache']}:6379/1",
        RATELIMIT_STORAGE_URI=f"redis://{HOSTS['cache']}:6379/2",
        BASE_URL=f"http://{HOSTS['lb']}",
        TRUSTED_PROXIES="1",
        WORKSPACE_INSTANCE=str(base / host),
        FLASK_APP="app",
    )
    return env


def migrate(base: Path, demo: bool) -> None:
    env = app_env(base, "app1")
    flask = str(ROOT / ".venv" / "bin" / "flask")
    subprocess.run([flask, "db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    if demo:
        subprocess.run([flask, "demo", "--if-empty", "--password", "demo-password-1"], cwd=ROOT,
                       env=env, check=True, capture_output=True)  # fmt: skip


def app_up(base: Path, host: str) -> None:
    (base / host).mkdir(exist_ok=True)
    env = app_env(base, host)
    logs = base / "logs"
    gunicorn = [str(ROOT / ".venv" / "bin" / "gunicorn"), "-w", "2", "-k", "gthread",
                "--threads", "4", "-b", f"{HOSTS[host]}:8000", "--pid", str(base / f"{host}.pid"),
                "--access-logfile", str(logs / f"{host}.access.log"),
                "--error-logfile", str(logs / f"{host}.log"), "--daemon", "app:app"]  # fmt: skip
    subprocess.run(in_ns(host, *gunicorn), cwd=ROOT, env=env, check=True)
    worker = in_ns(host, str(ROOT / ".venv" / "bin" / "flask"), "jobs", "worker")
    with open(logs / f"{host}.worker.log", "ab") as out:
        process = subprocess.Popen(worker, cwd=ROOT, env=env, stdout=out, stderr=out,
                                   start_new_session=True)  # fmt: skip
    (base / f"{host}.worker.pid").write_text(str(process.pid))


HAPROXY = """\
global
    maxconn 2000
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 2
    option redispatch
frontend web
    bind {lb}:80
    default_backend apps
backend apps
    balance roundrobin
    # A request the node dropped (killed mid-answer) goes to the other node only
    # when it is safe to send twice; a POST or PATCH is never sent again.
    retry-on conn-failure empty-response response-timeout
    http-request disable-l7-retry unless METH_GET or METH_HEAD or METH_OPTIONS
    option httpchk GET /healthz
    http-check expect status 200
    default-server check inter 500ms fall 2 rise 2
{servers}
"""


def balancer_up(base: Path) -> None:
    servers = "\n".join(f"    server {h} {HOSTS[h]}:8000" for h in APPS)
    config = base / "haproxy.cfg"
    config.write_text(HAPROXY.format(lb=HOSTS["lb"], servers=servers))
    sh(*in_ns("lb", "haproxy", "-D", "-f", str(config), "-p", str(base / "lb.pid")))


# -- lifecycle --------------------------------------------------------------------


def wait_for(url: str, seconds: float = 60) -> None:
    import urllib.request

    end = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > end:
            raise SystemExit(f"{url} did not answer 200 within {seconds:.0f} s")
        time.sleep(0.25)


def up(base: Path, synchronous: bool = False, demo: bool = True) -> None:
    if base.exists():
        raise SystemExit(f"{base} exists: run `down` first")
    (base / "logs").mkdir(parents=True)
    base.chmod(0o755)
    network_up()
    try:
        database_up(base, synchronous)
        cache_up(base)
        migrate(base, demo)
        for host in APPS:
            app_up(base, host)
        balancer_up(base)
        for host in APPS:
            wait_for(f"http://{HOSTS[host]}:8000/healthz")
        wait_for(f"http://{HOSTS['lb']}/healthz")
    except BaseException:
        down(base)
        raise


def kill(base: Path, host: str, sig: int = signal.SIGKILL) -> None:
    """``kill -9`` every process of the host (the gunicorn master and its workers, the
    job worker): the machine lost power."""
    found = sh("ip", "netns", "pids", ns(host), check=False).stdout.split()
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), sig)


def down(base: Path) -> None:
    for host in HOSTS:
        kill(base, host)
    time.sleep(0.3)
    network_down()
    shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/ws-topology"))
    commands = parser.add_subparsers(dest="command", required=True)
    started = commands.add_parser("up")
    started.add_argument("--synchronous", action="store_true", help="synchronous replication")
    started.add_argument("--no-demo", action="store_true", help="no demo org (faster)")
    commands.add_parser("down")
    commands.add_parser("status")
    commands.add_parser("failover")
    started_again = commands.add_parser("start")
    started_again.add_argument("host", choices=APPS)
    killed = commands.add_parser("kill")
    killed.add_argument("host", choices=sorted(HOSTS))
    linked = commands.add_parser("link")
    linked.add_argument("host", choices=sorted(HOSTS))
    linked.add_argument("state", choices=("up", "down"))
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("network namespaces need root: run with sudo")
    if args.command == "up":
        up(args.dir, args.synchronous, demo=not args.no_demo)
        print(f"up: http://{HOSTS['lb']}/ (owner@acme.test / demo-password-1)")
    elif args.command == "down":
        down(args.dir)
    elif args.command == "status":
        for host in HOSTS:
            pids = sh("ip", "netns", "pids", ns(host), check=False).stdout.split()
            print(f"{host:6} {HOSTS[host]:12} {len(pids)} processes")
    elif args.command == "failover":
        failover(args.dir)
    elif args.command == "start":
        app_up(args.dir, args.host)
    elif args.command == "kill":
        kill(args.dir, args.host)
    else:
        link(args.host, args.state)


if __name__ == "__main__":
    main(sys.argv[1:])
