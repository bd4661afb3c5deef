"""Bot drafters seated from the start (`bots:N`), a bot's seat handed to a new player, and the logs
players get once the draft is complete, against real SQLite and PostgreSQL databases."""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import select

from bot.games.draft import service as drafts
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.store.models import OutboxMessage
from tests.games.draft.test_logs import viewer_problems
from tests.games.draft.test_service import ADMIN, CHANNEL, POD_ORGANIZER, in_dm, make_cube, pick_log, player

HUMANS = [1001, 1002]


async def bot_pod(db, *, bots: int = 6, seats: int = 8, packs: int = 2, pack_size: int = 5, humans=HUMANS,
                  channel: int = CHANNEL):
    pod = await drafts.create_pod(db, ADMIN, channel_id=channel, cube=make_cube(240), seed=77, max_seats=seats,
                                  packs=packs, pack_size=pack_size, bots=bots)
    for user in humans:
        pod = await drafts.join(db, pod.id, player(user))
    return pod


async def run_humans(db, pod_id: int, prompts, rng: random.Random, *, until=None) -> list[drafts.PickResult]:
    """The humans pick (random cards) until the draft is over (or `until(results)`), checking after
    every pick that no bot seat holds a pack: bots never keep a human waiting."""
    pending = {p.user_id: p for p in prompts}
    results = []
    while pending and not (until and until(results)):
        prompt = pending.pop(rng.choice(sorted(pending)))
        result = await drafts.pick(db, pod_id, in_dm(prompt.user_id), pack_id=prompt.pack_id,
                                   pack_pick=prompt.pack_pick, card_index=rng.randrange(len(prompt.cards)),
                                   source="button")
        results.append(result)
        view = await drafts.get_pod(db, pod_id)
        assert not [s for s in view.seats if s.is_bot and s.has_head], "a bot seat holds a pack"
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    return results


async def test_bots_fill_seats_from_the_start_and_never_keep_a_human_waiting(db):
    pod = await bot_pod(db)
    assert pod.is_full and [s.user_id for s in pod.seats if s.is_bot] == [-1, -2, -3, -4, -5, -6]
    assert [drafts.seat_name(s.user_id) for s in pod.seats[:2]] == ["Bot 1", "Bot 2"]
    begun = await drafts.begin(db, pod.id, ADMIN)
    assert {p.user_id for p in begun.prompts} == set(HUMANS)  # no prompt for a bot seat
    results = await run_humans(db, pod.id, begun.prompts, random.Random(3))
    assert results[-1].completed
    assert len(results) == 2 * 2 * 5  # the humans made only their own picks
    log = await pick_log(db, pod.id)
    assert len(log["picks"]) == 8 * 2 * 5
    assert {p["source"] for p in log["picks"] if p["user_id"] < 0} == {"bot"}
    async with db.read() as session:
        users = set((await session.execute(select(OutboxMessage.user_id).where(OutboxMessage.user_id.is_not(None)))).scalars())
    assert users and all(user > 0 for user in users)  # no DM was ever queued for a bot drafter


async def test_bot_counts_need_a_human(db):
    with pytest.raises(UserError, match="at least one player"):
        await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(240), max_seats=4, bots=4)
    pod = await bot_pod(db, bots=2, seats=4, humans=[1001])
    with pytest.raises(Conflict, match="full"):  # bots + humans never exceed the seats
        for user in (1002, 1003, 1004):
            await drafts.join(db, pod.id, player(user))
    pod = await bot_pod(db, bots=2, seats=3, humans=[], channel=CHANNEL + 1)
    with pytest.raises(UserError, match="besides its bots"):
        await drafts.begin(db, pod.id, ADMIN)


async def test_an_organizer_hands_a_bot_seat_to_a_new_player(db):
    pod = await bot_pod(db)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await run_humans(db, pod.id, begun.prompts, random.Random(5), until=lambda results: len(results) >= 4)
    seats = await drafts.bot_seats(db, pod.id)
    seat, bot = seats[0]
    assert bot < 0 and len(seats) == 6
    newcomer = 2001
    with pytest.raises(PermissionDenied, match="organizer"):
        await drafts.hand_seat(db, pod.id, seat, newcomer, player(1001))
    with pytest.raises(Conflict, match="already has a seat"):
        await drafts.hand_seat(db, pod.id, seat, 1002, ADMIN)
    human_seat = (await drafts.get_pod(db, pod.id)).seat_of(1001).seat
    with pytest.raises(Conflict, match="not a bot's"):
        await drafts.hand_seat(db, pod.id, human_seat, newcomer, ADMIN)
    bot_pool = [p["card"] for p in (await pick_log(db, pod.id))["picks"] if p["seat"] == seat]
    result = await drafts.hand_seat(db, pod.id, seat, newcomer, POD_ORGANIZER)
    assert (result.user_id, result.was, result.picks) == (newcomer, bot, len(bot_pool))
    assert (await drafts.pool(db, pod.id, newcomer)).cards == bot_pool  # the seat's picks are theirs
    view = await drafts.get_pod(db, pod.id)
    assert not view.seat_of(newcomer).is_bot and view.seat_of(bot) is None
    assert [s for s, _ in await drafts.bot_seats(db, pod.id)] == [s for s, _ in seats[1:]]
    # The newcomer now drafts like the others, to the end.
    prompts = [p for user in (*HUMANS, newcomer) if (p := await drafts.current_prompt(db, pod.id, user))]
    results = await run_humans(db, pod.id, prompts, random.Random(6))
    assert results[-1].completed
    assert len((await drafts.pool(db, pod.id, newcomer)).cards) == 10


async def test_logs_come_after_the_draft_for_its_players_and_organizers(db):
    pod = await bot_pod(db)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await run_humans(db, pod.id, begun.prompts, random.Random(8), until=lambda results: len(results) >= 2)
    for actor in (player(1001), ADMIN):
        with pytest.raises(Conflict, match="after the draft is complete"):
            await drafts.draft_log(db, pod.id, actor, "draftmancer")
    prompts = [p for user in HUMANS if (p := await drafts.current_prompt(db, pod.id, user))]
    await run_humans(db, pod.id, prompts, random.Random(9))
    with pytest.raises(PermissionDenied, match="players and organizers"):
        await drafts.draft_log(db, pod.id, player(3000), "summary")
    with pytest.raises(PermissionDenied, match="Only organizers"):
        await drafts.draft_log(db, pod.id, player(1001), "mtgo", seat=1)
    with pytest.raises(UserError, match="no seat"):
        await drafts.draft_log(db, pod.id, ADMIN, "mtgo")
    mine = (await drafts.get_pod(db, pod.id)).seat_of(1001).seat
    mtgo = await drafts.draft_log(db, pod.id, player(1001), "mtgo")
    assert mtgo.name == f"draft-{pod.id}-seat-{mine + 1}-mtgo.txt"
    text = mtgo.data.decode()
    assert "Bot 1" in text and "--> " in text and "1001" not in text
    other = await drafts.draft_log(db, pod.id, ADMIN, "mtgo", seat=(mine + 1) % 8 + 1)
    assert other.data != mtgo.data
    draftmancer = json.loads((await drafts.draft_log(db, pod.id, player(1002), "draftmancer")).data)
    assert draftmancer["version"] in ("2.0", "2.1") and len(draftmancer["users"]) == 8

    assert viewer_problems(draftmancer) == []
    assert all(len(user["picks"]) == 10 for user in draftmancer["users"].values())
    assert "1001" not in json.dumps(draftmancer) and "1002" not in json.dumps(draftmancer)
    summary = (await drafts.draft_log(db, pod.id, player(1002), "summary")).data.decode()
    assert "Bot 6" in summary and "1002" not in summary
