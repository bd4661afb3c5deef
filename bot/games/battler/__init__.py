"""Treasure Battler: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.battler import service, ui
from bot.kit import claims_ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.SPEC.kind,
    name="Treasure Battler",
    order=2,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    bookkeeping=service.BattlerBook,
    components=(ui.LobbyButton, ui.LegacyLobbyButton, *ui.DM_COMPONENTS),
    claims=(claims_ui.answers("battler"), claims_ui.decides("battler")),
    forms=(ui.SHIFT_FORM, ui.TREASURES_FORM),
    outbox_kinds=(service.PROMPT, service.ANNOUNCE, service.DISPUTE, service.FINAL, service.DMS_CLOSED),
    deadline_kinds=(service.RECOVER,),
    web=f"{__name__}.web",
    leaderboard="Treasure Battler",
    help=FormatHelp(
        key="battler",
        name="Treasure Battler",
        start="`/battler start cube:battler`: an autobattler-style cube game of drafts and mini-games",
        about="Draft a small pool, play short mini-games, collect treasures and survive the poison: the "
              "last player standing wins. The bot deals every pack and keeps every resource.",
        flow=(
            "**Start:** `/battler start cube` (an organizer), with the poison, carousel and treasure options.",
            "**Join:** `/battler join` or the Join button; `/battler leave`.",
            "**Begin:** `/battler begin` (an even number of players). Each player gets 5 cards by DM and "
            "chooses 2 basic lands.",
            "**Play:** the channel posts the pairings; play your mini-game and send `/battler report` with "
            "your treasures left (the winner may report that the opponent conceded); your opponent presses "
            "Confirm or Dispute.",
            "**Draft:** each draft comes by DM: trade, re-roll, shift or buy basics, then Done. "
            "`/battler stash` shows yours; `/battler resend` DMs it again.",
            "**End:** the game ends by itself when one player is left, and the standings go to the "
            "leaderboard. `/battler cancel` (organizer; asks first) stops it with nothing recorded.",
        ),
        rules="Each round is a draft, then a mini-game (10 life, a hand of stage + 2 cards from your stash, "
              "no library). The loser gets poison by stage (1, 1, 2, 3, 5, or a flat 2); a draw is a loss "
              "for both. Treasures buy re-rolls and basics; you keep at most 5. At 10 poison you are out (the "
              "first becomes the Ghost and keeps playing until a second player is out).",
        more="`/battler status` the whole table in public · `/battler rules` the resource table · "
             "`/battler force` (organizer; asks first) ends a draft phase now · a dispute is decided by an "
             "organizer who does not play in that game.",
    ),
)
