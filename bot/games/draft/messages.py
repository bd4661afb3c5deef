"""How a draft's owed messages look in Discord (outbox renderers), and the background reactions
on pack messages.

In a reaction pod each player has one pack message (`drafts.PackMessage`): a pack that reaches
them edits it, so its letters stay and a pick costs one edit; a pack that reached a player who
has not picked for a while (`drafts.WATCHING`) also sends a one-line notice (`drafts.NOTICE`), a
reply to the pack message, for the notification; it deletes the player's notice before it, so
at most one is in sight. When the draft is over each
player's pack message (in every mode: the last message that showed them a pack) turns into their
pool, and the channel's summary pings the players. A pick that leaves the player
waiting is confirmed after `pick_confirm_grace` seconds (`drafts.CONFIRM`); a pack that reaches
them within that moment takes the confirmation over: one edit shows both, and no notification is
sent, since the player has just picked on that message.

The service queues each message with the change that causes it (`bot.games.draft.service.deliveries`);
the shared outbox sends it after the commit, or the sweeper after a crash. A renderer called for a
row the sweeper took (`fresh` False) first checks that the pack is still waiting for its player and
shown by no other message; otherwise the row is skipped.
"""

from __future__ import annotations

import asyncio
import io
import logging
import weakref
from functools import partial

import discord

from bot.cards.export import export
from bot.games.draft import service as drafts
from bot.games.draft.confirmations import HeldConfirmations
from bot.games.draft.message_states import MessageStates
from bot.games.draft.service import (
    Closed,
    ClosePack,
    Confirmation,
    FinalPool,
    MessageRef,
    Notice,
    PackPost,
    Picked,
    PodRef,
    TimedOut,
    variants,
)
from bot.games.draft.ui import (
    FINAL_POOL_FOOTER,
    final_pool_title,
    first_picks_line,
    notice_text,
    pack_embed,
    pack_picture_name,
    pack_picture_of,
    pack_ready_text,
    pack_view,
    picked_line,
    pool_embed,
    pool_picture_of,
    regional_indicator,
    rejoined_text,
    uses_reactions,
)
from bot.kit import card_data, limits
from bot.kit.client import KitBot
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.pictures import Picture
from bot.kit.text import escape
from bot.store.outage import log_failure
from bot.web.buttons import event_view

log = logging.getLogger(__name__)

RENDERERS = Renderers()  # carried by the draft's `FORMAT`
RENDERERS.dms_closed(drafts.DMS_CLOSED, what="your draft pack", resend="/draft resend",
                     meanwhile="Meanwhile, pick here with `/draft pick`.")

_live: weakref.WeakKeyDictionary[KitBot, DraftMessages] = weakref.WeakKeyDictionary()


class DraftMessages:
    """What a bot's draft messages keep while it runs: the letters being added to pack messages,
    the pack messages being turned to their next pack, the held pick confirmations. The renderers
    below reach it through their bot (`of`)."""

    def __init__(self, bot: KitBot) -> None:
        self.bot = bot
        # What this process is doing to each pack message (being turned to its next pack, its
        # letters being added, read again), and the order those follow.
        self.states = MessageStates()
        self.confirmations = HeldConfirmations(bot, self.states)
        _live[bot] = self

    @classmethod
    def of(cls, bot: KitBot) -> DraftMessages:
        """The bot's (made now if its draft cog has not made it)."""
        found = _live.get(bot)
        return found if found is not None else cls(bot)

    @property
    def scryfall(self) -> str:
        return self.bot.settings.scryfall_base

    # --- packs -------------------------------------------------------------------------------------

    async def pack(self, prompt: PackPost, fresh: bool, shown_on: tuple[int, int] | None = None) -> Outgoing | None:
        """`shown_on`: shown again on the message it is recorded on (after a crash), while it is still
        the seat's pack and that message still shows it."""
        reactions = uses_reactions(prompt) and not prompt.resend
        found = await drafts.pack_target(self.bot.db, prompt, check=not fresh and not prompt.resend,
                                         shown_on=shown_on, pack_message=reactions, take_over=prompt.picked is None)
        if found is None:
            return None
        picture = await self.pack_picture(prompt)
        rejoined = prompt.rejoined
        if found.pack_message is not None:
            target = found.pack_message
            picked = prompt.picked
            if picked is None:  # (with its pick, it is the change of this very message: nothing before it)
                await self.states.settled(target.message_id)  # a confirmation being shown: its edit lands first
                picked = found.picked
            return self._on_pack_message(prompt, target, picture, picked, rejoined=rejoined)
        return Outgoing(
            content=rejoined_text(prompt.pod_id) if rejoined else None,
            embeds=[pack_embed(prompt, self.scryfall, picture=picture and picture.url)], view=pack_view(prompt),
            files=[picture.file] if picture else [], **self._changing_until_recorded(prompt),
        )

    def _changing_until_recorded(self, prompt: drafts.PackPrompt, target: drafts.PackMessage | None = None) -> dict:
        """`after_send` and `after_record` of a pack sent to a reaction pack message (`target`, an
        edit: changing from now) or as a new one (changing once sent): the message is being changed
        until its record lands, so a reaction on it, or its letters' record, waits for that
        (`MessageStates.settled`); its letters are added once it is sent."""
        changes: dict[int, asyncio.Future] = {}
        if target is not None:
            changes[target.message_id] = self.states.begin_change(target.message_id)

        def after_send(message: discord.Message | discord.PartialMessage) -> None:
            if uses_reactions(prompt) and message.id not in changes:
                changes[message.id] = self.states.begin_change(message.id)
            self.start_reactions(message, prompt, have=target.letters if target is not None else 0)

        def after_record(_message_id: int | None) -> None:
            for message_id, done in changes.items():
                self.states.end_change(message_id, done)

        return {"after_send": after_send, "after_record": after_record}

    async def pack_picture(self, prompt: drafts.PackPrompt) -> Picture | None:
        """The pack's picture if its images are here (else the pack goes as text, and the draft's
        images are fetched for the next packs)."""
        return await self.bot.pictures.render(
            prompt.guild_id, prompt.cards, pack_picture_of(prompt), pack_picture_name(prompt),
            fetch_key=f"draft:{prompt.pod_id}", fetch_names=partial(drafts.cards_to_show, self.bot.db, prompt.pod_id),
        )

    def _on_pack_message(self, prompt: drafts.PackPrompt, target: drafts.PackMessage, picture: Picture | None,
                         picked: Picked | None, *, rejoined: bool = False) -> Outgoing:
        """Show the pack on the player's reaction pack message, whose letters stay (and whose
        picture is replaced). With the player's pick just before (`picked`) the edit is its
        confirmation; a player who took their seat back (`rejoined`) also gets a short new message
        saying so. (A player who was away is notified by the pack's `Notice`, queued with it.)"""
        line = picked_line(picked.round, picked.pick_number, picked.card, self.scryfall) if picked else None
        return Outgoing(
            embeds=[pack_embed(prompt, self.scryfall, picked_line=line, picture=picture and picture.url)],
            view=pack_view(prompt), files=[picture.file] if picture else [], replace_attachments=True,
            edit=(target.channel_id, target.message_id),
            continued=[pack_ready_text(prompt, rejoined=True)] if rejoined and not picked else [],
            **self._changing_until_recorded(prompt, target),
        )

    async def notice(self, notice: Notice, fresh: bool) -> Outgoing | None:
        """The "📬 your next pack" notice: a reply to the player's pack message (a jump link to it),
        deleting their notice before it. Skipped when the pack went as a new message (which
        notifies by itself) or, sent late, when the player has picked from it meanwhile."""
        target = await drafts.notice_target(self.bot.db, notice, late=not fresh)
        if target is None:
            return None
        return Outgoing(content=notice_text(notice), reply_to=target.pack_message, delete=target.replaces)

    async def retire(self, old: MessageRef) -> Outgoing:
        """An older message showed the same pack: take its buttons away so only the new one is live."""
        self.stop_reactions(old.message_id)
        return Outgoing(content="This pack was sent again below.", edit=(old.channel_id, old.message_id),
                        replace_attachments=True)

    async def close_pack(self, p: ClosePack) -> Outgoing | None:
        """The pack a player was shown was picked from elsewhere: say so in place of its buttons.
        A reaction pack message that will show the player's next pack (queued with this) keeps
        its letters and is left to that edit."""
        closing = await drafts.closing_target(self.bot.db, p)
        if closing is None:
            return None
        if closing.stop_letters:
            self.stop_reactions(closing.message[1])
        return Outgoing(content=limits.clip(_closing_text(p), limits.CONTENT), edit=closing.message,
                        replace_attachments=True)

    # --- the end --------------------------------------------------------------------------------------

    async def final_pool(self, p: FinalPool, user_id: int) -> Outgoing:
        """The draft is over: the player's pack message (the last that showed them a pack) turns
        into their pool, with what they took last if that pick's confirmation was still held; a
        new DM if no message showed them a pack. The channel's summary pings them."""
        pod_id = p.pod_id
        found = await drafts.final_pool_target(self.bot.db, pod_id, user_id, p.seat, take_over=p.picked is None)
        target = found.message
        if target is not None:
            if p.picked is None:
                await self.states.settled(target[1])  # a confirmation being shown: its edit lands first
            self.stop_reactions(target[1])
        embeds, files = await self.final_pool_content(pod_id, user_id, p.picked or found.picked, pool=found.pool,
                                                      names=found.export_names)
        return Outgoing(embeds=embeds, files=files, edit=target, replace_attachments=True)

    async def final_pool_content(self, pod_id: int, user_id: int, picked: Picked | None = None, *,
                                 pool: drafts.PoolView | None = None, names: dict[str, str] | None = None,
                                 ) -> tuple[list[discord.Embed], list[discord.File]]:
        """The final pool's embed (with the player's last pick, `picked`), its text file and picture
        (`pool`, and its cards' `names` in deck files: read already)."""
        pool = pool or await drafts.pool(self.bot.db, pod_id, user_id)
        if names is None:
            names = await card_data.export_names(self.bot.db, pool.cards)
        extension, text = export(pool.cards, "text", names=names)
        picture = await self.pool_picture(pool)
        line = picked_line(picked.round, picked.pick_number, picked.card, self.scryfall) if picked else None
        embed = pool_embed(pool, self.scryfall, final_pool_title(pod_id), picture=picture and picture.url,
                           last_pick=line, footer=FINAL_POOL_FOOTER)
        files = [discord.File(io.BytesIO(text.encode()), filename=f"draft-{pod_id}-pool.{extension}"),
                 *([picture.file] if picture else [])]
        return [embed], files

    async def pool_picture(self, pool: drafts.PoolView) -> Picture | None:
        """The pool by colour and curve, if its images are here."""
        return await self.bot.pictures.render(
            pool.guild_id, pool.cards, pool_picture_of(pool),
            f"draft-{pool.pod_id}-pool.png", fetch_key=f"draft:{pool.pod_id}",
            fetch_names=partial(drafts.cards_to_show, self.bot.db, pool.pod_id),
        )

    # --- reactions on pack messages ------------------------------------------------------------------

    def start_reactions(self, message: discord.Message | discord.PartialMessage, prompt: drafts.PackPrompt,
                        *, have: int = 0) -> None:
        """Add the letters 🇦… the message lacks, in the background: the buttons are usable at
        once, and a reaction the player adds before the bot does counts just the same."""
        if not uses_reactions(prompt) or have >= len(prompt.cards) or self.states.adding_letters(message.id):
            return
        self.states.add_letters(message.id, self._add_reactions(message, have, len(prompt.cards)))

    async def _add_reactions(self, message, have: int, count: int) -> None:
        try:
            for card_index in range(have, count):
                await message.add_reaction(regional_indicator(card_index))
        except discord.HTTPException:
            log.info("stopped adding reactions to %s", message.id, exc_info=True)
            return
        await self.states.settled(message.id)  # the message's record first: the letters' goes on it
        try:
            await drafts.set_letters(self.bot.db, message.id, count)
        except Exception as error:  # the letters are there; a later pack only adds them again
            log_failure(log, logging.WARNING, error, "could not record the letters on %s", message.id)

    def stop_reactions(self, message_id: int) -> None:
        self.states.stop_letters(message_id)


def _closing_text(p: ClosePack) -> str:
    card = escape(p.card or "")
    if p.reason is Closed.TIMEOUT:
        return (f"⌛ Draft #{p.pod_id} · Pack {p.round + 1}, pick {p.pick_number}: "
                f"time ran out, I picked **{card}** for you.")
    if p.reason is Closed.SERVER:
        return f"You picked from this pack in the server: **{card}**."
    return (f"🤖 The organizer handed your seat in draft #{p.pod_id} to a bot; it picks for you from now on. "
            "`/draft rejoin` takes it back (what it picks stays in your pool).")


# --- the renderers (`bot.kit.delivery`) ------------------------------------------------------------------


@RENDERERS.renders(drafts.PACK, PackPost)
async def pack(prompt: PackPost, ctx: Delivery) -> Outgoing | None:
    return await DraftMessages.of(ctx.bot).pack(prompt, ctx.fresh, ctx.shown_on)


@RENDERERS.renders(drafts.NOTICE, Notice)
async def notice(pack: Notice, ctx: Delivery) -> Outgoing | None:
    return await DraftMessages.of(ctx.bot).notice(pack, ctx.fresh)


@RENDERERS.renders(drafts.RETIRE, MessageRef)
async def retire(old: MessageRef, ctx: Delivery) -> Outgoing:
    return await DraftMessages.of(ctx.bot).retire(old)


@RENDERERS.renders(drafts.CLOSE_PACK, ClosePack)
async def close_pack(closing: ClosePack, ctx: Delivery) -> Outgoing | None:
    return await DraftMessages.of(ctx.bot).close_pack(closing)


@RENDERERS.renders(drafts.CONFIRM, Confirmation)
async def confirm(confirmation: Confirmation, ctx: Delivery) -> Outgoing | None:
    return await DraftMessages.of(ctx.bot).confirmations.render(confirmation, ctx.queued)


@RENDERERS.renders(drafts.REMINDER, PodRef)
async def reminder(pod: PodRef, ctx: Delivery) -> Outgoing:
    if pod.variant == variants.WINSTON:
        return Outgoing(content=f"⏰ Half your time is gone in Winston draft #{pod.pod_id}: the pile you look at is in "
                                "your newest DM of the draft. When time runs out you take it.")
    if pod.variant == variants.GRID:
        return Outgoing(content=f"⏰ Half your time is gone in Grid draft #{pod.pod_id}: it is your turn (the buttons "
                                "under the grid in the draft's channel).")
    if pod.variant is not None:
        return Outgoing(content=f"⏰ Half your pick time is gone in Rotisserie draft #{pod.pod_id}: it is your turn "
                                "(`/draft take` in the draft's channel).")
    return Outgoing(content=f"⏰ Half your pick time is gone in draft #{pod.pod_id}: your pack is waiting above.")


@RENDERERS.renders(drafts.TIMED_OUT, TimedOut)
async def timed_out(p: TimedOut, ctx: Delivery) -> Outgoing:
    if p.to_organizer:
        note = f"Draft #{p.pod_id}: <@{p.player_id}> timed out repeatedly; a bot took their seat."
        if not p.completed:
            note += (" They can take it back with `/draft rejoin`, or you can give it back to them with "
                     "`/draft rejoin player:` naming them.")
        return Outgoing(content=note)
    note = f"⌛ Time ran out in draft #{p.pod_id}: I picked **{escape(p.card)}** for you."
    return Outgoing(content=limits.clip(note + bot_took_over(p.to_bot, p.completed), limits.CONTENT))


def bot_took_over(to_bot: bool, completed: bool) -> str:
    """What a time-out note adds when it handed the seat to a bot."""
    if not to_bot:
        return ""
    return " After repeated time-outs a bot now plays your seat" + ("." if completed else (
        ": `/draft rejoin` takes it back at once (what the bot picks meanwhile stays in your pool)."))


@RENDERERS.renders(drafts.FINAL_POOL, FinalPool)
async def final_pool(pool: FinalPool, ctx: Delivery) -> Outgoing:
    user_id = ctx.message.user_id
    assert user_id is not None
    return await DraftMessages.of(ctx.bot).final_pool(pool, user_id)


@RENDERERS.renders(drafts.SUMMARY, PodRef)
async def summary(ref: PodRef, ctx: Delivery) -> Outgoing:
    pod_id = ref.pod_id
    pod, pools = await drafts.summary_of(ctx.db, pod_id)
    lines = [
        f"🏁 **Draft #{pod_id} is complete.** "
        + ("Each player's pool is in their DMs; " if pod.variant else
           "Each player's pack message (in their DMs) now shows their pool; ")
        + "`/draft pool` shows it to them again, `/draft export` as a deck file.",
        *(first_picks_line(uid, cards) for uid, cards in pools.items()),
    ]
    if pod.turns:
        lines.append(f"Goldfish scoring is open: each player plays a {pod.turns}-turn game against the "
                     "goldfish and reports it with `/goldfish report`.")
    # The players are pinged: their pools are edits of their pack messages, which notify nobody.
    humans = [uid for uid in pools if not drafts.is_bot_user(uid)]
    return Outgoing(content=limits.fit_lines(lines, limits.CONTENT), allowed_mentions=limits.ping(*humans),
                    view=await event_view(ctx.bot, ctx.message.guild_id, drafts.SPEC.kind, pod_id))
