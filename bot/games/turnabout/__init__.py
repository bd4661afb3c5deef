"""Turnabout: the format as the rest of the bot sees it (`FORMAT`), declared once here."""

from __future__ import annotations

from bot.games.turnabout import service, ui
from bot.kit import claims_ui
from bot.kit.formats import Format, FormatHelp

FORMAT = Format(
    key=service.KIND,
    name="Turnabout",
    order=3,
    cog=f"{__name__}.cog",
    spec=service.SPEC,
    components=(ui.LobbyButton,),
    claims=(claims_ui.answers(service.KIND),),
    forms=(),
    outbox_kinds=(service.ANNOUNCE, service.DECKLIST, service.FINAL, service.REPORT_DONE),
    deadline_kinds=(),
    web=f"{__name__}.web",
    leaderboard="Turnabout",
    help=FormatHelp(
        key="turnabout",
        name="Turnabout",
        start="`/turnabout start`: a Swiss event where game 1 of every match is played with the opponent's deck",
        about="Every match is two games: game 1 with your opponent's deck, game 2 with your own. Games "
              "score match points, matches split 30 Victory Points, and rounds are Swiss.",
        flow=(
            "**Start:** `/turnabout start` (an organizer), with rounds, a chess clock (its minutes and delay or "
            "increment) and the bye's VP.",
            "**Join:** `/turnabout join deck scoring decklist` enters your deck and its scoring option "
            "(again to change them); `/turnabout leave` gives the seat up (after begin: drops you, asks first).",
            "**Begin:** `/turnabout begin` (at least 4 players).",
            "**Each round:** `/turnabout pair` (organizer) posts the pairings; players play both games and "
            "send `/turnabout report` for each; the opponent presses Confirm or Dispute.",
            "**Follow:** `/turnabout status` shows the standings; `/turnabout settle` (an organizer who does "
            "not play in that match) decides a dispute or a no-show.",
            "**End:** `/turnabout end` (organizer, after a finished round; asks first) posts the final ranking "
            "and rating awards. `/turnabout cancel` stops it with nothing recorded.",
        ),
        rules="Decks: 60+ cards, no sideboard, no ante cards, nothing fetched from outside the game. Game 1: "
              "5 minutes to study the opponent's deck; game 2: 3 minutes, and whoever played first plays "
              "second. A game's winner scores by the losing deck's option: Dominaria 10 + life, Tolaria 10 + "
              "half the library, Phyrexia 30 − 2 × poison (always 10 to 30). Never the same opponent twice: "
              "after drops, rounds that would need a rematch leave the schedule.",
        more="`/turnabout rating` the server's ratings over all events · `/clock start` a chess clock.",
    ),
)
