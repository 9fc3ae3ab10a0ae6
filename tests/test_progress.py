"""The progress of long commands (workspace/progress.py): plain lines when stderr is
not a terminal, Click's bar with count, percentage, rate and ETA when it is."""

from __future__ import annotations

import io
import re
import time

from workspace import progress
from workspace.progress import Progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as stderr does in a shell: Click decides
    on the bar by asking the stream, so this is the terminal path itself."""

    def isatty(self) -> bool:
        return True


def test_plain_lines_at_each_tenth_and_every_few_seconds(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    out = io.StringIO()
    with Progress("bench-data", 1000, "tasks", file=out) as bar:
        for _ in range(40):  # 25 a second: a tenth every four seconds
            clock[0] += 1
            bar.advance(25)
    lines = out.getvalue().splitlines()
    assert lines[0] == "bench-data: 100/1000 tasks (10%), 25/s, ETA 36s"
    assert lines[-1] == "bench-data: 1000/1000 tasks (100%), 25/s, in 40s"
    assert len(lines) == 10
    # Slower than a tenth per interval: a line every INTERVAL seconds anyway.
    out = io.StringIO()
    with Progress("demo", 1000, "tasks", file=out) as bar:
        for _ in range(12):
            clock[0] += 1
            bar.advance(1)
    lines = out.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "demo: 5/1000 tasks (0%)",
        "demo: 10/1000 tasks (1%)",
        "demo: 12/1000 tasks (1%)",  # stopped short of the total: where it stopped
    ]


def test_a_failed_run_adds_no_line_and_nothing_to_do_prints_nothing():
    out = io.StringIO()
    try:
        with Progress("bench-data", 1000, "tasks", file=out) as bar:
            bar.advance(10)
            raise RuntimeError("disk full")
    except RuntimeError:
        pass
    assert out.getvalue() == ""
    with Progress("demo", 0, "tasks", file=out):
        pass
    assert out.getvalue() == ""


def test_on_a_terminal_a_bar_with_count_percent_rate_and_eta():
    out = Terminal()
    with Progress("bench-data", 100, "tasks", file=out) as bar:
        bar.advance(10)
        time.sleep(1.05)  # Click estimates the ETA once a second has passed
        bar.advance(20)
        drawn = out.getvalue()
    frames = [frame for frame in drawn.split("\r") if frame.strip()]
    last = re.sub(r"\x1b\[\?25[lh]", "", frames[-1])
    assert last.startswith("bench-data  [#######")
    assert re.search(r"30/100\s+30%\s+00:00:0\d\s+\d+(\.\d)? tasks/s", last), last
    # The bar ends its line (and shows the cursor again) when the work ends.
    assert out.getvalue().endswith("\x1b[?25h\n")
