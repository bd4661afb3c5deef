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
    components=(ui.LobbyButton, ui.PickButton, ui.LandButton, ui.LookButton, ui.SearchSelect, ui.SearchButton),
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
            "**Begin:** `/vortex begin` deals the packs; the opening hands are 4 picks each by DM, then 3 "
            "basic lands.",
            "**Play:** `/vortex draw` to draw (a pick by DM), `/vortex shoe` for mill, look, search and the "
            "like, `/vortex mulligan` in your upkeep, `/vortex pass` to end your turn.",
            "**Table:** `/vortex play card` puts a card from your hand onto the battlefield; `/vortex move card "
            "from to` moves one between your hand, the battlefield, your graveyard and exile; `/vortex life "
            "amount` (−3 for damage, 2 for life gained).",
            "**Follow:** `/vortex status` the public state (every zone's size, life); `/vortex hand` your cards; "
            "`/vortex resend` DMs again what waits for your answer.",
            "**End:** `/vortex end winner` (organizer; asks first) records the winner; without a winner "
            "nothing is recorded. `/vortex cancel` stops a game with nothing recorded.",
        ),
        rules="The shoe is the cube plus one of each basic land per player. Draw: refill your pack to exactly "
              "7 from the shoe, then pick one. Picking from an empty pack counters the stack, ends the turn "
              "and costs 1 life. After your turn your pack and the passed pack swap. In your upkeep, with 5+ "
              "basic lands in your pack, you may exile it and refill to 5 until the end of the turn.",
        more="`/clock start` a chess clock between two players, if you like.",
    ),
)
