"""A Rotisserie draft on the pods' use cases, against real SQLite and PostgreSQL databases: the same
lobby, picks, bot seats, pick timer and end as a booster draft; one pick at a time in snake order."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.games.draft import service as drafts
from bot.games.draft.models import DraftPick
from bot.games.draft.rotisserie_rules import seat_of_turn
from bot.kit.errors import Conflict, UserError
from bot.store.models import OutboxMessage
from bot.store.types import utcnow
from tests.common import CHANNEL, player
from tests.common import ORG as ADMIN
from tests.games.draft.test_service import in_dm, make_cube, pick_first_card

PICKS = 6


async def rotisserie(db, *, players: int, bots: int = 0, offer: int | None = 40, **options) -> drafts.PodView:
    pod = await drafts.create_rotisserie_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(60), picks=PICKS,
                                             offer=offer, seed=77, bots=bots, max_seats=players + bots, **options)
    for user in range(1, players + 1):
        pod = await drafts.join(db, pod.id, player(1000 + user))
    return pod


async def picks_of(db, pod_id: int) -> list[tuple[int, str, str]]:
    async with db.read() as session:
        rows = (await session.execute(select(DraftPick).where(DraftPick.pod_id == pod_id)
                                      .order_by(DraftPick.sequence))).scalars().all()
        return [(row.seat, row.card, row.source) for row in rows]


async def test_a_rotisserie_with_a_bot_is_picked_in_snake_order_to_the_end(db):
    pod = await rotisserie(db, players=3, bots=1)
    begun = await drafts.begin(db, pod.id, ADMIN)
    users = {seat.seat: seat.user_id for seat in begun.pod.seats}
    prompts = begun.prompts
    while prompts:
        (prompt,) = prompts  # only the seat on turn is ever asked
        assert prompt.pack_id == 0 and len(prompt.cards) == 40 - len(await picks_of(db, pod.id))
        others = [user for seat, user in users.items() if user not in (prompt.user_id,) and user > 0]
        with pytest.raises(Conflict):
            await drafts.pick(db, pod.id, in_dm(others[0]), pack_id=0, pack_pick=prompt.pack_pick, card_index=0,
                              source="button")
        result = await pick_first_card(db, prompt)
        prompts = [p for p in [result.next_for_picker, *result.others] if p is not None]
    picks = await picks_of(db, pod.id)
    assert [seat for seat, _, _ in picks] == [seat_of_turn(t, 4) for t in range(4 * PICKS)]
    bot_seat = next(seat for seat, user in users.items() if user < 0)
    assert {source for seat, _, source in picks if seat == bot_seat} == {"bot"}
    assert len({card for _, card, _ in picks}) == 4 * PICKS  # every card taken once
    assert (await drafts.get_pod(db, pod.id)).status == "complete"
    pools = await drafts.all_pools(db, pod.id)
    assert sorted(len(cards) for cards in pools.values()) == [PICKS] * 4


async def test_a_rotisserie_pick_timer_picks_for_the_seat_on_turn(db):
    pod = await rotisserie(db, players=2, pick_timer_seconds=600)
    start = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=start)
    on_turn = begun.prompts[0].user_id
    assert (await drafts.sweep_timers(db, now=start + timedelta(seconds=301))).reminders[0].user_id == on_turn
    assert (await drafts.sweep_timers(db, now=start + timedelta(seconds=601))).auto_picks != []
    picks = await picks_of(db, pod.id)
    assert picks[0][2] == "timeout" and picks[0][0] == 0
    view = await drafts.get_pod(db, pod.id)
    assert [seat.picks for seat in view.seats] == [1, 0] and view.seat_of(on_turn).picks == 1


async def test_a_rotisserie_lobby_needs_cards_for_every_pick(db):
    with pytest.raises(UserError, match="too few"):
        await rotisserie(db, players=4, offer=20)
    with pytest.raises(UserError, match="cube is too small"):
        await drafts.create_rotisserie_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(10), picks=PICKS)
    pod = await rotisserie(db, players=2, offer=None)
    begun = await drafts.begin(db, pod.id, ADMIN)
    assert len(begun.prompts[0].cards) == 60  # the whole cube face up
    assert Counter(begun.prompts[0].cards) == Counter(f"Card {i:03d}" for i in range(60))


async def test_a_rotisserie_sends_no_pack_its_turns_are_posted_in_the_channel(db):
    pod = await rotisserie(db, players=2)
    begun = await drafts.begin(db, pod.id, ADMIN)
    first = begun.prompts[0].user_id
    with pytest.raises(UserError, match="sends no packs"):
        await drafts.resend(db, pod.id, first)
    with pytest.raises(UserError, match="`/draft take`"):
        await drafts.current_prompt(db, pod.id, first)
    await drafts.replace_with_bot(db, pod.id, first, ADMIN)  # the bot takes the seat's turn at once
    await drafts.rejoin(db, pod.id, in_dm(first))
    async with db.read() as session:
        kinds = Counter((row.kind, row.channel_id, row.user_id) for row in
                        (await session.execute(select(OutboxMessage))).scalars())
    assert not [kind for kind, _, _ in kinds if kind == drafts.PACK]
    turns = [(channel, user) for kind, channel, user in kinds if kind == "draft.turn"]
    assert turns and all(channel == CHANNEL and user is None for channel, user in turns)
