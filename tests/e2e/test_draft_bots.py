"""Bot drafters through the real bot and the fake Discord: a draft of 2 humans and 6 bots seated from
the start (`/draft start bots:6`) runs to completion without a human ever waiting on a bot; an
organizer hands a bot's seat to a new player (`/draft seat`); the players download the draft's logs
once it is complete (`/draft log`), and nobody gets them before. (A seat a bot took after time-outs
taken back with `/draft rejoin`: tests/e2e/test_draft_timers.py.)"""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from bot.games.draft.models import DraftPod, DraftSeat
from bot.games.draft.rules import DraftConfig, DraftState
from bot.store.db import Database
from bot.store.models import OutboxMessage
from tests.e2e.drivers.common import embed_text
from tests.e2e.drivers.draft import (
    download_log,
    join_all,
    live_pack_messages,
    pick_buttons,
    start_lobby,
    stored_picks,
)
from tests.games.draft.test_logs import read_mtgo, viewer_problems

pytestmark = pytest.mark.e2e

PACKS, PACK_SIZE = 2, 6


async def heads(bot, pod_id: int) -> tuple[str, dict[int, bool], set[int]]:
    """The pod's status, whether each human seat (by user id) holds a pack now, and the bot seats
    that hold one, from the bot's own database."""
    db = Database(bot.database_url)
    try:
        async with db.read() as session:
            pod = (await session.execute(select(DraftPod).where(DraftPod.id == pod_id))).scalar_one()
            seats = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id))).scalars().all()
            outbox_users = set((await session.execute(select(OutboxMessage.user_id))).scalars())
    finally:
        await db.dispose()
    assert not [user for user in outbox_users if user is not None and user < 0], "a DM was queued for a bot"
    state = DraftState.from_dict(pod.state, DraftConfig(len(seats), pod.packs, pod.pack_size))
    humans = {row.user_id: state.head(row.seat) is not None for row in seats if not row.is_bot}
    bots = {row.seat for row in seats if row.is_bot and state.head(row.seat) is not None}
    return pod.status, humans, bots


async def pick(fake, player: int) -> None:
    pack = live_pack_messages(fake, player)[-1]
    result = await fake.click(player, pack, pick_buttons(pack)[0]["custom_id"])
    assert "you took" in result.content or "your pool" in str(result.message.get("embeds")), result.content


async def draft_on(fake, bot, pod_id: int, humans: list[int], *, picks: int | None = None) -> int:
    """The humans pick (the first card) until the draft is complete (or `picks` picks are made).
    After every pick no bot seat holds a pack, and a human holds one unless the draft is over: the
    bots picked in the same transaction, so a human's next pack is in their DMs at once."""
    made = 0
    while picks is None or made < picks:
        status, holding, bots_holding = await heads(bot, pod_id)
        assert not bots_holding, f"bot seats {bots_holding} hold a pack"
        if status == "complete":
            return made
        ready = [user for user, held in holding.items() if held]
        assert ready, "every human waits: on a bot"
        await fake.wait_for(lambda r=ready: all(live_pack_messages(fake, u) for u in r), what=f"packs for {ready}")
        await pick(fake, ready[made % len(ready)])
        made += 1
    return made


async def test_two_humans_and_six_bots_draft_to_the_end_and_take_their_logs(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id, lobby = await start_lobby(fake, world, seats=8, bots=6, packs=PACKS, pack_size=PACK_SIZE,
                                      pick_mode="buttons")
    shown = embed_text(fake.message(lobby["id"]))
    assert "Players (6/8)" in shown and all(f"Bot {n}" in shown for n in range(1, 7))
    refused = await fake.slash(world.admin, "draft start", guild_id=world.guild, channel_id=world.channel + 1,
                               options={"cube": "goldfish", "seats": 4, "bots": 4})
    assert refused.ephemeral and "at least one player" in refused.content

    await join_all(fake, lobby, pod_id, [p0])
    assert "In progress" not in embed_text(fake.message(lobby["id"]))
    await join_all(fake, lobby, pod_id, [p1])  # the humans fill the rest: it begins
    await fake.wait_for(lambda: "In progress" in embed_text(fake.message(lobby["id"])), what="the draft begins")
    seating = embed_text(fake.message(lobby["id"]))
    assert all(f"Bot {n}" in seating for n in range(1, 7)) and "(bot)" not in seating

    await draft_on(fake, bot, pod_id, [p0, p1], picks=3)
    status = await fake.slash(p0, "draft status", guild_id=world.guild, channel_id=world.channel)
    waiting_on = status.content.split("Waiting on", 1)[1]
    assert "Bot" not in waiting_on and "Bot 3" in status.content
    for user, fmt in ((p0, "mtgo"), (p1, "draftmancer"), (world.admin, "summary")):  # not during the draft
        early = await download_log(fake, world, user, fmt)
        assert isinstance(early, str) and "after the draft is complete" in early

    await draft_on(fake, bot, pod_id, [p0, p1])
    log = await stored_picks(bot, pod_id)
    assert log["status"] == "complete" and len(log["picks"]) == 8 * PACKS * PACK_SIZE
    assert {p["source"] for p in log["picks"] if p["user_id"] < 0} == {"bot"}
    assert {p["source"] for p in log["picks"] if p["user_id"] > 0} == {"button"}
    summary = await fake.wait_for(
        lambda: next((m for m in fake.messages(world.channel) if f"Draft #{pod_id} is complete" in m.get("content", "")),
                     None), what="the summary")
    assert "Bot 6:" in summary["content"] and fake.pinged_users(summary) == {p0, p1}

    # Any player of the draft takes its logs, which the formats' readers read.
    name, data = await download_log(fake, world, p1, "draftmancer")
    draftmancer = json.loads(data)
    assert name == f"draft-{pod_id}-draftmancer.json" and viewer_problems(draftmancer) == []
    assert len(draftmancer["users"]) == 8 and sum(u["isBot"] for u in draftmancer["users"].values()) == 6
    assert str(p0) not in data.decode() and str(p1) not in data.decode()  # names, never ids
    name, data = await download_log(fake, world, p0, "mtgo")
    mtgo = read_mtgo(data.decode())
    mine = next(s["seat"] for s in log["seats"] if s["user_id"] == p0)
    assert name == f"draft-{pod_id}-seat-{mine + 1}-mtgo.txt"
    assert len(mtgo["players"]) == 8 and mtgo["pack_headers"] == PACKS and len(mtgo["picks"]) == PACKS * PACK_SIZE
    # Listed as MTGO lays picks out: by round, pick N of a pack of S cards showing S - N + 1 cards.
    assert [(n, m, len(shown)) for n, m, shown, _ in mtgo["picks"]] == [
        (r + 1, m, PACK_SIZE - m + 1) for r in range(PACKS) for m in range(1, PACK_SIZE + 1)]
    taken = [(n, shown[index]) for n, _, shown, index in mtgo["picks"]]
    assert sorted(taken) == sorted((p["round"], p["card"]) for p in log["picks"] if p["user_id"] == p0)
    name, data = await download_log(fake, world, p1, "summary")
    assert name.endswith("summary.txt") and "Bot 1" in data.decode()
    other = await download_log(fake, world, p0, "mtgo", seat=(mine + 1) % 8 + 1)
    assert isinstance(other, str) and "Only organizers" in other
    name, _ = await download_log(fake, world, world.admin, "mtgo", seat=(mine + 1) % 8 + 1)
    assert name == f"draft-{pod_id}-seat-{(mine + 1) % 8 + 1}-mtgo.txt"
    stranger = await download_log(fake, world, world.players[5], "summary")
    assert isinstance(stranger, str) and "players and organizers" in stranger


async def test_an_organizer_hands_bot_seats_to_new_players(fake, bot, world):
    p0, p1, newcomer, late = world.players[:4]
    pod_id, lobby = await start_lobby(fake, world, seats=4, bots=2, packs=1, pack_size=8)  # picks by reaction and button
    await join_all(fake, lobby, pod_id, [p0, p1])
    await draft_on(fake, bot, pod_id, [p0, p1], picks=2)

    # A player's seat goes to a bot (as after time-outs), then to a new player, with its picks.
    await fake.slash(world.admin, "draft replace", guild_id=world.guild, channel_id=world.channel, options={"player": p1})
    choices = await fake.autocomplete(world.admin, "draft seat", focused="seat", options={"seat": ""},
                                      guild_id=world.guild, channel_id=world.channel)
    assert len(choices) == 3 and sum("Bot" in c["name"] for c in choices) == 2
    p1_seat = next(c["value"] for c in choices if "Bot" not in c["name"])
    refused = await fake.slash(p0, "draft seat", guild_id=world.guild, channel_id=world.channel,
                               options={"seat": p1_seat, "player": newcomer})
    assert refused.ephemeral and "organizer" in refused.content and not refused.components
    taken = await fake.slash(world.admin, "draft seat", guild_id=world.guild, channel_id=world.channel,
                             options={"seat": p1_seat, "player": p0})
    assert taken.ephemeral and "already has a seat" in taken.content and not taken.components
    prompt = await fake.slash(world.admin, "draft seat", guild_id=world.guild, channel_id=world.channel,
                              options={"seat": p1_seat, "player": newcomer})
    assert prompt.ephemeral and [c.get("label") for c in prompt.components] == ["Hand the seat over", "Keep the bot"]
    confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
    pool_before = [p["card"] for p in (await stored_picks(bot, pod_id))["picks"] if p["seat"] == p1_seat - 1]
    await fake.click(world.admin, prompt.message, confirm)
    told = await fake.wait_for(lambda: [m for m in fake.messages(world.channel)
                                        if m.get("content", "").startswith(f"🪑 <@{newcomer}> takes seat {p1_seat}")],
                               what="the hand-over announced")
    assert fake.pinged_users(told[0]) == {newcomer} and "replaced" in told[0]["content"]
    pool = await fake.slash(newcomer, "draft pool", guild_id=world.guild, channel_id=world.channel)
    assert pool.ephemeral and f"({len(pool_before)} cards)" in pool.content

    # A bot's seat from the start goes to another new player; then all draft to the end.
    bot_seat = next(c["value"] for c in choices if "Bot 1" in c["name"])
    prompt = await fake.slash(world.admin, "draft seat", guild_id=world.guild, channel_id=world.channel,
                              options={"seat": bot_seat, "player": late})
    await fake.click(world.admin, prompt.message, next(c["custom_id"] for c in prompt.components
                                                       if c.get("label") == "Hand the seat over"))
    await fake.wait_for(lambda: any("from Bot 1" in m.get("content", "") for m in fake.messages(world.channel)),
                        what="the second hand-over announced")
    await draft_on(fake, bot, pod_id, [p0, newcomer, late])
    log = await stored_picks(bot, pod_id)
    by_user = {s["user_id"]: s["seat"] for s in log["seats"]}
    assert by_user[newcomer] == p1_seat - 1 and by_user[late] == bot_seat - 1 and p1 not in by_user
    sources = [p["source"] for p in log["picks"] if p["seat"] == p1_seat - 1]
    assert sources[:1] == ["button"] and "bot" in sources and sources[-1] == "button" and len(sources) == 8
    assert fake.dms(newcomer) and not [m for m in fake.dms(p1) if re.search(r"Pack 1, pick [4-8]\b", embed_text(m))]
