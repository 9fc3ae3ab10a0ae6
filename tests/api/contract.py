"""How the schemathesis tests call and judge the API: every check schemathesis has,
configured once for the whole suite.

Three settings say how this API answers (docs/security.md "API contract"):

- ``positive_data_acceptance`` also takes 422: a request the document calls valid may
  still be refused on its meaning (PQL that does not parse, an id of another project's
  state, a domain name IDNA refuses), and the API says so with 422. A 400 always means
  the request breaks the document, so a 400 to a schema-valid request is a finding.
- ``negative_data_rejection`` also takes 413: a body over 1 MiB is refused unread.
- ``max_response_time`` allows 30 s, not 10: a PDF export renders in Chromium.

:func:`run_engine` is schemathesis's own engine (what ``st run --checks all`` runs:
examples, coverage, fuzzing and stateful phases) over a live server, returning each
distinct disagreement once. Shared by tests/api/test_openapi_contract.py and the
dashboards fuzz test.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs
import schemathesis
from flask import Flask
from schemathesis.checks import load_all_checks
from schemathesis.config import HealthCheck
from schemathesis.engine import events, from_schema
from schemathesis.filters import FilterSet

#: A schema-valid request may be refused on its meaning: 422, never 400.
MEANING_REFUSED = "422"
#: A body over the 1 MiB limit is refused before it is read.
TOO_LARGE = "413"
#: Seconds an answer may take: a PDF export renders in Chromium, which took 17 s on a
#: loaded two-core machine (schemathesis's default limit is 10 s).
MAX_RESPONSE_TIME = 30.0


def configure(schema: Any, headers: dict[str, str], parameters: dict[str, str], seed: int) -> Any:
    """Every check on, positive and negative data, the statuses this API answers."""
    load_all_checks()
    schema.config.update(headers=headers, parameters=parameters)
    schema.config.generation.update(modes=["positive", "negative"])
    schema.config.seed = seed
    checks = schema.config.checks
    checks.update(included_check_names=["all"], max_response_time=MAX_RESPONSE_TIME)
    accepted = checks.positive_data_acceptance
    accepted.expected_statuses = [*accepted.expected_statuses, MEANING_REFUSED]
    rejection = checks.negative_data_rejection
    rejection.expected_statuses = [*rejection.expected_statuses, TOO_LARGE]
    return schema


def load_schema(app: Flask, headers: dict[str, str], parameters: dict[str, str], seed: int = 13):
    """The app's own document over WSGI, with a real org's token and ids for the path."""
    loaded = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    return configure(loaded, headers, parameters, seed)


def call_and_validate(case: Any, headers: dict[str, str]) -> None:
    """One case, every check :func:`configure` turned on."""
    case.call_and_validate(headers=headers)


@dataclass
class Outcome:
    """What a run found: each distinct disagreement once, and how much it ran."""

    cases: int = 0
    seconds: float = 0.0
    findings: dict[tuple, str] = field(default_factory=dict)
    phases: dict[str, int] = field(default_factory=dict)
    #: Seconds per operation, to see where a run's time goes.
    timings: dict[str, float] = field(default_factory=dict)

    def report(self) -> str:
        head = f"{len(self.findings)} finding(s) in {self.cases} cases ({self.seconds:.0f} s)"
        slow = sorted(self.timings.items(), key=lambda item: -item[1])[:5]
        head += "; slowest: " + ", ".join(f"{label} {s:.1f} s" for label, s in slow)
        return "\n\n".join([head, *self.findings.values()])


def _problem(response: Any) -> str:
    """The problem's detail and fields: what tells one finding from another."""
    try:
        data = json.loads(response.content or b"{}")
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    fields = sorted(str(e.get("field")) for e in data.get("errors") or [] if isinstance(e, dict))
    return f"{str(data.get('detail'))[:60]} {fields}"


def _describe(failure: Any, case: Any, response: Any) -> str:
    lines = [f"[{failure.title}] {failure.operation}", failure.message[:600]]
    if case is not None:
        body = "" if case.body.__class__.__name__ == "NotSet" else f" body={case.body!r:.500}"
        lines.append(f"{case.method} {case.formatted_path} query={case.query!r:.300}{body}")
    if response is not None:
        lines.append(f"-> {response.status_code} {(response.content or b'')[:400]!r}")
    return "\n".join(lines)


def _collect(outcome: Outcome, recorder: Any) -> None:
    for case_id, nodes in recorder.checks.items():
        for node in nodes:
            if node.failure_info is None:
                continue
            failure = node.failure_info.failure
            case = recorder.cases[case_id].value if case_id in recorder.cases else None
            interaction = recorder.interactions.get(case_id)
            response = interaction.response if interaction else None
            status = response.status_code if response is not None else None
            key = (node.name, failure.operation, failure.title, status)
            key += (_problem(response) if response is not None else "",)
            if key not in outcome.findings:
                outcome.findings[key] = _describe(failure, case, response)


def _only(label: str) -> FilterSet:
    """The operation named ``"GET /api/v1/..."``."""
    method, path = label.split(" ", 1)
    only = FilterSet()
    only.include(method=method, path=path)
    return only


def run_engine(
    url: str,
    headers: dict[str, str],
    ids: dict[str, str],
    *,
    examples: int,
    seed: int,
    phases: tuple[str, ...],
    pinned: dict[str, dict[str, str]] | None = None,
) -> Outcome:
    """Schemathesis's engine over the live server at ``url``: the given phases, every
    check, ``examples`` per operation, one worker (so ``seed`` reproduces the run).
    ``pinned`` gives one operation (``"DELETE /api/v1/..."``) ids of its own: a
    DELETE gets objects of its own, so the other operations' cases still reach theirs."""
    schema = schemathesis.openapi.from_url(url + "/api/v1/openapi.json")
    # Hypothesis's health checks judge how fast data is drawn (slow on a busy CI
    # machine: a 20,000-character comment), not what the API answers.
    schema.config.update(
        base_url=url, workers=1, request_timeout=60, suppress_health_check=[HealthCheck.all]
    )
    configure(schema, headers, ids, seed)
    schema.config.generation.update(max_examples=examples)
    for name in ("examples", "coverage", "fuzzing", "stateful"):
        schema.config.phases.get_by_name(name=name).enabled = name in phases
    for label, parameters in (pinned or {}).items():
        schema.config.operations.operations.append(
            schemathesis.config.OperationConfig(filter_set=_only(label), parameters=parameters)
        )
    outcome = Outcome()
    started = time.monotonic()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            outcome.phases[event.phase.name] = outcome.phases.get(event.phase.name, 0) + 1
            outcome.cases += len(event.recorder.cases)
            label = f"{event.recorder.label} ({event.phase.name.lower()})"
            outcome.timings[label] = outcome.timings.get(label, 0.0) + event.elapsed_time
            _collect(outcome, event.recorder)
        elif isinstance(event, events.NonFatalError):
            outcome.findings[("error", event.label, str(event.value)[:200])] = (
                f"[error] {event.label}: {event.info.format()[:1500]}"
            )
        elif isinstance(event, events.FatalError):
            outcome.findings[("fatal", repr(event.exception))] = f"[fatal] {event.exception!r}"
    outcome.seconds = time.monotonic() - started
    return outcome


# -- walking the document -------------------------------------------------------

METHODS = {"get", "put", "post", "delete", "patch"}


def operations(doc):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            yield path, method, op


def url(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    # An id with no object behind it still routes: 405 comes before any lookup.
    return re.sub(r"{\w+_id}", "00000000-0000-4000-8000-000000000000", path)


def body_schema(doc, op):
    schema = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = schema.get("schema", {}).get("$ref")
    return doc["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else None


def types(prop) -> set[str]:
    options = prop.get("anyOf", [prop])
    return {option.get("type") for option in options}


def validator(doc: dict, schema: dict) -> Any:
    """A validator for one of the document's schemas, its references resolved."""
    return jsonschema_rs.validator_for(
        {**schema, "components": doc["components"]}, validate_formats=True
    )
