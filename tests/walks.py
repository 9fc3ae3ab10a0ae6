"""How many of our files one request runs code in (docs/architecture.md#walks-through-the-code).

A newcomer following a request opens the files it passes through. :class:`Walk` records
every ``workspace/`` file in which a Python function is called while the request is
served, in this thread, then leaves out :data:`EVERY_REQUEST`: the hooks that run for any
request or any flush whatever its route (the raw-input guard, headers, the transaction,
the column types, the liveness middleware, the SCIM error shaper, the replica router,
the webhook outbox listener, and the call of a view with its arguments). What is left is
the walk: the request's own steps, the gate included.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1] / "workspace"

EVERY_REQUEST = frozenset(
    {
        "security/request_guard.py",
        "web.py",
        "transaction.py",
        "types.py",
        "system/api.py",
        "scim/errors.py",
        "replica.py",
        "delivery/webhooks/outbox.py",
        "routes.py",
    }
)


class Walk:
    def __init__(self) -> None:
        self.called: dict[str, set[str]] = {}

    def _profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(ROOT):
            self.called.setdefault(path.relative_to(ROOT).as_posix(), set()).add(
                frame.f_code.co_name
            )

    @property
    def files(self) -> list[str]:
        return sorted(set(self.called) - EVERY_REQUEST)

    def report(self) -> str:
        return "\n".join(f"{name}: {', '.join(sorted(self.called[name]))}" for name in self.files)


@contextmanager
def walk() -> Iterator[Walk]:
    """Record the files the code in the ``with`` block runs in."""
    recorded = Walk()
    previous = sys.getprofile()
    sys.setprofile(recorded._profile)
    try:
        yield recorded
    finally:
        sys.setprofile(previous)
