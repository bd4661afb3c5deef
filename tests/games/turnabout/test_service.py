"""Turnabout service against real SQLite and PostgreSQL databases: registration (decklists checked),
closing it, pairing, reports with confirmation / dispute / organizer settlement, a drop and its bye,
the end (leaderboard rows with the rating awards, posts queued), ratings, and the chess clock's
flag-fall entry point."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.features.clock import rules as clock_rules
from bot.features.clock import service as clock
from bot.features.config import service as guild_config
from bot.games.turnabout import rules as engine
from bot.games.turnabout import service as turnabout
from bot.games.turnabout.models import TurnaboutEvent
from bot.kit import claims, deadlines
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.kit.tables import Actor
from bot.store.models import CardRecord, EventResult, OutboxMessage
from tests.common import BOARD, CHANNEL, GUILD, ORG, ORGANIZER, OTHER_GUILD, player
from tests.e2e.fake_scryfall import fake_scryfall_with_client

OPTIONS = ("dominaria", "tolaria", "phyrexia")


async def registered(db, n: int, **options) -> turnabout.EventView:
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, seed=7, **options)
    for i in range(n):
        await turnabout.join(db, event.id, player(1000 + i), deck=f"Deck {i}", scoring=OPTIONS[i % 3])
    return await turnabout.get_event(db, event.id)


async def queued(db, kind: str) -> list[OutboxMessage]:
    async with db.read() as session:
        return list((await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind)
                                           .order_by(OutboxMessage.id))).scalars())


async def late(db, event_id: int, number: int, guild_id: int = GUILD) -> claims.Words | None:
    """What a late click on a copy of claim `number` shows (the kit's words), None while it waits."""
    return await claims.late_words(db, turnabout.GAMES, turnabout.RULES, event_id, number, guild_id)


async def status_of(db, event_id: int, match: int, game: int) -> str:
    """A game's status as players read it: the engine's, or its report's while it waits (the kit's book)."""
    async with db.read() as session:
        loaded = await turnabout.GAMES.load(session, event_id, lock=False)
    return turnabout.game_status(loaded, match, loaded.state.match(match).games[game - 1])


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
        await turnabout.join(db, event.id, player(1000), deck="Burn", decklist=b"59 Lightning Bolt\n")
    with pytest.raises(UserError) as banned:
        await turnabout.join(db, event.id, player(1000), deck="Burn",
                                 decklist=b"56 Lightning Bolt\n2 Darkpact\n2 Burning Wish\n")
    assert "Darkpact" in str(banned.value) and "Burning Wish" in str(banned.value)
    with pytest.raises(UserError, match="not a scoring option"):
        await turnabout.join(db, event.id, player(1000), deck="Burn", scoring="zendikar")
    assert (await turnabout.get_event(db, event.id)).registrations == ()

    _, reg, updated = await turnabout.join(db, event.id, player(1000), deck="Burn", scoring="tolaria",
                                               decklist=b"60 Lightning Bolt\n")
    assert (reg.deck, reg.scoring, reg.cards, updated) == ("Burn", "tolaria", 60, False)
    with pytest.raises(UserError, match="already registered a deck called"):
        await turnabout.join(db, event.id, player(1001), deck="  BURN ")
    with pytest.raises(PermissionDenied):
        await turnabout.join(db, event.id, player(1001, OTHER_GUILD), deck="Other")
    _, reg, updated = await turnabout.join(db, event.id, player(1000), deck="Burn 2")
    assert (reg.deck, reg.scoring, reg.cards, updated) == ("Burn 2", "dominaria", None, True)
    for i in (1, 2):
        await turnabout.join(db, event.id, player(1000 + i), deck=f"Deck {i}")

    # Pairing before registration closes; closing with fewer than 4 players.
    with pytest.raises(UserError, match="Registration is still open"):
        await turnabout.pair(db, event.id, ORG)
    with pytest.raises(UserError, match="at least 4"):
        await turnabout.begin(db, event.id, ORG)
    await turnabout.join(db, event.id, player(1003), deck="Deck 3", decklist="60 Island\n")
    await turnabout.leave(db, event.id, player(1002))
    with pytest.raises(UserError, match="at least 4"):
        await turnabout.begin(db, event.id, ORG)
    await turnabout.join(db, event.id, player(1002), deck="Deck 2")
    with pytest.raises(PermissionDenied):
        await turnabout.begin(db, event.id, player(1000))
    begun = await turnabout.begin(db, event.id, ORG)
    assert begun.event.status == "running" and len(begun.event.state.players) == 4
    with pytest.raises(Conflict, match="closed"):
        await turnabout.join(db, event.id, player(1004), deck="Late")
    assert [m.payload["events"][0]["type"] for m in await queued(db, turnabout.ANNOUNCE)] == ["turnabout.RegistrationClosed"]

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


EYETWITCH = ("Flying\nWhen Eyetwitch dies, learn. (You may reveal a Lesson card you own from outside the game and "
             "put it into your hand, or discard a card to draw a card.)")


@pytest.fixture
async def scryfall():
    async with fake_scryfall_with_client() as fake:
        fake.add_card("Eyetwitch", oracle_text=EYETWITCH)
        fake.add_card("Burning Wish", oracle_text="You may reveal a sorcery card you own from outside the game and "
                                                  "put it into your hand. Exile Burning Wish.")
        fake.add_card("Swamp", type_line="Basic Land — Swamp", oracle_text="({T}: Add {B}.)")
        fake.add_card("Fae of Wishes // Granted", faces=("Fae of Wishes", "Granted"),
                      oracle_text=("Flying", "You may reveal a noncreature card you own from outside the game and put "
                                             "it into your hand."))
        yield fake


async def test_decklists_are_judged_by_the_cards_oracle_text_where_it_is_known(db, scryfall):
    """Eyetwitch (learn) is on no list: its Oracle text, from Scryfall and kept in the card table,
    refuses it. Darkpact is unknown to Scryfall: the ante list refuses it. Scryfall down and the
    table without the text: the lists alone judge, and learn passes."""
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, seed=1)
    listing = b"4 Eyetwitch\n1 Darkpact\n1 Fae of Wishes\n54 Swamp\n"
    with pytest.raises(UserError) as refused:
        await turnabout.join(db, event.id, player(1000), deck="Lessons", decklist=listing,
                                 scryfall=scryfall.client)
    text = str(refused.value)
    assert "• Eyetwitch (4 copies) is banned: it has learn, which brings a Lesson card into the game from outside " \
           "it (by its Oracle text)." in text
    assert "• Darkpact is banned: an ante card." in text
    assert "• Fae of Wishes // Granted is banned: it brings cards into the game from outside it (by its Oracle " \
           "text)." in text
    async with db.read() as session:
        assert (await session.get(CardRecord, "eyetwitch")).oracle_text == EYETWITCH
        assert "\n//\nYou may reveal" in (await session.get(CardRecord, "fae of wishes")).oracle_text
    asked = len(scryfall.collection_batches)
    # Known now: the table answers, Scryfall is not asked again (not even needed).
    with pytest.raises(UserError, match="Eyetwitch"):
        await turnabout.join(db, event.id, player(1000), deck="Lessons", decklist=listing, scryfall=None)
    assert len(scryfall.collection_batches) == asked

    # A row stored before the Oracle text was kept is asked for again; with Scryfall down, the lists judge.
    async with db.write() as session:
        (await session.get(CardRecord, "eyetwitch")).oracle_text = None
    scryfall.down = True
    _, reg, _ = await turnabout.join(db, event.id, player(1000), deck="Lessons", scryfall=scryfall.client,
                                         decklist=b"4 Eyetwitch\n56 Swamp\n")
    assert reg.cards == 60
    scryfall.down = False
    with pytest.raises(UserError, match="Eyetwitch"):
        await turnabout.join(db, event.id, player(1000), deck="Lessons", scryfall=scryfall.client,
                                 decklist=b"4 Eyetwitch\n56 Swamp\n")
    async with db.read() as session:
        assert (await session.get(CardRecord, "eyetwitch")).oracle_text == EYETWITCH


async def test_a_list_over_250_cards_is_refused_and_says_so(db):
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, seed=1)
    listing = "".join(f"1 {'Q' * 185} {i}\n" for i in range(1000)).encode()
    with pytest.raises(UserError, match="1,000 cards; a registered list may have at most 250"):
        await turnabout.join(db, event.id, player(1000), deck="Big", decklist=listing)
    assert (await turnabout.get_event(db, event.id)).registrations == ()


async def test_begin_refuses_more_rounds_than_a_round_robin_and_can_change_them(db):
    """Issue 22 item 9: 6 players can meet each other in at most 5 rounds. Begin refuses 7 (set
    at start, before anyone registered), saying the most and how to change it, and changes
    nothing; `rounds` on begin sets them as it closes registration; the event is then a round
    robin, announced with its rounds."""
    event = await registered(db, 6, rounds=7)
    with pytest.raises(UserError) as refused:
        await turnabout.begin(db, event.id, ORG)
    assert str(refused.value) == (
        "6 players can play at most 5 rounds without anyone meeting the same opponent twice; this event is set "
        "to 7. Begin with `/turnabout begin rounds:5` (or fewer), or wait until 7 players have joined.")
    for rounds, error in [(6, "at most 5 rounds"), (0, "from 1 to 20"), (21, "from 1 to 20")]:
        with pytest.raises(UserError, match=error):
            await turnabout.begin(db, event.id, ORG, rounds=rounds)
    with pytest.raises(PermissionDenied):
        await turnabout.begin(db, event.id, player(1000), rounds=5)
    still = await turnabout.get_event(db, event.id)
    assert (still.status, still.settings.rounds, still.state) == ("registration", 7, None)
    assert await queued(db, turnabout.ANNOUNCE) == []

    begun = await turnabout.begin(db, event.id, ORG, rounds=5)
    assert begun.event.status == "running" and begun.event.settings.rounds == begun.event.state.settings.rounds == 5
    [closed] = await queued(db, turnabout.ANNOUNCE)
    assert closed.payload["rounds"] == 5 and closed.payload["events"][0]["type"] == "turnabout.RegistrationClosed"
    met: set[frozenset[int]] = set()
    event = begun.event
    for _ in range(5):
        event = (await turnabout.pair(db, event.id, ORG)).event
        for m in event.state.round_matches():
            assert frozenset((m.a, m.b)) not in met
            met.add(frozenset((m.a, m.b)))
        event = await play_round(db, event)
    assert len(met) == 15  # everyone met everyone once
    with pytest.raises(UserError, match="All 5 rounds have been played"):
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
    with pytest.raises(UserError, match="negative|less than"):  # life below 0 counts as 0, but not without end
        await turnabout.report(db, event.id, player(a), result="won", value=-10**7)
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
    # The reporter again (their reply may be lost): nothing changes, the waiting report comes back.
    version = (await turnabout.get_event(db, event.id)).version
    again = await turnabout.report(db, event.id, player(a), result="won", value=20)
    assert again.repeated and not again.differs and again.pending == out.pending and again.game == 1
    other = await turnabout.report(db, event.id, player(a), result="lost", value=3, game=1)
    assert other.repeated and other.differs and other.pending == out.pending
    assert (await turnabout.get_event(db, event.id)).version == version
    with pytest.raises(UserError, match="own report"):
        await turnabout.confirm(db, event.id, m.number, 1, player(a))
    with pytest.raises(PermissionDenied):
        await turnabout.confirm(db, event.id, m.number, 1, player(outsider))
    claim = out.pending.claim
    assert await late(db, event.id, claim) is None  # still waiting
    assert await status_of(db, event.id, m.number, 1) == "reported"
    # The opponent reports the same result (no number needed): that confirms it.
    matched = await turnabout.report(db, event.id, player(b), result="lost")
    assert matched.confirmed and matched.pending is None and matched.game == 1
    answered = await late(db, event.id, claim)
    assert answered is not None and answered.how == claims.AGREED and answered.by == b
    assert answered.result.startswith(f"<@{a}> **won** with 20 ")
    assert await turnabout.game_claim(db, event.id, m.number, 1) == claim  # an old button names its game
    assert await late(db, event.id, claim, OTHER_GUILD) is None
    assert await late(db, event.id, 999) is None
    assert await turnabout.game_claim(db, event.id, 999, 1) is None
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == engine.FINAL

    # Game 2 disputed by the other player's own, different report; the organizer settles it.
    await turnabout.report(db, event.id, player(b), result="won", value=1, game=2)
    conflicting = await turnabout.report(db, event.id, player(a), result="won", value=4)
    assert conflicting.disputed and conflicting.game == 2
    with pytest.raises(UserError, match="disputed: an organizer decides it"):
        await turnabout.report(db, event.id, player(b), result="won", value=1, game=2)
    with pytest.raises(PermissionDenied):
        await turnabout.settle(db, event.id, player(a), match=m.number, game=2, winner_id=a, value=2)
    with pytest.raises(UserError, match="not playing in match"):
        await turnabout.settle(db, event.id, ORG, match=m.number, game=2, winner_id=outsider, value=2)
    settled = await turnabout.settle(db, event.id, ORG, match=m.number, game=2, winner_id=a, value=2, note="seen")
    result = settled.match_finished
    assert result is not None and sum(result.victory_points) == 30 and result.winner == m.a
    announced = [e["type"] for msg in await queued(db, turnabout.ANNOUNCE) for e in msg.payload["events"]]
    assert "turnabout.GameDisputed" in announced and "turnabout.MatchFinished" in announced
    dispute_msg = next(msg for msg in await queued(db, turnabout.ANNOUNCE)
                       if any(e["type"] == "turnabout.GameDisputed" for e in msg.payload["events"]))
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
    # The event's channel (the winner pinged) and the results channel (a copy that pings nobody).
    here, board = await queued(db, turnabout.FINAL)
    assert (here.channel_id, board.channel_id) == (CHANNEL, BOARD)
    winners = tuple(p.user_id for p in final.placings if p.position == 1)
    assert tuple(here.payload["ping"]) == winners and tuple(board.payload["ping"]) == ()
    with pytest.raises(UserError, match="ended"):
        await turnabout.report(db, event.id, player(a), result="won", value=3)

    ratings = await turnabout.ratings(db, GUILD)
    assert [r.rating for r in ratings] == sorted((p.award for p in final.placings), reverse=True)
    assert await turnabout.ratings(db, OTHER_GUILD) == []


async def test_record_flag_fall_records_exactly_the_game_it_is_given(db):
    event = await registered(db, 4, clock="delay")
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    loser, winner = user_of(event, m.a), user_of(event, m.b)
    other = user_of(event, event.state.round_matches()[1].a)
    async with db.write() as session:
        assert not await turnabout.record_flag_fall(session, event_id=event.id, match=m.number, game=1, loser_id=other)
        assert not await turnabout.record_flag_fall(session, event_id=event.id, match=99, game=1, loser_id=loser)
        # Game 2, though game 1 has no result yet: game 2 it is.
        assert await turnabout.record_flag_fall(session, event_id=event.id, match=m.number, game=2, loser_id=loser)
    event = await turnabout.get_event(db, event.id)
    g1, g2 = event.state.match(m.number).games
    assert g1.status == engine.PENDING and (g2.status, g2.flagged, g2.winner) == (engine.FLAGGED, m.a, m.b)
    [flag_news] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
                   if any(e["type"] == "turnabout.GameLostOnTime" for e in msg.payload["events"])]
    assert flag_news.channel_id == CHANNEL and flag_news.payload["events"][0]["game"] == 2

    # The loser cannot turn it into a win; the winner reports the number, the loser confirms.
    with pytest.raises(UserError, match="lost on time"):
        await turnabout.report(db, event.id, player(loser), result="won", value=3, game=2)
    out = await turnabout.report(db, event.id, player(winner), result="won", value=7, game=2)
    assert out.pending is not None and out.pending.opponent == loser
    await turnabout.confirm(db, event.id, m.number, 2, player(loser))
    async with db.read() as session:
        version = (await session.get(TurnaboutEvent, event.id)).version
    async with db.write() as session:  # a game with a result is never recorded again
        assert not await turnabout.record_flag_fall(session, event_id=event.id, match=m.number, game=2, loser_id=winner)
    async with db.read() as session:
        assert (await session.get(TurnaboutEvent, event.id)).version == version


async def _clocked_match(db, clock_setting: str):
    event = await registered(db, 4, clock=clock_setting)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    return event, m, user_of(event, m.a), user_of(event, m.b)


T0 = 1_800_000_000.0


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(T0 + seconds, UTC)


async def test_a_clock_in_a_match_uses_the_events_clock_and_decides_only_its_own_game(db):
    """The clock is offered for the game the player names, with the event's settings; it does
    not run (nor flag) until the opponent accepts; its flag fall loses that game, and a clock started
    for game 2 while game 1 has no result records game 2, never "the first unreported game"."""
    event, m, a, b = await _clocked_match(db, "bronstein")
    # Issue 34: while game 1 has no result the player is asked which game, never assumed game 1.
    with pytest.raises(UserError, match=rf"Which game of Turnabout #{event.id}, match {m.number} is this clock for"):
        await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, now=T0)
    offered = await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, game=1, now=T0)
    game = offered.clock.game
    assert game == clock.ClockGame("turnabout", event.id, f"Turnabout #{event.id}", m.number, 1,
                                   ("bronstein", 10, 3), decides=True)
    assert (offered.clock.state.mode, offered.clock.state.base, offered.clock.state.increment) == ("bronstein", 603, 3)
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(10_000)) == []  # offered, not accepted: it never flags
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == engine.PENDING

    # Withdrawn; offered again for game 2 explicitly (game 1 still has no result); accepted; it runs out.
    await clock.act(db, offered.clock.id, player(a), "withdraw")
    with pytest.raises(UserError, match="no open match"):
        await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=ORGANIZER, game=2, now=T0)
    second = await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, game=2, now=T0)
    assert second.clock.game.game == 2 and second.clock.game.decides
    await clock.accept(db, second.clock.id, player(b), now=T0 + 100)
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(100 + 604)) == [second.clock.id]
    g1, g2 = (await turnabout.get_event(db, event.id)).state.match(m.number).games
    assert g1.status == engine.PENDING and (g2.status, g2.flagged) == (engine.FLAGGED, m.a)
    [news] = [clock.ClockNews.from_payload(q.payload) for q in await queued(db, clock.NEWS)]
    assert isinstance(news.event, clock_rules.FlagFell) and news.recorded and news.game.game == 2

    # Game 2 has a result now: a clock for it is refused; one with other settings decides nothing.
    with pytest.raises(UserError, match="Game 2 of match .* already has a result"):
        await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, game=2, now=T0)
    informal = await clock.start(db, player(b), channel_id=CHANNEL, opponent_id=a, minutes=1, increment=0, now=T0)
    assert informal.clock.game.game == 1 and not informal.clock.game.decides
    await clock.accept(db, informal.clock.id, player(a), now=T0 + 1000)
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(1000 + 61)) == [informal.clock.id]
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == engine.PENDING
    news = [clock.ClockNews.from_payload(q.payload) for q in await queued(db, clock.NEWS)][-1]
    assert isinstance(news.event, clock_rules.FlagFell) and not news.recorded


async def test_in_an_event_without_a_clock_a_clock_decides_nothing(db):
    event, m, a, b = await _clocked_match(db, "off")
    offered = await clock.start(db, player(a), channel_id=CHANNEL, opponent_id=b, minutes=1, increment=0, now=T0)
    assert offered.clock.game.event_clock is None and not offered.clock.game.decides
    await clock.accept(db, offered.clock.id, player(b), now=T0)
    assert await deadlines.run_due(db, clock.DEADLINES, now=at(61)) == [offered.clock.id]
    assert all(g.status == engine.PENDING for g in (await turnabout.get_event(db, event.id)).state.match(m.number).games)
    assert not [q for q in await queued(db, turnabout.ANNOUNCE)
                if any(e["type"] == "turnabout.GameLostOnTime" for e in q.payload["events"])]
    # The defaults are the clock's own when the event has none.
    default = await clock.start(db, player(a), channel_id=CHANNEL + 5, opponent_id=b, now=T0)
    assert (default.clock.state.mode, default.clock.state.base) == ("delay", 600)


async def test_three_left_pair_with_a_bye_rounds_nobody_can_play_are_cut_and_cancel_records_nothing(db):
    event = await registered(db, 4, rounds=3)
    await turnabout.begin(db, event.id, ORG)
    event = await play_round(db, (await turnabout.pair(db, event.id, ORG)).event)
    await turnabout.drop(db, event.id, player(1000))
    paired = (await turnabout.pair(db, event.id, ORG)).event.state.round_matches()
    assert sorted(m.b is None for m in paired) == [False, True]  # one match and a bye
    event = await play_round(db, await turnabout.get_event(db, event.id))
    left = [p.user_id for p in event.state.players if not p.dropped]
    await turnabout.drop(db, event.id, player(left[0]))
    await turnabout.drop(db, event.id, player(left[1]))
    announced = [e["type"] for msg in await queued(db, turnabout.ANNOUNCE) for e in msg.payload["events"]]
    assert announced.count("turnabout.RoundsCut") == 1
    before = (await turnabout.get_event(db, event.id)).version
    with pytest.raises(UserError, match="All 2 rounds have been played"):
        await turnabout.pair(db, event.id, ORG)
    assert (await turnabout.get_event(db, event.id)).version == before
    with pytest.raises(PermissionDenied):
        await turnabout.cancel(db, event.id, player(1001))
    cancelled = await turnabout.cancel(db, event.id, ORG)
    assert cancelled.status == "cancelled"
    assert [m.payload for m in await queued(db, turnabout.ENDED)] == [{"table_id": event.id}]
    async with db.read() as session:
        assert (await session.execute(select(EventResult))).first() is None
    with pytest.raises(UserError, match="cancelled"):
        await turnabout.report(db, event.id, player(1001), result="won", value=3)


async def test_an_organizer_who_plays_never_confirms_their_own_report(db):
    """Issue 22 item 2, for Turnabout too: being an organizer does not let the reporter confirm."""
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, seed=7)
    playing_organizer = Actor(1000, GUILD, manage_guild=True)
    for i in range(4):
        actor = playing_organizer if i == 0 else player(1000 + i)
        await turnabout.join(db, event.id, actor, deck=f"Deck {i}", scoring="dominaria")
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = next(m for m in event.state.round_matches() if 1000 in (user_of(event, m.a), user_of(event, m.b)))
    opponent = user_of(event, m.b) if user_of(event, m.a) == 1000 else user_of(event, m.a)
    await turnabout.report(db, event.id, playing_organizer, result="won", value=5, game=1)
    with pytest.raises(UserError, match="own report"):
        await turnabout.confirm(db, event.id, m.number, 1, playing_organizer)
    assert await status_of(db, event.id, m.number, 1) == "reported"
    await turnabout.confirm(db, event.id, m.number, 1, player(opponent))
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == engine.FINAL


async def test_only_who_must_act_next_is_pinged(db):
    """Issue 25 item 5: pairings ping the players who must play and the player with the bye; "Round
    N is complete" pings the event's organizer, who pairs the next round; nobody else."""
    event = await registered(db, 5, rounds=2)
    await turnabout.begin(db, event.id, ORG)
    paired = await turnabout.pair(db, event.id, ORG)
    [pairings] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
                  if any(e["type"] == "turnabout.RoundPaired" for e in msg.payload["events"])]
    assert set(pairings.payload["ping"]) == {p.user_id for p in paired.event.state.players}  # the bye's too
    [bye] = [m for m in paired.event.state.round_matches() if m.b is None]
    assert user_of(paired.event, bye.a) in pairings.payload["ping"]
    await play_round(db, paired.event)
    messages = await queued(db, turnabout.ANNOUNCE)
    [complete] = [msg for msg in messages if any(e["type"] == "turnabout.RoundFinished" for e in msg.payload["events"])]
    assert complete.payload["ping"] == [ORGANIZER]
    results = [msg for msg in messages if msg.id not in (complete.id, pairings.id)]
    assert results and all(msg.payload["ping"] == [] for msg in results)  # match results ping nobody


async def test_a_report_message_loses_its_buttons_however_the_report_is_answered(db):
    """Issue 25 items 3 and 7, issue 34: every message showing a waiting report is the kit's record
    (`report_shown`) and is edited by the kit (`claims.answered`) once the report is answered — by a
    button (the pressed message is the cog's to edit), by the opponent's matching report, by an
    organizer's decision or a dispute — and shows who won with what number; an older copy says the
    report was shown again (the newest has its buttons)."""
    event = await registered(db, 4, rounds=1)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m, other = [x for x in event.state.round_matches()]
    a, b = user_of(event, m.a), user_of(event, m.b)

    async def edits() -> dict[int, dict]:
        """The kit's edits of report copies, by message: what each says now (its last edit)."""
        return {msg.payload["message_id"]: msg.payload["words"] for msg in await queued(db, claims.ANSWERED)}

    # Game 1: posted twice (a repeat: the older copy says so), confirmed by the opponent's own matching
    # report: the newest copy shows it, and the reporter is answered privately.
    first = (await turnabout.report(db, event.id, player(a), result="won", value=20, game=1)).pending
    await turnabout.report_shown(db, first, CHANNEL, 501)
    assert await edits() == {}
    await turnabout.report_shown(db, first, CHANNEL, 502)
    assert (await edits())[501]["how"] == claims.AGAIN_SHOWN
    matched = await turnabout.report(db, event.id, player(b), result="lost")
    assert matched.confirmed and matched.words is None  # its messages show it: the reporter is answered privately
    done = await edits()
    assert done[502]["how"] == claims.AGREED and done[502]["by"] == b and done[502]["what"] == f"Match {m.number}, game 1"
    assert done[502]["result"].startswith(f"<@{a}> **won** with 20 ")
    # Game 2: confirmed with the button on message 504: that one is the cog's, 503 goes through the outbox.
    second = (await turnabout.report(db, event.id, player(b), result="won", value=3, game=2)).pending
    for message_id in (503, 504):
        await turnabout.report_shown(db, second, CHANNEL, message_id)
    confirmed = await turnabout.confirm(db, event.id, m.number, 2, player(a), message_id=504)
    assert set(await edits()) == {501, 502, 503} and (await edits())[503]["how"] == claims.AGAIN_SHOWN
    assert confirmed.match_finished is not None  # the match's result is the channel's own post, not in the report's
    assert (confirmed.words.how, confirmed.words.by) == (claims.CONFIRM, a)
    assert confirmed.words.result.startswith(f"<@{b}> **won** with 3 ")
    # A message recorded after its report was answered (a slow reply) is edited at once.
    await turnabout.report_shown(db, second, CHANNEL, 505)
    assert (await edits())[505]["how"] == claims.CONFIRM

    # The other match: a report decided by an organizer, and one disputed with the button.
    c, d = user_of(event, other.a), user_of(event, other.b)
    third = (await turnabout.report(db, event.id, player(c), result="won", value=5, game=1)).pending
    await turnabout.report_shown(db, third, CHANNEL, 601)
    await turnabout.settle(db, event.id, ORG, match=other.number, game=1, winner_id=d, value=4)
    decided = (await edits())[601]
    assert decided["how"] == claims.DECIDE and decided["by"] == ORGANIZER
    assert decided["result"].startswith(f"<@{d}> **won** with 4 ")
    fourth = (await turnabout.report(db, event.id, player(c), result="won", value=5, game=2)).pending
    await turnabout.report_shown(db, fourth, CHANNEL, 602)
    disputed = await turnabout.dispute(db, event.id, other.number, 2, player(d), message_id=602)
    assert 602 not in await edits() and disputed.words.how == claims.DISPUTE and disputed.words.reporter == c
    async with db.read() as session:  # no report waits for its opponent: the disputed one waits for a referee
        book = claims.Book(dict((await session.get(TurnaboutEvent, event.id)).bookkeeping or {}))
    assert [(c.number, c.status) for c in book.waiting()] == [(4, claims.DISPUTED)]
    assert [book.ended(n).how for n in (1, 2, 3, 4)] == ["agreed", "confirm", "decide", "dispute"]
    await turnabout.settle(db, event.id, ORG, match=other.number, game=2, winner_id=c, value=5)
    async with db.read() as session:  # settled: its claim ends, decided
        book = claims.Book(dict((await session.get(TurnaboutEvent, event.id)).bookkeeping or {}))
    assert book.waiting() == [] and book.ended(4).how == "decide" and book.ended(4).by == ORGANIZER


async def test_a_dispute_carries_both_claims_to_the_organizer(db):
    """Issue 25 item 4: the dispute announcement holds the report and the other player's own claim."""
    event = await registered(db, 4, rounds=1)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    a, b = user_of(event, m.a), user_of(event, m.b)
    await turnabout.report(db, event.id, player(a), result="won", value=20, game=1)
    await turnabout.report(db, event.id, player(b), result="won", value=7, game=1)
    [call] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
              if any(e["type"] == "turnabout.GameDisputed" for e in msg.payload["events"])]
    [disputed] = [e for e in call.payload["events"] if e["type"] == "turnabout.GameDisputed"]
    assert (disputed["claimed"]["by"], disputed["claimed"]["winner"], disputed["claimed"]["value"]) == (m.a, m.a, 20)
    assert (disputed["counter"]["by"], disputed["counter"]["winner"], disputed["counter"]["value"]) == (m.b, m.b, 7)
    assert call.payload["ping"] == [ORGANIZER]


async def test_a_report_against_a_dropped_player_is_final_and_says_so(db):
    event = await registered(db, 4, rounds=2)
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m = event.state.round_matches()[0]
    a, b = user_of(event, m.a), user_of(event, m.b)
    await turnabout.drop(db, event.id, player(b))
    out = await turnabout.report(db, event.id, player(a), result="won", value=5, game=1)
    assert out.pending is None and out.words is not None and out.words.how == claims.UNOPPOSED and out.words.by == a
    assert out.words.result.startswith(f"<@{a}> **won** with 5 ")
    assert (await turnabout.get_event(db, event.id)).state.match(m.number).games[0].status == engine.FINAL


async def _organizer_plays(db):
    """An event whose organizer (Manage Server) plays: (event, the organizer's match, the other match)."""
    playing_organizer = Actor(1000, GUILD, manage_guild=True)
    event = await turnabout.create_event(db, playing_organizer, channel_id=CHANNEL, seed=7)
    for i in range(4):
        actor = playing_organizer if i == 0 else player(1000 + i)
        await turnabout.join(db, event.id, actor, deck=f"Deck {i}", scoring="dominaria")
    await turnabout.begin(db, event.id, playing_organizer)
    event = (await turnabout.pair(db, event.id, playing_organizer)).event
    own = next(m for m in event.state.round_matches() if 1000 in (user_of(event, m.a), user_of(event, m.b)))
    other = next(m for m in event.state.round_matches() if m is not own)
    return playing_organizer, event, own, other


async def test_an_organizer_who_plays_cannot_settle_their_own_match_and_settling_another_names_them(db):
    """Issue 34 item 1: `/turnabout settle` judges the seat; the channel names who decided."""
    organizer, event, own, other = await _organizer_plays(db)
    opponent = user_of(event, own.b) if user_of(event, own.a) == 1000 else user_of(event, own.a)
    await turnabout.report(db, event.id, organizer, result="lost", value=5, game=1)
    await turnabout.confirm(db, event.id, own.number, 1, player(opponent))
    before = (await turnabout.get_event(db, event.id)).state.to_dict()
    with pytest.raises(UserError, match="You play in match"):
        await turnabout.settle(db, event.id, organizer, match=own.number, game=1, winner_id=1000, value=9)
    assert (await turnabout.get_event(db, event.id)).state.to_dict() == before
    c = user_of(event, other.a)
    await turnabout.settle(db, event.id, organizer, match=other.number, game=1, winner_id=c, value=4)
    [decided] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
                 if any(e["type"] == "turnabout.GameDecided" for e in msg.payload["events"])]
    assert decided.payload["decided_by"] == 1000


async def test_an_organizer_confirming_another_match_confirms_for_the_absent_player(db):
    """Issue 34 item 3: an organizer who does not play in the match confirms only as its own action
    (asked first): the game is confirmed for the absent opponent, who is told by DM."""
    organizer, event, own, other = await _organizer_plays(db)
    c, d = user_of(event, other.a), user_of(event, other.b)
    await turnabout.report(db, event.id, player(c), result="won", value=5, game=1)
    with pytest.raises(claims.AbsentConfirmNeeded) as needed:
        await turnabout.confirm(db, event.id, other.number, 1, organizer)
    assert needed.value.absent == d
    assert await status_of(db, event.id, other.number, 1) == "reported"
    done = (await turnabout.confirm(db, event.id, other.number, 1, organizer, for_absent=True)).words
    assert (done.how, done.by, done.absent) == (claims.CONFIRM, 1000, d)
    assert not any(any(e["type"] == "turnabout.GameDecided" for e in msg.payload["events"])
                   for msg in await queued(db, turnabout.ANNOUNCE))  # confirmed, not "decided by an organizer"
    [dm] = await queued(db, claims.ABSENT_DM)
    assert dm.user_id == d and dm.payload["by"] == 1000 and "/turnabout settle" in dm.payload["dispute"]
    assert dm.payload["result"] == (f"match {other.number}, game 1: <@{c}> won (life total: 5), as <@{c}> reported it")


async def test_a_dispute_in_the_organizers_own_match_calls_the_organizer_role(db):
    """Issue 34 item 1: a dispute calls the referees, not the organizer who plays in it."""
    organizer, event, own, other = await _organizer_plays(db)
    await guild_config.update_config(db, GUILD, organizer_role_id=777)
    opponent = user_of(event, own.b) if user_of(event, own.a) == 1000 else user_of(event, own.a)
    await turnabout.report(db, event.id, organizer, result="won", value=5, game=1)
    await turnabout.dispute(db, event.id, own.number, 1, player(opponent))
    [call] = [msg for msg in await queued(db, turnabout.ANNOUNCE)
              if any(e["type"] == "turnabout.GameDisputed" for e in msg.payload["events"])]
    assert call.payload["ping"] == [] and call.payload["call"]["role"] == 777
    with pytest.raises(UserError, match="You play in match"):
        await turnabout.settle(db, event.id, organizer, match=own.number, game=1, winner_id=1000, value=5)


async def test_the_organizer_sets_the_events_clock_and_a_clock_with_other_settings_decides_nothing(db):
    """Issue 34: `/turnabout start` takes the clock's minutes and delay or increment."""
    with pytest.raises(UserError, match="need clock:delay or clock:bronstein"):
        await turnabout.create_event(db, ORG, channel_id=CHANNEL, clock="off", clock_minutes=25)
    with pytest.raises(UserError, match="at most 180 minutes"):
        await turnabout.create_event(db, ORG, channel_id=CHANNEL, clock="delay", clock_minutes=181)
    event = await turnabout.create_event(db, ORG, channel_id=CHANNEL, clock="delay", clock_minutes=25,
                                         clock_increment=5, seed=3)
    assert (event.settings.clock_mode, event.settings.clock_minutes, event.settings.clock_increment) == ("delay", 25, 5)


async def test_a_waiting_report_is_the_kits_claim_and_the_engine_holds_none(db):
    """Issue 34: the report step is the kit's claims flow. The event's stored engine state holds no
    waiting or disputed report (the game has no result until it counts); the kit's book holds it, and
    a clock can neither fall on that game nor be started for it."""
    event = await registered(db, 4, rounds=1, clock="delay")
    await turnabout.begin(db, event.id, ORG)
    event = (await turnabout.pair(db, event.id, ORG)).event
    m, other = event.state.round_matches()
    a, b, c, d = (user_of(event, seat) for seat in (m.a, m.b, other.a, other.b))
    await turnabout.report(db, event.id, player(a), result="won", value=5, game=1)
    await turnabout.report(db, event.id, player(c), result="won", value=5, game=1)
    await turnabout.report(db, event.id, player(d), result="won", value=6, game=1)  # otherwise: disputed
    async with db.read() as session:
        row = await session.get(TurnaboutEvent, event.id)
    for match in (m, other):
        game = row.state["matches"][match.number - 1]["games"][0]
        assert (game["status"], game["winner"], game["value"]) == (engine.PENDING, None, None), game
        assert not {"reported_by", "confirmed_by"} & set(game)
    waiting = claims.Book(dict(row.bookkeeping)).waiting()
    assert [(x.key, x.status) for x in waiting] == [(f"{m.number}.1", claims.REPORTED),
                                                    (f"{other.number}.1", claims.DISPUTED)]
    assert [await status_of(db, event.id, x.number, 1) for x in (m, other)] == ["reported", "disputed"]
    async with db.write() as session:
        assert not await turnabout.record_flag_fall(session, event_id=event.id, match=m.number, game=1, loser_id=b)
        with pytest.raises(UserError, match=r"already has a result \(reported\)"):
            await turnabout.clock_game(session, GUILD, CHANNEL, a, b, 1)
        assert (await turnabout.clock_game(session, GUILD, CHANNEL, a, b, None)).game == 2
    # The disputing player's own report of what was claimed agrees: the game counts, as reported.
    agreed = await turnabout.report(db, event.id, player(d), result="lost", game=1)
    assert agreed.confirmed and agreed.words is not None and agreed.words.how == claims.AGREED
    assert agreed.words.result.startswith(f"<@{c}> **won**")  # no message showed it: the cog posts it
    assert (await turnabout.get_event(db, event.id)).state.match(other.number).games[0].winner == other.a


@settings(max_examples=80, deadline=None)
@given(first=st.tuples(st.sampled_from([10, 11, None]), st.integers(0, 25)),
       second=st.tuples(st.sampled_from([10, 11, None]), st.one_of(st.none(), st.integers(0, 25))))
def test_a_second_report_agrees_exactly_when_it_says_the_same(first, second):
    """The opponent's own report counts the waiting one when it has the same winner (or both say a
    draw) and, if it gives a number, the same number; anything else disputes it."""
    (w1, v1), (w2, v2) = first, second
    waiting = turnabout.Reported(1, w1, v1 if w1 is not None else None)
    reported = turnabout.Reported(1, w2, v2 if w2 is not None else None)
    assert turnabout.agrees(waiting, reported) == (w1 == w2 and (w1 is None or v2 is None or v1 == v2))
