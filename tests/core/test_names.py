"""Given and family names on accounts (docs/scim.md#names): the split used when only
a display name is known, and what sign-in provisioning stores."""

from __future__ import annotations

import pytest

from workspace.core.names import complete, split_name


@pytest.mark.parametrize(
    ("display", "parts"),
    [
        ("Ada Lovelace", ("Ada", "Lovelace")),
        ("  Jan   van der  Berg ", ("Jan", "van der Berg")),
        ("Gabriel García Márquez", ("Gabriel", "García Márquez")),
        ("Cher", ("Cher", "Cher")),
        ("李 小龍", ("李", "小龍")),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_split_name(display, parts):
    assert split_name(display) == parts


def test_complete_keeps_known_parts_and_fills_the_rest():
    assert complete("Mary Jane", "Watson", "MJ") == ("Mary Jane", "Watson")
    assert complete("Augusta", None, "Ada Lovelace") == ("Augusta", "Lovelace")
    assert complete(None, "King", "Ada Lovelace") == ("Ada", "King")
    assert complete(" ", "King", None) == ("King", "King")
    assert complete(None, None, None) is None


def _names(app, email):
    from workspace.core.accounts import find_account

    with app.app_context():
        account = find_account(email)
        return account.name, account.given_name, account.family_name


def test_provisioning_stores_the_parts_of_a_new_account_only(app, acme):
    from workspace.auth.login import provision_member
    from workspace.core.models import Org
    from workspace.extensions import db

    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        provision_member(org, "ada@acme.test", None, via="sso", given_name="Ada", family_name="L")
        db.session.commit()
    assert _names(app, "ada@acme.test") == ("Ada L", "Ada", "L")
    with app.app_context():
        org = db.session.get(Org, acme.org_id)
        provision_member(org, "ada@acme.test", "Augusta King", via="sso", given_name="Augusta")
        db.session.commit()
    # A later sign-in does not rename: the account may be shared by other orgs' IdPs.
    assert _names(app, "ada@acme.test") == ("Ada L", "Ada", "L")


def test_names_are_whitespace_collapsed_and_fitted(app):
    from workspace.core.accounts import ensure_account
    from workspace.extensions import db

    with app.app_context():
        ensure_account("w@acme.test", given_name="  Ada \t ", family_name="G" * 250)
        db.session.commit()
    name, given, family = _names(app, "w@acme.test")
    assert given == "Ada" and family == "G" * 200 and name == ("Ada " + "G" * 250)[:200]
