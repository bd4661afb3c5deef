"""Acting as Vortex players through the fake Discord, and checking the game after every step.

Every action goes through Discord (slash commands, lobby buttons, the pick / basic-land / look DM
buttons, confirmation prompts). The truth the checks compare with is the bot's database, read through
the engine's codec: every card is where exactly one zone holds it (`check`), the public status shows
exactly the stored counts, and no channel message ever names a card that is hidden now.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select

from bot.cards.model import is_basic_land
from bot.games.vortex import rules as engine
from bot.games.vortex import ui
from bot.games.vortex.models import VortexGame
from bot.kit.text import escape
from tests.e2e.drivers.common import components, embed_text, message_text
from tests.e2e.drivers.table import TableDriver

__all__ = ["VortexDriver"]


class VortexDriver(TableDriver):
    command = "vortex"
    lobby_button = ui.LobbyButton

    # Cards revealed to everyone (a reveal of the shoe's top): public although still in a hidden zone.
    revealed: set[str]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.revealed = set()

    @property
    def game_id(self) -> int:
        return self.table_id

    # --- the stored game ------------------------------------------------------------------------

    async def stored(self) -> tuple[VortexGame, engine.VortexState]:
        async with self.db.read() as session:
            row = (await session.execute(select(VortexGame).where(VortexGame.id == self.game_id))).scalar_one()
            return row, engine.VortexState.from_dict(row.state)

    async def state(self) -> engine.VortexState:
        return (await self.stored())[1]

    async def offer(self) -> int:
        return (await self.stored())[0].bookkeeping["offer"]

    @staticmethod
    def user_of(state: engine.VortexState, seat: int) -> int:
        return state.players[seat].user_id

    def active(self, state: engine.VortexState) -> int:
        return self.user_of(state, engine.active_seat(state))

    def player(self, state: engine.VortexState, user: int) -> engine.Player:
        return state.players[engine.seat_of(state, user)]

    # --- the checks made after every step --------------------------------------------------------

    async def check(self) -> engine.VortexState:
        """Cards conserved across the shoe, packs, passed pack and every player's zones; no pack over 7;
        `/vortex status` shows the stored counts; no hidden card in any channel message."""
        row, state = await self.stored()
        chosen = Counter(card for p in state.players for card in (p.opening_basics or []))
        assert engine.card_census(state) == Counter(engine.starting_shoe(row.cube_cards, len(state.players))) + chosen
        assert all(len(p.pack) <= engine.PACK_SIZE for p in state.players) and len(state.passed_pack) <= 7
        status = await self.slash(self.world.member, "status")
        assert status.ephemeral  # a look-up answers only the one who asked
        text = embed_text(status.message)
        assert f"Shoe\n{len(state.shoe)} card" in text and f"Passed pack\n{len(state.passed_pack)} card" in text
        for p in state.players:
            life = f"\u2212{-p.life}" if p.life < 0 else str(p.life)
            penalties = "1 penalty" if p.penalties == 1 else f"{p.penalties} penalties"
            assert (f"<@{p.user_id}> — life **{life}** · pack {len(p.pack)} · hand {len(p.hand)} · battlefield "
                    f"{len(p.battlefield)} · graveyard {len(p.graveyard)} · exile {len(p.exile)} · "
                    f"{penalties}") in text, text
        self.assert_nothing_hidden_shown(state)
        return state

    def assert_nothing_hidden_shown(self, state: engine.VortexState) -> None:
        """No channel message (content or embed) names a card of a hidden zone, raw or escaped (basic
        land names are left out: which Island is where says nothing; so are cards revealed to everyone)."""
        hidden = set(state.shoe) | set(state.passed_pack)
        for p in state.players:
            hidden |= set(p.pack) | set(p.hand)
        hidden = {card for card in hidden if not is_basic_land(card)} - self.revealed
        for message in self.fake.messages(self.world.channel):
            text = message_text(message)
            leaked = [card for card in hidden if card in text or escape(card) in text]
            assert not leaked, f"hidden cards {leaked} shown in the channel: {text[:300]}"

    # --- DMs ----------------------------------------------------------------------------------------

    def dms_with(self, user: int, component_type, **parts) -> list[dict]:
        return [m for m in self.fake.dms(user) if components(m, component_type, game=self.game_id, **parts)]

    async def wait_pick(self, user: int, offer: int) -> dict:
        """The newest DM of `user` whose buttons pick for offer `offer`."""
        def found():
            msgs = self.dms_with(user, ui.PickButton, offer=offer)
            return msgs[-1] if msgs else None

        return await self.fake.wait_for(found, what=f"pick {offer} DM for {user}")

    @staticmethod
    def preferred(pack: list[str]) -> int:
        """The players keep basic lands in their packs (so that mulligans come): the first other card."""
        return next((i for i, card in enumerate(pack) if not is_basic_land(card)), 0)

    async def pick(self, user: int, message: dict | None = None, index: int | None = None):
        """The pending picker takes a card (the preferred one) from the DM of the current offer."""
        state = await self.state()
        assert state.draft is not None and self.user_of(state, state.draft.seat) == user
        pack = self.player(state, user).pack
        offer = await self.offer()
        message = message or await self.wait_pick(user, offer)
        index = self.preferred(pack) if index is None else index
        button = components(message, ui.PickButton, game=self.game_id, offer=offer, card=index)[0]
        result = await self.fake.click(user, message, button["custom_id"])
        assert f"You took **{escape(pack[index])}**" in embed_text(result.message), result.content
        return result

    async def pick_pending(self):
        state = await self.state()
        return await self.pick(self.user_of(state, state.draft.seat))

    async def choose_basics(self, user: int, lands: list[str], *, start_over: bool = False):
        def found():
            msgs = self.dms_with(user, ui.LandButton, action="confirm")
            return msgs[-1] if msgs else None

        message = await self.fake.wait_for(found, what=f"basic-land DM for {user}")
        for land in (["Plains"] if start_over else []) + (["clear"] if start_over else []) + lands:
            button = components(message, ui.LandButton, game=self.game_id, action=land.lower())[0]
            message = (await self.fake.click(user, message, button["custom_id"])).message
        confirm = components(message, ui.LandButton, game=self.game_id, action="confirm")[0]
        result = await self.fake.click(user, message, confirm["custom_id"])
        assert f"You added {', '.join(lands)} to your hand" in embed_text(result.message)
        return result

    async def confirmed_command(self, user: int, subcommand: str, button: str | None = None, **options):
        """A command that asks first (mulligan, end, cancel): run it and press `button`."""
        prompt = await self.slash(user, subcommand, **options)
        assert prompt.ephemeral and prompt.components, prompt.content
        custom_id = next(c["custom_id"] for c in prompt.components  # `button`: a label; default the one that acts
                         if (c["custom_id"].endswith(":yes") if button is None else c.get("label") == button))
        return prompt, await self.fake.click(user, prompt.message, custom_id)
