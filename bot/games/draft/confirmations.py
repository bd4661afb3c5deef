"""The "you took …, waiting for the next pack" edit of a reaction pick, held back for a moment.

A pick that leaves the player with no pack queues its confirmation (`drafts.CONFIRM`) with the
pick and shows it after `pick_confirm_grace` seconds ("that was your last pick" after the player's
last one). A pack that reaches the player within that moment takes it over (the pack's one read of
where it goes, `drafts.pack_target(…, take_over=True)`): the one
edit that shows the pack says what they took, and no "next pack" notice goes out, since the player
has just picked on that very message; the end of the draft takes it over the same way (the pool,
with what they took). Whichever comes first claims the row in the database, so two processes never
both show it; after a crash the next start's sweep shows it (if the message still shows the pack
picked from).
"""

from __future__ import annotations

import asyncio

from bot.games.draft import service as drafts
from bot.games.draft.message_states import MessageStates
from bot.games.draft.service import Confirmation
from bot.games.draft.ui import LAST_PICK, WAITING, picked_embed
from bot.kit.client import KitBot
from bot.kit.delivery import Outgoing
from bot.kit.outbox import Queued


class HeldConfirmations:
    def __init__(self, bot: KitBot, states: MessageStates) -> None:
        self.bot = bot
        # A confirmation being shown is a change of its message, like a pack: the next pack for
        # the message waits for that edit, so the message ends up showing the pack.
        self.states = states
        self._tasks: set[asyncio.Task] = set()

    def after_grace(self, queued: Queued) -> None:
        """Show the held confirmation after the grace, unless a pack takes it over first."""
        task = asyncio.get_running_loop().create_task(self._show_later(queued), name=f"confirm-{queued.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _show_later(self, queued: Queued) -> None:
        await asyncio.sleep(self.bot.settings.pick_confirm_grace)  # a timer, not a wait for anything
        await self.bot.outbox.send_batch([queued], fresh=True)

    async def render(self, p: Confirmation, queued: Queued) -> Outgoing | None:
        """The confirmation (its outbox row: `queued`), if no pack has taken it over."""
        message_id = p.message_id
        settling = self.states.begin_change(message_id)
        claimed = False
        try:
            claimed = await drafts.claim_confirmation(self.bot.db, queued)
        finally:
            if not claimed:
                self.states.end_change(message_id, settling)
        if not claimed:
            return None
        after = LAST_PICK if p.done else WAITING
        embed = picked_embed(p.round, p.pick_number, p.card, p.pod_id, self.bot.settings.scryfall_base, after)
        # Changing until its outcome is recorded (sent or not); waits on it are bounded besides.
        return Outgoing(embeds=[embed], edit=(p.channel_id, message_id), replace_attachments=True,
                        after_record=lambda _sent: self.states.end_change(message_id, settling))
