"""The refusals people meet most in a form say what to enter instead of pydantic's
wording ("Enter 23 or less." for "Input should be less than or equal to 23"), in the
API's problem body and beside a page's field alike; the rest keep pydantic's words."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field, StringConstraints

from workspace.errors import InputError
from workspace.inputs import InputModel, validate


class Schedule(InputModel):
    hour: Annotated[int, Field(ge=0, le=23)] = 9
    every: float = 1.0
    threshold: Annotated[float, Field(le=1e12)] = 0.0
    name: Annotated[str, StringConstraints(max_length=10)] = ""


@pytest.mark.parametrize(
    ("data", "field", "says"),
    [
        ({"hour": 25}, "hour", "Enter 23 or less."),
        ({"hour": -1}, "hour", "Enter 0 or more."),
        ({"hour": "soon"}, "hour", "Enter a whole number."),
        ({"hour": "1.5"}, "hour", "Enter a whole number."),
        ({"every": "often"}, "every", "Enter a number."),
        ({"threshold": 2e12}, "threshold", "Enter 1,000,000,000,000 or less."),
        ({"name": "x" * 12}, "name", "Enter at most 10 characters (this has 12)."),
    ],
)
def test_a_form_value_out_of_bounds_says_what_to_enter(data, field, says):
    with pytest.raises(InputError) as caught:
        validate(Schedule, data, "Some fields need your attention.")
    assert caught.value.by_field[field] == says


def test_json_numbers_are_told_the_same():
    for data, says in (
        ({"hour": 24.5}, "Enter a whole number."),
        ({"hour": 30}, "Enter 23 or less."),
    ):
        with pytest.raises(InputError) as caught:
            validate(Schedule, data, "invalid", json_types=True)
        assert caught.value.by_field["hour"] == says


def test_an_unknown_query_parameter_of_the_api_is_named(client, acme):
    """A misspelt parameter (the custom chart's filter is "filter"; tasks' is "pql")
    answered 200 with the whole org's data, as if no filter had been asked for."""
    resp = client.get(acme.url("/analytics/custom?pql=status%20%3D"), headers=acme.headers)
    assert resp.status_code == 400
    (error,) = resp.get_json()["errors"]
    assert error["field"] == "pql" and "Unknown query parameter" in error["message"]
    assert "filter" in error["message"]  # what it takes instead
    good = client.get(acme.url("/analytics/custom?filter=kind%20%3D%20bug"), headers=acme.headers)
    assert good.status_code == 200
