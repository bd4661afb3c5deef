"""Acting as 421 players and organizers through the fake Discord (custom ids from `bot.games.four_two_one.ui`).

The league's stored state (read from the bot's database) tells the test who plays whom and what the
pool holds; every action goes through Discord: slash commands (decklists attached or pasted in the
form), the Confirm / Dispute buttons on reports, the menus that ask which decks, and confirmations.
"""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import select

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import ui
from bot.games.four_two_one.models import FourTwoOneLeague
from bot.kit import claims
from bot.kit.claims_ui import AnswerButton
from tests.e2e.drivers.common import component
from tests.e2e.drivers.table import TableDriver

__all__ = ["FourTwoOneDriver", "legal_deck"]
BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")


def legal_deck(state: engine.LeagueState, *, skip: int = 0) -> dict[str, int]:
    """60 available cards: up to 4 of each non-basic (from the `skip`-th name on, so decks differ),
    then basic lands."""
    deck: Counter[str] = Counter()
    spells = sorted(n for n, c in state.pool.items() if c and n not in BASICS)
    spells = spells[skip % max(len(spells), 1):] + spells[: skip % max(len(spells), 1)]
    for name in spells[:10] + [b for b in BASICS if state.pool.get(b)] + spells[10:]:
        room = engine.DECK_SIZE - sum(deck.values())
        cap = state.pool[name] if name in BASICS else min(state.pool[name], 4)
        deck[name] += min(cap, room, 12 if name in BASICS else 4)
        if sum(deck.values()) == engine.DECK_SIZE:
            return dict(deck)
    raise AssertionError("the pool cannot make a deck")


def set_file(code: str) -> bytes:
    """A set list to upload (`/421 set add`): 30 commons, 10 uncommons, 5 rares, 2 mythics."""
    cards = ([f"C,{code} Common {i:02d}" for i in range(30)] + [f"U,{code} Uncommon {i:02d}" for i in range(10)]
             + [f"R,{code} Rare {i:02d}" for i in range(5)] + [f"M,{code} Mythic {i:02d}" for i in range(2)])
    return "\n".join(cards).encode()


def as_text(deck: dict[str, int]) -> str:
    return "\n".join(f"{count} {name}" for name, count in deck.items())


class FourTwoOneDriver(TableDriver):
    command = "421"
    lobby_button = ui.LobbyButton

    @property
    def league_id(self) -> int:
        return self.table_id

    async def row(self) -> FourTwoOneLeague:
        async with self.db.read() as session:
            query = select(FourTwoOneLeague).where(FourTwoOneLeague.id == self.league_id)
            return (await session.execute(query)).scalar_one()

    async def state(self) -> engine.LeagueState:
        return engine.LeagueState.from_dict((await self.row()).state)

    async def stored(self) -> tuple:
        """What a refused action must leave exactly as it was: the league, not which messages show
        its menus and reports (recorded once Discord has them, whenever that is)."""
        row = await self.row()
        kept = {k: v for k, v in (row.bookkeeping or {}).items() if k != "menu"}
        book = kept.get(claims.BOOK, {})
        kept[claims.BOOK] = {**book, "open": {key: {k: v for k, v in claim.items() if k != "shown"}
                                              for key, claim in book.get("open", {}).items()}}
        return row.state, kept, row.status, row.version

    async def settled(self, result):
        """A deferred answer once it is final (not "thinking", not an import's progress), or its error."""
        def done():
            text = result.content
            return result if result.followups or (text and not text.startswith("⏳")) else None

        return await self.fake.wait_for(done, what="the deferred answer")

    async def start(self, user: int | None = None, **options) -> dict:
        """`/421 start`, waiting for the lobby when sets are imported first."""
        result = await self.settled(await self.slash(user or self.world.admin, "start", **options))
        assert result.message is not None and not result.ephemeral, result.content
        self.table_id = int(re.search(r"#(\d+)", result.content).group(1))
        self.lobby_message = result.message
        return result.message

    async def set_add(self, user: int, *, name: str | None = None, file: tuple[str, bytes] | None = None,
                      code: str | None = None, title: str | None = None):
        options = {k: v for k, v in (("name", name), ("code", code), ("title", title)) if v is not None}
        result = await self.fake.slash(user, "421 set add", guild_id=self.world.guild, channel_id=self.world.channel,
                                       options=options, attachments={"file": file} if file else None)
        return await self.settled(result)

    async def deck(self, user: int, kind: str, text: str, *, form: bool = False):
        """`/421 build` or `/421 alter` with the list attached, or pasted in the form."""
        if not form:
            return await self.fake.slash(user, f"421 {kind}", guild_id=self.world.guild, channel_id=self.world.channel,
                                         attachments={"decklist": ("deck.txt", text.encode())})
        shown = await self.slash(user, kind)
        assert shown.modal is not None, shown.content
        return await self.fake.submit_modal(user, shown, {"list": text})

    async def report(self, user: int, result: str):
        return await self.slash(user, "report", result=result)

    def claim_button(self, message: dict, action: str) -> str:
        return component(message, AnswerButton, format="421", table=self.league_id, action=action)["custom_id"]

    async def answer(self, user: int, claim_message: dict, action: str = "confirm"):
        return await self.fake.click(user, claim_message, self.claim_button(claim_message, action))

    async def choose(self, user: int, option: str, deck: int | None = None):
        options: dict = {"option": option}
        if deck is not None:
            options["deck"] = deck
        return await self.slash(user, "choose", **options)

    async def take_apart(self, user: int, message: dict, decks: list[int]):
        """Choose two decks in a take-apart menu (the announcement's, or `/421 takeapart`'s)."""
        custom_id = component(message, ui.TakeApartSelect, league=self.league_id)["custom_id"]
        return await self.fake.select(user, message, custom_id, [str(d) for d in decks])
