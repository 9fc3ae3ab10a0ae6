"""Progress of long command-line work (``flask bench-data``, ``flask demo --tasks N``,
``flask analytics verify``), written to stderr so stdout keeps only the results.

On a terminal it is Click's own progress bar (``click.progressbar``: Click comes with
Flask, so no new dependency) with the count, the percentage, the rate and the ETA.
Click prints only the label when stderr is not a terminal, so for CI logs and pipes
this writes plain lines itself, at each tenth of the work or every few seconds,
whichever comes first::

    bench-data: 250000/1000000 tasks (25%), 41000/s, ETA 18s

The caller reports per batch (:meth:`Progress.advance` with the batch's size), never
per row, so the work does not slow down.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

import click

#: A plain line at least every this many seconds, and at every tenth of the work.
INTERVAL = 5.0
TENTHS = 10


def _rate(per_second: float) -> str:
    return f"{per_second:.0f}" if per_second >= 10 else f"{per_second:.1f}"


class Progress:
    """``with Progress("bench-data", total, "tasks") as progress: progress.advance(n)``"""

    def __init__(self, label: str, total: int, unit: str, *, file: TextIO | None = None) -> None:
        self.label, self.total, self.unit = label, max(total, 0), unit
        self.file = file if file is not None else sys.stderr
        self.done = 0
        self.started = time.monotonic()
        self._last_line = self.started
        self._last_tenth = 0
        self._closed = False
        self._bar = None
        if self.total and self.file.isatty():
            self._bar = click.progressbar(
                length=self.total or 1,
                label=label,
                show_pos=True,
                show_percent=True,
                show_eta=True,
                item_show_func=lambda _: self._rate_text(),
                file=self.file,
                width=24,
            )
            self._bar.__enter__()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(failed=exc_type is not None)

    def close(self, *, failed: bool = False) -> None:
        """Ends the bar (its line is left as it stands) or, on a plain run that stopped
        short of the total, says where it stopped. Once; the next phase's own lines
        can follow."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
        elif not failed and self.done < self.total:
            self._line()

    def _per_second(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def _rate_text(self) -> str:
        return f"{_rate(self._per_second())} {self.unit}/s"

    def advance(self, count: int = 1) -> None:
        """``count`` more units done (a batch)."""
        self.done += count
        if self._closed:
            return
        if self._bar is not None:
            self._bar.update(count)
            return
        now = time.monotonic()
        tenth = self.done * TENTHS // self.total if self.total else TENTHS
        if tenth > self._last_tenth or now - self._last_line >= INTERVAL:
            self._last_tenth = tenth
            self._last_line = now
            self._line()

    def _line(self) -> None:
        elapsed = time.monotonic() - self.started
        per_second = self._per_second()
        percent = self.done * 100 // self.total if self.total else 100
        if self.done >= self.total:
            when = f"in {elapsed:.0f}s"
        elif per_second > 0:
            when = f"ETA {(self.total - self.done) / per_second:.0f}s"
        else:
            when = "ETA unknown"
        click.echo(
            f"{self.label}: {self.done}/{self.total} {self.unit} ({percent}%), "
            f"{_rate(per_second)}/s, {when}",
            file=self.file,
        )
