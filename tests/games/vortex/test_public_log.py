"""Vortex's public log kept with the game (rows of ``vortex_log``, for the event page once the outbox
has forgotten the news), on SQLite and PostgreSQL: appended in the transaction of each action, exactly
the events the channel was told, never a card of a hidden zone (a hand, a pack, the passed pack, the
shoe, what was looked at or searched for); every event kept, numbered without a gap, read a page of
`LOG_LIMIT` at a time, the newest first."""

from __future__ import annotations

import asyncio

from sqlalchemy import delete, insert, select

from bot.cards.model import is_basic_land
from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex.models import VortexLogEntry
from bot.kit import events
from tests.common import organizer, player
from tests.games.vortex.test_service import (
    active_user,
    hidden_cards,
    in_play,
    make_cube,
    outbox_rows,
    pick_first,
    started,
    state_of,
)

CUBE = {card.name for card in make_cube().cards}


def strings(value) -> set[str]:
    """Every text in a JSON document but the event types."""
    if isinstance(value, dict):
        return {s for key, item in value.items() if key != "type" for s in strings(item)}
    if isinstance(value, list):
        return {s for item in value for s in strings(item)}
    return {value} if isinstance(value, str) else set()


async def kept(db, game_id: int) -> list[dict]:
    """The game's log rows' events, in order; their numbers run from 1 without a gap."""
    async with db.read() as session:
        rows = (await session.execute(select(VortexLogEntry.seq, VortexLogEntry.event)
                                      .where(VortexLogEntry.game_id == game_id).order_by(VortexLogEntry.seq))).all()
    assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1))
    return [event for _, event in rows]


async def add_rows(db, game_id: int, count: int, *, after: int) -> None:
    """`count` rows of filler after number `after` (a long game, quickly)."""
    filler = events.encode(engine.ShoeShuffled(0, 10))
    async with db.write() as session:
        await session.execute(insert(VortexLogEntry), [
            {"game_id": game_id, "seq": after + 1 + i, "event": filler} for i in range(count)])


async def told(db, game_id: int) -> list[dict]:
    """Every event the channel was told of the game, from its announcements in the outbox."""
    return [e for row in await outbox_rows(db, kind=vortex.ANNOUNCE) if row.payload["game_id"] == game_id
            for e in row.payload["events"]]


async def assert_log_hides(db, game_id: int) -> set[str]:
    """The kept log is what the channel was told, and names no card hidden now; returns the cards it names."""
    _, state, _ = await state_of(db, game_id)
    log = await kept(db, game_id)
    assert log == await told(db, game_id)
    named = strings(log) & CUBE
    assert not named & hidden_cards(state), named & hidden_cards(state)
    return named


async def test_the_kept_log_is_what_the_channel_was_told_and_never_a_hidden_card(db):
    game = await started(db)
    [began] = await kept(db, game.id)  # kept from the deal, in its transaction
    assert began["type"] == "vortex.GameBegan"
    await assert_log_hides(db, game.id)
    await vortex.end(db, game.id, organizer())

    game, state = await in_play(db)  # the opening picks by DM: the packs and hands stay hidden
    await assert_log_hides(db, game.id)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    await vortex.draw(db, game.id, player(user))
    await pick_first(db, game.id)
    await assert_log_hides(db, game.id)
    await vortex.shoe(db, game.id, player(user), "mill", count=2)
    looked = await vortex.shoe(db, game.id, player(user), "look", count=3)  # only they see these
    await assert_log_hides(db, game.id)
    _, _, extras = await state_of(db, game.id)
    await vortex.arrange(db, game.id, user, seat=seat, look=extras["look"], bottom=frozenset({0}))
    await assert_log_hides(db, game.id)
    await vortex.shoe(db, game.id, player(user), "search", count=2)  # to their hand: the cards stay hidden
    _, state, extras = await state_of(db, game.id)
    wanted = sorted(c for c in state.shoe if not is_basic_land(c))[:2]
    prompt = vortex.SearchPrompt.from_payload((await outbox_rows(db, kind=vortex.SEARCH))[-1].payload)
    await vortex.search_choose(db, game.id, user, seat=seat, search=extras["search"],
                               names=[prompt.names.index(name) for name in wanted])
    await vortex.finish_search(db, game.id, user, seat=seat, search=extras["search"])
    _, state, _ = await state_of(db, game.id)
    assert set(wanted) <= set(state.players[seat].hand)
    await assert_log_hides(db, game.id)
    played = next(c for c in state.players[seat].hand if not is_basic_land(c) and c not in wanted)
    await vortex.move(db, game.id, player(user), played, "hand", "battlefield")
    await vortex.life(db, game.id, player(user), -3)
    named = await assert_log_hides(db, game.id)

    # It names only cards that are public now: the milled ones and the one played.
    _, state, _ = await state_of(db, game.id)
    public = {c for p in state.players for c in (*p.battlefield, *p.graveyard, *p.exile)}
    assert named and named <= public and played in named
    assert not named & {c for c in looked.game.state.shoe[:3]}
    types = [e["type"] for e in await kept(db, game.id)]
    for kind in ("Drawing", "Milled", "Looked", "TopArranged", "SearchBegan", "SearchFinished", "CardMoved",
                 "LifeChanged"):
        assert f"vortex.{kind}" in types
    kept_log = await vortex.public_log(db, game.id)
    assert kept_log is not None and (kept_log.page, kept_log.pages, kept_log.lost) == (1, 1, False)
    assert [events.encode(e) for e in kept_log.events] == await kept(db, game.id)
    assert "log" not in (await state_of(db, game.id))[2]  # not in the game's row: it is not rewritten


async def test_actions_at_once_append_their_events_in_turn(db):
    """The game's row is locked while an action appends: two at once number their rows in turn."""
    game, state = await in_play(db, players=2)
    user = active_user(state)
    await asyncio.gather(vortex.life(db, game.id, player(user), -1), vortex.life(db, game.id, player(user), 2))
    log = await kept(db, game.id)  # numbered 1, 2, ... without a gap or a repeat
    assert sorted(e.get("delta") for e in log[-2:]) == [-1, 2] and log == await told(db, game.id)


async def test_every_event_is_kept_and_read_a_page_at_a_time(db):
    game, state = await in_play(db, players=2)
    logged = len(await kept(db, game.id))
    await add_rows(db, game.id, vortex.LOG_LIMIT - 1 - logged, after=logged)  # a long game: one short of a page
    user = active_user(state)
    await vortex.shoe(db, game.id, player(user), "mill", count=1)
    await vortex.life(db, game.id, player(user), -2)
    log = await kept(db, game.id)  # nothing dropped: LOG_LIMIT + 1 rows
    assert len(log) == vortex.LOG_LIMIT + 1 and [e["type"] for e in log[-2:]] == ["vortex.Milled", "vortex.LifeChanged"]
    newest = await vortex.public_log(db, game.id)
    assert (newest.page, newest.pages, newest.lost) == (1, 2, False) and len(newest.events) == vortex.LOG_LIMIT
    assert [events.encode(e) for e in newest.events] == log[1:]
    oldest = await vortex.public_log(db, game.id, page=2)
    assert (oldest.page, oldest.pages, oldest.lost) == (2, 2, False)
    assert [type(e) for e in oldest.events] == [vortex.GameBegan]
    assert (await vortex.public_log(db, game.id, page=9)).page == 2  # past the oldest: the oldest
    # A game dealt before the log was kept has none (the page reads the outbox then).
    async with db.write() as session:
        await session.execute(delete(VortexLogEntry).where(VortexLogEntry.game_id == game.id))
    assert await vortex.public_log(db, game.id) is None


async def test_a_log_that_lost_its_oldest_events_says_so(db):
    """A game whose log was kept in its bookkeeping (capped) had its dropped events counted: its rows
    start after them (migration 0023), and its oldest page says older news is gone."""
    game, _ = await in_play(db, players=2)
    async with db.write() as session:
        await session.execute(delete(VortexLogEntry).where(VortexLogEntry.game_id == game.id))
    await add_rows(db, game.id, 5, after=40)
    kept_log = await vortex.public_log(db, game.id)
    assert (kept_log.page, kept_log.pages, kept_log.lost, len(kept_log.events)) == (1, 1, True, 5)
