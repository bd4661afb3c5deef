"""Picks by letter reaction on a player's one reused pack message, and reconciling the reactions
made while the bot was away.

A player in a reaction pod has one pack message (`DraftPackMessage`) while packs keep reaching
them: it is edited to show each next pack, and the bot's letters (🇦…) stay on it. A bot cannot
remove a player's reaction in a DM, so the player's old highlights stay too; a **toggle** of a
letter (added or removed) on the pack the message shows now is the pick. The message records
the highlights the bot has seen (one bit per letter), updated in the transaction of each toggle,
so after a restart the letters whose state differs are exactly the reactions the bot missed:
one such letter is the pick; several are asked about, never guessed.

A pick that leaves the player waiting is confirmed on the message ("you took …, waiting") a
moment later (`CONFIRM`, the bot's `pick_confirm_grace`): if the next pack reaches the player
before that, the one edit that shows it carries the confirmation too, and no "next pack" notice
is sent (the player is still looking at the message). The confirmation is an outbox row queued
with the pick, so a crash in that moment only delays it to the next start.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import rules as engine
from bot.games.draft.models import DraftDelivery, DraftPackMessage, DraftPod, DraftSeat
from bot.games.draft.service import deliveries
from bot.games.draft.service.deliveries import Closed, ClosePack, Notice, Picked
from bot.games.draft.service.picking import PickResult, apply_pick
from bot.games.draft.service.pools import PoolView, final_pool_in
from bot.games.draft.service.state import GAMES, STATUSES, PackPrompt, Pod, seat_wait
from bot.kit import card_data, outbox, tables
from bot.kit.events import Payload
from bot.store.db import Database
from bot.store.models import OutboxMessage
from bot.store.types import utcnow

PICKED, STALE, NO_CARD, UNCHANGED, ASK = "picked", "stale", "no_card", "unchanged", "ask"
# "You took …, waiting for the next pack" on a reaction pack message, held back for a moment (payload:
# pod_id, seat, channel_id, message_id, pack_id and pack_pick picked from, card, round, pick_number;
# done: that was the player's last pick, the draft goes on with the others).
CONFIRM = "draft.confirm"


@dataclass(frozen=True)
class Confirmation(Payload):
    """A `CONFIRM` row: the player took `card` from that pack state on their pack message."""

    pod_id: int
    seat: int
    channel_id: int
    message_id: int
    pack_id: int
    pack_pick: int
    card: str
    round: int
    pick_number: int
    done: bool = False  # that was the player's last pick: the draft goes on with the others

    def to_payload(self) -> dict:
        return dict(self.__dict__)  # plain values: what the codec writes, without its walk (a reaction pick's)


@dataclass(frozen=True)
class PackMessage:
    pod_id: int
    seat: int
    channel_id: int
    message_id: int
    pack_id: int | None
    pack_pick: int | None
    letters: int
    highlights: int
    user_id: int | None = None  # filled by `pending`
    current: bool = False  # filled by `pending`: it showed the seat's current pack when listed
    row_id: int = 0  # filled by `pending`: where its page ends (`pending(after=…)`)


def _view(row: DraftPackMessage, user_id: int | None = None, current: bool = False) -> PackMessage:
    return PackMessage(row.pod_id, row.seat, row.channel_id, row.message_id, row.pack_id, row.pack_pick,
                       row.letters, row.highlights, user_id, current, row.id)


@dataclass(frozen=True)
class Toggle:
    """What a toggle (or a reconciliation) did. `result` for PICKED; `letters` (card indexes) for
    ASK; `cards` (how many the shown pack has) for NO_CARD; `note` (the answer) for STALE."""

    outcome: str
    pod_id: int
    user_id: int
    result: PickResult | None = None
    letters: tuple[int, ...] = ()
    cards: int = 0
    confirm: outbox.Queued | None = None  # PICKED with no next pack yet: the held confirmation
    note: str = ""


async def pack_message_of(db: Database, pod_id: int, seat: int) -> PackMessage | None:
    """The seat's newest reaction pack message in that pod, if it has one."""
    async with db.read() as session:
        row = (
            await session.execute(
                select(DraftPackMessage)
                .where(DraftPackMessage.pod_id == pod_id, DraftPackMessage.seat == seat)
                .order_by(DraftPackMessage.id.desc())
                .limit(1)
            )
        ).scalar_one_or_none()
    return None if row is None else _view(row)


async def pack_message(db: Database, message_id: int) -> PackMessage | None:
    async with db.read() as session:
        row = (
            await session.execute(select(DraftPackMessage).where(DraftPackMessage.message_id == message_id))
        ).scalar_one_or_none()
    return None if row is None else _view(row)


async def _newest_pack_message(session: AsyncSession, pod_id: int, seat: int) -> DraftPackMessage | None:
    return (await session.execute(
        select(DraftPackMessage).where(DraftPackMessage.pod_id == pod_id, DraftPackMessage.seat == seat)
        .order_by(DraftPackMessage.id.desc()).limit(1)
    )).scalar_one_or_none()


def _heads(pod: Pod, seat: int) -> tuple[int, int] | None:
    """The seat's current pack state (pack id, picks made) in a running pod, if it has a pack."""
    if pod.row.status != STATUSES.running or pod.state is None or seat >= len(pod.seats):
        return None
    head = pod.state.head(seat)
    return None if head is None else (head.pack_id, head.picks_made)


@dataclass(frozen=True)
class PackTarget:
    pack_message: PackMessage | None  # the seat's reaction pack message, which the pack edits
    picked: Picked | None = None  # the confirmation held for that message, taken over by the pack's edit


async def pack_target(db: Database, prompt: PackPrompt, *, check: bool, shown_on: tuple[int, int] | None = None,
                      pack_message: bool, take_over: bool = False) -> PackTarget | None:
    """Where a pack goes, in one transaction (a read unless it takes a confirmation over). With
    `check` (sent long after its commit) None when it is no longer wanted: the seat has moved on, or
    a message shows it already (with `shown_on`: unless that message is the one it is recorded on).
    With `pack_message`, the seat's reaction pack message, and with `take_over` the pick
    confirmation still held for it (`merge_confirmation`): the pack's edit shows it."""

    async def use_case(session: AsyncSession) -> PackTarget | None:
        found = await _pack_target_in(session, prompt, check=check, shown_on=shown_on, pack_message=pack_message)
        if found is None or found.pack_message is None or not take_over:
            return found
        return replace(found, picked=await _take_confirmation(session, prompt.user_id, found.pack_message.message_id))

    if pack_message and take_over:
        return await db.transact(use_case, key=prompt.pod_id)
    async with db.read() as session:
        return await use_case(session)


async def _pack_target_in(session: AsyncSession, prompt: PackPrompt, *, check: bool,
                          shown_on: tuple[int, int] | None, pack_message: bool) -> PackTarget | None:
    if check or shown_on is not None:
        head, message = await deliveries.head_shown(session, prompt.pod_id, prompt.seat, prompt.pack_id, prompt.pack_pick)
        if not head or message != shown_on:
            return None
    target = await _newest_pack_message(session, prompt.pod_id, prompt.seat) if pack_message else None
    return PackTarget(None if target is None else _view(target))


@dataclass(frozen=True)
class NoticeTarget:
    pack_message: tuple[int, int]  # (channel id, message id): the reaction pack message it replies to
    replaces: tuple[int, int] | None  # the player's notice before it, if it was sent: deleted


async def notice_target(db: Database, notice: Notice, *, late: bool) -> NoticeTarget | None:
    """Where a "your next pack" notice goes, in one read: None when the player has no reaction pack
    message, or (`late`: sent long after its commit) when the pack has moved on meanwhile."""
    async with db.read() as session:
        if late and not (await deliveries.head_shown(session, notice.pod_id, notice.seat, notice.pack_id, notice.pack_pick))[0]:
            return None
        target = await _newest_pack_message(session, notice.pod_id, notice.seat)
        if target is None:
            return None
        replaces = None
        if notice.previous is not None:
            replaces = (await session.execute(
                select(OutboxMessage.channel_id, OutboxMessage.message_id)
                .where(OutboxMessage.id == notice.previous, OutboxMessage.status == outbox.SENT)
            )).first()
        return NoticeTarget((target.channel_id, target.message_id),
                            None if replaces is None or replaces[1] is None else (replaces[0], replaces[1]))


@dataclass(frozen=True)
class Closing:
    message: tuple[int, int]  # (channel id, message id) that showed the pack: its buttons go
    stop_letters: bool  # a message without a reaction record: stop adding letters to it


async def closing_target(db: Database, closing: ClosePack) -> Closing | None:
    """Which message loses the buttons of a pack picked from elsewhere, in one read. None: no
    message showed it, or it is the player's reaction pack message and will show their next pack
    (it moved on already, or a time-out's pick left the seat a pack, whose edit replaces it)."""
    async with db.read() as session:
        found = (await session.execute(
            select(DraftDelivery.channel_id, DraftDelivery.message_id).where(
                DraftDelivery.pod_id == closing.pod_id, DraftDelivery.pack_id == closing.pack_id,
                DraftDelivery.pack_pick == closing.pack_pick)
        )).first()
        if found is None:
            return None
        message = (found[0], found[1])
        target = (await session.execute(
            select(DraftPackMessage).where(DraftPackMessage.message_id == message[1]))).scalar_one_or_none()
        if target is None:
            return Closing(message, stop_letters=True)
        if (target.pack_id, target.pack_pick) != (closing.pack_id, closing.pack_pick):
            return None
        if closing.reason is Closed.TIMEOUT:
            pod = await GAMES.load(session, target.pod_id, lock=False)
            if _heads(pod, target.seat) is not None:
                return None
        return Closing(message, stop_letters=False)


async def set_letters(db: Database, message_id: int, letters: int) -> None:
    """The bot's letters 🇦… up to `letters` are on the message (never fewer than recorded)."""
    async with db.write() as session:
        await session.execute(
            update(DraftPackMessage)
            .where(DraftPackMessage.message_id == message_id, DraftPackMessage.letters < letters)
            .values(letters=letters)
        )


async def toggle(db: Database, message_id: int, user_id: int, index: int, added: bool, *,
                 now: datetime | None = None) -> Toggle | None:
    """The player added (or removed) letter `index` on `message_id`. None: not a pack message of
    theirs. A toggle the bot has already seen (e.g. counted at startup) changes nothing."""
    bit = 1 << index
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> Toggle | None:
        found = await _locked(session, message_id)
        if found is None:
            return None
        pod, row = found
        if pod.by_seat(row.seat).user_id != user_id:
            return None
        seen = row.highlights | bit if added else row.highlights & ~bit
        if seen == row.highlights:
            return Toggle(UNCHANGED, pod.row.id, user_id)
        row.highlights = seen
        return await _pick(session, pod, row, user_id, (index,), now)

    return await db.transact(use_case, key=await _pod_of(db, message_id))


async def reconcile(db: Database, target: PackMessage, observed: int, *, now: datetime | None = None) -> Toggle | None:
    """Compare the letters the player highlights on `target` (`observed`, read from Discord after
    `pending` listed it) with those the bot saw. On a message that shows the seat's current pack,
    one changed letter is the pick and several are asked about; on a message that shows none
    (the player is waiting) the observed letters are only recorded, so later toggles compare
    with the truth. None: the message changed since it was listed (a live reaction was handled
    meanwhile: the reading is older than the record, which is kept)."""
    now = now or utcnow()

    async def use_case(session: AsyncSession) -> Toggle | None:
        found = await _locked(session, target.message_id)
        if found is None:
            return None
        pod, row = found
        head = pod.state.head(row.seat) if pod.state is not None and pod.row.status == STATUSES.running else None
        shown = (row.pack_id, row.pack_pick)
        current = head is not None and shown == (head.pack_id, head.picks_made)
        if shown != (target.pack_id, target.pack_pick) or current != target.current:
            return None
        changed = observed ^ row.highlights
        row.highlights = observed
        user_id = pod.by_seat(row.seat).user_id
        if not current:
            return Toggle(UNCHANGED, pod.row.id, user_id)
        letters = tuple(i for i in range(changed.bit_length()) if changed >> i & 1)
        return await _pick(session, pod, row, user_id, letters, now, event=False)

    return await db.transact(use_case, key=target.pod_id)


# A pack message belongs to one pod for good: which one, for routing its toggles to that pod's
# writer lane (`Database.transact`'s key) without a read per reaction.
_POD_OF_MESSAGE: OrderedDict[int, int] = OrderedDict()
_POD_OF_MESSAGE_SIZE = 10_000


async def _pod_of(db: Database, message_id: int) -> int:
    pod_id = _POD_OF_MESSAGE.get(message_id)
    if pod_id is None:
        async with db.read() as session:
            pod_id = (
                await session.execute(select(DraftPackMessage.pod_id).where(DraftPackMessage.message_id == message_id))
            ).scalar_one_or_none()
        if pod_id is None:
            return 0  # no such pack message: the job finds that out itself
        _POD_OF_MESSAGE[message_id] = pod_id
        if len(_POD_OF_MESSAGE) > _POD_OF_MESSAGE_SIZE:
            _POD_OF_MESSAGE.popitem(last=False)
    return pod_id


async def _locked(session: AsyncSession, message_id: int) -> tuple[Pod, DraftPackMessage] | None:
    """The pod (locked: one pick at a time) and the pack message row."""
    pod_id = (
        await session.execute(select(DraftPackMessage.pod_id).where(DraftPackMessage.message_id == message_id))
    ).scalar_one_or_none()
    if pod_id is None:
        return None
    pod = await GAMES.load(session, pod_id)
    row = (
        await session.execute(select(DraftPackMessage).where(DraftPackMessage.message_id == message_id))
    ).scalar_one()
    return pod, row


async def _pick(session: AsyncSession, pod: Pod, row: DraftPackMessage, user_id: int, letters: tuple[int, ...],
                now: datetime, *, event: bool = True) -> Toggle:
    """Pick the one toggled letter from the pack the message shows, if it is still the seat's.
    `event`: a reaction event (else a reconciliation, which ignores letters beyond the pack and
    stays silent about a pack that moved on)."""
    pod_id = pod.row.id
    if pod.row.status != STATUSES.running:
        if event and pod.row.status == STATUSES.finished:  # a click after the draft ended: where the pool is
            return Toggle(STALE, pod_id, user_id, note=seat_wait(pod, row.seat).refusal)
        return Toggle(UNCHANGED, pod_id, user_id)  # after it was cancelled: no answer
    state, seat_row = pod.state, pod.by_seat(row.seat)
    head = state.head(row.seat) if state is not None else None
    if head is None or seat_row.is_bot or (head.pack_id, head.picks_made) != (row.pack_id, row.pack_pick):
        if not event:
            return Toggle(UNCHANGED, pod_id, user_id)
        return Toggle(STALE, pod_id, user_id, note=seat_wait(pod, row.seat).refusal)
    if event and letters[0] >= len(head.cards):
        return Toggle(NO_CARD, pod_id, user_id, cards=len(head.cards))
    letters = tuple(i for i in letters if i < len(head.cards))
    if not letters:
        return Toggle(UNCHANGED, pod_id, user_id)
    if len(letters) > 1:
        return Toggle(ASK, pod_id, user_id, letters=letters)
    result = await apply_pick(session, pod, row.seat, head.pack_id, head.picks_made, letters[0], "reaction", now)
    if result.held is not None:
        # The picker's next pack replaces this one on the same message, with what they took.
        picked = Picked(result.card, result.round, result.pick_number)
        # The held row is a `PackPost`, or a `FinalPool` when the pick ended the draft: both say `picked`.
        payload = {**result.held.payload, "picked": picked.to_payload()}
        await session.execute(update(OutboxMessage).where(OutboxMessage.id == result.held.id).values(payload=payload))
        held = replace(result.held, message=replace(result.held.message, payload=payload))
        result = replace(result, held=held)
        return Toggle(PICKED, pod_id, user_id, result=result)
    confirm = outbox.Message(CONFIRM, Confirmation(
        pod_id=pod_id, seat=row.seat, channel_id=row.channel_id, message_id=row.message_id,
        pack_id=result.pack_id, pack_pick=result.pack_pick, card=result.card, round=result.round,
        pick_number=result.pick_number, done=result.done,
    ).to_payload(), user_id=user_id)
    # Held: the caller sends it after the grace; the next start's sweep does if this process dies.
    (queued,) = await outbox.queue(session, hold=True, held=[confirm], now=now)
    return Toggle(PICKED, pod_id, user_id, result=result, confirm=queued)


async def claim_confirmation(db: Database, queued: outbox.Queued) -> bool:
    """Take the held confirmation to show it now: False if the next pack took it already (the
    message shows that pack with the confirmation) or the message moved on to another pack."""
    p = Confirmation.from_payload(queued.payload)

    async def use_case(session: AsyncSession) -> bool:
        shown = (await session.execute(
            select(DraftPackMessage.pack_id, DraftPackMessage.pack_pick)
            .where(DraftPackMessage.message_id == p.message_id)
        )).first()
        still = shown is not None and tuple(shown) == (p.pack_id, p.pack_pick)
        claimed = await session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == queued.id, OutboxMessage.status == outbox.PENDING)
            .values(status=outbox.SENT if still else outbox.SKIPPED, next_attempt_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        return still and claimed.rowcount == 1

    return await db.transact(use_case, key=p.pod_id)


async def merge_confirmation(db: Database, pod_id: int, user_id: int, message_id: int) -> Picked | None:
    """The next pack reached a player whose confirmation is still held: take it, to show it with
    the pack. None: it was shown already (or there is none)."""

    return await db.transact(lambda session: _take_confirmation(session, user_id, message_id), key=pod_id)


async def _take_confirmation(session: AsyncSession, user_id: int, message_id: int) -> Picked | None:
    held = (await session.execute(
        select(OutboxMessage.id, OutboxMessage.payload)
        .where(OutboxMessage.status == outbox.PENDING, OutboxMessage.kind == CONFIRM,
               OutboxMessage.user_id == user_id)
    )).all()
    for row_id, payload in held:
        if Confirmation.from_payload(payload).message_id != message_id:
            continue
        claimed = await session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == row_id, OutboxMessage.status == outbox.PENDING)
            .values(status=outbox.SKIPPED, error="shown with the next pack", next_attempt_at=utcnow())
            .execution_options(synchronize_session=False)
        )
        if claimed.rowcount == 1:
            return Picked.from_payload(payload)
    return None


@dataclass(frozen=True)
class FinalPoolTarget:
    """What a player's final pool shows, read at once: the message it replaces (None: a new DM),
    the pool, the confirmation it takes over and the cards' names in deck files."""

    message: tuple[int, int] | None
    pool: PoolView
    picked: Picked | None
    export_names: dict[str, str]


async def final_pool_target(db: Database, pod_id: int, user_id: int, seat: int | None, *,
                            take_over: bool) -> FinalPoolTarget:
    """The player's pool and the message that showed the seat its newest pack, if one did (which the
    pool replaces), with (`take_over`) the pick confirmation still held for it, in one transaction."""

    async def use_case(session: AsyncSession) -> FinalPoolTarget:
        message, pool = await final_pool_in(session, pod_id, user_id, seat)
        picked = await _take_confirmation(session, user_id, message[1]) if take_over and message else None
        return FinalPoolTarget(message, pool, picked, await card_data.export_names_in(session, pool.cards))

    if take_over and seat is not None:
        return await db.transact(use_case, key=pod_id)
    async with db.read() as session:
        return await use_case(session)


PENDING_PAGE = 200  # pack messages listed at a time at startup (read at 20 a second: no need for more)


async def last_pack_message(db: Database) -> int:
    """The id of the newest pack message row (0: none): a start reconciles those up to it."""
    async with db.read() as session:
        return (await session.execute(select(func.max(DraftPackMessage.id)))).scalar_one() or 0


async def pending(db: Database, *, after: int = 0, through: int | None = None, limit: int = PENDING_PAGE,
                  message_id: int | None = None) -> list[PackMessage]:
    """The newest reaction pack message of every human seat of every running pod: those showing
    the seat's current pack (`current`), which a reaction may have picked from while the bot was
    away, and those of waiting players, whose highlights the bot only brings up to date. A page at
    a time (`limit` of them, by row id, after `after` and up to `through`), each pod's document
    decoded once, so the memory a start needs does not grow with the number of running pods.
    With `message_id`: that message only, if it is one of them."""
    newest = (
        select(func.max(DraftPackMessage.id))
        .group_by(DraftPackMessage.pod_id, DraftPackMessage.seat)
        .scalar_subquery()
    )
    async with db.read() as session:
        rows = (
            await session.execute(
                select(DraftPackMessage, DraftSeat.user_id)
                .join(DraftPod, DraftPod.id == DraftPackMessage.pod_id)
                .join(DraftSeat, (DraftSeat.pod_id == DraftPackMessage.pod_id) & (DraftSeat.seat == DraftPackMessage.seat))
                .where(DraftPod.status == STATUSES.running, DraftPackMessage.pack_id.is_not(None),
                       DraftSeat.is_bot.is_(False), DraftPackMessage.id > after, DraftPackMessage.id.in_(newest),
                       DraftPackMessage.id <= (through if through is not None else tables.MAX_ID),
                       *([DraftPackMessage.message_id == message_id] if message_id is not None else []))
                .order_by(DraftPackMessage.id)
                .limit(limit)
            )
        ).all()
        pod_ids = {row.pod_id for row, _ in rows}
        states = dict((await session.execute(select(DraftPod.id, DraftPod.state).where(DraftPod.id.in_(pod_ids)))).all())
    out = []
    for row, user_id in rows:
        state = states.get(row.pod_id)
        if not state:
            continue
        pack = engine.DraftState.pack_in_dict(state, row.pack_id)
        out.append(_view(row, user_id, current=pack is not None and pack[0] == row.pack_pick))
    return out


async def all_pending(db: Database) -> list[PackMessage]:
    """Every page of `pending` (tests and tools; the bot reads them page by page)."""
    out: list[PackMessage] = []
    while page := await pending(db, after=out[-1].row_id if out else 0):
        out.extend(page)
    return out
