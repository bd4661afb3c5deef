"""Picks committed together by the writer (`Database.transact`), on SQLite and PostgreSQL: many
picks at once in one pod and across pods, the same pick twice in one group, failing picks among
good ones, and nothing answered before the commit that holds the pick."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import select

from bot.games.draft import service as drafts
from bot.kit import outbox
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.store.db import Database
from bot.store.models import OutboxMessage
from tests.games.draft.test_service import (
    ADMIN,
    in_dm,
    make_cube,
    new_pod,
    pick_first_card,
    player,
    stored_document_and_replay,
)


async def begun_pod(db, players: int, **options) -> list[drafts.PackPrompt]:
    pod = await new_pod(db, players=players, **options)
    return (await drafts.begin(db, pod.id, ADMIN)).prompts


async def test_every_seat_of_a_pod_picks_at_once(db):
    prompts = await begun_pod(db, players=8)
    before = db.writer_stats()
    results = await asyncio.gather(*(pick_first_card(db, p) for p in prompts))
    assert db.writer_stats().batches - before.batches < len(prompts)  # they were committed together
    assert sorted(r.user_id for r in results) == sorted(p.user_id for p in prompts)
    for prompt, result in zip(prompts, results, strict=True):
        assert (await drafts.pool(db, prompt.pod_id, prompt.user_id)).cards == [result.card]
    assert await drafts.count_picks(db, prompts[0].pod_id) == 8
    stored, replayed = await stored_document_and_replay(db, prompts[0].pod_id)
    assert stored == replayed


async def test_the_same_pick_twice_in_one_group_counts_once(db):
    prompt = (await begun_pod(db, players=2))[0]
    results = await asyncio.gather(pick_first_card(db, prompt, 0), pick_first_card(db, prompt, 3),
                                   return_exceptions=True)
    picked = [r for r in results if isinstance(r, drafts.PickResult)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(picked) == 1 and len(refused) == 1
    assert isinstance(refused[0], Conflict) and "Already picked" in str(refused[0])
    assert (await drafts.pool(db, prompt.pod_id, prompt.user_id)).cards == [picked[0].card]
    assert await drafts.count_picks(db, prompt.pod_id) == 1


async def test_failing_picks_in_a_group_leave_the_good_ones(db):
    prompts = await begun_pod(db, players=4)
    good = [pick_first_card(db, p) for p in prompts[:3]]
    stale = prompts[3]
    bad = [
        drafts.pick(db, stale.pod_id, in_dm(999), pack_id=stale.pack_id, pack_pick=0, card_index=0, source="button"),
        pick_first_card(db, stale, index=99),  # no such card
        drafts.pick(db, stale.pod_id, in_dm(stale.user_id), pack_id=stale.pack_id, pack_pick=5, card_index=0,
                    source="button"),  # a pack state that is not the current one
    ]
    results = await asyncio.gather(*good, *bad, return_exceptions=True)
    assert all(isinstance(r, drafts.PickResult) for r in results[:3])
    assert [type(r) for r in results[3:]] == [PermissionDenied, UserError, Conflict]
    assert await drafts.count_picks(db, stale.pod_id) == 3
    assert await pick_first_card(db, stale)  # the refused seat picks normally afterwards


async def test_pods_drafted_side_by_side_to_the_end(db):
    """Six pods, every player with a pack picking at once, round after round, until every draft is
    over: each pod ends complete with every card picked once, its document equal to a replay."""
    pods = []
    for index in range(6):
        pod = await drafts.create_pod(db, ADMIN, channel_id=500 + index, cube=_cube(), seed=index, max_seats=4,
                                      packs=2, pack_size=6)
        for user in range(4):
            pod = await drafts.join(db, pod.id, player(2000 + 10 * index + user))
        pods.append((await drafts.begin(db, pod.id, ADMIN)).prompts)
    pending = {(p.pod_id, p.user_id): p for prompts in pods for p in prompts}
    rng = random.Random(3)
    before = db.writer_stats()
    while pending:
        wave = list(pending.values())
        pending.clear()
        results = await asyncio.gather(*(pick_first_card(db, p, rng.randrange(len(p.cards))) for p in wave))
        for result in results:
            for nxt in [result.next_for_picker, *result.others]:
                if nxt is not None:
                    pending[(nxt.pod_id, nxt.user_id)] = nxt
    ran = db.writer_stats()
    assert ran.jobs - before.jobs == 6 * 4 * 2 * 6 and ran.batches - before.batches < ran.jobs - before.jobs
    for prompts in pods:
        pod_id = prompts[0].pod_id
        assert (await drafts.get_pod(db, pod_id)).status == "complete"
        assert await drafts.count_picks(db, pod_id) == 4 * 2 * 6
        stored, replayed = await stored_document_and_replay(db, pod_id)
        assert stored == replayed


async def test_a_pick_is_committed_before_its_answer_and_its_messages(db):
    """When the pick returns, and when the outbox is told to send what it queued, another
    connection already sees the pick and the queued rows."""
    prompts = await begun_pod(db, players=2)
    told: asyncio.Future = asyncio.get_running_loop().create_future()

    def send_now(queued: list) -> None:  # the outbox's listener: it sends these to Discord at once
        if not told.done():
            told.set_result(queued)

    db.listen(outbox.TOPIC, send_now)
    await pick_first_card(db, prompts[0])
    await pick_first_card(db, prompts[1])  # passes its pack to the first player, who waits: a DM is queued
    ids = {queued.id for queued in await asyncio.wait_for(told, 10)}
    reader = Database(db.url)
    try:
        assert await drafts.count_picks(reader, prompts[0].pod_id) == 2
        async with reader.read() as session:
            stored = (await session.execute(select(OutboxMessage.id).where(OutboxMessage.id.in_(ids)))).scalars()
            assert set(stored) == ids
    finally:
        await reader.dispose()


def _cube():
    return make_cube(120)


@pytest.mark.parametrize("mode", ["button", "reaction"])
async def test_picks_by_button_and_by_reaction_in_one_group(db, mode):
    """A reaction toggle and button picks of other seats, all at once, all land."""
    from bot.games.draft.service import reactions

    prompts = await begun_pod(db, players=3, pick_mode="both")
    target = prompts[0]
    await drafts.record_shown(db, target, channel_id=77, message_id=7_000)
    toggle = (reactions.toggle(db, 7_000, target.user_id, 1, added=True) if mode == "reaction"
              else pick_first_card(db, target, 1))
    results = await asyncio.gather(toggle, *(pick_first_card(db, p) for p in prompts[1:]))
    picked = results[0].result if mode == "reaction" else results[0]
    assert picked.card == target.cards[1]
    assert await drafts.count_picks(db, target.pod_id) == 3
