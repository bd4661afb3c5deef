"""Vortex Based Magic: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.vortex import service, ui
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
    web=f"{__name__}.web",
    leaderboard="Vortex Based Magic",
    help=FormatHelp(
        key="vortex",
        name="Vortex Based Magic",
        start="`/vortex start cube:<cube>`: 2–5 players share one shoe and every draw is a pick from a pack",
        about="There are no libraries: everyone shares a face-down shoe, and every draw refills your hidden "
              "7-card pack from it, then you pick one card. The bot keeps the hidden zones; you play the game.",
        flow=(
            "**Start:** `/vortex start cube` (an organizer).",
            "**Join:** `/vortex join` or the Join button (2–5 players); `/vortex leave`.",
            "**Begin:** `/vortex begin`: 4 opening picks each by DM, then 3 basic lands.",
            "**Play:** `/vortex draw` (a pick by DM), `/vortex shoe` for mill, look or search, "
            "`/vortex pass` to end your turn.",
            "**Table:** `/vortex play card`, `/vortex move card from to`, `/vortex life amount`.",
            "**Follow:** `/vortex status`; `/vortex hand` your cards.",
            "**End:** `/vortex end winner` (organizer; asks first); `/vortex cancel` records nothing.",
        ),
        more="`/vortex mulligan` in your upkeep · `/vortex resend` · `/clock start` a chess clock.",
    ),
)
