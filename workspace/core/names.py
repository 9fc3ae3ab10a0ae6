"""A person's given and family names when a source supplied only a display name
(docs/scim.md#names). Pure functions: no database, no request."""

from __future__ import annotations


def clean(part: str | None) -> str | None:
    """A name part with its whitespace collapsed; None for nothing or only spaces."""
    text = " ".join((part or "").split())
    return text or None


def join_name(given: str | None, family: str | None) -> str:
    """Given and family name as one display name ("Ada Lovelace")."""
    return " ".join(p for p in (clean(given), clean(family)) if p)


def split_name(display: str | None) -> tuple[str, str] | None:
    """Given and family name guessed from a display name: the first word is the given
    name and the rest the family name, which keeps particles and double surnames
    together ("Jan van der Berg", "Gabriel García Márquez"). A single word is both,
    since identity providers (Okta's user profile) require both to be non-empty and a
    placeholder such as "-" would show up as a surname. None for an empty name."""
    words = (display or "").split()
    if not words:
        return None
    if len(words) == 1:
        return words[0], words[0]
    return words[0], " ".join(words[1:])


def complete(given: str | None, family: str | None, display: str | None) -> tuple[str, str] | None:
    """Both parts, non-empty: those known as they are, the missing ones from the
    display name (or from the one known part when there is no display name). None
    when nothing at all is known."""
    given, family = clean(given), clean(family)
    if given and family:
        return given, family
    guessed = split_name(display)
    if guessed is None:
        known = given or family
        return (known, known) if known else None
    return given or guessed[0], family or guessed[1]


def with_article(word: str) -> str:
    """A noun with its article: "an admin", "a member", "an owner" (a role in a
    flash or a question; the ``with_article`` filter on every page)."""
    return f"{'an' if str(word)[:1].lower() in 'aeiou' else 'a'} {word}"
