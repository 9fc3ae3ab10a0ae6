"""A real PostgreSQL primary and a streaming-replication hot standby of it, made once
per session with PostgreSQL's own tools (initdb, pg_basebackup), on ports of their
own so the shared test server is never touched."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))


@dataclass
class PgPair:
    primary_url: str
    standby_url: str
    standby_dir: Path

    def on_standby(self, sql: str) -> str:
        return _psql(self.standby_url, sql)

    def on_primary(self, sql: str) -> str:
        return _psql(self.primary_url, sql)


def _psql(url: str, sql: str) -> str:
    done = subprocess.run(
        [str(PG_BIN / "psql"), url, "-Atc", sql], capture_output=True, text=True, timeout=30
    )
    if done.returncode:
        raise AssertionError(f"psql {sql!r}: {done.stderr}")
    return done.stdout.strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(*cmd: str) -> list[str]:
    # initdb refuses to run as root; CI runs as root.
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else list(cmd)


def _run(*cmd: str) -> None:
    done = subprocess.run(_as_postgres(*cmd), capture_output=True, text=True, timeout=120)
    if done.returncode:
        pytest.fail(f"{' '.join(cmd)} failed: {done.stderr or done.stdout}")


@pytest.fixture(scope="session")
def pg_pair() -> Iterator[PgPair]:
    if not (PG_BIN / "initdb").exists():
        pytest.fail(f"PostgreSQL server binaries not found in {PG_BIN}: apt-get install postgresql")
    # Not under pytest's tmp dirs: they are 0700, and the servers run as postgres.
    base = Path(tempfile.mkdtemp(prefix="ws-pgpair-"))
    base.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    primary, standby = base / "primary", base / "standby"
    ports = _free_port(), _free_port()
    _run(str(PG_BIN / "initdb"), "-D", str(primary), "-U", "postgres", "--auth=trust", "-N")
    with open(primary / "postgresql.conf", "a") as conf:
        conf.write("fsync = off\nwal_level = replica\nmax_wal_senders = 5\n")
    options = "-c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c port={}"
    _run(str(PG_BIN / "pg_ctl"), "-D", str(primary), "-l", str(base / "primary.log"),
         "-o", options.format(base, ports[0]), "-w", "start")  # fmt: skip
    try:
        primary_url = f"postgresql://postgres@127.0.0.1:{ports[0]}/postgres"
        _run(str(PG_BIN / "pg_basebackup"), "-d", primary_url, "-D", str(standby), "-R",
             "-X", "stream")  # fmt: skip
        _run(str(PG_BIN / "pg_ctl"), "-D", str(standby), "-l", str(base / "standby.log"),
             "-o", options.format(base, ports[1]), "-w", "start")  # fmt: skip
        yield PgPair(
            primary_url=primary_url,
            standby_url=f"postgresql://postgres@127.0.0.1:{ports[1]}/postgres",
            standby_dir=standby,
        )
    finally:
        for data in (standby, primary):
            if data.exists():
                subprocess.run(
                    _as_postgres(
                        str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"
                    ),
                    capture_output=True,
                )
        shutil.rmtree(base, ignore_errors=True)
