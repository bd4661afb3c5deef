"""One way for every button, select and form to reach its cog.

A component is a `Component` subclass (a discord.py `DynamicItem`): its custom_id is a prefix and
`:`-separated parts declared with `number`, `index` and `word`, so it keeps working after a restart
and in any process. Each part is parsed and bounded before anything else runs: a forged or
damaged custom_id (a 30-digit id, a letter where a number belongs, an unknown action) gets a clear
ephemeral refusal and reaches no service. The item then calls its route, a method of a cog found
through `interaction.client` (`route = ("DraftCog", "on_pick")`), with the parsed parts as keyword
arguments; any error is reported by `report_interaction_error`, once, here.

Forms (modals) are routed the same way by `ModalRoute`, from their custom_id, so a form still
answers after a restart.

Routes are names (a UI module must not import its cog), so they are checked when the bot starts:
`unresolved_routes` lists every component or form whose cog or method is missing, and the bot
refuses to start while there is one (`RoutesUnresolved`), instead of failing at the first click.

Build custom_ids only with `Component.custom_id_for(...)` (tests do too), never by hand.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import discord

from bot.kit.errors import INVALID, InvalidPayload, UserError
from bot.kit.reporting import report_interaction_error
from bot.kit.tables import MAX_ID, Actor
from bot.kit.text import plural

__all__ = ["INVALID", "Component", "InvalidPayload", "ModalRoute", "Part", "RoutesUnresolved", "check_routes", "index",
           "number", "unresolved_routes", "word"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Part:
    """One `:`-separated part of a custom_id (or a select's value). `kind` says what it is: an
    "index" is a position in something the state holds, which the handler checks against the state
    (`bot.kit.errors.chosen`); tests send every index part forged."""

    name: str
    parse: Callable[[str], Any]
    optional: bool = False
    kind: str = "text"

    def read(self, raw: str | None) -> Any:
        if raw is None or raw == "":
            if self.optional:
                return None
            raise InvalidPayload()
        return self.parse(raw)


def _bounded_int(raw: str, low: int, high: int) -> int:
    # ASCII digits only: int() would also take "٣", "+3", " 3" and "3_0".
    if not raw.isascii() or not raw.isdigit() or len(raw) > 19:
        raise InvalidPayload()
    value = int(raw)
    if not low <= value <= high:
        raise InvalidPayload()
    return value


def number(name: str, *, optional: bool = False) -> Part:
    """A database id or snowflake (1 … 2⁶³−1)."""
    return Part(name, lambda raw: _bounded_int(raw, 1, MAX_ID), optional, "number")


def index(name: str, *, limit: int = 1000, optional: bool = False) -> Part:
    """A small non-negative number (a seat, a position in a pack); checked against the state later."""
    return Part(name, lambda raw: _bounded_int(raw, 0, limit - 1), optional, "index")


def word(name: str, choices: tuple[str, ...] | frozenset[str], *, optional: bool = False) -> Part:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise InvalidPayload()
        return raw

    return Part(name, parse, optional, "word")


_components: list[type[Component]] = []


def registered_components() -> list[type[Component]]:
    return list(_components)


def carries_index(parts: tuple[Part, ...], value: Part | None = None) -> bool:
    """Does a component (its parts and select value) or a form carry a position in the state?"""
    return any(part.kind == "index" for part in (*parts, *([value] if value else [])))


class Component(discord.ui.DynamicItem[discord.ui.Item], template=r"(?!)"):
    """A persistent component whose custom_id carries its (parsed, bounded) parts."""

    prefix: ClassVar[str]
    parts: ClassVar[tuple[Part, ...]]
    route: ClassVar[tuple[str, str] | None]  # (cog name, method) or None: override `handle`
    value_part: ClassVar[Part | None]  # a select's chosen value(s), parsed like a part
    value_count: ClassVar[int]  # how many values the select takes: 1 gives `value`, more a list

    def __init_subclass__(
        cls, *, prefix: str, parts: tuple[Part, ...] = (), route: tuple[str, str] | None = None,
        value: Part | None = None, values: int = 1,
    ) -> None:
        template = re.escape(prefix) + "".join(
            f"(?::(?P<{part.name}>[^:]*)){'?' if part.optional else ''}" for part in parts
        )
        super().__init_subclass__(template=template)
        cls.prefix, cls.parts, cls.route, cls.value_part, cls.value_count = prefix, tuple(parts), route, value, values
        _components.append(cls)

    def __init__(self, item: discord.ui.Item, args: dict[str, Any] | None = None, problem: bool = False) -> None:
        super().__init__(item)
        self.args = args or {}
        self.problem = problem

    @classmethod
    def custom_id_for(cls, **args: Any) -> str:
        pieces = [cls.prefix]
        for part in cls.parts:
            value = args.get(part.name)
            if value is None and part.optional:
                break
            pieces.append(str(value))
        return ":".join(pieces)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]):
        try:
            args = {part.name: part.read(match[part.name]) for part in cls.parts}
        except InvalidPayload:
            return cls(item, problem=True)
        return cls(item, args)

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            if self.problem:
                raise InvalidPayload()
            args = dict(self.args)
            if self.value_part is not None:
                values = getattr(self.item, "values", None) or []
                if len(values) != self.value_count:
                    raise InvalidPayload()
                parsed = [self.value_part.read(value) for value in values]
                args["value"] = parsed[0] if self.value_count == 1 else parsed
            await self.handle(interaction, **args)
        except Exception as error:  # noqa: BLE001 - every error is answered here, once
            await report_interaction_error(interaction, error)

    async def handle(self, interaction: discord.Interaction, **args: Any) -> None:
        assert self.route is not None, f"{type(self).__name__} needs a route or its own handle()"
        await call_cog(interaction, self.route, **args)


def is_damaged(custom_id: str) -> bool:
    """A custom_id with one of our prefixes that no component's pattern takes (a part missing or
    one too many): discord.py would leave it unanswered, and Discord would show "This interaction
    failed"."""
    ours = any(custom_id == c.prefix or custom_id.startswith(c.prefix + ":") for c in _components)
    taken = any(c.__discord_ui_compiled_template__.fullmatch(custom_id) for c in _components)
    return ours and not taken


async def refuse_damaged_components(interaction: discord.Interaction) -> None:
    """Answer a damaged custom_id of ours with the usual refusal (an `on_interaction` listener)."""
    if interaction.type is not discord.InteractionType.component:
        return
    if is_damaged(str((interaction.data or {}).get("custom_id", ""))) and not interaction.response.is_done():
        await interaction.response.send_message(INVALID, ephemeral=True)


async def call_cog(interaction: discord.Interaction, route: tuple[str, str], **args: Any) -> None:
    cog_name, method = route
    cog = interaction.client.get_cog(cog_name)  # type: ignore[attr-defined]
    if cog is None:
        raise UserError("That part of the bot is not running right now; try again in a minute.")
    await getattr(cog, method)(interaction, **args)


# --- forms ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModalRoute:
    """Forms whose custom_id is `prefix:part:part…`, answered by a cog method with the parsed parts
    and `fields` (the text inputs' values by custom_id)."""

    prefix: str
    parts: tuple[Part, ...]
    route: tuple[str, str]

    def custom_id_for(self, **args: Any) -> str:
        return ":".join([self.prefix, *(str(args[part.name]) for part in self.parts)])

    def parse(self, custom_id: str) -> dict[str, Any] | None:
        pieces = custom_id.split(":")
        if pieces[0] != self.prefix:
            return None
        if len(pieces) != len(self.parts) + 1:
            raise InvalidPayload()
        return {part.name: part.read(raw) for part, raw in zip(self.parts, pieces[1:], strict=True)}


_modal_routes: list[ModalRoute] = []


def registered_forms() -> list[ModalRoute]:
    return list(_modal_routes)


def modal_route(prefix: str, parts: tuple[Part, ...], route: tuple[str, str]) -> ModalRoute:
    found = ModalRoute(prefix, parts, route)
    _modal_routes.append(found)
    return found


def form_fields(data: dict) -> dict[str, str]:
    """A submitted form's text inputs by custom_id (classic action rows and labelled components)."""
    values: dict[str, str] = {}
    stack = list(data.get("components") or [])
    while stack:
        component = stack.pop()
        if "custom_id" in component and "value" in component:
            values[component["custom_id"]] = str(component["value"])
        stack.extend(component.get("components") or [])
        if isinstance(component.get("component"), dict):
            stack.append(component["component"])
    return values


async def dispatch_modal(interaction: discord.Interaction) -> None:
    """Route a submitted form to its cog (an `on_interaction` listener of the bot)."""
    if interaction.type is not discord.InteractionType.modal_submit:
        return
    data = interaction.data or {}
    custom_id = str(data.get("custom_id", ""))
    try:
        for route in _modal_routes:
            args = route.parse(custom_id)
            if args is not None:
                await call_cog(interaction, route.route, fields=form_fields(data), **args)
                return
    except Exception as error:  # noqa: BLE001
        await report_interaction_error(interaction, error)


# --- routes checked at startup ---------------------------------------------------------------------------


class RoutesUnresolved(Exception):
    """Components or forms whose route names no loaded cog or method: the bot does not start."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{plural(len(problems), 'component or form route')} that no loaded cog answers")
        self.problems = problems


def _route_problem(bot: Any, what: str, route: tuple[str, str]) -> str | None:
    cog_name, method = route
    cog = bot.get_cog(cog_name)
    if cog is None:
        return f"{what} routes to {cog_name}.{method}, but no cog {cog_name} is loaded"
    target = getattr(cog, method, None)
    if target is None:
        return f"{what} routes to {cog_name}.{method}, but {cog_name} has no method {method}"
    if not inspect.iscoroutinefunction(target):
        return f"{what} routes to {cog_name}.{method}, which is not an async method"
    return None


def unresolved_routes(
    bot: Any, components: Iterable[type[Component]] | None = None, forms: Iterable[ModalRoute] | None = None,
) -> list[str]:
    """One line per component or form (default: every one registered) whose route `bot` cannot
    reach: its cog is not loaded, or has no such async method; or a component has neither a route
    nor its own `handle`."""
    problems = []
    for component in registered_components() if components is None else components:
        what = f"component {component.__name__} (custom_id {component.prefix}:…)"
        if component.route is None:
            if component.handle is Component.handle:
                problems.append(f"{what} has no route and no handle() of its own")
        elif (problem := _route_problem(bot, what, component.route)) is not None:
            problems.append(problem)
    for form in registered_forms() if forms is None else forms:
        if (problem := _route_problem(bot, f"form {form.prefix}:…", form.route)) is not None:
            problems.append(problem)
    return problems


def check_routes(bot: Any) -> None:
    """Refuse to start (`RoutesUnresolved`, one line a broken route) unless every route resolves."""
    problems = unresolved_routes(bot)
    if problems:
        raise RoutesUnresolved(problems)


class StatelessModal(discord.ui.Modal):
    """A form answered by its `ModalRoute` (not by this object), so it works after a restart."""

    def __init__(self, *, title: str, custom_id: str) -> None:
        super().__init__(title=title, custom_id=custom_id, timeout=900)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.stop()  # the ModalRoute answers it


# --- who acts ---------------------------------------------------------------------------------------


def require_guild(interaction: discord.Interaction) -> int:
    """The server the interaction came from; a command used in a DM is refused."""
    if interaction.guild_id is None:
        raise UserError("That command only works in a server, not in DMs.")
    return interaction.guild_id


def actor_of(interaction: discord.Interaction) -> Actor:
    """The user, the server the interaction came from, and their Manage Server permission and roles
    there (services judge them against the server that owns the object acted on)."""
    guild_id = interaction.guild_id
    roles = frozenset(int(r) for r in getattr(interaction.user, "_roles", ())) if guild_id else frozenset()
    manage = bool(guild_id) and interaction.permissions.manage_guild
    return Actor(user_id=interaction.user.id, guild_id=guild_id, manage_guild=manage, role_ids=roles)
