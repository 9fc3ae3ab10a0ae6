"""One canonical form of an email before any account is found or created
(docs/security.md#canonical-emails)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from workspace.errors import ServiceError
from workspace.extensions import db


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("dot@initech.example.", "dot@initech.example"),
        ("fw@\uff49\uff4e\uff49\uff54\uff45\uff43\uff48.example", "fw@initech.example"),
        ("  Ada@Initech.EXAMPLE  ", "ada@initech.example"),
        ("\uff21\uff24\uff21@initech.example", "ada@initech.example"),
        ("ada@bücher.example", "ada@xn--bcher-kva.example"),
        ("ada@xn--bcher-kva.example", "ada@xn--bcher-kva.example"),
    ],
)
def test_spellings_of_one_address_are_one_form(raw, canonical):
    from workspace.core.accounts import canonical_email

    assert canonical_email(raw) == canonical


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("a@b@initech.example", "exactly one @"),
        ("a\uff20b@initech.example", "exactly one @"),  # a full-width @ is an @
        ("ada", "exactly one @"),
        ("ada\r\n@initech.example", "control characters"),
        ("ada\x00@initech.example", "control characters"),
        ("a da@initech.example", "spaces"),
        ("@initech.example", "before the @"),
        ("ada@", "domain after the @"),
        ("ada@http://initech.example", "domain after the @"),
        ("ada@localhost", "at least one dot"),
        ("ada@127.0.0.1", "IP address"),
        ("x" * 65 + "@initech.example", "at most 64"),
    ],
)
def test_what_is_not_an_address_is_refused(raw, says):
    from workspace.core.accounts import canonical_email

    with pytest.raises(ServiceError) as caught:
        canonical_email(raw)
    assert says in caught.value.message and caught.value.field == "email"


def test_accounts_are_found_and_created_by_the_canonical_form(app):
    from workspace.core.accounts import ensure_account, find_account
    from workspace.core.models import Account

    with app.app_context():
        first = ensure_account("dot@initech.example.", "Dot")
        assert first.email == "dot@initech.example"
        assert (
            ensure_account("DOT@\uff49\uff4e\uff49\uff54\uff45\uff43\uff48.example").id == first.id
        )
        assert find_account("dot@INITECH.example.").id == first.id
        assert find_account("dot@initech.example@evil.example") is None
        with pytest.raises(ServiceError):
            ensure_account("dot@initech.example@evil.example")
        emails = db.session.scalars(select(Account.email).where(Account.email.like("dot%")))
        assert list(emails) == ["dot@initech.example"]
        db.session.rollback()
