"""Reaction picks on one reused pack message, and the startup reconciliation, against real SQLite
and PostgreSQL databases."""

from __future__ import annotations

from bot.games.draft import service as drafts
from bot.games.draft.service import reactions
from tests.games.draft.test_service import ADMIN, new_pod, pick_first_card

CHANNEL = 55


async def reaction_pod(db, players: int = 2, **options):
    pod = await new_pod(db, players=players, pick_mode="reactions", packs=1, pack_size=5, **options)
    begun = await drafts.begin(db, pod.id, ADMIN)
    prompts = {p.user_id: p for p in begun.prompts}
    for number, prompt in enumerate(begun.prompts):  # each player's pack message, as the outbox records it
        await drafts.record_shown(db, prompt, channel_id=CHANNEL, message_id=900 + number)
    return pod.id, prompts


async def test_a_toggle_on_or_off_picks_once_and_the_next_pack_goes_on_the_same_message(db):
    pod_id, prompts = await reaction_pod(db)
    (a, first), (b, _) = sorted(prompts.items())
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    assert (message.pack_id, message.pack_pick, message.highlights) == (first.pack_id, first.pack_pick, 0)

    done = await reactions.toggle(db, message.message_id, a, 2, True)
    assert done.outcome == reactions.PICKED and done.result.card == first.cards[2]
    assert done.result.held is None  # a waits: nothing queued for them yet
    # The same toggle again (a replayed event, or one the bot already counted) changes nothing.
    assert (await reactions.toggle(db, message.message_id, a, 2, True)).outcome == reactions.UNCHANGED
    # Clicking it off now refers to a pack the message no longer shows.
    assert (await reactions.toggle(db, message.message_id, a, 2, False)).outcome == reactions.STALE
    # Somebody else's reaction on a's message is not theirs to make.
    assert await reactions.toggle(db, message.message_id, b, 0, True) is None

    # b picks: the pack reaches a, whose message shows it next (recorded by the outbox's edit).
    await pick_first_card(db, prompts[b], source="reaction")
    nxt = await drafts.current_prompt(db, pod_id, a)
    await drafts.record_shown(db, nxt, channel_id=CHANNEL, message_id=message.message_id)
    shown = await drafts.pack_message(db, message.message_id)
    assert (shown.pack_id, shown.pack_pick, shown.highlights) == (nxt.pack_id, nxt.pack_pick, 0)
    # a clicks 🇨 on again (its highlight had been clicked off): that is a's pick from the new pack.
    done = await reactions.toggle(db, message.message_id, a, 2, True)
    assert done.outcome == reactions.PICKED and done.result.card == nxt.cards[2]
    # a waits again: clicking it off picks nothing.
    assert (await reactions.toggle(db, message.message_id, a, 2, False)).outcome == reactions.STALE


async def test_the_held_next_pack_is_marked_for_the_same_message(db):
    pod_id, prompts = await reaction_pod(db)
    (a, first), (b, second) = sorted(prompts.items())
    await pick_first_card(db, second, source="reaction")  # b passes a pack to a: a now has two
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    done = await reactions.toggle(db, message.message_id, a, 0, True)
    held = done.result.held
    assert held is not None and held.payload["picked"] == {"card": first.cards[0], "round": 0, "pick_number": 1}
    assert drafts.prompt_of(held).pack_pick == second.pack_pick + 1


async def test_a_late_record_of_a_message_never_takes_it_back_to_a_picked_pack(db):
    """A new pack message is picked from by button before the batch that sent it is recorded: the
    pick's record (the next pack, on the same message) stands when the batch's record comes."""
    pod = await new_pod(db, players=2, pick_mode="both", packs=1, pack_size=5)
    begun = await drafts.begin(db, pod.id, ADMIN)
    (a, first), (b, second) = sorted((p.user_id, p) for p in begun.prompts)
    await pick_first_card(db, second, source="button")  # b passes a pack to a
    result = await pick_first_card(db, first, source="button")  # a picks on message 901, not yet recorded
    nxt = await drafts.current_prompt(db, pod.id, a)
    await drafts.record_shown(db, nxt, channel_id=CHANNEL, message_id=901)  # the pick's answer, recorded
    await drafts.record_shown(db, first, channel_id=CHANNEL, message_id=901)  # the first batch's record, late
    shown = await drafts.pack_message(db, 901)
    assert (shown.pack_id, shown.pack_pick) == (nxt.pack_id, nxt.pack_pick) != (first.pack_id, first.pack_pick)
    assert result.card == first.cards[0]
    assert (await drafts.delivery_message(db, pod.id, first.pack_id, first.pack_pick)) == (CHANNEL, 901)


async def test_a_letter_beyond_the_pack_is_no_card(db):
    pod_id, prompts = await reaction_pod(db)
    a, first = sorted(prompts.items())[0]
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    done = await reactions.toggle(db, message.message_id, a, 7, True)
    assert done.outcome == reactions.NO_CARD and done.cards == 5


async def test_reconcile_counts_one_change_asks_for_several_and_never_repicks(db):
    pod_id, prompts = await reaction_pod(db, players=3)
    (a, pa), (b, pb), (c, pc) = sorted(prompts.items())
    pending = {m.seat: m for m in await reactions.all_pending(db)}
    assert set(pending) == {pa.seat, pb.seat, pc.seat} and pending[pa.seat].user_id == a

    # a highlighted 🇧 while the bot was away: the pick.
    done = await reactions.reconcile(db, pending[pa.seat], 0b10)
    assert done.outcome == reactions.PICKED and done.result.card == pa.cards[1]
    # b highlighted 🇦 and 🇩: asked, nothing picked; the next click on 🇩 (off) is the pick.
    done = await reactions.reconcile(db, pending[pb.seat], 0b1001)
    assert done.outcome == reactions.ASK and done.letters == (0, 3)
    assert (await drafts.current_prompt(db, pod_id, b)).pack_pick == pb.pack_pick
    done = await reactions.toggle(db, pending[pb.seat].message_id, b, 3, False)
    assert done.outcome == reactions.PICKED and done.result.card == pb.cards[3]
    # c changed nothing: nothing happens; a second reading of the same state neither.
    assert (await reactions.reconcile(db, pending[pc.seat], 0)).outcome == reactions.UNCHANGED
    # a's message no longer shows a current pack: a stale reading is ignored, its record kept.
    assert await reactions.reconcile(db, pending[pa.seat], 0b111) is None
    assert (await drafts.pack_message(db, pending[pa.seat].message_id)).highlights == 0b10
    assert {m.seat for m in await reactions.all_pending(db) if m.current} == {pc.seat}
    # One message alone (read again after a database outage): the same listing, narrowed.
    assert await reactions.pending(db, message_id=pending[pc.seat].message_id) == [
        m for m in await reactions.all_pending(db) if m.seat == pc.seat
    ]
    assert await reactions.pending(db, message_id=123_456_789) == []


async def test_a_pack_sent_again_retires_the_old_pack_message(db):
    pod_id, prompts = await reaction_pod(db)
    a, first = sorted(prompts.items())[0]
    old = await drafts.pack_message_of(db, pod_id, first.seat)
    await drafts.record_shown(db, first, channel_id=CHANNEL, message_id=990)  # /draft resend: a new message
    assert (await drafts.pack_message_of(db, pod_id, first.seat)).message_id == 990
    assert (await drafts.pack_message(db, old.message_id)).pack_id is None
    assert (await reactions.toggle(db, old.message_id, a, 0, True)).outcome == reactions.STALE
    assert (await reactions.toggle(db, 990, a, 0, True)).outcome == reactions.PICKED
    assert [(m.message_id, m.current) for m in await reactions.all_pending(db) if m.seat == first.seat] == [(990, False)]


async def test_reconcile_brings_a_waiting_message_up_to_date(db):
    """A letter clicked on a message that showed no pack while the bot was away picks nothing, but
    is recorded: clicking it again once a pack is shown is a pick, not an unchanged state."""
    pod_id, prompts = await reaction_pod(db)
    (a, first), (b, second) = sorted(prompts.items())
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    await reactions.toggle(db, message.message_id, a, 0, True)  # a picks 🇦 and waits
    (waiting,) = [m for m in await reactions.all_pending(db) if m.seat == first.seat]
    assert not waiting.current
    done = await reactions.reconcile(db, waiting, 0b101)  # 🇨 clicked on while the bot was away
    assert done.outcome == reactions.UNCHANGED
    assert (await drafts.pack_message(db, message.message_id)).highlights == 0b101
    await pick_first_card(db, second, source="reaction")  # the next pack reaches a, on the same message
    nxt = await drafts.current_prompt(db, pod_id, a)
    await drafts.record_shown(db, nxt, channel_id=CHANNEL, message_id=message.message_id)
    done = await reactions.toggle(db, message.message_id, a, 2, False)  # 🇨 off: the pick
    assert done.outcome == reactions.PICKED and done.result.card == nxt.cards[2]


async def test_a_late_record_of_an_older_pack_never_moves_the_message_back(db):
    """The first pack's send is recorded after the player already picked from it by button and the
    message shows (and has recorded) the next pack: the late record must not win."""
    pod = await new_pod(db, players=2, pick_mode="both", packs=1, pack_size=5)
    begun = await drafts.begin(db, pod.id, ADMIN)
    first_a, first_b = sorted(begun.prompts, key=lambda p: p.seat)
    await pick_first_card(db, first_b)  # b's pack waits for a
    result = await pick_first_card(db, first_a)  # by button: a's next pack shows on the same message at once
    nxt = result.next_for_picker
    await drafts.record_shown(db, nxt, channel_id=CHANNEL, message_id=700)
    await drafts.record_shown(db, first_a, channel_id=CHANNEL, message_id=700)  # the batch's late record
    shown = await drafts.pack_message(db, 700)
    assert (shown.pack_id, shown.pack_pick) == (nxt.pack_id, nxt.pack_pick)
    done = await reactions.toggle(db, 700, first_a.user_id, 1, True)
    assert done.outcome == reactions.PICKED and done.result.card == nxt.cards[1]


async def test_a_start_lists_pack_messages_a_page_at_a_time_up_to_the_newest_at_start(db):
    """Pages of `pending` cover every pending pack message once; one sent after the start (a row
    newer than `last_pack_message` then) is this process's own and not listed."""
    _, prompts = await reaction_pod(db, players=5)
    through = await reactions.last_pack_message(db)
    pages, after = [], 0
    while page := await reactions.pending(db, after=after, through=through, limit=2):
        pages.append([m.message_id for m in page])
        after = page[-1].row_id
    assert pages == [[900, 901], [902, 903], [904]]
    newest = sorted(prompts.values(), key=lambda p: p.seat)[0]
    await drafts.record_shown(db, newest, channel_id=CHANNEL, message_id=995)  # sent after the start
    listed = [m.message_id for m in await reactions.pending(db, through=through)]
    assert 995 not in listed and len(listed) == 4  # and the message it replaced is retired


async def status_of(db, row_id: int) -> str:
    from sqlalchemy import select

    from bot.store.models import OutboxMessage

    async with db.read() as session:
        return (await session.execute(select(OutboxMessage.status).where(OutboxMessage.id == row_id))).scalar_one()


async def test_a_pick_that_leaves_the_player_waiting_holds_its_confirmation_for_one_taker(db):
    """The held "you took …" is shown once: by its timer, or by the next pack if that comes first."""
    pod_id, prompts = await reaction_pod(db, players=3)
    (a, first), (b, second), _ = sorted(prompts.items())
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    done = await reactions.toggle(db, message.message_id, a, 1, True)
    confirm = done.confirm
    assert done.result.held is None and confirm is not None and confirm.kind == drafts.CONFIRM
    assert confirm.message.user_id == a and (confirm.payload["pack_id"], confirm.payload["pack_pick"]) == (
        first.pack_id, first.pack_pick)
    assert await status_of(db, confirm.id) == "pending"  # queued with the pick, in its transaction

    # b's pick passes a pack to a within the grace: the pack takes the confirmation over.
    await pick_first_card(db, second, source="reaction")
    assert await drafts.merge_confirmation(db, pod_id, a, message.message_id) == drafts.Picked(first.cards[1], 0, 1)
    assert await drafts.merge_confirmation(db, pod_id, a, message.message_id) is None  # taken once
    assert not await drafts.claim_confirmation(db, confirm)  # the timer then shows nothing
    assert await status_of(db, confirm.id) == "skipped"



async def test_the_next_packs_one_read_takes_the_held_confirmation_over(db):
    """The pack renderer's one service call says where the pack goes and takes the confirmation
    held for that message with it (once); a pack that already carries its pick takes nothing."""
    pod_id, prompts = await reaction_pod(db, players=3)
    (a, first), *others = sorted(prompts.items())
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    confirm = (await reactions.toggle(db, message.message_id, a, 1, True)).confirm
    for _, other in others:  # one of them passes a pack to a
        await pick_first_card(db, other, source="reaction")
    prompt = await drafts.current_prompt(db, pod_id, a)
    assert prompt is not None
    found = await drafts.pack_target(db, prompt, check=False, pack_message=True, take_over=False)
    assert found.pack_message.message_id == message.message_id and found.picked is None
    assert await status_of(db, confirm.id) == "pending"
    found = await drafts.pack_target(db, prompt, check=True, pack_message=True, take_over=True)
    assert found.pack_message.message_id == message.message_id
    assert found.picked == drafts.Picked(first.cards[1], 0, 1)
    again = await drafts.pack_target(db, prompt, check=False, pack_message=True, take_over=True)
    assert again.picked is None  # taken once
    assert not await drafts.claim_confirmation(db, confirm) and await status_of(db, confirm.id) == "skipped"


async def test_the_final_pools_one_read_holds_all_it_shows(db):
    pod_id, prompts = await reaction_pod(db, players=3)
    (a, first), *_ = sorted(prompts.items())
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    confirm = (await reactions.toggle(db, message.message_id, a, 1, True)).confirm
    found = await drafts.final_pool_target(db, pod_id, a, first.seat, take_over=True)
    assert found.message == (message.channel_id, message.message_id)
    assert found.pool == await drafts.pool(db, pod_id, a) and found.pool.cards == [first.cards[1]]
    assert found.picked == drafts.Picked(first.cards[1], 0, 1) and await status_of(db, confirm.id) == "skipped"
    assert set(found.export_names) <= set(found.pool.cards)
    assert (await drafts.final_pool_target(db, pod_id, a, None, take_over=True)).message is None

async def test_a_held_confirmation_is_shown_by_its_timer_unless_the_message_moved_on(db):
    pod_id, prompts = await reaction_pod(db, players=3)
    (a, first), *_ = sorted(prompts.items())
    mine = await drafts.pack_message_of(db, pod_id, first.seat)
    confirm = (await reactions.toggle(db, mine.message_id, a, 0, True)).confirm
    assert await drafts.claim_confirmation(db, confirm)  # the grace ended first: shown
    assert await status_of(db, confirm.id) == "sent"
    assert not await drafts.claim_confirmation(db, confirm)  # never twice (another process, a sweep)
    assert await drafts.merge_confirmation(db, pod_id, a, mine.message_id) is None  # the pack then notifies



async def test_a_held_confirmation_never_covers_a_pack_shown_meanwhile(db):
    """The player's next pack was shown (by another process) before the confirmation was claimed:
    it would hide that pack, so it is dropped."""
    pod_id, prompts = await reaction_pod(db)
    (a, first), (b, second) = sorted(prompts.items())
    theirs = await drafts.pack_message_of(db, pod_id, second.seat)
    confirm = (await reactions.toggle(db, theirs.message_id, b, 0, True)).confirm
    assert confirm is not None
    await pick_first_card(db, first, source="reaction")  # a passes a pack to b
    nxt = await drafts.current_prompt(db, pod_id, b)
    await drafts.record_shown(db, nxt, channel_id=CHANNEL, message_id=theirs.message_id)
    assert not await drafts.claim_confirmation(db, confirm)
    assert await status_of(db, confirm.id) == "skipped"


async def test_a_pick_with_a_pack_queued_holds_no_confirmation(db):
    """The next pack, already there, is the confirmation (one edit): nothing is held."""
    pod_id, prompts = await reaction_pod(db)
    (a, first), (b, second) = sorted(prompts.items())
    await pick_first_card(db, second, source="reaction")
    message = await drafts.pack_message_of(db, pod_id, first.seat)
    done = await reactions.toggle(db, message.message_id, a, 0, True)
    assert done.result.held is not None and done.confirm is None
