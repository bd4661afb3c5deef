"""Picks by letter reaction in DMs, and the reactions made while the bot was away.

A toggle of a letter (added or removed) on a player's pack message is a pick from the pack it
shows now (`bot.games.draft.service.reactions`). The answer is one edit of that message: the next
pack (through the outbox row the pick queued) or, after `pick_confirm_grace` seconds, "you took …,
waiting for the next pack" (or the next pack, with that line, if it reaches the player sooner).

At startup the shard-0 process reads each running pod's pack messages once (one per human seat,
`fetch_message`, whose reactions carry counts and `me`) and lets the service compare the letters
the player highlights with those it saw: on a message showing a pack one change is the pick and
several are asked about in the DM; on a waiting player's message the letters are only recorded.
The same reading serves two more cases where reaction events were missed: a new gateway session
(Discord replays nothing to a session that had to IDENTIFY again), and a toggle the database could
not take during an outage (the message is read again once the database answers, so every toggle
made meanwhile counts once).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord

from bot.games.draft import service as drafts
from bot.games.draft import ui
from bot.games.draft.service import reactions
from bot.kit import limits
from bot.kit.client import KitBot
from bot.store.outage import is_database_outage, log_failure, retry_while_unavailable

if TYPE_CHECKING:
    from bot.games.draft.messages import DraftMessages

log = logging.getLogger(__name__)
STARTUP_SWEEP_WAIT = 60  # seconds the reconcile waits, at most, for the startup sweep
RECONCILE_PER_SECOND = 20  # at most this many message reads per second at startup (Discord allows 50 in all)
REREAD_PATIENCE = 600  # seconds a toggle made during a database outage waits for the database
BUSY_NOTICE = "⏳ The database is busy right now: I'll count your reaction as soon as it answers (no need to react again)."


class DraftReactions:
    def __init__(self, bot: KitBot, messages: DraftMessages) -> None:
        self.bot = bot
        self.messages = messages
        self._task: asyncio.Task | None = None
        self._sessions = 0  # gateway sessions shard 0 has had in this process
        self.states = messages.states  # each pack message's state, its rereads included
        self._reread_tasks: set[asyncio.Task] = set()

    @property
    def db(self):
        return self.bot.db

    # --- events --------------------------------------------------------------------------------------

    async def on_toggle(self, payload: discord.RawReactionActionEvent, added: bool) -> None:
        if payload.guild_id is not None or self.bot.user is None or payload.user_id == self.bot.user.id:
            return
        index = ui.index_of_reaction(str(payload.emoji))
        if index is None:
            return
        if self.states.rereading(payload.message_id):  # waiting for the database: the next reading sees this too
            self.states.ask_reread(payload.message_id)
            return
        # Just after a restart: first let the startup sweep show and record what the previous
        # process left half-sent, or the toggle is judged against a pack the player never saw.
        await self._startup_swept()
        # A message this process is sending or turning to its next pack: wait until that is made
        # and recorded, so the toggle is judged against the pack the player saw.
        await self.states.settled(payload.message_id)
        try:
            done = await reactions.toggle(self.db, payload.message_id, payload.user_id, index, added)
            if done is None and added and await self._adopt(payload):
                done = await reactions.toggle(self.db, payload.message_id, payload.user_id, index, added)
        except Exception as error:
            if not is_database_outage(error):
                raise
            self.read_again_later(payload.channel_id, payload.message_id)
            return
        if done is not None:
            await self.answer(done, payload.channel_id, payload.message_id, index)

    async def _adopt(self, payload: discord.RawReactionActionEvent) -> bool:
        """A pack message sent by another process (or just before a crash) and not recorded yet is
        adopted if the player's current pack has none."""
        pod = await drafts.find_pod(self.db, guild_id=None, channel_id=None, user_id=payload.user_id,
                                    statuses=(drafts.STATUSES.running,))
        if pod is None:
            return False
        ref = await drafts.adopt_unrecorded_message(
            self.db, pod.id, payload.user_id, channel_id=payload.channel_id, message_id=payload.message_id
        )
        return ref is not None

    async def answer(self, done: reactions.Toggle, channel_id: int, message_id: int, index: int | None = None) -> None:
        channel = self.bot.get_partial_messageable(channel_id)
        try:
            if done.outcome == reactions.PICKED:
                result = done.result
                if result.held is not None:
                    with self.states.changing(message_id):  # the next pack, on this same message
                        await self.bot.outbox.send_batch([result.held], fresh=True)
                    return
                # No next pack yet: "you took …" shortly, or with the next pack if it comes first.
                self.messages.confirmations.after_grace(done.confirm)
            elif done.outcome == reactions.STALE:  # no pack on this message: where the player stands
                await channel.send(limits.clip(done.note, limits.CONTENT))
            elif done.outcome == reactions.NO_CARD and index is not None:
                await channel.send(ui.no_card_text(index, done.cards))
            elif done.outcome == reactions.ASK:
                await channel.send(limits.clip(ui.ask_which_text(done.pod_id, done.letters), limits.CONTENT))
        except discord.HTTPException:
            log.warning("could not answer a reaction on %s", message_id, exc_info=True)

    # --- toggles the database could not take -----------------------------------------------------------

    def read_again_later(self, channel_id: int, message_id: int) -> None:
        """Tell the player their toggle waits for the database, and read the message's letters
        again once it answers (as at startup: one changed letter is the pick, several are asked
        about). Toggles that arrive meanwhile only ask for one more reading."""
        if not self.states.ask_reread(message_id):
            return
        task = asyncio.get_running_loop().create_task(self._read_again(channel_id, message_id), name=f"reread-{message_id}")
        self._reread_tasks.add(task)
        task.add_done_callback(self._reread_tasks.discard)

    async def _read_again(self, channel_id: int, message_id: int) -> None:
        try:
            await self.bot.get_partial_messageable(channel_id).send(BUSY_NOTICE)
        except discord.HTTPException:
            log.warning("could not tell %s that the database is busy", channel_id, exc_info=True)
        try:
            while self.states.take_reread(message_id):
                await retry_while_unavailable(lambda: self._reread(channel_id, message_id), patience=REREAD_PATIENCE,
                                              what=f"reading pack message {message_id} again", watch=self.db.outage)
        except Exception as error:
            log_failure(log, logging.ERROR, error, "could not read pack message %s again after a database outage",
                        message_id)
        finally:
            self.states.end_reread(message_id)  # no await since the last check: no toggle slips through

    async def _reread(self, channel_id: int, message_id: int) -> None:
        targets = await reactions.pending(self.db, message_id=message_id)
        if targets:
            message = await self.bot.get_partial_messageable(channel_id).fetch_message(message_id)
            await self._reconcile_one(targets[0], message)

    # --- startup and new gateway sessions ---------------------------------------------------------------

    def on_shard_connect(self, shard_id: int) -> None:
        """A new gateway session (IDENTIFY, not RESUME): Discord replays nothing the old session
        missed, so after the first one read the pack messages again, as at startup."""
        if shard_id != 0 or not self.bot.owns_shard_zero:
            return
        self._sessions += 1
        if self._sessions > 1 and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._reconcile_when_ready(), name="draft-reconcile")

    def start_reconciling(self) -> None:
        if self.bot.owns_shard_zero:
            self._task = asyncio.get_running_loop().create_task(self._reconcile_when_ready(), name="draft-reconcile")

    def stop(self) -> None:
        for task in [self._task, *self._reread_tasks]:
            if task is not None:
                task.cancel()

    async def _startup_swept(self) -> None:
        sweeper = self.bot.get_cog("SweeperCog")
        if sweeper is not None:
            await sweeper.wait_startup_swept(STARTUP_SWEEP_WAIT)

    async def _reconcile_when_ready(self) -> None:
        # After the startup sweep: a pack shown just before a crash but not recorded is shown
        # (and recorded) again first, so a reaction made on it is read too.
        await self._startup_swept()
        try:
            counted = await self.reconcile()
            log.info("reaction reconcile: %d pack messages read", counted)
        except Exception as error:
            log_failure(log, logging.ERROR, error, "reaction reconcile failed")

    async def reconcile(self) -> int:
        """Read each running pod's pack messages once (one per human seat), paced, and count what
        changed while the bot was away. Listed a page at a time: messages sent after the start
        are this process's own, and not read."""
        through = await reactions.last_pack_message(self.db)
        read, after = 0, 0
        while page := await reactions.pending(self.db, after=after, through=through):
            for target in page:
                if read:
                    await asyncio.sleep(1 / RECONCILE_PER_SECOND)  # pacing, not synchronisation
                read += 1
                try:
                    message = await self.bot.get_partial_messageable(target.channel_id).fetch_message(target.message_id)
                except discord.HTTPException:
                    log.info("could not read pack message %s", target.message_id, exc_info=True)
                    continue
                await self._reconcile_one(target, message)
            after = page[-1].row_id
        return read

    async def _reconcile_one(self, target: reactions.PackMessage, message: discord.Message) -> None:
        """Compare the letters highlighted on `message` (read just now) with those on record."""
        observed, mine = 0, 0
        for reaction in message.reactions:
            index = ui.index_of_reaction(str(reaction.emoji))
            if index is None:
                continue
            if reaction.me:
                mine = max(mine, index + 1)
            if reaction.count - (1 if reaction.me else 0) > 0:  # only the player shares this DM
                observed |= 1 << index
        done = await reactions.reconcile(self.db, target, observed)
        if done is not None:
            await self.answer(done, target.channel_id, target.message_id)
        if target.letters == 0 or mine < target.letters:  # letters lost in a crash while being added
            prompt = await drafts.current_prompt(self.db, target.pod_id, target.user_id)
            if prompt is not None and mine < len(prompt.cards):
                self.messages.start_reactions(message, prompt, have=mine)
