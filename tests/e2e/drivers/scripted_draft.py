"""A draft played by a script, so that two runs make exactly the same picks.

Who picks next, how (a button or a letter) and which card are decided from the draft alone: a
seeded schedule over the seats that hold a pack in the test's own engine replay (`mirror`), and a
seeded rule over the card names of that pack. Nothing depends on timing, so a run with the same seed
makes the same picks in the same order, whatever happens to the bot in between (kill -9, restarts,
disconnects); `picks` is the test's record of them.

A pick is done in steps a test can interleave with a crash: `next_pick()` decides it, `pack_message()`
waits for the DM that shows that pack, `send()` clicks or toggles without waiting for the answer,
`confirmed()` waits for it, `apply()` records it. `resolve()` finishes a pick that was in flight
when the bot died, from what the bot's database says.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from sqlalchemy import select, update

from bot.games.draft import rules as engine
from bot.games.draft import ui
from bot.games.draft.models import DraftPackMessage, DraftPick, DraftPod
from bot.games.draft.service.state import GAMES
from bot.store.db import Database
from tests.e2e.drivers.common import embed_text, eventually
from tests.e2e.drivers.draft import card_of, pack_title, pick_buttons, start_lobby, toggle_letter


@dataclass(frozen=True)
class Pick:
    step: int
    seat: int
    user: int
    pack_id: int
    pack_pick: int
    cards: tuple[str, ...]
    card: str
    how: str  # "button" or "reaction"

    @property
    def index(self) -> int:
        return self.cards.index(self.card)


class ScriptedDraft:
    def __init__(self, fake, world, bot, *, seed: int, seats: int = 8, packs: int = 2, pack_size: int = 15,
                 **lobby_options):
        self.fake, self.world, self.bot, self.seed = fake, world, bot, seed
        self.players = world.players[:seats]
        self.options = {"seats": seats, "packs": packs, "pack_size": pack_size, "pick_mode": "both", **lobby_options}
        self.schedule = random.Random(seed)
        self.db = Database(bot.database_url)
        self.pod_id = 0
        self.lobby: dict | None = None
        self.mirror: engine.DraftState | None = None
        self.user_of: dict[int, int] = {}
        self.picks: list[Pick] = []
        self._titles: dict[Pick, str] = {}  # "Pack 2, pick 1" of the message a letter was toggled on

    async def close(self) -> None:
        await self.db.dispose()

    @property
    def total(self) -> int:
        return self.options["seats"] * self.options["packs"] * self.options["pack_size"]

    @property
    def done(self) -> bool:
        return self.mirror.is_complete()

    # --- the lobby ---------------------------------------------------------------------------------

    async def open_lobby(self) -> None:
        """Open the lobby with this run's seed (the deal and the seating follow from it) and seat
        everyone but the last player, whose join begins the draft (`join_last`)."""
        self.pod_id, self.lobby = await start_lobby(self.fake, self.world, **self.options)
        async with self.db.write() as session:
            await session.execute(update(DraftPod).where(DraftPod.id == self.pod_id).values(seed=self.seed))
        for player in self.players[:-1]:
            await self._join(player)

    async def begin(self, picks: int = 0) -> None:
        """Open the lobby, fill it (the draft begins) and make the first `picks` scripted picks."""
        await self.open_lobby()
        await self.join_last()
        for _ in range(picks):
            await self.pick(self.next_pick())

    async def join_last(self) -> None:
        await self._join(self.players[-1])
        await self.resync()

    async def resync(self) -> None:
        """Take the draft as the bot's database has it (after picks the bot made by itself)."""
        async with self.db.read() as session:
            pod = await GAMES.load(session, self.pod_id, lock=False)
            self.mirror = pod.state.copy()
            self.user_of = {row.seat: row.user_id for row in pod.seats}

    async def _join(self, player: int) -> None:
        await self.fake.click(player, self.lobby, ui.LobbyButton.custom_id_for(table=self.pod_id, action="join"))

    # --- one pick ------------------------------------------------------------------------------------

    def choose(self, cards: tuple[str, ...]) -> str:
        """The card the script takes from a pack: decided by the card names and the seed alone."""
        return min(cards, key=lambda card: hashlib.sha256(f"{self.seed}|{card}".encode()).digest())

    def next_pick(self, how: str | None = None) -> Pick:
        """Decide the next pick (`how` forces button or reaction; the schedule draws the same either way)."""
        seat = self.schedule.choice(self.ready_seats())
        drawn = self.schedule.choice(("button", "reaction"))
        head = self.mirror.head(seat)
        cards = tuple(head.cards)
        return Pick(len(self.picks), seat, self.user_of[seat], head.pack_id, head.picks_made, cards,
                    self.choose(cards), how or drawn)

    def pick_for(self, seat: int, how: str) -> Pick:
        """A pick of `seat`'s current pack, outside the schedule (e.g. two players at once)."""
        head = self.mirror.head(seat)
        cards = tuple(head.cards)
        return Pick(len(self.picks), seat, self.user_of[seat], head.pack_id, head.picks_made, cards,
                    self.choose(cards), how)

    async def two_players_at_once(self) -> tuple[tuple[Pick, dict], tuple[Pick, dict]]:
        """Two players who hold a pack: the first to pick by letter, the second by button, each
        with the DM that shows their pack."""
        first, second = self.ready_seats()[:2]
        by_letter, by_button = self.pick_for(first, "reaction"), self.pick_for(second, "button")
        return (by_letter, await self.pack_message(by_letter)), (by_button, await self.pack_message(by_button))

    def ready_seats(self) -> list[int]:
        return [seat for seat in range(self.options["seats"]) if self.mirror.head(seat) is not None]

    async def apply_landed(self, *picks: Pick) -> None:
        """Record picks the bot made meanwhile (each exactly once), in the order it made them."""
        stored = {pick: await self.stored(pick) for pick in picks}
        assert all(stored.values()), [p for p, row in stored.items() if row is None]
        for pick in sorted(picks, key=lambda p: stored[p].sequence):
            assert (stored[pick].seat, stored[pick].card, stored[pick].source) == (pick.seat, pick.card, pick.how)
            self.apply(pick)

    def has_next_pack_after(self, pick: Pick) -> bool:
        """Will the picker have a pack right after this pick (their next pack DM is owed)?"""
        after = self.mirror.copy()
        after.pick(pick.seat, pick.pack_id, pick.card)
        return after.head(pick.seat) is not None

    def _showing(self, pick: Pick) -> dict | None:
        """The newest DM of the picker that offers exactly this pack."""
        for message in reversed(self.fake.dms(pick.user)):
            buttons = pick_buttons(message)
            if buttons and tuple(card_of(b) for b in buttons) == pick.cards:
                return message
        return None

    async def pack_message(self, pick: Pick) -> dict:
        """The DM that shows the pack; for a letter, once the bot has recorded that it shows it."""
        message = await self.fake.wait_for(lambda: self._showing(pick), timeout=30,
                                           what=f"the pack of step {pick.step} in {pick.user}'s DMs")
        if pick.how == "reaction":
            await eventually(lambda: self._records(message, pick), timeout=30, what="the pack message recorded")
        return message

    async def _records(self, message: dict, pick: Pick) -> bool:
        async with self.db.read() as session:
            row = (await session.execute(
                select(DraftPackMessage.pack_id, DraftPackMessage.pack_pick)
                .where(DraftPackMessage.message_id == int(message["id"]))
            )).first()
        return row is not None and tuple(row) == (pick.pack_id, pick.pack_pick)

    async def send(self, pick: Pick, message: dict):
        """Click the card's button (returns the pending answer, a task) or toggle its letter."""
        if pick.how == "button":
            button = next(b for b in pick_buttons(message) if card_of(b) == pick.card)
            return self.fake.click(pick.user, message, button["custom_id"])
        self._titles[pick] = pack_title(message)
        await toggle_letter(self.fake, pick.user, message, pick.index)
        return None

    async def confirmed(self, pick: Pick, message: dict, answer) -> None:
        if pick.how == "button":
            result = await answer
            assert "you took" in (result.content or ""), result.content
        else:
            shown = f"{self._titles[pick]}: you took"
            await self.fake.wait_for(lambda: shown in embed_text(self.fake.message(message["id"])), timeout=20,
                                     what=f"the letter pick of step {pick.step} confirmed")

    def apply(self, pick: Pick) -> None:
        self.mirror.pick(pick.seat, pick.pack_id, pick.card)
        self.picks.append(pick)

    async def pick(self, pick: Pick) -> None:
        """A whole pick, nothing in the way."""
        message = await self.pack_message(pick)
        answer = await self.send(pick, message)
        await self.confirmed(pick, message, answer)
        self.apply(pick)

    # --- after a crash -------------------------------------------------------------------------------

    async def stored(self, pick: Pick) -> DraftPick | None:
        async with self.db.read() as session:
            return (await session.execute(
                select(DraftPick).where(DraftPick.pod_id == self.pod_id, DraftPick.pack_id == pick.pack_id,
                                        DraftPick.pack_pick == pick.pack_pick)
            )).scalar_one_or_none()

    async def resolve(self, pick: Pick, *, must_have_landed: bool) -> bool:
        """A pick sent just before the bot died: made (the bot's database says so), or, if the
        click was lost with the process, clicked again as a player would. Returns whether it had
        landed."""
        stored = await self.stored(pick)
        if stored is None:
            assert not must_have_landed, f"step {pick.step}: the {pick.how} pick sent before the crash was lost"
            await self.pick(pick)
            return False
        assert (stored.seat, stored.card, stored.source) == (pick.seat, pick.card, pick.how), stored
        self.apply(pick)
        return True
