"""Handlers bound by reference and checked at startup (issues 24 and 36): every component and form
a format declares is answered by a loaded cog's async method marked `@handles`, every outbox kind
it declares has a renderer and every deadline kind a handler, or the bot does not start (one line
each). The checks against broken declarations of each kind, and the real bot's once every
extension is loaded (without connecting to Discord)."""

from __future__ import annotations

import discord
import pytest
from discord.ext import commands

import bot.games
from bot.app import MtgBot
from bot.kit import deadlines, delivery
from bot.kit import formats as formats_module
from bot.kit.dispatch import (
    Component,
    ModalRoute,
    RoutesUnresolved,
    bind_handlers,
    fixed,
    handles,
    index,
    is_damaged,
    number,
    unresolved_routes,
)
from bot.kit.formats import Format, missing_pieces
from bot.settings import Settings


class Fine(Component, prefix="t:fine", parts=(number("game"),)):
    pass


class Unanswered(Component, prefix="t:nowhere"):
    pass


class OwnHandle(Component, prefix="t:own"):
    async def handle(self, interaction: discord.Interaction, **args) -> None:
        pass


class NotAsync(Component, prefix="t:sync"):
    pass


FORM = ModalRoute("tf", (number("game"),))
LOST_FORM = ModalRoute("tg", (number("game"),))


class HereCog(commands.Cog, name="HereCog"):
    @handles(Fine, FORM)
    async def on_press(self, interaction: discord.Interaction, **args) -> None:
        pass

    @handles(NotAsync)
    def not_async(self, interaction: discord.Interaction, **args) -> None:
        pass


def test_a_cog_method_marked_handles_is_bound_to_the_loaded_cog():
    cog = HereCog()
    bound = bind_handlers([cog])
    assert bound[Fine] == cog.on_press and bound[FORM] == cog.on_press
    assert bound[Fine].__self__ is cog


def test_a_component_or_form_nothing_answers_is_named_once_each():
    bound = bind_handlers([HereCog()])
    problems = unresolved_routes(bound, [Fine, Unanswered, OwnHandle, NotAsync], [FORM, LOST_FORM])
    assert problems == [
        "component Unanswered (custom_id t:nowhere:…) has no handler in a loaded cog",
        "component NotAsync (custom_id t:sync:…) is handled by HereCog.not_async, which is not an async method",
        "form tg:… has no handler in a loaded cog",
    ]
    assert unresolved_routes(bound, [Fine, OwnHandle], [FORM]) == []


def test_an_outbox_kind_without_renderer_or_a_deadline_kind_without_handler_is_named(monkeypatch):
    fmt = Format(key="t", name="Test", order=99, cog="nowhere", outbox_kinds=("t.gone", "t.fine"),
                 deadline_kinds=("t.late", "t.due"))
    monkeypatch.setitem(delivery._renderers, "t.fine", object())  # gone after the test
    monkeypatch.setitem(deadlines._handlers, "t.due", object())
    assert missing_pieces([fmt]) == ["format t: outbox kind 't.gone' has no renderer",
                                     "format t: deadline kind 't.late' has no handler"]


async def test_the_bot_refuses_to_start_with_one_line_per_missing_piece(db, tmp_path, monkeypatch):
    declared = bot.games.formats()
    broken = Format(key="broken", name="Broken", order=99, cog=declared[0].cog, components=(Unanswered,),
                    forms=(LOST_FORM,), outbox_kinds=("broken.post",), deadline_kinds=("broken.timer",))
    monkeypatch.setattr(bot.games, "formats", lambda: [*declared, broken])
    bot_ = MtgBot(Settings(_env_file=None, database_url="sqlite+aiosqlite://", image_cache_dir=tmp_path / "images"), db)
    try:
        with pytest.raises(RoutesUnresolved) as refused:
            await bot_.load_cogs()
        assert refused.value.problems == [
            "component Unanswered (custom_id t:nowhere:…) has no handler in a loaded cog",
            "form tg:… has no handler in a loaded cog",
            "format broken: outbox kind 'broken.post' has no renderer",
            "format broken: deadline kind 'broken.timer' has no handler",
        ]
    finally:
        for extension in list(bot_.extensions):
            await bot_.unload_extension(extension)
        await bot_.scryfall.close()


async def test_the_bots_own_declarations_are_all_answered_once_its_cogs_are_loaded(db, tmp_path):
    settings = Settings(_env_file=None, database_url="sqlite+aiosqlite://", image_cache_dir=tmp_path / "images")
    bot_ = MtgBot(settings, db)
    try:
        await bot_.load_cogs()  # raises RoutesUnresolved otherwise
        formats = bot.games.formats()
        assert unresolved_routes(bot_.handlers, bot_.components, bot_.forms()) == []
        assert missing_pieces(formats) == []
        # Every format declared something that was checked, not an empty list.
        assert {fmt.key for fmt in formats} == {"goldfish", "draft", "pod", "battler", "turnabout", "421", "vortex"}
        assert all(fmt.components or fmt.forms or fmt.claims for fmt in formats)
        assert all(fmt.outbox_kinds for fmt in formats)
        # And the declarations are whole: every outbox kind a format's modules render and every
        # deadline kind they handle is declared by a format (or is the kit's table lifecycle's).
        declared = {kind for fmt in formats for kind in (*fmt.outbox_kinds, *fmt.deadline_kinds)}
        declared |= {kind for fmt in formats if fmt.spec for kind in formats_module._table_kinds(fmt.spec)}
        rendered = {kind for kind, renderer in delivery._renderers.items() if renderer.owner.startswith("bot.games.")}
        handled = {kind for kind, handler in deadlines._handlers.items()
                   if getattr(handler, "__module__", "").startswith("bot.games.")}
        assert rendered | handled <= declared, (rendered | handled) - declared
        # Every Component subclass the bot defines is one it adds (a button nobody declared would
        # not answer after a restart).
        assert set(_all_components()) - set(bot_.components) == set()
    finally:
        # Never logged in: unloading the extensions stops what their cogs started.
        for extension in list(bot_.extensions):
            await bot_.unload_extension(extension)
        await bot_.scryfall.close()


def _all_components() -> list[type[Component]]:
    found, stack = [], list(Component.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("bot."):
            found.append(cls)
    return found


# --- one class per action, the custom_id's shape kept (`fixed`) ------------------------------------------


class TakeIt(Component, prefix="tp", parts=(number("game"), fixed("action", "take"), index("arg", optional=True))):
    pass


class PassIt(Component, prefix="tp", parts=(number("game"), fixed("action", "pass"), index("arg", optional=True))):
    pass


def test_each_action_class_answers_only_its_own_word_and_builds_the_old_shape():
    assert TakeIt.custom_id_for(game=7, arg=3) == "tp:7:take:3" and PassIt.custom_id_for(game=7) == "tp:7:pass"
    take, pass_ = TakeIt.__discord_ui_compiled_template__, PassIt.__discord_ui_compiled_template__
    assert take.fullmatch("tp:7:take:3") and not pass_.fullmatch("tp:7:take:3")
    assert pass_.fullmatch("tp:7:pass") and not take.fullmatch("tp:7:pass")
    # A word no class has is one of ours that nothing takes: refused as damaged, not left unanswered.
    assert is_damaged("tp:7:steal", [TakeIt, PassIt]) and not is_damaged("tp:7:take", [TakeIt, PassIt])


async def test_the_fixed_word_is_not_passed_to_the_handler():
    match = TakeIt.__discord_ui_compiled_template__.fullmatch("tp:7:take:3")
    item = await TakeIt.from_custom_id(None, discord.ui.Button(custom_id="tp:7:take:3"), match)  # type: ignore[arg-type]
    assert item.args == {"game": 7, "arg": 3} and not item.problem
