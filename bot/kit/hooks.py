"""Hooks a format declares for others to follow, without either importing the other.

A format declares a hook (a `Hook`, in its `Format.hooks`) and fires it in the transaction where the
thing happens (`fire`); another format declares a `Follower` of it by the hook's name (in its
`Format.follows`), so it imports nothing of the format that declares it, as ARCHITECTURE.md asks.
Nothing is registered when a module is imported: the bot connects every declared follower to its
hook when it starts (`connect`, through `bot.kit.formats.connect_hooks`), and refuses to start when
one follows a hook nobody declared. Handlers run in the firing transaction, in the order the
followers are declared, with the session and a `Finished` describing the table.

A follower may also read settings of the firing table that the table's own command offers (the
draft's `/draft start goldfish turns scoring play_order` are Goldfish's): its `options` (`Options`);
the firing format asks `settle` to check what its organizer chose and keep the result with its table,
and `choices` for the values its command offers. So the table offers them without importing the
follower, and their rules stay the follower's.

    # bot/games/draft/service/...:  COMPLETE = hooks.Hook("draft.complete")   (Format.hooks)
    #                               await hooks.fire(session, COMPLETE, Finished(...))
    # bot/games/goldfish/service.py: FOLLOWS_DRAFT = hooks.Follower("draft.complete", open_event_for_pod)
    #                                                                        (Format.follows)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
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


@dataclass(frozen=True, eq=False)
class Options:
    """The settings a follower reads from the tables that fire its hook.

    `settle(chosen)` turns what the organizer chose (the table's names: `Finished.options` keys, plus
    what the table tells of itself, such as its cube) into the options to keep with the table, or
    None when nothing was chosen that concerns this follower; it raises `UserError` for a value it
    refuses. `choices` names the allowed values of an option, (value, what players read), for the
    table's command to offer."""

    settle: Callable[[Mapping[str, Any]], dict[str, Any] | None]
    choices: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Follower:
    """`handler` runs whenever the hook `hook` fires; `options`: the settings of the firing table it
    reads (see `Options`)."""

    hook: str
    handler: Handler
    options: Options | None = None


@dataclass(eq=False)
class Hook:
    """A hook a format declares. Its followers are the bot's to connect when it starts (`connect`)."""

    name: str
    followers: tuple[Follower, ...] = field(default=(), repr=False)


def connect(declared: Iterable[Hook], followers: Iterable[Follower]) -> list[str]:
    """Give each declared hook its followers (replacing what it had: connecting twice is connecting
    once). Returns one line per follower of a hook nobody declared (a misspelt name, a format gone),
    and per hook declared twice."""
    hooks: dict[str, Hook] = {}
    problems = []
    for hook in declared:
        if hooks.setdefault(hook.name, hook) is not hook:
            problems.append(f"the hook {hook.name!r} is declared twice")
    followers = list(dict.fromkeys(followers))
    for hook in hooks.values():
        hook.followers = tuple(f for f in followers if f.hook == hook.name)
    problems += [f"handlers follow the hook {name!r}, which no format declares"
                 for name in sorted({f.hook for f in followers} - set(hooks))]
    return problems


def settle(hook: Hook, chosen: Mapping[str, Any]) -> dict[str, Any] | None:
    """The options to keep with a table that will fire `hook`, as its followers settle what its
    organizer chose (None: none of them concerns a follower)."""
    settled = [kept for options in _options(hook) if (kept := options.settle(chosen)) is not None]
    return {key: value for kept in settled for key, value in kept.items()} if settled else None


def choices(hook: Hook, option: str) -> tuple[tuple[str, str], ...]:
    """The values the followers of `hook` allow for `option`, (value, what players read)."""
    return tuple(choice for options in _options(hook) for choice in options.choices.get(option, ()))


def _options(hook: Hook) -> list[Options]:
    return list(dict.fromkeys(f.options for f in hook.followers if f.options is not None))


async def fire(session: AsyncSession, hook: Hook, finished: Finished) -> None:
    for handler in dict.fromkeys(f.handler for f in hook.followers):
        await handler(session, finished)
