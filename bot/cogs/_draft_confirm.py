"""The "you took …, waiting for the next pack" edit of a reaction pick, held back for a moment.

A pick that leaves the player with no pack queues its confirmation (`drafts.CONFIRM`) with the
pick and shows it after `pick_confirm_grace` seconds. A pack that reaches the player within that
moment takes it over (`take_over`): the one edit that shows the pack says what they took, and no
"next pack" notice goes out, since the player has just picked on that very message. Whichever
comes first claims the row in the database, so two processes never both show it; after a crash
the next start's sweep shows it (if the message still shows the pack picked from).
"""

from __future__ import annotations

import asyncio
import contextlib

from bot.cogs._outbox import Outgoing
from bot.services import drafts
from bot.services.outbox import Queued
from bot.ui.draft import picked_embed

EDIT_WAIT = 5  # seconds a pack waits, at most, for the confirmation edit on its message to land


class HeldConfirmations:
    def __init__(self, bot) -> None:  # bot: MtgBot
        self.bot = bot
        # Confirmations this process is showing: a pack for the same message waits for that edit,
        # so the message ends up showing the pack.
        self._showing: dict[int, asyncio.Future] = {}
        self._tasks: set[asyncio.Task] = set()

    def after_grace(self, queued: Queued) -> None:
        """Show the held confirmation after the grace, unless a pack takes it over first."""
        task = asyncio.get_running_loop().create_task(self._show_later(queued), name=f"confirm-{queued.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _show_later(self, queued: Queued) -> None:
        await asyncio.sleep(self.bot.settings.pick_confirm_grace)  # a timer, not a wait for anything
        message_id = queued.payload["message_id"]
        try:
            await self.bot.outbox.send_batch([queued], fresh=True)
        finally:  # shown or not, a pack for the message need not wait any more
            if (showing := self._showing.get(message_id)) is not None:
                self._end(message_id, showing)

    async def render(self, queued: Queued, fresh: bool) -> Outgoing | None:
        """The outbox renderer: the confirmation, if no pack has taken it over."""
        p = queued.payload
        message_id = p["message_id"]
        showing = asyncio.get_running_loop().create_future()
        self._showing[message_id] = showing
        claimed = False
        try:
            claimed = await drafts.claim_confirmation(self.bot.db, queued)
        finally:
            if not claimed:
                self._end(message_id, showing)
        if not claimed:
            return None
        embed = picked_embed(p["round"], p["pick_number"], p["card"], p["pod_id"], self.bot.settings.scryfall_base, False)
        return Outgoing(embeds=[embed], edit=(p["channel_id"], message_id), replace_attachments=True,
                        after_send=lambda _message: self._end(message_id, showing))

    async def take_over(self, prompt: drafts.PackPrompt, target: drafts.PackMessage) -> dict | None:
        """The pick confirmation still held for the message the pack goes to ({"card", "round",
        "pick_number"}), taken over by the pack's edit; None if there is none."""
        showing = self._showing.get(target.message_id)
        if showing is not None:  # being shown right now: let that edit land first
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(showing), EDIT_WAIT)
            self._end(target.message_id, showing)  # an edit that failed never ends its wait
        return await drafts.merge_confirmation(self.bot.db, prompt.pod_id, prompt.user_id, target.message_id)

    def _end(self, message_id: int, showing: asyncio.Future) -> None:
        if self._showing.get(message_id) is showing:
            del self._showing[message_id]
        if not showing.done():
            showing.set_result(None)
