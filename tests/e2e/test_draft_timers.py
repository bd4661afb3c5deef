"""Pick timers through the real bot and its background sweep.

The shortest pick timer is one minute. Instead of waiting, a test moves the seats' `waiting_since`
clocks (in the pod's state document) back in the bot's own database (which is exactly what the passing of time looks like to the bot:
every deadline is computed from the database), and the sweep, run every 0.2 s here, acts on it.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from bot.games.draft import bots, ui
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.games.draft.service.pools import pick_hints
from bot.store.db import Database
from tests.e2e.drivers.draft import age_waits, card_of, live_pack_messages, pick_buttons

pytestmark = pytest.mark.e2e


@pytest.fixture
def bot_env() -> dict[str, str]:
    return {"SWEEP_INTERVAL": "0.2"}


async def pod_status(bot, pod_id: int) -> str:
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            return (await session.execute(select(DraftPod.status).where(DraftPod.id == pod_id))).scalar_one()
    finally:
        await db.dispose()


async def seat_rows(bot, pod_id: int) -> dict[int, DraftSeat]:
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            rows = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id))).scalars().all()
            return {row.user_id: row for row in rows}
    finally:
        await db.dispose()


def dm_texts(fake, user: int) -> list[str]:
    return [m.get("content") or "" for m in fake.dms(user)]


async def expected_auto_pick(bot, pod_id: int, user: int, cards: list[str]) -> str:
    """What the bot drafters' policy takes for `user`'s seat from `cards` with their pool (the
    timer's pick: `bots.pick_for_seat` without a bot's leaning; the policy is tested in test_bots)."""
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            pod = (await session.execute(select(DraftPod.seed, DraftPod.packs, DraftPod.pack_size)
                                         .where(DraftPod.id == pod_id))).one()
            seat = (
                await session.execute(select(DraftSeat.seat).where(DraftSeat.pod_id == pod_id, DraftSeat.user_id == user))
            ).scalar_one()
            pool = (
                await session.execute(
                    select(DraftPick.card)
                    .where(DraftPick.pod_id == pod_id, DraftPick.seat == seat)
                    .order_by(DraftPick.sequence)
                )
            ).scalars().all()
            book = await pick_hints(session, pod_id)
    finally:
        await db.dispose()
    return bots.pick_for_seat(book, cards, list(pool), draft_seed=pod.seed, seat=seat,
                              picks_per_seat=pod.packs * pod.pack_size, bot=False)


async def start_timed_pod(fake, world, players: list[int], **options) -> int:
    options = {"cube": "goldfish", "seats": len(players), "pick_timer": 1, "pick_mode": "buttons", **options}
    result = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel, options=options)
    assert "pick timer 1 min" in result.content or "pick timer" in result.content, result.content
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    for player in players:
        await fake.click(player, result.message, ui.LobbyButton.custom_id_for(table=pod_id, action="join"))
    await fake.wait_for(lambda: all(live_pack_messages(fake, p) for p in players), what="first packs")
    return pod_id


def buttons_cards(message: dict) -> list[str]:
    return [card_of(b) for b in pick_buttons(message)]


async def test_reminder_autopick_restart_and_hand_to_bot(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id = await start_timed_pod(fake, world, [p0, p1], packs=1, pack_size=8)

    # Half the minute: both are reminded, once.
    assert await age_waits(bot, pod_id, 31) == 2
    for player in (p0, p1):
        await fake.wait_for(lambda p=player: any("Half your pick time" in t for t in dm_texts(fake, p)),
                            what=f"reminder for {player}")
    # p0 picks in time; p1 does not.
    pack = live_pack_messages(fake, p0)[-1]
    await fake.click(p0, pack, pick_buttons(pack)[0]["custom_id"])

    # A kill -9 and a restart lose no timer: the deadline is in the database.
    await bot.restart()
    timeouts = 0
    while timeouts < 3:
        pack = await fake.wait_for(lambda: live_pack_messages(fake, p1), what="a pack for p1")
        assert len(pack) == 1, "only the current pack is pickable"
        shown = buttons_cards(pack[0])
        expected = await expected_auto_pick(bot, pod_id, p1, shown)
        notes_before = len(dm_texts(fake, p1))
        await age_waits(bot, pod_id, 61, users=[p1])
        note = await fake.wait_for(
            lambda b=notes_before: [t for t in dm_texts(fake, p1)[b:] if "Time ran out" in t], what="time-out note"
        )
        timeouts += 1
        assert f"I picked **{expected}** for you" in note[0]
        closed = fake.message(pack[0]["id"])  # the timed-out pack message no longer offers picks
        assert not pick_buttons(closed) and f"I picked **{expected}**" in closed["content"]
        assert ("a bot now plays your seat" in note[0]) == (timeouts == 3)
        assert sum("Half your pick time" in t for t in dm_texts(fake, p1)) == 1  # the aged wait skipped half time
        if timeouts < 3:  # p0 keeps passing packs to p1
            await fake.wait_for(lambda: live_pack_messages(fake, p0), what="a pack for p0")
            pack = live_pack_messages(fake, p0)[-1]
            await fake.click(p0, pack, pick_buttons(pack)[0]["custom_id"])

    await fake.wait_for(
        lambda: any(f"<@{p1}> timed out repeatedly" in t for t in dm_texts(fake, world.admin)),
        what="the organizer is told",
    )
    assert (await seat_rows(bot, pod_id))[p1].is_bot
    # p0 finishes alone.
    while (await pod_status(bot, pod_id)) != "complete":
        pack = await fake.wait_for(lambda: live_pack_messages(fake, p0), what="a pack for p0")
        await fake.click(p0, pack[-1], pick_buttons(pack[-1])[0]["custom_id"])
    sources = [(e.user_id, e.source) for e in await picks_of(bot, pod_id)]
    assert sources.count((p1, "timeout")) == 3 and (p1, "bot") in sources and (p1, "button") not in sources


async def picks_of(bot, pod_id: int) -> list[DraftPick]:
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            rows = await session.execute(
                select(DraftPick, DraftSeat.user_id)
                .join(DraftSeat, (DraftSeat.pod_id == DraftPick.pod_id) & (DraftSeat.seat == DraftPick.seat))
                .where(DraftPick.pod_id == pod_id)
                .order_by(DraftPick.sequence)
            )
            out = []
            for pick, user_id in rows:
                pick.user_id = user_id
                out.append(pick)
            return out
    finally:
        await db.dispose()


async def time_out(fake, bot, pod_id: int, player: int) -> str:
    """Let the player's pick time run out; returns the note they get."""
    await fake.wait_for(lambda: live_pack_messages(fake, player), what=f"a pack for {player}")
    before = len(dm_texts(fake, player))
    await age_waits(bot, pod_id, 61, users=[player])
    notes = await fake.wait_for(lambda: [t for t in dm_texts(fake, player)[before:] if "Time ran out" in t],
                                what="time-out note")
    return notes[0]


async def pick_first(fake, player: int) -> dict:
    pack = await fake.wait_for(lambda: live_pack_messages(fake, player), what=f"a pack for {player}")
    result = await fake.click(player, pack[-1], pick_buttons(pack[-1])[0]["custom_id"])
    assert "you took" in result.content or "your pool" in str(result.message.get("embeds")), result.content
    return pack[-1]


async def test_a_seat_a_bot_took_after_time_outs_is_taken_back(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id = await start_timed_pod(fake, world, [p0, p1], packs=1, pack_size=10)
    # p1 lets three picks time out in a row (p0 keeps passing packs): a bot takes the seat.
    for timeouts in range(1, 4):
        note = await time_out(fake, bot, pod_id, p1)
        if timeouts < 3:
            await pick_first(fake, p0)
    assert "a bot now plays your seat: `/draft rejoin` takes it back at once" in note and "organizer" not in note
    told = await fake.wait_for(
        lambda: [t for t in dm_texts(fake, world.admin) if f"<@{p1}> timed out repeatedly" in t], what="the organizer told"
    )
    assert "`/draft rejoin player:`" in told[0]
    await pick_first(fake, p0)  # the bot picks what reaches the seat at once
    assert (await seat_rows(bot, pod_id))[p1].is_bot

    # p1 takes the seat back: announced in the channel, pinging nobody; the clock and count restart.
    stranger = await fake.slash(world.players[2], "draft rejoin", guild_id=world.guild, channel_id=world.channel)
    assert stranger.ephemeral and "not playing" in stranger.content
    back = await fake.slash(p1, "draft rejoin", guild_id=world.guild, channel_id=world.channel)
    assert not back.ephemeral and back.content.startswith(f"🔙 <@{p1}> took their seat back in draft #{pod_id}")
    assert "the bot's 1 pick for them stays in their pool" in back.content and f"once <@{p0}> picks" in back.content
    assert fake.pinged_users(back.message) == set()
    seat = (await seat_rows(bot, pod_id))[p1]
    assert not seat.is_bot and seat.timeouts == 0
    again = await fake.slash(p1, "draft rejoin", guild_id=world.guild, channel_id=world.channel)
    assert again.ephemeral and "You already play your seat" in again.content
    # The next pack reaches p1 as a pack DM, and p1 picks it; one more time-out is only the first again.
    await pick_first(fake, p0)
    await pick_first(fake, p1)
    await pick_first(fake, p0)
    note = await time_out(fake, bot, pod_id, p1)
    assert "bot now plays" not in note
    seat = (await seat_rows(bot, pod_id))[p1]
    assert not seat.is_bot and seat.timeouts == 1

    # The organizer hands the seat to a bot, then gives it back: only an organizer may.
    await fake.slash(world.admin, "draft replace", guild_id=world.guild, channel_id=world.channel,
                     options={"player": p1})
    refused = await fake.slash(p0, "draft rejoin", guild_id=world.guild, channel_id=world.channel,
                               options={"player": p1})
    assert refused.ephemeral and "organizer" in refused.content
    given = await fake.slash(world.admin, "draft rejoin", guild_id=world.guild, channel_id=world.channel,
                             options={"player": p1})
    assert given.content.startswith(f"🔙 <@{world.admin}> gave <@{p1}> their seat back")
    assert fake.pinged_users(given.message) == {p1}  # they play again: told
    while (await pod_status(bot, pod_id)) != "complete":
        ready = await fake.wait_for(lambda: [p for p in (p0, p1) if live_pack_messages(fake, p)], what="a pack")
        await pick_first(fake, ready[0])
    sources = [e.source for e in await picks_of(bot, pod_id) if e.user_id == p1]
    assert sources.count("timeout") == 4 and "bot" in sources and "button" in sources and len(sources) == 10
