"""Draft pod service against real SQLite and PostgreSQL databases."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest

from bot.cards.model import Card
from bot.formats.draft import pass_direction
from bot.services import drafts
from bot.services.cubes import CubeDetail
from bot.services.errors import Conflict, PermissionDenied, UserError
from bot.store.types import utcnow

GUILD, CHANNEL, ORGANIZER = 1, 10, 100


def make_cube(size: int) -> CubeDetail:
    colours = "WUBRG"
    cards = tuple(Card(name=f"Card {i:03d}", colour=colours[i % 5], rating=float(i % 7)) for i in range(size))
    return CubeDetail(name="test", size=size, source="upload", source_ref=None, cards=cards)


async def new_pod(db, *, players: int, size: int = 240, **options) -> drafts.PodView:
    options.setdefault("max_seats", 8)
    pod = await drafts.create_pod(
        db, guild_id=GUILD, channel_id=CHANNEL, organizer_id=ORGANIZER, cube=make_cube(size), seed=1234, **options
    )
    for user in range(1, players + 1):
        pod = await drafts.join(db, pod.id, 1000 + user)
    return pod


async def pick_first_card(db, prompt: drafts.PackPrompt, index: int = 0, source: str = "button"):
    return await drafts.pick(
        db, prompt.pod_id, prompt.user_id, pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
        card_index=index, source=source,
    )


async def test_lobby_rules(db):
    pod = await new_pod(db, players=2, max_seats=3)
    with pytest.raises(Conflict, match="already in"):
        await drafts.join(db, pod.id, 1001)
    pod = await drafts.join(db, pod.id, 1003)
    assert pod.is_full
    with pytest.raises(Conflict, match="full"):
        await drafts.join(db, pod.id, 1004)
    pod = await drafts.leave(db, pod.id, 1003)
    assert pod.player_ids == [1001, 1002]
    with pytest.raises(Conflict, match="not in"):
        await drafts.leave(db, pod.id, 1003)
    with pytest.raises(Conflict, match="already running"):
        await drafts.create_pod(db, guild_id=GUILD, channel_id=CHANNEL, organizer_id=5, cube=make_cube(90))


async def test_only_the_organizer_begins(db):
    pod = await new_pod(db, players=2)
    with pytest.raises(PermissionDenied):
        await drafts.begin(db, pod.id, user_id=1001, is_organizer=False)
    result = await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=False)
    assert result.pod.status == "drafting"
    with pytest.raises(Conflict, match="already started"):
        await drafts.join(db, pod.id, 1009)
    with pytest.raises(Conflict, match="already started"):
        await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)


async def test_needs_two_players_and_a_big_enough_cube(db):
    pod = await new_pod(db, players=1)
    with pytest.raises(UserError, match="at least 2 players"):
        await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)
    await drafts.cancel(db, pod.id, user_id=ORGANIZER, is_organizer=True)
    pod = await new_pod(db, players=3, size=80)  # 3 × 2 × 15 = 90 needed
    with pytest.raises(UserError, match="90"):
        await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)
    assert (await drafts.get_pod(db, pod.id)).status == "lobby"
    with pytest.raises(UserError):
        await drafts.create_pod(db, guild_id=GUILD, channel_id=11, organizer_id=5, cube=make_cube(20))


async def test_begin_deals_a_pack_to_every_seat(db):
    pod = await new_pod(db, players=4)
    result = await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)
    assert sorted(p.user_id for p in result.prompts) == [1001, 1002, 1003, 1004]
    assert all(len(p.cards) == 15 and p.pick_number == 1 and p.round == 0 for p in result.prompts)
    assert sorted(s.seat for s in result.pod.seats) == [0, 1, 2, 3]


async def test_double_pick_counts_once(db):
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)).prompts[0]
    first = await pick_first_card(db, prompt)
    with pytest.raises(Conflict, match="Already picked"):
        await pick_first_card(db, prompt, index=3)
    assert (await drafts.pool(db, pod.id, prompt.user_id)).cards == [first.card]
    assert await drafts.count_picks(db, pod.id) == 1


async def test_strangers_and_bad_indexes_change_nothing(db):
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)).prompts[0]
    with pytest.raises(PermissionDenied):
        await drafts.pick(db, pod.id, 999, pack_id=prompt.pack_id, pack_pick=0, card_index=0, source="button")
    with pytest.raises(UserError):
        await pick_first_card(db, prompt, index=15)
    other = next(s for s in (await drafts.get_pod(db, pod.id)).seats if s.user_id != prompt.user_id)
    with pytest.raises(Conflict):  # not the other seat's pack
        await drafts.pick(db, pod.id, other.user_id, pack_id=prompt.pack_id, pack_pick=0, card_index=0, source="button")
    assert await drafts.count_picks(db, pod.id) == 0


async def play_out(db, pod_id: int, first_prompts, rng: random.Random) -> list[drafts.PickResult]:
    """Pick random cards for whoever has a pack, in random order, until the draft completes."""
    pending = {p.user_id: p for p in first_prompts}
    results = []
    while pending:
        user = rng.choice(sorted(pending))
        prompt = pending.pop(user)
        result = await pick_first_card(db, prompt, index=rng.randrange(len(prompt.cards)))
        results.append(result)
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
        if result.completed:
            assert not pending
    return results


async def test_full_draft_pools_and_directions(db):
    pod = await new_pod(db, players=8)
    begun = await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)
    results = await play_out(db, pod.id, begun.prompts, random.Random(7))
    assert len(results) == 240 and results[-1].completed
    pools = await drafts.all_pools(db, pod.id)
    assert sorted(len(cards) for cards in pools.values()) == [30] * 8
    dealt = Counter(card for cards in pools.values() for card in cards)
    assert all(count == 1 for count in dealt.values()) and len(dealt) == 240
    log = await drafts.pick_log(db, pod.id)
    by_pack: dict[int, list[int]] = {}
    for entry in log["picks"]:
        by_pack.setdefault(entry["pack"], []).append(entry["seat"])
    for pack_id, seats in by_pack.items():
        direction = pass_direction(pack_id // 8)
        assert all((b - a) % 8 == direction % 8 for a, b in zip(seats, seats[1:], strict=False))
    assert (await drafts.get_pod(db, pod.id)).status == "complete"


async def test_deliveries_map_messages_and_find_gaps(db):
    pod = await new_pod(db, players=2)
    prompts = (await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)).prompts
    assert len(await drafts.undelivered_prompts(db)) == 2
    assert await drafts.undelivered_prompts(db, waiting_since_before=utcnow() - timedelta(minutes=1)) == []
    assert await drafts.record_delivery(db, prompts[0], channel_id=55, message_id=776) is None
    assert await drafts.record_delivery(db, prompts[0], channel_id=55, message_id=777) == (55, 776)
    assert [p.user_id for p in await drafts.undelivered_prompts(db)] == [prompts[1].user_id]
    ref = await drafts.delivery_for_message(db, 777)
    assert ref is not None and ref.cards == prompts[0].cards and ref.user_id == prompts[0].user_id
    await pick_first_card(db, prompts[0])
    stale = await drafts.delivery_for_message(db, 777)
    assert stale is not None and stale.cards is None


async def test_replaced_seat_picks_by_itself(db):
    pod = await new_pod(db, players=2)
    prompts = (await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True)).prompts
    with pytest.raises(PermissionDenied):
        await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, user_id=prompts[0].user_id, is_organizer=False)
    result = await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, user_id=ORGANIZER, is_organizer=False)
    assert result.bot_picks == 1
    pending = {prompts[0].user_id: prompts[0]}
    rng = random.Random(3)
    done = False
    while pending:
        prompt = pending.popitem()[1]
        outcome = await pick_first_card(db, prompt, index=rng.randrange(len(prompt.cards)))
        for nxt in [outcome.next_for_picker, *outcome.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
        done = outcome.completed
    assert done
    pools = await drafts.all_pools(db, pod.id)
    assert sorted(map(len, pools.values())) == [30, 30]


async def test_timers_remind_then_autopick_then_hand_to_bot(db):
    pod = await new_pod(db, players=2, pick_timer_seconds=600)
    start = utcnow()
    await drafts.begin(db, pod.id, user_id=ORGANIZER, is_organizer=True, now=start)
    early = await drafts.sweep_timers(db, now=start + timedelta(seconds=100))
    assert not early.reminders and not early.auto_picks
    half = await drafts.sweep_timers(db, now=start + timedelta(seconds=301))
    assert len(half.reminders) == 2
    again = await drafts.sweep_timers(db, now=start + timedelta(seconds=302))
    assert not again.reminders  # reminded once per pack
    late = await drafts.sweep_timers(db, now=start + timedelta(seconds=601))
    assert len(late.auto_picks) == 2 and not any(to_bot for _, to_bot in late.auto_picks)
    assert await drafts.count_picks(db, pod.id) == 2
    now = start + timedelta(seconds=601)
    for _ in range(2):
        now += timedelta(seconds=601)
        actions = await drafts.sweep_timers(db, now=now)
    assert any(to_bot for _, to_bot in actions.auto_picks)
    final = await drafts.get_pod(db, pod.id)
    assert final.status == "complete" and all(seat.is_bot for seat in final.seats)
