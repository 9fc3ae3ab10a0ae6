"""What the two request wrappers (``@page`` for HTML, ``@operation`` for JSON) share:
a view names what it needs and is handed only that."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any


def call_with(function: Callable, given: Mapping[str, Any]) -> Any:
    """Call ``function`` with those of ``given`` that it names as parameters (all of
    them when it takes ``**kwargs``): the URL's arguments, ``access``, the ``project``
    and ``task`` the gate loaded, the parsed ``body``, ``query`` or ``form``."""
    names = _parameters(function)
    if names is None:
        return function(**given)
    return function(**{name: value for name, value in given.items() if name in names})


@functools.cache
def _parameters(function: Callable) -> frozenset[str] | None:
    """The names ``function`` takes (None: any, it has ``**kwargs``), read once per
    function rather than on every request."""
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return frozenset(p.name for p in parameters)
