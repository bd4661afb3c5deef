"""One way for every button, select and form to reach its cog.

A component is a `Component` subclass (a discord.py `DynamicItem`): its custom_id is a prefix and
`:`-separated parts declared with `number`, `index` and `word`, so it keeps working after a restart
and in any process. Each part is parsed and bounded before anything else runs: a forged or
damaged custom_id (a 30-digit id, a letter where a number belongs, an unknown action) gets a clear
ephemeral refusal and reaches no service. The item then calls its handler, a cog method bound by
reference: the method says what it answers (`@handles(ui.PickButton)`, a UI module must not import
its cog), and the bot binds every loaded cog's handlers when it starts (`bind_handlers`); the
handler gets the parsed parts as keyword arguments; any error is reported by
`report_interaction_error`, once, here.

Forms (modals) are answered the same way from their custom_id (a `ModalRoute`, `@handles(FORM)`),
so a form still answers after a restart.

A component or form that a format declares but no loaded cog handles is caught when the bot starts
(`unresolved_routes`, `RoutesUnresolved`: one line each, exit status 2), not at the first click.

Build custom_ids only with `Component.custom_id_for(...)` (tests do too), never by hand.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import discord

from bot.kit.errors import INVALID, InvalidPayload, UserError
from bot.kit.reporting import report_interaction_error
from bot.kit.tables import MAX_ID, Actor
from bot.kit.text import plural

__all__ = ["INVALID", "Component", "InvalidPayload", "ModalRoute", "Part", "RoutesUnresolved", "bind_handlers", "fixed",
           "handles", "index", "number", "unresolved_routes", "word"]
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
    fixed: str | None = None  # a word the custom_id always has here (`fixed`): it names the component

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


def fixed(name: str, value: str) -> Part:
    """A word that is always `value`: the component class it names is the action (one class per
    action, each with its own handler), while the custom_id keeps the shape of a `word` part."""
    return Part(name, lambda raw: raw, kind="fixed", fixed=value)


def word(name: str, choices: tuple[str, ...] | frozenset[str], *, optional: bool = False) -> Part:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise InvalidPayload()
        return raw

    return Part(name, parse, optional, "word")


def carries_index(parts: tuple[Part, ...], value: Part | None = None) -> bool:
    """Does a component (its parts and select value) or a form carry a position in the state?"""
    return any(part.kind == "index" for part in (*parts, *([value] if value else [])))


class Component(discord.ui.DynamicItem[discord.ui.Item], template=r"(?!)"):
    """A persistent component whose custom_id carries its (parsed, bounded) parts."""

    prefix: ClassVar[str]
    parts: ClassVar[tuple[Part, ...]]
    value_part: ClassVar[Part | None]  # a select's chosen value(s), parsed like a part
    value_count: ClassVar[int]  # how many values the select takes: 1 gives `value`, more a list

    def __init_subclass__(
        cls, *, prefix: str, parts: tuple[Part, ...] = (), value: Part | None = None, values: int = 1,
    ) -> None:
        template = re.escape(prefix) + "".join(
            f"(?::(?P<{part.name}>{re.escape(part.fixed) if part.fixed else '[^:]*'})){'?' if part.optional else ''}"
            for part in parts
        )
        super().__init_subclass__(template=template)
        cls.prefix, cls.parts, cls.value_part, cls.value_count = prefix, tuple(parts), value, values

    def __init__(self, item: discord.ui.Item, args: dict[str, Any] | None = None, problem: bool = False) -> None:
        super().__init__(item)
        self.args = args or {}
        self.problem = problem

    @classmethod
    def custom_id_for(cls, **args: Any) -> str:
        pieces = [cls.prefix]
        for part in cls.parts:
            value = part.fixed or args.get(part.name)
            if value is None and part.optional:
                break
            pieces.append(str(value))
        return ":".join(pieces)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]):
        try:
            args = {part.name: part.read(match[part.name]) for part in cls.parts if part.fixed is None}
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
        """Call the cog method bound to this class (override to answer otherwise)."""
        await call_handler(interaction, type(self), **args)

    @classmethod
    def has_own_handle(cls) -> bool:
        return cls.handle is not Component.handle


def is_damaged(custom_id: str, components: Iterable[type[Component]]) -> bool:
    """A custom_id with one of our prefixes that no component's pattern takes (a part missing or
    one too many): discord.py would leave it unanswered, and Discord would show "This interaction
    failed"."""
    components = list(components)
    ours = any(custom_id == c.prefix or custom_id.startswith(c.prefix + ":") for c in components)
    taken = any(c.__discord_ui_compiled_template__.fullmatch(custom_id) for c in components)
    return ours and not taken


async def refuse_damaged_components(interaction: discord.Interaction) -> None:
    """Answer a damaged custom_id of ours with the usual refusal (an `on_interaction` listener)."""
    if interaction.type is not discord.InteractionType.component:
        return
    components = getattr(interaction.client, "components", ())
    if is_damaged(str((interaction.data or {}).get("custom_id", "")), components) and not interaction.response.is_done():
        await interaction.response.send_message(INVALID, ephemeral=True)


# --- handlers, bound by reference -------------------------------------------------------------------

Target = Any  # a Component subclass or a ModalRoute
Handler = Callable[..., Awaitable[None]]


def handles(*targets: Target) -> Callable[[Handler], Handler]:
    """Mark a cog method as the handler of components or forms (a decorator): `bind_handlers` binds
    it to the loaded cog when the bot starts."""

    def mark(method: Handler) -> Handler:
        method.__handles__ = (*getattr(method, "__handles__", ()), *targets)  # type: ignore[attr-defined]
        return method

    return mark


def handlers_of(cog: Any) -> dict[Target, Handler]:
    """The components and forms `cog` answers, each with its bound method: the methods marked with
    `handles`, and what the cog adds itself (`extra_handlers()`, e.g. a format's lobby button)."""
    found: dict[Target, Handler] = {}
    for klass in reversed(type(cog).__mro__):
        for name, member in vars(klass).items():
            for target in getattr(member, "__handles__", ()):
                found[target] = getattr(cog, name)
    extra = getattr(cog, "extra_handlers", None)
    if callable(extra):
        found.update(extra())
    return found


def bind_handlers(cogs: Iterable[Any]) -> dict[Target, Handler]:
    """Every component and form the loaded `cogs` answer, with its bound method."""
    bound: dict[Target, Handler] = {}
    for cog in cogs:
        bound.update(handlers_of(cog))
    return bound


async def call_handler(interaction: discord.Interaction, target: Target, **args: Any) -> None:
    handler = getattr(interaction.client, "handlers", {}).get(target)
    if handler is None:
        raise UserError("That part of the bot is not running right now; try again in a minute.")
    await handler(interaction, **args)


# --- forms ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ModalRoute:
    """Forms whose custom_id is `prefix:part:part…`, answered by the cog method that `handles` it,
    with the parsed parts and `fields` (the text inputs' values by custom_id)."""

    prefix: str
    parts: tuple[Part, ...]

    def custom_id_for(self, **args: Any) -> str:
        return ":".join([self.prefix, *(str(args[part.name]) for part in self.parts)])

    def parse(self, custom_id: str) -> dict[str, Any] | None:
        pieces = custom_id.split(":")
        if pieces[0] != self.prefix:
            return None
        if len(pieces) != len(self.parts) + 1:
            raise InvalidPayload()
        return {part.name: part.read(raw) for part, raw in zip(self.parts, pieces[1:], strict=True)}


def modal_route(prefix: str, parts: tuple[Part, ...]) -> ModalRoute:
    return ModalRoute(prefix, parts)


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
        for form in getattr(interaction.client, "handlers", {}):
            if isinstance(form, ModalRoute) and (args := form.parse(custom_id)) is not None:
                await call_handler(interaction, form, fields=form_fields(data), **args)
                return
    except Exception as error:  # noqa: BLE001
        await report_interaction_error(interaction, error)


# --- handlers checked at startup --------------------------------------------------------------------


class RoutesUnresolved(Exception):
    """Pieces a format declares that nothing answers (a component or form without a handler, an
    outbox kind without a renderer, a deadline kind without a handler): the bot does not start."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{plural(len(problems), 'declared piece')} that nothing answers")
        self.problems = problems


def unresolved_routes(
    handlers: dict[Target, Handler], components: Iterable[type[Component]], forms: Iterable[ModalRoute],
    others: Iterable[Target] = (),
) -> list[str]:
    """One line per component or form that no bound handler answers (a component may answer
    itself with its own `handle`), or whose handler is not an async method; and per other target
    (a press of a shared component a format answers, e.g. `claims_ui.answers("421")`)."""
    problems = []
    for component in components:
        what = f"component {component.__name__} (custom_id {component.prefix}:…)"
        if component.has_own_handle():
            continue
        problems.extend(_handler_problem(what, handlers.get(component)))
    for form in forms:
        problems.extend(_handler_problem(f"form {form.prefix}:…", handlers.get(form)))
    for target in others:
        problems.extend(_handler_problem(f"{target}", handlers.get(target)))
    return problems


def _handler_problem(what: str, handler: Handler | None) -> list[str]:
    if handler is None:
        return [f"{what} has no handler in a loaded cog"]
    if not inspect.iscoroutinefunction(handler):
        return [f"{what} is handled by {handler.__qualname__}, which is not an async method"]
    return []


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
