"""Where a draft player stands (waiting on whom, done, the draft over), what the end of the draft
sends, and taking a seat back from a bot (issue 22, items 5-7): against real SQLite and PostgreSQL
databases, plus the wait rule on hand-made states."""

from __future__ import annotations

import random
from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import select, update

from bot.games.draft import service as drafts
from bot.games.draft.models import DraftSeat
from bot.games.draft.rules import DraftConfig, DraftState
from bot.games.draft.service import reactions
from bot.games.draft.service.state import Pod, seat_wait
from bot.kit.errors import Conflict, NotFound, PermissionDenied
from bot.kit.tables import Actor
from bot.store.models import OutboxMessage
from bot.store.types import utcnow
from tests.games.draft.test_service import (
    ADMIN,
    GUILD,
    POD_ORGANIZER,
    in_dm,
    new_pod,
    pick_first_card,
    pick_first_card_at,
    pick_log,
    player,
    timed_pod,
)


def labelled(config: DraftConfig) -> list[list[str]]:
    return [[f"p{p}c{i}" for i in range(config.pack_size)] for p in range(config.total_packs)]


def pod_in_memory(state: DraftState, bots: tuple[int, ...] = (), status: str = "drafting") -> Pod:
    """A pod as `seat_wait` reads it: seat i is user 100 + i."""
    config = state.config
    row = SimpleNamespace(id=7, status=status, packs=config.packs, pack_size=config.pack_size)
    seats = [SimpleNamespace(user_id=100 + s, seat=s, is_bot=s in bots) for s in range(config.seats)]
    return Pod(row, seats, state)


def test_a_waiting_seat_names_who_holds_its_next_pack_and_whom_they_wait_on():
    config = DraftConfig(4, 3, 2)
    state = DraftState.new(config, labelled(config))
    for seat in (2, 1, 2, 3, 2, 3, 3, 2, 2):  # seat 2 is in pack 3 (passing left, like pack 1); seat 1 in pack 1
        head = state.head(seat)
        state.pick(seat, head.pack_id, head.cards[0])
    assert state.next_pack_from(2) == 1 and state.head(1) is None and state.next_pack_from(1) == 0
    wait = seat_wait(pod_in_memory(state), 2)
    assert (wait.state, wait.on) == ("waiting", (101, 100))
    assert wait.text == "You have no pack right now: you are waiting on <@101>, who is waiting on <@100>."
    assert wait.refusal.startswith("Already picked: that pack has moved on. You have no pack right now")
    # A bot in the chain is never named: it picks the moment a pack reaches it.
    assert seat_wait(pod_in_memory(state, bots=(1,)), 2).on == (100,)
    assert seat_wait(pod_in_memory(state), 0).state == "pack"
    assert "newest pack message" in seat_wait(pod_in_memory(state), 0).refusal
    assert "/draft rejoin" in seat_wait(pod_in_memory(state, bots=(2,)), 2).refusal
    assert "is over" in seat_wait(pod_in_memory(state, status="complete"), 2).refusal


@pytest.mark.parametrize("seed", range(5))
def test_every_waiting_seat_of_a_random_draft_waits_on_someone_who_can_pick_in_the_end(seed):
    """Down the chain of named players, the last one has a pack to pick from now."""
    rng = random.Random(seed)
    config = DraftConfig(rng.randint(3, 8), 3, rng.randint(2, 5))
    state = DraftState.new(config, labelled(config))
    while not state.is_complete():
        pod = pod_in_memory(state)
        for seat in range(config.seats):
            wait = seat_wait(pod, seat)
            if wait.state == "waiting":
                assert wait.on and state.head(wait.on[-1] - 100) is not None
        seat = rng.choice(state.waiting_on())
        head = state.head(seat)
        state.pick(seat, head.pack_id, rng.choice(head.cards))


# --- against the database ------------------------------------------------------------------------------


async def outbox_rows(db, kind: str) -> list[OutboxMessage]:
    async with db.read() as session:
        query = select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(OutboxMessage.id)
        return list((await session.execute(query)).scalars())


async def test_a_stale_pick_says_whom_the_player_waits_on_or_that_they_are_done(db):
    pod = await new_pod(db, players=2, packs=1, pack_size=3)
    prompts = {p.user_id: p for p in (await drafts.begin(db, pod.id, ADMIN)).prompts}
    a, b = sorted(prompts)
    first = await pick_first_card(db, prompts[a])
    assert not first.done and first.next_for_picker is None
    with pytest.raises(Conflict) as refused:  # a double click while a waits for b's pack
        await pick_first_card(db, prompts[a])
    assert str(refused.value) == ("Already picked: that pack has moved on. You have no pack right now: "
                                  f"you are waiting on <@{b}>.")
    passed = await pick_first_card(db, prompts[b])
    with pytest.raises(Conflict, match="Your current pack is in your newest pack message"):
        await pick_first_card(db, prompts[a])
    second = await pick_first_card(db, passed.others[0])  # a's second pick
    third = await pick_first_card(db, await drafts.current_prompt(db, pod.id, b))  # b passes a's last card
    last = await pick_first_card(db, third.others[0])
    assert last.done and not last.completed and last.held is None
    with pytest.raises(Conflict, match="You have made all your picks: the draft goes on with the others"):
        await pick_first_card(db, second.next_for_picker or prompts[a])
    final = await pick_first_card(db, await drafts.current_prompt(db, pod.id, b))
    assert final.done and final.completed


async def test_the_pick_that_ends_the_draft_holds_the_pickers_pool_for_its_answer(db):
    pod = await new_pod(db, players=3, packs=1, pack_size=2)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await drafts.replace_with_bot(db, pod.id, begun.prompts[2].user_id, ADMIN)  # its player still gets a pool
    pending = {p.user_id: p for p in begun.prompts[:2]}
    last = None
    while pending:
        last = await pick_first_card(db, pending.pop(min(pending)))
        for nxt in [last.next_for_picker, *last.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    assert last.completed and last.held is not None and last.held.kind == drafts.FINAL_POOL
    seats = {s.user_id: s.seat for s in (await drafts.get_pod(db, pod.id)).seats}
    assert drafts.FinalPool.from_payload(last.held.payload) == drafts.FinalPool(pod.id, seats[last.user_id])
    pools = await outbox_rows(db, drafts.FINAL_POOL)
    assert sorted(r.user_id for r in pools) == sorted(seats)  # everyone, the replaced player too
    assert [r.status for r in pools if r.user_id == last.user_id] == ["pending"]
    assert len(await outbox_rows(db, drafts.SUMMARY)) == 1


@pytest.mark.parametrize("site", ["on", "off"])
async def test_the_end_of_the_draft_owes_each_player_their_own_pages_link_while_the_site_is_on(db, site):
    """Issue 32, item 4: one row per player (the replaced one too), queued with the completion; the
    web layer renders the link when it sends the row. None while the server's pages are off."""
    from bot.kit import private_pages
    from bot.web import access

    if site == "on":
        await access.turn_on(db, GUILD, "MTG Club")
    pod = await new_pod(db, players=3, packs=1, pack_size=2)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await drafts.replace_with_bot(db, pod.id, begun.prompts[2].user_id, ADMIN)
    pending = {p.user_id: p for p in begun.prompts[:2]}
    while pending:
        last = await pick_first_card(db, pending.pop(min(pending)))
        assert not (await outbox_rows(db, private_pages.PRIVATE_LINK)) or last.completed
        for nxt in [last.next_for_picker, *last.others]:
            if nxt is not None:
                pending[nxt.user_id] = nxt
    rows = await outbox_rows(db, private_pages.PRIVATE_LINK)
    if site == "off":
        assert rows == []
        return
    assert sorted(r.user_id for r in rows) == sorted(p.user_id for p in begun.prompts)
    assert {r.guild_id for r in rows} == {GUILD}
    assert {private_pages.PrivateLink.from_payload(r.payload) for r in rows} == {
        private_pages.PrivateLink("draft-pool", pod.id, f"Draft #{pod.id}")}
    pools = await outbox_rows(db, drafts.FINAL_POOL)
    assert max(r.id for r in pools) < min(r.id for r in rows)  # after the pools


async def test_a_time_out_or_a_bot_that_ends_the_draft_closes_no_pack_message(db):
    """The message that showed the pack turns into the pool: a "time ran out" edit would hide it."""
    pod, _ = await timed_pod(db, players=2, packs=1, pack_size=2)
    start = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=start)
    fast, slow = begun.prompts[0].user_id, begun.prompts[1].user_id
    await pick_first_card_at(db, begun.prompts[0], start)
    await drafts.sweep_timers(db, now=start + timedelta(seconds=601))  # slow times out: it closes a pack
    await pick_first_card_at(db, await drafts.current_prompt(db, pod.id, fast), start + timedelta(seconds=601))
    closed = len(await outbox_rows(db, drafts.CLOSE_PACK))
    assert closed == 1
    actions = await drafts.sweep_timers(db, now=start + timedelta(seconds=1202))  # slow's last card: the end
    assert [(r.user_id, r.completed) for r, _ in actions.auto_picks] == [(slow, True)]
    assert len(await outbox_rows(db, drafts.CLOSE_PACK)) == closed
    assert {r.user_id for r in await outbox_rows(db, drafts.FINAL_POOL)} == {fast, slow}
    assert (await outbox_rows(db, drafts.TIMED_OUT))[-1].payload["completed"] is True
    # A bot taking the last seat and picking the last card closes nothing either.
    pod = await new_pod(db, players=2, packs=1, pack_size=1)
    begun = await drafts.begin(db, pod.id, ADMIN)
    await pick_first_card(db, begun.prompts[0])
    assert (await drafts.replace_with_bot(db, pod.id, begun.prompts[1].user_id, ADMIN)).completed
    assert len(await outbox_rows(db, drafts.CLOSE_PACK)) == closed


async def test_a_players_last_reaction_pick_is_confirmed_as_their_last(db):
    pod = await new_pod(db, players=2, pick_mode="reactions", packs=1, pack_size=2)
    prompts = {p.user_id: p for p in (await drafts.begin(db, pod.id, ADMIN)).prompts}
    a, b = sorted(prompts)
    for number, prompt in enumerate(prompts.values()):
        await drafts.record_shown(db, prompt, channel_id=55, message_id=900 + number)
    message = await drafts.pack_message_of(db, pod.id, prompts[a].seat)
    first = await reactions.toggle(db, message.message_id, a, 0, True)
    assert first.confirm.payload["done"] is False
    stale = await reactions.toggle(db, message.message_id, a, 0, False)  # a waits for b's pack
    assert stale.outcome == reactions.STALE and stale.note.endswith(f"you are waiting on <@{b}>.")
    await pick_first_card(db, prompts[b], source="reaction")
    await drafts.record_shown(db, await drafts.current_prompt(db, pod.id, a), channel_id=55,
                              message_id=message.message_id)
    last = await reactions.toggle(db, message.message_id, a, 0, True)
    assert last.result.done and not last.result.completed and last.confirm.payload["done"] is True
    done = await reactions.toggle(db, message.message_id, a, 0, False)
    assert done.outcome == reactions.STALE and "You have made all your picks" in done.note
    # b's pick ends the draft: a click on a's message now says where the pool is.
    await pick_first_card(db, await drafts.current_prompt(db, pod.id, b), source="reaction")
    over = await reactions.toggle(db, message.message_id, a, 0, True)
    assert over.outcome == reactions.STALE and over.note.startswith(f"Draft #{pod.id} is over")


async def test_a_cancelled_drafts_letters_answer_nothing(db):
    pod = await new_pod(db, players=2, pick_mode="reactions", packs=1, pack_size=2)
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    await drafts.record_shown(db, prompt, channel_id=55, message_id=900)
    await drafts.cancel(db, pod.id, ADMIN)
    assert (await reactions.toggle(db, 900, prompt.user_id, 0, True)).outcome == reactions.UNCHANGED


# --- taking a seat back ---------------------------------------------------------------------------------


async def seat_of(db, pod_id: int, user_id: int) -> drafts.SeatView:
    return (await drafts.get_pod(db, pod_id)).seat_of(user_id)


async def test_a_player_takes_back_the_seat_a_bot_took_after_time_outs(db):
    pod, _ = await timed_pod(db, players=2, packs=1, pack_size=8)
    clock = utcnow()
    begun = await drafts.begin(db, pod.id, ADMIN, now=clock)
    idle, busy = begun.prompts[0].user_id, begun.prompts[1].user_id
    for _ in range(drafts.TIMEOUTS_BEFORE_BOT):  # the idle player times out three times in a row
        if (prompt := await drafts.current_prompt(db, pod.id, busy)) is not None:
            await pick_first_card_at(db, prompt, clock)
        clock += timedelta(seconds=601)
        await drafts.sweep_timers(db, now=clock)
    seat = await seat_of(db, pod.id, idle)
    assert seat.is_bot and seat.timeouts == drafts.TIMEOUTS_BEFORE_BOT
    if (prompt := await drafts.current_prompt(db, pod.id, busy)) is not None:  # the bot picks what reaches it
        await pick_first_card_at(db, prompt, clock)
    bot_picks = [c for c in (await pick_log(db, pod.id))["picks"]
                 if c["user_id"] == idle and c["source"] == "bot"]
    assert bot_picks
    pool_before = (await drafts.pool(db, pod.id, idle)).cards

    with pytest.raises(PermissionDenied, match="organizer"):  # another player can't hand it back
        await drafts.rejoin(db, pod.id, player(busy), player_id=idle)
    with pytest.raises(PermissionDenied, match="another server"):
        await drafts.rejoin(db, pod.id, Actor(idle, GUILD + 1))
    with pytest.raises(PermissionDenied, match="not playing"):
        await drafts.rejoin(db, pod.id, player(4242))
    with pytest.raises(Conflict, match="You already play your seat"):
        await drafts.rejoin(db, pod.id, player(busy))

    result = await drafts.rejoin(db, pod.id, in_dm(idle), now=clock)  # from a DM: judged by the seat
    assert result.user_id == idle and result.bot_picks == len(bot_picks)
    assert result.prompt is None and result.wait.state == "waiting" and result.wait.on == (busy,)
    seat = await seat_of(db, pod.id, idle)
    assert not seat.is_bot and seat.timeouts == 0 and seat.waiting_since is None
    assert (await drafts.pool(db, pod.id, idle)).cards == pool_before  # the bot's picks stay
    with pytest.raises(Conflict, match="You already play your seat"):
        await drafts.rejoin(db, pod.id, in_dm(idle))

    # The next pack that reaches them is theirs to pick, on their clock: one time-out is not three.
    while (mine := await drafts.current_prompt(db, pod.id, idle)) is None:
        await pick_first_card_at(db, await drafts.current_prompt(db, pod.id, busy), clock)
    assert (await seat_of(db, pod.id, idle)).waiting_since == clock
    clock += timedelta(seconds=601)
    actions = await drafts.sweep_timers(db, now=clock)
    timed_out = [(r, to_bot) for r, to_bot in actions.auto_picks if r.user_id == idle]
    assert timed_out and not timed_out[0][1]
    seat = await seat_of(db, pod.id, idle)
    assert not seat.is_bot and seat.timeouts == 1
    assert (mine.pack_id, mine.pack_pick) == (timed_out[0][0].pack_id, timed_out[0][0].pack_pick)


async def test_an_organizer_gives_a_replaced_player_their_seat_back(db):
    pod = await new_pod(db, players=3)
    prompts = (await drafts.begin(db, pod.id, ADMIN)).prompts
    target = prompts[1].user_id
    await drafts.replace_with_bot(db, pod.id, target, POD_ORGANIZER)
    elsewhere = Actor(POD_ORGANIZER.user_id, GUILD + 1, manage_guild=True)  # judged in the draft's server
    with pytest.raises(PermissionDenied, match="another server"):
        await drafts.rejoin(db, pod.id, elsewhere, player_id=target)
    with pytest.raises(NotFound):
        await drafts.rejoin(db, pod.id, ADMIN, player_id=4242)
    result = await drafts.rejoin(db, pod.id, POD_ORGANIZER, player_id=target)
    assert result.user_id == target and result.bot_picks == 1
    assert not (await seat_of(db, pod.id, target)).is_bot
    with pytest.raises(Conflict, match=f"<@{target}> already plays their seat"):
        await drafts.rejoin(db, pod.id, ADMIN, player_id=target)
    await drafts.replace_with_bot(db, pod.id, target, ADMIN)
    assert (await drafts.rejoin(db, pod.id, ADMIN, player_id=target)).user_id == target  # a server organizer


async def test_a_seat_taken_back_with_a_pack_waiting_shows_it_again(db):
    """A bot picks the moment a pack reaches it, so a bot's seat has no pack; should one have one
    (a seat marked a bot's without the bot's turn), taking it back sends it to the player."""
    pod = await new_pod(db, players=2)
    prompt = (await drafts.begin(db, pod.id, ADMIN)).prompts[0]
    async with db.write() as session:
        await session.execute(update(DraftSeat).where(DraftSeat.pod_id == pod.id, DraftSeat.user_id == prompt.user_id)
                              .values(is_bot=True, timeouts=3))
    before = len(await outbox_rows(db, drafts.PACK))
    result = await drafts.rejoin(db, pod.id, player(prompt.user_id))
    assert result.prompt is not None and (result.prompt.pack_id, result.prompt.pack_pick) == (prompt.pack_id, 0)
    packs = await outbox_rows(db, drafts.PACK)
    assert len(packs) == before + 1 and packs[-1].user_id == prompt.user_id and packs[-1].payload["rejoined"] is True
    assert packs[-1].payload["pack_id"] == prompt.pack_id
    assert (await seat_of(db, pod.id, prompt.user_id)).waiting_since is not None


async def test_only_a_running_drafts_seat_is_taken_back(db):
    pod = await new_pod(db, players=2)
    with pytest.raises(Conflict, match="running"):
        await drafts.rejoin(db, pod.id, player(1001))
