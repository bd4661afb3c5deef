"""Treasure Battler service against real SQLite and PostgreSQL databases."""

from __future__ import annotations

import itertools
import random

import pytest
from sqlalchemy import func, select

from bot.features.cubes.service import CubeDetail
from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler.models import BattlerGame
from bot.kit import claims, outbox
from bot.kit.errors import Conflict, InvalidPayload, PermissionDenied, UserError
from bot.kit.tables import Actor, TableRef
from bot.store.models import EventResult, OutboxMessage
from tests.common import CHANNEL, GUILD, ORGANIZER, numbered_cube, player

DM_CHANNEL = 77


def member(user_id: int, organizer: bool) -> Actor:
    return Actor(user_id, GUILD, manage_guild=organizer)
_message_ids = itertools.count(5_000)


def make_cube(size: int = 120) -> CubeDetail:
    return numbered_cube(size)


async def new_lobby(db, players: int, **options) -> battler.GameView:
    options.setdefault("max_seats", 8)
    game = await battler.create_game(db, member(ORGANIZER, True), channel_id=CHANNEL, cube=make_cube(), seed=4242, **options)
    for user in range(1, players + 1):
        game = await battler.join(db, game.id, player(1000 + user))
    return game


async def deliver(db, prompts) -> dict[int, battler.PrivatePrompt]:
    """Pretend the cog DMed the prompts (records the messages like the messenger does)."""
    for prompt in prompts:
        await battler.record_shown(db, prompt, channel_id=DM_CHANNEL, message_id=next(_message_ids))
    return {p.user_id: p for p in prompts}


# Each DM action's move, by the word its custom_id carries (the component of each names its move).
MOVES = {"basics": battler.choose_basics, "trade": battler.trade, "reroll": battler.reroll,
         "shift": battler.shift_basics, "buy": battler.buy, "done": battler.done, "take": battler.take,
         "pass": battler.pass_carousel}


async def act(db, prompt: battler.PrivatePrompt, action: str, **kwargs) -> battler.ActionResult:
    return await battler.private_action(
        db, prompt.game_id, prompt.user_id, MOVES[action](**kwargs), seat=prompt.seat, version=prompt.version,
        channel_id=DM_CHANNEL, message_id=next(_message_ids),
    )


async def started_game(db, players: int = 4, **options) -> tuple[battler.GameView, dict[int, battler.PrivatePrompt]]:
    game = await new_lobby(db, players, **options)
    result = await battler.begin(db, game.id, member(ORGANIZER, False))
    return result.game, await deliver(db, result.prompts)


async def setup_all(db, prompts: dict[int, battler.PrivatePrompt]) -> battler.ActionResult:
    result = None
    for prompt in prompts.values():
        result = await act(db, prompt, "basics", basics=["Island", "Swamp"])
    assert result is not None and result.game.state.phase == "play"
    return result


async def stored(db, game_id: int) -> tuple[int, dict]:
    async with db.read() as session:
        row = (await session.execute(select(BattlerGame).where(BattlerGame.id == game_id))).scalar_one()
        return row.version, row.state


async def test_lobby_rules(db):
    game = await new_lobby(db, 2, max_seats=4)
    with pytest.raises(Conflict, match="already in"):
        await battler.join(db, game.id, player(1001))
    await battler.join(db, game.id, player(1003))
    game = await battler.join(db, game.id, player(1004))
    assert game.is_full
    with pytest.raises(Conflict, match="full"):
        await battler.join(db, game.id, player(1005))
    game = await battler.leave(db, game.id, player(1004))
    assert game.player_ids == (1001, 1002, 1003)
    with pytest.raises(Conflict, match="not in"):
        await battler.leave(db, game.id, player(1004))
    with pytest.raises(Conflict, match="already running"):
        await battler.create_game(db, member(5, True), channel_id=CHANNEL, cube=make_cube())
    with pytest.raises(UserError, match="even"):
        await battler.create_game(db, member(5, True), channel_id=11, cube=make_cube(), max_seats=5)
    with pytest.raises(UserError, match="at least 40"):
        await battler.create_game(db, member(5, True), channel_id=11, cube=make_cube(30))
    with pytest.raises(UserError, match="progression"):
        await battler.create_game(db, member(5, True), channel_id=11, cube=make_cube(), progression="x")


async def test_begin_needs_an_even_count_of_at_least_two_and_an_organizer(db):
    game = await new_lobby(db, 1)
    with pytest.raises(UserError, match="even number"):
        await battler.begin(db, game.id, member(ORGANIZER, False))
    await battler.join(db, game.id, player(1002))
    await battler.join(db, game.id, player(1003))
    with pytest.raises(UserError, match="even number of players .* 3 joined"):
        await battler.begin(db, game.id, member(ORGANIZER, True))
    with pytest.raises(PermissionDenied):
        await battler.begin(db, game.id, member(1001, False))
    await battler.join(db, game.id, player(1004))
    result = await battler.begin(db, game.id, member(1001, True))  # a server organizer
    assert result.game.status == "running"
    assert [p.kind for p in result.prompts] == ["setup"] * 4
    # Seats are the lobby shuffled with the game's seed; the stored state is the engine's new game.
    order = [1001, 1002, 1003, 1004]
    random.Random(4242).shuffle(order)
    expected = engine.new_game(make_cube().names, order, seed=4242)
    version, state = await stored(db, game.id)
    assert version == 1
    assert engine.BattlerState.from_dict(state) == expected
    with pytest.raises(Conflict, match="already started"):
        await battler.join(db, game.id, player(1005))
    with pytest.raises(Conflict, match="already started"):
        await battler.begin(db, game.id, member(ORGANIZER, True))


async def test_setup_reports_confirmations_and_disputes_persist(db):
    game, prompts = await started_game(db)
    first = next(iter(prompts.values()))
    result = await act(db, first, "basics", basics=["Forest", "Forest"])
    assert result.actor_prompt is not None and result.actor_prompt.basics == ("Forest", "Forest")
    # The old setup message is now stale; the re-rendered one is current (and may change the choice).
    with pytest.raises(battler.StaleMessage):
        await act(db, first, "basics", basics=["Island", "Island"])
    await act(db, result.actor_prompt, "basics", basics=["Plains", "Island"])
    others = [p for uid, p in prompts.items() if uid != first.user_id]
    for prompt in others:
        result = await act(db, prompt, "basics", basics=["Island", "Swamp"])
    state = result.game.state
    assert state.phase == "play" and [pr.method for pr in state.pairings] == ["across", "across"]
    assert result.prompts == []  # PLAY has no private prompt

    pr1, pr2 = state.pairings
    a_user, b_user = state.players[pr1.a].user_id, state.players[pr1.b].user_id
    pending = await battler.report(db, game.id, player(a_user), "won", treasures_left=0)
    assert pending.report is not None and pending.report.claim == "a"
    # Nothing is applied until confirmed.
    _, saved = await stored(db, game.id)
    assert engine.BattlerState.from_dict(saved).pairings[0].result is None
    with pytest.raises(UserError, match="your opponent must"):
        await battler.confirm_report(db, game.id, pending.report.id, member(a_user, False))
    with pytest.raises(PermissionDenied):
        await battler.confirm_report(db, game.id, pending.report.id, member(999, False))
    confirmed = await battler.confirm_report(db, game.id, pending.report.id, member(b_user, False))
    assert confirmed.game.state.pairings[0].result == "a"
    assert confirmed.game.state.players[pr1.a].treasures == 0
    with pytest.raises(Conflict, match="no longer waiting"):
        await battler.confirm_report(db, game.id, pending.report.id, member(b_user, False))

    # Second pairing: contradicting reports become a dispute; only an organizer decides it.
    c_user, d_user = state.players[pr2.a].user_id, state.players[pr2.b].user_id
    await battler.report(db, game.id, player(c_user), "won")
    disputed = await battler.report(db, game.id, player(d_user), "won")
    assert disputed.dispute is not None and disputed.dispute.counter_claim == "b"
    again = await battler.report(db, game.id, player(c_user), "lost")  # still the organizer's: shown again
    assert again.waiting is not None and again.waiting.id == disputed.dispute.id and again.applied is None
    with pytest.raises(PermissionDenied):
        await battler.decide_report(db, game.id, disputed.dispute.id, "b", member(c_user, False))
    decided = await battler.decide_report(db, game.id, disputed.dispute.id, "b", member(ORGANIZER, False))
    assert decided.game.state.phase == "draft"
    assert {p.kind for p in decided.prompts} == {"draft"} and len(decided.prompts) == 4
    _, saved = await stored(db, game.id)
    loaded = engine.BattlerState.from_dict(saved)
    assert loaded.players[pr1.b].poison == 1 and loaded.players[pr2.a].poison == 1
    assert loaded.history[-1]["result"] == "b"


async def test_matching_reports_confirm_and_a_concession_costs_the_treasure(db):
    game, prompts = await started_game(db, players=2)
    await setup_all(db, prompts)
    state = (await battler.get_game(db, game.id)).state
    a, b = state.players
    await battler.report(db, game.id, player(a.user_id), "conceded", treasures_left=1)
    result = await battler.report(db, game.id, player(b.user_id), "won", treasures_left=3)
    assert result.applied is not None
    after = result.game.state
    assert after.phase == "draft"
    # a conceded: no income (1 treasure stays 1); b: 3 capped nothing, +1 income = 4.
    assert after.players[0].treasures == 1 and after.players[1].treasures == 4
    assert after.players[0].poison == 1


async def test_draft_actions_persist_refusals_and_stale_messages(db):
    game, prompts = await started_game(db)
    setup = await setup_all(db, prompts)
    state = setup.game.state
    for pr in state.pairings:
        rep = await battler.report(db, game.id, player(state.players[pr.a].user_id), "won")
        result = await battler.confirm_report(
            db, game.id, rep.report.id, member(state.players[pr.b].user_id, False)
        )
    with pytest.raises(UserError, match="DRAFT phase"):
        await battler.report(db, game.id, player(state.players[0].user_id), "won")
    drafts = await deliver(db, result.prompts)
    prompt = drafts[state.players[0].user_id]
    assert prompt.costs == battler.Costs(trade=0, reroll=1, shift_basics=1, buy_basic=None)

    traded = await act(db, prompt, "trade", stash_index=0, pack_index=2)
    p1 = traded.actor_prompt
    assert p1.stash[0] == prompt.pack[2] and p1.pack[2] == prompt.stash[0]
    with pytest.raises(battler.StaleMessage):  # the message it was rendered on is out of date
        await act(db, prompt, "trade", stash_index=0, pack_index=2)
    with pytest.raises(UserError, match="costs 3 treasures; you have 2"):
        await act(db, p1, "buy", basic_type="Island")
    with pytest.raises(UserError, match="same set"):
        await act(db, p1, "shift", basics=["Swamp", "Island"])
    p2 = (await act(db, p1, "shift", basics=["Mountain", "Swamp"])).actor_prompt
    assert p2.basics == ("Mountain", "Swamp") and p2.treasures == 1
    p3 = (await act(db, p2, "reroll")).actor_prompt
    assert p3.treasures == 0 and p3.pack != p2.pack
    with pytest.raises(UserError, match="costs 1 treasure; you have 0"):
        await act(db, p3, "reroll")
    other = drafts[state.players[1].user_id]
    with pytest.raises(PermissionDenied):
        await battler.private_action(db, game.id, other.user_id, battler.done(), seat=p3.seat, version=p3.version)
    with pytest.raises(PermissionDenied):
        await battler.private_action(db, game.id, 4242, battler.done(), seat=p3.seat, version=p3.version)
    done = (await act(db, p3, "done")).actor_prompt
    assert done.done and done.costs.trade is None

    # Everything above is in the database, exactly as the engine computes it.
    _, saved = await stored(db, game.id)
    loaded = engine.BattlerState.from_dict(saved)
    me = loaded.players[prompt.seat]
    assert (tuple(me.stash), tuple(me.pack), tuple(me.basics), me.treasures, me.done) == (
        done.stash, done.pack, done.basics, 0, True
    )
    assert loaded.packyard[-5:] == list(p2.pack)  # the re-rolled pack went to the packyard

    with pytest.raises(PermissionDenied):
        await battler.force_end_draft(db, game.id, member(1001, False))
    forced = await battler.force_end_draft(db, game.id, member(ORGANIZER, False))
    assert forced.game.state.phase == "play" and forced.phase_changed
    with pytest.raises(battler.StaleMessage):  # draft messages are stale once the phase is over
        await act(db, drafts[state.players[1].user_id], "done")
    with pytest.raises(UserError, match="PLAY phase"):
        await battler.force_end_draft(db, game.id, member(ORGANIZER, True))
    with pytest.raises(PermissionDenied):
        await battler.report(db, game.id, player(999), "won")


async def test_a_double_click_acts_once(db):
    """Both clicks of a double click run at once; the row lock makes the second see the first's result."""
    import asyncio

    game, prompts = await started_game(db)
    prompt = next(iter(prompts.values()))
    outcomes = await asyncio.gather(
        act(db, prompt, "basics", basics=["Island", "Island"]), act(db, prompt, "basics", basics=["Swamp", "Swamp"]),
        return_exceptions=True,
    )
    done = [o for o in outcomes if isinstance(o, battler.ActionResult)]
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(done) == 1 and len(refused) == 1 and isinstance(refused[0], battler.StaleMessage)
    state = (await battler.get_game(db, game.id)).state
    assert state.players[prompt.seat].basics == list(done[0].actor_prompt.basics)
    version, _ = await stored(db, game.id)
    assert version == game.version + 1  # one write


async def queued(db, kind: str) -> list[OutboxMessage]:
    async with db.read() as session:
        rows = await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(OutboxMessage.id))
        return list(rows.scalars())


async def test_begin_queues_every_setup_dm_and_knows_which_are_shown(db):
    game = await new_lobby(db, 2)
    result = await battler.begin(db, game.id, member(ORGANIZER, True))
    assert sorted(row.user_id for row in await queued(db, battler.PROMPT)) == [1001, 1002]
    shown, waiting = result.prompts
    await deliver(db, [shown])
    assert not await battler.still_wanted(db, shown)  # a message shows it already
    assert await battler.still_wanted(db, waiting)


async def play_out(db, game_id: int, prompts: dict[int, battler.PrivatePrompt]) -> battler.ActionResult:
    """Lowest seat wins every game; everyone is done drafting at once. Returns the last result."""
    result = None
    for _ in range(200):
        game = await battler.get_game(db, game_id)
        state = game.state
        if state.phase == "over":
            return result
        if state.phase == "play":
            pr = next(p for p in state.pairings if p.result is None)
            rep = await battler.report(db, game_id, player(state.players[pr.a].user_id), "won")
            result = await battler.confirm_report(
                db, game_id, rep.report.id, member(state.players[pr.b].user_id, False)
            )
            prompts.update(await deliver(db, result.prompts))
        else:
            for p in state.players:
                if p.status in ("alive", "ghost") and not p.done:
                    result = await act(db, prompts[p.user_id], "done")
                    if result.actor_prompt is not None:
                        prompts[p.user_id] = result.actor_prompt
                    prompts.update(await deliver(db, result.prompts))
    raise AssertionError("the game did not end")


async def test_a_game_to_the_end_writes_the_leaderboard_with_the_engine_standings(db):
    game, prompts = await started_game(db, players=4, progression="flat2")
    await setup_all(db, prompts)
    result = await play_out(db, game.id, prompts)
    assert result.finished
    final = await battler.final_result(db, game.id)
    state = final.game.state
    assert final.game.status == "over" and state.winner is not None
    assert final.post_channel_id == CHANNEL
    expected = {}
    place = 1
    for group in engine.standings(state):
        for seat in group:
            expected[state.players[seat].user_id] = place
        place += len(group)
    async with db.read() as session:
        rows = (await session.execute(select(EventResult).where(EventResult.format == "battler"))).scalars().all()
    assert {r.user_id: r.placement for r in rows} == expected
    # One point per player finished ahead of (not a player sharing the place), plus one.
    behind = {u: sum(1 for other in expected.values() if other > p) for u, p in expected.items()}
    assert {r.user_id: r.points for r in rows} == {u: float(behind[u] + 1) for u in expected}
    assert expected[state.players[state.winner].user_id] == 1
    assert any(p.status == "out" for p in state.players)
    # The standings post was queued once, with the results, to the game's channel; nobody ended the
    # game by hand, so its organizer is told if the post is refused.
    finals = await queued(db, battler.FINAL)
    told = outbox.telling(TableRef(game.id).to_payload(), game.organizer_id, f"the results of Treasure Battler #{game.id}")
    assert [(row.channel_id, row.payload) for row in finals] == [(CHANNEL, told)]
    with pytest.raises(UserError, match="over"):
        await battler.report(db, game.id, player(state.players[state.winner].user_id), "won")


async def test_eliminated_players_are_refused_and_end_records_nothing(db):
    game, prompts = await started_game(db, players=4, progression="flat2")
    await setup_all(db, prompts)
    # Play until the first player is out for good.
    for _ in range(100):
        state = (await battler.get_game(db, game.id)).state
        out = [p for p in state.players if p.status == "out"]
        if out and state.phase == "play":
            break
        if state.phase == "play":
            pr = next(p for p in state.pairings if p.result is None)
            rep = await battler.report(db, game.id, player(state.players[pr.a].user_id), "won")
            res = await battler.confirm_report(
                db, game.id, rep.report.id, member(state.players[pr.b].user_id, True)
            )
            prompts.update(await deliver(db, res.prompts))
        else:
            res = await battler.force_end_draft(db, game.id, member(ORGANIZER, True))
    else:
        raise AssertionError("nobody was eliminated")
    with pytest.raises(UserError, match="eliminated"):
        await battler.report(db, game.id, player(out[0].user_id), "won")
    with pytest.raises(PermissionDenied):
        await battler.cancel(db, game.id, member(out[0].user_id, False))
    ended = await battler.cancel(db, game.id, member(ORGANIZER, False))
    assert ended.status == "cancelled"
    async with db.read() as session:
        assert (await session.execute(select(func.count()).select_from(EventResult))).scalar_one() == 0
    with pytest.raises(UserError, match="was cancelled"):
        await battler.report(db, game.id, player(state.players[0].user_id), "won")


# --- the carousel and the treasure cap ------------------------------------------------------------


async def edit_state(db, game_id: int, change) -> None:
    """Change the stored engine state directly (to reach a rare situation quickly)."""
    async with db.write() as session:
        row = (await session.execute(select(BattlerGame).where(BattlerGame.id == game_id))).scalar_one()
        state = engine.BattlerState.from_dict(row.state)
        change(state)
        row.state = state.to_dict()


async def play_round(db, game_id: int) -> battler.ActionResult:
    """Every open game of the PLAY phase: seat a wins, confirmed by seat b."""
    state = (await battler.get_game(db, game_id)).state
    result = None
    for pr in state.pairings:
        rep = await battler.report(db, game_id, player(state.players[pr.a].user_id), "won")
        result = await battler.confirm_report(db, game_id, rep.report.id, member(state.players[pr.b].user_id, False))
    return result


async def to_carousel(db, players: int = 4, **options) -> tuple[battler.GameView, battler.ActionResult]:
    """A game whose first draft is over: its carousel begins. Returns the result of the last Done."""
    game, prompts = await started_game(db, players=players, **options)
    await setup_all(db, prompts)
    drafts = await deliver(db, (await play_round(db, game.id)).prompts)
    result = None
    for prompt in drafts.values():
        result = await act(db, prompt, "done")
    assert result.game.state.phase == "carousel"
    return game, result


async def announcements(db) -> list[battler.Announcement]:
    return [battler.Announcement.from_payload(row.payload) for row in await queued(db, battler.ANNOUNCE)]


async def test_create_game_carousel_options_and_old_settings(db):
    game = await new_lobby(db, 2, carousel="stage", carousel_from="packyard")
    assert (game.settings.carousel, game.settings.carousel_from) == ("stage", "packyard")
    with pytest.raises(UserError, match="carousel"):
        await battler.create_game(db, member(5, True), channel_id=11, cube=make_cube(), carousel="always")
    with pytest.raises(UserError, match="source"):
        await battler.create_game(db, member(5, True), channel_id=11, cube=make_cube(), carousel_from="binder")
    async with db.write() as session:  # a lobby stored before the carousel ran: the boolean
        row = (await session.execute(select(BattlerGame).where(BattlerGame.id == game.id))).scalar_one()
        row.settings = {"progression": "fibonacci", "interest_threshold": None, "win_streak": False, "carousel": True}
    assert (await battler.get_game(db, game.id)).settings == engine.BattlerSettings(carousel="round")


async def test_a_carousel_dms_each_picker_in_turn_one_transaction_per_pick(db):
    game, done = await to_carousel(db, carousel="round")
    state = done.game.state
    order = state.carousel_order
    assert [p.kind for p in done.prompts] == ["carousel"] and done.prompts[0].seat == order[0]
    assert done.prompts[0].carousel == tuple(state.carousel_cards) and done.prompts[0].picks == 4
    start = [a for a in await announcements(db) if any(isinstance(e, engine.CarouselStarted) for e in a.events)]
    assert len(start) == 1 and start[0].ping == (state.players[order[0]].user_id,)  # only the picker is pinged
    prompt = (await deliver(db, done.prompts))[state.players[order[0]].user_id]
    sizes = [len(p.stash) for p in state.players]

    # Refused: another player (even with a forged current version), a card that is not there.
    other = state.players[order[1]]
    with pytest.raises(UserError, match="not your turn"):
        await battler.private_action(db, game.id, other.user_id, battler.take(0), seat=other.seat,
                                     version=prompt.version)
    with pytest.raises(InvalidPayload):  # a position the carousel does not have
        await act(db, prompt, "take", carousel_index=len(state.carousel_cards))
    with pytest.raises(UserError, match="only a full pool"):
        await act(db, prompt, "pass")

    for pick, seat in enumerate(order):
        version, _ = await stored(db, game.id)
        card = prompt.carousel[1 if len(prompt.carousel) > 1 else 0]
        result = await act(db, prompt, "take", carousel_index=prompt.carousel.index(card))
        assert (await stored(db, game.id))[0] == version + 1  # one write per pick
        assert result.game.state.players[seat].stash[-1] == card
        with pytest.raises(battler.StaleMessage):  # the DM of a pick already made
            await act(db, prompt, "take", carousel_index=0)
        if pick < 3:
            assert result.actor_prompt is None and [p.seat for p in result.prompts] == [order[pick + 1]]
            prompt = (await deliver(db, result.prompts))[result.prompts[0].user_id]
            assert prompt.pick == pick + 2
    after = result.game.state
    assert after.phase == "play" and [len(p.stash) for p in after.players] == [n + 1 for n in sizes]
    assert result.prompts == []  # PLAY has no private prompt
    turns = [a for a in await announcements(db) if any(isinstance(e, engine.CarouselTurn) for e in a.events)]
    assert [a.ping for a in turns] == [(after.players[seat].user_id,) for seat in order]


async def test_a_full_pool_gives_a_card_back_or_passes_and_an_organizer_ends_the_carousel(db):
    game, prompts = await started_game(db, players=4, carousel="stage", carousel_from="packyard")
    await setup_all(db, prompts)
    await play_round(db, game.id)
    await battler.force_end_draft(db, game.id, member(ORGANIZER, True))  # round 2: no carousel in a stage carousel
    await play_round(db, game.id)  # round 3: its draft ends with the carousel
    full = 2

    def full_pool_picks_first(state: engine.BattlerState) -> None:
        for p in state.players:
            p.poison = 0 if p.seat == full else 1
        missing = engine.POOL_MAX - len(state.players[full].stash)
        state.players[full].stash += state.packpile[:missing]
        del state.packpile[:missing]

    await edit_state(db, game.id, full_pool_picks_first)
    forced = await battler.force_end_draft(db, game.id, member(ORGANIZER, True))
    state = forced.game.state
    assert state.phase == "carousel" and state.carousel_order[0] == full and len(state.carousel_order) == 12
    prompt = (await deliver(db, forced.prompts))[state.players[full].user_id]
    assert prompt.pool_full and len(prompt.carousel) > 12  # the packyard: every disposed card

    with pytest.raises(UserError, match="give a stash card back"):
        await act(db, prompt, "take", carousel_index=0)
    with pytest.raises(InvalidPayload):  # a position the stash does not have
        await act(db, prompt, "take", carousel_index=0, stash_index=15)
    given, taken = prompt.stash[3], prompt.carousel[0]
    result = await act(db, prompt, "take", carousel_index=0, stash_index=3)
    assert result.game.state.players[full].stash[3] == taken and given in result.game.state.carousel_cards
    nxt = (await deliver(db, result.prompts))[result.prompts[0].user_id]
    result = await act(db, nxt, "take", carousel_index=nxt.carousel.index(given))  # what was given back
    assert result.game.state.players[nxt.seat].stash[-1] == given
    for _ in range(5):  # turns 3 to 7: the others, snaking back (the last of a lap picks twice in a row)
        nxt = result.actor_prompt or (await deliver(db, result.prompts))[result.prompts[0].user_id]
        result = await act(db, nxt, "take", carousel_index=0)
    mine = (await deliver(db, result.prompts))[state.players[full].user_id]
    passed = await act(db, mine, "pass")
    again = passed.actor_prompt  # the snake turns back to the same player: their DM is re-rendered in place
    assert again is not None and again.pick == 9 and passed.prompts == []

    ended = await battler.force_end_draft(db, game.id, member(ORGANIZER, False))
    after = ended.game.state
    assert after.phase == "play" and len(after.players[full].stash) == engine.POOL_MAX
    assert all(len(p.stash) == len(state.players[p.seat].stash) + 3 for p in after.players if p.seat != full)
    forced_picks = [e for e in ended.events if isinstance(e, engine.CarouselPicked | engine.CarouselPassed)]
    assert len(forced_picks) == 4 and all(e.forced for e in forced_picks)
    with pytest.raises(battler.StaleMessage):
        await act(db, again, "pass")


async def test_treasures_left_after_a_game_keep_at_most_five(db):
    game, prompts = await started_game(db, players=2)
    await setup_all(db, prompts)
    a, b = (await battler.get_game(db, game.id)).state.players
    await battler.report(db, game.id, player(a.user_id), "won", treasures_left=7)  # tokens made in the game
    result = await battler.report(db, game.id, player(b.user_id), "lost", treasures_left=5)
    after = result.game.state
    assert after.phase == "draft"
    assert [p.treasures for p in after.players] == [5 + 1, 5 + 1]  # capped, then the draft's income
    assert engine.TreasuresChanged(a.seat, -2, 5, "cap") in result.events


async def test_each_player_tells_their_own_treasures_whichever_way_the_game_is_confirmed(db):
    """FORMATS.md §2 PLAY 5: each player keeps the treasures they have left (at most 5), said by that
    player: the reporter in the report, the opponent in their confirmation, their matching report or
    their dispute. An organizer confirming for an absent opponent leaves that opponent's as they were."""
    game, prompts = await started_game(db)
    result = await setup_all(db, prompts)
    state = result.game.state
    (p, q), (r, s) = [pr.seats() for pr in state.pairings]
    user = {seat: state.players[seat].user_id for seat in range(4)}
    before = {seat: state.players[seat].treasures for seat in range(4)}

    # By button: the opponent's count comes with their confirmation (7 are capped to 5).
    pending = await battler.report(db, game.id, player(user[p]), "won", treasures_left=0)
    assert await battler.treasures_asked(db, game.id, pending.report.id, user[q]) == before[q]
    assert await battler.treasures_asked(db, game.id, pending.report.id, user[p]) is None  # the reporter: no
    assert await battler.treasures_asked(db, game.id, pending.report.id, ORGANIZER) is None
    with pytest.raises(UserError, match="Only the reporter's opponent"):
        await battler.confirm_report(db, game.id, pending.report.id, member(ORGANIZER, True), treasures_left=3)
    confirmed = await battler.confirm_report(db, game.id, pending.report.id, player(user[q]), treasures_left=7)
    assert left_after_game(confirmed, before, p, q) == (0, 5)

    # A dispute carries the disputer's count to the organizer's decision.
    pending = await battler.report(db, game.id, player(user[r]), "won", treasures_left=2)
    await battler.dispute_report(db, game.id, pending.report.id, player(user[s]), treasures_left=4)
    decided = await battler.decide_report(db, game.id, pending.report.id, "b", member(ORGANIZER, True))
    assert left_after_game(decided, before, r, s) == (2, 4)  # (the DRAFT phase's income comes after)

    # Next PLAY phase: a matching report carries the second count; an organizer's confirmation
    # for an absent opponent has none (their treasures stay).
    assert decided.game.state.phase == "draft"
    await battler.force_end_draft(db, game.id, member(ORGANIZER, True))
    state = (await battler.get_game(db, game.id)).state
    (p, q), (r, s) = [pr.seats() for pr in state.pairings]
    user = {seat: state.players[seat].user_id for seat in range(4)}
    before = {seat: state.players[seat].treasures for seat in range(4)}
    await battler.report(db, game.id, player(user[p]), "draw", treasures_left=1)
    matched = await battler.report(db, game.id, player(user[q]), "draw", treasures_left=0)
    assert matched.applied is not None and left_after_game(matched, before, p, q) == (1, 0)
    count = (before[r] + 1) % 6  # a count that differs from the one before the game
    pending = await battler.report(db, game.id, player(user[r]), "won", treasures_left=count)
    done = await battler.confirm_report(db, game.id, pending.report.id, member(ORGANIZER, True), for_absent=True)
    assert left_after_game(done, before, r, s) == (count, before[s])  # the absent opponent's stay


def left_after_game(result: battler.ActionResult, before: dict[int, int], *seats: int) -> tuple[int, ...]:
    """The seats' treasures once their game was applied (before any DRAFT income): the events say."""
    left = dict(before)
    for event in result.events:
        if isinstance(event, engine.TreasuresChanged) and event.reason in ("reported", "cap"):
            left[event.seat] = event.total
    return tuple(left[seat] for seat in seats)


async def test_a_disputed_game_reported_again_is_shown_again_with_the_count(db):
    """The organizer's call may be lost: a player's new report of a disputed game gives it back
    (nothing decided), and keeps the count that player gives."""
    game, prompts = await started_game(db, players=2)
    result = await setup_all(db, prompts)
    a, b = result.game.state.pairings[0].seats()
    user = {seat: result.game.state.players[seat].user_id for seat in (a, b)}
    await battler.report(db, game.id, player(user[a]), "won", treasures_left=1)
    disputed = await battler.report(db, game.id, player(user[b]), "won", treasures_left=2)
    assert disputed.dispute is not None
    again = await battler.report(db, game.id, player(user[b]), "won", treasures_left=3)
    assert again.waiting is not None and again.waiting.id == disputed.dispute.id and again.waiting.status == "disputed"
    assert dict(again.waiting.treasures) == {a: 1, b: 3}
    decided = await battler.decide_report(db, game.id, disputed.dispute.id, "a", member(ORGANIZER, True))
    before = {a: result.game.state.players[a].treasures, b: result.game.state.players[b].treasures}
    assert left_after_game(decided, before, a, b) == (1, 3)


async def _organizer_plays(db):
    """A 4-player game whose organizer (Manage Server) plays, in its PLAY phase: (game, the
    organizer's pairing, the other pairing)."""
    organizer = member(ORGANIZER, True)
    game = await battler.create_game(db, organizer, channel_id=CHANNEL, cube=make_cube(), seed=4242, max_seats=8)
    for actor in (organizer, player(1001), player(1002), player(1003)):
        game = await battler.join(db, game.id, actor)
    result = await battler.begin(db, game.id, organizer)
    result = await setup_all(db, await deliver(db, result.prompts))
    state = result.game.state
    own = next(pr for pr in state.pairings if ORGANIZER in (state.players[s].user_id for s in pr.seats()))
    other = next(pr for pr in state.pairings if pr is not own)
    return result.game, own, other


async def test_an_organizer_who_plays_cannot_confirm_or_decide_their_own_game(db):
    """Issue 34 item 1: the organizer who reports `won` can't confirm it, nor decide its dispute."""
    game, own, _ = await _organizer_plays(db)
    organizer = member(ORGANIZER, True)
    users = {s: game.state.players[s].user_id for s in own.seats()}
    opponent = next(u for u in users.values() if u != ORGANIZER)
    pending = await battler.report(db, game.id, organizer, "won", treasures_left=2)
    before = await stored(db, game.id)
    with pytest.raises(UserError, match="own report"):
        await battler.confirm_report(db, game.id, pending.report.id, organizer)
    with pytest.raises(UserError, match="own report"):
        await battler.confirm_report(db, game.id, pending.report.id, organizer, for_absent=True)
    assert await stored(db, game.id) == before
    disputed = await battler.dispute_report(db, game.id, pending.report.id, player(opponent), treasures_left=1)
    [call] = await queued(db, battler.DISPUTE)
    assert call.payload["call"] == {"users": [], "role": None}  # not the organizer who plays (no role set)
    before = await stored(db, game.id)
    for decision in ("a", "b", "draw", "void"):
        with pytest.raises(UserError, match="You play in"):
            await battler.decide_report(db, game.id, disputed.dispute.id, decision, organizer)
    assert await stored(db, game.id) == before
    other_organizer = member(300, True)
    decided = await battler.decide_report(db, game.id, disputed.dispute.id, "draw", other_organizer)
    assert decided.applied is not None


async def test_an_organizer_confirms_another_game_for_the_absent_player_who_may_still_say_their_treasures(db):
    """Issue 34 item 3: the organizer's Confirm on a game they don't play is confirming for the
    absent opponent (asked first), who is told by DM and may say their treasures until the PLAY phase ends."""
    game, own, other = await _organizer_plays(db)
    organizer = member(ORGANIZER, True)
    a, b = (game.state.players[s].user_id for s in other.seats())
    pending = await battler.report(db, game.id, player(a), "won", treasures_left=2)
    with pytest.raises(claims.AbsentConfirmNeeded) as needed:
        await battler.confirm_report(db, game.id, pending.report.id, organizer)
    assert needed.value.absent == b
    done = await battler.confirm_report(db, game.id, pending.report.id, organizer, for_absent=True)
    assert done.applied is not None and done.for_absent == ORGANIZER and done.game.state.phase == "play"
    [dm] = await queued(db, claims.ABSENT_DM)
    assert dm.user_id == b and dm.payload["by"] == ORGANIZER and "`/battler report`" in dm.payload["dispute"]
    ended = await claims.late_words(db, battler.GAMES, battler.RULES, game.id, pending.report.id, GUILD)
    assert ended is not None and (ended.how, ended.by, ended.absent) == ("confirm", ORGANIZER, b)
    # The absent player says their treasures (their result stands), once.
    told = await battler.report(db, game.id, player(b), "lost", treasures_left=1)
    b_seat = next(s for s in other.seats() if game.state.players[s].user_id == b)
    assert told.treasures_after == 1 and told.game.state.players[b_seat].treasures == 1
    with pytest.raises(UserError, match="already been reported"):
        await battler.report(db, game.id, player(b), "lost", treasures_left=3)


async def test_the_winner_reports_a_concession_and_an_organizers_decision_keeps_it(db):
    """Issue 34: "won: opponent conceded" by the winner; the loser confirms it; a disputed concession
    decided for the same winner keeps the concession (no treasure for the conceder)."""
    game, prompts = await started_game(db, players=4)
    await setup_all(db, prompts)
    state = (await battler.get_game(db, game.id)).state
    pr1, pr2 = state.pairings
    users = [p.user_id for p in state.players]
    pending = await battler.report(db, game.id, player(users[pr1.a]), "opponent_conceded")
    assert (pending.report.claim, pending.report.conceded_by) == ("a", pr1.b)
    await battler.confirm_report(db, game.id, pending.report.id, member(users[pr1.b], False))
    # The second game: the winner says the loser conceded, the loser disputes; the organizer decides
    # the same winner: the concession stands.
    reported = await battler.report(db, game.id, player(users[pr2.b]), "opponent_conceded")
    disputed = await battler.dispute_report(db, game.id, reported.report.id, member(users[pr2.a], False))
    decided = await battler.decide_report(db, game.id, disputed.dispute.id, "b", member(ORGANIZER, True))
    after = decided.game.state
    assert after.phase == "draft"
    conceded = {h["conceded_by"] for h in after.history[-2:]}
    assert conceded == {pr1.b, pr2.a}
    income = [p.treasures for p in after.players]
    assert income[pr1.b] == state.players[pr1.b].treasures and income[pr2.a] == state.players[pr2.a].treasures
    assert income[pr1.a] == state.players[pr1.a].treasures + 1
