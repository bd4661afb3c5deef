"""The draft's one wait on its pack messages (`MessageStates.settled`): a reaction, or a letters'
record, waits until the changes to the message have been made and recorded — the changes begun
meanwhile included — and never longer than `SETTLING_WAIT` in all."""

from __future__ import annotations

import asyncio

from bot.games.draft import message_states
from bot.games.draft.message_states import MessageStates


async def test_a_wait_ends_when_the_last_of_two_overlapping_changes_is_recorded():
    states = MessageStates()
    confirmation = states.begin_change(7)  # "you took …" edit
    waiter = asyncio.ensure_future(states.settled(7))
    await asyncio.sleep(0)  # (lets the waiter start waiting: not a synchronisation)
    next_pack = states.begin_change(7)  # the next pack's edit, before the first one's record lands
    states.end_change(7, confirmation)
    finished, _ = await asyncio.wait({waiter}, timeout=0.05)  # one record of two: still waiting
    assert not finished
    states.end_change(7, next_pack)
    await asyncio.wait_for(waiter, 1)  # ends now, long before its bound
    assert states.peek(7) is None  # nothing kept for an idle message


async def test_nothing_to_wait_for_and_a_change_made_and_recorded_in_one_place():
    states = MessageStates()
    await asyncio.wait_for(states.settled(8), 1)  # never changed here: no wait
    with states.changing(8):  # e.g. a reaction pick's next pack, sent and recorded by one call
        waiter = asyncio.ensure_future(states.settled(8))
        await asyncio.sleep(0)
        assert not waiter.done()
    await asyncio.wait_for(waiter, 1)


async def test_a_record_that_never_lands_holds_a_wait_only_until_the_bound(monkeypatch):
    monkeypatch.setattr(message_states, "SETTLING_WAIT", 0.05)
    states = MessageStates()
    states.begin_change(9)  # its edit failed, or its record never came
    await asyncio.wait_for(states.settled(9), 5)
    assert states.peek(9) is None  # counted as over: the next wait does not wait again
    await asyncio.wait_for(states.settled(9), 0.01)
