"""A boolean in a JSON body is ``true`` or ``false``, as the OpenAPI document says; an
HTML form's checkbox still works through the same input model."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from workspace.errors import InputError
from workspace.inputs import InputModel, parse_form, validate, with_checkboxes


class Settings(InputModel):
    enabled: bool = False
    archived: bool | None = None


@pytest.mark.parametrize("wrong", [0, 1, "yes", "true", "on", 0.0, [], {}])
def test_json_refuses_what_is_not_a_boolean(wrong):
    for field in ("enabled", "archived"):
        with pytest.raises(InputError) as caught:
            validate(Settings, {field: wrong}, "invalid")
        assert field in caught.value.by_field


def test_json_takes_booleans_and_null_where_nullable():
    assert validate(Settings, {"enabled": True, "archived": None}, "x").enabled is True
    assert validate(Settings, {"archived": False}, "x").archived is False
    with pytest.raises(InputError):
        validate(Settings, {"enabled": None}, "x")


@pytest.mark.parametrize(
    ("sent", "expected"),
    [("on", True), ("true", True), ("1", True), ("TRUE", True), ("false", False), ("0", False)],
)
def test_a_form_checkbox_still_says_true_or_false(sent, expected):
    assert parse_form(Settings, MultiDict({"enabled": sent})).enabled is expected


def test_an_unticked_box_is_false_and_nonsense_is_refused():
    assert parse_form(Settings, with_checkboxes(MultiDict(), "enabled")).enabled is False
    with pytest.raises(InputError) as caught:
        parse_form(Settings, MultiDict({"enabled": "maybe"}))
    assert "enabled" in caught.value.by_field
