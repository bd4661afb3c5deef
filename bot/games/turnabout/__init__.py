"""Turnabout: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.turnabout import rules, service, ui, web
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Turnabout",
    order=3,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    components=(ui.LobbyButton,),
    claims=(ui.ANSWERING,),
    forms=(),
    outbox_kinds=(service.ANNOUNCE, service.DECKLIST, service.FINAL),
    deadline_kinds=(),
    renderers=ui.RENDERERS,
    events=(rules.Event,),
    page_lists=(ui.STANDINGS_PAGES, ui.RATING_PAGES),
    web=web.PAGES,
    leaderboard="Turnabout",
    help=FormatHelp(
        key="turnabout",
        name="Turnabout",
        start="`/turnabout start`: a Swiss event where game 1 of every match is played with the opponent's deck",
        about="Every match is two games: game 1 with your opponent's deck, game 2 with your own. Games "
              "score match points, matches split 30 Victory Points, and rounds are Swiss.",
        flow=(
            "**Start:** `/turnabout start` (an organizer): rounds, clock, the bye's Victory Points (VP).",
            "**Join:** `/turnabout join deck scoring decklist`; `/turnabout leave`.",
            "**Begin:** `/turnabout begin` (4+ players).",
            "**Each round:** `/turnabout pair` (organizer); play game 1 with your opponent's deck, game 2 "
            "with yours, and `/turnabout report` each; the opponent confirms or disputes.",
            "**Follow:** `/turnabout status` the standings; `/turnabout settle` (an organizer not in "
            "the match) decides a dispute.",
            "**End:** `/turnabout end` (organizer; asks first). `/turnabout cancel` records nothing.",
        ),
        more="`/turnabout rating` the server's ratings · `/clock start` a chess clock.",
    ),
)
