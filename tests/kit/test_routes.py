"""Handlers bound by reference and checked at startup (issues 24 and 36): every component and form
a format declares is answered by a loaded cog's async method marked `@handles`, every outbox kind
it declares has a renderer and every deadline kind a handler, or the bot does not start (one line
each). The checks against broken declarations of each kind, and the real bot's once every
extension is loaded (without connecting to Discord)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import discord
import pytest
from discord.ext import commands

import bot.games
from bot.app import SHARED_RENDERERS, MtgBot
from bot.features.clock import service as clock
from bot.kit import card_data, claims, outbox
from bot.kit import formats as formats_module
from bot.kit.client import KitBot
from bot.kit.deadlines import Handlers
from bot.kit.delivery import Renderers
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
from bot.kit.events import Payload
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


async def _nothing(*args) -> None:
    return None


def test_an_outbox_kind_without_renderer_or_a_deadline_kind_without_handler_is_named():
    renderers, handlers = Renderers(), Handlers()
    renderers.add("t.fine", Payload, _nothing)
    renderers.add("t.stray", Payload, _nothing)
    handlers.add("t.due", _nothing)
    handlers.add("t.odd", _nothing)
    fmt = Format(key="t", name="Test", order=99, cog="nowhere", outbox_kinds=("t.gone", "t.fine"),
                 deadline_kinds=("t.late", "t.due"), renderers=renderers, deadlines=handlers)
    assert missing_pieces([fmt], renderers, handlers) == [
        "format t: outbox kind 't.gone' has no renderer",
        "format t: deadline kind 't.late' has no handler",
        "format t: renders outbox kind 't.stray', which it does not declare",
        "format t: handles deadline kind 't.odd', which it does not declare",
    ]
    # The bot's tables are built from what formats declare: a format's renderer is in them.
    assert missing_pieces([fmt], formats_module.renderers_of([fmt]), formats_module.deadlines_of([fmt]))[:2] == [
        "format t: outbox kind 't.gone' has no renderer", "format t: deadline kind 't.late' has no handler"]


def test_two_formats_rendering_one_kind_are_refused():
    mine, theirs = Renderers(), Renderers()
    mine.add("t.post", Payload, _nothing)
    theirs.add("t.post", Payload, _nothing)
    formats = [Format(key=key, name=key, order=99, cog="nowhere", outbox_kinds=("t.post",), renderers=renderers)
               for key, renderers in (("a", mine), ("b", theirs))]
    with pytest.raises(ValueError, match="t.post"):
        formats_module.renderers_of(formats)


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
        assert missing_pieces(formats, bot_.outbox.renderers, bot_.deadlines) == []
        # Every format declared something that was checked, not an empty list.
        assert {fmt.key for fmt in formats} == {"goldfish", "draft", "pod", "battler", "turnabout", "421", "vortex"}
        assert all(fmt.components or fmt.forms or fmt.claims for fmt in formats)
        assert all(fmt.outbox_kinds for fmt in formats)
        # And the bot's tables are exactly what is declared: every format's kinds (and its table's,
        # the kit's), the features' and the kit's own; nothing a module registered by being imported.
        declared = {kind for fmt in formats for kind in fmt.outbox_kinds}
        declared |= {kind for fmt in formats if fmt.spec for kind in formats_module._table_kinds(fmt.spec)}
        shared = {kind for renderers in SHARED_RENDERERS for kind in renderers.kinds()}
        assert bot_.outbox.renderers.kinds() == declared | shared | {outbox.CANNOT_POST, claims.ABSENT_DM, claims.ANSWERED}
        assert bot_.deadlines.kinds() == ({kind for fmt in formats for kind in fmt.deadline_kinds}
                                          | {clock.FLAG, card_data.COMPLETE})
        # Every Component subclass the bot defines is one it adds (a button nobody declared would
        # not answer after a restart).
        assert set(_all_components()) - set(bot_.components) == set()
    finally:
        # Never logged in: unloading the extensions stops what their cogs started.
        for extension in list(bot_.extensions):
            await bot_.unload_extension(extension)
        await bot_.scryfall.close()


async def test_importing_every_module_of_the_bot_registers_no_renderer_and_no_handler(db, tmp_path):
    """A format's, a feature's or the kit's renderers and handlers are what it declares, carried by
    its declaration: there is no registry that importing a module fills. A bot of the kit alone,
    made after every module of the bot was imported, renders and handles the kit's own kinds only."""
    for module in pkgutil.walk_packages(bot.__path__, "bot."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    kit = KitBot(Settings(_env_file=None, database_url="sqlite+aiosqlite://", image_cache_dir=tmp_path / "images"), db)
    try:
        assert kit.outbox.renderers.kinds() == {outbox.CANNOT_POST, claims.ABSENT_DM, claims.ANSWERED}
        assert kit.deadlines.kinds() == {card_data.COMPLETE}
    finally:
        await kit.scryfall.close()


# What importing every module of the bot may leave in the kit's private module-level tables: constant
# tables written in the source, and the outbox's per-kind hooks, still filled at import (issue 36: the
# next to become part of what a format declares).
KIT_TABLES_FILLED_AT_IMPORT = {
    "bot.kit.claims._STATUS_OF", "bot.kit.lobby._STYLES", "bot.kit.table_cog._LOBBY_COMMANDS", "bot.kit.shown._INSERTS",
    "bot.kit.outbox._on_sent", "bot.kit.outbox._on_dm_closed", "bot.kit.outbox._parked_when_closed",
}
_IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
import bot
for module in pkgutil.walk_packages(bot.__path__, "bot."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)
from bot.games.draft import service as drafts
from bot.kit import events
filled = sorted(f"{name}.{attr}" for name, module in sys.modules.items() if name.startswith("bot.kit.")
                for attr, value in vars(module).items()
                if attr.startswith("_") and not attr.startswith("__") and type(value) in (dict, list, set) and value)
print(json.dumps({"filled": filled, "followers": len(drafts.COMPLETE.followers),
                  "named": events._named_under.cache_info().currsize}))
"""


def test_importing_every_module_fills_no_registry_of_pages_tables_hooks_channels_or_events():
    """Page lists, table specs, hook followers, channel queries and event names are what the formats
    and features declare, built into the bot's tables when it starts: importing every module of the
    bot (in a fresh interpreter, as the bot's process starts) connects no follower to the draft's
    hook, names no event and fills no table of the kit but constant ones."""
    done = subprocess.run([sys.executable, "-c", _IMPORT_EVERYTHING], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(found["filled"]) <= KIT_TABLES_FILLED_AT_IMPORT, found["filled"]
    assert found["followers"] == 0 and found["named"] == 0


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
