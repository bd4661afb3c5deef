"""Hooks a format declares for others to follow, without either importing the other.

A format declares a hook (`declare`) and fires it in the transaction where the thing happens
(`fire`); another format registers a handler for it by the hook's name (`follow`), so it imports
nothing of the format that declares it, as ARCHITECTURE.md asks. Handlers run in the firing
transaction, in the order they registered, with the session and a `Finished` describing the table.
`check` (at startup and in a test) finds handlers that follow a hook nobody declared.

    # bot/games/draft/service/...:  COMPLETE = hooks.declare("draft.complete")
    #                               await hooks.fire(session, COMPLETE, Finished(...))
    # bot/games/goldfish/service.py: hooks.follow("draft.complete", open_event_for_pod)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class Finished:
    """A table that has just finished, as a format that follows it sees it."""

    kind: str  # the format's table kind ("draft")
    table_id: int
    guild_id: int
    channel_id: int
    organizer_id: int
    title: str  # how the table is named ("Draft #7 (Vintage Cube)"), user text not escaped
    options: Mapping[str, Any] = field(default_factory=dict)  # the table's settings its followers read


Handler = Callable[[AsyncSession, Finished], Awaitable[None]]


@dataclass(frozen=True)
class Hook:
    name: str


_declared: dict[str, Hook] = {}
_followers: dict[str, list[Handler]] = {}


def declare(name: str) -> Hook:
    if name in _declared:
        raise ValueError(f"The hook {name!r} is declared twice.")
    hook = _declared[name] = Hook(name)
    return hook


def follow(name: str, handler: Handler) -> None:
    """Run `handler` whenever the hook `name` fires (once per handler, however often this runs)."""
    handlers = _followers.setdefault(name, [])
    if handler not in handlers:
        handlers.append(handler)


async def fire(session: AsyncSession, hook: Hook, finished: Finished) -> None:
    for handler in _followers.get(hook.name, ()):
        await handler(session, finished)


def check() -> list[str]:
    """Hooks followed but never declared (a misspelt name, or a format that is gone)."""
    return sorted(name for name in _followers if name not in _declared)
