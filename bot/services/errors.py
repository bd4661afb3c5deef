"""Errors a user caused. The bot shows their message, ephemerally, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class UserError(Exception):
    """A mistake the user can fix; `str(error)` is shown to them as is."""


class PermissionDenied(UserError):
    pass


class NotFound(UserError):
    pass


class Conflict(UserError):
    """The action raced another one or was already done (a double click, a stale message)."""


def engine_refusals(
    refused: type[Exception], not_a_player: type[Exception],
    explain: Callable[[Exception], UserError] = lambda error: UserError(str(error)),
) -> Callable[..., Any]:
    """How a service runs its format's engine: `call(fn, *args, **kwargs)` returns what `fn` does;
    a refusal (`refused`, whose message is written for the user) becomes a UserError (`explain`
    may choose a subclass), and a refusal for not being a player a PermissionDenied."""

    def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except not_a_player as error:
            raise PermissionDenied(str(error)) from None
        except refused as error:
            raise explain(error) from None

    return call
