"""kill -9 at many points of one 8-player, 2 × 10 draft: the pools and the pick log come out exactly
as in an uninterrupted run with the same seed and the same picks.

Both runs are played by `ScriptedDraft` (seeded schedule, picks chosen from the card names, about
half by button and half by letter). The crashed run kills the bot while the first packs go out,
while the letters are being added, and at 11 seeded steps of the draft: a click on its way to the
bot, a letter toggled just before, the answer to a click in flight (the pick made, its answer lost),
a delivery in flight (followed by a second crash while the restarted bot catches up), and a quiet
moment. After each crash the bot starts again on the same database; a click lost with the process
is clicked again, as a player would; a pick that Discord or the database already has is never made
twice.
"""

from __future__ import annotations

import asyncio
import random
import re
from urllib.parse import quote

import pytest

from bot.games.draft import ui
from tests.e2e.conftest import fake_discord, launched_bot
from tests.e2e.drivers.common import eventually
from tests.e2e.drivers.draft import stored_picks
from tests.e2e.drivers.scripted_draft import Pick, ScriptedDraft

pytestmark = pytest.mark.e2e

SEED = 20_251_111
KILLS_DURING_PICKS = 11
# 8 players, so that the first packs go out in 8 DMs and each gets its letters while the bot dies;
# packs of 10 (not 15): 160 picks leave room for the 11 kills spread over the draft, at two thirds
# of the time 240 took.
SEATS, PACKS, PACK_SIZE = 8, 2, 10
DELIVERY = r"^/channels/\d+/messages(/\d+)?$"  # a message sent, edited or read
CALLBACK = r"^/interactions/\d+/[^/]+/callback$"


async def test_kill_9_at_many_points_of_a_draft_changes_no_pick(fake, bot, world, tmp_path):
    crashed = Crashes(fake, bot)
    async with fake_discord() as calm_fake, launched_bot(calm_fake, tmp_path / "uninterrupted") as calm_bot:
        # The two runs are independent (their own fake Discord, bot and database): played side by side.
        log, reference = await asyncio.gather(play(fake, world, bot, crashed), play(calm_fake, world, calm_bot, None))
    assert crashed.kills >= 12, crashed.kills
    assert calm_bot.starts == 1

    assert picks_of(log) == picks_of(reference)  # same seats, cards, packs, order and button/letter
    assert pools(log) == pools(reference)
    assert len({entry["card"] for entry in log["picks"]}) == len(log["picks"]) == SEATS * PACKS * PACK_SIZE
    # Picks made before the crash whose answer never came (at least the held answers and letters);
    # whether a click killed on arrival was made first depends on timing, and both are handled.
    assert crashed.landed_before_crash >= 5, (crashed.landed_before_crash, crashed.clicks_lost)


def picks_of(log: dict) -> list[dict]:
    assert log["status"] == "complete"
    return [{key: value for key, value in entry.items() if key != "at"} for entry in log["picks"]]


def pools(log: dict) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for entry in log["picks"]:
        found.setdefault(entry["user_id"], []).append(entry["card"])
    return found


async def play(fake, world, bot, crashes: Crashes | None) -> dict:
    """Play the whole draft (crashing the bot where the plan says, if `crashes`); its pick log."""
    draft = ScriptedDraft(fake, world, bot, seed=SEED, seats=SEATS, packs=PACKS, pack_size=PACK_SIZE)
    try:
        await draft.open_lobby()
        if crashes is None:
            await draft.join_last()
        else:
            await crashes.while_the_first_packs_go_out(draft)
        plan = kill_plan(draft.total)
        while not draft.done:
            kind = plan.get(len(draft.picks))
            pick = draft.next_pick(HOW.get(kind))
            if crashes is None or kind is None:
                await draft.pick(pick)
            else:
                await getattr(crashes, kind)(draft, pick)
        log = await stored_picks(bot)
        assert [(e["seat"], e["card"], e["source"]) for e in log["picks"]] == [
            (p.seat, p.card, p.how) for p in draft.picks
        ]
        for player in draft.players:  # each player's pool, by DM, exactly once
            finals = await fake.wait_for(
                lambda p=player: [m for m in fake.dms(p) if m.get("attachments") and "complete" in str(m.get("embeds"))],
                what=f"the final pool DM of {player}",
            )
            assert len(finals) == 1
            assert fake.attachment_bytes(finals[0]["attachments"][0]).decode().splitlines() == pools(log)[player]
        return log
    finally:
        await draft.close()


KINDS = ("click_in_flight", "letter_just_toggled", "answer_lost", "delivery_in_flight", "quiet_moment")
HOW = {"click_in_flight": "button", "letter_just_toggled": "reaction", "answer_lost": "button",
       "delivery_in_flight": "reaction"}


def kill_plan(total: int) -> dict[int, str]:
    """The steps (seeded) at which the bot is killed, and how; the same for both runs."""
    rng = random.Random(SEED + 1)
    steps = sorted(rng.sample(range(8, total - 8), KILLS_DURING_PICKS))
    kinds = [KINDS[i % len(KINDS)] for i in range(len(steps))]
    rng.shuffle(kinds)
    return dict(zip(steps, kinds, strict=True))


class Crashes:
    """The ways the crashed run kills the bot; each leaves the draft exactly where a player finds it."""

    def __init__(self, fake, bot):
        self.fake, self.bot = fake, bot
        self.kills = 0
        self.clicks_lost = self.landed_before_crash = 0

    async def kill(self) -> None:
        await self.bot.kill()
        self.kills += 1

    async def come_back(self) -> None:
        """Start again on the same database and let it catch up: the startup sweep re-sends what
        the dead process owed, and the reaction reconcile reads every pack message once."""
        await self.bot.start()
        await eventually(self._reconciled, timeout=30, what="the restarted bot's reaction reconcile")

    async def _reconciled(self) -> bool:
        text = self.bot.log_since_start()
        assert "reaction reconcile failed" not in text, text[-3000:]
        return "reaction reconcile:" in text

    async def held(self, method: str, path: str, action):
        """Run `action` with the next matching call held; kill the bot while it is in flight."""
        held = self.fake.hold_next(method, path)
        result = await action()
        await asyncio.wait_for(held.arrived.wait(), 30)
        await self.kill()
        held.release()
        return result

    async def resolve(self, draft: ScriptedDraft, pick: Pick, *, must_have_landed: bool) -> None:
        if await draft.resolve(pick, must_have_landed=must_have_landed):
            self.landed_before_crash += 1
        else:
            self.clicks_lost += 1

    # --- at the start --------------------------------------------------------------------------------

    async def while_the_first_packs_go_out(self, draft: ScriptedDraft) -> None:
        """The last join begins the draft; the bot dies while DMing the first packs, then again
        while adding the letters to them (at some message's 🇭)."""
        await self.held("POST", r"^/channels/\d+/messages$", draft.join_last)
        eighth = ui.regional_indicator(7)
        await self.held("PUT", rf"/reactions/({re.escape(quote(eighth))}|{eighth})/@me$", self.bot.start)
        await self.come_back()

    # --- during the draft -----------------------------------------------------------------------------

    async def click_in_flight(self, draft: ScriptedDraft, pick: Pick) -> None:
        """Killed as the click reaches it: the pick may or may not be made."""
        message = await draft.pack_message(pick)
        sent = self._interactions_sent()
        answer = asyncio.ensure_future(await draft.send(pick, message))
        await self.fake.wait_for(lambda: self._interactions_sent() > sent, what="the click sent to the bot")
        await self.kill()
        await self._forget(answer)
        await self.come_back()
        await self.resolve(draft, pick, must_have_landed=False)

    async def letter_just_toggled(self, draft: ScriptedDraft, pick: Pick) -> None:
        """Killed right after the player toggled a letter: Discord keeps the reaction, and the
        restarted bot reads it, so the pick is made (once)."""
        message = await draft.pack_message(pick)
        await draft.send(pick, message)
        await self.kill()
        await self.come_back()
        await self.resolve(draft, pick, must_have_landed=True)

    async def answer_lost(self, draft: ScriptedDraft, pick: Pick) -> None:
        """Killed while answering a click: the pick is made (before any answer), the answer is lost,
        the next pack is re-sent by the restarted bot."""
        message = await draft.pack_message(pick)

        async def click():
            return asyncio.ensure_future(await draft.send(pick, message))

        answer = await self.held("POST", CALLBACK, click)
        await self._forget(answer)
        await self.come_back()
        await self.resolve(draft, pick, must_have_landed=True)

    async def delivery_in_flight(self, draft: ScriptedDraft, pick: Pick) -> None:
        """Killed while a message goes out after a letter pick; killed again while the restarted bot
        catches up (re-sending what it owes, or reading the pack messages)."""
        message = await draft.pack_message(pick)
        await self.held("*", DELIVERY, lambda: draft.send(pick, message))
        await self.held("*", DELIVERY, lambda: self.bot.start(until_ready=False))
        await self.come_back()
        await self.resolve(draft, pick, must_have_landed=True)

    async def quiet_moment(self, draft: ScriptedDraft, pick: Pick) -> None:
        await self.kill()
        await self.come_back()
        await draft.pick(pick)

    # --- helpers ----------------------------------------------------------------------------------------

    def _interactions_sent(self) -> int:
        return sum(1 for _, direction, _, event in self.fake.gateway_log
                   if direction == "out" and event == "INTERACTION_CREATE")

    @staticmethod
    async def _forget(answer: asyncio.Future) -> None:
        """The player's client gave up on that click (Discord says "This interaction failed")."""
        answer.cancel()
        await asyncio.gather(answer, return_exceptions=True)
