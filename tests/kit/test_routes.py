"""Routes checked at startup (issue 24): every component and form reaches a loaded cog's async
method, or the bot does not start. The resolver against a broken route of each kind, and the real
bot's routes once every extension is loaded (without connecting to Discord)."""

from __future__ import annotations

import discord
import pytest
from discord.ext import commands

from bot.app import MtgBot
from bot.kit import dispatch
from bot.kit.dispatch import Component, ModalRoute, RoutesUnresolved, check_routes, number, unresolved_routes
from bot.settings import Settings


class HereCog(commands.Cog, name="HereCog"):
    async def on_press(self, interaction: discord.Interaction, **args) -> None:
        pass

    def not_async(self, interaction: discord.Interaction, **args) -> None:
        pass


@pytest.fixture
def own_registry(monkeypatch) -> None:
    """Components a test defines are registered in a registry of its own, gone after the test (the
    bot processes of the e2e tests, and the tests listing every component, never see them)."""
    monkeypatch.setattr(dispatch, "_components", [])
    monkeypatch.setattr(dispatch, "_modal_routes", [])


async def bot_with_here_cog() -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    await bot.add_cog(HereCog())
    return bot


async def test_a_route_to_a_missing_cog_or_method_is_named_once_each(own_registry):
    class Fine(Component, prefix="t:fine", parts=(number("game"),), route=("HereCog", "on_press")):
        pass

    class NoCog(Component, prefix="t:nocog", parts=(number("game"),), route=("GoneCog", "on_press")):
        pass

    class NoMethod(Component, prefix="t:renamed", parts=(number("game"),), route=("HereCog", "on_renamed")):
        pass

    class NotAsync(Component, prefix="t:sync", route=("HereCog", "not_async")):
        pass

    class Nowhere(Component, prefix="t:nowhere"):
        pass

    class OwnHandle(Component, prefix="t:own"):
        async def handle(self, interaction: discord.Interaction, **args) -> None:
            pass

    dispatch.modal_route("tf", (number("game"),), ("HereCog", "on_press"))
    dispatch.modal_route("tg", (number("game"),), ("GoneCog", "on_form"))
    dispatch.modal_route("th", (number("game"),), ("HereCog", "on_form"))

    bot = await bot_with_here_cog()
    problems = unresolved_routes(bot)
    assert problems == [
        "component NoCog (custom_id t:nocog:…) routes to GoneCog.on_press, but no cog GoneCog is loaded",
        "component NoMethod (custom_id t:renamed:…) routes to HereCog.on_renamed, but HereCog has no method on_renamed",
        "component NotAsync (custom_id t:sync:…) routes to HereCog.not_async, which is not an async method",
        "component Nowhere (custom_id t:nowhere:…) has no route and no handle() of its own",
        "form tg:… routes to GoneCog.on_form, but no cog GoneCog is loaded",
        "form th:… routes to HereCog.on_form, but HereCog has no method on_form",
    ]
    with pytest.raises(RoutesUnresolved) as refused:
        check_routes(bot)
    assert refused.value.problems == problems


async def test_routes_that_all_resolve_pass(own_registry):
    class Fine(Component, prefix="t:fine", parts=(number("game"),), route=("HereCog", "on_press")):
        pass

    bot = await bot_with_here_cog()
    assert unresolved_routes(bot) == []
    check_routes(bot)  # no refusal
    # Explicit lists are checked instead of the registry.
    form = ModalRoute("tx", (), ("HereCog", "gone"))
    assert unresolved_routes(bot, components=[Fine], forms=[form]) == [
        "form tx:… routes to HereCog.gone, but HereCog has no method gone"
    ]


async def test_the_bots_own_routes_all_resolve_once_its_cogs_are_loaded(db, tmp_path):
    settings = Settings(_env_file=None, database_url="sqlite+aiosqlite://", image_cache_dir=tmp_path / "images")
    bot = MtgBot(settings, db)
    try:
        await bot.load_cogs()  # raises RoutesUnresolved otherwise
        assert unresolved_routes(bot) == []
        routed = {c.route[0] for c in dispatch.registered_components() if c.route} | {
            form.route[0] for form in dispatch.registered_forms()
        }
        # Every format's buttons and forms were checked, not an empty registry.
        assert {"BattlerCog", "DraftCog", "TurnaboutCog", "FourTwoOneCog", "VortexCog", "ClockCog"} <= routed
    finally:
        # Never logged in: unloading the extensions stops what their cogs started.
        for extension in list(bot.extensions):
            await bot.unload_extension(extension)
        await bot.scryfall.close()
