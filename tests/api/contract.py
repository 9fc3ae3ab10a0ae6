"""How the schemathesis tests call and judge the API: every default check, with
``positive_data_acceptance`` narrowed to what an OpenAPI document can say, and 413 as a
rejection of an oversized body. Shared by tests/api/test_openapi_contract.py and the
dashboards fuzz test."""

from __future__ import annotations

import os
from typing import Any

import schemathesis
from flask import Flask
from schemathesis import GenerationMode
from schemathesis.specs.openapi import checks

#: What the input models (the document's request schemas) answer when they refuse.
INPUT_MODEL_REFUSALS = {
    "Some fields are missing or invalid.",
    "Some query parameters are invalid.",
    "The request body is not valid JSON.",
    "The request body must be a JSON object.",
}


def input_model_accepts_schema_valid_data(ctx: Any, response: Any, case: Any) -> None:
    """``positive_data_acceptance``, narrowed to what the document can say.

    A request the document calls valid must get past the input model: a refusal there
    means a field the document declares nullable refuses null, or a type, bound or
    format the two disagree on. A service may still refuse valid input on its meaning
    (a PQL filter that does not parse, a project of another org, a domain name longer
    than DNS allows): a declared 400 with the service's own message, which no JSON
    Schema can foresee.
    """
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return
    if response.status_code == 415:
        raise AssertionError(
            f"Schema-valid request refused as the wrong media type: {response.text}"
        )
    if response.status_code == 400:
        detail = (response.json() or {}).get("detail")
        if detail in INPUT_MODEL_REFUSALS:
            raise AssertionError(
                f"Schema-valid request refused by the input model: {response.text[:2000]}"
            )


def load_schema(app: Flask, headers: dict[str, str], parameters: dict[str, str]):
    """The app's own document, with a real org's token and ids for the path."""
    loaded = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    loaded.config.update(headers=headers, parameters=parameters)
    loaded.config.generation.update(modes=["positive", "negative"])
    # Reproducible in CI; API_CONTRACT_SEED=<n> explores other inputs locally.
    loaded.config.seed = int(os.environ.get("API_CONTRACT_SEED", "13"))
    # A body over 1 MiB is refused before it is read: 413 is a rejection too.
    rejection = loaded.config.checks.negative_data_rejection
    rejection.expected_statuses = [*rejection.expected_statuses, "413"]
    return loaded


def call_and_validate(case: Any, headers: dict[str, str]) -> None:
    case.call_and_validate(
        headers=headers,
        excluded_checks=[checks.positive_data_acceptance],
        additional_checks=[input_model_accepts_schema_valid_data],
    )
