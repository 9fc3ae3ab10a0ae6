"""Real processes for the fault tests: a Redis server of the test's own (its data on disk,
so a restart keeps what it acknowledged) and ``flask jobs worker`` processes, each
logging to a file that a failing test prints."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis

REDIS_SERVER = os.environ.get("REDIS_SERVER_PATH", "/usr/bin/redis-server")
FLASK = [sys.executable, "-m", "flask", "--app", "workspace"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, timeout: float, what: str, interval: float = 0.05):
    """``check()``'s first truthy answer; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout}s")
        time.sleep(interval)


class RedisServer:
    """Debian's redis-server on a free port, every write fsynced to its append-only file
    before it answers; ``restart`` stops it (SIGTERM) and starts it again on the same
    port and directory."""

    def __init__(self, directory: Path) -> None:
        if not os.path.exists(REDIS_SERVER):
            raise AssertionError(
                f"redis-server not found at {REDIS_SERVER}: apt-get install redis-server "
                "(or set REDIS_SERVER_PATH)"
            )
        self.dir = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [REDIS_SERVER, *self._options()],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)

        def up() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"redis-server exited: {self.log()}")
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                return False

        wait_until(up, 10, "redis-server answering")
        client.close()

    def _options(self) -> list[str]:
        options = {
            "port": str(self.port),
            "bind": "127.0.0.1",
            "dir": str(self.dir),
            "appendonly": "yes",
            "appendfsync": "always",
            "save": "",
            "protected-mode": "no",
            "logfile": str(self.dir / "redis.log"),
        }
        return [part for name, value in options.items() for part in (f"--{name}", value)]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        path = self.dir / "redis.log"
        return path.read_text()[-2000:] if path.exists() else ""


class WorkerProcess:
    """One ``flask jobs worker`` process, its output in a file."""

    def __init__(self, env: dict[str, str], log_path: Path, *args: str) -> None:
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115  (closed in stop)
        self.proc = subprocess.Popen(
            [*FLASK, "jobs", "worker", *args],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]
