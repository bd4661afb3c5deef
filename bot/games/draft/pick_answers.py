"""How a pick made by button or select is answered on the message picked on (the draft cog's).

The pick is committed before it is answered, so the answer always says it was taken: what the
answer reads from the database besides (the pack's picture setting, the pool) is left out when the
database fails meanwhile, never reported as a pick that failed (`unless_unavailable`).
"""

from __future__ import annotations

import logging

import discord

from bot.games.draft import service as drafts
from bot.games.draft import ui
from bot.games.draft.messages import DraftMessages
from bot.kit import outbox
from bot.kit.client import KitBot
from bot.store.outage import unless_unavailable

log = logging.getLogger(__name__)


async def answer_pick(bot: KitBot, messages: DraftMessages, interaction: discord.Interaction, result: drafts.PickResult,
                      dm: int | None) -> None:
    """Turn the message picked on into the next pack, the picker's pool (their pick ended the
    draft) or "you took …" and what comes next."""
    scryfall = bot.settings.scryfall_base
    line = ui.picked_line(result.round, result.pick_number, result.card, scryfall)
    upcoming = result.next_for_picker
    # The DM (its letters stay, in `both` mode) and ephemeral /draft pick show the next pack in place.
    if upcoming is not None and (dm is None or drafts.shows_in_place(upcoming)):
        # The new picture replaces the old one; none this time if the database can't say.
        picture = await unless_unavailable(messages.pack_picture(upcoming), None)
        try:
            await interaction.response.edit_message(
                embed=ui.pack_embed(upcoming, scryfall, picked_line=line, picture=picture and picture.url),
                view=ui.pack_view(upcoming, in_dm=dm is not None), attachments=[picture.file] if picture else [],
            )
        except Exception:
            if result.held_shown:  # recorded as shown here with the pick, but never shown: as a new DM
                await _send_anew(bot, result)
            raise
        return
    elif result.completed and result.held is not None and dm is not None and (
            pool := await unless_unavailable(messages.final_pool_content(
                result.pod_id, result.user_id, drafts.Picked(result.card, result.round, result.pick_number)), None)):
        embeds, files = pool  # the picker's pool, here (else "you took …", and the pool comes as its own DM)
        await interaction.response.edit_message(embeds=embeds, view=None, attachments=files)
    else:
        after = (ui.NEXT_MESSAGE if upcoming is not None else ui.DRAFT_OVER if result.completed
                 else ui.LAST_PICK if result.done else ui.WAITING_NEW if result.pick_mode == "buttons"
                 else ui.WAITING)
        embed = ui.picked_embed(result.round, result.pick_number, result.card, result.pod_id, scryfall, after)
        await interaction.response.edit_message(embed=embed, view=None, attachments=[])
        if result.held is not None and (dm is not None or result.completed):
            # The next pack as a new DM; or, after a pick in the server that ended the draft, the
            # pool, on the picker's DM pack message.
            bot.outbox.on_commit([result.held])
        return
    if dm is not None and result.held is not None:  # the pool is shown: never "try again" now
        await bot.outbox.record([outbox.Outcome(result.held, channel_id=interaction.channel_id, message_id=dm)])


async def _send_anew(bot: KitBot, result: drafts.PickResult) -> None:
    """The picker's next pack, recorded as shown on the message picked on, could not be shown
    there: it goes as a new DM (whose record retires the message picked on)."""
    try:
        queued = await drafts.resend(bot.db, result.pod_id, result.user_id)
    except Exception:  # the restart shows it again (`outbox.show_in_place`), or /draft resend does
        log.exception("could not queue draft #%s's next pack for %s again", result.pod_id, result.user_id)
        return
    if queued is not None:
        bot.outbox.on_commit([queued])
