"""Open interactions a later notice may follow up (e.g. a results post refused after an organizer
ended the event): `bot.outbox.replies`."""

from __future__ import annotations

import asyncio
import contextlib

import discord

ANSWER_WAIT = 3.0  # seconds a notice waits, at most, for the reply it rides on to be answered


class Replies:
    """Interactions whose user may still be told something in a follow-up (an organizer's answered
    `/… end`), one per member of a server, while Discord keeps the interaction open (15 minutes).

    `answering(interaction)` wraps the use case and its answer: a notice that comes meanwhile (the
    results post refused at once) waits, a moment at most, for the answer it follows."""

    def __init__(self) -> None:
        self._open: dict[tuple[int, int], tuple[discord.Interaction, asyncio.Future]] = {}

    @contextlib.contextmanager
    def answering(self, interaction: discord.Interaction):
        key = (interaction.guild_id or 0, interaction.user.id)
        answered = asyncio.get_running_loop().create_future()
        self._open = {k: v for k, v in self._open.items() if not v[0].is_expired()}
        self._open[key] = (interaction, answered)
        try:
            yield
        except BaseException:
            if self._open.get(key, (None,))[0] is interaction:
                del self._open[key]
            raise
        finally:
            if not answered.done():
                answered.set_result(None)

    async def open_for(self, guild_id: int | None, user_id: int | None) -> discord.Interaction | None:
        """The user's open interaction in that server, once answered; None if there is none."""
        found = self._open.get((guild_id or 0, user_id or 0))
        if found is None or found[0].is_expired():
            return None
        interaction, answered = found
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(answered), ANSWER_WAIT)
        return interaction if interaction.response.is_done() else None
