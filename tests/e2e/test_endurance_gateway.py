"""The gateway drops in the middle of a draft and of a Treasure Battler game; the bot carries on.

While the bot is disconnected (the fake lets no connection in until the outage ends), players keep
acting: a letter toggled, a button clicked, a command run. Like Discord, the fake keeps those events
for the session: a RESUME gets them replayed, and the bot handles each exactly once (an interaction
still inside its 3 seconds is answered). A session that can't be resumed must IDENTIFY again and
never gets the gap's events; the bot then reads the pack messages again, so a letter toggled during
the gap still counts, once.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.games.battler import rules as engine
from tests.e2e.drivers.battler import BattlerDriver
from tests.e2e.drivers.draft import stored_picks
from tests.e2e.drivers.scripted_draft import ScriptedDraft

pytestmark = pytest.mark.e2e


def resumed(fake) -> int:
    return sum(1 for _, direction, _, event in fake.gateway_log if direction == "out" and event == "RESUMED")


async def outage(fake, *, invalidate: bool = False) -> int:
    """Drop the bot's connection and hold its reconnect at the door; returns the events so far."""
    await fake.disconnect_gateway(hold=True, invalidate=invalidate)
    await fake.wait_for(lambda: fake.gateway_waiting, what="the bot trying to reconnect")
    return fake.events_dispatched()


async def test_a_draft_survives_a_resumed_and_a_lost_gateway_session(fake, bot, world):
    draft = ScriptedDraft(fake, world, bot, seed=41, seats=4, packs=1, pack_size=6)
    try:
        await draft.begin(picks=4)

        # A network outage, then RESUME: a letter and a click made meanwhile are replayed, each once.
        (by_letter, letter_message), (by_button, button_message) = await draft.two_players_at_once()
        before = await outage(fake)
        await draft.send(by_letter, letter_message)
        click = asyncio.ensure_future(await draft.send(by_button, button_message))
        await fake.wait_for(lambda: fake.events_dispatched() == before + 2, what="the gap's events stored")
        assert not fake.gateway_connected()
        fake.restore_gateway()
        await draft.confirmed(by_letter, letter_message, None)
        await draft.confirmed(by_button, button_message, click)  # answered within its 3 seconds
        assert resumed(fake) == 1 and fake.shard_identifies[0] == 1 and fake.generation == 1
        await draft.apply_landed(by_letter, by_button)

        # An outage whose session can't be resumed: a new IDENTIFY, which gets no replay; the bot
        # reads the pack messages again and counts the letter toggled during the gap.
        by_letter = draft.pick_for(draft.ready_seats()[0], "reaction")
        letter_message = await draft.pack_message(by_letter)
        await outage(fake, invalidate=True)
        await draft.send(by_letter, letter_message)
        fake.restore_gateway()
        await fake.wait_for(lambda: fake.shard_identifies[0] == 2, timeout=20, what="a new session (IDENTIFY)")
        await draft.confirmed(by_letter, letter_message, None)
        await draft.apply_landed(by_letter)
        assert resumed(fake) == 1

        while not draft.done:
            await draft.pick(draft.next_pick())
        log = await stored_picks(bot)
        assert log["status"] == "complete"
        assert [(e["seat"], e["card"], e["source"]) for e in log["picks"]] == [(p.seat, p.card, p.how) for p in draft.picks]
        for player in draft.players:  # no "already picked" from an event handled twice
            assert not [m for m in fake.dms(player) if "Already picked" in (m.get("content") or "")]
    finally:
        await draft.close()


async def test_a_treasure_battler_game_carries_on_through_gateway_outages(fake, bot, world):
    table = BattlerDriver(fake, world, bot.database_url)
    try:
        players = world.players[:2]
        lobby = await table.start(cube="battler", seats=2, seed=20_251_112)
        await table.join_all(players, lobby)
        await table.lobby(lobby, world.admin, "begin")
        await table.build_mirror()
        mirror = table.mirror

        # Setup by DM: one player chooses during an outage; the select and the confirm wait for
        # the RESUME and are answered then (each within its 3 seconds).
        await table.choose_basics(players[0], 1)
        setup = await table.wait_prompt(players[1], "Setup")
        before = await outage(fake)
        chosen = asyncio.ensure_future(table.choose_basics(players[1], 2, message=setup))
        await fake.wait_for(lambda: fake.events_dispatched() > before, what="the select stored for the RESUME")
        fake.restore_gateway()
        await chosen
        assert mirror.phase == "play"
        await table.wait_channel("Stage 1, round 1: PLAY")
        await table.check()

        # Play: the report is made during an outage, confirmed after it.
        pairing = mirror.pairings[0]
        winner, loser = table.user(pairing.a), table.user(pairing.b)
        before = await outage(fake)
        report = asyncio.ensure_future(table.report(winner, "won"))
        await fake.wait_for(lambda: fake.events_dispatched() > before, what="the report stored for the RESUME")
        fake.restore_gateway()
        report = await report
        assert f"<@{loser}> confirms or disputes it" in report.content
        posted = len(fake.messages(world.channel))
        confirmed = await table.answer(loser, report.message)  # with the loser's treasures, in the form
        assert "confirmed" in confirmed.content
        engine.report(mirror, pairing.a, "won")
        await table.wait_channel("Stage 1, round 2: DRAFT", since=posted)
        await table.check()

        # Draft: an outage between the two players' Done; the next phase begins once, after it.
        dms = {player: await table.wait_prompt(player, "Stage 1, round 2") for player in players}
        await table.done(players[0], dms[players[0]])
        before = await outage(fake)
        done = asyncio.ensure_future(table.done(players[1], dms[players[1]]))
        await fake.wait_for(lambda: fake.events_dispatched() > before, what="the click stored for the RESUME")
        fake.restore_gateway()
        await done
        assert mirror.phase == "play"
        await table.wait_channel("Stage 1, round 2: PLAY", since=posted)
        await table.check()
        announced = [m for m in fake.messages(world.channel) if "Stage 1, round 2: PLAY" in (m.get("content") or "")]
        assert len(announced) == 1 and resumed(fake) == 3 and fake.shard_identifies[0] == 1
    finally:
        await table.close()

