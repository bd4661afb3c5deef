"""Treasure Battler: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.battler import messages, rules, service, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.SPEC.kind,
    name="Treasure Battler",
    order=2,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    bookkeeping=service.BattlerBook,
    components=(ui.LobbyButton, ui.LegacyLobbyButton, *ui.DM_COMPONENTS, ui.PlayReportButton),
    claims=(ui.ANSWERING, ui.DECIDING),
    forms=(ui.SHIFT_FORM, ui.TREASURES_FORM, ui.PLAY_REPORT_FORM),
    outbox_kinds=(service.PROMPT, service.ANNOUNCE, service.DISPUTE, service.FINAL, service.DMS_CLOSED,
                  service.PHASE_OVER, service.PLAY_DONE),
    deadline_kinds=(service.RECOVER,),
    renderers=messages.RENDERERS,
    events=(rules.Event,),
    deadlines=service.DEADLINES,
    web=web.PAGES,
    leaderboard="Treasure Battler",
    help=FormatHelp(
        key="battler",
        name="Treasure Battler",
        start="`/battler start cube:battler`: an autobattler-style cube game of drafts and mini-games",
        about="Draft a small pool, play short mini-games, collect treasures and survive the poison: the "
              "last player standing wins. The bot deals every pack and keeps every resource.",
        flow=(
            "**Start:** `/battler start cube` (an organizer): poison, carousel and treasure options.",
            "**Join:** `/battler join` or the Join button; `/battler leave`.",
            "**Begin:** `/battler begin` (an even number of players); pick 2 basic lands by DM.",
            "**Play:** play the paired mini-game; report it (and your treasures left) with the PLAY post's "
            "buttons; the opponent confirms.",
            "**Draft:** each draft comes by DM: trade, re-roll, buy basics, then Done.",
            "**End:** the last player left wins. `/battler cancel` (organizer; asks first) records nothing.",
        ),
        more="`/battler status` · `/battler stash` yours · `/battler rules` the resources · `/battler force` "
             "(organizer) ends a draft phase.",
    ),
)
