"""Hooks a format declares for others to follow, without either importing the other.

A format declares a hook (`declare`) and fires it in the transaction where the thing happens
(`fire`); another format registers a handler for it by the hook's name (`follow`), so it imports
nothing of the format that declares it, as ARCHITECTURE.md asks. Handlers run in the firing
transaction, in the order they registered, with the session and a `Finished` describing the table.
`check` (at startup and in a test) finds handlers that follow a hook nobody declared.

A follower may also read settings of the firing table that the table's own command offers (the
draft's `/draft start goldfish turns scoring play_order` are Goldfish's): it passes `options`
(`Options`) to `follow`; the firing format asks `settle` to check what its organizer chose and keep
the result with its table, and `choices` for the values its command offers. So the table offers
them without importing the follower, and their rules stay the follower's.

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
class Options:
    """The settings a follower reads from the tables that fire its hook.

    `settle(chosen)` turns what the organizer chose (the table's names: `Finished.options` keys, plus
    what the table tells of itself, such as its cube) into the options to keep with the table, or
    None when nothing was chosen that concerns this follower; it raises `UserError` for a value it
    refuses. `choices` names the allowed values of an option, (value, what players read), for the
    table's command to offer."""

    settle: Callable[[Mapping[str, Any]], dict[str, Any] | None]
    choices: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Hook:
    name: str


_declared: dict[str, Hook] = {}
_followers: dict[str, list[Handler]] = {}
_options: dict[str, list[Options]] = {}


def declare(name: str) -> Hook:
    if name in _declared:
        raise ValueError(f"The hook {name!r} is declared twice.")
    hook = _declared[name] = Hook(name)
    return hook


def follow(name: str, handler: Handler, *, options: Options | None = None) -> None:
    """Run `handler` whenever the hook `name` fires (once per handler, however often this runs);
    `options`: the settings of the firing table it reads (see `Options`)."""
    handlers = _followers.setdefault(name, [])
    if handler not in handlers:
        handlers.append(handler)
    offered = _options.setdefault(name, [])
    if options is not None and options not in offered:
        offered.append(options)


def settle(hook: Hook, chosen: Mapping[str, Any]) -> dict[str, Any] | None:
    """The options to keep with a table that will fire `hook`, as its followers settle what its
    organizer chose (None: none of them concerns a follower)."""
    settled = [kept for options in _options.get(hook.name, ()) if (kept := options.settle(chosen)) is not None]
    return {key: value for kept in settled for key, value in kept.items()} if settled else None


def choices(hook: Hook, option: str) -> tuple[tuple[str, str], ...]:
    """The values the followers of `hook` allow for `option`, (value, what players read)."""
    return tuple(choice for options in _options.get(hook.name, ()) for choice in options.choices.get(option, ()))


async def fire(session: AsyncSession, hook: Hook, finished: Finished) -> None:
    for handler in _followers.get(hook.name, ()):
        await handler(session, finished)


def check() -> list[str]:
    """Hooks followed but never declared (a misspelt name, or a format that is gone)."""
    return sorted(name for name in _followers if name not in _declared)
