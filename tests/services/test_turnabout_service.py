"""Turnabout service against real SQLite and PostgreSQL databases: registration (decklists checked),
closing it, pairing, reports with confirmation / dispute / organizer settlement, a drop and its bye,
the end (leaderboard rows with the rating awards, posts queued), ratings, and the chess clock's
flag-fall entry point."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.formats import turnabout as engine
from bot.services import guild_config, turnabout
from bot.services.errors import Conflict, PermissionDenied, UserError
from bot.store.models import EventResult, OutboxMessage, TurnaboutEvent
from tests.services.conftest import BOARD, CHANNEL, GUILD, ORG, ORGANIZER, OTHER_GUILD, player

OPTIONS = ("dominaria", "tolaria", "phyrexia")


async def registered(db, n: int, **options) -> turnabout.EventView:
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, seed=7, **options)
    for i in range(n):
        await turnabout.register(db, event.id, player(1000 + i), deck=f"Deck {i}", scoring=OPTIONS[i % 3])
    return await turnabout.get_event(db, event.id)


async def queued(db, kind: str) -> list[OutboxMessage]:
    async with db.read() as session:
        return list((await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind)
                                           .order_by(OutboxMessage.id))).scalars())


def user_of(event: turnabout.EventView, seat: int) -> int:
    return event.state.players[seat].user_id


async def play_round(db, event: turnabout.EventView) -> turnabout.EventView:
    """Every open match of the round: seat a wins game 1 (value 5), b wins game 2 (value 3), confirmed."""
    for m in event.state.round_matches():
        if m.finished:
            continue
        a, b = user_of(event, m.a), user_of(event, m.b)
        await turnabout.report(db, event.id, player(a), result="won", value=5, game=1)
        await turnabout.confirm(db, event.id, m.number, 1, player(b))
        await turnabout.report(db, event.id, player(a), result="lost", value=3, game=2)
        await turnabout.confirm(db, event.id, m.number, 2, player(b))
    return await turnabout.get_event(db, event.id)


async def test_registration_checks_and_closing(db):
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, rounds=3, clock="bronstein", seed=1)
    assert event.status == "registration" and event.settings.clock and event.settings.clock_mode == "bronstein"
    with pytest.raises(PermissionDenied):
        await turnabout.create_event(db, player(5), channel_id=CHANNEL + 1)
    with pytest.raises(Conflict):
        await turnabout.create_event(db, ORG, channel_id=CHANNEL)

    # Decklists: 60+ cards, no ante cards, no wishes; every problem is reported, nothing is saved.
    with pytest.raises(UserError, match="59 cards"):
        await turnabout.register(db, event.id, player(1000), deck="Burn", decklist=b"59 Lightning Bolt\n")
    with pytest.raises(UserError) as banned:
        await turnabout.register(db, event.id, player(1000), deck="Burn",
                                 decklist=b"56 Lightning Bolt\n2 Darkpact\n2 Burning Wish\n")
    assert "Darkpact" in str(banned.value) and "Burning Wish" in str(banned.value)
    with pytest.raises(UserError, match="not a scoring option"):
        await turnabout.register(db, event.id, player(1000), deck="Burn", scoring="zendikar")
    assert (await turnabout.get_event(db, event.id)).registrations == ()

    _, reg, updated = await turnabout.register(db, event.id, player(1000), deck="Burn", scoring="tolaria",
                                               decklist=b"60 Lightning Bolt\n")
    assert (reg.deck, reg.scoring, reg.cards, updated) == ("Burn", "tolaria", 60, False)
    with pytest.raises(UserError, match="already registered a deck called"):
        await turnabout.register(db, event.id, player(1001), deck="  BURN ")
    with pytest.raises(PermissionDenied):
        await turnabout.register(db, event.id, player(1001, OTHER_GUILD), deck="Other")
    _, reg, updated = await turnabout.register(db, event.id, player(1000), deck="Burn 2")
    assert (reg.deck, reg.scoring, reg.cards, updated) == ("Burn 2", "dominaria", None, True)
    for i in (1, 2):
        await turnabout.register(db, event.id, player(1000 + i), deck=f"Deck {i}")

    # Pairing before registration closes; closing with fewer than 4 players.
    with pytest.raises(UserError, match="Registration is still open"):
        await turnabout.pair(db, event.id, ORG)
    with pytest.raises(UserError, match="at least 4"):
        await turnabout.begin(db, event.id, ORG)
    await turnabout.register(db, event.id, player(1003), deck="Deck 3", decklist="60 Island\n")
    await turnabout.leave(db, event.id, player(1002))
    with pytest.raises(UserError, match="at least 4"):
        await turnabout.begin(db, event.id, ORG)
    await turnabout.register(db, event.id, player(1002), deck="Deck 2")
    with pytest.raises(PermissionDenied):
        await turnabout.begin(db, event.id, player(1000))
    begun = await turnabout.begin(db, event.id, ORG)
    assert begun.event.status == "running" and len(begun.event.state.players) == 4
    with pytest.raises(Conflict, match="closed"):
        await turnabout.register(db, event.id, player(1004), deck="Late")
    assert [m.payload["events"][0]["type"] for m in await queued(db, turnabout.ANNOUNCE)] == ["RegistrationClosed"]

    # Round 1: organizers only; the decklists go by DM to the opponents who play them in game 1.
    with pytest.raises(PermissionDenied):
        await turnabout.pair(db, event.id, player(1000))
    paired = await turnabout.pair(db, event.id, ORG)
    [round1] = [e for e in paired.events if isinstance(e, engine.RoundPaired)]
    assert len(round1.matches) == 2 and round1.bye is None
    state = paired.event.state
    dms = await queued(db, turnabout.DECKLIST)
    owners = {p.user_id for p in state.players if p.decklist}
    # (1000 re-registered without a list, which replaced the earlier one)
    assert {m.payload["owner"] for m in dms} == owners == {1003} and len(dms) == 1
    for dm in dms:
        seat = engine.seat_of(state, dm.payload["owner"])
        assert dm.user_id == state.players[engine.current_match(state, seat).other(seat)].user_id
    with pytest.raises(UserError, match="not finished"):
        await turnabout.pair(db, event.id, ORG)


async def test_reports_disputes_drop_bye_end_and_ratings(db):
    await guild_config.update_config(db, GUILD, leaderboard_channel_id=BOARD)
    event = await registered(db, 5, rounds=2)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    state = event.state
    [bye] = [m for m in state.round_matches() if m.b is None]
    m = next(m for m in state.round_matches() if m.b is not None)
    a, b = user_of(event, m.a), user_of(event, m.b)
    outsider = next(p.user_id for p in state.players if p.seat not in m.seats() and p.seat != bye.a)

    # Bad input changes nothing.
    with pytest.raises(UserError, match="needs the winner's"):
        await turnabout.report(db, event.id, player(a), result="won")
    with pytest.raises(UserError, match="negative"):
        await turnabout.report(db, event.id, player(a), result="won", value=-1)
    with pytest.raises(UserError, match="cannot be more than"):
        await turnabout.report(db, event.id, player(a), result="won", value=10**7)
    with pytest.raises(PermissionDenied, match="not registered"):
        await turnabout.report(db, event.id, player(99), result="won", value=3)
    with pytest.raises(UserError, match="bye"):
        await turnabout.report(db, event.id, player(user_of(event, bye.a)), result="won", value=3)
    before = (await turnabout.get_event(db, event.id)).version
    assert before == event.version

    # A report waits for the opponent; confirming your own, or by a third player, is refused.
    out = await turnabout.report(db, event.id, player(a), result="won", value=20, game=1)
    assert out.pending is not None and out.pending.opponent == b and out.pending.winner == a
    measure = engine.OPTION_MEASURE[state.players[m.a].scoring]  # game 1: the loser played a's deck
    assert out.pending.measure == measure
    with pytest.raises(UserError, match="already reported"):
        await turnabout.report(db, event.id, player(b), result="lost", value=20, game=1)
    with pytest.raises(UserError, match="own report"):
        await turnabout.confirm(db, event.id, m.number, 1, player(a))
    with pytest.raises(PermissionDenied):
        await turnabout.confirm(db, event.id, m.number, 1, player(outsider))
    await turnabout.confirm(db, event.id, m.number, 1, player(b))

    # Game 2 disputed; the organizer settles it; the match's result is announced.
    await turnabout.report(db, event.id, player(b), result="won", value=1, game=2)
    await turnabout.dispute(db, event.id, m.number, 2, player(a), reason="I won that one")
    with pytest.raises(PermissionDenied):
        await turnabout.settle(db, event.id, player(a), match=m.number, game=2, winner_id=a, value=2)
    with pytest.raises(UserError, match="not playing in match"):
        await turnabout.settle(db, event.id, ORG, match=m.number, game=2, winner_id=outsider, value=2)
    settled = await turnabout.settle(db, event.id, ORG, match=m.number, game=2, winner_id=a, value=2, note="seen")
    result = settled.match_finished
    assert result is not None and sum(result.victory_points) == 30 and result.winner == m.a
    announced = [e["type"] for msg in await queued(db, turnabout.ANNOUNCE) for e in msg.payload["events"]]
    assert "GameDisputed" in announced and "MatchFinished" in announced
    dispute_msg = next(msg for msg in await queued(db, turnabout.ANNOUNCE)
                       if any(e["type"] == "GameDisputed" for e in msg.payload["events"]))
    assert ORGANIZER in dispute_msg.payload["ping"]

    # The other matches; then a player drops: 4 left, no bye; another drops: 3 left, too few.
    event = await turnabout.get_event(db, event.id)
    event = await play_round(db, event)
    assert all(x.finished for x in event.state.round_matches())
    dropper = user_of(event, bye.a)
    dropped = await turnabout.drop(db, event.id, player(dropper))
    assert dropped.event.state.players[bye.a].dropped
    with pytest.raises(UserError, match="already dropped"):
        await turnabout.drop(db, event.id, player(dropper))
    paired = await turnabout.pair(db, event.id, ORG)
    [round2] = [e for e in paired.events if isinstance(e, engine.RoundPaired)]
    assert round2.bye is None and len(round2.matches) == 2
    met = {frozenset((x.a, x.b)) for x in paired.event.state.matches if x.round == 1 and x.b is not None}
    assert not any(frozenset((p.a, p.b)) in met for p in round2.matches)
    with pytest.raises(UserError, match="not finished"):
        await turnabout.end(db, event.id, ORG)
    event = await play_round(db, paired.event)

    # The end: organizer only; leaderboard rows carry the rating awards; the post goes to the board.
    with pytest.raises(PermissionDenied):
        await turnabout.end(db, event.id, player(a))
    ended = await turnabout.end(db, event.id, ORG)
    assert ended.event.status == "ended"
    [final] = [e for e in ended.events if isinstance(e, engine.EventEnded)]
    async with db.read() as session:
        rows = {r.user_id: r for r in (await session.execute(
            select(EventResult).where(EventResult.format == "turnabout"))).scalars()}
    assert len(rows) == 5
    for p in final.placings:
        assert rows[p.user_id].placement == p.position and rows[p.user_id].score == p.award
        assert rows[p.user_id].points == 5 - p.position + 1
        assert p.completed == (p.user_id != dropper)
    [post] = await queued(db, turnabout.FINAL)
    assert post.channel_id == BOARD
    with pytest.raises(UserError, match="ended"):
        await turnabout.report(db, event.id, player(a), result="won", value=3)

    ratings = await turnabout.ratings(db, GUILD)
    assert [r.rating for r in ratings] == sorted((p.award for p in final.placings), reverse=True)
    assert await turnabout.ratings(db, OTHER_GUILD) == []


async def test_record_flag_fall(db):
    event = await registered(db, 4)
    await turnabout.begin(db, event.id, ORG)
    async with db.write() as session:  # no round yet: no match
        assert not await turnabout.record_flag_fall(session, guild_id=GUILD, channel_id=CHANNEL, loser_id=1000,
                                                    winner_id=1001)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    loser, winner = user_of(event, m.a), user_of(event, m.b)
    other = user_of(event, event.state.round_matches()[1].a)
    async with db.write() as session:
        assert not await turnabout.record_flag_fall(session, guild_id=GUILD, channel_id=CHANNEL, loser_id=loser,
                                                    winner_id=other)
        assert not await turnabout.record_flag_fall(session, guild_id=OTHER_GUILD, channel_id=CHANNEL,
                                                    loser_id=loser, winner_id=winner)
        assert await turnabout.record_flag_fall(session, guild_id=GUILD, channel_id=999, loser_id=loser,
                                                winner_id=winner)
    event = await turnabout.get_event(db, event.id)
    g1 = event.state.match(m.number).games[0]
    assert (g1.status, g1.flagged, g1.winner) == (engine.FLAGGED, m.a, m.b)
    [flag_news] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
                   if any(e["type"] == "GameLostOnTime" for e in msg.payload["events"])]
    assert flag_news.channel_id == CHANNEL

    # The loser cannot turn it into a win; the winner reports the number, the loser confirms.
    with pytest.raises(UserError, match="lost on time"):
        await turnabout.report(db, event.id, player(loser), result="won", value=3, game=1)
    out = await turnabout.report(db, event.id, player(winner), result="won", value=7, game=1)
    assert out.pending is not None and out.pending.opponent == loser
    await turnabout.confirm(db, event.id, m.number, 1, player(loser))
    # Game 2 next: a second flag fall records game 2; an organizer may override it.
    async with db.write() as session:
        assert await turnabout.record_flag_fall(session, guild_id=GUILD, channel_id=CHANNEL, loser_id=winner,
                                                winner_id=loser)
    settled = await turnabout.settle(db, event.id, ORG, match=m.number, game=2, winner_id=winner, value=4,
                                     note="clock malfunction")
    assert settled.match_finished is not None and settled.match_finished.winner == m.b
    async with db.read() as session:
        version = (await session.get(TurnaboutEvent, event.id)).version
    async with db.write() as session:  # the match is over: nothing to record
        assert not await turnabout.record_flag_fall(session, guild_id=GUILD, channel_id=CHANNEL, loser_id=loser,
                                                    winner_id=winner)
    async with db.read() as session:
        assert (await session.get(TurnaboutEvent, event.id)).version == version


async def test_pairing_needs_four_players_still_in_and_cancel_records_nothing(db):
    event = await registered(db, 4, rounds=2)
    await turnabout.begin(db, event.id, ORG)
    event = await play_round(db, (await turnabout.pair(db, event.id, ORG)).event)
    await turnabout.drop(db, event.id, player(1000))
    before = (await turnabout.get_event(db, event.id)).version
    with pytest.raises(UserError, match="at least 4 players still in; there are 3"):
        await turnabout.pair(db, event.id, ORG)
    assert (await turnabout.get_event(db, event.id)).version == before
    with pytest.raises(PermissionDenied):
        await turnabout.cancel(db, event.id, player(1001))
    cancelled = await turnabout.cancel(db, event.id, ORG)
    assert cancelled.status == "cancelled"
    assert [m.payload for m in await queued(db, turnabout.ENDED)] == [{"event_id": event.id}]
    async with db.read() as session:
        assert (await session.execute(select(EventResult))).first() is None
    with pytest.raises(UserError, match="cancelled"):
        await turnabout.report(db, event.id, player(1001), result="won", value=3)


async def test_a_clock_that_runs_out_in_a_match_loses_that_game_on_time(db):
    """The clock's flag-fall deadline, run by the sweeper, records the game through Turnabout's listener."""
    from datetime import UTC, datetime

    from bot.services import clock, deadlines

    event = await registered(db, 4)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    a, b = user_of(event, m.a), user_of(event, m.b)
    t0 = 1_800_000_000.0
    started = await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, minutes=0.05, increment=0, now=t0)
    assert await deadlines.run_due(db, now=datetime.fromtimestamp(t0 + 4, UTC)) == [started.id]
    g1 = (await turnabout.get_event(db, event.id)).state.match(m.number).games[0]
    assert (g1.status, g1.flagged, g1.winner) == (engine.FLAGGED, m.a, m.b)
