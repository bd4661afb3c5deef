"""Winston and Grid drafts on the pods' use cases, against real SQLite and PostgreSQL databases: the
same lobby, picks, bot seats, pick timer and end as a booster draft; a pick is an action (take or pass
a pile, take a line) that gains any number of cards, a pick row each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from bot.games.draft import bots, grid_rules, winston_rules
from bot.games.draft import service as drafts
from bot.games.draft.models import DraftPick
from bot.games.draft.service import kind_turns, variants
from bot.kit.errors import Conflict, UserError
from bot.store.models import OutboxMessage
from bot.store.types import utcnow
from tests.common import CHANNEL, player
from tests.common import ORG as ADMIN
from tests.games.draft.test_service import in_dm, make_cube


async def lobby(db, variant: str, *, players: int, bots: int = 0, dealt: int | None = None, **options) -> drafts.PodView:
    columns = variants.start_options(variant, players + bots, dealt)
    pod = await drafts.create_pod(db, ADMIN, channel_id=CHANNEL, cube=make_cube(60), seed=5, bots=bots,
                                  max_seats=players + bots, **columns, **options)
    for user in range(1, players + 1):
        pod = await drafts.join(db, pod.id, player(1000 + user))
    return pod


async def picks_of(db, pod_id: int) -> list[DraftPick]:
    async with db.read() as session:
        return list((await session.execute(select(DraftPick).where(DraftPick.pod_id == pod_id)
                                           .order_by(DraftPick.sequence))).scalars().all())


async def queued(db, kind: str) -> list[dict]:
    async with db.read() as session:
        rows = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind)
                                      .order_by(OutboxMessage.id))).scalars().all()
        return [row.payload | {"_id": row.id, "_user": row.user_id, "_channel": row.channel_id} for row in rows]


async def act(db, pod_id: int, prompt: drafts.PackPrompt, choice: int) -> drafts.PickResult:
    return await drafts.pick(db, pod_id, in_dm(prompt.user_id), pack_id=0, pack_pick=prompt.pack_pick,
                             card_index=choice, source="button")


async def test_a_winston_draft_is_played_to_the_end_every_card_once(db):
    pod = await lobby(db, variants.WINSTON, players=2, dealt=24)
    begun = await drafts.begin(db, pod.id, ADMIN)
    (prompt,) = begun.prompts
    assert prompt.cards == ("take", "pass")
    other = next(seat.user_id for seat in begun.pod.seats if seat.user_id != prompt.user_id)
    with pytest.raises(Conflict):
        await drafts.pick(db, pod.id, in_dm(other), pack_id=0, pack_pick=0, card_index=0, source="button")
    turn = 0
    while prompt is not None:
        # pass the first pile on every other turn, else take it
        choice = 1 if turn % 2 and "pass" in prompt.cards else 0
        result = await act(db, pod.id, prompt, choice)
        with pytest.raises(UserError):  # the same button again: counted once (or the draft is over)
            await act(db, pod.id, prompt, choice)
        turn += 1
        prompt = result.next_for_picker or next(iter(result.others), None)
    picks = await picks_of(db, pod.id)
    assert [p.sequence for p in picks] == list(range(1, 25)) and len({p.card for p in picks}) == 24
    assert (await drafts.get_pod(db, pod.id)).status == "complete"
    assert sum(len(cards) for cards in (await drafts.all_pools(db, pod.id)).values()) == 24


async def test_winston_shows_the_pile_to_the_player_on_turn_alone_and_sizes_in_the_channel(db):
    pod = await lobby(db, variants.WINSTON, players=2, dealt=24)
    begun = await drafts.begin(db, pod.id, ADMIN)
    (prompt,) = begun.prompts
    await act(db, pod.id, prompt, 1)  # pass pile 1: the same DM shows pile 2
    looks = await queued(db, kind_turns.WINSTON_LOOK)
    assert [look["_user"] for look in looks] == [prompt.user_id] * 2
    assert looks[0]["previous"] is None and looks[1]["previous"] is not None and looks[1]["pile"] == 1
    assert looks[1]["pile_sizes"] == [2, 1, 1]
    news = await queued(db, kind_turns.WINSTON_TURN)
    assert len(news) == 1 and news[0]["_channel"] == CHANNEL and "cards" not in news[0]


async def test_winston_pick_timer_takes_the_pile_and_a_bot_plays_the_other_seat(db):
    pod = await lobby(db, variants.WINSTON, players=1, bots=1, dealt=24, pick_timer_seconds=600)
    start = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=start)
    human = next(seat for seat in begun.pod.seats if seat.user_id > 0)
    if not begun.prompts:  # the bot was first: it has acted already
        assert await picks_of(db, pod.id)
    before = len(await picks_of(db, pod.id))
    actions = await drafts.sweep_timers(db, now=start + timedelta(seconds=601))
    assert actions.auto_picks
    timed = [p for p in await picks_of(db, pod.id) if p.source == "timeout"]
    assert timed and {p.seat for p in timed} == {human.seat} and len(await picks_of(db, pod.id)) > before


async def test_winston_and_grid_lobbies_check_their_seats_and_cube(db):
    with pytest.raises(UserError, match="for 2 players"):
        await lobby(db, variants.WINSTON, players=3)
    with pytest.raises(UserError, match="cube is too small"):
        await lobby(db, variants.WINSTON, players=2, dealt=90)
    with pytest.raises(UserError, match="cube is too small"):
        await lobby(db, variants.GRID, players=3, dealt=6)  # 6 grids of 12
    with pytest.raises(UserError, match="for 2 or 3 players"):
        await lobby(db, variants.GRID, players=4, dealt=2)


async def test_a_grid_draft_of_two_players_and_a_bot_is_played_to_the_end(db):
    pod = await lobby(db, variants.GRID, players=2, bots=1, dealt=4)
    begun = await drafts.begin(db, pod.id, ADMIN)
    prompts = begun.prompts
    posts = 0
    while prompts:
        (prompt,) = prompts
        assert set(prompt.cards) <= {grid_rules.line_name(line) for line in range(6)}
        result = await act(db, pod.id, prompt, len(prompt.cards) - 1)
        posts += 1
        prompts = [p for p in [result.next_for_picker, *result.others] if p is not None]
    picks = await picks_of(db, pod.id)
    assert [p.sequence for p in picks] == list(range(1, len(picks) + 1)) and len({p.card for p in picks}) == len(picks)
    assert {p.source for p in picks} == {"button", "bot"}
    assert (await drafts.get_pod(db, pod.id)).status == "complete"
    grid_posts = await queued(db, kind_turns.GRID_TURN)
    *turn_posts, closing = grid_posts  # after the last pick, the last post loses its buttons
    assert len(turn_posts) == posts and all(post["_channel"] == CHANNEL for post in grid_posts)
    assert turn_posts[0]["previous"] is None and all(post["previous"] for post in grid_posts[1:])
    assert closing["lines"] == [] and closing["previous"] == turn_posts[-1]["_id"]


async def test_the_machine_choices_of_winston_and_grid(db):
    state = winston_rules.WinstonState.new(winston_rules.WinstonConfig(24), [f"Card {i:03d}" for i in range(24)])
    book = bots.CardBook([{"name": f"Card {i:03d}", "colour": "R"} for i in range(24)])
    assert variants.machine_choice(state, 0, book, [], seed=1, picks_per_seat=24, bot=False) == "take"
    assert variants.machine_choice(state, 0, book, [], seed=1, picks_per_seat=24, bot=True) == "pass"  # 1 card
    grid = grid_rules.GridState.new(grid_rules.GridConfig(2, 1), [[f"Card {i:03d}" for i in range(9)]])
    line = variants.machine_choice(grid, 0, book, [], seed=1, picks_per_seat=9, bot=True)
    assert line in grid.packs[0].cards
