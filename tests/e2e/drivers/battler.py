"""Acting as Treasure Battler players through the fake Discord, next to a local engine replay.

`Table` keeps a `mirror`: a BattlerState built from the stored seed and seating, to which the test
applies every action it makes through Discord. After each phase the stored state (read from the
bot's database) and `/battler status` must match the mirror exactly.
"""

from __future__ import annotations

from sqlalchemy import select

from bot.games.battler import rules as engine
from bot.games.battler import ui
from bot.games.battler.models import BattlerGame
from bot.kit.claims_ui import AnswerButton
from bot.kit.dispatch import Component, index, number, word
from bot.kit.text import escape
from tests.e2e.drivers.common import component, components, embed_text, forged_click, parts_of
from tests.e2e.drivers.table import TableDriver
from tests.fake_discord.models import flatten_components

# The custom_ids of DM buttons and menus in the shape they always had, posted before each action got
# a component class of its own (issue 36) and still now: the tests find and forge DM components with
# these, so every click of theirs also proves an old message's button still answers.
_DM_PARTS = (number("game"), index("seat", limit=64), index("version", limit=ui.VERSION))
ACTIONS = ("basics", "reroll", "shift", "done", "untrade", "take", "swap", "page", "back", "pass")
SELECTS = ("combo", "tstash", "tpack", "buy", "give")


class ActionButton(Component, prefix="bt", parts=(*_DM_PARTS, word("action", ACTIONS), index("arg", optional=True))):
    pass


class ActionSelect(Component, prefix="bts", parts=(*_DM_PARTS, word("what", SELECTS), index("arg", optional=True))):
    pass


__all__ = ["BattlerDriver", "Table", "component", "embed_text", "forged_click"]


class BattlerDriver(TableDriver):
    command = "battler"
    lobby_button = ui.LobbyButton
    mirror: engine.BattlerState | None = None

    @property
    def game_id(self) -> int:
        return self.table_id

    async def edit_state(self, change) -> None:
        """Apply `change` to the stored engine state and to the mirror (to reach a rare situation quickly;
        the game's version stays, so the DMs already sent stay current)."""
        async with self.db.write() as session:
            row = (await session.execute(select(BattlerGame).where(BattlerGame.id == self.game_id))).scalar_one()
            state = engine.BattlerState.from_dict(row.state)
            change(state)
            row.state = state.to_dict()
        change(self.mirror)
        assert (await self.stored())[1] == self.mirror.to_dict()

    async def version(self) -> int:
        return (await self.stored())[0].version

    async def stored(self) -> tuple[BattlerGame, dict]:
        async with self.db.read() as session:
            row = (await session.execute(select(BattlerGame).where(BattlerGame.id == self.game_id))).scalar_one()
            state = dict(row.state or {})
            state.pop("bot", None)
            return row, state

    async def build_mirror(self) -> None:
        row, state = await self.stored()
        users = [p["user_id"] for p in state["players"]]
        self.mirror = engine.new_game(
            row.cube_cards, users, seed=row.seed, settings=engine.BattlerSettings(**row.settings)
        )
        assert self.mirror.to_dict() == state

    # --- checks ----------------------------------------------------------------------------

    def user(self, seat: int) -> int:
        return self.mirror.players[seat].user_id

    def seat(self, user: int) -> int:
        return engine.seat_of(self.mirror, user)

    async def check(self) -> None:
        """Stored state == mirror, and /battler status shows exactly the mirror's public state."""
        _, state = await self.stored()
        assert state == self.mirror.to_dict()
        status = await self.fake.slash(self.world.member, "battler status", guild_id=self.world.guild,
                                       channel_id=self.world.channel)
        embed = status.message["embeds"][0]
        assert embed["description"] == ui.status_description(self.mirror)
        packyard = next(f for f in embed["fields"] if f["name"].startswith("Packyard"))
        assert packyard["name"] == f"Packyard: the used packs, face up ({len(self.mirror.packyard)})"
        assert packyard["value"] == ui.packyard_text(self.mirror)
        carousel = [f for f in embed["fields"] if f["name"].startswith("Carousel")]
        if self.mirror.carousel_cards:
            assert carousel[0]["name"] == f"Carousel ({len(self.mirror.carousel_cards)})"
            assert carousel[0]["value"] == ui.cards_text(self.mirror.carousel_cards)
        else:
            assert carousel == []

    # --- private DMs -------------------------------------------------------------------------

    def prompt_messages(self, user: int) -> list[dict]:
        return [m for m in self.fake.dms(user)
                if components(m, ActionButton, game=self.game_id) or components(m, ActionSelect, game=self.game_id)]

    async def wait_prompt(self, user: int, title: str) -> dict:
        def found():
            msgs = [m for m in self.prompt_messages(user) if title in embed_text(m)]
            return msgs[-1] if msgs else None

        return await self.fake.wait_for(found, what=f"{title!r} DM for {user}")

    async def choose_basics(self, user: int, combo: int, message: dict | None = None) -> dict:
        message = message or await self.wait_prompt(user, "Setup")
        select_id = component(message, ActionSelect, game=self.game_id, what="combo")["custom_id"]
        shown = await self.fake.select(user, message, select_id, [str(combo)])
        assert "Selected" in shown.content, shown.content
        confirm = component(shown.message, ActionButton, game=self.game_id, action="basics", arg=combo)["custom_id"]
        done = await self.fake.click(user, shown.message, confirm)
        engine.choose_basics(self.mirror, self.seat(user), list(ui.BASIC_COMBOS[combo]))
        return done.message

    async def trade(self, user: int, message: dict, stash_index: int, pack_index: int):
        stash_select = component(message, ActionSelect, game=self.game_id, what="tstash")["custom_id"]
        first = await self.fake.select(user, message, stash_select, [str(stash_index)])
        pack_select = component(first.message, ActionSelect, game=self.game_id, what="tpack")["custom_id"]
        p = self.mirror.players[self.seat(user)]
        stash_card, pack_card = p.stash[stash_index], p.pack[pack_index]
        result = await self.fake.select(user, first.message, pack_select, [str(pack_index)])
        assert f"You gave **{escape(stash_card)}** and took **{escape(pack_card)}**" in result.content, result.content
        engine.trade(self.mirror, p.seat, stash_card, pack_card)
        return result

    def _button(self, message: dict, action: str) -> dict:
        return component(message, ActionButton, game=self.game_id, action=action)

    async def reroll(self, user: int, message: dict):
        result = await self.fake.click(user, message, self._button(message, "reroll")["custom_id"])
        assert "re-rolled" in result.content, result.content
        engine.reroll(self.mirror, self.seat(user))
        return result

    async def buy(self, user: int, message: dict, basic: str):
        buy = next(c for c in flatten_components(message["components"]) if c["custom_id"].endswith(":buy"))
        result = await self.fake.select(user, message, buy["custom_id"], [basic])
        engine.buy_basic(self.mirror, self.seat(user), basic)
        return result

    async def shift(self, user: int, message: dict, basics: list[str]):
        modal = await self.fake.click(user, message, self._button(message, "shift")["custom_id"])
        assert modal.modal is not None
        result = await self.fake.submit_modal(user, modal, {"basics": " ".join(b.lower() for b in basics)})
        engine.shift_basics(self.mirror, self.seat(user), basics)
        return result

    async def done(self, user: int, message: dict):
        result = await self.fake.click(user, message, self._button(message, "done")["custom_id"])
        engine.done(self.mirror, self.seat(user))
        return result

    # --- the carousel -------------------------------------------------------------------------

    def picker(self) -> int:
        return self.user(engine.carousel_picker(self.mirror))

    async def wait_pick_prompt(self) -> dict:
        """The DM of the player whose carousel pick it is (the mirror says who and which pick)."""
        pick = self.mirror.carousel_turn + 1
        return await self.wait_prompt(self.picker(), f"carousel pick {pick}/{len(self.mirror.carousel_order)}")

    async def _card_button(self, user: int, message: dict, action: str, index: int) -> tuple[dict, str]:
        """The card's button, pressing Next until its page shows."""
        for _ in range(index // ui.CAROUSEL_PAGE + 1):
            found = [c["custom_id"] for c in components(message, ActionButton, game=self.game_id, action=action,
                                                        arg=index)]
            if found:
                return message, found[0]
            nxt = next(c for c in flatten_components(message["components"]) if c.get("label") == "Next ▶")
            message = (await self.fake.click(user, message, nxt["custom_id"])).message
        raise AssertionError(f"no {action} button for card {index}")

    async def take(self, user: int, message: dict, index: int):
        """Take carousel card `index` (pool below 15)."""
        message, button = await self._card_button(user, message, "take", index)
        card = self.mirror.carousel_cards[index]
        result = await self.fake.click(user, message, button)
        assert f"You took **{escape(card)}**" in (result.content or embed_text(result.message)), result.content
        engine.carousel_pick(self.mirror, self.seat(user), card)
        return result

    async def swap(self, user: int, message: dict, index: int, give: int):
        """A full pool takes card `index` and gives stash card `give` back."""
        message, button = await self._card_button(user, message, "swap", index)
        chosen = await self.fake.click(user, message, button)
        select = component(chosen.message, ActionSelect, game=self.game_id, what="give", arg=index)["custom_id"]
        p = self.mirror.players[self.seat(user)]
        card, given = self.mirror.carousel_cards[index], p.stash[give]
        result = await self.fake.select(user, chosen.message, select, [str(give)])
        engine.carousel_pick(self.mirror, p.seat, card, give_back=given)
        return result

    async def pass_pick(self, user: int, message: dict):
        result = await self.fake.click(user, message, self._button(message, "pass")["custom_id"])
        engine.carousel_pass(self.mirror, self.seat(user))
        return result

    # --- public -----------------------------------------------------------------------------

    async def wait_channel(self, needle: str, since: int = 0) -> dict:
        def found():
            msgs = [m for m in self.fake.messages(self.world.channel)[since:] if needle in m.get("content", "")]
            return msgs[-1] if msgs else None

        return await self.fake.wait_for(found, what=f"channel message with {needle!r}")

    def treasures_of(self, user: int) -> int:
        """The player's treasures now (what they say they have left when the test spent none)."""
        seat = next((p.seat for p in self.mirror.players if p.user_id == user), None) if self.mirror else None
        return self.mirror.players[seat].treasures if seat is not None else 0

    async def report(self, user: int, result: str, treasures_left: int | None = None):
        """`/battler report`; `treasures_left` by default the player's treasures now."""
        options = {"result": result, "treasures_left": self.treasures_of(user) if treasures_left is None else treasures_left}
        return await self.fake.slash(user, "battler report", guild_id=self.world.guild, channel_id=self.world.channel,
                                     options=options)

    async def answer(self, user: int, report_message: dict, action: str = "confirm", treasures_left: int | None = None):
        """Press Confirm or Dispute on a report; the form it opens for the reporter's opponent gets
        their treasures left (by default, their treasures now)."""
        report = component(report_message, AnswerButton, format="battler", table=self.game_id)
        number = parts_of(AnswerButton, report["custom_id"])["claim"]
        pressed = await self.fake.click(user, report_message, AnswerButton.custom_id_for(
            format="battler", table=self.game_id, claim=number, action=action))
        if pressed.modal is None:
            return pressed
        count = self.treasures_of(user) if treasures_left is None else treasures_left
        return await self.fake.submit_modal(user, pressed, {"treasures": str(count)})


Table = BattlerDriver  # the name the battler tests grew up with
