"""The overview as long-format CSV (docs/analytics.md#csv-export), streamed row by row.

Columns ``metric, dimension, value``: the scalars first (``total``, ``completed``,
``completion_rate``, ``overdue``, dimension empty), then one row per bucket with the
breakdown as metric (``category``, ``priority``, ``kind``) and the bucket as dimension.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any


def overview_rows(figures: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    for scalar in ("total", "completed", "completion_rate", "overdue"):
        yield scalar, "", figures[scalar]
    for metric, key in (
        ("category", "by_category"),
        ("priority", "by_priority"),
        ("kind", "by_kind"),
    ):
        for bucket, value in figures[key].items():
            yield metric, bucket, value


def stream_csv(
    rows: Iterator[tuple[Any, ...]], header: tuple[str, ...] = ("metric", "dimension", "value")
) -> Iterator[str]:
    """CSV text, one line per yield, so the response starts before the last row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180 §2: CRLF
    for row in _chain(header, rows):
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def _chain(first: tuple[str, ...], rest: Iterator[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    yield first
    yield from rest
