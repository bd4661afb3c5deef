"""Forged indexes: every component (button, select) and form whose custom_id or value carries a
position in the state gets forged positions that parse (they are within the part's bounds) but that
the state does not have: a card past the pack's end, a seat nobody sits in, a version the game has
not reached, a deck that does not exist. Each gets a clear ephemeral refusal, nothing changes (the
whole database and every non-ephemeral message stay as they were), and the bot logs no error.

The components come from what the bot adds (`bot.app.components()`, every format's declared
ones and the shared ones) and every format's forms: a new one that carries an index fails `test_every_indexed_component_is_forged` until it is forged here."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select

from bot.app import MtgBot
from bot.app import components as bot_components
from bot.games.battler import rules as battler_engine
from bot.games.battler import ui as battler_ui
from bot.games.draft import ui as draft_ui
from bot.games.draft.kinds_cog import ChoiceButton
from bot.games.four_two_one import ui as fto_ui
from bot.games.vortex import rules as vortex_engine
from bot.games.vortex import ui as vortex_ui
from bot.kit import claims_ui
from bot.kit.dispatch import INVALID, carries_index
from bot.store.db import Database
from bot.store.models import Base, OutboxMessage
from tests.e2e.drivers.battler import ActionButton, ActionSelect, BattlerDriver
from tests.e2e.drivers.common import component, components, eventually, forged_click, parts_of
from tests.e2e.drivers.draft import join_all, live_pack_messages, start_lobby
from tests.e2e.drivers.four_two_one import FourTwoOneDriver, as_text, legal_deck
from tests.e2e.drivers.turnabout import TurnaboutDriver
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e

# The format whose test forges each indexed component (custom_id prefix) or form.
FORGED_IN = {
    "dp": "draft", "dps": "draft", "dk": "winston",
    "bt": "battler", "bts": "battler", "btm": "battler",
    "tar": "turnabout",
    "421t": "421", "421c": "421",
    "vortex:pick": "vortex", "vortex:land": "vortex", "vortex:look": "vortex", "vortex:find": "vortex",
    "vortex:seek": "vortex", "vortex:turn": "vortex", "vortex:play": "vortex",
}


def test_every_indexed_component_is_forged():
    indexed = {c.prefix for c in bot_components() if carries_index(c.parts, c.value_part)}
    indexed |= {form.prefix for form in MtgBot.forms() if carries_index(form.parts)}
    assert indexed == set(FORGED_IN), f"forge the new component(s) here: {indexed - set(FORGED_IN)}"


def prefix_of(custom_id: str) -> str:
    """A custom_id's component prefix (Vortex's have two parts)."""
    return ":".join(custom_id.split(":")[:2]) if custom_id.startswith("vortex:") else custom_id.split(":")[0]


class Forger:
    """Sends forged interactions and checks each is refused and changes nothing."""

    def __init__(self, fake, world, bot, fmt: str) -> None:
        self.fake, self.world, self.bot, self.fmt = fake, world, bot, fmt
        self.db = Database(bot.database_url)
        self.forged: set[str] = set()

    async def close(self) -> None:
        await self.db.dispose()
        assert self.forged == {p for p, f in FORGED_IN.items() if f == self.fmt}, self.forged
        nothing_logged_as_error(self.bot)

    async def snapshot(self) -> tuple:
        """Every row of every table, once no message is still on its way, and every message shown."""
        async def quiet():
            async with self.db.read() as session:
                pending = await session.execute(select(OutboxMessage.id).where(OutboxMessage.status == "pending"))
                return not pending.first()

        await eventually(quiet, what="the outbox to be empty")
        rows = {}
        async with self.db.read() as session:
            for table in Base.metadata.sorted_tables:
                rows[table.name] = sorted(map(repr, (await session.execute(select(table))).all()))
        shown = {mid: repr(message) for mid, message in self.fake._messages.items()
                 if not self.fake._msg_meta[mid]["ephemeral"]}
        return rows, shown

    async def refused(self, prefix: str, send, *words: str) -> None:
        before = await self.snapshot()
        result = await send()
        assert result.ephemeral and result.modal is None, (prefix, result.content)
        text = result.content
        assert text and "went wrong" not in text, (prefix, text)
        assert all(word in text for word in words), (prefix, text)
        assert await self.snapshot() == before, f"{prefix}: a forged index changed something"
        self.forged.add(prefix)

    async def click(self, user: int, message: dict, custom_id: str, *words: str) -> None:
        await self.refused(prefix_of(custom_id), lambda: forged_click(self.fake, user, message, custom_id), *words)

    async def select(self, user: int, message: dict, custom_id: str, values: list[str], *words: str) -> None:
        async def send():
            stored = self.fake.message(message["id"])
            shown = stored.get("components", [])
            options = [{"label": f"x{i}", "value": v} for i, v in enumerate(values)]
            stored["components"] = [{"type": 1, "components": [
                {"type": 3, "custom_id": custom_id, "options": options, "min_values": len(values),
                 "max_values": len(values)}]}]
            try:
                return await self.fake.select(user, stored, custom_id, values)
            finally:
                stored["components"] = shown

        await self.refused(prefix_of(custom_id), send, *words)

    async def form(self, user: int, opened, custom_id: str, values: dict, *words: str) -> None:
        async def send():
            opened.modal["custom_id"] = custom_id
            return await self.fake.submit_modal(user, opened, values)

        await self.refused(custom_id.split(":")[0], send, *words)


@contextlib.asynccontextmanager
async def forging(fake, world, bot, fmt: str, driver_type) -> AsyncIterator[tuple[Forger, object]]:
    """A format's forger and driver; afterwards, every component of the format was forged."""
    forger, driver = Forger(fake, world, bot, fmt), driver_type(fake, world, bot.database_url)
    try:
        yield forger, driver
    finally:
        await driver.close()
    await forger.close()


async def test_draft_picks(fake, bot, world):
    f = Forger(fake, world, bot, "draft")
    p0, p1 = world.players[:2]
    pod_id, lobby = await start_lobby(fake, world, seats=2, packs=1, pack_size=5, pick_mode="buttons")
    await join_all(fake, lobby, pod_id, [p0, p1])
    message = await fake.wait_for(lambda: (m := live_pack_messages(fake, p0)) and m[-1], what="p0's pack")
    shown = parts_of(draft_ui.PickButton, components(message, draft_ui.PickButton)[0]["custom_id"])
    pack, pick = int(shown["pack"]), int(shown["pick"])
    button = draft_ui.PickButton.custom_id_for
    await f.click(p0, message, button(pod=pod_id, pack=pack, pick=pick, index=5), "not in the pack")
    await f.click(p0, message, button(pod=pod_id, pack=pack, pick=pick, index=999), "not in the pack")
    await f.click(p0, message, button(pod=pod_id, pack=pack, pick=pick + 3, index=0), "Already picked")
    await f.click(p0, message, button(pod=pod_id, pack=99, pick=pick, index=0), "Already picked")
    menu = draft_ui.PickSelect.custom_id_for
    await f.select(p0, message, menu(pod=pod_id, pack=pack, pick=pick, part=0), ["5"], "not in the pack")
    await f.select(p0, message, menu(pod=pod_id, pack=pack, pick=pick, part=3), ["0"], "not valid")
    await f.close()


async def test_winston_choices(fake, bot, world):
    """A Winston draft's [Take pile] [Pass] (Grid's row and column buttons are the same component)."""
    f = Forger(fake, world, bot, "winston")
    p0, p1 = world.players[:2]
    started = await fake.slash(world.admin, "draft winston", guild_id=world.guild, channel_id=world.channel,
                               options={"cube": "goldfish", "cards": 24})
    pod_id = int(started.content.split("#")[1].split()[0].strip("*:.,"))
    await join_all(fake, started.message, pod_id, [p0, p1])
    on_turn, look = await fake.wait_for(
        lambda: next(((p, m) for p in (p0, p1) for m in reversed(fake.dms(p)) if components(m, ChoiceButton)), None),
        what="the first look")
    other = p1 if on_turn == p0 else p0
    shown = parts_of(ChoiceButton, components(look, ChoiceButton)[0]["custom_id"])
    pick = int(shown["pick"])
    choice = ChoiceButton.custom_id_for
    await f.click(on_turn, look, choice(pod=pod_id, pick=pick, index=7), "not")
    await f.click(on_turn, look, choice(pod=pod_id, pick=pick + 3, index=0), "Already")
    await f.click(other, started.message, choice(pod=pod_id, pick=pick, index=0), "turn")  # forged on a message they see
    await f.click(on_turn, look, choice(pod=pod_id + 50, pick=pick, index=0), "no draft")
    await f.close()


async def test_battler_setup_and_draft_dms(fake, bot, world):
    async with forging(fake, world, bot, "battler", BattlerDriver) as (f, t):
        lobby = await t.start(cube="battler", seats=2, seed=5)
        await t.join_all(world.players[:2], lobby)
        await t.lobby(lobby, world.admin, "begin")
        await t.build_mirror()
        user = world.players[0]
        seat, other = t.seat(user), 1 - t.seat(user)
        message = await t.wait_prompt(user, "Setup")
        version = await t.version()
        button, menu = ActionButton.custom_id_for, ActionSelect.custom_id_for
        dm = {"game": t.game_id, "seat": seat, "version": version}
        combos = len(battler_ui.BASIC_COMBOS)
        await f.select(user, message, menu(**dm, what="combo"), [str(combos)], INVALID)  # was an IndexError
        await f.select(user, message, menu(**dm, what="combo"), ["99"], INVALID)
        await f.select(user, message, menu(**dm, what="tstash"), ["99"], INVALID)
        await f.select(user, message, menu(**dm, what="tpack", arg=99), ["0"], INVALID)
        await f.select(user, message, menu(**dm, what="tpack", arg=0), ["99"], INVALID)
        await f.select(user, message, menu(**dm, what="give", arg=99), ["0"], INVALID)
        await f.select(user, message, menu(**{**dm, "seat": other}, what="combo"), ["0"], "not yours")
        await f.click(user, message, button(**dm, action="basics", arg=combos), INVALID)
        for action in ("take", "swap", "page"):
            await f.click(user, message, button(**dm, action=action, arg=99), INVALID)
        await f.click(user, message, button(**{**dm, "seat": other}, action="basics", arg=0), "not yours")
        await f.click(user, message, button(**{**dm, "seat": 63}, action="basics", arg=0), "not yours")
        await f.click(user, message, button(**{**dm, "version": version + 1000}, action="basics", arg=0), INVALID)
        opened = await forged_click(fake, user, message, button(**dm, action="shift"))  # (its button is in DRAFT DMs)
        assert opened.modal is not None, opened.content
        form = battler_ui.SHIFT_FORM.custom_id_for
        await f.form(user, opened, form(game=t.game_id, seat=other, version=version), {"basics": "island"}, "not yours")
        await f.form(user, opened, form(game=t.game_id, seat=seat, version=version + 1000), {"basics": "island"},
                     INVALID)
        # The same forged menus in the DRAFT phase, where the stash and the pack are real.
        for index, player in enumerate(world.players[:2]):
            await t.choose_basics(player, index)
        pairing = t.mirror.pairings[0]
        report = await t.report(t.user(pairing.a), "won")
        await t.answer(t.user(pairing.b), report.message)
        battler_engine.report(t.mirror, pairing.a, "won")
        message = await t.wait_prompt(user, "your draft")
        dm["version"] = int(parts_of(ActionSelect, component(message, ActionSelect,
                                                                        what="tstash")["custom_id"])["version"])
        stash = len(t.mirror.players[seat].stash)
        await f.select(user, message, menu(**dm, what="tstash"), [str(stash)], INVALID)
        await f.select(user, message, menu(**dm, what="tpack", arg=stash), ["0"], INVALID)
        await f.select(user, message, menu(**dm, what="tpack", arg=0), ["5"], INVALID)
        await t.check()


async def test_turnabout_report_buttons(fake, bot, world):
    async with forging(fake, world, bot, "turnabout", TurnaboutDriver) as (f, t):
        lobby = await t.start(rounds=2)
        for index, user in enumerate(world.players[:4]):
            await t.join(user, f"Deck {index}", "dominaria")
        await t.slash(world.admin, "begin")
        await t.slash(world.admin, "pair")
        state = await t.state()
        match = state.round_matches()[0]
        a, b = state.players[match.a].user_id, state.players[match.b].user_id
        report = await t.report(a, "won", 5)
        button = claims_ui.OLD_BUTTONS["tar"].custom_id_for
        for action in ("confirm", "dispute"):
            await f.click(b, report.message, button(table=t.event_id, match=99_999, game=1, action=action), "99999")
            await f.click(b, report.message, button(table=t.event_id, match=match.number, game=0, action=action))
            await f.click(b, report.message, button(table=t.event_id, match=match.number, game=2, action=action))
        assert lobby


ALPHA = "\n".join([*(f"C,Alpha Common {i:02d}" for i in range(50)), *(f"U,Alpha Uncommon {i:02d}" for i in range(20)),
                   *(f"R,Alpha Rare {i:02d}" for i in range(10)), *(f"M,Alpha Mythic {i:02d}" for i in range(4))])


async def test_421_deck_menus(fake, bot, world):
    async with forging(fake, world, bot, "421", FourTwoOneDriver) as (f, t):
        added = await t.set_add(world.admin, name="alp", file=("alp.txt", ALPHA.encode()))
        assert "Added the set `alp`" in added.content, added.content
        await t.start(sets="alp")
        await t.join_all(world.players[:2])
        await t.slash(world.admin, "begin")
        state = await t.state()
        users = [p.user_id for p in state.players]
        for skip, user in enumerate(users):
            built = await t.deck(user, "build", as_text(legal_deck(await t.state(), skip=skip * 30)))
            assert "is built" in built.content, built.content
        winner, loser = users
        claim = await t.report(winner, "won")
        await t.answer(loser, claim.message)
        message = claim.message
        league = t.league_id
        # The loser is choosing: a deck that does not exist, one that is in play, and two at once.
        claim_id = fto_ui.ClaimDeckSelect.custom_id_for(league=league)
        await f.select(loser, message, claim_id, ["99"], "no deck #99")
        await f.select(loser, message, claim_id, ["0"])
        take_apart = fto_ui.TakeApartSelect.custom_id_for(league=league)
        await f.select(loser, message, take_apart, ["98", "99"])
        await f.select(loser, message, take_apart, ["1"], INVALID)  # one value where two belong
        await f.select(loser, message, take_apart, ["1", "1"])


async def test_vortex_picks_lands_and_looks(fake, bot, world):
    async with forging(fake, world, bot, "vortex", VortexDriver) as (f, t):
        cube = "\n".join([*(f"Gem {i:02d}" for i in range(24)), "8 Island", "8 Forest"]).encode()
        await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                         options={"name": "Vortex cube"}, attachments={"file": ("v.txt", cube)})
        lobby = await t.start(cube="Vortex cube", seed=11)
        players = world.players[:2]
        await t.join_all(players, lobby)
        await t.lobby(lobby, world.admin, "begin")
        state = await t.state()
        picker = t.user_of(state, state.draft.seat)
        offer = await t.offer()
        message = await t.wait_pick(picker, offer)
        seat = vortex_engine.seat_of(state, picker)
        pick = vortex_ui.PickButton.custom_id_for
        await f.click(picker, message, pick(game=t.game_id, seat=4, offer=offer, card=0))
        await f.click(picker, message, pick(game=t.game_id, seat=1 - seat, offer=offer, card=0))
        await f.click(picker, message, pick(game=t.game_id, seat=seat, offer=offer + 1000, card=0))
        while (await t.state()).phase == vortex_engine.OPENING:
            await t.pick_pending()
        land = vortex_ui.LandButton.custom_id_for
        user = players[0]
        seat = vortex_engine.seat_of(await t.state(), user)
        lands = await fake.wait_for(lambda: (m := t.dms_with(user, vortex_ui.LandButton)) and m[-1], what="lands DM")
        for chosen, action in ((0, "island"), (2, "island"), (6, "confirm"), (1, "confirm")):
            await f.click(user, lands, land(game=t.game_id, seat=seat, chosen=chosen, action=action), "not valid")
        await f.click(user, lands, land(game=t.game_id, seat=4, chosen=1, action="island"))
        for player in players:
            await t.choose_basics(player, ["Island", "Island", "Forest"])
        state = await t.state()
        active = t.active(state)
        seat = vortex_engine.seat_of(state, active)
        # The turn message's buttons carry the turn; the select of a hand, the seat.
        turn_message = await t.wait_channel("**Turn 1**")
        turn = vortex_ui.TurnButton.custom_id_for
        await f.click(active, turn_message, turn(game=t.game_id, turn=state.turn + 1000, action="draw"), "turn is over")
        other = next(p for p in players if p != active)
        await f.click(other, turn_message, turn(game=t.game_id, turn=state.turn, action="pass"), "turn")
        play = vortex_ui.PlaySelect.custom_id_for
        await f.select(active, turn_message, play(game=t.game_id, seat=4), ["Gem 00"], "not yours")
        await f.select(active, turn_message, play(game=t.game_id, seat=seat), ["No Such Gem"], "is not")
        looked = await t.slash(active, "shoe", action="look", count=2)
        assert looked.ephemeral, looked.content
        message = await fake.wait_for(lambda: (m := t.dms_with(active, vortex_ui.LookButton)) and m[-1], what="look DM")
        shown = parts_of(vortex_ui.LookButton, components(message, vortex_ui.LookButton, action="done")[0]["custom_id"])
        look = vortex_ui.LookButton.custom_id_for
        at = {"game": t.game_id, "seat": seat, "look": int(shown["look"])}
        await f.click(active, message, look(**at, bottom=0, action="toggle", card=2), "not valid")
        await f.click(active, message, look(**at, bottom=0b100, action="toggle", card=0), "not valid")
        await f.click(active, message, look(**at, bottom=0b100, action="done"), "2 cards")
        await f.click(active, message, look(**{**at, "look": at["look"] + 1000}, bottom=0, action="done"))
        await f.click(active, message, look(**{**at, "seat": 4}, bottom=0, action="done"))
        await fake.click(active, message, look(**at, bottom=0, action="done"))  # the look ends: the shoe is free

        # A search's DM: its page, menu and chosen names are positions in the shoe's list of names.
        searched = await t.slash(active, "shoe", action="search", count=1)
        assert searched.ephemeral, searched.content
        message = await fake.wait_for(lambda: (m := t.dms_with(active, vortex_ui.SearchButton)) and m[-1],
                                      what="search DM")
        shown = parts_of(vortex_ui.SearchButton, components(message, vortex_ui.SearchButton, action="take")[0]["custom_id"])
        at = {"game": t.game_id, "seat": seat, "search": int(shown["search"])}
        seek, find = vortex_ui.SearchButton.custom_id_for, vortex_ui.SearchSelect.custom_id_for
        await f.click(active, message, seek(**at, page=5, action="page"), "not valid")
        await f.click(active, message, seek(**{**at, "search": at["search"] + 1000}, page=0, action="take"))
        await f.click(active, message, seek(**{**at, "seat": 4}, page=0, action="take"))
        await f.select(active, message, find(**at, page=0, menu=0), ["999"], "not valid")
        await f.select(active, message, find(**at, page=0, menu=3), ["0"], "not valid")  # a menu the page lacks
        await f.select(active, message, find(**at, page=7, menu=0), ["0"], "not valid")
