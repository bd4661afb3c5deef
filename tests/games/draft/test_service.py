"""Draft pod service against real SQLite and PostgreSQL databases."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict
from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.cards.model import Card
from bot.features.cubes.service import CubeDetail
from bot.games.draft import bots
from bot.games.draft import service as drafts
from bot.games.draft.models import DraftPick, DraftSeat
from bot.games.draft.rules import pass_direction
from bot.kit import outbox
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.store.db import Database
from bot.store.models import OutboxMessage
from bot.store.types import utcnow
from tests.common import CHANNEL, GUILD, ORGANIZER, player
from tests.common import ORG as ADMIN

POD_ORGANIZER = Actor(ORGANIZER, GUILD)  # the pod's organizer, without server rights


async def pick_log(db: Database, pod_id: int) -> dict:
    """The pod's seats and every pick in order, read from the database (what the tests check)."""
    async with db.read() as session:
        seats = (await session.execute(select(DraftSeat).where(DraftSeat.pod_id == pod_id))).scalars().all()
        users = {row.seat: row.user_id for row in seats}
        picks = (await session.execute(select(DraftPick).where(DraftPick.pod_id == pod_id)
                                       .order_by(DraftPick.sequence))).scalars().all()
        return {"seats": [{"seat": row.seat, "user_id": row.user_id, "bot": row.is_bot} for row in seats],
                "picks": [{"seat": p.seat, "user_id": users.get(p.seat), "pack": p.pack_id, "card": p.card,
                           "source": p.source, "round": p.round + 1, "pick": p.pick_number} for p in picks]}


def in_dm(user_id: int) -> Actor:
    return Actor(user_id, None)


def make_cube(size: int) -> CubeDetail:
    colours = "WUBRG"
    cards = tuple(Card(name=f"Card {i:03d}", colour=colours[i % 5], rating=float(i % 7)) for i in range(size))
    return CubeDetail(name="test", size=size, source="upload", source_ref=None, cards=cards)


async def new_pod(db, *, players: int, size: int = 240, **options) -> drafts.PodView:
    options.setdefault("max_seats", 8)
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(size), seed=1234, **options)
    for user in range(1, players + 1):
        pod = await drafts.join(db, pod.id, player(1000 + user))
    return pod


async def pick_first_card(db, prompt: drafts.PackPrompt, index: int = 0, source: str = "button"):
    return await drafts.pick(
        db, prompt.pod_id, in_dm(prompt.user_id), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
        card_index=index, source=source,
    )


async def test_lobby_rules(db):
    pod = await new_pod(db, players=2, max_seats=3)
    with pytest.raises(Conflict, match="already in"):
        await drafts.join(db, pod.id, player(1001))
    pod = await drafts.join(db, pod.id, player(1003))
    assert pod.is_full
    with pytest.raises(Conflict, match="full"):
        await drafts.join(db, pod.id, player(1004))
    pod = await drafts.leave(db, pod.id, player(1003))
    assert pod.player_ids == [1001, 1002]
    with pytest.raises(Conflict, match="not in"):
        await drafts.leave(db, pod.id, player(1003))
    with pytest.raises(Conflict, match="already running"):
        await drafts.create_pod(db, Actor(5, GUILD, manage_guild=True), channel_id=CHANNEL, cube=make_cube(90))


async def test_only_the_organizer_begins(db):
    pod = await new_pod(db, players=2)
    with pytest.raises(PermissionDenied):
        await drafts.begin(db, pod.id, player(1001))
    with pytest.raises(PermissionDenied, match="another server"):
        await drafts.begin(db, pod.id, Actor(ORGANIZER, GUILD + 1, manage_guild=True))
    result = await drafts.begin(db, pod.id, POD_ORGANIZER)
    assert result.pod.status == "drafting"
    with pytest.raises(Conflict, match="already started"):
        await drafts.join(db, pod.id, player(1009))
    with pytest.raises(Conflict, match="already started"):
        await drafts.begin(db, pod.id, ADMIN)


async def test_needs_two_players_and_a_big_enough_cube(db):
    pod = await new_pod(db, players=1)
    with pytest.raises(UserError, match="at least 2 players"):
        await drafts.begin(db, pod.id, ADMIN)
    await drafts.cancel(db, pod.id, ADMIN)
    pod = await new_pod(db, players=3, size=80)  # 3 × 2 × 15 = 90 needed
    with pytest.raises(UserError, match="90"):
        await drafts.begin(db, pod.id, ADMIN)
    assert (await drafts.get_pod(db, pod.id)).status == "lobby"
    with pytest.raises(UserError):
        await drafts.create_pod(db, Actor(5, GUILD, manage_guild=True), channel_id=11, cube=make_cube(20))


async def test_begin_deals_a_pack_to_every_seat(db):
    pod = await new_pod(db, players=4)
    result = await drafts.begin(db, pod.id, ADMIN)
    assert sorted(p.user_id for p in result.prompts) == [1001, 1002, 1003, 1004]
    assert all(len(p.cards) == 15 and p.pick_number == 1 and p.round == 0 for p in result.prompts)
    assert sorted(s.seat for s in result.pod.seats) == [0, 1, 2, 3]


async def test_double_pick_counts_once(db):
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    first = await pick_first_card(db, prompt)
    with pytest.raises(Conflict, match="Already picked"):
        await pick_first_card(db, prompt, index=3)
    assert (await drafts.pool(db, pod.id, prompt.user_id)).cards == [first.card]
    assert await drafts.count_picks(db, pod.id) == 1


async def test_strangers_and_bad_indexes_change_nothing(db):
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    with pytest.raises(PermissionDenied):
        await drafts.pick(db, pod.id, in_dm(999), pack_id=prompt.pack_id, pack_pick=0, card_index=0, source="button")
    with pytest.raises(UserError):
        await pick_first_card(db, prompt, index=15)
    other = next(s for s in (await drafts.get_pod(db, pod.id)).seats if s.user_id != prompt.user_id)
    with pytest.raises(Conflict):  # not the other seat's pack
        await drafts.pick(db, pod.id, in_dm(other.user_id), pack_id=prompt.pack_id, pack_pick=0, card_index=0,
                          source="button")
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
    begun = await drafts.begin(db, pod.id, ADMIN)
    results = await play_out(db, pod.id, begun.prompts, random.Random(7))
    assert len(results) == 240 and results[-1].completed
    pools = await drafts.all_pools(db, pod.id)
    assert sorted(len(cards) for cards in pools.values()) == [30] * 8
    dealt = Counter(card for cards in pools.values() for card in cards)
    assert all(count == 1 for count in dealt.values()) and len(dealt) == 240
    log = await pick_log(db, pod.id)
    by_pack: dict[int, list[int]] = {}
    for entry in log["picks"]:
        by_pack.setdefault(entry["pack"], []).append(entry["seat"])
    for pack_id, seats in by_pack.items():
        direction = pass_direction(pack_id // 8)
        assert all((b - a) % 8 == direction % 8 for a, b in zip(seats, seats[1:], strict=False))
    assert (await drafts.get_pod(db, pod.id)).status == "complete"


async def queued_packs(db) -> list[tuple[int, str]]:
    """(user, status) of every pack DM queued in the outbox, in order."""
    from sqlalchemy import select

    from bot.store.models import OutboxMessage

    async with db.read() as session:
        rows = await session.execute(
            select(OutboxMessage.user_id, OutboxMessage.status)
            .where(OutboxMessage.kind == drafts.PACK).order_by(OutboxMessage.id)
        )
        return [tuple(row) for row in rows]


async def test_begin_queues_every_first_pack_and_deliveries_map_messages(db):
    pod = await new_pod(db, players=2)
    prompts = (await drafts.begin(db, pod.id, ADMIN)).prompts
    assert sorted(await queued_packs(db)) == sorted((p.user_id, "pending") for p in prompts)
    await drafts.record_shown(db, prompts[0], channel_id=55, message_id=776)
    await drafts.record_shown(db, prompts[0], channel_id=55, message_id=777)  # sent again: replaces the record
    assert await drafts.delivery_message(db, pod.id, prompts[0].pack_id, 0) == (55, 777)
    assert await drafts.delivery_for_message(db, 776) is None
    ref = await drafts.delivery_for_message(db, 777)
    assert ref is not None and ref.cards == prompts[0].cards and ref.user_id == prompts[0].user_id
    assert await drafts.is_shown(db, prompts[0]) and not await drafts.is_shown(db, prompts[1])
    await pick_first_card(db, prompts[0])
    stale = await drafts.delivery_for_message(db, 777)
    assert stale is not None and stale.cards is None
    assert not await drafts.still_current(db, prompts[0]) and await drafts.still_current(db, prompts[1])


async def test_replaced_seat_picks_by_itself(db):
    pod = await new_pod(db, players=2)
    prompts = (await drafts.begin(db, pod.id, ADMIN)).prompts
    with pytest.raises(PermissionDenied):
        await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, player(prompts[0].user_id))
    result = await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, POD_ORGANIZER)
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
    await drafts.begin(db, pod.id, ADMIN, now=start)
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


# --- timers, with an injected clock --------------------------------------------------------------

COLOURS = ["W", "U", "B", "R", "G", "WU", "C", ""]


def varied_cube(size: int = 120) -> CubeDetail:
    """Colours and ratings that make the auto-pick heuristic matter."""
    cards = tuple(
        Card(name=f"Card {i:03d}", colour=COLOURS[i % len(COLOURS)], rating=float((i * 7) % 11)) for i in range(size)
    )
    return CubeDetail(name="varied", size=size, source="upload", source_ref=None, cards=cards)


def policy_pick(pack: list[str], pool: list[str], cube: CubeDetail, *, draft_seed: int, seat: int, picks: int) -> str:
    """What the bot drafters' policy (`bots.pick_for_seat`, tested in test_bots.py) takes for a
    player's seat from `pack` with their `pool`: the timer's pick, without a bot's leaning."""
    book = bots.CardBook(asdict(card) for card in cube.cards)
    return bots.pick_for_seat(book, pack, pool, draft_seed=draft_seed, seat=seat, picks_per_seat=picks, bot=False)


async def timed_pod(db, *, players: int = 2, timer: int = 600, cube: CubeDetail | None = None, **options):
    cube = cube or varied_cube()
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=cube, seed=99, pick_timer_seconds=timer, **options)
    for user in range(1, players + 1):
        await drafts.join(db, pod.id, player(1000 + user))
    return pod, cube


async def test_pick_timer_limits(db):
    for seconds in (59, 7 * 24 * 3600 + 1):
        with pytest.raises(UserError, match="between 1 minute and 7 days"):
            await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(90), pick_timer_seconds=seconds)


async def test_sweep_ignores_untimed_lobby_and_cancelled_pods(db):
    start = utcnow()
    untimed = await new_pod(db, players=2)
    await drafts.begin(db, untimed.id, ADMIN, now=start)
    timed = await drafts.create_pod(db, ADMIN, channel_id=11, cube=make_cube(90), pick_timer_seconds=60)
    await drafts.join(db, timed.id, player(1001))
    await drafts.join(db, timed.id, player(1002))
    actions = await drafts.sweep_timers(db, now=start + timedelta(days=30))
    assert not actions.reminders and not actions.auto_picks  # one has no timer, the other is a lobby
    await drafts.begin(db, timed.id, ADMIN, now=start)
    await drafts.cancel(db, timed.id, ADMIN)
    actions = await drafts.sweep_timers(db, now=start + timedelta(days=30))
    assert not actions.reminders and not actions.auto_picks
    assert await drafts.count_picks(db, timed.id) == 0


async def test_timeout_auto_pick_is_the_bot_policy_for_the_players_pool(db):
    pod, cube = await timed_pod(db, packs=1, pack_size=15)
    start = utcnow()
    prompts = {p.user_id: p for p in (await drafts.begin(db, pod.id, ADMIN, now=start)).prompts}
    colour_of = {card.name: card.colour for card in cube.cards}
    # Both players pick three times by hand, preferring blue cards, so their pools have a main colour.
    clock = start
    for _ in range(3):
        for user in (1001, 1002):
            prompt = prompts[user]
            index = next((i for i, c in enumerate(prompt.cards) if "U" in (colour_of[c] or "")), 0)
            clock += timedelta(seconds=1)
            result = await drafts.pick(
                db, pod.id, in_dm(user), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick, card_index=index,
                source="button", now=clock,
            )
            for nxt in [result.next_for_picker, *result.others]:
                if nxt is not None:
                    prompts[nxt.user_id] = nxt
    heads = {user: await drafts.current_prompt(db, pod.id, user) for user in (1001, 1002)}
    pools = {user: (await drafts.pool(db, pod.id, user)).cards for user in (1001, 1002)}
    seats = {seat["user_id"]: seat["seat"] for seat in (await pick_log(db, pod.id))["seats"]}
    actions = await drafts.sweep_timers(db, now=clock + timedelta(seconds=600))
    assert len(actions.auto_picks) == 2
    for result, to_bot in actions.auto_picks:
        head = heads[result.user_id]
        assert not to_bot
        assert result.card == policy_pick(list(head.cards), pools[result.user_id], cube, draft_seed=99,
                                          seat=seats[result.user_id], picks=15)
        assert (result.pack_id, result.pack_pick) == (head.pack_id, head.pack_pick)
    log = await pick_log(db, pod.id)
    assert [p["source"] for p in log["picks"]][-2:] == ["timeout", "timeout"]


async def test_timers_count_from_the_pack_arrival_and_survive_a_restart(db):
    pod, _ = await timed_pod(db, packs=1, pack_size=10)
    start = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=start)
    fast, slow = begun.prompts[0], begun.prompts[1]
    # The fast player picks at 500 s: their queue is empty until the slow one passes a pack.
    await pick_first_card_at(db, fast, start + timedelta(seconds=500))
    # A restart: a new process, a new connection pool; all that counts is in the database.
    await db.dispose()
    restarted = Database(db.url)
    try:
        assert not (await drafts.sweep_timers(restarted, now=start + timedelta(seconds=599))).auto_picks
        late = await drafts.sweep_timers(restarted, now=start + timedelta(seconds=600))
        assert [r.user_id for r, _ in late.auto_picks] == [slow.user_id]
        # Both heads changed at 600 s (the slow seat's pack reached the fast one and vice versa):
        # the next reminders come at 900 s, the next time-outs at 1200 s.
        assert not (await drafts.sweep_timers(restarted, now=start + timedelta(seconds=899))).reminders
        reminded = await drafts.sweep_timers(restarted, now=start + timedelta(seconds=900))
        assert sorted(p.user_id for p in reminded.reminders) == sorted([fast.user_id, slow.user_id])
        assert not (await drafts.sweep_timers(restarted, now=start + timedelta(seconds=1199))).auto_picks
        both = await drafts.sweep_timers(restarted, now=start + timedelta(seconds=1200))
        assert sorted(r.user_id for r, _ in both.auto_picks) == sorted([fast.user_id, slow.user_id])
        seats = {s.user_id: s for s in (await drafts.get_pod(restarted, pod.id)).seats}
        assert seats[fast.user_id].timeouts == 1 and seats[slow.user_id].timeouts == 2
    finally:
        await restarted.dispose()


async def pick_first_card_at(db, prompt: drafts.PackPrompt, now):
    return await drafts.pick(
        db, prompt.pod_id, in_dm(prompt.user_id), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
        card_index=0, source="button", now=now,
    )


async def test_repeated_timeouts_hand_the_seat_to_a_bot(db):
    pod, _ = await timed_pod(db, players=3, packs=1, pack_size=6)
    start = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=start)
    idle = begun.prompts[0].user_id
    others = {p.user_id: p for p in begun.prompts[1:]}
    clock = start
    handed, timeouts = None, 0
    for _ in range(drafts.TIMEOUTS_BEFORE_BOT):
        # The two active players pick whatever they have at once; the idle one never does.
        while others:
            prompt = others.pop(min(others))
            result = await pick_first_card_at(db, prompt, clock)
            for nxt in [result.next_for_picker, *result.others]:
                if nxt is not None and nxt.user_id != idle:
                    others[nxt.user_id] = nxt
        clock += timedelta(seconds=600)
        actions = await drafts.sweep_timers(db, now=clock)
        mine = [(r, to_bot) for r, to_bot in actions.auto_picks if r.user_id == idle]
        assert len(mine) == 1
        timeouts += 1
        for result, _ in actions.auto_picks:
            for nxt in [result.next_for_picker, *result.others]:
                if nxt is not None and nxt.user_id != idle:
                    others[nxt.user_id] = nxt
        if mine[0][1]:
            handed = mine[0][0]
            break
        assert mine[0][0].next_for_picker is None or mine[0][0].next_for_picker.user_id == idle
    assert handed is not None and timeouts == drafts.TIMEOUTS_BEFORE_BOT
    assert handed.next_for_picker is None  # the bot picks from now on; nothing is sent to the player
    seat = next(s for s in (await drafts.get_pod(db, pod.id)).seats if s.user_id == idle)
    assert seat.is_bot and seat.timeouts == drafts.TIMEOUTS_BEFORE_BOT
    with pytest.raises(Conflict, match="A bot plays your seat now: `/draft rejoin` takes it back"):
        prompt = begun.prompts[0]
        await drafts.pick(db, pod.id, in_dm(idle), pack_id=prompt.pack_id, pack_pick=0, card_index=0, source="button")
    # Bots are never reminded or timed out; the others finish the draft.
    while others:
        prompt = others.pop(min(others))
        result = await pick_first_card_at(db, prompt, clock)
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                others[nxt.user_id] = nxt
    later = await drafts.sweep_timers(db, now=clock + timedelta(days=1))
    assert all(r.user_id != idle for r, _ in later.auto_picks) and all(p.user_id != idle for p in later.reminders)
    assert (await drafts.get_pod(db, pod.id)).status == "complete"
    assert sorted(map(len, (await drafts.all_pools(db, pod.id)).values())) == [6, 6, 6]


async def test_replacing_a_seat_names_the_pack_it_was_shown(db):
    pod = await new_pod(db, players=2)
    prompts = (await drafts.begin(db, pod.id, ADMIN)).prompts
    await drafts.record_shown(db, prompts[1], channel_id=55, message_id=900)
    result = await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, ADMIN)
    assert (result.pack_id, result.pack_pick) == (prompts[1].pack_id, prompts[1].pack_pick)
    assert await drafts.delivery_message(db, pod.id, result.pack_id, result.pack_pick) == (55, 900)
    assert await drafts.delivery_message(db, pod.id, prompts[0].pack_id, 0) is None
    with pytest.raises(Conflict, match="already plays"):
        await drafts.replace_with_bot(db, pod.id, prompts[1].user_id, ADMIN)
    with pytest.raises(NotFound):
        await drafts.replace_with_bot(db, pod.id, 4242, ADMIN)


async def test_a_reaction_that_beats_its_record_is_still_matched(db):
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    # The sender recorded the message between the reaction handler's lookup and its adoption attempt.
    await drafts.record_shown(db, prompt, channel_id=55, message_id=800)
    ref = await drafts.adopt_unrecorded_message(db, pod.id, prompt.user_id, channel_id=55, message_id=800)
    assert ref is not None and ref.cards == prompt.cards and ref.pack_id == prompt.pack_id
    # Another message for a pack that already has one is not adopted.
    assert await drafts.adopt_unrecorded_message(db, pod.id, prompt.user_id, channel_id=55, message_id=801) is None


async def test_a_pick_by_the_player_resets_the_timeout_count(db):
    """Only time-outs in a row hand a seat to a bot."""
    pod = await new_pod(db, players=2, pick_timer_seconds=600)
    start = utcnow()
    await drafts.begin(db, pod.id, ADMIN, now=start)
    now = start
    for _ in range(2):  # two time-outs for both seats
        now += timedelta(seconds=601)
        await drafts.sweep_timers(db, now=now)
    seats = (await drafts.get_pod(db, pod.id)).seats
    assert [s.timeouts for s in seats] == [2, 2]
    human = seats[0].user_id
    prompt = await drafts.current_prompt(db, pod.id, human)
    await drafts.pick(db, pod.id, in_dm(human), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick, card_index=0,
                      source="button", now=now)
    now += timedelta(seconds=601)
    await drafts.sweep_timers(db, now=now)
    seats = {s.user_id: s for s in (await drafts.get_pod(db, pod.id)).seats}
    assert not seats[human].is_bot and seats[human].timeouts <= 1
    (other,) = seats.keys() - {human}
    assert seats[other].is_bot  # three in a row


async def stored_document_and_replay(db, pod_id: int) -> tuple[dict, dict]:
    """The pod's stored engine document, and the one a replay of its pick rows gives."""
    from bot.games.draft import rules as engine
    from bot.games.draft.service import pools
    from bot.games.draft.service.state import GAMES

    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        cube = [entry["name"] for entry in await pools.cube_info(session, pod_id)]
        picks = [(p.seat, p.pack_id, p.card) for p in await pools.picks_in_order(session, pod_id)]
    config = pod.config
    replayed = engine.replay(config, engine.generate_packs(cube, config, pod.row.seed), picks)
    return pod.row.state, replayed.to_dict()


@pytest.mark.parametrize("picks", [0, 37, None])
async def test_the_stored_document_equals_a_replay_of_the_pick_rows(db, picks):
    """Every pick row is in the document and nothing else is: mid-draft (with bot seats) and at the end."""
    pod = await new_pod(db, players=3, packs=2, pack_size=10)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await drafts.replace_with_bot(db, pod.id, begun.prompts[2].user_id, ADMIN)
    pending = {p.user_id: p for p in begun.prompts[:2]}
    rng, made = random.Random(5), 0
    while pending and (picks is None or made < picks):
        prompt = pending.pop(rng.choice(sorted(pending)))
        result = await pick_first_card(db, prompt, index=rng.randrange(len(prompt.cards)))
        made += 1
        for nxt in [result.next_for_picker, *result.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    stored, replayed = await stored_document_and_replay(db, pod.id)
    assert stored == replayed


@pytest.mark.parametrize("posted", [True, False])
async def test_a_finished_draft_redraws_its_lobby_message_once(db, posted):
    """The lobby message said the draft was running: when it ends, one outbox row redraws it (none
    when no lobby message was ever recorded)."""
    pod = await new_pod(db, players=2, size=60, packs=1, pack_size=3)
    if posted:
        await drafts.set_lobby_message(db, pod.id, 555)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await play_out(db, pod.id, begun.prompts, random.Random(3))
    async with db.read() as session:
        rows = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == "draft.lobby"))).scalars().all()
    assert [(r.payload, r.channel_id) for r in rows] == ([({"table_id": pod.id}, CHANNEL)] if posted else [])


async def notice_rows(db) -> list[tuple[int, dict]]:
    async with db.read() as session:
        rows = await session.execute(select(OutboxMessage.id, OutboxMessage.user_id, OutboxMessage.payload)
                                     .where(OutboxMessage.kind == drafts.NOTICE).order_by(OutboxMessage.id))
        return [(row_id, user_id, payload) for row_id, user_id, payload in rows]


@pytest.mark.parametrize("mode", ["reactions", "buttons"])
async def test_a_pack_reaching_a_player_away_for_a_minute_queues_a_notice_replacing_the_last(db, mode):
    pod = await new_pod(db, players=2, packs=1, pack_size=5, pick_mode=mode)
    await drafts.begin(db, pod.id, ADMIN)
    a, b = 1001, 1002
    start = utcnow()

    async def picks(user: int, seconds: float) -> None:
        await pick_first_card_at(db, await drafts.current_prompt(db, pod.id, user), start + timedelta(seconds=seconds))

    await picks(a, 0)  # a now waits for b's pack
    await picks(b, 59)  # it reaches a 59 s after a's pick: a is watching, the edit is enough
    await picks(a, 60)
    await picks(b, 120)  # a minute after a's pick: a stepped away
    if mode == "buttons":  # the pack comes as a new message, which notifies by itself
        assert await notice_rows(db) == []
        return
    [(first_row, user, first)] = await notice_rows(db)
    assert user == a and first == {"pod_id": pod.id, "seat": first["seat"], "pack_id": first["pack_id"],
                                   "pack_pick": 2, "round": 0, "pick_number": 3, "pick_mode": "reactions",
                                   "previous": None}
    await picks(a, 130)
    await picks(b, 300)
    rows = await notice_rows(db)
    assert [(user, payload["pick_number"], payload["previous"]) for _row, user, payload in rows] == [
        (a, 3, None), (a, 4, first_row)]  # the second deletes the first
    assert drafts.Notice.from_payload(rows[1][2]).previous == first_row
    # The notice's message is what the next one deletes, once it was sent.
    await outbox.settle(db, [outbox.Outcome(outbox.Queued(rows[1][0], outbox.Message(drafts.NOTICE, rows[1][2]), 0,
                                                          utcnow()), channel_id=55, message_id=9001)])
    assert await drafts.notice_to_replace(db, drafts.Notice(pod.id, 0, 0, 0, 0, 5, "reactions", rows[1][0])) == (
        55, 9001)
    assert await drafts.notice_to_replace(db, drafts.Notice(pod.id, 0, 0, 0, 0, 5, "reactions", first_row)) is None


@pytest.mark.parametrize("mode", ["buttons", "both"])
async def test_a_dm_button_pick_records_the_next_pack_shown_on_its_message_in_one_transaction(db, mode, monkeypatch):
    """The pick and the record of the picker's next pack on the message picked on are one write
    transaction; that record is kept as not yet confirmed by Discord, so a restart shows it again."""
    pod = await new_pod(db, players=2, packs=1, pack_size=5, pick_mode=mode)
    await drafts.begin(db, pod.id, ADMIN)
    a, b = 1001, 1002
    before = utcnow()
    await pick_first_card(db, await drafts.current_prompt(db, pod.id, b))  # b's pack waits for a, behind a's
    prompt = await drafts.current_prompt(db, pod.id, a)
    writes = []
    transact = Database.transact

    async def counted(self, job, **kwargs):
        writes.append(job)
        return await transact(self, job, **kwargs)

    monkeypatch.setattr(Database, "transact", counted)
    result = await drafts.pick(db, pod.id, in_dm(a), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                               card_index=0, source="button", shown_on=(55, 9001))
    monkeypatch.undo()
    assert len(writes) == 1
    assert result.held_shown and result.next_for_picker is not None
    upcoming = result.next_for_picker
    assert await drafts.delivery_message(db, pod.id, upcoming.pack_id, upcoming.pack_pick) == (55, 9001)
    [again] = await outbox.shown_in_place(db, since=before, before=utcnow() + timedelta(seconds=1))
    assert (again.queued.id, again.channel_id, again.message_id) == (result.held.id, 55, 9001)
    # The sweeper never sends it as a new message: it is recorded as sent.
    assert result.held.id not in {q.id for q in await outbox.take_due(db, now=utcnow() + timedelta(hours=1))}
    # A row sent the usual way is not one to show again.
    await outbox.settle(db, [outbox.Outcome(result.held, channel_id=55, message_id=9001)])
    assert len(await outbox.shown_in_place(db, since=before, before=utcnow() + timedelta(seconds=1))) == 1


async def test_a_dm_button_pick_that_leaves_the_picker_waiting_records_nothing_shown(db):
    pod = await new_pod(db, players=2, packs=1, pack_size=5, pick_mode="buttons")
    await drafts.begin(db, pod.id, ADMIN)
    prompt = await drafts.current_prompt(db, pod.id, 1001)
    result = await drafts.pick(db, pod.id, in_dm(1001), pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                               card_index=0, source="button", shown_on=(55, 9001))
    assert result.next_for_picker is None and not result.held_shown
    assert await outbox.shown_in_place(db, since=utcnow() - timedelta(hours=1), before=utcnow()) == []


async def test_a_notice_replies_to_the_seats_pack_message_unless_sent_late_for_a_pack_gone(db):
    pod = await new_pod(db, players=2, packs=1, pack_size=5, pick_mode="reactions")
    await drafts.begin(db, pod.id, ADMIN)
    prompt = await drafts.current_prompt(db, pod.id, 1001)
    notice = drafts.Notice(pod.id, prompt.seat, prompt.pack_id, prompt.pack_pick, 0, 1, "reactions", None)
    assert await drafts.notice_target(db, notice, late=False) is None  # no pack message to reply to
    await drafts.record_shown(db, prompt, channel_id=55, message_id=9001)
    assert await drafts.notice_target(db, notice, late=True) == drafts.NoticeTarget((55, 9001), None)
    await pick_first_card(db, prompt)  # the pack moved on
    assert await drafts.notice_target(db, notice, late=True) is None
    assert await drafts.notice_target(db, notice, late=False) == drafts.NoticeTarget((55, 9001), None)


@pytest.mark.parametrize("mode", ["reactions", "buttons"])
async def test_a_pack_picked_from_elsewhere_closes_the_message_that_showed_it(db, mode):
    pod = await new_pod(db, players=2, packs=1, pack_size=5, pick_mode=mode)
    await drafts.begin(db, pod.id, ADMIN)
    prompt = await drafts.current_prompt(db, pod.id, 1001)
    closing = drafts.ClosePack(pod.id, prompt.pack_id, prompt.pack_pick, drafts.Closed.SERVER, card="Card")
    assert await drafts.closing_target(db, closing) is None  # no message showed it
    await drafts.record_shown(db, prompt, channel_id=55, message_id=9001)
    await pick_first_card(db, prompt)
    # A reaction pack message keeps its letters (its next pack comes to it); any other stops them.
    assert await drafts.closing_target(db, closing) == drafts.Closing((55, 9001), stop_letters=mode == "buttons")


async def test_the_final_pool_replaces_the_message_that_showed_the_seat_its_newest_pack(db):
    pod = await new_pod(db, players=2, packs=1, pack_size=5)
    await drafts.begin(db, pod.id, ADMIN)
    prompt = await drafts.current_prompt(db, pod.id, 1001)
    assert await drafts.final_pool_of(db, pod.id, 1001, prompt.seat) == (None, await drafts.pool(db, pod.id, 1001))
    await drafts.record_shown(db, prompt, channel_id=55, message_id=9001)
    await pick_first_card(db, prompt)
    target, pool = await drafts.final_pool_of(db, pod.id, 1001, prompt.seat)
    assert target == (55, 9001) and pool == await drafts.pool(db, pod.id, 1001) and len(pool.cards) == 1
    assert (await drafts.final_pool_of(db, pod.id, 1001, None))[0] is None


async def test_each_seats_pack_is_the_kits_shown_record_moved_in_the_picks_transaction(db):
    """Which pack a seat's DMs should show is `bot.kit.shown`'s record `pack:<seat>`: wanted in the
    transaction that moves it, its message recorded with the delivery, and what a late send asks;
    a pod begun before the records (none for the seat) is answered from its state; a cancelled pod
    has none and wants nothing."""
    from bot.games.draft.service import deliveries
    from bot.kit import shown
    from bot.store.models import ShownMessage

    pod = await new_pod(db, players=2)
    first, second = (await drafts.begin(db, pod.id, ADMIN)).prompts
    owner = drafts.state.shown_owner(pod.id)
    versions = {f"pack:{p.seat}": deliveries.pack_version(p.pack_id, p.pack_pick) for p in (first, second)}
    async with db.read() as session:
        assert await shown.wanted(session, owner) == versions
    await drafts.record_shown(db, first, channel_id=55, message_id=777)
    async with db.read() as session:
        assert await deliveries.head_shown(session, pod.id, first.seat, first.pack_id, 0) == (True, (55, 777))
    outcome = await pick_first_card(db, first)
    after = outcome.next_for_picker
    async with db.read() as session:
        wanted = await shown.wanted(session, owner)
        assert wanted[f"pack:{first.seat}"] == (deliveries.pack_version(after.pack_id, after.pack_pick)
                                                if after is not None else deliveries.NO_PACK)
        assert await deliveries.head_shown(session, pod.id, first.seat, first.pack_id, 0) == (False, None)
    assert not await drafts.still_current(db, first) and await drafts.still_current(db, second)
    # Without records (a pod begun before them): the same answers, from the pod's state.
    async with db.write() as session:
        await session.execute(ShownMessage.__table__.delete().where(ShownMessage.owner_id == pod.id))
    assert not await drafts.still_current(db, first) and await drafts.still_current(db, second)
    other = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL + 1, cube=make_cube(240), seed=1, max_seats=8)
    for user in (1001, 1002):
        other = await drafts.join(db, other.id, player(user))
    waiting = (await drafts.begin(db, other.id, ADMIN)).prompts[0]
    await drafts.cancel(db, other.id, ADMIN)
    assert not await drafts.still_current(db, waiting)
    async with db.read() as session:
        assert await shown.wanted(session, drafts.state.shown_owner(other.id)) == {}
