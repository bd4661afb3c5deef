"""Errors a user caused. The bot shows their message, ephemerally, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
INVALID = "This button or menu is not valid (it may come from an old or altered message); nothing was changed."


class UserError(Exception):
    """A mistake the user can fix; `str(error)` is shown to them as is."""


class PermissionDenied(UserError):
    pass


class NotFound(UserError):
    pass


class Conflict(UserError):
    """The action raced another one or was already done (a double click, a stale message)."""


class InvalidPayload(UserError):
    """A custom_id, select value or form that no message of ours carries (forged or damaged)."""

    def __init__(self) -> None:
        super().__init__(INVALID)


def chosen(items: Sequence[T], index: int | None) -> T:
    """The item a button, menu or form chose by its position in `items` (what the message showed,
    as the state has it now). Every such index is taken through here: a position the state does
    not have (an altered or impossible message) is refused, never an IndexError."""
    if index is None or isinstance(index, bool) or not 0 <= index < len(items):
        raise InvalidPayload()
    return items[index]


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
