"""Ask-a-chart (docs/ai.md#asking-for-a-chart): a sentence in, a real chart out, never an error.

The org's model is asked, with a strict JSON schema (structured output), for a metric,
a dimension and a title (and optionally one kind or priority to narrow to); the
points are then computed by the custom-chart aggregation, so the model never invents
numbers. With no model configured the offline interpreter answers instead; and when
the model fails - no usable answer, a timeout, a provider error, credits used up - the
offline interpreter still charts the same words, with a note saying why the model did
not (``model_note``). Only when it does not understand them either is the answer the
default chart, count by status. Every attempt is kept as an :class:`AiRun`.

Limits (docs/security.md#limits): the rates, the calls in flight and the credits
reserved before a model call are :mod:`workspace.agents.ask_limits`; token counts the
provider reports are bounded here before they are stored.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from workspace.agents import client, credits, endpoints, offline, reading
from workspace.agents.ask_limits import check_rate, reserve
from workspace.agents.models import AiRun, AiSettings, settings_for
from workspace.agents.quirks import Quirks
from workspace.agents.spec import DEFAULT, KINDS, PRIORITIES, ChartSpec, parse_answer
from workspace.analytics.scope import Scope
from workspace.analytics.vocabulary import (
    DIMENSIONS,
    INTERVALS,
    METRICS,
    RANGE_PRESETS,
    TIME_DIMENSIONS,
)
from workspace.core.models import Account
from workspace.errors import ServiceError
from workspace.extensions import db
from workspace.inputs import fit_external
from workspace.security.crypto import SecretUnreadable, unseal

MAX_REQUEST = 500
RAW_LIMIT = 4000
#: The most tokens the model may answer with.
MAX_ANSWER_TOKENS = 300
#: The same for a model that takes ``max_completion_tokens`` (a reasoning model): its
#: thinking counts in the budget, and 300 would leave it no room to answer.
MAX_REASONING_TOKENS = 2000
#: A token count a provider reports beyond this is not believed: it is stored as this
#: (and charged as this), so no report can overflow a column.
MAX_REPORTED_TOKENS = 10_000_000

#: Strict structured output (OpenAI ``response_format`` json_schema): every property
#: required, the optional narrowing as nullable enums.
CHART_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "metric": {"type": "string", "enum": list(METRICS)},
        "dimension": {"type": "string", "enum": [*DIMENSIONS, *TIME_DIMENSIONS]},
        "title": {"type": "string"},
        "kind": {"type": ["string", "null"], "enum": [*KINDS, None]},
        "priority": {"type": ["string", "null"], "enum": [*PRIORITIES, None]},
        "interval": {"type": ["string", "null"], "enum": [*INTERVALS, None]},
        "range": {"type": ["string", "null"], "enum": [*RANGE_PRESETS, None]},
        "filter": {"type": ["string", "null"]},
        "unused": {"type": "array", "items": {"type": "string"}},
    },
    "required": [
        "metric",
        "dimension",
        "title",
        "kind",
        "priority",
        "interval",
        "range",
        "filter",
        "unused",
    ],
    "additionalProperties": False,
}
#: The ``json_schema`` block of ``response_format`` (client.chat wraps it, or asks for a
#: plain JSON object from a provider that refuses schemas).
JSON_SCHEMA = {"name": "chart_spec", "strict": True, "schema": CHART_SCHEMA}
SYSTEM_PROMPT = (
    "You turn a request for a chart about a team's work items into a chart spec. "
    "metric: count (all items), done (completed items) or open (not completed). "
    "dimension, what the chart groups by: status, priority, kind, assignee or project, "
    "or a time axis: created or completed (per interval: day, week, month, quarter). "
    f"range: a date range ({', '.join(RANGE_PRESETS)}) or null. "
    f"kind narrows to one kind of item ({', '.join(KINDS)}) or null; "
    f"priority narrows to one priority ({', '.join(PRIORITIES)}) or null. "
    "filter: a PQL filter for anything else the request names, or null, e.g. "
    'isOverdue(), hasNoAssignee(), assignee = currentUser(), project = "Web App", '
    'assignee = "ada@example.com". unused: the words of the request you could not '
    "express. title: a short chart title. Answer only with the JSON object with the "
    "keys metric, dimension, title, kind, priority, interval, range, filter and unused."
)


def reserved_credits(answer_tokens: int = MAX_ANSWER_TOKENS) -> int:
    """Reserved before each model call: the cost of the longest request (counted
    generously, 4 tokens a character) with the system prompt and the longest answer."""
    return credits.cost(4 * (len(SYSTEM_PROMPT) + MAX_REQUEST) + answer_tokens)


RESERVED_CREDITS = reserved_credits()


@dataclass
class Attempt:
    """How the spec was obtained, before the points are computed."""

    spec: ChartSpec
    outcome: str
    fallback: bool = False
    offline: bool = False
    model: str | None = None
    raw: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int = 0
    credits: int = 0
    #: The reservation written before the model call, settled when it is known.
    run: AiRun | None = None
    #: Why the model gave no usable chart (``HTTP 400: ...``), for the note.
    why: str | None = None
    #: What the member reads when the model failed (``model_note`` in the answer).
    note: str | None = None


def reported_tokens(value: int) -> int:
    """A provider's token count, bounded to 0..:data:`MAX_REPORTED_TOKENS`."""
    return min(max(value, 0), MAX_REPORTED_TOKENS)


def _learnt(row: AiSettings, model: str, quirks: Quirks, learnt: list[str]) -> str:
    """Keep what the provider taught for the next ask; the line the run records."""
    if not learnt:
        return ""
    row.quirks = quirks.store(row.quirks, model)
    return f"[learnt for {model}: {'; '.join(learnt)}]\n"


def _ask_model(
    row: AiSettings,
    text: str,
    org_id: uuid.UUID,
    account: Account,
    now: datetime,
    run_id: uuid.UUID | None,
) -> Attempt:
    model = row.model
    quirks = Quirks.load(row.quirks, model)
    answer_tokens = MAX_REASONING_TOKENS if quirks.max_completion_tokens else MAX_ANSWER_TOKENS
    run = reserve(row, text, org_id, account, now, reserved_credits(answer_tokens), run_id)
    if run is None:
        return Attempt(DEFAULT, "credits_exhausted", fallback=True, model=model)
    try:
        key = unseal(row.api_key_sealed or "", row.id)
    except SecretUnreadable:
        return Attempt(DEFAULT, "key_unreadable", fallback=True, model=model, run=run)
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": text}]
    target = endpoints.Target(row.base_url, key, model, row.api_version)
    try:
        answer = client.chat(
            target,
            messages,
            quirks=quirks,
            schema=JSON_SCHEMA,
            max_tokens=MAX_ANSWER_TOKENS,
            reasoning_tokens=MAX_REASONING_TOKENS,
        )
    except client.ModelError as exc:
        learnt = _learnt(row, model, exc.quirks, exc.learnt)
        return Attempt(
            DEFAULT,
            "timeout" if exc.kind == "timeout" else "provider_error",
            fallback=True,
            model=model,
            raw=fit_external(learnt + (exc.body or exc.message), RAW_LIMIT),
            latency_ms=exc.latency_ms,
            run=run,
            why=exc.detail,
        )
    learnt = _learnt(row, model, answer.quirks, answer.learnt)
    spec = parse_answer(answer.content)
    prompt_tokens = reported_tokens(answer.prompt_tokens)
    completion_tokens = reported_tokens(answer.completion_tokens)
    why = None
    if spec is None:
        why = (
            "it used its whole token budget before answering"
            if answer.finish_reason == "length" and not answer.content.strip()
            else "its answer was not a chart spec the service understands"
        )
    return Attempt(
        spec or DEFAULT,
        "ok" if spec else "invalid_answer",
        fallback=spec is None,
        model=model,
        raw=fit_external(learnt + answer.content, RAW_LIMIT),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_ms=answer.latency_ms,
        credits=credits.cost(prompt_tokens + completion_tokens),
        run=run,
        why=why,
    )


#: Why the model gave no chart, for the outcomes whose failure has no detail of its own.
_WHY = {
    "credits_exhausted": "This month's AI credits are used up",
    "key_unreadable": "The stored API key can no longer be read; an admin must enter it again",
}


def _rescue(attempt: Attempt, text: str, words: dict[str, Any]) -> None:
    """The model gave no chart: the offline interpreter charts the same words, and the
    note says why the model did not (docs/ai.md#when-the-model-fails)."""
    spec = offline.interpret(text, **words)
    detail = (attempt.why or "").rstrip(".")
    if attempt.outcome in _WHY:
        why = _WHY[attempt.outcome]
    elif attempt.outcome == "timeout":
        why = "The model did not answer in time" + (f" ({detail})" if detail else "")
    else:
        why = f"The model failed ({detail or attempt.outcome.replace('_', ' ')})"
    if spec is None:
        attempt.note = (
            f"{why}; the built-in interpreter did not understand the request either, "
            "so this is the default chart."
        )
        return
    attempt.spec, attempt.fallback, attempt.offline = spec, False, True
    attempt.note = f"{why}; this chart comes from the built-in interpreter."


def _ask_offline(text: str, words: dict[str, Any]) -> Attempt:
    spec = offline.interpret(text, **words)
    if spec is None:
        return Attempt(DEFAULT, "no_match", fallback=True, offline=True)
    return Attempt(spec, "offline", offline=True)


def checked_text(text: str) -> str:
    """The request's words, stripped; a blank or too long one is refused on ``text``."""
    text = text.strip()
    if not text:
        raise ServiceError("Say what chart you want, e.g. 'open bugs by assignee'.", field="text")
    if len(text) > MAX_REQUEST:
        raise ServiceError(
            f"A chart request can be at most {MAX_REQUEST} characters; this one has {len(text)}.",
            field="text",
        )
    return text


def model_for(org_id: uuid.UUID) -> str | None:
    """The model an ask of this org calls, or None when the built-in interpreter answers."""
    row = settings_for(org_id)
    return row.model if row is not None and row.has_api_key else None


def ask_chart(
    scope: Scope, account: Account, text: str, *, now: datetime | None = None
) -> dict[str, Any]:
    """Answer a chart request here and now, counted against the ask rates: what the page
    and the API do when no model is configured (a model's ask runs as a job)."""
    text = checked_text(text)
    check_rate(scope.org_id, account.id)
    return answer(scope, account, text, now=now)


def answer(
    scope: Scope,
    account: Account,
    text: str,
    *,
    now: datetime | None = None,
    run_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """Answer a checked request and record the attempt (flushed; the caller commits):
    the shared core of the synchronous ask and the ``ai.ask`` job. ``run_id`` is the id
    of the AI run to write (the job's own, so a job delivered twice writes one run)."""
    now = now or datetime.now(UTC)
    account_id = account.id
    row = settings_for(scope.org_id)
    words = reading.org_words(scope)
    if row is None or not row.has_api_key:
        attempt = _ask_offline(text, words)
    else:
        attempt = _ask_model(row, text, scope.org_id, account, now, run_id)
        if attempt.fallback:
            _rescue(attempt, text, words)
    try:
        attempt.spec, drawn = reading.draw(scope, account_id, attempt.spec)
    except ServiceError:
        attempt.spec, attempt.fallback = DEFAULT, True
        drawn = reading.draw(scope, account_id, DEFAULT)[1]
    points = drawn["points"]
    if not points:
        points = reading.zero_points(scope, attempt.spec.dimension)
    if not points:  # e.g. by project in an org with none: nothing to name
        attempt.spec, attempt.fallback = DEFAULT, True
        points = reading.zero_points(scope, DEFAULT.dimension)
    run = attempt.run or (db.session.get(AiRun, run_id) if run_id else None)
    if run is None:
        run = AiRun(
            **({"id": run_id} if run_id else {}),
            org_id=scope.org_id,
            account_id=account_id,
            actor_kind=account.kind,
            prompt=text,
            created_at=now,
        )
        db.session.add(run)
    # A reservation is settled to the real cost, within what the pool has left.
    charged = credits.settle(run, attempt.credits, now) if attempt.run else attempt.credits
    run.model = attempt.model
    run.raw_answer = attempt.raw
    run.outcome = attempt.outcome
    run.offline = attempt.offline
    run.fallback = attempt.fallback
    run.metric = attempt.spec.metric
    run.dimension = attempt.spec.dimension
    run.title = attempt.spec.title
    run.prompt_tokens = attempt.prompt_tokens
    run.completion_tokens = attempt.completion_tokens
    run.latency_ms = attempt.latency_ms
    run.credits_charged = charged
    db.session.flush()
    return {
        "title": attempt.spec.title,
        "metric": attempt.spec.metric,
        "dimension": attempt.spec.dimension,
        "points": points,
        # Over time with a split: a series per value of it (drawn stacked).
        "series": drawn.get("series"),
        "ai_run_id": run.id,
        "outcome": attempt.outcome,
        "offline": attempt.offline,
        "fallback": attempt.fallback,
        "kind": attempt.spec.kind,
        "priority": attempt.spec.priority,
        "model_note": attempt.note,
        "reading": attempt.spec.words(),
        "understood": attempt.spec.query(),
        "unused": list(attempt.spec.unused),
        "custom_href": reading.custom_href(scope, attempt.spec),
    }
