"""Vortex Based Magic: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.vortex import rules, service, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Vortex Based Magic",
    order=5,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    bookkeeping=service.VortexBook,
    components=(ui.LobbyButton, ui.TurnButton, ui.PlaySelect, ui.PickButton, ui.LandButton, ui.LookButton, ui.SearchSelect, ui.SearchButton),
    forms=(),
    outbox_kinds=(service.PICK, service.BASICS, service.LOOK, service.SEARCH, service.ANNOUNCE, service.FINAL, service.DMS_CLOSED, service.RETIRE),
    deadline_kinds=(),
    renderers=ui.RENDERERS,
    events=(rules.Event,),  # with the service's own news (GameBegan, Drawing, Looked)
    web=web.PAGES,
    leaderboard="Vortex Based Magic",
    help=FormatHelp(
        key="vortex",
        name="Vortex Based Magic",
        start="`/vortex start cube:<cube>`: 2–5 players share one shoe and every draw is a pick from a pack",
        about="No libraries: everyone shares a face-down shoe; every draw refills your hidden "
              "7-card pack from it, then you pick one card. The bot keeps the hidden zones; you play the game.",
        flow=(
            "**Start:** `/vortex start cube` (an organizer).",
            "**Join:** the Join button (2–5 players) or `/vortex join`; `/vortex leave`.",
            "**Begin:** `/vortex begin`: 4 opening picks each, then 3 basic lands (DM).",
            "**Play:** each turn's message has **Draw**, **Pass** and **Play a card**; picks come by "
            "DM. Effects: `/vortex draw count`, `/vortex shoe` (mill, look…).",
            "**Table:** `/vortex move card from to`, `/vortex life amount`.",
            "**Follow:** `/vortex status`; `/vortex hand` your cards.",
            "**End:** `/vortex end winner` (organizer; asks first); `/vortex cancel`: nothing recorded.",
        ),
        more="`/vortex mulligan` in upkeep · `/vortex resend` · `/clock start` a chess clock.",
    ),
)
