"""A reaction on a just-sent message waits for that message's record (`RecordWaits`), and only
as long as a record can come: overlapping sends of one message end the wait with the last record,
and a record that never lands releases it after the timeout."""

from __future__ import annotations

import asyncio

from bot.kit.delivery import RecordWaits


async def test_a_wait_ends_when_the_last_of_two_overlapping_sends_is_recorded():
    waits = RecordWaits()
    waits.sent(7)  # "you took …" edit
    waits.sent(7)  # the next pack's edit, before the first edit is recorded
    waiter = asyncio.ensure_future(waits.wait(7, timeout=30))
    waits.recorded(7)
    finished, _ = await asyncio.wait({waiter}, timeout=0.05)  # one record of two: still waiting
    assert not finished
    waits.recorded(7)
    await asyncio.wait_for(waiter, 1)  # ends now, long before its timeout


async def test_nothing_to_wait_for_and_records_of_sends_made_elsewhere():
    waits = RecordWaits()
    await asyncio.wait_for(waits.wait(8, timeout=30), 1)  # never sent by the outbox: no wait
    waits.recorded(8)  # e.g. a pack shown in an interaction response: nothing to end
    waits.sent(8)
    waits.recorded(8)
    await asyncio.wait_for(waits.wait(8, timeout=30), 1)


async def test_a_record_that_never_lands_holds_a_wait_only_until_its_timeout():
    waits = RecordWaits()
    waits.sent(9)
    await asyncio.wait_for(waits.wait(9, timeout=0.05), 5)
