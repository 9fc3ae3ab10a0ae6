"""Bounds on dashboards (docs/security.md#limits): widgets per dashboard, and PDF
exports under way at once per org and per member.

**Widgets.** A dashboard holds at most ``DASHBOARD_MAX_WIDGETS``. Adding or
duplicating a widget past it, or duplicating a dashboard that already has more, is a
409; so is a PDF of a dashboard over it (made before the cap, or the cap lowered):
the PDF's cost grows with its widgets. The count is taken under the dashboard's lock
(``widgets.lock_dashboard``), so concurrent adds count each other.

**Exports in flight.** A PDF export holds one of its member's
``EXPORT_MAX_IN_FLIGHT_PER_MEMBER`` slots and one of its org's
``EXPORT_MAX_IN_FLIGHT_PER_ORG`` slots while it computes and renders; with none free
it is refused at once with 429 and ``Retry-After``. A slot is a lock owned by the
process rendering, not a row or a counter: on PostgreSQL a session advisory lock on a
connection of the export's own (the database is what every worker and app node
shares), on SQLite (one machine) an ``flock`` on a file beside the database file.
The database or the kernel drops such a lock the moment its connection or process
ends, so a worker killed mid-export frees its slots at once, and a live export never
loses its slot to an expiry that guessed how long a render may take.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

from flask import current_app
from sqlalchemy import text

from workspace.analytics.dashboards.models import Dashboard
from workspace.errors import ConflictError, ServiceError
from workspace.extensions import db

log = logging.getLogger(__name__)

#: Defaults of the app settings of the same names (workspace/config.py sets them from
#: the environment).
DASHBOARD_MAX_WIDGETS = 30
EXPORT_MAX_IN_FLIGHT_PER_ORG = 2
EXPORT_MAX_IN_FLIGHT_PER_MEMBER = 1
#: Seconds a refused export is told to wait: a 30-widget PDF takes about 1.5 s warm on
#: the 2-core machine, several times that while others render.
RETRY_AFTER = 5


def _setting(name: str, default: int) -> int:
    return int(current_app.config.get(name, default))


def max_widgets() -> int:
    return _setting("DASHBOARD_MAX_WIDGETS", DASHBOARD_MAX_WIDGETS)


def check_room(dashboard: Dashboard, adding: int = 1) -> None:
    """Refuse (409) a write that would leave ``dashboard`` with more widgets than the
    cap. Call it under :func:`widgets.lock_dashboard`, after the widgets are re-read."""
    cap = max_widgets()
    if len(dashboard.widgets) + adding > cap:
        raise ConflictError(
            f"A dashboard holds at most {cap} widgets and this one has "
            f"{len(dashboard.widgets)}; remove one before adding another, "
            "or start another dashboard."
        )


def check_exportable(dashboard: Dashboard) -> None:
    """Refuse (409) the PDF of a dashboard with more widgets than the cap."""
    cap, count = max_widgets(), len(dashboard.widgets)
    if count > cap:
        raise ConflictError(
            f"This dashboard has {count} widgets; a PDF is made of at most {cap}. "
            f"Remove {count - cap} to download it as a PDF, or use Print."
        )


def check_copyable(dashboard: Dashboard) -> None:
    """Refuse (409) a copy of a dashboard with more widgets than the cap."""
    cap, count = max_widgets(), len(dashboard.widgets)
    if count > cap:
        raise ConflictError(
            f"This dashboard has {count} widgets and a dashboard holds at most {cap}; "
            f"remove {count - cap} before duplicating it."
        )


# -- exports in flight --------------------------------------------------------------


class ExportsBusy(ServiceError):
    """No export slot is free: try again shortly (429 with ``Retry-After``)."""

    status = 429
    retry_after = RETRY_AFTER


def member_scope(org_id: uuid.UUID, account_id: uuid.UUID) -> str:
    return f"member:{org_id}:{account_id}"


def org_scope(org_id: uuid.UUID) -> str:
    return f"org:{org_id}"


def slot_name(scope: str, index: int) -> str:
    return f"workspace.dashboard-export:{scope}:{index}"


def advisory_key(name: str) -> int:
    """The PostgreSQL advisory lock (a signed 64-bit key) of a slot."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def lock_path(folder: Path, name: str) -> Path:
    """The file whose ``flock`` is a slot (SQLite)."""
    return folder / f"{hashlib.sha256(name.encode()).hexdigest()[:32]}.lock"


def lock_folder() -> Path:
    """Beside the SQLite database file (what the workers share), else the instance
    folder (an in-memory database)."""
    database = db.engine.url.database
    if database and database != ":memory:" and not database.startswith("file:"):
        path = Path(database)
        return path.with_name(path.name + ".export-slots")
    return Path(current_app.instance_path) / "export-slots"


class _AdvisoryLocks:
    """Session advisory locks on one connection of their own, outside the request's
    transaction (autocommit: no transaction is held open while the PDF renders)."""

    def __init__(self) -> None:
        self._conn = db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        self._held: list[int] = []

    def take(self, name: str) -> bool:
        key = advisory_key(name)
        if self._conn.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}):
            self._held.append(key)
            return True
        return False

    def close(self) -> None:
        try:
            for key in self._held:
                self._conn.scalar(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
        except Exception:
            # Ending the connection ends its locks: never give back one still holding.
            log.warning("releasing PDF export slots failed; dropping the connection")
            self._conn.invalidate()
        finally:
            self._conn.close()


class _FileLocks:
    """``flock`` on one file per slot: the kernel drops it when the descriptor closes,
    also when the process dies."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._held: list[int] = []

    def take(self, name: str) -> bool:
        fd = os.open(lock_path(self._folder, name), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._held.append(fd)
        return True

    def close(self) -> None:
        for fd in self._held:
            os.close(fd)


def _take_one(locks: _AdvisoryLocks | _FileLocks, scope: str, slots: int) -> bool:
    return any(locks.take(slot_name(scope, index)) for index in range(slots))


def per_member() -> int:
    return _setting("EXPORT_MAX_IN_FLIGHT_PER_MEMBER", EXPORT_MAX_IN_FLIGHT_PER_MEMBER)


def per_org() -> int:
    return _setting("EXPORT_MAX_IN_FLIGHT_PER_ORG", EXPORT_MAX_IN_FLIGHT_PER_ORG)


def member_busy() -> ExportsBusy:
    return ExportsBusy(
        f"You already have {_exports(per_member())} under way, the most one member "
        "may run at once; try again when it is done."
    )


def org_busy() -> ExportsBusy:
    return ExportsBusy(
        f"This organization already has {_exports(per_org())} under way, the most "
        "it may run at once; try again in a few seconds."
    )


@contextlib.contextmanager
def export_slot(org_id: uuid.UUID, account_id: uuid.UUID) -> Iterator[None]:
    """Hold one of the member's and one of the org's export slots while the body runs;
    none free: :class:`ExportsBusy`. Released on the way out, however it ends."""
    postgres = db.engine.dialect.name == "postgresql"
    locks = _AdvisoryLocks() if postgres else _FileLocks(lock_folder())
    try:
        if not _take_one(locks, member_scope(org_id, account_id), per_member()):
            raise member_busy()
        if not _take_one(locks, org_scope(org_id), per_org()):
            raise org_busy()
        yield
    finally:
        locks.close()


def _exports(count: int) -> str:
    return "a PDF export" if count == 1 else f"{count} PDF exports"
