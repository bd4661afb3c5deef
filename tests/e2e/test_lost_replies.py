"""No game stuck behind one lost message (Turnabout and the chess clock), through the fake Discord.

A reply is lost two ways here: the bot is killed (SIGKILL) after it saved the step and while its
reply is in flight, or Discord answers the reply with 404 10062 (Unknown interaction). Either way
the step is saved and its buttons existed only on the lost reply. Nothing waits on that message:
the reporter repeating the report gets it shown again with its buttons, the opponent's own
matching report confirms it (a different one disputes it), and a clock offer is shown again with
its Accept button to whoever runs `/clock start` for the pair. Also: in an event played with a
clock, a clock offered for game 2 (game 1 not reported) loses game 2 when it runs out, not game 1.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from sqlalchemy import select

from bot.features.clock.models import ChessClock
from bot.games.turnabout import rules as engine
from tests.e2e.drivers.clock import ClockDriver
from tests.e2e.drivers.common import driving, embed_text
from tests.e2e.drivers.turnabout import TurnaboutDriver

pytestmark = pytest.mark.e2e
CALLBACK = r"^/interactions/\d+/[^/]+/callback$"


@pytest.fixture
async def table(fake, bot, world):
    async with driving(TurnaboutDriver, fake, world, bot) as driver:
        yield driver


@pytest.fixture
async def clock(fake, bot, world):
    async with driving(ClockDriver, fake, world, bot) as driver:
        yield driver


async def _forget(answer: asyncio.Future) -> None:
    """The user's client gave up on a lost answer ("This interaction failed")."""
    answer.cancel()
    with contextlib.suppress(asyncio.CancelledError, AssertionError):
        await answer


async def killed_while_replying(fake, bot, action) -> None:
    """Run `action` (an interaction); the bot saves the step and dies while its reply is in flight;
    it is started again on the same database."""
    held = fake.hold_next("POST", CALLBACK)
    answer = asyncio.ensure_future(action())
    await asyncio.wait_for(held.arrived.wait(), 30)
    await bot.kill()
    held.release()
    await _forget(answer)
    await bot.start()


async def reply_lost_with_10062(fake, action) -> None:
    """Run `action`; Discord answers its reply with 404 10062 (Unknown interaction): the step is
    saved, and the user never sees the reply."""
    fake.lose_next_reply()
    result = await action()
    assert result.lost, result


async def paired_event(t: TurnaboutDriver, world, **options) -> engine.TurnaboutState:
    await t.start(rounds=1, **options)
    for i, user in enumerate(world.players[:4]):
        await t.join(user, f"Deck {i}", "dominaria")
    await t.slash(world.admin, "begin")
    await t.slash(world.admin, "pair")
    return await t.state()


def users_of(state: engine.TurnaboutState, match: engine.Match) -> tuple[int, int]:
    return state.players[match.a].user_id, state.players[match.b].user_id


async def test_a_turnabout_report_whose_reply_is_lost_is_never_stuck(fake, bot, world, table):
    state = await paired_event(table, world)
    first, second = state.round_matches()
    a, b = users_of(state, first)
    c, d = users_of(state, second)

    # --- killed between saving the report and replying: the reporter repeats it ---------------------
    await killed_while_replying(fake, bot, lambda: table.report(a, "won", 5, 1))
    assert await table.game_status(first.number, 1) == "reported"  # saved; its buttons were on the lost reply
    assert (await table.waiting(first.number, 1)).value == 5
    again = await table.report(a, "won", 5)
    assert not again.ephemeral and again.content.startswith(f"📝 Match {first.number}, game 1: "), again.content
    assert f"<@{a}> reports <@{a}> **won** with 5 life (**15 match points**) (still waiting)" in again.content
    assert fake.pinged_users(again.message) == {b}  # who must act next
    note = await again.wait_followup()
    assert "To report game 2" in note[0]["content"]
    confirmed = await table.answer(b, again.message)
    assert confirmed.content.startswith(f"✅ Match {first.number}, game 1: ") and f"confirmed by <@{b}>" in confirmed.content, confirmed.content

    # --- game 2's reply lost with 10062: the opponent's own matching report confirms it ---------------
    await reply_lost_with_10062(fake, lambda: table.report(b, "won", 3, 2))
    assert await table.game_status(first.number, 2) == "reported"
    matched = await table.report(a, "lost")  # no number needed: it matches b's report
    assert matched.content.startswith(f"✅ Match {first.number}, game 2: "), matched.content
    assert f"confirmed by <@{a}>'s matching report." in matched.content, matched.content
    assert not matched.ephemeral  # its report's message was lost: this reply is the result's one post
    await table.wait_channel(f"🏁 Match {first.number}:")

    # --- killed again; the opponent's own report differs: the game is disputed, the organizer called ------
    await killed_while_replying(fake, bot, lambda: table.report(c, "won", 5, 1))
    since = len(fake.messages(world.channel))
    differs = await table.report(d, "won", 7)
    assert differs.ephemeral and "differs from your opponent's, so the game is disputed" in differs.content
    call = await table.wait_channel(f"Match {second.number}, game 1 is disputed by <@{d}>", since)
    assert f"<@{c}> reported: <@{c}> won with 5" in call["content"] and f"<@{d}> reported: <@{d}> won with 7" in call["content"]  # both claims
    assert world.admin in fake.pinged_users(call)  # the event's organizer decides it
    settled = await table.slash(world.admin, "settle", match=second.number, game=1, winner=c, number=5)
    assert settled.ephemeral and "decided" in settled.content
    assert (await table.state()).match(second.number).games[0].status == engine.FINAL


async def test_a_clock_offer_whose_reply_is_lost_can_still_be_accepted(fake, bot, world, clock):
    a, b = world.players[4:6]
    await killed_while_replying(fake, bot, lambda: clock.slash_start(a, opponent=b, minutes=5, increment=0))
    async with clock.db.read() as session:
        row = (await session.execute(select(ChessClock).order_by(ChessClock.id.desc()))).scalars().first()
    assert row is not None and row.status == "offered" and row.live == 1
    clock.clock_id = row.id
    offer = await clock.wait_posted()  # the restarted bot owes the offer's message and posts it
    clock.message_id = int(offer["id"])
    assert fake.pinged_users(offer) == {b} and "offers you a chess clock" in offer["content"]

    # Whoever runs the command for the pair sees the offer again, with the buttons they may press.
    mine = await clock.slash_start(a, opponent=b)
    assert mine.ephemeral and f"already have chess clock #{row.id}" in mine.content
    assert [c["label"] for c in mine.components] == ["Withdraw"]
    theirs = await clock.slash_start(b, opponent=a, minutes=30)  # other settings: still that offer
    assert theirs.ephemeral and "waiting to be accepted; here it is again" in theirs.content
    assert [c["label"] for c in theirs.components] == ["Accept", "Decline"]
    assert "does not run until then" in embed_text(theirs.message)

    accept = next(c["custom_id"] for c in theirs.components if c["label"] == "Accept")
    accepted = await fake.click(b, theirs.message, accept)
    assert "accepted: it is running" in accepted.content
    assert [c["label"] for c in accepted.components] == ["Pass clock", "Pause", "Resume", "End"]
    await clock.wait_shown("▶️ ")  # the channel's message shows the running clock too
    assert not clock.message.get("content")  # the offer's line is gone
    await clock.press(a, "pass")
    await clock.wait_shown("1 pass so far")


async def test_an_event_clock_loses_the_game_it_was_offered_for(fake, bot, world, table, clock):
    state = await paired_event(table, world, clock="delay")
    match = state.round_matches()[0]
    a, b = users_of(state, match)

    # Game 1 is not reported; the players clock game 2. No settings given: the event's clock.
    offer = await clock.offer(a, b, game=2)
    text = embed_text(offer)
    assert "Delay: the first 3 s of each move are free · 10:00 each per game" in text
    assert f"For Turnabout #{table.event_id}, match {match.number}, game 2: a flag fall loses that game" in text
    assert f"offers you a chess clock for Turnabout #{table.event_id}, match {match.number}, game 2" in offer["content"]
    refused = await clock.press(a, "accept")
    assert refused.ephemeral and "only your opponent can accept" in refused.content
    await clock.press(b, "accept")
    await clock.wait_shown("▶️ " + f"<@{a}>")

    await bot.kill()
    await clock.age(700)  # a's ten minutes run out while the bot is down
    await bot.start()
    news = await fake.wait_for(
        lambda: next((m for m in fake.messages(world.channel) if "flag fell" in (m.get("content") or "")
                      and "Chess clock" in m["content"]), None),
        what="the flag-fall announcement")
    assert f"<@{a}> loses Turnabout #{table.event_id}, match {match.number}, game 2 on time" in news["content"]
    await table.wait_channel(f"match {match.number}, game 2 is lost on time")
    g1, g2 = (await table.state()).match(match.number).games
    assert g1.status == engine.PENDING and (g2.status, g2.flagged) == (engine.FLAGGED, match.a)
