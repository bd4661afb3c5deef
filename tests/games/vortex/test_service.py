"""Vortex service against real SQLite and PostgreSQL databases: the lobby (2–5 players), the deal,
the opening hands by DM, draws picked one at a time, passes, mulligans, shoe effects, the empty-pack
penalty, the end with and without a winner, permissions, stale buttons, and what the outbox owes
(never a hidden card in the channel)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from sqlalchemy import select

from bot.cards.model import is_basic_land
from bot.features.cubes.service import CubeDetail
from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex.models import VortexGame, VortexLogEntry
from bot.kit import outbox, shown, tables
from bot.kit.errors import Conflict, PermissionDenied, UserError
from bot.store.models import EventResult, GuildSettings, OutboxMessage
from tests.common import BOARD, CHANNEL, GUILD, numbered_cube, organizer, player

PLAYERS = [1001, 1002, 1003, 1004, 1005, 1006]
SEED = 777


def make_cube(size: int = 40) -> CubeDetail:
    return numbered_cube(size, name="gems", card_name="Secret *Gem* {:03d}")


async def lobby(db, players: int = 3, **options) -> vortex.GameView:
    game = await vortex.create_game(db, organizer(), channel_id=CHANNEL, cube=options.pop("cube", make_cube()),
                                    seed=SEED, **options)
    for user in PLAYERS[:players]:
        game = await _join(db, game, user)
    return game


async def _join(db, game, user):
    return await tables.join(db, vortex.SPEC, game.id, player(user))


async def started(db, players: int = 3) -> vortex.GameView:
    game = await lobby(db, players)
    await vortex.begin(db, game.id, organizer())
    return await vortex.get_game(db, game.id)


async def state_of(db, game_id: int) -> tuple[int, engine.VortexState, dict]:
    async with db.read() as session:
        row = (await session.execute(select(VortexGame).where(VortexGame.id == game_id))).scalar_one()
        return row.version, engine.VortexState.from_dict(row.state), dict(row.bookkeeping or {})


async def edit_state(db, game_id: int, change) -> None:
    """Change the stored state directly (to reach a rare situation quickly; cards only move)."""
    async with db.write() as session:
        row = (await session.execute(select(VortexGame).where(VortexGame.id == game_id))).scalar_one()
        state = engine.VortexState.from_dict(row.state)
        change(state)
        row.state = state.to_dict()


async def outbox_rows(db, after: int = 0, kind: str | None = None) -> list[OutboxMessage]:
    async with db.read() as session:
        query = select(OutboxMessage).where(OutboxMessage.id > after).order_by(OutboxMessage.id)
        if kind is not None:
            query = query.where(OutboxMessage.kind == kind)
        return list((await session.execute(query)).scalars())


async def last_row_id(db) -> int:
    rows = await outbox_rows(db)
    return rows[-1].id if rows else 0


def census_ok(state: engine.VortexState, cube: CubeDetail) -> bool:
    chosen = Counter(card for p in state.players for card in (p.opening_basics or []))
    return engine.card_census(state) == Counter(engine.starting_shoe(cube.names, len(state.players))) + chosen


def hidden_cards(state: engine.VortexState) -> set[str]:
    """Non-basic cards in hidden zones (basic land names say nothing about which card is where)."""
    cards = set(state.shoe) | set(state.passed_pack)
    for p in state.players:
        cards |= set(p.pack) | set(p.hand)
    return {c for c in cards if not is_basic_land(c)}


async def assert_channel_hides(db, game_id: int, since: int) -> None:
    """No channel message queued since `since` names a card that is hidden now."""
    _, state, _ = await state_of(db, game_id)
    hidden = hidden_cards(state)
    for row in await outbox_rows(db, since):
        if row.channel_id is not None:
            text = json.dumps(row.payload)
            assert not [c for c in hidden if c in text], (row.kind, row.payload)


async def pick_first(db, game_id: int) -> vortex.ActionResult:
    """The pending picker takes the first card of their pack (with the offer of their newest DM)."""
    _, state, extras = await state_of(db, game_id)
    seat = state.draft.seat
    return await vortex.pick(db, game_id, state.players[seat].user_id, seat=seat, offer=extras["offer"], index=0)


async def finish_opening(db, game_id: int) -> None:
    _, state, _ = await state_of(db, game_id)
    while state.phase == engine.OPENING:
        await pick_first(db, game_id)
        _, state, _ = await state_of(db, game_id)
    for p in state.players:
        await vortex.choose_basics(db, game_id, p.user_id, seat=p.seat, lands=["Island", "Island", "Forest"])


async def in_play(db, players: int = 3) -> tuple[vortex.GameView, engine.VortexState]:
    game = await started(db, players)
    await finish_opening(db, game.id)
    _, state, _ = await state_of(db, game.id)
    assert state.phase == engine.PLAY and state.step == engine.UPKEEP
    return game, state


def active_user(state: engine.VortexState) -> int:
    return state.players[engine.active_seat(state)].user_id


# --- the lobby and the deal ----------------------------------------------------------------------------


async def test_lobby_takes_two_to_five_players_and_organizers_only(db):
    with pytest.raises(PermissionDenied, match="organizers"):
        await vortex.create_game(db, player(1001), channel_id=CHANNEL, cube=make_cube())
    with pytest.raises(UserError, match="Vortex needs at least 11 \\(17 for 5"):
        await vortex.create_game(db, organizer(), channel_id=CHANNEL, cube=make_cube(10))
    game = await lobby(db, 1)
    with pytest.raises(UserError, match="2 to 5 players; 1 joined"):
        await vortex.begin(db, game.id, organizer())
    for user in PLAYERS[1:5]:
        game = await _join(db, game, user)
    assert len(game.player_ids) == 5
    version = (await vortex.get_game(db, game.id)).version
    with pytest.raises(Conflict, match=r"full \(5 players\)"):
        await _join(db, game, PLAYERS[5])
    assert (await vortex.get_game(db, game.id)).version == version and len(game.player_ids) == 5
    with pytest.raises(PermissionDenied):
        await vortex.begin(db, game.id, player(1001))
    with pytest.raises(Conflict, match="already running"):
        await vortex.create_game(db, organizer(), channel_id=CHANNEL, cube=make_cube())


async def test_begin_deals_the_seeded_shoe_and_offers_the_first_opening_pick_by_dm(db):
    game = await lobby(db, 3)
    since = await last_row_id(db)
    await vortex.begin(db, game.id, organizer())
    version, state, extras = await state_of(db, game.id)
    order = list(PLAYERS[:3])
    random.Random(SEED).shuffle(order)  # the shared lobby seats players with the table's seed
    assert state == engine.new_game(make_cube().names, order, seed=SEED)
    assert census_ok(state, make_cube()) and version == 1
    began = {"type": "vortex.GameBegan", "turn_order": list(state.turn_order), "shoe_size": len(state.shoe)}
    assert extras == {"offer": 1, "look": 0, "search": 0, "winner": None, "turn": 0, "turn_seq": 0}  # the log is kept in rows of its own (tests/games/vortex/test_public_log.py)
    async with db.read() as session:  # the public log, kept from the deal
        logged = (await session.execute(select(VortexLogEntry.seq, VortexLogEntry.event)
                                        .where(VortexLogEntry.game_id == game.id))).all()
    assert [tuple(row) for row in logged] == [(1, began)]
    assert all(len(p.pack) == 7 for p in state.players) and len(state.passed_pack) == 7
    rows = await outbox_rows(db, since)
    assert [r.kind for r in rows] == [vortex.ANNOUNCE, vortex.PICK]
    picker = state.players[state.draft.seat]
    assert rows[1].user_id == picker.user_id and rows[1].payload["pack"] == picker.pack
    assert rows[1].payload["opening_turn"] == 1 and rows[1].payload["offer"] == 1
    assert rows[0].payload["events"][0]["type"] == "vortex.GameBegan" and rows[0].payload["ping"] == []
    await assert_channel_hides(db, game.id, since)


async def test_a_cube_too_small_for_the_players_is_refused_at_begin_and_changes_nothing(db):
    game = await lobby(db, 5, cube=make_cube(13))  # enough for 2 players, not for 5
    with pytest.raises(UserError, match="cube is too small"):
        await vortex.begin(db, game.id, organizer())
    assert (await vortex.get_game(db, game.id)).status == "lobby"


# --- the opening hands ------------------------------------------------------------------------------------


async def test_opening_picks_by_dm_pass_the_turn_and_end_with_basic_land_dms(db):
    game = await started(db, 3)
    _, state, extras = await state_of(db, game.id)
    picker = state.players[state.draft.seat]
    other = next(p for p in state.players if p.seat != picker.seat)
    # Someone else's pick button, a stale offer, an index outside the pack: refused, nothing changed.
    with pytest.raises(PermissionDenied, match="not yours"):
        await vortex.pick(db, game.id, other.user_id, seat=picker.seat, offer=1, index=0)
    with pytest.raises(vortex.StaleMessage, match="already made"):
        await vortex.pick(db, game.id, picker.user_id, seat=picker.seat, offer=2, index=0)
    with pytest.raises(UserError, match="from 1 to 7"):
        await vortex.pick(db, game.id, picker.user_id, seat=picker.seat, offer=1, index=7)
    for refused in (vortex.draw(db, game.id, player(other.user_id)), vortex.pass_turn(db, game.id, player(other.user_id)),
                    vortex.mulligan(db, game.id, player(picker.user_id))):
        with pytest.raises(UserError, match="opening"):
            await refused
    assert (await state_of(db, game.id))[0] == 1
    since = await last_row_id(db)
    first = picker.pack[0]
    result = await vortex.pick(db, game.id, picker.user_id, seat=picker.seat, offer=1, index=0)
    assert result.held is None  # the next pick is another player's: sent as a new DM
    _, state, extras = await state_of(db, game.id)
    assert state.players[picker.seat].hand == [first] and extras["offer"] == 2
    rows = await outbox_rows(db, since)
    assert [r.kind for r in rows] == [vortex.ANNOUNCE, vortex.PICK]
    assert [e["type"] for e in rows[0].payload["events"]] == ["vortex.PackPassed", "vortex.TurnStarted"]
    assert rows[1].user_id == state.players[state.draft.seat].user_id != picker.user_id
    with pytest.raises(vortex.StaleMessage):  # a double click on the old DM
        await vortex.pick(db, game.id, picker.user_id, seat=picker.seat, offer=1, index=0)

    while state.phase == engine.OPENING:
        await pick_first(db, game.id)
        _, state, _ = await state_of(db, game.id)
        assert census_ok(state, make_cube())
    assert state.phase == engine.BASICS and all(len(p.hand) == 4 for p in state.players)
    basics = await outbox_rows(db, since, vortex.BASICS)
    assert sorted(r.user_id for r in basics) == sorted(PLAYERS[:3])
    await assert_channel_hides(db, game.id, since)


async def test_basic_lands_are_chosen_once_then_play_begins_and_pings_the_active_player(db):
    game = await started(db, 2)
    _, state, _ = await state_of(db, game.id)
    while state.phase == engine.OPENING:
        await pick_first(db, game.id)
        _, state, _ = await state_of(db, game.id)
    a, b = state.players
    with pytest.raises(UserError, match="not a basic land type"):
        await vortex.choose_basics(db, game.id, a.user_id, seat=a.seat, lands=["Island", "Island", "Wastes"])
    prompt = await vortex.checked_basics(db, game.id, a.user_id, seat=a.seat)
    assert prompt.hand == tuple(a.hand)
    await vortex.choose_basics(db, game.id, a.user_id, seat=a.seat, lands=["Plains", "Plains", "Swamp"])
    with pytest.raises(vortex.StaleMessage, match="already chosen"):
        await vortex.choose_basics(db, game.id, a.user_id, seat=a.seat, lands=["Island"] * 3)
    with pytest.raises(PermissionDenied):
        await vortex.choose_basics(db, game.id, a.user_id, seat=b.seat, lands=["Island"] * 3)
    since = await last_row_id(db)
    await vortex.choose_basics(db, game.id, b.user_id, seat=b.seat, lands=["Island"] * 3)
    _, state, _ = await state_of(db, game.id)
    assert state.phase == engine.PLAY and state.players[a.seat].hand[-3:] == ["Plains", "Plains", "Swamp"]
    # The opening's message is told that play begins (no ping: an edit); the first turn's message is
    # a post of its own, pinging only the player whose turn it is.
    opening, news = await outbox_rows(db, since, vortex.ANNOUNCE)
    assert opening.payload["turn"] == 0 and not opening.payload["ping"]
    assert [e["type"] for e in opening.payload["events"]] == ["vortex.PhaseChanged"]
    assert news.payload["opens"] and news.payload["turn"] == state.turn
    assert news.payload["ping"] == [active_user(state)]
    assert census_ok(state, make_cube())


# --- draws, picks, passes -------------------------------------------------------------------------------


async def test_a_draw_of_two_is_two_picks_the_second_held_for_the_clicked_message(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    shoe_before = len(state.shoe)
    since = await last_row_id(db)
    await vortex.draw(db, game.id, player(user), 2)
    rows = await outbox_rows(db, since)
    assert [r.kind for r in rows] == [vortex.ANNOUNCE, vortex.PICK]
    assert [e["type"] for e in rows[0].payload["events"]] == ["vortex.Drawing", "vortex.Replenished"]
    assert rows[1].payload["pick_number"] == 1 and rows[1].payload["picks_total"] == 2
    # Drawing again with the pick pending draws nothing: the pick's DM is queued again (it may be lost).
    version = (await state_of(db, game.id))[0]
    again = await vortex.draw(db, game.id, player(user))
    [resent] = again.resent
    # sent again as a new DM (`again`), not an edit of the player's desk
    assert resent.kind == vortex.PICK and resent.payload == {**rows[1].payload, "again": True} and not again.events
    assert (await state_of(db, game.id))[0] == version and await outbox_rows(db, resent.id) == []
    other = next(u for u in PLAYERS[:3] if u != user)
    with pytest.raises(UserError, match="another player is picking"):
        await vortex.shoe(db, game.id, player(other), "mill", count=1)
    offer = rows[1].payload["offer"]
    first = await vortex.pick(db, game.id, user, seat=seat, offer=offer, index=0)
    assert first.held is not None and first.held.payload["pick_number"] == 2  # shown in place by the cog
    assert await outbox_rows(db, first.held.id) == []  # the next replenish is not announced again
    _, state, _ = await state_of(db, game.id)
    assert len(state.players[seat].pack) == 7 and len(state.shoe) == shoe_before - 1 - 1
    last = await vortex.pick(db, game.id, user, seat=seat, offer=offer + 1, index=6)
    assert last.held is None and last.first(engine.CardDrafted).picks_left == 0
    assert census_ok(last.game.state, make_cube()) and last.game.state.step == engine.MAIN


async def test_passing_is_for_the_active_player_once(db):
    game, state = await in_play(db)
    user = active_user(state)
    other = next(p.user_id for p in state.players if p.user_id != user)
    with pytest.raises(UserError, match="not your turn"):
        await vortex.pass_turn(db, game.id, player(other))
    with pytest.raises(PermissionDenied, match="not a player"):
        await vortex.pass_turn(db, game.id, player(4242))
    with pytest.raises(PermissionDenied, match="another server"):
        await vortex.pass_turn(db, game.id, player(user, guild=2))
    pack, passed = list(state.players[engine.seat_of(state, user)].pack), list(state.passed_pack)
    result = await vortex.pass_turn(db, game.id, player(user))
    after = result.game.state
    assert after.passed_pack == pack and after.players[engine.seat_of(state, user)].pack == passed
    version = result.game.version
    with pytest.raises(UserError, match="already passed"):
        await vortex.pass_turn(db, game.id, player(user))
    assert (await state_of(db, game.id))[0] == version


async def test_the_draw_command_works_from_a_dm_judged_by_seat(db):
    game, state = await in_play(db)
    result = await vortex.draw(db, game.id, player(active_user(state), guild=None))
    assert result.game.state.draft is not None


# --- mulligans ---------------------------------------------------------------------------------------------


def give_basics(state: engine.VortexState, seat: int, n: int) -> None:
    """Swap the seat's first pack cards with basics from the shoe (cards are conserved)."""
    pack = state.players[seat].pack
    for i in range(n):
        j = next(k for k, card in enumerate(state.shoe) if is_basic_land(card))
        pack[i], state.shoe[j] = state.shoe[j], pack[i]


async def test_mulligan_needs_your_upkeep_and_five_basics(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    await edit_state(db, game.id, lambda s: give_basics(s, seat, 4))
    with pytest.raises(UserError, match="5 or more basic lands in your pack; it has 4"):
        await vortex.mulligan(db, game.id, player(user))
    await edit_state(db, game.id, lambda s: give_basics(s, seat, 5))
    other = next(p.user_id for p in state.players if p.user_id != user)
    with pytest.raises(UserError, match="your own upkeep"):
        await vortex.mulligan(db, game.id, player(other))
    _, state, _ = await state_of(db, game.id)
    assert vortex.mulligan_problem(state, seat) is None
    since = await last_row_id(db)
    exiled = list(state.players[seat].pack)
    result = await vortex.mulligan(db, game.id, player(user))
    assert result.game.state.players[seat].exile == exiled and result.game.state.players[seat].pack == []
    [news] = await outbox_rows(db, since, vortex.ANNOUNCE)
    assert news.payload["events"][0]["exiled"] == exiled  # revealed: public now
    drawn = await vortex.draw(db, game.id, player(user))
    assert len(drawn.game.state.players[seat].pack) == engine.MULLIGAN_PACK_SIZE
    assert census_ok(drawn.game.state, make_cube())
    _, state, extras = await state_of(db, game.id)
    await vortex.pick(db, game.id, user, seat=seat, offer=extras["offer"], index=0)
    with pytest.raises(UserError, match="upkeep"):
        await vortex.mulligan(db, game.id, player(user))
    await assert_channel_hides(db, game.id, since)


# --- the shoe ------------------------------------------------------------------------------------------------


async def test_mill_look_arrange_top_bottom_and_shuffle(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    since = await last_row_id(db)
    top3 = state.shoe[:3]
    milled = await vortex.shoe(db, game.id, player(user), "mill", count=3)
    assert milled.game.state.players[seat].graveyard == top3
    [news] = await outbox_rows(db, since, vortex.ANNOUNCE)
    assert news.payload["events"][0]["cards"] == top3  # milled cards are public

    since = await last_row_id(db)
    shoe = list(milled.game.state.shoe)
    await vortex.shoe(db, game.id, player(user), "look", count=3)
    rows = await outbox_rows(db, since)
    assert [r.kind for r in rows] == [vortex.ANNOUNCE, vortex.LOOK]
    assert rows[0].payload["events"] == [{"type": "vortex.Looked", "seat": seat, "count": 3}]
    assert rows[1].user_id == user and rows[1].payload["cards"] == shoe[:3]
    look = rows[1].payload["look"]
    assert await vortex.still_wanted(db, vortex.LookPrompt.from_payload(rows[1].payload))
    other = next(p for p in state.players if p.user_id != user)
    with pytest.raises(PermissionDenied):
        await vortex.arrange(db, game.id, other.user_id, seat=seat, look=look, bottom=frozenset())
    with pytest.raises(vortex.StaleMessage):
        await vortex.arrange(db, game.id, user, seat=seat, look=look + 1, bottom=frozenset())
    with pytest.raises(UserError, match="3 cards you looked at"):
        await vortex.arrange(db, game.id, user, seat=seat, look=look, bottom=frozenset({5}))
    arranged = await vortex.arrange(db, game.id, user, seat=seat, look=look, bottom=frozenset({0}))
    assert arranged.game.state.shoe == shoe[1:3] + shoe[3:] + shoe[:1]
    assert not await vortex.still_wanted(db, vortex.LookPrompt.from_payload(rows[1].payload))
    with pytest.raises(vortex.StaleMessage):
        await vortex.arrange(db, game.id, user, seat=seat, look=look, bottom=frozenset())

    hand = state.players[seat].hand
    with pytest.raises(UserError, match="Several cards in your hand start with"):
        await vortex.shoe(db, game.id, player(user), "top", card="secret *gem*")
    # A card is named in any spelling, or by a start no other card of the hand shares (long names).
    card = next(c for c in hand if sum(h.startswith(c[:-1]) for h in hand) == 1)
    on_top = await vortex.shoe(db, game.id, player(user), "top", card=card[:-1].upper())
    assert on_top.game.state.shoe[0] == card and card not in on_top.game.state.players[seat].hand
    with pytest.raises(UserError, match="not in your hand"):
        await vortex.shoe(db, game.id, player(user), "bottom", card=card)
    land = on_top.game.state.players[seat].hand[-1]
    bottom = await vortex.shoe(db, game.id, player(user), "bottom", card=land.lower())
    assert bottom.game.state.shoe[-1] == land
    for bad, match in ((dict(action="top", count=2), "Name the card"), (dict(action="mill", card=card), "top and bottom"),
                       (dict(action="shuffle", count=2), "no `count`"), (dict(action="scry"), "Unknown shoe action"),
                       (dict(action="mill", count=0), "from 1 to 100")):
        version = (await state_of(db, game.id))[0]
        with pytest.raises(UserError, match=match):
            await vortex.shoe(db, game.id, player(user), bad.pop("action"), **bad)
        assert (await state_of(db, game.id))[0] == version
    shuffled = await vortex.shoe(db, game.id, player(user), "shuffle")
    assert sorted(shuffled.game.state.shoe) == sorted(bottom.game.state.shoe)
    assert census_ok(shuffled.game.state, make_cube())
    await assert_channel_hides(db, game.id, since)


async def test_an_empty_shoe_refills_nothing_and_an_empty_pack_costs_a_life_and_the_turn(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "mill", count=100)
    await edit_state(db, game.id, lambda s: give_basics(s, seat, 0))
    _, state, _ = await state_of(db, game.id)
    assert state.shoe == []
    empty = await vortex.shoe(db, game.id, player(user), "mill", count=2)
    assert empty.first(engine.Milled).cards == ()
    drawn = await vortex.draw(db, game.id, player(user))
    assert len(drawn.game.state.players[seat].pack) == len(state.players[seat].pack)  # nothing refilled
    _, state, extras = await state_of(db, game.id)
    await vortex.pick(db, game.id, user, seat=seat, offer=extras["offer"], index=0)
    # Empty the pack into the hand (as picks would), then draw: the penalty.
    await edit_state(db, game.id, lambda s: (s.players[seat].hand.extend(s.players[seat].pack),
                                             s.players[seat].pack.clear()))
    turn = state.turn
    penalty = await vortex.draw(db, game.id, player(user), 3)
    after = penalty.game.state
    assert after.players[seat].life == 19 and after.players[seat].penalties == 1
    assert after.turn == turn + 1 and after.draft is None and census_ok(after, make_cube())
    # The penalty is told in the turn's message; the next turn opens a message of its own, pinging its player.
    told, news = (await outbox_rows(db, since, vortex.ANNOUNCE))[-2:]
    kinds = [e["type"] for e in told.payload["events"]]
    assert kinds[:3] == ["vortex.Drawing", "vortex.Replenished", "vortex.EmptyPackPenalty"] and not told.payload["ping"]
    assert news.payload["events"][0]["type"] == "vortex.TurnStarted" and news.payload["opens"]
    assert news.payload["ping"] == [active_user(after)]
    await assert_channel_hides(db, game.id, since)


async def test_reveal_shows_the_top_cards_to_the_channel_and_leaves_them(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    since = await last_row_id(db)
    revealed = await vortex.shoe(db, game.id, player(user), "reveal", count=3)
    assert revealed.game.state.shoe == state.shoe
    [news] = await outbox_rows(db, since)
    assert news.kind == vortex.ANNOUNCE and news.payload["events"] == [
        {"type": "vortex.ShoeRevealed", "seat": seat, "cards": state.shoe[:3]}]
    with pytest.raises(UserError, match="`to` and `reveal` are for search only"):
        await vortex.shoe(db, game.id, player(user), "reveal", count=1, reveal=True)


async def test_a_search_shows_the_searcher_the_shoe_by_dm_takes_what_the_effect_allows_and_shuffles(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    other = next(p.user_id for p in state.players if p.user_id != user)
    since = await last_row_id(db)
    began = await vortex.shoe(db, game.id, player(user), "search", count=2)
    assert began.first(engine.SearchBegan) == engine.SearchBegan(seat, 2, "hand", False, len(state.shoe))
    news, dm = await outbox_rows(db, since)
    assert news.kind == vortex.ANNOUNCE and news.payload["events"][0]["type"] == "vortex.SearchBegan"
    assert dm.kind == vortex.SEARCH and dm.user_id == user
    prompt = vortex.SearchPrompt.from_payload(dm.payload)
    # The whole shoe, sorted by name: its order never reaches the player.
    assert list(prompt.shoe) == sorted(state.shoe, key=lambda c: (c.casefold(), c)) and prompt.chosen == ()
    assert (prompt.count, prompt.to, prompt.reveal, prompt.room) == (2, "hand", False, 2)
    assert await vortex.still_wanted(db, prompt)
    # Nobody touches the shoe meanwhile; repeating the command sends the same DM again.
    with pytest.raises(UserError, match="another player is searching"):
        await vortex.shoe(db, game.id, player(other), "mill", count=1)
    with pytest.raises(UserError, match="Finish your search"):
        await vortex.pass_turn(db, game.id, player(user))
    again = await vortex.shoe(db, game.id, player(user), "search", count=5, to="top")
    [resent] = again.resent
    assert resent.kind == vortex.SEARCH and resent.payload == dm.payload
    [held] = await vortex.resend(db, game.id, user)
    assert held.kind == vortex.SEARCH
    number = prompt.search
    with pytest.raises(PermissionDenied):
        await vortex.search_choose(db, game.id, other, seat=seat, search=number, names=[0])
    with pytest.raises(vortex.StaleMessage):
        await vortex.search_choose(db, game.id, user, seat=seat, search=number + 1, names=[0])
    with pytest.raises(UserError, match="among the cards"):
        await vortex.search_choose(db, game.id, user, seat=seat, search=number, names=[len(prompt.names)])
    wanted = [name for name in prompt.names if not is_basic_land(name)][:2]
    chosen = await vortex.search_choose(db, game.id, user, seat=seat, search=number,
                                        names=[prompt.names.index(wanted[0])])
    assert chosen.chosen == (wanted[0],) and chosen.available(wanted[0]) == prompt.available(wanted[0]) - 1
    assert not await vortex.still_wanted(db, prompt)  # the old DM is stale now
    with pytest.raises(UserError, match="choose 1 more"):
        await vortex.search_choose(db, game.id, user, seat=seat, search=number, names=[0, 1])
    cleared = await vortex.search_clear(db, game.id, user, seat=seat, search=number)
    assert cleared.chosen == ()
    await vortex.search_choose(db, game.id, user, seat=seat, search=number,
                               names=[prompt.names.index(name) for name in wanted])
    since = await last_row_id(db)
    hand = list(state.players[seat].hand)
    done = await vortex.finish_search(db, game.id, user, seat=seat, search=number)
    assert done.first(engine.CardsFound).cards == tuple(wanted)
    after = done.game.state
    assert after.players[seat].hand == hand + wanted and after.search is None and census_ok(after, make_cube())
    assert Counter(after.shoe) == Counter(state.shoe) - Counter(wanted)
    [news] = await outbox_rows(db, since)
    assert news.payload["events"] == [{"type": "vortex.SearchFinished", "seat": seat, "found": 2, "to": "hand", "cards": [],
                                       "shoe_size": len(after.shoe)}]
    await assert_channel_hides(db, game.id, since)
    with pytest.raises(vortex.StaleMessage, match="search is over"):
        await vortex.finish_search(db, game.id, user, seat=seat, search=number)
    assert await vortex.resend(db, game.id, user) == []


async def test_a_search_for_the_battlefield_or_revealed_names_the_cards_in_the_channel(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    for to, reveal in (("battlefield", None), ("top", True)):
        began = await vortex.shoe(db, game.id, player(user), "search", count=1, to=to, reveal=reveal)
        number = (await state_of(db, game.id))[2]["search"]
        land = next(c for c in began.game.state.shoe if is_basic_land(c))
        prompt = await vortex.checked_search(db, game.id, user, seat=seat, search=number)
        await vortex.search_choose(db, game.id, user, seat=seat, search=number, names=[prompt.names.index(land)])
        since = await last_row_id(db)
        done = await vortex.finish_search(db, game.id, user, seat=seat, search=number)
        [news] = await outbox_rows(db, since)
        assert news.payload["events"][0]["cards"] == [land] and news.payload["events"][0]["to"] == to
        if to == "top":
            assert done.game.state.shoe[0] == land
        else:
            assert done.game.state.players[seat].battlefield[-1] == land
    with pytest.raises(UserError, match="`card` is for top and bottom only"):
        await vortex.shoe(db, game.id, player(user), "search", card="Island")


# --- the table's bookkeeping: zones and life ------------------------------------------------------------------


async def test_players_move_their_cards_between_zones_and_the_channel_is_told(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    card = next(c for c in state.players[seat].hand if not is_basic_land(c))
    other = next(p.user_id for p in state.players if p.user_id != user)
    assert card in vortex.zone_cards(await vortex.get_game(db, game.id), user, engine.HAND)
    since = await last_row_id(db)
    played = await vortex.move(db, game.id, player(user), card.upper(), engine.HAND, engine.BATTLEFIELD)
    assert played.events == [engine.CardMoved(seat, card, "hand", "battlefield")]
    [news] = await outbox_rows(db, since)
    assert news.kind == vortex.ANNOUNCE and news.channel_id == CHANNEL and card in json.dumps(news.payload)
    view = await vortex.get_game(db, game.id)
    # Autocomplete offers a zone's own cards: the played card is no longer offered from the hand
    # (`/vortex shoe top`/`bottom`, `/vortex play`), but from the battlefield; nothing to a non-player.
    assert card not in vortex.zone_cards(view, user, engine.HAND)
    assert vortex.zone_cards(view, user, engine.BATTLEFIELD) == [card]
    assert vortex.zone_cards(view, other, engine.BATTLEFIELD) == [] and vortex.zone_cards(view, 4242, "hand") == []
    with pytest.raises(UserError, match="is not in your hand"):
        await vortex.shoe(db, game.id, player(user), "top", card=card)
    with pytest.raises(UserError, match="is not in your graveyard"):
        await vortex.move(db, game.id, player(user), card, engine.GRAVEYARD, engine.HAND)
    with pytest.raises(UserError, match="different zones"):
        await vortex.move(db, game.id, player(user), card, engine.BATTLEFIELD, engine.BATTLEFIELD)
    await vortex.move(db, game.id, player(user), card, engine.BATTLEFIELD, engine.GRAVEYARD)
    public = (await vortex.get_game(db, game.id)).public.seats[seat]
    assert (public.battlefield_size, public.graveyard_size, public.exile_size) == (0, 1, 0)
    _, after, _ = await state_of(db, game.id)
    assert census_ok(after, make_cube())


async def test_life_changes_are_recorded_and_told(db):
    game, state = await in_play(db, 2)
    user = state.players[1].user_id
    since = await last_row_id(db)
    lost = await vortex.life(db, game.id, player(user), -23)
    assert lost.events == [engine.LifeChanged(1, -23, -3, "reported")]
    [news] = await outbox_rows(db, since)
    assert news.kind == vortex.ANNOUNCE and news.channel_id == CHANNEL
    await vortex.life(db, game.id, player(user), 5)
    assert (await vortex.get_game(db, game.id)).public.seats[1].life == 2
    with pytest.raises(UserError, match="other than 0"):
        await vortex.life(db, game.id, player(user), 0)
    with pytest.raises(PermissionDenied):
        await vortex.life(db, game.id, player(4242), -1)


# --- a step's buttons go when the step is over (issue 25, item 7) ----------------------------------------------


def _queued(row: OutboxMessage) -> outbox.Queued:
    return outbox.Queued(row.id, outbox.Message(row.kind, row.payload, row.user_id, row.channel_id, row.guild_id),
                         0, row.created_at)


async def _delivered(db, row: OutboxMessage, message_id: int) -> None:
    """Discord accepted the DM of `row` as message `message_id` (in the DM channel 7000 + user)."""
    await outbox.settle(db, [outbox.Outcome(_queued(row), channel_id=7000, message_id=message_id)])


async def shown_of(db, game_id: int) -> list[tuple[str, int, int, int]]:
    """What the kit records as shown for the game: (key, version, channel, message)."""
    async with db.read() as session:
        return [(s.key, s.version, s.channel_id, s.message_id)
                for s in await shown.showing(session, shown.Owner(vortex.KIND, game_id))]


def _retired(rows: list[OutboxMessage]) -> list[tuple[str, int, str]]:
    return [(r.payload["kind"], r.payload["message_id"], r.payload["reason"]) for r in rows]


async def test_a_looks_dms_lose_their_buttons_when_the_shoe_moves_on(db):
    game, state = await in_play(db)
    user = active_user(state)
    seat = engine.seat_of(state, user)
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "look", count=2)
    [first] = await outbox_rows(db, since, vortex.LOOK)
    await _delivered(db, first, 501)
    assert await shown_of(db, game.id) == [(vortex.LOOK, 1, 7000, 501)]
    assert "shown" not in (await state_of(db, game.id))[2]  # the kit's record, not the game's bookkeeping
    [again] = await vortex.resend(db, game.id, user)  # a second copy of the same look
    [copy] = [r for r in await outbox_rows(db, first.id, vortex.LOOK) if r.id == again.id]
    await _delivered(db, copy, 502)  # one message per step has live buttons: the first copy loses them
    assert await shown_of(db, game.id) == [(vortex.LOOK, 1, 7000, 502)]
    assert _retired(await outbox_rows(db, since, vortex.RETIRE)) == [(vortex.LOOK, 501, vortex.MOVED)]
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "shuffle")  # the look is over: the copy loses its buttons
    retired = await outbox_rows(db, since, vortex.RETIRE)
    assert [(r.payload["kind"], r.payload["message_id"], r.payload["channel_id"]) for r in retired] == [
        (vortex.LOOK, 502, 7000)]
    assert _retired(retired) == [(vortex.LOOK, 502, vortex.OVER)]
    assert await shown_of(db, game.id) == []

    # Put back from the older copy (clicked before its edit landed): it shows the outcome (the cog
    # edits it), the newer one loses its buttons.
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "look", count=1)
    [look] = await outbox_rows(db, since, vortex.LOOK)
    await _delivered(db, look, 601)
    [held] = await vortex.resend(db, game.id, user)
    [copy] = [r for r in await outbox_rows(db, look.id, vortex.LOOK) if r.id == held.id]
    await _delivered(db, copy, 602)
    since = await last_row_id(db)
    await vortex.arrange(db, game.id, user, seat=seat, look=look.payload["look"], bottom=frozenset(), message_id=601)
    assert [r.payload["message_id"] for r in await outbox_rows(db, since, vortex.RETIRE)] == [602]
    # Put back from the message that shows it: nothing else to retire.
    await vortex.shoe(db, game.id, player(user), "look", count=1)
    [look] = await outbox_rows(db, since, vortex.LOOK)
    await _delivered(db, look, 651)
    since = await last_row_id(db)
    await vortex.arrange(db, game.id, user, seat=seat, look=look.payload["look"], bottom=frozenset(), message_id=651)
    assert await outbox_rows(db, since, vortex.RETIRE) == []

    # A copy Discord accepts after its step is over loses its buttons at once.
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "look", count=1)
    [late] = await outbox_rows(db, since, vortex.LOOK)
    await vortex.shoe(db, game.id, player(user), "shuffle")
    since = await last_row_id(db)
    await _delivered(db, late, 701)
    assert _retired(await outbox_rows(db, since, vortex.RETIRE)) == [(vortex.LOOK, 701, vortex.OVER)]
    assert await shown_of(db, game.id) == []


async def test_a_searchs_dm_loses_its_buttons_when_the_game_is_cancelled_or_ended(db):
    game, state = await in_play(db)
    user = active_user(state)
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "search", count=1)
    [search] = await outbox_rows(db, since, vortex.SEARCH)
    await _delivered(db, search, 801)
    since = await last_row_id(db)
    await tables.cancel(db, vortex.SPEC, game.id, organizer())
    [retired] = await outbox_rows(db, since, vortex.RETIRE)
    assert retired.payload == {"game_id": game.id, "kind": vortex.SEARCH, "number": 1, "channel_id": 7000,
                               "message_id": 801, "reason": vortex.OVER}

    game, state = await in_play(db)
    user = active_user(state)
    since = await last_row_id(db)
    await vortex.shoe(db, game.id, player(user), "look", count=1)
    await _delivered(db, (await outbox_rows(db, since, vortex.LOOK))[0], 901)
    since = await last_row_id(db)
    await vortex.end(db, game.id, organizer())
    assert [r.payload["message_id"] for r in await outbox_rows(db, since, vortex.RETIRE)] == [901]


# --- hands, resends, stale DMs -------------------------------------------------------------------------------


async def test_hand_is_private_and_resend_queues_the_open_dms(db):
    game, state = await in_play(db)
    user = active_user(state)
    shown = await vortex.hand(db, game.id, user)
    assert shown.private.hand == tuple(state.players[engine.seat_of(state, user)].hand)
    with pytest.raises(PermissionDenied):
        await vortex.hand(db, game.id, 4242)
    assert await vortex.resend(db, game.id, user) == []
    await vortex.draw(db, game.id, player(user))
    [held] = await vortex.resend(db, game.id, user)
    assert held.kind == vortex.PICK and held.message.user_id == user
    assert await vortex.still_wanted(db, vortex.PickPrompt.from_payload(held.payload))
    other = next(p.user_id for p in state.players if p.user_id != user)
    assert await vortex.resend(db, game.id, other) == []


# --- the end ------------------------------------------------------------------------------------------------------


async def test_end_with_a_winner_records_the_result_and_without_one_records_nothing(db):
    async with db.write() as session:
        session.add(GuildSettings(guild_id=GUILD, leaderboard_channel_id=BOARD))
    game, state = await in_play(db)
    winner = state.players[1].user_id
    with pytest.raises(PermissionDenied):
        await vortex.end(db, game.id, player(winner), winner_id=winner)
    with pytest.raises(UserError, match="not playing"):
        await vortex.end(db, game.id, organizer(), winner_id=4242)
    since = await last_row_id(db)
    ended = await vortex.end(db, game.id, organizer(), winner_id=winner)
    assert ended.status == "over" and ended.winner_id == winner and ended.state.phase == engine.OVER
    rows = await outbox_rows(db, since)
    # The turn's message loses its buttons (redrawn); the game's own channel is told who won, and
    # the results channel too.
    assert [(r.kind, r.channel_id) for r in rows] == [(vortex.ANNOUNCE, CHANNEL), (vortex.FINAL, CHANNEL),
                                                       (vortex.FINAL, BOARD)]
    assert rows[0].payload["redraw"] and not rows[0].payload["events"]
    rows = rows[1:]
    assert "tell_if_refused" not in rows[0].payload and rows[1].payload["tell_if_refused"]["user_id"] == organizer().user_id
    async with db.read() as session:
        results = {r.user_id: (r.placement, r.points) for r in (await session.execute(
            select(EventResult).where(EventResult.format == "vortex"))).scalars()}
    # The others share 2nd place: they finished ahead of nobody, so one point each (for playing).
    assert len(state.players) == 3
    assert results == {p.user_id: ((1, 3.0) if p.user_id == winner else (2, 1.0)) for p in state.players}
    with pytest.raises(UserError, match="over"):
        await vortex.draw(db, game.id, player(winner))

    second = await vortex.create_game(db, organizer(), channel_id=CHANNEL, cube=make_cube(), seed=SEED)
    for user in PLAYERS[:2]:
        await _join(db, second, user)
    await vortex.begin(db, second.id, organizer())
    since = await last_row_id(db)
    await vortex.end(db, second.id, organizer())
    rows = await outbox_rows(db, since)
    assert [(r.kind, r.channel_id) for r in rows] == [(vortex.ANNOUNCE, CHANNEL), (vortex.FINAL, CHANNEL)]
    async with db.read() as session:
        assert not (await session.execute(select(EventResult).where(EventResult.event_id == second.id))).first()


async def test_cancelling_a_running_game_says_so_and_stops_its_buttons(db):
    game = await started(db, 2)
    _, state, extras = await state_of(db, game.id)
    since = await last_row_id(db)
    await tables.cancel(db, vortex.SPEC, game.id, organizer())
    # The opening's message is redrawn (it says the game was cancelled); the kit tells the channel.
    assert [r.kind for r in await outbox_rows(db, since)] == [vortex.ANNOUNCE, vortex.ENDED]
    picker = state.players[state.draft.seat]
    with pytest.raises(UserError, match="cancelled"):
        await vortex.pick(db, game.id, picker.user_id, seat=picker.seat, offer=extras["offer"], index=0)
    pick_row = (await outbox_rows(db, 0, vortex.PICK))[0]
    assert not await vortex.still_wanted(db, vortex.PickPrompt.from_payload(pick_row.payload))


async def test_a_closed_dm_is_said_in_the_channel_and_retried_at_the_next_start(db):
    await started(db, 2)
    [row] = await outbox_rows(db, 0, vortex.PICK)
    queued = outbox.Queued(row.id, outbox.Message(row.kind, row.payload, row.user_id, row.channel_id, row.guild_id),
                           0, row.created_at)
    await outbox.settle(db, [outbox.Outcome(queued, dm_closed=True, error="closed")])
    [notice] = await outbox_rows(db, row.id, vortex.DMS_CLOSED)
    assert notice.channel_id == CHANNEL and notice.payload == {"user_id": row.user_id}
    [parked] = await outbox_rows(db, 0, vortex.PICK)
    assert parked.status == outbox.PENDING  # parked until the bot starts again (the player may open DMs)
