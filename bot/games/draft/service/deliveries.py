"""The messages a draft owes (queued in the outbox with the change that causes them), and which
message shows which pack state.

A pack state is shown by at most one live message (`DraftDelivery`): recorded when Discord accepted
it (the outbox's `on_sent` hook), replaced when the pack is sent again (the older message is
retired), and looked up when a player reacts to a message. Which pack each seat's DMs should show
now is the kit's one record of shown messages (`bot.kit.shown`, key `pack:<seat>`, version the pack
state): wanted in the transaction that moves the seat's pack (`want_heads`), its message recorded
in the same `on_sent` transaction, and asked by a send that comes late (`head_shown`). A player whose DMs are closed is marked
so (the `on_dm_closed` hook) and told in the pod's channel to pick with `/draft pick`.

A pack that reaches a player on their reaction pack message (an edit, which notifies nobody) also
sends a short notice (`NOTICE`), a reply to that message, unless the player is evidently watching:
they picked within `WATCHING`, so the edit is enough. A player has at most one notice in sight:
each notice deletes the one before it (the seat's clock keeps its outbox row).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import rules as engine
from bot.games.draft.models import DraftDelivery, DraftPackMessage, DraftPick, DraftPod, DraftSeat
from bot.games.draft.service import turns
from bot.games.draft.service.state import (
    GAMES,
    STATUSES,
    PackPrompt,
    Pod,
    SeatClock,
    is_bot_user,
    prompt_for,
    shown_owner,
)
from bot.kit import deadlines, outbox, private_pages, shown
from bot.kit.errors import PermissionDenied, UserError
from bot.kit.events import Payload
from bot.store.db import Database
from bot.store.types import utcnow

PACK = "draft.pack"  # a pack to pick from, by DM (payload: PackPost)
RETIRE = "draft.retire"  # an older message of a pack sent again (payload: MessageRef)
CLOSE_PACK = "draft.close_pack"  # a pack the bot picked from: the message loses its buttons (payload: ClosePack)
# In the pod's channel: "I can't DM you your draft pack" (payload: DmsClosed; in the kit's words,
# `delivery.Renderers.dms_closed`).
DMS_CLOSED = "draft.dms_closed"
REMINDER = "draft.reminder"  # half the pick time is gone (payload: PodRef)
TIMED_OUT = "draft.timed_out"  # to the player (and the organizer when a bot takes the seat) (payload: TimedOut)
# The pool when the draft is over (payload: FinalPool): the player's last pack message turns into it
# (a new DM if they have none), and the channel's summary pings them.
FINAL_POOL = "draft.final_pool"
SUMMARY = "draft.summary"  # the channel's summary when the draft is over (payload: PodRef)
# A player's own page of a draft on the server's web pages (`registry.private_page`): their picks.
OWN_POOL = "draft-pool"
RECOVER = "draft.recover"  # deadline: queue what a pod owes that no message shows (after upgrades)
# "📬 your next pack is in your pack message": a reply to a reaction pack message that now shows a
# pack the player was waiting for (payload: Notice).
NOTICE = "draft.notice"
REACTION_CARDS = 20  # the most cards a pack message offers as letter reactions (🇦…🇹)
# A player who picked this recently is watching their pack message: its edit is enough, no notice.
WATCHING = timedelta(seconds=60)


@dataclass(frozen=True)
class Picked(Payload):
    """What a player just took (shown with their next pack, their pool, or its confirmation)."""

    card: str
    round: int
    pick_number: int


@dataclass(frozen=True)
class PackPost(PackPrompt):
    """A `PACK` row: the prompt, and whether it is a new message the player asked for (`resend`),
    shows the picker's own next pack after a reaction pick (`picked`), or is the first pack of a
    player who took their seat back from a bot (`rejoined`)."""

    resend: bool = False
    picked: Picked | None = None
    rejoined: bool = False

    def to_payload(self) -> dict:
        data = super().to_payload()
        if self.picked is not None:
            data["picked"] = self.picked.to_payload()
        return data


@dataclass(frozen=True)
class Notice(Payload):
    """To the player: their pack message shows pack `pack_id` (after `pack_pick` picks) now, which
    reached them while they were away; `previous` is the outbox row of their notice before this one
    (deleted when this one is sent)."""

    pod_id: int
    seat: int
    pack_id: int
    pack_pick: int
    round: int
    pick_number: int
    pick_mode: str
    previous: int | None = None


@dataclass(frozen=True)
class PodRef(Payload):
    """The pod a reminder or the channel's summary is about (`variant`: a reminder's draft variant)."""

    pod_id: int
    variant: str | None = None


NO_PACK = -1  # the version of a seat's `pack:<seat>` record while it has no pack to show (or a bot plays it)


def seat_key(seat: int) -> str:
    return f"pack:{seat}"


def pack_version(pack_id: int, pack_pick: int) -> int:
    """A pack state as one number (a pack is picked from fewer than 1,000 times)."""
    return pack_id * 1000 + pack_pick


def want_heads(pod: Pod, seats: Iterable[int], prompts: Iterable[PackPrompt | None] | None = None) -> None:
    """The pack each of `seats` shows now is the one wanted (`prompts`: theirs, when the caller has
    them already): written with the pod by `GAMES.commit`, in the transaction that moved them."""
    seats = list(seats)
    prompts = [prompt_for(pod, seat) for seat in seats] if prompts is None else list(prompts)
    pod.new_wants.update({seat_key(seat): NO_PACK if p is None else pack_version(p.pack_id, p.pack_pick)
                          for seat, p in zip(seats, prompts, strict=True)})


async def write_wants(session: AsyncSession, pod: Pod) -> None:
    """Write the records `want_heads` kept with a pod this transaction does not save."""
    await shown.want_quietly(session, shown_owner(pod.row.id), pod.new_wants)
    pod.new_wants.clear()


def uses_reactions(prompt: PackPrompt) -> bool:
    """Is this pack shown with letter reactions (on the player's one reused pack message)?"""
    return prompt.pick_mode in ("both", "reactions") and len(prompt.cards) <= REACTION_CARDS


@dataclass(frozen=True)
class MessageRef(Payload):
    """A message sent before (a pack message to retire)."""

    channel_id: int
    message_id: int


class Closed(enum.Enum):
    """Why a pack message loses its buttons: the timer picked, the player picked in the server, or
    a bot took the seat."""

    TIMEOUT = "timeout"
    SERVER = "server"
    BOT = "bot"


@dataclass(frozen=True)
class ClosePack(Payload):
    """Take the buttons off the message showing that pack state, saying why (a time-out and a
    server pick name the card taken)."""

    pod_id: int
    pack_id: int
    pack_pick: int
    reason: Closed
    card: str | None = None
    round: int = 0
    pick_number: int = 0


@dataclass(frozen=True)
class TimedOut(Payload):
    """To the player: the timer picked `card` for them (`to_bot`: a bot plays their seat now); or,
    `to_organizer`, to the organizer: `player_id` timed out repeatedly and a bot took their seat."""

    pod_id: int
    card: str = ""
    round: int = 0
    pick_number: int = 0
    to_bot: bool = False
    completed: bool = False
    to_organizer: bool = False
    player_id: int | None = None


@dataclass(frozen=True)
class FinalPool(Payload):
    """The player's pool when the draft is over, on the message that showed `seat` its last pack
    (None: a new DM), with what they took last if that pick's confirmation was held (`picked`)."""

    pod_id: int
    seat: int | None = None
    picked: Picked | None = None


def shows_in_place(prompt: PackPrompt) -> bool:
    """Does a pack that waits for a player who picks on a DM by button replace the pack they
    picked from on that message (buttons or both modes), rather than come as a new message?"""
    return prompt.pick_mode in ("buttons", "both")


def pack_post(prompt: PackPrompt, **more) -> PackPost:
    return PackPost(**prompt.__dict__, **more)


def pack_message(prompt: PackPrompt, *, resend: bool = False, rejoined: bool = False) -> outbox.Message:
    # `pack_post(prompt, resend=…, rejoined=…).to_payload()`, written directly: a pick queues one or two.
    payload = prompt.to_payload() | {"resend": resend, "picked": None, "rejoined": rejoined}
    return outbox.Message(PACK, payload, user_id=prompt.user_id, guild_id=prompt.guild_id)


def prompt_of(queued: outbox.Queued) -> PackPrompt:
    return PackPrompt.from_payload(queued.payload)


async def queue_packs(
    session: AsyncSession, pod: Pod, seats: set[int] | list[int], *, hold_seat: int | None = None
) -> tuple[list[PackPrompt], outbox.Queued | None]:
    """Queue the current pack of every human seat in `seats` whose DMs are open. The pack of
    `hold_seat` (the picker) is held for the caller, who usually shows it in its interaction
    response; the rest are sent right after the commit. Returns every prompt, and the held row.
    A draft variant announces its turns its own way (`turns.queue_turns`)."""
    if pod.row.variant is not None:
        return await turns.queue_turns(session, pod, seats)
    ordered = sorted(seats)
    heads = [prompt_for(pod, seat) for seat in ordered]
    want_heads(pod, ordered, heads)
    prompts = [p for p in heads if p is not None]
    sendable = [p for p in prompts if not p.dm_closed]
    held = [pack_message(p) for p in sendable if p.seat == hold_seat]
    packs = [pack_message(p) for p in sendable if p.seat != hold_seat]
    # After the packs, in the same statement: sent in order, each right after its pack's edit.
    away = [p for p in sendable if p.seat != hold_seat and uses_reactions(p) and _away(pod, p.seat)]
    notices = [_notice(p, pod.clocks[p.seat]) for p in away]
    rows = await outbox.queue(session, *packs, *notices, held=held)
    for prompt, row in zip(away, rows[len(packs):len(packs) + len(notices)], strict=True):
        pod.clocks[prompt.seat].notice = row.id  # saved with the pod: the next notice deletes this one
    return prompts, (rows[-1] if held else None)


def _away(pod: Pod, seat: int) -> bool:
    """Was the seat's player away (no pick for `WATCHING`) when their pack reached them (its clock's
    `waiting_since`), so it needs a notice? A player who never picked in this draft gets their first
    pack as a new message, which notifies by itself."""
    if seat >= len(pod.clocks):
        return False
    clock = pod.clocks[seat]
    return (clock.last_pick_at is not None and clock.waiting_since is not None
            and clock.waiting_since - clock.last_pick_at >= WATCHING)


def _notice(prompt: PackPrompt, clock: SeatClock) -> outbox.Message:
    notice = Notice(prompt.pod_id, prompt.seat, prompt.pack_id, prompt.pack_pick, prompt.round, prompt.pick_number,
                    prompt.pick_mode, clock.notice)
    return outbox.Message(NOTICE, notice.to_payload(), user_id=prompt.user_id, guild_id=prompt.guild_id)


async def queue_completion(session: AsyncSession, pod: Pod, *, hold_seat: int | None = None) -> outbox.Queued | None:
    """The draft is over: every player's pool in their DMs (a player a bot replaced too: the seat's
    picks are theirs), and a summary in the channel; while the server's web pages are on, each
    player's link to their own page of the draft, by DM after the pool. The pool of `hold_seat`
    (the player whose pick ended the draft) is held for the caller, who shows it in answer to that pick."""
    row = pod.row
    pools = {
        seat.seat: outbox.Message(FINAL_POOL, FinalPool(row.id, seat.seat).to_payload(), user_id=seat.user_id,
                                  guild_id=row.guild_id)
        for seat in pod.seats
        if not seat.dm_closed and not is_bot_user(seat.user_id)  # a bot drafter has no DMs
    }
    summary = outbox.Message(SUMMARY, PodRef(row.id).to_payload(), channel_id=row.channel_id, guild_id=row.guild_id)
    held = [pools.pop(hold_seat)] if hold_seat in pools else []
    rows = await outbox.queue(session, *pools.values(), summary, held=held)
    players = [seat.user_id for seat in pod.seats if not seat.dm_closed and not is_bot_user(seat.user_id)]
    await private_pages.queue_links(session, row.guild_id, page=OWN_POOL, ref=row.id, title=f"Draft #{row.id}",
                                    user_ids=players)
    return rows[-1] if held else None


def close_pack_message(pod: Pod, pack_id: int | None, pack_pick: int | None, reason: Closed,
                       **details) -> outbox.Message | None:
    """Take the buttons off the message that shows a pack the bot (or a server pick) picked from
    (`details`: the rest of a `ClosePack`). None when that pick ended the draft: the message turns
    into the player's pool instead."""
    if pack_id is None or pack_pick is None or pod.row.status == STATUSES.finished:
        return None
    payload = ClosePack(pod.row.id, pack_id, pack_pick, reason, **details)
    return outbox.Message(CLOSE_PACK, payload.to_payload(), guild_id=pod.row.guild_id)


# --- outbox hooks -------------------------------------------------------------------------------------


async def _record_delivery(session: AsyncSession, queued: outbox.Queued, channel_id: int, message_id: int) -> None:
    """`message_id` shows the pack state now; a message that showed it before is retired."""
    prompt = prompt_of(queued)
    await shown.record(session, shown_owner(prompt.pod_id), seat_key(prompt.seat),
                       pack_version(prompt.pack_id, prompt.pack_pick), channel_id, message_id)
    existing = (
        await session.execute(
            select(DraftDelivery).where(
                DraftDelivery.pod_id == prompt.pod_id,
                DraftDelivery.pack_id == prompt.pack_id,
                DraftDelivery.pack_pick == prompt.pack_pick,
            )
        )
    ).scalar_one_or_none()
    if existing is None:
        session.add(
            DraftDelivery(pod_id=prompt.pod_id, pack_id=prompt.pack_id, pack_pick=prompt.pack_pick, seat=prompt.seat,
                          channel_id=channel_id, message_id=message_id)
        )
    elif existing.message_id != message_id:
        old = MessageRef(existing.channel_id, existing.message_id)
        await outbox.queue(session, outbox.Message(RETIRE, old.to_payload(), guild_id=prompt.guild_id))
        await session.execute(  # a retired pack message shows no pack any more: its letters pick nothing
            update(DraftPackMessage).where(DraftPackMessage.message_id == existing.message_id).values(pack_id=None, pack_pick=None)
        )
        existing.channel_id, existing.message_id = channel_id, message_id
    if uses_reactions(prompt):
        await _show_on_pack_message(session, prompt, channel_id, message_id)
    await session.execute(
        update(DraftSeat).where(DraftSeat.pod_id == prompt.pod_id, DraftSeat.seat == prompt.seat).values(dm_closed=False)
    )


async def _show_on_pack_message(session: AsyncSession, prompt: PackPrompt, channel_id: int, message_id: int) -> None:
    """Record that the reaction pack message `message_id` shows `prompt` now (the player's
    highlights on it are kept: a bot cannot remove a player's reaction in a DM).

    A record that comes late changes nothing: if the pack was picked meanwhile (e.g. by a button on
    this very message, before the batch that sent it was recorded), the message shows a later pack,
    whose record may already be there; a message's record never goes back."""
    picked = select(DraftPick.id).where(
        DraftPick.pod_id == prompt.pod_id, DraftPick.pack_id == prompt.pack_id, DraftPick.pack_pick == prompt.pack_pick
    )
    if (await session.execute(picked.limit(1))).first() is not None:
        return
    row = await _pack_message_row(session, message_id)
    if row is None:
        try:
            async with session.begin_nested():  # another process may record this message at the same moment
                session.add(DraftPackMessage(pod_id=prompt.pod_id, seat=prompt.seat, channel_id=channel_id,
                                             message_id=message_id, pack_id=prompt.pack_id, pack_pick=prompt.pack_pick,
                                             letters=0, highlights=0))
            return
        except IntegrityError:
            row = await _pack_message_row(session, message_id)
    row.pack_id, row.pack_pick = prompt.pack_id, prompt.pack_pick


async def _pack_message_row(session: AsyncSession, message_id: int) -> DraftPackMessage | None:
    return (
        await session.execute(select(DraftPackMessage).where(DraftPackMessage.message_id == message_id))
    ).scalar_one_or_none()


async def _dms_closed(session: AsyncSession, queued: outbox.Queued) -> None:
    prompt = prompt_of(queued)
    await session.execute(
        update(DraftSeat).where(DraftSeat.pod_id == prompt.pod_id, DraftSeat.user_id == prompt.user_id).values(dm_closed=True)
    )
    notice = outbox.DmsClosed(prompt.user_id)
    await outbox.queue(session, outbox.Message(DMS_CLOSED, notice.to_payload(), channel_id=prompt.channel_id,
                                               guild_id=prompt.guild_id))


outbox.on_sent(PACK, _record_delivery)
outbox.on_dm_closed(PACK, _dms_closed)


# --- lookups ---------------------------------------------------------------------------------------------


async def current_prompt(db: Database, pod_id: int, user_id: int, *, variant: bool = False) -> PackPrompt | None:
    """The player's current pack (None: none now); a draft variant's turn only when asked for (`variant`):
    it has no pack to show or DM."""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        row = pod.seat_of(user_id)
        if row is None or row.seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        if pod.row.variant is not None and not variant:
            raise UserError(turns.NO_PACKS)
        if pod.row.status != STATUSES.running:
            return None
        return prompt_for(pod, row.seat)


async def still_current(db: Database, prompt: PackPrompt) -> bool:
    """Is this pack state still the seat's head? (For sends made long after their commit: after a
    crash, or a retry.)"""
    async with db.read() as session:
        return (await head_shown(session, prompt.pod_id, prompt.seat, prompt.pack_id, prompt.pack_pick))[0]


async def head_shown(session: AsyncSession, pod_id: int, seat: int, pack_id: int,
                     pack_pick: int) -> tuple[bool, tuple[int, int] | None]:
    """Is that pack state what the seat picks from now, and (channel id, message id) of the message
    recorded as showing it: one read of the seat's `shown` record. A seat without one (a pod begun
    before the records, or cancelled) is read from the pod's state and its deliveries."""
    found = await shown.wanted_now(session, shown_owner(pod_id), seat_key(seat))
    if found is not None:
        version, message = found
        if version != pack_version(pack_id, pack_pick):
            return False, None
        return True, None if message is None else (message.channel_id, message.message_id)
    pod = await GAMES.load(session, pod_id, lock=False)
    if pod.row.status != STATUSES.running or seat >= len(pod.seats):
        return False, None
    now = prompt_for(pod, seat)
    if now is None or (now.pack_id, now.pack_pick) != (pack_id, pack_pick):
        return False, None
    delivered = (await session.execute(
        select(DraftDelivery.channel_id, DraftDelivery.message_id).where(
            DraftDelivery.pod_id == pod_id, DraftDelivery.pack_id == pack_id, DraftDelivery.pack_pick == pack_pick)
    )).first()
    return True, None if delivered is None else (delivered[0], delivered[1])


async def is_head(db: Database, pod_id: int, seat: int, pack_id: int, pack_pick: int) -> bool:
    """Is that pack state the seat's current pack, in a running draft?"""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        if pod.row.status != STATUSES.running or seat >= len(pod.seats):
            return False
        now = prompt_for(pod, seat)
        return now is not None and (now.pack_id, now.pack_pick) == (pack_id, pack_pick)


async def notice_to_replace(db: Database, notice: Notice) -> tuple[int, int] | None:
    """(channel id, message id) of the player's notice before `notice`, if it was sent: the new one deletes it."""
    return None if notice.previous is None else await outbox.sent_message(db, notice.previous)


async def is_shown(db: Database, prompt: PackPrompt) -> bool:
    return await delivery_message(db, prompt.pod_id, prompt.pack_id, prompt.pack_pick) is not None


async def resend(db: Database, pod_id: int, user_id: int) -> outbox.Queued | None:
    """Queue the player's current pack again (held: the caller sends it and reports the outcome)."""
    prompt = await current_prompt(db, pod_id, user_id)
    if prompt is None:
        return None
    async with db.write() as session:
        return (await outbox.queue(session, pack_message(prompt, resend=True), hold=True))[0]


async def last_shown(db: Database, pod_id: int, seat: int) -> tuple[int, int] | None:
    """(channel id, message id) of the message that showed the seat its newest pack, if one did:
    the player's pack message (in a reaction draft, the one they have), which their pool replaces."""
    async with db.read() as session:
        return await last_shown_in(session, pod_id, seat)


async def last_shown_in(session: AsyncSession, pod_id: int, seat: int) -> tuple[int, int] | None:
    row = (
        await session.execute(
            select(DraftDelivery.channel_id, DraftDelivery.message_id)
            .where(DraftDelivery.pod_id == pod_id, DraftDelivery.seat == seat)
            .order_by(DraftDelivery.id.desc())
            .limit(1)
        )
    ).first()
    return None if row is None else (row[0], row[1])


async def delivery_message(db: Database, pod_id: int, pack_id: int, pack_pick: int) -> tuple[int, int] | None:
    """(channel id, message id) of the message that showed that pack state, if one did."""
    async with db.read() as session:
        row = (
            await session.execute(
                select(DraftDelivery.channel_id, DraftDelivery.message_id).where(
                    DraftDelivery.pod_id == pod_id, DraftDelivery.pack_id == pack_id, DraftDelivery.pack_pick == pack_pick
                )
            )
        ).first()
    return None if row is None else (row[0], row[1])


@dataclass(frozen=True)
class DeliveryRef:
    pod_id: int
    pack_id: int
    pack_pick: int
    seat: int
    user_id: int
    cards: tuple[str, ...] | None  # the cards shown, if that pack state is still current (else None)


async def delivery_for_message(db: Database, message_id: int) -> DeliveryRef | None:
    """What a (reacted-to) message shows; `cards` is None when it is stale."""
    async with db.read() as session:
        row = (
            await session.execute(
                select(DraftDelivery, DraftSeat.user_id, DraftPod.state)
                .join(DraftSeat, (DraftSeat.pod_id == DraftDelivery.pod_id) & (DraftSeat.seat == DraftDelivery.seat))
                .join(DraftPod, DraftPod.id == DraftDelivery.pod_id)
                .where(DraftDelivery.message_id == message_id)
                .order_by(DraftDelivery.id.desc())
                .limit(1)
            )
        ).first()
    if row is None:
        return None
    delivery, user_id, state = row
    pack = engine.DraftState.pack_in_dict(state, delivery.pack_id) if state else None
    current = pack is not None and pack[0] == delivery.pack_pick
    return DeliveryRef(delivery.pod_id, delivery.pack_id, delivery.pack_pick, delivery.seat, user_id,
                       pack[1] if current else None)


async def adopt_unrecorded_message(
    db: Database, pod_id: int, user_id: int, *, channel_id: int, message_id: int
) -> DeliveryRef | None:
    """Record `message_id` as showing the user's current pack if no message is on record for it
    (sent by a process that died, or another process, before it recorded the send)."""
    prompt = await current_prompt(db, pod_id, user_id)
    if prompt is None:
        return None
    if await delivery_message(db, pod_id, prompt.pack_id, prompt.pack_pick) is not None:
        # Recorded meanwhile (the reaction beat the sender's own record): it may be this message.
        return await delivery_for_message(db, message_id)
    try:
        await record_shown(db, prompt, channel_id=channel_id, message_id=message_id)
    except IntegrityError:  # the sender recorded it at the same moment
        return await delivery_for_message(db, message_id)
    return DeliveryRef(pod_id, prompt.pack_id, prompt.pack_pick, prompt.seat, user_id, prompt.cards)


async def record_shown(db: Database, prompt: PackPrompt, *, channel_id: int, message_id: int) -> None:
    """`message_id` shows `prompt` (a message whose outbox row is unknown: adopted, or in tests)."""
    async with db.write() as session:
        await _record_delivery(session, outbox.Queued(0, pack_message(prompt), 0, utcnow()), channel_id, message_id)


# --- recovery (work left by an upgrade from a version without the outbox) ------------------------------


DEADLINES = deadlines.Handlers()  # carried by the draft's `FORMAT`


@DEADLINES.handles(RECOVER)
async def _recover(db: Database, due: deadlines.Due, now) -> None:
    """Queue the packs of a running pod that no message shows, or the posts of a finished pod."""
    async with db.write() as session:
        pod = await GAMES.load(session, int(due.key))
        if pod.row.status == STATUSES.running:
            shown = {
                (pack_id, pick)
                for pack_id, pick in await session.execute(
                    select(DraftDelivery.pack_id, DraftDelivery.pack_pick).where(DraftDelivery.pod_id == pod.row.id)
                )
            }
            missing = [
                seat for seat in range(len(pod.seats))
                if (p := prompt_for(pod, seat)) is not None and (p.pack_id, p.pack_pick) not in shown
            ]
            await queue_packs(session, pod, missing)
            await write_wants(session, pod)  # (the pod itself is not saved here)
        elif pod.row.status == STATUSES.finished:
            await queue_completion(session, pod)
        await deadlines.disarm(session, RECOVER, due.key)
