"""Acting as Turnabout players and organizers through the fake Discord (custom ids from `bot.games.turnabout.ui`).

The event's stored state (read from the bot's database) tells the test who plays whom; every action
goes through Discord: slash commands, the Confirm / Dispute buttons on report messages, and the
confirmation prompts of leave (a drop, once the event began) and end.
"""

from __future__ import annotations

from sqlalchemy import select

from bot.games.turnabout import rules as engine
from bot.games.turnabout import service as turnabout
from bot.games.turnabout import ui
from bot.games.turnabout.models import TurnaboutEvent
from bot.kit import claims
from bot.kit.claims_ui import AnswerButton
from bot.store.models import ShownMessage
from tests.e2e.drivers.common import component, eventually
from tests.e2e.drivers.table import TableDriver

__all__ = ["TurnaboutDriver"]


class TurnaboutDriver(TableDriver):
    command = "turnabout"
    lobby_button = ui.LobbyButton

    @property
    def event_id(self) -> int:
        return self.table_id

    async def state_row(self) -> TurnaboutEvent:
        """The event's stored row (status, settings, state)."""
        async with self.db.read() as session:
            return (await session.execute(select(TurnaboutEvent).where(TurnaboutEvent.id == self.event_id))).scalar_one()

    async def state(self) -> engine.TurnaboutState:
        return engine.TurnaboutState.from_dict((await self.state_row()).state)

    async def game_status(self, match: int, game: int) -> str:
        """A game's status as players read it: the engine's, or "reported" / "disputed" while its report
        waits in the kit's claim book."""
        async with self.db.read() as session:
            loaded = await turnabout.GAMES.load(session, self.event_id, lock=False)
        return turnabout.game_status(loaded, match, loaded.state.match(match).games[game - 1])

    async def waiting(self, match: int, game: int) -> turnabout.Reported | None:
        """What the waiting (or disputed) report of a game says, if one waits."""
        row = await self.state_row()
        claim = claims.Book(dict(row.bookkeeping or {})).of(f"{match}.{game}")
        return claim.result_as(turnabout.Reported) if claim is not None else None

    async def join(self, user: int, deck: str, scoring: str | None = None, decklist: bytes | None = None):
        """`/turnabout join` with a deck (again: changes it)."""
        options: dict = {"deck": deck}
        if scoring is not None:
            options["scoring"] = scoring
        return await self.fake.slash(user, "turnabout join", guild_id=self.world.guild,
                                     channel_id=self.world.channel, options=options,
                                     attachments={"decklist": ("deck.txt", decklist)} if decklist is not None else None)

    async def report(self, user: int, result: str, number: int | None = None, game: int | None = None):
        options: dict = {"result": result}
        if number is not None:
            options["number"] = number
        if game is not None:
            options["game"] = game
        sent = await self.slash(user, "report", **options)
        if sent.message is not None and sent.components and not sent.ephemeral:
            await eventually(lambda: self._kept(sent.message["id"]), what="the report's message kept with its claim")
        return sent

    async def _kept(self, message_id: str) -> bool:
        """The bot recorded `message_id` as showing a waiting report (the kit's record, `bot.kit.shown`:
        the cog records it after posting), or no report waits for its opponent: what a test compares
        before and after is then settled."""
        async with self.db.read() as session:
            recorded = (await session.execute(select(ShownMessage.message_id).where(
                ShownMessage.owner_kind == turnabout.KIND, ShownMessage.owner_id == self.event_id,
                ShownMessage.message_id == int(message_id)))).first()
        row = await self.state_row()
        waiting = [c for c in claims.Book(dict(row.bookkeeping or {})).waiting() if c.status == claims.REPORTED]
        return recorded is not None or not waiting

    def report_button(self, message: dict, action: str) -> str:
        return component(message, AnswerButton, format="turnabout", table=self.event_id, action=action)["custom_id"]

    async def answer(self, user: int, report_message: dict, action: str = "confirm"):
        """Press Confirm (or Dispute) on a report message."""
        return await self.fake.click(user, report_message, self.report_button(report_message, action))
